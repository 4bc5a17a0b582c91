/* SPDX-License-Identifier: MIT */
/* timeline.c - `latscope dtl report`: the vcpu_timeline of the JSON document
 * (docs/json.md), from lib/engine/dtlbins; the HTML page draws it. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <json-c/printbuf.h>

#include "base/jsonnum.h"
#include "report.h"

void dtl_rep_bins_payload(struct rep *o, const struct dtlstat *s, uint32_t cpu, const uint8_t *p,
			  uint64_t len)
{
	const struct dtlstat_cpu *cc = dtlstat_cpu(s, cpu);
	if (!cc)
		return;
	struct dtl_tbinfo tb = dtl_rep_eff_tbi(s, cc, o);
	for (uint64_t off = 0; off + DTL_ENTRY_SIZE <= len; off += DTL_ENTRY_SIZE) {
		if (dtl_raw_is_skipped(p + off))
			continue;
		struct dtl_entry e;
		dtl_decode(p + off, &e);
		/* -ERANGE (counted by dtlbins) and -ENOMEM leave the picture short, not the report */
		(void)dtlbins_entry(o->bins, cpu, dtl_tb_to_ns(e.timebase, &tb), &e, tb.tb_freq);
	}
}

struct tkey {
	int32_t pid;
	char comm[16];
};

static int tkey_cmp(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strncmp(x->comm, y->comm, sizeof(x->comm));
}

/* The distinct dominant tasks of the bins [first, first + n), sorted; *nk of them. */
static struct tkey *task_table(const struct dtlbins *b, uint32_t first, uint32_t n, size_t *nk)
{
	size_t cap = 0, k = 0;
	for (uint32_t c = 0; c < dtlbins_nr_cpus(b); c++)
		cap += dtlbins_cpu(b, c) ? n : 0;
	struct tkey *t = malloc((cap ? cap : 1) * sizeof(*t));
	if (!t)
		return NULL;
	for (uint32_t c = 0; c < dtlbins_nr_cpus(b); c++) {
		const struct dtlbins_bin *x = dtlbins_cpu(b, c);
		for (uint32_t i = 0; x && i < n; i++) {
			if (x[first + i].task_pid == DTLBINS_NO_TASK)
				continue;
			t[k].pid = x[first + i].task_pid;
			memcpy(t[k].comm, x[first + i].task_comm, sizeof(t[k].comm));
			t[k].comm[15] = 0;
			k++;
		}
	}
	qsort(t, k, sizeof(*t), tkey_cmp);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || tkey_cmp(&t[u - 1], &t[i]))
			t[u++] = t[i];
	*nk = u;
	return t;
}

/* A column array on one line, pretty output or not: 512 numbers a line each
 * would make the document ten times longer for nothing. */
static int one_line(struct json_object *a, struct printbuf *pb, int level, int flags)
{
	(void)level;
	(void)flags;
	size_t n = json_object_array_length(a);
	if (printbuf_memappend(pb, "[", 1) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *v = json_object_to_json_string_ext(json_object_array_get_idx(a, i),
							       JSON_C_TO_STRING_PLAIN);
		if ((i && printbuf_memappend(pb, ", ", 2) < 0) || printbuf_memappend(pb, v, (int)strlen(v)) < 0)
			return -1;
	}
	return printbuf_memappend(pb, "]", 1) < 0 ? -1 : 0;
}

static struct json_object *column(const struct dtlbins_bin *x, uint32_t first, uint32_t n, size_t off)
{
	struct json_object *a = json_object_new_array_ext((int)n);
	for (uint32_t i = 0; a && i < n; i++) {
		uint64_t v;
		memcpy(&v, (const char *)&x[first + i] + off, sizeof(v));
		json_object_array_add(a, jsonnum_u64(v));
	}
	if (a)
		json_object_set_serializer(a, one_line, NULL, NULL);
	return a;
}

struct json_object *dtl_rep_bins_json(const struct rep *o)
{
	const struct dtlbins *b = o->bins;
	uint32_t first, n;
	uint64_t start, width;
	size_t nk = 0;
	if (!b)
		return NULL;
	dtlbins_range(b, &first, &n, &start, &width);
	struct tkey *tk = task_table(b, first, n, &nk);
	struct json_object *j = json_object_new_object(), *cpus = json_object_new_array(),
			   *tasks = json_object_new_array();
	if (!tk || !j || !cpus || !tasks) {
		free(tk);
		json_object_put(j);
		json_object_put(cpus);
		json_object_put(tasks);
		return NULL;
	}
	json_object_object_add(j, "start_ns", jsonnum_u64(start));
	json_object_object_add(j, "bin_ns", jsonnum_u64(width));
	json_object_object_add(j, "bins", json_object_new_int((int)n));
	json_object_object_add(j, "outside", jsonnum_u64(dtlbins_outside(b)));
	for (size_t i = 0; i < nk; i++) {
		struct json_object *t = json_object_new_object();
		json_object_object_add(t, "pid", json_object_new_int(tk[i].pid));
		json_object_object_add(t, "comm", json_object_new_string(tk[i].comm));
		json_object_array_add(tasks, t);
	}
	for (uint32_t c = 0; c < dtlbins_nr_cpus(b); c++) {
		const struct dtlbins_bin *x = dtlbins_cpu(b, c);
		if (!x || (o->have_cpus && !parse_cpuset_has(&o->cpus, c)))
			continue;
		struct json_object *cj = json_object_new_object(), *ta = json_object_new_array_ext((int)n);
		json_object_object_add(cj, "cpu", json_object_new_int((int)c));
		json_object_object_add(cj, "preempted_ns", column(x, first, n, offsetof(struct dtlbins_bin, preempted_ns)));
		json_object_object_add(cj, "ceded_ns", column(x, first, n, offsetof(struct dtlbins_bin, ceded_ns)));
		json_object_object_add(cj, "delay_ns", column(x, first, n, offsetof(struct dtlbins_bin, delay_ns)));
		json_object_object_add(cj, "entries", column(x, first, n, offsetof(struct dtlbins_bin, entries)));
		json_object_object_add(cj, "worst_delay_ns",
				       column(x, first, n, offsetof(struct dtlbins_bin, worst_delay_ns)));
		json_object_object_add(cj, "worst_time_ns",
				       column(x, first, n, offsetof(struct dtlbins_bin, worst_time_ns)));
		for (uint32_t i = 0; ta && i < n; i++) {
			const struct dtlbins_bin *y = &x[first + i];
			int idx = -1;
			if (y->task_pid != DTLBINS_NO_TASK) {
				struct tkey key = { .pid = y->task_pid };
				memcpy(key.comm, y->task_comm, sizeof(key.comm));
				key.comm[15] = 0;
				struct tkey *hit = bsearch(&key, tk, nk, sizeof(*tk), tkey_cmp);
				idx = hit ? (int)(hit - tk) : -1;
			}
			json_object_array_add(ta, json_object_new_int(idx));
		}
		if (ta)
			json_object_set_serializer(ta, one_line, NULL, NULL);
		json_object_object_add(cj, "task", ta);
		json_object_array_add(cpus, cj);
	}
	json_object_object_add(j, "tasks", tasks);
	json_object_object_add(j, "cpus", cpus);
	free(tk);
	return j;
}
