/* SPDX-License-Identifier: MIT */
/*
 * ppccheck - compare compiled print formats (lib/printfmt) with libtraceevent
 * on every tracepoint sample of a perf.data file.
 *
 *   ppccheck FILE [MUTATIONS]
 *
 * Every sample's payload is printed both ways and the texts compared; with
 * MUTATIONS > 0, that many copies of each payload with random bytes changed
 * (common_type kept) are compared too.  Kernel symbols come from the
 * made-up resolver of tests/ppcoracle.h.  Prints which events compiled,
 * which fell back and why, and the counts; exits 1 on any difference (the
 * first few are shown).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/pdread.h"
#include "../ppcoracle.h"

struct ent {
	int id;
	struct printfmt_prog *pg;
	char why[160];
	uint64_t samples;
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ppccheck FILE [MUTATIONS]\n");
		return 2;
	}
	int muts = argc > 2 ? atoi(argv[2]) : 0;
	struct pdread *r;
	struct pdread_opts o = { .unordered = true };
	if (pdread_open(&r, argv[1], &o)) {
		fprintf(stderr, "ppccheck: %s\n", pdread_strerror(r));
		pdread_close(r);
		return 2;
	}
	struct tep_handle *tep = NULL;	/* pipe mode: comes with the stream */
	struct ppco oc;
	static struct ent ents[512];
	size_t nents = 0;
	uint8_t *mut = malloc(1 << 16);
	unsigned seed = 12345;
	int bad = 0;
	struct pdread_event ev;
	while (pdread_next(r, &ev) > 0 && mut) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE || !ev.has_sample || !ev.evsel || !ev.evsel->tp || !ev.sample.raw)
			continue;
		struct tep_event *te = ev.evsel->tp;
		if (!tep) {
			tep = pdread_tep(r);
			ppco_init(&oc, tep);
		}
		struct ent *e = NULL;
		for (size_t i = 0; i < nents; i++)
			if (ents[i].id == te->id)
				e = &ents[i];
		if (!e) {
			if (nents == 512)
				continue;
			e = &ents[nents++];
			e->id = te->id;
			if (printfmt_compile(te, &e->pg, e->why, sizeof(e->why)))
				e->pg = NULL;
		}
		e->samples++;
		for (int m = 0; e->pg && m <= muts; m++) {
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
			int rc = ppco_check(&oc, tep, e->pg, raw, size, stdout, 8);
			if (rc < 0)
				printf("OVERRUN in %s:%s\n", te->system, te->name);
			if (rc)
				bad = 1;
		}
	}
	for (size_t i = 0; i < nents; i++) {
		struct tep_event *te = tep_find_event(tep, ents[i].id);	/* tep is set when nents > 0 */
		printf("%-40s %8" PRIu64 " samples  %s%s\n", te ? te->name : "?", ents[i].samples,
		       ents[i].pg ? "compiled" : "libtraceevent: ", ents[i].pg ? "" : ents[i].why);
		printfmt_free(ents[i].pg);
	}
	if (tep) {
		printf("compared %" PRIu64 " payloads (%" PRIu64 " declined at run time), %" PRIu64 " differ\n",
		       oc.compared, oc.fallbacks, oc.diffs);
		ppco_done(&oc, tep);
	}
	free(mut);
	pdread_close(r);
	return bad;
}
