/* SPDX-License-Identifier: MIT */
/*
 * osnkernel.h - the kernel osnoise tracer: drive it through libtracefs where
 * the kernel has it, and parse its text output (per-period records and the
 * osnoise:* event lines) into records the views can show.
 *
 * Prefix: okt_.
 *
 * okt_parse_line() is pure and works on any text in the tracer's layout
 * (also latscope's own `osnoise trace --events` output), so it is tested
 * offline; okt_start()/okt_read()/okt_stop() need the tracer (tracefs
 * osnoise/ directory, CONFIG_OSNOISE_TRACER) and root.
 */
#ifndef LATSCOPE_OSNKERNEL_H
#define LATSCOPE_OSNKERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum okt_kind {
	OKT_PERIOD = 1,		/* one record per period per CPU */
	OKT_SAMPLE,		/* osnoise:sample_threshold */
	OKT_NMI,		/* osnoise:nmi_noise */
	OKT_IRQ,		/* osnoise:irq_noise */
	OKT_SOFTIRQ,		/* osnoise:softirq_noise */
	OKT_THREAD,		/* osnoise:thread_noise */
};

struct okt_rec {
	enum okt_kind kind;
	uint32_t cpu;
	int32_t pid;			/* of the context prefix */
	char comm[32];			/* of the context prefix */
	uint64_t ts_ns;			/* prefix timestamp (us resolution) */
	/* OKT_PERIOD, all in us except avail_e5 (percent x 10^5) */
	uint64_t runtime_us, noise_us, avail_e5, max_single_us;
	uint64_t hw, nmi, irq, softirq, thread;
	/* events */
	uint64_t start_ns, duration_ns, interference;
	int32_t id;			/* vector, softirq number or pid */
	char desc[32];			/* irq/softirq name or comm */
};

/*
 * okt_parse_line - parse one line (without or with its newline).  Returns 0
 * with *out filled, -ENOENT for a line that is not an osnoise record
 * (comments, other events), -EINVAL for a malformed osnoise line.
 */
int okt_parse_line(const char *line, struct okt_rec *out);

/* True when the running kernel has the osnoise tracer (tracefs osnoise/ and
 * "osnoise" in available_tracers). */
bool okt_available(void);

struct okt_config {
	const char *cpus;		/* CPU list for osnoise/cpus, NULL = all */
	uint64_t period_us, runtime_us;
	uint64_t stop_us, stop_total_us;	/* 0 = off */
	uint64_t threshold_us;		/* tracing_thresh; 0 = kernel default */
	bool no_workload;		/* NO_OSNOISE_WORKLOAD */
	bool events;			/* enable the osnoise:* events */
};

struct okt;

/* okt_start - configure the tracer in a new instance and start it.  Returns
 * 0 or a negative errno (-ENODEV: no osnoise tracer); *kp is freed by
 * okt_stop() (also on failure when not NULL).  okt_strerror names the step. */
int okt_start(struct okt **kp, const struct okt_config *cfg);
/* Read what the trace pipe has (non-blocking) into buf; returns bytes, 0 when
 * nothing is there, or a negative errno. */
long okt_read(struct okt *k, char *buf, size_t len);
/* Stop the tracer, restore the settings that were changed, free k. */
void okt_stop(struct okt *k);
const char *okt_strerror(const struct okt *k);

#endif
