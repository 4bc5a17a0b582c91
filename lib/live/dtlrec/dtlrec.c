/* SPDX-License-Identifier: MIT */
/* dtlrec.c - record the DTL through the vpa_dtl PMU or debugfs (see dtlrec.h). */
/* Draining the rings, AUX and debugfs: dtlrec_drain.c; the shared state: dtlrec_int.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "format/dtl.h"
#include "dtlrec_int.h"
#include "base/firedtab.h"
#include "live/firecount.h"
#include "format/pdwrite.h"
#include "format/tracedata.h"

int dtlrec_seterr(struct dtlrec *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return err;
}

bool dtlrec_changed_setting(const struct dtlrec *r, const char **path, const char **restore)
{
	if (!r || !r->mask_path[0])
		return false;
	*path = r->mask_path;
	*restore = r->mask_old;
	return true;
}

const char *dtlrec_strerror(const struct dtlrec *r)
{
	return r ? r->err : "";
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

bool dtlrec_kvm_guest(const char *procfs)
{
	char path[4096], buf[256];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/device-tree/hypervisor/compatible", dtlrec_root(procfs, "/proc"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	/* a list of NUL-terminated strings (the kernel's is_kvm_guest() asks
	 * of_device_is_compatible(/hypervisor, "linux,kvm")) */
	for (ssize_t i = 0; i < n;) {
		size_t len = strnlen(buf + i, (size_t)(n - i));
		if (len == 9 && !memcmp(buf + i, "linux,kvm", 9))
			return true;
		i += (ssize_t)len + 1;
	}
	return false;
}

int dtlrec_read_pmu_type(const char *sysfs, uint32_t *type)
{
	char path[4096], buf[64];
	unsigned long v;
	char *end;
	int err;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/vpa_dtl/type", dtlrec_root(sysfs, "/sys"));
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	v = strtoul(buf, &end, 10);
	if (end == buf || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

int dtlrec_read_tb_freq(const char *procfs, uint64_t *hz)
{
	char path[4096], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpuinfo", dtlrec_root(procfs, "/proc"));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (!strncmp(line, "timebase", 8) && sscanf(line, "timebase%*[ \t]: %llu", &v) == 1 && v) {
			fclose(f);
			*hz = v;
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

int dtlrec_event_mask(const char *name, uint8_t *mask)
{
	static const struct { const char *n; uint8_t m; } t[] = {
		{ "dtl_cede", DTL_MASK_CEDE }, { "dtl_preempt", DTL_MASK_PREEMPT },
		{ "dtl_fault", DTL_MASK_FAULT }, { "dtl_all", DTL_MASK_ALL },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(name, t[i].n)) {
			*mask = t[i].m;
			return 0;
		}
	return -EINVAL;
}

static int cpus_online(const char *sysfs, struct parse_cpuset *out)
{
	char path[4096], buf[4096];
	int err;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", dtlrec_root(sysfs, "/sys"));
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	return parse_cpulist(buf, out);
}

static long sys_perf_event_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int pmu_error(struct dtlrec *r, int e, unsigned cpu)
{
	switch (e) {
	case ENODEV:
	case ENOENT:
		return dtlrec_seterr(r, -ENODEV, "vpa_dtl on CPU %u: %s: the PMU refuses here - it works only on a "
				   "shared-processor LPAR that is not a KVM guest (L1 host), and only on online CPUs",
				   cpu, strerror(e));
	case EBUSY:
		return dtlrec_seterr(r, -EBUSY, "vpa_dtl on CPU %u: the DTL is in use by another user "
				   "(a debugfs powerpc/dtl/cpu-N reader, /proc/powerpc/vcpudispatch_stats, or "
				   "another perf vpa_dtl session); stop it and retry", cpu);
	case EACCES:
	case EPERM:
		return dtlrec_seterr(r, -EACCES, "vpa_dtl on CPU %u: permission denied: run as root or with "
				   "CAP_PERFMON (the PMU requires perfmon_capable())", cpu);
	case EOPNOTSUPP:
		return dtlrec_seterr(r, -EOPNOTSUPP, "vpa_dtl on CPU %u: the PMU wants a sampling event "
				   "(a period, -c NS)", cpu);
	case EINVAL:
		return dtlrec_seterr(r, -EINVAL, "vpa_dtl on CPU %u: invalid configuration (the event must be "
				   "dtl_cede, dtl_preempt, dtl_fault or dtl_all)", cpu);
	default:
		return dtlrec_seterr(r, -e, "vpa_dtl on CPU %u: %s", cpu, strerror(e));
	}
}

static int map_ring(struct dtlrec *r, struct rcpu *c);

static int open_tracepoints(struct dtlrec *r, struct rcpu *c)
{
	for (size_t i = 0; i < r->o.nr_tracepoints; i++) {
		struct perf_event_attr a;
		long fd;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = r->tp_id[i];
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
		a.disabled = 1;
		a.sample_id_all = 1;
		a.exclude_guest = 1;
		a.comm = c->fd_main < 0;
		fd = sys_perf_event_open(&a, (int)c->cpu);
		if (fd < 0)
			return dtlrec_seterr(r, -errno, "perf_event_open(%s, cpu %u): %s%s", r->o.tracepoints[i],
					   c->cpu, strerror(errno),
					   errno == EACCES || errno == EPERM ? " (run as root or lower "
					   "/proc/sys/kernel/perf_event_paranoid)" : "");
		c->fd_tp[i] = (int)fd;
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &c->id_tp[i]) < 0)
			return dtlrec_seterr(r, -errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
		/* its counting twin, a member of its group: enabled and
		 * disabled with it (a twin that cannot be had: not counted) */
		if (r->counting) {
			int t = firecount_open(&a, (int)c->cpu, (int)fd);
			if (t < 0)
				r->counting = false;
			else
				c->fd_twin[i] = t;
		}
		if (c->fd_main < 0) {
			int err;
			c->fd_main = (int)fd;
			err = map_ring(r, c);	/* the ring must exist before SET_OUTPUT */
			if (err)
				return err;
		} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, c->fd_main) < 0)
			return dtlrec_seterr(r, -errno, "PERF_EVENT_IOC_SET_OUTPUT: %s", strerror(errno));
	}
	return 0;
}

