/*
 * import_speedscope.c — a speedscope JSON file (its file-format schema:
 * shared.frames, profiles of type "sampled" or "evented") into folded stacks
 * (see import.h; mapping and losses in docs/formats.md).
 *
 *   sampled  each samples[i] (frame indexes, root first) weighs weights[i]
 *            (1 when the profile has no weights);
 *   evented  "O" opens a frame, "C" closes the frame on top; the time from
 *            one event to the next is the open stack's. Events must come in
 *            time order and close the frame on top (speedscope refuses the
 *            others too); frames still open at the end close at endValue.
 * The call tree is built directly (import_speedscope_tree): an open event
 * steps to a child of the node on top, an interval adds to that node's own
 * weight, totals are summed once at the end; time and memory are linear in
 * the file (the folded text of a chain N frames deep is N stacks of up to
 * N frames: import_tree_text writes it only when asked).
 * A frame is its name, "name (file:line)" with a file and a line, "name
 * (file)" with a file only. With several profiles each gets its name as root
 * frame ("profile N" when it has none) unless o->merge_threads. Every
 * profile must have the same unit. Weights and times keep their decimals
 * (up to NUM_MAX_SCALE; more are rounded, as counted in the header).
 */
#include "stacks/import.h"

#include "base/num.h"
#include "base/pool.h"
#include "base/vec.h"
#include "stacks/folded_out.h"
#include "stacks/import_json.h"

#include <stdlib.h>
#include <string.h>

struct ss {
	struct import_json j;
	const char *name;
	struct sbuf *err;
	uint32_t *frame_str;  /* per frame: offset of its folded name in names */
	uint32_t *frame_len;
	uint32_t *frame_id;   /* per frame: its name in the tree's pool (FT_NONE: not yet) */
	uint32_t *frame_first; /* the same, written as a stack's first frame */
	size_t nframes;
	struct sbuf names;
	unsigned scale;
	uint64_t rounded;
	bool count;           /* every sample weighs 1 (o->samples, or py-spy's 1/rate weights) */
	int64_t rate;         /* py-spy's sampling rate (Hz) recovered from its weights, 0: none */
	const struct import_opts *o;
	/* the tree */
	struct ftree *t;
	int64_t *self;        /* per node: its own weight */
	size_t nself;
	int64_t total;
};

static int ss_fail(struct ss *s, uint32_t node, const char *fmt, const char *what)
{
	sbuf_setf(s->err, "'%s': byte %llu: ", s->name, (unsigned long long)s->j.n[node].at);
	sbuf_addf(s->err, fmt, what);
	return GF_EINPUT;
}

static bool is_type(const struct ss *s, uint32_t node, int type)
{
	return node && s->j.n[node].type == type;
}

static const char *str(const struct ss *s, uint32_t node, size_t *len)
{
	return import_json_text(&s->j, node, len);
}

static bool str_is(const struct ss *s, uint32_t node, const char *v)
{
	size_t n;
	const char *t = str(s, node, &n);
	return is_type(s, node, IMPORT_JSON_STR) && n == strlen(v) && !memcmp(t, v, n);
}

/* The frames' folded names. */
static int frames(struct ss *s)
{
	uint32_t shared = import_json_get(&s->j, 0, "shared");
	uint32_t fr = import_json_get(&s->j, shared, "frames");
	if (!fr && !import_json_child(&s->j, import_json_get(&s->j, 0, "profiles")))
		return GF_OK; /* no profiles, no frames */
	if (!is_type(s, fr, IMPORT_JSON_ARR))
		return ss_fail(s, shared ? shared : 0, "expected %s", "\"shared\": {\"frames\": [...]}");
	size_t n = 0;
	for (uint32_t c = import_json_child(&s->j, fr); c; c = s->j.n[c].next)
		n++;
	s->nframes = n;
	s->frame_str = gf_xreallocarray(NULL, n ? n : 1, sizeof *s->frame_str);
	s->frame_len = gf_xreallocarray(NULL, n ? n : 1, sizeof *s->frame_len);
	s->frame_id = gf_xreallocarray(NULL, n ? n : 1, sizeof *s->frame_id);
	s->frame_first = gf_xreallocarray(NULL, n ? n : 1, sizeof *s->frame_first);
	for (size_t i = 0; i < n; i++)
		s->frame_id[i] = s->frame_first[i] = FT_NONE;
	size_t i = 0;
	for (uint32_t c = import_json_child(&s->j, fr); c; c = s->j.n[c].next, i++) {
		uint32_t nm = import_json_get(&s->j, c, "name");
		if (!is_type(s, nm, IMPORT_JSON_STR))
			return ss_fail(s, c, "expected %s", "a frame {\"name\": \"...\"}");
		uint32_t file = import_json_get(&s->j, c, "file"), line = import_json_get(&s->j, c, "line");
		size_t start = s->names.len, l;
		const char *t = str(s, nm, &l);
		folded_put_frame(&s->names, t, l, false);
		if (is_type(s, file, IMPORT_JSON_STR)) {
			sbuf_addstr(&s->names, " (");
			t = str(s, file, &l);
			folded_put_frame(&s->names, t, l, false);
			if (is_type(s, line, IMPORT_JSON_NUM)) {
				sbuf_addch(&s->names, ':');
				t = str(s, line, &l);
				sbuf_add(&s->names, t, l);
			}
			sbuf_addch(&s->names, ')');
		}
		if (s->names.len - start > UINT32_MAX || start > UINT32_MAX)
			return ss_fail(s, c, "expected %s", "frame names under 4 GiB in all");
		s->frame_str[i] = (uint32_t)start;
		s->frame_len[i] = (uint32_t)(s->names.len - start);
	}
	return GF_OK;
}

