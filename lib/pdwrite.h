/* SPDX-License-Identifier: MIT */
/*
 * pdwrite.h - perf.data writer (file and pipe mode, either byte order).
 *
 * Prefix: pdw_.
 *
 * The caller describes events (evsels) and features in host order and emits
 * records; the writer converts every field to the target byte order.
 *
 *	struct pdw *w;
 *	struct pdw_opts o = { .big_endian = false, .pipe = false };
 *	pdw_open(&w, "out.data", &o);
 *	int ev = pdw_add_evsel(w, &attr, "sched:sched_switch", ids, 2);
 *	pdw_set_tracing_data(w, blob, len);          // optional
 *	pdw_set_string_feature(w, PDF_FEAT_HOSTNAME, "host");
 *	pdw_begin_data(w);                           // pipe mode: writes header records
 *	pdw_write_sample(w, ev, &sample);            // host-order pdr_sample
 *	pdw_write_record(w, type, misc, body, len);  // any record, body in target order
 *	pdw_close(w);                                // writes features, fixes header
 *
 * Samples: pdw_write_sample() lays out every field selected by the evsel's
 * sample_type from a struct pdr_sample whose scalars are host order; array
 * and RAW payloads must already be in the target byte order (use
 * pdw_needs_swap() with by_st*() to build them).
 */
#ifndef LATSCOPE_PDWRITE_H
#define LATSCOPE_PDWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdformat.h"
#include "pdread.h"

struct pdw;

struct pdw_opts {
	bool big_endian;	/* target byte order */
	bool pipe;		/* pipe-mode stream (no seeking, header records) */
	uint32_t attr_size;	/* perf_event_attr size to write; 0 = PDF_ATTR_VER7
				 * (perf < 6.3 rejects VER8), or VER8 when an
				 * evsel sets config3 */
	bool force;		/* pdw_open(): replace a target that is another
				 * user's file or symlink (see safeout.h) */
	bool checkpoint;	/* file mode: a recording that survives a kill
				 * (see pdw_checkpoint) */
	uint64_t checkpoint_ns;	/* the most time between checkpoints; 0 =
				 * PDW_CHECKPOINT_NS */
};

/* pdw_open - create path ("-" = stdout). Caller frees with pdw_close() or
 * pdw_discard().  The file is written under a temporary name beside path and
 * renamed over it by a successful pdw_close() (lib/safeout.h: a symlink or
 * another user's file at path is refused, -ELOOP/-EEXIST, unless opts->force;
 * so_strerror() explains). */
int pdw_open(struct pdw **wp, const char *path, const struct pdw_opts *opts);
/* pdw_open_fd - write to fd (not closed unless owns_fd). */
int pdw_open_fd(struct pdw **wp, int fd, bool owns_fd, const struct pdw_opts *opts);

/* True when the target byte order differs from the host's. */
bool pdw_needs_swap(const struct pdw *w);

/* Add an event; returns its index (>= 0) or a negative errno.  attr is host
 * order; the writer sets attr.size if 0.  ids/name are copied. */
int pdw_add_evsel(struct pdw *w, const struct pdf_attr *attr, const char *name,
		  const uint64_t *ids, size_t nr_ids);

/* Tracing-data blob (see pdw_tracing_data_build); copied. */
int pdw_set_tracing_data(struct pdw *w, const void *blob, size_t len);

/* String features (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID). */
int pdw_set_string_feature(struct pdw *w, int feat, const char *s);
int pdw_set_nrcpus(struct pdw *w, uint32_t avail, uint32_t online);
int pdw_set_cmdline(struct pdw *w, int argc, const char *const *argv);
int pdw_set_sample_time(struct pdw *w, uint64_t first_ns, uint64_t last_ns);
/* Any other feature: payload already in target byte order; copied. */
int pdw_set_raw_feature(struct pdw *w, int feat, const void *payload, size_t len);

/* The LATSCOPE_OSNOISE feature (pdformat.h) from p (host order; version and
 * big_endian are ignored: the writer's own, tagged in the section).  Not sent
 * in pipe mode (perf would stop there). */
int pdw_set_osnoise_params(struct pdw *w, const struct pdf_osnp *p);

/* Start the data section: writes the file header area (file mode) or the pipe
 * header and HEADER_ATTR / HEADER_FEATURE / TRACING_DATA records (pipe mode). */
int pdw_begin_data(struct pdw *w);

/* Write one record: body = bytes after the 8-byte header, already in target
 * order, len padded by the writer to 8.  Returns 0 or negative errno. */
int pdw_write_record(struct pdw *w, uint32_t type, uint16_t misc, const void *body, size_t len);

