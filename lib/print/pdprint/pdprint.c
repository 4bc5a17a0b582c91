/* SPDX-License-Identifier: MIT */
/*
 * pdprint.c - perf script's lines from perf.data samples.  See pdprint.h;
 * its parts share pdprint_int.h:
 *   pdprint.c       create/free, -F fields, task names, the tracepoint
 *                   formats (compiled on first sight), the text lines
 *   pdprint_sym.c   kernel symbols for %ps fields, deferred and resolved in one pass
 *   pdprint_memo.c  the memo of libtraceevent's output
 *   pdprint_json.c  a sample as a JSON object
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "base/bytes.h"
#include "pdprint_int.h"

struct pdprint *pdprint_new(struct pdread *r, const struct pdprint_opts *opts)
{
	struct pdprint *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->r = r;
	if (opts)
		p->o = *opts;
	p->user_fields = p->o.fields != 0;
	if (!p->o.fields)
		p->o.fields = PDPRINT_F_DEFAULT;
	p->thr = thread_new();
	if (!p->thr) {
		free(p);
		return NULL;
	}
	trace_seq_init(&p->seq);
	p->symcb.fn = pdprint_sym_text;
	p->symcb.ctx = p;
	pthread_mutex_init(&p->ksym_mu, NULL);
	pdprint_setup_symbols(p);
	return p;
}

void pdprint_free(struct pdprint *p)
{
	if (!p)
		return;
	free(p->memo.slots);
	free(p->memo.arena);
	for (size_t i = 0; i < p->nr_tps; i++)
		printfmt_free(p->tps[i].prog);
	free(p->tps);
	free(p->scratch);
	free(p->fix);
	free(p->sc);
	ksym_set_free(p->kset);
	if (p->ksym_path && pdread_tep(p->r))
		tep_reset_function_resolver(pdread_tep(p->r));
	ksym_free(p->ksym);
	pthread_mutex_destroy(&p->ksym_mu);
	pdprint_samp_free(p);
	thread_free(p->thr);
	trace_seq_destroy(&p->seq);
	free(p);
}

static const struct {
	const char *name;
	uint32_t bit;
} field_names[] = {
	{ "comm", PDPRINT_F_COMM }, { "tid", PDPRINT_F_TID }, { "pid", PDPRINT_F_PID }, { "cpu", PDPRINT_F_CPU },
	{ "time", PDPRINT_F_TIME }, { "event", PDPRINT_F_EVNAME }, { "trace", PDPRINT_F_TRACE }, { "ip", PDPRINT_F_IP },
	{ "period", PDPRINT_F_PERIOD }, { "addr", PDPRINT_F_ADDR },
};

int pdprint_parse_fields(const char *list, uint32_t *fields)
{
	uint32_t f = 0;
	const char *s = list;
	bool add = false;
	if (*s == '+') {	/* "+field" adds to the default set */
		add = true;
		f = PDPRINT_F_DEFAULT;
		s++;
	}
	while (*s) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		bool found = false;
		for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++) {
			if (strlen(field_names[i].name) == l && !strncmp(s, field_names[i].name, l)) {
				f |= field_names[i].bit;
				found = true;
			}
		}
		if (!found)
			return -EINVAL;
		if (!e)
			break;
		s = e + 1;
	}
	(void)add;
	if (!f)
		return -EINVAL;
	*fields = f;
	return 0;
}

