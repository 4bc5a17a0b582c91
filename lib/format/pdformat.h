/* SPDX-License-Identifier: MIT */
/*
 * pdformat.h - constants and host-order structures of the perf.data format.
 *
 * Prefix: PDFORMAT_ / pdformat_.  Everything here is a plain definition; byte order is
 * handled by the reader (pdread) and writer (pdwrite), which convert between
 * the file's byte order and these host-order structures.
 */
#ifndef LATSCOPE_PDFORMAT_H
#define LATSCOPE_PDFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* File magic as a u64: "PERFILE2" read little-endian. */
#define PDFORMAT_MAGIC2		0x32454c4946524550ULL
/* Legacy version-1 magic "PERFFILE". */
#define PDFORMAT_MAGIC1		0x454c494646524550ULL
#define PDFORMAT_FILE_HEADER_SIZE	104
#define PDFORMAT_FILE_HEADER_SIZE_OLD 72
#define PDFORMAT_PIPE_HEADER_SIZE	16
#define PDFORMAT_FEAT_BITS		256

/* perf_event_attr sizes by ABI version. */
#define PDFORMAT_ATTR_VER0		64
#define PDFORMAT_ATTR_VER1		72
#define PDFORMAT_ATTR_VER2		80
#define PDFORMAT_ATTR_VER3		96
#define PDFORMAT_ATTR_VER4		104
#define PDFORMAT_ATTR_VER5		112
#define PDFORMAT_ATTR_VER6		120
#define PDFORMAT_ATTR_VER7		128
#define PDFORMAT_ATTR_VER8		136
#define PDFORMAT_ATTR_MAX		PDFORMAT_ATTR_VER8

/* Record types (kernel). */
enum {
	PDFORMAT_RECORD_MMAP = 1,
	PDFORMAT_RECORD_LOST = 2,
	PDFORMAT_RECORD_COMM = 3,
	PDFORMAT_RECORD_EXIT = 4,
	PDFORMAT_RECORD_THROTTLE = 5,
	PDFORMAT_RECORD_UNTHROTTLE = 6,
	PDFORMAT_RECORD_FORK = 7,
	PDFORMAT_RECORD_READ = 8,
	PDFORMAT_RECORD_SAMPLE = 9,
	PDFORMAT_RECORD_MMAP2 = 10,
	PDFORMAT_RECORD_AUX = 11,
	PDFORMAT_RECORD_ITRACE_START = 12,
	PDFORMAT_RECORD_LOST_SAMPLES = 13,
	PDFORMAT_RECORD_SWITCH = 14,
	PDFORMAT_RECORD_SWITCH_CPU_WIDE = 15,
	PDFORMAT_RECORD_NAMESPACES = 16,
	PDFORMAT_RECORD_KSYMBOL = 17,
	PDFORMAT_RECORD_BPF_EVENT = 18,
	PDFORMAT_RECORD_CGROUP = 19,
	PDFORMAT_RECORD_TEXT_POKE = 20,
	PDFORMAT_RECORD_AUX_OUTPUT_HW_ID = 21,
	PDFORMAT_RECORD_KERNEL_MAX = 22,	/* first number we do not know */
};

/* Record types synthesised by perf (user types); never carry a sample_id trailer. */
enum {
	PDFORMAT_RECORD_USER_START = 64,
	PDFORMAT_RECORD_HEADER_ATTR = 64,
	PDFORMAT_RECORD_HEADER_EVENT_TYPE = 65,
	PDFORMAT_RECORD_HEADER_TRACING_DATA = 66,
	PDFORMAT_RECORD_HEADER_BUILD_ID = 67,
	PDFORMAT_RECORD_FINISHED_ROUND = 68,
	PDFORMAT_RECORD_ID_INDEX = 69,
	PDFORMAT_RECORD_AUXTRACE_INFO = 70,
	PDFORMAT_RECORD_AUXTRACE = 71,
	PDFORMAT_RECORD_AUXTRACE_ERROR = 72,
	PDFORMAT_RECORD_THREAD_MAP = 73,
	PDFORMAT_RECORD_CPU_MAP = 74,
	PDFORMAT_RECORD_STAT_CONFIG = 75,
	PDFORMAT_RECORD_STAT = 76,
	PDFORMAT_RECORD_STAT_ROUND = 77,
	PDFORMAT_RECORD_EVENT_UPDATE = 78,
	PDFORMAT_RECORD_TIME_CONV = 79,
	PDFORMAT_RECORD_HEADER_FEATURE = 80,
	PDFORMAT_RECORD_COMPRESSED = 81,
	PDFORMAT_RECORD_FINISHED_INIT = 82,
	PDFORMAT_RECORD_COMPRESSED2 = 83,
	PDFORMAT_RECORD_BPF_METADATA = 84,
	PDFORMAT_RECORD_USER_MAX = 85,
};

