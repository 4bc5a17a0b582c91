/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lib/printfmt (compiled print formats): the real formats of
 * tests/data/formats and made-up ones covering every construct the
 * compiler takes, printed from random payloads in both byte orders and
 * compared with libtraceevent (tests/ppcoracle.h); the constructs it must
 * leave to libtraceevent; payloads it must decline at run time.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/bytes.h"
#include "print/printfmt.h"
#include "../ppcoracle.h"

#define FORMATS "tests/data/formats"

static const char *const real_formats[] = {
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_waking", "sched/sched_migrate_task",
	"sched/sched_process_exit", "sched/sched_wakeup_new", "irq/irq_handler_entry",
	"irq/irq_handler_exit", "irq/softirq_entry", "irq/softirq_exit", "irq/softirq_raise",
	"timer/hrtimer_start", "timer/hrtimer_cancel", "timer/hrtimer_expire_entry", "timer/timer_start",
	"timer/timer_expire_entry", "timer/tick_stop", "irq_vectors/local_timer_entry",
};

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Made-up events: every construct the compiler takes. */
static const char *const synth[] = {
	"name: ints\nID: 901\nformat:\n" COMMON
	"\tfield:s8 a;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:s16 b;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:int c;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:long d;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 e;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"a=%d b=%hd c=%5d d=%ld e=%lu x=%x X=%#X o=%#o lx=%016llx u=%u hh=%hhu "
	"neg=%-6d| z=%zu L=%Lu i=%i zero=%05d hx=%#06hx lo=%-#10lo|\", REC->a, REC->b, REC->c, REC->d, "
	"REC->e, REC->c, REC->e, REC->c, REC->e, REC->d, REC->e, REC->c, REC->e, REC->e, REC->a, REC->c, "
	"REC->b, REC->d\n",

	"name: strs\nID: 902\nformat:\n" COMMON
	"\tfield:char name[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:int v;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"n=%s s=%s w=[%10s] l=[%-10s] p=[%.3s] q=[%8.2s] %% lit\\ttab\\n %c %5.2f v=%d end\", "
	"REC->name, __get_str(s), REC->name, __get_str(s), REC->name, REC->name, REC->v\n",

	"name: flags\nID: 903\nformat:\n" COMMON
	"\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int sym;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int st;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"f=%s s=%s t=%s v=%s st=%s%s\", "
	"__print_flags(REC->flags, \"|\", { 1, \"A\" }, { 2, \"B\" }, { 4, \"C\" }, { 0x30, \"DE\" }), "
	"__print_symbolic(REC->sym, { 0, \"ZERO\" }, { 1, \"ONE\" }, { 5, \"FIVE\" }, { -1, \"NEG\" }), "
	"REC->sym > 3 ? \"big\" : \"small\", "
	"__print_symbolic(REC->sym & 3, { HI_SOFTIRQ, \"HI\" }, { TIMER_SOFTIRQ, \"TIMER\" }, { UNKNOWN_X, \"X\" }), "
	"(REC->st & 0xff) ? __print_flags(REC->st & 0xff, \"|\", { 0x01, \"S\" }, { 0x02, \"D\" }, { 0x80, \"I\" }) : \"R\", "
	"REC->st & 0x100 ? \"+\" : \"\"\n",

	"name: exprs\nID: 904\nformat:\n" COMMON
	"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 b;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:char arr[4];\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%d %d %u %d %d %u %u %d %d %d %d %d %u %u %u %llu %d %d %d\", "
	"REC->a + REC->b, REC->a - REC->b, REC->a * 3, REC->a / 3, REC->a % 7, REC->a << 2, "
	"REC->a >> 1, REC->a == REC->b, REC->a != 0 && REC->b != 0, !REC->a, ~REC->a, REC->a || 0, "
	"(u8)REC->a, (unsigned short)REC->b, (int)REC->b, (long)REC->a, REC->a < REC->b, REC->a >= 7, "
	"REC->arr\n",

	"name: ptrs\nID: 905\nformat:\n" COMMON
	"\tfield:unsigned long fn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * p;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fn=%ps FN=%pS p=%p f2=%pf F=%pF pK=%pK end\", REC->fn, REC->fn, REC->p, REC->fn, REC->p, "
	"REC->p\n",
};

