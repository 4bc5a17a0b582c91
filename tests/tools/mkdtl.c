/* SPDX-License-Identifier: MIT */
/*
 * mkdtl - write small hand-built perf.data files with vpa_dtl AUX data for the
 * DTL golden tests (through lib/pdwrite).
 *
 *   mkdtl -o FILE --formats DIR [--big-endian] [--pipe] [--doc]
 *
 * Default scenario "edge" (times in us after 1000 s of perf time):
 *   CPU 0: buffer A = header, 10, 20, 30; buffer B = 40, 50 + 24 trailing bytes
 *          (payload not a multiple of 48); an AUX record with TRUNCATED and a
 *          LOST record; buffer C after a hole in the AUX offsets = 60,
 *          70 (reasons 200/42, outside the tables), 500 (after the last record).
 *   CPU 1: buffer X = header, 15, 35, 35, 25 (timebase goes backwards);
 *          buffer Y = 600 (after the last record).
 *   sched_switch samples at 5 (cpu 0), 25 (cpu 0), 35 (cpu 1), 45 (cpu 0), 100 (cpu 1).
 * --raw N --tb0 TB [--cpu C] [--partial BYTES]: no perf.data; write N raw
 *   big-endian entries (a debugfs powerpc/dtl/cpu-N file) whose timebases start
 *   at TB and step by 5120 (10 us), processor_id = 8*C, then BYTES stray bytes.
 * --doc: the vpa-dtl documentation's example: one 1680-byte buffer on CPU 16
 *   (header boot_tb 21349649546353231 tb_freq 512000000 + 34 entries, the
 *   first decrementer_interrupt/H_CEDE 7064/187/6611773 at timebase
 *   21403600706628832) and one sched_switch sample after it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "format/dtl.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"
#include "format/tpencode.h"

#define BOOT_TB 21349649546353231ULL
#define FREQ 512000000ULL
#define T0_NS 1000000000000ULL

static struct pdwrite *w;
static bool swap;
static int ev_dtl, ev_sw;
static uint64_t sw_id;
static struct tpdecode *enc;		/* the sched_switch format, in the file's byte order */
static uint64_t aux_head[32];

static uint64_t tb_at_us(uint64_t us)
{
	/* ns = T0 + us*1000; tb = boot + ns * 0.512 */
	return BOOT_TB + (T0_NS + us * 1000) * 512 / 1000;
}

static int sample(uint32_t cpu, uint64_t t_ns, int prev, int next)
{
	uint8_t raw[256];
	struct tpevent e = { .kind = TPEVENT_SCHED_SWITCH, .pid = 100 + prev };

	snprintf(e.sw.prev_comm, sizeof(e.sw.prev_comm), "task-%d", prev);
	e.sw.prev_pid = 100 + prev;
	e.sw.prev_prio = 120;
	e.sw.prev_state = 1;
	snprintf(e.sw.next_comm, sizeof(e.sw.next_comm), "task-%d", next);
	e.sw.next_pid = 100 + next;
	e.sw.next_prio = 120;
	ssize_t size = tpencode(enc, &e, raw, sizeof(raw));
	if (size < 0)
		return (int)size;
	struct pdread_sample s = {
		.ip = 0xc000000000001000ULL, .pid = 100u + (uint32_t)prev, .tid = 100u + (uint32_t)prev,
		.time = t_ns, .id = 200u + cpu, .cpu = cpu, .period = 1,
		.raw = raw, .raw_size = (uint32_t)size,
	};
	return pdwrite_write_sample(w, ev_sw, 1, &s);
}

struct ent {
	uint64_t us;
	uint8_t dr, pr;
	uint32_t e2d, r2e, w2r;
	uint16_t proc;
};

/* AUXTRACE of cpu: optional header, entries, extra trailing bytes; the AUX
 * stream offset advances by the size (plus hole bytes before it). */
static int buffer(uint32_t cpu, bool header, const struct ent *e, size_t n, size_t trailing, uint64_t hole)
{
	uint8_t buf[4096];
	size_t len = 0;

	memset(buf, 0, sizeof(buf));
	if (header) {
		struct dtl_tbinfo tb = { BOOT_TB, FREQ };
		dtl_header_write(buf, &tb, swap);
		memset(buf + 24, 0xa5, 24);
		len = DTL_ENTRY_SIZE;
	}
	for (size_t i = 0; i < n; i++) {
		struct dtl_entry d = {
			.dispatch_reason = e[i].dr, .preempt_reason = e[i].pr, .processor_id = e[i].proc,
			.enqueue_to_dispatch_tb = e[i].e2d, .ready_to_enqueue_tb = e[i].r2e,
			.waiting_to_ready_tb = e[i].w2r, .timebase = tb_at_us(e[i].us),
			.srr0 = 0xc0000000000f8094ULL, .srr1 = 0x8000000000001033ULL,
		};
		dtl_encode(&d, buf + len);
		len += DTL_ENTRY_SIZE;
	}
	memset(buf + len, 0x77, trailing);
	len += trailing;
	aux_head[cpu] += hole;
	struct pdread_auxtrace a = { .size = len, .offset = aux_head[cpu], .idx = cpu,
				  .tid = (uint32_t)-1, .cpu = cpu };
	aux_head[cpu] += len;
	return pdwrite_write_auxtrace(w, &a, buf, len);
}

