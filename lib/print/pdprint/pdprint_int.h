/* SPDX-License-Identifier: MIT */
/*
 * pdprint_int.h - private to the sample printer (lib/pdprint*.c): its state
 * and the functions its files share (prefix pdprint_).  The API is pdprint.h.
 */
#ifndef LATSCOPE_PDPRINT_INT_H
#define LATSCOPE_PDPRINT_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "format/ksym.h"
#include "print/pdprint.h"
#include "print/printfmt.h"
#include "engine/thread.h"

/*
 * Memo of libtraceevent's output.  The INFO text of a tracepoint depends only
 * on its raw bytes (no handler plugins are loaded), so a payload seen before
 * is printed from the memo: exact, and a large win because sched payloads
 * repeat.  The key skips the common_* header unless the print format reads it.
 * Bounded: the memo is cleared when its arena or table fills.
 */
#define MEMO_SLOTS	(1u << 17)
#define MEMO_ARENA	(48u << 20)
#define MEMO_MAX_KEY	512

struct memo_slot {		/* 16 bytes: the table stays in cache */
	uint64_t hash;		/* 0 = empty */
	uint32_t off;		/* arena offset: u32 event id, key bytes, output bytes */
	uint16_t key_len;
	uint16_t out_len;
};

struct memo {
	struct memo_slot *slots;
	uint8_t *arena;
	size_t arena_used, used;
	uint64_t hits, misses, resets;
};

struct tp_info {
	int id;
	int key_start;		/* first raw byte that can affect the text; -1 = no memo */
	struct printfmt_prog *prog;	/* the compiled print format, or NULL */
	char why[96];		/* why not compiled */
	char name[64];		/* "sys:name" */
	uint64_t compiled, fallback;	/* samples printed each way */
};

#define PDPRINT_COMM_CACHE 256
struct comm_cache {
	uint32_t pid, tid;
	uint64_t gen;		/* thread_generation() when comm was taken */
	const char *comm;	/* owned by the thread table */
};

struct pdprint {
	struct pdread *r;
	struct pdprint_opts o;
	struct thread_table *thr;
	struct trace_seq seq;
	struct memo memo;
	struct tp_info *tps;
	size_t nr_tps, last_tp;
	struct printfmt_symcb symcb;
	char *scratch;		/* a compiled text that did not fit the caller's buffer */
	size_t scratch_cap;
	int name_width;		/* computed lazily: pipe mode adds evsels late */
	size_t name_width_evsels;
	/* kernel symbols: path decided at pdprint_new, table loaded on first use */
	const char *ksym_path;	/* NULL = never resolve */
	struct ksym *ksym;
	bool ksym_tried;
	pthread_mutex_t ksym_mu;
	struct comm_cache cc[PDPRINT_COMM_CACHE];	/* by tid */
	/* deferred symbols (defer_symbols; the formatting thread only) */
	struct sym_fix *fix;	/* where symbols go in the text not emitted yet */
	size_t nfix, cfix;
	struct sym_ent *sc;	/* known addresses (open addressing) */
	size_t sc_cap, sc_used;
	struct ksym_set *kset;	/* the one pass over kallsyms */
	bool kset_done;
	bool no_defer;		/* text going to scratch: resolve now */
	/* sampling events (pdprint_samp.c): user maps per process, DSOs */
	bool same_kernel;	/* recorded on the running kernel (its vdso is ours) */
	bool user_fields;	/* -F given: sampling events keep the -F layout */
	bool maps_needed;	/* some event prints addresses (need_maps) */
	size_t maps_evsels;	/* evsels when maps_needed was decided */
	struct pidmaps *pm;	/* open addressing by pid */
	size_t pm_cap, pm_used;
	struct udso *dsos;
	size_t ndsos, cdsos;
	uint32_t *dh;		/* open addressing by path: index + 1 */
	size_t dh_cap;
	uint64_t *ks;		/* KSYMBOL ranges: start, end pairs */
	size_t nks, cks;
	uint64_t ks_maxlen;
	const char *refuse;	/* what a sample needed that is not printed right */
	char refuse_buf[256];
	uint8_t *checked;	/* by evsel idx: 0 not yet, 1 printable, 2 refused */
	size_t nchecked;
};

/* pdprint_samp.c: where an address of a sample points */
struct samp_loc {
	const char *sym;	/* NULL: [unknown] */
	uint64_t off;		/* addr - symbol start */
	const char *dso;	/* NULL: [unknown] */
	bool dso_bracket;	/* print "[dso]" (kernel modules) */
	uint64_t shown;		/* the address perf shows in a callchain */
};
enum { SAMP_KERNEL, SAMP_USER, SAMP_OTHER };
void pdprint_samp_resolve(struct pdprint *p, int32_t pid, uint64_t addr, int mode, struct samp_loc *l);
void pdprint_samp_track(struct pdprint *p, const struct pdread_event *ev);
void pdprint_samp_free(struct pdprint *p);
/* false (and p->refuse set) when e's samples cannot be printed as perf does */
bool pdprint_samp_check(struct pdprint *p, const struct pdread_evsel *e);

struct sym_fix {
	const char *at;
	uint64_t addr;
	bool with_offset;
};

struct sym_ent {
	uint64_t addr;
	uint64_t start;
	const char *name;	/* owned by kset or ksym; NULL: no symbol */
	bool used;
};

/* pdprint.c: the first raw byte of ev's samples that can affect their
 * text, -1 = no memo */
int pdprint_key_start(struct pdprint *p, struct tep_event *ev);

/* pdprint_sym.c */
void pdprint_setup_symbols(struct pdprint *p);
size_t pdprint_sym_text(void *ctx, uint64_t addr, bool with_offset, char *out);
/* The kernel symbol covering addr (kallsyms loaded on first use); false if none. */
bool pdprint_ksym(struct pdprint *p, uint64_t addr, struct ksym_hit *hit);

/* pdprint_memo.c: the cached tracepoint text of a payload: *text (owned by
 * the memo, valid until the next pdprint_memo_put) and *len; false if not
 * cached. */
bool pdprint_memo_get(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		      const char **text, size_t *len);
/* Remember text (copied) for this payload. */
void pdprint_memo_put(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		      const char *text, size_t len);

#endif
