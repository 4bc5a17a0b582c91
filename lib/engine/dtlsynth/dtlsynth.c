/* SPDX-License-Identifier: MIT */
/* dtlsynth.c - synthetic shared-processor LPAR recording (see dtlsynth.h). */
/* The per-vCPU model: dtlsynth_model.c; the shared state: dtlsynth_int.h. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "format/dtl.h"
#include "dtlsynth_int.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"
#include "format/tpencode.h"

static uint64_t rnd64(struct syn *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ULL;
}

double dtlsynth_rnd01(struct syn *s)
{
	return (double)(rnd64(s) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t dtlsynth_rndn(struct syn *s, uint32_t n)
{
	return n ? (uint32_t)((rnd64(s) >> 32) % n) : 0;
}

uint64_t dtlsynth_rexp(struct syn *s, double mean_ns)
{
	double u = dtlsynth_rnd01(s);
	double v = -mean_ns * log(1.0 - u);
	if (v > 4e9)
		v = 4e9;
	return (uint64_t)v + 1;
}

void dtlsynth_defaults(struct dtlsynth_cfg *c)
{
	if (!c->cpus)
		c->cpus = 4;
	if (!c->duration_ns)
		c->duration_ns = 1000000000ULL;
	if (c->entitlement <= 0)
		c->entitlement = 0.5;
	if (c->entitlement > 1)
		c->entitlement = 1;
	if (c->load <= 0)
		c->load = 0.6;
	if (c->load > 0.98)
		c->load = 0.98;
	if (c->fault_hz <= 0)
		c->fault_hz = 2;
	if (c->confer_hz <= 0)
		c->confer_hz = 5;
	if (!c->move_permille)
		c->move_permille = 100;
	if (!c->ring)
		c->ring = DTL_RING_ENTRIES;
	if (!c->aux_bytes)
		c->aux_bytes = 128 * 1024;
	if (!c->poll_ns)
		c->poll_ns = 1000000ULL;
	if (!c->round_ns)
		c->round_ns = 4000000ULL;
	if (!c->cede_srr0)
		c->cede_srr0 = 0xc0000000000f8094ULL;
	if (!c->boot_tb)
		c->boot_tb = 21349649546353231ULL;
	if (!c->tb_freq)
		c->tb_freq = DTL_DEFAULT_TB_FREQ;
	if (!c->start_ns)
		c->start_ns = 100000000000ULL;
	if (c->preempt_hz <= 0) {
		double r = c->load / c->entitlement;
		c->preempt_hz = 20.0 * r * r;
	}
}

static int fail(struct syn *s, int err, const char *msg)
{
	if (s->errm && s->errl)
		snprintf(s->errm, s->errl, "%s", msg);
	return err;
}

uint32_t dtlsynth_ns_to_ticks(const struct syn *s, uint64_t ns)
{
	unsigned __int128 v = (unsigned __int128)ns * s->c.tb_freq / 1000000000u;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint64_t dtlsynth_ns_to_tb(const struct syn *s, uint64_t ns)
{
	return s->c.boot_tb + (uint64_t)((unsigned __int128)ns * s->c.tb_freq / 1000000000u);
}

/* ---- tracepoint payloads ---- */

static int parse(struct tep_handle *tep, const struct tracedata_event *te)
{
	if (tep_parse_event(tep, te->format, strlen(te->format), te->system))
		return -EINVAL;
	return 0;
}

uint32_t dtlsynth_task_pid(int task)
{
	return task < 0 ? 0 : 2000u + (uint32_t)task;
}

static void task_comm(int task, uint32_t cpu, char *buf, size_t len)
{
	if (task < 0)
		snprintf(buf, len, "swapper/%u", cpu);
	else
		snprintf(buf, len, "worker-%d", task);
}

