/* SPDX-License-Identifier: MIT */
/*
 * fuzz_hist.c - libFuzzer target for the tracepoint decoder (lib/format/tpevent/tpdecode.c)
 * and the latency trackers (lib/engine/latency.c) on hostile raw data and streams.
 *
 * Byte 0 picks the byte order of the formats.  Then records:
 *   u8 event index, u8 cpu, u16 time delta (x64 ns), u8 raw length, raw bytes
 * Each record is decoded (any raw content, any length) and fed to trackers
 * with tiny tables; time may jump; CPUs may be out of range.  At the end
 * every histogram is written through histout to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <traceevent/event-parse.h>

#include "engine/latency.h"
#include "print/histout.h"
#include "format/tracedata.h"
#include "format/tpevent.h"

/* The events, read from tests/data/formats (the tracefs layout of a real
 * kernel); an input's event index picks one in this order. */
#ifndef LATSCOPE_FORMATS_DIR
#define LATSCOPE_FORMATS_DIR "tests/data/formats"
#endif
static const char *const fz_specs[] = {
	"sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup",
	"sched:sched_migrate_task", "sched:sched_process_exit", "irq:irq_handler_entry",
	"timer:hrtimer_start", "timer:hrtimer_cancel", "timer:hrtimer_expire_entry",
	"timer:hrtimer_expire_exit", "irq_vectors:local_timer_entry", "nmi:nmi_handler",
	"preemptirq:irq_disable", "preemptirq:irq_enable", "preemptirq:preempt_disable",
	"preemptirq:preempt_enable", "osnoise:irq_noise", "osnoise:thread_noise",
};
#define FZ_NR (sizeof(fz_specs) / sizeof(fz_specs[0]))

struct fz_state {
	struct tep_handle *tep;
	struct tpdecode *d;
	int ids[FZ_NR];
};
static struct fz_state fz[2];
static FILE *devnull;

static void fz_init(int be)
{
	struct fz_state *s = &fz[be];
	struct tracedata_formats *f = NULL;
	if (tracedata_collect(LATSCOPE_FORMATS_DIR, fz_specs, FZ_NR, &f) < 0 || f->nr_events != FZ_NR) {
		fprintf(stderr, "fuzz_hist: cannot read the formats in %s\n", LATSCOPE_FORMATS_DIR);
		abort();
	}
	s->tep = tep_alloc();
	tep_set_long_size(s->tep, 8);
	tep_set_file_bigendian(s->tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (size_t i = 0; i < FZ_NR; i++) {
		const struct tracedata_event *e = &f->events[i];
		tep_parse_event(s->tep, e->format, strlen(e->format), e->system);
		s->ids[i] = (int)e->id;
	}
	tracedata_free(f);
	s->d = tpdecode_new(s->tep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int be = data[0] & 1;
	if (!fz[be].tep)
		fz_init(be);
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	struct fz_state *s = &fz[be];
	struct latency_cfg cfg;
	struct latency *l;
	latency_cfg_default(&cfg, 3);
	cfg.pid_table = 8;
	cfg.timer_table = 8;
	cfg.all_tasks = data[0] & 2;
	cfg.both_off = data[0] & 4;
	cfg.start_on_waking = data[0] & 8;
	cfg.pid = (data[0] & 16) ? 7 : 0;
	cfg.hist.nr_buckets = 512;	/* small: more runs per second */
	if (data[0] & 32) {
		cfg.hist.lo_ns = -5000;
		cfg.hist.bucket_ns = 100;
		cfg.hist.nr_buckets = 300;
	}
	if (latency_new(&l, &cfg))
		return 0;
	uint64_t t = 1000;
	size_t p = 1;
	while (p + 5 <= size) {
		size_t ev = data[p] % (FZ_NR + 1);
		uint32_t cpu = data[p + 1] % 4;
		uint16_t dt = (uint16_t)(data[p + 2] | data[p + 3] << 8);
		size_t len = data[p + 4];
		p += 5;
		if (len > size - p)
			len = size - p;
		t += (uint64_t)dt * 64;
		if (dt == 0xffff)
			t -= 100000;	/* time going backwards */
		struct tpevent e;
		memset(&e, 0, sizeof(e));
		e.time_ns = t;
		e.cpu = cpu;
		int id = ev < FZ_NR ? s->ids[ev] : 424242;
		if (tpdecode_decode(s->d, id, data + p, len, &e) == 0)
			latency_feed(l, &e);
		tpdecode_kind(s->d, id);
		p += len;
	}
	bool types[HSET_NR_KINDS], uns[HSET_NR_KINDS] = { 0 };
	for (int i = 0; i < HSET_NR_KINDS; i++) {
		types[i] = true;
		char line[256];
		for (uint32_t c = 0; c < 3; c++) {
			histout_hist_file(devnull, hset_hist(latency_set(l), i, c), &cfg.hist, true);
			histout_maxline(line, sizeof(line), hset_max(latency_set(l), i, c));
		}
		histout_term(devnull, latency_set(l), i, 5);
	}
	struct json_object *j = histout_json(latency_set(l), types, uns, true);
	json_object_put(j);
	latency_free(l);
	return 0;
}
