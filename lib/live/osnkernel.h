/* SPDX-License-Identifier: MIT */
/*
 * osnkernel.h - the kernel's osnoise and timerlat tracers (one family: one
 * set of osnoise/ settings, one run at a time): drive either through
 * libtracefs where the kernel has it, and parse their text output (osnoise's
 * per-period records, timerlat's per-activation records, the osnoise:*
 * event lines, the stacks timerlat prints) into records the views can show.
 *
 * Prefix: osnkernel_.
 *
 * osnkernel_parse_line() is pure and works on any text in the tracer's layout
 * (also latscope's own `osnoise trace --events` output), so it is tested
 * offline; osnkernel_start()/osnkernel_read()/osnkernel_stop() need the tracer (tracefs
 * osnoise/ directory, CONFIG_OSNOISE_TRACER) and root.
 */
#ifndef LATSCOPE_OSNKERNEL_H
#define LATSCOPE_OSNKERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum osnkernel_kind {
	OSNKERNEL_PERIOD = 1,		/* one record per period per CPU */
	OSNKERNEL_SAMPLE,		/* osnoise:sample_threshold */
	OSNKERNEL_NMI,		/* osnoise:nmi_noise */
	OSNKERNEL_IRQ,		/* osnoise:irq_noise */
	OSNKERNEL_SOFTIRQ,		/* osnoise:softirq_noise */
	OSNKERNEL_THREAD,		/* osnoise:thread_noise */
	OSNKERNEL_LOST,		/* "CPU:N [LOST M EVENTS]": the ring overran before the read */
	OSNKERNEL_MARK,		/* a trace_marker line ("tracing_mark_write: TEXT") */
	OSNKERNEL_TIMERLAT,	/* one timerlat activation's latency in one context */
	OSNKERNEL_STACK,	/* "<stack trace>": the frames follow, one line each */
	OSNKERNEL_FRAME,	/* " => sym": a frame of the stack above (no context prefix) */
	OSNKERNEL_STOP,		/* "stop tracing hit on cpu N": a stop threshold was hit */
};

/* The contexts of a timerlat record, as the kernel numbers them. */
enum osnkernel_tlat_ctx {
	OSNKERNEL_TLAT_IRQ = 0,		/* timer expiry to its handler */
	OSNKERNEL_TLAT_THREAD = 1,	/* expiry to the timerlat thread running */
	OSNKERNEL_TLAT_USER = 2,	/* expiry to the user thread's return to user space */
};

/* The text osnkernel_start() and osnkernel_quiesce() write to the instance's
 * trace_marker: what comes between them is the run's window. */
#define OSNKERNEL_MARK_START	"latscope window start"
#define OSNKERNEL_MARK_END	"latscope window end"
/* What a run with a warm-up writes when it ends (osnkernel_mark()): the
 * window opens there instead. */
#define OSNKERNEL_MARK_WARM	"latscope warm-up end"

struct osnkernel_rec {
	enum osnkernel_kind kind;
	uint32_t cpu;
	int32_t pid;			/* of the context prefix */
	char comm[32];			/* of the context prefix */
	uint64_t ts_ns;			/* prefix timestamp (us resolution) */
	/* OSNKERNEL_PERIOD, all in us except avail_e5 (percent x 10^5) */
	uint64_t runtime_us, noise_us, avail_e5, max_single_us;
	uint64_t hw, nmi, irq, softirq, thread;
	/* events */
	uint64_t start_ns, duration_ns, interference;
	int32_t id;			/* vector, softirq number or pid */
	char desc[32];			/* irq/softirq name or comm; OSNKERNEL_MARK: its text */
	/* OSNKERNEL_LOST: events lost on cpu; 0 when the kernel did not say
	 * how many ("[LOST EVENTS]") */
	uint64_t lost;
	/* OSNKERNEL_TIMERLAT: the activation's number on its CPU (1 up, the IRQ
	 * and thread records of one activation share it), its context and
	 * latency (ns); OSNKERNEL_STOP: cpu is the CPU the kernel named */
	uint32_t seq;
	enum osnkernel_tlat_ctx context;
	uint64_t latency_ns;
	char sym[96];			/* OSNKERNEL_FRAME: the function, as printed */
};

