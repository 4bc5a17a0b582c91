/* SPDX-License-Identifier: MIT */
/* livesetup.c - the system settings of a live run, applied and given back (livesetup.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/privhint.h"
#include "live/idlecheck.h"
#include "live/livesetup.h"

/* ---- the real calls ---------------------------------------------------------- */

static int sys_get_affinity(void *arg, cpu_set_t *set)
{
	(void)arg;
	return sched_getaffinity(0, sizeof(*set), set) < 0 ? -errno : 0;
}

static int sys_set_affinity(void *arg, const cpu_set_t *set)
{
	(void)arg;
	return sched_setaffinity(0, sizeof(*set), set) < 0 ? -errno : 0;
}

static int sys_spin_start(void *arg, struct idlecheck_spin **out, const struct parse_cpuset *cpus)
{
	(void)arg;
	return idlecheck_spin_start(out, cpus);
}

static void sys_spin_stop(void *arg, struct idlecheck_spin *s)
{
	(void)arg;
	idlecheck_spin_stop(s);
}

static int sys_mlock(void *arg)
{
	(void)arg;
	return mlockall(MCL_CURRENT | MCL_FUTURE) < 0 ? -errno : 0;
}

static void sys_munlock(void *arg)
{
	(void)arg;
	munlockall();
}

static int sys_dma_hold(void *arg, const char *path, int32_t latency_us)
{
	(void)arg;
	return livesetup_dma_hold(path, latency_us);
}

static void sys_dma_release(void *arg, int fd)
{
	(void)arg;
	close(fd);
}

static int sys_get_sched(void *arg, int *policy, struct sched_param *p)
{
	(void)arg;
	*policy = sched_getscheduler(0);
	if (*policy < 0)
		return -errno;
	if (sched_getparam(0, p) < 0)
		memset(p, 0, sizeof(*p));
	return 0;
}

static int sys_set_sched(void *arg, int policy, const struct sched_param *p)
{
	(void)arg;
	return sched_setscheduler(0, policy, p) < 0 ? -errno : 0;
}

static const struct livesetup_ops sys_ops = {
	.get_affinity = sys_get_affinity,
	.set_affinity = sys_set_affinity,
	.spin_start = sys_spin_start,
	.spin_stop = sys_spin_stop,
	.mlock = sys_mlock,
	.munlock = sys_munlock,
	.dma_hold = sys_dma_hold,
	.dma_release = sys_dma_release,
	.get_sched = sys_get_sched,
	.set_sched = sys_set_sched,
};

