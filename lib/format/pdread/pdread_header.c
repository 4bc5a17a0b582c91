/* SPDX-License-Identifier: MIT */
/*
 * pdread_header.c - the perf.data reader's file header and feature sections.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "base/bytes.h"
#include "pdread_int.h"

/* --------------------------------------------------------------- features */

struct fcur {
	const uint8_t *p, *end;
	bool swap;
	bool bad;
};

static uint32_t f_u32(struct fcur *c)
{
	if (c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	uint32_t v = bytes_ld32(c->p, c->swap);
	c->p += 4;
	return v;
}

static uint64_t f_u64(struct fcur *c)
{
	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	uint64_t v = bytes_ld64(c->p, c->swap);
	c->p += 8;
	return v;
}

/* perf string: u32 len (padded), then len bytes, NUL-terminated within. */
static char *f_str(struct fcur *c)
{
	uint32_t len = f_u32(c);
	if (c->bad || (uint64_t)(c->end - c->p) < len) {
		c->bad = true;
		return NULL;
	}
	char *s = malloc((size_t)len + 1);
	if (!s) {
		c->bad = true;
		return NULL;
	}
	memcpy(s, c->p, len);
	s[len] = '\0';
	c->p += len;
	return s;
}

static const char *keep_str(struct pdread *r, char *s)
{
	if (!s)
		return NULL;
	if (r->nr_strs == sizeof(r->strs) / sizeof(r->strs[0])) {
		free(s);
		return NULL;
	}
	r->strs[r->nr_strs++] = s;
	return s;
}

static int parse_event_desc(struct pdread *r, struct fcur *c)
{
	uint32_t nr = f_u32(c);
	uint32_t asz = f_u32(c);
	if (c->bad || asz < PDFORMAT_ATTR_VER0 || asz > 4096)
		return -EINVAL;
	for (uint32_t i = 0; i < nr; i++) {
		if ((size_t)(c->end - c->p) < asz)
			return -EINVAL;
		c->p += asz;
		uint32_t nr_ids = f_u32(c);
		char *name = f_str(c);
		if (c->bad) {
			free(name);
			return -EINVAL;
		}
		if ((uint64_t)nr_ids * 8 > (uint64_t)(c->end - c->p)) {
			free(name);
			return -EINVAL;
		}
		struct pdread_evsel *target = NULL;
		if (nr_ids) {
			int idx = pdread_idmap_get(r, bytes_ld64(c->p, c->swap));
			if (idx >= 0)
				target = &r->evsels[idx];
		} else if (i < r->nr_evsels && !r->evsels[i].nr_ids) {
			target = &r->evsels[i];
		}
		c->p += (size_t)nr_ids * 8;
		if (target && !target->name)
			target->name = name;
		else
			free(name);
	}
	return 0;
}

/* CMDLINE: perf's argv, joined by spaces into in->cmdline. */
static void feat_cmdline(struct pdread *r, struct fcur *c)
{
	uint32_t n = f_u32(c);
	size_t cap = 1, used = 0;
	char *all = calloc(1, 1);
	for (uint32_t i = 0; i < n && !c->bad && all; i++) {
		char *a = f_str(c);
		if (!a)
			break;
		size_t l = strlen(a);
		char *na = realloc(all, cap + l + 1);
		if (!na) {
			free(a);
			break;
		}
		all = na;
		cap += l + 1;
		if (used)
			all[used++] = ' ';
		memcpy(all + used, a, l);
		used += l;
		all[used] = '\0';
		free(a);
	}
	r->info.cmdline = keep_str(r, all);
}

/* CPU_TOPOLOGY: the string lists skipped, then per CPU its core and socket
 * ids; later parts are optional and vary by version (never malformed). */
static void feat_cpu_topology(struct pdread *r, struct fcur *c)
{
	struct pdread_info *in = &r->info;

	/* string lists (sockets, cores/threads), then per-cpu core and socket ids */
	for (int list = 0; list < 2 && !c->bad; list++) {
		uint32_t n = f_u32(c);
		for (uint32_t i = 0; i < n && !c->bad; i++)
			free(f_str(c));
	}
	uint32_t ncpu = in->nr_cpus_avail;
	if (!c->bad && ncpu && (uint64_t)(c->end - c->p) >= (uint64_t)ncpu * 8 && ncpu <= 65536) {
		free(r->core_id);
		free(r->socket_id);
		r->core_id = malloc(ncpu * sizeof(uint32_t));
		r->socket_id = malloc(ncpu * sizeof(uint32_t));
		if (r->core_id && r->socket_id) {
			for (uint32_t i = 0; i < ncpu; i++) {
				r->core_id[i] = f_u32(c);
				r->socket_id[i] = f_u32(c);
			}
			in->nr_core_ids = ncpu;
			in->core_id = r->core_id;
			in->socket_id = r->socket_id;
		}
	}
	c->bad = false;	/* later parts are optional and vary by version */
}

/* PMU_MAPPINGS: type and name of each PMU; a repeated section (pipe mode)
 * replaces the earlier one.  0 or -ENOMEM. */
static int feat_pmu_mappings(struct pdread *r, struct fcur *c)
{
	struct pdread_info *in = &r->info;

	uint32_t n = f_u32(c);
	if (c->bad || n > 4096)
		return 0;
	if (r->pmu_name)
		for (size_t i = 0; i < in->nr_pmus; i++)
			free(r->pmu_name[i]);
	free(r->pmu_name);
	free(r->pmu_type);
	in->nr_pmus = 0;
	in->pmu_type = NULL;
	in->pmu_name = NULL;
	r->pmu_type = calloc(n ? n : 1, sizeof(uint32_t));
	r->pmu_name = calloc(n ? n : 1, sizeof(char *));
	if (!r->pmu_type || !r->pmu_name)
		return -ENOMEM;
	uint32_t i;
	for (i = 0; i < n && !c->bad; i++) {
		r->pmu_type[i] = f_u32(c);
		r->pmu_name[i] = f_str(c);
		if (!r->pmu_name[i])
			break;
	}
	in->nr_pmus = i;	/* names 0..i-1 are owned; a failed one is NULL */
	in->pmu_type = r->pmu_type;
	in->pmu_name = (const char *const *)r->pmu_name;
	return 0;
}

/* AUXTRACE: the index of the AUX buffers, read on demand
 * (pdread_auxtrace_index); a damaged one is said in
 * in->auxtrace_index_damaged, not fatal. */
static void feat_auxtrace(struct pdread *r, struct fcur *c, uint64_t off)
{
	struct pdread_info *in = &r->info;

	uint64_t n = f_u64(c);
	if (c->bad || n > (uint64_t)(c->end - c->p) / 16) {
		/* not fatal: the AUX data can still be found in the data
		 * section; the caller decides (see auxtrace_index_damaged) */
		snprintf(in->auxtrace_index_damaged, sizeof(in->auxtrace_index_damaged),
			 "AUXTRACE index at %#llx claims %llu entries but holds %llu",
			 (unsigned long long)off, (unsigned long long)n,
			 c->bad ? 0ULL : (unsigned long long)((c->end - c->p) / 16));
		in->nr_auxtrace_index = 0;
		return;
	}
	/* entries are read on demand (pdread_auxtrace_index): memory does not
	 * grow with the number of AUX chunks */
	in->nr_auxtrace_index = (size_t)n;
	r->aux_index_off = off + 8;
}

/* LATSCOPE_FIRED (bit 254): latscope's table of the events that fired,
 * decoded into r->info.fired (which owns it).  A damaged table fails the
 * read at the offset of its first bad byte. */
static int feat_latscope_fired(struct pdread *r, const uint8_t *p, uint64_t len, uint64_t off)
{
	size_t bad;
	const char *why;
	int ferr = firedtab_decode(p, (size_t)len, &r->info.fired, &bad, &why);
	if (ferr)
		return pdread_fail(r, ferr, off + bad, "LATSCOPE_FIRED feature (bit 254): %s",
				 ferr == -ENOMEM ? "out of memory" : why);
	return 0;
}

int pdread_parse_feature(struct pdread *r, int feat, const uint8_t *p, uint64_t len, uint64_t off)
{
	struct fcur c = { .p = p, .end = p + len, .swap = r->swap };
	struct pdread_info *in = &r->info;
	int err = 0;

	if (feat >= 0 && feat < PDFORMAT_FEAT_BITS)
		in->feat_bits[feat / 64] |= 1ULL << (feat % 64);
	switch (feat) {
	case PDFORMAT_FEAT_TRACING_DATA:
		if (r->opts.no_tracing_data)
			return 0;
		err = pdread_parse_tracing_data(r, p, len, off);
		if (!err)
			pdread_bind_tracepoints(r);
		return err;
	case PDFORMAT_FEAT_HOSTNAME:
		in->hostname = keep_str(r, f_str(&c));
		break;
	case PDFORMAT_FEAT_OSRELEASE:
		in->osrelease = keep_str(r, f_str(&c));
		break;
	case PDFORMAT_FEAT_VERSION:
		in->version = keep_str(r, f_str(&c));
		break;
	case PDFORMAT_FEAT_ARCH:
		in->arch = keep_str(r, f_str(&c));
		break;
	case PDFORMAT_FEAT_CPUDESC:
		in->cpudesc = keep_str(r, f_str(&c));
		break;
	case PDFORMAT_FEAT_CPUID:
		in->cpuid = keep_str(r, f_str(&c));
		break;
	case PDFORMAT_FEAT_NRCPUS:
		in->nr_cpus_avail = f_u32(&c);
		in->nr_cpus_online = f_u32(&c);
		break;
	case PDFORMAT_FEAT_TOTAL_MEM:
		in->total_mem_kb = f_u64(&c);
		break;
	case PDFORMAT_FEAT_CMDLINE:
		feat_cmdline(r, &c);
		break;
	case PDFORMAT_FEAT_BUILD_ID:	/* kept as it is; pdread_build_id() reads it */
		if (len <= (16u << 20) && !r->build_ids && (r->build_ids = malloc(len ? len : 1))) {
			memcpy(r->build_ids, p, len);
			r->build_ids_len = len;
		}
		break;
	case PDFORMAT_FEAT_EVENT_DESC:
		if (parse_event_desc(r, &c))
			c.bad = true;
		break;
	case PDFORMAT_FEAT_CPU_TOPOLOGY:
		feat_cpu_topology(r, &c);
		break;
	case PDFORMAT_FEAT_PMU_MAPPINGS:
		err = feat_pmu_mappings(r, &c);
		if (err)
			return err;
		break;
	case PDFORMAT_FEAT_AUXTRACE:
		feat_auxtrace(r, &c, off);
		break;
	case PDFORMAT_FEAT_SAMPLE_TIME:
		in->first_sample_time = f_u64(&c);
		in->last_sample_time = f_u64(&c);
		break;
	case PDFORMAT_FEAT_CLOCK_DATA:
		in->clock_data_version = f_u32(&c);
		in->clockid = f_u32(&c);
		in->wall_clock_ns = f_u64(&c);
		in->clockid_time_ns = f_u64(&c);
		in->has_clock_data = !c.bad;
		break;
	case PDFORMAT_FEAT_COMPRESSED:
		in->comp_version = f_u32(&c);
		in->comp_type = f_u32(&c);
		in->comp_level = f_u32(&c);
		in->comp_ratio = f_u32(&c);
		in->comp_mmap_len = f_u32(&c);
		in->has_compressed = !c.bad;
		break;
	case PDFORMAT_FEAT_LATSCOPE_OSNOISE:
		return pdread_parse_osnp(r, p, len, off);
	case PDFORMAT_FEAT_LATSCOPE_FIRED:
		return feat_latscope_fired(r, p, len, off);
	default:
		return 0;	/* known but not needed, or unknown: skipped */
	}
	if (c.bad)
		return pdread_fail(r, -EINVAL, off, "feature %d section is malformed", feat);
	return 0;
}

/* The feature table at offset table: a slot per set bit, ascending; bit 0
 * (RESERVED) has no section to read (a latscope checkpoint's table record
 * puts its own header there). */
static int read_features(struct pdread *r, const uint64_t bits[4], uint64_t table)
{
	int nr = 0;
	for (int b = 0; b < PDFORMAT_FEAT_BITS; b++)
		nr += (int)((bits[b / 64] >> (b % 64)) & 1);
	int slot = (int)(bits[0] & 1);
	uint8_t *buf = NULL;
	int err = 0;
	/* TRACING_DATA must be bound after EVENT_DESC names (names win). */
	for (int b = 1; b < PDFORMAT_FEAT_BITS && slot < nr; b++) {
		if (!((bits[b / 64] >> (b % 64)) & 1))
			continue;
		uint8_t ent[16];
		uint64_t toff = table + 16ULL * (uint64_t)slot++;
		if (pdread_read_at(r, toff, ent, 16)) {
			err = pdread_fail(r, -EINVAL, toff, "feature table is truncated");
			break;
		}
		uint64_t foff = bytes_ld64(ent, r->swap), fsz = bytes_ld64(ent + 8, r->swap);
		if (fsz > MAX_FEATURE || (r->info.file_size && (foff > r->info.file_size ||
								fsz > r->info.file_size - foff))) {
			err = pdread_fail(r, -EINVAL, toff, "feature %d section (offset %#llx, size %llu) is outside the file",
					b, (unsigned long long)foff, (unsigned long long)fsz);
			break;
		}
		if (r->mem) {
			/* in memory or mapped: parse in place */
			err = pdread_parse_feature(r, b, r->mem + foff, fsz, foff);
			if (err)
				break;
			continue;
		}
		uint8_t *nb = realloc(buf, fsz ? (size_t)fsz : 1);
		if (!nb) {
			err = -ENOMEM;
			break;
		}
		buf = nb;
		if (pdread_read_at(r, foff, buf, (size_t)fsz)) {
			err = pdread_fail(r, -EINVAL, foff, "feature %d section is truncated", b);
			break;
		}
		err = pdread_parse_feature(r, b, buf, fsz, foff);
		if (err)
			break;
	}
	free(buf);
	return err;
}

/* ----------------------------------------------------------------- header */

/* Whether the feature table at offset table is a latscope checkpoint's
 * table record (pdformat.h): bit 0 set, slot 0 = {HEADER_EVENT_TYPE header,
 * magic}, the record holds every slot, lies inside the file and ends with
 * the header's bitmap. */
static bool is_checkpoint_table(struct pdread *r, const uint64_t bits[4], uint64_t table)
{
	uint8_t h[16], rb[32];
	uint64_t nr = 0, fs = r->info.file_size;
	if (!(bits[0] & 1) || table > fs || fs - table < sizeof(h) || pdread_read_at(r, table, h, sizeof(h)))
		return false;
	for (int i = 0; i < 4; i++)
		nr += (uint64_t)__builtin_popcountll(bits[i]);
	uint16_t rsize = bytes_ld16(h + 6, r->swap);
	if (bytes_ld32(h, r->swap) != PDFORMAT_RECORD_HEADER_EVENT_TYPE || bytes_ld64(h + 8, r->swap) != PDFORMAT_CKPT_MAGIC ||
	    rsize % 8 || rsize < 16 * nr + sizeof(rb) || rsize > fs - table ||
	    pdread_read_at(r, table + rsize - sizeof(rb), rb, sizeof(rb)))
		return false;
	for (int i = 0; i < 4; i++)
		if (bytes_ld64(rb + 8 * i, r->swap) != bits[i])
			return false;
	return true;
}

/* The attrs section: an evsel per attr, with its ids.  0, or a negative
 * errno (pdread_fail said where). */
static int read_attrs(struct pdread *r, uint64_t attrs_off, uint64_t attrs_size, uint64_t attr_size)
{
	uint64_t fs = r->info.file_size;
	uint64_t n = attrs_size / attr_size;
	uint8_t *ab = malloc((size_t)attr_size);
	uint8_t *ids = NULL;
	if (!ab)
		return -ENOMEM;
	int err = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = attrs_off + i * attr_size;
		if (pdread_read_at(r, off, ab, (size_t)attr_size)) {
			err = pdread_fail(r, -EINVAL, off, "attr %llu is truncated", (unsigned long long)i);
			break;
		}
		struct pdformat_attr a;
		if (pdread_decode_attr(ab, (size_t)attr_size - 16, r->swap, &a, NULL)) {
			err = pdread_fail(r, -EINVAL, off, "attr %llu has size %u, larger than its %llu-byte slot",
					(unsigned long long)i, a.size, (unsigned long long)attr_size - 16);
			break;
		}
		uint64_t ids_off = bytes_ld64(ab + attr_size - 16, r->swap);
		uint64_t ids_size = bytes_ld64(ab + attr_size - 8, r->swap);
		if (ids_size > 8ULL * MAX_IDS || ids_off > fs || ids_size > fs - ids_off) {
			err = pdread_fail(r, -EINVAL, off + attr_size - 16, "ids of attr %llu are outside the file",
					(unsigned long long)i);
			break;
		}
		uint8_t *nids = realloc(ids, ids_size ? (size_t)ids_size : 1);
		if (!nids) {
			err = -ENOMEM;
			break;
		}
		ids = nids;
		if (ids_size && pdread_read_at(r, ids_off, ids, (size_t)ids_size)) {
			err = pdread_fail(r, -EINVAL, ids_off, "ids of attr %llu are truncated", (unsigned long long)i);
			break;
		}
		err = pdread_add_evsel(r, &a, ids, (size_t)(ids_size / 8), off);
		if (err)
			break;
	}
	free(ab);
	free(ids);
	return err;
}

