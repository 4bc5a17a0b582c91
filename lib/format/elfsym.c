/* SPDX-License-Identifier: MIT */
/* elfsym.c - function symbols of a user-space ELF file.  See elfsym.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/elfsym.h"

struct esym {
	uint64_t start, end;
	uint32_t name;		/* offset in names */
	uint8_t bind, weak_rank;
	bool sized;
};

struct elfsym {
	struct esym *s;
	size_t n;
	char *names;
	size_t names_len, names_cap;
	bool mangled;
};

static bool elf_ready(void)
{
	static int ok = -1;
	if (ok < 0)
		ok = elf_version(EV_CURRENT) != EV_NONE;
	return ok;
}

/* The GNU build-id of e as lowercase hex into hex (>= 2 * 64 + 1); false if none. */
static bool build_id(Elf *e, char *hex)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) || nh.n_descsz == 0 || nh.n_descsz > 64)
				continue;
			const uint8_t *b = (const uint8_t *)d->d_buf + doff;
			for (size_t i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", b[i]);
			return true;
		}
	}
	return false;
}

/* The section of type want (SHT_SYMTAB, SHT_DYNSYM), or NULL. */
static Elf_Scn *find_scn(Elf *e, uint32_t want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == want)
			return scn;
	return NULL;
}

static int cmp_start(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static size_t leading_(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's preference among symbols at one address: true if a beats b. */
static bool better(const struct elfsym *t, const struct esym *a, const struct esym *b)
{
	if (a->sized != b->sized)
		return a->sized;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	const char *na = t->names + a->name, *nb = t->names + b->name;
	size_t ua = leading_(na), ub = leading_(nb);
	if (ua != ub)
		return ua < ub;
	return strlen(na) > strlen(nb);
}

static int add_sym(struct elfsym *t, size_t *cap, const char *nm, uint64_t start, uint64_t end, int bind);

/* libstdc++'s demangler (the C++ ABI's; the program links libstdc++) */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * The demangled text without what perf's demangling (libiberty's, without
 * DMGL_PARAMS) leaves out: the parameter list, the qualifiers after it and
 * a template function's return type.  Checked against `c++filt -p -i` on
 * 3,730 names (libstdc++'s, the debug files') and against perf script on a
 * C++ program's callchains; special names (thunks, clones) are printed in
 * full by perf, parameters included.
 */
static void strip_params(char *d)
{
	static const char *const q[] = { " const", " volatile", " &&", " &", " noexcept" };
	size_t n = strlen(d);
	while (n && d[n - 1] == ']') {	/* " [clone .isra.0]" suffixes go too */
		char *c = NULL;
		for (char *k = d; (k = strstr(k, " [clone ")); k++)
			c = k;
		if (!c)
			break;
		n = (size_t)(c - d);
		d[n] = '\0';
	}
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			size_t l = strlen(q[i]);
			if (n > l && !strcmp(d + n - l, q[i])) {
				n -= l;
				d[n] = '\0';
				again = true;
			}
		}
	}
	if (!n || d[n - 1] != ')')
		return;
	int depth = 0;
	size_t i = n;
	while (i-- > 0) {
		if (d[i] == ')')
			depth++;
		else if (d[i] == '(' && --depth == 0)
			break;
	}
	if (depth)
		return;
	d[i] = '\0';
	n = i;
	if (!n || d[n - 1] != '>')
		return;
	int a = 0, p = 0;	/* a template function: "RET name<...>" */
	size_t sp = SIZE_MAX;
	for (size_t k = 0; k < n && strncmp(d + k, "operator", 8); k++) {
		char c = d[k];
		if (c == '<')
			a++;
		else if (c == '>')
			a--;
		else if (c == '(')
			p++;
		else if (c == ')')
			p--;
		else if (c == ' ' && !a && !p)
			sp = k;
	}
	if (sp != SIZE_MAX)
		memmove(d, d + sp + 1, n - sp);
}

/* A C++ name as perf prints it (malloc'd), or NULL to keep the name as it
 * is: not C++, not demangled, or a form printed differently (legacy Rust's
 * hash, transaction clones), which stays mangled and is refused. */
