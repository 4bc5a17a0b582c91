/* SPDX-License-Identifier: MIT */
/*
 * mkfixture - write a small, deterministic perf.data with sched:sched_switch
 * and sched:sched_wakeup tracepoint samples through lib/pdwrite.
 *
 *   mkfixture -o FILE [--big-endian] [--pipe] [-n NSAMPLES] [--seed S]
 *             [--formats DIR] [--offline] [--attr-size N] [--no-comm]
 *             [--checkpoint K [--kill]]
 *
 * --checkpoint K: a checkpointed file (pdwrite_checkpoint) with a checkpoint
 * after every K samples; --kill: end after the last sample the way a
 * SIGKILL ends a recorder (no pdwrite_close: the file as the last
 * checkpoint left it, the samples buffered since then lost).
 *
 * Formats come from the live tracefs when it is readable, else (or with
 * --offline) from DIR laid out like tracefs events/ (tests/data/formats).
 * The samples are a pseudo-random walk of a few fake tasks over 2 CPUs;
 * the same seed gives the same events in either byte order.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"
#include "format/tpencode.h"

#define NR_TASKS 6
#define NR_CPUS 2

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64*: deterministic, platform independent */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	uint64_t v = rng_state * 2685821657736338717ULL;
	return n ? (uint32_t)((v >> 32) % n) : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mkfixture -o FILE [--big-endian] [--pipe] [-n NSAMPLES] [--seed S]\n"
		   "                 [--formats DIR] [--offline] [--attr-size N] [--no-comm]\n"
		   "                 [--checkpoint K [--kill]]\n");
}