static int aux_record(uint32_t cpu, uint64_t t_ns, uint64_t off, uint64_t size, uint64_t flags)
{
	uint8_t body[24];
	struct pdread_sample tr = { .pid = (uint32_t)-1, .tid = (uint32_t)-1, .time = t_ns, .id = 300u + cpu, .cpu = cpu };

	bytes_st64(body, off, swap);
	bytes_st64(body + 8, size, swap);
	bytes_st64(body + 16, flags, swap);
	return pdwrite_write_with_trailer(w, ev_dtl, 11, 0, body, sizeof(body), &tr);
}

static int lost_record(uint32_t cpu, uint64_t t_ns, uint64_t n)
{
	uint8_t body[16];
	struct pdread_sample tr = { .pid = (uint32_t)-1, .tid = (uint32_t)-1, .time = t_ns, .id = 200u + cpu, .cpu = cpu };

	bytes_st64(body, 200u + cpu, swap);
	bytes_st64(body + 8, n, swap);
	return pdwrite_write_with_trailer(w, ev_sw, 2, 0, body, sizeof(body), &tr);
}

#define US(x) (T0_NS + (uint64_t)(x) * 1000)
#define E(us, dr, pr, e2d, r2e, w2r, proc) { us, dr, pr, e2d, r2e, w2r, proc }

static int edge(void)
{
	static const struct ent a[] = { E(10, 3, 2, 512, 100, 5120, 1), E(20, 0, 2, 1024, 50, 2560, 1),
					E(30, 7, 4, 51200, 20, 0, 2) };
	static const struct ent b[] = { E(40, 3, 2, 700, 30, 100000, 2), E(50, 2, 2, 300, 10, 700, 1) };
	static const struct ent c[] = { E(60, 8, 6, 900, 40, 9000, 1), E(70, 200, 42, 1, 2, 3, 1),
					E(500, 3, 2, 512, 512, 512, 1) };
	static const struct ent x[] = { E(15, 3, 2, 10, 20, 30, 9), E(35, 6, 3, 40, 50, 60, 9),
					E(35, 7, 4, 70, 80, 90, 10), E(25, 3, 2, 11, 12, 13, 9) };
	static const struct ent y[] = { E(600, 1, 1, 0xffffffffu, 5, 6, 9) };
	int err = 0;

	err = err ? err : buffer(0, true, a, 3, 0, 0);
	err = err ? err : buffer(1, true, x, 4, 0, 0);
	err = err ? err : sample(0, US(5), 1, 2);
	err = err ? err : sample(0, US(25), 2, 1);
	err = err ? err : pdwrite_finished_round(w);
	err = err ? err : buffer(0, false, b, 2, 24, 0);
	err = err ? err : aux_record(0, US(36), 0, 4 * 48, 0x1 /* TRUNCATED */);
	err = err ? err : lost_record(0, US(37), 4);
	err = err ? err : sample(1, US(35), 3, 4);
	err = err ? err : sample(0, US(45), 1, 2);
	err = err ? err : pdwrite_finished_round(w);
	err = err ? err : buffer(0, false, c, 3, 0, 96 /* hole */);
	err = err ? err : buffer(1, false, y, 1, 0, 0);
	err = err ? err : sample(1, US(100), 4, 3);
	err = err ? err : pdwrite_finished_round(w);
	return err;
}

static int doc(void)
{
	uint8_t buf[1680];
	struct dtl_tbinfo tb = { BOOT_TB, FREQ };

	dtl_header_write(buf, &tb, swap);
	memset(buf + 24, 0x5a, 24);
	for (int i = 1; i < 35; i++) {
		struct dtl_entry d = {
			.dispatch_reason = i == 1 ? 3 : (uint8_t)(i % 11),
			.preempt_reason = i == 1 ? 2 : (uint8_t)(i % 10),
			.processor_id = (uint16_t)(16 + i % 3),
			.enqueue_to_dispatch_tb = i == 1 ? 7064 : 1000u + (uint32_t)i * 37,
			.ready_to_enqueue_tb = i == 1 ? 187 : 100u + (uint32_t)i,
			.waiting_to_ready_tb = i == 1 ? 6611773 : 5000000u + (uint32_t)i * 1111,
			.timebase = 21403600706628832ULL + (uint64_t)(i - 1) * 5120000,
			.srr0 = 0xc0000000000f8094ULL, .srr1 = 0x8000000000001033ULL,
		};
		dtl_encode(&d, buf + i * DTL_ENTRY_SIZE);
	}
	struct pdread_auxtrace a = { .size = sizeof(buf), .offset = 0, .idx = 0, .tid = (uint32_t)-1, .cpu = 16 };
	int err = pdwrite_write_auxtrace(w, &a, buf, sizeof(buf));
	/* a sample 1 s after the first entry: all 34 entries come before it */
	uint64_t t = dtl_tb_to_ns(21403600706628832ULL, &tb) + 1000000000ULL;
	err = err ? err : sample(16, t, 1, 2);
	return err ? err : pdwrite_finished_round(w);
}

