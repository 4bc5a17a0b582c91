/* SPDX-License-Identifier: MIT */
/*
 * cli.c - table-driven command lines (see cli.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print/render.h"

#define CLI_MAX_OPTS 96

static void say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int parse_prio(const char *s, struct cli_prio *out)
{
	int64_t v;
	int policy = SCHED_FIFO;

	if (s[0] == 'd' && s[1] == ':') {	/* d:RUNTIME:PERIOD */
		char rt[64];
		const char *colon = strchr(s + 2, ':');
		uint64_t r, p;
		if (!colon || (size_t)(colon - (s + 2)) >= sizeof(rt))
			return -EINVAL;
		memcpy(rt, s + 2, (size_t)(colon - (s + 2)));
		rt[colon - (s + 2)] = 0;
		if (parse_duration_ns(rt, 1000, &r) || parse_duration_ns(colon + 1, 1000, &p) ||
		    r < 1000 || r > p || p > 4000000000ULL)
			return -EINVAL;
		out->policy = CLI_SCHED_DEADLINE;
		out->prio = 0;
		out->dl_runtime_ns = r;
		out->dl_period_ns = p;
		return 0;
	}
	if (s[0] && s[1] == ':') {
		switch (s[0]) {
		case 'o': policy = SCHED_OTHER; break;
		case 'r': policy = SCHED_RR; break;
		case 'f': policy = SCHED_FIFO; break;
		default: return -EINVAL;
		}
		s += 2;
	}
	if (policy == SCHED_OTHER) {
		if (parse_i64(s, -20, 19, &v))
			return -EINVAL;
	} else if (parse_i64(s, 1, 99, &v)) {
		return -EINVAL;
	}
	out->policy = policy;
	out->prio = (int)v;
	return 0;
}

static bool in_range(const struct cli_opt *o, uint64_t v)
{
	return v >= o->min && (!o->max || v <= o->max);
}

/* What a good value looks like, for the error message. */
static const char *expected(const struct cli_opt *o, char *buf, size_t len)
{
	if (o->expect)
		return o->expect;
	switch (o->type) {
	case CLI_T_U64:
		if (o->max)
			snprintf(buf, len, "%" PRIu64 "..%" PRIu64, o->min, o->max);
		else
			snprintf(buf, len, "an integer >= %" PRIu64, o->min);
		return buf;
	case CLI_T_I64:
		snprintf(buf, len, "%" PRId64 "..%" PRId64, (int64_t)o->min, (int64_t)o->max);
		return buf;
	case CLI_T_DUR_US:
		if (o->max)
			snprintf(buf, len, "%" PRIu64 "..%" PRIu64 " us (5us, 1ms, or a bare number of us)",
				 o->min, o->max);
		else
			snprintf(buf, len, "at least %" PRIu64 " us (5us, 1ms, or a bare number of us)", o->min);
		return buf;
	case CLI_T_DUR:
		return "a duration such as 10s, 1m30s, 500ms, 5us";
	case CLI_T_SIZE:
		return "a size such as 65536, 512K, 16M";
	case CLI_T_CPUS:
		return "a CPU list such as 0-3,5";
	case CLI_T_PRIO:
		return "o:NICE (-20..19), r:PRIO or f:PRIO (1..99), d:RUNTIME:PERIOD (SCHED_DEADLINE, "
		       "1us <= runtime <= period <= 4s, e.g. d:100us:1ms), or PRIO for f:PRIO";
	case CLI_T_RENDER: {
		char names[128];
		snprintf(buf, len, "%s (FORMAT one of %s; at most %d forms)", o->render ? "a file name" : "FORMAT=FILE",
			 render_names(names, sizeof(names)), CLI_MAX_RENDERS);
		return buf;
	}
	default:
		return "a valid value";
	}
}

