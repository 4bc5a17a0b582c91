/* SPDX-License-Identifier: MIT */
/*
 * pdprint_samp.c - where the addresses of sampling events (cpu-clock,
 * cycles...) point, as perf script names them: kernel addresses through
 * kallsyms (pdprint_sym.c's table), user addresses through the process's
 * maps (MMAP/MMAP2 records, inherited at FORK) and the symbols of the ELF
 * file each map names (lib/format/elfsym, loaded once per file and cached).
 * Memory: one small sorted array of maps per process, one entry per DSO;
 * nothing is allocated per sample.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "base/bytes.h"
#include "format/elfsym.h"
#include "pdprint_int.h"

#define SAMP_MAX_MAPS	(1u << 16)	/* per process */
#define SAMP_MAX_DSOS	(1u << 16)
#define SAMP_DEBUG_ROOT	"/usr/lib/debug"

struct umap {
	uint64_t start, end, pgoff;
	uint32_t dso;
	bool anon;		/* no file: perf shows the address itself */
};

struct pidmaps {
	int32_t pid;
	bool used;
	int8_t jit;		/* /tmp/perf-PID.map: -1 not looked, 0 none, 1 there */
	uint32_t n, cap;
	struct umap *m;		/* sorted by start, not overlapping */
};

struct udso {
	char *path;
	struct elfsym *t;
	bool tried;
};

static size_t hash_pid(int32_t pid, size_t cap)
{
	return ((uint32_t)pid * 0x9e3779b1u) & (cap - 1);
}

static struct pidmaps *pm_find(struct pdprint *p, int32_t pid, bool add)
{
	if (add && (p->pm_used + 1) * 2 > p->pm_cap) {
		size_t ncap = p->pm_cap ? 2 * p->pm_cap : 256;
		struct pidmaps *n = calloc(ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < p->pm_cap; i++) {
			if (!p->pm[i].used)
				continue;
			size_t j = hash_pid(p->pm[i].pid, ncap);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = p->pm[i];
		}
		free(p->pm);
		p->pm = n;
		p->pm_cap = ncap;
	}
	if (!p->pm_cap)
		return NULL;
	for (size_t j = hash_pid(pid, p->pm_cap);; j = (j + 1) & (p->pm_cap - 1)) {
		struct pidmaps *e = &p->pm[j];
		if (e->used && e->pid == pid)
			return e;
		if (!e->used) {
			if (!add)
				return NULL;
			e->used = true;
			e->pid = pid;
			e->jit = -1;
			p->pm_used++;
			return e;
		}
	}
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* The DSO called path (added on first sight); UINT32_MAX when full. */
static uint32_t dso_id(struct pdprint *p, const char *path)
{
	if ((p->ndsos + 1) * 2 > p->dh_cap) {
		if (p->ndsos >= SAMP_MAX_DSOS)
			return UINT32_MAX;
		size_t ncap = p->dh_cap ? 2 * p->dh_cap : 256;
		uint32_t *n = calloc(ncap, sizeof(*n));
		if (!n)
			return UINT32_MAX;
		for (size_t i = 0; i < p->ndsos; i++) {
			size_t j = hash_str(p->dsos[i].path) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = (uint32_t)i + 1;
		}
		free(p->dh);
		p->dh = n;
		p->dh_cap = ncap;
	}
	size_t j = hash_str(path) & (p->dh_cap - 1);
	for (; p->dh[j]; j = (j + 1) & (p->dh_cap - 1))
		if (!strcmp(p->dsos[p->dh[j] - 1].path, path))
			return p->dh[j] - 1;
	if (p->ndsos == p->cdsos) {
		size_t nc = p->cdsos ? 2 * p->cdsos : 64;
		struct udso *n = realloc(p->dsos, nc * sizeof(*n));
		if (!n)
			return UINT32_MAX;
		p->dsos = n;
		p->cdsos = nc;
	}
	char *dup = strdup(path);
	if (!dup)
		return UINT32_MAX;
	p->dsos[p->ndsos] = (struct udso){ .path = dup };
	p->dh[j] = (uint32_t)p->ndsos + 1;
	return (uint32_t)p->ndsos++;
}

/*
 * Add [start, start + len) to pid's maps; overlapped maps are dropped.  Code
 * with no file behind it (anonymous, huge pages, the heap, a stack, SysV
 * shared memory) is named as perf names it, after the JIT map file perf
 * would read for it, "/tmp/perf-PID.map", and its addresses are not made
 * map-relative.
 */
static void map_add(struct pdprint *p, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path,
		    bool exec, bool huge)
{
	if (!len || start + len < start)
		return;
	bool anon = !strcmp(path, "//anon") || !strncmp(path, "/dev/zero", 9) || !strncmp(path, "/anon_hugepage", 14) ||
		    huge;
	bool no_dso = !strncmp(path, "[stack", 6) || !strncmp(path, "/SYSV", 5) || !strcmp(path, "[heap]");
	char jit[64];
	if ((anon || no_dso) && exec) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)pid);
		path = jit;
	}
	uint32_t d = dso_id(p, path);
	struct pidmaps *pm = d == UINT32_MAX ? NULL : pm_find(p, pid, true);
	if (!pm)
		return;
	uint64_t end = start + len;
	uint32_t w = 0, at = 0;
	for (uint32_t i = 0; i < pm->n; i++) {
		if (pm->m[i].start < end && pm->m[i].end > start)
			continue;	/* overlapped: the new map replaces it */
		if (pm->m[i].start < start)
			at = w + 1;
		pm->m[w++] = pm->m[i];
	}
	pm->n = w;
	if (pm->n == pm->cap) {
		if (pm->cap >= SAMP_MAX_MAPS)
			return;
		uint32_t nc = pm->cap ? 2 * pm->cap : 16;
		struct umap *n = realloc(pm->m, nc * sizeof(*n));
		if (!n)
			return;
		pm->m = n;
		pm->cap = nc;
	}
	memmove(&pm->m[at + 1], &pm->m[at], (pm->n - at) * sizeof(*pm->m));
	pm->m[at] = (struct umap){ start, end, pgoff, d, anon || no_dso };
	pm->n++;
}

