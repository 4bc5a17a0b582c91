/* SPDX-License-Identifier: MIT */
#include "jsonv.h"
#include "pdprint.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/utsname.h>

#include <json-c/json.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "bytes.h"
#include "ksym.h"
#include "ppcomp.h"
#include "thread.h"

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
	struct ppc_prog *prog;	/* the compiled print format, or NULL */
	char why[96];		/* why not compiled */
	char name[64];		/* "sys:name" */
	uint64_t compiled, fallback;	/* samples printed each way */
};

#define PP_COMM_CACHE 256
struct comm_cache {
	uint32_t pid, tid;
	uint64_t gen;		/* thr_generation() when comm was taken */
	const char *comm;	/* owned by the thread table */
};

struct pp {
	struct pdr *r;
	struct pp_opts o;
	struct thr_table *thr;
	struct trace_seq seq;
	struct memo memo;
	struct tp_info *tps;
	size_t nr_tps, last_tp;
	struct ppc_symcb symcb;
	char *scratch;		/* a compiled text that did not fit the caller's buffer */
	size_t scratch_cap;
	int name_width;		/* computed lazily: pipe mode adds evsels late */
	size_t name_width_evsels;
	/* kernel symbols: path decided at pp_new, table loaded on first use */
	const char *ksym_path;	/* NULL = never resolve */
	struct ksym *ksym;
	bool ksym_tried;
	pthread_mutex_t ksym_mu;
	struct comm_cache cc[PP_COMM_CACHE];	/* by tid */
	/* deferred symbols (defer_symbols; the formatting thread only) */
	struct sym_fix *fix;	/* where symbols go in the text not emitted yet */
	size_t nfix, cfix;
	struct sym_ent *sc;	/* known addresses (open addressing) */
	size_t sc_cap, sc_used;
	struct ksym_set *kset;	/* the one pass over kallsyms */
	bool kset_done;
	bool no_defer;		/* text going to scratch: resolve now */
};

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

/* Does any recorded tracepoint print a kernel symbol (%ps, %pS, %pf...)? */
static bool formats_print_symbols(struct pdr *r)
{
	for (size_t i = 0; i < pdr_nr_evsels(r); i++) {
		const struct pdr_evsel *e = pdr_evsel(r, i);
		const char *f = e->tp ? e->tp->print_fmt.format : NULL;
		for (; f && (f = strstr(f, "%p")); f += 2)
			if (strchr("sSfFB", f[2]) && f[2])
				return true;
	}
	return false;
}

/*
 * Kernel symbols for %ps-style fields, as perf script resolves them: perf
 * hands libtraceevent a function resolver backed by its kernel map (no
 * function list).  Here the resolver is lib/ksym (perf's kallsyms rules),
 * loaded on the first address that needs it: a recording whose samples
 * print no symbol never reads kallsyms.
 */
static void ksyms_ensure(struct pp *p)
{
	pthread_mutex_lock(&p->ksym_mu);
	if (!p->ksym_tried) {
		struct ksym *k = NULL;
		if (ksym_load(&k, p->ksym_path) == 0)
			__atomic_store_n(&p->ksym, k, __ATOMIC_RELEASE);
		__atomic_store_n(&p->ksym_tried, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&p->ksym_mu);
}

/* The symbol covering addr (loading the table on first use); false if none. */
static bool pp_ksym(struct pp *p, uint64_t addr, struct ksym_hit *hit)
{
	if (!p->ksym_path)
		return false;
	if (!__atomic_load_n(&p->ksym_tried, __ATOMIC_ACQUIRE))
		ksyms_ensure(p);
	return ksym_lookup(__atomic_load_n(&p->ksym, __ATOMIC_ACQUIRE), addr, hit);
}

/* libtraceevent's function resolver (tep_func_resolver_t). */
static char *resolve_func(void *priv, unsigned long long *addrp, char **modp)
{
	struct ksym_hit h;
	if (!pp_ksym(priv, *addrp, &h))
		return NULL;
	*addrp = h.start;
	*modp = (char *)h.module;
	return (char *)h.name;
}

/* The symbol text as libtraceevent's print_function writes it (name, with
 * "+0xOFF" for %pS/%pF; "0x..." when no symbol covers addr); its length. */
static size_t sym_write(char *out, uint64_t addr, const char *name, uint64_t start, bool with_offset)
{
	if (!name)
		return (size_t)sprintf(out, "0x%llx", (unsigned long long)addr);
	size_t n = strlen(name);
	memcpy(out, name, n);
	if (with_offset)
		n += (size_t)sprintf(out + n, "+0x%llx", (unsigned long long)(addr - start));
	return n;
}

static struct sym_ent *sc_find(struct pp *p, uint64_t addr)
{
	if (!p->sc_cap)
		return NULL;
	for (size_t i = (size_t)(addr * 0x9e3779b97f4a7c15ULL >> 20) & (p->sc_cap - 1);; i = (i + 1) & (p->sc_cap - 1))
		if (!p->sc[i].used || p->sc[i].addr == addr)
			return &p->sc[i];
}

/* Remember what addr resolves to (name NULL: nothing). */
static void sc_put(struct pp *p, uint64_t addr, const char *name, uint64_t start)
{
	if ((p->sc_used + 1) * 2 > p->sc_cap) {
		size_t ncap = p->sc_cap ? p->sc_cap * 2 : 256;
		struct sym_ent *old = p->sc, *n = calloc(ncap, sizeof(*n));
		if (!n)
			return;
		size_t ocap = p->sc_cap;
		p->sc = n;
		p->sc_cap = ncap;
		p->sc_used = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].used)
				sc_put(p, old[i].addr, old[i].name, old[i].start);
		free(old);
	}
	struct sym_ent *e = sc_find(p, addr);
	if (!e->used)
		p->sc_used++;
	e->used = true;
	e->addr = addr;
	e->name = name;
	e->start = start;
}