int dtlsynth_write_sched(struct syn *s, const struct sev *e)
{
	uint8_t raw[256];
	int cur = e->kind == EV_SWITCH ? e->prev : e->waker;
	struct tpevent t = { .kind = e->kind == EV_SWITCH ? TPEVENT_SCHED_SWITCH : TPEVENT_SCHED_WAKEUP,
			 .common_flags = 1, .pid = (int32_t)dtlsynth_task_pid(cur) };

	if (e->kind == EV_SWITCH) {
		task_comm(e->prev, e->cpu, t.sw.prev_comm, sizeof(t.sw.prev_comm));
		t.sw.prev_pid = (int32_t)dtlsynth_task_pid(e->prev);
		t.sw.prev_prio = 120;
		t.sw.prev_state = e->prev_state;
		task_comm(e->next, e->cpu, t.sw.next_comm, sizeof(t.sw.next_comm));
		t.sw.next_pid = (int32_t)dtlsynth_task_pid(e->next);
		t.sw.next_prio = 120;
	} else {
		task_comm(e->next, e->cpu, t.wake.comm, sizeof(t.wake.comm));
		t.wake.pid = (int32_t)dtlsynth_task_pid(e->next);
		t.wake.prio = 120;
		t.wake.target_cpu = (int32_t)e->cpu;
	}
	ssize_t size = tpencode(s->enc, &t, raw, sizeof(raw));
	if (size < 0)
		return (int)size;
	struct pdread_sample smp = {
		.ip = 0xc000000000100000ULL + (e->kind == EV_SWITCH ? 0x1234 : 0x5678),
		.pid = dtlsynth_task_pid(cur), .tid = dtlsynth_task_pid(cur),
		.time = e->t,
		.id = (e->kind == EV_SWITCH ? 2000u : 3000u) + e->cpu,
		.cpu = e->cpu,
		.period = 1,
		.raw = raw,
		.raw_size = (uint32_t)size,
	};
	s->st->samples++;
	if (e->t > s->last_written_ns)
		s->last_written_ns = e->t;
	if (e->kind == EV_SWITCH && s->truth) {
		struct vcpu *v = &s->v[e->cpu];
		if (v->run_task != -2)
			s->truth->tasks[v->run_task + 1].run_ns += e->t - v->run_since;
		v->run_task = e->next;
		v->run_since = e->t;
	}
	return pdwrite_write_sample(s->w, e->kind == EV_SWITCH ? s->ev_sw : s->ev_wk, PDFORMAT_MISC_KERNEL, &smp);
}

static int write_pmu_mappings(struct syn *s)
{
	static const struct { uint32_t type; const char *name; } m[] = {
		{ 1, "software" }, { 2, "tracepoint" }, { 4, "cpu" }, { VPA_PMU_TYPE, "vpa_dtl" },
	};
	uint8_t buf[512];
	size_t n = 0, cnt = s->c.no_dtl ? 3 : 4;

	bytes_st32(buf, (uint32_t)cnt, s->swap);
	n = 4;
	for (size_t i = 0; i < cnt; i++) {
		size_t l = strlen(m[i].name) + 1, pl = (l + 63) / 64 * 64;
		bytes_st32(buf + n, m[i].type, s->swap);
		bytes_st32(buf + n + 4, (uint32_t)pl, s->swap);
		memset(buf + n + 8, 0, pl);
		memcpy(buf + n + 8, m[i].name, l);
		n += 8 + pl;
	}
	return pdwrite_set_raw_feature(s->w, PDFORMAT_FEAT_PMU_MAPPINGS, buf, n);
}

/* the tracepoints of the recording, in the order of their evsels */
static const char *const sched_specs[] = { "sched:sched_switch", "sched:sched_wakeup" };

/* The sched formats (*tfp, from the formats directory or tracefs) parsed
 * into *tepp and s->enc, the encoder of the samples, and their ids in s.
 * The caller frees *tfp and *tepp (set also on failure), s->enc with s.
 * 0 or a negative errno (the message set). */
