/* SPDX-License-Identifier: MIT */
/* torture FILE NTRUNC NFLIP [SEED]: hostile-input run of the reader (tests/torture.h). */
#include <signal.h>
#include <unistd.h>

#include "../torture.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: torture FILE NTRUNC NFLIP [SEED]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *img = malloc((size_t)len), *work = malloc((size_t)len);
	if (!img || !work || fread(img, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "cannot load %s\n", argv[1]);
		return 2;
	}
	fclose(f);
	struct torture_result res;
	alarm(600);	/* a hang fails the test */
	torture_run(img, work, (size_t)len, (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]),
		    argc > 4 ? strtoull(argv[4], NULL, 0) : 0x1234567ULL, 25, &res);
	printf("runs %u clean %u errors %u bad_messages %u max_queue_peak_mb %llu\n", res.runs, res.clean,
	       res.errors, res.bad_messages, (unsigned long long)(res.max_queue_peak >> 20));
	free(img);
	free(work);
	return res.bad_messages ? 1 : 0;
}
