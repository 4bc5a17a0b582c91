/* SPDX-License-Identifier: MIT */
/* noise.c - OS-noise accounting (see noise.h).  Pure: no I/O. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/noise.h"

#define NOISE_MAX_DEPTH	8	/* nested NMI/IRQ/softirq windows per CPU */
#define NOISE_HISTORY	256	/* closed windows remembered per CPU (power of 2) */
#define NOISE_CONTRIBS_MIN	256	/* contributor slots per CPU at first (power of 2) */
#define NOISE_CONTRIBS_MAX	4096	/* ... grown up to (power of 2): then the smallest of
					 * a sample is evicted (a fork-heavy load names
					 * thousands of short tasks; a late, large
					 * contributor must still get a slot) */
#define NOISE_EVICT_SAMPLE	16	/* entries looked at for the one to evict */

struct open_win {
	enum noise_class cls;
	enum tpevent_kind exit_kind;	/* the event that closes it */
	int32_t id;
	char name[TPEVENT_NAME_LEN];
	uint64_t arrival_ns;
	uint64_t delta_start_ns;
	bool unseen_start;
};

struct ncpu {
	struct open_win stack[NOISE_MAX_DEPTH];
	unsigned depth;
	bool thread_open;
	struct open_win thread;
	int32_t workload_tid;
	int32_t cur_pid;		/* the task the last sched_switch put on */
	bool cur_known;
	bool in_period;
	struct noise_stats period;
	struct noise_stats total;
	struct noise_win hist[NOISE_HISTORY];
	uint64_t hist_head;		/* windows ever added */
	uint64_t last_gap_end_ns;
	/* the contributors: open addressing, linear probing, cap slots (0
	 * until the first), at most 3/4 used; list: their compacted copy for
	 * noise_contribs.  Freed by noise_free. */
	struct noise_contrib *contrib;
	bool *contrib_used;
	struct noise_contrib *list;
	unsigned contrib_cap, contrib_n;
	uint32_t evict_seed;		/* the eviction sample's generator */
};

struct noise {
	struct noise_opts opts;
	struct noise_sink sink;
	bool has_sink;
	unsigned nr_cpus;
	struct noise_anomalies anom;
	struct ncpu *cpus;
};

static const char *const class_names[NOISE_NR_CLASSES] = { "nmi", "irq", "softirq", "thread" };
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"
};

const char *noise_class_name(enum noise_class c)
{
	return (unsigned)c < NOISE_NR_CLASSES ? class_names[c] : "?";
}

const char *noise_softirq_name(uint32_t vec)
{
	return vec < sizeof(softirq_names) / sizeof(softirq_names[0]) ? softirq_names[vec] : "?";
}

uint64_t noise_avail_e5(uint64_t runtime_us, uint64_t noise_us)
{
	if (!runtime_us)
		return 0;
	if (noise_us > runtime_us)
		noise_us = runtime_us;
	return (runtime_us - noise_us) * 10000000ULL / runtime_us;
}

int noise_new(struct noise **np, unsigned nr_cpus, const struct noise_opts *opts,
	      const struct noise_sink *sink)
{
	*np = NULL;
	if (!nr_cpus || nr_cpus > 65536)
		return -EINVAL;
	struct noise *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->cpus = calloc(nr_cpus, sizeof(*n->cpus));
	if (!n->cpus) {
		free(n);
		return -ENOMEM;
	}
	if (opts)
		n->opts = *opts;
	if (!n->opts.threshold_ns)
		n->opts.threshold_ns = 1000;
	if (sink) {
		n->sink = *sink;
		n->has_sink = true;
	}
	n->nr_cpus = nr_cpus;
	for (unsigned i = 0; i < nr_cpus; i++)
		n->cpus[i].workload_tid = -1;
	*np = n;
	return 0;
}

void noise_free(struct noise *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < n->nr_cpus; i++) {
		free(n->cpus[i].contrib);
		free(n->cpus[i].contrib_used);
		free(n->cpus[i].list);
	}
	free(n->cpus);
	free(n);
}

