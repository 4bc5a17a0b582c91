/* SPDX-License-Identifier: MIT */
/*
 * pdsample.c - PERF_RECORD_SAMPLE bodies, sample_id trailers and
 * perf_event_attr decoding (part of the pdread_ reader module).
 */
#include <errno.h>
#include <string.h>

#include "base/bytes.h"
#include "format/pdread.h"

/* Cursor over a record body; every read is bounds-checked. */
struct cur {
	const uint8_t *p, *end;
	bool swap;
	bool bad;
};

static inline uint64_t cur_u64(struct cur *c)
{
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	uint64_t v = bytes_ld64(c->p, c->swap);
	c->p += 8;
	return v;
}

/* Two u32 packed in a u64 slot (TID, CPU): each u32 has its own order. */
static inline void cur_u32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		*a = *b = 0;
		return;
	}
	*a = bytes_ld32(c->p, c->swap);
	*b = bytes_ld32(c->p + 4, c->swap);
	c->p += 8;
}

/* Skip n bytes, returning where they start (NULL when they do not fit). */
static inline const uint8_t *cur_take(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	const uint8_t *at = c->p;
	c->p += n;
	return at;
}

uint64_t pdread_read_size(uint64_t rf, uint64_t nr_group)
{
	uint64_t per = 8 + ((rf & PDFORMAT_FORMAT_ID) ? 8 : 0) + ((rf & PDFORMAT_FORMAT_LOST) ? 8 : 0);
	uint64_t hdr = ((rf & PDFORMAT_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		       ((rf & PDFORMAT_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
	if (rf & PDFORMAT_FORMAT_GROUP)
		return 8 + hdr + nr_group * per;
	return hdr + per;
}

/*
 * The variable-size parts of a sample body.  Each points s's fields into the
 * record (nothing is copied) and returns -EINVAL when a count or size it
 * reads cannot fit what is left of the record, else 0 (a plain overrun
 * leaves c->bad for parse_body to answer).
 */

/* READ: the counter values, sized by read_format (and the group's count). */
static int take_read(const struct pdformat_attr *attr, struct cur *c, struct pdread_sample *s)
{
	uint64_t nr = 0;
	if (attr->read_format & PDFORMAT_FORMAT_GROUP) {
		if (c->end - c->p < 8)
			return -EINVAL;
		nr = bytes_ld64(c->p, c->swap);
		if (nr > 0xffff)
			return -EINVAL;
	}
	uint64_t sz = pdread_read_size(attr->read_format, nr);
	s->read = cur_take(c, sz);
	s->read_size = (uint32_t)sz;
	return 0;
}

/* CALLCHAIN: a u64 count, then as many u64 addresses. */
static int take_callchain(struct cur *c, struct pdread_sample *s)
{
	s->callchain_nr = cur_u64(c);
	if (s->callchain_nr > ((uint64_t)(c->end - c->p)) / 8)
		return -EINVAL;
	s->callchain = cur_take(c, s->callchain_nr * 8);
	return 0;
}

/* RAW: a u32 size, the tracepoint data, then padding to a u64 boundary. */
static int take_raw(struct cur *c, struct pdread_sample *s)
{
	if (c->end - c->p < 4)
		return -EINVAL;
	s->raw_size = bytes_ld32(c->p, c->swap);
	c->p += 4;
	s->raw = cur_take(c, s->raw_size);
	if (!s->raw)
		return -EINVAL;
	/* The kernel pads u32 size + data to a u64 boundary. */
	uint64_t pad = (8 - ((4 + (uint64_t)s->raw_size) & 7)) & 7;
	if ((uint64_t)(c->end - c->p) < pad)
		return -EINVAL;
	c->p += pad;
	return 0;
}

/* BRANCH_STACK: a u64 count, the hardware index if asked for, 24-byte
 * entries, then the branch counters if asked for (skipped). */
static int take_branch_stack(const struct pdformat_attr *attr, struct cur *c, struct pdread_sample *s)
{
	s->branch_nr = cur_u64(c);
	if (attr->branch_sample_type & PDFORMAT_BRANCH_HW_INDEX)
		s->branch_hw_idx = cur_u64(c);
	if (s->branch_nr > ((uint64_t)(c->end - c->p)) / 24)
		return -EINVAL;
	s->branch = cur_take(c, s->branch_nr * 24);
	if (attr->branch_sample_type & PDFORMAT_BRANCH_COUNTERS)
		cur_take(c, s->branch_nr * 8);
	return 0;
}

static int parse_body(const struct pdformat_attr *attr, struct cur *c, struct pdread_sample *s)
{
	uint64_t t = attr->sample_type;

	if (t & PDFORMAT_SAMPLE_IDENTIFIER)
		s->id = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_IP)
		s->ip = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_TID)
		cur_u32x2(c, &s->pid, &s->tid);
	if (t & PDFORMAT_SAMPLE_TIME)
		s->time = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_ADDR)
		s->addr = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_ID)
		s->id = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_STREAM_ID)
		s->stream_id = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_CPU) {
		uint32_t res;
		cur_u32x2(c, &s->cpu, &res);
	}
	if (t & PDFORMAT_SAMPLE_PERIOD)
		s->period = cur_u64(c);
	if ((t & PDFORMAT_SAMPLE_READ) && take_read(attr, c, s))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_CALLCHAIN) && take_callchain(c, s))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_RAW) && take_raw(c, s))
		return -EINVAL;
	if ((t & PDFORMAT_SAMPLE_BRANCH_STACK) && take_branch_stack(attr, c, s))
		return -EINVAL;
	if (t & PDFORMAT_SAMPLE_REGS_USER) {
		s->user_regs_abi = cur_u64(c);
		if (s->user_regs_abi)
			s->user_regs = cur_take(c, 8ULL * (uint64_t)__builtin_popcountll(attr->sample_regs_user));
	}
	if (t & PDFORMAT_SAMPLE_STACK_USER) {
		s->user_stack_size = cur_u64(c);
		if (s->user_stack_size) {
			s->user_stack = cur_take(c, s->user_stack_size);
			s->user_stack_dyn_size = cur_u64(c);
		}
	}
	if (t & (PDFORMAT_SAMPLE_WEIGHT | PDFORMAT_SAMPLE_WEIGHT_STRUCT))
		s->weight = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_DATA_SRC)
		s->data_src = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_TRANSACTION)
		s->transaction = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_REGS_INTR) {
		s->intr_regs_abi = cur_u64(c);
		if (s->intr_regs_abi)
			s->intr_regs = cur_take(c, 8ULL * (uint64_t)__builtin_popcountll(attr->sample_regs_intr));
	}
	if (t & PDFORMAT_SAMPLE_PHYS_ADDR)
		s->phys_addr = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_CGROUP)
		s->cgroup = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = cur_u64(c);
	if (t & PDFORMAT_SAMPLE_AUX) {
		s->aux_size = cur_u64(c);
		s->aux = cur_take(c, s->aux_size);
	}
	return c->bad ? -EINVAL : 0;
}

