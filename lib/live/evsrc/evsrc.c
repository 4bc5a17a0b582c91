/* SPDX-License-Identifier: MIT */
/* evsrc.c - live tracepoint source: open, close, the events (see evsrc.h). */
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "evsrc_int.h"
#include "base/privhint.h"
#include "format/pdread.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"
#include "live/perfring.h"
#include "live/firecount.h"

void evsrc_seterr(struct evsrc *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

const char *evsrc_strerror(const struct evsrc *s)
{
	return s ? s->err : "out of memory";
}

const struct evsrc_stats *evsrc_stats(const struct evsrc *s)
{
	return &s->st;
}

uint64_t evsrc_lost_cpu(const struct evsrc *s, unsigned cpu)
{
	for (size_t i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].cpu == (int)cpu)
			return s->cpus[i].ring.st.lost;
	return 0;
}

size_t evsrc_nr_events(const struct evsrc *s)
{
	return s->nr_ev;
}

const char *evsrc_event_name(const struct evsrc *s, size_t idx)
{
	return idx < s->nr_ev ? s->ev[idx].name : NULL;
}

int evsrc_event_id(const struct evsrc *s, size_t idx)
{
	return idx < s->nr_ev ? s->ev[idx].id : -1;
}

void evsrc_tp_attr(int id, struct pdformat_attr *p)
{
	memset(p, 0, sizeof(*p));
	p->type = PERF_TYPE_TRACEPOINT;
	p->size = sizeof(struct perf_event_attr);
	p->config = (uint64_t)id;
	p->sample_period = 1;
	p->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	p->flags = (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) |
		   (1ULL << PDFORMAT_ATTR_FLAG_USE_CLOCKID) | (1ULL << PDFORMAT_ATTR_FLAG_DISABLED);
	p->clockid = CLOCK_MONOTONIC;
}

const struct pdformat_attr *evsrc_event_attr(const struct evsrc *s, size_t idx)
{
	return idx < s->nr_ev ? &s->ev[idx].pattr : NULL;
}

size_t evsrc_event_ids(const struct evsrc *s, size_t idx, const uint64_t **ids)
{
	if (idx >= s->nr_ev) {
		*ids = NULL;
		return 0;
	}
	*ids = s->ev[idx].ids;
	return s->ev[idx].nr_ids;
}

struct tep_handle *evsrc_tep(const struct evsrc *s)
{
	return s->tep;
}

void evsrc_set_raw_cb(struct evsrc *s, evsrc_raw_cb cb, void *arg)
{
	s->raw_cb = cb;
	s->raw_arg = arg;
}

int evsrc_describe(struct evsrc *s, struct pdwrite *pw, bool big_endian)
{
	size_t ne = evsrc_nr_events(s);
	const char **names = calloc(ne ? ne : 1, sizeof(*names));
	int err = 0;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < ne && err >= 0; i++) {
		const uint64_t *ids;
		size_t nid = evsrc_event_ids(s, i, &ids);
		names[i] = evsrc_event_name(s, i);
		err = pdwrite_add_evsel(pw, evsrc_event_attr(s, i), names[i], ids, nid);
	}
	if (err >= 0)
		err = tracedata_describe(pw, NULL, names, ne, big_endian);
	free(names);
	return err < 0 ? err : 0;
}

/* The raw callback of evsrc_record_into: the ring's record, header and all,
 * as it came (host order). */
static void record_raw(void *arg, int cpu, int event_idx, const uint8_t *rec, size_t size)
{
	struct evsrc *s = arg;
	uint32_t type;
	uint16_t misc;

	(void)cpu;
	(void)event_idx;
	if (size < 8)
		return;
	memcpy(&type, rec, 4);
	memcpy(&misc, rec + 4, 2);
	if (pdwrite_write_record(s->rec_pw, type, misc, rec + 8, size - 8) < 0 && s->rec_err)
		*s->rec_err = true;
}

void evsrc_record_into(struct evsrc *s, struct pdwrite *pw, bool *write_err)
{
	s->rec_pw = pw;
	s->rec_err = write_err;
	evsrc_set_raw_cb(s, pw ? record_raw : NULL, s);
}

size_t evsrc_pollfds(struct evsrc *s, struct pollfd **fds)
{
	*fds = s->pfd;
	return s->nr_cpus;
}

static void free_event_arrays(const struct evsrc *s, struct evsrc_event *e)
{
	if (e->twin)
		for (size_t c = 0; c < s->nr_cpus; c++)
			if (e->twin[c] >= 0)
				close(e->twin[c]);
	free(e->twin);
	free(e->fired);
	free(e->got);
	free(e->ids);
	e->twin = NULL;
	e->fired = e->got = e->ids = NULL;
}

