/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of lib/live/metricsrv.c on loopback: 503 before the first
 * snapshot, /metrics with the last snapshot published, 404/405, HEAD, a
 * request line far too long refused, and a scrape still answered while
 * hundreds of idle and half-closed connections are open.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "live/metricsrv.h"

static int connect_to(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Send req, read the whole answer (the server closes: HTTP/1.0) into buf. */
static char *ask(uint16_t port, const char *req, size_t reqlen)
{
	static char buf[65536];
	int fd = connect_to(port);
	size_t off = 0;
	while (off < reqlen) {
		ssize_t w = write(fd, req + off, reqlen - off);
		if (w <= 0)
			break;	/* the server may close early on a bad request */
		off += (size_t)w;
	}
	size_t n = 0;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 10000) != 1)
			break;
		ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	close(fd);
	return buf;
}

#define GET(port, path) ask(port, "GET " path " HTTP/1.0\r\n\r\n", strlen("GET " path " HTTP/1.0\r\n\r\n"))

static void test_serve(void **state)
{
	(void)state;
	struct metricsrv *m;
	char err[256];
	struct metricsrv_cfg cfg = { .listen = "127.0.0.1:0" };
	assert_int_equal(metricsrv_start(&m, &cfg, err, sizeof(err)), 0);
	uint16_t port = metricsrv_port(m);
	assert_true(port > 0);
	assert_non_null(strstr(GET(port, "/metrics"), " 503 "));
	const char *t1 = "# TYPE x counter\nx 1\n";
	assert_int_equal(metricsrv_publish(m, t1, strlen(t1)), 0);
	char *r = GET(port, "/metrics");
	assert_non_null(strstr(r, " 200 OK\r\n"));
	assert_non_null(strstr(r, "text/plain; version=0.0.4"));
	assert_non_null(strstr(r, "\r\n\r\n# TYPE x counter\nx 1\n"));
	const char *t2 = "# TYPE x counter\nx 2\n";
	assert_int_equal(metricsrv_publish(m, t2, strlen(t2)), 0);
	assert_non_null(strstr(GET(port, "/metrics"), "x 2\n"));
	assert_non_null(strstr(GET(port, "/nope"), " 404 "));
	assert_non_null(strstr(GET(port, "/"), " 200 "));
	const char post[] = "POST /metrics HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc";
	assert_non_null(strstr(ask(port, post, sizeof(post) - 1), " 405 "));
	const char head[] = "HEAD /metrics HTTP/1.0\r\n\r\n";
	r = ask(port, head, sizeof(head) - 1);
	assert_non_null(strstr(r, " 200 "));
	assert_null(strstr(r, "x 2"));
	/* a request line of 100 KiB: refused, the server goes on */
	size_t big = 100 * 1024;
	char *req = malloc(big + 64);
	assert_non_null(req);
	strcpy(req, "GET /");
	memset(req + 5, 'a', big);
	strcpy(req + 5 + big, " HTTP/1.0\r\n\r\n");
	r = ask(port, req, strlen(req));
	assert_true(r[0] == 0 || strstr(r, " 414 ") || strstr(r, " 431 ") || strstr(r, " 400 "));
	free(req);
	assert_non_null(strstr(GET(port, "/metrics"), "x 2\n"));
	struct metricsrv_stats st;
	metricsrv_get_stats(m, &st);
	assert_true(st.scrapes >= 3);
	assert_int_equal(st.snapshots, 2);
	metricsrv_stop(m);
}

/* 300 connections that send half a request and wait, 50 half-closed ones:
 * a scrape is still answered. */
static void test_crowd(void **state)
{
	(void)state;
	struct metricsrv *m;
	char err[256];
	struct metricsrv_cfg cfg = { .listen = "127.0.0.1:0" };
	assert_int_equal(metricsrv_start(&m, &cfg, err, sizeof(err)), 0);
	uint16_t port = metricsrv_port(m);
	const char *t = "y 1\n";
	assert_int_equal(metricsrv_publish(m, t, strlen(t)), 0);
	enum { IDLE = 300, HALF = 50 };
	int fds[IDLE + HALF];
	for (int i = 0; i < IDLE + HALF; i++) {
		fds[i] = connect_to(port);
		if (i < IDLE) {
			assert_int_equal(write(fds[i], "GET /met", 8), 8);	/* slowloris */
		} else {
			assert_int_equal(write(fds[i], "GET /metrics HTTP/1.1\r\n", 23), 23);
			shutdown(fds[i], SHUT_WR);
		}
	}
	assert_non_null(strstr(GET(port, "/metrics"), "\r\n\r\ny 1\n"));
	for (int i = 0; i < IDLE + HALF; i++)
		close(fds[i]);
	assert_non_null(strstr(GET(port, "/metrics"), "y 1\n"));
	metricsrv_stop(m);
}

static void test_listen_errors(void **state)
{
	(void)state;
	struct metricsrv *m, *m2;
	char err[256];
	struct metricsrv_cfg bad = { .listen = "::1:80" };
	assert_int_equal(metricsrv_start(&m, &bad, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected ADDR:PORT"));
	bad.listen = "127.0.0.1:99999";
	assert_int_equal(metricsrv_start(&m, &bad, err, sizeof(err)), -EINVAL);
	struct metricsrv_cfg ok = { .listen = "127.0.0.1:0" };
	assert_int_equal(metricsrv_start(&m, &ok, err, sizeof(err)), 0);
	char spec[32];
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", metricsrv_port(m));
	struct metricsrv_cfg same = { .listen = spec };
	assert_int_equal(metricsrv_start(&m2, &same, err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "in use"));
	metricsrv_stop(m);
	struct metricsrv_cfg v6 = { .listen = "[::1]:0" };
	int rc = metricsrv_start(&m, &v6, err, sizeof(err));
	if (rc == 0)
		metricsrv_stop(m);
	else
		assert_int_equal(rc, -EADDRNOTAVAIL);	/* a host without IPv6 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serve),
		cmocka_unit_test(test_crowd),
		cmocka_unit_test(test_listen_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
