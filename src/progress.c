/* SPDX-License-Identifier: MIT */
/* progress.c - the status line of a long live run (see progress.h). */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "progress.h"

void progress_init(struct progress *p, FILE *f, int mode, uint64_t start_ns, uint64_t duration_ns,
		   const char *what)
{
	bool on = mode > 0 || (mode == PROGRESS_AUTO && f && isatty(fileno(f)));

	*p = (struct progress){ .f = on ? f : NULL, .start_ns = start_ns, .duration_ns = duration_ns,
				.next_ns = start_ns, .what = what };
}

bool progress_on(const struct progress *p)
{
	return p->f != NULL;
}

void progress_format(char *buf, size_t len, uint64_t elapsed_ns, uint64_t duration_ns,
		     uint64_t events, const char *what, uint64_t lost)
{
	uint64_t el_s = elapsed_ns / 1000000000ULL;

	if (!len)
		return;
	if (duration_ns)
		snprintf(buf, len, "%" PRIu64 " s of %" PRIu64 " s, %" PRIu64 " %s, %" PRIu64 " lost",
			 el_s, (uint64_t)((duration_ns + 999999999ULL) / 1000000000ULL), events, what, lost);
	else
		snprintf(buf, len, "%" PRIu64 " s, %" PRIu64 " %s, %" PRIu64 " lost", el_s, events, what,
			 lost);
}

void progress_update(struct progress *p, uint64_t now_ns, uint64_t events, uint64_t lost)
{
	char line[160];

	if (!p->f || now_ns < p->next_ns)
		return;
	p->next_ns = now_ns + PROGRESS_PERIOD_NS;
	progress_format(line, sizeof(line), now_ns > p->start_ns ? now_ns - p->start_ns : 0,
			p->duration_ns, events, p->what ? p->what : "events", lost);
	/* a failed write to stderr is not an error of the run */
	fprintf(p->f, "\r\033[K%s", line);
	fflush(p->f);
	p->drawn = true;
}

void progress_clear(struct progress *p)
{
	if (!p->f || !p->drawn)
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->drawn = false;
}
