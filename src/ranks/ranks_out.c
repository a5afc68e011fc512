/* ranks_out.c — many ranks in text and Markdown (see ranks_out.h). */
#include "ranks/ranks_out.h"

#include "base/num.h"
#include "trace/write/prose.h"
#include "trace/write/report_fmt.h"

#include <stdlib.h>
#include <string.h>

/* A figure's value as the text prints it: ms at 3 decimals, a count, a
 * share as a percentage at 2 decimals. */
static void val(struct sbuf *b, int unit, int64_t v)
{
	if (v == INT64_MIN) {
		sbuf_addstr(b, "-");
		return;
	}
	if (unit == RU_NS) {
		num_fmt_fixed(b, v, 6, 3, false);
	} else if (unit == RU_SHARE) {
		num_fmt_fixed(b, v, 2, 2, false);
		sbuf_addch(b, '%');
	} else {
		sbuf_addf(b, "%lld", (long long)v);
	}
}

static void cell_val(struct rtable *t, int unit, int64_t v)
{
	struct sbuf b = SBUF_INIT;
	val(&b, unit, v);
	rtable_cell(t, b.buf);
	sbuf_release(&b);
}

static void cell_name(struct rtable *t, const struct ranks *r, long k)
{
	if (k < 0) {
		rtable_cell(t, "-");
		return;
	}
	struct sbuf b = SBUF_INIT;
	ranks_name(r, (size_t)k, &b);
	rtable_cell(t, b.buf);
	sbuf_release(&b);
}

static void ms3(struct sbuf *b, gf_ns ns)
{
	num_fmt_fixed(b, ns, 6, 3, false);
}


static void ms_unit(struct sbuf *b, gf_ns ns)
{
	num_fmt_fixed(b, ns, 6, 3, false);
	sbuf_addstr(b, " ms");
}

/* A kernel's name short enough for a sentence: without "void ", template
 * arguments and parameters; at most 80 bytes (cut at a UTF-8 boundary). */
static void kernel_short(struct sbuf *b, const char *k)
{
	if (!strncmp(k, "void ", 5))
		k += 5;
	size_t n = strcspn(k, "<(");
	if (!n)
		n = strlen(k);
	if (n > 80) {
		n = 77;
		while (n && ((unsigned char)k[n] & 0xc0) == 0x80)
			n--;
		sbuf_add(b, k, n);
		sbuf_addstr(b, "...");
		return;
	}
	sbuf_add(b, k, n);
}

void ranks_out_verdict(const struct ranks *r, struct sbuf *v, struct sbuf *a)
{
	const char *median_action = r->n ? r->rank[r->median].action : NULL;
	struct sbuf na = SBUF_INIT, nb = SBUF_INIT;
	const struct ranks_cmp *m = &r->cmp;
	if (m->group >= 0) {
		const struct ranks_group *g = &r->groups[m->group];
		ranks_name(r, (size_t)g->straggler, &na);
		if (!g->clear) {
			sbuf_addf(v, "No clear straggler: the ranks arrive last about equally often (%s most often, at "
				      "%llu of %llu matched collectives",
				  na.buf, (unsigned long long)g->last, (unsigned long long)g->matched);
			if (!r->fallback)
				sbuf_addf(v, " of process group '%s'", g->name);
			sbuf_addstr(v, ").");
		} else {
			sbuf_addf(v, "%s is the straggler", na.buf);
			if (!r->fallback)
				sbuf_addf(v, " of process group '%s' (%zu ranks)", g->name, g->members);
			sbuf_addf(v, ": it arrived last at %llu of %llu matched collectives (",
				  (unsigned long long)g->last, (unsigned long long)g->matched);
			prose_pct(v, (gf_ns)g->last, (gf_ns)g->matched);
			sbuf_addstr(v, "), and the other ranks waited ");
			ms_unit(v, g->waited);
			sbuf_addstr(v, " in total for it.");
		}
	} else {
		const struct ranks_verdict *x = r->nverdicts ? &r->verdicts[0] : NULL;
		uint64_t matched = 0;
		for (size_t g = 0; g < r->ngroups; g++)
			matched += r->groups[g].matched;
		if (matched)
			sbuf_addf(v, "No straggler: every one of the %llu matched collectives took as long on every rank",
				  (unsigned long long)matched);
		else
			sbuf_addstr(v, "No collective matched across the ranks");
		if (x && x->cause)
			sbuf_addf(v, "; the verdict of most ranks is %s (%zu of %zu)", x->cause, x->count, r->n);
		sbuf_addch(v, '.');
	}
	if (m->a >= 0 && m->b >= 0) {
		const struct ranks_rank *ka = &r->rank[m->a], *kb = &r->rank[m->b];
		sbuf_reset(&na);
		ranks_name(r, (size_t)m->a, &na);
		ranks_name(r, (size_t)m->b, &nb);
		sbuf_addf(a, "Compare %s with the median rank of its group, %s: its step wall is ", na.buf, nb.buf);
		ms_unit(a, ka->fig[RF_WALL]);
		sbuf_addstr(a, " against ");
		ms_unit(a, kb->fig[RF_WALL]);
		if (m->nk) {
			sbuf_addstr(a, ", and ");
			kernel_short(a, m->k[0].name);
			sbuf_addstr(a, " runs ");
			ms_unit(a, m->k[0].a - m->k[0].b);
			sbuf_addstr(a, " longer per step there");
		}
		sbuf_addstr(a, "; its time before the collectives is the cause.");
	} else if (median_action) {
		ranks_name(r, r->median, &nb);
		sbuf_addf(a, "For the median rank, %s: %s", nb.buf, median_action);
	} else {
		sbuf_addstr(a, "Look at one rank's report: gpuflame report TRACE.");
	}
	sbuf_release(&na);
	sbuf_release(&nb);
}

