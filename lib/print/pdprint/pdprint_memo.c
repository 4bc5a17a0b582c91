/* SPDX-License-Identifier: MIT */
/*
 * pdprint_memo.c - the memo of libtraceevent's output (see pdprint_int.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pdprint_int.h"

static inline uint64_t memo_hash(const uint8_t *k, size_t n, int32_t id)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)(uint32_t)id << 32) ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t v;
		memcpy(&v, k + i, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	uint64_t v = 0;
	memcpy(&v, k + i, n - i);
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	return h | 1;	/* never 0 */
}

static void memo_reset(struct memo *m)
{
	memset(m->slots, 0, MEMO_SLOTS * sizeof(*m->slots));
	m->arena_used = 0;
	m->used = 0;
	m->resets++;
}

/* The memo key of a sample: raw bytes from the first that can matter. */
static bool memo_key(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		     const uint8_t **key, size_t *klen)
{
	int ks = pdprint_key_start(p, e->tp);
	if (ks < 0)
		return false;
	*key = raw + ((uint32_t)ks <= raw_size ? (uint32_t)ks : 0);
	*klen = raw_size - (size_t)(*key - raw);
	if (*klen > MEMO_MAX_KEY)
		return false;
	struct memo *m = &p->memo;
	if (!m->slots) {
		m->slots = calloc(MEMO_SLOTS, sizeof(*m->slots));
		m->arena = malloc(MEMO_ARENA);
		if (!m->slots || !m->arena) {
			free(m->slots);
			free(m->arena);
			m->slots = NULL;
			m->arena = NULL;
			return false;
		}
	}
	return true;
}

/* Find the key; returns its slot, or the empty slot where it would go. */
static struct memo_slot *memo_find(struct memo *m, uint64_t h, int32_t id, const uint8_t *key, size_t klen)
{
	for (uint32_t i = (uint32_t)h & (MEMO_SLOTS - 1);; i = (i + 1) & (MEMO_SLOTS - 1)) {
		struct memo_slot *sl = &m->slots[i];
		if (!sl->hash)
			return sl;
		if (sl->hash == h && sl->key_len == klen) {
			int32_t sid;
			memcpy(&sid, m->arena + sl->off, 4);
			if (sid == id && !memcmp(m->arena + sl->off + 4, key, klen))
				return sl;
		}
	}
}

bool pdprint_memo_get(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		      const char **text, size_t *len)
{
	const uint8_t *key;
	size_t klen;
	if (!e->tp || !memo_key(p, e, raw, raw_size, &key, &klen))
		return false;
	struct memo *m = &p->memo;
	struct memo_slot *sl = memo_find(m, memo_hash(key, klen, e->tp->id), e->tp->id, key, klen);
	if (!sl->hash) {
		m->misses++;
		return false;
	}
	m->hits++;
	*text = (const char *)m->arena + sl->off + 4 + klen;
	*len = sl->out_len;
	return true;
}

/* Store id, key and text under slot. */
static void memo_store(struct memo *m, struct memo_slot *slot, uint64_t h, int32_t id, const uint8_t *key,
		       size_t klen, const void *payload, size_t plen, uint16_t out_len)
{
	memcpy(m->arena + m->arena_used, &id, 4);
	memcpy(m->arena + m->arena_used + 4, key, klen);
	memcpy(m->arena + m->arena_used + 4 + klen, payload, plen);
	if (!slot->hash)
		m->used++;
	slot->hash = h;
	slot->off = (uint32_t)m->arena_used;
	slot->key_len = (uint16_t)klen;
	slot->out_len = out_len;
	m->arena_used += 4 + klen + plen;
}

void pdprint_memo_put(struct pdprint *p, const struct pdread_evsel *e, const uint8_t *raw, uint32_t raw_size,
		 const char *text, size_t len)
{
	const uint8_t *key;
	size_t klen;
	if (!e->tp || len > 0xffff || !memo_key(p, e, raw, raw_size, &key, &klen))
		return;
	struct memo *m = &p->memo;
	uint64_t h = memo_hash(key, klen, e->tp->id);
	struct memo_slot *slot = memo_find(m, h, e->tp->id, key, klen);
	if (slot->hash)
		return;		/* already there */
	if (m->arena_used + 4 + klen + len > MEMO_ARENA || (m->used + 1) * 4 > MEMO_SLOTS * 3) {
		memo_reset(m);
		slot = memo_find(m, h, e->tp->id, key, klen);
	}
	memo_store(m, slot, h, e->tp->id, key, klen, text, len, (uint16_t)len);
}