static int map_ring(struct dtlrec *r, struct rcpu *c)
{
	size_t pages = r->o.ring_pages;

	if (!pages) {
		/* 512 KiB of data ring: 128 pages of 4 KiB, 8 of 64 KiB (ppc64) */
		pages = 1;
		while (pages * r->page < 512 * 1024)
			pages <<= 1;
	}

	if (c->fd_main < 0 || c->base)
		return 0;
	c->map_len = (1 + pages) * r->page;
	c->base = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd_main, 0);
	if (c->base == MAP_FAILED) {
		c->base = NULL;
		return dtlrec_seterr(r, -errno, "mmap of the %zu KiB ring of CPU %u: %s", pages * r->page / 1024,
				   c->cpu, strerror(errno));
	}
	if (perfring_init(&c->ring, c->base, r->page, pages * r->page, NULL) < 0)
		return dtlrec_seterr(r, -ENOMEM, "out of memory");
	if (c->fd_dtl >= 0) {
		struct perf_event_mmap_page *pg = c->base;
		c->aux_len = r->o.aux_bytes;
		pg->aux_offset = c->map_len;
		pg->aux_size = c->aux_len;
		c->aux = mmap(NULL, c->aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd_dtl,
			      (off_t)pg->aux_offset);
		if (c->aux == MAP_FAILED) {
			c->aux = NULL;
			return dtlrec_seterr(r, -errno, "mmap of the %zu KiB AUX buffer of CPU %u: %s", c->aux_len / 1024,
					   c->cpu, strerror(errno));
		}
	}
	return 0;
}

#if defined(__powerpc__) || defined(__powerpc64__)
static uint64_t mftb(void)
{
	uint64_t tb;
	__asm__ volatile("mfspr %0, 268" : "=r"(tb));
	return tb;
}
#endif

/*
 * Open CPU c's debugfs DTL file: the kernel registers the DTL with the
 * hypervisor at the open (its index restarts at 0) and unregisters it at
 * the close.  0 or negative errno, said.
 */
static int open_dbg_cpu(struct dtlrec *r, struct rcpu *c)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/powerpc/dtl/cpu-%u", dtlrec_root(r->o.debugfs, "/sys/kernel/debug"), c->cpu);
	c->dbg_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->dbg_fd < 0) {
		int e = errno;
		if (e == EBUSY)
			return dtlrec_seterr(r, -EBUSY, "%s: the DTL is in use (another reader of this file, "
					   "vcpudispatch_stats, or a perf vpa_dtl session)", path);
		return dtlrec_seterr(r, -e, "%s: %s%s", path, strerror(e),
				   e == EACCES || e == EPERM ? " (run as root)" : "");
	}
	return 0;
}

