/* diff.c — differential profiles (see diff.h). */
#include "stacks/ops/diff.h"

#include "base/names.h"
#include "base/num.h"
#include "stacks/ops/diff_steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const diff_scale_names[] = {
	[DIFF_SCALE_AUTO] = "auto", [DIFF_SCALE_STEPS] = "steps", [DIFF_SCALE_TOTAL] = "total",
	[DIFF_SCALE_NONE] = "none", [DIFF_SCALE_N] = NULL,
};
_Static_assert(GF_ARRAY_LEN(diff_scale_names) == DIFF_SCALE_N + 1, "a name per scale");

void diff_opts_init(struct diff_opts *o)
{
	memset(o, 0, sizeof *o);
	o->scale = DIFF_SCALE_AUTO;
	o->decimals = 3;
	o->round = NORM_ROUND_LARGEST;
	o->normalise_names = true;
	o->sampled = -1;
	o->alpha = 0.01;
	o->min_share = 0.01;
}

/* ---- like with like ---- */

static void add_difference(struct sbuf *d, const char *key, const char *x, const char *y)
{
	if (d->len)
		sbuf_addstr(d, "; ");
	sbuf_addf(d, "%s: %s%s%s vs %s%s%s", key, x ? "'" : "", x ? x : "(absent)", x ? "'" : "",
		  y ? "'" : "", y ? y : "(absent)", y ? "'" : "");
}

static int check_key(const struct ftree_meta *b, const struct ftree_meta *a, const char *key, struct sbuf *d)
{
	const char *x = ftree_meta_get(b, key), *y = ftree_meta_get(a, key);
	if (!x && !y)
		return 0;
	if (x && y && !strcmp(x, y))
		return 0;
	add_difference(d, key, x, y);
	return 1;
}

int diff_check_meta(const struct ftree_meta *b, const struct ftree_meta *a, struct sbuf *diffs)
{
	static const char *const keys[] = { "weight", "unit", "rank", "world_size" };
	int n = 0;
	for (size_t i = 0; i < GF_ARRAY_LEN(keys); i++)
		n += check_key(b, a, keys[i], diffs);
	for (unsigned i = 0; i < b->n; i++)
		if (!strncmp(b->kv[i].key, "label.", 6))
			n += check_key(b, a, b->kv[i].key, diffs);
	for (unsigned i = 0; i < a->n; i++)
		if (!strncmp(a->kv[i].key, "label.", 6) && !ftree_meta_get(b, a->kv[i].key))
			n += check_key(b, a, a->kv[i].key, diffs);
	return n;
}

/* ---- name normalisation ---- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool starts(const char *s, size_t n, size_t i, const char *lit)
{
	size_t l = strlen(lit);
	return i + l <= n && !memcmp(s + i, lit, l);
}

static size_t digits_at(const char *s, size_t n, size_t i)
{
	size_t k = i;
	while (k < n && is_digit(s[k]))
		k++;
	return k - i;
}

size_t diff_name_normalise(const char *s, size_t n, struct sbuf *out)
{
	size_t reps = 0, i = 0;
	/* R3, R4, R6: a leading "process N" / "thread N" / "thread (N" (py-spy's
	 * and fold's thread frame "thread (TID): NAME", decimal ids) */
	static const char *const lead[] = { "process ", "thread ", "thread (" };
	for (size_t k = 0; k < GF_ARRAY_LEN(lead); k++) {
		size_t l = strlen(lead[k]);
		size_t d;
		if (starts(s, n, 0, lead[k]) && (d = digits_at(s, n, l)) > 0 &&
		    /* "thread (0x7F..)" is R1's; R6 ends at ')' or ',' */
		    (k < 2 || (l + d < n && (s[l + d] == ')' || s[l + d] == ',')))) {
			sbuf_add(out, s, l);
			sbuf_addstr(out, "...");
			i = l + d;
			reps++;
			break;
		}
	}
	while (i < n) {
		char c = s[i];
		/* R1: 0x<hex> */
		if (c == '0' && i + 2 < n + 0 && (s[i + 1] == 'x' || s[i + 1] == 'X') && is_hex(s[i + 2])) {
			size_t k = i + 2;
			while (k < n && is_hex(s[k]))
				k++;
			sbuf_addstr(out, "0x...");
			i = k;
			reps++;
			continue;
		}
		/* R2: ProfilerStep#N */
		if (c == 'P' && starts(s, n, i, "ProfilerStep#") && digits_at(s, n, i + 13) > 0) {
			sbuf_addstr(out, "ProfilerStep#...");
			i += 13 + digits_at(s, n, i + 13);
			reps++;
			continue;
		}
		/* R5: pid/tid + separator + digits, not inside a longer word */
		if ((c == 'p' || c == 't') && (starts(s, n, i, "pid") || starts(s, n, i, "tid")) &&
		    (i == 0 || !((s[i - 1] >= 'a' && s[i - 1] <= 'z') || (s[i - 1] >= 'A' && s[i - 1] <= 'Z') ||
				 s[i - 1] == '_' || is_digit(s[i - 1]))) &&
		    i + 4 < n && (s[i + 3] == ' ' || s[i + 3] == '=' || s[i + 3] == ':' || s[i + 3] == '#') &&
		    digits_at(s, n, i + 4) > 0) {
			sbuf_add(out, s + i, 4);
			sbuf_addstr(out, "...");
			i += 4 + digits_at(s, n, i + 4);
			reps++;
			continue;
		}
		sbuf_addch(out, c);
		i++;
	}
	return reps;
}

