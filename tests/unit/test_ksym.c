/* SPDX-License-Identifier: MIT */
/* Kernel symbol table from kallsyms text (lib/format/ksym/ksym.c). */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "format/ksym.h"
#include "../ksymoracle.h"

static struct ksym *load(const char *text)
{
	struct ksym *k = NULL;

	assert_int_equal(ksym_load_mem(&k, text, strlen(text)), 0);
	assert_non_null(k);
	return k;
}

/* Looks addr up and checks name, offset and module (NULL = kernel). */
static void expect(const struct ksym *k, uint64_t addr, const char *name, uint64_t off,
		   const char *mod)
{
	struct ksym_hit h;

	assert_true(ksym_lookup(k, addr, &h));
	assert_string_equal(h.name, name);
	assert_true(h.offset == off);
	assert_true(h.offset < h.size);
	if (mod)
		assert_string_equal(h.module, mod);
	else
		assert_null(h.module);
}

static void expect_none(const struct ksym *k, uint64_t addr)
{
	struct ksym_hit h = { .name = "untouched" };

	assert_false(ksym_lookup(k, addr, &h));
	assert_string_equal(h.name, "untouched");
}

static const char basic[] =
	"ffffffff81000100 T first\n"
	"ffffffff81000180 t second\n"
	"ffffffff81000200 W third\n"
	"ffffffff81001000 r some_rodata\n"	/* dropped: perf keeps no r */
	"ffffffff81002010 T last_text\n"
	"ffffffffc0001000 t mod_a1\t[moda]\n"
	"ffffffffc0001040 T mod_a2\t[moda]\n"
	"ffffffffc0003000 t mod_b1\t[modb]\n";

static void test_basic(void **state)
{
	(void)state;
	struct ksym *k = load(basic);
	const struct ksym_stats *st = ksym_stats(k);
	struct ksym_hit h;

	assert_int_equal(st->lines, 8);
	assert_int_equal(st->symbols, 7);
	assert_int_equal(ksym_count(k), 7);
	assert_int_equal(st->modules, 3);
	assert_int_equal(st->other_types, 1);
	assert_int_equal(st->malformed, 0);
	assert_true(st->sorted);

	expect(k, 0xffffffff81000100, "first", 0, NULL);	/* exact start: +0x0 */
	expect(k, 0xffffffff81000140, "first", 0x40, NULL);
	expect(k, 0xffffffff8100017f, "first", 0x7f, NULL);	/* last byte */
	expect(k, 0xffffffff81000180, "second", 0, NULL);
	/* third runs up to last_text: the dropped r symbol does not end it */
	expect(k, 0xffffffff81001000, "third", 0xe00, NULL);
	expect(k, 0xffffffff8100200f, "third", 0x1e0f, NULL);
	expect_none(k, 0xffffffff810000ff);			/* below the first */
	expect_none(k, 0);

	/* kernel -> module: the kernel's last symbol ends at the page after
	 * its start: roundup(0x...2010 + 4096, 4096) = 0x...4000 */
	assert_true(ksym_lookup(k, 0xffffffff81002010, &h));
	assert_true(h.size == 0x4000 - 0x2010);
	assert_int_equal(h.type, 'T');
	expect(k, 0xffffffff81003fff, "last_text", 0x1fef, NULL);
	expect_none(k, 0xffffffff81004000);
	expect_none(k, 0xffffffffc0000fff);

	/* modules: same module continues, another module starts a new page end */
	expect(k, 0xffffffffc0001000, "mod_a1", 0, "moda");
	expect(k, 0xffffffffc000103f, "mod_a1", 0x3f, "moda");
	expect(k, 0xffffffffc0001040, "mod_a2", 0, "moda");
	/* mod_a2 page-ends at roundup(0x1040 + 4096, 4096) = 0x3000 = mod_b1 */
	expect(k, 0xffffffffc0002fff, "mod_a2", 0x1fbf, "moda");
	expect(k, 0xffffffffc0003000, "mod_b1", 0, "modb");
	/* the last symbol: page-aligned start, one page */
	expect(k, 0xffffffffc0003fff, "mod_b1", 0xfff, "modb");
	expect_none(k, 0xffffffffc0004000);
	expect_none(k, UINT64_MAX);

	assert_true(ksym_lookup(k, 0xffffffffc0003000, &h));
	assert_int_equal(h.type, 't');
	assert_int_equal(h.index, 6);
	ksym_free(k);
}

