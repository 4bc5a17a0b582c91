/* SPDX-License-Identifier: MIT */
/*
 * ppcoracle.h - libtraceevent as the oracle for compiled print formats,
 * shared by tests/tools/ppccheck.c (recordings), tests/unit/test_printfmt.c
 * and fuzz/fuzz_printfmt.c.
 *
 * Both sides get the same made-up kernel symbols: an address with bit 4
 * clear is in "fn_<start>", start being the address rounded down to 256;
 * any other address has no symbol.  ppco_init() installs that resolver in
 * the handle; ppco_check() prints one payload both ways and compares.
 */
#ifndef LATSCOPE_PPCORACLE_H
#define LATSCOPE_PPCORACLE_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "print/printfmt.h"

struct ppco {
	struct trace_seq seq;
	char *buf;		/* printfmt_run's output */
	size_t cap;
	char names[64][40];	/* the resolver's answers (the library keeps none) */
	unsigned next;
	struct printfmt_symcb cb;
	uint64_t compared, fallbacks, diffs;
};

static char *ppco_resolver(void *priv, unsigned long long *addrp, char **modp)
{
	struct ppco *o = priv;
	(void)modp;
	if (*addrp & 16)
		return NULL;
	*addrp &= ~0xffull;
	char *n = o->names[o->next++ % 64];
	snprintf(n, sizeof(o->names[0]), "fn_%llx", *addrp);
	return n;
}

static size_t ppco_sym(void *ctx, uint64_t addr, bool with_offset, char *out)
{
	(void)ctx;
	if (addr & 16)
		return (size_t)sprintf(out, "0x%" PRIx64, addr);
	uint64_t start = addr & ~0xffull;
	if (with_offset)
		return (size_t)sprintf(out, "fn_%" PRIx64 "+0x%" PRIx64, start, addr - start);
	return (size_t)sprintf(out, "fn_%" PRIx64, start);
}

static void ppco_init(struct ppco *o, struct tep_handle *tep)
{
	memset(o, 0, sizeof(*o));
	trace_seq_init(&o->seq);
	o->cb.fn = ppco_sym;
	o->cb.ctx = o;
	tep_set_function_resolver(tep, ppco_resolver, o);
}

static void ppco_done(struct ppco *o, struct tep_handle *tep)
{
	tep_reset_function_resolver(tep);
	trace_seq_destroy(&o->seq);
	free(o->buf);
}

/*
 * Print raw[0, size) with pg and with libtraceevent (tep must know the
 * event).  Returns 0 when they agree or the program declined the payload,
 * 1 on a difference (the first `show` are printed to f, when not NULL),
 * -1 when the program wrote past printfmt_max_len().
 */
static int ppco_check(struct ppco *o, struct tep_handle *tep, const struct printfmt_prog *pg, const uint8_t *raw,
		      uint32_t size, FILE *f, unsigned show)
{
	size_t need = printfmt_max_len(pg, size);
	if (need + 64 > o->cap) {
		char *nb = realloc(o->buf, need + 64);
		if (!nb)
			return 0;
		o->buf = nb;
		o->cap = need + 64;
	}
	memset(o->buf + need, 0x5a, 64);
	int n = printfmt_run(pg, raw, size, o->buf, &o->cb);
	for (size_t i = need; i < need + 64; i++)
		if (o->buf[i] != 0x5a)
			return -1;
	if (n == PRINTFMT_FALLBACK) {
		o->fallbacks++;
		return 0;
	}
	if ((size_t)n > need)
		return -1;
	struct tep_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.size = (int)size;
	rec.data = (void *)raw;
	trace_seq_reset(&o->seq);
	tep_print_event(tep, &o->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&o->seq);
	o->compared++;
	if ((size_t)n == o->seq.len && !memcmp(o->buf, o->seq.buffer, (size_t)n))
		return 0;
	if (f && o->diffs < show)
		fprintf(f, "differ:\n  libtraceevent: %.*s\n  compiled:      %.*s\n", (int)o->seq.len, o->seq.buffer,
			n, o->buf);
	o->diffs++;
	return 1;
}

#endif
