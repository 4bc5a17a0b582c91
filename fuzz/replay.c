/* SPDX-License-Identifier: MIT */
/*
 * replay.c - a main for the libFuzzer targets without libFuzzer: feeds every
 * file named on the command line (directories: every regular file in them,
 * in name order) to LLVMFuzzerTestOneInput, each in a buffer of exactly its
 * size so that ASan sees any read past the end.  `make check` builds every
 * fuzz/fuzz_*.c with this and gcc's ASan+UBSan and replays fuzz/corpus/ and
 * fuzz/regress/ (fuzz/replay.sh).  Prints "N inputs"; a sanitizer report
 * aborts the run.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf || fread(buf, 1, size, f) != size) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, size);
	free(buf);
	(*n)++;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	long n = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc |= one(argv[i], &n);
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		char **names = NULL;
		size_t nn = 0;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char **nv = realloc(names, (nn + 1) * sizeof(*nv));
			if (!nv)
				return 2;
			names = nv;
			if (asprintf(&names[nn], "%s/%s", argv[i], e->d_name) < 0)
				return 2;
			nn++;
		}
		if (d)
			closedir(d);
		qsort(names, nn, sizeof(*names), cmp_name);
		for (size_t k = 0; k < nn; k++) {
			if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode))
				rc |= one(names[k], &n);
			free(names[k]);
		}
		free(names);
	}
	printf("%ld inputs\n", n);
	return rc ? 1 : 0;
}
