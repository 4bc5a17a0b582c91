/* SPDX-License-Identifier: MIT */
/*
 * pdread_tdata.c - the perf.data reader's tracing data: the event formats for
 * libtraceevent, parsed first in a checking child (a malformed format must
 * not crash latscope).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "pdread_int.h"

/* ----------------------------------------------------------- tracing data */

struct blob {
	const uint8_t *p, *end;
	bool swap;
	bool bad;
};

static const uint8_t *blob_take(struct blob *b, uint64_t n)
{
	if ((uint64_t)(b->end - b->p) < n) {
		b->bad = true;
		return NULL;
	}
	const uint8_t *at = b->p;
	b->p += n;
	return at;
}

static uint32_t blob_u32(struct blob *b)
{
	const uint8_t *p = blob_take(b, 4);
	return p ? bytes_ld32(p, b->swap) : 0;
}

static uint64_t blob_u64(struct blob *b)
{
	const uint8_t *p = blob_take(b, 8);
	return p ? bytes_ld64(p, b->swap) : 0;
}

static const char *blob_str(struct blob *b)
{
	const uint8_t *nul = memchr(b->p, 0, (size_t)(b->end - b->p));
	if (!nul) {
		b->bad = true;
		return NULL;
	}
	const char *s = (const char *)b->p;
	b->p = nul + 1;
	return s;
}

/* Copy a length-delimited text into a NUL-terminated scratch buffer. */
static char *dup_text(const uint8_t *p, uint64_t len)
{
	char *s = malloc((size_t)len + 1);
	if (!s)
		return NULL;
	memcpy(s, p, (size_t)len);
	s[len] = '\0';
	return s;
}

/*
 * printk formats: lines "0xaddr : \"format\"".  Parsed here, line by line
 * with every bound checked, and registered one by one.
 */
static void register_printk(struct tep_handle *tep, const uint8_t *p, uint64_t len)
{
	const char *s = (const char *)p, *end = s + len;
	char fmt[4096];
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		const char *colon = memchr(s, ':', (size_t)(le - s));
		if (colon) {
			unsigned long long addr = 0;
			const char *q = s;
			if (q + 2 <= colon && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
				q += 2;
			bool ok = q < colon;
			for (; q < colon && *q != ' '; q++) {
				int d = (*q >= '0' && *q <= '9') ? *q - '0' :
					(*q >= 'a' && *q <= 'f') ? *q - 'a' + 10 :
					(*q >= 'A' && *q <= 'F') ? *q - 'A' + 10 : -1;
				if (d < 0) {
					ok = false;
					break;
				}
				addr = addr * 16 + (unsigned)d;
			}
			const char *f = colon + 1;
			while (f < le && *f == ' ')
				f++;
			const char *fe = le;
			if (f < fe && *f == '"')
				f++;
			if (fe > f && fe[-1] == '"')
				fe--;
			size_t fl = (size_t)(fe - f);
			/* libtraceevent looks 3 bytes back from a format's end: shorter
			 * ones would make it read out of bounds, so they are skipped. */
			if (ok && fl >= 3 && fl < sizeof(fmt)) {
				memcpy(fmt, f, fl);
				fmt[fl] = '\0';
				if (strlen(fmt) >= 3)	/* an embedded NUL shortens it */
					tep_register_print_string(tep, fmt, addr);
			}
		}
		s = le + 1;
	}
}

/* saved_cmdlines: lines "pid comm". */
static void register_cmdlines(struct tep_handle *tep, const uint8_t *p, uint64_t len)
{
	const char *s = (const char *)p, *end = s + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		char line[64];
		size_t l = (size_t)(le - s);
		if (l < sizeof(line)) {
			memcpy(line, s, l);
			line[l] = '\0';
			int pid;
			char comm[32];
			if (sscanf(line, "%d %31[^\n]", &pid, comm) == 2)
				tep_register_comm(tep, comm, pid);
		}
		s = le + 1;
	}
}

/*
 * Verdicts on each libtraceevent call (header page, then every format in
 * order): the checking child records them, the parent skips what failed.
 */
#define TD_MAX_VERDICTS 65536
struct td_verdicts {
	uint8_t *v;		/* 1 = the library rejected it */
	size_t n, cap;
	bool record;		/* child: record; parent: consult */
};

/* Whether call number i may go to the library (parent), recording rc (child). */
static bool td_allowed(struct td_verdicts *tv, size_t i)
{
	if (!tv || tv->record)
		return true;
	return i >= tv->n || !tv->v[i];
}