static int open_debugfs(struct dtlrec *r)
{
	char path[4096], buf[16];
	const char *dbg = dtlrec_root(r->o.debugfs, "/sys/kernel/debug");
	int fd, err;

	snprintf(path, sizeof(path), "%s/powerpc/dtl/dtl_event_mask", dbg);
	/* a setting of the system: read now, written back by dtlrec_close */
	char old[sizeof(r->mask_old)];
	if (read_small(path, old, sizeof(old)) < 0 || !old[0])
		old[0] = '\0';
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return dtlrec_seterr(r, -errno, "%s: %s%s", path, strerror(errno),
				   errno == EACCES || errno == EPERM ? " (run as root; debugfs may also be locked down)" : "");
	snprintf(buf, sizeof(buf), "0x%02x\n", r->o.mask);
	if (write(fd, buf, strlen(buf)) < 0) {
		err = -errno;
		close(fd);
		return dtlrec_seterr(r, err, "%s: cannot set the mask: %s", path, strerror(-err));
	}
	close(fd);
	if (old[0]) {
		snprintf(r->mask_path, sizeof(r->mask_path), "%s", path);
		memcpy(r->mask_old, old, sizeof(old));
	}
	err = dtlrec_read_tb_freq(r->o.procfs, &r->tb_freq);
	if (err)
		return dtlrec_seterr(r, err, "no 'timebase' line in %s/cpuinfo: cannot convert the timebase",
				   dtlrec_root(r->o.procfs, "/proc"));
	/* the kernel's buffer per CPU: a read of all but one of it is a lap */
	snprintf(path, sizeof(path), "%s/powerpc/dtl/dtl_buf_entries", dbg);
	FILE *bf = fopen(path, "re");
	unsigned long long be = 0;
	if (bf) {
		if (fscanf(bf, "%llu", &be) == 1 && be <= 1u << 20)
			r->dbg_entries = be;
		fclose(bf);
	}
	for (unsigned i = 0; i < r->nc; i++) {
		err = open_dbg_cpu(r, &r->c[i]);
		if (err)
			return err;
	}
	if (r->o.have_boot_tb) {
		r->boot_tb = r->o.boot_tb;
	} else {
#if defined(__powerpc__) || defined(__powerpc64__)
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t tb = mftb(), ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		r->boot_tb = tb - (uint64_t)((unsigned __int128)ns * r->tb_freq / 1000000000u);
		r->st.boot_tb_estimated = true;
#else
		r->boot_tb = 0;
		r->st.boot_tb_unknown = true;
#endif
	}
	return 0;
}

/* r->c: an rcpu per CPU of o->cpus (the online CPUs when it is empty), its
 * fds all -1.  0 or a negative errno (the error text set when the online
 * CPUs cannot be read). */
static int alloc_cpus(struct dtlrec *r, const struct dtlrec_opts *o)
{
	struct parse_cpuset cpus = o->cpus;
	int err;

	if (!parse_cpuset_count(&cpus)) {
		err = cpus_online(o->sysfs, &cpus);
		if (err)
			return dtlrec_seterr(r, err, "cannot read the online CPUs from %s/devices/system/cpu/online: %s",
					   dtlrec_root(o->sysfs, "/sys"), strerror(-err));
	}
	r->c = calloc(parse_cpuset_count(&cpus), sizeof(*r->c));
	if (!r->c)
		return -ENOMEM;
	for (unsigned cpu = 0; cpu < PARSE_MAX_CPUS; cpu++) {
		if (!parse_cpuset_has(&cpus, cpu))
			continue;
		struct rcpu *c = &r->c[r->nc++];
		c->cpu = cpu;
		c->fd_main = c->fd_dtl = c->dbg_fd = -1;
		for (int i = 0; i < MAX_TP; i++)
			c->fd_tp[i] = c->fd_twin[i] = -1;
	}
	return 0;
}

/* Which source: the vpa_dtl PMU (r->pmu, r->pmu_type) unless o->source
 * says debugfs, else debugfs's powerpc/dtl when o->source allows it.
 * 0, or -ENODEV with the error text saying why there is neither (a KVM
 * guest, a kernel without CONFIG_DTL, not POWER). */
