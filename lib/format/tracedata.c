/* SPDX-License-Identifier: MIT */
/*
 * tracedata.c - tracepoint format collection (libtracefs) and the
 * tracing-data blob (through pdwrite_tracing_data_build()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "format/pdwrite.h"
#include "format/tracedata.h"

#define TRACEDATA_MAX_FILE	(16u << 20)	/* bound on one text file we read */

/* Read a whole (possibly size-less, like tracefs) file; NUL-terminated. */
static int read_text(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int err = 0;
	while (buf) {
		if (len + 1 >= cap) {
			if (cap >= TRACEDATA_MAX_FILE) {
				err = -EFBIG;
				break;
			}
			char *n = realloc(buf, cap * 2);
			if (!n) {
				err = -ENOMEM;
				break;
			}
			buf = n;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - 1 - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_list(char **l)
{
	for (size_t i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

/* Sub-directories of dir (that contain `need`, if not NULL), sorted; a
 * NULL-terminated malloc'd list. */
static int list_dirs(const char *dir, const char *need, char ***out)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	size_t n = 0, cap = 16;
	char **l = malloc(cap * sizeof(*l));
	struct dirent *de;
	int err = 0;
	while (l && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096];
		struct stat st;
		int k = need ? snprintf(path, sizeof(path), "%s/%s/%s", dir, de->d_name, need)
			     : snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (k < 0 || (size_t)k >= sizeof(path))
			continue;
		if (stat(path, &st) < 0 || (need ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode)))
			continue;
		if (n + 1 >= cap) {
			char **nl = realloc(l, cap * 2 * sizeof(*l));
			if (!nl) {
				err = -ENOMEM;
				break;
			}
			l = nl;
			cap *= 2;
		}
		if (!(l[n] = strdup(de->d_name))) {
			err = -ENOMEM;
			break;
		}
		n++;
		l[n] = NULL;
	}
	closedir(d);
	if (!l)
		return -ENOMEM;
	l[n] = NULL;
	if (err) {
		free_list(l);
		return err;
	}
	qsort(l, n, sizeof(*l), cmp_str);
	*out = l;
	return 0;
}

/* Copy a libtracefs list into our own sorted list (freed with free_list). */
static int own_list(char **tl, char ***out)
{
	size_t n = 0;
	while (tl && tl[n])
		n++;
	char **l = calloc(n + 1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!(l[i] = strdup(tl[i]))) {
			free_list(l);
			return -ENOMEM;
		}
	}
	qsort(l, n, sizeof(*l), cmp_str);
	*out = l;
	return 0;
}

struct src {
	const char *events_dir;		/* NULL = live */
	const char *tracing_dir;	/* live only */
};

static int src_systems(const struct src *s, char ***out)
{
	if (s->events_dir)
		return list_dirs(s->events_dir, NULL, out);
	char **tl = tracefs_event_systems(s->tracing_dir);
	if (!tl)
		return -ENOENT;
	int err = own_list(tl, out);
	tracefs_list_free(tl);
	return err;
}

static int src_events(const struct src *s, const char *sys, char ***out)
{
	if (s->events_dir) {
		char path[4096];
		int k = snprintf(path, sizeof(path), "%s/%s", s->events_dir, sys);
		if (k < 0 || (size_t)k >= sizeof(path))
			return -ENAMETOOLONG;
		return list_dirs(path, "format", out);
	}
	char **tl = tracefs_system_events(s->tracing_dir, sys);
	if (!tl)
		return -ENOENT;
	int err = own_list(tl, out);
	tracefs_list_free(tl);
	return err;
}

static int src_format(const struct src *s, const char *sys, const char *ev, char **out)
{
	if (s->events_dir) {
		char path[4096];
		int k = snprintf(path, sizeof(path), "%s/%s/%s/format", s->events_dir, sys, ev);
		if (k < 0 || (size_t)k >= sizeof(path))
			return -ENAMETOOLONG;
		return read_text(path, out);
	}
	int size = 0;
	errno = 0;
	char *t = tracefs_event_file_read(NULL, sys, ev, "format", &size);
	if (!t)
		return errno ? -errno : -EIO;
	*out = t;		/* libtracefs returns a malloc'd, NUL-terminated copy */
	return 0;
}

/* A top-level text file: events/header_page, printk_formats, saved_cmdlines. */
static char *src_top_file(const struct src *s, const char *live_name, const char *dir_name)
{
	char *t = NULL;
	if (s->events_dir) {
		if (!dir_name)
			return NULL;
		char path[4096];
		int k = snprintf(path, sizeof(path), "%s/%s", s->events_dir, dir_name);
		if (k < 0 || (size_t)k >= sizeof(path) || read_text(path, &t) < 0)
			return NULL;
		return t;
	}
	int size = 0;
	return tracefs_instance_file_read(NULL, live_name, &size);
}

static int parse_id(const char *fmt, uint64_t *id)
{
	const char *p = strncmp(fmt, "ID:", 3) ? strstr(fmt, "\nID:") : fmt - 1;
	if (!p)
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p + 4, &end, 10);
	if (errno || end == p + 4)
		return -EINVAL;
	*id = v;
	return 0;
}

