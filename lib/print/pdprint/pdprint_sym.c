/* SPDX-License-Identifier: MIT */
/*
 * pdprint_sym.c - kernel symbols for the %ps-style fields of pdprint's lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <traceevent/event-parse.h>

#include "pdprint_int.h"

/*
 * Kernel symbols for %ps-style fields, as perf script resolves them: perf
 * hands libtraceevent a function resolver backed by its kernel map (no
 * function list).  Here the resolver is lib/ksym (perf's kallsyms rules),
 * loaded on the first address that needs it: a recording whose samples
 * print no symbol never reads kallsyms.
 */
static void ksyms_ensure(struct pdprint *p)
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
bool pdprint_ksym(struct pdprint *p, uint64_t addr, struct ksym_hit *hit)
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
	if (!pdprint_ksym(priv, *addrp, &h))
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

static struct sym_ent *sc_find(struct pdprint *p, uint64_t addr)
{
	if (!p->sc_cap)
		return NULL;
	for (size_t i = (size_t)(addr * 0x9e3779b97f4a7c15ULL >> 20) & (p->sc_cap - 1);; i = (i + 1) & (p->sc_cap - 1))
		if (!p->sc[i].used || p->sc[i].addr == addr)
			return &p->sc[i];
}

/* Remember what addr resolves to (name NULL: nothing). */
static void sc_put(struct pdprint *p, uint64_t addr, const char *name, uint64_t start)
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
static struct sym_ent *sc_resolve(struct pdprint *p, uint64_t addr)
{
	struct ksym_hit h;
	bool found = pdprint_ksym(p, addr, &h);
	sc_put(p, addr, found ? h.name : NULL, found ? h.start : 0);
	struct sym_ent *e = sc_find(p, addr);
	return e && e->used ? e : NULL;
}

/* How a compiled format prints %ps / %pS. */
size_t pdprint_sym_text(void *ctx, uint64_t addr, bool with_offset, char *out)
{
	struct pdprint *p = ctx;
	if (!p->ksym_path)
		return sym_write(out, addr, NULL, 0, with_offset);
	struct sym_ent *e = sc_find(p, addr);
	if ((!e || !e->used) && (!p->o.defer_symbols || p->kset_done || p->no_defer)) {
		e = sc_resolve(p, addr);
		if (!e) {	/* no memory for the cache */
			struct ksym_hit h;
			bool found = pdprint_ksym(p, addr, &h);
			return sym_write(out, addr, found ? h.name : NULL, found ? h.start : 0, with_offset);
		}
	}
	if (e && e->used)
		return sym_write(out, addr, e->name, e->start, with_offset);
	/* not known yet: leave it out, note where it goes (pdprint_emit) */
	if (p->nfix == p->cfix) {
		size_t nc = p->cfix ? p->cfix * 2 : 256;
		struct sym_fix *n = realloc(p->fix, nc * sizeof(*n));
		if (!n) {
			p->kset_done = true;	/* give up deferring */
			return pdprint_sym_text(ctx, addr, with_offset, out);
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
static void resolve_pending(struct pdprint *p)
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

bool pdprint_symbols_pending(const struct pdprint *p)
{
	return p->nfix > 0;
}

int pdprint_emit(struct pdprint *p, const char *buf, size_t len, pdprint_emit_fn emit, void *ctx)
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
		char tmp[PRINTFMT_SYM_MAX];
		struct sym_ent *e = sc_find(p, f->addr);
		struct ksym_hit h;
		bool found = e && e->used ? e->name != NULL : pdprint_ksym(p, f->addr, &h);
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
void pdprint_setup_symbols(struct pdprint *p)
{
	struct tep_handle *tep = pdread_tep(p->r);
	const char *path = p->o.kallsyms;
	if (path && !*path)
		return;
	if (!path) {
		struct utsname u;
		const char *rel = pdread_info(p->r)->osrelease;
		if (uname(&u) || !rel || strcmp(rel, u.release))
			return;
		path = "/proc/kallsyms";
		p->same_kernel = true;
	}
	p->ksym_path = path;
	if (tep)
		tep_set_function_resolver(tep, resolve_func, p);
}
