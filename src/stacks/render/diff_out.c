/*
 * diff_out.c — writers of a differential result: the SVG (fill, outline,
 * tooltip and legend hooks of svg_render), the --top tables and the
 * 3-column text. See diff_out.h; the colour convention is in docs/diff.md.
 */
#include "stacks/render/diff_out.h"

#include "base/escape.h"
#include "base/num.h"
#include "stacks/ops/merge.h"
#include "stacks/render/svg.h"

#include <stdlib.h>
#include <string.h>

void diff_out_svg_opts_init(struct diff_out_svg_opts *o)
{
	struct diff_opts d;
	diff_opts_init(&d);
	memset(o, 0, sizeof *o);
	o->alpha = d.alpha;
	o->min_share = d.min_share;
}

/* "+12.5%", "-3%", "new" (before is 0): delta * 1000 / before, exact. */
static void fmt_rel(struct sbuf *b, int64_t before, int64_t delta)
{
	if (!before) {
		sbuf_addstr(b, "new");
		return;
	}
	int64_t q;
	if (!num_muldiv(delta, 1000, before, &q)) {
		sbuf_addstr(b, "?");
		return;
	}
	if (q > 0)
		sbuf_addch(b, '+');
	num_fmt_fixed(b, q, 1, 1, false);
	sbuf_addch(b, '%');
}

static void fmt_delta(struct sbuf *b, int64_t d, unsigned scale)
{
	if (d > 0)
		sbuf_addch(b, '+');
	num_fmt(b, d, scale);
}

/* "B -> A, +D (+P%)", or "0" when both are 0. */
static void add_change(struct sbuf *out, int64_t b, int64_t a, unsigned scale)
{
	if (!a && !b) {
		sbuf_addch(out, '0');
		return;
	}
	num_fmt(out, b, scale);
	sbuf_addstr(out, " -> ");
	num_fmt(out, a, scale);
	sbuf_addstr(out, ", ");
	fmt_delta(out, a - b, scale);
	sbuf_addstr(out, " (");
	fmt_rel(out, b, a - b);
	sbuf_addch(out, ')');
}

static uint64_t mag(int64_t d)
{
	return d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
}

void diff_out_maxima(const struct diff_result *r, int64_t *maxd, int64_t *maxsd)
{
	const struct ftree *t = &r->t;
	*maxd = *maxsd = 0;
	for (uint32_t i = 1; i < t->n; i++) {
		int64_t d = t->total2[i] - t->total[i];
		if (d < 0)
			d = -d;
		if (d > *maxd)
			*maxd = d;
		d = ftree_self(t, i, 1) - ftree_self(t, i, 0);
		if (d < 0)
			d = -d;
		if (d > *maxsd)
			*maxsd = d;
	}
}

/* Column `which` (0 before, 1 after, in the result) of node while the
 * renderer sees the tree with its columns swapped when negate. */
static int64_t col(const struct ftree *t, bool negate, uint32_t node, int which, bool self)
{
	int k = negate ? !which : which;
	return self ? ftree_self(t, node, k) : ftree_total(t, node, k);
}

void diff_out_fill(const struct diff_result *r, bool negate, int64_t maxd, uint32_t node,
		   char rgb[24])
{
	uint8_t cls = r->cls_total[node];
	if (cls == DIFF_NOISE || cls == DIFF_SMALL) {
		snprintf(rgb, 24, "rgb(220,220,220)");
		return;
	}
	int64_t d = col(&r->t, negate, node, 1, false) - col(&r->t, negate, node, 0, false);
	if (cls == DIFF_SAME || !d) {
		snprintf(rgb, 24, "rgb(250,250,250)");
		return;
	}
	uint64_t ad = mag(d);
	uint64_t m = maxd > 0 ? (uint64_t)maxd : 1;
	if (ad > m)
		ad = m;
	/* 210 (pale) .. 0 (saturated), as flamegraph.pl */
	int v = (int)(210.0 * (double)(m - ad) / (double)m);
	if (d > 0)
		snprintf(rgb, 24, "rgb(255,%d,%d)", v, v);
	else
		snprintf(rgb, 24, "rgb(%d,%d,255)", v, v);
}

