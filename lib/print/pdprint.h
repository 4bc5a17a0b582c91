/* SPDX-License-Identifier: MIT */
/*
 * pdprint.h - format perf.data samples the way `perf script` prints them.
 *
 * Prefix: pdprint_.  Formats into caller buffers (the library never prints).
 * Feed every record to pdprint_track() in delivery order so task names follow
 * COMM/FORK records; then format samples with pdprint_format() or pdprint_json().
 */
#ifndef LATSCOPE_PDPRINT_H
#define LATSCOPE_PDPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/pdread.h"

struct json_object;

enum {
	PDPRINT_F_COMM = 1u << 0,
	PDPRINT_F_TID = 1u << 1,
	PDPRINT_F_PID = 1u << 2,
	PDPRINT_F_CPU = 1u << 3,
	PDPRINT_F_TIME = 1u << 4,
	PDPRINT_F_EVNAME = 1u << 5,
	PDPRINT_F_TRACE = 1u << 6,
	PDPRINT_F_IP = 1u << 7,
	PDPRINT_F_PERIOD = 1u << 8,
	PDPRINT_F_ADDR = 1u << 9,
};
#define PDPRINT_F_DEFAULT (PDPRINT_F_COMM | PDPRINT_F_TID | PDPRINT_F_CPU | PDPRINT_F_TIME | PDPRINT_F_EVNAME | PDPRINT_F_TRACE)

struct pdprint_opts {
	uint32_t fields;	/* 0 = PDPRINT_F_DEFAULT */
	bool ns;		/* nanosecond timestamps */
	/* Symbols for %ps-style fields: a kallsyms file, "" for none; NULL =
	 * /proc/kallsyms when the recording's osrelease is the running kernel's
	 * (what perf does through its kernel map). */
	const char *kallsyms;
	/* Symbols printed by compiled formats are left out of the text and
	 * noted, to be resolved all together by one pass over kallsyms when
	 * the text is handed to pdprint_emit() (which every buffer pdprint_format()
	 * wrote must then go through, in order).  For callers that hold
	 * their output in large buffers (script). */
	bool defer_symbols;
};

struct pdprint;

/* pdprint_new - a printer for reader r (which must outlive it).  Free with pdprint_free(). */
struct pdprint *pdprint_new(struct pdread *r, const struct pdprint_opts *opts);
void pdprint_free(struct pdprint *p);

/*
 * Sampling (non-tracepoint) events are printed, without -F, in perf script's
 * default layout for them (period, ip, symbol, dso, callchain).
 * pdprint_unsupported - true, with why ("event 'x' ..."), when an event of the
 * recording (perf's side-band dummy aside) has fields or a type that layout
 * does not print as perf does; its samples would be refused (pdprint_refusal)
 * when met.  A caller may refuse the file at once (script does not: events
 * without samples, such as an AUX-area PMU event, are harmless).
 * pdprint_refusal - NULL, or what the last formatted samples needed that is
 * not printed right (a static string): the caller must stop printing.
 */
bool pdprint_unsupported(const struct pdprint *p, char *why, size_t len);
const char *pdprint_refusal(const struct pdprint *p);

/* Parse a perf-script-like -F list ("comm,tid,time,event,trace") into fields. */
int pdprint_parse_fields(const char *list, uint32_t *fields);

/* Update task names from COMM / FORK records. */
void pdprint_track(struct pdprint *p, const struct pdread_event *ev);

/* Comm of a task as the printer knows it now (owned by the printer). */
const char *pdprint_comm(struct pdprint *p, int32_t pid, int32_t tid);

/* Width the event-name column uses (longest evsel name). */
int pdprint_name_width(struct pdprint *p);

/*
 * pdprint_format - the sample's line, newline-terminated, into buf (NUL-terminated
 * when len > 0).  Returns the line's length; a return >= len means buf was
 * too small (nothing useful was written).
 */
size_t pdprint_format(struct pdprint *p, const struct pdread_event *ev, char *buf, size_t len);

/*
 * pdprint_format_prefix - only the "comm tid [cpu] time: event: " part (as used
 * for non-tracepoint lines such as DTL entries).  Same return as pdprint_format.
 */
size_t pdprint_format_prefix(struct pdprint *p, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
			uint64_t time_ns, const char *evname, char *buf, size_t len);

/*
 * pdprint_format_with_comm - pdprint_format with the task name supplied by the caller
 * (so a second thread can format while another keeps the task table; this
 * call does not touch the task table).  Thread-safety: one formatting thread
 * per pp at a time; the reader's evsels and tracing data must not change
 * meanwhile (file mode).
 */
