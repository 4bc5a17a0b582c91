/* SPDX-License-Identifier: MIT */
/* htmlrep.c - the page frame, formatting, the log-scale histogram. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htmlrep_int.h"

static const char *const schemas[] = {
	REPORT_DTL_REPORT, REPORT_HIST, REPORT_OSNOISE, REPORT_TIMERLAT, REPORT_DTL_WHY,
};

bool htmlrep_supported(const char *schema)
{
	for (size_t i = 0; schema && i < sizeof(schemas) / sizeof(schemas[0]); i++)
		if (!strcmp(schema, schemas[i]))
			return true;
	return false;
}

int htmlrep_write(FILE *f, struct json_object *doc)
{
	if (!doc || !json_object_is_type(doc, json_type_object))
		return -EINVAL;
	const char *s = report_str(doc, "schema");
	int rc;
	if (!strcmp(s, schemas[0]))
		rc = htmlrep_dtl(f, doc);
	else if (!strcmp(s, schemas[1]))
		rc = htmlrep_hist(f, doc);
	else if (!strcmp(s, schemas[2]))
		rc = htmlrep_osnoise(f, doc);
	else if (!strcmp(s, schemas[3]))
		rc = htmlrep_timerlat(f, doc);
	else if (!strcmp(s, schemas[4]))
		rc = htmlrep_why(f, doc);
	else
		return -EINVAL;
	if (rc)
		return rc;
	return ferror(f) ? -EIO : 0;
}

const char *htmlrep_strerror(int rc)
{
	switch (rc) {
	case 0: return "no error";
	case -EINVAL: return "not a document with a page (latscope.dtl-report/1, latscope.dtl-why/1, "
			     "latscope.hist/1, latscope.osnoise/1, latscope.timerlat/1)";
	case -EIO: return "write error";
	case -ENOMEM: return "out of memory";
	default: return "error";
	}
}

void htmlrep_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20)
				fputc(' ', f);
			else
				fputc(*s, f);
		}
	}
}

const char *htmlrep_colour(char *buf, const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *p = name; p && *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	/* a hue away from the hypervisor's red/orange/blue, pale enough for text */
	static const char *const pal[] = {
		"#8dd3c7", "#bebada", "#b3de69", "#fccde5", "#d9d9a0", "#bc80bd", "#ccebc5",
		"#ffed6f", "#a6cee3", "#b2df8a", "#cab2d6", "#e5c494", "#66c2a5", "#a6d854",
	};
	snprintf(buf, 8, "%s", pal[h % (sizeof(pal) / sizeof(pal[0]))]);
	return buf;
}

void htmlrep_page_start(FILE *f, const char *title, const char *subtitle)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	htmlrep_esc(f, title);
	fputs("</title>\n<style>\n"
	      "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	      "margin:24px auto;max-width:1320px;padding:0 16px;color:#222;background:#fff}\n"
	      "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
	      "border-bottom:2px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}\n"
	      ".sub{color:#555;margin-bottom:12px}.note{color:#666;font-size:13px;margin:4px 0 8px}\n"
	      "table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}"
	      "th,td{padding:3px 9px;border-bottom:1px solid #e4e4e4;text-align:right}"
	      "th{background:#f3f3f3;text-align:center}td.l,th.l{text-align:left}"
	      "tr:nth-child(even) td{background:#fafafa}\n"
	      ".kv{display:flex;flex-wrap:wrap;gap:8px 28px;margin:8px 0}.kv div{white-space:nowrap}"
	      ".kv b{font-size:17px}\n"
	      ".grid{display:flex;flex-wrap:wrap;gap:10px}"
	      "svg{background:#fff}svg text{font-family:inherit}\n"
	      ".warn{background:#fff3cd;border:1px solid #e0c060;padding:6px 10px;margin:8px 0}\n"
	      "</style></head><body>\n<h1>", f);
	htmlrep_esc(f, title);
	fputs("</h1>\n<div class=\"sub\">", f);
	htmlrep_esc(f, subtitle);
	fputs("</div>\n", f);
}

void htmlrep_page_end(FILE *f)
{
	fputs("<p class=\"note\">Made by latscope from its JSON document (docs/json.md); "
	      "times in ns in the document, shown here rounded.  Hover a mark for its values."
	      "</p>\n</body></html>\n", f);
}

void htmlrep_td_dur(FILE *f, struct json_object *o, const char *key)
{
	char d[32];
	if (report_has(o, key))
		fprintf(f, "<td>%s</td>", report_dur(d, sizeof(d), report_u64(o, key)));
	else
		fputs("<td></td>", f);
}