int diff_out_stroke(const struct diff_result *r, bool negate, int64_t maxsd, uint32_t node,
		    char rgb[24], double *width)
{
	if (node == 0)
		return 0;
	int dir = diff_direction(r, node, true);
	int64_t d = col(&r->t, negate, node, 1, true) - col(&r->t, negate, node, 0, true);
	if (!dir || !d || (d > 0) != (dir > 0))
		return 0;
	uint64_t ad = mag(d);
	uint64_t m = maxsd > 0 ? (uint64_t)maxsd : 1;
	if (ad > m)
		ad = m;
	*width = 0.5 + 2.0 * (double)ad / (double)m;
	snprintf(rgb, 24, dir > 0 ? "rgb(160,0,0)" : "rgb(0,0,160)");
	return 1;
}

/* ---- svg_render hooks ---- */

struct svgctx {
	const struct diff_result *r;
	bool negate;
	int64_t maxd, maxsd;
};

static int hook_color(void *ctx, const struct ftree *t, uint32_t node, char rgb[24])
{
	const struct svgctx *c = ctx;
	(void)t;
	diff_out_fill(c->r, c->negate, c->maxd, node, rgb);
	return 1;
}

static int hook_stroke(void *ctx, const struct ftree *t, uint32_t node, char rgb[24], double *width)
{
	const struct svgctx *c = ctx;
	(void)t;
	return diff_out_stroke(c->r, c->negate, c->maxsd, node, rgb, width);
}

static void hook_tooltip(void *ctx, const struct ftree *t, uint32_t node, struct sbuf *out)
{
	const struct svgctx *c = ctx;
	const struct diff_result *r = c->r;
	sbuf_add(out, pool_str(t->names, t->name[node]), pool_len(t->names, t->name[node]));
	sbuf_addstr(out, " (total ");
	add_change(out, col(t, c->negate, node, 0, false), col(t, c->negate, node, 1, false), t->scale);
	sbuf_addstr(out, "; self ");
	add_change(out, col(t, c->negate, node, 0, true), col(t, c->negate, node, 1, true), t->scale);
	if (r->scale == DIFF_SCALE_STEPS)
		sbuf_addstr(out, "; per step");
	diff_out_node_noise(out, r, node);
	sbuf_addch(out, ')');
}

void diff_out_node_noise(struct sbuf *out, const struct diff_result *r, uint32_t node)
{
	uint8_t cls = r->cls_total[node];
	const char *what = r->steps_test ? "step-to-step" : "sampling";
	if (r->steps_test && r->p_total[node] >= 1 && cls != DIFF_NOISE)
		return; /* not tested: weight outside the steps, classed by sign */
	if (cls == DIFF_NOISE)
		sbuf_addf(out, "; within %s noise, p=%.2g", what, r->p_total[node]);
	else if (cls == DIFF_SMALL)
		sbuf_addstr(out, "; under the noise share");
	else if ((r->sampled || r->steps_test) && (cls == DIFF_GREW || cls == DIFF_SHRANK))
		sbuf_addf(out, "; %s, p=%.2g", r->steps_test ? "beyond step-to-step noise" : "significant", r->p_total[node]);
}

void diff_out_noise(struct sbuf *b, const struct diff_result *r)
{
	if (r->steps_test) {
		sbuf_addf(b, "Step-to-step noise: Mann-Whitney U on the per-step values (%u steps before, %u after), "
			  "Benjamini-Hochberg at %g per family: %u of %u changed stacks and %u of %u changed frames "
			  "are beyond step-to-step noise; the others are noise.",
			  r->test_steps[0], r->test_steps[1], r->alpha, r->changed[1], r->tested[1], r->changed[0],
			  r->tested[0]);
	} else if (r->too_few) {
		sbuf_addf(b, "Step-to-step noise: too few steps to tell a change from noise (%u before, %u after: the "
			  "smallest p-value they can give, %.2g, is not below %g); changes are classed by their sign.",
			  r->test_steps[0], r->test_steps[1], r->min_p, r->alpha);
	} else if (r->step_data[0] != r->step_data[1]) {
		sbuf_addf(b, "Step-to-step noise: only %s has per-step values; changes are classed by their sign.",
			  r->step_data[0] ? "BEFORE" : "AFTER");
	} else if (!r->sampled) {
		sbuf_addstr(b, "Exact weights without per-step values: changes are classed by their sign (fold with "
			       "--per-step, or diff the traces, to tell them from step-to-step noise).");
	}
}

