/* SPDX-License-Identifier: MIT */
/* hsource.c - the live histogram source: dispatch to the backend, and the
 * userspace engine fed event by event (hsource.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsource_int.h"

struct hsource {
	const struct hsource_ops *ops;
	void *state;
};

static void why_reset(struct hsource_why *why)
{
	why->reason[0] = why->note[0] = '\0';
}

void hsource_reason(struct hsource_why *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why->reason, sizeof(why->reason), fmt, ap);
	va_end(ap);
}

void hsource_note(struct hsource_why *why, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why->note, sizeof(why->note), fmt, ap);
	va_end(ap);
}

uint32_t hsource_clamp_cpus(uint32_t n)
{
	return n == 0 ? 1 : n > HSET_MAX_CPUS ? HSET_MAX_CPUS : n;
}

void hsource_cpu_on(const struct hsource_cfg *cfg, uint32_t nr_cpus, bool *on)
{
	for (uint32_t i = 0; i < nr_cpus; i++)
		on[i] = parse_cpuset_has(cfg->cpus, i);
}

void hsource_kernel_kinds(bool has[TPEVENT_NR_KINDS], bool timers)
{
	static const enum tpevent_kind wake[] = {
		TPEVENT_SCHED_SWITCH, TPEVENT_SCHED_WAKEUP, TPEVENT_SCHED_WAKING,
		TPEVENT_SCHED_WAKEUP_NEW, TPEVENT_SCHED_MIGRATE, TPEVENT_SCHED_PROCESS_EXIT,
	}, timer[] = {
		TPEVENT_HRTIMER_START, TPEVENT_HRTIMER_CANCEL, TPEVENT_HRTIMER_EXPIRE_ENTRY,
		TPEVENT_HRTIMER_EXPIRE_EXIT,
	};
	for (size_t i = 0; i < sizeof(wake) / sizeof(wake[0]); i++)
		has[wake[i]] = true;
	for (size_t i = 0; i < sizeof(timer) / sizeof(timer[0]) && timers; i++)
		has[timer[i]] = true;
}

/* ---- dispatch ------------------------------------------------------------------ */

int hsource_open(struct hsource **out, const struct hsource_ops *ops, const struct hsource_cfg *cfg,
		 struct hsource_why *why)
{
	struct hsource *src = calloc(1, sizeof(*src));

