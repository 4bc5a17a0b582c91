/* SPDX-License-Identifier: MIT */
/* firedtab.c - fired against delivered, and its perf.data section (see firedtab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/firedtab.h"

int firedtab_alloc(struct firedtab *t, size_t nr_cpu, size_t nr_ev)
{
	if (nr_cpu > FIREDTAB_MAX_CPUS || nr_ev > FIREDTAB_MAX_EVENTS)
		return -E2BIG;
	free(t->cpu);
	free(t->ev);
	t->cpu = calloc(nr_cpu ? nr_cpu : 1, sizeof(*t->cpu));
	t->ev = calloc(nr_ev ? nr_ev : 1, sizeof(*t->ev));
	t->nr_cpu = t->nr_ev = 0;
	if (!t->cpu || !t->ev) {
		firedtab_free(t);
		return -ENOMEM;
	}
	t->nr_cpu = nr_cpu;
	t->nr_ev = nr_ev;
	return 0;
}

void firedtab_free(struct firedtab *t)
{
	free(t->cpu);
	free(t->ev);
	memset(t, 0, sizeof(*t));
}

uint64_t firedtab_fired(const struct firedtab *t)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->nr_cpu; i++)
		n += t->cpu[i].fired;
	return n;
}

uint64_t firedtab_undelivered(const struct firedtab *t)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->nr_cpu; i++)
		n += t->cpu[i].undelivered;
	return n;
}

int firedtab_encode(const struct firedtab *t, bool big_endian, uint8_t **out, size_t *len)
{
	bool swap = big_endian != BYTES_HOST_BIG_ENDIAN;
	if (t->nr_cpu > FIREDTAB_MAX_CPUS || t->nr_ev > FIREDTAB_MAX_EVENTS)
		return -E2BIG;
	size_t n = FIREDTAB_FIXED + FIREDTAB_CPU_REC * t->nr_cpu + FIREDTAB_EV_REC * t->nr_ev;
	uint8_t *b = calloc(1, n);
	if (!b)
		return -ENOMEM;
	memcpy(b, FIREDTAB_MAGIC, 4);
	b[4] = big_endian ? 'B' : 'l';
	bytes_st16(b + 6, FIREDTAB_VERSION, swap);
	bytes_st32(b + 8, (uint32_t)n, swap);
	bytes_st32(b + 12, (uint32_t)t->nr_cpu, swap);
	bytes_st32(b + 16, (uint32_t)t->nr_ev, swap);
	bytes_st64(b + 24, t->throttles, swap);
	bytes_st64(b + 32, t->unthrottles, swap);
	uint8_t *p = b + FIREDTAB_FIXED;
	for (size_t i = 0; i < t->nr_cpu; i++, p += FIREDTAB_CPU_REC) {
		const struct firedtab_cpu *c = &t->cpu[i];
		bytes_st32(p, c->cpu, swap);
		bytes_st64(p + 8, c->fired, swap);
		bytes_st64(p + 16, c->samples, swap);
		bytes_st64(p + 24, c->lost, swap);
		bytes_st64(p + 32, c->undelivered, swap);
	}
	for (size_t i = 0; i < t->nr_ev; i++, p += FIREDTAB_EV_REC) {
		const struct firedtab_event *e = &t->ev[i];
		bytes_st64(p, e->config, swap);
		bytes_st32(p + 8, e->cpu, swap);
		bytes_st64(p + 16, e->fired, swap);
		bytes_st64(p + 24, e->delivered, swap);
	}
	*out = b;
	*len = n;
	return 0;
}

#define BAD(off, text) do { *bad_off = (off); *why = (text); return -EINVAL; } while (0)

int firedtab_decode(const uint8_t *p, size_t len, struct firedtab *t, size_t *bad_off, const char **why)
{
	*bad_off = 0;
	*why = "";
	if (len < FIREDTAB_FIXED)
		BAD(0, "shorter than its 40-byte header");
	if (memcmp(p, FIREDTAB_MAGIC, 4))
		BAD(0, "does not start with \"" FIREDTAB_MAGIC "\"");
	if (p[4] != 'l' && p[4] != 'B')
		BAD(4, "byte order tag is neither 'l' nor 'B'");
	if (p[5])
		BAD(5, "a reserved byte is not 0");
	bool swap = (p[4] == 'B') != BYTES_HOST_BIG_ENDIAN;
	if (bytes_ld16(p + 6, swap) != FIREDTAB_VERSION) {
		*bad_off = 6;
		*why = "a version this latscope does not read";
		return -ENOTSUP;
	}
	uint32_t size = bytes_ld32(p + 8, swap);
	uint32_t nc = bytes_ld32(p + 12, swap), ne = bytes_ld32(p + 16, swap);
	if (nc > FIREDTAB_MAX_CPUS)
		BAD(12, "more CPUs than a recording can have");
	if (ne > FIREDTAB_MAX_EVENTS)
		BAD(16, "more events than a recording can have");
	uint64_t want = FIREDTAB_FIXED + (uint64_t)FIREDTAB_CPU_REC * nc + (uint64_t)FIREDTAB_EV_REC * ne;
	if (size != want)
		BAD(8, "size field does not match its CPU and event counts");
	if (len != want)
		BAD(0, len < want ? "truncated" : "longer than its size field");
	if (bytes_ld32(p + 20, swap))
		BAD(20, "a reserved field is not 0");
	for (uint32_t i = 0; i < nc; i++)
		if (bytes_ld32(p + FIREDTAB_FIXED + FIREDTAB_CPU_REC * i + 4, swap))
			BAD(FIREDTAB_FIXED + FIREDTAB_CPU_REC * i + 4, "a CPU record's reserved field is not 0");
	for (uint32_t i = 0; i < ne; i++) {
		size_t o = FIREDTAB_FIXED + FIREDTAB_CPU_REC * (size_t)nc + FIREDTAB_EV_REC * i + 12;
		if (bytes_ld32(p + o, swap))
			BAD(o, "an event record's reserved field is not 0");
	}
	struct firedtab v = { 0 };
	int err = firedtab_alloc(&v, nc, ne);
	if (err)
		return err;
	v.counted = true;
	v.throttles = bytes_ld64(p + 24, swap);
	v.unthrottles = bytes_ld64(p + 32, swap);
	const uint8_t *q = p + FIREDTAB_FIXED;
	for (uint32_t i = 0; i < nc; i++, q += FIREDTAB_CPU_REC) {
		struct firedtab_cpu *c = &v.cpu[i];
		c->cpu = bytes_ld32(q, swap);
		c->fired = bytes_ld64(q + 8, swap);
		c->samples = bytes_ld64(q + 16, swap);
		c->lost = bytes_ld64(q + 24, swap);
		c->undelivered = bytes_ld64(q + 32, swap);
	}
	for (uint32_t i = 0; i < ne; i++, q += FIREDTAB_EV_REC) {
		struct firedtab_event *e = &v.ev[i];
		e->config = bytes_ld64(q, swap);
		e->cpu = bytes_ld32(q + 8, swap);
		e->fired = bytes_ld64(q + 16, swap);
		e->delivered = bytes_ld64(q + 24, swap);
	}
	firedtab_free(t);
	*t = v;
	return 0;
}
