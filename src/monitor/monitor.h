/* SPDX-License-Identifier: MIT */
/*
 * monitor.h - private to `latscope monitor` (src/monitor/): hist's live
 * run (src/hist/, hist_live) kept for as long as it runs, with the hooks
 * that publish it to Prometheus.
 *
 *   cli.c     cmd_monitor(): its option table, parsing, the hooks
 *   expose.c  the exposition rendered at each refresh of hist's loop,
 *             served (lib/live/metricsrv) and written (--textfile); the
 *             --noise and --dtl counters beside the histograms
 *   timerlat.c  --timerlat: the kernel's timerlat tracer and its BPF
 *             histograms beside them
 *
 * Everything here prints to stderr (src/ only); nothing exits.
 */
#ifndef LATSCOPE_MONITOR_H
#define LATSCOPE_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../hist/hist.h"

#define MONITOR_MAX_BOUNDS 64	/* = PROMEXP_MAX_BOUNDS */

struct metricsrv;
struct noisemon;
struct osnkernel;
struct tlatbpf;
struct dtlrec;
struct dtlstat;

/* The monitor's options (`latscope monitor`). */
struct monitor_opts {
	const char *listen;		/* --listen ADDR:PORT (NULL with --textfile only) */
	const char *textfile;		/* --textfile DIR */
	uint64_t bounds_ns[MONITOR_MAX_BOUNDS];	/* --le, the exposition buckets */
	size_t nr_bounds;		/* 0 = promexp's defaults */
	bool no_listen;			/* --textfile without --listen: no server */
	uint64_t noise_runtime_us, noise_period_us;	/* --noise RUNTIME/PERIOD; 0: off */
	uint64_t noise_threshold_us;	/* --noise-threshold */
	uint64_t timerlat_period_us;	/* --timerlat PERIOD; 0: off */
	bool dtl;			/* --dtl: the POWER DTL counters */
	uint64_t dtl_aux_bytes;		/* --dtl-aux-size (0: dtlrec's default) */
	const char *sysfs, *debugfs, *procfs;	/* --dtl's roots (tests), NULL = the system's */
};

/* The monitor's state (expose.c); monitor_end frees it. */
struct monitor_state {
	struct metricsrv *srv;
	int text_dirfd;			/* --textfile's directory, -1 */
	uint64_t resets, publishes, publish_errors;
	double start_unix, reset_unix;	/* wall clock of the start, of the last reset */
	uint64_t collect_ns;		/* the last read and render */
	uint64_t start_ns;		/* 0: not begun */
	struct noisemon *nm;		/* --noise: the noise counters, or NULL */
	struct osnkernel *tlk;		/* --timerlat: the tracer, or NULL */
	struct tlatbpf *tlb;		/* its BPF program, or NULL */
	struct dtlrec *dtlr;		/* --dtl: the DTL source (no file), or NULL */
	struct dtlstat *dtls;		/* its counters */
	uint64_t dtl_bad;		/* chunks the counters refused */
	uint64_t *dtl_ring_full;	/* [DTLSTAT_MAX_CPUS]: polls that found the ring overrun */
	uint8_t *dtl_aux_seen;		/* [DTLSTAT_MAX_CPUS]: a commit came (the first has the header) */
	bool dtl_poll_failed;		/* a read of the DTL failed (said once) */
	uint64_t dtl_stopped_said;	/* CPUs whose stopped DTL was said */
	char *expo;			/* the last exposition (open_memstream's) */
	size_t expo_len;
};

/* One run of `latscope monitor`: hist's context first (the hooks get a
 * struct hctx * and monctx_of() turns it back), then the monitor's own. */
struct monctx {
	struct hctx h;
	struct monitor_opts mo;
	struct monitor_state mon;
};

static inline struct monctx *monctx_of(struct hctx *c)
{
	return (struct monctx *)c;	/* h is the first member */
}

/* The command line (cli.c; test_cli_tables). */
extern const struct cli_cmd monitor_cli;

/* expose.c.  Each prints what went wrong on stderr. */
/* monitor_parse_le - --le LIST: the exposition buckets (ascending
 * durations, a bare number in us).  0 or -EINVAL. */
int monitor_parse_le(const char *arg, void *params);
/* monitor_parse_noise - --noise RUNTIME/PERIOD.  0 or -EINVAL. */
int monitor_parse_noise(const char *arg, void *params);
/* The hooks of hist_live (struct hist_live_hooks): begin - the listening
 * socket and the --textfile directory, before any backend (a port in use
 * fails at once); start - --noise's busy loops and their BPF counters,
 * --dtl's source and counters; publish - the set (synced) and the self-cost
 * rendered, handed to the server and written to the textfile; process -
 * the noise counters advanced, the DTL polled; reset - SIGHUP: the
 * histograms from zero; end - stop serving, the summary line on stderr. */
int monitor_begin(struct hctx *c);
/* timerlat.c: --timerlat's start (0 or -1, said), its families, SIGHUP,
 * its end (the tracer stopped, its settings restored) */
int monitor_timerlat_start(struct hctx *c);
int monitor_timerlat_render(struct hctx *c, FILE *f);
int monitor_timerlat_reset(struct hctx *c);
void monitor_timerlat_end(struct hctx *c);
int monitor_start(struct hctx *c, int *wait_ms);
void monitor_publish(struct hctx *c, uint64_t now_ns);
void monitor_process(struct hctx *c, uint64_t until_ns);
int monitor_reset(struct hctx *c);
void monitor_end(struct hctx *c);

#endif