void pdprint_track(struct pdprint *p, const struct pdread_event *ev)
{
	bool swap = pdread_needs_swap(p->r);
	if (ev->type == PDFORMAT_RECORD_COMM && ev->size >= 16) {
		int32_t pid = (int32_t)bytes_ld32(ev->data + 8, swap);
		int32_t tid = (int32_t)bytes_ld32(ev->data + 12, swap);
		char comm[THREAD_COMM_LEN];
		size_t maxl = ev->size - 16u;
		size_t l = strnlen((const char *)ev->data + 16, maxl < sizeof(comm) - 1 ? maxl : sizeof(comm) - 1);
		memcpy(comm, ev->data + 16, l);
		comm[l] = '\0';
		thread_set_comm(p->thr, pid, tid, comm);
	} else if (ev->type == PDFORMAT_RECORD_FORK && ev->size >= 24) {
		int32_t pid = (int32_t)bytes_ld32(ev->data + 8, swap);
		int32_t ppid = (int32_t)bytes_ld32(ev->data + 12, swap);
		int32_t tid = (int32_t)bytes_ld32(ev->data + 16, swap);
		int32_t ptid = (int32_t)bytes_ld32(ev->data + 20, swap);
		thread_fork(p->thr, ppid, ptid, pid, tid);
	}
	if (ev->type == PDFORMAT_RECORD_MMAP || ev->type == PDFORMAT_RECORD_MMAP2 || ev->type == PDFORMAT_RECORD_FORK ||
	    ev->type == PDFORMAT_RECORD_KSYMBOL)
		pdprint_samp_track(p, ev);
}

const char *pdprint_comm(struct pdprint *p, int32_t pid, int32_t tid)
{
	return thread_comm(p->thr, pid, tid);
}

int pdprint_name_width(struct pdprint *p)
{
	size_t n = pdread_nr_evsels(p->r);
	if (n != p->name_width_evsels) {
		int w = 0;
		for (size_t i = 0; i < n; i++) {
			const struct pdread_evsel *e = pdread_evsel(p->r, i);
			int l = e->name ? (int)strlen(e->name) : 9;
			if (l > w)
				w = l;
		}
		p->name_width = w;
		p->name_width_evsels = n;
	}
	return p->name_width;
}

/* Bounded appender: keeps counting past the end so callers learn the size. */
struct out {
	char *buf;
	size_t len, pos;
};

static void out_write(struct out *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t room = o->len - o->pos;
		memcpy(o->buf + o->pos, s, n < room ? n : room);
	}
	o->pos += n;
}

static void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct out *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		out_write(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_write(o, big, (size_t)n);
	free(big);
}

static size_t out_done(struct out *o)
{
	if (o->len)
		o->buf[o->pos < o->len ? o->pos : o->len - 1] = '\0';
	return o->pos;
}

static inline void out_pad(struct out *o, int n)
{
	static const char sp[] = "                                                                ";
	while (n > 0) {
		int k = n > 64 ? 64 : n;
		out_write(o, sp, (size_t)k);
		n -= k;
	}
}

/* Right-aligned string in width (like "%*s"). */
static inline void out_str_w(struct out *o, const char *str, int width)
{
	size_t l = strlen(str);
	if ((int)l < width)
		out_pad(o, width - (int)l);
	out_write(o, str, l);
}

/* Decimal of v, right-aligned in width, or zero-padded to width if zero_pad. */
static inline void out_u64_w(struct out *o, uint64_t v, int width, bool zero_pad, bool neg)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (zero_pad)
		while (n < width && n < 22)
			tmp[sizeof(tmp) - 1 - n++] = '0';
	if (neg)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	if (n < width)
		out_pad(o, width - n);
	out_write(o, tmp + sizeof(tmp) - n, (size_t)n);
}

static inline void out_i32_w(struct out *o, int32_t v, int width)
{
	if (v < 0)
		out_u64_w(o, (uint64_t)(-(int64_t)v), width, false, true);
	else
		out_u64_w(o, (uint64_t)v, width, false, false);
}

