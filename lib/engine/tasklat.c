/* SPDX-License-Identifier: MIT */
/* tasklat.c - wakeup latency per task, bounded (see tasklat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/tasklat.h"

#define SUB_BITS 4
#define SUB (1u << SUB_BITS)		/* sub-buckets per power of two */
#define E_MAX 40			/* values of 2^41 ns and more share the last bucket */
#define NB (SUB + (E_MAX - SUB_BITS) * SUB + SUB)

struct task {
	int32_t pid;
	char comm[TASKLAT_COMM_LEN];
	uint64_t count, total_ns, max_ns, max_time_ns;
	uint32_t b[NB];			/* saturating */
};

struct tasklat {
	struct task *t;			/* slots of them; used in use */
	int32_t *idx;			/* pid hash: slot index or -1; mask + 1 entries */
	uint32_t mask;
	struct tasklat_stats st;
};

uint32_t tasklat_bucket(uint64_t v)
{
	if (v < SUB)
		return (uint32_t)v;
	int e = 63 - __builtin_clzll(v);
	if (e > E_MAX)
		return NB - 1;
	return SUB + (uint32_t)(e - SUB_BITS) * SUB + (uint32_t)((v >> (e - SUB_BITS)) & (SUB - 1));
}

uint64_t tasklat_bucket_hi(uint32_t b)
{
	if (b < SUB)
		return b;
	if (b >= NB)
		b = NB - 1;
	uint32_t e = (b - SUB) / SUB + SUB_BITS, sub = (b - SUB) % SUB;
	uint64_t w = 1ULL << (e - SUB_BITS);
	return ((uint64_t)(SUB + sub) << (e - SUB_BITS)) + w - 1;
}

int tasklat_new(struct tasklat **out, uint32_t slots)
{
	*out = NULL;
	if (slots < 8 || slots > TASKLAT_MAX_SLOTS)
		return -EINVAL;
	struct tasklat *tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	uint32_t n = 16;
	while (n < 2 * slots)
		n <<= 1;
	tl->t = calloc(slots, sizeof(*tl->t));
	tl->idx = malloc(n * sizeof(*tl->idx));
	if (!tl->t || !tl->idx) {
		tasklat_free(tl);
		return -ENOMEM;
	}
	memset(tl->idx, 0xff, n * sizeof(*tl->idx));
	tl->mask = n - 1;
	tl->st.slots = slots;
	*out = tl;
	return 0;
}

void tasklat_free(struct tasklat *tl)
{
	if (!tl)
		return;
	free(tl->t);
	free(tl->idx);
	free(tl);
}

static uint32_t hash(int32_t pid)
{
	return (uint32_t)pid * 2654435761u;
}

/* the hash position holding pid, or the empty one where it would go */
static uint32_t find(const struct tasklat *tl, int32_t pid)
{
	uint32_t h = hash(pid) & tl->mask;
	while (tl->idx[h] >= 0 && tl->t[tl->idx[h]].pid != pid)
		h = (h + 1) & tl->mask;
	return h;
}

/* remove the entry at hash position h, closing the gap (linear probing) */
static void unlink_at(struct tasklat *tl, uint32_t h)
{
	uint32_t j = h;
	tl->idx[h] = -1;
	for (;;) {
		j = (j + 1) & tl->mask;
		if (tl->idx[j] < 0)
			return;
		uint32_t home = hash(tl->t[tl->idx[j]].pid) & tl->mask;
		/* move j back to h when its home is not cyclically in (h, j] */
		if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
			tl->idx[h] = tl->idx[j];
			tl->idx[j] = -1;
			h = j;
		}
	}
}

static void set_comm(struct task *t, const char *comm)
{
	if (!comm)
		return;
	size_t n = strnlen(comm, TASKLAT_COMM_LEN - 1);
	memcpy(t->comm, comm, n);
	t->comm[n] = '\0';
}