/* A child process starts with a copy of its parent's maps. */
static void map_fork(struct pdprint *p, int32_t pid, int32_t ppid)
{
	struct pidmaps *par = pm_find(p, ppid, false);
	if (pid == ppid || !par || !par->n)
		return;
	struct umap *copy = malloc(par->n * sizeof(*copy));
	if (!copy)
		return;
	uint32_t n = par->n;
	memcpy(copy, par->m, n * sizeof(*copy));
	struct pidmaps *ch = pm_find(p, pid, true);	/* may move par */
	if (!ch) {
		free(copy);
		return;
	}
	free(ch->m);
	ch->m = copy;
	ch->n = ch->cap = n;
}

/* Does some event print addresses (a sampling event's ip, a callchain)?  Else
 * the maps are not kept.  Rechecked when pipe mode adds events. */
static bool need_maps(struct pdprint *p)
{
	size_t n = pdread_nr_evsels(p->r);
	if (n != p->maps_evsels) {
		p->maps_evsels = n;
		p->maps_needed = false;
		for (size_t i = 0; i < n; i++) {
			const struct pdread_evsel *e = pdread_evsel(p->r, i);
			uint64_t st = e->attr.sample_type;
			bool dummy = e->attr.type == PDFORMAT_TYPE_SOFTWARE && e->attr.config == 9;	/* side-band only */
			if ((!e->tp && !dummy && (st & PDFORMAT_SAMPLE_IP)) || (st & PDFORMAT_SAMPLE_CALLCHAIN))
				p->maps_needed = true;
		}
	}
	return p->maps_needed && !p->user_fields;
}

/* A KSYMBOL record (a BPF program, a trampoline): its range is kept so that
 * a sample there is refused (perf names it from the record, not kallsyms). */
