/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/safeout.c: temporary file + rename, refusals (symlink or
 * file of another user, played by uid 65534 through lchown when running as
 * root), in-place devices, the -O directory rules, and pdwrite_open() using it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "pdwrite.h"
#include "safeout.h"

#define OTHER_UID 65534

static char dir[512];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/safeout.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *P(const char *name)
{
	static char b[4][PATH_MAX];
	static int i;
	i = (i + 1) % 4;
	snprintf(b[i], sizeof(b[i]), "%s/%s", dir, name);
	return b[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *get(const char *path)
{
	static char b[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(b, 1, sizeof(b) - 1, f);
	b[n] = 0;
	fclose(f);
	return b;
}

static int nr_entries(const char *d)
{
	DIR *dp = opendir(d);
	int n = 0;
	struct dirent *e;
	assert_non_null(dp);
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

static void write_all(struct safeout_file *f, const char *s)
{
	assert_int_equal(write(safeout_fd(f), s, strlen(s)), (ssize_t)strlen(s));
}

static void test_create_replace_abort(void **state)
{
	(void)state;
	struct safeout_file *f;
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0600, 0), 0);
	write_all(f, "one");
	assert_null(get(P("out")));		/* nothing under the name before commit */
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("out")), "one");
	struct stat st;
	assert_int_equal(stat(P("out"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0600, 0), 0);
	write_all(f, "two");
	safeout_abort(f);				/* failed run: old contents stay */
	assert_string_equal(get(P("out")), "one");
	assert_int_equal(nr_entries(dir), 1);	/* no temporary file left */

	assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0600, 0), 0);
	write_all(f, "three");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("out")), "three");

	assert_int_equal(safeout_open(&f, AT_FDCWD, dir, 0600, 0), -EISDIR);
	assert_null(f);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("nodir/x"), 0600, 0), -ENOENT);
	assert_int_equal(safeout_open(&f, AT_FDCWD, "/dev/null", 0600, 0), 0);
	assert_true(safeout_in_place(f));
	write_all(f, "x");
	assert_int_equal(safeout_commit(f), 0);
	struct stat dn;
	assert_int_equal(stat("/dev/null", &dn), 0);
	assert_true(S_ISCHR(dn.st_mode));
	assert_int_equal(unlink(P("out")), 0);
}

/* The abort's cleanup: every open temporary file removed, the committed and
 * aborted ones no longer tracked (a slot reused many times). */
static void test_unlink_temps(void **state)
{
	(void)state;
	struct safeout_file *a, *b, *c;
	for (int i = 0; i < 40; i++) {	/* more than the slots: they are freed */
		assert_int_equal(safeout_open(&a, AT_FDCWD, P("a"), 0600, 0), 0);
		if (i % 2)
			safeout_abort(a);
		else
			assert_int_equal(safeout_commit(a), 0);
	}
	assert_int_equal(nr_entries(dir), 1);	/* "a" */
	assert_int_equal(safeout_open(&b, AT_FDCWD, P("b"), 0600, 0), 0);
	assert_int_equal(safeout_open(&c, AT_FDCWD, P("c"), 0600, 0), 0);
	assert_int_equal(safeout_open(&a, AT_FDCWD, "/dev/null", 0600, 0), 0);	/* in place: no temp */
	write_all(b, "b");
	assert_int_equal(nr_entries(dir), 3);	/* "a" and two temporary files */
	safeout_unlink_temps();
	assert_int_equal(nr_entries(dir), 1);
	assert_string_equal(get(P("a")), "");
	/* the objects are still the caller's to end */
	assert_int_equal(safeout_commit(a), 0);
	safeout_abort(b);
	safeout_abort(c);
	assert_int_equal(nr_entries(dir), 1);
	assert_int_equal(unlink(P("a")), 0);
}

/* A recording published while open (safeout_publish): the target holds it at
 * once, an abort's cleanup and safeout_abort() leave it, writes go on into it. */
static void test_publish(void **state)
{
	(void)state;
	struct safeout_file *f;
	put(P("rec"), "old");
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("rec"), 0600, 0), 0);
	write_all(f, "new");
	assert_string_equal(get(P("rec")), "old");	/* not before publishing */
	assert_int_equal(safeout_publish(f), 0);
	assert_string_equal(get(P("rec")), "new");
	assert_int_equal(nr_entries(dir), 1);		/* no temporary name left */
	assert_int_equal(safeout_publish(f), 0);		/* twice is fine */
	safeout_unlink_temps();
	write_all(f, "+more");
	assert_string_equal(get(P("rec")), "new+more");
	safeout_abort(f);					/* killed mid-run: the recording stays */
	assert_string_equal(get(P("rec")), "new+more");
	assert_int_equal(unlink(P("rec")), 0);
}

