/* SPDX-License-Identifier: MIT */
/*
 * histfix - write a perf.data with tracepoint samples described line by line
 * on stdin (test fixtures for `latscope hist report`):
 *
 *   <time_ns> <cpu> <system>:<event> [field=value]...
 *
 * Numbers are decimal or 0x hex; fields that are char arrays or __data_loc
 * strings take the value as a string.  Blank lines and lines starting with
 * '#' are skipped.  Formats come from DIR laid out like tracefs events/
 * (tests/data/formats), so the output is the same on every machine.
 *
 *   histfix -o FILE --formats DIR [--big-endian] [--pipe] < script
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "format/pdwrite.h"
#include "format/tracedata.h"
#include "format/tpencode.h"

#define MAX_EVENTS 64
#define NR_CPUS 2

struct evd {
	char name[96];
	struct tep_event *ev;
	int evsel;
	int size;
};

static int event_size(struct tep_event *e)
{
	int end = 0;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	for (struct tep_format_field *f = e->format.common_fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	return end;
}

int main(int argc, char **argv)
{
	const char *outp = NULL, *formats = NULL;
	bool be = false, pipe = false;
	static const struct option lo[] = {
		{ "big-endian", no_argument, NULL, 'B' },
		{ "pipe", no_argument, NULL, 'P' },
		{ "formats", required_argument, NULL, 'f' },
		{ 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case 'B': be = true; break;
		case 'P': pipe = true; break;
		case 'f': formats = optarg; break;
		default:
			fprintf(stderr, "usage: histfix -o FILE --formats DIR [--big-endian] [--pipe] < script\n");
			return 2;
		}
	}
	if (!outp || !formats)
		return 2;

	/* Read the whole script first: the event set must be known up front. */
	char *lines[8192];
	size_t nl = 0;
	char buf[1024];
	while (fgets(buf, sizeof(buf), stdin) && nl < 8192) {
		buf[strcspn(buf, "\n")] = 0;
		if (!buf[0] || buf[0] == '#')
			continue;
		lines[nl++] = strdup(buf);
	}
	struct evd ev[MAX_EVENTS];
	size_t ne = 0;
	const char *specs[MAX_EVENTS];
	for (size_t i = 0; i < nl; i++) {
		char name[96];
		if (sscanf(lines[i], "%*s %*s %95s", name) != 1) {
			fprintf(stderr, "histfix: bad line: %s\n", lines[i]);
			return 2;
		}
		size_t k;
		for (k = 0; k < ne; k++)
			if (!strcmp(ev[k].name, name))
				break;
		if (k == ne) {
			if (ne == MAX_EVENTS)
				return 2;
			memset(&ev[ne], 0, sizeof(ev[ne]));
			snprintf(ev[ne].name, sizeof(ev[ne].name), "%s", name);
			specs[ne] = ev[ne].name;
			ne++;
		}
	}
	struct tracedata_formats *tf = NULL;
	int err = tracedata_collect(formats, specs, ne, &tf);
	if (err) {
		fprintf(stderr, "histfix: formats: %s\n", strerror(-err));
		return 2;
	}
	struct tep_handle *tep = tep_alloc();
	tep_set_long_size(tep, 8);
	struct pdwrite *w;
	struct pdwrite_opts o = { .big_endian = be, .pipe = pipe };
	err = pdwrite_open(&w, outp, &o);
	if (err) {
		fprintf(stderr, "histfix: %s: %s\n", outp, strerror(-err));
		return 2;
	}
	bool swap = pdwrite_needs_swap(w);
	for (size_t k = 0; k < ne; k++) {
		char sys[64];
		const char *colon = strchr(ev[k].name, ':');
		if (!colon)
			return 2;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev[k].name), ev[k].name);
		const struct tracedata_event *te = tracedata_find(tf, sys, colon + 1);
		if (!te || tep_parse_event(tep, te->format, strlen(te->format), sys)) {
			fprintf(stderr, "histfix: cannot parse %s\n", ev[k].name);
			return 2;
		}
		ev[k].ev = tep_find_event_by_name(tep, sys, colon + 1);
		if (!ev[k].ev)
			return 2;
		ev[k].size = event_size(ev[k].ev);
		struct pdformat_attr a = { 0 };
		a.type = PDFORMAT_TYPE_TRACEPOINT;
		a.config = te->id;
		a.sample_period = 1;
		a.sample_type = PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME |
				PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_PERIOD | PDFORMAT_SAMPLE_RAW;
		a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL);
		uint64_t ids[NR_CPUS] = { 1000 + 2 * k, 1001 + 2 * k };
		ev[k].evsel = pdwrite_add_evsel(w, &a, ev[k].name, ids, NR_CPUS);
		if (ev[k].evsel < 0)
			return 2;
	}
	err = tracedata_set_tracing_data(w, tf, be);
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "histfix");
	if (!err)
		err = pdwrite_set_nrcpus(w, NR_CPUS, NR_CPUS);
	if (!err)
		err = pdwrite_begin_data(w);

	uint8_t raw[512];
	for (size_t i = 0; i < nl && !err; i++) {
		char *save = NULL, *line = lines[i];
		unsigned long long t = strtoull(strtok_r(line, " \t", &save), NULL, 0);
		unsigned cpu = (unsigned)strtoul(strtok_r(NULL, " \t", &save), NULL, 0);
		const char *name = strtok_r(NULL, " \t", &save);
		size_t k;
		for (k = 0; k < ne && strcmp(ev[k].name, name); k++)
			;
		if (k == ne || cpu >= NR_CPUS)
			return 2;
		memset(raw, 0, sizeof(raw));
		size_t size = (size_t)ev[k].size;
		char id[24];
		snprintf(id, sizeof(id), "%d", ev[k].ev->id);
		if (tpencode_field(raw, sizeof(raw), &size,
				  tep_find_common_field(ev[k].ev, "common_type"), id, swap))
			return 2;
		int32_t pid = 0;
		for (char *kv = strtok_r(NULL, " \t", &save); kv; kv = strtok_r(NULL, " \t", &save)) {
			char *eq = strchr(kv, '=');
			if (!eq)
				return 2;
			*eq = 0;
			struct tep_format_field *f = tep_find_any_field(ev[k].ev, kv);
			if (!f) {
				fprintf(stderr, "histfix: %s has no field %s\n", name, kv);
				return 2;
			}
			if (tpencode_field(raw, sizeof(raw), &size, f, eq + 1, swap)) {
				fprintf(stderr, "histfix: %s: cannot write %s=%s\n", name, kv, eq + 1);
				return 2;
			}
			if (!strcmp(kv, "common_pid"))
				pid = (int32_t)strtol(eq + 1, NULL, 0);
		}
		struct pdread_sample s = {
			.pid = (uint32_t)pid, .tid = (uint32_t)pid, .time = t,
			.id = 1000 + 2 * k + cpu, .cpu = cpu, .period = 1,
			.raw = raw, .raw_size = (uint32_t)size,
		};
		err = pdwrite_write_sample(w, ev[k].evsel, PDFORMAT_MISC_KERNEL, &s);
		free(lines[i]);
	}
	int cerr = pdwrite_close(w);
	if (!err)
		err = cerr;
	tep_free(tep);
	tracedata_free(tf);
	if (err) {
		fprintf(stderr, "histfix: writing %s: %s\n", outp, strerror(-err));
		return 2;
	}
	return 0;
}
