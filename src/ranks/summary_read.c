/* summary_read.c — a rank's summary document, read back and checked (see
 * summary.h). */
#include "ranks/summary.h"

#include "base/num.h"
#include "trace/analysis/causes.h"
#include "stacks/ftree.h"
#include "stacks/import_json.h"

#include <stdlib.h>
#include <string.h>

struct rd {
	const struct import_json *j;
	const char *name;
	struct sbuf *err;
	bool failed;
};

/* One line: "'name': byte N: expected <what>" (the first error only). */
static bool bad(struct rd *r, uint32_t node, const char *what, const char *key)
{
	if (!r->failed) {
		sbuf_setf(r->err, "'%s': byte %llu: expected %s", r->name, (unsigned long long)r->j->n[node].at,
			  what);
		if (key)
			sbuf_addf(r->err, " for \"%s\"", key);
	}
	r->failed = true;
	return false;
}

static int type(struct rd *r, uint32_t x)
{
	return r->j->n[x].type;
}

/* Member key of object obj (an error naming it when absent: 0). */
static uint32_t member(struct rd *r, uint32_t obj, const char *key)
{
	if (r->failed)
		return 0;
	if (type(r, obj) != IMPORT_JSON_OBJ) {
		bad(r, obj, "an object", NULL);
		return 0;
	}
	uint32_t x = import_json_get(r->j, obj, key);
	if (!x) {
		struct sbuf w = SBUF_INIT;
		sbuf_addf(&w, "a member \"%s\" in this object", key);
		bad(r, obj, w.buf, NULL);
		sbuf_release(&w);
	}
	return x;
}

static bool is_null(struct rd *r, uint32_t x)
{
	return x && type(r, x) == IMPORT_JSON_NULL;
}

/* A number at `scale` decimals (0: an integer; 3: microseconds as ns). */
static bool num_at(struct rd *r, uint32_t x, const char *key, unsigned scale, int64_t *v)
{
	if (!x || r->failed)
		return false;
	if (type(r, x) != IMPORT_JSON_NUM)
		return bad(r, x, scale ? "a number of microseconds" : "an integer", key);
	size_t n;
	const char *s = import_json_text(r->j, x, &n);
	if (num_parse(s, n, scale, NUM_ALLOW_SIGN, v) != NUM_OK)
		return bad(r, x, scale ? "microseconds with at most 3 decimals within int64 ns" : "an integer within int64",
			   key);
	return true;
}

static bool int_of(struct rd *r, uint32_t obj, const char *key, int64_t *v)
{
	return num_at(r, member(r, obj, key), key, 0, v);
}

static bool us_of(struct rd *r, uint32_t obj, const char *key, gf_ns *v)
{
	return num_at(r, member(r, obj, key), key, 3, v);
}

/* Integer or null (null: *v = none). */
static bool int_null(struct rd *r, uint32_t obj, const char *key, int64_t none, int64_t *v)
{
	uint32_t x = member(r, obj, key);
	if (is_null(r, x)) {
		*v = none;
		return true;
	}
	return num_at(r, x, key, 0, v);
}

static bool us_null(struct rd *r, uint32_t obj, const char *key, gf_ns none, gf_ns *v)
{
	uint32_t x = member(r, obj, key);
	if (is_null(r, x)) {
		*v = none;
		return true;
	}
	return num_at(r, x, key, 3, v);
}

static bool count_of(struct rd *r, uint32_t obj, const char *key, uint64_t *v)
{
	int64_t x;
	if (!int_of(r, obj, key, &x))
		return false;
	if (x < 0)
		return bad(r, member(r, obj, key), "a count (>= 0)", key);
	*v = (uint64_t)x;
	return true;
}

/* A string (copied) or, when nullable, null (*out = NULL). */
static bool str_at(struct rd *r, uint32_t x, const char *key, bool nullable, char **out)
{
	*out = NULL;
	if (!x || r->failed)
		return false;
	if (nullable && type(r, x) == IMPORT_JSON_NULL)
		return true;
	if (type(r, x) != IMPORT_JSON_STR)
		return bad(r, x, nullable ? "a string or null" : "a string", key);
	size_t n;
	const char *s = import_json_text(r->j, x, &n);
	*out = gf_xmalloc(n + 1);
	memcpy(*out, s, n);
	(*out)[n] = 0;
	return true;
}

