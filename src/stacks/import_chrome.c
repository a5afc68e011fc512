/*
 * import_chrome.c — py-spy's `--format chrometrace` output (a JSON array of
 * Chrome trace events) into folded stacks (see import.h; the mapping in
 * docs/formats.md, "Imports").
 *
 * py-spy writes, per thread, "B" when a frame appears on the sampled stack
 * and "E" when it leaves it (both at the sample's time, us since the start),
 * one "M" thread_name event per thread (args.name "TID: NAME"), and closes
 * every frame still open at the end. So the time from one event of a thread
 * to its next belongs to the stack open then: the wall time of the sampled
 * stacks, in us. A frame is py-spy's "name (file:line)" (args.filename,
 * args.line; "name (file)" without a line). Each thread gets py-spy's root
 * frame "thread (TID): NAME" (and "process PID" before it when the file
 * holds several processes: --subprocesses) unless o->merge_threads.
 * Events of a thread must come in time order and an "E" must close the
 * frame on top (errors name the event's byte offset).
 */
#include "stacks/import.h"

#include "base/num.h"
#include "base/vec.h"
#include "stacks/folded_out.h"
#include "stacks/import_json.h"

#include <stdlib.h>
#include <string.h>

struct cthread {
	int64_t pid, tid;
	char *root;          /* its root frames ("thread (TID): NAME") */
	VEC(char *) open;    /* frames open, root first */
	int64_t last;        /* time of its last event */
	bool started;
};

struct chrome {
	struct import_json j;
	const char *name;
	struct sbuf *err;
	unsigned scale;
	VEC(struct cthread) th;
	bool several_pids;
};

static int cfail(struct chrome *c, uint32_t node, const char *what)
{
	sbuf_setf(c->err, "'%s': byte %llu: expected %s", c->name, (unsigned long long)c->j.n[node].at, what);
	return GF_EINPUT;
}

static const char *text(struct chrome *c, uint32_t node, size_t *n)
{
	return import_json_text(&c->j, node, n);
}

static bool is(struct chrome *c, uint32_t node, int type)
{
	return node && c->j.n[node].type == type;
}

static bool str_eq(struct chrome *c, uint32_t node, const char *v)
{
	size_t n;
	const char *t = text(c, node, &n);
	return is(c, node, IMPORT_JSON_STR) && n == strlen(v) && !memcmp(t, v, n);
}

static int int_of(struct chrome *c, uint32_t node, unsigned scale, int64_t *v, const char *what)
{
	size_t n;
	const char *t = text(c, node, &n);
	if (!is(c, node, IMPORT_JSON_NUM) ||
	    num_parse(t, n, scale, NUM_ALLOW_EXP | NUM_ALLOW_SIGN, v) < 0)
		return cfail(c, node, what);
	return GF_OK;
}

static struct cthread *thread_of(struct chrome *c, int64_t pid, int64_t tid)
{
	for (size_t i = 0; i < c->th.n; i++)
		if (c->th.v[i].pid == pid && c->th.v[i].tid == tid)
			return &c->th.v[i];
	struct cthread t;
	memset(&t, 0, sizeof t);
	t.pid = pid;
	t.tid = tid;
	vec_push(&c->th, t);
	if (c->th.n > 1 && c->th.v[0].pid != pid)
		c->several_pids = true;
	return &c->th.v[c->th.n - 1];
}

/* The events, or the error. */
static uint32_t events_of(struct chrome *c)
{
	uint32_t root = 0;
	if (c->j.n[0].type == IMPORT_JSON_OBJ)
		root = import_json_get(&c->j, 0, "traceEvents");
	if (!is(c, root, IMPORT_JSON_ARR) && c->j.n[0].type != IMPORT_JSON_ARR)
		return UINT32_MAX;
	return root;
}