static void head(const struct ranks *r, const struct report_fmt *f, struct sbuf *out)
{
	struct sbuf b = SBUF_INIT;
	sbuf_addf(&b, "gpuflame report: %zu rank%s", r->n, r->n == 1 ? "" : "s");
	if (r->world_size > 0)
		sbuf_addf(&b, " of world size %lld", (long long)r->world_size);
	sbuf_addstr(&b, " (never merged)");
	f->title(out, b.buf, ""); /* our own words and numbers: nothing to escape */
	if (*r->options) {
		sbuf_addstr(out, "summarised with ");
		f->text(out, r->options);
		sbuf_addf(out, "\n%s", f->gap);
	}
	struct sbuf v = SBUF_INIT, a = SBUF_INIT;
	ranks_out_verdict(r, &v, &a);
	f->strong(out, "Verdict:");
	f->text(out, v.buf);
	sbuf_addf(out, "\n%s", f->gap);
	f->strong(out, "Next:");
	f->text(out, a.buf);
	sbuf_addch(out, '\n');
	sbuf_release(&v);
	sbuf_release(&a);
	sbuf_release(&b);
}

static int cmp_groups(const void *a, const void *b, void *ctx)
{
	const struct ranks *r = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct ranks_group *x = &r->groups[i], *y = &r->groups[j];
	if (x->waited != y->waited)
		return x->waited > y->waited ? -1 : 1;
	return (i > j) - (i < j);
}