static bool str_of(struct rd *r, uint32_t obj, const char *key, bool nullable, char **out)
{
	return str_at(r, member(r, obj, key), key, nullable, out);
}

static bool bool_of(struct rd *r, uint32_t obj, const char *key, bool *v)
{
	uint32_t x = member(r, obj, key);
	if (!x)
		return false;
	if (type(r, x) != IMPORT_JSON_BOOL)
		return bad(r, x, "true or false", key);
	*v = r->j->n[x].off != 0;
	return true;
}

/* Array node (its length in *n), or, when nullable, null (*n = 0, returns 0). */
static uint32_t array_of(struct rd *r, uint32_t obj, const char *key, bool nullable, size_t *n)
{
	*n = 0;
	uint32_t x = member(r, obj, key);
	if (!x)
		return 0;
	if (nullable && type(r, x) == IMPORT_JSON_NULL)
		return 0;
	if (type(r, x) != IMPORT_JSON_ARR) {
		bad(r, x, nullable ? "an array or null" : "an array", key);
		return 0;
	}
	for (uint32_t c = import_json_child(r->j, x); c; c = r->j->n[c].next)
		(*n)++;
	return x;
}

/* The schema: exactly ours, else a one-line refusal naming it. */
static bool check_schema(struct rd *r, uint32_t root)
{
	char *sc = NULL;
	if (type(r, root) != IMPORT_JSON_OBJ)
		return bad(r, root, "a gpuflame summary (a JSON object with \"schema\": \"" SUMMARY_SCHEMA "\")", NULL);
	uint32_t x = import_json_get(r->j, root, "schema");
	if (!x || type(r, x) != IMPORT_JSON_STR)
		return bad(r, root, "a gpuflame summary (a JSON object with \"schema\": \"" SUMMARY_SCHEMA "\")", NULL);
	str_at(r, x, "schema", false, &sc);
	bool ok = !strcmp(sc, SUMMARY_SCHEMA);
	if (!ok) {
		if (!strncmp(sc, "gpuflame.summary/", 17))
			sbuf_setf(r->err, "'%s': summary schema '%s'; this gpuflame reads %s (summarise the traces "
					  "again with this version)",
				  r->name, sc, SUMMARY_SCHEMA);
		else
			sbuf_setf(r->err, "'%s': schema '%s' is not a gpuflame summary (%s)", r->name, sc,
				  SUMMARY_SCHEMA);
		r->failed = true;
	}
	free(sc);
	return ok;
}

/* The canonical text of "options": the command-line flags that differ from
 * the defaults ("--skip 2 --device 3"), "" for none. */
static bool read_options(struct rd *r, uint32_t obj, struct summary *s)
{
	uint32_t o = member(r, obj, "options");
	char *steps = NULL, *marker = NULL;
	int64_t skip = 0, dev = -1;
	gf_ns unprof = -1, expect = -1;
	if (!str_of(r, o, "steps", true, &steps) || !int_of(r, o, "skip", &skip) ||
	    !str_of(r, o, "step_marker", false, &marker) || !int_null(r, o, "device", -1, &dev) ||
	    !us_null(r, o, "unprofiled_step_us", -1, &unprof) || !us_null(r, o, "expect_us", -1, &expect)) {
		free(steps);
		free(marker);
		return false;
	}
	struct sbuf b = SBUF_INIT;
	if (steps)
		sbuf_addf(&b, " --steps %s", steps);
	if (skip)
		sbuf_addf(&b, " --skip %lld", (long long)skip);
	if (strcmp(marker, "ProfilerStep"))
		sbuf_addf(&b, " --step-marker %s", marker);
	if (dev >= 0)
		sbuf_addf(&b, " --device %lld", (long long)dev);
	if (unprof >= 0) {
		sbuf_addstr(&b, " --unprofiled-step-ms ");
		num_fmt(&b, unprof, 6);
	}
	if (expect >= 0) {
		sbuf_addstr(&b, " --expect-ms ");
		num_fmt(&b, expect, 6);
	}
	s->options = gf_xstrdup(b.len ? b.buf + 1 : "");
	sbuf_release(&b);
	free(steps);
	free(marker);
	return true;
}

