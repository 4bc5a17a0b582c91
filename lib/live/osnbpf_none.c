/* SPDX-License-Identifier: MIT */
/* osnbpf_none.c - the osnoise bpf backend compiled out (osnbpf.h): the
 * Makefile builds this file instead of osnbpf.c where libbpf, clang,
 * bpftool or the kernel's BTF was missing; the reason is bpfhist's, the
 * same build's (bpfhist_built()). */
#include <errno.h>
#include <stdio.h>

#include "live/bpfhist.h"
#include "live/osnbpf.h"

const char *osnbpf_built(void)
{
	return bpfhist_built();
}

int osnbpf_open(struct osnbpf **out, const struct osnbpf_cfg *cfg, char *why, size_t why_len)
{
	(void)cfg;
	*out = NULL;
	snprintf(why, why_len, "latscope was built without the bpf backend: %s", bpfhist_built());
	return -EOPNOTSUPP;
}

struct osnbpf_slot *osnbpf_slots(struct osnbpf *o, size_t *nr)
{
	(void)o;
	*nr = 0;
	return NULL;
}

void osnbpf_set_gate(struct osnbpf *o, uint64_t from_ns)
{
	(void)o;
	(void)from_ns;
}

const char *osnbpf_absent(const struct osnbpf *o)
{
	(void)o;
	return "";
}

void osnbpf_stop(struct osnbpf *o)
{
	(void)o;
}

int osnbpf_read(struct osnbpf *o, osnbpf_contrib_fn fn, void *arg, struct osnbpf_stats *st)
{
	(void)o;
	(void)fn;
	(void)arg;
	(void)st;
	return -EOPNOTSUPP;
}

void osnbpf_close(struct osnbpf *o)
{
	(void)o;
}
