/* summary.c — a rank's summary document, written (see summary.h). */
#include "ranks/summary.h"

#include "base/jsonw.h"
#include "base/num.h"
#include "base/vec.h"
#include "trace/write/report_html.h"
#include "trace/write/report_json.h"

#include <stdlib.h>
#include <string.h>

/* Parses a compact rank list "[0,1,2]" (the reader's text of "Process
 * Group Ranks" or pg_config's ranks) into v; false when it is not a list
 * of integers. */
typedef VEC(int64_t) i64vec;

static bool rank_list(const char *s, size_t n, i64vec *v)
{
	if (n < 2 || s[0] != '[' || s[n - 1] != ']')
		return false;
	size_t i = 1;
	if (n == 2)
		return true;
	for (;;) {
		size_t j = i;
		while (j < n - 1 && s[j] != ',')
			j++;
		int64_t x;
		if (j == i || num_parse(s + i, j - i, 0, NUM_ALLOW_SIGN, &x) != NUM_OK)
			return false;
		vec_push(v, x);
		if (j == n - 1)
			return true;
		i = j + 1;
	}
}

/* The groups list: pg_config's, then those only the collectives name;
 * by_id: pool id -> index + 1 (0 = none). */
struct groups {
	VEC(uint32_t) name, desc, ranks; /* pool ids, TRACE_NONE */
	VEC(int64_t) size;
	uint32_t *by_id;
	uint32_t nid;
};

static int32_t group_index(struct groups *g, uint32_t name)
{
	return name < g->nid ? (int32_t)g->by_id[name] - 1 : -1;
}

static void group_add(struct groups *g, uint32_t name, uint32_t desc, uint32_t ranks, int64_t size)
{
	int32_t i = group_index(g, name);
	if (i >= 0) { /* fill what the first mention lacked */
		if (g->desc.v[i] == TRACE_NONE)
			g->desc.v[i] = desc;
		if (g->ranks.v[i] == TRACE_NONE)
			g->ranks.v[i] = ranks;
		if (g->size.v[i] == KEV_NONE)
			g->size.v[i] = size;
		return;
	}
	if (name >= g->nid)
		return;
	vec_push(&g->name, name);
	g->by_id[name] = (uint32_t)g->name.n;
	vec_push(&g->desc, desc);
	vec_push(&g->ranks, ranks);
	vec_push(&g->size, size);
}

static void str_or_null(struct jsonw *j, const struct pool *p, uint32_t id)
{
	if (id == TRACE_NONE)
		jsonw_null(j);
	else
		jsonw_strn(j, pool_str(p, id), pool_len(p, id));
}

static void int_or_null(struct jsonw *j, int64_t v)
{
	if (v == KEV_NONE)
		jsonw_null(j);
	else
		jsonw_int(j, v);
}

static void write_groups(struct jsonw *j, const struct pool *p, const struct groups *g)
{
	jsonw_key(j, "groups");
	jsonw_arr(j);
	i64vec rl = VEC_INIT;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < g->name.n; i++) {
		jsonw_obj(j);
		jsonw_key(j, "name");
		str_or_null(j, p, g->name.v[i]);
		jsonw_key(j, "desc");
		str_or_null(j, p, g->desc.v[i]);
		jsonw_key(j, "ranks");
		rl.n = 0;
		uint32_t r = g->ranks.v[i];
		if (r != TRACE_NONE && rank_list(pool_str(p, r), pool_len(p, r), &rl)) {
			sbuf_reset(&b);
			sbuf_addch(&b, '[');
			for (size_t k = 0; k < rl.n; k++)
				sbuf_addf(&b, k ? ",%lld" : "%lld", (long long)rl.v[k]);
			sbuf_addch(&b, ']');
			jsonw_raw(j, b.buf);
		} else {
			jsonw_null(j);
		}
		jsonw_key(j, "size");
		int_or_null(j, g->size.v[i]);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	vec_free(&rl);
	sbuf_release(&b);
}

/* Names of the collectives' table in first-use order; by_id: pool id ->
 * index + 1 (0 = not yet). */
struct names {
	VEC(uint32_t) id;
	uint32_t *by_id;
	uint32_t nid;
};

static int32_t name_index(struct names *n, uint32_t id)
{
	if (id == TRACE_NONE || id >= n->nid)
		return -1;
	if (!n->by_id[id]) {
		vec_push(&n->id, id);
		n->by_id[id] = (uint32_t)n->id.n;
	}
	return (int32_t)n->by_id[id] - 1;
}