static void prefix(struct pdprint *p, struct out *o, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
		   uint64_t t, const char *evname)
{
	uint32_t f = p->o.fields;
	if (f & PDPRINT_F_COMM) {
		out_str_w(o, comm, 16);
		out_write(o, " ", 1);
	}
	if ((f & PDPRINT_F_PID) && (f & PDPRINT_F_TID)) {
		out_i32_w(o, pid, 5);
		out_write(o, "/", 1);
		char tmp[16];
		int n = snprintf(tmp, sizeof(tmp), "%-5d ", tid);
		out_write(o, tmp, (size_t)n);
	} else if (f & (PDPRINT_F_PID | PDPRINT_F_TID)) {
		out_i32_w(o, (f & PDPRINT_F_PID) ? pid : tid, 5);
		out_write(o, " ", 1);
	}
	if (f & PDPRINT_F_CPU) {
		out_write(o, "[", 1);
		if (cpu < 0) {
			out_i32_w(o, cpu, 3);
		} else {
			out_u64_w(o, (uint64_t)cpu, 3, true, false);
		}
		out_write(o, "] ", 2);
	}
	if (f & PDPRINT_F_TIME) {
		uint64_t sec = t / 1000000000ULL, nsec = t % 1000000000ULL;
		if (p->o.ns) {
			out_u64_w(o, sec, 5, false, false);
			out_write(o, ".", 1);
			out_u64_w(o, nsec, 9, true, false);
		} else {
			/* "%12s" of "sec.usec" */
			uint64_t s10 = sec;
			int digits = 1;
			while (s10 >= 10) {
				s10 /= 10;
				digits++;
			}
			out_pad(o, 12 - (digits + 7));
			out_u64_w(o, sec, 0, false, false);
			out_write(o, ".", 1);
			out_u64_w(o, nsec / 1000ULL, 6, true, false);
		}
		out_write(o, ": ", 2);
	}
	if (f & PDPRINT_F_EVNAME) {
		out_str_w(o, evname ? evname : "[unknown]", pdprint_name_width(p));
		out_write(o, ": ", 2);
	}
}

/* Does the print format read a common_* field (or call out to a function)? */
static bool args_need_common(struct tep_print_arg *a)
{
	for (; a; a = a->next) {
		struct tep_print_arg *kid[3] = { NULL, NULL, NULL };

		switch (a->type) {
		case TEP_PRINT_FIELD:
			if (!a->field.name || !strncmp(a->field.name, "common_", 7))
				return true;
			break;
		case TEP_PRINT_OP:
			kid[0] = a->op.left;
			kid[1] = a->op.right;
			break;
		case TEP_PRINT_FLAGS:
			kid[0] = a->flags.field;
			break;
		case TEP_PRINT_SYMBOL:
			kid[0] = a->symbol.field;
			break;
		case TEP_PRINT_TYPE:
			kid[0] = a->typecast.item;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			kid[0] = a->hex.field;
			kid[1] = a->hex.size;
			break;
		case TEP_PRINT_INT_ARRAY:
			kid[0] = a->int_array.field;
			kid[1] = a->int_array.count;
			kid[2] = a->int_array.el_size;
			break;
		case TEP_PRINT_ATOM:
		case TEP_PRINT_NULL:
		case TEP_PRINT_STRING:
		case TEP_PRINT_BSTRING:
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			break;
		default:	/* functions and anything new: key on every byte */
			return true;
		}
		for (size_t k = 0; k < 3; k++)
			if (args_need_common(kid[k]))
				return true;
	}
	return false;
}

/* The printer's record of a tracepoint format (made and compiled on first
 * sight); NULL only on allocation failure. */
static struct tp_info *tp_lookup(struct pdprint *p, struct tep_event *ev)
{
	if (p->nr_tps && p->tps[p->last_tp].id == ev->id)
		return &p->tps[p->last_tp];
	for (size_t i = 0; i < p->nr_tps; i++)
		if (p->tps[i].id == ev->id) {
			p->last_tp = i;
			return &p->tps[i];
		}
	int ks = 0;
	if (ev->handler) {
		ks = -1;
	} else if (!args_need_common(ev->print_fmt.args)) {
		int first = INT32_MAX;
		for (struct tep_format_field *fl = ev->format.fields; fl; fl = fl->next)
			if (fl->offset < first)
				first = fl->offset;
		ks = first == INT32_MAX ? 0 : first;
	}
	struct tp_info *n = realloc(p->tps, (p->nr_tps + 1) * sizeof(*n));
	if (!n)
		return NULL;
	p->tps = n;
	struct tp_info *t = &p->tps[p->nr_tps];
	memset(t, 0, sizeof(*t));
	t->id = ev->id;
	t->key_start = ks;
	snprintf(t->name, sizeof(t->name), "%s:%s", ev->system ? ev->system : "?", ev->name ? ev->name : "?");
	if (printfmt_compile(ev, &t->prog, t->why, sizeof(t->why)))
		t->prog = NULL;
	p->last_tp = p->nr_tps++;
	return t;
}