static int pick_source(struct dtlrec *r, const struct dtlrec_opts *o)
{
	int err = o->source == DTLREC_DEBUGFS ? -ENOENT : dtlrec_read_pmu_type(o->sysfs, &r->pmu_type);
	if (!err) {
		r->pmu = true;
	} else if (o->source == DTLREC_PMU && dtlrec_kvm_guest(o->procfs)) {
		return dtlrec_seterr(r, -ENODEV, "no vpa_dtl PMU: this is a KVM guest (%s/device-tree/hypervisor is "
				   "\"linux,kvm\"), where the kernel does not offer it (only an LPAR's kernel does); here "
				   "the host's KVM writes the DTL and debugfs reads it (dtl record --debugfs-only, a "
				   "kernel with CONFIG_DTL)", dtlrec_root(o->procfs, "/proc"));
	} else if (o->source == DTLREC_PMU) {
		return dtlrec_seterr(r, -ENODEV, "no vpa_dtl PMU (%s/bus/event_source/devices/vpa_dtl): the kernel "
				   "lacks it (Linux 6.18+), or this is not a shared-processor LPAR, or it is a KVM guest",
				   dtlrec_root(o->sysfs, "/sys"));
	} else {
		char path[4096];
		struct stat sb;
		const char *dbg = dtlrec_root(o->debugfs, "/sys/kernel/debug");
		snprintf(path, sizeof(path), "%s/powerpc", dbg);
		/* debugfs's powerpc/ without dtl: a POWER kernel built without
		 * CONFIG_DTL (every Debian kernel), or not a shared-processor LPAR */
		bool ppc = stat(path, &sb) == 0;
		snprintf(path, sizeof(path), "%s/powerpc/dtl", dbg);
		bool dtl = stat(path, &sb) == 0;
		if (!dtl && dtlrec_kvm_guest(o->procfs))
			return dtlrec_seterr(r, -ENODEV, "no DTL source: this is a KVM guest, where the kernel offers "
					   "no vpa_dtl PMU, and there is no %s (%s): the DTL of a KVM guest is read "
					   "through debugfs, which needs a kernel built with CONFIG_DTL",
					   path, ppc ? "the kernel was built without CONFIG_DTL, as Debian's are"
						     : "no powerpc/ there: debugfs not mounted there");
		if (!dtl)
			return dtlrec_seterr(r, -ENODEV, "no DTL source: no vpa_dtl PMU in %s/bus/event_source/devices "
					   "(Linux 6.18+) and no %s (%s; the DTL exists only on POWER: a "
					   "shared-processor LPAR, or a KVM guest through debugfs)",
					   dtlrec_root(o->sysfs, "/sys"), path,
					   ppc ? "the kernel was built without CONFIG_DTL, as Debian's are, or this is not "
						 "a shared-processor LPAR"
					       : "no powerpc/ there: not POWER, or debugfs not mounted there");
	}
	return 0;
}

/* The formats of o's tracepoints (r->tf, freed by dtlrec_close) and their
 * ids (r->tp_id).  0 or a negative errno (the error text set). */
static int find_tracepoints(struct dtlrec *r, const struct dtlrec_opts *o)
{
	int err = tracedata_collect(o->tracefs_events, o->tracepoints, o->nr_tracepoints, &r->tf);
	if (err)
		return dtlrec_seterr(r, err, "cannot read the tracepoint formats (%s): is tracefs mounted?",
				   strerror(-err));
	for (size_t i = 0; i < o->nr_tracepoints; i++) {
		char sys[64], ev[128];
		if (sscanf(o->tracepoints[i], "%63[^:]:%127s", sys, ev) != 2)
			return dtlrec_seterr(r, -EINVAL, "%s: expected system:event", o->tracepoints[i]);
		const struct tracedata_event *te = tracedata_find(r->tf, sys, ev);
		if (!te)
			return dtlrec_seterr(r, -ENOENT, "no tracepoint %s", o->tracepoints[i]);
		r->tp_id[i] = te->id;
	}
	return 0;
}

/* The vpa_dtl event of c's CPU (disabled), its id and its mapped ring;
 * its fd is c's (fd_dtl, fd_main), closed by dtlrec_close also on
 * failure.  0 or a negative errno (the error text set). */
