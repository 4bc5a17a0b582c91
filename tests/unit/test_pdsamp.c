/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the sampling-event lines of `latscope script`: ELF symbol
 * lookup (lib/format/elfsym, on this test binary itself), the per-process
 * maps from MMAP2 and FORK records, callchain decoding (context markers,
 * kernel through a kallsyms file, user map-relative, unmapped [unknown]),
 * refusals (guest addresses, unprinted sample fields) and hostile
 * callchain lengths.  Files are built with lib/pdwrite into memfds.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/bytes.h"
#include "format/elfsym.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "print/pdprint.h"

/* The function the lookups look for. */
__attribute__((noinline, used)) int pdsamp_probe_fn(int x);
__attribute__((noinline, used)) int pdsamp_probe_fn(int x)
{
	return x * 3 + 1;
}

/* Where this binary's text holding addr is mapped: start, pgoff, path. */
static void self_map(uint64_t addr, uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perm[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perm, &off, &pos) < 4)
			continue;
		if (addr < s || addr >= e)
			continue;
		char *p = line + pos;
		while (*p == ' ')
			p++;
		p[strcspn(p, "\n")] = '\0';
		snprintf(path, len, "%s", p);
		*start = s;
		*end = e;
		*pgoff = off;
		found = true;
	}
	fclose(f);
	assert_true(found);
}

static void test_elfsym_self(void **state)
{
	(void)state;
	uint64_t fn = (uint64_t)(uintptr_t)&pdsamp_probe_fn, start, end, pgoff;
	char path[4096];
	self_map(fn, &start, &end, &pgoff, path, sizeof(path));
	struct elfsym *t = NULL;
	assert_int_equal(elfsym_load(&t, path, NULL, NULL, NULL), 0);
	assert_true(elfsym_count(t) > 10);
	struct elfsym_hit h;
	uint64_t off = fn - start + pgoff;
	assert_true(elfsym_lookup(t, off, &h));
	assert_string_equal(h.name, "pdsamp_probe_fn");
	assert_int_equal(h.offset, 0);
	assert_true(elfsym_lookup(t, off + 3, &h));
	assert_string_equal(h.name, "pdsamp_probe_fn");
	assert_int_equal(h.offset, 3);
	assert_false(elfsym_lookup(t, 0, &h) && !strcmp(h.name, "pdsamp_probe_fn"));
	elfsym_free(t);
	/* a build-id that is not the file's: the file is not used */
	assert_int_equal(elfsym_load(&t, path, "00112233445566778899aabbccddeeff00112233", NULL, NULL), -ENOENT);
	assert_null(t);
}