unsigned noise_nr_cpus(const struct noise *n)
{
	return n->nr_cpus;
}

const struct noise_opts *noise_opts(const struct noise *n)
{
	return &n->opts;
}

const struct noise_anomalies *noise_anomalies(const struct noise *n)
{
	return &n->anom;
}

int noise_set_workload(struct noise *n, unsigned cpu, int32_t tid)
{
	if (cpu >= n->nr_cpus)
		return -EINVAL;
	n->cpus[cpu].workload_tid = tid;
	return 0;
}

const struct noise_stats *noise_cpu_stats(const struct noise *n, unsigned cpu)
{
	return cpu < n->nr_cpus ? &n->cpus[cpu].total : NULL;
}

const struct noise_stats *noise_cpu_period(const struct noise *n, unsigned cpu)
{
	return cpu < n->nr_cpus ? &n->cpus[cpu].period : NULL;
}

/* FNV-1a over class, id and name. */
static unsigned contrib_hash(enum noise_class cls, int32_t id, const char *name)
{
	uint32_t h = 2166136261u;
	h = (h ^ (uint32_t)cls) * 16777619u;
	h = (h ^ (uint32_t)id) * 16777619u;
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return h;
}

/* The slot of (cls, id, name) in c's table, or the unused slot where it
 * would go. */
static unsigned contrib_find(const struct ncpu *c, enum noise_class cls, int32_t id, const char *name)
{
	unsigned mask = c->contrib_cap - 1, s = contrib_hash(cls, id, name) & mask;

	while (c->contrib_used[s]) {
		const struct noise_contrib *k = &c->contrib[s];
		if (k->cls == cls && k->id == id && !strcmp(k->name, name))
			break;
		s = (s + 1) & mask;
	}
	return s;
}

/* c's table at cap slots, its entries moved over.  0 or -ENOMEM (c as it was). */
static int contrib_grow(struct ncpu *c, unsigned cap)
{
	struct noise_contrib *t = calloc(cap, sizeof(*t)), *l = calloc(cap, sizeof(*l));
	bool *u = calloc(cap, sizeof(*u));

	if (!t || !l || !u) {
		free(t);
		free(l);
		free(u);
		return -ENOMEM;
	}
	struct noise_contrib *old = c->contrib, *old_list = c->list;
	bool *old_used = c->contrib_used;
	unsigned old_cap = c->contrib_cap;
	c->contrib = t;
	c->contrib_used = u;
	c->list = l;
	c->contrib_cap = cap;
	for (unsigned i = 0; i < old_cap; i++)
		if (old_used[i]) {
			const struct noise_contrib *k = &old[i];
			unsigned s = contrib_find(c, k->cls, k->id, k->name);
			c->contrib[s] = *k;
			c->contrib_used[s] = true;
		}
	free(old);
	free(old_used);
	free(old_list);
	return 0;
}

/* Slot s emptied, the entries after it moved back so that every entry
 * stays reachable from its hash (deletion in linear probing). */
static void contrib_remove(struct ncpu *c, unsigned s)
{
	unsigned mask = c->contrib_cap - 1;

	c->contrib_used[s] = false;
	c->contrib_n--;
	for (unsigned j = (s + 1) & mask; c->contrib_used[j]; j = (j + 1) & mask) {
		const struct noise_contrib *k = &c->contrib[j];
		unsigned h = contrib_hash(k->cls, k->id, k->name) & mask;
		/* j's entry may move to s when s lies in [h, j) cyclically */
		if (((j - h) & mask) >= ((j - s) & mask)) {
			c->contrib[s] = *k;
			c->contrib_used[s] = true;
			c->contrib_used[j] = false;
			s = j;
		}
	}
}

/* A full table at its largest: the smallest total of a sample of the used
 * slots is evicted, its windows counted as not kept. */