/*
 * osnkernel_parse_line - parse one line (without or with its newline).  Returns 0
 * with *out filled, -ENOENT for a line that is not an osnoise record
 * (comments, other events), -EINVAL for a malformed osnoise line.
 */
int osnkernel_parse_line(const char *line, struct osnkernel_rec *out);

/* True when the running kernel has the osnoise tracer (tracefs osnoise/ and
 * "osnoise" in available_tracers). */
bool osnkernel_available(void);
/* True when it has the tracer called name ("osnoise", "timerlat"): tracefs
 * osnoise/ and name in available_tracers. */
bool osnkernel_has_tracer(const char *name);

/* True when a run that is not latscope's uses the osnoise family: the
 * top-level trace or a tracefs instance other than latscope's has osnoise
 * or timerlat as its tracer; where (at most len bytes) names it.  Writing
 * osnoise/options then restarts that run's threads, and NO_OSNOISE_WORKLOAD
 * (timerlat -u) stops them for good. */
bool osnkernel_other_run(char *where, size_t len);

enum osnkernel_tracer {
	OSNKERNEL_TRACER_OSNOISE = 0,
	OSNKERNEL_TRACER_TIMERLAT,
};

/* An event of another system enabled in the instance beside the tracer
 * (rtla's -e, --filter, --trigger): its lines come in the trace's text (a
 * -t file) and go with the instance.  name NULL: every event of system. */
struct osnkernel_event {
	const char *system, *name;
	const char *filter;		/* the event's filter expression, or NULL */
	const char *trigger;		/* a trigger command for it, or NULL */
};

struct osnkernel_config {
	enum osnkernel_tracer tracer;	/* which one the instance runs */
	const char *cpus;		/* CPU list for osnoise/cpus, NULL = all */
	uint64_t period_us, runtime_us;
	uint64_t stop_us, stop_total_us;	/* 0 = off */
	uint64_t threshold_us;		/* tracing_thresh; 0 = kernel default */
	bool no_workload;		/* NO_OSNOISE_WORKLOAD */
	bool events;			/* enable the osnoise:* events */
	bool no_samples;		/* ... but osnoise:sample_threshold, one per gap above
					 * the threshold: on a noisy CPU (a VM under TCG:
					 * hundreds of thousands a second) a flood that
					 * overruns the buffer and takes the per-period
					 * records with it, for a view (top's attribution)
					 * that needs the interference events only */
	uint64_t buffer_kb;		/* the instance's buffer_size_kb per CPU; 0 = the kernel's */
	/* timerlat (period_us, runtime_us and threshold_us are osnoise's;
	 * stop_us is timerlat's IRQ threshold, stop_total_us its thread one;
	 * no_workload: no kernel threads, user threads read timerlat_fd) */
	uint64_t timerlat_period_us;
	uint64_t print_stack_us;	/* osnoise/print_stack; 0 = off */
	const struct osnkernel_event *extra;	/* nr_extra events more (the caller's) */
	size_t nr_extra;
	bool ring_off;			/* the instance's ring stays off: the tracer runs,
					 * its samples reach only the osnoise:timerlat_sample
					 * tracepoint (a BPF program) */
};

struct osnkernel;