int pdprint_key_start(struct pdprint *p, struct tep_event *ev)
{
	struct tp_info *t = tp_lookup(p, ev);
	return t ? t->key_start : -1;
}

bool pdprint_format_stat(const struct pdprint *p, size_t i, struct pdprint_format_stat *st)
{
	if (i >= p->nr_tps)
		return false;
	const struct tp_info *t = &p->tps[i];
	st->name = t->name;
	st->compiled = t->prog != NULL;
	st->why = t->why;
	st->compiled_samples = t->compiled;
	st->fallback_samples = t->fallback;
	return true;
}

/* libtraceevent's text of s into seq; returns seq's buffer. */
static const char *trace_text_uncached(struct pdprint *p, const struct pdread_sample *s, struct trace_seq *seq,
				       size_t *len)
{
	struct tep_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.ts = s->time;
	rec.cpu = (int)s->cpu;
	rec.size = (int)s->raw_size;
	rec.data = (void *)s->raw;
	trace_seq_reset(seq);
	tep_print_event(pdread_tep(p->r), seq, &rec, "%s", TEP_PRINT_INFO);
	*len = seq->len;
	return seq->buffer;
}

void pdprint_memo_stats(const struct pdprint *p, uint64_t *hits, uint64_t *misses, uint64_t *resets)
{
	*hits = p->memo.hits;
	*misses = p->memo.misses;
	*resets = p->memo.resets;
}

/* Append the tracepoint text of s to o: compiled, else through the memo. */
/* inlined into both callers: the tracepoint line is the hot path */
static inline __attribute__((always_inline)) void trace_text(struct pdprint *p, struct out *o, const struct pdread_evsel *e,
							  const struct pdread_sample *s)
{
	const char *text;
	size_t len;
	struct tp_info *t = tp_lookup(p, e->tp);
	if (t && t->prog) {
		size_t need = printfmt_max_len(t->prog, s->raw_size);
		char *at = o->pos < o->len && o->len - o->pos >= need ? o->buf + o->pos : NULL;
		if (!at && need > p->scratch_cap) {
			char *nb = realloc(p->scratch, need);
			if (nb) {
				p->scratch = nb;
				p->scratch_cap = need;
			}
		}
		if (!at && need <= p->scratch_cap)
			at = p->scratch;
		p->no_defer = at == p->scratch;
		size_t nfix = p->nfix;
		int n = at ? printfmt_run(t->prog, s->raw, s->raw_size, at, &p->symcb) : PRINTFMT_FALLBACK;
		p->no_defer = false;
		if (n < 0)
			p->nfix = nfix;	/* that text is not used */
		if (n >= 0) {
			t->compiled++;
			if (at == p->scratch)
				out_write(o, at, (size_t)n);
			else
				o->pos += (size_t)n;
			return;
		}
		t->fallback++;
	} else if (t) {
		t->fallback++;
	}
	if (pdprint_memo_get(p, e, s->raw, s->raw_size, &text, &len)) {
		out_write(o, text, len);
		return;
	}
	text = trace_text_uncached(p, s, &p->seq, &len);
	out_write(o, text, len);
	pdprint_memo_put(p, e, s->raw, s->raw_size, text, len);
}

/*
 * The default layout ("%16s %5d [%03d] %12s: %*s: ") written with direct
 * stores; the caller checked the room and that every value fits its width.
 */