static void groups(const struct ranks *r, const struct report_fmt *f, struct sbuf *out)
{
	f->heading(out, r->fallback ? "Straggler (minimum-wait rule; no process group in the traces: collectives "
				      "matched by kernel name and order)"
				    : "Stragglers by process group (minimum-wait rule over collectives matched by group "
				      "and sequence number)");
	if (!r->ngroups) {
		sbuf_addf(out, "%sNo NCCL collective in the selected steps of any rank.\n", f->lead);
		return;
	}
	size_t *ord = gf_xcalloc(r->ngroups, sizeof *ord);
	for (size_t g = 0; g < r->ngroups; g++)
		ord[g] = g;
	qsort_r(ord, r->ngroups, sizeof *ord, cmp_groups, (void *)r);
	struct rtable t;
	rtable_init(&t, 9);
	static const char *const h[9] = { "group", "description", "ranks", "matched", "unmatched", "straggler",
					  "arrived last", "others waited ms", "max wait ms" };
	for (unsigned c = 0; c < 9; c++)
		rtable_head(&t, c, h[c], c < 2 || c == 5 ? RT_LEFT : RT_RIGHT);
	size_t shown = r->ngroups < RANKS_OUT_GROUPS ? r->ngroups : RANKS_OUT_GROUPS;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < shown; i++) {
		const struct ranks_group *g = &r->groups[ord[i]];
		rtable_cell(&t, r->fallback ? "(all ranks)" : g->name);
		f->cell_long(&t, g->desc ? g->desc : "-", 24);
		rtable_cellf(&t, "%zu", g->members);
		rtable_cellf(&t, "%llu", (unsigned long long)g->matched);
		rtable_cellf(&t, "%llu", (unsigned long long)g->unmatched);
		cell_name(&t, r, g->straggler);
		sbuf_reset(&b);
		if (g->straggler >= 0) {
			sbuf_addf(&b, "%llu of %llu (", (unsigned long long)g->last, (unsigned long long)g->matched);
			prose_pct(&b, (gf_ns)g->last, (gf_ns)g->matched);
			sbuf_addstr(&b, g->clear ? ")" : ", not clear)");
		} else {
			sbuf_addstr(&b, "-");
		}
		rtable_cell(&t, b.buf);
		sbuf_reset(&b);
		ms3(&b, g->waited);
		rtable_cell(&t, g->straggler >= 0 ? b.buf : "-");
		sbuf_reset(&b);
		ms3(&b, g->max_wait);
		rtable_cell(&t, b.buf);
	}
	f->table(out, &t);
	if (shown < r->ngroups)
		sbuf_addf(out, "%s%zu more groups (fewer others waiting); the JSON lists every group.\n", f->next,
			  r->ngroups - shown);
	for (size_t i = 0, said = 0; i < r->ngroups && said < 3; i++) {
		const struct ranks_group *g = &r->groups[ord[i]];
		if (!g->mismatched)
			continue;
		said++;
		sbuf_reset(&b);
		ranks_name(r, (size_t)g->mismatch_at, &b);
		sbuf_addf(out, "%s", f->next);
		if (!r->fallback) {
			sbuf_addstr(out, "Group '");
			f->text(out, g->name);
			sbuf_addstr(out, "': ");
		}
		sbuf_addf(out, "%llu matched collectives differ in name or size across ranks (the first: seq "
			       "%lld, %s arrived last): a desynchronised collective.\n",
			  (unsigned long long)g->mismatched, (long long)g->mismatch_seq, b.buf);
	}
	sbuf_release(&b);
	free(ord);
}

/* "rank 7 (15.200), rank 3 (14.900), 2 more" */
static void outliers(const struct ranks *r, int fig, struct sbuf *b)
{
	const struct ranks_dist *d = &r->fig[fig];
	if (!d->nout) {
		sbuf_addstr(b, "-");
		return;
	}
	for (size_t i = 0; i < d->nout && i < 3; i++) {
		if (i)
			sbuf_addstr(b, ", ");
		ranks_name(r, d->out[i], b);
		sbuf_addstr(b, " (");
		val(b, ranks_figs[fig].unit, r->rank[d->out[i]].fig[fig]);
		sbuf_addch(b, ')');
	}
	if (d->nout > 3)
		sbuf_addf(b, ", %zu more", d->nout - 3);
}

static void figures(const struct ranks *r, const struct report_fmt *f, struct sbuf *out)
{
	f->heading(out, "Per-rank figures (the steady step of each rank; outlying: beyond 1.5 IQR of the "
			"quartiles)");
	struct rtable t;
	rtable_init(&t, 7);
	static const char *const h[7] = { "figure", "ranks", "min", "median", "p90", "max", "outlying ranks" };
	for (unsigned c = 0; c < 7; c++)
		rtable_head(&t, c, h[c], c == 0 || c == 6 ? RT_LEFT : RT_RIGHT);
	t.maxw[6] = 80;
	struct sbuf b = SBUF_INIT;
	for (int k = 0; k < RF_N; k++) {
		const struct ranks_dist *d = &r->fig[k];
		int u = ranks_figs[k].unit;
		if (!d->n)
			continue;
		rtable_cell(&t, ranks_figs[k].label);
		rtable_cellf(&t, "%zu", d->n);
		cell_val(&t, u, d->min);
		cell_val(&t, u, d->p50);
		cell_val(&t, u, d->p90);
		cell_val(&t, u, d->max);
		sbuf_reset(&b);
		outliers(r, k, &b);
		rtable_cell(&t, b.buf);
	}
	sbuf_release(&b);
	f->table(out, &t);
}