/* ---- alignment ---- */

static int64_t meta_steps(const struct ftree_meta *m)
{
	const char *s = ftree_meta_get(m, "steps");
	int64_t v;
	if (!s || num_parse(s, strlen(s), 0, 0, &v) != NUM_OK || v <= 0)
		return 0;
	return v;
}

/* The step of each node of a per-step input (diff_steps.h): step[i] is the
 * index of the first step frame on its path (TRACE-like FT_NONE: none),
 * is_step[i] whether i is that frame. @return the steps seen. */
static uint32_t step_frames(const struct ftree *in, const char *marker, uint32_t *step, bool *is_step)
{
	uint32_t nn = pool_count(in->names), nsteps = 0;
	uint32_t *sid = gf_xmalloc((size_t)(nn ? nn : 1) * sizeof *sid); /* name -> step index */
	for (uint32_t k = 0; k < nn; k++)
		sid[k] = FT_NONE;
	step[0] = FT_NONE;
	is_step[0] = false;
	for (uint32_t i = 1; i < in->n; i++) {
		uint32_t p = in->parent[i], nm = in->name[i];
		int64_t num;
		is_step[i] = false;
		step[i] = step[p];
		if (step[p] != FT_NONE ||
		    !names_step(pool_str(in->names, nm), pool_len(in->names, nm), marker, &num))
			continue;
		if (sid[nm] == FT_NONE)
			sid[nm] = nsteps++;
		step[i] = sid[nm];
		is_step[i] = true;
	}
	free(sid);
	return nsteps;
}

/* Notes the per-step weights of input node i (mapped to out node u): under
 * a step its own; a step frame's go to every node above it. */
static void note_steps(const struct ftree *in, const struct ftree *out, uint32_t i, uint32_t u, const uint32_t *step,
		       const bool *is_step, struct diff_steps_col *sc)
{
	if (step[i] == FT_NONE)
		return;
	struct diff_step_val v = { u, step[i], in->total[i], ftree_self(in, i, 0) };
	if (!is_step[i]) {
		vec_push(&sc->v, v);
		return;
	}
	/* u is the step frame's parent in out: its self weight is u's in this
	 * step; its total counts in u and every node above */
	vec_push(&sc->v, v);
	v.self = 0;
	for (uint32_t a = u; a != 0;) {
		a = out->parent[a];
		v.node = a;
		vec_push(&sc->v, v);
	}
}

/* The result's name id of input name nm (nmap caches them; FT_NONE: not
 * yet), normalised by the rules R1-R6 when norm_names; find: look it up
 * only (FT_NONE when the result has no such name). */