/* Decimal digits of v. */
static inline int dec_digits(uint64_t v)
{
	int n = 1;
	while (v >= 100) {
		v /= 100;
		n += 2;
	}
	return n + (v >= 10);
}

static size_t fast_prefix(struct pdprint *p, const char *comm, size_t cl, int32_t tid, int32_t cpu, uint64_t t,
			  const char *evname, size_t el, int ew, char *buf)
{
	/* fixed-size stores of spaces cover the padding (the caller gave
	 * 128 bytes of room beyond the name columns) */
	char *o = buf;
	memset(o, ' ', 16);
	bytes_copy(o + 16 - cl, comm, cl);
	o[16] = ' ';
	o += 17;
	int n = dec_digits((uint64_t)tid);
	if (n < 5) {
		memset(o, ' ', 8);
		o += 5 - n;
	}
	o = printfmt_put_dec(o, (uint64_t)tid, n);
	memcpy(o, " [", 2);
	o = printfmt_put_dec(o + 2, (uint64_t)cpu, 3);
	memcpy(o, "] ", 2);
	o += 2;
	uint64_t sec = t / 1000000000ULL, nsec = t % 1000000000ULL;
	n = dec_digits(sec);
	if (p->o.ns) {	/* "%5lu.%09lu" */
		if (n < 5) {
			memset(o, ' ', 8);
			o += 5 - n;
		}
		o = printfmt_put_dec(o, sec, n);
		*o++ = '.';
		o = printfmt_put_dec(o, nsec, 9);
	} else {	/* "%12s" of "sec.usec" */
		if (n + 7 < 12) {
			memset(o, ' ', 16);
			o += 12 - (n + 7);
		}
		o = printfmt_put_dec(o, sec, n);
		*o++ = '.';
		o = printfmt_put_dec(o, nsec / 1000ULL, 6);
	}
	memcpy(o, ": ", 2);
	o += 2;
	if ((int)el < ew) {
		size_t pad = (size_t)ew - el;
		memset(o, ' ', pad <= 16 ? 16 : pad);
		o += pad;
	}
	bytes_copy(o, evname, el);
	o += el;
	memcpy(o, ": ", 2);
	o += 2;
	return (size_t)(o - buf);
}

size_t pdprint_format_prefix(struct pdprint *p, const char *comm, int32_t pid, int32_t tid, int32_t cpu,
			uint64_t time_ns, const char *evname, char *buf, size_t len)
{
	uint32_t f = p->o.fields & ~(uint32_t)PDPRINT_F_TRACE;
	if (f == (PDPRINT_F_COMM | PDPRINT_F_TID | PDPRINT_F_CPU | PDPRINT_F_TIME | PDPRINT_F_EVNAME) && evname && tid >= 0 && cpu >= 0 &&
	    cpu < 1000) {
		size_t cl = strlen(comm), el = strlen(evname);
		int ew = pdprint_name_width(p);
		if (cl <= 16 && len > 128 + el + (size_t)ew)
			return fast_prefix(p, comm, cl, tid, cpu, time_ns, evname, el, ew, buf);
	}
	struct out o = { buf, len, 0 };
	prefix(p, &o, comm, pid, tid, cpu, time_ns, evname);
	return out_done(&o);
}

/* "%16llx sym+0xoff (dso)" of one address. */
static void samp_addr(struct out *o, uint64_t shown, const struct samp_loc *l)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%16llx ", (unsigned long long)shown);
	out_write(o, tmp, (size_t)n);
	if (l->sym) {
		out_write(o, l->sym, strlen(l->sym));
		n = snprintf(tmp, sizeof(tmp), "+0x%llx", (unsigned long long)l->off);
		out_write(o, tmp, (size_t)n);
	} else {
		out_write(o, "[unknown]", 9);
	}
	out_write(o, " (", 2);
	if (l->dso)
		out_write(o, l->dso, strlen(l->dso));
	else
		out_write(o, "[unknown]", 9);
	out_write(o, ")", 1);
}

