/* SPDX-License-Identifier: MIT */
/*
 * ppccheck - compare compiled print formats (lib/ppcomp) with libtraceevent
 * on every tracepoint sample of a perf.data file.
 *
 *   ppccheck FILE [MUTATIONS]
 *
 * Every sample's payload is printed both ways and the texts compared; with
 * MUTATIONS > 0, that many copies of each payload with random bytes changed
 * (common_type kept) are compared too.  Kernel symbols come from a made-up
 * resolver given to both (addresses with bit 4 clear resolve to
 * "fn_<start>" starting at the address rounded down to 256).  Prints which
 * events compiled, which fell back and why, and the counts; exits 1 on any
 * difference (the first few are shown).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "pdread.h"
#include "ppcomp.h"

static char names[64][40];
static unsigned nnames;

static char *fake_resolver(void *priv, unsigned long long *addrp, char **modp)
{
	(void)priv;
	(void)modp;
	if (*addrp & 16)
		return NULL;
	*addrp &= ~0xffull;
	char *n = names[nnames++ % 64];
	snprintf(n, sizeof(names[0]), "fn_%llx", *addrp);
	return n;
}

static size_t fake_sym(void *ctx, uint64_t addr, bool with_offset, char *out)
{
	(void)ctx;
	if (addr & 16)
		return (size_t)sprintf(out, "0x%" PRIx64, addr);
	uint64_t start = addr & ~0xffull;
	if (with_offset)
		return (size_t)sprintf(out, "fn_%" PRIx64 "+0x%" PRIx64, start, addr - start);
	return (size_t)sprintf(out, "fn_%" PRIx64, start);
}

struct ent {
	int id;
	struct ppc_prog *pg;
	char why[160];
	uint64_t samples, fallbacks;
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ppccheck FILE [MUTATIONS]\n");
		return 2;
	}
	int muts = argc > 2 ? atoi(argv[2]) : 0;
	struct pdr *r;
	struct pdr_opts o = { .unordered = true };
	if (pdr_open(&r, argv[1], &o)) {
		fprintf(stderr, "ppccheck: %s\n", pdr_strerror(r));
		return 2;
	}
	struct tep_handle *tep = NULL;	/* pipe mode: comes with the stream */
	struct ppc_symcb cb = { fake_sym, NULL };
	struct ent ents[512];
	size_t nents = 0;
	struct trace_seq seq;
	trace_seq_init(&seq);
	char *buf = malloc(1 << 20);
	uint8_t *mut = malloc(1 << 16);
	uint64_t compared = 0, diffs = 0;
	unsigned seed = 12345;
	struct pdr_event ev;
	while (pdr_next(r, &ev) > 0) {
		if (ev.type != PDF_RECORD_SAMPLE || !ev.has_sample || !ev.evsel || !ev.evsel->tp || !ev.sample.raw)
			continue;
		struct tep_event *te = ev.evsel->tp;
		if (!tep) {
			tep = pdr_tep(r);
			tep_set_function_resolver(tep, fake_resolver, NULL);
		}
		struct ent *e = NULL;
		for (size_t i = 0; i < nents; i++)
			if (ents[i].id == te->id)
				e = &ents[i];
		if (!e) {
			if (nents == 512)
				continue;
			e = &ents[nents++];
			memset(e, 0, sizeof(*e));
			e->id = te->id;
			if (ppc_compile(te, &e->pg, e->why, sizeof(e->why)))
				e->pg = NULL;
		}
		e->samples++;
		if (!e->pg)
			continue;
		for (int m = 0; m <= muts; m++) {
			const uint8_t *raw = ev.sample.raw;
			uint32_t size = ev.sample.raw_size;
			if (m) {
				if (size > (1 << 16))
					break;
				memcpy(mut, raw, size);
				for (int k = 0; k < 1 + (int)(rand_r(&seed) % 4); k++) {
					uint32_t at = rand_r(&seed) % size;
					if (at >= 8)
						mut[at] = (uint8_t)(rand_r(&seed) % 3 == 0 ? 0 : rand_r(&seed));
				}
				raw = mut;
			}
			int n = ppc_run(e->pg, raw, size, buf, &cb);
			if (n == PPC_FALLBACK) {
				e->fallbacks++;
				continue;
			}
			if ((size_t)n > ppc_max_len(e->pg, size)) {
				printf("OVERRUN %s:%s %d > %zu\n", te->system, te->name, n, ppc_max_len(e->pg, size));
				diffs++;
			}
			struct tep_record rec;
			memset(&rec, 0, sizeof(rec));
			rec.size = (int)size;
			rec.data = (void *)raw;
			rec.cpu = (int)ev.sample.cpu;
			trace_seq_reset(&seq);
			tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
			compared++;
			if ((size_t)n != seq.len || memcmp(buf, seq.buffer, (size_t)n)) {
				if (diffs++ < 8)
					printf("DIFF %s:%s%s\n  tep: %.*s\n  ppc: %.*s\n", te->system, te->name,
					       m ? " (mutated)" : "", (int)seq.len, seq.buffer, n, buf);
			}
		}
	}
	for (size_t i = 0; i < nents; i++) {
		struct tep_event *te = tep_find_event(tep, ents[i].id);	/* tep is set when nents > 0 */
		printf("%-40s %8" PRIu64 " samples  %s%s  %" PRIu64 " payloads fell back\n",
		       te ? te->name : "?", ents[i].samples, ents[i].pg ? "compiled" : "libtraceevent: ",
		       ents[i].pg ? "" : ents[i].why, ents[i].fallbacks);
		ppc_free(ents[i].pg);
	}
	printf("compared %" PRIu64 " payloads, %" PRIu64 " differ\n", compared, diffs);
	trace_seq_destroy(&seq);
	free(buf);
	free(mut);
	pdr_close(r);
	return diffs ? 1 : 0;
}
