/* SPDX-License-Identifier: MIT */
/* noisemon.c - OS-noise counters at a duty cycle (see noisemon.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sysinfo.h"
#include "engine/noisemon.h"
#include "engine/osneng.h"
#include "live/osnbpf.h"
#include "live/oswork.h"

struct noisemon {
	struct osneng *e;
	struct osnbpf *bpf;
	struct oswork *w;
	size_t nr;
	struct noisemon_cpu *cpus;	/* nr, in the engine's order (CPU order) */
};

/* A finished period of cpu, into its sums. */
static void on_period(void *arg, uint32_t cpu, uint64_t end_ns, const struct noise_stats *p)
{
	struct noisemon *m = arg;
	(void)end_ns;
	int i = osneng_index(m->e, cpu);

	if (i < 0)
		return;
	struct noisemon_cpu *s = &m->cpus[i];
	s->periods++;
	s->runtime_ns += p->runtime_ns;
	s->noise_ns += p->noise_ns;
	s->gaps += p->gaps;
	if (p->max_single_ns > s->max_single_ns)
		s->max_single_ns = p->max_single_ns;
	s->hw_count += p->hw_count;
	s->hw_ns += p->hw_ns;
	for (int c = 0; c < NOISE_NR_CLASSES; c++) {
		s->count[c] += p->count[c];
		s->net_ns[c] += p->net_ns[c];
	}
}

int noisemon_start(struct noisemon **out, const struct noisemon_cfg *cfg, char *why, size_t len)
{
	struct noisemon *m = calloc(1, sizeof(*m));
	struct parse_cpuset online;
	char msg[400];
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	if (!cfg->runtime_us || cfg->runtime_us > cfg->period_us) {
		snprintf(why, len, "the runtime must be > 0 and at most the period");
		free(m);
		return -EINVAL;
	}
	sysinfo_online_cpus(&online);
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++)
		if (parse_cpuset_has(&cfg->cpus, cpu) && !parse_cpuset_has(&online, cpu)) {
			snprintf(why, len, "CPU %u is not online", cpu);
			free(m);
			return -EINVAL;
		}
	/* the attribution in the kernel: without it every gap would be HW */
	struct osnbpf_cfg bc = { .softirq_in_threads = cfg->softirq_in_threads };
	err = osnbpf_open(&m->bpf, &bc, msg, sizeof(msg));
	if (err < 0) {
		snprintf(why, len, "the noise counters need the osnoise bpf backend: %s", msg);
		free(m);
		return err;
	}
	struct osneng_opts o = {
		.cpus = cfg->cpus,
		.threshold_us = cfg->threshold_us ? cfg->threshold_us : 5,
		.period_us = cfg->period_us,
		.runtime_us = cfg->runtime_us,
		.softirq_in_threads = cfg->softirq_in_threads,
		.gap_counters = true,
	};
	struct osneng_sink sk = { .arg = m, .period = on_period };
	err = osneng_new(&m->e, &o, &sk);
	if (err < 0) {
		snprintf(why, len, "cannot set up the noise engine: %s", strerror(-err));
		noisemon_free(m);
		return err;
	}
	m->nr = osneng_nr(m->e);
	m->cpus = calloc(m->nr ? m->nr : 1, sizeof(*m->cpus));
	if (!m->cpus) {
		noisemon_free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nr; i++)
		m->cpus[i].cpu = osneng_list(m->e)[i];
	osneng_start(m->e, oswork_now_ns());
	osnbpf_set_gate(m->bpf, osneng_times(m->e)->warm_end_ns);
	struct oswork_opts wo = {
		.cpus = cfg->cpus,
		.period_ns = cfg->period_us * 1000,
		.runtime_ns = cfg->runtime_us * 1000,
		.threshold_ns = o.threshold_us * 1000,
		.policy = cfg->policy,
		.prio = cfg->prio,
	};
	wo.slots = osnbpf_slots(m->bpf, &wo.nr_slots);
	uint64_t t_start = oswork_now_ns();
	err = oswork_start(&m->w, &wo);
	if (err < 0) {
		snprintf(why, len, "cannot start the busy loops: %s%s", strerror(-err),
			 err == -EPERM ? " (a real-time priority needs CAP_SYS_NICE)" : "");
		oswork_free(m->w);
		m->w = NULL;
		noisemon_free(m);
		return err;
	}
	osneng_use_workload(m->e, m->w);
	for (size_t i = 0; i < m->nr; i++)
		osneng_set_tid(m->e, m->cpus[i].cpu, oswork_tid(m->w, i), oswork_floor_ns(m->w, i), t_start);
	*out = m;
	return 0;
}

void noisemon_advance(struct noisemon *m, uint64_t until_ns)
{
	osneng_advance(m->e, until_ns);
}

size_t noisemon_cpus(const struct noisemon *m, const struct noisemon_cpu **out)
{
	*out = m->cpus;
	return m->nr;
}

void noisemon_reset(struct noisemon *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		unsigned cpu = m->cpus[i].cpu;
		memset(&m->cpus[i], 0, sizeof(m->cpus[i]));
		m->cpus[i].cpu = cpu;
	}
}

void noisemon_free(struct noisemon *m)
{
	if (!m)
		return;
	if (m->w) {
		oswork_stop(m->w);
		osneng_set_end(m->e, oswork_now_ns());
		osneng_advance(m->e, UINT64_MAX);
		osneng_close(m->e);
	}
	oswork_free(m->w);
	osnbpf_close(m->bpf);
	osneng_free(m->e);
	free(m->cpus);
	free(m);
}