static void test_elfsym_not_elf(void **state)
{
	(void)state;
	char p[] = "/tmp/pdsamp-XXXXXX";
	int fd = mkstemp(p);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file at all\n", 23), 23);
	close(fd);
	struct elfsym *t = (struct elfsym *)1;
	assert_int_equal(elfsym_load(&t, p, NULL, NULL, NULL), -ENOENT);
	assert_null(t);
	unlink(p);
	/* a FIFO: refused at once, never blocks */
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(elfsym_load(&t, p, NULL, NULL, NULL), -ENOENT);
	unlink(p);
	assert_int_equal(elfsym_load(&t, "/nonexistent/lib.so", NULL, NULL, NULL), -ENOENT);
	/* garbage in memory */
	static const uint8_t junk[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	int rc = elfsym_load_mem(&t, junk, sizeof(junk));
	assert_true(rc < 0 || elfsym_count(t) == 0);
	elfsym_free(t);
}

#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)
#define CTX_GUEST ((uint64_t)-2048)

struct rec {
	struct pdwrite *w;
	int fd;
	uint8_t *img;
	size_t len;
};

static void rec_open(struct rec *r, uint64_t sample_type)
{
	r->fd = memfd_create("pdsamp", MFD_CLOEXEC);
	assert_true(r->fd >= 0);
	assert_int_equal(pdwrite_open_fd(&r->w, r->fd, false, NULL), 0);
	struct pdformat_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PDFORMAT_TYPE_SOFTWARE;
	a.config = 0;	/* cpu-clock */
	a.sample_period = 250000;
	a.sample_type = sample_type;
	a.flags = 1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL;
	uint64_t id = 7;
	assert_int_equal(pdwrite_add_evsel(r->w, &a, "cpu-clock", &id, 1), 0);
	assert_int_equal(pdwrite_begin_data(r->w), 0);
}

static void rec_close(struct rec *r)
{
	assert_int_equal(pdwrite_close(r->w), 0);
	struct stat st;
	assert_int_equal(fstat(r->fd, &st), 0);
	r->len = (size_t)st.st_size;
	r->img = malloc(r->len);
	assert_non_null(r->img);
	assert_int_equal(pread(r->fd, r->img, r->len, 0), (ssize_t)r->len);
	close(r->fd);
}

static void trailer(struct pdread_sample *s, uint32_t pid, uint64_t t)
{
	memset(s, 0, sizeof(*s));
	s->id = 7;
	s->pid = s->tid = pid;
	s->time = t;
	s->cpu = 1;
}

static void rec_comm(struct rec *r, uint32_t pid, const char *comm)
{
	uint8_t body[32] = { 0 };
	bytes_st32(body, pid, false);
	bytes_st32(body + 4, pid, false);
	snprintf((char *)body + 8, 16, "%s", comm);
	struct pdread_sample s;
	trailer(&s, pid, 1);
	assert_int_equal(pdwrite_write_with_trailer(r->w, 0, PDFORMAT_RECORD_COMM, 0, body, 24, &s), 0);
}

static void rec_mmap2(struct rec *r, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const char *path)
{
	uint8_t body[64 + 4096] = { 0 };
	bytes_st32(body, pid, false);
	bytes_st32(body + 4, pid, false);
	bytes_st64(body + 8, start, false);
	bytes_st64(body + 16, len, false);
	bytes_st64(body + 24, pgoff, false);
	bytes_st32(body + 56, 5, false);	/* prot r-x */
	size_t l = strlen(path) + 1;
	memcpy(body + 64, path, l);
	struct pdread_sample s;
	trailer(&s, pid, 2);
	assert_int_equal(pdwrite_write_with_trailer(r->w, 0, PDFORMAT_RECORD_MMAP2, PDFORMAT_MISC_USER, body,
						   (64 + l + 7) & ~(size_t)7, &s), 0);
}

static void rec_fork(struct rec *r, uint32_t pid, uint32_t ppid)
{
	uint8_t body[24] = { 0 };
	bytes_st32(body, pid, false);
	bytes_st32(body + 4, ppid, false);
	bytes_st32(body + 8, pid, false);
	bytes_st32(body + 12, ppid, false);
	bytes_st64(body + 16, 3, false);
	struct pdread_sample s;
	trailer(&s, pid, 3);
	assert_int_equal(pdwrite_write_with_trailer(r->w, 0, PDFORMAT_RECORD_FORK, 0, body, 24, &s), 0);
}

static void rec_sample(struct rec *r, uint32_t pid, uint64_t t, uint16_t misc, uint64_t ip, const uint64_t *chain,
		       size_t n)
{
	struct pdread_sample s;
	trailer(&s, pid, t);
	s.ip = ip;
	s.period = 250000;
	s.callchain_nr = n;
	s.callchain = (const uint8_t *)chain;	/* host order = file order (little-endian file) */
	assert_int_equal(pdwrite_write_sample(r->w, 0, misc, &s), 0);
}

/* Print every sample of the image into out; the refusal (or NULL) returned. */
static const char *print_all(const struct rec *r, const char *kallsyms, char *out, size_t len, char *why,
			     size_t wlen)
{
	struct pdread *rd;
	assert_int_equal(pdread_open_mem(&rd, r->img, r->len, NULL), 0);
	struct pdprint_opts po = { .kallsyms = kallsyms };
	struct pdprint *p = pdprint_new(rd, &po);
	assert_non_null(p);
	static char refusal[256];
	refusal[0] = '\0';
	why[0] = '\0';
	if (pdprint_unsupported(p, why, wlen)) {
		pdprint_free(p);
		pdread_close(rd);
		return NULL;
	}
	struct pdread_event ev;
	size_t used = 0;
	out[0] = '\0';
	while (pdread_next(rd, &ev) > 0) {
		if (ev.type != PDFORMAT_RECORD_SAMPLE) {
			pdprint_track(p, &ev);
			continue;
		}
		size_t n = pdprint_format(p, &ev, out + used, len - used);
		assert_true(n < len - used);
		used += n;
		if (pdprint_refusal(p)) {
			snprintf(refusal, sizeof(refusal), "%s", pdprint_refusal(p));
			break;
		}
	}
	pdprint_free(p);
	pdread_close(rd);
	return refusal[0] ? refusal : NULL;
}

static char *kallsyms_file(void)
{
	static char p[32];
	snprintf(p, sizeof(p), "/tmp/pdsamp-ks-XXXXXX");
	int fd = mkstemp(p);
	assert_true(fd >= 0);
	const char *text = "ffffffff81000000 T _stext\nffffffff81000100 T kfunc\nffffffff81000200 T kother\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return p;
}

#define ST_BASE (PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | \
		 PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_PERIOD)