static int load_sched_formats(struct syn *s, struct tracedata_formats **tfp, struct tep_handle **tepp)
{
	struct tracedata_formats *tf = NULL;
	int err;

	err = tracedata_collect(s->c.formats_dir, sched_specs, 2, &tf);
	*tfp = tf;
	if (err == -EACCES || err == -EPERM)
		return fail(s, err, "tracefs is not readable by this user, so the sched formats "
			    "cannot be read (run as root, or pass --formats DIR)");
	if (err)
		return fail(s, err, "cannot read the sched:sched_switch/sched_wakeup formats "
			    "(mount tracefs, or pass a formats directory)");
	struct tep_handle *tep = tep_alloc();
	*tepp = tep;
	if (!tep)
		return -ENOMEM;
	const struct tracedata_event *tsw = tracedata_find(tf, "sched", "sched_switch");
	const struct tracedata_event *twk = tracedata_find(tf, "sched", "sched_wakeup");
	struct tpevent probe_sw = { .kind = TPEVENT_SCHED_SWITCH }, probe_wk = { .kind = TPEVENT_SCHED_WAKEUP };
	tep_set_file_bigendian(tep, s->c.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (!tsw || !twk || parse(tep, tsw) || parse(tep, twk))
		return fail(s, -EINVAL, "the sched formats lack the expected fields");
	s->enc = tpdecode_new(tep);
	if (!s->enc)
		return -ENOMEM;
	s->sw_id = tsw->id;
	s->wk_id = twk->id;
	if (tpencode_id(s->enc, &probe_sw) != (int)tsw->id || tpencode_id(s->enc, &probe_wk) != (int)twk->id ||
	    tpencode_size(s->enc, (int)tsw->id) > 256 || tpencode_size(s->enc, (int)twk->id) > 256)
		return fail(s, -EINVAL, "the sched formats lack the expected fields");
	return 0;
}

/* The evsels, as perf record adds them: vpa_dtl/dtl_all/ (ids 1000 + cpu)
 * unless no_dtl, sched_switch (2000 + cpu) and sched_wakeup (3000 + cpu)
 * unless no_sched (then the sched indexes are the DTL's).  0 or a negative
 * errno (the message set). */
static int add_events(struct syn *s)
{
	uint64_t *idv = calloc(s->c.cpus, sizeof(*idv));
	if (!idv)
		return -ENOMEM;
	s->ev_dtl = -1;
	if (!s->c.no_dtl) {
		struct pdformat_attr a = { 0 };
		a.type = VPA_PMU_TYPE;
		a.config = 7;
		a.sample_period = s->c.poll_ns;
		a.sample_type = DTL_VPA_SAMPLE_TYPE;	/* perf record's */
		a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL);
		for (unsigned i = 0; i < s->c.cpus; i++)
			idv[i] = 1000u + i;
		s->ev_dtl = pdwrite_add_evsel(s->w, &a, "vpa_dtl/dtl_all/", idv, s->c.cpus);
	}
	for (int k = 0; k < 2 && !s->c.no_sched; k++) {
		struct pdformat_attr a = { 0 };
		a.type = PDFORMAT_TYPE_TRACEPOINT;
		a.config = k ? s->wk_id : s->sw_id;
		a.sample_period = 1;
		a.sample_type = PDFORMAT_SAMPLE_IDENTIFIER | PDFORMAT_SAMPLE_IP | PDFORMAT_SAMPLE_TID | PDFORMAT_SAMPLE_TIME |
				PDFORMAT_SAMPLE_CPU | PDFORMAT_SAMPLE_PERIOD | PDFORMAT_SAMPLE_RAW;
		a.flags = (1ULL << PDFORMAT_ATTR_FLAG_DISABLED) | (1ULL << PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL) |
			  (1ULL << PDFORMAT_ATTR_FLAG_EXCLUDE_GUEST);
		for (unsigned i = 0; i < s->c.cpus; i++)
			idv[i] = (k ? 3000u : 2000u) + i;
		int ev = pdwrite_add_evsel(s->w, &a, sched_specs[k], idv, s->c.cpus);
		if (k)
			s->ev_wk = ev;
		else
			s->ev_sw = ev;
	}
	free(idv);
	if (s->c.no_sched)	/* a DTL-only recording (perf record -e vpa_dtl/dtl_all/) */
		s->ev_sw = s->ev_wk = s->ev_dtl;
	if ((!s->c.no_dtl && s->ev_dtl < 0) || s->ev_sw < 0 || s->ev_wk < 0)
		return fail(s, -EINVAL, "cannot add the events");
	return 0;
}