static uint32_t out_name(struct diff_result *r, const struct ftree *in, uint32_t nm, uint32_t *nmap,
			 bool norm_names, bool find, struct sbuf *nb)
{
	if (nmap[nm] != FT_NONE)
		return nmap[nm];
	struct pool *names = r->t.names;
	const char *s = pool_str(in->names, nm);
	uint32_t len = pool_len(in->names, nm);
	sbuf_reset(nb);
	if (norm_names && diff_name_normalise(s, len, nb)) {
		if (!find)
			r->renamed++;
		s = nb->buf;
		len = (uint32_t)nb->len;
	}
	return nmap[nm] = find ? pool_find(names, s, len) : pool_intern(names, s, len);
}

static uint32_t *name_map(const struct ftree *in)
{
	uint32_t nn = pool_count(in->names);
	uint32_t *nmap = gf_xmalloc((size_t)(nn ? nn : 1) * sizeof *nmap);
	for (uint32_t i = 0; i < nn; i++)
		nmap[i] = FT_NONE;
	return nmap;
}

/*
 * The per-step weights of a per-step fold of a side already aligned from
 * its fold without steps (a sidecar: diff_opts.step_side): its nodes are
 * found, never created, in the result (step frames collapsed). @return
 * false when a node is missing (the two do not hold the same stacks).
 */
static bool note_sidecar(struct diff_result *r, const struct ftree *in, bool norm_names, struct diff_steps_col *sc)
{
	const char *marker;
	if (!diff_steps_input(in, &marker))
		return false;
	uint32_t *nmap = name_map(in), *map = gf_xmalloc((size_t)in->n * sizeof *map);
	uint32_t *step = gf_xmalloc((size_t)in->n * sizeof *step);
	bool *is_step = gf_xmalloc((size_t)in->n * sizeof *is_step);
	sc->nsteps = step_frames(in, marker, step, is_step);
	sc->header = meta_steps(&in->meta);
	struct sbuf nb = SBUF_INIT;
	bool ok = true;
	map[0] = 0;
	for (uint32_t i = 1; i < in->n && ok; i++) {
		if (is_step[i]) {
			map[i] = map[in->parent[i]];
		} else {
			uint32_t nm = out_name(r, in, in->name[i], nmap, norm_names, true, &nb);
			map[i] = nm == UINT32_MAX ? FT_NONE : ftree_find(&r->t, map[in->parent[i]], nm);
			ok = map[i] != FT_NONE;
		}
		if (ok)
			note_steps(in, &r->t, i, map[i], step, is_step, sc);
	}
	sbuf_release(&nb);
	free(nmap);
	free(map);
	free(step);
	free(is_step);
	sc->on = ok;
	return ok;
}

/* Adds every node of `in` into column col of out (same scale); a per-step
 * input's step frames are collapsed into their parents and its per-step
 * weights noted in sc (diff_steps.h). */
static void align_one(struct diff_result *r, const struct ftree *in, int col, bool norm_names,
		      struct diff_steps_col *sc)
{
	struct ftree *out = &r->t;
	uint32_t *nmap = name_map(in);
	uint32_t *map = gf_xmalloc((size_t)in->n * sizeof *map);
	uint32_t *step = NULL;
	bool *is_step = NULL;
	const char *marker;
	sc->on = diff_steps_input(in, &marker);
	if (sc->on) {
		step = gf_xmalloc((size_t)in->n * sizeof *step);
		is_step = gf_xmalloc((size_t)in->n * sizeof *is_step);
		sc->nsteps = step_frames(in, marker, step, is_step);
		sc->header = meta_steps(&in->meta);
	}
	struct sbuf nb = SBUF_INIT;
	map[0] = 0;
	if (col)
		out->total2[0] += in->total[0];
	else
		out->total[0] += in->total[0];
	for (uint32_t i = 1; i < in->n; i++) {
		uint32_t nm = in->name[i];
		if (sc->on && is_step[i]) { /* collapsed: its weight is its parent's already */
			map[i] = map[in->parent[i]];
			note_steps(in, out, i, map[i], step, is_step, sc);
			continue;
		}
		map[i] = ftree_child(out, map[in->parent[i]], out_name(r, in, nm, nmap, norm_names, false, &nb));
		/* all totals are <= the input's root total: no overflow */
		if (col)
			out->total2[map[i]] += in->total[i];
		else
			out->total[map[i]] += in->total[i];
		if (sc->on)
			note_steps(in, out, i, map[i], step, is_step, sc);
	}
	sbuf_release(&nb);
	free(map);
	free(nmap);
	free(step);
	free(is_step);
}

