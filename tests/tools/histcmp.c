/* SPDX-License-Identifier: MIT */
/*
 * histcmp - compare the histograms of two `latscope hist ... --buckets-json`
 * outputs: for every histogram type present in both, per CPU: total, below,
 * above, min, max and every non-zero bucket.
 *
 *   histcmp [--counts] [--tolerance NS] A.json B.json [type...]
 *
 * With --counts, only the sample counts (total, below, above) are compared
 * (tests/tools/histpair compares the values sample by sample).
 *
 * With --tolerance, each sample may have moved by up to NS (min/max within
 * NS, cumulative bucket counts interleaved within ceil(NS/bucket) buckets);
 * totals, below and above must still be equal.
 *
 * Prints one line per histogram type ("wakeup: cpu0 2001 = 2001, ...") and
 * every difference; exits 0 when equal, 1 when different, 2 on bad input.
 * Also: histcmp --get A.json input.first_event_ns prints a number field
 * (dotted path; array elements by index: timer_workload.0.p99_ns).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static struct json_object *path_get(struct json_object *o, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *t = strtok_r(buf, ".", &save); o && t;
	     t = strtok_r(NULL, ".", &save)) {
		struct json_object *n = NULL;
		if (json_object_is_type(o, json_type_array)) {
			char *end;
			long i = strtol(t, &end, 10);
			if (*end || i < 0 || (size_t)i >= json_object_array_length(o))
				return NULL;
			n = json_object_array_get_idx(o, (size_t)i);
		} else if (!json_object_object_get_ex(o, t, &n)) {
			return NULL;
		}
		o = n;
	}
	return o;
}

static int64_t iget(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;
	return json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : -1;
}

static struct json_object *cpu_of(struct json_object *cpus, int cpu)
{
	for (size_t i = 0; cpus && i < json_object_array_length(cpus); i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);
		if (iget(c, "cpu") == cpu)
			return c;
	}
	return NULL;
}

static int64_t tol_ns;		/* --tolerance: each sample may move by this much */
static int counts_only;		/* --counts: total, below, above only */

/* Samples of a CPU below bucket edge k (edge index from lo), from the sparse
 * [edge_ns, count] pairs. */
static int64_t cum_below(struct json_object *bk, int64_t lo, int64_t bns, int64_t k)
{
	int64_t n = 0;
	for (size_t i = 0; bk && i < json_object_array_length(bk); i++) {
		struct json_object *p = json_object_array_get_idx(bk, i);
		int64_t e = json_object_get_int64(json_object_array_get_idx(p, 0));
		if ((e - lo) / bns < k)
			n += json_object_get_int64(json_object_array_get_idx(p, 1));
	}
	return n;
}

/* With a tolerance: every sample may have moved by up to `shift` buckets, so
 * the cumulative counts must interleave: CB(k-s) <= CA(k) <= CB(k+s). */
static int shifted_ok(struct json_object *x, struct json_object *y, int64_t lo, int64_t bns,
		      int64_t shift, int64_t *bad_edge)
{
	struct json_object *bx = path_get(x, "buckets"), *by = path_get(y, "buckets");
	int64_t kmax = 0;
	for (int w = 0; w < 2; w++) {
		struct json_object *bk = w ? by : bx;
		for (size_t i = 0; bk && i < json_object_array_length(bk); i++) {
			int64_t e = json_object_get_int64(
				json_object_array_get_idx(json_object_array_get_idx(bk, i), 0));
			if ((e - lo) / bns + 1 > kmax)
				kmax = (e - lo) / bns + 1;
		}
	}
	for (int64_t k = 0; k <= kmax + shift; k++) {
		int64_t ca = cum_below(bx, lo, bns, k), cb = cum_below(by, lo, bns, k);
		int64_t cbm = cum_below(by, lo, bns, k - shift), cbp = cum_below(by, lo, bns, k + shift);
		int64_t cam = cum_below(bx, lo, bns, k - shift), cap = cum_below(bx, lo, bns, k + shift);
		if (ca < cbm || ca > cbp || cb < cam || cb > cap) {
			*bad_edge = lo + k * bns;
			return 0;
		}
	}
	return 1;
}

