/* SPDX-License-Identifier: MIT */
/*
 * pdread.h - streaming perf.data reader (file and pipe mode, both byte orders).
 *
 * Prefix: pdread_.
 *
 * Usage:
 *	struct pdread *r;
 *	int err = pdread_open(&r, "perf.data", NULL);	// "-" = stdin (pipe mode)
 *	struct pdread_event ev;
 *	while ((err = pdread_next(r, &ev)) > 0) { ... }
 *	if (err < 0) fprintf(stderr, "%s\n", pdread_strerror(r));
 *	pdread_close(r);
 *
 * Records come out in timestamp order the way perf orders them: kernel
 * records that carry a time are queued and released at each FINISHED_ROUND
 * up to the highest time seen before the previous round (and all at the end);
 * records without a time and perf's user records (type >= 64) are delivered
 * as soon as they are read, but for HEADER_EVENT_TYPE (obsolete, skipped by
 * perf; latscope's checkpoint tables), which is counted and skipped.  Memory is bounded by the queue (two rounds) and
 * a cap (pdread_opts.max_queue_bytes); the reader never mallocs per record.
 *
 * The library never prints: errors are returned as negative errno values and
 * described by pdread_strerror(), which names the file offset.
 */
#ifndef LATSCOPE_PDREAD_H
#define LATSCOPE_PDREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/firedtab.h"
#include "format/pdformat.h"

struct tep_handle;
struct tep_event;
struct pdread;

/* One event (evsel) of the recording.  Owned by the reader. */
struct pdread_evsel {
	struct pdformat_attr attr;		/* host order, zero-extended */
	const char *name;		/* from EVENT_DESC/tracepoint format, or NULL */
	uint64_t *ids;			/* sample ids mapped to this evsel */
	size_t nr_ids;
	struct tep_event *tp;		/* tracepoint format, or NULL */
	int idx;			/* position in pdread_evsels() */
	int id_pos;			/* u64 index of the id in a SAMPLE body, -1 = none */
	int is_pos;			/* u64 index of the id counted from the trailer end, -1 = none */
	size_t trailer_size;		/* bytes of the sample_id trailer (sample_id_all) */
};

/*
 * Parsed PERF_RECORD_SAMPLE (or the sample_id trailer of another record).
 * Scalar fields are host order; the pointers point into the record (file byte
 * order) and are valid until the next pdread_next().  Use pdread_u64() to read
 * array elements.
 */
struct pdread_sample {
	uint64_t type;			/* the sample_type that was parsed */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint8_t *read;		/* READ block */
	uint32_t read_size;
	uint64_t callchain_nr;
	const uint8_t *callchain;	/* callchain_nr u64s */
	uint32_t raw_size;
	const uint8_t *raw;		/* tracepoint data, file byte order */
	uint64_t branch_nr;
	uint64_t branch_hw_idx;
	const uint8_t *branch;		/* branch_nr 24-byte entries */
	uint64_t user_regs_abi;
	const uint8_t *user_regs;	/* popcount(sample_regs_user) u64s */
	uint64_t user_stack_size;
	const uint8_t *user_stack;
	uint64_t user_stack_dyn_size;
	uint64_t weight;		/* WEIGHT, or the packed WEIGHT_STRUCT */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t intr_regs_abi;
	const uint8_t *intr_regs;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
};

/* PERF_RECORD_AUXTRACE header fields (host order). */
struct pdread_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
};

/* One record as delivered by pdread_next(). */
struct pdread_event {
	uint32_t type;			/* host order header */
	uint16_t misc;
	uint16_t size;
	const uint8_t *data;		/* whole record, file byte order; size bytes */
	uint64_t file_offset;		/* record's offset in the file/stream; for records
					 * from a compressed frame, the frame's offset */
	bool compressed;		/* came out of a COMPRESSED record */
	const struct pdread_evsel *evsel;	/* evsel the record belongs to, or NULL */
	bool has_sample;		/* sample (SAMPLE) or trailer parsed */
	struct pdread_sample sample;
	/* PERF_RECORD_AUXTRACE only: */
	struct pdread_auxtrace auxtrace;
	const uint8_t *aux_data;	/* payload (aux_size bytes), valid until next pdread_next */
	uint64_t aux_size;
	uint64_t aux_file_offset;	/* payload offset in the file (file mode), else 0 */
};

/* Counters of what the reader met. */
struct pdread_stats {
	uint64_t records;		/* records read (decompressed ones included) */
	uint64_t by_type[PDFORMAT_RECORD_USER_MAX];
	uint64_t unknown_records;	/* types we do not know, skipped by size */
	uint64_t lost_records, lost_events;		/* PERF_RECORD_LOST */
	uint64_t lost_samples_records, lost_samples;	/* PERF_RECORD_LOST_SAMPLES */
	uint64_t aux_truncated, aux_partial, aux_collision; /* PERF_RECORD_AUX flags */
	uint64_t out_of_order;		/* records older than an already released time */
	uint64_t duplicates;		/* samples byte for byte one released just before
					 * at the same time (a recorder that wrote part of a
					 * ring twice: perf 6.1 under load); dropped unless
					 * opts.keep_duplicates */
	uint64_t unknown_id;		/* samples whose id maps to no evsel */
	uint64_t bad_samples;		/* samples too short for their sample_type */
	uint64_t compressed_records;
	uint64_t decompressed_bytes;
	uint64_t queue_peak_bytes;
	uint64_t forced_flushes;	/* flushes forced by max_queue_bytes */
};

