/* SPDX-License-Identifier: MIT */
/*
 * pdwrite.h - perf.data writer (file and pipe mode, either byte order).
 *
 * Prefix: pdwrite_.
 *
 * The caller describes events (evsels) and features in host order and emits
 * records; the writer converts every field to the target byte order.
 *
 *	struct pdwrite *w;
 *	struct pdwrite_opts o = { .big_endian = false, .pipe = false };
 *	pdwrite_open(&w, "out.data", &o);
 *	int ev = pdwrite_add_evsel(w, &attr, "sched:sched_switch", ids, 2);
 *	pdwrite_set_tracing_data(w, blob, len);          // optional
 *	pdwrite_set_string_feature(w, PDFORMAT_FEAT_HOSTNAME, "host");
 *	pdwrite_begin_data(w);                           // pipe mode: writes header records
 *	pdwrite_write_sample(w, ev, &sample);            // host-order pdread_sample
 *	pdwrite_write_record(w, type, misc, body, len);  // any record, body in target order
 *	pdwrite_close(w);                                // writes features, fixes header
 *
 * Samples: pdwrite_write_sample() lays out every field selected by the evsel's
 * sample_type from a struct pdread_sample whose scalars are host order; array
 * and RAW payloads must already be in the target byte order (use
 * pdwrite_needs_swap() with bytes_st*() to build them).
 */
#ifndef LATSCOPE_PDWRITE_H
#define LATSCOPE_PDWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/pdformat.h"
#include "format/pdread.h"

struct safeout_refusal;

struct pdwrite;

struct pdwrite_opts {
	bool big_endian;	/* target byte order */
	bool pipe;		/* pipe-mode stream (no seeking, header records) */
	uint32_t attr_size;	/* perf_event_attr size to write; 0 = PDFORMAT_ATTR_VER7
				 * (perf < 6.3 rejects VER8), or VER8 when an
				 * evsel sets config3 */
	bool force;		/* pdwrite_open(): replace a target that is another
				 * user's file or symlink (see safeout.h) */
	struct safeout_refusal *refusal;	/* pdwrite_open(): what a refusal was
				 * about (NULL = not wanted; the caller's) */
	bool checkpoint;	/* file mode: a recording that survives a kill
				 * (see pdwrite_checkpoint) */
	uint64_t checkpoint_ns;	/* the most time between checkpoints; 0 =
				 * PDWRITE_CHECKPOINT_NS */
};

/* pdwrite_open - create path ("-" = stdout, in pipe mode where stdout cannot
 * seek). Caller frees with pdwrite_close() or
 * pdwrite_discard().  The file is written under a temporary name beside path and
 * renamed over it by a successful pdwrite_close() (lib/base/safeout.h: a symlink or
 * another user's file at path is refused, -ELOOP/-EEXIST, unless opts->force;
 * safeout_explain() words it with opts->refusal). */
int pdwrite_open(struct pdwrite **wp, const char *path, const struct pdwrite_opts *opts);
/* pdwrite_open_fd - write to fd (not closed unless owns_fd). */
int pdwrite_open_fd(struct pdwrite **wp, int fd, bool owns_fd, const struct pdwrite_opts *opts);

/* True when the target byte order differs from the host's. */
bool pdwrite_needs_swap(const struct pdwrite *w);

/* Add an event; returns its index (>= 0) or a negative errno.  attr is host
 * order; the writer sets attr.size if 0.  ids/name are copied. */
int pdwrite_add_evsel(struct pdwrite *w, const struct pdformat_attr *attr, const char *name,
		  const uint64_t *ids, size_t nr_ids);

/* Tracing-data blob (see pdwrite_tracing_data_build); copied. */
int pdwrite_set_tracing_data(struct pdwrite *w, const void *blob, size_t len);

/* String features (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID). */
int pdwrite_set_string_feature(struct pdwrite *w, int feat, const char *s);
int pdwrite_set_nrcpus(struct pdwrite *w, uint32_t avail, uint32_t online);
int pdwrite_set_cmdline(struct pdwrite *w, int argc, const char *const *argv);
int pdwrite_set_sample_time(struct pdwrite *w, uint64_t first_ns, uint64_t last_ns);
/* Any other feature: payload already in target byte order; copied. */
int pdwrite_set_raw_feature(struct pdwrite *w, int feat, const void *payload, size_t len);

