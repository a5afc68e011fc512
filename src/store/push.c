/*
 * push.c — a profile to Pyroscope's /ingest (push.h).
 */
#include "store/push.h"

#include "stacks/folded.h"

#include "stacks/folded_out.h"
#include "store/http.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void push_opts_init(struct push_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_stacks = 16000;
	o->sample_rate = 100;
	o->retries = 3;
	o->timeout_s = 30;
}

struct pline {
	char *s;
	size_t n;
	int64_t v;
};

static int by_value(const void *a, const void *b)
{
	const struct pline *x = a, *y = b;
	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->s, y->s, n);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Cuts the stack to whole root-first frames that fit, then ";[truncated]". */
static void cut(struct sbuf *b)
{
	const size_t room = PUSH_LINE_MAX - 40; /* ";[truncated]", the blank, a value */
	size_t k = room;
	while (k && b->buf[k] != ';')
		k--;
	sbuf_setlen(b, k);
	sbuf_addstr(b, k ? ";[truncated]" : "[truncated]");
}

int push_body(const struct ftree *t, const struct push_opts *o, struct sbuf *body, struct push_stats *st,
	      struct sbuf *err)
{
	if (t->scale) {
		sbuf_setf(err, "the profile has decimal weights: Pyroscope takes integers (push the un-normalised file)");
		return GF_EUSAGE;
	}
	struct pline *l = NULL;
	size_t n = 0, cap = 0;
	struct sbuf b = SBUF_INIT;
	for (uint32_t i = 1; i < t->n; i++) {
		int64_t v = ftree_self(t, i, 0);
		if (!v)
			continue;
		if (v < 0) {
			sbuf_setf(err, "the profile has a negative weight: Pyroscope takes counts and durations");
			for (size_t k = 0; k < n; k++)
				free(l[k].s);
			free(l);
			sbuf_release(&b);
			return GF_EUSAGE;
		}
		sbuf_reset(&b);
		folded_put_path(&b, t, i);
		folded_end_stack(&b, 0, false);
		if (b.len > PUSH_LINE_MAX - 40) {
			cut(&b);
			st->truncated++;
		}
		if (n == cap)
			l = gf_xreallocarray(l, cap = cap ? 2 * cap : 1024, sizeof *l);
		l[n++] = (struct pline){ gf_xstrndup(b.buf, b.len), b.len, v };
	}
	sbuf_release(&b);
	if (n)
		qsort(l, n, sizeof *l, by_value);
	size_t keep = n <= o->max_stacks ? n : o->max_stacks - 1;
	int64_t other = 0;
	for (size_t i = 0; i < n; i++) {
		if (i < keep) {
			sbuf_add(body, l[i].s, l[i].n);
			sbuf_addf(body, " %" PRId64 "\n", l[i].v);
			st->lines++;
		} else {
			other += l[i].v;
			st->merged++;
		}
		st->total += l[i].v;
		free(l[i].s);
	}
	if (st->merged) {
		sbuf_addf(body, "[other] %" PRId64 "\n", other);
		st->lines++;
	}
	free(l);
	return GF_OK;
}

static int label_ok(const char *kv, struct sbuf *err)
{
	const char *eq = strchr(kv, '=');
	bool ok = eq && eq != kv && !(kv[0] >= '0' && kv[0] <= '9');
	for (const char *p = kv; ok && p < eq; p++)
		ok = *p == '_' || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z');
	if (!ok) {
		sbuf_setf(err, "label '%s': Pyroscope's label names are letters, digits and '_'", kv);
		return GF_EUSAGE;
	}
	for (const char *p = eq + 1; *p; p++)
		if (strchr(",{}=\"", *p) || (unsigned char)*p < 0x20) {
			sbuf_setf(err, "label '%s': a value cannot hold , { } = \" or control bytes in Pyroscope's name", kv);
			return GF_EUSAGE;
		}
	return GF_OK;
}

/* "/ingest?name=NAME{release=R,rank=N,weight=W,yours}&from=F&until=U" (name
 * holds NAME; the labels that are NULL left out). */
static int name_query(struct sbuf *name, const char *release, const char *rank, const char *weight,
		      const struct push_opts *o, struct sbuf *q, struct sbuf *err)
{
	struct sbuf kv = SBUF_INIT;
	sbuf_addch(name, '{');
	const char *fixed[3][2] = { { "release", release }, { "rank", rank }, { "weight", weight } };
	int rc = GF_OK, nl = 0;
	for (int i = 0; i < 3 && !rc; i++) {
		if (!fixed[i][1])
			continue;
		sbuf_setf(&kv, "%s=%s", fixed[i][0], fixed[i][1]);
		if (!(rc = label_ok(kv.buf, err)))
			sbuf_addf(name, "%s%s", nl++ ? "," : "", kv.buf);
	}
	for (size_t i = 0; i < o->nlabels && !rc; i++)
		if (!(rc = label_ok(o->labels[i], err)))
			sbuf_addf(name, "%s%s", nl++ ? "," : "", o->labels[i]);
	sbuf_addch(name, '}');
	if (!rc) {
		int64_t from, until;
		push_range(o, &from, &until);
		sbuf_addstr(q, "/ingest?name=");
		http_query_escape(q, name->buf, name->len);
		sbuf_addf(q, "&from=%" PRId64 "&until=%" PRId64, from, until);
	}
	sbuf_release(&kv);
	return rc;
}