/* The sample_id trailer, parsed backwards from the record's end. */
static int parse_trailer(const struct pdformat_attr *attr, const uint8_t *start, const uint8_t *end,
			 bool swap, struct pdread_sample *s)
{
	uint64_t t = attr->sample_type;
	const uint8_t *p = end;
#define BACK(n) do { if (p - start < (n)) return -EINVAL; p -= (n); } while (0)
	if (t & PDFORMAT_SAMPLE_IDENTIFIER) {
		BACK(8);
		s->id = bytes_ld64(p, swap);
	}
	if (t & PDFORMAT_SAMPLE_CPU) {
		BACK(8);
		s->cpu = bytes_ld32(p, swap);
	}
	if (t & PDFORMAT_SAMPLE_STREAM_ID) {
		BACK(8);
		s->stream_id = bytes_ld64(p, swap);
	}
	if (t & PDFORMAT_SAMPLE_ID) {
		BACK(8);
		s->id = bytes_ld64(p, swap);
	}
	if (t & PDFORMAT_SAMPLE_TIME) {
		BACK(8);
		s->time = bytes_ld64(p, swap);
	}
	if (t & PDFORMAT_SAMPLE_TID) {
		BACK(8);
		s->pid = bytes_ld32(p, swap);
		s->tid = bytes_ld32(p + 4, swap);
	}
#undef BACK
	return 0;
}

