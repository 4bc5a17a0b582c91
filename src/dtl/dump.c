/* SPDX-License-Identifier: MIT */
/* dump.c - `latscope dtl dump`: the DTL records as `perf report -D` prints them. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdio.h"
#include "commands.h"
#include "format/dtl.h"
#include "dtl_cmd.h"
#include "format/pdread.h"

/* ---- dump ---- */

struct dump_params {
	struct dtl_cmd_in in;	/* first: DTL_CMD_INPUT */
	bool no_raw;
};
_Static_assert(offsetof(struct dump_params, in) == 0, "struct dtl_cmd_in first");

static const struct cli_opt dump_opts[] = {
	DTL_CMD_INPUT,
	CLI_OPT("no-raw", 0, CLI_T_FLAG, struct dump_params, no_raw, CLI_NONE, 0, 0, 0, NULL,
		"leave out the raw hex dump of each record", NULL),
	CLI_END
};

const struct cli_cmd dtl_dump_cli = {
	.name = "latscope dtl dump",
	.usage = "usage: latscope dtl dump [options] FILE",
	.intro =
"Print the DTL records of a perf.data file the way `perf report -D` prints\n"
"them: AUXTRACE_INFO, each AUXTRACE header, then `. ... VPA DTL PMU data:`\n"
"and one line per 48-byte slot with its offset.  The boot_tb/tb_freq header is\n"
"read in the file's byte order (perf reads it natively).\n",
	.opts = dump_opts,
	.operands = true,
};

static void hexdump(const uint8_t *p, size_t n)
{
	printf(".\n. ... raw event: size %zu bytes\n", n);
	for (size_t off = 0; off < n; off += 16) {
		size_t k = n - off < 16 ? n - off : 16;
		printf(".  %04zx: ", off);
		for (size_t i = 0; i < 16; i++) {
			if (i < k)
				printf(" %02x", p[off + i]);
			else
				printf("   ");
		}
		printf("  ");
		for (size_t i = 0; i < 16; i++)
			putchar(i < k ? (isprint(p[off + i]) ? p[off + i] : '.') : ' ');
		putchar('\n');
	}
}

/* The "cpu time " prefix perf prints before a user record (zeroed sample). */
static void tstamp_prefix(const struct pdread *r, char *buf, size_t len)
{
	uint64_t st = 0;
	bool any_id_all = false;

	for (size_t i = 0; i < pdread_nr_evsels(r); i++) {
		const struct pdread_evsel *e = pdread_evsel(r, i);
		st |= e->attr.sample_type;
		if (pdformat_attr_flag(&e->attr, PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL))
			any_id_all = true;
	}
	if (!any_id_all) {
		snprintf(buf, len, "-1 -1 ");
		return;
	}
	snprintf(buf, len, "%s%s", (st & PDFORMAT_SAMPLE_CPU) ? "0 " : "", (st & PDFORMAT_SAMPLE_TIME) ? "0 " : "");
}

#define DUMP_MAX_CPUS	4096

static void dump_slot(const uint8_t *s, uint64_t off, bool swap)
{
	printf(".  %08" PRIx64 ": ", off);
	if (!dtl_raw_is_header(s)) {
		struct dtl_entry e;
		char b1[DTL_REASON_BUFSZ], b2[DTL_REASON_BUFSZ];

		dtl_decode(s, &e);
		printf("dispatch_reason:%s, preempt_reason:%s, enqueue_to_dispatch_time:%d, "
		       "ready_to_enqueue_time:%d, waiting_to_ready_time:%d\n",
		       dtl_dispatch_reason_str(e.dispatch_reason, b1),
		       dtl_preempt_reason_str(e.preempt_reason, b2),
		       (int32_t)e.enqueue_to_dispatch_tb, (int32_t)e.ready_to_enqueue_tb,
		       (int32_t)e.waiting_to_ready_tb);
	} else {
		struct dtl_tbinfo h;
		dtl_header_read(s, swap, &h);
		printf("boot_tb: %" PRIu64 ", tb_freq: %" PRIu64 "\n", h.boot_tb, h.tb_freq);
	}
}

/* One payload at stream offset pos of a CPU whose stream sl walks: perf's
 * lines, but entries at their real places (the zero run at an AUX buffer
 * lap's end is said and skipped, where perf steps on 48 bytes at a time and
 * prints shifted garbage), offsets from the payload's start. */
