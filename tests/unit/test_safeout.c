/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/base/safeout.c: temporary file + rename, refusals (symlink or
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
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "format/pdwrite.h"
#include "base/safeout.h"

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
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0, NULL), 0);
	write_all(f, "one");
	assert_null(get(P("out")));		/* nothing under the name before commit */
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("out")), "one");
	struct stat st;
	assert_int_equal(stat(P("out"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0, NULL), 0);
	write_all(f, "two");
	safeout_abort(f);				/* failed run: old contents stay */
	assert_string_equal(get(P("out")), "one");
	assert_int_equal(nr_entries(dir), 1);	/* no temporary file left */

	assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0, NULL), 0);
	write_all(f, "three");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("out")), "three");

	assert_int_equal(safeout_open(&f, AT_FDCWD, dir, 0, NULL), -EISDIR);
	assert_null(f);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("nodir/x"), 0, NULL), -ENOENT);
	assert_int_equal(safeout_open(&f, AT_FDCWD, "/dev/null", 0, NULL), 0);
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
		assert_int_equal(safeout_open(&a, AT_FDCWD, P("a"), 0, NULL), 0);
		if (i % 2)
			safeout_abort(a);
		else
			assert_int_equal(safeout_commit(a), 0);
	}
	assert_int_equal(nr_entries(dir), 1);	/* "a" */
	assert_int_equal(safeout_open(&b, AT_FDCWD, P("b"), 0, NULL), 0);
	assert_int_equal(safeout_open(&c, AT_FDCWD, P("c"), 0, NULL), 0);
	assert_int_equal(safeout_open(&a, AT_FDCWD, "/dev/null", 0, NULL), 0);	/* in place: no temp */
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
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("rec"), 0, NULL), 0);
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
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("link"), 0, NULL), 0);
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
	struct safeout_refusal why;
	char msg[PATH_MAX + 160];
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("planted"), 0, &why), -ELOOP);
	assert_int_equal(why.what, SAFEOUT_LINK);
	assert_int_equal(why.uid, OTHER_UID);
	safeout_explain(msg, sizeof(msg), -ELOOP, &why);
	assert_non_null(strstr(msg, "symbolic link of another user (uid 65534)"));
	assert_non_null(strstr(msg, "--force"));
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("planted"), SAFEOUT_FORCE, NULL), 0);
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
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("pre"), 0, NULL), -EEXIST);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("pre"), SAFEOUT_FORCE, NULL), 0);
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
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("tree"), 0, NULL), -EEXIST);
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("tree"), SAFEOUT_FORCE, NULL), 0);
	assert_int_equal(mkdirat(d, "wakeup", 0777), 0);
	assert_int_equal(symlinkat(P("victim"), d, "wakeup/CPU0"), 0);
	assert_int_equal(fchownat(d, "wakeup/CPU0", OTHER_UID, OTHER_UID, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(symlinkat(dir, d, "timer"), 0);
	assert_int_equal(fchownat(d, "timer", OTHER_UID, OTHER_UID, AT_SYMLINK_NOFOLLOW), 0);
	int w;
	assert_int_equal(safeout_dir_open(&w, d, "wakeup", SAFEOUT_FORCE, NULL), 0);
	assert_int_equal(safeout_open(&f, w, "CPU0", 0, NULL), -ELOOP);
	assert_int_equal(safeout_open(&f, w, "CPU0", SAFEOUT_FORCE, NULL), 0);
	write_all(f, "hist");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("victim")), "root's");
	close(w);
	int t;
	assert_int_equal(safeout_dir_open(&t, d, "timer", 0, NULL), -ELOOP);
	assert_int_equal(safeout_dir_open(&t, d, "timer", SAFEOUT_FORCE, NULL), 0);	/* link -> real directory */
	assert_int_equal(fstatat(d, "timer", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(st.st_mode));
	close(t);
	close(d);
}

