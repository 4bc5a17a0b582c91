/* SPDX-License-Identifier: MIT */
/*
 * metricsrv.h - the monitor's HTTP endpoint: GET /metrics serves the latest
 * published Prometheus exposition, on libmicrohttpd's own thread, so that a
 * scrape never waits for the collection and the collection never waits for
 * a scrape (HdrHistogram's interval recorder is the model: the collector
 * publishes a finished snapshot, the server hands out the last one).
 *
 * Prefix: metricsrv_.
 *
 * Hostile clients are bounded by the library's limits, set here: at most
 * max_conns connections (others are refused at accept), an idle connection
 * closed after timeout_s, at most 32 KiB of request per connection (longer
 * request lines get 431/414 from the library), GET and HEAD only (405), one
 * path (/metrics; "/" a pointer to it; 404 else).  Nothing here prints.
 */
#ifndef LATSCOPE_METRICSRV_H
#define LATSCOPE_METRICSRV_H

#include <stddef.h>
#include <stdint.h>

#define METRICSRV_DEFAULT_PORT 9798

struct metricsrv_cfg {
	const char *listen;		/* "ADDR:PORT", "[V6ADDR]:PORT", ":PORT" (every
					 * address) or "PORT"; port 0 = any free one */
	unsigned max_conns;		/* 0 = 512 */
	unsigned timeout_s;		/* 0 = 10 */
};

struct metricsrv_stats {
	uint64_t scrapes;		/* /metrics answered */
	uint64_t other;			/* other requests answered (404, 405, /) */
	uint64_t snapshots;		/* metricsrv_publish() calls */
};

struct metricsrv;

/*
 * metricsrv_start - listen on cfg->listen and serve from a thread of
 * libmicrohttpd's.  Until the first metricsrv_publish() /metrics answers 503.
 * Returns 0 and *out (stopped and freed by metricsrv_stop()), or a negative
 * errno with err[errlen] saying what failed (the address, bind, the library).
 */
int metricsrv_start(struct metricsrv **out, const struct metricsrv_cfg *cfg, char *err, size_t errlen);

/* The port it listens on (the one chosen for port 0). */
uint16_t metricsrv_port(const struct metricsrv *m);

/*
 * metricsrv_publish - make text[0..len) the answer to the next scrapes (it is
 * copied; buffers are reused, so memory stays flat).  Never waits for a
 * scrape in progress longer than the copy of the previous snapshot takes.
 * 0 or -ENOMEM (the previous snapshot stays).
 */
int metricsrv_publish(struct metricsrv *m, const char *text, size_t len);

void metricsrv_get_stats(struct metricsrv *m, struct metricsrv_stats *st);

/* Stop serving (open connections are closed), close the socket, free m.  NULL is fine. */
void metricsrv_stop(struct metricsrv *m);

#endif