/*
 * osnkernel_start - configure the tracer in a new instance and start it.  Returns
 * 0 or a negative errno (-ENODEV: no osnoise tracer; -EBUSY: a run is on
 * already, one at a time; -EOPNOTSUPP: no_workload on a kernel without the
 * OSNOISE_WORKLOAD option); *kp is freed by osnkernel_free() (also on
 * failure when not NULL).  osnkernel_strerror names the step.
 *
 * Every setting it changes is saved first: osnoise/options (option by
 * option, where the kernel has that file), osnoise/cpus, period_us, runtime_us, stop_tracing_us,
 * stop_tracing_total_us, tracing_thresh; and what it creates is recorded:
 * the instance, its osnoise events, its tracer, the trace_pipe descriptor,
 * tracing_on.  The extra events, their filters and triggers live in the
 * instance and go with it.  -ENOENT: an extra event the kernel does not
 * have; -EINVAL: a filter or trigger it refused (osnkernel_strerror names
 * it).  osnkernel_stop() undoes all of it, newest first, also after a
 * start that failed half-way.
 */
int osnkernel_start(struct osnkernel **kp, const struct osnkernel_config *cfg);
/* Read what the trace pipe has (non-blocking) into buf; returns bytes, 0 when
 * nothing is there, or a negative errno. */
long osnkernel_read(struct osnkernel *k, char *buf, size_t len);
/*
 * osnkernel_quiesce - end the run's window: write OSNKERNEL_MARK_END to the
 * instance's trace_marker, then stop writing to its buffer (tracing_on 0).
 * What the buffer holds is still read by osnkernel_read() until it returns 0:
 * the caller drains it before osnkernel_stop().  osnkernel_start() wrote
 * OSNKERNEL_MARK_START just before it started the tracer (so no record of
 * the tracer's comes before it).  Returns 0, 1 when tracing was
 * off already (a stop threshold of the tracer turned it off in every
 * instance: the window ended there, no mark follows), or a negative errno.
 */
int osnkernel_quiesce(struct osnkernel *k);
/* osnkernel_unmarked - true when osnkernel_start() could not write the
 * window's start mark because a stop threshold turned the ring off at
 * once: the window is then everything the ring holds. */
bool osnkernel_unmarked(const struct osnkernel *k);

/* osnkernel_mark - text written to the instance's trace_marker (a
 * tracing_mark_write line in the trace).  0 or a negative errno. */
int osnkernel_mark(struct osnkernel *k, const char *text);
/* osnkernel_set_stop - the stop thresholds written during the run
 * (stop_tracing_us, stop_tracing_total_us; 0 = off), saved first like
 * osnkernel_start()'s: a run with a warm-up starts with them off and sets
 * them when its window opens.  0 or a negative errno. */
int osnkernel_set_stop(struct osnkernel *k, uint64_t stop_us, uint64_t stop_total_us);
/*
 * osnkernel_lost - the events the instance's ring lost so far, over its CPUs:
 * per_cpu/cpuN/stats "overrun" (overwritten before they were read) +
 * "commit overrun" + "dropped events", in *lost.  Call before
 * osnkernel_stop() (which removes the instance).  Returns 0, or a negative
 * errno when no stats file could be read (*lost is then 0).
 */
int osnkernel_lost(struct osnkernel *k, uint64_t *lost);
/* osnkernel_stop - stop the tracer: undo every change osnkernel_start() made,
 * newest first (also after a start that failed half-way).  Returns 0 or the
 * first negative errno of a setting that could not be written back, named by
 * osnkernel_strerror(); the others are still restored.  A second call does
 * nothing. */
int osnkernel_stop(struct osnkernel *k);
/* osnkernel_free - osnkernel_stop() unless done, then free k (NULL is fine). */
void osnkernel_free(struct osnkernel *k);
/*
 * osnkernel_emergency_restore - the undo of osnkernel_stop() for a signal
 * handler that is about to end the process (src/cmdio.h's
 * cmdio_on_abort_call): async-signal-safe (open, write, close, rmdir of
 * paths saved at start), safe at any point of a start or a stop, in any
 * thread; nothing is freed.  Nothing may use the tracer afterwards.
 */
void osnkernel_emergency_restore(void);
const char *osnkernel_strerror(const struct osnkernel *k);

#endif
