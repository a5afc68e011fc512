/* ranks_json.c — many ranks as JSON, "gpuflame.ranks/1" (see ranks_out.h). */
#include "ranks/ranks_out.h"

#include "base/jsonw.h"
#include "base/num.h"

/* A figure's value: us (exact), a count, a share (4 decimals); null for none. */
static void j_val(struct jsonw *j, int unit, int64_t v)
{
	if (v == INT64_MIN)
		jsonw_null(j);
	else if (unit == RU_NS)
		jsonw_ns_us(j, v);
	else if (unit == RU_SHARE)
		jsonw_dec(j, v, 4);
	else
		jsonw_int(j, v);
}

static void j_index(struct jsonw *j, long k)
{
	if (k < 0)
		jsonw_null(j);
	else
		jsonw_int(j, k);
}

static void j_str(struct jsonw *j, const char *s)
{
	if (s)
		jsonw_str(j, s);
	else
		jsonw_null(j);
}

static void j_ranks(struct jsonw *j, const struct ranks *r)
{
	jsonw_key(j, "per_rank");
	jsonw_arr(j);
	for (size_t k = 0; k < r->n; k++) {
		const struct ranks_rank *x = &r->rank[k];
		jsonw_obj(j);
		jsonw_key(j, "index");
		jsonw_int(j, (int64_t)k);
		jsonw_key(j, "file");
		jsonw_str(j, x->file);
		jsonw_key(j, "rank");
		j_index(j, x->rank < 0 ? -1 : (long)x->rank);
		jsonw_key(j, "device");
		j_index(j, x->device);
		jsonw_key(j, "steps");
		jsonw_int(j, (int64_t)x->nsteps);
		jsonw_key(j, "warmup_steps");
		jsonw_int(j, (int64_t)x->nwarm);
		jsonw_key(j, "whole_trace");
		jsonw_bool(j, x->whole_trace);
		jsonw_key(j, "collectives");
		jsonw_int(j, (int64_t)x->colls);
		for (int f = 0; f < RF_N; f++) {
			jsonw_key(j, ranks_figs[f].key);
			j_val(j, ranks_figs[f].unit, x->fig[f]);
		}
		jsonw_key(j, "verdict_cause");
		j_str(j, x->cause);
		jsonw_key(j, "verdict");
		j_str(j, x->verdict);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

static void j_figures(struct jsonw *j, const struct ranks *r)
{
	static const char *const unit[] = { [RU_NS] = "us", [RU_COUNT] = "count", [RU_SHARE] = "share" };
	jsonw_key(j, "figures");
	jsonw_arr(j);
	for (int f = 0; f < RF_N; f++) {
		const struct ranks_dist *d = &r->fig[f];
		int u = ranks_figs[f].unit;
		jsonw_obj(j);
		jsonw_key(j, "figure");
		jsonw_str(j, ranks_figs[f].key);
		jsonw_key(j, "unit");
		jsonw_str(j, unit[u]);
		jsonw_key(j, "ranks");
		jsonw_int(j, (int64_t)d->n);
		const struct { const char *k; int64_t v; } q[] = {
			{ "min", d->min }, { "q1", d->q1 }, { "median", d->p50 },
			{ "q3", d->q3 },   { "p90", d->p90 }, { "max", d->max },
		};
		for (size_t i = 0; i < GF_ARRAY_LEN(q); i++) {
			jsonw_key(j, q[i].k);
			j_val(j, u, d->n ? q[i].v : INT64_MIN);
		}
		jsonw_key(j, "outliers");
		jsonw_arr(j);
		for (size_t i = 0; i < d->nout; i++)
			jsonw_int(j, (int64_t)d->out[i]);
		jsonw_end(j, ']');
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

static void j_groups(struct jsonw *j, const struct ranks *r)
{
	jsonw_key(j, "groups");
	jsonw_arr(j);
	for (size_t i = 0; i < r->ngroups; i++) {
		const struct ranks_group *g = &r->groups[i];
		jsonw_obj(j);
		jsonw_key(j, "name");
		if (r->fallback)
			jsonw_null(j);
		else
			jsonw_str(j, g->name);
		jsonw_key(j, "desc");
		j_str(j, g->desc);
		jsonw_key(j, "ranks");
		if (!g->ranks) {
			jsonw_null(j);
		} else {
			jsonw_arr(j);
			for (size_t k = 0; k < g->nranks; k++)
				jsonw_int(j, g->ranks[k]);
			jsonw_end(j, ']');
		}
		jsonw_key(j, "members");
		jsonw_int(j, (int64_t)g->members);
		jsonw_key(j, "matched_by");
		jsonw_str(j, r->fallback ? "kernel" : g->by_seq ? "seq" : "order");
		jsonw_key(j, "instances");
		jsonw_int(j, (int64_t)g->instances);
		jsonw_key(j, "matched");
		jsonw_int(j, (int64_t)g->matched);
		jsonw_key(j, "unmatched");
		jsonw_int(j, (int64_t)g->unmatched);
		jsonw_key(j, "mismatched");
		jsonw_int(j, (int64_t)g->mismatched);
		jsonw_key(j, "straggler");
		j_index(j, g->straggler);
		jsonw_key(j, "clear");
		jsonw_bool(j, g->straggler >= 0 && g->clear);
		jsonw_key(j, "arrived_last");
		jsonw_int(j, (int64_t)g->last);
		jsonw_key(j, "waited_us");
		jsonw_ns_us(j, g->waited);
		jsonw_key(j, "max_wait_us");
		jsonw_ns_us(j, g->max_wait);
		jsonw_key(j, "mismatch");
		if (!g->mismatched) {
			jsonw_null(j);
		} else {
			jsonw_obj(j);
			jsonw_key(j, "index");
			jsonw_int(j, g->mismatch_at);
			jsonw_key(j, "seq");
			jsonw_int(j, g->mismatch_seq);
			jsonw_end(j, '}');
		}
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

static void j_steps(struct jsonw *j, const struct ranks *r)
{
	jsonw_key(j, "steps");
	jsonw_arr(j);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct ranks_step *s = &r->steps[i];
		jsonw_obj(j);
		jsonw_key(j, "index");
		j_index(j, s->number < 0 ? -1 : (long)s->number);
		jsonw_key(j, "ranks");
		jsonw_int(j, (int64_t)s->n);
		jsonw_key(j, "warmup_ranks");
		jsonw_int(j, (int64_t)s->warm);
		jsonw_key(j, "min_us");
		jsonw_ns_us(j, s->min);
		jsonw_key(j, "median_us");
		jsonw_ns_us(j, s->p50);
		jsonw_key(j, "max_us");
		jsonw_ns_us(j, s->max);
		jsonw_key(j, "spread_us");
		jsonw_ns_us(j, s->max - s->min);
		jsonw_key(j, "slowest");
		jsonw_int(j, (int64_t)s->slowest);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

/* The rank x step grid: one row per rank, one column per r->steps entry,
 * compact ("[1.5,null,...]" per row). */
static void j_grid(struct jsonw *j, const struct ranks *r)
{
	static const char *const key[4] = { "wall_us", "busy_us", "idle_us", "exposed_us" };
	jsonw_key(j, "grid");
	jsonw_obj(j);
	struct sbuf b = SBUF_INIT;
	for (int c = 0; c < 4; c++) {
		jsonw_key(j, key[c]);
		jsonw_arr(j);
		for (size_t k = 0; k < r->n; k++) {
			const struct ranks_rank *x = &r->rank[k];
			sbuf_reset(&b);
			sbuf_addch(&b, '[');
			size_t q = 0;
			for (size_t s = 0; s < r->nsteps; s++) {
				while (q < x->ncell && x->cell[q].number < r->steps[s].number)
					q++;
				if (s)
					sbuf_addch(&b, ',');
				const struct ranks_cell *e = q < x->ncell && x->cell[q].number == r->steps[s].number
								     ? &x->cell[q] : NULL;
				gf_ns v = !e ? -1 : c == 0 ? e->wall : c == 1 ? e->busy : c == 2 ? e->idle : e->exposed;
				if (v < 0)
					sbuf_addstr(&b, "null");
				else
					num_fmt(&b, v, 3);
			}
			sbuf_addch(&b, ']');
			jsonw_raw(j, b.buf);
		}
		jsonw_end(j, ']');
	}
	sbuf_release(&b);
	jsonw_end(j, '}');
}

static void j_cmp(struct jsonw *j, const struct ranks *r)
{
	const struct ranks_cmp *m = &r->cmp;
	jsonw_key(j, "straggler_vs_median");
	if (m->a < 0 || m->b < 0) {
		jsonw_null(j);
		return;
	}
	jsonw_obj(j);
	jsonw_key(j, "group");
	if (r->fallback)
		jsonw_null(j);
	else
		jsonw_str(j, r->groups[m->group].name);
	jsonw_key(j, "straggler");
	jsonw_int(j, m->a);
	jsonw_key(j, "median");
	jsonw_int(j, m->b);
	jsonw_key(j, "kernels");
	jsonw_arr(j);
	for (size_t i = 0; i < m->nk; i++) {
		jsonw_obj(j);
		jsonw_key(j, "name");
		jsonw_str(j, m->k[i].name);
		jsonw_key(j, "straggler_per_step_us");
		jsonw_ns_us(j, m->k[i].a);
		jsonw_key(j, "median_per_step_us");
		jsonw_ns_us(j, m->k[i].b);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	jsonw_end(j, '}');
}

void ranks_out_json(const struct ranks *r, struct sbuf *out)
{
	struct jsonw j;
	jsonw_init(&j, out);
	jsonw_obj(&j);
	jsonw_key(&j, "schema");
	jsonw_str(&j, "gpuflame.ranks/1");
	jsonw_key(&j, "ranks");
	jsonw_int(&j, (int64_t)r->n);
	jsonw_key(&j, "world_size");
	j_index(&j, r->world_size < 0 ? -1 : (long)r->world_size);
	jsonw_key(&j, "ranks_known");
	jsonw_bool(&j, r->ranks_known);
	jsonw_key(&j, "partial");
	jsonw_bool(&j, r->partial);
	jsonw_key(&j, "options");
	jsonw_str(&j, r->options);
	struct sbuf v = SBUF_INIT, a = SBUF_INIT;
	ranks_out_verdict(r, &v, &a);
	jsonw_key(&j, "verdict");
	jsonw_str(&j, v.buf);
	jsonw_key(&j, "action");
	jsonw_str(&j, a.buf);
	sbuf_release(&v);
	sbuf_release(&a);
	jsonw_key(&j, "fallback_group");
	jsonw_bool(&j, r->fallback);
	jsonw_key(&j, "median_rank");
	jsonw_int(&j, (int64_t)r->median);
	j_groups(&j, r);
	j_figures(&j, r);
	j_steps(&j, r);
	jsonw_key(&j, "verdicts");
	jsonw_arr(&j);
	for (size_t i = 0; i < r->nverdicts; i++) {
		jsonw_obj(&j);
		jsonw_key(&j, "cause");
		j_str(&j, r->verdicts[i].cause);
		jsonw_key(&j, "ranks");
		jsonw_int(&j, (int64_t)r->verdicts[i].count);
		jsonw_key(&j, "example");
		jsonw_int(&j, (int64_t)r->verdicts[i].first);
		jsonw_end(&j, '}');
	}
	jsonw_end(&j, ']');
	j_cmp(&j, r);
	j_ranks(&j, r);
	j_grid(&j, r);
	jsonw_end(&j, '}');
}