/* Resolve addr now (the table is loaded if need be) and remember it. */
static struct sym_ent *sc_resolve(struct pp *p, uint64_t addr)
{
	struct ksym_hit h;
	bool found = pp_ksym(p, addr, &h);
	sc_put(p, addr, found ? h.name : NULL, found ? h.start : 0);
	struct sym_ent *e = sc_find(p, addr);
	return e && e->used ? e : NULL;
}

/* How a compiled format prints %ps / %pS. */
static size_t sym_text(void *ctx, uint64_t addr, bool with_offset, char *out)
{
	struct pp *p = ctx;
	if (!p->ksym_path)
		return sym_write(out, addr, NULL, 0, with_offset);
	struct sym_ent *e = sc_find(p, addr);
	if ((!e || !e->used) && (!p->o.defer_symbols || p->kset_done || p->no_defer)) {
		e = sc_resolve(p, addr);
		if (!e) {	/* no memory for the cache */
			struct ksym_hit h;
			bool found = pp_ksym(p, addr, &h);
			return sym_write(out, addr, found ? h.name : NULL, found ? h.start : 0, with_offset);
		}
	}
	if (e && e->used)
		return sym_write(out, addr, e->name, e->start, with_offset);
	/* not known yet: leave it out, note where it goes (pp_emit) */
	if (p->nfix == p->cfix) {
		size_t nc = p->cfix ? p->cfix * 2 : 256;
		struct sym_fix *n = realloc(p->fix, nc * sizeof(*n));
		if (!n) {
			p->kset_done = true;	/* give up deferring */
			return sym_text(ctx, addr, with_offset, out);
		}
		p->fix = n;
		p->cfix = nc;
	}
	p->fix[p->nfix++] = (struct sym_fix){ out, addr, with_offset };
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Resolve every address the fixups wait for. */
static void resolve_pending(struct pp *p)
{
	if (!p->kset_done) {
		uint64_t *a = malloc(p->nfix * sizeof(*a));
		size_t n = 0;
		for (size_t i = 0; a && i < p->nfix; i++)
			a[n++] = p->fix[i].addr;
		if (a)
			qsort(a, n, sizeof(*a), addr_cmp);
		if (a && ksym_resolve(&p->kset, p->ksym_path, a, n) == 0) {
			struct ksym_hit h;
			for (size_t i = 0; i < n; i++) {
				if (i && a[i] == a[i - 1])
					continue;
				bool found = ksym_set_lookup(p->kset, a[i], &h);
				sc_put(p, a[i], found ? h.name : NULL, found ? h.start : 0);
			}
		}
		free(a);
		p->kset_done = true;	/* new addresses from now on: the whole table */
	}
	for (size_t i = 0; i < p->nfix; i++) {
		struct sym_ent *e = sc_find(p, p->fix[i].addr);
		if (!e || !e->used)
			sc_resolve(p, p->fix[i].addr);
	}
}

bool pp_format_stat(const struct pp *p, size_t i, struct pp_format_stat *st)
{
	if (i >= p->nr_tps)
		return false;
	const struct tp_info *t = &p->tps[i];
	st->name = t->name;
	st->compiled = t->prog != NULL;
	st->why = t->why;
	st->compiled_samples = t->compiled;
	st->fallback_samples = t->fallback;
	return true;
}

bool pp_symbols_pending(const struct pp *p)
{
	return p->nfix > 0;
}

int pp_emit(struct pp *p, const char *buf, size_t len, pp_emit_fn emit, void *ctx)
{
	if (!p->nfix)
		return len ? emit(ctx, buf, len) : 0;
	resolve_pending(p);
	const char *at = buf, *end = buf + len;
	int err = 0;
	for (size_t i = 0; i < p->nfix && !err; i++) {
		const struct sym_fix *f = &p->fix[i];
		if (f->at < at || f->at > end)
			continue;	/* not in this text */
		if (f->at > at)
			err = emit(ctx, at, (size_t)(f->at - at));
		at = f->at;
		char tmp[PPC_SYM_MAX];
		struct sym_ent *e = sc_find(p, f->addr);
		struct ksym_hit h;
		bool found = e && e->used ? e->name != NULL : pp_ksym(p, f->addr, &h);
		size_t n = e && e->used ? sym_write(tmp, f->addr, e->name, e->start, f->with_offset)
					: sym_write(tmp, f->addr, found ? h.name : NULL, found ? h.start : 0,
						    f->with_offset);
		if (!err)
			err = emit(ctx, tmp, n);
	}
	if (!err && at < end)
		err = emit(ctx, at, (size_t)(end - at));
	p->nfix = 0;
	return err;
}

/* Decide where symbols come from (nothing is read yet). */
static void setup_symbols(struct pp *p)
{
	struct tep_handle *tep = pdr_tep(p->r);
	const char *path = p->o.kallsyms;
	if (!tep || (path && !*path))
		return;
	if (!path) {
		struct utsname u;
		const char *rel = pdr_info(p->r)->osrelease;
		if (uname(&u) || !rel || strcmp(rel, u.release))
			return;
		path = "/proc/kallsyms";
	}
	p->ksym_path = path;
	tep_set_function_resolver(tep, resolve_func, p);
}

struct pp *pp_new(struct pdr *r, const struct pp_opts *opts)
{
	struct pp *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->r = r;
	if (opts)
		p->o = *opts;
	if (!p->o.fields)
		p->o.fields = PP_F_DEFAULT;
	p->thr = thr_new();
	if (!p->thr) {
		free(p);
		return NULL;
	}
	trace_seq_init(&p->seq);
	p->symcb.fn = sym_text;
	p->symcb.ctx = p;
	pthread_mutex_init(&p->ksym_mu, NULL);
	setup_symbols(p);
	return p;
}

void pp_free(struct pp *p)
{
	if (!p)
		return;
	free(p->memo.slots);
	free(p->memo.arena);
	for (size_t i = 0; i < p->nr_tps; i++)
		ppc_free(p->tps[i].prog);
	free(p->tps);
	free(p->scratch);
	free(p->fix);
	free(p->sc);
	ksym_set_free(p->kset);
	if (p->ksym_path && pdr_tep(p->r))
		tep_reset_function_resolver(pdr_tep(p->r));
	ksym_free(p->ksym);
	pthread_mutex_destroy(&p->ksym_mu);
	thr_free(p->thr);
	trace_seq_destroy(&p->seq);
	free(p);
}

static const struct {
	const char *name;
	uint32_t bit;
} field_names[] = {
	{ "comm", PP_F_COMM }, { "tid", PP_F_TID }, { "pid", PP_F_PID }, { "cpu", PP_F_CPU },
	{ "time", PP_F_TIME }, { "event", PP_F_EVNAME }, { "trace", PP_F_TRACE }, { "ip", PP_F_IP },
	{ "period", PP_F_PERIOD }, { "addr", PP_F_ADDR },
};

int pp_parse_fields(const char *list, uint32_t *fields)
{
	uint32_t f = 0;
	const char *s = list;
	bool add = false;
	if (*s == '+') {	/* "+field" adds to the default set */
		add = true;
		f = PP_F_DEFAULT;
		s++;
	}
	while (*s) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		bool found = false;
		for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++) {
			if (strlen(field_names[i].name) == l && !strncmp(s, field_names[i].name, l)) {
				f |= field_names[i].bit;
				found = true;
			}
		}
		if (!found)
			return -EINVAL;
		if (!e)
			break;
		s = e + 1;
	}
	(void)add;
	if (!f)
		return -EINVAL;
	*fields = f;
	return 0;
}