static void test_module_page_end_clamped(void **state)
{
	(void)state;
	/* moda's last symbol would page-end at 0x...2000, past modb's start */
	struct ksym *k = load("ffffffffc0001800 t a\t[moda]\n"
			      "ffffffffc0001900 t b\t[modb]\n");
	struct ksym_hit h;

	assert_true(ksym_lookup(k, 0xffffffffc0001800, &h));
	assert_true(h.size == 0x100);
	expect(k, 0xffffffffc00018ff, "a", 0xff, "moda");
	expect(k, 0xffffffffc0001900, "b", 0, "modb");
	/* unaligned last symbol: roundup(0x1900 + 4096, 4096) = 0x3000 */
	expect(k, 0xffffffffc0002fff, "b", 0x16ff, "modb");
	expect_none(k, 0xffffffffc0003000);
	ksym_free(k);
}

static void test_types(void **state)
{
	(void)state;
	struct ksym *k = load("1000 T a\n2000 t b\n3000 W c\n4000 w d\n5000 D e\n6000 d f\n"
			      "7000 B g\n8000 b h\n9000 u i\na000 l j\nb000 N k\nc000 1 l\n"
			      "d000 r x1\ne000 R x2\nf000 A x3\nf100 a x4\nf200 U x5\nf300 n x6\n"
			      "f400 U x7\nf500 ? x8\nf600 T $x.9\n");
	const struct ksym_stats *st = ksym_stats(k);

	assert_int_equal(st->symbols, 12);
	assert_int_equal(st->other_types, 9);
	expect(k, 0x5000, "e", 0, NULL);
	expect(k, 0xc000, "l", 0, NULL);
	/* the last kept (c000) ends at d000: none of the dropped ones interfere */
	expect(k, 0xcfff, "l", 0xfff, NULL);
	expect_none(k, 0xd000);
	for (size_t i = 0; i < ksym_count(k); i++) {
		struct ksym_hit h;
		assert_true(ksym_get(k, i, &h));
		assert_true(h.start == 0x1000 * (i + 1));
		assert_true(h.offset == 0);
		assert_int_equal(h.index, i);
	}
	struct ksym_hit h;
	assert_false(ksym_get(k, ksym_count(k), &h));
	ksym_free(k);
}

static void test_aliases(void **state)
{
	(void)state;
	/* x86's /proc/kallsyms starts like this: perf shows _text (the last
	 * listed alias gets the size; the sized one wins the duplicate fixup) */
	struct ksym *k = load("ffffffff81000000 T srso_alias_untrain_ret\n"
			      "ffffffff81000000 T _stext\n"
			      "ffffffff81000000 T _text\n"
			      "ffffffff81000040 T next\n"
			      "ffffffff81000040 t next_alias\n"
			      "ffffffff81000080 T end\n");
	const struct ksym_stats *st = ksym_stats(k);
	uint64_t a = 0;

	assert_int_equal(st->symbols, 3);
	assert_int_equal(st->aliases, 3);
	expect(k, 0xffffffff81000000, "_text", 0, NULL);
	expect(k, 0xffffffff8100003f, "_text", 0x3f, NULL);
	expect(k, 0xffffffff81000040, "next_alias", 0, NULL);
	expect(k, 0xffffffff81000080, "end", 0, NULL);
	/* hidden aliases are still found by name */
	assert_true(ksym_find(k, "_stext", NULL, &a));
	assert_true(a == 0xffffffff81000000);
	assert_true(ksym_find(k, "next", NULL, &a));
	assert_true(a == 0xffffffff81000040);
	assert_false(ksym_find(k, "next", "somemod", &a));
	assert_false(ksym_find(k, "nope", NULL, &a));
	ksym_free(k);
}