static void contrib_evict(struct noise *n, struct ncpu *c)
{
	unsigned mask = c->contrib_cap - 1, victim = c->contrib_cap;

	for (unsigned i = 0; i < NOISE_EVICT_SAMPLE; i++) {
		c->evict_seed = c->evict_seed * 1103515245u + 12345u;
		unsigned s = (c->evict_seed >> 8) & mask;
		while (!c->contrib_used[s])
			s = (s + 1) & mask;
		if (victim == c->contrib_cap || c->contrib[s].total_ns < c->contrib[victim].total_ns)
			victim = s;
	}
	n->anom.contrib_overflow += c->contrib[victim].count;
	n->anom.contrib_evicted++;
	contrib_remove(c, victim);
}

/* The slot of (cls, id, name) in c's table, claimed if new (the table
 * grown, or an entry evicted when it is at its largest); NULL only when
 * no memory could be had for a first table. */
static struct noise_contrib *contrib_slot(struct noise *n, struct ncpu *c, enum noise_class cls, int32_t id,
					  const char *name)
{
	if (!c->contrib_cap && contrib_grow(c, NOISE_CONTRIBS_MIN) < 0)
		return NULL;
	unsigned s = contrib_find(c, cls, id, name);
	if (c->contrib_used[s])
		return &c->contrib[s];
	if ((c->contrib_n + 1) * 4 > c->contrib_cap * 3) {
		if (c->contrib_cap >= NOISE_CONTRIBS_MAX || contrib_grow(c, c->contrib_cap * 2) < 0)
			contrib_evict(n, c);
		s = contrib_find(c, cls, id, name);
	}
	struct noise_contrib *k = &c->contrib[s];
	memset(k, 0, sizeof(*k));
	c->contrib_used[s] = true;
	c->contrib_n++;
	k->cls = cls;
	k->id = id;
	memcpy(k->name, name, sizeof(k->name));
	return k;
}

static void contrib_add(struct noise *n, struct ncpu *c, const struct noise_win *w)
{
	struct noise_contrib *k = contrib_slot(n, c, w->cls, w->id, w->name);
	if (!k) {
		n->anom.contrib_overflow++;
		return;
	}
	k->count++;
	k->total_ns += w->net_ns;
	k->unseen += w->unseen_start;
	if (w->net_ns > k->max_ns)
		k->max_ns = w->net_ns;
}

int noise_add_contrib(struct noise *n, unsigned cpu, const struct noise_contrib *add)
{
	if (cpu >= n->nr_cpus || (unsigned)add->cls >= NOISE_NR_CLASSES)
		return -EINVAL;
	char name[TPEVENT_NAME_LEN];
	memset(name, 0, sizeof(name));
	memcpy(name, add->name, sizeof(name) - 1);	/* always terminated */
	struct noise_contrib *k = contrib_slot(n, &n->cpus[cpu], add->cls, add->id, name);
	if (!k) {
		n->anom.contrib_overflow += add->count;
		return 0;
	}
	k->count += add->count;
	k->total_ns += add->total_ns;
	k->unseen += add->unseen;
	if (add->max_ns > k->max_ns)
		k->max_ns = add->max_ns;
	return 0;
}

size_t noise_contribs(const struct noise *n, unsigned cpu, const struct noise_contrib **out)
{
	if (cpu >= n->nr_cpus) {
		*out = NULL;
		return 0;
	}
	struct ncpu *c = &n->cpus[cpu];
	size_t k = 0;
	for (unsigned i = 0; i < c->contrib_cap; i++)
		if (c->contrib_used[i])
			c->list[k++] = c->contrib[i];
	*out = c->list;
	return k;
}

static void count_entry(struct ncpu *c, enum noise_class cls)
{
	if (c->in_period)
		c->period.count[cls]++;
}