int livesetup_dma_hold(const char *path, int32_t latency_us)
{
	int fd = open(path ? path : "/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the device takes a host-order s32 */
	if (write(fd, &latency_us, sizeof(latency_us)) != (ssize_t)sizeof(latency_us)) {
		int err = errno ? -errno : -EIO;
		close(fd);
		return err;
	}
	return fd;
}

/* ---- apply and restore ------------------------------------------------------- */

void livesetup_init(struct livesetup *ls, const struct livesetup_ops *ops)
{
	memset(ls, 0, sizeof(*ls));
	ls->ops = ops;
}

unsigned livesetup_step_index(enum livesetup_step step)
{
	unsigned i = 0;
	while (i < LIVESETUP_NR_STEPS - 1 && !((unsigned)step & (1u << i)))
		i++;
	return i;
}

bool livesetup_applied(const struct livesetup *ls, enum livesetup_step step)
{
	return (ls->applied & (unsigned)step) != 0;
}

int livesetup_failed(const struct livesetup_why *why, enum livesetup_step step)
{
	return why->failed & (unsigned)step ? why->err[livesetup_step_index(step)] : 0;
}

static const struct livesetup_ops *ops_of(const struct livesetup *ls)
{
	return ls->ops ? ls->ops : &sys_ops;
}

static void record(struct livesetup *ls, enum livesetup_step step)
{
	ls->applied |= (unsigned)step;
	ls->order[ls->n++] = (unsigned)step;
}

/* One step: 0 when done or nothing to do (recorded when done), else a
 * negative errno with nothing changed. */
static int apply_one(struct livesetup *ls, const struct livesetup_cfg *cfg, enum livesetup_step step,
		     struct livesetup_why *why)
{
	const struct livesetup_ops *o = ops_of(ls);
	int err = 0;

	switch (step) {
	case LIVESETUP_AFFINITY: {
		const struct parse_cpuset *hk = cfg->housekeeping_cpus;
		if (!hk || !parse_cpuset_count(hk))
			return 0;
		cpu_set_t set;
		CPU_ZERO(&set);
		for (unsigned cpu = 0; cpu < CPU_SETSIZE && cpu < PARSE_MAX_CPUS; cpu++)
			if (parse_cpuset_has(hk, cpu))
				CPU_SET(cpu, &set);
		ls->affinity0_known = o->get_affinity(o->arg, &ls->affinity0) == 0;
		err = o->set_affinity(o->arg, &set);
		break;
	}
	case LIVESETUP_KEEP_BUSY:
		if (!cfg->keep_busy_cpus || !parse_cpuset_count(cfg->keep_busy_cpus))
			return 0;
		err = o->spin_start(o->arg, &ls->spin, cfg->keep_busy_cpus);
		if (err < 0)
			ls->spin = NULL;
		break;
	case LIVESETUP_MLOCK:
		if (!cfg->mlock)
			return 0;
		err = o->mlock(o->arg);
		if (err < 0) {
			o->munlock(o->arg);	/* a failed mlockall may leave MCL_FUTURE behind */
			if (why)
				privhint_mlock(why->mlock_hint, sizeof(why->mlock_hint), err);
		}
		break;
	case LIVESETUP_DMA_LATENCY:
		if (cfg->dma_latency_us < 0)
			return 0;
		ls->dma_fd = o->dma_hold(o->arg, cfg->dma_latency_path, cfg->dma_latency_us);
		err = ls->dma_fd < 0 ? ls->dma_fd : 0;
		break;
	case LIVESETUP_PRIORITY: {
		if (cfg->collector_prio <= 0)
			return 0;
		struct sched_param sp = { .sched_priority = cfg->collector_prio };
		if (o->get_sched(o->arg, &ls->policy0, &ls->param0) < 0)
			ls->policy0 = -1;	/* set it all the same, but nothing to go back to */
		err = o->set_sched(o->arg, cfg->collector_policy, &sp);
		break;
	}
	}
	if (err < 0)
		return err;
	record(ls, step);
	return 0;
}

int livesetup_apply(struct livesetup *ls, const struct livesetup_cfg *cfg, unsigned steps,
		    struct livesetup_why *why)
{
	int first = 0;

	if (why)
		memset(why, 0, sizeof(*why));
	for (unsigned i = 0; i < LIVESETUP_NR_STEPS; i++) {
		enum livesetup_step step = (enum livesetup_step)(1u << i);
		if (!(steps & (unsigned)step) || (ls->applied & (unsigned)step))
			continue;
		int err = apply_one(ls, cfg, step, why);
		if (err >= 0)
			continue;
		if (why) {
			why->failed |= (unsigned)step;
			why->err[i] = err;
		}
		if (!first)
			first = err;
	}
	return first;
}

static void undo(struct livesetup *ls, enum livesetup_step step)
{
	const struct livesetup_ops *o = ops_of(ls);

	switch (step) {
	case LIVESETUP_AFFINITY:
		if (ls->affinity0_known)
			o->set_affinity(o->arg, &ls->affinity0);
		break;
	case LIVESETUP_KEEP_BUSY:
		o->spin_stop(o->arg, ls->spin);
		ls->spin = NULL;
		break;
	case LIVESETUP_MLOCK:
		o->munlock(o->arg);
		break;
	case LIVESETUP_DMA_LATENCY:
		o->dma_release(o->arg, ls->dma_fd);
		ls->dma_fd = -1;
		break;
	case LIVESETUP_PRIORITY:
		if (ls->policy0 >= 0)
			o->set_sched(o->arg, ls->policy0, &ls->param0);
		break;
	}
}

unsigned livesetup_restore(struct livesetup *ls)
{
	unsigned done = 0;

	while (ls->n > 0) {
		enum livesetup_step step = (enum livesetup_step)ls->order[--ls->n];
		/* forgotten before it is undone: a restore that an undo re-enters
		 * (or a second one) does not undo it twice */
		ls->applied &= ~(unsigned)step;
		undo(ls, step);
		done++;
	}
	return done;
}