static void test_unsorted(void **state)
{
	(void)state;
	/* modules first, kernel shuffled, aliases out of order: the same
	 * answers as sorted input, aliases still resolved by listing order */
	struct ksym *k = load("ffffffffc0001000 t m1\t[mod]\n"
			      "ffffffff81000200 T c\n"
			      "ffffffff81000100 T b_first\n"
			      "ffffffff81000000 T a\n"
			      "ffffffff81000100 T b_second\n"
			      "ffffffffc0000800 t m0\t[mod]\n");
	const struct ksym_stats *st = ksym_stats(k);

	assert_false(st->sorted);
	assert_int_equal(st->symbols, 5);
	assert_int_equal(st->aliases, 1);
	expect(k, 0xffffffff81000000, "a", 0, NULL);
	expect(k, 0xffffffff81000150, "b_second", 0x50, NULL);
	/* c is the kernel's last: roundup(0x200 + 4096, 4096) = 0x2000 */
	expect(k, 0xffffffff81001fff, "c", 0x1dff, NULL);
	expect_none(k, 0xffffffff81002000);
	expect(k, 0xffffffffc0000800, "m0", 0, "mod");
	expect(k, 0xffffffffc0000fff, "m0", 0x7ff, "mod");
	expect(k, 0xffffffffc0001000, "m1", 0, "mod");
	ksym_free(k);
}

static void test_hidden(void **state)
{
	(void)state;
	struct ksym *k = (struct ksym *)1;
	const char *t = "0000000000000000 T _text\n"
			"0000000000000000 t foo\n"
			"0000000000000000 t bar\t[mod]\n"
			"0000000000000000 A fixed_percpu_data\n";

	assert_int_equal(ksym_load_mem(&k, t, strlen(t)), -EPERM);
	assert_null(k);
	/* one real address: not hidden; the zero ones are dropped */
	t = "0000000000000000 T _text\n"
	    "ffffffff81000000 T real\n";
	k = load(t);
	assert_int_equal(ksym_stats(k)->bad_addr, 1);
	assert_int_equal(ksym_count(k), 1);
	expect_none(k, 0x10);
	ksym_free(k);
}