int push_query(const struct ftree *t, const char *weight, const char *release, const struct push_opts *o,
	       struct sbuf *q, struct sbuf *err)
{
	/* the header's unit (folded_units): time in ns, us, ms or s sets the
	 * period 1e9 / sampleRate to that unit in ns; samples keep the rate */
	struct folded_units u;
	folded_units(t, &u);
	bool samples = !strcmp(weight, "samples") || u.kind == FOLDED_U_SAMPLES;
	int64_t rate = samples ? (u.rate ? u.rate : o->sample_rate) : (int64_t)1000000000;
	if (u.kind == FOLDED_U_TIME && u.ns_exp > 0)
		for (int i = 0; i < u.ns_exp; i++)
			rate /= 10;
	if (!strcmp(weight, "calls") || u.kind == FOLDED_U_BYTES || u.kind == FOLDED_U_EVENTS ||
	    (u.kind == FOLDED_U_TIME && u.ns_exp > 9)) {
		sbuf_setf(err, "%s are %s, which Pyroscope's folded ingest has no type for: push --format pprof, or a "
			  "time weight (gpu, cpu, wall, idle)", weight,
			  u.kind == FOLDED_U_BYTES ? "bytes" : "counts");
		return GF_EUSAGE;
	}
	struct sbuf name = SBUF_INIT;
	sbuf_addf(&name, "%s.%s.%s", o->app, weight, samples ? "cpu" : "wall");
	int rc = name_query(&name, release, ftree_meta_get(&t->meta, "rank"), weight, o, q, err);
	if (!rc)
		sbuf_addf(q, "&format=folded&sampleRate=%" PRId64 "&spyName=gpuflame&units=samples&aggregationType=sum",
			  rate);
	sbuf_release(&name);
	return rc;
}

int push_pprof_query(const char *rank, const char *release, const struct push_opts *o, struct sbuf *q,
		     struct sbuf *err)
{
	struct sbuf name = SBUF_INIT;
	sbuf_addstr(&name, o->app);
	int rc = name_query(&name, release, rank, NULL, o, q, err);
	if (!rc)
		sbuf_addstr(q, "&format=pprof&spyName=gpuflame");
	sbuf_release(&name);
	return rc;
}

void push_range(const struct push_opts *o, int64_t *from, int64_t *until)
{
	*until = o->until ? o->until : (int64_t)time(NULL);
	*from = o->from ? o->from : *until - 10;
}

long push_backoff_ms(int k, int64_t retry_after)
{
	if (retry_after >= 0)
		return (long)(retry_after < PUSH_RETRY_AFTER_MAX_S ? retry_after : PUSH_RETRY_AFTER_MAX_S) * 1000;
	long ms = 500;
	for (int i = 0; i < k && ms < PUSH_BACKOFF_MAX_MS; i++)
		ms *= 2;
	return ms < PUSH_BACKOFF_MAX_MS ? ms : PUSH_BACKOFF_MAX_MS;
}

int push_send(const struct ftree *t, const char *weight, const char *release, const struct push_opts *o,
	      struct push_stats *st, struct sbuf *err)
{
	struct sbuf q = SBUF_INIT, body = SBUF_INIT;
	int rc = push_query(t, weight, release, o, &q, err);
	if (!rc)
		rc = push_body(t, o, &body, st, err);
	if (!rc)
		rc = push_post(q.buf, "text/plain", body.buf ? body.buf : "", body.len, o, st, err);
	sbuf_release(&q);
	sbuf_release(&body);
	return rc;
}

int push_post(const char *q, const char *ctype, const char *body, size_t len, const struct push_opts *o,
	      struct push_stats *st, struct sbuf *err)
{
	struct sbuf url = SBUF_INIT;
	http_url_redact(o->url, &url);
	int rc = GF_OK;
	for (int k = 0; !rc; k++) {
		struct http_reply r;
		st->attempts = k + 1;
		rc = http_post(o->url, q, ctype, o->headers, o->nheaders, body, len, o->timeout_s, &r, err);
		st->status = r.status;
		bool retry = rc == GF_EOUTPUT || (!rc && (r.status == 429 || r.status >= 500));
		if (!rc && (r.status < 200 || r.status > 299)) {
			size_t n = strcspn(r.body.buf ? r.body.buf : "", "\r\n");
			sbuf_setf(err, "%s answered HTTP %d: %.*s", url.buf, r.status, (int)(n > 300 ? 300 : n),
				  r.body.buf ? r.body.buf : "");
			rc = GF_EOUTPUT;
		}
		int64_t ra = r.retry_after;
		http_reply_release(&r);
		if (!rc || !retry || k >= o->retries)
			break;
		long ms = push_backoff_ms(k, ra);
		if (o->retrying)
			o->retrying(o->ctx, k + 1, ms, err->buf);
		nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
		rc = GF_OK;
	}
	if (rc && st->attempts > 1)
		sbuf_addf(err, " (after %d attempts)", st->attempts);
	sbuf_release(&url);
	return rc;
}