static void td_note(struct td_verdicts *tv, size_t i, int rc)
{
	if (!tv || !tv->record || i >= TD_MAX_VERDICTS)
		return;
	if (i >= tv->cap) {
		size_t ncap = tv->cap ? tv->cap * 2 : 256;
		uint8_t *n = realloc(tv->v, ncap);
		if (!n)
			return;
		tv->v = n;
		tv->cap = ncap;
	}
	tv->v[i] = rc != 0;
	if (i + 1 > tv->n)
		tv->n = i + 1;
}

/* The tracing data's preamble: what the rest is read with. */
struct td_preamble {
	const char *version;	/* points into the blob */
	bool big_endian;
	int long_size;		/* 4 or 8 */
	uint32_t page_size;
};

/*
 * Read the preamble (magic, "tracing", version, byte order, long size, page
 * size) into *pre and set b->swap from its byte order.  0, or the failure
 * reported at off (the section's start).
 */
static int read_preamble(struct pdread *r, struct blob *b, uint64_t off, struct td_preamble *pre)
{
	static const uint8_t magic[3] = { 0x17, 0x08, 0x44 };
	const uint8_t *m = blob_take(b, 3);
	const uint8_t *tag = blob_take(b, 7);
	if (!m || memcmp(m, magic, 3) || !tag || memcmp(tag, "tracing", 7))
		return pdread_fail(r, -EINVAL, off, "tracing data has a bad magic");
	pre->version = blob_str(b);
	const uint8_t *flags = blob_take(b, 2);
	if (!pre->version || !flags)
		return pdread_fail(r, -EINVAL, off, "tracing data is truncated");
	pre->big_endian = flags[0] != 0;
	pre->long_size = flags[1];
	b->swap = pre->big_endian != (bool)BYTES_HOST_BIG_ENDIAN;
	pre->page_size = blob_u32(b);
	if (b->bad || (pre->long_size != 4 && pre->long_size != 8))
		return pdread_fail(r, -EINVAL, off, "tracing data has a bad long size %d", pre->long_size);
	return 0;
}

/* A libtraceevent handle set up for the preamble's machine; the caller
 * frees it (tep_free).  NULL when out of memory. */
static struct tep_handle *new_tep(const struct td_preamble *pre)
{
	struct tep_handle *tep = tep_alloc();
	if (!tep)
		return NULL;
	tep_set_flag(tep, TEP_NSEC_OUTPUT);
	tep_set_file_bigendian(tep, pre->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, BYTES_HOST_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, pre->long_size);
	tep_set_page_size(tep, (int)pre->page_size);
	return tep;
}

/*
 * One event format (u64 size, then its text) of system sys, given to the
 * library when the verdicts allow call number *call (which counts on).  A
 * truncated one sets b->bad; a NULL sys (its name was truncated) is read
 * past but not parsed.
 */
static void parse_format(struct tep_handle *tep, struct blob *b, struct td_verdicts *tv, size_t *call,
			 const char *sys)
{
	uint64_t sz = blob_u64(b);
	const uint8_t *txt = blob_take(b, sz);
	if (txt && sys && td_allowed(tv, *call))
		td_note(tv, *call, tep_parse_event(tep, (const char *)txt, (unsigned long)sz, sys));
	(*call)++;
}

static int parse_tracing_data_unchecked(struct pdread *r, const uint8_t *data, uint64_t len, uint64_t off,
					struct td_verdicts *tv, struct tep_handle **out)
{
	size_t call = 0;
	struct blob b = { .p = data, .end = data + len };
	struct td_preamble pre = { 0 };	/* zeroed for gcc: it cannot tell read_preamble fills it */
	int err = read_preamble(r, &b, off, &pre);
	if (err)
		return err;

	struct tep_handle *tep = new_tep(&pre);
	if (!tep)
		return -ENOMEM;

	err = -EINVAL;
	const char *what = "header_page";
	const uint8_t *name = blob_take(&b, 12);
	if (!name || memcmp(name, "header_page", 12))
		goto bad;
	uint64_t sz = blob_u64(&b);
	const uint8_t *txt = blob_take(&b, sz);
	if (!txt)
		goto bad;
	char *s = dup_text(txt, sz);
	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	if (td_allowed(tv, call))
		td_note(tv, call, tep_parse_header_page(tep, s, (unsigned long)sz, pre.long_size));
	call++;
	free(s);

	what = "header_event";
	name = blob_take(&b, 13);
	if (!name || memcmp(name, "header_event", 13))
		goto bad;
	sz = blob_u64(&b);
	if (!blob_take(&b, sz))
		goto bad;

	what = "ftrace formats";
	uint32_t n = blob_u32(&b);
	for (uint32_t i = 0; i < n && !b.bad; i++)
		parse_format(tep, &b, tv, &call, "ftrace");
	if (b.bad)
		goto bad;