static void test_hostile(void **state)
{
	(void)state;
	struct ksym *k = (struct ksym *)1;

	/* empty, only newlines, only junk, only dropped types */
	assert_int_equal(ksym_load_mem(&k, "", 0), -ENODATA);
	assert_null(k);
	assert_int_equal(ksym_load_mem(&k, NULL, 0), -ENODATA);
	assert_int_equal(ksym_load_mem(&k, "\n\n\n", 3), -ENODATA);
	assert_int_equal(ksym_load_mem(&k, "garbage\x01\xff", 9), -ENODATA);
	assert_int_equal(ksym_load_mem(&k, "1000 r x\n", 9), -ENODATA);
	assert_int_equal(ksym_load_mem(&k, NULL, 5), -EINVAL);

	/* no newline at the end */
	k = load("1000 T a\n2000 T b");
	expect(k, 0x2000, "b", 0, NULL);
	assert_int_equal(ksym_stats(k)->lines, 2);
	ksym_free(k);

	/* CRLF: names and modules without the \r */
	k = load("1000 T a\r\n2000 t b\t[m]\r\n3000 T c\r");
	expect(k, 0x1000, "a", 0, NULL);
	expect(k, 0x2000, "b", 0, "m");
	expect(k, 0x3000, "c", 0, NULL);
	ksym_free(k);

	/* malformed lines are skipped, their neighbours kept */
	k = load("1000 T ok1\n"
		 "zz00 T badhex\n"
		 "10000000000000000 T seventeen_digits\n"
		 "0x3000 T prefixed\n"
		 "4000 schedule\n"		/* name, no type */
		 "5000 T\n"			/* type, no name */
		 "6000 T \n"			/* empty name */
		 "7000  T two_spaces\n"
		 "8000T glued\n"
		 " 9000 T leading_space\n"
		 "\n"
		 "a000 T ok2\n");
	const struct ksym_stats *st = ksym_stats(k);
	assert_int_equal(st->malformed, 10);
	assert_int_equal(st->symbols, 2);
	expect(k, 0x1000, "ok1", 0, NULL);
	expect(k, 0x9fff, "ok1", 0x8fff, NULL);
	expect(k, 0xa000, "ok2", 0, NULL);
	ksym_free(k);

	/* over-long name (>= KSYM_NAME_MAX) and a megabyte-long line */
	size_t big = 1 << 20;
	char *t = malloc(big + 64);
	assert_non_null(t);
	int n = snprintf(t, 64, "1000 T ok\n2000 T ");
	memset(t + n, 'x', big);
	strcpy(t + n + big, "\n3000 T ok3\n");
	k = load(t);
	assert_int_equal(ksym_stats(k)->malformed, 1);
	expect(k, 0x2000, "ok", 0x1000, NULL);
	expect(k, 0x3000, "ok3", 0, NULL);
	ksym_free(k);
	char name[KSYM_NAME_MAX + 1];
	memset(name, 'y', sizeof(name) - 1);
	name[KSYM_NAME_MAX - 1] = '\0';		/* 511 bytes: accepted */
	snprintf(t, big, "1000 T %s\n2000 T %sy\n", name, name);	/* 512: not */
	k = load(t);
	assert_int_equal(ksym_stats(k)->malformed, 1);
	expect(k, 0x1000, name, 0, NULL);
	ksym_free(k);
	free(t);

	/* NUL bytes: in a name or module the line is malformed; as the type
	 * letter it is just a dropped type */
	static const char nul[] = "1000 T a\0b\n2000 T ok\n3000 \0 z\n4000 t m\t[x\0y]\n5000 T end\n";
	k = NULL;
	assert_int_equal(ksym_load_mem(&k, nul, sizeof(nul) - 1), 0);
	st = ksym_stats(k);
	assert_int_equal(st->malformed, 2);
	assert_int_equal(st->other_types, 1);
	assert_int_equal(st->symbols, 2);
	expect(k, 0x2000, "ok", 0, NULL);
	expect(k, 0x4000, "ok", 0x2000, NULL);
	ksym_free(k);

	/* a tab suffix that is not [module]; "[]" is not a module either */
	k = load("1000 T a\tjunk\n2000 T b\t[]\n3000 T c\t[m]x\n");
	expect(k, 0x1000, "a", 0, NULL);
	expect(k, 0x2000, "b", 0, NULL);
	expect(k, 0x3000, "c", 0, NULL);
	ksym_free(k);

	/* the top of the address space: no overflow, ~0 itself is dropped */
	k = load("fffffffffffff000 T top\nffffffffffffffff T allones\n");
	assert_int_equal(ksym_stats(k)->bad_addr, 1);
	expect(k, UINT64_MAX - 1, "top", 0xffe, NULL);
	expect_none(k, UINT64_MAX);
	ksym_free(k);
	k = load("fffffffffffff001 T top\n");
	expect(k, UINT64_MAX - 1, "top", 0xffd, NULL);
	ksym_free(k);

	/* NULL table */
	struct ksym_hit h;
	assert_false(ksym_lookup(NULL, 1, &h));
	assert_false(ksym_get(NULL, 0, &h));
	assert_int_equal(ksym_count(NULL), 0);
	ksym_free(NULL);
	assert_int_equal(ksym_load(&k, "/nonexistent/kallsyms"), -ENOENT);
	assert_null(k);
}