/* The header's features (tracing data of tf, an LPAR's host, release,
 * CPUs and PMUs), then the data section begins with the AUXTRACE_INFO
 * of the DTL.  0 or a negative errno (the message set). */
static int write_features(struct syn *s, const struct tracedata_formats *tf)
{
	int err = tracedata_set_tracing_data(s->w, tf, s->c.big_endian);
	if (!err)
		err = pdwrite_set_string_feature(s->w, PDFORMAT_FEAT_HOSTNAME, "lpar-synth");
	if (!err)
		err = pdwrite_set_string_feature(s->w, PDFORMAT_FEAT_OSRELEASE, s->c.osrelease ? s->c.osrelease : "6.18.0-synth");
	if (!err)
		err = pdwrite_set_string_feature(s->w, PDFORMAT_FEAT_VERSION, "latscope-dtl-synth");
	if (!err)
		err = pdwrite_set_string_feature(s->w, PDFORMAT_FEAT_ARCH, s->c.arch ? s->c.arch : s->c.big_endian ? "ppc64" : "ppc64le");
	if (!err)
		err = pdwrite_set_string_feature(s->w, PDFORMAT_FEAT_CPUDESC, "POWER10 (architected), altivec supported");
	if (!err)
		err = pdwrite_set_nrcpus(s->w, s->c.cpus, s->c.cpus);
	if (!err)
		err = write_pmu_mappings(s);
	if (!err)
		err = pdwrite_begin_data(s->w);
	if (!err && !s->c.no_dtl)
		err = pdwrite_write_auxtrace_info(s->w, PDFORMAT_AUXTRACE_VPA_DTL, (const uint64_t[]){ 0 }, 1);
	if (err)
		return fail(s, err, "writing the header failed");
	return 0;
}

/* The first records: the kernel map perf expects, and a COMM record per
 * task.  0 or a negative errno (the message set). */
static int write_tasks(struct syn *s)
{
	uint8_t body[64];
	struct pdread_sample tr = { .pid = (uint32_t)-1, .tid = 0 };
	int err = pdwrite_write_kernel_map(s->w, s->ev_sw, 0xc000000000000000ULL, 0x2000000ULL, 0xc000000000000000ULL, &tr);
	for (unsigned t = 0; !err && t < s->c.cpus * TASKS_PER_CPU; t++) {
		char comm[32];
		memset(body, 0, sizeof(body));
		task_comm((int)t, 0, comm, sizeof(comm));
		comm[15] = '\0';
		bytes_st32(body, dtlsynth_task_pid((int)t), s->swap);
		bytes_st32(body + 4, dtlsynth_task_pid((int)t), s->swap);
		memcpy(body + 8, comm, strlen(comm) + 1);
		struct pdread_sample ct = { .pid = dtlsynth_task_pid((int)t), .tid = dtlsynth_task_pid((int)t) };
		err = pdwrite_write_with_trailer(s->w, s->ev_sw, PDFORMAT_RECORD_COMM, 0, body, 8 + strlen(comm) + 1, &ct);
	}
	return err ? fail(s, err, "writing the task records failed") : 0;
}

/* The output opened and its header written, up to the task records; the
 * formats (*tfp, *tepp) are the caller's to free. */
static int setup(struct syn *s, const char *path, struct tracedata_formats **tfp, struct tep_handle **tepp)
{
	struct pdwrite_opts o = { .big_endian = s->c.big_endian, .pipe = s->c.pipe, .force = s->c.force,
				  .refusal = s->c.refusal };
	int err = load_sched_formats(s, tfp, tepp);
	if (err)
		return err;
	err = pdwrite_open(&s->w, path, &o);
	if (err)
		return fail(s, err, "cannot create the output file");
	s->swap = pdwrite_needs_swap(s->w);
	err = add_events(s);
	if (!err)
		err = write_features(s, *tfp);
	if (!err)
		err = write_tasks(s);
	return err;
}

