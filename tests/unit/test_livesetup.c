/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/live/livesetup.c over a fake ops table (no root, the
 * system untouched): apply in the steps' order, restore newest first
 * whatever the order of the apply calls, exactly what was applied (a failed
 * step is not undone, a step left alone is not touched), idempotent
 * restore, the saved affinity and policy given back, mlock's failure undone;
 * and the real /dev/cpu_dma_latency hold on a plain file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "live/livesetup.h"

/* The fake system: a log of calls ("aff+ spin+ mlock+ ...") and the
 * failures to inject. */
struct fake {
	char log[512];
	int fail_set_affinity, fail_get_affinity, fail_spin, fail_mlock, fail_dma, fail_set_sched,
	    fail_get_sched;
	cpu_set_t affinity;		/* the thread's mask now */
	int policy, prio;		/* the thread's policy now */
	int dma_fds;			/* held */
	int32_t dma_us;
	struct idlecheck_spin *spin_given;
};

static void say(struct fake *f, const char *what)
{
	size_t u = strlen(f->log);
	snprintf(f->log + u, sizeof(f->log) - u, "%s%s", u ? " " : "", what);
}

static int f_get_affinity(void *arg, cpu_set_t *set)
{
	struct fake *f = arg;
	if (f->fail_get_affinity)
		return f->fail_get_affinity;
	*set = f->affinity;
	return 0;
}

static int f_set_affinity(void *arg, const cpu_set_t *set)
{
	struct fake *f = arg;
	if (f->fail_set_affinity) {
		say(f, "aff!");
		return f->fail_set_affinity;
	}
	say(f, CPU_ISSET(7, set) ? "aff=7" : "aff=other");
	f->affinity = *set;
	return 0;
}

static int f_spin_start(void *arg, struct idlecheck_spin **out, const struct parse_cpuset *cpus)
{
	struct fake *f = arg;
	if (f->fail_spin) {
		say(f, "spin!");
		*out = (struct idlecheck_spin *)0x1;	/* garbage the caller must not keep */
		return f->fail_spin;
	}
	say(f, parse_cpuset_has(cpus, 1) ? "spin+1" : "spin+");
	*out = f->spin_given = (struct idlecheck_spin *)f;
	return 0;
}

static void f_spin_stop(void *arg, struct idlecheck_spin *s)
{
	struct fake *f = arg;
	say(f, s == f->spin_given ? "spin-" : "spin-bad");
}

static int f_mlock(void *arg)
{
	struct fake *f = arg;
	say(f, f->fail_mlock ? "mlock!" : "mlock+");
	return f->fail_mlock;
}

static void f_munlock(void *arg)
{
	say(arg, "mlock-");
}

static int f_dma_hold(void *arg, const char *path, int32_t us)
{
	struct fake *f = arg;
	(void)path;
	if (f->fail_dma) {
		say(f, "dma!");
		return f->fail_dma;
	}
	say(f, "dma+");
	f->dma_fds++;
	f->dma_us = us;
	return 42;
}

static void f_dma_release(void *arg, int fd)
{
	struct fake *f = arg;
	say(f, fd == 42 ? "dma-" : "dma-bad");
	f->dma_fds--;
}

static int f_get_sched(void *arg, int *policy, struct sched_param *p)
{
	struct fake *f = arg;
	if (f->fail_get_sched)
		return f->fail_get_sched;
	*policy = f->policy;
	p->sched_priority = f->prio;
	return 0;
}

static int f_set_sched(void *arg, int policy, const struct sched_param *p)
{
	struct fake *f = arg;
	if (f->fail_set_sched) {
		say(f, "prio!");
		return f->fail_set_sched;
	}
	char b[32];
	snprintf(b, sizeof(b), "prio=%d/%d", policy, p->sched_priority);
	say(f, b);
	f->policy = policy;
	f->prio = p->sched_priority;
	return 0;
}

static struct livesetup_ops fake_ops(struct fake *f)
{
	struct livesetup_ops o = {
		.get_affinity = f_get_affinity, .set_affinity = f_set_affinity,
		.spin_start = f_spin_start, .spin_stop = f_spin_stop,
		.mlock = f_mlock, .munlock = f_munlock,
		.dma_hold = f_dma_hold, .dma_release = f_dma_release,
		.get_sched = f_get_sched, .set_sched = f_set_sched,
		.arg = f,
	};
	return o;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	CPU_ZERO(&f->affinity);
	CPU_SET(0, &f->affinity);
	CPU_SET(1, &f->affinity);
	f->policy = SCHED_OTHER;
}