/* A window closed with net duration: push the windows below, record it. */
static void close_window(struct noise *n, unsigned cpu, const struct open_win *o, uint64_t net_ns)
{
	struct ncpu *c = &n->cpus[cpu];
	for (unsigned i = 0; i < c->depth; i++)
		c->stack[i].delta_start_ns += net_ns;
	if (c->thread_open && o != &c->thread)
		c->thread.delta_start_ns += net_ns;

	struct noise_win *w = &c->hist[c->hist_head++ & (NOISE_HISTORY - 1)];
	w->cls = o->cls;
	w->cpu = cpu;
	w->start_ns = o->arrival_ns;
	w->net_ns = net_ns;
	w->end_ns = o->delta_start_ns + net_ns;
	w->id = o->id;
	memcpy(w->name, o->name, sizeof(w->name));
	w->unseen_start = o->unseen_start;
	if (n->opts.no_workload) {
		if (c->in_period && !(o->cls == NOISE_THREAD && o->id == 0))	/* idle */
			c->period.net_ns[o->cls] += net_ns;
		contrib_add(n, c, w);
	}
	if (n->has_sink && n->sink.win)
		n->sink.win(n->sink.arg, w);
}

static uint64_t net_of(struct noise *n, uint64_t now_ns, uint64_t delta_start_ns)
{
	if (now_ns < delta_start_ns) {
		n->anom.negative++;
		return 0;
	}
	return now_ns - delta_start_ns;
}

static void open_nested(struct noise *n, unsigned cpu, enum noise_class cls, enum tpevent_kind exit_kind,
			int32_t id, const char *name, uint64_t t_ns)
{
	struct ncpu *c = &n->cpus[cpu];
	if (c->depth == NOISE_MAX_DEPTH) {
		/* Lost exits: forget the oldest nested window. */
		memmove(&c->stack[0], &c->stack[1], (NOISE_MAX_DEPTH - 1) * sizeof(c->stack[0]));
		c->depth--;
		n->anom.dropped_open++;
	}
	struct open_win *o = &c->stack[c->depth++];
	o->cls = cls;
	o->exit_kind = exit_kind;
	o->id = id;
	memset(o->name, 0, sizeof(o->name));
	if (name)
		strncpy(o->name, name, sizeof(o->name) - 1);
	o->arrival_ns = t_ns;
	o->delta_start_ns = t_ns;
	count_entry(c, cls);
}

static void exit_nested(struct noise *n, unsigned cpu, enum tpevent_kind exit_kind, int32_t id,
			bool match_id, uint64_t t_ns)
{
	struct ncpu *c = &n->cpus[cpu];
	for (unsigned i = c->depth; i-- > 0;) {
		struct open_win *o = &c->stack[i];
		if (o->exit_kind != exit_kind || (match_id && o->id != id))
			continue;
		/* Windows opened above it lost their exits. */
		n->anom.dropped_open += c->depth - 1 - i;
		c->depth = i;
		struct open_win copy = *o;
		close_window(n, cpu, &copy, net_of(n, t_ns, copy.delta_start_ns));
		return;
	}
	n->anom.unmatched_exit++;
}

static void name_copy(char *dst, size_t len, const char *src)
{
	memset(dst, 0, len);
	strncpy(dst, src, len - 1);
}

/* pid is this CPU's workload thread (never a noise window). */
static bool is_workload(const struct noise *n, const struct ncpu *c, int32_t pid)
{
	return !n->opts.no_workload && c->workload_tid >= 0 && pid == c->workload_tid;
}