struct pdread_opts {
	bool unordered;			/* deliver in file order, no queue */
	bool no_tracing_data;		/* do not parse TRACING_DATA */
	uint64_t max_queue_bytes;	/* 0 = default (256 MiB) */
	bool no_map;			/* read a regular file with read(2), not a mapping */
	bool keep_duplicates;		/* deliver stats.duplicates too (as perf script
					 * prints them); ordered mode only finds them */
};

/* Header-level facts; strings owned by the reader, NULL when absent. */
struct pdread_info {
	bool pipe;
	bool needs_swap;
	/* data size 0 in the header, or a writer's checkpoint (below): the
	 * writer was killed.  The data is read up to the end of the file
	 * (data_size says how much; past a checkpoint's table record, bytes
	 * that are no record end it, as an incomplete record does); the last
	 * unterminated_tail bytes, an incomplete record, are left out once the
	 * end is reached.  Callers should say so (src/cmdio.c: cmdio_pdr_close). */
	bool unterminated;
	uint64_t unterminated_tail;
	/* with unterminated: the header is a writer's checkpoint (pdwrite_checkpoint:
	 * a data size and bytes after the data): checkpoint_size is the data
	 * size it gave; 0 when the header's data size was 0.  checkpoint_table:
	 * the data ends with latscope's checkpoint table record (features
	 * read from it; pdformat.h, PDFORMAT_CKPT_MAGIC), else an older
	 * checkpoint with no features (they came as records in the data) */
	uint64_t checkpoint_size;
	bool checkpoint_table;
	/* TRACING_DATA records met after the formats were known (skipped: the
	 * first copy wins) */
	uint64_t dup_tracing_data;
	bool big_endian;		/* the file's byte order */
	uint64_t data_offset, data_size;
	uint64_t file_size;		/* 0 in pipe mode */
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	const char *cmdline;		/* CMDLINE joined with spaces */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	uint64_t first_sample_time, last_sample_time;	/* SAMPLE_TIME */
	bool has_clock_data;
	uint32_t clock_data_version, clockid;
	uint64_t wall_clock_ns, clockid_time_ns;
	bool has_compressed;
	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;
	uint64_t feat_bits[PDFORMAT_FEAT_BITS / 64];	/* features present */
	/* LATSCOPE_OSNOISE (latscope osnoise record's parameters; pdformat.h) */
	bool has_osnoise_params;
	struct pdformat_osnp osnoise_params;
	/* LATSCOPE_FIRED (base/firedtab.h): the recorder's counts of what the
	 * kernel fired against what it delivered; fired.counted when present
	 * (names empty: the events are the evsels of the same config) */
	struct firedtab fired;
	/* CPU_TOPOLOGY */
	size_t nr_core_ids;
	const uint32_t *core_id, *socket_id;		/* nr_core_ids entries */
	/* PMU_MAPPINGS */
	size_t nr_pmus;
	const uint32_t *pmu_type;
	const char *const *pmu_name;
	/* AUXTRACE index (file mode): number of entries; pdread_auxtrace_index() */
	size_t nr_auxtrace_index;
	/* non-empty when the file has an AUXTRACE index feature that could not
	 * be used (what is wrong and where); nr_auxtrace_index is then 0 */
	char auxtrace_index_damaged[128];
	/* First AUXTRACE_INFO seen (host order) */
	bool has_auxtrace_info;
	uint32_t auxtrace_info_type;
	uint64_t auxtrace_info_priv[8];
	size_t auxtrace_info_nr_priv;
};

/*
 * pdread_open - open a perf.data file, or the pipe-mode stream on stdin for "-".
 * On success *rp is a reader the caller frees with pdread_close().  On failure
 * returns a negative errno and, when *rp is not NULL, pdread_strerror(*rp) says
 * why; the caller still frees it with pdread_close().
 */
int pdread_open(struct pdread **rp, const char *path, const struct pdread_opts *opts);

/* pdread_open_fd - like pdread_open on an open descriptor (not closed by pdread_close
 * unless owns_fd).  A descriptor that cannot seek is read in pipe mode. */
int pdread_open_fd(struct pdread **rp, int fd, bool owns_fd, const char *name,
		const struct pdread_opts *opts);

/* pdread_open_mem - read an in-memory image (fuzzing, tests).  The buffer must
 * stay valid until pdread_close(); it is not copied or freed. */