static int raw_file(const char *out, unsigned n, uint64_t tb0, unsigned cpu, unsigned partial)
{
	FILE *f = fopen(out, "wb");
	uint8_t b[DTL_ENTRY_SIZE];

	if (!f)
		return 2;
	for (unsigned i = 0; i < n; i++) {
		struct dtl_entry d = {
			.dispatch_reason = (uint8_t)(i % 3 ? 3 : 0), .preempt_reason = (uint8_t)(i % 4 ? 2 : 4),
			.processor_id = (uint16_t)(8 * cpu), .enqueue_to_dispatch_tb = 100 + i,
			.ready_to_enqueue_tb = 10 + i, .waiting_to_ready_tb = 1000 + i,
			.timebase = tb0 + (uint64_t)i * 5120, .srr0 = 0xc0000000000f8094ULL,
			.srr1 = 0x8000000000001033ULL,
		};
		dtl_encode(&d, b);
		fwrite(b, 1, sizeof(b), f);
	}
	memset(b, 0x99, sizeof(b));
	fwrite(b, 1, partial < sizeof(b) ? partial : sizeof(b), f);
	return fclose(f) ? 2 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "big-endian", no_argument, NULL, 'B' },
		{ "pipe", no_argument, NULL, 'P' },
		{ "doc", no_argument, NULL, 'D' },
		{ "formats", required_argument, NULL, 'f' },
		{ "raw", required_argument, NULL, 'r' },
		{ "tb0", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "partial", required_argument, NULL, 'p' },
		{ 0 }
	};
	const char *out = NULL, *formats = NULL;
	bool be = false, pipe = false, docmode = false;
	unsigned raw = 0, rcpu = 0, partial = 0;
	uint64_t tb0 = 1000000;
	int c;

	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'B': be = true; break;
		case 'P': pipe = true; break;
		case 'D': docmode = true; break;
		case 'f': formats = optarg; break;
		case 'r': raw = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': tb0 = strtoull(optarg, NULL, 0); break;
		case 'c': rcpu = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'p': partial = (unsigned)strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (out && raw)
		return raw_file(out, raw, tb0, rcpu, partial);
	if (!out || !formats) {
		fprintf(stderr, "usage: mkdtl -o FILE --formats DIR [--big-endian] [--pipe] [--doc]\n");
		return 2;
	}
	static const char *const specs[] = { "sched:sched_switch" };
	struct tracedata_formats *tf;
	if (tracedata_collect(formats, specs, 1, &tf)) {
		fprintf(stderr, "mkdtl: no sched_switch format under %s\n", formats);
		return 2;
	}
	struct tep_handle *tep = tep_alloc();
	const struct tracedata_event *te = tracedata_find(tf, "sched", "sched_switch");
	if (!tep || !te)
		return 2;
	tep_set_file_bigendian(tep, be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, te->format, strlen(te->format), "sched") || !(enc = tpdecode_new(tep)))
		return 2;
	sw_id = te->id;

	struct pdwrite_opts o = { .big_endian = be, .pipe = pipe };
	if (pdwrite_open(&w, out, &o))
		return 2;
	swap = pdwrite_needs_swap(w);
	struct pdformat_attr ad = { 0 };
	ad.type = 14;
	ad.config = 7;
	ad.sample_period = 1000000;
	ad.sample_type = (1ULL << 16) | (1ULL << 1) | (1ULL << 2) | (1ULL << 7);
	ad.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL);
	uint64_t dids[2] = { 300, 301 }, sids[2] = { 200, 201 };
	if (docmode) {
		dids[0] = 316;
		sids[0] = 216;
	}
	ev_dtl = pdwrite_add_evsel(w, &ad, "vpa_dtl/dtl_all/", dids, docmode ? 1 : 2);
	struct pdformat_attr as = { 0 };
	as.type = PDFORMAT_TYPE_TRACEPOINT;
	as.config = sw_id;
	as.sample_period = 1;
	as.sample_type = (1ULL << 16) | 1 | (1ULL << 1) | (1ULL << 2) | (1ULL << 7) | (1ULL << 8) | (1ULL << 10);
	as.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL);
	ev_sw = pdwrite_add_evsel(w, &as, "sched:sched_switch", sids, docmode ? 1 : 2);
	int err = ev_dtl < 0 || ev_sw < 0 ? -EINVAL : tracedata_set_tracing_data(w, tf, be);
	err = err ? err : pdwrite_begin_data(w);
	err = err ? err : pdwrite_write_auxtrace_info(w, 7, (const uint64_t[]){ 0 }, 1);
	err = err ? err : (docmode ? doc() : edge());
	int cerr = pdwrite_close(w);
	tpdecode_free(enc);
	tep_free(tep);
	tracedata_free(tf);
	if (err || cerr) {
		fprintf(stderr, "mkdtl: writing %s failed: %s\n", out, strerror(-(err ? err : cerr)));
		return 2;
	}
	return 0;
}