static void test_format(void **state)
{
	(void)state;
	struct ksym *k = load("c0000000000fcd10 T plpar_hcall_norets_notrace\n"
			      "c0000000000fcd80 T next\n"
			      "c008000000001000 t ext4_fn\t[ext4]\n");
	struct ksym_hit h;
	char buf[128];

	assert_true(ksym_lookup(k, 0xc0000000000fcd28, &h));
	assert_int_equal(ksym_format(buf, sizeof(buf), &h), 51);
	assert_string_equal(buf, "plpar_hcall_norets_notrace+0x18 ([kernel.kallsyms])");
	assert_true(ksym_lookup(k, 0xc008000000001000, &h));
	ksym_format(buf, sizeof(buf), &h);
	assert_string_equal(buf, "ext4_fn+0x0 ([ext4])");
	assert_int_equal(ksym_format(buf, 5, &h), 20);
	assert_string_equal(buf, "ext4");
	ksym_free(k);
}

static void test_matches_running(void **state)
{
	(void)state;
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	assert_true(ksym_matches_running(u.release, u.machine));
	assert_false(ksym_matches_running(u.release, "not-an-arch"));
	assert_false(ksym_matches_running("0.0.0-other", u.machine));
	assert_false(ksym_matches_running(NULL, u.machine));
	assert_false(ksym_matches_running(u.release, NULL));
	assert_false(ksym_matches_running(NULL, NULL));
}

/* Reads the whole file (NULL when unreadable). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 20, n = 0, r;
	char *b;

	if (!f)
		return NULL;
	b = malloc(cap + 1);
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = realloc(b, 2 * cap + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = '\0';
	*len = n;
	return b;
}

static void test_proc_kallsyms(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp("/proc/kallsyms", &len);
	uint64_t addr = 0;

	if (!text)
		skip();
	/* find "ADDR T schedule\n" by hand */
	for (char *p = strstr(text, " schedule\n"); p; p = strstr(p + 1, " schedule\n")) {
		char *line = p - 1;	/* the type letter */
		if (line - 1 > text && (line[0] == 'T' || line[0] == 't') && line[-1] == ' ') {
			while (line > text && line[-1] != '\n')
				line--;
			addr = strtoull(line, NULL, 16);
			break;
		}
	}
	free(text);
	if (!addr)
		skip();	/* hidden by kptr_restrict, or no schedule symbol */

	struct ksym *k;
	int rc = ksym_load(&k, "/proc/kallsyms");
	if (rc == -EPERM)
		skip();
	assert_int_equal(rc, 0);
	assert_true(ksym_count(k) > 1000);
	struct ksym_hit h;
	uint64_t a2 = 0;
	assert_true(ksym_lookup(k, addr, &h));
	assert_true(h.start == addr);
	assert_true(h.offset == 0);
	assert_null(h.module);
	/* schedule itself unless a later-listed alias shares its address */
	if (strcmp(h.name, "schedule")) {
		assert_true(ksym_find(k, "schedule", NULL, &a2));
		assert_true(a2 == addr);
	}
	assert_true(ksym_lookup(k, addr + 1, &h));
	assert_true(h.start == addr && h.offset == 1);

	/* the table's invariants over every symbol */
	struct ksym_hit prev = { 0 };
	for (size_t i = 0; i < ksym_count(k); i++) {
		assert_true(ksym_get(k, i, &h));
		assert_true(h.size > 0);
		if (i) {
			assert_true(h.start > prev.start);
			assert_true(prev.start + prev.size <= h.start);
		}
		prev = h;
	}
	ksym_free(k);
}

