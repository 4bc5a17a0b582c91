/* SPDX-License-Identifier: MIT */
/*
 * pdprint.h - format perf.data samples the way `perf script` prints them.
 *
 * Prefix: pp_.  Formats into caller buffers (the library never prints).
 * Feed every record to pp_track() in delivery order so task names follow
 * COMM/FORK records; then format samples with pp_format() or pp_json().
 */
#ifndef LATSCOPE_PDPRINT_H
#define LATSCOPE_PDPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdread.h"

struct json_object;

enum {
	PP_F_COMM = 1u << 0,
	PP_F_TID = 1u << 1,
	PP_F_PID = 1u << 2,
	PP_F_CPU = 1u << 3,
	PP_F_TIME = 1u << 4,
	PP_F_EVNAME = 1u << 5,
	PP_F_TRACE = 1u << 6,
	PP_F_IP = 1u << 7,
	PP_F_PERIOD = 1u << 8,
	PP_F_ADDR = 1u << 9,
};
#define PP_F_DEFAULT (PP_F_COMM | PP_F_TID | PP_F_CPU | PP_F_TIME | PP_F_EVNAME | PP_F_TRACE)

struct pp_opts {
	uint32_t fields;	/* 0 = PP_F_DEFAULT */
	bool ns;		/* nanosecond timestamps */
	/* Symbols for %ps-style fields: a kallsyms file, "" for none; NULL =
	 * /proc/kallsyms when the recording's osrelease is the running kernel's
	 * (what perf does through its kernel map). */
	const char *kallsyms;
	/* Symbols printed by compiled formats are left out of the text and
	 * noted, to be resolved all together by one pass over kallsyms when
	 * the text is handed to pp_emit() (which every buffer pp_format()
	 * wrote must then go through, in order).  For callers that hold
	 * their output in large buffers (script). */
	bool defer_symbols;
};

struct pp;

/* pp_new - a printer for reader r (which must outlive it).  Free with pp_free(). */
struct pp *pp_new(struct pdr *r, const struct pp_opts *opts);
void pp_free(struct pp *p);

/* Parse a perf-script-like -F list ("comm,tid,time,event,trace") into fields. */
int pp_parse_fields(const char *list, uint32_t *fields);

/* Update task names from COMM / FORK records. */
void pp_track(struct pp *p, const struct pdr_event *ev);

/* Comm of a task as the printer knows it now (owned by the printer). */
const char *pp_comm(struct pp *p, int32_t pid, int32_t tid);

/* Width the event-name column uses (longest evsel name). */
int pp_name_width(struct pp *p);

/*
 * pp_format - the sample's line, newline-terminated, into buf (NUL-terminated
 * when len > 0).  Returns the line's length; a return >= len means buf was
 * too small (nothing useful was written).
 */
size_t pp_format(struct pp *p, const struct pdr_event *ev, char *buf, size_t len);

/*
 * pp_format_prefix - only the "comm tid [cpu] time: event: " part (as used
 * for non-tracepoint lines such as DTL entries).  Same return as pp_format.
 */
size_t pp_format_prefix(struct pp *p, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
			uint64_t time_ns, const char *evname, char *buf, size_t len);

/*
 * pp_format_with_comm - pp_format with the task name supplied by the caller
 * (so a second thread can format while another keeps the task table; this
 * call does not touch the task table).  Thread-safety: one formatting thread
 * per pp at a time; the reader's evsels and tracing data must not change
 * meanwhile (file mode).
 */
size_t pp_format_with_comm(struct pp *p, const struct pdr_event *ev, const char *comm, char *buf, size_t len);

/*
 * Pieces for a two-thread pipeline (src/pipeline.c).  The memo calls and
 * pp_format_prefix belong to one thread; pp_trace_text_uncached may run on
 * another with its own trace_seq, once pp_prepare() has run (file mode).
 */
struct trace_seq;
void pp_prepare(struct pp *p);
/* Cached tracepoint text of a payload: *text (owned by the memo, valid
 * until the next pp_memo_put) and *len; false if not cached. */
bool pp_memo_get(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char **text, size_t *len);
/*
 * pp_memo_lookup - like pp_memo_get, and tells a payload whose text another
 * thread is making (PP_MEMO_PENDING, with the ref given to pp_memo_pending).
 */
enum { PP_MEMO_NONE, PP_MEMO_MISS, PP_MEMO_HIT, PP_MEMO_PENDING };
int pp_memo_lookup(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		   const char **text, size_t *len, uint32_t *ref);
/* Mark a payload's text as being made; later lookups return ref. */
void pp_memo_pending(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		     uint32_t ref);
/* Remember text (copied) for this payload (replacing a pending mark). */
void pp_memo_put(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char *text, size_t len);
/* libtraceevent's text of s into seq (caller's); returns seq's buffer. */
const char *pp_trace_text_uncached(struct pp *p, const struct pdr_evsel *e, const struct pdr_sample *s,
				   struct trace_seq *seq, size_t *len);
/* The same with another thread's own handle (pdr_tep_new()). */
struct tep_handle;
const char *pp_trace_text_tep(struct tep_handle *tep, const struct pdr_sample *s, struct trace_seq *seq,
			      size_t *len);
/* True when some recorded format prints kernel symbols (they need kallsyms
 * loaded into every handle that prints them). */
bool pp_prints_symbols(const struct pp *p);
/* The reader the printer was made for. */
struct pdr *pp_reader(const struct pp *p);
/* A trace_seq for pp_trace_text_uncached; free with pp_seq_free(). */
struct trace_seq *pp_seq_new(void);
void pp_seq_free(struct trace_seq *seq);
/* Counters of the tracepoint-text memo (lookups that hit or missed, resets). */
void pp_memo_stats(const struct pp *p, uint64_t *hits, uint64_t *misses, uint64_t *resets);
/* True when the fields are those the pipeline can split (trace, no ip/period/addr). */
bool pp_pipeline_fields(const struct pp *p);

/*
 * pp_emit - hand buf[0, len) (text pp_format() wrote, in order) to emit,
 * with the deferred symbols in their places: the addresses not known yet
 * are resolved first (the first time by one pass over kallsyms for all of
 * them, later by loading the whole table).  emit is called once per piece
 * and returns 0 or a negative errno, which stops pp_emit and is returned.
 * Without defer_symbols this is one emit call.
 */
typedef int (*pp_emit_fn)(void *ctx, const char *s, size_t n);
int pp_emit(struct pp *p, const char *buf, size_t len, pp_emit_fn emit, void *ctx);

/* True when text formatted since the last pp_emit() waits for symbols: a
 * caller that can hold more text before emitting saves passes over kallsyms. */
bool pp_symbols_pending(const struct pp *p);

/* What happened to one tracepoint format (strings owned by the printer). */
struct pp_format_stat {
	const char *name;	/* "sys:event" */
	bool compiled;		/* printed by a compiled program (lib/ppcomp) */
	const char *why;	/* else why libtraceevent prints it */
	uint64_t compiled_samples, fallback_samples;	/* samples printed each way */
};

/* pp_format_stat - the i-th tracepoint format the printer has met, in the
 * order met; false past the last. */
bool pp_format_stat(const struct pp *p, size_t i, struct pp_format_stat *st);

/* pp_json - the sample as a JSON object with typed tracepoint fields.  The
 * caller releases it with json_object_put().  NULL on allocation failure. */
struct json_object *pp_json(struct pp *p, const struct pdr_event *ev);

#endif