/* Zero a sample with plain vector stores: a memset of this size becomes
 * `rep stos`, whose start-up cost showed as 5 % of script's time. */
static inline void zero_sample(struct pdread_sample *s)
{
	typedef uint64_t v4 __attribute__((vector_size(32), aligned(8), may_alias));
	enum { N = sizeof(*s) / sizeof(v4) };
	v4 *w = (v4 *)(void *)s;
	for (size_t i = 0; i < N; i++)
		w[i] = (v4){ 0, 0, 0, 0 };
	memset((char *)s + N * sizeof(v4), 0, sizeof(*s) - N * sizeof(v4));
}

int pdread_parse_sample(const struct pdformat_attr *attr, bool swap, const uint8_t *rec, size_t size,
		     bool trailer, struct pdread_sample *s)
{
	zero_sample(s);
	s->type = attr->sample_type;
	s->cpu = (uint32_t)-1;
	s->pid = s->tid = (uint32_t)-1;
	if (size < 8)
		return -EINVAL;
	if (trailer) {
		s->type &= PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME | PDFORMAT_SAMPLE_ID | PDFORMAT_SAMPLE_STREAM_ID |
			   PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_IDENTIFIER;
		return parse_trailer(attr, rec + 8, rec + size, swap, s);
	}
	struct cur c = { .p = rec + 8, .end = rec + size, .swap = swap };
	return parse_body(attr, &c, s);
}

/* Offsets of perf_event_attr fields (uapi). */
int pdread_decode_attr(const uint8_t *p, size_t avail, bool swap, struct pdformat_attr *a, size_t *consumed)
{
	memset(a, 0, sizeof(*a));
	if (avail < PDFORMAT_ATTR_VER0)
		return -EINVAL;
	a->type = bytes_ld32(p + 0, swap);
	a->size = bytes_ld32(p + 4, swap);
	size_t sz = a->size ? a->size : PDFORMAT_ATTR_VER0;
	if (sz < PDFORMAT_ATTR_VER0 || sz > avail)
		return -EINVAL;
	if (consumed)
		*consumed = sz;
	/* Fields beyond what we know are ignored; fields beyond sz stay 0. */
	a->config = bytes_ld64(p + 8, swap);
	a->sample_period = bytes_ld64(p + 16, swap);
	a->sample_type = bytes_ld64(p + 24, swap);
	a->read_format = bytes_ld64(p + 32, swap);
	/* Flags: bit n sits in byte n/8; little-endian writers put it at bit
	 * n%8, big-endian writers (GCC bitfields) at bit 7-n%8. */
	bool file_be = swap != (bool)BYTES_HOST_BIG_ENDIAN;
	uint64_t flags = 0;
	for (int n = 0; n < 64; n++) {
		uint8_t b = p[40 + n / 8];
		int bit = file_be ? 7 - n % 8 : n % 8;
		if ((b >> bit) & 1)
			flags |= 1ULL << n;
	}
	a->flags = flags;
	a->wakeup_events = bytes_ld32(p + 48, swap);
	a->bp_type = bytes_ld32(p + 52, swap);
	a->config1 = bytes_ld64(p + 56, swap);
	if (sz >= PDFORMAT_ATTR_VER1)
		a->config2 = bytes_ld64(p + 64, swap);
	if (sz >= PDFORMAT_ATTR_VER2)
		a->branch_sample_type = bytes_ld64(p + 72, swap);
	if (sz >= PDFORMAT_ATTR_VER3) {
		a->sample_regs_user = bytes_ld64(p + 80, swap);
		a->sample_stack_user = bytes_ld32(p + 88, swap);
		a->clockid = (int32_t)bytes_ld32(p + 92, swap);
	}
	if (sz >= PDFORMAT_ATTR_VER4)
		a->sample_regs_intr = bytes_ld64(p + 96, swap);
	if (sz >= PDFORMAT_ATTR_VER5) {
		a->aux_watermark = bytes_ld32(p + 104, swap);
		a->sample_max_stack = bytes_ld16(p + 108, swap);
		a->reserved_2 = bytes_ld16(p + 110, swap);
	}
	if (sz >= PDFORMAT_ATTR_VER6) {
		a->aux_sample_size = bytes_ld32(p + 112, swap);
		a->aux_action = bytes_ld32(p + 116, swap);
	}
	if (sz >= PDFORMAT_ATTR_VER7)
		a->sig_data = bytes_ld64(p + 120, swap);
	if (sz >= PDFORMAT_ATTR_VER8)
		a->config3 = bytes_ld64(p + 128, swap);
	return 0;
}

