/* SPDX-License-Identifier: MIT */
/* perfring.c - the perf mmap ring walker (see perfring.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "live/perfring.h"

int perfring_init(struct perfring *r, void *base, size_t data_offset, size_t data_size, uint8_t *bounce)
{
	memset(r, 0, sizeof(*r));
	if (!base || !data_size)
		return -EINVAL;
	r->pg = base;
	r->data = (const uint8_t *)base + data_offset;
	r->size = data_size;
	r->bounce = bounce;
	if (!bounce) {
		r->bounce = malloc(PERFRING_MAX_RECORD);
		if (!r->bounce)
			return -ENOMEM;
		r->own_bounce = true;
	}
	return 0;
}

void perfring_fini(struct perfring *r)
{
	if (r->own_bounce)
		free(r->bounce);
	r->bounce = NULL;
	r->own_bounce = false;
}

void perfring_stats_add(struct perfring_stats *dst, const struct perfring_stats *src)
{
	dst->records += src->records;
	dst->lost += src->lost;
	dst->lost_records += src->lost_records;
	dst->throttles += src->throttles;
	dst->unthrottles += src->unthrottles;
	dst->corrupt += src->corrupt;
	dst->corrupt_bytes += src->corrupt_bytes;
}

/* Copy n bytes at ring position pos (any value: taken modulo the size) to
 * dst, wrapping at the end of the data area; n <= r->size. */
static void copy_out(const struct perfring *r, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos % r->size);
	size_t first = r->size - off < n ? (size_t)(r->size - off) : n;

	memcpy(dst, r->data + off, first);
	memcpy((uint8_t *)dst + first, r->data, n - first);
}

/* The corruption policy: count, and skip everything up to head. */
static uint64_t skip_to_head(struct perfring *r, uint64_t tail, uint64_t head)
{
	r->st.corrupt++;
	if (head > tail)
		r->st.corrupt_bytes += head - tail;
	return head;
}

int perfring_walk(struct perfring *r, perfring_cb cb, void *arg)
{
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	int ret = 0;

	/* the kernel never writes past data_tail in a writable mapping: a gap
	 * larger than the area (or a head behind the tail) is corrupt */
	if (tail > head || head - tail > r->size)
		tail = skip_to_head(r, tail, head);
	while (tail < head) {
		struct perf_event_header h;
		uint64_t left = head - tail;

		if (left < sizeof(h)) {
			tail = skip_to_head(r, tail, head);
			break;
		}
		copy_out(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > left) {
			tail = skip_to_head(r, tail, head);
			break;
		}
		const uint8_t *rec = r->data + tail % r->size;
		if (tail % r->size + h.size > r->size) {
			copy_out(r, tail, r->bounce, h.size);
			rec = r->bounce;
		}
		ret = cb ? cb(arg, &h, rec) : 0;
		if (ret) {
			if (ret > 0)
				ret = PERFRING_STOPPED;
			break;
		}
		r->st.records++;
		if (h.type == PERF_RECORD_LOST) {
			uint64_t lost = 0;
			r->st.lost_records++;
			if (h.size >= sizeof(h) + 16)	/* id, lost */
				memcpy(&lost, rec + sizeof(h) + 8, sizeof(lost));
			r->st.lost += lost;
		} else if (h.type == PERF_RECORD_THROTTLE) {
			r->st.throttles++;
		} else if (h.type == PERF_RECORD_UNTHROTTLE) {
			r->st.unthrottles++;
		}
		tail += h.size;
	}
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}