/* First pass: the scale of the times, the threads and their names. */
static int threads(struct chrome *c, uint32_t evs)
{
	unsigned d = 0;
	for (uint32_t e = import_json_child(&c->j, evs); e; e = c->j.n[e].next) {
		if (!is(c, e, IMPORT_JSON_OBJ))
			return cfail(c, e, "an event object");
		uint32_t ts = import_json_get(&c->j, e, "ts");
		size_t n;
		if (is(c, ts, IMPORT_JSON_NUM)) {
			unsigned k = num_decimals(text(c, ts, &n), c->j.n[ts].len);
			d = k > d ? k : d;
		}
		int64_t pid, tid;
		uint32_t ph = import_json_get(&c->j, e, "ph");
		if (!str_eq(c, ph, "B") && !str_eq(c, ph, "E") && !str_eq(c, ph, "M"))
			continue;
		if (int_of(c, import_json_get(&c->j, e, "pid"), 0, &pid, "\"pid\": an integer") ||
		    int_of(c, import_json_get(&c->j, e, "tid"), 0, &tid, "\"tid\": an integer"))
			return GF_EINPUT;
		struct cthread *t = thread_of(c, pid, tid);
		uint32_t args = import_json_get(&c->j, e, "args"), an = import_json_get(&c->j, args, "name");
		if (str_eq(c, ph, "M") && str_eq(c, import_json_get(&c->j, e, "name"), "thread_name") &&
		    is(c, an, IMPORT_JSON_STR) && !t->root) {
			/* py-spy: "TID: NAME" -> "thread (TID): NAME" ("thread (TID)" without a name) */
			const char *s = text(c, an, &n);
			const char *colon = memchr(s, ':', n);
			struct sbuf b = SBUF_INIT;
			sbuf_addstr(&b, "thread (");
			folded_put_frame(&b, s, colon ? (size_t)(colon - s) : n, false);
			sbuf_addch(&b, ')');
			if (colon && (size_t)(colon - s) + 2 < n) {
				sbuf_addstr(&b, ": ");
				folded_put_frame(&b, colon + 2, n - (size_t)(colon - s) - 2, false);
			}
			t->root = sbuf_detach(&b, NULL);
		}
	}
	c->scale = d > NUM_MAX_SCALE ? NUM_MAX_SCALE : d;
	return GF_OK;
}

/* A frame's folded name from a B or E event. */
static int frame_name(struct chrome *c, uint32_t e, struct sbuf *b)
{
	uint32_t nm = import_json_get(&c->j, e, "name"), args = import_json_get(&c->j, e, "args");
	uint32_t file = import_json_get(&c->j, args, "filename"), line = import_json_get(&c->j, args, "line");
	if (!is(c, nm, IMPORT_JSON_STR))
		return cfail(c, e, "\"name\": a string");
	size_t n;
	const char *s = text(c, nm, &n);
	sbuf_reset(b);
	folded_put_frame(b, s, n, false);
	if (is(c, file, IMPORT_JSON_STR) && c->j.n[file].len) {
		sbuf_addstr(b, " (");
		s = text(c, file, &n);
		folded_put_frame(b, s, n, false);
		if (is(c, line, IMPORT_JSON_NUM)) {
			sbuf_addch(b, ':');
			s = text(c, line, &n);
			sbuf_add(b, s, n);
		}
		sbuf_addch(b, ')');
	}
	return GF_OK;
}

static int charge(struct chrome *c, struct cthread *t, int64_t d, const struct import_opts *o, struct import_agg *a,
		  struct import_stats *st, struct sbuf *b)
{
	sbuf_reset(b);
	if (!o->merge_threads) {
		if (c->several_pids)
			sbuf_addf(b, "process %lld;", (long long)t->pid);
		if (t->root)
			sbuf_addstr(b, t->root);
		else
			sbuf_addf(b, "thread (%lld)", (long long)t->tid);
	}
	for (size_t i = 0; i < t->open.n; i++) {
		if (b->len)
			sbuf_addch(b, ';');
		sbuf_addstr(b, t->open.v[i]);
	}
	folded_end_stack(b, 0, true);
	st->samples++;
	return import_agg_add(a, b->buf, b->len, d, c->err);
}