void pp_track(struct pp *p, const struct pdr_event *ev)
{
	bool swap = pdr_needs_swap(p->r);
	if (ev->type == PDF_RECORD_COMM && ev->size >= 16) {
		int32_t pid = (int32_t)by_ld32(ev->data + 8, swap);
		int32_t tid = (int32_t)by_ld32(ev->data + 12, swap);
		char comm[THR_COMM_LEN];
		size_t maxl = ev->size - 16u;
		size_t l = strnlen((const char *)ev->data + 16, maxl < sizeof(comm) - 1 ? maxl : sizeof(comm) - 1);
		memcpy(comm, ev->data + 16, l);
		comm[l] = '\0';
		thr_set_comm(p->thr, pid, tid, comm);
	} else if (ev->type == PDF_RECORD_FORK && ev->size >= 24) {
		int32_t pid = (int32_t)by_ld32(ev->data + 8, swap);
		int32_t ppid = (int32_t)by_ld32(ev->data + 12, swap);
		int32_t tid = (int32_t)by_ld32(ev->data + 16, swap);
		int32_t ptid = (int32_t)by_ld32(ev->data + 20, swap);
		thr_fork(p->thr, ppid, ptid, pid, tid);
	}
}

const char *pp_comm(struct pp *p, int32_t pid, int32_t tid)
{
	return thr_comm(p->thr, pid, tid);
}

