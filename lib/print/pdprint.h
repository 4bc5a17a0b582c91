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
 * pdprint_format_prefix - only the "comm tid [cpu] time: event: " part (the
 * start of every line pdprint_format writes).  Same return as pdprint_format.
 */
size_t pdprint_format_prefix(struct pdprint *p, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
			uint64_t time_ns, const char *evname, char *buf, size_t len);

/* Counters of the tracepoint-text memo (lookups that hit or missed, resets). */
void pdprint_memo_stats(const struct pdprint *p, uint64_t *hits, uint64_t *misses, uint64_t *resets);

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
	bool compiled;		/* printed by a compiled program (lib/printfmt) */
	const char *why;	/* else why libtraceevent prints it */
	uint64_t compiled_samples, fallback_samples;	/* samples printed each way */
};

/* pdprint_format_stat - the i-th tracepoint format the printer has met, in the
 * order met; false past the last. */
bool pdprint_format_stat(const struct pdprint *p, size_t i, struct pdprint_format_stat *st);

/* pdprint_json - the sample as a JSON object with typed tracepoint fields,
 * its first key "schema": schema when schema is not NULL (the command's
 * document name).  The caller releases it with json_object_put().  NULL on
 * allocation failure. */
struct json_object *pdprint_json(struct pdprint *p, const struct pdread_event *ev, const char *schema);

#endif