/* A number node at the scale. */
static int value(struct ss *s, uint32_t node, bool sign, int64_t *v, const char *what)
{
	if (!is_type(s, node, IMPORT_JSON_NUM))
		return ss_fail(s, node, "expected %s", what);
	size_t n;
	const char *t = str(s, node, &n);
	int rc = num_parse(t, n, s->scale, NUM_ALLOW_EXP | (sign ? NUM_ALLOW_SIGN : 0), v);
	if (rc == NUM_ROUNDED)
		s->rounded++;
	else if (rc != NUM_OK)
		return ss_fail(s, node, "expected %s that fits in 64-bit integers", what);
	if (!sign && *v < 0)
		return ss_fail(s, node, "expected %s (non-negative)", what);
	return GF_OK;
}

static void decimals_of(struct ss *s, uint32_t node, unsigned *d)
{
	if (!is_type(s, node, IMPORT_JSON_NUM))
		return;
	size_t n;
	const char *t = str(s, node, &n);
	unsigned k = num_decimals(t, n);
	if (k > *d)
		*d = k;
}

/* The scale: the most decimals of any weight or time of the profiles (at
 * most NUM_MAX_SCALE); other numbers (line numbers, versions) do not count. */
static void find_scale(struct ss *s)
{
	unsigned d = 0;
	uint32_t ps = import_json_get(&s->j, 0, "profiles");
	for (uint32_t p = import_json_child(&s->j, ps); p; p = s->j.n[p].next) {
		decimals_of(s, import_json_get(&s->j, p, "endValue"), &d);
		uint32_t w = import_json_get(&s->j, p, "weights");
		for (uint32_t c = import_json_child(&s->j, w); c; c = s->j.n[c].next)
			decimals_of(s, c, &d);
		uint32_t ev = import_json_get(&s->j, p, "events");
		for (uint32_t c = import_json_child(&s->j, ev); c; c = s->j.n[c].next)
			decimals_of(s, import_json_get(&s->j, c, "at"), &d);
	}
	s->scale = d > NUM_MAX_SCALE ? NUM_MAX_SCALE : d;
}

static int frame_index(struct ss *s, uint32_t node, size_t *fi)
{
	int64_t v;
	size_t n;
	const char *t = str(s, node, &n);
	if (!is_type(s, node, IMPORT_JSON_NUM) || num_parse(t, n, 0, 0, &v) != NUM_OK || (uint64_t)v >= s->nframes)
		return ss_fail(s, node, "expected %s", "a frame index into shared.frames");
	*fi = (size_t)v;
	return GF_OK;
}

/* The child of node for frame fi (its name as a stack's first frame under
 * the root: "# x" would read as a comment). */
static uint32_t step_into(struct ss *s, uint32_t node, size_t fi)
{
	uint32_t *id = node ? &s->frame_id[fi] : &s->frame_first[fi];
	if (*id == FT_NONE) {
		struct sbuf b = SBUF_INIT;
		folded_put_frame(&b, s->names.buf + s->frame_str[fi], s->frame_len[fi], !node);
		*id = pool_intern(s->t->names, b.buf ? b.buf : "", b.len);
		sbuf_release(&b);
	}
	return ftree_child(s->t, node, *id);
}

