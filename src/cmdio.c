/* SPDX-License-Identifier: MIT */
/* cmdio.c - checked output, stop signals, broken pipes (see cmdio.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdio.h"
#include "format/pdread.h"
#include "commands.h"
#include "base/safeout.h"

static volatile sig_atomic_t stop_flag, pipe_flag, stop_sig, reader_gone;
static volatile sig_atomic_t req_sig, req_flag;	/* cmdio_request_signal() */
static int user_sigs;	/* stop requests taken; atomic: any thread may take one */

/* What an abort restores before the process ends (cmdio_on_abort_write,
 * cmdio_on_abort_call). */
#define CMDIO_ABORT_WRITES 4
static struct {
	int used;		/* atomic: the handler may run in any thread */
	char path[PATH_MAX];
	char text[64];
	size_t len;
} abort_w[CMDIO_ABORT_WRITES];
#define CMDIO_ABORT_CALLS 4
static void (*abort_c[CMDIO_ABORT_CALLS])(void);	/* atomic loads and stores */

/* The dispositions and the mask latscope was started with (cmdio_fork). */
static struct sigaction sig_old[NSIG];
static bool sig_taken[NSIG];	/* its disposition is ours now */
static sigset_t mask_old;
static bool mask_saved;

bool cmdio_is_stop_signal(int sig)
{
	switch (sig) {
	case SIGKILL: case SIGSTOP:	/* cannot be caught */
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:	/* default: ignore */
	case SIGTSTP: case SIGTTIN: case SIGTTOU:	/* default: stop */
		return false;
	}
	/* 32 and 33 are glibc's own (SIGRTMIN is above them; sigaction refuses them) */
	return sig >= 1 && sig < NSIG && (sig < 32 || (sig >= SIGRTMIN && sig <= SIGRTMAX));
}

/* The faults: raised by the instruction that runs (or abort()); returning
 * from the handler would run it again. */
static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
	       sig == SIGSYS || sig == SIGABRT;
}

/* Taken even when latscope was started with them ignored: the terminal's
 * keys (a shell starts `cmd &` with SIGINT and SIGQUIT ignored, and a script
 * stops its background run with them), SIGTERM, the broken-pipe stop and
 * the faults (ignoring those is meaningless). */
static bool taken_when_ignored(int sig)
{
	return sig == SIGINT || sig == SIGQUIT || sig == SIGTERM || sig == SIGPIPE || is_fault(sig);
}

/* The abort: async-signal-safe calls only, then die by sig (the default
 * action: a core for the faults, SIGQUIT and SIGABRT). */
static void die_now(int sig)
{
	static const struct sigaction dfl = { .sa_handler = SIG_DFL };
	safeout_unlink_temps();
	for (int i = 0; i < CMDIO_ABORT_WRITES; i++) {
		if (!__atomic_load_n(&abort_w[i].used, __ATOMIC_ACQUIRE))
			continue;
		int fd = open(abort_w[i].path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = write(fd, abort_w[i].text, abort_w[i].len);
			(void)n;
			close(fd);
		}
	}
	for (int i = 0; i < CMDIO_ABORT_CALLS; i++) {
		void (*fn)(void) = __atomic_load_n(&abort_c[i], __ATOMIC_ACQUIRE);
		if (fn)
			fn();
	}
	sigaction(sig, &dfl, NULL);
	raise(sig);	/* blocked in this handler: delivered as it returns */
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int e = errno;
	/* raised by this process: the kernel for our own write (SIGPIPE,
	 * SIGXFSZ), raise(), abort() */
	bool self = si->si_code <= 0 && si->si_pid == getpid();
	if (sig == req_sig && !is_fault(sig)) {
		req_flag = 1;		/* a request (the monitor's SIGHUP), not a stop */
		errno = e;
		return;
	}
	if (is_fault(sig) && (si->si_code > 0 || self)) {
		/* a real fault (or abort()): this process is broken */
		die_now(sig);
	} else if (self && sig == SIGPIPE) {
		pipe_flag = 1;		/* the reader of our output left */
	} else if (self && sig == SIGXFSZ) {
		;			/* a file grew too large: the write fails (EFBIG) */
	} else if (__atomic_fetch_add(&user_sigs, 1, __ATOMIC_SEQ_CST) || (stop_flag && !pipe_flag)) {
		/* a second stop request, or one while the program stops on its
		 * own (not for a closed pipe): the sender insists */
		die_now(sig);
	}
	if (!stop_sig)
		stop_sig = sig;
	stop_flag = 1;
	errno = e;
}