/* sample_type bits. */
enum {
	PDFORMAT_SAMPLE_IP = 1ULL << 0,
	PDFORMAT_SAMPLE_TID = 1ULL << 1,
	PDFORMAT_SAMPLE_TIME = 1ULL << 2,
	PDFORMAT_SAMPLE_ADDR = 1ULL << 3,
	PDFORMAT_SAMPLE_READ = 1ULL << 4,
	PDFORMAT_SAMPLE_CALLCHAIN = 1ULL << 5,
	PDFORMAT_SAMPLE_ID = 1ULL << 6,
	PDFORMAT_SAMPLE_CPU = 1ULL << 7,
	PDFORMAT_SAMPLE_PERIOD = 1ULL << 8,
	PDFORMAT_SAMPLE_STREAM_ID = 1ULL << 9,
	PDFORMAT_SAMPLE_RAW = 1ULL << 10,
	PDFORMAT_SAMPLE_BRANCH_STACK = 1ULL << 11,
	PDFORMAT_SAMPLE_REGS_USER = 1ULL << 12,
	PDFORMAT_SAMPLE_STACK_USER = 1ULL << 13,
	PDFORMAT_SAMPLE_WEIGHT = 1ULL << 14,
	PDFORMAT_SAMPLE_DATA_SRC = 1ULL << 15,
	PDFORMAT_SAMPLE_IDENTIFIER = 1ULL << 16,
	PDFORMAT_SAMPLE_TRANSACTION = 1ULL << 17,
	PDFORMAT_SAMPLE_REGS_INTR = 1ULL << 18,
	PDFORMAT_SAMPLE_PHYS_ADDR = 1ULL << 19,
	PDFORMAT_SAMPLE_AUX = 1ULL << 20,
	PDFORMAT_SAMPLE_CGROUP = 1ULL << 21,
	PDFORMAT_SAMPLE_DATA_PAGE_SIZE = 1ULL << 22,
	PDFORMAT_SAMPLE_CODE_PAGE_SIZE = 1ULL << 23,
	PDFORMAT_SAMPLE_WEIGHT_STRUCT = 1ULL << 24,
};
#define PDFORMAT_SAMPLE_KNOWN_MASK	((1ULL << 25) - 1)

/* read_format bits. */
enum {
	PDFORMAT_FORMAT_TOTAL_TIME_ENABLED = 1 << 0,
	PDFORMAT_FORMAT_TOTAL_TIME_RUNNING = 1 << 1,
	PDFORMAT_FORMAT_ID = 1 << 2,
	PDFORMAT_FORMAT_GROUP = 1 << 3,
	PDFORMAT_FORMAT_LOST = 1 << 4,
};

/* branch_sample_type bits the sample parser needs. */
#define PDFORMAT_BRANCH_HW_INDEX	(1ULL << 17)
#define PDFORMAT_BRANCH_COUNTERS	(1ULL << 19)

/* attr flag bit numbers (bit n of the host-order flags word). */
enum {
	PDFORMAT_ATTR_FLAG_DISABLED = 0,
	PDFORMAT_ATTR_FLAG_INHERIT = 1,
	PDFORMAT_ATTR_FLAG_COMM = 9,
	PDFORMAT_ATTR_FLAG_FREQ = 10,
	PDFORMAT_ATTR_FLAG_ENABLE_ON_EXEC = 12,
	PDFORMAT_ATTR_FLAG_TASK = 13,
	PDFORMAT_ATTR_FLAG_SAMPLE_ID_ALL = 18,
	PDFORMAT_ATTR_FLAG_EXCLUDE_GUEST = 20,
	PDFORMAT_ATTR_FLAG_COMM_EXEC = 24,
	PDFORMAT_ATTR_FLAG_USE_CLOCKID = 25,
};

/* Attribute types. */
enum {
	PDFORMAT_TYPE_HARDWARE = 0,
	PDFORMAT_TYPE_SOFTWARE = 1,
	PDFORMAT_TYPE_TRACEPOINT = 2,
	PDFORMAT_TYPE_HW_CACHE = 3,
	PDFORMAT_TYPE_RAW = 4,
	PDFORMAT_TYPE_BREAKPOINT = 5,
	PDFORMAT_TYPE_SYNTH = 0x80000000u,	/* perf's synthesised events */
};