/* One column of the collectives: "[a,b,...]" from fmt(i). */
enum col { C_GROUP, C_SEQ, C_COLL, C_KERNEL, C_DTYPE, C_NELEMS, C_STEP, C_ENQ, C_START, C_DUR, C_N };

static void write_colls(struct jsonw *j, const struct trace *t, const struct coll *cl, size_t n,
			struct groups *g)
{
	static const char *const key[C_N] = { "group", "seq",	 "collective", "kernel",   "dtype",
					      "nelems", "step", "enqueue_us", "start_us", "dur_us" };
	struct names nm = { VEC_INIT, NULL, pool_count(t->names) };
	nm.by_id = gf_xcalloc(nm.nid ? nm.nid : 1, sizeof *nm.by_id);
	int32_t *idx = gf_xcalloc(n ? n * 4 : 1, sizeof *idx);
	for (size_t i = 0; i < n; i++) {
		idx[4 * i] = cl[i].group == TRACE_NONE ? -1 : group_index(g, cl[i].group);
		idx[4 * i + 1] = name_index(&nm, cl[i].coll);
		idx[4 * i + 2] = name_index(&nm, cl[i].name);
		idx[4 * i + 3] = name_index(&nm, cl[i].dtype);
	}
	gf_ns base = t->meta.has_base_time ? t->meta.base_time_ns : 0;
	jsonw_key(j, "collectives");
	jsonw_obj(j);
	jsonw_key(j, "count");
	jsonw_int(j, (int64_t)n);
	jsonw_key(j, "names");
	jsonw_arr(j);
	for (size_t i = 0; i < nm.id.n; i++)
		jsonw_strn(j, pool_str(t->names, nm.id.v[i]), pool_len(t->names, nm.id.v[i]));
	jsonw_end(j, ']');
	struct sbuf b = SBUF_INIT;
	for (int c = 0; c < C_N; c++) {
		sbuf_reset(&b);
		sbuf_addch(&b, '[');
		for (size_t i = 0; i < n; i++) {
			const struct coll *x = &cl[i];
			if (i)
				sbuf_addch(&b, ',');
			int64_t v = 0;
			bool us = c >= C_ENQ, none = false;
			switch (c) {
			case C_GROUP: v = idx[4 * i]; break;
			case C_SEQ: v = x->seq; none = v == KEV_NONE; break;
			case C_COLL: v = idx[4 * i + 1]; break;
			case C_KERNEL: v = idx[4 * i + 2]; break;
			case C_DTYPE: v = idx[4 * i + 3]; break;
			case C_NELEMS: v = x->nelems; none = v == KEV_NONE; break;
			case C_STEP: v = x->step; none = v == KEV_NONE; break;
			case C_ENQ: v = x->enqueue + base; none = x->enqueue == KEV_NONE; break;
			case C_START: v = x->start + base; break;
			default: v = x->dur; break;
			}
			if (none)
				sbuf_addstr(&b, "null");
			else if (us)
				num_fmt(&b, v, 3);
			else
				sbuf_addf(&b, "%lld", (long long)v);
		}
		sbuf_addch(&b, ']');
		jsonw_key(j, key[c]);
		jsonw_raw(j, b.buf);
	}
	jsonw_end(j, '}');
	sbuf_release(&b);
	free(idx);
	free(nm.by_id);
	vec_free(&nm.id);
}

struct ksum {
	uint32_t name;
	uint64_t count;
	gf_ns ns;
};