int pdread_open_mem(struct pdread **rp, const void *buf, size_t len, const struct pdread_opts *opts);

/*
 * pdread_next - deliver the next record into *ev.
 * Returns 1 with a record, 0 at the end, a negative errno on a malformed or
 * truncated file (pdread_strerror() names what and where).  Pointers in *ev are
 * valid until the next call.
 */
int pdread_next(struct pdread *r, struct pdread_event *ev);

/* pdread_close - free everything; NULL is fine. */
void pdread_close(struct pdread *r);

/* The last error, "what at offset 0x..." (owned by the reader; "" if none). */
const char *pdread_strerror(const struct pdread *r);

const struct pdread_info *pdread_info(const struct pdread *r);
const struct pdread_stats *pdread_stats(const struct pdread *r);

/* Evsels known so far (pipe mode adds them as HEADER_ATTR records arrive). */
size_t pdread_nr_evsels(const struct pdread *r);
const struct pdread_evsel *pdread_evsel(const struct pdread *r, size_t idx);
/* Evsel for a sample id, NULL if none. */
const struct pdread_evsel *pdread_evsel_by_id(const struct pdread *r, uint64_t id);

/* Tracepoint formats (NULL if the file has no tracing data). Owned by the reader. */
struct tep_handle *pdread_tep(const struct pdread *r);

/* pdread_auxtrace_index - the absolute file offset of the i-th indexed
 * PERF_RECORD_AUXTRACE record and the record size the index claims for it
 * (perf writes the header size, 48; record_size may be NULL), read on demand
 * and not validated.  0, -ERANGE past the end, or another negative errno. */
int pdread_auxtrace_index(struct pdread *r, size_t i, uint64_t *record_offset, uint64_t *record_size);

/* pdread_auxtrace_index_read - n index entries from first in one read, as
 * {record offset, record size} pairs in host order into pairs[2 * n]
 * (the caller's).  0, -ERANGE or another negative errno. */
int pdread_auxtrace_index_read(struct pdread *r, size_t first, size_t n, uint64_t *pairs);

/*
 * pdread_tep_new - a second, independent handle on the file's tracepoint formats
 * (for another thread; libtraceevent handles must not be shared between
 * threads).  NULL if the file has no tracing data.  The caller frees it with
 * tep_free().
 */
struct tep_handle *pdread_tep_new(struct pdread *r);

/* pdread_build_id - the build-id the recording's BUILD_ID feature gives the
 * file called path, as lowercase hex into hex (>= 41 bytes); false if none. */
bool pdread_build_id(const struct pdread *r, const char *path, char *hex);

/* True when file fields must be byte-swapped to host order. */
bool pdread_needs_swap(const struct pdread *r);

/* Read a u64 of the file's byte order from p (e.g. callchain entries). */
uint64_t pdread_u64(const struct pdread *r, const void *p);

/* A PERF_RECORD_AUXTRACE_ERROR (what a recorder or a decoder says it lost;
 * pdformat.h). */
struct pdread_auxerr {
	uint32_t type, code, cpu;
	uint64_t time_ns;		/* 0 when the record has none (fmt 0) */
	char msg[PDFORMAT_AUXERR_MSG_LEN + 1];	/* NUL-terminated, control bytes as '?' */
};

/* pdread_auxerr - decode ev (a PERF_RECORD_AUXTRACE_ERROR) into *e (the
 * caller's); false when it is another type or too short for its fields. */
bool pdread_auxerr(const struct pdread *r, const struct pdread_event *ev, struct pdread_auxerr *e);

/*
 * pdread_pread - read len bytes at absolute file offset off (file mode only; e.g.
 * to re-read an AUXTRACE payload later).  Returns 0 or a negative errno
 * (-ESPIPE in pipe mode, -ENODATA past the end).
 */
int pdread_pread(struct pdread *r, uint64_t off, void *buf, size_t len);

/*
 * pdread_parse_sample - parse a SAMPLE body (or, with trailer=true, a
 * sample_id_all trailer) of `size` bytes at rec (the whole record, header
 * included) for evsel.  Exposed for tests and the live source.  Returns 0 or
 * -EINVAL when the record is too short for the sample_type.
 */
int pdread_parse_sample(const struct pdformat_attr *attr, bool swap, const uint8_t *rec,
		     size_t size, bool trailer, struct pdread_sample *s);

/* Bytes of a SAMPLE's READ block for read_format (nr_group members with
 * PERF_FORMAT_GROUP). */
uint64_t pdread_read_size(uint64_t read_format, uint64_t nr_group);

/* Record-type name ("SAMPLE", "AUXTRACE", ...), or NULL when unknown. */
const char *pdread_record_name(uint32_t type);

/* Decode one perf_event_attr of attr_size bytes at p (file order) into host order. */
int pdread_decode_attr(const uint8_t *p, size_t avail, bool swap, struct pdformat_attr *out, size_t *consumed);

#endif