static void test_own_symlink_followed(void **state)
{
	(void)state;
	struct safeout_file *f;
	put(P("real"), "old");
	assert_int_equal(symlink("real", P("link")), 0);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("link"), 0600, 0), 0);
	write_all(f, "new");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("real")), "new");
	struct stat st;
	assert_int_equal(lstat(P("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(P("link"));
	unlink(P("real"));
}

/* Another user's symlink and file, as root (uid 65534 plays the other user). */
static void test_other_user(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	struct safeout_file *f;
	put(P("victim"), "root's");
	assert_int_equal(symlink(P("victim"), P("planted")), 0);
	assert_int_equal(lchown(P("planted"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("planted"), 0600, 0), -ELOOP);
	assert_non_null(strstr(safeout_strerror(-ELOOP), "--force"));
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("planted"), 0600, SAFEOUT_FORCE), 0);
	write_all(f, "data");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("victim")), "root's");	/* never followed */
	struct stat st;
	assert_int_equal(lstat(P("planted"), &st), 0);
	assert_true(S_ISREG(st.st_mode));			/* the link was replaced */

	/* a 0666 file pre-created by the other user */
	put(P("pre"), "");
	assert_int_equal(chmod(P("pre"), 0666), 0);
	assert_int_equal(chown(P("pre"), OTHER_UID, OTHER_UID), 0);
	int keep = open(P("pre"), O_RDONLY);	/* the other user's open descriptor */
	assert_true(keep >= 0);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("pre"), 0600, 0), -EEXIST);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("pre"), 0600, SAFEOUT_FORCE), 0);
	write_all(f, "secret");
	assert_int_equal(safeout_commit(f), 0);
	char b[16];
	assert_int_equal(read(keep, b, sizeof(b)), 0);	/* their inode got nothing */
	close(keep);
	assert_int_equal(stat(P("pre"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, 0);

	/* -O tree: the directory of another user, a symlinked subdirectory */
	assert_int_equal(mkdir(P("tree"), 0777), 0);
	assert_int_equal(chown(P("tree"), OTHER_UID, OTHER_UID), 0);
	int d;
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("tree"), 0), -EEXIST);
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("tree"), SAFEOUT_FORCE), 0);
	assert_int_equal(mkdirat(d, "wakeup", 0777), 0);
	assert_int_equal(symlinkat(P("victim"), d, "wakeup/CPU0"), 0);
	assert_int_equal(fchownat(d, "wakeup/CPU0", OTHER_UID, OTHER_UID, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(symlinkat(dir, d, "timer"), 0);
	assert_int_equal(fchownat(d, "timer", OTHER_UID, OTHER_UID, AT_SYMLINK_NOFOLLOW), 0);
	int w;
	assert_int_equal(safeout_dir_open(&w, d, "wakeup", SAFEOUT_FORCE), 0);
	assert_int_equal(safeout_open(&f, w, "CPU0", 0644, 0), -ELOOP);
	assert_int_equal(safeout_open(&f, w, "CPU0", 0644, SAFEOUT_FORCE), 0);
	write_all(f, "hist");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("victim")), "root's");
	close(w);
	int t;
	assert_int_equal(safeout_dir_open(&t, d, "timer", 0), -ELOOP);
	assert_int_equal(safeout_dir_open(&t, d, "timer", SAFEOUT_FORCE), 0);	/* link -> real directory */
	assert_int_equal(fstatat(d, "timer", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(st.st_mode));
	close(t);
	close(d);
}

static void test_pdw_open(void **state)
{
	(void)state;
	struct pdwrite *w;
	struct pdwrite_opts o = { 0 };
	put(P("rec.data"), "previous");
	assert_int_equal(pdwrite_open(&w, P("rec.data"), &o), 0);
	assert_string_equal(get(P("rec.data")), "previous");	/* until closed */
	pdwrite_discard(w);
	assert_string_equal(get(P("rec.data")), "previous");
	assert_int_equal(nr_entries(dir), 1);
	assert_int_equal(pdwrite_open(&w, P("rec.data"), &o), 0);
	assert_int_equal(pdwrite_close(w), 0);
	assert_int_equal(strncmp(get(P("rec.data")), "PERFILE2", 8), 0);
	unlink(P("rec.data"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_replace_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlink_temps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_publish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_symlink_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdw_open, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