	what = "event formats";
	uint32_t nsys = blob_u32(&b);
	for (uint32_t i = 0; i < nsys && !b.bad; i++) {
		const char *sys = blob_str(&b);
		uint32_t nev = blob_u32(&b);
		for (uint32_t j = 0; j < nev && !b.bad; j++)
			parse_format(tep, &b, tv, &call, sys);
	}
	if (b.bad)
		goto bad;

	what = "kallsyms";
	sz = blob_u32(&b);
	if (!blob_take(&b, sz))
		goto bad;

	what = "printk formats";
	sz = blob_u32(&b);
	txt = blob_take(&b, sz);
	if (!txt)
		goto bad;
	register_printk(tep, txt, sz);
	if (strcmp(pre.version, "0.6") >= 0 && b.p < b.end) {
		what = "saved cmdlines";
		sz = blob_u64(&b);
		txt = blob_take(&b, sz);
		if (!txt)
			goto bad;
		register_cmdlines(tep, txt, sz);
	}
	*out = tep;
	return 0;
bad:
	err = pdread_fail(r, -EINVAL, off, "tracing data is truncated in its %s", what);
out:
	tep_free(tep);
	return err;
}

/*
 * libtraceevent's format parser can crash on a corrupted format text (seen
 * in fuzzing: a NULL dereference inside tep_parse_event).  A file must never
 * crash latscope, so the blob is parsed once in a child process first; if the
 * child dies or hangs, the file is rejected with a clear error.
 */
/* Parse and install the handle as the reader's formats. */
static int parse_and_install(struct pdread *r, const uint8_t *data, uint64_t len, uint64_t off,
			     struct td_verdicts *tv)
{
	struct tep_handle *tep;
	int err = parse_tracing_data_unchecked(r, data, len, off, tv, &tep);
	if (err)
		return err;
	if (r->tep)
		tep_free(r->tep);
	r->tep = tep;
	return 0;
}

int pdread_parse_tracing_data(struct pdread *r, const uint8_t *data, uint64_t len, uint64_t off)
{
	int fds[2];
	if (pipe(fds) < 0)
		return parse_and_install(r, data, len, off, NULL);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* default actions: a crash must kill the child, whatever handlers
		 * (test frameworks, sanitizers) the parent installed */
		static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		close(fds[0]);
		struct td_verdicts tv = { .record = true };
		struct tep_handle *tep;
		int rc = parse_tracing_data_unchecked(r, data, len, off, &tv, &tep);
		size_t done = 0;
		while (done < tv.n) {
			ssize_t w = write(fds[1], tv.v + done, tv.n - done);
			if (w <= 0)
				break;
			done += (size_t)w;
		}
		_exit(rc ? 3 : 0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return parse_and_install(r, data, len, off, NULL);
	}
	struct td_verdicts tv = { .record = false };
	uint8_t chunk[4096];
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		int pr = poll(&pfd, 1, 20000);
		if (pr == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(fds[0]);
			free(tv.v);
			return pdread_fail(r, -EINVAL, off, "tracing data makes libtraceevent hang (malformed event formats)");
		}
		if (pr < 0 && errno == EINTR)
			continue;
		ssize_t n = read(fds[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		uint8_t *nv = realloc(tv.v, tv.n + (size_t)n);
		if (!nv)
			break;
		tv.v = nv;
		memcpy(tv.v + tv.n, chunk, (size_t)n);
		tv.n += (size_t)n;
		if (tv.n > TD_MAX_VERDICTS)
			break;
	}
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int err;
	if (WIFSIGNALED(status))
		err = pdread_fail(r, -EINVAL, off, "tracing data makes libtraceevent crash (malformed event formats, signal %d)",
				WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)
		err = pdread_fail(r, -EINVAL, off, "tracing data makes libtraceevent fail (malformed event formats)");
	else
		err = parse_and_install(r, data, len, off, &tv);
	if (!err) {
		/* kept so that other threads can have a handle of their own */
		free(r->td_blob);
		free(r->td_v);
		r->td_blob = malloc(len ? (size_t)len : 1);
		if (r->td_blob)
			memcpy(r->td_blob, data, (size_t)len);
		r->td_len = (size_t)len;
		r->td_v = tv.v;
		r->td_nv = tv.n;
		tv.v = NULL;
	}
	free(tv.v);
	return err;
}

struct tep_handle *pdread_tep_new(struct pdread *r)
{
	if (!r->tep || !r->td_blob)
		return NULL;
	struct td_verdicts tv = { .v = r->td_v, .n = r->td_nv, .record = false };
	struct tep_handle *t;
	char saved[sizeof(r->err)];
	memcpy(saved, r->err, sizeof(saved));	/* a failure here is not the file's error */
	int err = parse_tracing_data_unchecked(r, r->td_blob, r->td_len, 0, &tv, &t);
	memcpy(r->err, saved, sizeof(saved));
	return err ? NULL : t;
}