int pp_name_width(struct pp *p)
{
	size_t n = pdr_nr_evsels(p->r);
	if (n != p->name_width_evsels) {
		int w = 0;
		for (size_t i = 0; i < n; i++) {
			const struct pdr_evsel *e = pdr_evsel(p->r, i);
			int l = e->name ? (int)strlen(e->name) : 9;
			if (l > w)
				w = l;
		}
		p->name_width = w;
		p->name_width_evsels = n;
	}
	return p->name_width;
}

/* Bounded appender: keeps counting past the end so callers learn the size. */
struct out {
	char *buf;
	size_t len, pos;
};

static void out_write(struct out *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t room = o->len - o->pos;
		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct out *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		out_write(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_write(o, big, (size_t)n);
	free(big);
}

static size_t out_done(struct out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
	return o->pos;
}

static inline void out_pad(struct out *o, int n)
{
	static const char sp[] = "                                                                ";
	while (n > 0) {
		int k = n > 64 ? 64 : n;
		out_write(o, sp, (size_t)k);
		n -= k;
	}
}

/* Right-aligned string in width (like "%*s"). */
static inline void out_str_w(struct out *o, const char *str, int width)
{
	size_t l = strlen(str);
	if ((int)l < width)
		out_pad(o, width - (int)l);
	out_write(o, str, l);
}

/* Decimal of v, right-aligned in width, or zero-padded to width if zero_pad. */
static inline void out_u64_w(struct out *o, uint64_t v, int width, bool zero_pad, bool neg)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (zero_pad)
		while (n < width && n < 22)
			tmp[sizeof(tmp) - 1 - n++] = '0';
	if (neg)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	if (n < width)
		out_pad(o, width - n);
	out_write(o, tmp + sizeof(tmp) - n, (size_t)n);
}

static inline void out_i32_w(struct out *o, int32_t v, int width)
{
	if (v < 0)
		out_u64_w(o, (uint64_t)(-(int64_t)v), width, false, true);
	else
		out_u64_w(o, (uint64_t)v, width, false, false);
}

static void prefix(struct pp *p, struct out *o, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
		   uint64_t t, const char *evname)
{
	uint32_t f = p->o.fields;
	if (f & PP_F_COMM) {
		out_str_w(o, comm, 16);
		out_write(o, " ", 1);
	}
	if ((f & PP_F_PID) && (f & PP_F_TID)) {
		out_i32_w(o, pid, 5);
		out_write(o, "/", 1);
		char tmp[16];
		int n = snprintf(tmp, sizeof(tmp), "%-5d ", tid);
		out_write(o, tmp, (size_t)n);
	} else if (f & (PP_F_PID | PP_F_TID)) {
		out_i32_w(o, (f & PP_F_PID) ? pid : tid, 5);
		out_write(o, " ", 1);
	}
	if (f & PP_F_CPU) {
		out_write(o, "[", 1);
		if (cpu < 0) {
			out_i32_w(o, cpu, 3);
		} else {
			out_u64_w(o, (uint64_t)cpu, 3, true, false);
		}
		out_write(o, "] ", 2);
	}
	if (f & PP_F_TIME) {
		uint64_t sec = t / 1000000000ULL, nsec = t % 1000000000ULL;
		if (p->o.ns) {
			out_u64_w(o, sec, 5, false, false);
			out_write(o, ".", 1);
			out_u64_w(o, nsec, 9, true, false);
		} else {
			/* "%12s" of "sec.usec" */
			uint64_t s10 = sec;
			int digits = 1;
			while (s10 >= 10) {
				s10 /= 10;
				digits++;
			}
			out_pad(o, 12 - (digits + 7));
			out_u64_w(o, sec, 0, false, false);
			out_write(o, ".", 1);
			out_u64_w(o, nsec / 1000ULL, 6, true, false);
		}
		out_write(o, ": ", 2);
	}
	if (f & PP_F_EVNAME) {
		out_str_w(o, evname ? evname : "[unknown]", pp_name_width(p));
		out_write(o, ": ", 2);
	}
}

/* Does the print format read a common_* field (or call out to a function)? */
static bool args_need_common(struct tep_print_arg *a)
{
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FIELD:
			if (!a->field.name || !strncmp(a->field.name, "common_", 7))
				return true;
			break;
		case TEP_PRINT_OP:
			if (args_need_common(a->op.left) || args_need_common(a->op.right))
				return true;
			break;
		case TEP_PRINT_FLAGS:
			if (args_need_common(a->flags.field))
				return true;
			break;
		case TEP_PRINT_SYMBOL:
			if (args_need_common(a->symbol.field))
				return true;
			break;
		case TEP_PRINT_TYPE:
			if (args_need_common(a->typecast.item))
				return true;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			if (args_need_common(a->hex.field) || args_need_common(a->hex.size))
				return true;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (args_need_common(a->int_array.field) || args_need_common(a->int_array.count) ||
			    args_need_common(a->int_array.el_size))
				return true;
			break;
		case TEP_PRINT_ATOM:
		case TEP_PRINT_NULL:
		case TEP_PRINT_STRING:
		case TEP_PRINT_BSTRING:
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			break;
		default:	/* functions and anything new: key on every byte */
			return true;
		}
	}
	return false;
}