void evsrc_close(struct evsrc *s)
{
	if (!s)
		return;
	if (s->fds)
		for (size_t i = 0; i < s->nr_fds; i++)
			if (s->fds[i] >= 0)
				close(s->fds[i]);
	if (s->cpus)
		for (size_t c = 0; c < s->nr_cpus; c++) {
			perfring_fini(&s->cpus[c].ring);
			if (s->cpus[c].base && s->cpus[c].base != MAP_FAILED)
				munmap(s->cpus[c].base, s->cpus[c].map_len);
			free(s->cpus[c].q);
		}
	for (size_t i = 0; i < s->nr_ev; i++)
		free_event_arrays(s, &s->ev[i]);
	free(s->cpus);
	free(s->fds);
	free(s->pfd);
	free(s->tmp);
	tpdecode_free(s->tpd);
	if (s->tep)
		tep_free(s->tep);
	free(s);
}

static int split_spec(const char *spec, char *sys, size_t syslen, char *ev, size_t evlen)
{
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec || !colon[1] || (size_t)(colon - spec) >= syslen ||
	    strlen(colon + 1) >= evlen)
		return -EINVAL;
	memcpy(sys, spec, (size_t)(colon - spec));
	sys[colon - spec] = 0;
	strcpy(ev, colon + 1);
	return 0;
}

static int perf_open_group(struct perf_event_attr *a, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* A sampling (period 1), disabled tracepoint event of id with sample_type t. */
static void tp_attr(struct perf_event_attr *a, int id, uint64_t t)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = (uint64_t)id;
	a->sample_period = 1;
	a->sample_type = t;
	a->disabled = 1;
}