int main(int argc, char **argv)
{
	const char *outp = NULL, *formats = NULL;
	bool be = false, pipe = false, offline = false, comm = true, kill = false;
	unsigned long nsamples = 100, seed = 1, attr_size = 0, ckpt_every = 0;
	static const struct option lo[] = {
		{ "big-endian", no_argument, NULL, 'B' },
		{ "pipe", no_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 's' },
		{ "formats", required_argument, NULL, 'f' },
		{ "offline", no_argument, NULL, 'O' },
		{ "attr-size", required_argument, NULL, 'a' },
		{ "no-comm", no_argument, NULL, 'C' },
		{ "checkpoint", required_argument, NULL, 'K' },
		{ "kill", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:n:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': outp = optarg; break;
		case 'n': nsamples = strtoul(optarg, NULL, 0); break;
		case 'B': be = true; break;
		case 'P': pipe = true; break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'f': formats = optarg; break;
		case 'O': offline = true; break;
		case 'a': attr_size = strtoul(optarg, NULL, 0); break;
		case 'C': comm = false; break;
		case 'K': ckpt_every = strtoul(optarg, NULL, 0); break;
		case 'k': kill = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!outp || optind != argc || (kill && !ckpt_every)) {
		usage(stderr);
		return 2;
	}
	rng_state = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed * 0x100000001B3ULL);
	if (!rng_state)
		rng_state = 1;

	static const char *const specs[] = { "sched:sched_switch", "sched:sched_wakeup" };
	struct tracedata_formats *tf = NULL;
	int err = -ENOENT;
	if (!offline)
		err = tracedata_collect(NULL, specs, 2, &tf);
	if (err && formats)
		err = tracedata_collect(formats, specs, 2, &tf);
	if (err) {
		fprintf(stderr, "mkfixture: cannot read the sched formats (%s); pass --formats DIR\n",
			strerror(-err));
		return 2;
	}

	struct tep_handle *tep = tep_alloc();
	uint64_t tp_ids[2];
	if (!tep)
		return 2;
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (int i = 0; i < 2; i++) {
		const struct tracedata_event *te = tracedata_find(tf, "sched", i ? "sched_wakeup" : "sched_switch");
		if (!te || tep_parse_event(tep, te->format, strlen(te->format), "sched")) {
			fprintf(stderr, "mkfixture: cannot parse the %s format\n", specs[i]);
			return 2;
		}
		tp_ids[i] = te->id;
	}
	struct tpdecode *enc = tpdecode_new(tep);
	struct tpevent probe = { .kind = TPEVENT_SCHED_SWITCH };
	if (!enc || tpencode_id(enc, &probe) < 0 ||
	    (probe.kind = TPEVENT_SCHED_WAKEUP, tpencode_id(enc, &probe) < 0)) {
		fprintf(stderr, "mkfixture: the sched formats lack the expected fields\n");
		return 2;
	}

	struct pdwrite *w;
	/* checkpoints only when forced (an hour apart otherwise) */
	struct pdwrite_opts o = { .big_endian = be, .pipe = pipe, .attr_size = (uint32_t)attr_size,
				  .checkpoint = ckpt_every != 0, .checkpoint_ns = 3600000000000ULL };
	err = pdwrite_open(&w, outp, &o);
	if (err) {
		fprintf(stderr, "mkfixture: %s: %s\n", outp, strerror(-err));
		return 2;
	}
	bool swap = pdwrite_needs_swap(w);

	int evi[2];
	for (int i = 0; i < 2; i++) {
		struct pdformat_attr a = { 0 };
		a.type = PDFORMAT_TYPE_TRACEPOINT;
		a.config = tp_ids[i];
		a.sample_period = 1;
		a.sample_type = PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_CPU |
				PDFORMAT_SAMPLE_PERIOD | PDFORMAT_SAMPLE_RAW | PDFORMAT_SAMPLE_IDENTIFIER;
		a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_INHERIT) |
			  (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) | (1ULL << PDFORMAT_ATTR_FLAG_EXCLUDE_GUEST);
		uint64_t ids[NR_CPUS] = { 101 + 2 * (uint64_t)i, 102 + 2 * (uint64_t)i };
		evi[i] = pdwrite_add_evsel(w, &a, specs[i], ids, NR_CPUS);
		if (evi[i] < 0) {
			fprintf(stderr, "mkfixture: add evsel: %s\n", strerror(-evi[i]));
			return 2;
		}
	}

	err = tracedata_set_tracing_data(w, tf, be);
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "fixture");
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_OSRELEASE, "6.18.0-fixture");
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_VERSION, "latscope-mkfixture");
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_ARCH, "x86_64");
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_CPUDESC, "Fixture CPU");
	if (!err)
		err = pdwrite_set_string_feature(w, PDFORMAT_FEAT_CPUID, "GenuineIntel,6,207,2");
	if (!err)
		err = pdwrite_set_nrcpus(w, NR_CPUS, NR_CPUS);
	if (!err)
		err = pdwrite_set_cmdline(w, argc, (const char *const *)argv);
	if (!err)
		err = pdwrite_begin_data(w);
	if (err) {
		fprintf(stderr, "mkfixture: %s\n", strerror(-err));
		pdwrite_close(w);
		return 2;
	}

	char comms[NR_TASKS][16];
	uint32_t pids[NR_TASKS];
	for (int i = 0; i < NR_TASKS; i++) {
		pids[i] = 1000 + 17 * (uint32_t)i;
		snprintf(comms[i], sizeof(comms[i]), "task-%d", i);
	}
	/* The kernel map perf record synthesises: [kernel.kallsyms]_text at its
	 * relocation address; without it perf report warns about kptr_restrict. */
	if (!err) {
		static const char kname[] = "[kernel.kallsyms]_text";
		uint8_t body[32 + sizeof(kname) + 8] = { 0 };
		bytes_st32(body, (uint32_t)-1, swap);
		bytes_st32(body + 4, 0, swap);
		bytes_st64(body + 8, 0xffffffff81000000ULL, swap);
		bytes_st64(body + 16, 0x1000000ULL, swap);
		bytes_st64(body + 24, 0xffffffff81000000ULL, swap);
		memcpy(body + 32, kname, sizeof(kname));
		struct pdread_sample s = { .pid = (uint32_t)-1, .tid = 0, .id = 0, .cpu = 0 };
		err = pdwrite_write_with_trailer(w, evi[0], PDFORMAT_RECORD_MMAP, PDFORMAT_MISC_KERNEL, body,
					     32 + sizeof(kname), &s);
	}
	if (comm) {
		for (int i = 0; i < NR_TASKS && !err; i++) {
			uint8_t body[24] = { 0 };
			bytes_st32(body, pids[i], swap);
			bytes_st32(body + 4, pids[i], swap);
			memcpy(body + 8, comms[i], strlen(comms[i]) + 1);
			struct pdread_sample s = { .pid = pids[i], .tid = pids[i] };
			err = pdwrite_write_with_trailer(w, evi[0], PDFORMAT_RECORD_COMM, 0, body,
						     8 + strlen(comms[i]) + 1, &s);
		}
	}

	int cur[NR_CPUS] = { 0, 1 };
	uint64_t t = 1000ULL * 1000000000ULL + 123456;
	uint8_t raw[256];
	for (unsigned long n = 0; n < nsamples && !err; n++) {
		t += 1 + rnd(50000);
		uint32_t cpu = rnd(NR_CPUS);
		int k = (int)rnd(2);
		int task = cur[cpu];
		struct tpevent e = { .kind = k ? TPEVENT_SCHED_WAKEUP : TPEVENT_SCHED_SWITCH,
				 .pid = (int32_t)pids[task] };
		e.common_flags = (uint8_t)rnd(2);
		e.common_preempt_count = (uint8_t)rnd(3);
		if (k == 0) {
			int next = (int)rnd(NR_TASKS);
			static const uint64_t states[] = { 0, 1, 2, 0x80 };
			snprintf(e.sw.prev_comm, sizeof(e.sw.prev_comm), "%s", comms[task]);
			e.sw.prev_pid = (int32_t)pids[task];
			e.sw.prev_prio = 120;
			e.sw.prev_state = (int64_t)states[rnd(4)];
			snprintf(e.sw.next_comm, sizeof(e.sw.next_comm), "%s", comms[next]);
			e.sw.next_pid = (int32_t)pids[next];
			e.sw.next_prio = 100 + (int32_t)rnd(40);
			cur[cpu] = next;
		} else {
			int wk = (int)rnd(NR_TASKS);
			snprintf(e.wake.comm, sizeof(e.wake.comm), "%s", comms[wk]);
			e.wake.pid = (int32_t)pids[wk];
			e.wake.prio = 120;
			e.wake.target_cpu = (int32_t)rnd(NR_CPUS);
		}
		ssize_t size = tpencode(enc, &e, raw, sizeof(raw));
		if (size < 0)
			return 2;
		struct pdread_sample s = {
			.ip = 0xffffffff81000000ULL + rnd(0x100000),
			.pid = pids[task], .tid = pids[task],
			.time = t,
			.id = 101 + 2 * (uint64_t)k + cpu,
			.cpu = cpu,
			.period = 1,
			.raw = raw,
			.raw_size = (uint32_t)size,
		};
		err = pdwrite_write_sample(w, evi[k], PDFORMAT_MISC_KERNEL, &s);
		if (!err && n % 64 == 63)
			err = pdwrite_finished_round(w);
		if (!err && ckpt_every && n % ckpt_every == ckpt_every - 1)
			err = pdwrite_checkpoint(w, true);
	}
	if (!err && kill)
		_exit(0);	/* what SIGKILL leaves: no close, nothing flushed */
	int cerr = pdwrite_close(w);
	if (!err)
		err = cerr;
	tpdecode_free(enc);
	tep_free(tep);
	tracedata_free(tf);
	if (err) {
		fprintf(stderr, "mkfixture: writing %s: %s\n", outp, strerror(-err));
		return 2;
	}
	return 0;
}