static void dump_payload(struct dtl_slicer *sl, uint64_t pos, const uint8_t *p, uint64_t size, bool swap)
{
	const uint8_t *run;
	uint64_t at, done = 0, cut0 = sl->st.cut_bytes;
	size_t n;

	printf(".\n. ... VPA DTL PMU data: size %" PRIu64 " bytes, entries is %" PRIu64 "\n",
	       size, size / DTL_ENTRY_SIZE);
	dtl_slicer_feed(sl, pos, p, size, true);
	while ((n = dtl_slicer_next(sl, &run, &at)) > 0) {
		if (at - pos > done)
			printf(".  %08" PRIx64 ": (%" PRIu64 " zero bytes: the end of a lap of the AUX "
			       "buffer, which the driver does not write)\n", done, at - pos - done);
		for (size_t i = 0; i < n; i++)
			dump_slot(run + i * DTL_ENTRY_SIZE, at - pos + i * DTL_ENTRY_SIZE, swap);
		done = at - pos + (uint64_t)n * DTL_ENTRY_SIZE;
	}
	uint64_t cut = sl->st.cut_bytes - cut0;
	if (size - done > cut)
		printf(".  %08" PRIx64 ": (%" PRIu64 " zero bytes: the end of a lap of the AUX "
		       "buffer, which the driver does not write)\n", done, size - done - cut);
	if (cut)
		printf(".  %08" PRIx64 ": (%" PRIu64 " trailing bytes, not a whole entry)\n",
		       size - cut, cut);
}

/* What one dump keeps between records.  pay and sl are owned (dump_free()). */
struct dump {
	struct pdread *r;
	const char *shown;	/* the input's name in the record lines ("stdin" for -) */
	bool swap;		/* the file's byte order is not the host's */
	bool no_raw;		/* --no-raw */
	uint8_t *pay;		/* an AUX payload read from the file (not mapped) */
	size_t pay_cap;
	struct dtl_slicer **sl;	/* per CPU (the last one for CPUs beyond), made at first use */
};

/* dump_auxtrace()'s "stop reading" (out of memory, said): not an error of
 * the input. */
#define DUMP_STOP 1

static void dump_free(struct dump *d)
{
	free(d->pay);
	if (d->sl)
		for (uint32_t i = 0; i < DUMP_MAX_CPUS; i++)
			free(d->sl[i]);
	free(d->sl);
}

/* What perf prints before every record: where it is, its raw bytes (unless
 * --no-raw), then the start of its PERF_RECORD_ line. */
static void print_record_head(const struct dump *d, const struct pdread_event *ev)
{
	char pfx[16];

	printf("\n%#" PRIx64 "@%s [%#x]: event: %u\n", ev->file_offset, d->shown, ev->size, ev->type);
	if (!d->no_raw)
		hexdump(ev->data, ev->size);
	tstamp_prefix(d->r, pfx, sizeof(pfx));
	printf("\n%s%#" PRIx64 " [%#x]: PERF_RECORD_%s", pfx, ev->file_offset, ev->size,
	       ev->type == PDFORMAT_RECORD_AUXTRACE ? "AUXTRACE"
	       : ev->type == PDFORMAT_RECORD_AUXTRACE_ERROR ? "AUXTRACE_ERROR" : "AUXTRACE_INFO");
}

/* The rest of an AUXTRACE_ERROR line: what the recorder lost. */
static void print_auxtrace_error(const struct dump *d, const struct pdread_event *ev)
{
	struct pdread_auxerr e;

	if (pdread_auxerr(d->r, ev, &e))
		printf(" type: %u  code: %u  cpu: %d  time: %" PRIu64 ": %s\n", e.type, e.code,
		       (int32_t)e.cpu, e.time_ns, e.msg);
	else
		printf(" (too short: %u bytes)\n", ev->size);
}

/* The rest of an AUXTRACE_INFO line: its type, and the PMU's for vpa_dtl. */
static void print_auxtrace_info(const struct dump *d, const struct pdread_event *ev)
{
	uint32_t type = ev->size >= 12 ? bytes_ld32(ev->data + 8, d->swap) : 0;

	printf(" type: %u\n", type);
	if (type == PDFORMAT_AUXTRACE_VPA_DTL)
		printf("  %-19s%" PRId64 "\n", "PMU Type",
		       ev->size >= 24 ? (int64_t)bytes_ld64(ev->data + 16, d->swap) : 0);
}

/* The AUX payload of ev (not mapped) read into d->pay: 0, DUMP_STOP (out of
 * memory) or a negative errno (the read failed), each said. */
static int read_payload(struct dump *d, const struct pdread_event *ev)
{
	uint64_t size = ev->auxtrace.size;

	if (d->pay_cap < size) {
		uint8_t *n = realloc(d->pay, (size_t)size);
		if (!n) {
			fprintf(stderr, "latscope dtl dump: out of memory\n");
			return DUMP_STOP;
		}
		d->pay = n;
		d->pay_cap = (size_t)size;
	}
	int err = pdread_pread(d->r, ev->aux_file_offset, d->pay, (size_t)size);
	if (err) {
		fprintf(stderr, "latscope dtl dump: cannot read the AUX payload at %#" PRIx64 ": %s\n",
			ev->aux_file_offset, strerror(-err));
		return err;
	}
	return 0;
}