static int perf_open(struct perf_event_attr *a, int cpu)
{
	long fd = syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* Expand the specs against the tep into s->ev. */
static int expand_events(struct evsrc *s, const char *const *events, size_t nr)
{
	int nr_tep = tep_get_events_count(s->tep);
	struct tep_event **all = tep_list_events(s->tep, TEP_EVENT_SORT_ID);
	if (!all && nr_tep > 0) {
		evsrc_seterr(s, "cannot list the tracepoint formats");
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		const char *spec = events[i];
		bool optional = spec[0] == '?';
		char sys[64], name[96];
		if (optional)
			spec++;
		if (split_spec(spec, sys, sizeof(sys), name, sizeof(name)) < 0) {
			evsrc_seterr(s, "bad event name '%s': use system:event", events[i]);
			return -EINVAL;
		}
		size_t found = 0;
		for (int k = 0; k < nr_tep; k++) {
			struct tep_event *e = all[k];
			if (!e->system || !e->name || strcmp(e->system, sys) ||
			    fnmatch(name, e->name, 0))
				continue;
			bool dup = false;
			for (size_t j = 0; j < s->nr_ev; j++)
				dup |= s->ev[j].id == e->id;
			found++;
			if (dup)
				continue;
			if (s->nr_ev == EVSRC_MAX_EVENTS) {
				evsrc_seterr(s, "too many events (at most %d)", EVSRC_MAX_EVENTS);
				return -E2BIG;
			}
			struct evsrc_event *d = &s->ev[s->nr_ev++];
			snprintf(d->name, sizeof(d->name), "%s:%s", e->system, e->name);
			d->id = e->id;
			d->may_skip = optional || strpbrk(name, "*?[") != NULL;
		}
		if (!found && !optional) {
			evsrc_seterr(s, "tracepoint '%s' not found in tracefs (is the kernel built with it? "
				  "see %s/available_events)", spec, tracefs_tracing_dir() ?: "tracefs");
			return -ENOENT;
		}
	}
	if (!s->nr_ev) {
		evsrc_seterr(s, "none of the requested tracepoints exists on this kernel");
		return -ENOENT;
	}
	return 0;
}

/* The systems named by the specs, NULL-terminated in systems (pointing into
 * sysbuf): only their formats are parsed.  0, or a negative errno (the
 * error text set). */
static int spec_systems(struct evsrc *s, const char *const *events, size_t nr,
			const char *systems[EVSRC_MAX_SYSTEMS + 1], char sysbuf[EVSRC_MAX_SYSTEMS][64])
{
	size_t nsys = 0;
	for (size_t i = 0; i < nr; i++) {
		char sys[64], name[96];
		const char *spec = events[i][0] == '?' ? events[i] + 1 : events[i];
		if (split_spec(spec, sys, sizeof(sys), name, sizeof(name)) < 0) {
			evsrc_seterr(s, "bad event name '%s': use system:event", events[i]);
			return -EINVAL;
		}
		bool have = false;
		for (size_t k = 0; k < nsys; k++)
			have |= !strcmp(sysbuf[k], sys);
		if (have)
			continue;
		if (nsys == EVSRC_MAX_SYSTEMS) {
			evsrc_seterr(s, "too many tracepoint systems");
			return -E2BIG;
		}
		strcpy(sysbuf[nsys], sys);
		systems[nsys] = sysbuf[nsys];
		nsys++;
	}
	systems[nsys] = NULL;
	return 0;
}

/* s->tep: the formats of the specs' systems read from tracefs.  0, or a
 * negative errno (the error text set, with the hint of privhint). */
static int load_formats(struct evsrc *s, const char *const *events, size_t nr)
{
	const char *systems[EVSRC_MAX_SYSTEMS + 1];
	char sysbuf[EVSRC_MAX_SYSTEMS][64];
	int err = spec_systems(s, events, nr, systems, sysbuf);
	if (err < 0)
		return err;
	errno = 0;
	s->tep = tracefs_local_events_system(NULL, systems);
	if (!s->tep) {
		err = errno ? -errno : -ENOENT;
		char hint[384];
		privhint_tracepoints(hint, sizeof(hint), tracefs_tracing_dir());
		evsrc_seterr(s, "cannot read the tracepoint formats from tracefs (%s): %s%s%s",
		       tracefs_tracing_dir() ?: "not mounted", strerror(-err), hint[0] ? "; " : "",
		       hint[0] ? hint : !tracefs_tracing_dir() ?
		       "mount it: mount -t tracefs nodev /sys/kernel/tracing" : "");
		return err;
	}
	return 0;
}

/* The per-CPU arrays of the source (cpus, fds all -1, pfd) and of each
 * event (ids, twins all -1, fired, got); s owns them, evsrc_close frees
 * them, also when one is missing.  0, -EINVAL (empty set) or -ENOMEM. */
static int alloc_per_cpu(struct evsrc *s, const struct parse_cpuset *cpus)
{
	s->nr_cpus = parse_cpuset_count(cpus);
	if (!s->nr_cpus) {
		evsrc_seterr(s, "empty CPU set");
		return -EINVAL;
	}
	s->cpus = calloc(s->nr_cpus, sizeof(*s->cpus));
	s->fds = malloc(s->nr_ev * s->nr_cpus * sizeof(int));
	s->pfd = calloc(s->nr_cpus, sizeof(*s->pfd));
	if (!s->cpus || !s->fds || !s->pfd)
		return -ENOMEM;
	s->nr_fds = s->nr_ev * s->nr_cpus;
	for (size_t i = 0; i < s->nr_fds; i++)
		s->fds[i] = -1;
	for (size_t i = 0; i < s->nr_ev; i++) {
		struct evsrc_event *e = &s->ev[i];
		e->ids = calloc(s->nr_cpus, sizeof(uint64_t));
		e->twin = malloc(s->nr_cpus * sizeof(int));
		e->fired = calloc(s->nr_cpus, sizeof(uint64_t));
		e->got = calloc(s->nr_cpus, sizeof(uint64_t));
		if (!e->ids || !e->twin || !e->fired || !e->got)
			return -ENOMEM;
		for (size_t c = 0; c < s->nr_cpus; c++)
			e->twin[c] = -1;
	}
	return 0;
}

/* Events of globs/optional specs the kernel refuses (a trial open on the
 * set's first CPU, closed again) are marked skipped, and noted. */
static void skip_refused(struct evsrc *s, const struct parse_cpuset *cpus)
{
	unsigned first_cpu = 0;
	while (first_cpu < PARSE_MAX_CPUS && !parse_cpuset_has(cpus, first_cpu))
		first_cpu++;
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (!s->ev[i].may_skip)
			continue;
		struct perf_event_attr a;
		tp_attr(&a, s->ev[i].id, PERF_SAMPLE_RAW);
		int fd = perf_open(&a, (int)first_cpu);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		s->ev[i].skipped = true;
		size_t l = strlen(s->note);
		snprintf(s->note + l, sizeof(s->note) - l, "%s%s (%s)", l ? ", " : "", s->ev[i].name,
			 strerror(-fd));
	}
}

/* An _entry/_exit pair is kept or left out together (half a pair would
 * leave windows open): the partner of a skipped event is skipped too, and
 * noted. */