/* Inputs the fuzzer once tripped on, kept in fuzz/regress/fuzz_ksym/. */
static void test_regressions(void **state)
{
	(void)state;
	DIR *d = opendir("fuzz/regress/fuzz_ksym");
	struct dirent *de;

	if (!d)
		skip();
	while ((de = readdir(d))) {
		char path[512];
		struct ksym *k;
		struct ksym_hit h;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "fuzz/regress/fuzz_ksym/%s", de->d_name);
		if (ksym_load(&k, path) == 0) {
			for (size_t i = 0; i < ksym_count(k); i++) {
				assert_true(ksym_get(k, i, &h));
				assert_true(ksym_lookup(k, h.start + h.size - 1, &h));
				assert_int_equal(h.index, i);
			}
			ksym_free(k);
		}
	}
	closedir(d);
}

/* ksym_resolve (one pass, a set of addresses) answers as the table does:
 * on the texts of the tests above, hostile ones, the fuzzer's corpus and
 * /proc/kallsyms. */
static void resolve_same(const char *text)
{
	uint64_t extra[] = { 0, 1, 0x1000, 0xffffffff81000000, 0xffffffffc0001000, UINT64_MAX };

	assert_int_equal(ksymo_check(text, strlen(text), extra, sizeof(extra) / sizeof(extra[0])), 0);
}

static void test_resolve(void **state)
{
	(void)state;
	resolve_same(basic);
	resolve_same("ffffffffc0001800 t a\t[moda]\nffffffffc0001900 t b\t[modb]\n");
	resolve_same("1000 T a\n2000 t b\n3000 W c\n4000 w d\nd000 r x1\nf600 T $x.9\nc000 1 l\n");
	resolve_same("ffffffff81000000 T srso_alias_untrain_ret\nffffffff81000000 T _stext\n"
		     "ffffffff81000000 T _text\nffffffff81000040 T next\nffffffff81000040 t next_alias\n"
		     "ffffffff81000080 T end\n");
	resolve_same("ffffffffc0001000 t m1\t[mod]\nffffffff81000200 T c\nffffffff81000100 T b_first\n"
		     "ffffffff81000000 T a\nffffffff81000100 T b_second\nffffffffc0000800 t m0\t[mod]\n");
	resolve_same("0000000000000000 T _text\n0000000000000000 t foo\n");	/* -EPERM */
	resolve_same("garbage\n\n");						/* -ENODATA */
	resolve_same("ffffffffffffffff T top\n1 T one\n2 T two\t[m]\n3 T three\t[m]\n3 t dup\n");
	resolve_same("10 T a\r\n20 T b\t[x]\t\n30 T \n40 t c");

	DIR *d = opendir("fuzz/corpus/fuzz_ksym");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char path[512];
		size_t len;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "fuzz/corpus/fuzz_ksym/%s", de->d_name);
		char *t = slurp(path, &len);
		if (!t)
			continue;
		assert_int_equal(ksymo_check(t, len, NULL, 0), 0);
		free(t);
	}
	if (d)
		closedir(d);
	size_t len;
	char *t = slurp("/proc/kallsyms", &len);
	if (t) {
		assert_int_equal(ksymo_check(t, len, NULL, 0), 0);
		free(t);
	}
}

/* The live pass may end early: same answers as the whole table, for
 * addresses in the first tenth of the kernel (an early end) and across it. */
static void live_case(size_t upto_div)
{
	struct ksym *k;
	if (ksym_load(&k, "/proc/kallsyms"))
		skip();
	size_t n = ksym_count(k), na = 0, upto = n / upto_div;
	uint64_t *a = malloc(4 * (upto / 37 + 2) * sizeof(*a));
	assert_non_null(a);
	for (size_t i = 0; i < upto; i += 37) {
		struct ksym_hit h;
		assert_true(ksym_get(k, i, &h));
		if (h.module)
			continue;
		a[na++] = h.start;
		a[na++] = h.start + h.size - 1;
		a[na++] = h.start - 1;
		a[na++] = h.start + h.size;
	}
	struct ksym_set *s;
	assert_int_equal(ksym_resolve(&s, "/proc/kallsyms", a, na), 0);
	for (size_t i = 0; i < na; i++) {
		struct ksym_hit x, y;
		bool fx = ksym_lookup(k, a[i], &x), fy = ksym_set_lookup(s, a[i], &y);
		assert_int_equal(ksymo_same(fx, &x, fy, &y), 0);
	}
	ksym_set_free(s);
	ksym_free(k);
	free(a);
}