/* --html FILE or --render FORMAT=FILE appended to r. */
static int add_render(const struct cli_opt *o, const char *arg, struct cli_renders *r)
{
	const struct render_ops *ops = NULL;
	const char *file = arg;
	if (!arg || r->nr == CLI_MAX_RENDERS)
		return -EINVAL;
	if (o->render) {
		ops = render_find(o->render);
	} else {
		const char *eq = strchr(arg, '=');
		char name[32];
		if (!eq || (size_t)(eq - arg) >= sizeof(name))
			return -EINVAL;
		memcpy(name, arg, (size_t)(eq - arg));
		name[eq - arg] = '\0';
		ops = render_find(name);
		file = eq + 1;
	}
	if (!ops || !*file)
		return -EINVAL;
	r->format[r->nr] = ops->name;
	r->file[r->nr++] = file;
	return 0;
}

/* Store arg into the field of o; 0 or -EINVAL/-ERANGE. */
static int apply(const struct cli_opt *o, const char *arg, void *params)
{
	char *field = (char *)params + o->off;
	uint64_t v;
	int64_t sv;

	switch (o->type) {
	case CLI_T_FLAG:
		*(bool *)field = true;
		return 0;
	case CLI_T_SETINT:
		*(int *)field = (int)(int64_t)o->min;
		return 0;
	case CLI_T_STR:
		*(const char **)field = arg;
		return 0;
	case CLI_T_JSON:
		if (arg && !*arg)
			return -EINVAL;
		/* the last of --json and --json=FILE counts */
		*(const char **)((char *)params + o->file_off) = arg;
		*(bool *)field = !arg;
		return 0;
	case CLI_T_U64:
		if (parse_u64(arg, o->min, o->max ? o->max : UINT64_MAX, &v))
			return -EINVAL;
		*(uint64_t *)field = v;
		return 0;
	case CLI_T_I64:
		if (parse_i64(arg, (int64_t)o->min, (int64_t)o->max, &sv))
			return -EINVAL;
		*(int64_t *)field = sv;
		return 0;
	case CLI_T_DUR:
		if (parse_duration_ns(arg, o->unit ? o->unit : 1, &v) || !in_range(o, v))
			return -EINVAL;
		*(uint64_t *)field = v;
		return 0;
	case CLI_T_DUR_US:
		if (parse_duration_ns(arg, 1000, &v) || v % 1000 || !in_range(o, v / 1000))
			return -EINVAL;
		*(uint64_t *)field = v / 1000;
		return 0;
	case CLI_T_SIZE:
		if (all_digits(arg)) {
			if (parse_u64(arg, 0, UINT64_MAX, &v))
				return -EINVAL;
			uint64_t u = o->unit ? o->unit : 1;
			if (v > UINT64_MAX / u)
				return -EINVAL;
			v *= u;
		} else if (parse_size_bytes(arg, &v)) {
			return -EINVAL;
		}
		if (!in_range(o, v))
			return -EINVAL;
		*(uint64_t *)field = v;
		return 0;
	case CLI_T_CPUS:
		return parse_cpulist(arg, (struct parse_cpuset *)field) ? -EINVAL : 0;
	case CLI_T_PRIO:
		return parse_prio(arg, (struct cli_prio *)field);
	case CLI_T_CUSTOM:
		return o->parse ? o->parse(arg, params) : -EINVAL;
	case CLI_T_RENDER:
		return add_render(o, arg, (struct cli_renders *)field);
	}
	return -EINVAL;
}

static bool takes_arg(const struct cli_opt *o)
{
	return o->type != CLI_T_FLAG && o->type != CLI_T_SETINT;
}

static int has_arg(const struct cli_opt *o)
{
	return !takes_arg(o) ? no_argument : o->optional ? optional_argument : required_argument;
}