static int cmp_ksum(const void *a, const void *b)
{
	const struct ksum *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

/* The top kernels by GPU time among those starting inside a selected step. */
static void write_kernels(struct jsonw *j, const struct actx *c, const struct steps_result *st)
{
	const struct trace *t = c->t;
	uint32_t np = pool_count(t->names);
	struct ksum *k = gf_xcalloc(np ? np : 1, sizeof *k);
	gf_ns *pmax = steps_pmax(st);
	for (uint32_t i = 0; pmax && i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		if (a->kind != TA_KERNEL || !actx_on_dev(c, a) || a->name >= np)
			continue;
		if (steps_row_at(st, pmax, a->start) < 0)
			continue;
		k[a->name].name = a->name;
		k[a->name].count++;
		k[a->name].ns += a->end - a->start;
	}
	free(pmax);
	size_t m = 0;
	for (uint32_t i = 0; i < np; i++)
		if (k[i].count)
			k[m++] = k[i];
	qsort(k, m, sizeof *k, cmp_ksum);
	jsonw_key(j, "kernels");
	jsonw_arr(j);
	for (size_t i = 0; i < m && i < SUMMARY_KERNELS; i++) {
		jsonw_obj(j);
		jsonw_key(j, "name");
		jsonw_strn(j, pool_str(t->names, k[i].name), pool_len(t->names, k[i].name));
		jsonw_key(j, "count");
		jsonw_int(j, (int64_t)k[i].count);
		jsonw_key(j, "gpu_us");
		jsonw_ns_us(j, k[i].ns);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	free(k);
}

static void write_opts(struct jsonw *j, const struct summary_opts *o)
{
	const struct trace_sel *s = &o->ro->steps;
	jsonw_key(j, "options");
	jsonw_obj(j);
	jsonw_key(j, "steps");
	if (s->first == INT64_MIN && s->last == INT64_MAX) {
		jsonw_null(j);
	} else {
		struct sbuf b = SBUF_INIT;
		if (s->first != INT64_MIN)
			sbuf_addf(&b, "%lld", (long long)s->first);
		sbuf_addstr(&b, "..");
		if (s->last != INT64_MAX)
			sbuf_addf(&b, "%lld", (long long)s->last);
		jsonw_str(j, b.buf);
		sbuf_release(&b);
	}
	jsonw_key(j, "skip");
	jsonw_int(j, (int64_t)s->skip);
	jsonw_key(j, "step_marker");
	jsonw_str(j, o->marker ? o->marker : "ProfilerStep");
	jsonw_key(j, "device");
	if (o->device < 0)
		jsonw_null(j);
	else
		jsonw_int(j, o->device);
	jsonw_key(j, "unprofiled_step_us");
	if (o->ro->unprofiled_ns < 0)
		jsonw_null(j);
	else
		jsonw_ns_us(j, o->ro->unprofiled_ns);
	jsonw_key(j, "expect_us");
	if (o->ro->expect_ns < 0)
		jsonw_null(j);
	else
		jsonw_ns_us(j, o->ro->expect_ns);
	jsonw_end(j, '}');
}

void summary_write(const struct summary_src *src, struct sbuf *out)
{
	const struct trace *t = src->c->t;
	const struct pool *p = t->names;
	struct jsonw j;
	jsonw_init(&j, out);
	jsonw_obj(&j);
	jsonw_key(&j, "schema");
	jsonw_str(&j, SUMMARY_SCHEMA);
	jsonw_key(&j, "generator");
	jsonw_str(&j, src->o->generator ? src->o->generator : "gpuflame");
	jsonw_key(&j, "run");
	if (src->o->run)
		jsonw_str(&j, src->o->run);
	else
		jsonw_null(&j);
	write_opts(&j, src->o);
	jsonw_key(&j, "file");
	jsonw_str(&j, src->file);
	jsonw_key(&j, "rank");
	int_or_null(&j, t->meta.rank);
	jsonw_key(&j, "world_size");
	int_or_null(&j, t->meta.world_size);
	jsonw_key(&j, "backend");
	if (t->meta.backend[0])
		jsonw_str(&j, t->meta.backend);
	else
		jsonw_null(&j);
	struct coll *cl;
	size_t ncl;
	comm_collectives(src->c, &src->r->st, &cl, &ncl);
	struct groups g;
	memset(&g, 0, sizeof g);
	g.nid = pool_count(p);
	g.by_id = gf_xcalloc(g.nid ? g.nid : 1, sizeof *g.by_id);
	for (uint32_t i = 0; i < t->meta.npgs; i++) {
		const struct kpg *x = &t->meta.pgs[i];
		if (x->name != UINT32_MAX)
			group_add(&g, x->name, x->desc, x->ranks, x->size);
	}
	for (size_t i = 0; i < ncl; i++)
		if (cl[i].group != TRACE_NONE)
			group_add(&g, cl[i].group, cl[i].desc, cl[i].ranks, cl[i].group_size);
	write_groups(&j, p, &g);
	write_colls(&j, t, cl, ncl, &g);
	free(cl);
	vec_free(&g.name);
	vec_free(&g.desc);
	vec_free(&g.ranks);
	vec_free(&g.size);
	free(g.by_id);
	write_kernels(&j, src->c, &src->r->st);
	struct sbuf b = SBUF_INIT;
	struct report_in in = { src->r, src->file, 0 };
	report_json_write(&in, &b);
	while (b.len && b.buf[b.len - 1] == '\n')
		b.buf[--b.len] = 0;
	jsonw_key(&j, "report");
	jsonw_raw(&j, b.buf);
	jsonw_key(&j, "page");
	if (src->f) {
		sbuf_reset(&b);
		struct report_html_rank k = { src->r, src->f, src->file };
		report_html_rank_json(&b, &k);
		jsonw_raw(&j, b.buf);
	} else {
		jsonw_null(&j);
	}
	sbuf_release(&b);
	jsonw_end(&j, '}');
}