void dtlsynth_truth_free(struct dtlsynth_truth *t)
{
	if (!t)
		return;
	free(t->tasks);
	t->tasks = NULL;
	t->nr_tasks = 0;
	free(t->wake_hv);
	t->wake_hv = NULL;
	t->nr_wake_hv = 0;
}

static uint64_t next_round(struct syn *s, uint64_t r)
{
	if (s->c.poll_layout)
		return r + s->poll_ns;
	/* perf record wakes up every few ms, never exactly periodic */
	s->rng = s->rng_layout;
	uint64_t d = s->c.round_ns * 3 / 4 + (uint64_t)(dtlsynth_rnd01(s) * (double)(s->c.round_ns / 2));
	s->rng_layout = s->rng;
	return r + (d ? d : 1);
}

/* The model's constants from the configuration: the driver's poll period,
 * the layout's random stream, the mean busy and idle times of the load,
 * the dispatch delays for the entitlement, the hypervisor's event rate. */
static void model_params(struct syn *s)
{
	s->poll_ns = s->c.poll_ns < 1000000ULL ? 1000000ULL : s->c.poll_ns;	/* the driver's clamp */
	s->rng_layout = 0xD1B54A32D192ED03ULL ^ (s->c.seed * 0x9E3779B97F4A7C15ULL);
	if (!s->rng_layout)
		s->rng_layout = 1;
	s->mean_burst_ns = 2e6;
	s->mean_idle_ns = s->mean_burst_ns * (1 - s->c.load) / s->c.load;
	double r = s->c.load / s->c.entitlement;
	s->pre_e2d_ns = 500000.0 * r;
	s->cede_e2d_ns = 10000.0 * r;
	s->hv_hz = s->c.preempt_hz + s->c.fault_hz + s->c.confer_hz;
}

/* The truth's task table (the caller's, freed by dtlsynth_truth_free):
 * swapper, then each task's name and pid; s keeps it to add the run
 * times.  0 or -ENOMEM. */
static int init_truth(struct syn *s, struct dtlsynth_truth *truth)
{
	truth->tb_freq = s->c.tb_freq;
	truth->nr_tasks = 1 + (size_t)s->c.cpus * TASKS_PER_CPU;
	truth->tasks = calloc(truth->nr_tasks, sizeof(*truth->tasks));
	if (!truth->tasks)
		return -ENOMEM;
	for (size_t k = 0; k < truth->nr_tasks; k++) {
		char tmp[32];
		task_comm((int)k - 1, 0, tmp, sizeof(tmp));
		snprintf(truth->tasks[k].comm, sizeof(truth->tasks[k].comm), "%.15s", tmp);
		truth->tasks[k].pid = dtlsynth_task_pid((int)k - 1);
	}
	snprintf(truth->tasks[0].comm, sizeof(truth->tasks[0].comm), "swapper");
	s->truth = truth;
	return 0;
}

/* Each vCPU's start: its time, its home processor, its own random stream,
 * no task running, and the phase of its driver timer (from the layout's
 * stream). */
static void init_vcpus(struct syn *s)
{
	for (unsigned i = 0; i < s->c.cpus; i++) {
		struct vcpu *v = &s->v[i];
		v->t = s->c.start_ns + 1000u * i;
		v->cur = -1;
		v->home = v->proc = (uint16_t)(i * PROCS_PER_CPU + i % PROCS_PER_CPU);
		v->rng = (0x9E3779B97F4A7C15ULL ^ (s->c.seed * 0x100000001B3ULL)) + 0x632BE59BD9B4E019ULL * (i + 1);
		if (!v->rng)
			v->rng = 1;
		v->run_task = -2;
		/* each CPU's driver timer has its own phase */
		s->rng = s->rng_layout;
		v->next_poll = s->c.start_ns + (s->c.poll_layout ? s->poll_ns
						: 1 + (uint64_t)(dtlsynth_rnd01(s) * (double)(s->poll_ns - 1)));
		s->rng_layout = s->rng;
	}
}

/* The recording's data, round by round as perf record writes it: per CPU
 * the model run to the round's end, its ring records (compressed when
 * asked) and its AUX data; the last round ends at the duration with the
 * driver's stop.  0 or a negative errno. */
