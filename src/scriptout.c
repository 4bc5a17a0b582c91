/* SPDX-License-Identifier: MIT */
/* scriptout.c - the buffered text output of script and dtl script (scriptout.h). */
#include "scriptout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdio.h"

/* pdprint_emit's writer: stdout (errors are seen by ferror/cmdio_finish). */
static int emit_stdout(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	if (fwrite_unlocked(s, 1, n, stdout) != n)
		cmdio_note_error();
	return 0;
}

/* Large files are read with read(2) into reused blocks: faulting a mapping
 * in costs several times the copy on VMs.  Small ones are mapped: then no
 * fresh memory is needed for them at all, which wins below a few MB
 * (docs/script.md). */
bool scriptout_no_map(const char *input)
{
	struct stat st;

	return strcmp(input, "-") && stat(input, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (8 << 20);
}

/*
 * Lines are formatted straight into an output buffer and written in 256 KiB
 * chunks (more than stdout's buffer: written through): fresh memory is
 * expensive on VMs, and a chunk this size amortises the write calls.  While
 * symbols wait to be resolved the text is held, up to SCRIPTOUT_HOLD, so
 * that one pass over kallsyms serves them all (only the pages used are
 * touched).  Into a pipe, a 1 MiB pipe buffer (where the system allows it)
 * saves most of the switches between writer and reader: 0.15 -> 0.12 s
 * through `| cat` on the shared recording.
 */
int scriptout_init(struct scriptout *so, struct pdprint *p)
{
	struct stat st;

	*so = (struct scriptout){ .p = p };
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 4 * SCRIPTOUT_CHUNK);
	so->ob = malloc(SCRIPTOUT_HOLD);
	if (!so->ob)
		return -ENOMEM;
	/* small pieces (text around deferred symbols) are gathered here */
	static char sbuf[64 << 10];
	setvbuf(stdout, sbuf, _IOFBF, sizeof(sbuf));
	return 0;
}

/* Only sampling lines and callchains can be refused (the tracepoint path
 * never asks). */
static bool refused(struct pdprint *p, const struct pdread_event *ev)
{
	return (!ev->evsel || !ev->evsel->tp || ev->sample.callchain) && pdprint_refusal(p);
}

bool scriptout_sample(struct scriptout *so, const struct pdread_event *ev)
{
	struct pdprint *p = so->p;
	size_t lim = pdprint_symbols_pending(p) ? SCRIPTOUT_HOLD : SCRIPTOUT_CHUNK;
	size_t n = so->ol < lim ? pdprint_format(p, ev, so->ob + so->ol, lim - so->ol) : SIZE_MAX;

	if (n != SIZE_MAX && refused(p, ev))
		return false;
	if (n < lim - so->ol) {
		so->ol += n;
		return true;
	}
	if (so->ol) {
		scriptout_flush(so);
		n = pdprint_format(p, ev, so->ob, SCRIPTOUT_CHUNK);
		if (refused(p, ev))
			return false;
		if (n < SCRIPTOUT_CHUNK) {
			so->ol = n;
			return true;
		}
	}
	if (n + 1 > so->bigcap) {
		char *nb = realloc(so->big, n + 1);
		if (!nb)
			return true;
		so->big = nb;
		so->bigcap = n + 1;
	}
	pdprint_format(p, ev, so->big, so->bigcap);
	if (refused(p, ev))
		return false;
	pdprint_emit(p, so->big, n, emit_stdout, NULL);
	return true;
}

void scriptout_flush(struct scriptout *so)
{
	pdprint_emit(so->p, so->ob, so->ol, emit_stdout, NULL);
	so->ol = 0;
}

void scriptout_free(struct scriptout *so)
{
	free(so->ob);
	free(so->big);
	so->ob = so->big = NULL;
}