static void test_callchain_and_maps(void **state)
{
	(void)state;
	uint64_t fn = (uint64_t)(uintptr_t)&pdsamp_probe_fn, start, end, pgoff;
	char path[4096];
	self_map(fn, &start, &end, &pgoff, path, sizeof(path));
	uint64_t off = fn - start + pgoff;
	char *ks = kallsyms_file();
	struct rec r;
	rec_open(&r, ST_BASE | PDFORMAT_SAMPLE_CALLCHAIN);
	rec_comm(&r, 42, "probe");
	rec_mmap2(&r, 42, start, end - start, pgoff, path);
	rec_fork(&r, 43, 42);	/* the child inherits the maps */
	uint64_t chain[] = { CTX_KERNEL, 0xffffffff81000110ull, CTX_USER, fn + 2, 0x1000 };
	rec_sample(&r, 42, 1000000000ull, PDFORMAT_MISC_KERNEL, chain[1], chain, 5);
	rec_sample(&r, 43, 1000001000ull, PDFORMAT_MISC_USER, fn + 2, chain + 2, 3);
	uint64_t markers[] = { CTX_KERNEL, CTX_USER };
	rec_sample(&r, 42, 1000002000ull, PDFORMAT_MISC_USER, 0, markers, 2);
	rec_close(&r);
	char out[16384], why[256], want[16384];
	assert_null(print_all(&r, ks, out, sizeof(out), why, sizeof(why)));
	snprintf(want, sizeof(want),
		 "probe    42 [001]     1.000000:     250000 cpu-clock: \n"
		 "\tffffffff81000110 kfunc+0x10 ([kernel.kallsyms])\n"
		 "\t%16llx pdsamp_probe_fn+0x2 (%s)\n"
		 "\t            1000 [unknown] ([unknown])\n\n"
		 "probe    43 [001]     1.000001:     250000 cpu-clock: \n"
		 "\t%16llx pdsamp_probe_fn+0x2 (%s)\n"
		 "\t            1000 [unknown] ([unknown])\n\n"
		 "probe    42 [001]     1.000002:     250000 cpu-clock: \n\n",
		 (unsigned long long)off + 2, path, (unsigned long long)off + 2, path);
	assert_string_equal(out, want);
	/* without kallsyms, a kernel address is refused, not printed bare */
	const char *ref = print_all(&r, "", out, sizeof(out), why, sizeof(why));
	assert_non_null(ref);
	assert_non_null(strstr(ref, "kallsyms"));
	free(r.img);
	unlink(ks);
}

static void test_ip_line(void **state)
{
	(void)state;
	uint64_t fn = (uint64_t)(uintptr_t)&pdsamp_probe_fn, start, end, pgoff;
	char path[4096];
	self_map(fn, &start, &end, &pgoff, path, sizeof(path));
	char *ks = kallsyms_file();
	struct rec r;
	rec_open(&r, ST_BASE);
	rec_comm(&r, 42, "probe");
	rec_mmap2(&r, 42, start, end - start, pgoff, path);
	rec_sample(&r, 42, 5000000000ull, PDFORMAT_MISC_USER, fn, NULL, 0);
	rec_sample(&r, 42, 5000001000ull, PDFORMAT_MISC_KERNEL, 0xffffffff81000200ull, NULL, 0);
	rec_close(&r);
	char out[16384], why[256], want[16384];
	assert_null(print_all(&r, ks, out, sizeof(out), why, sizeof(why)));
	/* the ip line shows the address itself, not the map-relative one */
	snprintf(want, sizeof(want),
		 "           probe    42 [001]     5.000000:     250000 cpu-clock:  %16llx pdsamp_probe_fn+0x0 (%s)\n"
		 "           probe    42 [001]     5.000001:     250000 cpu-clock:  ffffffff81000200 kother+0x0 ([kernel.kallsyms])\n",
		 (unsigned long long)fn, path);
	assert_string_equal(out, want);
	free(r.img);
	unlink(ks);
}

