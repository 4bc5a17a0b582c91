/* SPDX-License-Identifier: MIT */
/* metricsrv.c - /metrics over libmicrohttpd, snapshot swap (see metricsrv.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "live/metricsrv.h"

struct metricsrv {
	struct MHD_Daemon *d;
	int fd;
	uint16_t port;
	pthread_mutex_t mu;		/* guards snap, len, cap and the counters */
	char *snap;
	size_t len, cap;
	bool published;
	struct metricsrv_stats st;
};

static int fail(char *err, size_t n, int e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t n, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return e;
}

/* Split "ADDR:PORT", "[V6]:PORT", ":PORT", "PORT" into host (NULL: any) and port. */
static int split_listen(const char *s, char *host, size_t hl, char *port, size_t pl)
{
	const char *colon;
	host[0] = 0;
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (!e || e[1] != ':' || (size_t)(e - s - 1) >= hl)
			return -EINVAL;
		memcpy(host, s + 1, (size_t)(e - s - 1));
		host[e - s - 1] = 0;
		colon = e + 1;
	} else if ((colon = strrchr(s, ':'))) {
		if ((size_t)(colon - s) >= hl || strchr(s, ':') != colon)
			return -EINVAL;	/* a bare IPv6 address needs brackets */
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = 0;
	} else {
		colon = s - 1;	/* "PORT" */
	}
	const char *p = colon + 1;
	if (!*p || strlen(p) >= pl || strspn(p, "0123456789") != strlen(p) || atol(p) > 65535)
		return -EINVAL;
	strcpy(port, p);
	return 0;
}

static int listen_on(const char *spec, uint16_t *bound, char *err, size_t n)
{
	char host[256], port[8];
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;

	if (split_listen(spec, host, sizeof(host), port, sizeof(port)) < 0)
		return fail(err, n, -EINVAL, "--listen '%s': expected ADDR:PORT, [IPV6]:PORT, :PORT or PORT",
			    spec);
	int gai = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (gai)
		return fail(err, n, -EINVAL, "--listen '%s': %s", spec, gai_strerror(gai));
	int fd = -1, e = 0;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (a->ai_family == AF_INET6 && !host[0]) {
			int zero = 0;	/* ":PORT": IPv4 too */
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		}
		if (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 128) < 0) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return fail(err, n, -e, "--listen '%s': %s", spec, strerror(e));
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		*bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
							: ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

static enum MHD_Result queue(struct MHD_Connection *c, unsigned code, const char *type, const char *body,
			     size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct metricsrv *m = cls;
	(void)version;
	(void)upload;
	if (!*state) {		/* the headers came: answer when the (empty) body is in */
		*state = m;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body is read and dropped */
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		pthread_mutex_lock(&m->mu);
		m->st.other++;
		pthread_mutex_unlock(&m->mu);
		static const char msg[] = "only GET and HEAD\n";
		return queue(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", msg, sizeof(msg) - 1);
	}
	if (strcmp(url, "/metrics")) {
		pthread_mutex_lock(&m->mu);
		m->st.other++;
		pthread_mutex_unlock(&m->mu);
		static const char root[] = "latscope monitor: the metrics are at /metrics\n";
		static const char nf[] = "not found: the metrics are at /metrics\n";
		bool r = !strcmp(url, "/");
		return queue(c, r ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND, "text/plain", r ? root : nf,
			     (r ? sizeof(root) : sizeof(nf)) - 1);
	}
	pthread_mutex_lock(&m->mu);
	enum MHD_Result ret;
	if (!m->published) {
		static const char wait[] = "no measurement yet\n";
		ret = queue(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", wait, sizeof(wait) - 1);
	} else {
		ret = queue(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", m->snap, m->len);
		m->st.scrapes++;
	}
	pthread_mutex_unlock(&m->mu);
	return ret;
}

int metricsrv_start(struct metricsrv **out, const struct metricsrv_cfg *cfg, char *err, size_t errlen)
{
	*out = NULL;
	struct metricsrv *m = calloc(1, sizeof(*m));
	if (!m)
		return fail(err, errlen, -ENOMEM, "out of memory");
	pthread_mutex_init(&m->mu, NULL);
	m->fd = listen_on(cfg->listen ? cfg->listen : "9798", &m->port, err, errlen);
	if (m->fd < 0) {
		int e = m->fd;
		pthread_mutex_destroy(&m->mu);
		free(m);
		return e;
	}
	unsigned conns = cfg->max_conns ? cfg->max_conns : 512, tmo = cfg->timeout_s ? cfg->timeout_s : 10;
	m->d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, handle, m,
				MHD_OPTION_LISTEN_SOCKET, m->fd,
				MHD_OPTION_CONNECTION_LIMIT, conns,
				MHD_OPTION_CONNECTION_TIMEOUT, tmo,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
				MHD_OPTION_END);
	if (!m->d) {
		close(m->fd);
		pthread_mutex_destroy(&m->mu);
		free(m);
		return fail(err, errlen, -EIO, "cannot start the HTTP server (libmicrohttpd)");
	}
	*out = m;
	return 0;
}

uint16_t metricsrv_port(const struct metricsrv *m)
{
	return m->port;
}

int metricsrv_publish(struct metricsrv *m, const char *text, size_t len)
{
	pthread_mutex_lock(&m->mu);
	if (len > m->cap) {
		size_t cap = len + len / 4 + 4096;
		char *p = realloc(m->snap, cap);
		if (!p) {
			pthread_mutex_unlock(&m->mu);
			return -ENOMEM;
		}
		m->snap = p;
		m->cap = cap;
	}
	memcpy(m->snap, text, len);
	m->len = len;
	m->published = true;
	m->st.snapshots++;
	pthread_mutex_unlock(&m->mu);
	return 0;
}

void metricsrv_get_stats(struct metricsrv *m, struct metricsrv_stats *st)
{
	pthread_mutex_lock(&m->mu);
	*st = m->st;
	pthread_mutex_unlock(&m->mu);
}

void metricsrv_stop(struct metricsrv *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	close(m->fd);
	pthread_mutex_destroy(&m->mu);
	free(m->snap);
	free(m);
}