static void on_switch(struct noise *n, unsigned cpu, const struct tpevent *e)
{
	struct ncpu *c = &n->cpus[cpu];
	if (c->depth) {
		/* Nothing nested can be open across a context switch. */
		n->anom.dropped_open += c->depth;
		c->depth = 0;
	}
	/* prev is not the task the last switch put on: its switch-in (and
	 * whatever ran before it) came with no event.  The kernel does that:
	 * perf gets no tracepoint events while some tasks run. */
	bool unseen = c->cur_known && c->cur_pid != e->sw.prev_pid;
	if (c->thread_open) {
		c->thread_open = false;
		if (!unseen) {	/* the thread window is prev's */
			struct open_win copy = c->thread;
			close_window(n, cpu, &copy, net_of(n, e->time_ns, copy.delta_start_ns));
		}
	}
	if (unseen) {
		n->anom.switch_mismatch++;
		if (!is_workload(n, c, e->sw.prev_pid)) {
			/* The entry happened: count it; its start is unknown, so it
			 * adds no time (a lower bound). */
			struct open_win o = { .cls = NOISE_THREAD, .exit_kind = TPEVENT_SCHED_SWITCH,
					      .id = e->sw.prev_pid, .arrival_ns = e->time_ns,
					      .delta_start_ns = e->time_ns, .unseen_start = true };
			name_copy(o.name, sizeof(o.name), e->sw.prev_comm);
			count_entry(c, NOISE_THREAD);
			close_window(n, cpu, &o, 0);
		}
	}
	c->cur_pid = e->sw.next_pid;
	c->cur_known = true;
	if (!is_workload(n, c, e->sw.next_pid)) {
		struct open_win *o = &c->thread;
		o->cls = NOISE_THREAD;
		o->exit_kind = TPEVENT_SCHED_SWITCH;
		o->id = e->sw.next_pid;
		name_copy(o->name, sizeof(o->name), e->sw.next_comm);
		o->arrival_ns = e->time_ns;
		o->delta_start_ns = e->time_ns;
		o->unseen_start = false;
		c->thread_open = true;
		count_entry(c, NOISE_THREAD);
	}
}

int noise_event(struct noise *n, const struct tpevent *e)
{
	if (e->cpu >= n->nr_cpus) {
		n->anom.bad_cpu++;
		return -EINVAL;
	}
	unsigned cpu = e->cpu;
	char name[TPEVENT_NAME_LEN];

	switch (e->kind) {
	case TPEVENT_IRQ_ENTRY:
		open_nested(n, cpu, NOISE_IRQ, TPEVENT_IRQ_EXIT, e->irq.irq, e->irq.name, e->time_ns);
		break;
	case TPEVENT_IRQ_EXIT:
		exit_nested(n, cpu, TPEVENT_IRQ_EXIT, e->irq.irq, true, e->time_ns);
		break;
	case TPEVENT_VECTOR_ENTRY:
		open_nested(n, cpu, NOISE_IRQ, TPEVENT_VECTOR_EXIT, e->vector.vector, e->vector.name,
			    e->time_ns);
		break;
	case TPEVENT_VECTOR_EXIT:
		exit_nested(n, cpu, TPEVENT_VECTOR_EXIT, e->vector.vector, true, e->time_ns);
		break;
	case TPEVENT_SOFTIRQ_ENTRY:
		if (n->opts.softirq_in_threads)
			break;
		name_copy(name, sizeof(name), noise_softirq_name(e->softirq.vec));
		open_nested(n, cpu, NOISE_SOFTIRQ, TPEVENT_SOFTIRQ_EXIT, (int32_t)e->softirq.vec, name,
			    e->time_ns);
		break;
	case TPEVENT_SOFTIRQ_EXIT:
		if (n->opts.softirq_in_threads)
			break;
		exit_nested(n, cpu, TPEVENT_SOFTIRQ_EXIT, (int32_t)e->softirq.vec, true, e->time_ns);
		break;
	case TPEVENT_NMI: {
		/* One event at the end of the handler, carrying its duration. */
		uint64_t d = e->nmi.delta_ns > 0 ? (uint64_t)e->nmi.delta_ns : 0;
		struct open_win o = { .cls = NOISE_NMI, .exit_kind = TPEVENT_NMI, .id = 0 };
		name_copy(o.name, sizeof(o.name), "nmi");
		o.arrival_ns = e->time_ns >= d ? e->time_ns - d : 0;
		o.delta_start_ns = o.arrival_ns;
		count_entry(&n->cpus[cpu], NOISE_NMI);
		close_window(n, cpu, &o, d);
		break;
	}
	case TPEVENT_SCHED_SWITCH:
		on_switch(n, cpu, e);
		break;
	default:
		break;
	}
	return 0;
}