static char *demangle(const char *nm)
{
	if (strncmp(nm, "_Z", 2))
		return NULL;
	int st;
	char *d = __cxa_demangle(nm, NULL, NULL, &st);
	if (!d)
		return NULL;
	size_t l = strlen(d);
	bool rust = strchr(d, '$') || (l > 19 && !strncmp(d + l - 19, "::h", 3) &&
					strspn(d + l - 16, "0123456789abcdef") == 16);
	if (rust) {
		free(d);
		return NULL;
	}
	/* special names (thunks, clones, guard variables...) keep their
	 * parameters: libiberty demangles the encoding inside them in full */
	static const char *const special[] = { "virtual thunk to ", "non-virtual thunk to ",
		"covariant return thunk to ", "transaction clone for ", "non-transaction clone for ",
		"construction vtable for ", "vtable for ", "VTT for ", "typeinfo for ", "typeinfo name for ",
		"typeinfo fn for ", "guard variable for ", "TLS init function for ", "TLS wrapper function for ",
		"reference temporary #", "hidden alias for ", "java Class for " };
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strncmp(d, special[i], strlen(special[i])))
			return d;
	strip_params(d);
	return d;
}

/* Is section i of e a text section (its name holds "text"), as perf asks of labels? */
static bool text_section(Elf *e, size_t i)
{
	size_t shstr;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(e, i);
	if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(e, &shstr))
		return false;
	const char *n = elf_strptr(e, shstr, sh.sh_name);
	return n && strstr(n, "text");
}

/* Read the function symbols of symtab scn (of e) into t; secs: the
 * sections used to move ET_EXEC values (the runtime file's). */
static int read_syms(struct elfsym *t, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, Elf *secs, bool exec)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return -ENOEXEC;
	size_t n = sh->sh_size / sh->sh_entsize, cap = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			break;
		int ty = GELF_ST_TYPE(s.st_info);
		if ((ty != STT_FUNC && ty != STT_GNU_IFUNC && ty != STT_NOTYPE) || !s.st_name ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		if (ty == STT_NOTYPE && !text_section(e, s.st_shndx))
			continue;	/* a label counts in a text section only */
		const char *nm = elf_strptr(e, sh->sh_link, s.st_name);
		if (!nm || !*nm)
			continue;
		uint64_t v = s.st_value;
		if (exec) {
			GElf_Shdr ss;
			Elf_Scn *sec = elf_getscn(secs, s.st_shndx);
			if (!sec || !gelf_getshdr(sec, &ss))
				continue;
			v = v - ss.sh_addr + ss.sh_offset;
		}
		char *dm = demangle(nm);
		int rc = add_sym(t, &cap, dm ? dm : nm, v, v + s.st_size, GELF_ST_BIND(s.st_info));
		free(dm);
		if (rc)
			return rc;
	}
	return 0;
}

/* Sort, keep one symbol per address, end the unsized ones at the next. */
static void finish(struct elfsym *t)
{
	if (!t->n)
		return;
	qsort(t->s, t->n, sizeof(*t->s), cmp_start);
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (w && t->s[w - 1].start == t->s[i].start) {
			if (better(t, &t->s[i], &t->s[w - 1]))
				t->s[w - 1] = t->s[i];
			continue;
		}
		t->s[w++] = t->s[i];
	}
	t->n = w;
	for (size_t i = 0; i < t->n; i++) {
		if (t->s[i].end > t->s[i].start)
			continue;
		t->s[i].end = i + 1 < t->n ? t->s[i + 1].start : ((t->s[i].start + 4095) & ~4095ull) + 4096;
	}
}