/* The legend lines: widths and fill, outline, total, noise (sampled). */
struct legend {
	struct sbuf fill, outline, total, noise;
	const char *lines[5];
};

static void legend_build(struct legend *l, const struct svgctx *c, const struct diff_out_svg_opts *o)
{
	const struct diff_result *r = c->r;
	const struct ftree *t = &r->t;
	bool neg = o->negate;
	const char *per = r->scale == DIFF_SCALE_STEPS ? " per step" : "";
	sbuf_init(&l->fill, 0);
	sbuf_init(&l->outline, 0);
	sbuf_init(&l->total, 0);
	sbuf_init(&l->noise, 0);
	sbuf_addf(&l->fill, "Widths: %s%s. Fill: change of each frame's total (itself + callees), "
		  "red = grew, blue = shrank, deeper = larger (max ", neg ? "BEFORE" : "AFTER", per);
	fmt_delta(&l->fill, c->maxd, t->scale);
	sbuf_addstr(&l->fill, "); white = unchanged.");
	sbuf_addstr(&l->outline, "Outline: change of the frame's own (self) weight, dark red = grew, "
		    "dark blue = shrank, thicker = larger (0.5 to 2.5 px, max ");
	fmt_delta(&l->outline, c->maxsd, t->scale);
	sbuf_addstr(&l->outline, r->sampled || r->steps_test ? "); significant changes only. Both changes: in each tooltip."
							     : "); none = unchanged. Both changes: in each tooltip.");
	sbuf_addstr(&l->total, "Total");
	sbuf_addstr(&l->total, per);
	sbuf_addstr(&l->total, ": ");
	add_change(&l->total, t->total[0], t->total2[0], t->scale);
	sbuf_addf(&l->total, ". Frames only in %s (not drawn, see %s): %u.", neg ? "AFTER" : "BEFORE",
		  neg ? "the default view" : "--negate", neg ? r->only_after : r->only_before);
	if (r->sampled)
		sbuf_addf(&l->noise, "Sampled counts: grey = change within noise (two-proportion test, alpha %g: %u "
			  "frames) or under %g%% share (%u frames).", o->alpha, r->n_noise,
			  o->min_share * 100, r->n_small);
	else if (r->steps_test)
		sbuf_addf(&l->noise, "Grey = change within step-to-step noise (%u frames): ", r->n_noise);
	if (!r->sampled)
		diff_out_noise(&l->noise, r);
	l->lines[0] = l->fill.buf;
	l->lines[1] = l->outline.buf;
	l->lines[2] = l->total.buf;
	l->lines[3] = l->noise.len ? l->noise.buf : NULL;
	l->lines[4] = NULL;
}

static void legend_release(struct legend *l)
{
	sbuf_release(&l->fill);
	sbuf_release(&l->outline);
	sbuf_release(&l->total);
	sbuf_release(&l->noise);
}

static void swap_cols(struct ftree *t)
{
	int64_t *x = t->total;
	t->total = t->total2;
	t->total2 = x;
}

