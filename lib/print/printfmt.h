/* SPDX-License-Identifier: MIT */
/*
 * printfmt.h - compile a tracepoint's print format into a small program that
 * prints a payload the way libtraceevent's tep_print_event(TEP_PRINT_INFO)
 * does, byte for byte, without going through printf.
 *
 * Prefix: printfmt_.
 *
 * The input is an event libtraceevent has already parsed (its print format
 * text and argument tree); printfmt_compile() turns the format into a list of
 * steps - constant text, numbers (%d %i %u %x %X %o with the flags - 0 # and
 * a width, lengths hh h l ll z), strings (%s with - and width/precision),
 * %p, %ps %pf %pS %pF - whose arguments are field reads, constants, casts,
 * the C operators libtraceevent evaluates, ?:, __print_flags,
 * __print_symbolic, __get_str, and char-array fields.  Whatever else a format
 * uses (helpers such as __print_hex, %pM, '*' widths, bprint events, events
 * with a plugin handler...) makes printfmt_compile() refuse the event with
 * -ENOTSUP and a reason; the caller then prints that event with
 * libtraceevent.  A compiled program may also decline one payload at run
 * time (printfmt_run() returns PRINTFMT_FALLBACK): shorter than the fields it reads,
 * another event's common_type, a __get_str with no NUL inside the payload.
 *
 * Semantics learnt from libtraceevent 1.7 (not its code): numbers are
 * evaluated as unsigned 64-bit, a field of a size other than 1/2/4/8 reads
 * as 0, casts mask to 8/16/32 bits only for the type names libtraceevent
 * knows, shifts use the count modulo 64 (x86-64), %p prints "(nil)" for 0,
 * flags are matched in declaration order, and an unknown conversion prints
 * as ">c<".  One deliberate difference: x / 0 and x % 0 give 0 where the
 * library would raise SIGFPE.
 *
 * Hostile formats: the argument tree is walked with a depth limit, every
 * field offset/size is checked against the payload before it is read, and
 * output is bounded by printfmt_max_len(); nothing here crashes on any event
 * libtraceevent accepted.
 */
#ifndef LATSCOPE_PRINTFMT_H
#define LATSCOPE_PRINTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct printfmt_prog;

/* Most bytes one symbol print may write (name, "+0x", 16 hex digits). */
#define PRINTFMT_SYM_MAX	560

/* printfmt_run's result when libtraceevent must print this payload. */
#define PRINTFMT_FALLBACK	(-1)

/*
 * How %ps-style fields print: fn writes the text for addr at out (at most
 * PRINTFMT_SYM_MAX bytes) and returns its length.  libtraceevent prints the
 * symbol's name (with_offset: "name+0xOFF"), or "0x%llx" of addr when no
 * symbol covers it.  fn may also write nothing and remember out's position
 * (see pdprint's deferred symbols).
 */
struct printfmt_symcb {
	size_t (*fn)(void *ctx, uint64_t addr, bool with_offset, char *out);
	void *ctx;
};

/*
 * printfmt_compile - compile ev's print format.  On success *out is a program
 * the caller frees with printfmt_free() (it does not point into ev: ev may be
 * freed first).  -ENOTSUP when the format needs libtraceevent (why, if not
 * NULL, gets a short reason, NUL-terminated), -ENOMEM.
 */
int printfmt_compile(struct tep_event *ev, struct printfmt_prog **out, char *why, size_t why_len);

/* printfmt_free - NULL is fine. */
void printfmt_free(struct printfmt_prog *pg);

/* The most bytes printfmt_run() writes for a payload of raw_size bytes. */
size_t printfmt_max_len(const struct printfmt_prog *pg, uint32_t raw_size);

/* True when the program prints kernel symbols (%ps and friends). */
bool printfmt_prints_symbols(const struct printfmt_prog *pg);

/*
 * printfmt_run - print the payload raw[0, raw_size) (file byte order) at out,
 * which has room for printfmt_max_len(pg, raw_size) bytes; no NUL is added.
 * Returns the length written, or PRINTFMT_FALLBACK (nothing useful written).
 * syms may be NULL when !printfmt_prints_symbols(pg).  Read-only on pg: one
 * program may run on several threads.
 */
int printfmt_run(const struct printfmt_prog *pg, const uint8_t *raw, uint32_t raw_size, char *out,
	    const struct printfmt_symcb *syms);

/* "00".."99": the decimal digits of 0..99, two by two. */
static const char printfmt_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The n (> 0) low decimal digits of v at o, two at a time; returns o + n. */
static inline char *printfmt_put_dec(char *o, uint64_t v, int n)
{
	char *end = o + n, *e = end;
	while (e - o >= 2) {
		unsigned k = (unsigned)(v % 100) * 2;
		v /= 100;
		e -= 2;
		e[0] = printfmt_digits2[k];
		e[1] = printfmt_digits2[k + 1];
	}
	if (e > o)
		o[0] = (char)('0' + v % 10);
	return end;
}

#endif
