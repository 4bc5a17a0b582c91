/* SPDX-License-Identifier: MIT */
/* cmdio.c - checked output, stop signals, broken pipes (see cmdio.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdio.h"
#include "pdread.h"
#include "commands.h"
#include "safeout.h"

static volatile sig_atomic_t stop_flag, pipe_flag, stop_sig;

static void on_stop(int sig)
{
	if (sig == SIGPIPE) {
		pipe_flag = 1;
	} else if (stop_flag && stop_sig != SIGPIPE) {
		/* a second Ctrl-C: the user insists */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (!stop_sig)
		stop_sig = sig;
	stop_flag = 1;
}

void cio_signals_install(void)
{
	struct sigaction sa;
	stop_flag = pipe_flag = stop_sig = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}

void cio_sigpipe_as_error(void)
{
	signal(SIGPIPE, SIG_IGN);
}

bool cio_stopped(void)
{
	return stop_flag != 0;
}

bool cio_broken_pipe(void)
{
	return pipe_flag != 0;
}

void cio_stop(void)
{
	stop_flag = 1;
}

int cio_stop_signal(void)
{
	return stop_sig;
}

bool cio_watch(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };
	if (!stop_flag && poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP))) {
		struct stat st;
		if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
			pipe_flag = 1;
			if (!stop_sig)
				stop_sig = SIGPIPE;
			stop_flag = 1;
		}
	}
	return stop_flag != 0;
}

static int noted_errno;

void cio_note_error(void)
{
	if (!noted_errno)
		noted_errno = errno ? errno : EIO;
}

int cio_finish(FILE *f, const char *prog, const char *what)
{
	errno = 0;
	int r = fflush(f);
	int e = r ? errno : 0;
	if (r == 0 && !ferror(f))
		return 0;
	if (!e)
		e = noted_errno;
	if (!e) {
		/* the failed write's errno is gone: a pipe whose reader left
		 * reports POLLERR on its write end */
		struct pollfd pfd = { .fd = fileno(f), .events = POLLOUT };
		if (pfd.fd >= 0 && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR))
			e = EPIPE;
		else
			e = EIO;
	}
	fprintf(stderr, "%s: error writing %s: %s\n", prog, what, strerror(e));
	clearerr(f);
	return EXIT_ERR;
}

FILE *cio_fopen_safe(struct so_file **sf, int atfd, const char *path, const char *shown,
		     int mode, bool force, const char *prog)
{
	if (!shown)
		shown = path;
	*sf = NULL;
	int err = so_open(sf, atfd, path, (mode_t)mode, force ? SO_FORCE : 0);
	if (err) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, shown, so_strerror(err));
		return NULL;
	}
	int fd = dup(so_fd(*sf));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, shown, strerror(errno));
		if (fd >= 0)
			close(fd);
		so_abort(*sf);
		*sf = NULL;
	}
	return f;
}

int cio_fclose_safe(FILE *f, struct so_file *sf, const char *path, bool discard, const char *prog)
{
	errno = 0;
	int bad = fflush(f) != 0 || ferror(f);
	int e = bad ? (errno ? errno : EIO) : 0;
	errno = 0;
	if (fclose(f) != 0 && !bad) {
		bad = 1;
		e = errno ? errno : EIO;
	}
	if (bad || discard) {
		so_abort(sf);
		if (bad)
			fprintf(stderr, "%s: error writing %s: %s\n", prog, path, strerror(e));
		return bad ? EXIT_ERR : 0;
	}
	int err = so_commit(sf);
	if (err) {
		fprintf(stderr, "%s: error writing %s: %s\n", prog, path, strerror(-err));
		return EXIT_ERR;
	}
	return 0;
}

void cio_pdr_close(struct pdr *r, const char *prog, const char *path)
{
	const struct pdr_info *in = r ? pdr_info(r) : NULL;

	if (in && in->unterminated)
		fprintf(stderr, "%s: %s: data size is 0: the recording was not properly terminated (its "
			"writer was killed?); read %llu bytes up to the end of the file%s%llu%s\n", prog,
			path, (unsigned long long)(in->data_size - in->unterminated_tail),
			in->unterminated_tail ? ", leaving out the last " : "",
			(unsigned long long)in->unterminated_tail,
			in->unterminated_tail ? " bytes (an incomplete record)" : "");
	pdr_close(r);
}

