/* SPDX-License-Identifier: MIT */
/*
 * dtlrec.h - record the POWER Dispatch Trace Log into a perf.data file (or
 * hand it to a sink: dtlrec_opts.sink).
 *
 * Prefix: dtlrec_.
 *
 * Two sources:
 *  - the vpa_dtl PMU (kernel 6.18+ on a shared-processor LPAR, not a KVM
 *    guest): one sampling event per CPU (type from sysfs
 *    bus/event_source/devices/vpa_dtl/type, config = mask, sample_period =
 *    poll interval in ns) with an AUX buffer; PERF_RECORD_AUX records and the
 *    AUX data become PERF_RECORD_AUXTRACE records, as perf record writes them;
 *  - the older debugfs files powerpc/dtl/{dtl_event_mask,cpu-N}: written mask,
 *    read in multiples of 48 bytes, polled; tb_freq from /proc/cpuinfo.
 * Either way the file carries AUXTRACE_INFO (type 7), the AUXTRACE records
 * with their HEADER_AUXTRACE index, an EVENT_DESC named vpa_dtl/<event>/ and
 * the chosen tracepoints (perf clock, sample_id_all), so perf 6.18+ and
 * `latscope dtl` read it.  The sysfs, debugfs and procfs roots can point at
 * a directory for tests.  Never prints: errors come back as negative errno
 * with a message in dtlrec_strerror().
 */
#ifndef LATSCOPE_DTLREC_H
#define LATSCOPE_DTLREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parse.h"

enum dtlrec_source { DTLREC_AUTO, DTLREC_PMU, DTLREC_DEBUGFS };

struct dtlrec_opts {
	struct parse_cpuset cpus;		/* empty = every online CPU */
	uint8_t mask;			/* DTL_MASK_* (default DTL_MASK_ALL) */
	const char *event;		/* "dtl_all", ... (for the event name) */
	uint64_t period_ns;		/* PMU sample_period / debugfs poll (default 1 ms / 10 ms) */
	const char *const *tracepoints;	/* "sched:sched_switch", ... */
	size_t nr_tracepoints;
	const char *sysfs, *debugfs, *procfs;	/* roots; NULL = /sys, /sys/kernel/debug, /proc */
	const char *tracefs_events;	/* events dir for formats; NULL = live tracefs */
	enum dtlrec_source source;
	bool have_boot_tb;
	uint64_t boot_tb;		/* debugfs: the boot timebase, when known */
	size_t ring_pages;		/* data ring pages per CPU (power of 2, default 512 KiB worth) */
	size_t aux_bytes;		/* AUX buffer per CPU (default 128 KiB) */
	bool force;			/* replace an output file another user owns or links */
	int argc;			/* the recorded command line (CMDLINE feature) */
	const char *const *argv;
	/* No file: every chunk of DTL data (the AUX payload a recording would
	 * hold, a header slot first on debugfs) goes to sink(sink_arg, cpu,
	 * pos, data, len) instead (pos: its offset in the CPU's AUX stream), from dtlrec_poll() and dtlrec_close(); data is
	 * valid during the call.  The other records of the rings are only
	 * counted.  dtlrec_open()'s output is then NULL.  (The monitor.) */
	void (*sink)(void *arg, unsigned cpu, uint64_t pos, const uint8_t *data, size_t len);
	/* with sink, may be NULL: each PERF_RECORD_AUX of a CPU's ring (a
	 * commit of the driver: its AUX offset, size and flags) */
	void (*aux_sink)(void *arg, unsigned cpu, uint64_t offset, uint64_t size, uint64_t flags);
	void *sink_arg;
};