/* Adds w to node's own weight. */
static int add_self(struct ss *s, uint32_t node, int64_t w, uint32_t at)
{
	if (s->t->n > s->nself) {
		size_t c = s->nself ? 2 * s->nself : 1024;
		while (c < s->t->n)
			c *= 2;
		s->self = gf_xreallocarray(s->self, c, sizeof *s->self);
		memset(s->self + s->nself, 0, (c - s->nself) * sizeof *s->self);
		s->nself = c;
	}
	if (!num_add(&s->total, w)) /* every node's sum is at most the total */
		return ss_fail(s, at, "expected %s", "weights whose total fits in 64-bit integers");
	s->self[node] += w;
	return GF_OK;
}

static int sampled(struct ss *s, uint32_t p, uint32_t root, struct import_stats *st)
{
	uint32_t samples = import_json_get(&s->j, p, "samples"), weights = import_json_get(&s->j, p, "weights");
	if (!is_type(s, samples, IMPORT_JSON_ARR))
		return ss_fail(s, p, "expected %s", "\"samples\": [[...], ...] in a sampled profile");
	if (weights && !is_type(s, weights, IMPORT_JSON_ARR))
		return ss_fail(s, weights, "expected %s", "\"weights\": [...]");
	uint32_t w = import_json_child(&s->j, weights);
	int rc = GF_OK;
	for (uint32_t c = import_json_child(&s->j, samples); c && !rc; c = s->j.n[c].next) {
		if (!is_type(s, c, IMPORT_JSON_ARR)) {
			rc = ss_fail(s, c, "expected %s", "a sample (an array of frame indexes)");
			break;
		}
		uint32_t node = root;
		for (uint32_t f = import_json_child(&s->j, c); f && !rc; f = s->j.n[f].next) {
			size_t fi = 0;
			if (!(rc = frame_index(s, f, &fi)))
				node = step_into(s, node, fi);
		}
		int64_t wv = num_pow10(s->scale);
		if (!rc && weights) {
			if (!w) {
				rc = ss_fail(s, weights, "expected %s", "as many weights as samples");
				break;
			}
			rc = value(s, w, false, &wv, "a weight (a number)");
			w = s->j.n[w].next;
		}
		if (s->count)
			wv = 1; /* a sample */
		if (rc)
			break;
		if (!node) {
			struct sbuf b = SBUF_INIT;
			sbuf_addstr(&b, "[no frames]");
			node = ftree_child(s->t, 0, pool_intern(s->t->names, b.buf, b.len));
			sbuf_release(&b);
		}
		if ((rc = add_self(s, node, wv, c)))
			break;
		st->samples++;
	}
	if (!rc && w)
		rc = ss_fail(s, w, "expected %s", "as many weights as samples");
	return rc;
}

static int evented(struct ss *s, uint32_t p, uint32_t root, struct import_stats *st)
{
	uint32_t events = import_json_get(&s->j, p, "events");
	if (!is_type(s, events, IMPORT_JSON_ARR))
		return ss_fail(s, p, "expected %s", "\"events\": [...] in an evented profile");
	if (s->o->samples)
		return ss_fail(s, p, "expected %s", "sampled profiles: an evented profile holds times, not samples");
	int64_t end = 0;
	int rc = value(s, import_json_get(&s->j, p, "endValue"), true, &end, "\"endValue\": a number");
	if (rc)
		return rc;
	VEC(size_t) fs = VEC_INIT;   /* the open frames */
	VEC(uint32_t) ns = VEC_INIT; /* their nodes */
	int64_t last = 0;
	bool started = false;
	uint32_t c;
	for (c = import_json_child(&s->j, events); c && !rc; c = s->j.n[c].next) {
		uint32_t ty = import_json_get(&s->j, c, "type"), fr = import_json_get(&s->j, c, "frame");
		int64_t at;
		size_t fi = 0;
		bool open = str_is(s, ty, "O");
		if (!open && !str_is(s, ty, "C")) {
			rc = ss_fail(s, c, "expected %s", "an event {\"type\": \"O\" or \"C\", ...}");
			break;
		}
		if ((rc = value(s, import_json_get(&s->j, c, "at"), true, &at, "\"at\": a number")) ||
		    (rc = frame_index(s, fr, &fi)))
			break;
		if (started && at < last) {
			rc = ss_fail(s, c, "expected %s", "events in time order (\"at\" went back)");
			break;
		}
		if (started && at > last && fs.n) {
			int64_t d;
			if (__builtin_sub_overflow(at, last, &d)) {
				rc = ss_fail(s, c, "expected %s", "times within 64-bit integers");
				break;
			}
			if ((rc = add_self(s, ns.v[ns.n - 1], d, c)))
				break;
			st->samples++;
		}
		last = at;
		started = true;
		if (open) {
			uint32_t node = step_into(s, fs.n ? ns.v[ns.n - 1] : root, fi);
			vec_push(&ns, node);
			vec_push(&fs, fi);
		} else if (!fs.n || fs.v[fs.n - 1] != fi) {
			rc = ss_fail(s, c, "expected %s", "a close (\"C\") of the frame on top of the stack");
		} else {
			fs.n--;
			ns.n--;
		}
	}
	if (!rc && fs.n && end > last) { /* still open: closed at endValue */
		if (!(rc = add_self(s, ns.v[ns.n - 1], end - last, p)))
			st->samples++;
	}
	vec_free(&fs);
	vec_free(&ns);
	return rc;
}