static bool read_groups(struct rd *r, uint32_t root, struct summary *s)
{
	size_t n;
	uint32_t a = array_of(r, root, "groups", false, &n);
	if (!a)
		return false;
	s->groups = gf_xcalloc(n ? n : 1, sizeof *s->groups);
	for (uint32_t c = import_json_child(r->j, a); c; c = r->j->n[c].next) {
		struct summary_group *g = &s->groups[s->ngroups++];
		g->size = -1;
		size_t nr;
		if (!str_of(r, c, "name", false, &g->name) || !str_of(r, c, "desc", true, &g->desc) ||
		    !int_null(r, c, "size", -1, &g->size))
			return false;
		uint32_t ra = array_of(r, c, "ranks", true, &nr);
		if (r->failed)
			return false;
		if (!ra)
			continue;
		g->ranks = gf_xcalloc(nr ? nr : 1, sizeof *g->ranks);
		for (uint32_t k = import_json_child(r->j, ra); k; k = r->j->n[k].next)
			if (!num_at(r, k, "ranks", 0, &g->ranks[g->nranks++]))
				return false;
	}
	return true;
}

/* One column of the collectives: count values, ints or us, nullable. */
static bool column(struct rd *r, uint32_t obj, const char *key, size_t count, bool us, int64_t none,
		   int64_t *out)
{
	size_t n;
	uint32_t a = array_of(r, obj, key, false, &n);
	if (!a)
		return false;
	if (n != count)
		return bad(r, a, "an array as long as \"count\"", key);
	size_t i = 0;
	for (uint32_t c = import_json_child(r->j, a); c; c = r->j->n[c].next, i++) {
		if (none != INT64_MAX && type(r, c) == IMPORT_JSON_NULL)
			out[i] = none;
		else if (!num_at(r, c, key, us ? 3 : 0, &out[i]))
			return false;
	}
	return true;
}

/* An index column: -1 or an index below lim, into t. */
static bool index_col(struct rd *r, uint32_t obj, const char *key, size_t count, size_t lim, int64_t *t)
{
	if (!column(r, obj, key, count, false, INT64_MAX, t))
		return false;
	for (size_t i = 0; i < count; i++)
		if (t[i] < -1 || t[i] >= (int64_t)lim)
			return bad(r, member(r, obj, key), "indexes of a listed entry or -1", key);
	return true;
}

static bool read_colls(struct rd *r, uint32_t root, struct summary *s)
{
	uint32_t o = member(r, root, "collectives");
	uint64_t count;
	size_t nn;
	if (!count_of(r, o, "count", &count))
		return false;
	uint32_t na = array_of(r, o, "names", false, &nn);
	if (!na)
		return false;
	if (count > r->j->nn)
		return bad(r, member(r, o, "count"), "a count no larger than the arrays", "count");
	s->names = gf_xcalloc(nn ? nn : 1, sizeof *s->names);
	for (uint32_t c = import_json_child(r->j, na); c; c = r->j->n[c].next)
		if (!str_at(r, c, "names", false, &s->names[s->nnames++]))
			return false;
	size_t n = (size_t)count;
	s->coll = gf_xcalloc(n ? n : 1, sizeof *s->coll);
	s->ncoll = n;
	int64_t *t = gf_xcalloc(n ? n : 1, sizeof *t);
	struct summary_coll *x = s->coll;
	bool ok = index_col(r, o, "group", n, s->ngroups, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].group = (int32_t)t[i];
	ok = ok && index_col(r, o, "collective", n, s->nnames, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].coll = (int32_t)t[i];
	ok = ok && index_col(r, o, "kernel", n, s->nnames, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].kernel = (int32_t)t[i];
	ok = ok && index_col(r, o, "dtype", n, s->nnames, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].dtype = (int32_t)t[i];
	ok = ok && column(r, o, "seq", n, false, -1, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].seq = t[i];
	ok = ok && column(r, o, "nelems", n, false, -1, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].nelems = t[i];
	ok = ok && column(r, o, "step", n, false, INT64_MIN, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].step = t[i];
	ok = ok && column(r, o, "enqueue_us", n, true, INT64_MIN, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].enqueue = t[i];
	ok = ok && column(r, o, "start_us", n, true, INT64_MAX, t);
	for (size_t i = 0; ok && i < n; i++)
		x[i].start = t[i];
	ok = ok && column(r, o, "dur_us", n, true, INT64_MAX, t);
	for (size_t i = 0; ok && i < n; i++) {
		if (t[i] < 0) {
			bad(r, member(r, o, "dur_us"), "durations >= 0", "dur_us");
			break;
		}
		x[i].dur = t[i];
	}
	free(t);
	return !r->failed;
}