static void skip_partners(struct evsrc *s)
{
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (!s->ev[i].skipped)
			continue;
		char partner[sizeof(s->ev[i].name)];
		size_t n = strlen(s->ev[i].name);
		if (n > 6 && !strcmp(s->ev[i].name + n - 6, "_entry"))
			snprintf(partner, sizeof(partner), "%.*s_exit", (int)(n - 6), s->ev[i].name);
		else if (n > 5 && !strcmp(s->ev[i].name + n - 5, "_exit"))
			snprintf(partner, sizeof(partner), "%.*s_entry", (int)(n - 5), s->ev[i].name);
		else
			continue;
		for (size_t j = 0; j < s->nr_ev; j++)
			if (!s->ev[j].skipped && !strcmp(s->ev[j].name, partner)) {
				s->ev[j].skipped = true;
				size_t l = strlen(s->note);
				snprintf(s->note + l, sizeof(s->note) - l, "%s%s (its pair was refused)",
					 l ? ", " : "", s->ev[j].name);
			}
	}
}

/* The ring of CPU index ci mapped on its group leader fd (pages data pages
 * and the header page), walked by c->ring and polled through s->pfd[ci].
 * A failed map leaves c->base NULL; the fd is in s->fds and closed with
 * the source.  0 or a negative errno (the error text set). */
static int map_ring(struct evsrc *s, struct evsrc_cpu *c, size_t ci, int fd, size_t pages)
{
	c->ring_fd = fd;
	c->data_len = pages * s->page;
	c->map_len = c->data_len + s->page;
	c->base = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c->base == MAP_FAILED) {
		int err = -errno;
		c->base = NULL;
		evsrc_seterr(s, "mmap of a %zu KiB ring on cpu %u: %s; use a smaller ring "
			  "or raise /proc/sys/kernel/perf_event_mlock_kb",
		       c->data_len >> 10, (unsigned)c->cpu, strerror(errno));
		return err;
	}
	int err = perfring_init(&c->ring, c->base, s->page, c->data_len, s->tmp);
	if (err < 0)
		return err;
	s->pfd[ci].fd = fd;
	s->pfd[ci].events = POLLIN;
	return 0;
}

/* Event i opened on CPU index ci into c's group: the first event opened
 * leads the group and gets the ring (pages), the others write into it.
 * Its fd goes to s->fds, its id to the event's ids, its counting twin
 * (when the twins still count) to its twin[ci].  0 or a negative errno
 * (the error text set); what was opened is s's to close. */
static int open_member(struct evsrc *s, struct evsrc_cpu *c, size_t ci, size_t i, size_t pages)
{
	unsigned cpu = (unsigned)c->cpu;
	struct perf_event_attr a;
	tp_attr(&a, s->ev[i].id, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW);
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(pages * s->page / 4);
	/* One group per CPU: the members follow the leader, so
	 * enabling is one atomic step per CPU (no half-enabled
	 * entry/exit pairs, one IPI instead of one per event). */
	if (c->ring_fd >= 0)
		a.disabled = 0;
	bool tracker = s->opts.track_tasks && c->ring_fd < 0;
	if (tracker)
		a.comm = a.task = a.comm_exec = 1;
	int fd = perf_open_group(&a, (int)cpu, c->ring_fd);
	if (fd < 0) {
		char hint[384] = "";
		if (fd == -EACCES || fd == -EPERM)
			privhint_tracepoints(hint, sizeof(hint), tracefs_tracing_dir());
		evsrc_seterr(s, "perf_event_open(%s, cpu %u): %s%s%s", s->ev[i].name, cpu,
		       strerror(-fd), hint[0] ? "; " : "", hint);
		return fd;
	}
	s->fds[i * s->nr_cpus + ci] = fd;
	uint64_t id = 0;
	int err;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
		err = -errno;
		evsrc_seterr(s, "PERF_EVENT_IOC_ID: %s", strerror(errno));
		return err;
	}
	s->ev[i].ids[s->ev[i].nr_ids++] = id;
	/* Host-order copy of the attr for the sample parser/recorder. */
	evsrc_tp_attr(s->ev[i].id, &s->ev[i].pattr);
	if (tracker)	/* the same event leads every CPU's group */
		s->ev[i].pattr.flags |= (1ULL << PDFORMAT_ATTR_FLAG_COMM) |
					(1ULL << PDFORMAT_ATTR_FLAG_TASK) |
					(1ULL << PDFORMAT_ATTR_FLAG_COMM_EXEC);
	if (c->ring_fd < 0) {
		err = map_ring(s, c, ci, fd, pages);
		if (err < 0)
			return err;
	} else {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->ring_fd) < 0) {
			err = -errno;
			evsrc_seterr(s, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
			return err;
		}
	}
	/* its counting twin, in the group: enabled and disabled with it */
	if (s->st.counting) {
		int t = firecount_open(&a, (int)cpu, c->ring_fd);
		if (t < 0)
			evsrc_twins_off(s, "the counting events could not be opened", t);
		else
			s->ev[i].twin[ci] = t;
	}
	return 0;
}