double diff_ztest(double x1, double n1, double x2, double n2)
{
	if (n1 <= 0 || n2 <= 0)
		return 1.0;
	double p1 = x1 / n1, p2 = x2 / n2, p = (x1 + x2) / (n1 + n2);
	double v = p * (1 - p) * (1 / n1 + 1 / n2);
	if (v <= 0)
		return p1 == p2 ? 1.0 : 0.0;
	double z = fabs(p2 - p1) / sqrt(v);
	return erfc(z / sqrt(2.0));
}

/* raw shares of one node, column c, total or self */
static void classify(struct diff_result *r, const struct diff_opts *o, const double *raw,
		     uint8_t *cls, bool is_total)
{
	struct ftree *t = &r->t;
	double n1 = (double)r->raw_total[0], n2 = (double)r->raw_total[1];
	for (uint32_t i = 0; i < t->n; i++) {
		int64_t b = is_total ? t->total[i] : ftree_self(t, i, 0);
		int64_t a = is_total ? t->total2[i] : ftree_self(t, i, 1);
		int64_t d = a - b;
		int dir = d > 0 ? DIFF_GREW : d < 0 ? DIFF_SHRANK : DIFF_SAME;
		if (!r->sampled || dir == DIFF_SAME) {
			cls[i] = (uint8_t)dir;
			continue;
		}
		double x1 = raw[2 * i], x2 = raw[2 * i + 1];
		double s1 = n1 > 0 ? x1 / n1 : 0, s2 = n2 > 0 ? x2 / n2 : 0;
		if (s1 < o->min_share && s2 < o->min_share) {
			cls[i] = DIFF_SMALL;
			continue;
		}
		double p = diff_ztest(x1, n1, x2, n2);
		if (is_total)
			r->p_total[i] = p;
		int share_dir = s2 > s1 ? DIFF_GREW : s2 < s1 ? DIFF_SHRANK : DIFF_SAME;
		cls[i] = (uint8_t)(p < o->alpha && share_dir == dir ? dir : DIFF_NOISE);
	}
}

/* A per-step input's header made the one of its steps' sum: no per_step
 * key, no step level in stack= (the step frames are collapsed). */
static void unstep_meta(struct ftree_meta *m)
{
	ftree_meta_del(m, "per_step");
	const char *st = ftree_meta_get(m, "stack");
	if (!st)
		return;
	struct sbuf b = SBUF_INIT;
	for (const char *p = st; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (!(n == 4 && !memcmp(p, "step", 4))) {
			if (b.len)
				sbuf_addch(&b, ',');
			sbuf_add(&b, p, n);
		}
		p += n + (e != NULL);
	}
	ftree_meta_set(m, "stack", b.buf ? b.buf : "");
	sbuf_release(&b);
}

/* Sample counts: no unit= (py-spy raw and plain flamegraph.pl files), or an
 * import's unit=samples (stacks/import.h; perf's periods, times and bytes are
 * not counts of samples). */
static bool sample_counts(const struct ftree *t)
{
	const char *u = ftree_meta_get(&t->meta, "unit");
	return !u || !strcmp(u, "samples");
}