static const struct cli_opt *by_key(const struct cli_opt *opts, int key)
{
	for (const struct cli_opt *o = opts; o->name; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/* One cli_parse() call: its table, where its message goes, getopt_long()'s
 * tables made from the options, and what the command line gave so far. */
struct parse_state {
	const struct cli_cmd *cmd;
	char *err;
	size_t errlen;
	/* option i is 256 + i in lo (and its key in shorts); --help is 'h' */
	struct option lo[CLI_MAX_OPTS + 2];
	char shorts[3 * CLI_MAX_OPTS + 8];
	size_t n;	/* entries of lo before its terminator: the options and --help */
	/* the CLI_T_SETINT option that set each field so far: two different
	 * ones on one field (--wide and --csv) contradict each other */
	const struct cli_opt *setter[CLI_MAX_OPTS];
	bool given[CLI_MAX_OPTS];	/* by option index */
};

/* getopt_long()'s long and short tables from ps->cmd's options: 0, or
 * -E2BIG for a table of more than CLI_MAX_OPTS options. */
static int build_getopt_tables(struct parse_state *ps)
{
	size_t n = 0, sl = 0;

	if (ps->cmd->stop_at_operand)
		ps->shorts[sl++] = '+';
	ps->shorts[sl++] = ':';	/* a missing argument is ':', not '?' */
	for (const struct cli_opt *o = ps->cmd->opts; o->name; o++) {
		if (n >= CLI_MAX_OPTS)
			return -E2BIG;
		ps->lo[n] = (struct option){ o->name, has_arg(o), NULL, 256 + (int)n };
		n++;
		if (o->key) {
			ps->shorts[sl++] = (char)o->key;
			if (takes_arg(o))
				ps->shorts[sl++] = ':';
			if (takes_arg(o) && o->optional)
				ps->shorts[sl++] = ':';
		}
	}
	ps->lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	ps->lo[n] = (struct option){ NULL, 0, NULL, 0 };
	ps->shorts[sl++] = 'h';
	ps->shorts[sl] = '\0';
	ps->n = n;
	return 0;
}

/* getopt_long()'s '?' (an unknown option) or ':' (an option without its
 * value) said in ps->err. */
static void say_getopt_error(const struct parse_state *ps, int c, char **argv)
{
	const struct cli_cmd *cmd = ps->cmd;
	char buf[160];

	if (c == '?') {
		if (optopt && optopt < 256)
			say(ps->err, ps->errlen, "%s: unknown option '-%c'; see --help", cmd->name, optopt);
		else
			say(ps->err, ps->errlen, "%s: unknown option '%s'; see --help", cmd->name,
			    argv[optind - 1]);
		return;
	}
	const struct cli_opt *o = optopt >= 256 ? &cmd->opts[optopt - 256] : by_key(cmd->opts, optopt);
	if (o)
		say(ps->err, ps->errlen, "%s: --%s needs a value: %s", cmd->name, o->name,
		    expected(o, buf, sizeof(buf)));
	else
		say(ps->err, ps->errlen, "%s: option '-%c' needs a value", cmd->name, optopt);
}

/* A CLI_T_SETINT option o: -EINVAL (said) when another one already set its
 * field to another value, else 0 and o remembered as its setter. */
static int check_setint(struct parse_state *ps, const struct cli_opt *o)
{
	for (size_t i = 0; i < ps->n && i < CLI_MAX_OPTS; i++) {
		const struct cli_opt *s = ps->setter[i];
		if (s && s != o && s->off == o->off && s->min != o->min) {
			say(ps->err, ps->errlen, "%s: --%s and --%s cannot be used together", ps->cmd->name,
			    s->name, o->name);
			return -EINVAL;
		}
	}
	ps->setter[o - ps->cmd->opts] = o;
	return 0;
}

/* getopt_long()'s answer c (not -1, not 'h') into params: 0, or -EINVAL
 * with the message in ps->err. */
static int take_option(struct parse_state *ps, int c, char **argv, void *params)
{
	const struct cli_cmd *cmd = ps->cmd;
	char buf[160];

	if (c == '?' || c == ':') {
		say_getopt_error(ps, c, argv);
		return -EINVAL;
	}
	const struct cli_opt *o = c >= 256 ? &cmd->opts[c - 256] : by_key(cmd->opts, c);
	if (!o)
		return -EINVAL;
	if (o->type == CLI_T_SETINT && check_setint(ps, o))
		return -EINVAL;
	if (apply(o, optarg, params)) {
		say(ps->err, ps->errlen, "%s: --%s '%s': expected %s", cmd->name, o->name,
		    optarg ? optarg : "", expected(o, buf, sizeof(buf)));
		return -EINVAL;
	}
	if (o->given_off != CLI_NONE)
		*(bool *)((char *)params + o->given_off) = true;
	ps->given[o - cmd->opts] = true;
	return 0;
}

/* cmd->conflicts: -EINVAL (said) when both options of a pair were given. */
static int check_conflicts(const struct parse_state *ps)
{
	const struct cli_cmd *cmd = ps->cmd;

	for (size_t k = 0; cmd->conflicts && cmd->conflicts[k][0]; k++) {
		bool both = true;
		for (int side = 0; side < 2; side++) {
			const struct cli_opt *o = cmd->opts;
			while (o->name && strcmp(o->name, cmd->conflicts[k][side]))
				o++;
			both = both && o->name && ps->given[o - cmd->opts];
		}
		if (both) {
			say(ps->err, ps->errlen, "%s: --%s and --%s cannot be used together", cmd->name,
			    cmd->conflicts[k][0], cmd->conflicts[k][1]);
			return -EINVAL;
		}
	}
	return 0;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *params, int *first,
	      char *err, size_t errlen)
{
	struct parse_state ps = { .cmd = cmd, .err = err, .errlen = errlen };
	int c, rc;

	if (!cmd || !cmd->opts || argc < 1 || !argv || !params)
		return -EINVAL;
	if ((rc = build_getopt_tables(&ps)))
		return rc;
	optind = 0;	/* full re-initialisation (GNU) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ps.shorts, ps.lo, NULL)) != -1) {
		if (c == 'h')
			return CLI_HELP;
		if ((rc = take_option(&ps, c, argv, params)))
			return rc;
	}
	if (check_conflicts(&ps))
		return -EINVAL;
	if (optind < argc && !cmd->operands) {
		say(err, errlen, "%s: unexpected argument '%s'; see --help", cmd->name, argv[optind]);
		return -EINVAL;
	}
	if (first)
		*first = optind;
	return 0;
}

/* One help text; the lines after a newline under the first one. */
static void put_help(FILE *f, const char *h)
{
	for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
		fprintf(f, "%.*s\n  %-22s ", (int)(nl - h), h, "");
	fprintf(f, "%s\n", h);
}

void cli_usage(const struct cli_cmd *cmd, FILE *f)
{
	if (cmd->usage)
		fprintf(f, "%s\n", cmd->usage);
	if (cmd->intro)
		fprintf(f, "\n%s", cmd->intro);
	fputc('\n', f);
	for (const struct cli_opt *o = cmd->opts; o->name; o++) {
		char left[64];

		if (!o->help)
			continue;
		const char *sep = !o->arg ? "" : o->optional ? "[=" : " ";
		if (o->key)
			snprintf(left, sizeof(left), "-%c, --%s%s%s%s", o->key, o->name, sep,
				 o->arg ? o->arg : "", o->arg && o->optional ? "]" : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s%s", o->name, sep, o->arg ? o->arg : "",
				 o->arg && o->optional ? "]" : "");
		if (strlen(left) > 22)
			fprintf(f, "  %s\n  %-22s ", left, "");
		else
			fprintf(f, "  %-22s ", left);
		put_help(f, o->help);
	}
	fprintf(f, "  %-22s %s\n", "-h, --help", "this help");
	if (cmd->outro)
		fprintf(f, "\n%s", cmd->outro);
}

bool cli_table_ok(const struct cli_cmd *cmd)
{
	if (!cmd || !cmd->opts)
		return false;
	for (const struct cli_opt *o = cmd->opts; o->name; o++) {
		if (!*o->name || !strcmp(o->name, "help") || o->key == 'h' || o->key < 0 || o->key > 127)
			return false;
		if (o->type == CLI_T_CUSTOM ? !o->parse : o->optional && o->type != CLI_T_JSON)
			return false;
		for (const struct cli_opt *p = cmd->opts; p < o; p++)
			if (!strcmp(p->name, o->name) || (o->key && p->key == o->key))
				return false;
	}
	return true;
}