/* Every event not skipped opened on every CPU of the set, a group and a
 * ring of pages per CPU (s->cpus in the set's order, each with its reorder
 * queue).  0 or a negative errno; what was opened is s's to close. */
static int open_cpus(struct evsrc *s, const struct parse_cpuset *cpus, size_t pages)
{
	size_t ci = 0;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS && ci < s->nr_cpus; cpu++) {
		if (!parse_cpuset_has(cpus, cpu))
			continue;
		struct evsrc_cpu *c = &s->cpus[ci];
		c->cpu = (int)cpu;
		c->owner = s;
		c->ring_fd = -1;
		c->q = malloc(s->opts.queue_events * sizeof(struct tpevent));
		if (!c->q)
			return -ENOMEM;
		for (size_t i = 0; i < s->nr_ev; i++) {
			if (s->ev[i].skipped)
				continue;
			int err = open_member(s, c, ci, i, pages);
			if (err < 0)
				return err;
		}
		ci++;
	}
	return 0;
}

/* Compact the skipped events out of the list (their arrays freed; they
 * opened no fd).  -EPERM when none is left, with the note as the error. */
static int drop_skipped(struct evsrc *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->nr_ev; i++) {
		if (s->ev[i].skipped) {
			free_event_arrays(s, &s->ev[i]);
			continue;
		}
		s->ev[k++] = s->ev[i];
	}
	s->nr_ev = k;
	s->first_ok = 0;
	if (!k) {
		evsrc_seterr(s, "no tracepoint could be opened: %s", s->note);
		return -EPERM;
	}
	return 0;
}

/* Every step stores what it opened in s at once, so on any failure the
 * caller's evsrc_close frees it all. */
int evsrc_open(struct evsrc **sp, const char *const *events, size_t nr, const struct parse_cpuset *cpus,
	     const struct evsrc_opts *opts)
{
	int err;
	struct evsrc *s = calloc(1, sizeof(*s));
	*sp = s;
	if (!s)
		return -ENOMEM;
	if (opts)
		s->opts = *opts;
	if (!s->opts.ring_bytes)
		s->opts.ring_bytes = EVSRC_DEFAULT_RING_BYTES;
	if (!s->opts.queue_events)
		s->opts.queue_events = 32768;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->tmp = malloc(PERFRING_MAX_RECORD);
	if (!s->tmp)
		return -ENOMEM;

	err = load_formats(s, events, nr);
	if (err < 0)
		return err;
	err = expand_events(s, events, nr);
	if (err < 0)
		return err;
	s->tpd = tpdecode_new(s->tep);
	if (!s->tpd) {
		evsrc_seterr(s, "out of memory");
		return -ENOMEM;
	}
	err = alloc_per_cpu(s, cpus);
	if (err < 0)
		return err;
	s->st.counting = true;

	skip_refused(s, cpus);
	skip_partners(s);

	size_t pages = 1;
	while (pages * s->page < s->opts.ring_bytes && pages < (1u << 20))
		pages <<= 1;
	err = open_cpus(s, cpus, pages);
	if (err < 0)
		return err;
	return drop_skipped(s);
}

const char *evsrc_note(const struct evsrc *s)
{
	return s->note;
}

static int ioctl_all(struct evsrc *s, unsigned long req)
{
	for (size_t i = 0; i < s->nr_cpus; i++)
		if (s->cpus[i].ring_fd >= 0 && ioctl(s->cpus[i].ring_fd, req, PERF_IOC_FLAG_GROUP) < 0) {
			int err = -errno;
			evsrc_seterr(s, "perf ioctl: %s", strerror(errno));
			return err;
		}
	return 0;
}

int evsrc_enable(struct evsrc *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int evsrc_disable(struct evsrc *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int evsrc_poll(struct evsrc *s, int timeout_ms)
{
	int r = poll(s->pfd, s->nr_cpus, timeout_ms);
	return r < 0 ? -errno : r;
}