int diff_run(struct diff_result *r, struct ftree *before, struct ftree *after,
	     const struct diff_opts *o, struct sbuf *err)
{
	memset(r, 0, sizeof *r);
	if (before->ncols != 1 || after->ncols != 1) {
		sbuf_setf(err, "%s is already differential (two counts per line); diff needs one-count profiles",
			  before->ncols != 1 ? "BEFORE" : "AFTER");
		return GF_EUSAGE;
	}
	/* common scale */
	unsigned scale = GF_MAX(before->scale, after->scale);
	if (ftree_set_scale(before, scale, err) || ftree_set_scale(after, scale, err))
		return GF_EINPUT;
	if (o->sampled >= 0)
		r->sampled = o->sampled;
	else
		r->sampled = scale == 0 && sample_counts(before) && sample_counts(after);
	r->steps[0] = o->steps[0] ? o->steps[0] : meta_steps(&before->meta);
	r->steps[1] = o->steps[1] ? o->steps[1] : meta_steps(&after->meta);
	r->scale = o->scale;
	r->alpha = o->alpha;
	if (r->scale == DIFF_SCALE_AUTO) {
		r->scale = r->steps[0] && r->steps[1] ? DIFF_SCALE_STEPS : DIFF_SCALE_NONE;
		if (!r->steps[0] != !r->steps[1])
			snprintf(r->note, sizeof r->note,
				 "only %s has a step count (steps=%lld): weights are not normalised; give --steps N,M",
				 r->steps[0] ? "BEFORE" : "AFTER",
				 (long long)(r->steps[0] ? r->steps[0] : r->steps[1]));
	}
	if (r->scale == DIFF_SCALE_STEPS && (!r->steps[0] || !r->steps[1])) {
		sbuf_setf(err, "--scale steps needs step counts, but %s has no steps= header; give --steps N,M",
			  !r->steps[0] ? "BEFORE" : "AFTER");
		return GF_EUSAGE;
	}

	ftree_init(&r->t, o->names, 0);
	ftree_make_diff(&r->t);
	r->t.scale = scale;
	struct diff_steps_col sc[2];
	memset(sc, 0, sizeof sc);
	align_one(r, before, 0, o->normalise_names, &sc[0]);
	align_one(r, after, 1, o->normalise_names, &sc[1]);
	for (int c = 0; c < 2; c++)
		if (!sc[c].on && o->step_side[c] && !note_sidecar(r, o->step_side[c], o->normalise_names, &sc[c]))
			diff_steps_col_release(&sc[c]);
	if (sc[0].on && sc[1].on)
		r->sampled = false; /* the steps are the repeated measurements */
	struct ftree *t = &r->t;
	r->raw_total[0] = t->total[0];
	r->raw_total[1] = t->total2[0];
	r->raw_scale = scale;
	for (uint32_t i = 1; i < t->n; i++) {
		if (t->total[i] && !t->total2[i])
			r->only_before++;
		else if (!t->total[i] && t->total2[i])
			r->only_after++;
	}
	r->raw = gf_xmalloc((size_t)t->n * 4 * sizeof *r->raw);
	for (uint32_t i = 0; i < t->n; i++) {
		r->raw[4 * i] = t->total[i];
		r->raw[4 * i + 1] = t->total2[i];
		r->raw[4 * i + 2] = ftree_self(t, i, 0);
		r->raw[4 * i + 3] = ftree_self(t, i, 1);
	}
	for (int c = 0; c < 2; c++)
		r->mul[c] = r->num[c] = r->den[c] = 1;
	/* raw counts for the noise test, taken before normalisation */
	double *raw_tot = NULL, *raw_self = NULL;
	r->p_total = gf_xcalloc(t->n, sizeof *r->p_total);
	r->p_self = gf_xcalloc(t->n, sizeof *r->p_self);
	if (r->sampled) {
		raw_tot = gf_xmalloc((size_t)t->n * 2 * sizeof *raw_tot);
		raw_self = gf_xmalloc((size_t)t->n * 2 * sizeof *raw_self);
		for (uint32_t i = 0; i < t->n; i++) {
			raw_tot[2 * i] = (double)t->total[i];
			raw_tot[2 * i + 1] = (double)t->total2[i];
			raw_self[2 * i] = (double)ftree_self(t, i, 0);
			raw_self[2 * i + 1] = (double)ftree_self(t, i, 1);
		}
	}
	int rc = GF_OK;
	ftree_meta_copy(&t->meta, &after->meta);
	{
		const char *bs = ftree_meta_get(&before->meta, "source");
		if (bs)
			ftree_meta_set(&t->meta, "source.before", bs);
	}
	if (sc[1].on)
		unstep_meta(&t->meta); /* the result shows the steps' sum */
	if (r->scale == DIFF_SCALE_STEPS) {
		if ((rc = norm_add_decimals(t, o->decimals, err)) ||
		    (rc = norm_scale_col(t, 0, 1, r->steps[0], o->round, err)) ||
		    (rc = norm_scale_col(t, 1, 1, r->steps[1], o->round, err)))
			goto out;
		for (int c = 0; c < 2; c++)
			r->den[c] = r->steps[c];
		char buf[64];
		ftree_meta_set(&t->meta, "steps", "1");
		snprintf(buf, sizeof buf, "%lld", (long long)r->steps[0]);
		ftree_meta_set(&t->meta, "steps.before", buf);
		snprintf(buf, sizeof buf, "%lld", (long long)r->steps[1]);
		ftree_meta_set(&t->meta, "steps.after", buf);
		ftree_meta_set(&t->meta, "normalised", "per-step");
	} else if (r->scale == DIFF_SCALE_TOTAL) {
		if (t->total[0] && t->total[0] != t->total2[0]) {
			if ((rc = norm_add_decimals(t, o->decimals, err)) ||
			    (rc = norm_scale_col(t, 0, t->total2[0], t->total[0], o->round, err)))
				goto out;
			r->num[0] = r->raw_total[1];
			r->den[0] = r->raw_total[0];
		}
		ftree_meta_set(&t->meta, "normalised", "total");
	}
	for (unsigned k = r->raw_scale; k < t->scale; k++)
		r->mul[0] = r->mul[1] = r->mul[0] * 10;
	r->cls_total = gf_xcalloc(t->n, 1);
	r->cls_self = gf_xcalloc(t->n, 1);
	classify(r, o, raw_tot, r->cls_total, true);
	classify(r, o, raw_self, r->cls_self, false);
	{
		/* the per-step values compare as the normalised weights do: BEFORE
		 * scaled to AFTER's total with --scale total */
		int64_t xm = 1, ym = 1;
		if (r->scale == DIFF_SCALE_TOTAL && r->raw_total[0] && r->raw_total[0] != r->raw_total[1]) {
			xm = r->raw_total[1];
			ym = r->raw_total[0];
		}
		r->steps_test = diff_steps_classify(r, o, sc, xm, ym);
	}
	for (uint32_t i = 1; i < t->n; i++) {
		switch (r->cls_total[i]) {
		case DIFF_GREW: r->n_grew++; break;
		case DIFF_SHRANK: r->n_shrank++; break;
		case DIFF_NOISE: r->n_noise++; break;
		case DIFF_SMALL: r->n_small++; break;
		default: break;
		}
	}
out:
	diff_steps_col_release(&sc[0]);
	diff_steps_col_release(&sc[1]);
	free(raw_tot);
	free(raw_self);
	if (rc)
		diff_result_release(r);
	return rc;
}