struct dtlrec_stats {
	uint64_t dtl_entries;		/* 48-byte entries written */
	uint64_t aux_chunks;		/* AUXTRACE records */
	uint64_t aux_bytes;
	uint64_t records;		/* other records copied from the rings */
	uint64_t lost;			/* events PERF_RECORD_LOST reported */
	uint64_t corrupt;		/* corrupt data-ring headers, each a skip to the head */
	uint64_t corrupt_bytes;		/* data-ring bytes those skips left unread */
	uint64_t aux_flags_lost;	/* AUX records with TRUNCATED/PARTIAL/COLLISION */
	uint64_t aux_full;		/* drains that found a CPU's AUX buffer full */
	uint64_t aux_overruns;		/* drains that found bytes written over before they were read */
	uint64_t aux_overrun_bytes;	/* those bytes (AUX stream offsets not in the file) */
	uint64_t aux_stopped;		/* CPUs whose event the kernel disabled (a full AUX buffer):
					 * their DTL ends there */
	uint64_t odd_reads;		/* debugfs reads that were not a multiple of 48 */
	uint64_t dbg_full_reads;	/* debugfs reads that returned the kernel's whole
					 * buffer less one: the hypervisor lapped the
					 * reader, entries before them are lost (how many
					 * is not known) */
	uint64_t dbg_out_of_order;	/* debugfs entries dropped: written over during
					 * the copy (newer than the next) or not newer
					 * than the last written; a lap */
	/* the tracepoints' counting twins (live/firecount.h), read at the close: */
	bool tp_counted;		/* every tracepoint was counted */
	uint64_t tp_fired;		/* times they fired on the recorded CPUs */
	uint64_t tp_undelivered;	/* of those, neither copied as a sample nor counted in a
					 * PERF_RECORD_LOST: dropped by the kernel without a record
					 * (also written into the file: LATSCOPE_FIRED) */
	uint64_t throttles;		/* PERF_RECORD_THROTTLE records */
	unsigned cpus;
	bool pmu;			/* the PMU was used (else debugfs) */
	bool boot_tb_estimated;		/* debugfs: boot_tb computed from mftb and the clock */
	bool boot_tb_unknown;		/* debugfs: no boot_tb: times are tb / tb_freq */
};

struct dtlrec;

/*
 * dtlrec_open - find a DTL source, open every event and file, and write the
 * output's header.  Returns 0 and *rp (freed by dtlrec_close) or a negative
 * errno; in both cases *rp may be set and dtlrec_strerror(*rp) explains
 * (e.g. -ENODEV "not a shared-processor LPAR", -EBUSY "in use", -EACCES).
 */
int dtlrec_open(struct dtlrec **rp, const struct dtlrec_opts *o, const char *output);

/* Enable the events (call right before the workload starts). */
int dtlrec_enable(struct dtlrec *r);

/* Wait up to timeout_ms for data, then copy everything available to the file. */
int dtlrec_poll(struct dtlrec *r, int timeout_ms);

/* The poll interval the caller should use (ms). */
int dtlrec_poll_ms(const struct dtlrec *r);

/* Disable, drain, finish the file, write back the setting the recording
 * changed (dtlrec_changed_setting) and free; NULL is fine.  Returns 0 or the
 * first error; *st (may be NULL) receives the counters. */
int dtlrec_close(struct dtlrec *r, struct dtlrec_stats *st);

/*
 * dtlrec_get_stats - the counters so far into *st (the caller's).
 */
void dtlrec_get_stats(const struct dtlrec *r, struct dtlrec_stats *st);
/*
 * dtlrec_changed_setting - the system setting dtlrec_open() changed: debugfs
 * powerpc/dtl/dtl_event_mask (a default for every later reader of the
 * cpu-N files), and the text that restores it.  False when none (the PMU
 * source).  *path and *restore point into r (valid until dtlrec_close); for a
 * caller that must also restore it when the process is killed (an abort).
 */
bool dtlrec_changed_setting(const struct dtlrec *r, const char **path, const char **restore);

const char *dtlrec_strerror(const struct dtlrec *r);

/* dtlrec_cpu_stopped - the kernel disabled CPU cpu's vpa_dtl event (its AUX
 * buffer filled up): no more of its DTL comes. */
bool dtlrec_cpu_stopped(const struct dtlrec *r, unsigned cpu);

/* Helpers (exposed for tests). */
int dtlrec_read_pmu_type(const char *sysfs, uint32_t *type);
int dtlrec_read_tb_freq(const char *procfs, uint64_t *hz);

/* dtlrec_kvm_guest - true when the device tree under procfs (NULL = /proc)
 * says the kernel runs under KVM (/hypervisor compatible "linux,kvm", what
 * the kernel's is_kvm_guest() reads): no vpa_dtl PMU there, debugfs only. */
bool dtlrec_kvm_guest(const char *procfs);
int dtlrec_event_mask(const char *name, uint8_t *mask);

#endif