/* An entry of dir whose name starts with prefix (the temporary file). */
static const char *find_entry(const char *d, const char *prefix)
{
	static char name[NAME_MAX + 1];
	DIR *dp = opendir(d);
	struct dirent *e;
	assert_non_null(dp);
	name[0] = 0;
	while ((e = readdir(dp)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			snprintf(name, sizeof(name), "%s", e->d_name);
	closedir(dp);
	return name[0] ? name : NULL;
}

/* The one permission rule: files 0600, directories 0700, missing parents of
 * a directory created too; "DIR/." and "a/../b" walk as the kernel does. */
static void test_modes_and_dots(void **state)
{
	(void)state;
	struct safeout_file *f;
	struct stat st;
	mode_t um = umask(0);
	int d;
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("t1/t2/t3"), 0, NULL), 0);
	close(d);
	assert_int_equal(stat(P("t1"), &st), 0);
	assert_int_equal(st.st_mode & 07777, SAFEOUT_DIR_MODE);
	assert_int_equal(stat(P("t1/t2/t3"), &st), 0);
	assert_int_equal(st.st_mode & 07777, SAFEOUT_DIR_MODE);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("t1/../t1/./t2/f"), 0, NULL), 0);
	assert_int_equal(safeout_commit(f), 0);
	assert_int_equal(stat(P("t1/t2/f"), &st), 0);
	assert_int_equal(st.st_mode & 07777, SAFEOUT_FILE_MODE);
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("t1/t2/."), 0, NULL), 0);
	assert_int_equal(fstat(d, &st), 0);
	close(d);
	struct stat t2;
	assert_int_equal(stat(P("t1/t2"), &t2), 0);
	assert_int_equal(st.st_ino, t2.st_ino);
	umask(um);
}

/* A symlink of another user on the way to the target: in a sticky
 * world-writable directory and in the other user's own directory, to a
 * file (-o) and to a directory (-O, "DIR/." too), refused with the link
 * named; SAFEOUT_FORCE follows it; our own link on the way is followed. */
static void test_path_links(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	struct safeout_file *f;
	struct safeout_refusal why;
	char msg[PATH_MAX + 160];
	int d;
	assert_int_equal(mkdir(P("root"), 0700), 0);		/* root's: the victim directory */
	put(P("root/perf.data"), "root's");
	assert_int_equal(mkdir(P("pub"), 0777), 0);
	assert_int_equal(chmod(P("pub"), 01777), 0);		/* like /tmp */
	assert_int_equal(mkdir(P("home"), 0755), 0);		/* the other user's own */
	assert_int_equal(chown(P("home"), OTHER_UID, OTHER_UID), 0);
	const char *links[] = { "pub/results", "home/results" };
	for (int i = 0; i < 2; i++) {
		char lp[PATH_MAX], target[PATH_MAX + 32];
		snprintf(lp, sizeof(lp), "%s", P(links[i]));
		assert_int_equal(symlink(P("root"), lp), 0);
		assert_int_equal(lchown(lp, OTHER_UID, OTHER_UID), 0);
		snprintf(target, sizeof(target), "%s/perf.data", lp);
		assert_int_equal(safeout_open(&f, AT_FDCWD, target, 0, &why), -ELOOP);
		assert_int_equal(why.what, SAFEOUT_PATH_LINK);
		assert_string_equal(why.at, lp);
		safeout_explain(msg, sizeof(msg), -ELOOP, &why);
		assert_non_null(strstr(msg, lp));
		assert_non_null(strstr(msg, "--force follows it"));
		snprintf(target, sizeof(target), "%s/run1", lp);
		assert_int_equal(safeout_dir_open(&d, AT_FDCWD, target, 0, &why), -ELOOP);
		assert_int_equal(why.what, SAFEOUT_PATH_LINK);
		snprintf(target, sizeof(target), "%s/.", lp);
		assert_int_equal(safeout_dir_open(&d, AT_FDCWD, target, 0, &why), -ELOOP);
		snprintf(target, sizeof(target), "%s/", lp);
		assert_int_equal(safeout_dir_open(&d, AT_FDCWD, target, 0, &why), -ELOOP);
		assert_int_equal(why.what, SAFEOUT_LINK);
		snprintf(target, sizeof(target), "%s/./sub/../perf.data", lp);
		assert_int_equal(safeout_open(&f, AT_FDCWD, target, 0, &why), -ELOOP);
		assert_string_equal(get(P("root/perf.data")), "root's");
		assert_int_equal(nr_entries(P("root")), 1);		/* no run1, no temp */
	}
	/* --force follows it */
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("home/results/perf.data"), SAFEOUT_FORCE, NULL), 0);
	write_all(f, "forced");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("root/perf.data")), "forced");
	/* our own link on the way, and root's link to it: followed */
	assert_int_equal(symlink(P("root"), P("mine")), 0);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("mine/perf.data"), 0, NULL), 0);
	write_all(f, "mine");
	assert_int_equal(safeout_commit(f), 0);
	assert_string_equal(get(P("root/perf.data")), "mine");
	assert_int_equal(safeout_dir_open(&d, AT_FDCWD, P("mine/sub/."), 0, NULL), 0);
	close(d);
	/* a link to a link of another user: the second is refused */
	assert_int_equal(symlink(P("pub/results"), P("via")), 0);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("via/perf.data"), 0, &why), -ELOOP);
	assert_int_equal(why.what, SAFEOUT_PATH_LINK);
	/* a loop is ELOOP, not a refusal */
	assert_int_equal(symlink("loop", P("loop")), 0);
	assert_int_equal(safeout_open(&f, AT_FDCWD, P("loop/x"), 0, &why), -ELOOP);
	assert_int_equal(why.what, SAFEOUT_NONE);
}

