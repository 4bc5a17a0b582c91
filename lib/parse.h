/* SPDX-License-Identifier: MIT */
/*
 * parse.h - parsing of command-line values shared by every command.
 * Prefix: ps_.  All return 0 or a negative errno (-EINVAL, -ERANGE); none prints.
 */
#ifndef LATSCOPE_PARSE_H
#define LATSCOPE_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define PS_MAX_CPUS 4096

/* A CPU set as a bitmap of PS_MAX_CPUS bits. */
struct ps_cpuset {
	uint64_t bits[PS_MAX_CPUS / 64];
};

static inline bool ps_cpuset_has(const struct ps_cpuset *s, unsigned cpu)
{
	return cpu < PS_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline void ps_cpuset_add(struct ps_cpuset *s, unsigned cpu)
{
	if (cpu < PS_MAX_CPUS)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

/* Number of CPUs in the set. */
unsigned ps_cpuset_count(const struct ps_cpuset *s);
/* Parse "0-3,5,7-8" into *out (cleared first). */
int ps_cpulist(const char *str, struct ps_cpuset *out);
/* Format a set as a compact list into buf (always NUL-terminated). */
void ps_cpulist_format(const struct ps_cpuset *s, char *buf, size_t len);

/* Parse a duration: "10s", "500ms", "5us", "2m", "1h", "1d", compounds such
 * as "1m30s", decimals such as "1.5s"; a bare number ("10") is in
 * default_unit_ns. */
int ps_duration_ns(const char *str, uint64_t default_unit_ns, uint64_t *out_ns);
/* Parse a size in bytes: "65536", "512K", "8M", "1G" (binary multiples,
 * optional trailing "B" or "iB" as in "16MiB"). */
int ps_size_bytes(const char *str, uint64_t *out);
/* Parse an unsigned decimal integer with range check. */
int ps_u64(const char *str, uint64_t min, uint64_t max, uint64_t *out);
int ps_i64(const char *str, int64_t min, int64_t max, int64_t *out);
/* Parse a timestamp "sec[.frac]" (perf --time style) into ns. */
int ps_time_ns(const char *str, uint64_t *out_ns);
/* Parse a time range "start,end" (either side may be empty) into ns; open ends
 * are 0 and UINT64_MAX. */
int ps_time_range(const char *str, uint64_t *start_ns, uint64_t *end_ns);

#endif