/* The printer's record of a tracepoint format (made and compiled on first
 * sight); NULL only on allocation failure. */
static struct tp_info *tp_lookup(struct pp *p, struct tep_event *ev)
{
	if (p->nr_tps && p->tps[p->last_tp].id == ev->id)
		return &p->tps[p->last_tp];
	for (size_t i = 0; i < p->nr_tps; i++)
		if (p->tps[i].id == ev->id) {
			p->last_tp = i;
			return &p->tps[i];
		}
	int ks = 0;
	if (ev->handler) {
		ks = -1;
	} else if (!args_need_common(ev->print_fmt.args)) {
		int first = INT32_MAX;
		for (struct tep_format_field *fl = ev->format.fields; fl; fl = fl->next)
			if (fl->offset < first)
				first = fl->offset;
		ks = first == INT32_MAX ? 0 : first;
	}
	struct tp_info *n = realloc(p->tps, (p->nr_tps + 1) * sizeof(*n));
	if (!n)
		return NULL;
	p->tps = n;
	struct tp_info *t = &p->tps[p->nr_tps];
	memset(t, 0, sizeof(*t));
	t->id = ev->id;
	t->key_start = ks;
	snprintf(t->name, sizeof(t->name), "%s:%s", ev->system ? ev->system : "?", ev->name ? ev->name : "?");
	if (ppc_compile(ev, &t->prog, t->why, sizeof(t->why)))
		t->prog = NULL;
	p->last_tp = p->nr_tps++;
	return t;
}

static int key_start(struct pp *p, struct tep_event *ev)
{
	struct tp_info *t = tp_lookup(p, ev);
	return t ? t->key_start : -1;
}

static inline uint64_t memo_hash(const uint8_t *k, size_t n, int32_t id)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)(uint32_t)id << 32) ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t v;
		memcpy(&v, k + i, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	uint64_t v = 0;
	memcpy(&v, k + i, n - i);
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return h | 1;	/* never 0 */
}

static void memo_reset(struct memo *m)
{
	memset(m->slots, 0, MEMO_SLOTS * sizeof(*m->slots));
	m->arena_used = 0;
	m->used = 0;
	m->resets++;
}

/* Append the tracepoint text of s to o, through the memo. */
/* The memo key of a sample: raw bytes from the first that can matter. */
static bool memo_key(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		     const uint8_t **key, size_t *klen)
{
	int ks = key_start(p, e->tp);
	if (ks < 0)
		return false;
	*key = raw + ((uint32_t)ks <= raw_size ? (uint32_t)ks : 0);
	*klen = raw_size - (size_t)(*key - raw);
	if (*klen > MEMO_MAX_KEY)
		return false;
	struct memo *m = &p->memo;
	if (!m->slots) {
		m->slots = calloc(MEMO_SLOTS, sizeof(*m->slots));
		m->arena = malloc(MEMO_ARENA);
		if (!m->slots || !m->arena) {
			free(m->slots);
			free(m->arena);
			m->slots = NULL;
			m->arena = NULL;
			return false;
		}
	}
	return true;
}

/* Find the key; returns its slot, or the empty slot where it would go. */
static struct memo_slot *memo_find(struct memo *m, uint64_t h, int32_t id, const uint8_t *key, size_t klen)
{
	for (uint32_t i = (uint32_t)h & (MEMO_SLOTS - 1);; i = (i + 1) & (MEMO_SLOTS - 1)) {
		struct memo_slot *sl = &m->slots[i];
		if (!sl->hash)
			return sl;
		if (sl->hash == h && sl->key_len == klen) {
			int32_t sid;
			memcpy(&sid, m->arena + sl->off, 4);
			if (sid == id && !memcmp(m->arena + sl->off + 4, key, klen))
				return sl;
		}
	}
}

#define MEMO_PENDING 0xffff	/* out_len of an entry whose text is being made */

int pp_memo_lookup(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		   const char **text, size_t *len, uint32_t *ref)
{
	const uint8_t *key;
	size_t klen;
	if (!e->tp || !memo_key(p, e, raw, raw_size, &key, &klen))
		return PP_MEMO_NONE;
	struct memo *m = &p->memo;
	struct memo_slot *sl = memo_find(m, memo_hash(key, klen, e->tp->id), e->tp->id, key, klen);
	if (!sl->hash) {
		m->misses++;
		return PP_MEMO_MISS;
	}
	if (sl->out_len == MEMO_PENDING) {
		m->hits++;
		memcpy(ref, m->arena + sl->off + 4 + klen, 4);
		return PP_MEMO_PENDING;
	}
	m->hits++;
	*text = (const char *)m->arena + sl->off + 4 + klen;
	*len = sl->out_len;
	return PP_MEMO_HIT;
}

bool pp_memo_get(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char **text, size_t *len)
{
	uint32_t ref;
	return pp_memo_lookup(p, e, raw, raw_size, text, len, &ref) == PP_MEMO_HIT;
}