/*
 * A sampling event's line in perf script's default layout for hardware and
 * software events: comm tid [cpu] time: period event: then " ip sym+off
 * (dso)", or with a callchain one "\tip sym+off (dso)" line per entry (user
 * addresses map-relative) and a blank line; the comm is not padded then.
 */
static void samp_chain(struct pdprint *p, struct out *o, const struct pdread_sample *s)
{
	struct samp_loc l;
	int mode = SAMP_USER;
	for (uint64_t i = 0; i < s->callchain_nr; i++) {	/* a marker perf does not know: it shows no entry */
		uint64_t a = pdread_u64(p->r, s->callchain + 8 * i);
		if (a >= (uint64_t)-4095 && a != (uint64_t)-32 && a != (uint64_t)-128 && a != (uint64_t)-512 &&
		    a != (uint64_t)-2048 && a != (uint64_t)-2176 && a != (uint64_t)-2560) {
			out_write(o, "\n", 1);
			return;
		}
	}
	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t a = pdread_u64(p->r, s->callchain + 8 * i);
		if (a >= (uint64_t)-4095) {	/* PERF_CONTEXT_*: whose addresses follow */
			mode = a == (uint64_t)-128 ? SAMP_KERNEL : a == (uint64_t)-512 ? SAMP_USER : SAMP_OTHER;
			continue;
		}
		pdprint_samp_resolve(p, (int32_t)s->pid, a, mode, &l);
		out_write(o, "\t", 1);
		samp_addr(o, l.shown, &l);
		out_write(o, "\n", 1);
	}
	out_write(o, "\n", 1);
}

/* comm (unpadded: a callchain follows) tid [cpu] time: (no cpu when the
 * sample has none) */
static void samp_prefix(struct pdprint *p, struct out *o, const struct pdread_sample *s, const char *comm,
			uint64_t st, bool chain)
{
	uint32_t f = p->o.fields;
	if (chain) {
		out_write(o, comm, strlen(comm));
		out_write(o, " ", 1);
		p->o.fields &= ~(uint32_t)PDPRINT_F_COMM;
	}
	if (!(st & PDFORMAT_SAMPLE_CPU))
		p->o.fields &= ~(uint32_t)PDPRINT_F_CPU;
	p->o.fields &= ~(uint32_t)PDPRINT_F_EVNAME;
	prefix(p, o, comm, (int32_t)s->pid, (int32_t)s->tid, (int32_t)s->cpu, s->time, NULL);
	p->o.fields = f;
}

/*
 * A sampling event's line in perf script's default layout for hardware and
 * software events: comm tid [cpu] time: period event: then " ip sym+off
 * (dso)", or with a callchain one "\tip sym+off (dso)" line per entry (user
 * addresses map-relative) and a blank line; the comm is not padded then.
 */
static size_t samp_line(struct pdprint *p, const struct pdread_event *ev, const char *comm, char *buf, size_t len)
{
	const struct pdread_sample *s = &ev->sample;
	const struct pdread_evsel *e = ev->evsel;
	uint64_t st = e->attr.sample_type;
	bool chain = st & PDFORMAT_SAMPLE_CALLCHAIN;
	struct out o = { buf, len, 0 };
	if (!pdprint_samp_check(p, e)) {
		out_write(&o, "\n", 1);	/* not used: the caller stops */
		return out_done(&o);
	}
	samp_prefix(p, &o, s, comm, st, chain);
	uint64_t period = (st & PDFORMAT_SAMPLE_PERIOD) ? s->period : e->attr.sample_period;
	out_u64_w(&o, period, 10, false, false);
	out_write(&o, " ", 1);
	const char *name = e->name ? e->name : "[unknown]";
	out_str_w(&o, name, pdprint_name_width(p));
	out_write(&o, ": ", 2);
	if (chain) {
		out_write(&o, "\n", 1);
		samp_chain(p, &o, s);
		return out_done(&o);
	}
	out_write(&o, " ", 1);
	if (st & PDFORMAT_SAMPLE_IP) {
		struct samp_loc l;
		int mode = (ev->misc & 7) == 1 ? SAMP_KERNEL : (ev->misc & 7) == 2 ? SAMP_USER : SAMP_OTHER;
		pdprint_samp_resolve(p, (int32_t)s->pid, s->ip, mode, &l);
		samp_addr(&o, s->ip, &l);
	}
	out_write(&o, "\n", 1);
	return out_done(&o);
}