void diff_result_release(struct diff_result *r)
{
	if (r->t.name)
		ftree_release(&r->t);
	free(r->cls_total);
	free(r->cls_self);
	free(r->p_total);
	free(r->p_self);
	free(r->raw);
	memset(r, 0, sizeof *r);
}

int diff_direction(const struct diff_result *r, uint32_t node, bool self)
{
	const uint8_t *c = self ? r->cls_self : r->cls_total;
	if (!c || node >= r->t.n)
		return 0;
	return c[node] == DIFF_GREW ? 1 : c[node] == DIFF_SHRANK ? -1 : 0;
}

/* ---- top table ---- */

static int cmp_rows(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	uint64_t dx = x->delta < 0 ? 0 - (uint64_t)x->delta : (uint64_t)x->delta;
	uint64_t dy = y->delta < 0 ? 0 - (uint64_t)y->delta : (uint64_t)y->delta;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

size_t diff_top(const struct diff_result *r, bool self, size_t n, struct diff_row *rows)
{
	const struct ftree *t = &r->t;
	if (!n || t->n < 2)
		return 0;
	struct diff_row *all = gf_xmalloc((size_t)t->n * sizeof *all);
	size_t k = 0;
	for (uint32_t i = 1; i < t->n; i++) {
		int64_t b = self ? ftree_self(t, i, 0) : t->total[i];
		int64_t a = self ? ftree_self(t, i, 1) : t->total2[i];
		if (a == b)
			continue;
		all[k].node = i;
		all[k].before = b;
		all[k].after = a;
		all[k].delta = a - b;
		k++;
	}
	qsort(all, k, sizeof *all, cmp_rows);
	if (k > n)
		k = n;
	memcpy(rows, all, k * sizeof *rows);
	free(all);
	return k;
}