static int cmp_type(struct json_object *a, struct json_object *b, const char *type)
{
	struct json_object *ta = path_get(a, "histograms"), *tb = path_get(b, "histograms");
	struct json_object *ha = NULL, *hb = NULL;
	int diffs = 0;
	if (!ta || !tb || !json_object_object_get_ex(ta, type, &ha) ||
	    !json_object_object_get_ex(tb, type, &hb)) {
		printf("%s: missing in %s\n", type, !ha ? "the first" : "the second");
		return 1;
	}
	struct json_object *ca = path_get(ha, "cpus"), *cb = path_get(hb, "cpus");
	printf("%s:", type);
	for (int cpu = 0; cpu < 4096; cpu++) {
		struct json_object *x = cpu_of(ca, cpu), *y = cpu_of(cb, cpu);
		if (!x && !y)
			continue;
		int64_t tx = x ? iget(x, "total") : 0, ty = y ? iget(y, "total") : 0;
		printf(" cpu%d %" PRId64 " %s %" PRId64, cpu, tx, tx == ty ? "=" : "!=", ty);
		if (!x || !y) {
			diffs++;
			continue;
		}
		static const char *const f[] = { "total", "below", "above", "min_ns", "max_ns" };
		for (size_t i = 0; i < (counts_only ? 3 : sizeof(f) / sizeof(f[0])); i++)
			if (tol_ns && i >= 3 && llabs(iget(x, f[i]) - iget(y, f[i])) <= tol_ns)
				continue;
			else if (iget(x, f[i]) != iget(y, f[i])) {
				printf(" [%s %" PRId64 " vs %" PRId64 "]", f[i], iget(x, f[i]),
				       iget(y, f[i]));
				diffs++;
			}
		if (counts_only)
			continue;
		if (tol_ns) {
			int64_t lo = iget(a, "lo_ns"), bns = iget(a, "bucket_ns"), bad = 0;
			if (bns <= 0)
				bns = 1;
			int64_t shift = (tol_ns + bns - 1) / bns;
			if (!shifted_ok(x, y, lo, bns, shift, &bad)) {
				printf(" [samples moved by more than %" PRId64 " ns around %" PRId64
				       " ns]", tol_ns, bad);
				diffs++;
			}
			continue;
		}
		struct json_object *bx = path_get(x, "buckets"), *by = path_get(y, "buckets");
		size_t nx = bx ? json_object_array_length(bx) : 0;
		size_t ny = by ? json_object_array_length(by) : 0;
		size_t nbd = 0;
		for (size_t i = 0, j = 0; i < nx || j < ny;) {
			struct json_object *p = i < nx ? json_object_array_get_idx(bx, i) : NULL;
			struct json_object *q = j < ny ? json_object_array_get_idx(by, j) : NULL;
			int64_t kp = p ? json_object_get_int64(json_object_array_get_idx(p, 0)) : INT64_MAX;
			int64_t kq = q ? json_object_get_int64(json_object_array_get_idx(q, 0)) : INT64_MAX;
			int64_t vp = p && kp <= kq ? json_object_get_int64(json_object_array_get_idx(p, 1)) : 0;
			int64_t vq = q && kq <= kp ? json_object_get_int64(json_object_array_get_idx(q, 1)) : 0;
			if (vp != vq) {
				if (nbd < 5)
					printf(" [bucket %" PRId64 " ns: %" PRId64 " vs %" PRId64 "]",
					       kp < kq ? kp : kq, vp, vq);
				nbd++;
				diffs++;
			}
			if (kp <= kq)
				i++;
			if (kq <= kp)
				j++;
		}
		if (nbd > 5)
			printf(" [%zu buckets differ]", nbd);
	}
	printf("\n");
	return diffs ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--get")) {
		struct json_object *j = json_object_from_file(argv[2]);
		struct json_object *v = j ? path_get(j, argv[3]) : NULL;
		if (!v)
			return 2;
		printf("%" PRId64 "\n", json_object_get_int64(v));
		json_object_put(j);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--counts")) {
		counts_only = 1;
		argc--;
		argv++;
	}
	if (argc > 2 && !strcmp(argv[1], "--tolerance")) {
		tol_ns = strtoll(argv[2], NULL, 10);
		argc -= 2;
		argv += 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: histcmp A.json B.json [type...] | histcmp --get A.json a.b.c\n");
		return 2;
	}
	struct json_object *a = json_object_from_file(argv[1]);
	struct json_object *b = json_object_from_file(argv[2]);
	if (!a || !b) {
		fprintf(stderr, "histcmp: cannot parse %s\n", !a ? argv[1] : argv[2]);
		return 2;
	}
	static const char *const deftypes[] = { "wakeup", "wakeup/sharedprio", "missed_timer_offsets",
						"timerandwakeup" };
	int rc = 0;
	if (argc > 3)
		for (int i = 3; i < argc; i++)
			rc |= cmp_type(a, b, argv[i]);
	else
		for (size_t i = 0; i < sizeof(deftypes) / sizeof(deftypes[0]); i++)
			rc |= cmp_type(a, b, deftypes[i]);
	json_object_put(a);
	json_object_put(b);
	return rc;
}