void cmdio_signals_install(void)
{
	struct sigaction sa, cur;
	stop_flag = pipe_flag = stop_sig = reader_gone = 0;
	req_sig = req_flag = 0;
	__atomic_store_n(&user_sigs, 0, __ATOMIC_SEQ_CST);
	if (!mask_saved)
		mask_saved = pthread_sigmask(SIG_SETMASK, NULL, &mask_old) == 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: a stop ends a blocking wait */
	/* one handler at a time in a thread (another thread may take the next) */
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (cmdio_is_stop_signal(sig))
			sigaddset(&sa.sa_mask, sig);
	for (int sig = 1; sig < NSIG; sig++) {
		if (!cmdio_is_stop_signal(sig) || sigaction(sig, NULL, &cur) < 0)
			continue;
		if (!sig_taken[sig]) {
			/* what was there before latscope (nohup's SIGHUP stays ignored) */
			sig_old[sig] = cur;
			if (cur.sa_handler == SIG_IGN && !(cur.sa_flags & SA_SIGINFO) && !taken_when_ignored(sig))
				continue;
		}
		if (sigaction(sig, &sa, NULL) == 0)
			sig_taken[sig] = true;
	}
}

void cmdio_request_signal(int sig)
{
	req_flag = 0;
	req_sig = sig;
}

bool cmdio_take_request(void)
{
	if (!req_flag)
		return false;
	req_flag = 0;
	return true;
}

pid_t cmdio_fork(void)
{
	sigset_t all, cur;
	sigfillset(&all);
	/* no handler of ours may run in the child: blocked across fork() */
	pthread_sigmask(SIG_SETMASK, &all, &cur);
	pid_t pid = fork();
	if (pid == 0) {
		for (int sig = 1; sig < NSIG; sig++)
			if (sig_taken[sig])
				sigaction(sig, &sig_old[sig], NULL);
		sigprocmask(SIG_SETMASK, mask_saved ? &mask_old : &cur, NULL);
		return 0;
	}
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &cur, NULL);
	errno = e;
	return pid;
}

int cmdio_on_abort_write(const char *path, const char *text)
{
	if (strlen(path) >= sizeof(abort_w[0].path) || strlen(text) >= sizeof(abort_w[0].text))
		return -ENAMETOOLONG;
	for (int i = 0; i < CMDIO_ABORT_WRITES; i++) {
		if (__atomic_load_n(&abort_w[i].used, __ATOMIC_ACQUIRE))
			continue;
		strcpy(abort_w[i].path, path);
		strcpy(abort_w[i].text, text);
		abort_w[i].len = strlen(text);
		__atomic_store_n(&abort_w[i].used, 1, __ATOMIC_RELEASE);
		return 0;
	}
	return -ENOSPC;
}