static Elf_Scn *scn_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstr;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(e, shstr, sh->sh_name)) && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int add_sym(struct elfsym *t, size_t *cap, const char *nm, uint64_t start, uint64_t end, int bind)
{
	if (t->n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		struct esym *ns = realloc(t->s, *cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		t->s = ns;
	}
	size_t l = strlen(nm) + 1;
	if (t->names_len + l > t->names_cap || t->names_len + l > UINT32_MAX) {
		size_t nc = 2 * t->names_cap + l + 4096;
		char *nn = nc <= UINT32_MAX ? realloc(t->names, nc) : NULL;
		if (!nn)
			return -ENOMEM;
		t->names = nn;
		t->names_cap = nc;
	}
	memcpy(t->names + t->names_len, nm, l);
	if (!strncmp(nm, "_Z", 2) || !strncmp(nm, "_R", 2))
		t->mangled = true;
	t->s[t->n++] = (struct esym){ .start = start, .end = end, .name = (uint32_t)t->names_len,
				      .bind = (uint8_t)bind, .sized = end > start };
	t->names_len += l;
	return 0;
}

/*
 * The PLT entries as perf 6.1 makes them up: one "name@plt" per .rela.plt
 * (or .rel.plt) entry, in order, sh_entsize bytes each after a header of
 * the same size at .plt's file offset (x86; the name is empty for a
 * relocation with no symbol).  Added after the other symbols' ends are set,
 * so a symbol ended by the next one may run over them; lookups prefer the
 * later start.
 */
static int add_plt(struct elfsym *t, Elf *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel = scn_named(e, ".rela.plt", &rsh);
	if (!rel)
		rel = scn_named(e, ".rel.plt", &rsh);
	Elf_Scn *dyn = find_scn(e, SHT_DYNSYM, &dsh);
	if (!rel || !dyn || !scn_named(e, ".plt", &psh) || !rsh.sh_entsize || !psh.sh_entsize ||
	    rsh.sh_link != elf_ndxscn(dyn))
		return 0;
	Elf_Data *rd = elf_getdata(rel, NULL), *dd = elf_getdata(dyn, NULL);
	if (!rd || !dd)
		return 0;
	size_t cap = t->n;
	uint64_t off = psh.sh_offset + psh.sh_entsize;
	size_t nr = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < nr; i++, off += psh.sh_entsize) {
		uint64_t info;
		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela ra;
			if (!gelf_getrela(rd, (int)i, &ra))
				break;
			info = ra.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rd, (int)i, &r))
				break;
			info = r.r_info;
		}
		GElf_Sym sym;
		const char *nm = "";
		if (gelf_getsym(dd, (int)GELF_R_SYM(info), &sym))
			nm = elf_strptr(e, dsh.sh_link, sym.st_name);
		char buf[1024], *dm = nm ? demangle(nm) : NULL;
		snprintf(buf, sizeof(buf), "%s@plt", dm ? dm : nm ? nm : "");
		free(dm);
		int rc = add_sym(t, &cap, buf, off, off + psh.sh_entsize, STB_GLOBAL);
		if (rc)
			return rc;
	}
	qsort(t->s, t->n, sizeof(*t->s), cmp_start);
	return 0;
}

/* Symbols of sym (its .symtab or .dynsym); secs: the runtime file, whose
 * sections move ET_EXEC values to file offsets. */
static int load_elf(struct elfsym *t, Elf *sym, Elf *secs)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	if (!gelf_getehdr(secs, &eh))
		return -ENOEXEC;
	bool exec = eh.e_type == ET_EXEC;
	Elf_Scn *scn;
	int rc = 0;
	if ((scn = find_scn(sym, SHT_SYMTAB, &sh)) || (scn = find_scn(sym, SHT_DYNSYM, &sh)))
		rc = read_syms(t, sym, scn, &sh, secs, exec);
	if (!rc)
		finish(t);
	if (!rc)
		rc = add_plt(t, secs);
	return rc;
}

struct cand {
	int fd;
	Elf *e;
};

static bool cand_open(struct cand *c, const char *path)
{
	struct stat st;
	c->e = NULL;
	c->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);	/* a FIFO must not block */
	if (c->fd < 0)
		return false;
	if (fstat(c->fd, &st) || !S_ISREG(st.st_mode)) {
		close(c->fd);
		return false;
	}
	c->e = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	if (c->e && elf_kind(c->e) == ELF_K_ELF)
		return true;
	if (c->e)
		elf_end(c->e);
	close(c->fd);
	c->e = NULL;
	return false;
}

