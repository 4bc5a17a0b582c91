/* SPDX-License-Identifier: MIT */
#include "pipeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "thread.h"

#define NBATCH		4
#define BATCH_ITEMS	8192
#define BATCH_RAW	(2u << 20)

struct item {
	struct pdr_sample s;
	const struct pdr_evsel *evsel;
	uint32_t raw_off;
	char comm[THR_COMM_LEN];
};

struct batch {
	struct item *items;
	size_t n;
	uint8_t *raw;
	size_t raw_used;
	bool full;		/* handed to the formatter */
};

struct pl {
	struct pp *p;
	FILE *out;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch b[NBATCH];
	unsigned fill;		/* batch the main thread fills */
	unsigned next;		/* batch the formatter takes next */
	bool done;
	int err;
	char *buf;
	size_t cap;
};

static void format_batch(struct pl *pl, struct batch *b)
{
	struct pdr_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.type = PDF_RECORD_SAMPLE;
	ev.has_sample = true;
	size_t pos = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct item *it = &b->items[i];
		ev.sample = it->s;
		ev.sample.raw = it->s.raw ? b->raw + it->raw_off : NULL;
		ev.evsel = it->evsel;
		for (;;) {
			size_t room = pl->cap - pos;
			size_t n = pp_format_with_comm(pl->p, &ev, it->comm, pl->buf + pos, room);
			if (n < room) {
				pos += n;
				break;
			}
			size_t ncap = pl->cap * 2 + n;
			char *nb = realloc(pl->buf, ncap);
			if (!nb) {
				pl->err = -ENOMEM;
				return;
			}
			pl->buf = nb;
			pl->cap = ncap;
		}
		if (pos > (1u << 20)) {
			if (fwrite(pl->buf, 1, pos, pl->out) != pos)
				pl->err = -EIO;
			pos = 0;
		}
	}
	if (pos && fwrite(pl->buf, 1, pos, pl->out) != pos)
		pl->err = -EIO;
}

static void *worker(void *arg)
{
	struct pl *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		while (!pl->b[pl->next].full && !pl->done)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (!pl->b[pl->next].full) {
			pthread_mutex_unlock(&pl->mu);
			return NULL;
		}
		struct batch *b = &pl->b[pl->next];
		pthread_mutex_unlock(&pl->mu);
		format_batch(pl, b);
		pthread_mutex_lock(&pl->mu);
		b->full = false;
		b->n = 0;
		b->raw_used = 0;
		pl->next = (pl->next + 1) % NBATCH;
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
	}
}

struct pl *pl_new(struct pp *p, FILE *out)
{
	struct pl *pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	pl->p = p;
	pl->out = out;
	pl->cap = 4u << 20;
	pl->buf = malloc(pl->cap);
	bool ok = pl->buf != NULL;
	for (int i = 0; i < NBATCH && ok; i++) {
		pl->b[i].items = malloc(BATCH_ITEMS * sizeof(struct item));
		pl->b[i].raw = malloc(BATCH_RAW);
		ok = pl->b[i].items && pl->b[i].raw;
	}
	pp_name_width(p);	/* computed once here: the formatter must not race on it */
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->cv, NULL);
	if (!ok || pthread_create(&pl->th, NULL, worker, pl)) {
		for (int i = 0; i < NBATCH; i++) {
			free(pl->b[i].items);
			free(pl->b[i].raw);
		}
		free(pl->buf);
		free(pl);
		return NULL;
	}
	return pl;
}

static void hand_over(struct pl *pl)
{
	pthread_mutex_lock(&pl->mu);
	pl->b[pl->fill].full = true;
	pl->fill = (pl->fill + 1) % NBATCH;
	pthread_cond_broadcast(&pl->cv);
	while (pl->b[pl->fill].full)
		pthread_cond_wait(&pl->cv, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
}

int pl_push(struct pl *pl, const struct pdr_event *ev, const char *comm)
{
	struct batch *b = &pl->b[pl->fill];
	uint32_t rs = ev->sample.raw ? ev->sample.raw_size : 0;
	if (rs > BATCH_RAW)
		return -E2BIG;
	if (b->n == BATCH_ITEMS || b->raw_used + rs > BATCH_RAW) {
		hand_over(pl);
		b = &pl->b[pl->fill];
	}
	struct item *it = &b->items[b->n++];
	it->s = ev->sample;
	it->evsel = ev->evsel;
	it->raw_off = (uint32_t)b->raw_used;
	if (rs) {
		memcpy(b->raw + b->raw_used, ev->sample.raw, rs);
		b->raw_used += (rs + 7) & ~7u;
	}
	size_t l = strlen(comm);
	if (l >= sizeof(it->comm))
		l = sizeof(it->comm) - 1;
	memcpy(it->comm, comm, l);
	it->comm[l] = '\0';
	return 0;
}

int pl_finish(struct pl *pl)
{
	if (pl->b[pl->fill].n)
		hand_over(pl);
	pthread_mutex_lock(&pl->mu);
	pl->done = true;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	pthread_join(pl->th, NULL);
	int err = pl->err;
	for (int i = 0; i < NBATCH; i++) {
		free(pl->b[i].items);
		free(pl->b[i].raw);
	}
	pthread_mutex_destroy(&pl->mu);
	pthread_cond_destroy(&pl->cv);
	free(pl->buf);
	free(pl);
	return err;
}