int cmdio_on_abort_call(void (*fn)(void))
{
	for (int i = 0; i < CMDIO_ABORT_CALLS; i++) {
		void (*none)(void) = NULL;
		if (__atomic_compare_exchange_n(&abort_c[i], &none, fn, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
	}
	return -ENOSPC;
}

void cmdio_on_abort_forget(void)
{
	for (int i = 0; i < CMDIO_ABORT_WRITES; i++)
		__atomic_store_n(&abort_w[i].used, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < CMDIO_ABORT_CALLS; i++)
		__atomic_store_n(&abort_c[i], NULL, __ATOMIC_RELEASE);
}

bool cmdio_reader_left(void)
{
	/* pipe_flag: a live run saw its reader go (SIGPIPE, cmdio_watch()) */
	return reader_gone || pipe_flag;
}

bool cmdio_stdout_gone(int err)
{
	if (err != EPIPE && !pipe_flag)
		return false;
	reader_gone = 1;
	return true;
}

void cmdio_end_reader_left(void)
{
	sigset_t m;

	/* what stdio still holds for the closed pipe goes nowhere */
	fflush(stderr);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&m);
	sigaddset(&m, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &m, NULL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

void cmdio_sigpipe_as_error(void)
{
	signal(SIGPIPE, SIG_IGN);
}

bool cmdio_stopped(void)
{
	return stop_flag != 0;
}

bool cmdio_broken_pipe(void)
{
	return pipe_flag != 0;
}

void cmdio_stop(void)
{
	stop_flag = 1;
}

int cmdio_stop_signal(void)
{
	return stop_sig;
}

bool cmdio_watch(int fd)
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

void cmdio_note_error(void)
{
	if (!noted_errno)
		noted_errno = errno ? errno : EIO;
}

int cmdio_finish(FILE *f, const char *prog, const char *what)
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
	if (f == stdout && cmdio_stdout_gone(e)) {
		/* the reader left: the quiet end (main raises SIGPIPE), as perf */
		clearerr(f);
		return EXIT_ERR;
	}
	fprintf(stderr, "%s: error writing %s: %s\n", prog, what, strerror(e));
	clearerr(f);
	return EXIT_ERR;
}

FILE *cmdio_fopen_safe(struct safeout_file **sf, int atfd, const char *path, const char *shown,
		       bool force, const char *prog)
{
	if (!shown)
		shown = path;
	*sf = NULL;
	struct safeout_refusal why;
	char msg[PATH_MAX + 160];
	int err = safeout_open(sf, atfd, path, force ? SAFEOUT_FORCE : 0, &why);
	if (err) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, shown, safeout_explain(msg, sizeof(msg), err, &why));
		return NULL;
	}
	int fd = dup(safeout_fd(*sf));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, shown, strerror(errno));
		if (fd >= 0)
			close(fd);
		safeout_abort(*sf);
		*sf = NULL;
	}
	return f;
}

int cmdio_fclose_safe(FILE *f, struct safeout_file *sf, const char *path, bool discard, const char *prog)
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
		safeout_abort(sf);
		if (bad)
			fprintf(stderr, "%s: error writing %s: %s\n", prog, path, strerror(e));
		return bad ? EXIT_ERR : 0;
	}
	int err = safeout_commit(sf);
	if (err) {
		char msg[256];
		fprintf(stderr, "%s: error writing %s: %s\n", prog, path, safeout_explain(msg, sizeof(msg), err, NULL));
		return EXIT_ERR;
	}
	return 0;
}

int cmdio_pdr_open(struct pdread **r, const char *path, const struct pdread_opts *o, const char *prog)
{
	int err = pdread_open(r, path, o);

	if (err >= 0)
		return 0;
	/* pdread's message names the file (and the offset) itself */
	if (*r && *pdread_strerror(*r))
		fprintf(stderr, "%s: %s\n", prog, pdread_strerror(*r));
	else
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(-err));
	pdread_close(*r);
	*r = NULL;
	return err;
}

void cmdio_pdr_close(struct pdread *r, const char *prog, const char *path)
{
	const struct pdread_info *in = r ? pdread_info(r) : NULL;

	char why[96] = "data size is 0";

	if (in && (in->checkpoint_size || in->checkpoint_table))
		snprintf(why, sizeof(why), "the header is a checkpoint (data size %llu%s)",
			 (unsigned long long)in->checkpoint_size, in->checkpoint_table ? "" : ", no features");
	char tail[96] = "";

	if (in && in->unterminated_tail)
		snprintf(tail, sizeof(tail), ", leaving out the last %llu bytes (an incomplete record)",
			 (unsigned long long)in->unterminated_tail);
	if (in && in->unterminated)
		fprintf(stderr, "%s: %s: %s: the recording was not properly terminated (its "
			"writer was killed?); read %llu bytes up to the end of the file%s\n", prog,
			path, why, (unsigned long long)(in->data_size - in->unterminated_tail), tail);
	if (in && in->dup_tracing_data)
		fprintf(stderr, "%s: %s: the tracing data (formats) came again %llu time%s: skipped, "
			"the first copy is used\n", prog, path, (unsigned long long)in->dup_tracing_data,
			in->dup_tracing_data == 1 ? "" : "s");
	pdread_close(r);
}