#define ALL (LIVESETUP_AFFINITY | LIVESETUP_KEEP_BUSY | LIVESETUP_MLOCK | LIVESETUP_DMA_LATENCY | \
	     LIVESETUP_PRIORITY)

/* What every test starts from: the fake system, everything configured
 * (house-keeping CPU 7, a spinner on CPU 1, mlock, dma 0 us, SCHED_FIFO 5),
 * nothing applied. */
struct fixture {
	struct fake f;
	struct livesetup_ops o;
	struct parse_cpuset hk, busy;
	struct livesetup_cfg cfg;
	struct livesetup ls;
	struct livesetup_why why;
};

static void fixture_init(struct fixture *x)
{
	memset(x, 0, sizeof(*x));
	fake_init(&x->f);
	x->o = fake_ops(&x->f);
	parse_cpuset_add(&x->hk, 7);
	parse_cpuset_add(&x->busy, 1);
	struct livesetup_cfg c = {
		.housekeeping_cpus = &x->hk, .keep_busy_cpus = &x->busy, .mlock = true,
		.dma_latency_us = 0, .collector_policy = SCHED_FIFO, .collector_prio = 5,
	};
	x->cfg = c;
	livesetup_init(&x->ls, &x->o);
}

/* One call: the steps in the enum's order; restore in reverse, and back
 * where the thread was. */
static void test_order_one_call(void **state)
{
	(void)state;
	struct fixture x;
	fixture_init(&x);
	cpu_set_t aff0 = x.f.affinity;

	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, ALL, &x.why), 0);
	assert_int_equal(x.why.failed, 0);
	assert_string_equal(x.f.log, "aff=7 spin+1 mlock+ dma+ prio=1/5");
	assert_int_equal(x.f.dma_us, 0);
	for (unsigned i = 0; i < LIVESETUP_NR_STEPS; i++)
		assert_true(livesetup_applied(&x.ls, (enum livesetup_step)(1u << i)));
	x.f.log[0] = '\0';
	assert_int_equal(livesetup_restore(&x.ls), 5);
	assert_string_equal(x.f.log, "prio=0/0 dma- mlock- spin- aff=other");
	assert_true(CPU_EQUAL(&x.f.affinity, &aff0));
	assert_int_equal(x.f.policy, SCHED_OTHER);
	assert_int_equal(x.f.dma_fds, 0);
	/* idempotent: nothing left to undo */
	x.f.log[0] = '\0';
	assert_int_equal(livesetup_restore(&x.ls), 0);
	assert_string_equal(x.f.log, "");
	for (unsigned i = 0; i < LIVESETUP_NR_STEPS; i++)
		assert_false(livesetup_applied(&x.ls, (enum livesetup_step)(1u << i)));
}

/* Staged as the commands do it (hist: spinners, then mlock and dma, then
 * the priority; osnoise: affinity, then mlock): newest first all the same. */
static void test_order_staged(void **state)
{
	(void)state;
	struct fixture x;
	fixture_init(&x);

	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, LIVESETUP_PRIORITY, NULL), 0);
	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, LIVESETUP_MLOCK | LIVESETUP_DMA_LATENCY, NULL), 0);
	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, LIVESETUP_KEEP_BUSY, NULL), 0);
	/* asked again: already applied, skipped */
	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, LIVESETUP_MLOCK, NULL), 0);
	assert_string_equal(x.f.log, "prio=1/5 mlock+ dma+ spin+1");
	x.f.log[0] = '\0';
	livesetup_restore(&x.ls);
	assert_string_equal(x.f.log, "spin- dma- mlock- prio=0/0");
	x.f.log[0] = '\0';
	livesetup_restore(&x.ls);
	assert_string_equal(x.f.log, "");
}

/* A step that fails changes nothing and is not undone; the others are
 * tried and undone; why names each failure; the first error is returned. */
