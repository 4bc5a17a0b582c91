/* SPDX-License-Identifier: MIT */
/* bpfload.c - libbpf's side of bpfload.h (BPF builds only). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "live/bpfload.h"

#define BTF_VMLINUX "/sys/kernel/btf/vmlinux"

/* libbpf's last warning: the detail of a refused load (libbpf would print
 * it on stderr; lib/ never prints).  One process-wide buffer. */
static char last_msg[256];
static libbpf_print_fn_t saved_print;

static int keep_msg(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[sizeof(last_msg)];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (line[0])
		memcpy(last_msg, line, sizeof(line));
	return 0;
}

void bpfload_capture_begin(void)
{
	last_msg[0] = '\0';
	saved_print = libbpf_set_print(keep_msg);
}

void bpfload_capture_end(void)
{
	libbpf_set_print(saved_print);
}

void bpfload_explain(char *why, size_t len, int err, const char *what)
{
	const char *hint = "";

	if (err == -EPERM || err == -EACCES)
		hint = access("/sys/kernel/security/lockdown", R_OK) == 0
			       ? " (needs root, or CAP_BPF and CAP_PERFMON; a locked-down kernel "
				 "refuses BPF tracing: see /sys/kernel/security/lockdown)"
			       : " (needs root, or CAP_BPF and CAP_PERFMON)";
	snprintf(why, len, "%s: %s%s%s%s", what, strerror(-err), hint, last_msg[0] ? "; libbpf: " : "",
		 last_msg);
}

int bpfload_need_btf(char *why, size_t len)
{
	if (access(BTF_VMLINUX, R_OK) == 0)
		return 0;
	int err = -errno;
	snprintf(why, len, "the kernel has no BTF (%s: %s): CO-RE cannot relocate the "
		 "programs (a kernel built with CONFIG_DEBUG_INFO_BTF has it)", BTF_VMLINUX, strerror(-err));
	return err;
}

int bpfload_tp_arg_is_ptr(const char *tp, unsigned arg)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char tname[128];
	int rc = -ENOENT;

	if (!btf)
		return errno ? -errno : -ENOENT;
	if (snprintf(tname, sizeof(tname), "btf_trace_%s", tp) < (int)sizeof(tname)) {
		int id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
		/* btf_trace_TP -> pointer -> the prototype (void *ctx, args...) */
		const struct btf_type *t = id >= 0 ? btf__type_by_id(btf, btf__resolve_type(btf, id)) : NULL;
		if (t && btf_is_ptr(t))
			t = btf__type_by_id(btf, t->type);
		if (t && btf_is_func_proto(t) && arg + 1 < btf_vlen(t)) {
			int at = btf__resolve_type(btf, btf_params(t)[arg + 1].type);
			const struct btf_type *a = at >= 0 ? btf__type_by_id(btf, (__u32)at) : NULL;
			if (a)
				rc = btf_is_ptr(a) ? 1 : 0;
		}
	}
	btf__free(btf);
	return rc;
}

int bpfload_read_progs(struct bpf_object *obj, struct bpfload_prog *out, uint32_t max, uint32_t *nr,
		       uint64_t *run_cnt, uint64_t *misses)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(p);
		if (fd < 0)	/* not loaded (left out of the load) */
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
			return -errno;
		if (*nr >= max)
			return -E2BIG;
		struct bpfload_prog *ps = &out[(*nr)++];
		snprintf(ps->name, sizeof(ps->name), "%s", bpf_program__name(p));
		ps->run_cnt = info.run_cnt;
		ps->run_time_ns = info.run_time_ns;
		ps->recursion_misses = info.recursion_misses;
		*run_cnt += info.run_cnt;
		*misses += info.recursion_misses;
	}
	return 0;
}
