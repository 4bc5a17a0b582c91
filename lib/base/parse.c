/* SPDX-License-Identifier: MIT */
#include "base/parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned parse_cpuset_count(const struct parse_cpuset *s)
{
	unsigned n = 0;
	for (size_t i = 0; i < PARSE_MAX_CPUS / 64; i++)
		n += (unsigned)__builtin_popcountll(s->bits[i]);
	return n;
}

static int parse_uint(const char **p, uint64_t *out)
{
	const char *s = *p;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	uint64_t v = 0;
	while (*s >= '0' && *s <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

int parse_cpulist(const char *str, struct parse_cpuset *out)
{
	memset(out, 0, sizeof(*out));
	if (!str || !*str)
		return -EINVAL;
	const char *p = str;
	for (;;) {
		uint64_t a, b;
		int err = parse_uint(&p, &a);
		if (err)
			return err;
		b = a;
		if (*p == '-') {
			p++;
			if ((err = parse_uint(&p, &b)))
				return err;
		}
		if (a > b || b >= PARSE_MAX_CPUS)
			return -ERANGE;
		for (uint64_t c = a; c <= b; c++)
			parse_cpuset_add(out, (unsigned)c);
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
}

void parse_cpulist_format(const struct parse_cpuset *s, char *buf, size_t len)
{
	size_t used = 0;
	if (!len)
		return;
	buf[0] = '\0';
	for (unsigned c = 0; c < PARSE_MAX_CPUS; c++) {
		if (!parse_cpuset_has(s, c))
			continue;
		unsigned e = c;
		while (e + 1 < PARSE_MAX_CPUS && parse_cpuset_has(s, e + 1))
			e++;
		int n = e == c ? snprintf(buf + used, len - used, "%s%u", used ? "," : "", c)
			       : snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", c, e);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
		c = e;
	}
}

/* The unit of a duration suffix at *p (advanced past it), 0 when none. */
static uint64_t dur_unit(const char **p)
{
	static const struct { const char *s; uint64_t ns; } u[] = {
		{ "ns", 1 }, { "us", 1000ULL }, { "ms", 1000000ULL }, { "s", 1000000000ULL },
		{ "m", 60ULL * 1000000000ULL }, { "h", 3600ULL * 1000000000ULL },
		{ "d", 86400ULL * 1000000000ULL },
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		size_t n = strlen(u[i].s);
		if (!strncmp(*p, u[i].s, n)) {	/* "ms" before "m" and "s" */
			*p += n;
			return u[i].ns;
		}
	}
	return 0;
}

int parse_duration_ns(const char *str, uint64_t default_unit_ns, uint64_t *out_ns)
{
	if (!str || !*str)
		return -EINVAL;
	const char *p = str;
	uint64_t total = 0;
	for (int part = 0; *p; part++) {
		uint64_t v, frac = 0, scale = 1;
		int err = parse_uint(&p, &v);
		if (err)
			return err;
		if (*p == '.') {	/* "1.5s": up to 9 decimals */
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			for (; *p >= '0' && *p <= '9'; p++) {
				if (scale < 1000000000ULL) {
					frac = frac * 10 + (uint64_t)(*p - '0');
					scale *= 10;
				}
			}
		}
		uint64_t unit = dur_unit(&p);
		if (!unit) {
			/* a bare number: the whole string, in the default unit */
			if (part || *p)
				return -EINVAL;
			unit = default_unit_ns;
		}
		if (unit && v > UINT64_MAX / unit)
			return -ERANGE;
		uint64_t add = v * unit + frac * unit / scale;
		if (add < v * unit || total > UINT64_MAX - add)
			return -ERANGE;
		total += add;
	}
	*out_ns = total;
	return 0;
}

int parse_u64(const char *str, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!str)
		return -EINVAL;
	const char *p = str;
	uint64_t v;
	int err = parse_uint(&p, &v);
	if (err)
		return err;
	if (*p)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_i64(const char *str, int64_t min, int64_t max, int64_t *out)
{
	if (!str)
		return -EINVAL;
	bool neg = *str == '-';
	uint64_t v;
	int err = parse_u64(str + neg, 0, (uint64_t)INT64_MAX, &v);
	if (err)
		return err;
	int64_t s = neg ? -(int64_t)v : (int64_t)v;
	if (s < min || s > max)
		return -ERANGE;
	*out = s;
	return 0;
}

int parse_time_ns(const char *str, uint64_t *out_ns)
{
	const char *p = str;
	uint64_t sec, frac = 0;
	int err = parse_uint(&p, &sec);
	if (err)
		return err;
	if (*p == '.') {
		p++;
		int digits = 0;
		while (*p >= '0' && *p <= '9') {
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				digits++;
			}
			p++;
		}
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (*p)
		return -EINVAL;
	if (sec > UINT64_MAX / 1000000000ULL - 1)
		return -ERANGE;
	*out_ns = sec * 1000000000ULL + frac;
	return 0;
}

int parse_time_range(const char *str, uint64_t *start_ns, uint64_t *end_ns)
{
	const char *comma = strchr(str, ',');
	char a[64], b[64];
	size_t la = comma ? (size_t)(comma - str) : strlen(str);
	if (la >= sizeof(a))
		return -EINVAL;
	memcpy(a, str, la);
	a[la] = '\0';
	snprintf(b, sizeof(b), "%s", comma ? comma + 1 : "");
	*start_ns = 0;
	*end_ns = UINT64_MAX;
	int err;
	if (*a && (err = parse_time_ns(a, start_ns)))
		return err;
	if (*b && (err = parse_time_ns(b, end_ns)))
		return err;
	if (*start_ns > *end_ns)
		return -ERANGE;
	return 0;
}

int parse_size_bytes(const char *str, uint64_t *out)
{
	char num[32];
	size_t n;
	uint64_t mul = 1, v = 0;

	if (!str)
		return -EINVAL;
	n = strlen(str);
	if (n >= 2 && !strcmp(str + n - 2, "iB"))
		n -= 2;
	else if (n >= 2 && (str[n - 1] == 'B' || str[n - 1] == 'b') && strchr("kKmMgG", str[n - 2]))
		n--;
	if (n && strchr("kKmMgG", str[n - 1])) {
		mul = strchr("kK", str[n - 1]) ? 1ULL << 10 : strchr("mM", str[n - 1]) ? 1ULL << 20 : 1ULL << 30;
		n--;
	}
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, str, n);
	num[n] = '\0';
	int err = parse_u64(num, 0, UINT64_MAX / mul, &v);
	if (!err)
		*out = v * mul;
	return err;
}