	why_reset(why);
	*out = NULL;
	if (!src) {
		hsource_reason(why, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	src->ops = ops;
	int err = ops->open(&src->state, cfg, why);
	if (err < 0) {
		free(src);
		return err;
	}
	*out = src;
	return 0;
}

const struct hsource_ops *hsource_ops_of(const struct hsource *src)
{
	return src->ops;
}

int hsource_start(struct hsource *src, struct hsource_why *why)
{
	why_reset(why);
	return src->ops->start ? src->ops->start(src->state, why) : 0;
}

size_t hsource_pollfds(struct hsource *src, struct pollfd **fds)
{
	*fds = NULL;
	return src->ops->pollfds ? src->ops->pollfds(src->state, fds) : 0;
}

int hsource_drain(struct hsource *src, uint64_t until_ns, struct hsource_why *why)
{
	why_reset(why);
	return src->ops->drain ? src->ops->drain(src->state, until_ns, why) : 0;
}

int hsource_sync(struct hsource *src, struct hsource_why *why)
{
	why_reset(why);
	return src->ops->sync ? src->ops->sync(src->state, why) : 0;
}

int hsource_reset(struct hsource *src, struct hsource_why *why)
{
	why_reset(why);
	if (!src->ops->reset) {
		hsource_reason(why, "the %s backend cannot reset its histograms", src->ops->name);
		return -EOPNOTSUPP;
	}
	return src->ops->reset(src->state, why);
}

int hsource_finish(struct hsource *src, struct hsource_why *why)
{
	why_reset(why);
	return src->ops->finish(src->state, why);
}

const struct hset *hsource_set(const struct hsource *src)
{
	return src->ops->set(src->state);
}

void hsource_kinds(const struct hsource *src, bool has[TPEVENT_NR_KINDS])
{
	src->ops->kinds(src->state, has);
}

void hsource_stats(const struct hsource *src, struct hsource_stats *st)
{
	memset(st, 0, sizeof(*st));
	src->ops->stats(src->state, st);
}

void hsource_describe(const struct hsource *src, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	src->ops->describe(src->state, buf, len);
}

int hsource_record(struct hsource *src, struct pdwrite *pw, bool *write_err)
{
	return src->ops->record ? src->ops->record(src->state, pw, write_err) : -EOPNOTSUPP;
}

void hsource_close(struct hsource *src, struct hsource_why *why)
{
	why_reset(why);
	if (!src)
		return;
	src->ops->close(src->state, why);
	free(src);
}

void hsource_input_json(const struct hsource *src, struct json_object *in)
{
	if (src->ops->input_json)
		src->ops->input_json(src->state, in);
}

bool hsource_text(const struct hsource *src, hsource_line_fn line, void *arg)
{
	if (!src->ops->text)
		return false;
	src->ops->text(src->state, line, arg);
	return true;
}

void hsource_loss_text(const struct hsource *src, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (src->ops->loss_text)
		src->ops->loss_text(src->state, buf, len);
}

/* ---- the backends and what they can serve ----------------------------------------- */

const struct hsource_ops *const hsource_backends[] = { &hsource_bpf, &hsource_kernel, &hsource_perf, NULL };

const struct hsource_ops *hsource_backend(const char *name)
{
	for (size_t i = 0; hsource_backends[i]; i++)
		if (!strcmp(hsource_backends[i]->name, name))
			return hsource_backends[i];
	return NULL;
}

const char *hsource_kind_refusal(const struct hsource_ops *ops, enum hset_kind k)
{
	return ops->kind_refusal ? ops->kind_refusal(k) : NULL;
}

const char *hsource_conflict(const struct hsource_ops *ops, const struct hsource_need *need, char *buf,
			     size_t len)
{
	if (ops->events_in_userspace)
		return NULL;
	if (need->record)
		return "cannot record the events (-o): they never leave the kernel";
	if (need->irqsoff && ops->no_irqsoff)
		return ops->no_irqsoff;
	if (need->keep_busy)
		return "never starts the keep-busy spinners (--keep-busy)";
	if (need->per_task)
		return "keeps no latency per task (--per-task)";
	for (int t = 0; t < HSET_NR_KINDS && need->kinds; t++)
		if (need->kinds[t] && hsource_kind_refusal(ops, t)) {
			snprintf(buf, len, "cannot express %s (--types): it %s", hset_kind_name(t),
				 hsource_kind_refusal(ops, t));
			return buf;
		}
	return NULL;
}

const char *hsource_refusal(const struct hsource_ops *ops, const struct hsource_need *need, char *buf,
			    size_t len)
{
	const char *off = ops->disable_env ? getenv(ops->disable_env) : NULL;
	char phrase[512];
	const char *conflict = hsource_conflict(ops, need, phrase, sizeof(phrase));

	if (off && *off && strcmp(off, "0"))
		snprintf(buf, len, "refused: %s=%s", ops->disable_env, off);
	else if (conflict)
		snprintf(buf, len, "not usable: it %s", conflict);
	else
		return NULL;
	return buf;
}

/* ---- the engine fed event by event ------------------------------------------------ */

int hsource_feed_init(struct hsource_feed *f, const struct latency_cfg *cfg, uint32_t nr_cpus,
		      const bool has[TPEVENT_NR_KINDS], struct hsource_why *why)
{
	struct latency_cfg lc = *cfg;

	memset(f, 0, sizeof(*f));
	lc.nr_cpus = hsource_clamp_cpus(nr_cpus);
	lc.start_on_waking = has[TPEVENT_SCHED_WAKING] && !has[TPEVENT_SCHED_WAKEUP] &&
			     !has[TPEVENT_SCHED_WAKEUP_NEW];
	int err = latency_new(&f->lat, &lc);
	if (err < 0) {
		f->lat = NULL;
		hsource_reason(why, "cannot set up the histograms: %s",
			       err == -EINVAL ? "bad histogram geometry (check --resolution/--buckets/--offset)"
					      : strerror(-err));
	}
	return err < 0 ? err : 0;
}

void hsource_feed_event(struct hsource_feed *f, const struct tpevent *ev)
{
	f->fed++;
	if (!f->any_event || ev->time_ns < f->first_ns)
		f->first_ns = ev->time_ns;
	if (!f->any_event || ev->time_ns > f->last_ns)
		f->last_ns = ev->time_ns;
	f->any_event = true;
	if (latency_feed(f->lat, ev) == 0) {
		if (!f->any_cpu || ev->cpu > f->max_cpu)
			f->max_cpu = ev->cpu;
		f->any_cpu = true;
	}
}

void hsource_feed_stats(const struct hsource_feed *f, struct hsource_stats *st)
{
	st->seen = f->fed;
	st->track = latency_stats(f->lat);
	st->any_cpu = f->any_cpu;
	st->max_cpu = f->max_cpu;
	st->any_event = f->any_event;
	st->first_ns = f->first_ns;
	st->last_ns = f->last_ns;
}

void hsource_feed_free(struct hsource_feed *f)
{
	latency_free(f->lat);
	f->lat = NULL;
}