static const char *unit_name(const char *u)
{
	static const char *const m[][2] = {
		{ "nanoseconds", "ns" }, { "microseconds", "us" }, { "milliseconds", "ms" },
		{ "seconds", "s" },      { "bytes", "bytes" },     { "none", "" },
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(u, m[i][0]))
			return m[i][1];
	return NULL;
}

static int profiles(struct ss *s, const struct import_opts *o, struct import_stats *st, const char **unit,
		    size_t *count)
{
	uint32_t ps = import_json_get(&s->j, 0, "profiles");
	if (!is_type(s, ps, IMPORT_JSON_ARR))
		return ss_fail(s, 0, "expected %s", "\"profiles\": [...]");
	size_t np = 0;
	for (uint32_t p = import_json_child(&s->j, ps); p; p = s->j.n[p].next)
		np++;
	*count = np;
	struct sbuf root = SBUF_INIT;
	int rc = GF_OK;
	size_t i = 0;
	for (uint32_t p = import_json_child(&s->j, ps); p && !rc; p = s->j.n[p].next, i++) {
		uint32_t ty = import_json_get(&s->j, p, "type"), un = import_json_get(&s->j, p, "unit");
		size_t l = 0;
		const char *u = is_type(s, un, IMPORT_JSON_STR) ? str(s, un, &l) : "none";
		const char *uu = unit_name(u);
		if (!uu) {
			rc = ss_fail(s, un, "expected %s", "a unit: none, nanoseconds, microseconds, milliseconds, seconds or bytes");
			break;
		}
		if (*unit && strcmp(*unit, uu)) {
			sbuf_setf(s->err, "'%s': byte %llu: profile %zu is in %s, an earlier one in %s: one unit per import", s->name,
				  (unsigned long long)s->j.n[p].at, i + 1, u, *unit);
			rc = GF_EINPUT;
			break;
		}
		*unit = uu;
		sbuf_reset(&root);
		if (np > 1 && !o->merge_threads) {
			uint32_t nm = import_json_get(&s->j, p, "name");
			if (is_type(s, nm, IMPORT_JSON_STR) && s->j.n[nm].len) {
				const char *t = str(s, nm, &l);
				folded_put_frame(&root, t, l, true);
			} else {
				sbuf_addf(&root, "profile %zu", i + 1);
			}
		}
		uint32_t r = root.len ? ftree_child(s->t, 0, pool_intern(s->t->names, root.buf, root.len)) : 0;
		if (str_is(s, ty, "sampled"))
			rc = sampled(s, p, r, st);
		else if (str_is(s, ty, "evented"))
			rc = evented(s, p, r, st);
		else
			rc = ss_fail(s, p, "expected %s", "a profile of \"type\" \"sampled\" or \"evented\"");
	}
	sbuf_release(&root);
	return rc;
}

/*
 * py-spy's speedscope files (exporter "py-spy@..."): each sample weighs
 * 1/rate seconds (or 1, unit none, before py-spy 0.3.4), written as a
 * double ("0.01", "0.010101010101010102"). When every weight of every
 * sampled profile is the same number w and 1/w is a whole rate R (to 1e-9),
 * the samples are counted (unit=samples, rate=R): what they were.
 */