static void ksymbol_add(struct pdprint *p, const struct pdread_event *ev)
{
	bool swap = pdread_needs_swap(p->r);
	if (ev->size < 24 || (bytes_ld16(ev->data + 22, swap) & 1))	/* unregistered: kept (may still be in a chain) */
		return;
	if (p->nks == p->cks) {
		if (p->cks >= SAMP_MAX_MAPS)
			return;
		size_t nc = p->cks ? 2 * p->cks : 64;
		uint64_t *n = realloc(p->ks, nc * 2 * sizeof(*n));
		if (!n)
			return;
		p->ks = n;
		p->cks = nc;
	}
	uint64_t a = bytes_ld64(ev->data + 8, swap);
	size_t at = p->nks;	/* sorted by start */
	while (at && p->ks[2 * (at - 1)] > a)
		at--;
	memmove(&p->ks[2 * at + 2], &p->ks[2 * at], (p->nks - at) * 2 * sizeof(*p->ks));
	p->ks[2 * at] = a;
	p->ks[2 * at + 1] = a + bytes_ld32(ev->data + 16, swap);
	p->nks++;
	if (p->ks[2 * at + 1] - a > p->ks_maxlen)
		p->ks_maxlen = p->ks[2 * at + 1] - a;
}

/* Is addr in a KSYMBOL range?  Ranges may overlap: every one starting
 * within the longest range's length below addr is looked at. */
static bool in_ksymbol(const struct pdprint *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nks;	/* first range starting above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->ks[2 * mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && addr - p->ks[2 * i] < p->ks_maxlen;)
		if (addr < p->ks[2 * i + 1])
			return true;
	return false;
}

void pdprint_samp_track(struct pdprint *p, const struct pdread_event *ev)
{
	if (!need_maps(p))
		return;
	if (ev->type == PDFORMAT_RECORD_KSYMBOL) {
		ksymbol_add(p, ev);
		return;
	}
	bool swap = pdread_needs_swap(p->r);
	const uint8_t *d = ev->data;
	size_t fo;
	if (ev->type == PDFORMAT_RECORD_MMAP)
		fo = 40;
	else if (ev->type == PDFORMAT_RECORD_MMAP2)
		fo = 72;
	else if (ev->type == PDFORMAT_RECORD_FORK && ev->size >= 24) {
		map_fork(p, (int32_t)bytes_ld32(d + 8, swap), (int32_t)bytes_ld32(d + 12, swap));
		return;
	} else
		return;
	if (ev->size <= fo)
		return;
	int32_t pid = (int32_t)bytes_ld32(d + 8, swap);
	if (pid == -1 || (ev->misc & 7) != 2)	/* kernel maps: kallsyms covers them */
		return;
	char path[4096];
	size_t l = strnlen((const char *)d + fo, ev->size - fo);
	if (l == 0 || l >= sizeof(path))
		return;
	memcpy(path, d + fo, l);
	path[l] = '\0';
	bool exec = true, huge = false;
	if (ev->type == PDFORMAT_RECORD_MMAP2) {	/* prot, flags after maj/min/ino/ino_gen (or the build-id) */
		exec = bytes_ld32(d + 64, swap) & 4;	/* PROT_EXEC */
		huge = bytes_ld32(d + 68, swap) & 0x40000;	/* MAP_HUGETLB */
	} else {
		exec = !(ev->misc & (1u << 13));	/* PERF_RECORD_MISC_MMAP_DATA */
	}
	map_add(p, pid, bytes_ld64(d + 16, swap), bytes_ld64(d + 24, swap), bytes_ld64(d + 32, swap), path, exec, huge);
}

/* The vdso of this process: the recording's when it was made on this kernel. */
static struct elfsym *load_vdso(void)
{
	const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	if (!img || memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64)
		return NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	size_t len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (len > (1u << 20))
		return NULL;
	struct elfsym *t = NULL;
	elfsym_load_mem(&t, img, len);
	return t;
}