/* Renders to fp, or to out when fp is NULL. */
static int render(struct diff_result *r, const struct diff_out_svg_opts *o, FILE *fp,
		  struct sbuf *out, struct sbuf *err)
{
	struct svgctx c = { .r = r, .negate = o->negate, .maxd = 0, .maxsd = 0 };
	struct ftree *t = &r->t;
	diff_out_maxima(r, &c.maxd, &c.maxsd);
	struct legend l;
	legend_build(&l, &c, o);
	struct svg_opts so;
	svg_opts_init(&so);
	so.title = o->title ? o->title : o->negate ? "Differential flame graph (before's shape)"
						  : "Differential flame graph";
	so.color = hook_color;
	so.tooltip = hook_tooltip;
	so.stroke = hook_stroke;
	so.ctx = &c;
	so.legend = l.lines;
	const char *u = ftree_meta_get(&t->meta, "unit");
	if (u)
		so.countname = u;
	if (o->negate) /* widths = before: swap the columns for the renderer */
		swap_cols(t);
	ftree_sort(t);
	int rc = fp ? svg_render(t, &so, fp, NULL, err) : svg_render_buf(t, &so, out, NULL, err);
	if (o->negate)
		swap_cols(t);
	legend_release(&l);
	return rc;
}

int diff_out_svg(struct diff_result *r, const struct diff_out_svg_opts *o, FILE *fp,
		 struct sbuf *err)
{
	return render(r, o, fp, NULL, err);
}

int diff_out_svg_buf(struct diff_result *r, const struct diff_out_svg_opts *o, struct sbuf *out,
		     struct sbuf *err)
{
	return render(r, o, NULL, out, err);
}

/* ---- --top ---- */

/* The exact normalised weight of node in column c (self or total) as n / d,
 * d > 0 (diff.h: raw * mul * num / den); false when it does not fit. */
static bool exact_frac(const struct diff_result *r, uint32_t node, int c, bool self, __int128 *n,
		       __int128 *d)
{
	if (!r->raw || r->den[c] <= 0)
		return false;
	__int128 x = r->raw[4 * (size_t)node + (self ? 2 : 0) + (size_t)c];
	if (__builtin_mul_overflow(x, (__int128)r->mul[c], &x) ||
	    __builtin_mul_overflow(x, (__int128)r->num[c], &x))
		return false;
	*n = x;
	*d = r->den[c];
	return true;
}

/* n / d (d > 0) rounded half to even; false past int64. */
static bool round_frac(__int128 n, __int128 d, int64_t *out)
{
	__int128 q = n / d, rm = n % d;
	if (rm < 0) {
		q--;
		rm += d;
	}
	if (2 * rm > d || (2 * rm == d && (q & 1)))
		q++;
	if (q > INT64_MAX || q < INT64_MIN)
		return false;
	*out = (int64_t)q;
	return true;
}

/* One --top row printed exactly: before, after and delta are the exact
 * normalised values rounded to the result's scale (half to even), delta%
 * the exact change relative to before (one decimal), not sums of the
 * rounded stack lines (those carry the largest-remainder units, e.g.
 * 9589.499999 for 9589.5). Falls back to the rounded tree's values when the
 * exact ones do not fit 128 bits. */
struct top_vals {
	int64_t before, after, delta, rel; /* rel: delta * 1000 / before */
	bool is_new, rel_ok;
};

static void top_exact(const struct diff_result *r, const struct diff_row *row, bool self, struct top_vals *v)
{
	__int128 nb, db, na, da, dn, dd, rn, rd;
	v->before = row->before;
	v->after = row->after;
	v->delta = row->delta;
	v->is_new = !row->before;
	v->rel_ok = !v->is_new && num_muldiv(row->delta, 1000, row->before, &v->rel);
	if (!exact_frac(r, row->node, 0, self, &nb, &db) || !exact_frac(r, row->node, 1, self, &na, &da))
		return;
	/* delta = (na db - nb da) / (da db); rel = 1000 (na db - nb da) / (da nb) */
	if (__builtin_mul_overflow(na, db, &dn) || __builtin_mul_overflow(nb, da, &rn) ||
	    __builtin_sub_overflow(dn, rn, &dn) || __builtin_mul_overflow(da, db, &dd))
		return;
	int64_t b, a, d;
	if (!round_frac(nb, db, &b) || !round_frac(na, da, &a) || !round_frac(dn, dd, &d))
		return;
	v->before = b;
	v->after = a;
	v->delta = d;
	v->is_new = nb == 0;
	v->rel_ok = false;
	if (!v->is_new && !__builtin_mul_overflow(dn, (__int128)1000, &rn) &&
	    !__builtin_mul_overflow(da, nb, &rd)) {
		if (rd < 0) {
			rd = -rd;
			rn = -rn;
		}
		v->rel_ok = round_frac(rn, rd, &v->rel);
	}
}