static void test_resolve_live(void **state)
{
	(void)state;
	live_case(10);
	live_case(1);
}

/* ksym_image on text written to a memfd: its result, *text and *end. */
static int image_of(const char *text, uint64_t *t, uint64_t *e)
{
	int fd = memfd_create("ksym_image", MFD_CLOEXEC);
	char path[64];
	size_t len = strlen(text);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rc = ksym_image(path, t, e);
	close(fd);
	return rc;
}

static void test_image(void **state)
{
	uint64_t t = 1, e = 1;

	(void)state;
	/* the live kernel's order: the image, then modules */
	assert_int_equal(image_of("ffffffff81000000 T _text\nffffffff81000100 T a\n"
				  "ffffffff81002010 T last\nffffffffc0001000 t m\t[mod]\n", &t, &e), 0);
	assert_true(t == 0xffffffff81000000ULL);
	assert_true(e == 0xffffffff81004000ULL);	/* the page after last's */
	/* the page end clamped to a module starting before it */
	assert_int_equal(image_of("ffffffff81000000 T _text\nffffffff81002010 T last\n"
				  "ffffffff81003000 t m\t[mod]\n", &t, &e), 0);
	assert_true(e == 0xffffffff81003000ULL);
	/* modules listed first, one of them below the image's last symbol:
	 * the second pass finds the lowest start above it */
	assert_int_equal(image_of("ffffffff81001800 t m0\t[m]\nffffffff81002100 t m1\t[m]\n"
				  "ffffffff81000000 T _stext\nffffffff81002000 T z\n", &t, &e), 0);
	assert_true(t == 0xffffffff81000000ULL);
	assert_true(e == 0xffffffff81002100ULL);
	/* _text wins over _stext; CRLF and no final newline */
	assert_int_equal(image_of("ffffffff81000040 T _stext\r\nffffffff81000000 T _text\r\n"
				  "ffffffff81000080 t x", &t, &e), 0);
	assert_true(t == 0xffffffff81000000ULL);
	assert_true(e == 0xffffffff81002000ULL);
	/* none: no _text/_stext in the image, hidden addresses, nothing */
	t = e = 7;
	assert_int_equal(image_of("ffffffff81000000 T a\nffffffffc0000000 t _text\t[m]\n", &t, &e), -ENOENT);
	assert_int_equal(image_of("0000000000000000 T _text\n0000000000000000 T a\n", &t, &e), -EPERM);
	assert_int_equal(image_of("garbage\n", &t, &e), -ENODATA);
	assert_true(t == 7 && e == 7);
	assert_int_equal(ksym_image("/nonexistent/kallsyms", &t, &e), -ENOENT);
	/* the live kernel against its table (skipped where addresses are hidden) */
	struct ksym *k;
	if (ksym_load(&k, "/proc/kallsyms") == 0) {
		assert_int_equal(ksymo_image(k, 0, "/proc/kallsyms"), 0);
		assert_int_equal(ksym_image("/proc/kallsyms", &t, &e), 0);
		ksym_free(k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_module_page_end_clamped),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_unsorted),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_matches_running),
		cmocka_unit_test(test_proc_kallsyms),
		cmocka_unit_test(test_regressions),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_resolve_live),
		cmocka_unit_test(test_image),
	};
	return cmocka_run_group_tests_name("ksym", tests, NULL, NULL);
}
