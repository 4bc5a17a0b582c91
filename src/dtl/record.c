/* SPDX-License-Identifier: MIT */
/* record.c - `latscope dtl record`: record the DTL and sched events of a Power LPAR. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdio.h"
#include "commands.h"
#include "format/dtl.h"
#include "dtl_cmd.h"
#include "live/dtlrec.h"
#include "base/parse.h"
#include "tool.h"

struct record_params {
	struct dtlrec_opts o;
	bool have_cpus;		/* -C given (o.cpus empty = all online) */
	int source;		/* --pmu, --debugfs-only: enum dtlrec_source */
	const char *out;	/* -o */
	const char *tplist;	/* -T */
	uint64_t duration_ns;	/* -d; 0 = until COMMAND ends or Ctrl-C */
	bool quiet;
	char ev[64];		/* -e vpa_dtl/EV/: EV (o.event points here) */
};

static const char *const event_names[] = { "dtl_all", "dtl_cede", "dtl_preempt", "dtl_fault", NULL };

static int parse_event(const char *arg, void *params)
{
	struct record_params *p = params;

	if (!strncmp(arg, "vpa_dtl/", 8)) {
		snprintf(p->ev, sizeof(p->ev), "%s", arg + 8);
		p->ev[strcspn(p->ev, "/")] = '\0';
		p->o.event = p->ev;
	} else {
		p->o.event = arg;
	}
	return dtlrec_event_mask(p->o.event, &p->o.mask) ? -EINVAL : 0;
}

/* bytes as a power of two of whole pages, into *pages_out */
static int pow2_pages(uint64_t bytes, uint64_t *pages_out)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), pages = bytes / page;

	if (!pages || bytes % page || pages > (1u << 20) || (pages & (pages - 1)))
		return -EINVAL;
	*pages_out = pages;
	return 0;
}

/* A ring of bytes into o.ring_pages: a power of two of whole pages. */
static int ring_bytes(uint64_t bytes, void *params)
{
	uint64_t pages;

	if (pow2_pages(bytes, &pages))
		return -EINVAL;
	((struct record_params *)params)->o.ring_pages = (size_t)pages;
	return 0;
}

/* The AUX buffer in bytes into o.aux_bytes: a power of two of whole pages. */
static int aux_bytes(uint64_t bytes, void *params)
{
	uint64_t pages;

	if (pow2_pages(bytes, &pages))
		return -EINVAL;
	((struct record_params *)params)->o.aux_bytes = (size_t)bytes;
	return 0;
}

static bool bare_number(const char *s)
{
	return *s && s[strspn(s, "0123456789")] == '\0';
}