/* The LATSCOPE_OSNOISE feature (pdformat.h) from p (host order; version and
 * big_endian are ignored: the writer's own, tagged in the section).  Not sent
 * in pipe mode (perf would stop there). */
int pdwrite_set_osnoise_params(struct pdwrite *w, const struct pdformat_osnp *p);
/* The LATSCOPE_FIRED feature (base/firedtab.h) from t, in the file's byte
 * order (may be set after pdwrite_begin_data: the table is written at
 * checkpoints and at close; not in pipe mode). */
struct firedtab;
int pdwrite_set_fired(struct pdwrite *w, const struct firedtab *t);

/* Start the data section: writes the file header area (file mode) or the pipe
 * header and HEADER_ATTR / HEADER_FEATURE / TRACING_DATA records (pipe mode). */
int pdwrite_begin_data(struct pdwrite *w);

/* Write one record: body = bytes after the 8-byte header, already in target
 * order, len padded by the writer to 8.  Returns 0 or negative errno. */
int pdwrite_write_record(struct pdwrite *w, uint32_t type, uint16_t misc, const void *body, size_t len);

/* Write a PERF_RECORD_SAMPLE for evsel idx from host-order fields. */
int pdwrite_write_sample(struct pdwrite *w, int evsel, uint16_t misc, const struct pdread_sample *s);

/* Write a kernel record of type (COMM, LOST, AUX...) whose body (host-order
 * u64/u32 words described by the caller) is followed by the evsel's
 * sample_id trailer built from s.  body is in target order. */
int pdwrite_write_with_trailer(struct pdwrite *w, int evsel, uint32_t type, uint16_t misc,
			   const void *body, size_t len, const struct pdread_sample *s);

/*
 * pdwrite_write_task_comms - a PERF_RECORD_COMM for every thread alive now
 * (procfs/PID/task/TID/comm; procfs NULL = "/proc"), with evsel's sample_id
 * trailer (its first id, time 0), as perf record synthesizes them at start,
 * so readers name the tasks that existed before the recording.  Threads
 * that vanish while it reads are skipped.  0 or negative errno (a write
 * error; an unreadable procfs is -errno of opendir).
 */
int pdwrite_write_task_comms(struct pdwrite *w, int evsel, const char *procfs);

/*
 * pdwrite_write_kernel_map - the kernel's PERF_RECORD_MMAP (misc KERNEL,
 * pid -1, "[kernel.kallsyms]_text") of [start, start + len) at pgoff, with
 * evsel's sample_id trailer built from s.  0 or negative errno.
 */
int pdwrite_write_kernel_map(struct pdwrite *w, int evsel, uint64_t start, uint64_t len, uint64_t pgoff,
			     const struct pdread_sample *s);

/*
 * pdwrite_write_kernel_mmap - the kernel's PERF_RECORD_MMAP as perf record
 * synthesizes it at start (misc KERNEL, pid -1, filename
 * "[kernel.kallsyms]_text"; start and pgoff the address of _text, or _stext;
 * the length to the end of the kernel image's last function symbol), read
 * from the kallsyms file (NULL = "/proc/kallsyms"), with evsel's sample_id
 * trailer: perf script resolves the file's kernel addresses (srr0) only
 * with it.  *written (when not NULL) says whether it was written: a kallsyms that cannot be
 * read, hides its addresses (kptr_restrict) or has no _text/_stext gives
 * none, and 0.  Negative errno for a write error or a bad argument.
 */
int pdwrite_write_kernel_mmap(struct pdwrite *w, int evsel, const char *kallsyms, bool *written);
/* pdwrite_write_comm - one PERF_RECORD_COMM naming tid of pid comm (at most
 * 15 bytes kept), with evsel's sample_id trailer at time_ns.  0 or negative
 * errno. */
int pdwrite_write_comm(struct pdwrite *w, int evsel, uint32_t pid, uint32_t tid, const char *comm,
		       uint64_t time_ns);