static void pyspy_rate(struct ss *s)
{
	uint32_t ex = import_json_get(&s->j, 0, "exporter");
	size_t l;
	const char *e = is_type(s, ex, IMPORT_JSON_STR) ? str(s, ex, &l) : NULL;
	if (!e || l < 7 || memcmp(e, "py-spy@", 7))
		return;
	const char *w0 = NULL;
	size_t w0l = 0;
	bool none = false;
	uint32_t ps = import_json_get(&s->j, 0, "profiles");
	for (uint32_t p = import_json_child(&s->j, ps); p; p = s->j.n[p].next) {
		if (!str_is(s, import_json_get(&s->j, p, "type"), "sampled"))
			return;
		uint32_t un = import_json_get(&s->j, p, "unit");
		none = str_is(s, un, "none");
		if (!none && !str_is(s, un, "seconds"))
			return;
		uint32_t ws = import_json_get(&s->j, p, "weights");
		for (uint32_t c = import_json_child(&s->j, ws); c; c = s->j.n[c].next) {
			if (!is_type(s, c, IMPORT_JSON_NUM))
				return;
			const char *t = str(s, c, &l);
			if (!w0) {
				w0 = t;
				w0l = l;
			} else if (l != w0l || memcmp(t, w0, l)) {
				return;
			}
		}
	}
	if (!w0)
		return;
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.*s", (int)GF_MIN(w0l, sizeof tmp - 1), w0);
	double w = strtod(tmp, NULL);
	if (!(w > 0) || w > 1)
		return;
	double r = 1.0 / w, rr = (double)(int64_t)(r + 0.5);
	if (rr < 1 || rr > 1e9 || (rr * w - 1 > 1e-9 || 1 - rr * w > 1e-9))
		return;
	s->count = true;
	s->rate = none ? 0 : (int64_t)rr;
}

/* Totals from the own weights: children come after their parent. */
static void sum_up(struct ss *s)
{
	struct ftree *t = s->t;
	for (uint32_t i = t->n; i-- > 1;) {
		t->total[i] += i < s->nself ? s->self[i] : 0;
		t->total[t->parent[i]] += t->total[i];
	}
}

int import_speedscope_tree(const char *buf, size_t len, const char *name, const struct import_opts *o, struct ftree *t,
			   struct sbuf *head, struct import_stats *st, struct sbuf *err)
{
	struct ss s;
	memset(&s, 0, sizeof s);
	s.name = name ? name : "<stdin>";
	s.err = err;
	s.o = o;
	s.t = t;
	int rc = import_json_parse(&s.j, buf, len, s.name, err);
	if (!rc && s.j.n[0].type != IMPORT_JSON_OBJ)
		rc = ss_fail(&s, 0, "expected %s", "a speedscope file (a JSON object)");
	const char *unit = NULL;
	size_t np = 0;
	if (!rc) {
		pyspy_rate(&s);
		s.count = s.count || o->samples;
		find_scale(&s);
		if (s.count)
			s.scale = 0; /* counted: the weights' decimals do not matter */
		t->scale = s.scale;
		if (!(rc = frames(&s)))
			rc = profiles(&s, o, st, &unit, &np);
	}
	if (!rc) {
		sum_up(&s);
		import_header(head, "speedscope", s.count ? "samples" : unit, st);
		sbuf_addf(head, " profiles=%zu;", np);
		if (s.count)
			sbuf_addf(head, " samples=%llu;", (unsigned long long)st->samples);
		if (s.rate)
			sbuf_addf(head, " rate=%lld;", (long long)s.rate);
		if (s.rounded && !s.count)
			sbuf_addf(head, " rounded=%llu;", (unsigned long long)s.rounded);
		sbuf_addch(head, '\n');
	}
	import_json_free(&s.j);
	free(s.frame_str);
	free(s.frame_len);
	free(s.frame_id);
	free(s.frame_first);
	free(s.self);
	sbuf_release(&s.names);
	return rc;
}

void import_tree_text(const struct ftree *t, struct sbuf *out)
{
	struct import_agg a;
	import_agg_init(&a, t->scale);
	struct sbuf b = SBUF_INIT, e = SBUF_INIT;
	for (uint32_t i = 1; i < t->n; i++) {
		int64_t w = ftree_self(t, i, 0);
		if (!w)
			continue;
		sbuf_reset(&b);
		folded_put_path(&b, t, i);
		folded_end_stack(&b, 0, true);
		import_agg_add(&a, b.buf, b.len, w, &e); /* the tree's total fits: so does every sum */
	}
	import_agg_write(&a, out);
	import_agg_free(&a);
	sbuf_release(&b);
	sbuf_release(&e);
}

int import_speedscope(const char *buf, size_t len, const char *name, const struct import_opts *o,
		      struct sbuf *out, struct import_stats *st, struct sbuf *err)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	int rc = import_speedscope_tree(buf, len, name, o, &t, out, st, err);
	if (!rc)
		import_tree_text(&t, out);
	ftree_release(&t);
	return rc;
}