static const char *const record_names[PDFORMAT_RECORD_USER_MAX] = {
	[PDFORMAT_RECORD_MMAP] = "MMAP",
	[PDFORMAT_RECORD_LOST] = "LOST",
	[PDFORMAT_RECORD_COMM] = "COMM",
	[PDFORMAT_RECORD_EXIT] = "EXIT",
	[PDFORMAT_RECORD_THROTTLE] = "THROTTLE",
	[PDFORMAT_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PDFORMAT_RECORD_FORK] = "FORK",
	[PDFORMAT_RECORD_READ] = "READ",
	[PDFORMAT_RECORD_SAMPLE] = "SAMPLE",
	[PDFORMAT_RECORD_MMAP2] = "MMAP2",
	[PDFORMAT_RECORD_AUX] = "AUX",
	[PDFORMAT_RECORD_ITRACE_START] = "ITRACE_START",
	[PDFORMAT_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PDFORMAT_RECORD_SWITCH] = "SWITCH",
	[PDFORMAT_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PDFORMAT_RECORD_NAMESPACES] = "NAMESPACES",
	[PDFORMAT_RECORD_KSYMBOL] = "KSYMBOL",
	[PDFORMAT_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PDFORMAT_RECORD_CGROUP] = "CGROUP",
	[PDFORMAT_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PDFORMAT_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PDFORMAT_RECORD_HEADER_ATTR] = "ATTR",
	[PDFORMAT_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[PDFORMAT_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PDFORMAT_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
	[PDFORMAT_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
	[PDFORMAT_RECORD_ID_INDEX] = "ID_INDEX",
	[PDFORMAT_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PDFORMAT_RECORD_AUXTRACE] = "AUXTRACE",
	[PDFORMAT_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PDFORMAT_RECORD_THREAD_MAP] = "THREAD_MAP",
	[PDFORMAT_RECORD_CPU_MAP] = "CPU_MAP",
	[PDFORMAT_RECORD_STAT_CONFIG] = "STAT_CONFIG",
	[PDFORMAT_RECORD_STAT] = "STAT",
	[PDFORMAT_RECORD_STAT_ROUND] = "STAT_ROUND",
	[PDFORMAT_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
	[PDFORMAT_RECORD_TIME_CONV] = "TIME_CONV",
	[PDFORMAT_RECORD_HEADER_FEATURE] = "FEATURE",
	[PDFORMAT_RECORD_COMPRESSED] = "COMPRESSED",
	[PDFORMAT_RECORD_FINISHED_INIT] = "FINISHED_INIT",
	[PDFORMAT_RECORD_COMPRESSED2] = "COMPRESSED2",
	[PDFORMAT_RECORD_BPF_METADATA] = "BPF_METADATA",
};

const char *pdread_record_name(uint32_t type)
{
	return type < PDFORMAT_RECORD_USER_MAX ? record_names[type] : NULL;
}