/* N (pages) or SIZE (512K, 4M) into *bytes */
static int pages_or_size(const char *arg, uint64_t *bytes)
{
	uint64_t v;

	if (!bare_number(arg))
		return parse_size_bytes(arg, bytes) ? -EINVAL : 0;
	if (parse_u64(arg, 1, 1u << 20, &v))
		return -EINVAL;
	*bytes = v * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/* -m N (pages, as perf's -m) or -m SIZE (512K, 4M), and as perf's -m
 * DATA,AUX the AUX buffer after a comma (either part may be empty) */
static int parse_mmap_pages(const char *arg, void *params)
{
	char data[64];
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t v;

	if (n >= sizeof(data))
		return -EINVAL;
	memcpy(data, arg, n);
	data[n] = '\0';
	if (n && (pages_or_size(data, &v) || ring_bytes(v, params)))
		return -EINVAL;
	if (comma && comma[1] && (pages_or_size(comma + 1, &v) || aux_bytes(v, params)))
		return -EINVAL;
	return n || (comma && comma[1]) ? 0 : -EINVAL;
}

/* --aux-size SIZE (a bare number is KiB, as --ring-size) */
static int parse_aux_size(const char *arg, void *params)
{
	uint64_t v;

	if (bare_number(arg))
		return parse_u64(arg, 1, UINT64_MAX >> 10, &v) ? -EINVAL : aux_bytes(v << 10, params);
	return parse_size_bytes(arg, &v) ? -EINVAL : aux_bytes(v, params);
}

/* --ring-size SIZE (512K, 4M; a bare number is KiB, as in osnoise) */
static int parse_ring_size(const char *arg, void *params)
{
	uint64_t v;

	if (bare_number(arg))
		return parse_u64(arg, 1, UINT64_MAX >> 10, &v) ? -EINVAL : ring_bytes(v << 10, params);
	return parse_size_bytes(arg, &v) ? -EINVAL : ring_bytes(v, params);
}

#define REC_OPT(n, k, t, f, a, h) CLI_OPT(n, k, t, struct record_params, f, CLI_NONE, 0, 0, 0, a, h, NULL)
static const struct cli_opt record_opts[] = {
	CLI_CPU_PERF(struct record_params, o.cpus, have_cpus, "CPUs to record (default: all online)"),
	CLI_CHOICE("event", 'e', parse_event, event_names, "EV", "dtl_all (default), dtl_cede, dtl_preempt or dtl_fault",
		   "dtl_all, dtl_cede, dtl_preempt or dtl_fault"),
	CLI_OPT("period", 'c', CLI_T_DUR, struct record_params, o.period_ns, CLI_NONE, 1000, UINT64_MAX / 4, 1,
		"NS", "PMU poll period in ns (min 1000000, default 1000000;\n"
		"1ms works too); debugfs poll period (default 10000000)",
		"a period in ns (the PMU polls at most every 1000000; 1ms, 10ms work too)"),
	CLI_OUTPUT(struct record_params, out, "output file (default perf.data; - = stdout, a pipe\nin pipe mode)"),
	REC_OPT("tracepoints", 'T', CLI_T_STR, tplist, "LIST", "tracepoints to record beside the DTL (default\n"
		"sched:sched_switch,sched:sched_wakeup; 'none' for none)"),
	CLI_DURATION(struct record_params, duration_ns, "stop after this long (1s, 500ms, 2m)"),
	CLI_OPT("pmu", 0, CLI_T_SETINT, struct record_params, source, CLI_NONE, DTLREC_PMU, 0, 0, NULL,
		"use the vpa_dtl PMU only (no debugfs fallback)", NULL),
	CLI_OPT("debugfs-only", 0, CLI_T_SETINT, struct record_params, source, CLI_NONE, DTLREC_DEBUGFS, 0, 0, NULL,
		"use the debugfs files even when the PMU exists", NULL),
	CLI_OPT("boot-tb", 0, CLI_T_U64, struct record_params, o.boot_tb,
		CLI_GIVEN(struct record_params, o.have_boot_tb), 0, 0, 0, "N",
		"debugfs: the boot timebase (otherwise estimated on\n"
		"Power from the timebase and CLOCK_MONOTONIC)", "an integer"),
	REC_OPT("sysfs", 0, CLI_T_STR, o.sysfs, "DIR", "sysfs root (default /sys; env LATSCOPE_SYSFS)"),
	REC_OPT("debugfs", 0, CLI_T_STR, o.debugfs, "DIR", "debugfs root (default /sys/kernel/debug; env\n"
		"LATSCOPE_DEBUGFS)"),
	REC_OPT("procfs", 0, CLI_T_STR, o.procfs, "DIR", "procfs root (default /proc; env LATSCOPE_PROCFS)"),
	REC_OPT("formats", 0, CLI_T_STR, o.tracefs_events, "DIR",
		"tracefs-like events dir for tracepoint formats (tests)"),
	CLI_CUSTOM("mmap-pages", 'm', parse_mmap_pages, "N|SIZE[,AUX]", "data ring pages per CPU (power of two, default\n"
		   "512 KiB worth), or a size such as 1M; after a comma the\n"
		   "AUX buffer's (as perf's -m 512,1024)",
		   "a power of two of pages, or a size such as 512K or 4M that is a power of two of pages, "
		   "optionally followed by ,AUX in the same form"),
	CLI_CUSTOM("aux-size", 0, parse_aux_size, "SIZE", "PMU: the AUX buffer per CPU, where the driver\n"
		   "copies the entries (default 128K; a bare number is KiB;\n"
		   "a power of two of pages)",
		   "a size such as 64K or 4M (a bare number is KiB) that is a power of two of pages"),
	CLI_CUSTOM("ring-size", 0, parse_ring_size, "SIZE", "data ring per CPU as a size such as 512K or 4M (a\n"
		   "bare number is KiB); a power of two of pages",
		   "a size such as 512K or 4M (a bare number is KiB) that is a power of two of pages"),
	CLI_FORCE(struct record_params, o.force),
	CLI_QUIET(struct record_params, quiet, "no summary on stderr"),
	CLI_END
};

const struct cli_cmd dtl_record_cli = {
	.name = "latscope dtl record",
	.usage = "usage: latscope dtl record [options] [-- COMMAND [ARGS]]",
	.intro =
"Record the POWER Dispatch Trace Log of a shared-processor LPAR together with\n"
"scheduler tracepoints into a perf.data file that perf 6.18+ and `latscope dtl`\n"
"read.  Uses the vpa_dtl PMU (Linux 6.18+) and falls back to the older debugfs\n"
"interface (powerpc/dtl/cpu-N, polled; tb_freq from /proc/cpuinfo).  Records\n"
"while COMMAND runs, or for --duration, or until Ctrl-C.\n",
	.opts = record_opts,
	.outro =
"Refusals: ENODEV - not a shared-processor LPAR (the DTL exists only on POWER),\n"
"or a KVM guest without CONFIG_DTL (a KVM guest has no vpa_dtl PMU: its DTL,\n"
"written by the host's KVM, is read through debugfs); EBUSY - the DTL is in use\n"
"(debugfs reader, vcpudispatch_stats, another perf session); EACCES - needs root\n"
"or CAP_PERFMON.  A second Ctrl-C aborts (exit 130; COMMAND killed); the file\n"
"keeps what was recorded up to its last checkpoint (at most 0.2 s old).\n",
	.operands = true,
	.stop_at_operand = true,
};

/* The live loop (src/tool.h): poll the DTL, end with COMMAND. */
struct rec_loop {
	struct dtlrec *r;
	pid_t child;		/* -1 once reaped (or none) */
	int status;		/* its wait status */
	int err;		/* dtlrec_poll()'s failure, which ends the run */
};

static int rec_wait(void *arg, int timeout_ms)
{
	struct rec_loop *rl = arg;
	rl->err = dtlrec_poll(rl->r, timeout_ms);
	return rl->err ? -1 : 0;
}

static bool rec_done(void *arg)
{
	struct rec_loop *rl = arg;
	if (rl->child > 0 && waitpid(rl->child, &rl->status, WNOHANG) == rl->child) {
		rl->child = -1;
		return true;
	}
	return false;
}

/* -T's list (default sched_switch and sched_wakeup; "none" for none) into
 * o's tracepoints: tps[] (16) pointing into *dup, a copy of the list the
 * caller frees.  0, or EXIT_ERR when out of memory or after saying there
 * are more than 16. */
static int tracepoint_list(struct dtlrec_opts *o, const char *list, const char **tps, char **dup)
{
	char *save = NULL;

	if (!list)
		list = "sched:sched_switch,sched:sched_wakeup";
	if (!(*dup = strdup(list)))
		return EXIT_ERR;
	if (strcmp(*dup, "none")) {
		for (char *t = strtok_r(*dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (o->nr_tracepoints == 16) {
				fprintf(stderr, "latscope dtl record: at most 16 tracepoints\n");
				return EXIT_ERR;
			}
			tps[o->nr_tracepoints++] = t;
		}
	}
	o->tracepoints = tps;
	return 0;
}

/* The forked child: dies with the recorder, waits for the go byte on go[0]
 * (the DTL is on), then becomes COMMAND; exit 127 when it cannot. */
static void __attribute__((noreturn)) run_command(char **cmd, const int go[2], pid_t parent)
{
	char b;

	close(go[1]);
	/* dies with us, even when an abort kills us first */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	if (read(go[0], &b, 1) != 1)
		_exit(127);
	execvp(cmd[0], cmd);
	fprintf(stderr, "latscope dtl record: cannot run %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
}

/* COMMAND forked into *child, held until a byte is written to *go_w: 0, or
 * EXIT_ERR after the message. */
static int start_command(char **cmd, pid_t parent, pid_t *child, int *go_w)
{
	int go[2] = { -1, -1 };

	if (pipe2(go, O_CLOEXEC) < 0) {
		perror("latscope dtl record: pipe");
		return EXIT_ERR;
	}
	*child = cmdio_fork();	/* the workload gets the signals as we got them */
	if (*child == 0)
		run_command(cmd, go, parent);
	close(go[0]);
	if (*child < 0) {
		perror("latscope dtl record: fork");
		return EXIT_ERR;
	}
	*go_w = go[1];
	return 0;
}

/* The DTL switched on, then COMMAND (child > 0) let go through go_w: 0 or
 * the failure. */
static int start_recording(struct dtlrec *r, pid_t child, int go_w)
{
	int err = dtlrec_enable(r);

	if (child > 0) {
		if (write(go_w, "g", 1) != 1)
			err = err ? err : -EPIPE;
		close(go_w);
	}
	return err;
}

/* Record (unless err, a failure already) until COMMAND ends, the duration
 * passes, Ctrl-C, or the reader of stdout leaves; then COMMAND, if still
 * running, ended (SIGTERM) and reaped.  Returns the failure, and in *status
 * COMMAND's wait status (0 when it was not reaped). */
static int record_until_done(struct dtlrec *r, pid_t child, uint64_t duration_ns, int err, int *status)
{
	/* the workload may write to our stdout: a reader that leaves ends the run */
	struct rec_loop rl = { .r = r, .child = child };
	struct tool_loop l = {
		.arg = &rl,
		.duration_ns = duration_ns,
		.wait_ms = dtlrec_poll_ms(r),
		.watch_fd = STDOUT_FILENO,
		.wait = rec_wait,
		.done = rec_done,
	};
	if (!err && tool_run(&l) < 0)
		err = rl.err;
	child = rl.child;
	*status = rl.status;
	if (child > 0) {
		kill(child, SIGTERM);
		while (waitpid(child, status, 0) < 0 && errno == EINTR)
			;	/* a second Ctrl-C aborts (and the child dies with us) */
	}
	return err;
}

/* The one-line summary of the recording in out. */
static void print_summary(const char *out, const struct dtlrec_stats *st)
{
	char corrupt[96] = "";

	if (st->corrupt_bytes)	/* the rings' corruption policy: counted, skipped to the head */
		snprintf(corrupt, sizeof(corrupt), "; corrupt ring data: %" PRIu64 " bytes skipped",
			 st->corrupt_bytes);
	fprintf(stderr, "latscope dtl record: %s: %u CPUs via %s, %" PRIu64 " DTL entries in %" PRIu64
		" AUX chunks, %" PRIu64 " other records; lost: %" PRIu64 " events, %" PRIu64
		" AUX flags%s%s%s\n", out, st->cpus, st->pmu ? "the vpa_dtl PMU" : "debugfs",
		st->dtl_entries, st->aux_chunks, st->records, st->lost, st->aux_flags_lost, corrupt,
		st->boot_tb_unknown ? "; boot_tb unknown (not Power; pass --boot-tb): DTL times are "
				      "timebase/tb_freq and will not line up with the samples" : "",
		st->boot_tb_estimated ? "; boot_tb estimated from the timebase and CLOCK_MONOTONIC" : "");
}

/* A warning for each kind of data the kernel or the hypervisor lost (even
 * under -q). */
static void warn_losses(const char *out, const struct dtlrec_stats *st)
{
	if (st->tp_undelivered)	/* the tracepoints' counting twins (every loss named) */
		fprintf(stderr, "latscope dtl record: warning: the kernel fired %" PRIu64 " tracepoint samples "
				"it never delivered, with no LOST record (of %" PRIu64 "): the sched events in %s "
				"are incomplete\n", st->tp_undelivered, st->tp_fired, out);
	if (st->aux_stopped)
		fprintf(stderr, "latscope dtl record: warning: the AUX buffer of %" PRIu64 " CPU%s filled up and the "
				"kernel stopped recording its DTL for the rest of the run (their entries end there; a "
				"larger buffer, --aux-size, gives the reader more time)\n", st->aux_stopped,
			st->aux_stopped == 1 ? "" : "s");
	if (st->aux_overruns)
		fprintf(stderr, "latscope dtl record: warning: the driver wrote over %" PRIu64 " bytes of AUX data "
				"before they were read (%" PRIu64 " times; at least %" PRIu64 " entries lost; a larger "
				"buffer, --aux-size, gives the reader more time)\n", st->aux_overrun_bytes,
			st->aux_overruns, (st->aux_overrun_bytes + 47) / 48);
	if (st->dbg_full_reads || st->dbg_out_of_order)
		fprintf(stderr, "latscope dtl record: warning: the hypervisor lapped the debugfs reader: %" PRIu64
				" reads returned the kernel's whole buffer less one, %" PRIu64 " entries came out of "
				"order and were dropped; entries were probably lost (poll more often: -c)\n",
			st->dbg_full_reads, st->dbg_out_of_order);
	if (st->throttles)
		fprintf(stderr, "latscope dtl record: warning: the kernel throttled sampling %" PRIu64 " times "
				"(perf_event_max_sample_rate): the samples it did not take have no record\n",
			st->throttles);
}

int dtl_cmd_record(int argc, char **argv)
{
	cmdio_signals_install();	/* first: a Ctrl-C during setup is seen */
	struct record_params p = { .o = { .event = "dtl_all", .mask = DTL_MASK_ALL }, .out = "perf.data" };
	struct dtlrec_opts o;
	const char *tps[16];
	char *dup = NULL;	/* -T's list, which tps point into */
	int first, rc;

	p.o.sysfs = getenv("LATSCOPE_SYSFS");
	p.o.debugfs = getenv("LATSCOPE_DEBUGFS");
	p.o.procfs = getenv("LATSCOPE_PROCFS");
	if ((rc = dtl_cmd_parse(&dtl_record_cli, argc, argv, &p, &first)) >= 0)
		return rc;
	o = p.o;
	o.source = (enum dtlrec_source)p.source;
	char **cmd = first < argc ? argv + first : NULL;
	if (tracepoint_list(&o, p.tplist, tps, &dup)) {
		free(dup);
		return EXIT_ERR;
	}
	o.argc = argc;
	o.argv = (const char *const *)argv;

	struct dtlrec *r;
	int err = dtlrec_open(&r, &o, p.out);
	if (err) {
		fprintf(stderr, "latscope dtl record: %s\n", *dtlrec_strerror(r) ? dtlrec_strerror(r) : strerror(-err));
		dtlrec_close(r, NULL);
		free(dup);
		return EXIT_ERR;
	}
	const char *knob, *knob_old;
	if (dtlrec_changed_setting(r, &knob, &knob_old))
		cmdio_on_abort_write(knob, knob_old);	/* a second Ctrl-C restores it too */
	pid_t child = -1;
	int go_w = -1, status;
	if (cmd && start_command(cmd, getpid(), &child, &go_w)) {
		dtlrec_close(r, NULL);
		free(dup);
		return EXIT_ERR;
	}
	err = start_recording(r, child, go_w);
	err = record_until_done(r, child, p.duration_ns, err, &status);
	if (err)
		fprintf(stderr, "latscope dtl record: %s\n", *dtlrec_strerror(r) ? dtlrec_strerror(r) : strerror(-err));
	struct dtlrec_stats st;
	int cerr = dtlrec_close(r, &st);
	free(dup);
	if (cerr && !err) {
		fprintf(stderr, "latscope dtl record: finishing %s: %s\n", p.out, strerror(-cerr));
		err = cerr;
	}
	cmdio_on_abort_forget();
	if (cmdio_broken_pipe())
		return EXIT_ERR;	/* the quiet end (cmdio_reader_left()) */
	if (!p.quiet)
		print_summary(p.out, &st);
	warn_losses(p.out, &st);
	/* COMMAND not run (127) is a failure too */
	return tool_status(err || (WIFEXITED(status) && WEXITSTATUS(status) == 127), false);
}
