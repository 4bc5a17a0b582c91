/* SPDX-License-Identifier: MIT */
/*
 * safeout.h - output files that are safe to create as root in directories
 * other users can write to.
 *
 * Prefix: safeout_.
 *
 * A file is never opened for writing at its final name.  safeout_open() opens the
 * target's directory once (O_DIRECTORY), checks the name found there, then
 * creates a new temporary file beside it (O_CREAT|O_EXCL|O_NOFOLLOW, random
 * name); safeout_commit() renames the temporary file over the target, so a link
 * planted at the name is replaced, never followed, and a failed run
 * (safeout_abort()) leaves nothing under the target's name.
 *
 * The name found at the target decides:
 *   nothing                          create
 *   regular file of ours             replace
 *   regular file of another user     refused (-EEXIST) unless SAFEOUT_FORCE
 *   symlink of another user          refused (-ELOOP) unless SAFEOUT_FORCE, which
 *                                    replaces the link itself
 *   symlink of ours or of root       followed once (e.g. /dev/stdout), the
 *                                    rules applied again where it points
 *   character/block device           written in place, not replaced (/dev/null)
 *   FIFO/socket                      written in place when ours (or SAFEOUT_FORCE)
 *   directory                        -EISDIR
 * "Ours" is the effective uid.  safeout_strerror() explains the refusals.
 *
 * Directories (the -O trees): safeout_dir_open() creates a directory if missing
 * and opens it with O_NOFOLLOW|O_DIRECTORY, relative to a directory fd;
 * files inside are then created with safeout_open(dirfd, name, ...), so nothing
 * in the tree is followed out of it.
 *
 * Nothing here prints or exits.
 */
#ifndef LATSCOPE_SAFEOUT_H
#define LATSCOPE_SAFEOUT_H

#include <stdbool.h>
#include <sys/types.h>

#define SAFEOUT_FORCE 1u	/* replace a symlink or a file of another user */

struct safeout_file;

/*
 * safeout_open - prepare to write path (relative to atfd, AT_FDCWD for the
 * current directory) with permission bits mode (the umask applies).  *fp is
 * owned by the caller, who ends it with exactly one of safeout_commit() or
 * safeout_abort().  Returns 0 or a negative errno (-EEXIST/-ELOOP: refused, see
 * above; *fp is then NULL).
 */
int safeout_open(struct safeout_file **fp, int atfd, const char *path, mode_t mode, unsigned flags);

/* The descriptor to write to (owned by f: do not close it). */
int safeout_fd(const struct safeout_file *f);

/* True when the target is written in place (a device or FIFO), not replaced. */
bool safeout_in_place(const struct safeout_file *f);

/*
 * safeout_commit - close the file and put it in place of the target.  Frees f
 * (NULL is fine and returns 0).  Returns 0 or a negative errno; on error the
 * temporary file is removed and the target is left as it was.
 */
int safeout_commit(struct safeout_file *f);

/*
 * safeout_publish - put the file in place of the target now, while it stays open
 * for writing (a recorder whose recording must survive a kill: it calls this
 * once the file holds a readable recording).  From then on f writes to the
 * target: safeout_commit() only closes, and safeout_abort() closes and leaves the
 * target holding what was written (the old target is gone).  Does not free
 * f.  0 (also when in place or already published) or a negative errno, in
 * which case nothing changed.
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
 * (mode 0755, the umask applies) and open it; *dirfd is the caller's to
 * close.  The last component must not be a symlink unless it is ours or
 * root's (SAFEOUT_FORCE: a symlink of another user is removed and replaced by a
 * directory); a directory of another user is refused (-EEXIST) unless
 * SAFEOUT_FORCE.  A path with several components creates the missing parents
 * too (they are the caller's path, followed as given).  0 or negative errno.
 */
int safeout_dir_open(int *dirfd, int atfd, const char *path, unsigned flags);

/*
 * safeout_strerror - a message for an error returned by safeout_open()/safeout_dir_open()
 * (static string): the refusals are explained with the option that
 * overrides them, anything else is strerror().
 */
const char *safeout_strerror(int err);

#endif