/* Second pass: B/E per thread, the time between two events charged. */
static int walk(struct chrome *c, uint32_t evs, const struct import_opts *o, struct import_agg *a,
		struct import_stats *st)
{
	struct sbuf f = SBUF_INIT, b = SBUF_INIT;
	int rc = GF_OK;
	for (uint32_t e = import_json_child(&c->j, evs); e && !rc; e = c->j.n[e].next) {
		uint32_t ph = import_json_get(&c->j, e, "ph");
		bool open = str_eq(c, ph, "B");
		if (!open && !str_eq(c, ph, "E"))
			continue;
		int64_t pid = 0, tid = 0, ts = 0;
		if ((rc = int_of(c, import_json_get(&c->j, e, "pid"), 0, &pid, "\"pid\": an integer")) ||
		    (rc = int_of(c, import_json_get(&c->j, e, "tid"), 0, &tid, "\"tid\": an integer")) ||
		    (rc = int_of(c, import_json_get(&c->j, e, "ts"), c->scale, &ts, "\"ts\": a number (us)")) ||
		    (rc = frame_name(c, e, &f)))
			break;
		struct cthread *t = thread_of(c, pid, tid);
		if (t->started && ts < t->last) {
			rc = cfail(c, e, "events of a thread in time order (\"ts\" went back)");
			break;
		}
		if (t->started && ts > t->last && t->open.n) {
			int64_t d;
			if (__builtin_sub_overflow(ts, t->last, &d)) {
				rc = cfail(c, e, "times within 64-bit integers");
				break;
			}
			if ((rc = charge(c, t, d, o, a, st, &b)))
				break;
		}
		t->last = ts;
		t->started = true;
		if (open) {
			vec_push(&t->open, sbuf_detach(&f, NULL));
		} else if (!t->open.n || strcmp(t->open.v[t->open.n - 1], f.buf ? f.buf : "")) {
			rc = cfail(c, e, "an end (\"E\") of the frame on top of its thread's stack");
		} else {
			free(t->open.v[--t->open.n]);
		}
	}
	sbuf_release(&f);
	sbuf_release(&b);
	return rc;
}

int import_chrome(const char *buf, size_t len, const char *name, const struct import_opts *o,
		  struct sbuf *out, struct import_stats *st, struct sbuf *err)
{
	struct chrome c;
	memset(&c, 0, sizeof c);
	c.name = name ? name : "<stdin>";
	c.err = err;
	int rc = import_json_parse(&c.j, buf, len, c.name, err);
	uint32_t evs = rc ? 0 : events_of(&c);
	if (!rc && evs == UINT32_MAX)
		rc = cfail(&c, 0, "a Chrome trace (an array of events, or {\"traceEvents\": [...]})");
	if (!rc && o->samples) {
		sbuf_setf(err, "'%s': py-spy's chrometrace holds the times between samples, not the samples: record "
			       "with --format raw or speedscope for sample counts", c.name);
		rc = GF_EINPUT;
	}
	struct import_agg a;
	import_agg_init(&a, 0);
	if (!rc)
		rc = threads(&c, evs);
	a.scale = c.scale;
	if (!rc)
		rc = walk(&c, evs, o, &a, st);
	if (!rc) {
		import_header(out, "chrometrace", "us", st);
		sbuf_addf(out, " threads=%zu;\n", c.th.n);
		import_agg_write(&a, out);
	}
	for (size_t i = 0; i < c.th.n; i++) {
		free(c.th.v[i].root);
		for (size_t k = 0; k < c.th.v[i].open.n; k++)
			free(c.th.v[i].open.v[k]);
		vec_free(&c.th.v[i].open);
	}
	vec_free(&c.th);
	import_agg_free(&a);
	import_json_free(&c.j);
	return rc;
}