static int add_event(struct tracedata_formats *f, size_t *cap, const struct src *s, const char *sys,
		     const char *ev)
{
	if (tracedata_find(f, sys, ev))
		return 0;
	if (f->nr_events == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct tracedata_event *n = realloc(f->events, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		f->events = n;
		*cap = nc;
	}
	struct tracedata_event *e = &f->events[f->nr_events];
	memset(e, 0, sizeof(*e));
	int err = src_format(s, sys, ev, &e->format);
	if (err)
		return err;
	e->system = strdup(sys);
	e->name = strdup(ev);
	if (!e->system || !e->name) {
		free(e->system);
		free(e->name);
		free(e->format);
		return -ENOMEM;
	}
	f->nr_events++;
	if (parse_id(e->format, &e->id) < 0)
		return -EINVAL;
	return 0;
}

static int collect_spec(struct tracedata_formats *f, size_t *cap, const struct src *s, const char *spec)
{
	char sysp[256], evp[256];
	const char *colon = strchr(spec, ':');
	size_t sl = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *ep = colon ? colon + 1 : "*";
	if (!sl || sl >= sizeof(sysp) || !*ep || strlen(ep) >= sizeof(evp) || strchr(ep, ':'))
		return -EINVAL;
	memcpy(sysp, spec, sl);
	sysp[sl] = '\0';
	strcpy(evp, ep);

	char **systems = NULL;
	int err = src_systems(s, &systems);
	if (err)
		return err;
	size_t matched = 0;
	for (size_t i = 0; !err && systems[i]; i++) {
		if (fnmatch(sysp, systems[i], 0))
			continue;
		char **evs = NULL;
		if (src_events(s, systems[i], &evs) < 0)
			continue;
		for (size_t j = 0; !err && evs[j]; j++) {
			if (fnmatch(evp, evs[j], 0))
				continue;
			err = add_event(f, cap, s, systems[i], evs[j]);
			matched++;
		}
		free_list(evs);
	}
	free_list(systems);
	if (!err && !matched)
		err = -ENOENT;
	return err;
}

int tracedata_collect(const char *events_dir, const char *const *specs, size_t nr_specs,
		struct tracedata_formats **out)
{
	if (!out || (nr_specs && !specs))
		return -EINVAL;
	*out = NULL;
	struct src s = { .events_dir = events_dir };
	if (!events_dir) {
		s.tracing_dir = tracefs_tracing_dir();
		if (!s.tracing_dir)
			return -ENODEV;
		/* libtracefs lists nothing from a directory it cannot read: say
		 * why (EACCES for a non-root user on a 0700 tracefs), not ENOENT */
		char ev[4096];
		int k = snprintf(ev, sizeof(ev), "%s/events", s.tracing_dir);
		if (k > 0 && (size_t)k < sizeof(ev) && access(ev, R_OK | X_OK) < 0)
			return -errno;
	}
	struct tracedata_formats *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	long ps = sysconf(_SC_PAGESIZE);
	f->page_size = ps > 0 ? (uint32_t)ps : 4096;
	f->header_page = src_top_file(&s, "events/header_page", "header_page");
	if (!f->header_page)
		f->header_page = strdup("");
	if (!events_dir) {
		f->printk_formats = src_top_file(&s, "printk_formats", NULL);
		f->saved_cmdlines = src_top_file(&s, "saved_cmdlines", NULL);
	}
	int err = f->header_page ? 0 : -ENOMEM;
	size_t cap = 0;
	for (size_t i = 0; !err && i < nr_specs; i++)
		err = specs[i] ? collect_spec(f, &cap, &s, specs[i]) : -EINVAL;
	if (err) {
		tracedata_free(f);
		return err;
	}
	*out = f;
	return 0;
}

const struct tracedata_event *tracedata_find(const struct tracedata_formats *f, const char *system, const char *name)
{
	for (size_t i = 0; f && system && name && i < f->nr_events; i++)
		if (!strcmp(f->events[i].system, system) && !strcmp(f->events[i].name, name))
			return &f->events[i];
	return NULL;
}

int tracedata_tracing_data(const struct tracedata_formats *f, bool big_endian, void **blob, size_t *len)
{
	if (!f || !blob || !len)
		return -EINVAL;
	struct pdwrite_tp_format *fmts = calloc(f->nr_events ? f->nr_events : 1, sizeof(*fmts));
	if (!fmts)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr_events; i++) {
		fmts[i].system = f->events[i].system;
		fmts[i].format = f->events[i].format;
	}
	int err = pdwrite_tracing_data_build(big_endian, f->page_size, f->header_page, fmts,
					 f->nr_events, f->printk_formats, f->saved_cmdlines,
					 blob, len);
	free(fmts);
	return err;
}

int tracedata_set_tracing_data(struct pdwrite *pw, const struct tracedata_formats *f, bool big_endian)
{
	void *blob;
	size_t len;
	int err = tracedata_tracing_data(f, big_endian, &blob, &len);

	if (!err) {
		err = pdwrite_set_tracing_data(pw, blob, len);
		free(blob);
	}
	return err < 0 ? err : 0;
}

int tracedata_describe(struct pdwrite *pw, const char *events_dir, const char *const *names, size_t n,
		 bool big_endian)
{
	struct tracedata_formats *f = NULL;
	int err = tracedata_collect(events_dir, names, n, &f);

	if (!err)
		err = tracedata_set_tracing_data(pw, f, big_endian);
	tracedata_free(f);
	return err < 0 ? err : 0;
}

void tracedata_free(struct tracedata_formats *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr_events; i++) {
		free(f->events[i].system);
		free(f->events[i].name);
		free(f->events[i].format);
	}
	free(f->events);
	free(f->header_page);
	free(f->printk_formats);
	free(f->saved_cmdlines);
	free(f);
}
