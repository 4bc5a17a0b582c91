/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - `hist report|record|top --per-task`: the tasks that waited
 * longest from their wakeup to their switch-in (lib/engine/tasklat.h, fed
 * the wakeup and wakeup/sharedprio samples the trackers file), as a table
 * and as the "tasks" object of the hist JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "base/jsonnum.h"
#include "engine/tasklat.h"
#include "hist.h"

/* every task kept, worst max first: rows (the caller frees it), their number in *n */
static struct tasklat_row *all_rows(const struct hctx *c, size_t *n)
{
	const struct tasklat_stats *st = tasklat_stats(c->run.tasks);
	struct tasklat_row *r = st->used ? calloc(st->used, sizeof(*r)) : NULL;

	*n = r ? tasklat_rows(c->run.tasks, r, st->used, TASKLAT_BY_MAX) : 0;
	return r;
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

void hist_tasks_text(const struct hctx *c, FILE *f)
{
	size_t n;

	if (!c->run.tasks)
		return;
	const struct tasklat_stats *st = tasklat_stats(c->run.tasks);
	struct tasklat_row *r = all_rows(c, &n);
	size_t show = c->o.per_task_rows && c->o.per_task_rows < n ? (size_t)c->o.per_task_rows : n;

	fprintf(f, "tasks that waited longest, wakeup to switch-in (us; wakeup and sharedprio%s):\n",
		c->o.lcfg.all_tasks ? ", every task" : c->o.lcfg.pid > 0 ? ", --pid" : ", real-time tasks only");
	fprintf(f, "  %-16s %8s %10s %10s %10s %10s %12s\n", "comm", "pid", "count", "p50", "p99", "max",
		"total");
	for (size_t i = 0; i < show; i++)
		fprintf(f, "  %-16s %8" PRId32 " %10" PRIu64 " %10.1f %10.1f %10.1f %12.1f\n",
			r[i].comm[0] ? r[i].comm : "?", r[i].pid, r[i].count, us(r[i].p50_ns),
			us(r[i].p99_ns), us(r[i].max_ns), us(r[i].total_ns));
	if (show < n)
		fprintf(f, "  ... %zu more tasks (--per-task=0 shows them all)\n", n - show);
	fprintf(f, "  %" PRIu32 " tasks in %" PRIu32 " slots, %" PRIu64 " samples; %" PRIu64
		   " tasks evicted (%" PRIu64 " samples), %" PRIu64 " samples dropped by the full table\n\n",
		st->used, st->slots, st->samples, st->evicted, st->evicted_samples, st->dropped);
	free(r);
}

struct json_object *hist_tasks_json(const struct hctx *c)
{
	size_t n;

	if (!c->run.tasks)
		return NULL;
	const struct tasklat_stats *st = tasklat_stats(c->run.tasks);
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct tasklat_row *r = all_rows(c, &n);
	if (!o || !a || (st->used && !r)) {
		json_object_put(o);
		json_object_put(a);
		free(r);
		return NULL;
	}
	json_object_object_add(o, "slots", json_object_new_int64(st->slots));
	json_object_object_add(o, "kept", json_object_new_int64(st->used));
	json_object_object_add(o, "samples", jsonnum_u64(st->samples));
	json_object_object_add(o, "evicted", jsonnum_u64(st->evicted));
	json_object_object_add(o, "evicted_samples", jsonnum_u64(st->evicted_samples));
	json_object_object_add(o, "dropped", jsonnum_u64(st->dropped));
	json_object_object_add(o, "no_task", jsonnum_u64(st->no_task));
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_new_object();
		if (!t)
			continue;
		json_object_object_add(t, "pid", json_object_new_int(r[i].pid));
		json_object_object_add(t, "comm", json_object_new_string(r[i].comm));
		json_object_object_add(t, "count", jsonnum_u64(r[i].count));
		json_object_object_add(t, "p50_ns", jsonnum_u64(r[i].p50_ns));
		json_object_object_add(t, "p99_ns", jsonnum_u64(r[i].p99_ns));
		json_object_object_add(t, "max_ns", jsonnum_u64(r[i].max_ns));
		json_object_object_add(t, "total_ns", jsonnum_u64(r[i].total_ns));
		json_object_object_add(t, "max_time_ns", jsonnum_u64(r[i].max_time_ns));
		json_object_array_add(a, t);
	}
	json_object_object_add(o, "rows", a);
	free(r);
	return o;
}