/* "+12.5%", "-3%", "new" (before is 0), "?" (past int64) */
static void fmt_top_rel(struct sbuf *b, const struct top_vals *v)
{
	if (v->is_new) {
		sbuf_addstr(b, "new");
		return;
	}
	if (!v->rel_ok) {
		sbuf_addstr(b, "?");
		return;
	}
	if (v->rel > 0)
		sbuf_addch(b, '+');
	num_fmt_fixed(b, v->rel, 1, 1, false);
	sbuf_addch(b, '%');
}

static void top_table(FILE *fp, const struct diff_result *r, size_t n, bool self)
{
	static const char *const cls[] = { "same", "grew", "shrank", "noise", "small" };
	struct diff_row *rows = gf_xmalloc((n ? n : 1) * sizeof *rows);
	size_t k = diff_top(r, self, n, rows);
	const char *per = r->scale == DIFF_SCALE_STEPS ? " per step" : "";
	const char *unit = ftree_meta_get(&r->t.meta, "unit");
	fprintf(fp, "Biggest changes by %s weight%s%s%s%s:\n", self ? "self" : "total", per,
		unit ? " (" : "", unit ? unit : "", unit ? ")" : "");
	/* the last column holds whole stacks (root;...;frame), as the 3-column text */
	fprintf(fp, "%14s %14s %14s %9s  %-6s %s\n", "before", "after", "delta", "delta%", "class", "stack");
	struct sbuf b = SBUF_INIT, path = SBUF_INIT, c[4] = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT };
	for (size_t i = 0; i < k; i++) {
		sbuf_reset(&b);
		sbuf_reset(&path);
		for (int j = 0; j < 4; j++)
			sbuf_reset(&c[j]);
		struct top_vals v;
		top_exact(r, &rows[i], self, &v);
		num_fmt(&c[0], v.before, r->t.scale);
		num_fmt(&c[1], v.after, r->t.scale);
		fmt_delta(&c[2], v.delta, r->t.scale);
		fmt_top_rel(&c[3], &v);
		ftree_path(&r->t, rows[i].node, &path);
		esc_term(&b, path.buf, path.len);
		uint8_t cl = (self ? r->cls_self : r->cls_total)[rows[i].node];
		fprintf(fp, "%14s %14s %14s %9s  %-6s %s\n", c[0].buf, c[1].buf, c[2].buf, c[3].buf,
			cls[cl < 5 ? cl : 0], b.buf);
	}
	if (!k)
		fprintf(fp, "(no change)\n");
	sbuf_release(&b);
	sbuf_release(&path);
	for (int j = 0; j < 4; j++)
		sbuf_release(&c[j]);
	free(rows);
}

int diff_out_top(FILE *fp, const struct diff_result *r, size_t n)
{
	top_table(fp, r, n, false);
	fputc('\n', fp);
	top_table(fp, r, n, true);
	if (r->only_before || r->only_after)
		fprintf(fp, "\n%u frames only in BEFORE, %u only in AFTER\n", r->only_before, r->only_after);
	struct sbuf b = SBUF_INIT;
	diff_out_noise(&b, r);
	if (b.len)
		fprintf(fp, "\n%s\n", b.buf);
	sbuf_release(&b);
	return ferror(fp);
}

int diff_out_text(FILE *fp, struct diff_result *r, bool negate, bool terminal)
{
	if (negate)
		swap_cols(&r->t);
	int rc = merge_write_sorted(fp, &r->t, terminal);
	if (negate)
		swap_cols(&r->t);
	return rc;
}