static int write_rounds(struct syn *s)
{
	uint64_t end = s->c.start_ns + s->c.duration_ns;
	uint64_t rb = s->c.start_ns;
	bool last = false;
	int err = 0;
	while (!err && !last) {
		rb = next_round(s, rb);
		if (rb >= end) {
			rb = end;
			last = true;
		}
		for (unsigned cpu = 0; !err && cpu < s->c.cpus; cpu++) {
			s->nwin = 0;
			err = dtlsynth_run_cpu(s, cpu, rb, end);
			if (!err && last && !s->c.no_dtl)
				err = dtlsynth_poll_cpu(s, cpu, end);	/* the driver's stop */
			if (!err && s->c.compress && s->nwin)
				err = pdwrite_compress_begin(s->w, s->c.compress);
			for (size_t i = 0; !err && i < s->nwin; i++)
				err = dtlsynth_write_ring_rec(s, &s->win[i]);
			if (!err && s->c.compress && s->nwin)
				err = pdwrite_compress_end(s->w);
			if (!err && !s->c.no_dtl)
				err = dtlsynth_drain_aux(s, cpu);
		}
		if (!err)
			err = pdwrite_finished_round(s->w);
	}
	return err;
}

/* The truth's end, and the run time of the tasks still running then. */
static void close_truth(struct syn *s, struct dtlsynth_truth *truth)
{
	truth->end_ns = s->last_written_ns;
	for (unsigned i = 0; i < s->c.cpus; i++)
		if (s->v[i].run_task != -2)
			truth->tasks[s->v[i].run_task + 1].run_ns += s->last_written_ns - s->v[i].run_since;
}

/* Free the vCPUs' buffers, the vCPUs, the ring windows and the encoder. */
static void free_syn(struct syn *s)
{
	for (unsigned i = 0; i < s->c.cpus; i++) {
		free(s->v[i].ring);
		free(s->v[i].ring_victim);
		free(s->v[i].auxbuf);
		free(s->v[i].aux_victim);
		free(s->v[i].pend);
		free(s->v[i].segs);
	}
	free(s->v);
	free(s->win);
	tpdecode_free(s->enc);
}

int dtlsynth_write_truth(const struct dtlsynth_cfg *cfg, const char *path, struct dtlsynth_stats *st,
		       struct dtlsynth_truth *truth, char *err_msg, size_t err_len)
{
	struct syn s;
	struct dtlsynth_stats dummy;
	struct tracedata_formats *tf = NULL;
	struct tep_handle *tep = NULL;
	int err;

	memset(&s, 0, sizeof(s));
	s.c = *cfg;
	dtlsynth_defaults(&s.c);
	s.st = st ? st : &dummy;
	memset(s.st, 0, sizeof(*s.st));
	s.errm = err_msg;
	s.errl = err_len;
	if (err_msg && err_len)
		err_msg[0] = '\0';
	if (truth)
		memset(truth, 0, sizeof(*truth));
	if (s.c.cpus > 1024)
		return fail(&s, -EINVAL, "at most 1024 CPUs");
	model_params(&s);
	s.v = calloc(s.c.cpus, sizeof(*s.v));
	if (!s.v)
		return fail(&s, -ENOMEM, "out of memory");
	if (truth && init_truth(&s, truth)) {
		free(s.v);
		return fail(&s, -ENOMEM, "out of memory");
	}
	err = setup(&s, path, &tf, &tep);
	init_vcpus(&s);
	if (!err)
		err = write_rounds(&s);
	if (truth && !err)
		close_truth(&s, truth);
	if (err && err_msg && !err_msg[0])
		snprintf(err_msg, err_len, "writing failed");
	int cerr = pdwrite_close(s.w);
	if (!err)
		err = cerr;
	free_syn(&s);
	if (tep)
		tep_free(tep);
	tracedata_free(tf);
	return err;
}

int dtlsynth_write(const struct dtlsynth_cfg *cfg, const char *path, struct dtlsynth_stats *st,
		 char *err_msg, size_t err_len)
{
	return dtlsynth_write_truth(cfg, path, st, NULL, err_msg, err_len);
}