static void cand_close(struct cand *c)
{
	if (c->e) {
		elf_end(c->e);
		close(c->fd);
		c->e = NULL;
	}
}

int elfsym_load(struct elfsym **tp, const char *path, const char *bid, const char *cache_dir, const char *debug_root)
{
	*tp = NULL;
	if (!elf_ready())
		return -ENOEXEC;
	/* the candidates, in perf's order; [0..1] are the runtime file */
	char paths[4][4096];
	int n = 0, first_debug;
	char hex[2 * 64 + 1];
	struct cand own = { -1, NULL };
	bool own_ok = cand_open(&own, path);
	if (!bid && own_ok && build_id(own.e, hex))
		bid = hex;
	else if (bid && own_ok && (!build_id(own.e, hex) || strcmp(hex, bid)))
		cand_close(&own);	/* not the recorded file any more */
	if (bid && cache_dir)
		snprintf(paths[n++], sizeof(paths[0]), "%s/.build-id/%.2s/%s/elf", cache_dir, bid, bid + 2);
	first_debug = n;
	if (bid && cache_dir)
		snprintf(paths[n++], sizeof(paths[0]), "%s/.build-id/%.2s/%s/debug", cache_dir, bid, bid + 2);
	if (bid && debug_root)
		snprintf(paths[n++], sizeof(paths[0]), "%s/.build-id/%.2s/%s.debug", debug_root, bid, bid + 2);
	struct cand runtime = { -1, NULL }, syms = { -1, NULL };
	GElf_Shdr sh;
	for (int i = 0; i < n && !syms.e; i++) {
		struct cand c;
		if (!cand_open(&c, paths[i]))
			continue;
		if (find_scn(c.e, SHT_SYMTAB, &sh))
			syms = c;
		else if (i < first_debug && !runtime.e)
			runtime = c;
		else
			cand_close(&c);
	}
	if (!runtime.e && own.e) {
		runtime = own;
		own.e = NULL;
	}
	if (!syms.e && runtime.e && find_scn(runtime.e, SHT_SYMTAB, &sh)) {
		syms = runtime;
		runtime.e = NULL;
	}
	Elf *secs = runtime.e ? runtime.e : syms.e;
	Elf *sym = syms.e ? syms.e : runtime.e;
	struct elfsym *t = calloc(1, sizeof(*t));
	int rc = !t ? -ENOMEM : sym ? load_elf(t, sym, secs) : -ENOENT;
	cand_close(&own);
	cand_close(&runtime);
	cand_close(&syms);
	if (rc) {
		elfsym_free(t);
		return rc;
	}
	*tp = t;
	return 0;
}

int elfsym_load_mem(struct elfsym **tp, const void *image, size_t len)
{
	*tp = NULL;
	if (!elf_ready())
		return -ENOEXEC;
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, len);
	Elf *e = elf_memory(copy, len);
	struct elfsym *t = NULL;
	int rc = -ENOEXEC;
	if (e && elf_kind(e) == ELF_K_ELF) {
		t = calloc(1, sizeof(*t));
		rc = t ? load_elf(t, e, e) : -ENOMEM;
	}
	if (e)
		elf_end(e);
	free(copy);
	if (rc) {
		elfsym_free(t);
		return rc;
	}
	*tp = t;
	return 0;
}

void elfsym_free(struct elfsym *t)
{
	if (!t)
		return;
	free(t->s);
	free(t->names);
	free(t);
}

bool elfsym_lookup(const struct elfsym *t, uint64_t off, struct elfsym_hit *hit)
{
	if (!t || !t->n)
		return false;
	size_t lo = 0, hi = t->n;	/* the last symbol starting at or below off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->s[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	const struct esym *s = &t->s[lo];
	if (off < s->start || off >= s->end)
		return false;
	hit->name = t->names + s->name;
	hit->start = s->start;
	hit->offset = off - s->start;
	return true;
}

size_t elfsym_count(const struct elfsym *t)
{
	return t ? t->n : 0;
}

bool elfsym_mangled(const struct elfsym *t)
{
	return t && t->mangled;
}