size_t htmlrep_marks(struct json_object *o, struct htmlrep_mark *m, size_t cap)
{
	static const struct { const char *key, *label; } k[] = {
		{ "p50_ns", "p50" }, { "p99_ns", "p99" }, { "p99_9_ns", "p99.9" }, { "max_ns", "max" },
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]) && n < cap; i++)
		if (report_has(o, k[i].key))
			m[n++] = (struct htmlrep_mark){ k[i].label, report_u64(o, k[i].key) };
	return n;
}

#define HW 600
#define HH 250
#define ML 58
#define MR 28
#define MT 70
#define MB 40

static double xpos(double lx0, double lx1, uint64_t ns)
{
	double v = ns ? log10((double)ns) : lx0;
	if (v < lx0)
		v = lx0;
	if (v > lx1)
		v = lx1;
	return ML + (v - lx0) / (lx1 - lx0) * (HW - ML - MR);
}

static const char *mark_colour(const char *label)
{
	if (!strcmp(label, "p50"))
		return "#2ca02c";
	if (!strcmp(label, "p90"))
		return "#17becf";
	if (!strcmp(label, "p99"))
		return "#ff7f0e";
	if (!strcmp(label, "max"))
		return "#111";
	return "#d62728";
}

/* The scales of a log-scale histogram: x the decades lx0..lx1 (log10 of
 * ns), y log10(count + 1) over ph pixels up to the tallest column's cmax. */
struct hscale {
	double lx0, lx1;
	int ph;
	uint64_t cmax;
};

/* The range the buckets with samples and the marks span (*lo UINT64_MAX
 * when there is none), and the buckets' total count. */
static uint64_t hist_range(const struct htmlrep_bucket *b, size_t n, const struct htmlrep_mark *m, size_t nm,
			   uint64_t *lo, uint64_t *hi)
{
	uint64_t total = 0;
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (!b[i].count)
			continue;
		uint64_t l = b[i].lo_ns ? b[i].lo_ns : (b[i].hi_ns > 1 ? b[i].hi_ns / 2 : 1);
		if (l < *lo)
			*lo = l;
		if (b[i].hi_ns > *hi)
			*hi = b[i].hi_ns;
		total += b[i].count;
	}
	for (size_t i = 0; i < nm; i++) {
		if (m[i].ns && m[i].ns < *lo)
			*lo = m[i].ns;
		if (m[i].ns > *hi)
			*hi = m[i].ns;
	}
	return total;
}

/* The bars, several buckets in one pixel column summed: a first pass finds
 * the tallest column (sc->cmax), the second draws them, each with its
 * range and count as its title.  lo stands for a bucket's missing lower
 * bound. */
static void hist_bars(FILE *f, const struct htmlrep_bucket *b, size_t n, uint64_t lo, struct hscale *sc)
{
	char d1[32], d2[32];
	long col = -1;
	double cx0 = 0, cx1 = 0;
	uint64_t csum = 0, clo = 0, chi = 0;

	sc->cmax = 0;
	for (int pass = 0; pass < 2; pass++) {
		col = -1;
		csum = 0;
		for (size_t i = 0; i <= n; i++) {
			bool end = i == n;
			double x0 = 0, x1 = 0;
			if (!end) {
				if (!b[i].count)
					continue;
				x0 = xpos(sc->lx0, sc->lx1, b[i].lo_ns ? b[i].lo_ns : lo);
				x1 = xpos(sc->lx0, sc->lx1, b[i].hi_ns);
			}
			if (end || (long)x0 != col) {
				if (col >= 0 && csum) {
					if (!pass) {
						if (csum > sc->cmax)
							sc->cmax = csum;
					} else {
						double h = log10((double)csum + 1) / log10((double)sc->cmax + 1) * sc->ph;
						double w = cx1 - cx0 < 1 ? 1 : cx1 - cx0;
						fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
							"fill=\"#4c78a8\"><title>%s .. %s: %" PRIu64 "</title></rect>\n",
							cx0, MT + sc->ph - h, w, h, report_dur(d1, sizeof(d1), clo),
							report_dur(d2, sizeof(d2), chi), csum);
					}
				}
				if (end)
					break;
				col = (long)x0;
				cx0 = x0;
				cx1 = x1;
				csum = 0;
				clo = b[i].lo_ns;
			}
			csum += b[i].count;
			chi = b[i].hi_ns;
			if (x1 > cx1)
				cx1 = x1;
		}
	}
}

/* The axes: a tick and label per decade on x, per power of ten of the
 * count on y, and their names. */