/* The slicer of cpu's stream (CPUs beyond the table share its last), made
 * at first use: NULL when out of memory (said). */
static struct dtl_slicer *cpu_slicer(struct dump *d, uint32_t cpu)
{
	if (!d->sl && !(d->sl = calloc(DUMP_MAX_CPUS, sizeof(*d->sl)))) {
		fprintf(stderr, "latscope dtl dump: out of memory\n");
		return NULL;
	}
	uint32_t c = cpu < DUMP_MAX_CPUS ? cpu : DUMP_MAX_CPUS - 1;
	if (!d->sl[c]) {
		if (!(d->sl[c] = malloc(sizeof(*d->sl[c])))) {
			fprintf(stderr, "latscope dtl dump: out of memory\n");
			return NULL;
		}
		dtl_slicer_init_stream(d->sl[c]);
	}
	return d->sl[c];
}

/* The rest of an AUXTRACE line, then its payload's entries when the file
 * has DTL data: 0, DUMP_STOP or a negative errno (said). */
static int dump_auxtrace(struct dump *d, const struct pdread_event *ev)
{
	const struct pdread_auxtrace *a = &ev->auxtrace;

	printf(" size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#" PRIx64
	       "  idx: %u  tid: %d  cpu: %d\n", a->size, a->offset, a->reference, a->idx,
	       (int32_t)a->tid, (int32_t)a->cpu);
	if (!dtltl_file_has_dtl(d->r))
		return 0;
	const uint8_t *data = ev->aux_data;
	if (!data && a->size) {
		if (a->size > (256u << 20)) {
			printf(". (payload of %" PRIu64 " bytes not shown)\n", a->size);
			return 0;
		}
		int rc = read_payload(d, ev);
		if (rc)
			return rc;
		data = d->pay;
	}
	struct dtl_slicer *sl = cpu_slicer(d, a->cpu);
	if (!sl)
		return DUMP_STOP;
	dump_payload(sl, a->offset, data, a->size, d->swap);
	return 0;
}

/* One AUXTRACE_INFO, AUXTRACE or AUXTRACE_ERROR record as perf prints it:
 * 0, DUMP_STOP or a negative errno (said). */
static int dump_record(struct dump *d, const struct pdread_event *ev)
{
	print_record_head(d, ev);
	if (ev->type == PDFORMAT_RECORD_AUXTRACE_ERROR) {
		print_auxtrace_error(d, ev);
		return 0;
	}
	if (ev->type == PDFORMAT_RECORD_AUXTRACE_INFO) {
		print_auxtrace_info(d, ev);
		return 0;
	}
	return dump_auxtrace(d, ev);
}

int dtl_cmd_dump(int argc, char **argv)
{
	struct dump_params p = { 0 };
	struct dump d = { 0 };
	int first, rc;
	struct pdread_event ev;
	uint64_t nrec = 0;

	if ((rc = dtl_cmd_parse(&dtl_dump_cli, argc, argv, &p, &first)) >= 0)
		return rc;
	if (dtl_cmd_file(&dtl_dump_cli, &p.in, argc, argv, first))
		return EXIT_ERR;
	const char *path = p.in.path;
	if (dtl_cmd_open(&d.r, path, true, true, "latscope dtl dump"))
		return EXIT_ERR;
	d.shown = strcmp(path, "-") ? path : "stdin";
	d.swap = pdread_needs_swap(d.r);
	d.no_raw = p.no_raw;
	while ((rc = pdread_next(d.r, &ev)) > 0) {
		if (ev.type != PDFORMAT_RECORD_AUXTRACE_INFO && ev.type != PDFORMAT_RECORD_AUXTRACE &&
		    ev.type != PDFORMAT_RECORD_AUXTRACE_ERROR)
			continue;
		nrec++;
		int err = dump_record(&d, &ev);
		if (err == DUMP_STOP)
			break;	/* rc stays that of the last record read: not a read error */
		if (err < 0) {
			rc = err;
			break;
		}
	}
	dump_free(&d);
	if (rc < 0) {
		fprintf(stderr, "latscope dtl dump: %s: %s\n", path,
			*pdread_strerror(d.r) ? pdread_strerror(d.r) : strerror(-rc));
		pdread_close(d.r);
		return EXIT_ERR;
	}
	cmdio_pdr_close(d.r, "latscope dtl dump", path);
	if (cmdio_finish(stdout, "latscope dtl dump", "standard output"))
		return EXIT_ERR;
	if (!nrec) {
		fprintf(stderr, "latscope dtl dump: %s has no AUXTRACE_INFO or AUXTRACE records "
			"(was it recorded with -e vpa_dtl/dtl_all/?)\n", path);
		return EXIT_ERR;
	}
	return 0;
}