static bool read_kernels(struct rd *r, uint32_t root, struct summary *s)
{
	size_t n;
	uint32_t a = array_of(r, root, "kernels", false, &n);
	if (!a)
		return false;
	s->kernels = gf_xcalloc(n ? n : 1, sizeof *s->kernels);
	for (uint32_t c = import_json_child(r->j, a); c; c = r->j->n[c].next) {
		struct summary_kernel *k = &s->kernels[s->nkernels++];
		if (!str_of(r, c, "name", false, &k->name) || !count_of(r, c, "count", &k->count) ||
		    !us_of(r, c, "gpu_us", &k->gpu))
			return false;
	}
	return true;
}

/* The gap causes of a row (gaps: an object of *_us, or null: -1). */
static bool read_causes(struct rd *r, uint32_t gaps, gf_ns *cause)
{
	for (int i = 0; i < GAP_NCAUSES; i++)
		cause[i] = -1;
	if (!gaps || is_null(r, gaps))
		return !r->failed;
	for (int i = 0; i < GAP_NCAUSES; i++)
		if (!us_of(r, gaps, causes_gap[i].json, &cause[i]))
			return false;
	return true;
}

/* The figures every row has; wall under wall_key. */
static bool read_row(struct rd *r, uint32_t o, const char *wall_key, struct summary_row *w)
{
	return us_of(r, o, wall_key, &w->wall) && us_of(r, o, "gpu_busy_us", &w->busy) &&
	       us_of(r, o, "idle_us", &w->idle) && us_of(r, o, "sync_wait_us", &w->sync_wait) &&
	       count_of(r, o, "syncs", &w->syncs) && count_of(r, o, "launches", &w->launches) &&
	       count_of(r, o, "kernels", &w->kernels);
}

static bool read_steps(struct rd *r, uint32_t rep, struct summary *s)
{
	size_t n;
	uint32_t a = array_of(r, rep, "steps", false, &n);
	if (!a)
		return false;
	s->steps = gf_xcalloc(n ? n : 1, sizeof *s->steps);
	for (uint32_t c = import_json_child(r->j, a); c; c = r->j->n[c].next) {
		struct summary_row *w = &s->steps[s->nsteps++];
		w->comm = w->overlap = w->exposed = -1;
		if (!int_null(r, c, "index", -1, &w->number) || !bool_of(r, c, "warmup", &w->warmup) ||
		    !read_row(r, c, "wall_us", w) || !read_causes(r, member(r, c, "gaps"), w->cause))
			return false;
		if (import_json_get(r->j, c, "comm_us") &&
		    (!us_of(r, c, "comm_us", &w->comm) || !us_of(r, c, "comm_overlap_us", &w->overlap) ||
		     !us_of(r, c, "comm_exposed_us", &w->exposed)))
			return false;
		if (w->warmup)
			s->nwarm++;
	}
	return true;
}

static bool read_idle(struct rd *r, uint32_t rep, struct summary *s)
{
	size_t n;
	uint32_t a = array_of(r, rep, "idle_stacks", true, &n);
	if (r->failed)
		return false;
	s->idle = gf_xcalloc(n ? n : 1, sizeof *s->idle);
	for (uint32_t c = a ? import_json_child(r->j, a) : 0; c; c = r->j->n[c].next) {
		struct summary_idle *x = &s->idle[s->nidle++];
		if (!str_of(r, c, "stack", false, &x->stack) || !us_of(r, c, "idle_us", &x->idle))
			return false;
	}
	return true;
}

/* The embedded report: what the combine reads of it, checked against the
 * summary's own file and rank. */