/* Feature bits. */
enum {
	PDFORMAT_FEAT_RESERVED = 0,
	PDFORMAT_FEAT_TRACING_DATA = 1,
	PDFORMAT_FEAT_BUILD_ID = 2,
	PDFORMAT_FEAT_HOSTNAME = 3,
	PDFORMAT_FEAT_OSRELEASE = 4,
	PDFORMAT_FEAT_VERSION = 5,
	PDFORMAT_FEAT_ARCH = 6,
	PDFORMAT_FEAT_NRCPUS = 7,
	PDFORMAT_FEAT_CPUDESC = 8,
	PDFORMAT_FEAT_CPUID = 9,
	PDFORMAT_FEAT_TOTAL_MEM = 10,
	PDFORMAT_FEAT_CMDLINE = 11,
	PDFORMAT_FEAT_EVENT_DESC = 12,
	PDFORMAT_FEAT_CPU_TOPOLOGY = 13,
	PDFORMAT_FEAT_NUMA_TOPOLOGY = 14,
	PDFORMAT_FEAT_BRANCH_STACK = 15,
	PDFORMAT_FEAT_PMU_MAPPINGS = 16,
	PDFORMAT_FEAT_GROUP_DESC = 17,
	PDFORMAT_FEAT_AUXTRACE = 18,
	PDFORMAT_FEAT_STAT = 19,
	PDFORMAT_FEAT_CACHE = 20,
	PDFORMAT_FEAT_SAMPLE_TIME = 21,
	PDFORMAT_FEAT_MEM_TOPOLOGY = 22,
	PDFORMAT_FEAT_CLOCKID = 23,
	PDFORMAT_FEAT_DIR_FORMAT = 24,
	PDFORMAT_FEAT_BPF_PROG_INFO = 25,
	PDFORMAT_FEAT_BPF_BTF = 26,
	PDFORMAT_FEAT_COMPRESSED = 27,
	PDFORMAT_FEAT_CPU_PMU_CAPS = 28,
	PDFORMAT_FEAT_CLOCK_DATA = 29,
	PDFORMAT_FEAT_HYBRID_TOPOLOGY = 30,
	PDFORMAT_FEAT_PMU_CAPS = 31,
	PDFORMAT_FEAT_LAST_KNOWN = 32,
	/* latscope's own features take the highest bits, counting down from
	 * 255: perf reads only the bits it knows (below its own last one) and
	 * skips the others' table slots, so a bit above every perf bit is
	 * never parsed by perf, now or when it adds features (docs/osnoise.md,
	 * "The parameters section"). */
	PDFORMAT_FEAT_LATSCOPE_OSNOISE = 255,
	/* what the kernel fired against what it delivered (base/firedtab.h) */
	PDFORMAT_FEAT_LATSCOPE_FIRED = 254,
};

/*
 * The LATSCOPE_OSNOISE feature: the parameters of a `latscope osnoise
 * record` run.  Every integer is in the byte order named by byte 4 ('l'
 * little-endian, 'B' big-endian; the writer uses the file's order):
 *
 *	off size
 *	  0   4  magic "LSOP"
 *	  4   1  byte order tag: 'l' or 'B'
 *	  5   1  0
 *	  6   2  u16 version (PDFORMAT_OSNP_VERSION)
 *	  8   4  u32 size of the whole section (PDFORMAT_OSNP_FIXED + 8 * words)
 *	 12   4  u32 words: u64 words of the CPU bitmap (1..PDFORMAT_OSNP_MAX_WORDS)
 *	 16   8  u64 threshold_us
 *	 24   8  u64 period_us
 *	 32   8  u64 runtime_us
 *	 40   8  u64 stop_us (0 = off)
 *	 48   8  u64 stop_total_us (0 = off)
 *	 56   8  u64 flags (PDFORMAT_OSNP_NO_WORKLOAD, PDFORMAT_OSNP_SOFTIRQ_IN_THREADS; other bits 0)
 *	 64 8*w  u64 cpu bitmap words: CPU n is bit n % 64 of word n / 64
 *
 * The reader refuses another version, another size, an unknown tag or flag.
 */
#define PDFORMAT_OSNP_MAGIC		"LSOP"
#define PDFORMAT_OSNP_VERSION	1
#define PDFORMAT_OSNP_FIXED		64
#define PDFORMAT_OSNP_MAX_WORDS	64		/* 4096 CPUs, as lib/base/parse.h */
#define PDFORMAT_OSNP_NO_WORKLOAD	0x1ull
#define PDFORMAT_OSNP_SOFTIRQ_IN_THREADS	0x2ull	/* recorded on PREEMPT_RT: softirqs are thread time */
#define PDFORMAT_OSNP_FLAGS		(PDFORMAT_OSNP_NO_WORKLOAD | PDFORMAT_OSNP_SOFTIRQ_IN_THREADS)