/* PERF_RECORD_AUXTRACE + payload; in file mode the record is added to the
 * HEADER_AUXTRACE index. */
int pdwrite_write_auxtrace(struct pdwrite *w, const struct pdread_auxtrace *a, const void *payload, size_t len);
/* PERF_RECORD_AUXTRACE_INFO with type and priv[] (host order). */
int pdwrite_write_auxtrace_info(struct pdwrite *w, uint32_t type, const uint64_t *priv, size_t nr_priv);
int pdwrite_finished_round(struct pdwrite *w);

/*
 * Compression as `perf record -z` writes it: between pdwrite_compress_begin() and
 * pdwrite_compress_end() records are staged, then written as PERF_RECORD_COMPRESSED
 * records (zstd at level, each holding whole records and under 64 KiB, as
 * perf keeps them); the COMPRESSED feature is set.  AUXTRACE records must be
 * written outside (perf never compresses AUX data): -EINVAL while staging.
 */
int pdwrite_compress_begin(struct pdwrite *w, int level);
int pdwrite_compress_end(struct pdwrite *w);

/*
 * pdwrite_checkpoint - make what was written so far a readable recording, for a
 * writer that may be killed (opts.checkpoint, file mode; call it each time the
 * writer's loop wakes up, outside pdwrite_compress_begin/end: it does its work at
 * most every opts.checkpoint_ns and returns 0 at once otherwise; force does it
 * now).  With opts.checkpoint, pdwrite_begin_data() writes the payloads of the
 * features set so far (tracing data, EVENT_DESC, HOSTNAME...) between the
 * attrs and the data section, once.  A checkpoint appends the feature table
 * to the data written so far as a record perf skips (HEADER_EVENT_TYPE, with
 * feature bit 0 set: lib/format/pdformat.h, PDFORMAT_CKPT_MAGIC; payloads known
 * only now, such as SAMPLE_TIME, inside it while they fit, never the AUXTRACE
 * index), flushes, then rewrites the file header to end the data section
 * right before that record.  Nothing is ever written over it: the data that
 * follows goes after it (the next checkpoint's data section holds it as one
 * more record readers skip), so the file on disk is a complete recording at
 * every moment, up to its last checkpoint, for perf and for pdread_open(),
 * which reads on to the end of such a file (pdread_info: unterminated,
 * checkpoint_table).  Nothing new since the last checkpoint: no new table.
 * pdwrite_close() writes the feature section after the data as always (bit
 * 0 clear), its slots pointing at the payloads before the data.  The first
 * checkpoint of a path opened with pdwrite_open() puts the file in place of
 * the target (safeout_publish()): from then on a failure leaves the recording
 * up to its last checkpoint there.  Without opts.checkpoint, and in pipe
 * mode, it does nothing.  0 or negative errno (-EBUSY while compressing).
 */
#define PDWRITE_CHECKPOINT_NS 200000000ull
int pdwrite_checkpoint(struct pdwrite *w, bool force);

/* Finish: write features, rewrite the header (file mode), close; a path
 * opened with pdwrite_open() gets its final name only now, and only when no
 * error was met (else the temporary file is removed).  Frees w; NULL is
 * fine.  Returns 0 or the first error met while writing. */
int pdwrite_close(struct pdwrite *w);
/* pdwrite_discard - give up: free w and remove the file pdwrite_open() was writing
 * (the target keeps its old contents; after a pdwrite_checkpoint() published the
 * file, the target keeps the recording up to its last checkpoint).  NULL is
 * fine. */
void pdwrite_discard(struct pdwrite *w);

/*
 * Tracing data blob builder.  Formats are tracefs "format" texts.
 * pdwrite_tracing_data_build() returns a malloc'd blob the caller frees.
 */
struct pdwrite_tp_format {
	const char *system;	/* "sched" */
	const char *format;	/* contents of events/<system>/<name>/format */
};
int pdwrite_tracing_data_build(bool big_endian, uint32_t page_size, const char *header_page,
			   const struct pdwrite_tp_format *fmts, size_t nr, const char *printk_formats,
			   const char *saved_cmdlines, void **blob, size_t *len);

#endif