static bool read_report(struct rd *r, uint32_t root, struct summary *s)
{
	uint32_t rep = member(r, root, "report");
	char *sc = NULL, *file = NULL;
	int64_t rank, dev;
	bool ok = str_of(r, rep, "schema", false, &sc) && str_of(r, rep, "file", false, &file) &&
		  int_null(r, rep, "rank", -1, &rank) && int_null(r, rep, "device", -1, &dev);
	if (ok && strcmp(sc, "gpuflame.report/2"))
		ok = bad(r, member(r, rep, "schema"), "the report schema gpuflame.report/2", "schema");
	if (ok && (strcmp(file, s->file) || rank != s->rank))
		ok = bad(r, rep, "the report of the summary's own file and rank", "report");
	free(sc);
	free(file);
	if (!ok)
		return false;
	s->device = (int)dev;
	uint32_t sum = member(r, rep, "summary");
	struct summary_row *w = &s->steady;
	w->number = -1;
	w->comm = w->overlap = w->exposed = -1;
	if (!bool_of(r, rep, "whole_trace", &s->whole_trace) || !read_steps(r, rep, s) ||
	    !read_row(r, sum, "steady_step_us", w) || !str_of(r, sum, "verdict", true, &s->verdict) ||
	    !str_of(r, sum, "verdict_cause", true, &s->cause) || !str_of(r, sum, "action", true, &s->action) ||
	    !read_causes(r, member(r, rep, "gaps"), w->cause) || !read_idle(r, rep, s))
		return false;
	uint32_t cm = member(r, rep, "comm");
	if (cm && !is_null(r, cm) &&
	    (!us_of(r, cm, "comm_us", &w->comm) || !us_of(r, cm, "overlap_us", &w->overlap) ||
	     !us_of(r, cm, "exposed_us", &w->exposed)))
		return false;
	size_t len;
	import_json_raw(r->j, rep, &len);
	s->rep_off = r->j->n[rep].at;
	s->rep_len = len;
	return !r->failed;
}

int summary_parse(struct summary *s, const char *buf, size_t len, const char *name, struct sbuf *err)
{
	memset(s, 0, sizeof *s);
	s->rank = s->world_size = -1;
	s->device = -1;
	s->text = buf;
	struct import_json j;
	if (import_json_parse(&j, buf, len, name, err)) {
		import_json_free(&j);
		return GF_EINPUT;
	}
	struct rd r = { &j, name, err, false };
	uint32_t root = 0;
	if (check_schema(&r, root) && str_of(&r, root, "generator", false, &s->generator) &&
	    str_of(&r, root, "run", true, &s->run) && read_options(&r, root, s) &&
	    str_of(&r, root, "file", false, &s->file) && int_null(&r, root, "rank", -1, &s->rank) &&
	    int_null(&r, root, "world_size", -1, &s->world_size) && str_of(&r, root, "backend", true, &s->backend) &&
	    read_groups(&r, root, s) && read_colls(&r, root, s) && read_kernels(&r, root, s) &&
	    read_report(&r, root, s)) {
		if (s->rank < -1 || (s->world_size != -1 && (s->world_size < 1 || s->rank >= s->world_size)))
			bad(&r, member(&r, root, "rank"), "a rank below world_size", "rank");
		uint32_t pg = member(&r, root, "page");
		if (pg && !is_null(&r, pg) && type(&r, pg) != IMPORT_JSON_OBJ)
			bad(&r, pg, "an object or null", "page");
		if (!r.failed && pg && !is_null(&r, pg)) {
			size_t pl;
			import_json_raw(&j, pg, &pl);
			s->page_off = j.n[pg].at;
			s->page_len = pl;
		}
	}
	import_json_free(&j);
	if (r.failed) {
		summary_free(s);
		return GF_EINPUT;
	}
	return GF_OK;
}

void summary_free(struct summary *s)
{
	free(s->generator);
	free(s->run);
	free(s->options);
	free(s->file);
	free(s->backend);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i].name);
		free(s->groups[i].desc);
		free(s->groups[i].ranks);
	}
	free(s->groups);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->coll);
	for (size_t i = 0; i < s->nkernels; i++)
		free(s->kernels[i].name);
	free(s->kernels);
	free(s->steps);
	free(s->verdict);
	free(s->action);
	free(s->cause);
	for (size_t i = 0; i < s->nidle; i++)
		free(s->idle[i].stack);
	free(s->idle);
	memset(s, 0, sizeof *s);
}

