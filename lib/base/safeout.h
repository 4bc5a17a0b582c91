/* SPDX-License-Identifier: MIT */
/*
 * safeout.h - output files that are safe to create as root in directories
 * other users can write to.  Every file latscope writes goes through here
 * (tests/golden/writers.sh checks that nothing else creates files).
 *
 * Prefix: safeout_.
 *
 * A file is never opened for writing at its final name.  safeout_open() opens the
 * target's directory (walked one component at a time, see below), checks the
 * name found there, then creates a new temporary file beside it
 * (O_CREAT|O_EXCL|O_NOFOLLOW, random name); safeout_commit() renames the
 * temporary file over the target, so a link planted at the name is replaced,
 * never followed, and a failed run (safeout_abort()) leaves nothing under the
 * target's name.  After the rename the name must refer to the file that was
 * written (another user could swap a link in for the temporary name in a
 * directory they can write): otherwise the commit fails (-ESTALE).
 *
 * The one permission rule: new files are 0600 and new directories 0700
 * (owner only, as perf record creates perf.data); the umask may narrow them.
 *
 * The directories on the way: a symbolic link in the path is followed only
 * where the kernel's fs.protected_symlinks rule would follow it (whatever
 * that sysctl says: some containers and older systems have it off) and the
 * link is ours or root's: a link of another user anywhere in the path is
 * refused (-ELOOP, the refusal names it) unless SAFEOUT_FORCE, which follows
 * it.  "." and ".." are taken as the kernel takes them.
 *
 * The name found at the target decides:
 *   nothing                          create
 *   regular file of ours             replace
 *   regular file of another user     refused (-EEXIST) unless SAFEOUT_FORCE
 *   symlink of another user          refused (-ELOOP) unless SAFEOUT_FORCE, which
 *                                    replaces the link itself
 *   symlink of ours or of root       followed (e.g. /dev/stdout) by the same
 *                                    rules, the rules applied again where it points
 *   character/block device           written in place, not replaced (/dev/null)
 *   FIFO/socket                      written in place when ours (or SAFEOUT_FORCE)
 *   directory                        -EISDIR
 * "Ours" is the effective uid.  safeout_explain() words the refusals.
 *
 * Directories (the -O trees): safeout_dir_open() creates a directory if missing
 * and opens it, relative to a directory fd; files inside are then created
 * with safeout_open(dirfd, name, ...), so nothing in the tree is followed out
 * of it.
 *
 * Nothing here prints or exits.
 */
#ifndef LATSCOPE_SAFEOUT_H
#define LATSCOPE_SAFEOUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SAFEOUT_FORCE 1u	/* replace a symlink or a file of another user,
				 * follow a link of another user in the path */
#define SAFEOUT_FILE_MODE 0600	/* every file created */
#define SAFEOUT_DIR_MODE 0700	/* every directory created */

/* What a refusal was about (filled by safeout_open/safeout_dir_open when they
 * return -ELOOP or -EEXIST for another user's link, file or directory). */
enum safeout_what {
	SAFEOUT_NONE,		/* not a refusal (or a real ELOOP: too many links) */
	SAFEOUT_LINK,		/* the target is a symlink of another user */
	SAFEOUT_PATH_LINK,	/* a symlink of another user on the way to the target */
	SAFEOUT_FILE,		/* the target is a file of another user */
	SAFEOUT_DIR,		/* the target directory belongs to another user */
};
struct safeout_refusal {
	enum safeout_what what;
	uid_t uid;		/* the owner of what was refused */
	char at[PATH_MAX];	/* its path, as walked (the link itself for links) */
};

struct safeout_file;

/*
 * safeout_open - prepare to write path (relative to atfd, AT_FDCWD for the
 * current directory); a new file gets SAFEOUT_FILE_MODE.  *fp is owned by the
 * caller, who ends it with exactly one of safeout_commit() or
 * safeout_abort().  Returns 0 or a negative errno (-EEXIST/-ELOOP: refused,
 * see above, *why says what when why is not NULL; *fp is then NULL).
 */
int safeout_open(struct safeout_file **fp, int atfd, const char *path, unsigned flags,
		 struct safeout_refusal *why);

/* The descriptor to write to (owned by f: do not close it). */
int safeout_fd(const struct safeout_file *f);

/* True when the target is written in place (a device or FIFO), not replaced. */
bool safeout_in_place(const struct safeout_file *f);

/*
 * safeout_commit - close the file and put it in place of the target.  Frees f
 * (NULL is fine and returns 0).  Returns 0 or a negative errno; on error the
 * temporary file is removed and the target is left as it was.  -ESTALE: the
 * temporary name no longer held the file written (another user swapped
 * something in): nothing of it is left under the target's name.
 */
int safeout_commit(struct safeout_file *f);

/*
 * safeout_publish - put the file in place of the target now, while it stays open
 * for writing (a recorder whose recording must survive a kill: it calls this
 * once the file holds a readable recording).  From then on f writes to the
 * target: safeout_commit() only closes, and safeout_abort() closes and leaves the
 * target holding what was written (the old target is gone).  Does not free
 * f.  0 (also when in place or already published) or a negative errno
 * (-ESTALE as for safeout_commit()), in which case nothing was published.
 */
int safeout_publish(struct safeout_file *f);

/* safeout_abort - close and remove the temporary file; the target is untouched
 * (unless safeout_publish() put the file in its place already).  Frees f; NULL is
 * fine. */
void safeout_abort(struct safeout_file *f);

/*
 * safeout_unlink_temps - remove every temporary file of this process not yet
 * committed or aborted (up to 16 at a time are tracked), leaving the
 * safeout_file objects as they are.  Async-signal-safe (unlinkat only): for a
 * signal handler that is about to end the process, so that an abort leaves
 * no hidden ".<name>.<hex>.tmp" file behind.  Nothing else may use those
 * files afterwards.
 */
void safeout_unlink_temps(void);

/*
 * safeout_dir_open - create directory path (relative to atfd) if it is missing
 * (SAFEOUT_DIR_MODE; missing parents too) and open it; *dirfd is the caller's
 * to close.  The path is walked as for safeout_open().  The last component
 * must not be a symlink of another user (SAFEOUT_FORCE: such a link is removed
 * and replaced by a directory); a directory of another user is refused
 * (-EEXIST) unless SAFEOUT_FORCE.  0 or negative errno (*why as for
 * safeout_open()).
 */
int safeout_dir_open(int *dirfd, int atfd, const char *path, unsigned flags, struct safeout_refusal *why);

/*
 * safeout_explain - word an error of safeout_open()/safeout_dir_open()/
 * safeout_commit() into buf (size n): a refusal names what was refused, its
 * owner and the option that overrides it; anything else is strerror().  why
 * may be NULL.  Returns buf.
 */
char *safeout_explain(char *buf, size_t n, int err, const struct safeout_refusal *why);

#endif