/* Write a PERF_RECORD_SAMPLE for evsel idx from host-order fields. */
int pdw_write_sample(struct pdw *w, int evsel, uint16_t misc, const struct pdr_sample *s);

/* Write a kernel record of type (COMM, LOST, AUX...) whose body (host-order
 * u64/u32 words described by the caller) is followed by the evsel's
 * sample_id trailer built from s.  body is in target order. */
int pdw_write_with_trailer(struct pdw *w, int evsel, uint32_t type, uint16_t misc,
			   const void *body, size_t len, const struct pdr_sample *s);

/*
 * pdw_write_task_comms - a PERF_RECORD_COMM for every thread alive now
 * (procfs/PID/task/TID/comm; procfs NULL = "/proc"), with evsel's sample_id
 * trailer (its first id, time 0), as perf record synthesizes them at start,
 * so readers name the tasks that existed before the recording.  Threads
 * that vanish while it reads are skipped.  0 or negative errno (a write
 * error; an unreadable procfs is -errno of opendir).
 */
int pdw_write_task_comms(struct pdw *w, int evsel, const char *procfs);

/* PERF_RECORD_AUXTRACE + payload; in file mode the record is added to the
 * HEADER_AUXTRACE index. */
int pdw_write_auxtrace(struct pdw *w, const struct pdr_auxtrace *a, const void *payload, size_t len);
/* PERF_RECORD_AUXTRACE_INFO with type and priv[] (host order). */
int pdw_write_auxtrace_info(struct pdw *w, uint32_t type, const uint64_t *priv, size_t nr_priv);
int pdw_finished_round(struct pdw *w);

/*
 * Compression as `perf record -z` writes it: between pdw_compress_begin() and
 * pdw_compress_end() records are staged, then written as PERF_RECORD_COMPRESSED
 * records (zstd at level, each holding whole records and under 64 KiB, as
 * perf keeps them); the COMPRESSED feature is set.  AUXTRACE records must be
 * written outside (perf never compresses AUX data): -EINVAL while staging.
 */
int pdw_compress_begin(struct pdw *w, int level);
int pdw_compress_end(struct pdw *w);

/*
 * pdw_checkpoint - make what was written so far a readable recording, for a
 * writer that may be killed (opts.checkpoint, file mode; call it each time the
 * writer's loop wakes up, outside pdw_compress_begin/end: it does its work at
 * most every opts.checkpoint_ns and returns 0 at once otherwise; force does it
 * now).  It flushes the buffer and rewrites
 * the file header with the data size written so far and no features, so a
 * reader of a killed recording finds a valid file that lost at most what came
 * after the last checkpoint; pdr_open() reads on past that size to the end of
 * such a file.  With opts.checkpoint the data section of the checkpoints
 * opens with the features set before pdw_begin_data() and the tracing data,
 * as the HEADER_FEATURE and HEADER_TRACING_DATA records a pipe starts with,
 * so they survive a kill too; pdw_close() writes the feature section as
 * always and starts the finished file's data section after those records
 * (perf fails on a second copy of the tracing data).  A killed recording of
 * tracepoints is readable by latscope, not by perf (nor is perf's own).  The
 * first checkpoint of a path opened with pdw_open() puts the file in place of
 * the target (so_publish()): from then on a failure leaves the recording up to
 * its last checkpoint there.  Without opts.checkpoint, and in pipe mode, it
 * does nothing.  0 or negative errno (-EBUSY while compressing).
 */
#define PDW_CHECKPOINT_NS 200000000ull
int pdw_checkpoint(struct pdw *w, bool force);

/* Finish: write features, rewrite the header (file mode), close; a path
 * opened with pdw_open() gets its final name only now, and only when no
 * error was met (else the temporary file is removed).  Frees w; NULL is
 * fine.  Returns 0 or the first error met while writing. */
int pdw_close(struct pdw *w);
/* pdw_discard - give up: free w and remove the file pdw_open() was writing
 * (the target keeps its old contents; after a pdw_checkpoint() published the
 * file, the target keeps the recording up to its last checkpoint).  NULL is
 * fine. */
void pdw_discard(struct pdw *w);

/*
 * Tracing data blob builder.  Formats are tracefs "format" texts.
 * pdw_tracing_data_build() returns a malloc'd blob the caller frees.
 */
struct pdw_tp_format {
	const char *system;	/* "sched" */
	const char *format;	/* contents of events/<system>/<name>/format */
};
int pdw_tracing_data_build(bool big_endian, uint32_t page_size, const char *header_page,
			   const struct pdw_tp_format *fmts, size_t nr, const char *printk_formats,
			   const char *saved_cmdlines, void **blob, size_t *len);

#endif
