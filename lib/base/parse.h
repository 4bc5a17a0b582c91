/* SPDX-License-Identifier: MIT */
/*
 * parse.h - parsing of command-line values shared by every command.
 * Prefix: parse_.  All return 0 or a negative errno (-EINVAL, -ERANGE); none prints.
 */
#ifndef LATSCOPE_PARSE_H
#define LATSCOPE_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define PARSE_MAX_CPUS 4096

/* A CPU set as a bitmap of PARSE_MAX_CPUS bits. */
struct parse_cpuset {
	uint64_t bits[PARSE_MAX_CPUS / 64];
};

static inline bool parse_cpuset_has(const struct parse_cpuset *s, unsigned cpu)
{
	return cpu < PARSE_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline void parse_cpuset_add(struct parse_cpuset *s, unsigned cpu)
{
	if (cpu < PARSE_MAX_CPUS)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

/* Number of CPUs in the set. */
unsigned parse_cpuset_count(const struct parse_cpuset *s);
/* Parse "0-3,5,7-8" into *out (cleared first). */
int parse_cpulist(const char *str, struct parse_cpuset *out);
/* Format a set as a compact list into buf (always NUL-terminated). */
void parse_cpulist_format(const struct parse_cpuset *s, char *buf, size_t len);

/* Parse a duration: "10s", "500ms", "5us", "2m", "1h", "1d", compounds such
 * as "1m30s", decimals such as "1.5s"; a bare number ("10") is in
 * default_unit_ns. */
int parse_duration_ns(const char *str, uint64_t default_unit_ns, uint64_t *out_ns);
/* Parse a size in bytes: "65536", "512K", "8M", "1G" (binary multiples,
 * optional trailing "B" or "iB" as in "16MiB"). */
int parse_size_bytes(const char *str, uint64_t *out);
/* Parse an unsigned decimal integer with range check. */
int parse_u64(const char *str, uint64_t min, uint64_t max, uint64_t *out);
int parse_i64(const char *str, int64_t min, int64_t max, int64_t *out);
/* Parse a timestamp "sec[.frac]" (perf --time style) into ns. */
int parse_time_ns(const char *str, uint64_t *out_ns);
/* Parse a time range "start,end" (either side may be empty) into ns; open ends
 * are 0 and UINT64_MAX. */
int parse_time_range(const char *str, uint64_t *start_ns, uint64_t *end_ns);

#endif