size_t pdprint_format_with_comm(struct pdprint *p, const struct pdread_event *ev, const char *comm, char *buf, size_t len);

/*
 * Pieces for a two-thread pipeline (lib/print/pipeline.c).  The memo calls and
 * pdprint_format_prefix belong to one thread; pdprint_trace_text_uncached may run on
 * another with its own trace_seq, once pdprint_prepare() has run (file mode).
 */
struct trace_seq;
void pdprint_prepare(struct pdprint *p);
/* Cached tracepoint text of a payload: *text (owned by the memo, valid
 * until the next pdprint_memo_put) and *len; false if not cached. */
bool pdprint_memo_get(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char **text, size_t *len);
/*
 * pdprint_memo_lookup - like pdprint_memo_get, and tells a payload whose text another
 * thread is making (PDPRINT_MEMO_PENDING, with the ref given to pdprint_memo_pending).
 */
enum { PDPRINT_MEMO_NONE, PDPRINT_MEMO_MISS, PDPRINT_MEMO_HIT, PDPRINT_MEMO_PENDING };
int pdprint_memo_lookup(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		   const char **text, size_t *len, uint32_t *ref);
/* Mark a payload's text as being made; later lookups return ref. */
void pdprint_memo_pending(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		     uint32_t ref);
/* Remember text (copied) for this payload (replacing a pending mark). */
void pdprint_memo_put(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char *text, size_t len);
/* libtraceevent's text of s into seq (caller's); returns seq's buffer. */
const char *pdprint_trace_text_uncached(struct pdprint *p, const struct pdread_evsel *e, const struct pdread_sample *s,
				   struct trace_seq *seq, size_t *len);
/* The same with another thread's own handle (pdread_tep_new()). */
struct tep_handle;
const char *pdprint_trace_text_tep(struct tep_handle *tep, const struct pdread_sample *s, struct trace_seq *seq,
			      size_t *len);
/* True when some recorded format prints kernel symbols (they need kallsyms
 * loaded into every handle that prints them). */
bool pdprint_prints_symbols(const struct pdprint *p);
/* The reader the printer was made for. */
struct pdread *pdprint_reader(const struct pdprint *p);
/* A trace_seq for pdprint_trace_text_uncached; free with pdprint_seq_free(). */
struct trace_seq *pdprint_seq_new(void);
void pdprint_seq_free(struct trace_seq *seq);
/* Counters of the tracepoint-text memo (lookups that hit or missed, resets). */
void pdprint_memo_stats(const struct pdprint *p, uint64_t *hits, uint64_t *misses, uint64_t *resets);
/* True when the fields are those the pipeline can split (trace, no ip/period/addr). */
bool pdprint_pipeline_fields(const struct pdprint *p);

/*
 * pdprint_emit - hand buf[0, len) (text pdprint_format() wrote, in order) to emit,
 * with the deferred symbols in their places: the addresses not known yet
 * are resolved first (the first time by one pass over kallsyms for all of
 * them, later by loading the whole table).  emit is called once per piece
 * and returns 0 or a negative errno, which stops pdprint_emit and is returned.
 * Without defer_symbols this is one emit call.
 */
typedef int (*pdprint_emit_fn)(void *ctx, const char *s, size_t n);
int pdprint_emit(struct pdprint *p, const char *buf, size_t len, pdprint_emit_fn emit, void *ctx);

/* True when text formatted since the last pdprint_emit() waits for symbols: a
 * caller that can hold more text before emitting saves passes over kallsyms. */
bool pdprint_symbols_pending(const struct pdprint *p);

/* What happened to one tracepoint format (strings owned by the printer). */
struct pdprint_format_stat {
	const char *name;	/* "sys:event" */
	bool compiled;		/* printed by a compiled program (lib/ppcomp) */
	const char *why;	/* else why libtraceevent prints it */
	uint64_t compiled_samples, fallback_samples;	/* samples printed each way */
};

/* pdprint_format_stat - the i-th tracepoint format the printer has met, in the
 * order met; false past the last. */
bool pdprint_format_stat(const struct pdprint *p, size_t i, struct pdprint_format_stat *st);

/* pdprint_json - the sample as a JSON object with typed tracepoint fields.  The
 * caller releases it with json_object_put().  NULL on allocation failure. */
struct json_object *pdprint_json(struct pdprint *p, const struct pdread_event *ev);

#endif
