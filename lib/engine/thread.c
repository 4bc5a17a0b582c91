/* SPDX-License-Identifier: MIT */
#include "engine/thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct thread {
	int32_t tid;
	int32_t pid;
	bool used;
	bool comm_set;
	char comm[THREAD_COMM_LEN];
};

struct thread_table {
	struct thread *slots;
	size_t cap, used;
	uint64_t gen;		/* bumped when slots move */
};

static size_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

struct thread_table *thread_new(void)
{
	struct thread_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cap = 1024;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void thread_free(struct thread_table *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

static struct thread *lookup(struct thread_table *t, int32_t tid)
{
	size_t m = t->cap - 1;
	for (size_t h = hash32((uint32_t)tid) & m;; h = (h + 1) & m) {
		struct thread *s = &t->slots[h];
		if (!s->used)
			return NULL;
		if (s->tid == tid)
			return s;
	}
}

static int grow(struct thread_table *t)
{
	size_t ncap = t->cap * 2;
	struct thread *n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].used)
			continue;
		size_t h = hash32((uint32_t)t->slots[i].tid) & (ncap - 1);
		while (n[h].used)
			h = (h + 1) & (ncap - 1);
		n[h] = t->slots[i];
	}
	free(t->slots);
	t->slots = n;
	t->cap = ncap;
	t->gen++;
	return 0;
}

uint64_t thread_generation(const struct thread_table *t)
{
	return t->gen;
}

static struct thread *findnew(struct thread_table *t, int32_t pid, int32_t tid)
{
	struct thread *s = lookup(t, tid);
	if (s) {
		if (s->pid == -1 && pid != -1)
			s->pid = pid;
		return s;
	}
	if ((t->used + 1) * 4 > t->cap * 3 && grow(t))
		return NULL;
	size_t m = t->cap - 1;
	size_t h = hash32((uint32_t)tid) & m;
	while (t->slots[h].used)
		h = (h + 1) & m;
	s = &t->slots[h];
	s->used = true;
	s->tid = tid;
	s->pid = pid;
	s->comm_set = false;
	if (tid == 0) {
		snprintf(s->comm, sizeof(s->comm), "swapper");
		s->comm_set = true;
	} else {
		snprintf(s->comm, sizeof(s->comm), ":%d", tid);
	}
	t->used++;
	return s;
}

int thread_set_comm(struct thread_table *t, int32_t pid, int32_t tid, const char *comm)
{
	struct thread *s = findnew(t, pid, tid);
	if (!s)
		return -ENOMEM;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->comm_set = true;
	return 0;
}

int thread_fork(struct thread_table *t, int32_t ppid, int32_t ptid, int32_t pid, int32_t tid)
{
	struct thread *parent = findnew(t, ppid, ptid);
	if (!parent)
		return -ENOMEM;
	bool set = parent->comm_set;
	char comm[THREAD_COMM_LEN];
	memcpy(comm, parent->comm, sizeof(comm));
	struct thread *c = lookup(t, tid);
	if (c) {
		/* tid reused: the old thread is gone */
		c->pid = pid;
		c->comm_set = false;
		snprintf(c->comm, sizeof(c->comm), ":%d", tid);
	} else {
		c = findnew(t, pid, tid);
		if (!c)
			return -ENOMEM;
	}
	if (set) {
		memcpy(c->comm, comm, sizeof(comm));
		c->comm_set = true;
	}
	return 0;
}

const char *thread_comm(struct thread_table *t, int32_t pid, int32_t tid)
{
	struct thread *s = findnew(t, pid, tid);
	return s ? s->comm : ":?";
}

int32_t thread_pid(struct thread_table *t, int32_t tid)
{
	struct thread *s = lookup(t, tid);
	return s ? s->pid : -1;
}