/* Made-up events the compiler must leave to libtraceevent. */
static const char *const declined[] = {
	"name: mac\nID: 911\nformat:\n" COMMON
	"\tfield:unsigned char m[6];\toffset:8;\tsize:6;\tsigned:0;\n\n"
	"print fmt: \"m=%pM\", REC->m\n",

	"name: star\nID: 912\nformat:\n" COMMON
	"\tfield:int w;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"[%*d]\", REC->w, REC->w\n",

	"name: hex\nID: 913\nformat:\n" COMMON
	"\tfield:unsigned char m[6];\toffset:8;\tsize:6;\tsigned:0;\n\n"
	"print fmt: \"h=%s\", __print_hex(REC->m, 6)\n",

	"name: longstr\nID: 914\nformat:\n" COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"s=%s\", REC->ip\n",

	"name: xor\nID: 915\nformat:\n" COMMON
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d\", REC->a ^ 1\n",

	"name: prec\nID: 916\nformat:\n" COMMON
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%.3d\", REC->a\n",
};

static struct tep_handle *new_tep(bool big)
{
	struct tep_handle *tep = tep_alloc();
	assert_non_null(tep);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, BYTES_HOST_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	return tep;
}

static void parse_text(struct tep_handle *tep, const char *text, const char *sys)
{
	assert_int_equal(tep_parse_event(tep, text, strlen(text), sys), 0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *b = malloc(1 << 16);
	assert_non_null(b);
	*len = fread(b, 1, (1 << 16) - 1, f);
	b[*len] = '\0';
	fclose(f);
	return b;
}

static void load_real(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(real_formats) / sizeof(real_formats[0]); i++) {
		char path[256], sys[32];
		snprintf(path, sizeof(path), "%s/%s/format", FORMATS, real_formats[i]);
		size_t len;
		char *t = slurp(path, &len);
		if (!t)
			continue;	/* not shipped: fine */
		snprintf(sys, sizeof(sys), "%.*s", (int)(strchr(real_formats[i], '/') - real_formats[i]),
			 real_formats[i]);
		assert_int_equal(tep_parse_event(tep, t, len, sys), 0);
		free(t);
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A random payload for ev: random bytes, a few fields at interesting
 * values, the common_type, and every __data_loc pointing at a terminated
 * string at the end (most of the time).
 */
static uint32_t payload(struct tep_event *ev, uint8_t *p, uint64_t *seed, bool big)
{
	uint32_t size = 8;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if ((uint32_t)(f->offset + f->size) > size)
			size = (uint32_t)(f->offset + f->size);
	uint32_t body = size;
	size += 24;
	for (uint32_t i = 0; i < size; i++)
		p[i] = (uint8_t)rnd(seed);
	bool swap = big != (bool)BYTES_HOST_BIG_ENDIAN;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		uint64_t r = rnd(seed);
		if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size == 4) {
			uint32_t len = (uint32_t)(r % 20);
			for (uint32_t i = 0; i < len; i++)
				p[body + i] = (uint8_t)('a' + rnd(seed) % 26);
			p[body + len] = 0;
			uint32_t loc = (r % 17) ? (len + 1) << 16 | body : (uint32_t)r;
			bytes_st32(p + f->offset, loc, swap);
			continue;
		}
		if (f->flags & TEP_FIELD_IS_ARRAY) {
			if (r % 3 == 0)
				p[f->offset + r % (uint64_t)f->size] = 0;
			continue;
		}
		uint64_t v = r % 4 == 0 ? 0 : r % 4 == 1 ? (uint64_t)-1 : r % 4 == 2 ? r % 9 : r;
		switch (f->size) {
		case 1: p[f->offset] = (uint8_t)v; break;
		case 2: bytes_st16(p + f->offset, (uint16_t)v, swap); break;
		case 4: bytes_st32(p + f->offset, (uint32_t)v, swap); break;
		case 8: bytes_st64(p + f->offset, v, swap); break;
		}
	}
	bytes_st16(p, (uint16_t)ev->id, swap);
	return size;
}