static void test_refusals(void **state)
{
	(void)state;
	char out[4096], why[256];
	struct rec r;
	rec_open(&r, ST_BASE | PDFORMAT_SAMPLE_CALLCHAIN);
	uint64_t chain[] = { CTX_GUEST, 0x401000 };
	rec_sample(&r, 42, 1000, PDFORMAT_MISC_USER, 0x401000, chain, 2);
	rec_close(&r);
	const char *ref = print_all(&r, "", out, sizeof(out), why, sizeof(why));
	assert_non_null(ref);
	assert_non_null(strstr(ref, "guest"));
	free(r.img);
	/* anonymous code of a process with a JIT map file: perf names it, refused */
	const uint32_t jpid = 2000000001u;
	char jf[64];
	snprintf(jf, sizeof(jf), "/tmp/perf-%u.map", jpid);
	/* without the file: [unknown], named after it, the address itself */
	unlink(jf);
	rec_open(&r, ST_BASE | PDFORMAT_SAMPLE_CALLCHAIN);
	rec_mmap2(&r, jpid, 0x7f0000000000ull, 0x10000, 0x5000, "//anon");
	uint64_t jchain[] = { CTX_USER, 0x7f0000001010ull };
	rec_sample(&r, jpid, 2000, PDFORMAT_MISC_USER, 0x7f0000001010ull, jchain, 2);
	rec_close(&r);
	assert_null(print_all(&r, "", out, sizeof(out), why, sizeof(why)));
	char want[256];
	snprintf(want, sizeof(want), "\t    7f0000001010 [unknown] (/tmp/perf-%u.map)\n\n", jpid);
	assert_non_null(strstr(out, want));
	free(r.img);
	FILE *f = fopen(jf, "w");
	assert_non_null(f);
	fputs("7f0000001000 100 jitted_fn\n", f);
	fclose(f);
	rec_open(&r, ST_BASE);
	rec_mmap2(&r, jpid, 0x7f0000000000ull, 0x10000, 0, "//anon");
	rec_sample(&r, jpid, 2000, PDFORMAT_MISC_USER, 0x7f0000001010ull, NULL, 0);
	rec_close(&r);
	ref = print_all(&r, "", out, sizeof(out), why, sizeof(why));
	unlink(jf);
	assert_non_null(ref);
	assert_non_null(strstr(ref, "perf-PID.map"));
	free(r.img);
	/* a BPF program announced by KSYMBOL: perf names it from the record */
	char *ks = kallsyms_file();
	rec_open(&r, ST_BASE | PDFORMAT_SAMPLE_CALLCHAIN);
	uint8_t kb[48] = { 0 };
	bytes_st64(kb, 0xffffffffa0001000ull, false);
	bytes_st32(kb + 8, 0x100, false);
	bytes_st16(kb + 12, 1, false);	/* BPF */
	memcpy(kb + 16, "bpf_prog_1234_x", 16);
	struct pdread_sample ts;
	trailer(&ts, 42, 1);
	assert_int_equal(pdwrite_write_with_trailer(r.w, 0, PDFORMAT_RECORD_KSYMBOL, 0, kb, 32, &ts), 0);
	uint64_t kchain[] = { CTX_KERNEL, 0xffffffff81000110ull, 0xffffffffa0001010ull };
	rec_sample(&r, 42, 3000, PDFORMAT_MISC_KERNEL, kchain[1], kchain, 3);
	rec_close(&r);
	ref = print_all(&r, ks, out, sizeof(out), why, sizeof(why));
	assert_non_null(ref);
	assert_non_null(strstr(ref, "KSYMBOL"));
	free(r.img);
	unlink(ks);
	/* dwarf unwinding's fields: refused before any sample */
	rec_open(&r, ST_BASE | PDFORMAT_SAMPLE_REGS_USER | PDFORMAT_SAMPLE_STACK_USER);
	rec_close(&r);
	assert_null(print_all(&r, "", out, sizeof(out), why, sizeof(why)));
	assert_non_null(strstr(why, "records regs_user, stack_user (dwarf unwinding), not printed"));
	free(r.img);
}

/* A SAMPLE body (after the header) of type IP|CALLCHAIN claiming nr entries. */
static int parse_claim(uint64_t nr, size_t present)
{
	struct pdformat_attr a;
	memset(&a, 0, sizeof(a));
	a.sample_type = PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_CALLCHAIN;
	uint8_t rec[8 + 16 + 8 * 8] = { 0 };
	size_t size = 8 + 16 + 8 * present;
	bytes_st64(rec + 8, 0x401000, false);
	bytes_st64(rec + 16, nr, false);
	struct pdread_sample s;
	memset(&s, 0, sizeof(s));
	int rc = pdread_parse_sample(&a, false, rec, size, false, &s);
	if (!rc)
		assert_true(s.callchain_nr <= present && (!s.callchain_nr || s.callchain));
	return rc;
}

static void test_hostile_callchain(void **state)
{
	(void)state;
	assert_int_equal(parse_claim(3, 3), 0);
	assert_int_equal(parse_claim(0, 0), 0);
	assert_int_equal(parse_claim(4, 3), -EINVAL);	/* one more than the record holds */
	assert_int_equal(parse_claim(UINT64_MAX, 8), -EINVAL);
	assert_int_equal(parse_claim(1ull << 61, 8), -EINVAL);	/* nr * 8 wraps */
	assert_int_equal(parse_claim((uint64_t)-128, 8), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elfsym_self),
		cmocka_unit_test(test_elfsym_not_elf),
		cmocka_unit_test(test_callchain_and_maps),
		cmocka_unit_test(test_ip_line),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_hostile_callchain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