static void step_row(struct rtable *t, const struct ranks *r, const struct ranks_step *s)
{
	if (s->number < 0)
		rtable_cell(t, "(trace)");
	else
		rtable_cellf(t, "%lld%s", (long long)s->number, s->warm == s->n ? " (w)" : "");
	rtable_cellf(t, "%zu", s->n);
	cell_val(t, RU_NS, s->min);
	cell_val(t, RU_NS, s->p50);
	cell_val(t, RU_NS, s->max);
	cell_val(t, RU_NS, s->max - s->min);
	cell_name(t, r, (long)s->slowest);
}

static void skew(const struct ranks *r, size_t max, const struct report_fmt *f, struct sbuf *out)
{
	f->heading(out, "Step wall across ranks (skew; (w) = warm-up on every rank)");
	struct rtable t;
	rtable_init(&t, 7);
	static const char *const h[7] = { "step", "ranks", "min ms", "median ms", "max ms", "spread ms", "slowest" };
	for (unsigned c = 0; c < 7; c++)
		rtable_head(&t, c, h[c], c == 6 ? RT_LEFT : RT_RIGHT);
	if (!max)
		max = RANKS_OUT_STEPS;
	size_t first = r->nsteps <= max ? r->nsteps : (max + 1) / 2, last = r->nsteps <= max ? 0 : max / 2;
	for (size_t i = 0; i < first; i++)
		step_row(&t, r, &r->steps[i]);
	for (size_t i = r->nsteps - last; i < r->nsteps; i++)
		step_row(&t, r, &r->steps[i]);
	f->table(out, &t);
	if (first + last < r->nsteps)
		sbuf_addf(out, "%s%zu steps not shown (the first %zu and the last %zu are; --max-steps N shows more, "
			       "the JSON has every step).\n",
			  f->next, r->nsteps - first - last, first, last);
}

static void verdicts(const struct ranks *r, const struct report_fmt *f, struct sbuf *out)
{
	f->heading(out, "Verdicts across ranks");
	size_t other = 0;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < r->nverdicts; i++) {
		const struct ranks_verdict *v = &r->verdicts[i];
		if (i >= 5) {
			other += v->count;
			continue;
		}
		sbuf_reset(&b);
		ranks_name(r, v->first, &b);
		sbuf_addf(out, "%s%s: %zu rank%s (e.g. ", f->item, v->cause ? v->cause : "no verdict", v->count,
			  v->count == 1 ? "" : "s");
		f->text(out, b.buf);
		sbuf_addstr(out, ")\n");
	}
	if (other)
		sbuf_addf(out, "%sother verdicts: %zu ranks\n", f->item, other);
	sbuf_release(&b);
}

static void compare(const struct ranks *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct ranks_cmp *m = &r->cmp;
	if (m->a < 0 || m->b < 0)
		return;
	struct sbuf na = SBUF_INIT, nb = SBUF_INIT, h = SBUF_INIT;
	ranks_name(r, (size_t)m->a, &na);
	ranks_name(r, (size_t)m->b, &nb);
	sbuf_addf(&h, "The straggler, %s, against the median rank of its group, %s", na.buf, nb.buf);
	f->heading(out, h.buf);
	struct rtable t;
	rtable_init(&t, 4);
	rtable_head(&t, 0, "figure", RT_LEFT);
	rtable_head(&t, 1, na.buf, RT_RIGHT);
	rtable_head(&t, 2, nb.buf, RT_RIGHT);
	rtable_head(&t, 3, "difference", RT_RIGHT);
	static const int rows[] = { RF_WALL, RF_BUSY, RF_IDLE, RF_SYNC_WAIT, RF_EXPOSED, RF_WAIT };
	const struct ranks_rank *a = &r->rank[m->a], *b = &r->rank[m->b];
	for (size_t i = 0; i < GF_ARRAY_LEN(rows); i++) {
		int k = rows[i];
		if (a->fig[k] == INT64_MIN && b->fig[k] == INT64_MIN)
			continue;
		rtable_cell(&t, ranks_figs[k].label);
		cell_val(&t, RU_NS, a->fig[k]);
		cell_val(&t, RU_NS, b->fig[k]);
		if (a->fig[k] == INT64_MIN || b->fig[k] == INT64_MIN)
			rtable_cell(&t, "-");
		else
			cell_val(&t, RU_NS, a->fig[k] - b->fig[k]);
	}
	f->table(out, &t);
	if (m->nk) {
		sbuf_addstr(out, f->next);
		sbuf_addstr(out, "Kernels with the most extra GPU time per step (among each rank's top kernels):\n");
		sbuf_addstr(out, f->gap);
		rtable_init(&t, 4);
		rtable_head(&t, 0, "kernel", RT_LEFT);
		sbuf_reset(&h);
		sbuf_addf(&h, "%s ms/step", na.buf);
		rtable_head(&t, 1, h.buf, RT_RIGHT);
		sbuf_reset(&h);
		sbuf_addf(&h, "%s ms/step", nb.buf);
		rtable_head(&t, 2, h.buf, RT_RIGHT);
		rtable_head(&t, 3, "difference", RT_RIGHT);
		for (size_t i = 0; i < m->nk; i++) {
			f->cell_long(&t, m->k[i].name, 60);
			cell_val(&t, RU_NS, m->k[i].a);
			cell_val(&t, RU_NS, m->k[i].b);
			cell_val(&t, RU_NS, m->k[i].a - m->k[i].b);
		}
		f->table(out, &t);
	}
	sbuf_release(&na);
	sbuf_release(&nb);
	sbuf_release(&h);
}