static void test_failures(void **state)
{
	(void)state;
	struct fixture x;
	fixture_init(&x);
	x.f.fail_spin = -EAGAIN;
	x.f.fail_mlock = -ENOMEM;
	x.f.fail_set_sched = -EPERM;

	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, ALL, &x.why), -EAGAIN);
	/* a failed mlockall is undone at once (MCL_FUTURE) */
	assert_string_equal(x.f.log, "aff=7 spin! mlock! mlock- dma+ prio!");
	assert_int_equal(x.why.failed, LIVESETUP_KEEP_BUSY | LIVESETUP_MLOCK | LIVESETUP_PRIORITY);
	assert_int_equal(livesetup_failed(&x.why, LIVESETUP_KEEP_BUSY), -EAGAIN);
	assert_int_equal(livesetup_failed(&x.why, LIVESETUP_MLOCK), -ENOMEM);
	assert_int_equal(livesetup_failed(&x.why, LIVESETUP_PRIORITY), -EPERM);
	assert_int_equal(livesetup_failed(&x.why, LIVESETUP_AFFINITY), 0);
	assert_int_equal(livesetup_failed(&x.why, LIVESETUP_DMA_LATENCY), 0);
	assert_false(livesetup_applied(&x.ls, LIVESETUP_KEEP_BUSY));
	assert_true(livesetup_applied(&x.ls, LIVESETUP_DMA_LATENCY));
	x.f.log[0] = '\0';
	assert_int_equal(livesetup_restore(&x.ls), 2);
	assert_string_equal(x.f.log, "dma- aff=other");
	/* a later apply of a failed step may succeed, and is then undone */
	x.f.fail_set_sched = 0;
	x.f.log[0] = '\0';
	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, LIVESETUP_PRIORITY, &x.why), 0);
	assert_int_equal(x.why.failed, 0);	/* reset by the call */
	livesetup_restore(&x.ls);
	assert_string_equal(x.f.log, "prio=1/5 prio=0/0");
}

/* Settings left alone are not touched, and nothing is recorded for them;
 * state that could not be read is not written back. */
static void test_left_alone(void **state)
{
	(void)state;
	struct fixture x;
	fixture_init(&x);
	struct parse_cpuset empty;
	memset(&empty, 0, sizeof(empty));
	struct livesetup_cfg none = { .housekeeping_cpus = &empty, .keep_busy_cpus = NULL,
				      .mlock = false, .dma_latency_us = -1, .collector_prio = 0 };

	assert_int_equal(livesetup_apply(&x.ls, &none, ALL, NULL), 0);
	assert_string_equal(x.f.log, "");
	assert_int_equal(livesetup_restore(&x.ls), 0);
	/* the old mask and policy unknown: set, but nothing to go back to */
	x.f.fail_get_affinity = -EINVAL;
	x.f.fail_get_sched = -EINVAL;
	assert_int_equal(livesetup_apply(&x.ls, &x.cfg, LIVESETUP_AFFINITY | LIVESETUP_PRIORITY, NULL), 0);
	assert_string_equal(x.f.log, "aff=7 prio=1/5");
	x.f.log[0] = '\0';
	assert_int_equal(livesetup_restore(&x.ls), 2);
	assert_string_equal(x.f.log, "");
}

/* A zeroed struct restores nothing (the error path of a command that
 * failed before its first apply), with the real calls. */
static void test_zeroed(void **state)
{
	(void)state;
	struct livesetup ls;
	memset(&ls, 0, sizeof(ls));
	assert_int_equal(livesetup_restore(&ls), 0);
	assert_int_equal(livesetup_restore(&ls), 0);
}

/* The real hold on a plain file: the s32 written in host order, the fd
 * closed by the restore. */
static void test_dma_file(void **state)
{
	(void)state;
	char path[] = "/tmp/latscope-test-dma-XXXXXX";
	int tfd = mkstemp(path);
	assert_true(tfd >= 0);
	struct livesetup_cfg cfg = { .dma_latency_us = 123, .dma_latency_path = path };
	struct livesetup ls;
	livesetup_init(&ls, NULL);
	assert_int_equal(livesetup_apply(&ls, &cfg, LIVESETUP_DMA_LATENCY, NULL), 0);
	int held = ls.dma_fd;
	assert_true(fcntl(held, F_GETFD) >= 0);
	int32_t v = 0;
	assert_int_equal(pread(tfd, &v, sizeof(v), 0), (ssize_t)sizeof(v));
	assert_int_equal(v, 123);
	livesetup_restore(&ls);
	assert_true(fcntl(held, F_GETFD) < 0);
	close(tfd);
	unlink(path);
	/* a path that is not there: the error, nothing held */
	struct livesetup_why why;
	cfg.dma_latency_path = "/nonexistent/latscope-dma";
	assert_int_equal(livesetup_apply(&ls, &cfg, LIVESETUP_DMA_LATENCY, &why), -ENOENT);
	assert_int_equal(livesetup_failed(&why, LIVESETUP_DMA_LATENCY), -ENOENT);
	assert_int_equal(livesetup_restore(&ls), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_one_call),
		cmocka_unit_test(test_order_staged),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_dma_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
