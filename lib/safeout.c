/* SPDX-License-Identifier: MIT */
/* safeout.c - output files safe in directories other users can write (see safeout.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "safeout.h"

#define SAFEOUT_MAX_LINKS 8

struct safeout_file {
	int dirfd;		/* the target's directory (-1 when in place) */
	int fd;
	bool in_place;
	char *base;		/* target name inside dirfd */
	char *tmp;		/* temporary name inside dirfd */
};

/*
 * The temporary files not yet committed or aborted, for safeout_unlink_temps()
 * in a signal handler: a slot is filled, then published (state 2); the
 * handler only reads published slots.  A file that finds no free slot is
 * just not removed by an abort.
 */
#define SAFEOUT_LIVE_MAX 16
static struct {
	int state;		/* 0 free, 1 being filled, 2 published */
	int dirfd;
	char name[NAME_MAX + 1];
} safeout_live[SAFEOUT_LIVE_MAX];

static void live_add(const struct safeout_file *f)
{
	for (int i = 0; i < SAFEOUT_LIVE_MAX; i++) {
		int free_ = 0;
		if (!__atomic_compare_exchange_n(&safeout_live[i].state, &free_, 1, false, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		safeout_live[i].dirfd = f->dirfd;
		snprintf(safeout_live[i].name, sizeof(safeout_live[i].name), "%s", f->tmp);
		__atomic_store_n(&safeout_live[i].state, 2, __ATOMIC_RELEASE);
		return;
	}
}

/* After f's temporary name was renamed or removed (an unlink by the handler
 * in between finds nothing), before its dirfd is closed. */
static void live_drop(const struct safeout_file *f)
{
	for (int i = 0; i < SAFEOUT_LIVE_MAX; i++)
		if (__atomic_load_n(&safeout_live[i].state, __ATOMIC_ACQUIRE) == 2 &&
		    safeout_live[i].dirfd == f->dirfd && !strcmp(safeout_live[i].name, f->tmp)) {
			__atomic_store_n(&safeout_live[i].state, 0, __ATOMIC_RELEASE);
			return;
		}
}

void safeout_unlink_temps(void)
{
	for (int i = 0; i < SAFEOUT_LIVE_MAX; i++)
		if (__atomic_load_n(&safeout_live[i].state, __ATOMIC_ACQUIRE) == 2)
			unlinkat(safeout_live[i].dirfd, safeout_live[i].name, 0);
}

static bool trusted_uid(uid_t u)
{
	return u == geteuid() || u == 0;
}

/* Split path into a directory (opened relative to atfd) and a last component. */
static int open_parent(int atfd, const char *path, int *dirfd, char **base)
{
	size_t n = strlen(path);
	if (!n)
		return -ENOENT;
	if (path[n - 1] == '/')
		return -EISDIR;
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	if (!strcmp(b, ".") || !strcmp(b, ".."))
		return -EISDIR;
	if (strlen(b) > NAME_MAX)
		return -ENAMETOOLONG;
	char *dir;
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	*base = strdup(b);
	if (!dir || !*base) {
		free(dir);
		free(*base);
		*base = NULL;
		return -ENOMEM;
	}
	int fd = openat(atfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = fd < 0 ? -errno : 0;
	free(dir);
	if (err) {
		free(*base);
		*base = NULL;
		return err;
	}
	*dirfd = fd;
	return 0;
}

static void safeout_free(struct safeout_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->base);
	free(f->tmp);
	free(f);
}

static int make_temp(struct safeout_file *f, mode_t mode)
{
	static unsigned seq;
	size_t bl = strlen(f->base);
	if (bl > 200)
		bl = 200;
	f->tmp = malloc(bl + 32);
	if (!f->tmp)
		return -ENOMEM;
	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t r = ((uint64_t)ts.tv_nsec * 2654435761u) ^ ((uint64_t)getpid() << 20) ^
			     (uint64_t)(++seq * 40503u);
		snprintf(f->tmp, bl + 32, ".%.*s.%06llx.tmp", (int)bl, f->base,
			 (unsigned long long)(r & 0xffffff));
		f->fd = openat(f->dirfd, f->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (f->fd >= 0) {
			live_add(f);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Write the existing target itself (a device, a pipe): no temporary file. */
static int open_in_place(struct safeout_file *f, int oflags)
{
	f->fd = openat(f->dirfd, f->base, oflags);
	if (f->fd < 0)
		return -errno;
	close(f->dirfd);
	f->dirfd = -1;
	f->in_place = true;
	return 0;
}

static int safeout_open_depth(struct safeout_file **fp, int atfd, const char *path, mode_t mode,
			 unsigned flags, int depth)
{
	struct safeout_file *f = calloc(1, sizeof(*f));
	struct stat st;
	int err;

	if (!f)
		return -ENOMEM;
	f->dirfd = f->fd = -1;
	err = open_parent(atfd, path, &f->dirfd, &f->base);
	if (err)
		goto fail;
	if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT) {
			err = -errno;
			goto fail;
		}
	} else if (S_ISLNK(st.st_mode)) {
		struct stat to;
		if (trusted_uid(st.st_uid) && fstatat(f->dirfd, f->base, &to, 0) == 0 &&
		    !S_ISREG(to.st_mode) && !S_ISDIR(to.st_mode)) {
			/* ours or root's, to a device or pipe (/dev/stdout): in place */
			err = open_in_place(f, O_WRONLY | O_CLOEXEC);
			if (err)
				goto fail;
			*fp = f;
			return 0;
		}
		if (trusted_uid(st.st_uid)) {
			/* ours or root's: follow it once, the rules again there */
			char link[PATH_MAX];
			ssize_t n = readlinkat(f->dirfd, f->base, link, sizeof(link) - 1);
			if (n < 0) {
				err = -errno;
				goto fail;
			}
			link[n] = 0;
			if (depth >= SAFEOUT_MAX_LINKS) {
				err = -ELOOP;
				goto fail;
			}
			int dfd = f->dirfd;
			f->dirfd = -1;
			safeout_free(f);
			err = safeout_open_depth(fp, dfd, link, mode, flags, depth + 1);
			close(dfd);
			return err;
		}
		if (!(flags & SAFEOUT_FORCE)) {
			err = -ELOOP;
			goto fail;
		}
		/* SAFEOUT_FORCE: the rename below replaces the link itself */
	} else if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto fail;
	} else if (!S_ISREG(st.st_mode)) {
		/* a device (/dev/null), or a FIFO/socket: write in place */
		if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode) && st.st_uid != geteuid() &&
		    !(flags & SAFEOUT_FORCE)) {
			err = -EEXIST;
			goto fail;
		}
		err = open_in_place(f, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (err)
			goto fail;
		*fp = f;
		return 0;
	} else if (st.st_uid != geteuid() && !(flags & SAFEOUT_FORCE)) {
		err = -EEXIST;
		goto fail;
	}
	err = make_temp(f, mode);
	if (err)
		goto fail;
	*fp = f;
	return 0;
fail:
	if (f->fd >= 0 && f->tmp) {
		unlinkat(f->dirfd, f->tmp, 0);
		live_drop(f);
	}
	safeout_free(f);
	return err;
}

int safeout_open(struct safeout_file **fp, int atfd, const char *path, mode_t mode, unsigned flags)
{
	if (!fp)
		return -EINVAL;
	*fp = NULL;
	if (!path)
		return -EINVAL;
	return safeout_open_depth(fp, atfd, path, mode, flags, 0);
}

int safeout_fd(const struct safeout_file *f)
{
	return f ? f->fd : -1;
}

bool safeout_in_place(const struct safeout_file *f)
{
	return f && f->in_place;
}

int safeout_commit(struct safeout_file *f)
{
	int err = 0;
	if (!f)
		return 0;
	if (f->fd >= 0 && close(f->fd) < 0)
		err = -errno;
	f->fd = -1;
	if (!f->in_place) {
		if (!err && renameat(f->dirfd, f->tmp, f->dirfd, f->base) < 0)
			err = -errno;
		live_drop(f);
		if (err)
			unlinkat(f->dirfd, f->tmp, 0);
	}
	safeout_free(f);
	return err;
}

int safeout_publish(struct safeout_file *f)
{
	if (!f || f->fd < 0)
		return -EINVAL;
	if (f->in_place)
		return 0;
	if (renameat(f->dirfd, f->tmp, f->dirfd, f->base) < 0)
		return -errno;
	live_drop(f);		/* an abort now leaves the recording in place */
	f->in_place = true;	/* the temporary name is gone: commit/abort only close */
	return 0;
}

void safeout_abort(struct safeout_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (!f->in_place && f->tmp) {
		unlinkat(f->dirfd, f->tmp, 0);
		live_drop(f);
	}
	safeout_free(f);
}

/* Open an existing or new directory `name` inside pfd. */
static int dir_at(int pfd, const char *name, unsigned flags, int depth)
{
	struct stat st;
	if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
			return -e;
		if (trusted_uid(st.st_uid)) {
			if (depth >= SAFEOUT_MAX_LINKS)
				return -ELOOP;
			char link[PATH_MAX];
			ssize_t n = readlinkat(pfd, name, link, sizeof(link) - 1);
			if (n < 0)
				return -errno;
			link[n] = 0;
			int r;
			int err = safeout_dir_open(&r, pfd, link, flags | (unsigned)(depth + 1) << 8);
			return err ? err : r;
		}
		if (!(flags & SAFEOUT_FORCE))
			return -ELOOP;
		if (unlinkat(pfd, name, 0) < 0 || (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST))
			return -errno;
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (st.st_uid != geteuid() && !(flags & SAFEOUT_FORCE)) {
		close(fd);
		return -EEXIST;
	}
	return fd;
}

int safeout_dir_open(int *dirfd, int atfd, const char *path, unsigned flags)
{
	char buf[PATH_MAX];
	int depth = (int)(flags >> 8);

	if (!dirfd || !path || !*path)
		return -EINVAL;
	*dirfd = -1;
	flags &= 0xff;
	size_t n = strlen(path);
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	char *slash = strrchr(buf, '/');
	const char *last = buf;
	int pfd = -1;
	if (slash && slash != buf + n - 1) {
		*slash = 0;
		last = slash + 1;
		const char *parent = slash == buf ? "/" : buf;
		/* the parents: the caller's path, created as needed, followed as given */
		char p[PATH_MAX];
		size_t pl = strlen(parent);
		memcpy(p, parent, pl + 1);
		for (char *q = p + 1; *q; q++) {
			if (*q != '/')
				continue;
			*q = 0;
			if (mkdirat(atfd, p, 0755) < 0 && errno != EEXIST)
				return -errno;
			*q = '/';
		}
		if (mkdirat(atfd, p, 0755) < 0 && errno != EEXIST)
			return -errno;
		pfd = openat(atfd, parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0)
			return -errno;
	} else if (!strcmp(buf, "/")) {
		last = "/";
	}
	int fd;
	if (pfd < 0 && !strcmp(last, "/"))
		fd = dir_at(atfd, "/", flags, depth);
	else
		fd = dir_at(pfd >= 0 ? pfd : atfd, last, flags, depth);
	if (pfd >= 0)
		close(pfd);
	if (fd < 0)
		return fd;
	*dirfd = fd;
	return 0;
}

const char *safeout_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case EEXIST:
		return "it belongs to another user (refused: --force replaces it)";
	case ELOOP:
		return "it is a symbolic link of another user (refused: --force replaces the link itself)";
	default:
		return strerror(err);
	}
}