int noise_period_begin(struct noise *n, unsigned cpu, uint64_t t_ns)
{
	if (cpu >= n->nr_cpus)
		return -EINVAL;
	struct ncpu *c = &n->cpus[cpu];
	memset(&c->period, 0, sizeof(c->period));
	c->in_period = true;
	(void)t_ns;
	return 0;
}

static void add_to_total(struct noise *n, unsigned cpu, uint64_t t_ns, const struct noise_stats *p)
{
	struct noise_stats *t = &n->cpus[cpu].total;
	t->periods += p->periods ? p->periods : 1;
	t->runtime_ns += p->runtime_ns;
	t->noise_ns += p->noise_ns;
	if (p->noise_ns > t->max_noise_ns)
		t->max_noise_ns = p->noise_ns;
	if (p->max_single_ns > t->max_single_ns)
		t->max_single_ns = p->max_single_ns;
	t->gaps += p->gaps;
	t->hw_count += p->hw_count;
	t->hw_ns += p->hw_ns;
	for (int k = 0; k < NOISE_NR_CLASSES; k++) {
		t->count[k] += p->count[k];
		t->net_ns[k] += p->net_ns[k];
	}
	t->sub_count += p->sub_count;
	t->sub_ns += p->sub_ns;
	if (n->has_sink && n->sink.period)
		n->sink.period(n->sink.arg, cpu, t_ns, p);
}

int noise_period_end(struct noise *n, unsigned cpu, uint64_t t_ns, uint64_t runtime_ns)
{
	if (cpu >= n->nr_cpus)
		return -EINVAL;
	struct ncpu *c = &n->cpus[cpu];
	struct noise_stats *p = &c->period;
	c->in_period = false;
	p->periods = 1;
	p->runtime_ns = runtime_ns;
	if (n->opts.no_workload) {
		/* Noise = everything that ran, idle excluded. */
		p->noise_ns = 0;
		for (int k = 0; k < NOISE_NR_CLASSES; k++)
			p->noise_ns += p->net_ns[k];
	}
	p->max_noise_ns = p->noise_ns;
	add_to_total(n, cpu, t_ns, p);
	if (n->opts.stop_total_ns && p->noise_ns > n->opts.stop_total_ns)
		return NOISE_STOP;
	return 0;
}

int noise_add_period(struct noise *n, unsigned cpu, uint64_t end_ns, const struct noise_stats *p)
{
	if (cpu >= n->nr_cpus || !p)
		return -EINVAL;
	add_to_total(n, cpu, end_ns, p);
	return 0;
}

int noise_add_window(struct noise *n, const struct noise_win *w)
{
	if (w->cpu >= n->nr_cpus || (unsigned)w->cls >= NOISE_NR_CLASSES)
		return -EINVAL;
	contrib_add(n, &n->cpus[w->cpu], w);
	if (n->has_sink && n->sink.win)
		n->sink.win(n->sink.arg, w);
	return 0;
}

int noise_sub(struct noise *n, unsigned cpu, uint64_t count, uint64_t ns)
{
	if (cpu >= n->nr_cpus)
		return -EINVAL;
	n->cpus[cpu].period.sub_count += count;
	n->cpus[cpu].period.sub_ns += ns;
	return 0;
}

/* A gap at or above the threshold with its interference in g: the period's
 * figures, the sink, the stop. */
static int gap_account(struct noise *n, struct ncpu *c, struct noise_gap *g)
{
	struct noise_stats *p = &c->period;
	uint64_t dur = g->duration_ns;
	g->hw = g->interference == 0;
	p->gaps++;
	p->noise_ns += dur;
	if (dur > p->max_single_ns)
		p->max_single_ns = dur;
	if (g->hw) {
		p->hw_count++;
		p->hw_ns += dur;
	}
	if (!n->opts.no_workload)
		for (int k = 0; k < NOISE_NR_CLASSES; k++)
			p->net_ns[k] += g->net_ns[k];
	if (n->has_sink && n->sink.gap)
		n->sink.gap(n->sink.arg, g);
	if (n->opts.stop_single_ns && dur > n->opts.stop_single_ns)
		return NOISE_STOP;
	return 0;
}

