/* SPDX-License-Identifier: MIT */
/*
 * truthcmp - compare `dtl report --json`'s per-task view with what
 * `dtl synth --truth` knows: every task with an interruption or run time in
 * the truth must appear with exactly the same interruptions, hypervisor_ns,
 * worst_ns and run_ns, and the report must name no task the truth does not.
 *
 *   truthcmp TRUTH.json REPORT.json
 * Prints one line per difference and a summary; exit 0 when they agree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

static const char *const fields[] = { "interruptions", "hypervisor_ns", "worst_ns", "run_ns" };

static struct json_object *find_pid(struct json_object *tasks, int64_t pid)
{
	size_t n = json_object_array_length(tasks);

	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(tasks, i), *p;
		if (json_object_object_get_ex(t, "pid", &p) && json_object_get_int64(p) == pid)
			return t;
	}
	return NULL;
}

static uint64_t u64(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : UINT64_MAX;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: truthcmp TRUTH.json REPORT.json\n");
		return 2;
	}
	struct json_object *truth = json_object_from_file(argv[1]);
	struct json_object *rep = json_object_from_file(argv[2]);
	struct json_object *tt, *rt;
	if (!truth || !rep || !json_object_object_get_ex(truth, "tasks", &tt) ||
	    !json_object_object_get_ex(rep, "tasks", &rt)) {
		fprintf(stderr, "truthcmp: cannot read the tasks of %s or %s\n", argv[1], argv[2]);
		return 2;
	}
	size_t n = json_object_array_length(tt), checked = 0, bad = 0, hurt = 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(tt, i);
		int64_t pid = (int64_t)u64(t, "pid");
		if (!u64(t, "interruptions") && !u64(t, "run_ns"))
			continue;
		checked++;
		hurt += u64(t, "interruptions") != 0;
		struct json_object *r = find_pid(rt, pid);
		if (!r) {
			printf("pid %" PRId64 ": missing from the report\n", pid);
			bad++;
			continue;
		}
		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
			uint64_t a = u64(t, fields[k]), b = u64(r, fields[k]);
			if (a != b) {
				printf("pid %" PRId64 ": %s truth %" PRIu64 " report %" PRIu64 "\n", pid,
				       fields[k], a, b);
				bad++;
			}
		}
	}
	size_t rn = json_object_array_length(rt);
	for (size_t i = 0; i < rn; i++) {
		struct json_object *r = json_object_array_get_idx(rt, i);
		int64_t pid = (int64_t)u64(r, "pid");
		struct json_object *t = find_pid(tt, pid);
		if ((!t || (!u64(t, "interruptions") && !u64(t, "run_ns"))) &&
		    (u64(r, "interruptions") || u64(r, "run_ns"))) {
			printf("pid %" PRId64 ": in the report but not in the truth\n", pid);
			bad++;
		}
	}
	printf("truthcmp: %zu tasks checked (%zu hurt), %zu differences\n", checked, hurt, bad);
	json_object_put(truth);
	json_object_put(rep);
	return bad || !hurt ? 1 : 0;
}