/* Store id, key and payload (text, or a pending reference) under slot. */
static void memo_store(struct memo *m, struct memo_slot *slot, uint64_t h, int32_t id, const uint8_t *key,
		       size_t klen, const void *payload, size_t plen, uint16_t out_len)
{
	memcpy(m->arena + m->arena_used, &id, 4);
	memcpy(m->arena + m->arena_used + 4, key, klen);
	memcpy(m->arena + m->arena_used + 4 + klen, payload, plen);
	if (!slot->hash)
		m->used++;
	slot->hash = h;
	slot->off = (uint32_t)m->arena_used;
	slot->key_len = (uint16_t)klen;
	slot->out_len = out_len;
	m->arena_used += 4 + klen + plen;
}

void pp_memo_pending(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		     uint32_t ref)
{
	const uint8_t *key;
	size_t klen;
	if (!e->tp || !memo_key(p, e, raw, raw_size, &key, &klen))
		return;
	struct memo *m = &p->memo;
	uint64_t h = memo_hash(key, klen, e->tp->id);
	struct memo_slot *slot = memo_find(m, h, e->tp->id, key, klen);
	if (slot->hash)
		return;
	if (m->arena_used + 8 + klen > MEMO_ARENA || (m->used + 1) * 4 > MEMO_SLOTS * 3) {
		memo_reset(m);
		slot = memo_find(m, h, e->tp->id, key, klen);
	}
	memo_store(m, slot, h, e->tp->id, key, klen, &ref, 4, MEMO_PENDING);
}

void pp_memo_put(struct pp *p, const struct pdr_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char *text, size_t len)
{
	const uint8_t *key;
	size_t klen;
	if (!e->tp || len > 0xffff || !memo_key(p, e, raw, raw_size, &key, &klen))
		return;
	struct memo *m = &p->memo;
	uint64_t h = memo_hash(key, klen, e->tp->id);
	if (len >= MEMO_PENDING)
		return;
	struct memo_slot *slot = memo_find(m, h, e->tp->id, key, klen);
	if (slot->hash && slot->out_len != MEMO_PENDING)
		return;		/* already there */
	if (m->arena_used + 4 + klen + len > MEMO_ARENA || (m->used + 1) * 4 > MEMO_SLOTS * 3) {
		memo_reset(m);
		slot = memo_find(m, h, e->tp->id, key, klen);
	}
	/* a pending entry is replaced by a new record with the text */
	memo_store(m, slot, h, e->tp->id, key, klen, text, len, (uint16_t)len);
}

struct trace_seq *pp_seq_new(void)
{
	struct trace_seq *seq = malloc(sizeof(*seq));
	if (seq)
		trace_seq_init(seq);
	return seq;
}

void pp_seq_free(struct trace_seq *seq)
{
	if (!seq)
		return;
	trace_seq_destroy(seq);
	free(seq);
}

const char *pp_trace_text_tep(struct tep_handle *tep, const struct pdr_sample *s, struct trace_seq *seq,
			      size_t *len)
{
	struct tep_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.ts = s->time;
	rec.cpu = (int)s->cpu;
	rec.size = (int)s->raw_size;
	rec.data = (void *)s->raw;
	trace_seq_reset(seq);
	tep_print_event(tep, seq, &rec, "%s", TEP_PRINT_INFO);
	*len = seq->len;
	return seq->buffer;
}

struct pdr *pp_reader(const struct pp *p)
{
	return p->r;
}

bool pp_prints_symbols(const struct pp *p)
{
	return formats_print_symbols(p->r);
}

const char *pp_trace_text_uncached(struct pp *p, const struct pdr_evsel *e, const struct pdr_sample *s,
				   struct trace_seq *seq, size_t *len)
{
	struct tep_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.ts = s->time;
	rec.cpu = (int)s->cpu;
	rec.size = (int)s->raw_size;
	rec.data = (void *)s->raw;
	trace_seq_reset(seq);
	tep_print_event(pdr_tep(p->r), seq, &rec, "%s", TEP_PRINT_INFO);
	*len = seq->len;
	return seq->buffer;
}

void pp_memo_stats(const struct pp *p, uint64_t *hits, uint64_t *misses, uint64_t *resets)
{
	*hits = p->memo.hits;
	*misses = p->memo.misses;
	*resets = p->memo.resets;
}

bool pp_pipeline_fields(const struct pp *p)
{
	return !(p->o.fields & (PP_F_IP | PP_F_PERIOD | PP_F_ADDR)) && (p->o.fields & PP_F_TRACE);
}

void pp_prepare(struct pp *p)
{
	pp_name_width(p);
	for (size_t i = 0; i < pdr_nr_evsels(p->r); i++) {
		const struct pdr_evsel *e = pdr_evsel(p->r, i);
		if (e->tp)
			key_start(p, e->tp);
	}
}