/* A gap of cpu: below the threshold only the remainder (false), else g
 * set up for its interference (true). */
static bool gap_begin(struct noise *n, unsigned cpu, uint64_t start_ns, uint64_t end_ns, struct noise_gap *g)
{
	struct ncpu *c = &n->cpus[cpu];
	uint64_t dur = end_ns - start_ns;
	if (dur < n->opts.threshold_ns) {
		c->period.sub_count++;
		c->period.sub_ns += dur;
		return false;
	}
	memset(g, 0, sizeof(*g));
	g->cpu = cpu;
	g->start_ns = start_ns;
	g->duration_ns = dur;
	return true;
}

int noise_gap(struct noise *n, unsigned cpu, uint64_t start_ns, uint64_t end_ns)
{
	if (cpu >= n->nr_cpus || end_ns < start_ns)
		return -EINVAL;
	struct ncpu *c = &n->cpus[cpu];
	struct noise_gap g;
	if (!gap_begin(n, cpu, start_ns, end_ns, &g))
		return 0;

	/* Closed windows that arrived inside the gap, newest first. */
	uint64_t avail = c->hist_head < NOISE_HISTORY ? c->hist_head : NOISE_HISTORY;
	uint64_t i;
	for (i = 0; i < avail; i++) {
		struct noise_win *w = &c->hist[(c->hist_head - 1 - i) & (NOISE_HISTORY - 1)];
		if (w->end_ns < start_ns || w->end_ns < c->last_gap_end_ns)
			break;
		if (w->start_ns < start_ns || w->start_ns > end_ns)
			continue;
		g.interference++;
		g.count[w->cls]++;
		g.net_ns[w->cls] += w->net_ns;
		if (!g.has_top || w->net_ns > g.top.net_ns) {
			g.top = *w;
			g.has_top = true;
		}
		if (!n->opts.no_workload)
			contrib_add(n, c, w);
	}
	if (i == NOISE_HISTORY && c->hist_head > NOISE_HISTORY)
		n->anom.history_overflow++;
	/* Windows still open that arrived inside the gap count as interference. */
	for (unsigned k = 0; k < c->depth; k++)
		if (c->stack[k].arrival_ns >= start_ns && c->stack[k].arrival_ns <= end_ns) {
			g.interference++;
			g.count[c->stack[k].cls]++;
		}
	if (c->thread_open && c->thread.arrival_ns >= start_ns && c->thread.arrival_ns <= end_ns) {
		g.interference++;
		g.count[NOISE_THREAD]++;
	}
	c->last_gap_end_ns = end_ns;
	return gap_account(n, c, &g);
}

int noise_gap_counted(struct noise *n, unsigned cpu, uint64_t start_ns, uint64_t end_ns,
		      const struct noise_counted *a)
{
	if (cpu >= n->nr_cpus || end_ns < start_ns)
		return -EINVAL;
	struct noise_gap g;
	if (!gap_begin(n, cpu, start_ns, end_ns, &g))
		return 0;
	for (int k = 0; k < NOISE_NR_CLASSES; k++) {
		g.count[k] = a->count[k];
		g.net_ns[k] = a->net_ns[k];
		g.interference += a->count[k];
	}
	n->cpus[cpu].last_gap_end_ns = end_ns;
	return gap_account(n, &n->cpus[cpu], &g);
}

int noise_period_counts(struct noise *n, unsigned cpu, const uint64_t count[NOISE_NR_CLASSES])
{
	if (cpu >= n->nr_cpus)
		return -EINVAL;
	struct ncpu *c = &n->cpus[cpu];
	for (int k = 0; k < NOISE_NR_CLASSES && c->in_period; k++)
		c->period.count[k] += count[k];
	return 0;
}