static int open_pmu_event(struct dtlrec *r, struct rcpu *c)
{
	struct perf_event_attr a;
	long fd;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = r->pmu_type;
	a.config = r->o.mask;
	a.sample_period = r->o.period_ns;
	a.sample_type = DTL_VPA_SAMPLE_TYPE;
	/* the enabled time tells a disabled event (a full AUX buffer) */
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	/* wake the reader at a quarter of the AUX buffer: the driver
	 * writes over what is unread, and stops at a full buffer */
	a.aux_watermark = (uint32_t)(r->o.aux_bytes / 4);
	a.disabled = 1;
	a.sample_id_all = 1;
	a.comm = 1;
	fd = sys_perf_event_open(&a, (int)c->cpu);
	if (fd < 0)
		return pmu_error(r, errno, c->cpu);
	c->fd_dtl = c->fd_main = (int)fd;
	if (ioctl((int)fd, PERF_EVENT_IOC_ID, &c->id_dtl) < 0)
		return dtlrec_seterr(r, -errno, "PERF_EVENT_IOC_ID: %s", strerror(errno));
	return map_ring(r, c);
}

/* Every step leaves what it opened in r, for the caller's dtlrec_close. */
int dtlrec_open(struct dtlrec **rp, const struct dtlrec_opts *o, const char *output)
{
	struct dtlrec *r = calloc(1, sizeof(*r));
	int err;

	*rp = r;
	if (!r)
		return -ENOMEM;
	r->o = *o;
	r->counting = true;	/* until a twin cannot be opened */
	if (!r->o.mask)
		r->o.mask = DTL_MASK_ALL;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	if (r->o.nr_tracepoints > MAX_TP)
		return dtlrec_seterr(r, -E2BIG, "at most %d tracepoints", MAX_TP);
	err = alloc_cpus(r, o);
	if (err)
		return err;
	r->st.cpus = r->nc;

	err = pick_source(r, o);
	if (err)
		return err;
	r->st.pmu = r->pmu;
	if (!r->o.period_ns)
		r->o.period_ns = r->pmu ? 1000000ULL : 10000000ULL;
	if (!r->o.aux_bytes)
		r->o.aux_bytes = 128 * 1024;	/* perf's default */

	if (r->o.nr_tracepoints) {
		err = find_tracepoints(r, o);
		if (err)
			return err;
	}

	for (unsigned i = 0; i < r->nc; i++) {
		struct rcpu *c = &r->c[i];
		if (r->pmu) {
			err = open_pmu_event(r, c);
			if (err)
				return err;
		}
		err = open_tracepoints(r, c);
		if (err)
			return err;
	}
	if (!r->pmu) {
		err = open_debugfs(r);
		if (err)
			return err;
	}
	return dtlrec_write_header(r, output);
}

bool dtlrec_cpu_stopped(const struct dtlrec *r, unsigned cpu)
{
	for (unsigned i = 0; i < r->nc; i++)
		if (r->c[i].cpu == cpu)
			return r->c[i].stopped;
	return false;
}

void dtlrec_get_stats(const struct dtlrec *r, struct dtlrec_stats *st)
{
	*st = r->st;
}