static void hist_axes(FILE *f, const struct hscale *sc)
{
	char d1[32];
	int ph = sc->ph;

	fprintf(f, "<g stroke=\"#444\" stroke-width=\"1\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>\n", ML, MT + ph, HW - MR, MT + ph,
		ML, MT, ML, MT + ph);
	for (double d = sc->lx0; d <= sc->lx1 + 1e-9; d += 1) {
		double x = xpos(sc->lx0, sc->lx1, (uint64_t)pow(10, d));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
			"<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
			x, MT + ph, x, MT + ph + 4, x, MT + ph + 16,
			report_dur(d1, sizeof(d1), (uint64_t)pow(10, d)));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" fill=\"#444\">"
		"latency (log scale)</text>\n", (ML + HW - MR) / 2, HH - 6);
	for (uint64_t c = 1; c <= sc->cmax; c *= 10) {
		double y = MT + ph - log10((double)c + 1) / log10((double)sc->cmax + 1) * ph;
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#444\"/>"
			"<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%" PRIu64 "</text>\n",
			ML - 4, y, ML, y, ML - 6, y + 4, c);
		if (c > UINT64_MAX / 10)
			break;
	}
	fprintf(f, "<text transform=\"translate(12,%d) rotate(-90)\" font-size=\"11\" "
		"text-anchor=\"middle\" fill=\"#444\">count (log)</text>\n", MT + ph / 2);
}

/* The marks: those within 2 px of each other share one line and label
 * ("p99/p99.9/max 3.38 us"); each label in the highest of three rows
 * where it clears the last one, kept inside the plot. */
static void hist_marks(FILE *f, const struct htmlrep_mark *m, size_t nm, const struct hscale *sc)
{
	char d1[32], d2[32];
	double last[3] = { -1e9, -1e9, -1e9 };
	for (size_t i = 0; i < nm;) {
		double x = xpos(sc->lx0, sc->lx1, m[i].ns);
		size_t j = i + 1;
		while (j < nm && fabs(xpos(sc->lx0, sc->lx1, m[j].ns) - x) < 2)
			j++;
		const char *c = mark_colour(m[j - 1].label);
		char names[64] = "";
		for (size_t k = i; k < j; k++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", k > i ? "/" : "",
				 m[k].label);
		int row = 0;
		while (row < 2 && x - last[row] < 90)
			row++;
		last[row] = x;
		/* anchored so the label stays inside: start, middle or end */
		const char *anchor = x < ML + 70 ? "start" : x > HW - MR - 70 ? "end" : "middle";
		double tx = x < ML + 70 ? x - 4 : x > HW - MR - 70 ? x + 4 : x;
		fprintf(f, "<g class=\"mark\"><title>%s = %s</title><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>"
			"<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"%s\" text-anchor=\"%s\">%s %s"
			"</text></g>\n", names, report_dur(d1, sizeof(d1), m[i].ns), x, 34 + row * 12, x, MT + sc->ph,
			c, tx, 32 + row * 12, c, anchor, names, report_dur(d2, sizeof(d2), m[i].ns));
		i = j;
	}
}

void htmlrep_loghist(FILE *f, const char *title, const struct htmlrep_bucket *b, size_t n,
		     const struct htmlrep_mark *m, size_t nm)
{
	uint64_t lo, hi;
	uint64_t total = hist_range(b, n, m, nm, &lo, &hi);

	fprintf(f, "<svg class=\"hist\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", HW, HH, HW, HH);
	fprintf(f, "<text x=\"%d\" y=\"16\" font-size=\"14\" font-weight=\"bold\">", ML);
	htmlrep_esc(f, title);
	fprintf(f, "</text>\n");
	if (!total || lo == UINT64_MAX) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#777\">no samples</text></svg>\n", ML, HH / 2);
		return;
	}
	/* x: whole decades around the data */
	struct hscale sc = { .lx0 = floor(log10((double)lo)), .lx1 = ceil(log10((double)hi + 1)),
			     .ph = HH - MT - MB };	/* y: log10(count + 1) */
	if (sc.lx1 > 19)	/* 10^19 is the last decade a u64 holds */
		sc.lx1 = 19;
	if (sc.lx0 > 18)
		sc.lx0 = 18;
	if (sc.lx1 <= sc.lx0)
		sc.lx1 = sc.lx0 + 1;
	hist_bars(f, b, n, lo, &sc);
	hist_axes(f, &sc);
	hist_marks(f, m, nm, &sc);
	fprintf(f, "<text x=\"%d\" y=\"16\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">"
		"%" PRIu64 " samples</text>\n</svg>\n", HW - MR, total);
}