/* Compile every event of tep and compare it on n random payloads. */
static void compare_all(struct tep_handle *tep, bool big, unsigned n, size_t want_compiled)
{
	struct ppco o;
	ppco_init(&o, tep);
	uint8_t p[512];
	uint64_t seed = big ? 77 : 99;
	size_t compiled = 0;
	for (int i = 0; i < tep_get_events_count(tep); i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		struct printfmt_prog *pg = NULL;
		char why[128];
		if (printfmt_compile(ev, &pg, why, sizeof(why))) {
			fprintf(stderr, "not compiled: %s: %s\n", ev->name, why);
			continue;
		}
		compiled++;
		for (unsigned k = 0; k < n; k++) {
			uint32_t size = payload(ev, p, &seed, big);
			assert_int_equal(ppco_check(&o, tep, pg, p, size, stderr, 10), 0);
		}
		printfmt_free(pg);
	}
	assert_int_equal(compiled, want_compiled);
	assert_true(o.compared > o.fallbacks * 4);
	ppco_done(&o, tep);
}

static void real_case(bool big)
{
	struct tep_handle *tep = new_tep(big);
	load_real(tep);
	compare_all(tep, big, 3000, (size_t)tep_get_events_count(tep));
	tep_free(tep);
}

static void test_real_le(void **s) { (void)s; real_case(false); }
static void test_real_be(void **s) { (void)s; real_case(true); }

static void synth_case(bool big)
{
	struct tep_handle *tep = new_tep(big);
	for (size_t i = 0; i < sizeof(synth) / sizeof(synth[0]); i++)
		parse_text(tep, synth[i], "synth");
	compare_all(tep, big, 5000, sizeof(synth) / sizeof(synth[0]));
	tep_free(tep);
}

static void test_synth_le(void **s) { (void)s; synth_case(false); }
static void test_synth_be(void **s) { (void)s; synth_case(true); }

static void test_declined(void **state)
{
	(void)state;
	struct tep_handle *tep = new_tep(false);
	for (size_t i = 0; i < sizeof(declined) / sizeof(declined[0]); i++)
		parse_text(tep, declined[i], "synth");
	for (int i = 0; i < tep_get_events_count(tep); i++) {
		struct printfmt_prog *pg = (struct printfmt_prog *)&pg;
		char why[128];
		assert_int_equal(printfmt_compile(tep_get_event(tep, i), &pg, why, sizeof(why)), -ENOTSUP);
		assert_null(pg);
		assert_true(why[0] != '\0');
	}
	tep_free(tep);
}

/* Payloads a compiled program leaves to libtraceevent. */
static void test_runtime_fallback(void **state)
{
	(void)state;
	struct tep_handle *tep = new_tep(false);
	parse_text(tep, synth[1], "synth");	/* strs */
	parse_text(tep, synth[0], "synth");	/* ints */
	struct tep_event *strs = tep_find_event_by_name(tep, "synth", "strs");
	struct printfmt_prog *pg;
	assert_int_equal(printfmt_compile(strs, &pg, NULL, 0), 0);
	assert_false(printfmt_prints_symbols(pg));
	uint8_t p[64];
	memset(p, 'x', sizeof(p));
	bytes_st16(p, (uint16_t)strs->id, false);
	bytes_st32(p + 24, 4u << 16 | 40, false);	/* __get_str(s): 4 bytes at 40 */
	p[23] = 0;
	p[43] = 0;
	char out[1024];
	assert_true(printfmt_max_len(pg, 48) <= sizeof(out));
	int n = printfmt_run(pg, p, 48, out, NULL);
	assert_true(n > 0);
	assert_memory_equal(out, "n=xxxxxxxxxxxxxxx s=xxx ", 24);
	assert_int_equal(printfmt_run(pg, p, 31, out, NULL), PRINTFMT_FALLBACK);	/* shorter than its fields */
	bytes_st16(p, 901, false);
	assert_int_equal(printfmt_run(pg, p, 48, out, NULL), PRINTFMT_FALLBACK);	/* another event's payload */
	bytes_st16(p, (uint16_t)strs->id, false);
	p[43] = 'x';
	assert_int_equal(printfmt_run(pg, p, 48, out, NULL), PRINTFMT_FALLBACK);	/* __get_str runs off the end */
	p[47] = 0;
	assert_true(printfmt_run(pg, p, 48, out, NULL) > 0);
	printfmt_free(pg);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_le),
		cmocka_unit_test(test_real_be),
		cmocka_unit_test(test_synth_le),
		cmocka_unit_test(test_synth_be),
		cmocka_unit_test(test_declined),
		cmocka_unit_test(test_runtime_fallback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