/* A tracepoint sample with a callchain: the comm unpadded, the trace text,
 * then the callchain and a blank line. */
static size_t tp_chain_line(struct pdprint *p, const struct pdread_event *ev, const char *comm, char *buf, size_t len)
{
	const struct pdread_sample *s = &ev->sample;
	const struct pdread_evsel *e = ev->evsel;
	struct out o = { buf, len, 0 };
	samp_prefix(p, &o, s, comm, e->attr.sample_type, true);
	out_str_w(&o, e->name ? e->name : "[unknown]", pdprint_name_width(p));
	out_write(&o, ": ", 2);
	bool defer = p->o.defer_symbols;
	p->o.defer_symbols = false;	/* the text may land in scratch: symbols now */
	if (s->raw)
		trace_text(p, &o, e, s);
	p->o.defer_symbols = defer;
	out_write(&o, "\n", 1);
	samp_chain(p, &o, s);
	return out_done(&o);
}

/* The sample's line with the task name given. */
static size_t format_with_comm(struct pdprint *p, const struct pdread_event *ev, const char *comm, char *buf,
			       size_t len)
{
	const struct pdread_sample *s = &ev->sample;
	const struct pdread_evsel *e = ev->evsel;
	if (e && !p->user_fields && (!e->tp || (e->attr.sample_type & PDFORMAT_SAMPLE_CALLCHAIN)))
		return e->tp ? tp_chain_line(p, ev, comm, buf, len) : samp_line(p, ev, comm, buf, len);
	size_t nfix = p->nfix;
	size_t n = pdprint_format_prefix(p, comm, (int32_t)s->pid, (int32_t)s->tid, (int32_t)s->cpu, s->time,
				    e ? e->name : NULL, buf, len);
	struct out o = { buf, len, n };
	uint32_t f = p->o.fields;
	if (f & PDPRINT_F_PERIOD) {
		out_u64_w(&o, s->period, 10, false, false);
		out_write(&o, " ", 1);
	}
	if (f & PDPRINT_F_ADDR)
		out_printf(&o, "%16llx ", (unsigned long long)s->addr);
	if ((f & PDPRINT_F_TRACE) && e && e->tp && s->raw)
		trace_text(p, &o, e, s);
	if (f & PDPRINT_F_IP)
		out_printf(&o, "%s%16llx", (f & PDPRINT_F_TRACE) ? " " : "", (unsigned long long)s->ip);
	out_write(&o, "\n", 1);
	if (o.pos >= len)
		p->nfix = nfix;	/* the caller formats this sample again elsewhere */
	return out_done(&o);
}

size_t pdprint_format(struct pdprint *p, const struct pdread_event *ev, char *buf, size_t len)
{
	const struct pdread_sample *s = &ev->sample;
	/* tasks recently printed (direct-mapped by tid): few distinct ones */
	struct comm_cache *c = &p->cc[(s->tid * 0x9e3779b1u) >> 24 & (PDPRINT_COMM_CACHE - 1)];
	uint64_t gen = thread_generation(p->thr);
	if (!c->comm || c->gen != gen || c->pid != s->pid || c->tid != s->tid) {
		c->comm = thread_comm(p->thr, (int32_t)s->pid, (int32_t)s->tid);
		c->gen = thread_generation(p->thr);
		c->pid = s->pid;
		c->tid = s->tid;
	}
	return format_with_comm(p, ev, c->comm, buf, len);
}
