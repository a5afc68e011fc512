/* diff_steps.c — change vs step-to-step noise in a diff (see diff_steps.h). */
#include "stacks/ops/diff_steps.h"

#include "base/names.h"
#include "stacks/ops/stepnoise.h"

#include <stdlib.h>
#include <string.h>

bool diff_steps_input(const struct ftree *in, const char **marker)
{
	const char *ps = ftree_meta_get(&in->meta, "per_step");
	*marker = names_marker(ftree_meta_get(&in->meta, "step_marker"));
	return ps && !strcmp(ps, "yes");
}

void diff_steps_col_release(struct diff_steps_col *c)
{
	vec_free(&c->v);
	memset(c, 0, sizeof *c);
}

static int cmp_val(const void *pa, const void *pb)
{
	const struct diff_step_val *a = pa, *b = pb;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return (a->step > b->step) - (a->step < b->step);
}

/* Sorted by (node, step), equal pairs summed (frames that the name rules
 * merged). */
static void merge_vals(struct diff_steps_col *c)
{
	if (!c->v.n)
		return;
	qsort(c->v.v, c->v.n, sizeof *c->v.v, cmp_val);
	size_t k = 0;
	for (size_t i = 1; i < c->v.n; i++) {
		struct diff_step_val *a = &c->v.v[k], *b = &c->v.v[i];
		if (a->node == b->node && a->step == b->step) {
			a->total += b->total;
			a->self += b->self;
		} else {
			c->v.v[++k] = *b;
		}
	}
	c->v.n = k + 1;
}

/* One node's per-step values of one input into out[0..n) (zeros where the
 * node has no weight in a step); @return whether they account for all of
 * the node's raw weight want (else some of it lies outside the steps). */
static bool fill(const struct diff_step_val *v, size_t lo, size_t hi, bool self, int64_t *out, size_t n,
		 int64_t want)
{
	memset(out, 0, n * sizeof *out);
	__int128 sum = 0;
	for (size_t i = lo; i < hi; i++) {
		int64_t w = self ? v[i].self : v[i].total;
		if (v[i].step < n)
			out[v[i].step] = w;
		sum += w;
	}
	return sum == want;
}

/* The mean of AFTER's values (times ym) against BEFORE's (times xm): +1
 * larger, -1 smaller, 0 equal (as doubles: only the sign is used). */
static int mean_dir(const int64_t *x, size_t n0, int64_t xm, const int64_t *y, size_t n1, int64_t ym)
{
	double sx = 0, sy = 0;
	for (size_t i = 0; i < n0; i++)
		sx += (double)x[i];
	for (size_t j = 0; j < n1; j++)
		sy += (double)y[j];
	double a = sy * (double)ym / (double)n1, b = sx * (double)xm / (double)n0;
	return a > b ? 1 : a < b ? -1 : 0;
}

struct fam {
	double *p;      /* per node: the test's p-value (1 when untested) */
	int8_t *dir;    /* per node: direction of the per-step means */
	bool *tested;   /* per node: a change, with per-step values on both sides */
};

/* BH over one family; then the classes cls of its nodes. @return rejections. */
static uint32_t decide(const struct diff_result *r, const struct diff_opts *o, struct fam *f, bool self,
		       uint8_t *cls)
{
	const struct ftree *t = &r->t;
	size_t m = 0;
	for (uint32_t u = 0; u < t->n; u++)
		m += f->tested[u];
	double *p = gf_xmalloc((m ? m : 1) * sizeof *p);
	uint32_t *idx = gf_xmalloc((m ? m : 1) * sizeof *idx);
	size_t k = 0;
	for (uint32_t u = 0; u < t->n; u++)
		if (f->tested[u]) {
			p[k] = f->p[u];
			idx[k++] = u;
		}
	bool *rej = gf_xmalloc((m ? m : 1) * sizeof *rej);
	stepnoise_bh(p, m, o->alpha, rej);
	uint32_t changed = 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t u = idx[i];
		int64_t d = self ? ftree_self(t, u, 1) - ftree_self(t, u, 0) : t->total2[u] - t->total[u];
		int dir = d > 0 ? 1 : -1;
		if (rej[i] && f->dir[u] == dir) {
			cls[u] = (uint8_t)(dir > 0 ? DIFF_GREW : DIFF_SHRANK);
			changed++;
		} else {
			cls[u] = DIFF_NOISE;
		}
	}
	free(p);
	free(idx);
	free(rej);
	return changed;
}

