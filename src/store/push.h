/*
 * push.h — one profile to Grafana Pyroscope's ingest API (POST /ingest,
 * format=folded), following its documented rules:
 *  - values are integers (a profile with decimal weights is refused);
 *  - the app name's last dot-suffix types the profile: time weights (gpu,
 *    cpu, wall, idle: ns) are sent as APP.WEIGHT.wall with
 *    sampleRate=1000000000 so that the server's period (1e9 / sampleRate)
 *    is 1 and ns come out as ns; py-spy samples as APP.samples.cpu with
 *    sampleRate = the sampling rate (default 100 Hz); call counts have no
 *    folded type and are refused;
 *  - every line (stack, blank, value) is under 64 KiB: a longer stack keeps
 *    its root-first frames that fit and ends in "[truncated]";
 *  - at most max_stacks lines (the server's 16,000 samples by default):
 *    the heaviest max_stacks - 1 stacks and one "[other]" line with the
 *    rest, so the total is the profile's total, exactly;
 *  - labels in the name, {release=R,rank=N,weight=W,K=V...}: keys are
 *    letters, digits and '_' (not first a digit); a value holding one of
 *    ",{}=\"" or a control byte is refused.
 * Retries: connection failures (refused, reset, a timeout, a reply that is
 * not valid HTTP), 429 and 5xx are retried after a wait (push_backoff_ms:
 * 0.5 s, 1 s, 2 s... at most PUSH_BACKOFF_MAX_MS, or the server's
 * Retry-After, at most PUSH_RETRY_AFTER_MAX_S); any other status fails at
 * once with the server's reply. Delivered means the whole body was sent and
 * a complete 2xx reply read (store/http.h). Messages name the URL without
 * its password.
 *
 * Layer: store. Never prints.
 */
#ifndef GF_PUSH_H
#define GF_PUSH_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

#define PUSH_MAX_LABELS 32
#define PUSH_LINE_MAX 65535

struct push_opts {
	const char *url, *app;
	const char *labels[PUSH_MAX_LABELS]; /* "KEY=VALUE" */
	size_t nlabels;
	const char *headers[8];              /* extra "Name: value" */
	size_t nheaders;
	int64_t from, until;                 /* UNIX seconds */
	size_t max_stacks;                   /* default 16000 */
	int64_t sample_rate;                 /* samples weight: Hz (default 100) */
	int retries;                         /* default 3 */
	int timeout_s;                       /* default 30: the whole of one attempt */
	/* before each retry (NULL: none): the attempt that failed (1...), the
	 * wait, and why ("HTTP 503", the connection error) */
	void (*retrying)(void *ctx, int attempt, long wait_ms, const char *why);
	void *ctx;
};

#define PUSH_BACKOFF_MAX_MS 30000
#define PUSH_RETRY_AFTER_MAX_S 60

/* The wait before retry k (0 first): 500 ms * 2^k, at most
 * PUSH_BACKOFF_MAX_MS; with a Retry-After of retry_after s (>= 0) that,
 * at most PUSH_RETRY_AFTER_MAX_S. */
long push_backoff_ms(int k, int64_t retry_after);

void push_opts_init(struct push_opts *o);

struct push_stats {
	size_t lines, merged, truncated; /* lines sent; stacks folded into [other]; stacks cut */
	int64_t total;
	int attempts, status;
};

/* The body (folded lines) of t for o; *total is their sum. */
int push_body(const struct ftree *t, const struct push_opts *o, struct sbuf *body, struct push_stats *st,
	      struct sbuf *err);
/* The request's path and query ("/ingest?name=...&from=...") for weight,
 * with the labels of o and of t's header (rank). */
int push_query(const struct ftree *t, const char *weight, const char *release, const struct push_opts *o,
	       struct sbuf *q, struct sbuf *err);
/* Builds and sends; err holds the server's answer on failure. */
int push_send(const struct ftree *t, const char *weight, const char *release, const struct push_opts *o,
	      struct push_stats *st, struct sbuf *err);

/* pprof (push --format pprof): the query of one multi-type profile,
 * "/ingest?name=APP{release=R,rank=N,yours}&from=F&until=U&format=pprof&
 * spyName=gpuflame" (Pyroscope names the profile types from the pprof's
 * sample types; labels as push_query checks them). */
int push_pprof_query(const char *rank, const char *release, const struct push_opts *o, struct sbuf *q,
		     struct sbuf *err);
/* The push's time range in UNIX seconds: --from/--until, else the last 10 s. */
void push_range(const struct push_opts *o, int64_t *from, int64_t *until);
/* POSTs body (of content type ctype) to o->url with query q, retrying as
 * push_send does; st gets the attempts and the status. */
int push_post(const char *q, const char *ctype, const char *body, size_t len, const struct push_opts *o,
	      struct push_stats *st, struct sbuf *err);

#endif