/* One column per rank (few ranks). */
static void columns(const struct ranks *r, const struct report_fmt *f, struct sbuf *out)
{
	f->heading(out, "Ranks (steady step, ms)");
	enum { NROWS = 15 };
	static const char *const rows[NROWS] = {
		"file", "rank", "steps (warm-up)", "step wall ms", "GPU busy ms", "GPU busy %", "GPU idle ms",
		"sync wait ms", "syncs", "launches", "kernels", "NCCL exposed ms", "coll. wait ms", "arrived last",
		"verdict",
	};
	static const int fig[NROWS] = { -1, -1, -1, RF_WALL, RF_BUSY, RF_BUSY_SHARE, RF_IDLE, RF_SYNC_WAIT,
					RF_SYNCS, RF_LAUNCHES, RF_KERNELS, RF_EXPOSED, RF_WAIT, RF_LAST, -1 };
	struct rtable t;
	rtable_init(&t, (unsigned)r->n + 1);
	rtable_head(&t, 0, "per rank", RT_LEFT);
	struct sbuf b = SBUF_INIT;
	for (size_t k = 0; k < r->n; k++) {
		sbuf_reset(&b);
		sbuf_addf(&b, "#%zu", k + 1);
		rtable_head(&t, (unsigned)k + 1, b.buf, RT_RIGHT);
		t.maxw[k + 1] = 16;
	}
	for (int row = 0; row < NROWS; row++) {
		rtable_cell(&t, rows[row]);
		for (size_t k = 0; k < r->n; k++) {
			const struct ranks_rank *x = &r->rank[k];
			if (fig[row] >= 0) {
				cell_val(&t, ranks_figs[fig[row]].unit, x->fig[fig[row]]);
				continue;
			}
			if (row == 0) {
				/* keep the end of the name: it tells ranks apart */
				const char *sl = strrchr(x->file, '/'), *nm = sl ? sl + 1 : x->file;
				size_t l = strlen(nm);
				if (l > 16) {
					const char *e = nm + l - 13;
					while (((unsigned char)*e & 0xc0) == 0x80)
						e++;
					rtable_cellf(&t, "...%s", e);
				} else {
					rtable_cell(&t, nm);
				}
			} else if (row == 1) {
				if (x->rank < 0)
					rtable_cell(&t, "-");
				else
					rtable_cellf(&t, "%lld", (long long)x->rank);
			} else if (row == 2) {
				rtable_cellf(&t, "%zu (%zu)", x->nsteps, x->nwarm);
			} else {
				rtable_cell(&t, x->cause ? x->cause : "-");
			}
		}
	}
	sbuf_release(&b);
	f->table(out, &t);
}

void ranks_out(const struct ranks *r, int format, size_t max_steps, struct sbuf *out)
{
	if (format == REP_JSON) {
		ranks_out_json(r, out);
		return;
	}
	const struct report_fmt *f = format == REP_MD ? &report_md_fmt : &report_text_fmt;
	struct sbuf body = SBUF_INIT;
	head(r, f, &body);
	groups(r, f, &body);
	figures(r, f, &body);
	skew(r, max_steps, f, &body);
	verdicts(r, f, &body);
	compare(r, f, &body);
	if (r->n <= RANKS_OUT_COLUMNS)
		columns(r, f, &body);
	f->finish(&body, out);
	sbuf_release(&body);
}