static struct elfsym *dso_syms(struct pdprint *p, struct udso *d)
{
	if (!d->tried) {
		d->tried = true;
		if (!strcmp(d->path, "[vdso]"))
			d->t = p->same_kernel ? load_vdso() : NULL;
		else if (d->path[0] == '/') {
			char bid[41], cache[4096];
			bool has = pdread_build_id(p->r, d->path, bid);
			const char *home = getenv("HOME");
			snprintf(cache, sizeof(cache), "%s/.debug", home ? home : "/");
			elfsym_load(&d->t, d->path, has ? bid : NULL, home ? cache : NULL, SAMP_DEBUG_ROOT);
		}
	}
	return d->t;
}

static const struct umap *map_find(const struct pidmaps *pm, uint64_t addr)
{
	uint32_t lo = 0, hi = pm->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pm->m[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pm->n && pm->m[lo].start <= addr ? &pm->m[lo] : NULL;
}

static void kernel_loc(struct pdprint *p, uint64_t addr, struct samp_loc *l)
{
	struct ksym_hit h;
	if (!p->ksym_path) {
		p->refuse = "kernel addresses, without kallsyms of the recorded kernel (give --kallsyms FILE)";
		return;
	}
	if (p->nks && in_ksymbol(p, addr)) {
		p->refuse = "addresses in BPF programs or other code announced by KSYMBOL records";
		return;
	}
	bool found = pdprint_ksym(p, addr, &h);
	if (!p->ksym) {
		p->refuse = "kernel addresses: kallsyms could not be read";
		return;
	}
	l->dso = KSYM_KERNEL_DSO;
	if (found) {
		l->sym = h.name;
		l->off = h.offset;
		if (h.module) {
			p->refuse = "addresses in kernel modules (perf reads their .ko files)";
			return;
		}
	}
}

void pdprint_samp_resolve(struct pdprint *p, int32_t pid, uint64_t addr, int mode, struct samp_loc *l)
{
	*l = (struct samp_loc){ .shown = addr };
	if (mode == SAMP_KERNEL) {
		kernel_loc(p, addr, l);
		return;
	}
	if (mode != SAMP_USER) {
		p->refuse = "hypervisor or guest addresses";
		return;
	}
	struct pidmaps *pm = pm_find(p, pid, false);
	const struct umap *m = pm ? map_find(pm, addr) : NULL;
	if (!m)
		return;
	struct udso *d = &p->dsos[m->dso];
	uint64_t off = m->anon ? addr : addr - m->start + m->pgoff;
	if (m->anon) {
		if (pm->jit < 0) {	/* perf names anonymous code from a JIT's map file */
			char jf[64];
			snprintf(jf, sizeof(jf), "/tmp/perf-%d.map", (int)pid);
			pm->jit = access(jf, F_OK) == 0;
		}
		if (pm->jit)
			p->refuse = "JIT code named by /tmp/perf-PID.map (perf reads it)";
		l->dso = d->path;
		l->shown = off;
		return;
	}
	l->dso = d->path;
	l->shown = off;
	struct elfsym_hit h;
	struct elfsym *t = dso_syms(p, d);
	if (t && elfsym_lookup(t, off, &h)) {
		if (!strncmp(h.name, "_Z", 2) || !strncmp(h.name, "_R", 2))
			p->refuse = "Rust symbol names, or names the C++ demangler cannot read (perf demangles them)";
		l->sym = h.name;
		l->off = h.offset;
	}
}

const char *pdprint_refusal(const struct pdprint *p)
{
	return p->refuse;
}

/* sample_type bits whose fields the sampling layout prints or that change nothing in it */
#define SAMP_TYPES (PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | \
		    PDFORMAT_SAMPLE_ID | PDFORMAT_SAMPLE_STREAM_ID | PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_PERIOD | \
		    PDFORMAT_SAMPLE_CALLCHAIN | PDFORMAT_SAMPLE_RAW)