/* The frames of graph g (flamejson: names, p, n, v) into t. */
static int graph_tree(struct rd *r, uint32_t g, struct ftree *t)
{
	size_t nn, np, nv, nx;
	uint32_t names = array_of(r, g, "names", false, &nn), p = array_of(r, g, "p", false, &np),
		 n = array_of(r, g, "n", false, &nx), v = array_of(r, g, "v", false, &nv);
	if (r->failed)
		return GF_EINPUT;
	if (np != nx || np != nv || !np)
		return bad(r, g, "arrays p, n and v of one length", "p"), GF_EINPUT;
	uint32_t *id = gf_xcalloc(nn ? nn : 1, sizeof *id);
	size_t k = 0;
	for (uint32_t c = import_json_child(r->j, names); c; c = r->j->n[c].next, k++) {
		if (type(r, c) != IMPORT_JSON_STR)
			return free(id), bad(r, c, "a string", "names"), GF_EINPUT;
		size_t len;
		const char *s = import_json_text(r->j, c, &len);
		if (len > 2 && s[0] == '[' && strstr(s, " frames < minwidth]"))
			s = "[pruned]", len = 8;
		id[k] = pool_intern(t->names, s, len);
	}
	int64_t *pv = gf_xcalloc(np, sizeof *pv), *nv_ = gf_xcalloc(np, sizeof *nv_), *vv = gf_xcalloc(np, sizeof *vv);
	uint32_t cs[3] = { p, n, v };
	int64_t *dst[3] = { pv, nv_, vv };
	for (int q = 0; q < 3 && !r->failed; q++) {
		size_t i = 0;
		for (uint32_t c = import_json_child(r->j, cs[q]); c && !r->failed; c = r->j->n[c].next, i++)
			num_at(r, c, q == 0 ? "p" : q == 1 ? "n" : "v", 0, &dst[q][i]);
	}
	/* node i hangs under its parent's node (a parent comes first); the
	 * totals are the page's, checked to hold their children */
	uint32_t *node = gf_xcalloc(np, sizeof *node);
	int64_t *self = gf_xcalloc(np, sizeof *self);
	for (size_t i = 0; i < np && !r->failed; i++) {
		if (vv[i] < 0 || (i == 0 ? pv[i] != -1 : pv[i] < 0 || pv[i] >= (int64_t)i) || nv_[i] < 0 ||
		    nv_[i] >= (int64_t)nn)
			bad(r, g, "a tree: parents before children, names listed, weights >= 0", NULL);
		else
			self[i] = vv[i];
	}
	for (size_t i = 1; i < np && !r->failed; i++)
		if ((self[pv[i]] -= vv[i]) < 0)
			bad(r, g, "a tree whose frames hold their children's weight", NULL);
	for (size_t i = 0; i < np && !r->failed; i++) {
		node[i] = i ? ftree_child(t, node[pv[i]], id[nv_[i]]) : 0;
		if (__builtin_add_overflow(t->total[node[i]], vv[i], &t->total[node[i]]))
			bad(r, g, "weights whose sum fits in int64", NULL);
	}
	free(node);
	free(self);
	free(pv);
	free(nv_);
	free(vv);
	free(id);
	return r->failed ? GF_EINPUT : GF_OK;
}

int summary_tree(const struct summary *s, const char *w, struct ftree *t, struct sbuf *err)
{
	if (!s->page_len) {
		sbuf_setf(err, "'%s': the summary has no flame graphs (it was made with summarise --no-flames)", s->file);
		return GF_EUSAGE;
	}
	struct import_json j;
	if (import_json_parse(&j, s->text + s->page_off, s->page_len, s->file, err)) {
		import_json_free(&j);
		return GF_EINPUT;
	}
	struct rd r = { &j, s->file, err, false };
	int rc = GF_EINPUT;
	uint32_t graphs = member(&r, 0, "graphs");
	uint32_t g = graphs ? member(&r, graphs, w) : 0;
	int64_t steps = 0;
	if (g && int_of(&r, 0, "steps", &steps)) {
		if (is_null(&r, g)) {
			uint32_t why = import_json_get(&j, import_json_get(&j, 0, "why"), w);
			size_t n = 0;
			const char *txt = why && type(&r, why) == IMPORT_JSON_STR ? import_json_text(&j, why, &n) : "no weight";
			sbuf_setf(err, "'%s': no %s graph in the summary: %.*s", s->file, w, (int)(why ? n : 9), txt);
			rc = GF_EUSAGE;
		} else {
			t->scale = 3;
			rc = graph_tree(&r, g, t);
		}
	}
	import_json_free(&j);
	if (rc)
		return rc;
	char b[32];
	ftree_meta_set(&t->meta, "weight", w);
	ftree_meta_set(&t->meta, "unit", "us");
	snprintf(b, sizeof b, "%lld", (long long)(steps > 0 ? steps : 1));
	ftree_meta_set(&t->meta, "steps", b);
	if (s->rank >= 0) {
		snprintf(b, sizeof b, "%lld", (long long)s->rank);
		ftree_meta_set(&t->meta, "rank", b);
	}
	return GF_OK;
}