int tasklat_add(struct tasklat *tl, int32_t pid, const char *comm, int64_t lat_ns, uint64_t time_ns)
{
	if (pid < 0) {
		tl->st.no_task++;
		return -EINVAL;
	}
	uint64_t v = lat_ns < 0 ? 0 : (uint64_t)lat_ns;
	uint32_t h = find(tl, pid);
	int32_t s = tl->idx[h];
	if (s < 0) {
		if (tl->st.used < tl->st.slots) {
			s = (int32_t)tl->st.used++;
		} else {
			/* full: the task with the smallest max gives way to a worse sample */
			uint32_t low = 0;
			for (uint32_t i = 1; i < tl->st.slots; i++)
				if (tl->t[i].max_ns < tl->t[low].max_ns)
					low = i;
			if (v <= tl->t[low].max_ns) {
				tl->st.dropped++;
				return 1;
			}
			tl->st.evicted++;
			tl->st.evicted_samples += tl->t[low].count;
			unlink_at(tl, find(tl, tl->t[low].pid));
			s = (int32_t)low;
			h = find(tl, pid);	/* the unlink may have moved the probe chain */
		}
		memset(&tl->t[s], 0, sizeof(tl->t[s]));
		tl->t[s].pid = pid;
		tl->idx[h] = s;
	}
	struct task *t = &tl->t[s];
	set_comm(t, comm);
	t->count++;
	t->total_ns = t->total_ns > UINT64_MAX - v ? UINT64_MAX : t->total_ns + v;
	if (t->count == 1 || v > t->max_ns) {
		t->max_ns = v;
		t->max_time_ns = time_ns;
	}
	uint32_t b = tasklat_bucket(v);
	if (t->b[b] != UINT32_MAX)
		t->b[b]++;
	tl->st.samples++;
	return 0;
}

void tasklat_observe(void *arg, const struct latency_sample *s)
{
	if (s->type != HSET_WAKEUP && s->type != HSET_WAKEUP_SHAREDPRIO)
		return;
	tasklat_add(arg, s->pid, s->comm, s->latency_ns, s->time_ns);
}

/* nearest rank of pct_x100 (5000 = p50) among the task's samples */
static uint64_t pct(const struct task *t, uint64_t pct_x100)
{
	uint64_t rank = (t->count * pct_x100 + 9999) / 10000, seen = 0;
	if (!rank)
		rank = 1;
	for (uint32_t b = 0; b < NB; b++) {
		seen += t->b[b];
		if (seen >= rank) {
			uint64_t hi = tasklat_bucket_hi(b);
			return hi < t->max_ns ? hi : t->max_ns;
		}
	}
	return t->max_ns;	/* saturated buckets */
}

static int by_max(const void *a, const void *b)
{
	const struct tasklat_row *x = a, *y = b;
	if (x->max_ns != y->max_ns)
		return x->max_ns < y->max_ns ? 1 : -1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int by_total(const void *a, const void *b)
{
	const struct tasklat_row *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->max_ns != y->max_ns)
		return x->max_ns < y->max_ns ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

size_t tasklat_rows(const struct tasklat *tl, struct tasklat_row *rows, size_t max,
		    enum tasklat_sort by)
{
	uint32_t n = tl->st.used;
	struct tasklat_row *all = n ? calloc(n, sizeof(*all)) : NULL;
	if (!all)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct task *t = &tl->t[i];
		struct tasklat_row *r = &all[i];
		r->pid = t->pid;
		memcpy(r->comm, t->comm, sizeof(r->comm));
		r->count = t->count;
		r->total_ns = t->total_ns;
		r->max_ns = t->max_ns;
		r->max_time_ns = t->max_time_ns;
		r->p50_ns = pct(t, 5000);
		r->p99_ns = pct(t, 9900);
	}
	qsort(all, n, sizeof(*all), by == TASKLAT_BY_TOTAL ? by_total : by_max);
	size_t k = n < max ? n : max;
	memcpy(rows, all, k * sizeof(*rows));
	free(all);
	return k;
}

const struct tasklat_stats *tasklat_stats(const struct tasklat *tl)
{
	return &tl->st;
}