int dtlrec_enable(struct dtlrec *r)
{
	for (unsigned i = 0; i < r->nc; i++) {
		struct rcpu *c = &r->c[i];
		/* debugfs: the open in dtlrec_open claimed the DTL (a refusal
		 * comes before the file exists) and started the log; the
		 * recording starts now, so register it again: the entries of
		 * the set-up (the file's header, kallsyms, the task names:
		 * 0.84 s in a TCG guest, far more than the kernel's buffer of
		 * 85 entries holds) are not the recording's, and a first read
		 * would find them lapped */
		if (c->dbg_fd >= 0) {
			close(c->dbg_fd);
			int err = open_dbg_cpu(r, c);
			if (err)
				return err;
		}
		if (c->fd_dtl >= 0 && ioctl(c->fd_dtl, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return dtlrec_seterr(r, -errno, "enabling vpa_dtl on CPU %u: %s", c->cpu, strerror(errno));
		for (size_t t = 0; t < r->o.nr_tracepoints; t++)
			if (c->fd_tp[t] >= 0 && ioctl(c->fd_tp[t], PERF_EVENT_IOC_ENABLE, 0) < 0)
				return dtlrec_seterr(r, -errno, "enabling %s on CPU %u: %s", r->o.tracepoints[t],
						   c->cpu, strerror(errno));
	}
	r->enabled = true;
	return 0;
}

/* The window closed and the rings drained: what the tracepoints fired
 * against what was copied, into r->st and the file (LATSCOPE_FIRED). */
static void count_fired(struct dtlrec *r)
{
	struct firedtab t = { 0 };
	bool ok = r->counting && firedtab_alloc(&t, r->nc, r->nc * r->o.nr_tracepoints) == 0;
	size_t k = 0;

	r->st.tp_counted = false;
	for (unsigned i = 0; ok && i < r->nc; i++) {
		struct rcpu *c = &r->c[i];
		struct firedtab_cpu *fc = &t.cpu[i];
		fc->cpu = c->cpu;
		fc->lost = c->ring.st.lost;
		for (size_t tp = 0; ok && tp < r->o.nr_tracepoints; tp++) {
			struct firedtab_event *e = &t.ev[k++];
			uint64_t v = 0;
			ok = c->fd_twin[tp] >= 0 && firecount_read(c->fd_twin[tp], &v) == 0;
			e->config = r->tp_id[tp];
			e->cpu = c->cpu;
			e->fired = v;
			e->delivered = c->got_tp[tp];
			snprintf(e->name, sizeof(e->name), "%s", r->o.tracepoints[tp]);
			fc->fired += v;
			fc->samples += c->got_tp[tp];
		}
		/* (the ring's LOST records may count vpa_dtl samples too: taken
		 * off all the same, the figure is never too high) */
		if (fc->fired > fc->samples + fc->lost)
			fc->undelivered = fc->fired - fc->samples - fc->lost;
	}
	if (ok) {
		t.counted = true;
		t.throttles = r->st.throttles;
		r->st.tp_counted = true;
		r->st.tp_fired = firedtab_fired(&t);
		r->st.tp_undelivered = firedtab_undelivered(&t);
		if (r->w)
			pdwrite_set_fired(r->w, &t);	/* out of memory: the file without it */
	}
	firedtab_free(&t);
}

int dtlrec_close(struct dtlrec *r, struct dtlrec_stats *st)
{
	int err = 0;

	if (!r)
		return 0;
	if (r->w || r->o.sink)
		err = dtlrec_check_stopped(r);
	r->closing = true;
	for (unsigned i = 0; i < r->nc; i++) {
		struct rcpu *c = &r->c[i];
		if (c->fd_dtl >= 0)
			ioctl(c->fd_dtl, PERF_EVENT_IOC_DISABLE, 0);
		for (size_t t = 0; t < MAX_TP; t++)
			if (c->fd_tp[t] >= 0)
				ioctl(c->fd_tp[t], PERF_EVENT_IOC_DISABLE, 0);
	}
	if ((r->w || r->o.sink) && r->enabled && !err)
		err = dtlrec_drain_all(r);
	if (r->enabled && r->o.nr_tracepoints)
		count_fired(r);
	if (r->w) {
		int cerr = pdwrite_close(r->w);
		if (!err)
			err = cerr;
	}
	for (unsigned i = 0; i < r->nc; i++) {
		struct rcpu *c = &r->c[i];
		if (c->aux)
			munmap(c->aux, c->aux_len);
		perfring_fini(&c->ring);
		if (c->base)
			munmap(c->base, c->map_len);
		if (c->fd_dtl >= 0)
			close(c->fd_dtl);
		for (size_t t = 0; t < MAX_TP; t++) {
			if (c->fd_tp[t] >= 0)
				close(c->fd_tp[t]);
			if (c->fd_twin[t] >= 0)
				close(c->fd_twin[t]);
		}
		if (c->dbg_fd >= 0)
			close(c->dbg_fd);
	}
	if (r->mask_path[0]) {
		/* after the cpu-N files are closed: the mask is read at their open */
		int fd = open(r->mask_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		int werr = fd < 0 ? -errno : 0;
		if (fd >= 0 && write(fd, r->mask_old, strlen(r->mask_old)) < 0)
			werr = -errno;
		if (fd >= 0)
			close(fd);
		if (werr && !err)
			err = dtlrec_seterr(r, werr, "%s: cannot restore the mask %s: %s", r->mask_path, r->mask_old,
					  strerror(-werr));
	}
	if (st)
		*st = r->st;
	tracedata_free(r->tf);
	free(r->c);
	free(r->tmp);
	free(r);
	return err;
}