/* Why evsel e's samples cannot be printed as perf does; false when they can. */
static bool evsel_unsupported(const struct pdread_evsel *e, char *why, size_t len)
{
	const char *name = e->name ? e->name : "?";
	if (e->tp)
		return false;
	uint32_t ty = e->attr.type;
	if (ty != PDFORMAT_TYPE_HARDWARE && ty != PDFORMAT_TYPE_SOFTWARE && ty != PDFORMAT_TYPE_HW_CACHE) {
		snprintf(why, len, "event '%s' is of type %u (printed: tracepoint, hardware, software and "
			 "cache events)", name, ty);
		return true;
	}
	if (ty == PDFORMAT_TYPE_SOFTWARE && e->attr.config == 10) {
		snprintf(why, len, "event '%s' is a bpf-output event", name);
		return true;
	}
	uint64_t extra = e->attr.sample_type & ~(uint64_t)SAMP_TYPES;
	if (extra) {
		static const char *const bit[] = { "ip", "tid", "time", "addr", "read", "callchain", "id",
			"cpu", "period", "stream_id", "raw", "branch_stack", "regs_user", "stack_user (dwarf "
			"unwinding)", "weight", "data_src", "identifier", "transaction", "regs_intr",
			"phys_addr", "aux", "cgroup", "data_page_size", "code_page_size", "weight_struct" };
		int n = snprintf(why, len, "event '%s' records", name);
		for (int b = 0, k = 0; b < 64 && n >= 0 && (size_t)n < len; b++)
			if (extra >> b & 1)
				n += snprintf(why + n, len - (size_t)n, "%s %s", k++ ? "," : "",
					      b < (int)(sizeof(bit) / sizeof(bit[0])) ? bit[b] : "(unknown field)");
		if (n >= 0 && (size_t)n < len)
			snprintf(why + n, len - (size_t)n, ", not printed (sample_type 0x%llx)",
				 (unsigned long long)e->attr.sample_type);
		return true;
	}
	return false;
}

/* perf's side-band event (no samples of its own) */
static bool is_dummy(const struct pdread_evsel *e)
{
	return e->attr.type == PDFORMAT_TYPE_SOFTWARE && e->attr.config == 9 && !(e->attr.sample_type & PDFORMAT_SAMPLE_RAW);
}

bool pdprint_unsupported(const struct pdprint *p, char *why, size_t len)
{
	if (p->user_fields)
		return false;
	for (size_t i = 0; i < pdread_nr_evsels(p->r); i++) {
		const struct pdread_evsel *e = pdread_evsel(p->r, i);
		if (!is_dummy(e) && evsel_unsupported(e, why, len))
			return true;
	}
	return false;
}

bool pdprint_samp_check(struct pdprint *p, const struct pdread_evsel *e)
{
	if (e->idx < 0 || e->idx >= 4096) {	/* not cached */
		if (!evsel_unsupported(e, p->refuse_buf, sizeof(p->refuse_buf)))
			return true;
		p->refuse = p->refuse_buf;
		return false;
	}
	if ((size_t)e->idx >= p->nchecked) {
		size_t nc = (size_t)e->idx + 16;
		uint8_t *n = realloc(p->checked, nc);
		if (!n)
			return false;
		memset(n + p->nchecked, 0, nc - p->nchecked);
		p->checked = n;
		p->nchecked = nc;
	}
	uint8_t *c = &p->checked[e->idx];
	if (!*c)
		*c = evsel_unsupported(e, p->refuse_buf, sizeof(p->refuse_buf)) ? 2 : 1;
	if (*c == 2) {
		evsel_unsupported(e, p->refuse_buf, sizeof(p->refuse_buf));
		p->refuse = p->refuse_buf;
		return false;
	}
	return true;
}

void pdprint_samp_free(struct pdprint *p)
{
	for (size_t i = 0; i < p->pm_cap; i++)
		free(p->pm[i].m);
	free(p->pm);
	for (size_t i = 0; i < p->ndsos; i++) {
		free(p->dsos[i].path);
		elfsym_free(p->dsos[i].t);
	}
	free(p->dsos);
	free(p->dh);
	free(p->ks);
	free(p->checked);
}