/* Its host-order contents. */
struct pdformat_osnp {
	uint16_t version;
	bool big_endian;		/* the tag read (or to write: ignored) */
	uint64_t threshold_us, period_us, runtime_us, stop_us, stop_total_us;
	uint64_t flags;
	uint64_t cpus[PDFORMAT_OSNP_MAX_WORDS];
};

/*
 * A latscope checkpoint (lib/format/pdwrite/pdwrite.c, pdwrite_checkpoint): a recording
 * readable at every moment of its writing, by perf too.  The header's
 * feature bitmap has bit 0 (RESERVED: perf has no handler for it and skips
 * its slot) set, and the feature table at data.offset + data.size is itself
 * a record perf ignores: slot 0's {u64 offset, u64 size} is that record's
 * 8-byte header {u32 type = PDFORMAT_RECORD_HEADER_EVENT_TYPE, u16 misc = 0,
 * u16 size} and the u64 PDFORMAT_CKPT_MAGIC (file byte order); then one
 * slot per other set bit, ascending; then the payloads the record carries
 * (slots point at them, or before the data section); zeros; and in its
 * last 32 bytes the header's feature bitmap (4 u64, file byte order).  Its
 * size is 8-aligned and at least PDFORMAT_CKPT_MIN_SIZE.  Data written
 * after the checkpoint follows the record, so the next checkpoint's data
 * section holds it as one more record readers skip; each of them is enough
 * to rebuild the header of its checkpoint (data size = its offset - data
 * offset, its bitmap).
 */
#define PDFORMAT_CKPT_MAGIC		0x313054504b43534cULL	/* "LSCKPT01" as a little-endian u64 */
#define PDFORMAT_CKPT_MIN_SIZE	80	/* perf's struct perf_record_header_event_type: a newer perf
					 * skips a smaller record of that type with a warning */

/* PERF_RECORD_AUX flags. */
#define PDFORMAT_AUX_FLAG_TRUNCATED	0x1
#define PDFORMAT_AUX_FLAG_OVERWRITE	0x2
#define PDFORMAT_AUX_FLAG_PARTIAL	0x4
#define PDFORMAT_AUX_FLAG_COLLISION	0x8

/* PERF_RECORD_AUXTRACE_ERROR (a user record: the recorder or a decoder says
 * what it lost): type, code, cpu, pid, tid, fmt (u32 each), ip, time (u64;
 * time only when fmt >= 1), msg[64] (NUL-terminated), and from fmt 2
 * machine_pid, vcpu (u32).  Offsets into the body (after the header). */
#define PDFORMAT_AUXERR_TYPE_ITRACE	1	/* perf counts these as trace errors */
#define PDFORMAT_AUXERR_MSG_OFF		40
#define PDFORMAT_AUXERR_MSG_LEN		64
#define PDFORMAT_AUXERR_BODY_FMT1	(PDFORMAT_AUXERR_MSG_OFF + PDFORMAT_AUXERR_MSG_LEN)	/* 104 */

/* AUXTRACE_INFO types. */
#define PDFORMAT_AUXTRACE_VPA_DTL	7

/* Size of the PERF_RECORD_AUXTRACE record itself (payload follows). */
#define PDFORMAT_AUXTRACE_RECORD_SIZE 48

/* cpumode in header.misc */
#define PDFORMAT_MISC_CPUMODE_MASK	7
#define PDFORMAT_MISC_KERNEL		1
#define PDFORMAT_MISC_USER		2

/*
 * struct pdformat_attr - perf_event_attr in host byte order.
 *
 * The reader zero-extends older (shorter) attrs and converts every field to
 * host order; flags holds bit n for flag n as numbered in the uapi header
 * (see PDFORMAT_ATTR_FLAG_*), whatever the writer's bitfield layout was.
 */
struct pdformat_attr {
	uint32_t type;
	uint32_t size;		/* attr.size as stored in the file (0 means VER0) */
	uint64_t config;
	uint64_t sample_period;	/* or sample_freq when the freq flag is set */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint16_t reserved_2;
	uint32_t aux_sample_size;
	uint32_t aux_action;
	uint64_t sig_data;
	uint64_t config3;
};

static inline int pdformat_attr_flag(const struct pdformat_attr *a, int bit)
{
	return (int)((a->flags >> bit) & 1);
}

#endif