/* Append the tracepoint text of s to o: compiled, else through the memo. */
static void trace_text(struct pp *p, struct out *o, const struct pdr_evsel *e, const struct pdr_sample *s)
{
	const char *text;
	size_t len;
	struct tp_info *t = tp_lookup(p, e->tp);
	if (t && t->prog) {
		size_t need = ppc_max_len(t->prog, s->raw_size);
		char *at = o->pos < o->len && o->len - o->pos >= need ? o->buf + o->pos : NULL;
		if (!at && need > p->scratch_cap) {
			char *nb = realloc(p->scratch, need);
			if (nb) {
				p->scratch = nb;
				p->scratch_cap = need;
			}
		}
		if (!at && need <= p->scratch_cap)
			at = p->scratch;
		p->no_defer = at == p->scratch;
		size_t nfix = p->nfix;
		int n = at ? ppc_run(t->prog, s->raw, s->raw_size, at, &p->symcb) : PPC_FALLBACK;
		p->no_defer = false;
		if (n < 0)
			p->nfix = nfix;	/* that text is not used */
		if (n >= 0) {
			t->compiled++;
			if (at == p->scratch)
				out_write(o, at, (size_t)n);
			else
				o->pos += (size_t)n;
			return;
		}
		t->fallback++;
	} else if (t) {
		t->fallback++;
	}
	if (pp_memo_get(p, e, s->raw, s->raw_size, &text, &len)) {
		out_write(o, text, len);
		return;
	}
	text = pp_trace_text_uncached(p, e, s, &p->seq, &len);
	out_write(o, text, len);
	pp_memo_put(p, e, s->raw, s->raw_size, text, len);
}

/*
 * The default layout ("%16s %5d [%03d] %12s: %*s: ") written with direct
 * stores; the caller checked the room and that every value fits its width.
 */
/* Decimal digits of v. */
static inline int dec_digits(uint64_t v)
{
	int n = 1;
	while (v >= 100) {
		v /= 100;
		n += 2;
	}
	return n + (v >= 10);
}


static size_t fast_prefix(struct pp *p, const char *comm, size_t cl, int32_t tid, int32_t cpu, uint64_t t,
			  const char *evname, size_t el, int ew, char *buf)
{
	/* fixed-size stores of spaces cover the padding (the caller gave
	 * 128 bytes of room beyond the name columns) */
	char *o = buf;
	memset(o, ' ', 16);
	by_copy(o + 16 - cl, comm, cl);
	o[16] = ' ';
	o += 17;
	int n = dec_digits((uint64_t)tid);
	if (n < 5) {
		memset(o, ' ', 8);
		o += 5 - n;
	}
	o = ppc_put_dec(o, (uint64_t)tid, n);
	memcpy(o, " [", 2);
	o = ppc_put_dec(o + 2, (uint64_t)cpu, 3);
	memcpy(o, "] ", 2);
	o += 2;
	uint64_t sec = t / 1000000000ULL, nsec = t % 1000000000ULL;
	n = dec_digits(sec);
	if (p->o.ns) {	/* "%5lu.%09lu" */
		if (n < 5) {
			memset(o, ' ', 8);
			o += 5 - n;
		}
		o = ppc_put_dec(o, sec, n);
		*o++ = '.';
		o = ppc_put_dec(o, nsec, 9);
	} else {	/* "%12s" of "sec.usec" */
		if (n + 7 < 12) {
			memset(o, ' ', 16);
			o += 12 - (n + 7);
		}
		o = ppc_put_dec(o, sec, n);
		*o++ = '.';
		o = ppc_put_dec(o, nsec / 1000ULL, 6);
	}
	memcpy(o, ": ", 2);
	o += 2;
	if ((int)el < ew) {
		size_t pad = (size_t)ew - el;
		memset(o, ' ', pad <= 16 ? 16 : pad);
		o += pad;
	}
	by_copy(o, evname, el);
	o += el;
	memcpy(o, ": ", 2);
	o += 2;
	return (size_t)(o - buf);
}

size_t pp_format_prefix(struct pp *p, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
			uint64_t time_ns, const char *evname, char *buf, size_t len)
{
	uint32_t f = p->o.fields & ~(uint32_t)PP_F_TRACE;
	if (f == (PP_F_COMM | PP_F_TID | PP_F_CPU | PP_F_TIME | PP_F_EVNAME) && evname && tid >= 0 && cpu >= 0 &&
	    cpu < 1000) {
		size_t cl = strlen(comm), el = strlen(evname);
		int ew = pp_name_width(p);
		if (cl <= 16 && len > 128 + el + (size_t)ew)
			return fast_prefix(p, comm, cl, tid, cpu, time_ns, evname, el, ew, buf);
	}
	struct out o = { buf, len, 0 };
	prefix(p, &o, comm, pid, tid, cpu, time_ns, evname);
	return out_done(&o);
}

size_t pp_format(struct pp *p, const struct pdr_event *ev, char *buf, size_t len)
{
	const struct pdr_sample *s = &ev->sample;
	/* tasks recently printed (direct-mapped by tid): few distinct ones */
	struct comm_cache *c = &p->cc[(s->tid * 0x9e3779b1u) >> 24 & (PP_COMM_CACHE - 1)];
	uint64_t gen = thr_generation(p->thr);
	if (!c->comm || c->gen != gen || c->pid != s->pid || c->tid != s->tid) {
		c->comm = thr_comm(p->thr, (int32_t)s->pid, (int32_t)s->tid);
		c->gen = thr_generation(p->thr);
		c->pid = s->pid;
		c->tid = s->tid;
	}
	return pp_format_with_comm(p, ev, c->comm, buf, len);
}