/* The feature bits of a 104-byte header h (a 72-byte one has none): a
 * 32-bit big-endian writer's unsigned long words are u32, and bits that
 * make no sense either way (no HOSTNAME) are none. */
static void header_feature_bits(const struct pdread *r, const uint8_t *h, uint64_t bits[4])
{
	for (int i = 0; i < 4; i++)
		bits[i] = bytes_ld64(h + 72 + 8 * i, r->swap);
	if (r->swap && !(bits[0] & (1ULL << PDFORMAT_FEAT_HOSTNAME))) {
		/* a 32-bit big-endian writer: unsigned long words are u32 */
		for (int i = 0; i < 4; i++) {
			uint32_t lo = bytes_ld32(h + 72 + 8 * i, true), hi = bytes_ld32(h + 76 + 8 * i, true);
			bits[i] = (uint64_t)lo | ((uint64_t)hi << 32);
		}
		if (!(bits[0] & (1ULL << PDFORMAT_FEAT_HOSTNAME)))
			memset(bits, 0, 4 * sizeof(bits[0]));
	}
}

static int read_file_header(struct pdread *r)
{
	uint8_t h[PDFORMAT_FILE_HEADER_SIZE];
	memset(h, 0, sizeof(h));
	if (pdread_read_at(r, 0, h, 16))
		return pdread_fail(r, -EINVAL, 0, "file is too short for a perf.data header");
	uint64_t size = bytes_ld64(h + 8, r->swap);
	if (size != PDFORMAT_FILE_HEADER_SIZE && size != PDFORMAT_FILE_HEADER_SIZE_OLD)
		return pdread_fail(r, -EINVAL, 8, "header size %llu is neither 104 nor 72", (unsigned long long)size);
	if (pdread_read_at(r, 0, h, (size_t)size))
		return pdread_fail(r, -EINVAL, 0, "file is too short for its %llu-byte header", (unsigned long long)size);
	uint64_t attr_size = bytes_ld64(h + 16, r->swap);
	uint64_t attrs_off = bytes_ld64(h + 24, r->swap), attrs_size = bytes_ld64(h + 32, r->swap);
	uint64_t data_off = bytes_ld64(h + 40, r->swap), data_size = bytes_ld64(h + 48, r->swap);
	uint64_t fs = r->info.file_size;
	if (attr_size < PDFORMAT_ATTR_VER0 + 16 || attr_size > 4096)
		return pdread_fail(r, -EINVAL, 16, "attr_size %llu is not a perf_event_attr size", (unsigned long long)attr_size);
	if (attrs_off < size || data_off < size)
		return pdread_fail(r, -EINVAL, 24, "sections overlap the header");
	if (attrs_off > fs || attrs_size > fs - attrs_off)
		return pdread_fail(r, -EINVAL, 24, "attrs section (offset %#llx, size %llu) is outside the file",
				 (unsigned long long)attrs_off, (unsigned long long)attrs_size);
	if (data_off > fs || data_size > fs - data_off)
		return pdread_fail(r, -EINVAL, 40, "data section (offset %#llx, size %llu) is outside the %llu-byte file; the file is truncated",
				 (unsigned long long)data_off, (unsigned long long)data_size, (unsigned long long)fs);
	if (attrs_size && data_size && attrs_off < data_off + data_size && data_off < attrs_off + attrs_size)
		return pdread_fail(r, -EINVAL, 24, "attrs and data sections overlap");
	uint64_t bits[4] = { 0 };
	if (size == PDFORMAT_FILE_HEADER_SIZE)
		header_feature_bits(r, h, bits);
	/* A checkpoint header (pdwrite_checkpoint) of a writer that was
	 * killed: what it wrote after the checkpoint is read too.  Today's
	 * checkpoints end their data with a feature table that is a record
	 * (pdformat.h, PDFORMAT_CKPT_MAGIC); older ones had no feature at all
	 * (every finished perf.data has some: perf writes several, latscope at
	 * least HOSTNAME) and their features as records at the data start. */
	uint64_t table = data_off + data_size;
	bool ckpt_table = is_checkpoint_table(r, bits, table);
	if (!data_size && !ckpt_table)
		memset(bits, 0, sizeof(bits));	/* perf's own killed file: no feature section */
	bool no_feats = !(bits[0] | bits[1] | bits[2] | bits[3]);
	if ((data_size && no_feats && size == PDFORMAT_FILE_HEADER_SIZE) || ckpt_table) {
		r->info.checkpoint_size = data_size;
		r->info.checkpoint_table = ckpt_table;
		data_size = 0;
	}
	bool unterminated = data_size == 0;
	if (unterminated) {
		/* the writer died before it wrote the header back (perf: "Was the
		 * 'perf record' command properly terminated?"): like perf, read
		 * up to the end of the file; no feature section was written
		 * after the data (a checkpoint's features are in its table) */
		if (data_off >= fs)
			return pdread_fail(r, -EINVAL, 48, "data size is 0 and nothing follows the header: the "
					 "recording was not properly terminated and holds no data");
		data_size = fs - data_off;
		r->info.unterminated = true;
	}
	r->info.data_offset = data_off;
	r->info.data_size = data_size;

	int err = read_attrs(r, attrs_off, attrs_size, attr_size);
	if (err)
		return err;
	err = read_features(r, bits, table);
	if (err)
		return err;
	pdread_bind_tracepoints(r);
	r->end = data_off + data_size;
	if (!r->mem && lseek(r->fd, (off_t)data_off, SEEK_SET) < 0)
		return pdread_fail(r, -errno, data_off, "cannot seek to the data section");
	r->buf_off = data_off;
	r->buf_pos = r->buf_len = 0;
	if (r->mem) {
		r->buf = (uint8_t *)r->mem + data_off;
		r->buf_len = (size_t)data_size;
	}
	return 0;
}