bool diff_steps_classify(struct diff_result *r, const struct diff_opts *o, struct diff_steps_col col[2],
			 int64_t xm, int64_t ym)
{
	r->step_data[0] = col[0].on;
	r->step_data[1] = col[1].on;
	if (!col[0].on || !col[1].on)
		return false;
	size_t n[2];
	for (int c = 0; c < 2; c++) {
		merge_vals(&col[c]);
		n[c] = col[c].nsteps;
		if (col[c].header > 0 && (uint64_t)col[c].header > n[c] && col[c].header < (int64_t)1 << 30)
			n[c] = (size_t)col[c].header; /* steps without any weight: zeros */
		r->test_steps[c] = (uint32_t)n[c];
	}
	r->min_p = stepnoise_min_p(n[0], n[1]);
	if (n[0] < 2 || n[1] < 2 || !(r->min_p < o->alpha)) {
		r->too_few = true;
		return false;
	}
	const struct ftree *t = &r->t;
	struct fam fam[2];
	for (int s = 0; s < 2; s++) {
		fam[s].p = gf_xmalloc(t->n * sizeof *fam[s].p);
		fam[s].dir = gf_xcalloc(t->n, sizeof *fam[s].dir);
		fam[s].tested = gf_xcalloc(t->n, sizeof *fam[s].tested);
		for (uint32_t u = 0; u < t->n; u++)
			fam[s].p[u] = 1;
	}
	int64_t *x = gf_xmalloc(n[0] * sizeof *x), *y = gf_xmalloc(n[1] * sizeof *y);
	struct stepnoise *sn = stepnoise_new();
	const struct diff_step_val *v0 = col[0].v.v, *v1 = col[1].v.v;
	size_t i0 = 0, i1 = 0;
	for (uint32_t u = 0; u < t->n; u++) {
		size_t e0 = i0, e1 = i1;
		while (e0 < col[0].v.n && v0[e0].node == u)
			e0++;
		while (e1 < col[1].v.n && v1[e1].node == u)
			e1++;
		for (int s = 0; s < 2; s++) { /* s = 0: the frame's total; 1: its self weight (a stack) */
			int64_t d = s ? ftree_self(t, u, 1) - ftree_self(t, u, 0) : t->total2[u] - t->total[u];
			if (!d)
				continue;
			if (!fill(v0, i0, e0, s, x, n[0], r->raw[4 * u + 2 * s]) ||
			    !fill(v1, i1, e1, s, y, n[1], r->raw[4 * u + 2 * s + 1]))
				continue; /* part of its weight lies outside the steps: classed by sign */
			fam[s].p[u] = stepnoise_mwu(sn, x, n[0], xm, y, n[1], ym, NULL);
			fam[s].dir[u] = (int8_t)mean_dir(x, n[0], xm, y, n[1], ym);
			fam[s].tested[u] = true;
			r->tested[s]++;
		}
		i0 = e0;
		i1 = e1;
	}
	stepnoise_free(sn);
	free(x);
	free(y);
	r->changed[0] = decide(r, o, &fam[0], false, r->cls_total);
	r->changed[1] = decide(r, o, &fam[1], true, r->cls_self);
	memcpy(r->p_total, fam[0].p, t->n * sizeof *r->p_total);
	memcpy(r->p_self, fam[1].p, t->n * sizeof *r->p_self);
	for (int s = 0; s < 2; s++) {
		free(fam[s].p);
		free(fam[s].dir);
		free(fam[s].tested);
	}
	return true;
}
