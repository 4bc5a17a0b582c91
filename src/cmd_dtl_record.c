/* SPDX-License-Identifier: MIT */
/* cmd_dtl_record.c - `latscope dtl record`: record the DTL and sched events of a Power LPAR. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdio.h"
#include "commands.h"
#include "dtl.h"
#include "dtl_cmd.h"
#include "dtlrec.h"
#include "parse.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: latscope dtl record [options] [-- COMMAND [ARGS]]\n"
"\n"
"Record the POWER Dispatch Trace Log of a shared-processor LPAR together with\n"
"scheduler tracepoints into a perf.data file that perf 6.18+ and `latscope dtl`\n"
"read.  Uses the vpa_dtl PMU (Linux 6.18+) and falls back to the older debugfs\n"
"interface (powerpc/dtl/cpu-N, polled; tb_freq from /proc/cpuinfo).  Records\n"
"while COMMAND runs, or for --duration, or until Ctrl-C.\n"
"\n"
"  -C, --cpu LIST         CPUs to record (default: all online)\n"
"  -e, --event EV         dtl_all (default), dtl_cede, dtl_preempt or dtl_fault\n"
"  -c, --period NS        PMU poll period in ns (min 1000000, default 1000000);\n"
"                         debugfs poll period (default 10000000)\n"
"  -o, --output FILE      output file (default perf.data)\n"
"  -T, --tracepoints LIST tracepoints to record beside the DTL (default\n"
"                         sched:sched_switch,sched:sched_wakeup; 'none' for none)\n"
"  -d, --duration S       stop after this long (1s, 500ms, 2m)\n"
"      --pmu              use the vpa_dtl PMU only (no debugfs fallback)\n"
"      --debugfs-only     use the debugfs files even when the PMU exists\n"
"      --boot-tb N        debugfs: the boot timebase (otherwise estimated on\n"
"                         Power from the timebase and CLOCK_MONOTONIC)\n"
"      --sysfs DIR        sysfs root (default /sys; env LATSCOPE_SYSFS)\n"
"      --debugfs DIR      debugfs root (default /sys/kernel/debug; env LATSCOPE_DEBUGFS)\n"
"      --procfs DIR       procfs root (default /proc; env LATSCOPE_PROCFS)\n"
"      --formats DIR      tracefs-like events dir for tracepoint formats (tests)\n"
"  -m, --mmap-pages N     data ring pages per CPU (power of two, default 512 KiB worth)\n"
"      --force            replace an output file that another user owns or that is a symlink\n"
"  -q, --quiet            no summary on stderr\n"
"  -h, --help             this help\n"
"\n"
"Refusals: ENODEV - not a shared-processor LPAR, or a KVM guest (the DTL exists\n"
"only on POWER shared-processor partitions); EBUSY - the DTL is in use (debugfs\n"
"reader, vcpudispatch_stats, another perf session); EACCES - needs root or\n"
"CAP_PERFMON.  A second Ctrl-C aborts (exit 130; COMMAND killed, file not written).\n");
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int dtl_cmd_record(int argc, char **argv)
{
	cio_signals_install();	/* first: a Ctrl-C during setup is seen */
	enum { O_PMU = 256, O_DBG, O_BOOTTB, O_SYSFS, O_DEBUGFS, O_PROCFS, O_FORMATS, O_FORCE };
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "event", required_argument, NULL, 'e' },
		{ "period", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "tracepoints", required_argument, NULL, 'T' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pmu", no_argument, NULL, O_PMU },
		{ "debugfs-only", no_argument, NULL, O_DBG },
		{ "boot-tb", required_argument, NULL, O_BOOTTB },
		{ "sysfs", required_argument, NULL, O_SYSFS },
		{ "debugfs", required_argument, NULL, O_DEBUGFS },
		{ "procfs", required_argument, NULL, O_PROCFS },
		{ "formats", required_argument, NULL, O_FORMATS },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dtlr_opts o = { .event = "dtl_all", .mask = DTL_MASK_ALL };
	const char *out = "perf.data";
	char *tplist = NULL;
	const char *tps[16];
	uint64_t duration_ns = 0, v;
	bool quiet = false;
	int c;

	o.sysfs = getenv("LATSCOPE_SYSFS");
	o.debugfs = getenv("LATSCOPE_DEBUGFS");
	o.procfs = getenv("LATSCOPE_PROCFS");
	optind = 1;
	while ((c = getopt_long(argc, argv, "+C:e:c:o:T:d:m:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (ps_cpulist(optarg, &o.cpus)) {
				fprintf(stderr, "latscope dtl record: -C %s: not a CPU list (e.g. 0-3,8)\n", optarg);
				return EXIT_ERR;
			}
			break;
		case 'e':
			if (!strncmp(optarg, "vpa_dtl/", 8)) {
				static char ev[64];
				snprintf(ev, sizeof(ev), "%s", optarg + 8);
				ev[strcspn(ev, "/")] = '\0';
				o.event = ev;
			} else {
				o.event = optarg;
			}
			if (dtlr_event_mask(o.event, &o.mask)) {
				fprintf(stderr, "latscope dtl record: -e %s: use dtl_all, dtl_cede, dtl_preempt or dtl_fault\n",
					optarg);
				return EXIT_ERR;
			}
			break;
		case 'c':
			if (ps_u64(optarg, 1000, UINT64_MAX / 4, &o.period_ns)) {
				fprintf(stderr, "latscope dtl record: -c %s: a period in ns (the PMU polls at most "
					"every 1000000)\n", optarg);
				return EXIT_ERR;
			}
			break;
		case 'o': out = optarg; break;
		case 'T': tplist = optarg; break;
		case 'd':
			if (ps_duration_ns(optarg, 1000000000ULL, &duration_ns) || !duration_ns) {
				fprintf(stderr, "latscope dtl record: -d %s: a duration like 10s or 500ms\n", optarg);
				return EXIT_ERR;
			}
			break;
		case O_PMU: o.source = DTLR_PMU; break;
		case O_DBG: o.source = DTLR_DEBUGFS; break;
		case O_BOOTTB:
			if (ps_u64(optarg, 0, UINT64_MAX, &o.boot_tb)) {
				fprintf(stderr, "latscope dtl record: --boot-tb %s: not a number\n", optarg);
				return EXIT_ERR;
			}
			o.have_boot_tb = true;
			break;
		case O_SYSFS: o.sysfs = optarg; break;
		case O_DEBUGFS: o.debugfs = optarg; break;
		case O_PROCFS: o.procfs = optarg; break;
		case O_FORMATS: o.tracefs_events = optarg; break;
		case 'm':
			if (ps_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1))) {
				fprintf(stderr, "latscope dtl record: -m %s: a power of two\n", optarg);
				return EXIT_ERR;
			}
			o.ring_pages = (size_t)v;
			break;
		case 'q': quiet = true; break;
		case O_FORCE: o.force = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_ERR;
		}
	}
	char **cmd = optind < argc ? argv + optind : NULL;
	if (!tplist)
		tplist = (char *)"sched:sched_switch,sched:sched_wakeup";
	char *dup = strdup(tplist), *save = NULL;
	if (!dup)
		return EXIT_ERR;
	if (strcmp(dup, "none")) {
		for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (o.nr_tracepoints == 16) {
				fprintf(stderr, "latscope dtl record: at most 16 tracepoints\n");
				free(dup);
				return EXIT_ERR;
			}
			tps[o.nr_tracepoints++] = t;
		}
	}
	o.tracepoints = tps;
	o.argc = argc;
	o.argv = (const char *const *)argv;

	struct dtlr *r;
	int err = dtlr_open(&r, &o, out);
	if (err) {
		fprintf(stderr, "latscope dtl record: %s\n", *dtlr_strerror(r) ? dtlr_strerror(r) : strerror(-err));
		dtlr_close(r, NULL);
		free(dup);
		return EXIT_ERR;
	}
	const char *knob, *knob_old;
	if (dtlr_changed_setting(r, &knob, &knob_old))
		cio_on_abort_write(knob, knob_old);	/* a second Ctrl-C restores it too */
	pid_t child = -1, parent = getpid();
	int go[2] = { -1, -1 };
	if (cmd) {
		if (pipe2(go, O_CLOEXEC) < 0) {
			perror("latscope dtl record: pipe");
			dtlr_close(r, NULL);
			free(dup);
			return EXIT_ERR;
		}
		child = fork();
		if (child == 0) {
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
		close(go[0]);
		if (child < 0) {
			perror("latscope dtl record: fork");
			dtlr_close(r, NULL);
			free(dup);
			return EXIT_ERR;
		}
	}
	err = dtlr_enable(r);
	if (child > 0) {
		if (write(go[1], "g", 1) != 1)
			err = err ? err : -EPIPE;
		close(go[1]);
	}
	uint64_t t0 = now_ns();
	int status = 0;
	/* the workload may write to our stdout: a reader that leaves ends the run */
	while (!err && !cio_watch(STDOUT_FILENO)) {
		err = dtlr_poll(r, dtlr_poll_ms(r));
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		if (duration_ns && now_ns() - t0 >= duration_ns)
			break;
	}
	if (child > 0) {
		kill(child, SIGTERM);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;	/* a second Ctrl-C aborts (and the child dies with us) */
	}
	if (err)
		fprintf(stderr, "latscope dtl record: %s\n", *dtlr_strerror(r) ? dtlr_strerror(r) : strerror(-err));
	struct dtlr_stats st;
	int cerr = dtlr_close(r, &st);
	free(dup);
	if (cerr && !err) {
		fprintf(stderr, "latscope dtl record: finishing %s: %s\n", out, strerror(-cerr));
		err = cerr;
	}
	cio_on_abort_forget();
	if (cio_broken_pipe()) {
		cio_pipe_closed("latscope dtl record");
		return EXIT_ERR;
	}
	if (!quiet)
		fprintf(stderr, "latscope dtl record: %s: %u CPUs via %s, %" PRIu64 " DTL entries in %" PRIu64
			" AUX chunks, %" PRIu64 " other records; lost: %" PRIu64 " events, %" PRIu64
			" AUX flags%s%s\n", out, st.cpus, st.pmu ? "the vpa_dtl PMU" : "debugfs",
			st.dtl_entries, st.aux_chunks, st.records, st.lost, st.aux_flags_lost,
			st.boot_tb_unknown ? "; boot_tb unknown (not Power; pass --boot-tb): DTL times are "
					     "timebase/tb_freq and will not line up with the samples" : "",
			st.boot_tb_estimated ? "; boot_tb estimated from the timebase and CLOCK_MONOTONIC" : "");
	if (err)
		return EXIT_ERR;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return EXIT_ERR;
	return 0;
}