static int detect_magic(struct pdread *r, const uint8_t m[8])
{
	uint64_t v = bytes_ld64(m, false);
	if (v == PDFORMAT_MAGIC2) {
		r->swap = false;
	} else if (v == __builtin_bswap64(PDFORMAT_MAGIC2)) {
		r->swap = true;
	} else if (v == PDFORMAT_MAGIC1 || v == __builtin_bswap64(PDFORMAT_MAGIC1)) {
		return pdread_fail(r, -ENOTSUP, 0, "version-1 perf.data (PERFFILE magic) is not supported; "
				 "convert it with a newer perf");
	} else {
		return pdread_fail(r, -EINVAL, 0, "not a perf.data file (bad magic)");
	}
	r->info.needs_swap = r->swap;
	r->info.big_endian = r->swap != (bool)BYTES_HOST_BIG_ENDIAN;
	return 0;
}

int pdread_open_common(struct pdread *r)
{
	uint8_t h[16];
	if (r->mem) {
		if (r->mem_len < 16)
			return pdread_fail(r, -EINVAL, 0, "input is too short for a perf.data header");
		memcpy(h, r->mem, 16);
		r->info.file_size = r->mem_len;
	} else {
		struct stat st;
		if (fstat(r->fd, &st) < 0)
			return pdread_fail(r, -errno, 0, "cannot stat");
		r->info.pipe = !S_ISREG(st.st_mode) || lseek(r->fd, 0, SEEK_CUR) < 0;
		if (!r->info.pipe)
			r->info.file_size = (uint64_t)st.st_size;
		/* Regular files are mapped: no copy of records or AUX payloads;
		 * consumed pages are released as reading goes on (bounded RSS).
		 * opts.no_map reads them with read(2) into a reused window
		 * instead: for a pass that touches every byte once that wins on
		 * VMs, where faulting a mapping in page by page costs five times
		 * the copy (measured: 0.43 s against 0.07 s to walk 1 GB). */
		if (!r->info.pipe && st.st_size >= 16 && (uint64_t)st.st_size <= SIZE_MAX && !r->opts.no_map) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
			if (m != MAP_FAILED) {
				madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
				r->mapped = true;
				r->mem = m;
				r->mem_len = (size_t)st.st_size;
				return pdread_open_common(r);
			}
		}
		r->in_blk = pdread_block_get(r, IN_BUF_SIZE);
		if (!r->in_blk)
			return -ENOMEM;
		r->buf = r->in_blk->data;
		r->buf_cap = r->in_blk->cap;
		r->end = UINT64_MAX;
		if (r->info.pipe) {
			ssize_t a = pdread_in_need(r, 16);
			if (a < 0)
				return pdread_fail(r, (int)a, 0, "cannot read");
			if (a < 16)
				return pdread_fail(r, -EINVAL, 0, "input is too short for a perf.data header");
			memcpy(h, r->buf, 16);
		} else if (pdread_read_at(r, 0, h, 16)) {
			return pdread_fail(r, -EINVAL, 0, "file is too short for a perf.data header");
		}
	}
	int err = detect_magic(r, h);
	if (err)
		return err;
	uint64_t hsize = bytes_ld64(h + 8, r->swap);
	if (hsize == PDFORMAT_PIPE_HEADER_SIZE) {
		/* pipe-mode stream (also valid in a regular file) */
		r->info.pipe = true;
		r->info.data_offset = 16;
		if (r->mem) {
			r->buf = (uint8_t *)r->mem;
			r->buf_len = r->mem_len;
			r->buf_pos = 16;
			r->end = r->mem_len;
		} else if (r->buf_len >= 16 && r->buf_off == 0) {
			r->buf_pos = 16;
		} else {
			if (lseek(r->fd, 16, SEEK_SET) < 0)
				return pdread_fail(r, -errno, 0, "cannot seek");
			r->buf_off = 16;
		}
		return 0;
	}
	if (r->info.pipe)
		return pdread_fail(r, -EINVAL, 8, "a file-mode perf.data cannot be read from a pipe; give its path");
	return read_file_header(r);
}

/*
 * BUILD_ID entries: u32 type, u16 misc, u16 size, s32 pid, 24 bytes of
 * build-id (with misc bit 15 the length in byte 20, else 20 bytes), the file
 * name (NUL-padded) to the entry's size.
 */
bool pdread_build_id(const struct pdread *r, const char *path, char *hex)
{
	size_t off = 0, pl = strlen(path);
	while (r->build_ids && r->build_ids_len - off >= 36) {
		const uint8_t *e = r->build_ids + off;
		uint16_t misc = bytes_ld16(e + 4, r->swap), size = bytes_ld16(e + 6, r->swap);
		if (size < 36 || size > r->build_ids_len - off)
			return false;
		const char *name = (const char *)e + 36;
		size_t nl = strnlen(name, size - 36u);
		if (nl == pl && !memcmp(name, path, pl)) {
			size_t bl = (misc & (1u << 15)) ? e[32] : 20;
			if (bl == 0 || bl > 20)
				return false;
			for (size_t i = 0; i < bl; i++)
				sprintf(hex + 2 * i, "%02x", e[12 + i]);
			return true;
		}
		off += size;
	}
	return false;
}