/* The kernel's protected_symlinks rule for a follower that is not the link's
 * owner: root's link in a sticky world-writable directory of another user
 * is not followed by a third user (a child process with euid 65533). */
static void test_kernel_rule(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(mkdir(P("st"), 0777), 0);
	assert_int_equal(chmod(P("st"), 01777), 0);
	assert_int_equal(chown(P("st"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(mkdir(P("st/dst"), 0777), 0);
	assert_int_equal(chmod(P("st/dst"), 0777), 0);
	assert_int_equal(symlink(P("st/dst"), P("st/rootlink")), 0);	/* root's link */
	assert_int_equal(mkdir(P("open"), 0777), 0);
	assert_int_equal(chmod(P("open"), 0777), 0);
	assert_int_equal(symlink(P("st/dst"), P("open/rootlink")), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct safeout_file *f;
		if (setresgid(65533, 65533, 65533) || setresuid(65533, 65533, 65533))
			_exit(10);
		/* sticky world-writable, owned by 65534, link by root: refused */
		if (safeout_open(&f, AT_FDCWD, P("st/rootlink/x"), 0, NULL) != -ELOOP)
			_exit(11);
		/* not sticky: root's link followed */
		if (safeout_open(&f, AT_FDCWD, P("open/rootlink/x"), 0, NULL) != 0)
			_exit(12);
		safeout_abort(f);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Another user swaps a link in for the temporary file before the rename
 * (their directory): the commit fails, the victim and the target name are
 * untouched, and so for a publish. */
static void test_swapped_temp(void **state)
{
	(void)state;
	struct safeout_file *f;
	char tmp[PATH_MAX], aside[PATH_MAX];
	put(P("victim"), "victim");
	for (int publish = 0; publish < 2; publish++) {
		assert_int_equal(safeout_open(&f, AT_FDCWD, P("out"), 0, NULL), 0);
		write_all(f, "data");
		const char *t = find_entry(dir, ".out.");
		assert_non_null(t);
		snprintf(tmp, sizeof(tmp), "%s", P(t));
		snprintf(aside, sizeof(aside), "%s", P("aside"));
		assert_int_equal(rename(tmp, aside), 0);
		assert_int_equal(symlink(P("victim"), tmp), 0);
		if (publish) {
			assert_int_equal(safeout_publish(f), -ESTALE);
			safeout_abort(f);
		} else {
			assert_int_equal(safeout_commit(f), -ESTALE);
		}
		struct stat st;
		assert_int_equal(lstat(P("out"), &st), -1);	/* nothing under the name */
		assert_string_equal(get(P("victim")), "victim");
		unlink(tmp);
		unlink(aside);
	}
	char msg[256];
	assert_non_null(strstr(safeout_explain(msg, sizeof(msg), -ESTALE, NULL), "temporary name"));
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
		cmocka_unit_test_setup_teardown(test_modes_and_dots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swapped_temp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdw_open, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
