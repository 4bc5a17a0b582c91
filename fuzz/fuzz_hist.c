/* SPDX-License-Identifier: MIT */
/*
 * fuzz_hist.c - libFuzzer target for the tracepoint decoder (lib/tpdecode.c)
 * and the latency trackers (lib/latency.c) on hostile raw data and streams.
 *
 * Byte 0 picks the byte order of the formats.  Then records:
 *   u8 event index, u8 cpu, u16 time delta (x64 ns), u8 raw length, raw bytes
 * Each record is decoded (any raw content, any length) and fed to trackers
 * with tiny tables; time may jump; CPUs may be out of range.  At the end
 * every histogram is written through lhout to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>
#include <traceevent/event-parse.h>

#include "latency.h"
#include "lhout.h"
#include "tpevent.h"

/* tests/data/formats texts (print fmt shortened) */
static const struct {
	const char *sys, *text;
} fz_fmts[] = {
	{ "sched",
	  "name: sched_switch\n"
	  "ID: 372\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:char prev_comm[16];	offset:8;	size:16;	signed:0;\n"
	  "	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;\n"
	  "	field:int prev_prio;	offset:28;	size:4;	signed:1;\n"
	  "	field:long prev_state;	offset:32;	size:8;	signed:1;\n"
	  "	field:char next_comm[16];	offset:40;	size:16;	signed:0;\n"
	  "	field:pid_t next_pid;	offset:56;	size:4;	signed:1;\n"
	  "	field:int next_prio;	offset:60;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "sched",
	  "name: sched_waking\n"
	  "ID: 375\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:char comm[16];	offset:8;	size:16;	signed:0;\n"
	  "	field:pid_t pid;	offset:24;	size:4;	signed:1;\n"
	  "	field:int prio;	offset:28;	size:4;	signed:1;\n"
	  "	field:int target_cpu;	offset:32;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "sched",
	  "name: sched_wakeup\n"
	  "ID: 374\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:char comm[16];	offset:8;	size:16;	signed:0;\n"
	  "	field:pid_t pid;	offset:24;	size:4;	signed:1;\n"
	  "	field:int prio;	offset:28;	size:4;	signed:1;\n"
	  "	field:int target_cpu;	offset:32;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "sched",
	  "name: sched_migrate_task\n"
	  "ID: 371\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:__data_loc char[] comm;	offset:8;	size:4;	signed:0;\n"
	  "	field:pid_t pid;	offset:12;	size:4;	signed:1;\n"
	  "	field:int prio;	offset:16;	size:4;	signed:1;\n"
	  "	field:int orig_cpu;	offset:20;	size:4;	signed:1;\n"
	  "	field:int dest_cpu;	offset:24;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "sched",
	  "name: sched_process_exit\n"
	  "ID: 369\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:char comm[16];	offset:8;	size:16;	signed:0;\n"
	  "	field:pid_t pid;	offset:24;	size:4;	signed:1;\n"
	  "	field:int prio;	offset:28;	size:4;	signed:1;\n"
	  "	field:bool group_dead;	offset:32;	size:1;	signed:0;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "irq",
	  "name: irq_handler_entry\n"
	  "ID: 225\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:int irq;	offset:8;	size:4;	signed:1;\n"
	  "	field:__data_loc char[] name;	offset:12;	size:4;	signed:0;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "timer",
	  "name: hrtimer_start\n"
	  "ID: 460\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:void * hrtimer;	offset:8;	size:8;	signed:0;\n"
	  "	field:void * function;	offset:16;	size:8;	signed:0;\n"
	  "	field:s64 expires;	offset:24;	size:8;	signed:1;\n"
	  "	field:s64 softexpires;	offset:32;	size:8;	signed:1;\n"
	  "	field:enum hrtimer_mode mode;	offset:40;	size:4;	signed:0;\n"
	  "	field:bool was_armed;	offset:44;	size:1;	signed:0;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "timer",
	  "name: hrtimer_cancel\n"
	  "ID: 457\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:void * hrtimer;	offset:8;	size:8;	signed:0;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "timer",
	  "name: hrtimer_expire_entry\n"
	  "ID: 459\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:void * hrtimer;	offset:8;	size:8;	signed:0;\n"
	  "	field:s64 now;	offset:16;	size:8;	signed:1;\n"
	  "	field:void * function;	offset:24;	size:8;	signed:0;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "timer",
	  "name: hrtimer_expire_exit\n"
	  "ID: 458\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:void * hrtimer;	offset:8;	size:8;	signed:0;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "irq_vectors",
	  "name: local_timer_entry\n"
	  "ID: 165\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:int vector;	offset:8;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "nmi",
	  "name: nmi_handler\n"
	  "ID: 170\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:void * handler;	offset:8;	size:8;	signed:0;\n"
	  "	field:s64 delta_ns;	offset:16;	size:8;	signed:1;\n"
	  "	field:int handled;	offset:24;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "preemptirq",
	  "name: irq_disable\n"
	  "ID: 1111\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:s32 caller_offs;	offset:8;	size:4;	signed:1;\n"
	  "	field:s32 parent_offs;	offset:12;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "preemptirq",
	  "name: irq_enable\n"
	  "ID: 1112\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:s32 caller_offs;	offset:8;	size:4;	signed:1;\n"
	  "	field:s32 parent_offs;	offset:12;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "preemptirq",
	  "name: preempt_disable\n"
	  "ID: 1113\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:s32 caller_offs;	offset:8;	size:4;	signed:1;\n"
	  "	field:s32 parent_offs;	offset:12;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "preemptirq",
	  "name: preempt_enable\n"
	  "ID: 1114\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:s32 caller_offs;	offset:8;	size:4;	signed:1;\n"
	  "	field:s32 parent_offs;	offset:12;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "osnoise",
	  "name: irq_noise\n"
	  "ID: 1103\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:__data_loc char[] desc;	offset:8;	size:4;	signed:0;\n"
	  "	field:u64 start;	offset:16;	size:8;	signed:0;\n"
	  "	field:u64 duration;	offset:24;	size:8;	signed:0;\n"
	  "	field:int vector;	offset:32;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
	{ "osnoise",
	  "name: thread_noise\n"
	  "ID: 1105\n"
	  "format:\n"
	  "	field:unsigned short common_type;	offset:0;	size:2;	signed:0;\n"
	  "	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;\n"
	  "	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;\n"
	  "	field:int common_pid;	offset:4;	size:4;	signed:1;\n"
	  "\n"
	  "	field:char comm[16];	offset:8;	size:16;	signed:0;\n"
	  "	field:u64 start;	offset:24;	size:8;	signed:0;\n"
	  "	field:u64 duration;	offset:32;	size:8;	signed:0;\n"
	  "	field:pid_t pid;	offset:40;	size:4;	signed:1;\n"
	  "\n"
	  "print fmt: \"x\"\n" },
};
#define FZ_NR (sizeof(fz_fmts) / sizeof(fz_fmts[0]))

struct fz_state {
	struct tep_handle *tep;
	struct tpd *d;
	int ids[FZ_NR];
};
static struct fz_state fz[2];
static FILE *devnull;

static void fz_init(int be)
{
	struct fz_state *s = &fz[be];
	s->tep = tep_alloc();
	tep_set_long_size(s->tep, 8);
	tep_set_file_bigendian(s->tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (size_t i = 0; i < FZ_NR; i++) {
		tep_parse_event(s->tep, fz_fmts[i].text, strlen(fz_fmts[i].text), fz_fmts[i].sys);
		int id = 0;
		sscanf(strstr(fz_fmts[i].text, "ID: "), "ID: %d", &id);
		s->ids[i] = id;
	}
	s->d = tpd_new(s->tep);
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
	struct lat_cfg cfg;
	struct lat *l;
	lat_cfg_default(&cfg, 3);
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
	if (lat_new(&l, &cfg))
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
		struct tpe e;
		memset(&e, 0, sizeof(e));
		e.time_ns = t;
		e.cpu = cpu;
		int id = ev < FZ_NR ? s->ids[ev] : 424242;
		if (tpd_decode(s->d, id, data + p, len, &e) == 0)
			lat_feed(l, &e);
		tpd_kind(s->d, id);
		p += len;
	}
	bool types[LAT_NR_TYPES], uns[LAT_NR_TYPES] = { 0 };
	for (int i = 0; i < LAT_NR_TYPES; i++) {
		types[i] = true;
		char line[256];
		for (uint32_t c = 0; c < 3; c++) {
			lhout_hist_file(devnull, lat_hist(l, i, c), &cfg.hist, true);
			lhout_maxline(line, sizeof(line), lat_max(l, i, c));
		}
		lhout_term(devnull, l, i, 5);
	}
	struct json_object *j = lhout_json(l, types, uns, true);
	json_object_put(j);
	lat_free(l);
	return 0;
}
