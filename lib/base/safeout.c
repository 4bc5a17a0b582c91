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

#include "base/safeout.h"

#define SAFEOUT_MAX_LINKS 40	/* as the kernel's path walk */

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

/* ------------------------------------------------------------ the path walk */

struct walk {
	unsigned flags;
	int links;			/* symlinks followed so far */
	bool create;			/* make missing directories */
	struct safeout_refusal *why;
};

/*
 * May a symlink (stat l) found in directory (stat d) be followed?  Only
 * where the kernel's protected_symlinks rule would follow it (the follower
 * owns the link; or the directory is not sticky and world-writable; or the
 * directory's owner owns the link), and only a link of ours or root's: a
 * link of another user may point anywhere root can write.
 */
static bool may_follow(const struct stat *d, const struct stat *l)
{
	uid_t me = geteuid();

	if (l->st_uid != me && l->st_uid != 0)
		return false;
	if (l->st_uid == me)
		return true;
	if ((d->st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return true;
	return d->st_uid == l->st_uid;
}

/* Note a refusal: what, whose, and the path up to it (path[0..len)). */
static void refuse(struct walk *w, enum safeout_what what, uid_t uid, const char *path, size_t len)
{
	if (!w->why)
		return;
	w->why->what = what;
	w->why->uid = uid;
	if (len >= sizeof(w->why->at))
		len = sizeof(w->why->at) - 1;
	memcpy(w->why->at, path, len);
	w->why->at[len] = 0;
}

/* The symlink `name` in directory cur: its stat, the directory's, its text.
 * 0, -EAGAIN when name is no longer a symlink (raced: look again), or -errno. */
static int read_link(int cur, const char *name, struct stat *ls, struct stat *ds, char *text, size_t n)
{
	int l = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (l < 0)
		return errno == ENOENT ? -EAGAIN : -errno;
	int err = 0;
	if (fstat(l, ls) < 0 || fstat(cur, ds) < 0) {
		err = -errno;
	} else if (!S_ISLNK(ls->st_mode)) {
		err = S_ISDIR(ls->st_mode) ? -EAGAIN : -ENOTDIR;
	} else {
		ssize_t r = readlinkat(l, "", text, n - 1);
		if (r < 0)
			err = -errno;
		else
			text[r] = 0;
	}
	close(l);
	return err;
}

static int walk_dir(struct walk *w, int atfd, const char *path);

/*
 * One directory component: open `name` inside cur, never through a symlink
 * may_follow() refuses (unless SAFEOUT_FORCE).  path[0..upto) names it in a
 * refusal.  A new fd or -errno.
 */
static int walk_step(struct walk *w, int cur, const char *name, const char *path, size_t upto)
{
	for (int tries = 0; tries < 16; tries++) {
		int fd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		int e = errno;
		if (e == ENOENT && w->create) {
			if (mkdirat(cur, name, SAFEOUT_DIR_MODE) < 0 && errno != EEXIST)
				return -errno;
			continue;
		}
		if (e != ELOOP && e != ENOTDIR)
			return -e;
		struct stat ls, ds;
		char text[PATH_MAX];
		int err = read_link(cur, name, &ls, &ds, text, sizeof(text));
		if (err == -EAGAIN)
			continue;
		if (err)
			return err;
		if (!may_follow(&ds, &ls) && !(w->flags & SAFEOUT_FORCE)) {
			refuse(w, SAFEOUT_PATH_LINK, ls.st_uid, path, upto);
			return -ELOOP;
		}
		if (++w->links > SAFEOUT_MAX_LINKS)
			return -ELOOP;
		return walk_dir(w, cur, text);
	}
	return -EAGAIN;
}

/* Open directory path (relative to atfd) one component at a time. */
static int walk_dir(struct walk *w, int atfd, const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	int cur = openat(buf[0] == '/' ? AT_FDCWD : atfd, buf[0] == '/' ? "/" : ".",
			 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	for (size_t i = 0; i < n;) {
		if (buf[i] == '/') {
			i++;
			continue;
		}
		size_t len = strcspn(buf + i, "/");
		buf[i + len] = 0;
		if (strcmp(buf + i, ".")) {
			int fd = walk_step(w, cur, buf + i, path, i + len);
			close(cur);
			if (fd < 0)
				return fd;
			cur = fd;
		}
		i += len + 1;
	}
	return cur;
}

/* ------------------------------------------------------------------ files */

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

/* Split path into the directory walked (f->dirfd) and the last component. */
static int open_parent(struct walk *w, int atfd, const char *path, struct safeout_file *f)
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
	f->base = strdup(b);
	if (!f->base)
		return -ENOMEM;
	if (!slash) {
		f->dirfd = openat(atfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return f->dirfd < 0 ? -errno : 0;
	}
	char dir[PATH_MAX];
	size_t dl = slash == path ? 1 : (size_t)(slash - path);
	if (dl >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, dl);
	dir[dl] = 0;
	f->dirfd = walk_dir(w, atfd, dir);
	return f->dirfd < 0 ? f->dirfd : 0;
}

static int make_temp(struct safeout_file *f)
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
		f->fd = openat(f->dirfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       SAFEOUT_FILE_MODE);
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

static int open_file(struct safeout_file **fp, struct walk *w, int atfd, const char *path)
{
	struct safeout_file *f = calloc(1, sizeof(*f));
	struct stat st;
	int err;

	if (!f)
		return -ENOMEM;
	f->dirfd = f->fd = -1;
	err = open_parent(w, atfd, path, f);
	if (err)
		goto fail;
	if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT) {
			err = -errno;
			goto fail;
		}
	} else if (S_ISLNK(st.st_mode)) {
		struct stat ds, to;
		if (fstat(f->dirfd, &ds) < 0) {
			err = -errno;
			goto fail;
		}
		bool trusted = may_follow(&ds, &st);
		if (trusted && fstatat(f->dirfd, f->base, &to, 0) == 0 && !S_ISREG(to.st_mode) &&
		    !S_ISDIR(to.st_mode)) {
			/* ours or root's, to a device or pipe (/dev/stdout): in place */
			err = open_in_place(f, O_WRONLY | O_CLOEXEC);
			if (err)
				goto fail;
			*fp = f;
			return 0;
		}
		if (trusted) {
			/* ours or root's: followed, the rules again there */
			char link[PATH_MAX];
			ssize_t n = readlinkat(f->dirfd, f->base, link, sizeof(link) - 1);
			if (n < 0) {
				err = -errno;
				goto fail;
			}
			link[n] = 0;
			if (++w->links > SAFEOUT_MAX_LINKS) {
				err = -ELOOP;
				goto fail;
			}
			int dfd = f->dirfd;
			f->dirfd = -1;
			safeout_free(f);
			err = open_file(fp, w, dfd, link);
			close(dfd);
			return err;
		}
		if (!(w->flags & SAFEOUT_FORCE)) {
			refuse(w, SAFEOUT_LINK, st.st_uid, path, strlen(path));
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
		    !(w->flags & SAFEOUT_FORCE)) {
			refuse(w, SAFEOUT_FILE, st.st_uid, path, strlen(path));
			err = -EEXIST;
			goto fail;
		}
		err = open_in_place(f, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (err)
			goto fail;
		*fp = f;
		return 0;
	} else if (st.st_uid != geteuid() && !(w->flags & SAFEOUT_FORCE)) {
		refuse(w, SAFEOUT_FILE, st.st_uid, path, strlen(path));
		err = -EEXIST;
		goto fail;
	}
	err = make_temp(f);
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

int safeout_open(struct safeout_file **fp, int atfd, const char *path, unsigned flags,
		 struct safeout_refusal *why)
{
	struct walk w = { .flags = flags, .why = why };

	if (why)
		why->what = SAFEOUT_NONE;
	if (!fp)
		return -EINVAL;
	*fp = NULL;
	if (!path)
		return -EINVAL;
	return open_file(fp, &w, atfd, path);
}

int safeout_fd(const struct safeout_file *f)
{
	return f ? f->fd : -1;
}

bool safeout_in_place(const struct safeout_file *f)
{
	return f && f->in_place;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Rename the temporary file (whose identity is *mine) over the target and
 * check that the target is now that file: in a directory another user can
 * write, they can put something else under the temporary name before or
 * during the rename.  What the rename put in place that is not ours is taken
 * away again (unlinking a name never follows it).
 */
static int put_in_place(struct safeout_file *f, const struct stat *mine)
{
	struct stat st;

	if (fstatat(f->dirfd, f->tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (!same_file(&st, mine))
		return -ESTALE;
	if (renameat(f->dirfd, f->tmp, f->dirfd, f->base) < 0)
		return -errno;
	if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (!same_file(&st, mine)) {
		if (!S_ISDIR(st.st_mode))
			unlinkat(f->dirfd, f->base, 0);
		return -ESTALE;
	}
	return 0;
}

int safeout_commit(struct safeout_file *f)
{
	struct stat mine;
	int err = 0;

	if (!f)
		return 0;
	if (f->fd >= 0 && !f->in_place && fstat(f->fd, &mine) < 0)
		err = -errno;
	if (f->fd >= 0 && close(f->fd) < 0 && !err)
		err = -errno;
	f->fd = -1;
	if (!f->in_place) {
		if (!err)
			err = put_in_place(f, &mine);
		if (err)
			unlinkat(f->dirfd, f->tmp, 0);
		live_drop(f);
	}
	safeout_free(f);
	return err;
}

int safeout_publish(struct safeout_file *f)
{
	struct stat mine;

	if (!f || f->fd < 0)
		return -EINVAL;
	if (f->in_place)
		return 0;
	if (fstat(f->fd, &mine) < 0)
		return -errno;
	int err = put_in_place(f, &mine);
	if (err)
		return err;
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

/* ------------------------------------------------------------ directories */

/* Open (creating it if missing) directory `name` inside pfd, the last
 * component of path: a link of another user there is refused, or replaced
 * by a directory with SAFEOUT_FORCE. */
static int dir_at(struct walk *w, int pfd, const char *name, const char *path)
{
	int fd = -1;

	for (int tries = 0; fd < 0; tries++) {
		if (tries == 16)
			return -EAGAIN;
		if (mkdirat(pfd, name, SAFEOUT_DIR_MODE) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			break;
		int e = errno;
		if (e != ELOOP && e != ENOTDIR)
			return -e;
		struct stat ls, ds;
		char text[PATH_MAX];
		int err = read_link(pfd, name, &ls, &ds, text, sizeof(text));
		if (err == -EAGAIN)
			continue;
		if (err)
			return err;
		if (may_follow(&ds, &ls)) {
			if (++w->links > SAFEOUT_MAX_LINKS)
				return -ELOOP;
			fd = walk_dir(w, pfd, text);
			if (fd < 0)
				return fd;
			break;
		}
		if (!(w->flags & SAFEOUT_FORCE)) {
			refuse(w, SAFEOUT_LINK, ls.st_uid, path, strlen(path));
			return -ELOOP;
		}
		if (unlinkat(pfd, name, 0) < 0 && errno != ENOENT)
			return -errno;
	}
	return fd;
}

int safeout_dir_open(int *dirfd, int atfd, const char *path, unsigned flags, struct safeout_refusal *why)
{
	struct walk w = { .flags = flags, .create = true, .why = why };
	char buf[PATH_MAX];
	struct stat st;
	int fd;

	if (why)
		why->what = SAFEOUT_NONE;
	if (!dirfd || !path || !*path)
		return -EINVAL;
	*dirfd = -1;
	size_t n = strlen(path);
	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	char *slash = strrchr(buf, '/');
	const char *last = slash ? slash + 1 : buf;
	if (!*last || !strcmp(last, ".") || !strcmp(last, "..")) {
		/* "/", "DIR/.", "..": every component is a directory on the way */
		fd = walk_dir(&w, atfd, buf);
	} else {
		int pfd;
		if (slash) {
			*slash = 0;
			pfd = walk_dir(&w, atfd, slash == buf ? "/" : buf);
			*slash = '/';
		} else {
			pfd = openat(atfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (pfd < 0)
				pfd = -errno;
		}
		if (pfd < 0)
			return pfd;
		fd = dir_at(&w, pfd, last, buf);
		close(pfd);
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (st.st_uid != geteuid() && !(flags & SAFEOUT_FORCE)) {
		refuse(&w, SAFEOUT_DIR, st.st_uid, buf, strlen(buf));
		close(fd);
		return -EEXIST;
	}
	*dirfd = fd;
	return 0;
}

char *safeout_explain(char *buf, size_t n, int err, const struct safeout_refusal *why)
{
	if (err < 0)
		err = -err;
	enum safeout_what what = why && (err == EEXIST || err == ELOOP) ? why->what : SAFEOUT_NONE;
	unsigned uid = why ? (unsigned)why->uid : 0;
	switch (what) {
	case SAFEOUT_LINK:
		snprintf(buf, n, "it is a symbolic link of another user (uid %u) (refused: --force "
			 "replaces the link itself)", uid);
		break;
	case SAFEOUT_PATH_LINK:
		snprintf(buf, n, "%s is a symbolic link of another user (uid %u) on the way (refused: "
			 "--force follows it)", why->at, uid);
		break;
	case SAFEOUT_FILE:
		snprintf(buf, n, "it belongs to another user (uid %u) (refused: --force replaces it)", uid);
		break;
	case SAFEOUT_DIR:
		snprintf(buf, n, "the directory belongs to another user (uid %u) (refused: --force "
			 "writes into it)", uid);
		break;
	default:
		if (err == ESTALE)
			snprintf(buf, n, "something else was put under its temporary name while it "
				 "was written (another user's doing?): nothing was written there");
		else
			snprintf(buf, n, "%s", strerror(err));
	}
	return buf;
}