size_t pp_format_with_comm(struct pp *p, const struct pdr_event *ev, const char *comm, char *buf, size_t len)
{
	const struct pdr_sample *s = &ev->sample;
	const struct pdr_evsel *e = ev->evsel;
	size_t nfix = p->nfix;
	size_t n = pp_format_prefix(p, comm, (int32_t)s->pid, (int32_t)s->tid, (int32_t)s->cpu, s->time,
				    e ? e->name : NULL, buf, len);
	struct out o = { buf, len, n };
	uint32_t f = p->o.fields;
	if (f & PP_F_PERIOD) {
		out_u64_w(&o, s->period, 10, false, false);
		out_write(&o, " ", 1);
	}
	if (f & PP_F_ADDR)
		out_printf(&o, "%16llx ", (unsigned long long)s->addr);
	if ((f & PP_F_TRACE) && e && e->tp && s->raw)
		trace_text(p, &o, e, s);
	if (f & PP_F_IP)
		out_printf(&o, "%s%16llx", (f & PP_F_TRACE) ? " " : "", (unsigned long long)s->ip);
	out_write(&o, "\n", 1);
	if (o.pos >= len)
		p->nfix = nfix;	/* the caller formats this sample again elsewhere */
	return out_done(&o);
}

static struct json_object *field_json(struct tep_format_field *fl, const struct pdr_sample *s,
				      struct tep_handle *tep)
{
	const uint8_t *data = s->raw;
	uint32_t size = s->raw_size;
	unsigned off = (unsigned)fl->offset, len = (unsigned)fl->size;
	if (fl->flags & TEP_FIELD_IS_DYNAMIC) {
		if (off + (unsigned)fl->size > size || fl->size < 4)
			return NULL;
		unsigned long long v = tep_read_number(tep, data + off, 4);
		if (fl->flags & TEP_FIELD_IS_RELATIVE)
			off = off + 4 + (unsigned)(v & 0xffff);
		else
			off = (unsigned)(v & 0xffff);
		len = (unsigned)(v >> 16);
	}
	if ((uint64_t)off + len > size)
		return NULL;
	if (fl->flags & TEP_FIELD_IS_STRING) {
		size_t l = strnlen((const char *)data + off, len);
		return json_object_new_string_len((const char *)data + off, (int)l);
	}
	if (fl->flags & TEP_FIELD_IS_ARRAY) {
		struct json_object *a = json_object_new_array();
		unsigned esz = fl->elementsize ? (unsigned)fl->elementsize : 1;
		if (esz > 8)
			esz = 1;
		for (unsigned i = 0; i + esz <= len; i += esz)
			json_object_array_add(a, jsonv_u64(tep_read_number(tep, data + off + i, (int)esz)));
		return a;
	}
	if (len == 0 || len > 8)
		return NULL;
	unsigned long long v = tep_read_number(tep, data + off, (int)len);
	if (fl->flags & TEP_FIELD_IS_POINTER)
		return jsonv_addr(v);
	if (fl->flags & TEP_FIELD_IS_SIGNED) {
		int64_t sv;
		switch (len) {
		case 1: sv = (int8_t)v; break;
		case 2: sv = (int16_t)v; break;
		case 4: sv = (int32_t)v; break;
		default: sv = (int64_t)v; break;
		}
		return jsonv_i64(sv);
	}
	return jsonv_u64(v);
}

struct json_object *pp_json(struct pp *p, const struct pdr_event *ev)
{
	const struct pdr_sample *s = &ev->sample;
	const struct pdr_evsel *e = ev->evsel;
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "comm", json_object_new_string(thr_comm(p->thr, (int32_t)s->pid, (int32_t)s->tid)));
	json_object_object_add(o, "pid", json_object_new_int((int32_t)s->pid));
	json_object_object_add(o, "tid", json_object_new_int((int32_t)s->tid));
	json_object_object_add(o, "cpu", json_object_new_int((int32_t)s->cpu));
	json_object_object_add(o, "time_ns", jsonv_u64(s->time));
	json_object_object_add(o, "event", e && e->name ? json_object_new_string(e->name) : NULL);
	if (s->type & PDF_SAMPLE_PERIOD)
		json_object_object_add(o, "period", jsonv_u64(s->period));
	if (s->type & PDF_SAMPLE_IP)
		json_object_object_add(o, "ip", jsonv_addr(s->ip));
	if (e && e->tp && s->raw) {
		struct json_object *fo = json_object_new_object();
		struct tep_format_field *fl;
		for (fl = e->tp->format.fields; fl; fl = fl->next)
			json_object_object_add(fo, fl->name, field_json(fl, s, pdr_tep(p->r)));
		json_object_object_add(o, "fields", fo);
	}
	return o;
}
