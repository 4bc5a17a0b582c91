/* SPDX-License-Identifier: MIT */
/*
 * ksymoracle.h - ksym_resolve() against ksym_load() + ksym_lookup() on the
 * same kallsyms text, shared by tests/unit/test_ksym.c and fuzz/fuzz_ksym.c.
 *
 * ksymo_check(text, len, extra, nextra) writes the text to a memfd, loads
 * it both ways and compares every answer for: each symbol's first and last
 * byte and the bytes around it, and the extra addresses.  Returns 0 when
 * everything agrees, -1 on a difference or when the two disagree about the
 * load failing, 1 when the memfd could not be made (nothing checked).
 * It also checks ksym_image() against the table (the image's extent: _text,
 * and the end of its highest visible symbol), allowing the one documented
 * difference: a module's symbol hiding the image's highest as an alias.
 */
#ifndef LATSCOPE_KSYMORACLE_H
#define LATSCOPE_KSYMORACLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/ksym.h"

static int ksymo_same(bool f1, const struct ksym_hit *a, bool f2, const struct ksym_hit *b)
{
	if (f1 != f2)
		return -1;
	if (!f1)
		return 0;
	if (strcmp(a->name, b->name) || a->start != b->start || a->size != b->size || a->offset != b->offset ||
	    a->type != b->type || !a->module != !b->module || (a->module && strcmp(a->module, b->module)))
		return -1;
	return 0;
}

/* ksym_image(path) against the table k (load result lrc): 0 or -1. */
static int ksymo_image(const struct ksym *k, int lrc, const char *path)
{
	uint64_t ti = 0, ei = 0, tt, et = 0;
	int irc = ksym_image(path, &ti, &ei);
	bool have_t = lrc == 0 && (ksym_find(k, "_text", NULL, &tt) || ksym_find(k, "_stext", NULL, &tt));
	bool have_img = false, between = false;
	struct ksym_hit h;

	for (size_t i = 0; lrc == 0 && ksym_get(k, i, &h); i++) {
		if (!h.module) {
			have_img = true;
			if (h.start + h.size > et)
				et = h.start + h.size;
		}
	}
	for (size_t i = 0; irc == 0 && ksym_get(k, i, &h); i++)
		if (h.module && h.start >= et && h.start < ei)
			between = true;	/* hides the image's highest symbol */
	if (lrc) {
		if (irc == 0 || ((lrc == -EPERM || lrc == -ENODATA) && irc != lrc))
			goto differ;
		return 0;
	}
	if (!have_t) {
		if (irc != -ENOENT)
			goto differ;
		return 0;
	}
	if (irc == -ENOENT && !have_img)
		return 0;
	if (irc || ti > tt || (ei != et && !between))
		goto differ;
	return 0;
differ:
	fprintf(stderr, "ksymo: image: table rc %d text %#llx end %#llx, one pass rc %d text %#llx end %#llx\n",
		lrc, have_t ? (unsigned long long)tt : 0ULL, (unsigned long long)et, irc, (unsigned long long)ti,
		(unsigned long long)ei);
	return -1;
}

static int ksymo_check(const char *text, size_t len, const uint64_t *extra, size_t nextra)
{
	int fd = memfd_create("ksymo", MFD_CLOEXEC);
	if (fd < 0)
		return 1;
	if (len && write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return 1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct ksym *k = NULL;
	int lrc = ksym_load_mem(&k, text, len);
	size_t n = ksym_count(k), na = 0;
	uint64_t *a = malloc((4 * n + nextra + 1) * sizeof(*a));
	if (!a) {
		ksym_free(k);
		close(fd);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct ksym_hit h;
		ksym_get(k, i, &h);
		a[na++] = h.start;
		a[na++] = h.start + h.size - 1;
		a[na++] = h.start - 1;
		a[na++] = h.start + h.size;
	}
	for (size_t i = 0; i < nextra; i++)
		a[na++] = extra[i];
	int bad = ksymo_image(k, lrc, path);
	struct ksym_set *s = NULL;
	int rrc = ksym_resolve(&s, path, a, na);
	if (bad) {
	} else if (rrc) {
		bad = lrc == 0 || (lrc != -EPERM && lrc != -ENODATA && rrc != lrc) ? -1 : 0;
	} else {
		for (size_t i = 0; i < na && !bad; i++) {
			struct ksym_hit x, y;
			bool fx = ksym_lookup(k, a[i], &x), fy = ksym_set_lookup(s, a[i], &y);
			bad = ksymo_same(fx, &x, fy, &y);
			if (bad)
				fprintf(stderr, "ksymo: %#llx: table %s, one pass %s\n", (unsigned long long)a[i],
					fx ? x.name : "-", fy ? y.name : "-");
		}
	}
	ksym_set_free(s);
	ksym_free(k);
	free(a);
	close(fd);
	return bad;
}

#endif
