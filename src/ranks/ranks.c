/* ranks.c — many ranks' summaries combined (see ranks.h). */
#include "ranks/ranks.h"

#include "base/num.h"
#include "base/pool.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(RF_LAUNCH - RF_EDGE + 1 == GAP_NCAUSES && RF_SYNC - RF_EDGE == GAP_SYNC && RF_HOST - RF_EDGE == GAP_HOST &&
		       RF_UNTRACED - RF_EDGE == GAP_UNTRACED && RF_QUEUED - RF_EDGE == GAP_QUEUED && RF_LAUNCH - RF_EDGE == GAP_LAUNCH,
	       "the idle figures follow the gap causes' order (causes.h)");

const struct ranks_figdef ranks_figs[RF_N] = {
	[RF_WALL] = { "step_wall_us", "step wall ms", RU_NS },
	[RF_BUSY] = { "gpu_busy_us", "GPU busy ms", RU_NS },
	[RF_BUSY_SHARE] = { "gpu_busy_share", "GPU busy %", RU_SHARE },
	[RF_IDLE] = { "idle_us", "GPU idle ms", RU_NS },
	[RF_SYNC_WAIT] = { "sync_wait_us", "sync wait ms", RU_NS },
	[RF_SYNCS] = { "syncs", "syncs", RU_COUNT },
	[RF_LAUNCHES] = { "launches", "launches", RU_COUNT },
	[RF_KERNELS] = { "kernels", "kernels", RU_COUNT },
	[RF_COMM] = { "comm_us", "NCCL ms", RU_NS },
	[RF_OVERLAP] = { "comm_overlap_us", "NCCL overlap ms", RU_NS },
	[RF_EXPOSED] = { "comm_exposed_us", "NCCL exposed ms", RU_NS },
	[RF_WAIT] = { "collective_wait_us", "coll. wait ms (all steps)", RU_NS },
	[RF_LAST] = { "arrived_last", "arrived last (all steps)", RU_COUNT },
	[RF_EDGE] = { "idle_edge_us", "idle: edge ms", RU_NS },
	[RF_SYNC] = { "idle_sync_us", "idle: sync ms", RU_NS },
	[RF_HOST] = { "idle_host_us", "idle: host ms", RU_NS },
	[RF_UNTRACED] = { "idle_untraced_us", "idle: untraced ms", RU_NS },
	[RF_QUEUED] = { "idle_queued_us", "idle: queued ms", RU_NS },
	[RF_LAUNCH] = { "idle_launch_us", "idle: launch ms", RU_NS },
};

/* A collective instance: (group, key name, seq). */
struct inst {
	uint32_t group;
	int32_t key;         /* kernel name id (fallback group), else -1 */
	int64_t seq;
	int32_t coll;        /* collective name id of its first rank, -1 */
	int64_t nelems;
	uint32_t count;      /* ranks that have it */
	size_t last_rank;    /* source index of the last rank added */
	size_t last_entry;
	gf_ns min;
	uint32_t argmin;     /* pair of the member with the shortest duration */
	uint32_t ties;       /* other members with that duration: nobody arrived last */
	bool mismatch;
};

/* One rank's collective: its (group, rank) pair and its span. */
struct entry {
	uint32_t inst, pair;
	gf_ns start, end;
};

/* A member of a group: the sums of its waits and arrivals. */
struct pair {
	uint32_t group;
	size_t rank;         /* source index */
	gf_ns wait;
	uint64_t last;
};

struct gstate {
	uint32_t name;       /* pool id; UINT32_MAX: the fallback group */
	size_t last_rank;    /* the last rank counted as a member */
	uint32_t pair;       /* that rank's pair */
	int64_t ordinal;     /* the next sequence number by order, for that rank */
	bool any_order;
};

struct comb {
	const struct ranks_source *src;
	struct sbuf *err;
	struct pool *names;
	VEC(struct ranks_rank) rk;
	VEC(struct ranks_group) g;
	VEC(struct gstate) gs;
	uint32_t *group_of;  /* name id -> group index + 1 */
	size_t ngroup_of;
	VEC(struct inst) in;
	uint32_t *slot;      /* open addressing over instances: index + 1 */
	size_t nslot;
	VEC(struct entry) ent;
	VEC(struct pair) pairs;
	uint64_t *occ;       /* fallback: per kernel name id, occurrences in the current rank */
	size_t *occ_rank;
	size_t nocc;
	/* what every summary must share with the first */
	char *first_name, *run, *options;
	int64_t world;
	bool have_first, ranks_known;
	uint32_t fallback;   /* the fallback group's index + 1 */
};

static int fail(struct comb *c, const char *fmt, ...) GF_PRINTF(2, 3);
static int fail(struct comb *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_reset(c->err);
	sbuf_vaddf(c->err, fmt, ap);
	va_end(ap);
	return GF_EINPUT;
}

static const char *nm(const struct comb *c, size_t i)
{
	return c->src->name(c->src->ctx, i);
}

/* Grows a per-name-id array to cover id. */
static void cover(struct comb *c, uint32_t id)
{
	if (id < c->nocc)
		return;
	size_t n = GF_MAX((size_t)id + 1, c->nocc * 2);
	c->occ = gf_xreallocarray(c->occ, n, sizeof *c->occ);
	c->occ_rank = gf_xreallocarray(c->occ_rank, n, sizeof *c->occ_rank);
	for (size_t i = c->nocc; i < n; i++) {
		c->occ[i] = 0;
		c->occ_rank[i] = SIZE_MAX;
	}
	c->nocc = n;
}

static bool same_ranks(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof *a));
}

static void rank_list_text(struct sbuf *b, const int64_t *v, size_t n)
{
	sbuf_addch(b, '[');
	for (size_t i = 0; i < n && i < 8; i++)
		sbuf_addf(b, i ? ",%lld" : "%lld", (long long)v[i]);
	if (n > 8)
		sbuf_addstr(b, ",...");
	sbuf_addch(b, ']');
}

/* The group of summary group sg (its index), added when new; checks that
 * its rank list agrees with the one seen first. */
static int group_of(struct comb *c, const struct summary *s, const struct summary_group *sg, size_t i,
		    uint32_t *out)
{
	uint32_t id = pool_intern_str(c->names, sg->name);
	if (id >= c->ngroup_of) {
		size_t n = GF_MAX((size_t)id + 1, c->ngroup_of * 2);
		c->group_of = gf_xreallocarray(c->group_of, n, sizeof *c->group_of);
		memset(c->group_of + c->ngroup_of, 0, (n - c->ngroup_of) * sizeof *c->group_of);
		c->ngroup_of = n;
	}
	if (c->group_of[id]) {
		struct ranks_group *g = &c->g.v[c->group_of[id] - 1];
		if (sg->ranks && g->ranks && !same_ranks(sg->ranks, sg->nranks, g->ranks, g->nranks)) {
			struct sbuf a = SBUF_INIT, b = SBUF_INIT;
			rank_list_text(&a, sg->ranks, sg->nranks);
			rank_list_text(&b, g->ranks, g->nranks);
			int rc = fail(c, "'%s': process group '%s' has ranks %s, but %s in the ranks before: "
					 "not ranks of one run",
				      nm(c, i), sg->name, a.buf, b.buf);
			sbuf_release(&a);
			sbuf_release(&b);
			return rc;
		}
		if (!g->ranks && sg->ranks) {
			g->ranks = gf_xcalloc(sg->nranks ? sg->nranks : 1, sizeof *g->ranks);
			memcpy(g->ranks, sg->ranks, sg->nranks * sizeof *g->ranks);
			g->nranks = sg->nranks;
		}
		if (!g->desc && sg->desc)
			g->desc = gf_xstrdup(sg->desc);
		*out = c->group_of[id] - 1;
		return GF_OK;
	}
	(void)s;
	struct ranks_group *g = vec_add(&c->g);
	memset(g, 0, sizeof *g);
	g->name = gf_xstrdup(sg->name);
	g->desc = sg->desc ? gf_xstrdup(sg->desc) : NULL;
	if (sg->ranks) {
		g->ranks = gf_xcalloc(sg->nranks ? sg->nranks : 1, sizeof *g->ranks);
		memcpy(g->ranks, sg->ranks, sg->nranks * sizeof *g->ranks);
		g->nranks = sg->nranks;
	}
	g->straggler = g->mismatch_at = -1;
	g->by_seq = true;
	struct gstate *st = vec_add(&c->gs);
	memset(st, 0, sizeof *st);
	st->name = id;
	st->last_rank = SIZE_MAX;
	c->group_of[id] = (uint32_t)c->g.n;
	*out = (uint32_t)c->g.n - 1;
	return GF_OK;
}

static uint32_t fallback_group(struct comb *c)
{
	if (!c->fallback) {
		struct ranks_group *g = vec_add(&c->g);
		memset(g, 0, sizeof *g);
		g->name = gf_xstrdup("");
		g->straggler = g->mismatch_at = -1;
		struct gstate *st = vec_add(&c->gs);
		memset(st, 0, sizeof *st);
		st->name = UINT32_MAX;
		st->last_rank = SIZE_MAX;
		c->fallback = (uint32_t)c->g.n;
	}
	return c->fallback - 1;
}

static uint64_t inst_hash(uint32_t g, int32_t k, int64_t seq)
{
	return gf_hash_u64(((uint64_t)g << 32 | (uint32_t)k) ^ gf_hash_u64((uint64_t)seq));
}

/* The instance (g, k, seq), added when new. */
static uint32_t inst_find(struct comb *c, uint32_t g, int32_t k, int64_t seq)
{
	if ((c->in.n + 1) * 2 > c->nslot) {
		size_t ns = c->nslot ? c->nslot * 2 : 1024;
		uint32_t *slot = gf_xcalloc(ns, sizeof *slot);
		for (size_t i = 0; i < c->in.n; i++) {
			const struct inst *x = &c->in.v[i];
			size_t h = inst_hash(x->group, x->key, x->seq) & (ns - 1);
			while (slot[h])
				h = (h + 1) & (ns - 1);
			slot[h] = (uint32_t)i + 1;
		}
		free(c->slot);
		c->slot = slot;
		c->nslot = ns;
	}
	size_t h = inst_hash(g, k, seq) & (c->nslot - 1);
	while (c->slot[h]) {
		const struct inst *x = &c->in.v[c->slot[h] - 1];
		if (x->group == g && x->key == k && x->seq == seq)
			return c->slot[h] - 1;
		h = (h + 1) & (c->nslot - 1);
	}
	struct inst *x = vec_add(&c->in);
	memset(x, 0, sizeof *x);
	x->group = g;
	x->key = k;
	x->seq = seq;
	x->coll = -2; /* set by the first rank */
	x->last_rank = SIZE_MAX;
	c->slot[h] = (uint32_t)c->in.n;
	return (uint32_t)c->in.n - 1;
}

/* The pair of (group g, rank i), made when the rank first meets it. */
static uint32_t member(struct comb *c, uint32_t g, size_t i)
{
	struct gstate *st = &c->gs.v[g];
	if (st->last_rank != i) {
		st->last_rank = i;
		st->ordinal = 0;
		struct pair *p = vec_add(&c->pairs);
		p->group = g;
		p->rank = i;
		p->wait = 0;
		p->last = 0;
		st->pair = (uint32_t)c->pairs.n - 1;
		c->g.v[g].members++;
	}
	return st->pair;
}

/* Rank i's collectives into the instances. */
static int add_colls(struct comb *c, const struct summary *s, size_t i)
{
	uint32_t *gmap = gf_xcalloc(s->ngroups ? s->ngroups : 1, sizeof *gmap);
	int rc = GF_OK;
	for (size_t k = 0; k < s->ngroups && !rc; k++)
		rc = group_of(c, s, &s->groups[k], i, &gmap[k]);
	for (size_t k = 0; k < s->ncoll && !rc; k++) {
		const struct summary_coll *x = &s->coll[k];
		uint32_t g;
		int32_t key = -1;
		int64_t seq;
		if (x->group >= 0) {
			g = gmap[x->group];
			seq = x->seq;
			if (seq < 0) {
				seq = c->gs.v[g].last_rank == i ? c->gs.v[g].ordinal : 0;
				c->g.v[g].by_seq = false;
			}
		} else {
			g = fallback_group(c);
			c->g.v[g].by_seq = false;
			uint32_t kn = pool_intern_str(c->names, x->kernel >= 0 ? s->names[x->kernel] : "");
			cover(c, kn);
			if (c->occ_rank[kn] != i) {
				c->occ_rank[kn] = i;
				c->occ[kn] = 0;
			}
			key = (int32_t)kn;
			seq = (int64_t)c->occ[kn]++;
		}
		uint32_t p = member(c, g, i);
		c->gs.v[g].ordinal++;
		uint32_t ii = inst_find(c, g, key, seq);
		struct inst *in = &c->in.v[ii];
		int32_t coll = x->coll >= 0 ? (int32_t)pool_intern_str(c->names, s->names[x->coll]) : -1;
		if (in->last_rank == i) { /* coalesced: one instance from first start to last end */
			struct entry *e = &c->ent.v[in->last_entry];
			e->start = GF_MIN(e->start, x->start);
			e->end = GF_MAX(e->end, x->start + x->dur);
			continue;
		}
		if (in->coll == -2) {
			in->coll = coll;
			in->nelems = x->nelems;
		} else if (in->coll != coll || in->nelems != x->nelems) {
			in->mismatch = true;
		}
		in->last_rank = i;
		in->count++;
		struct entry *e = vec_add(&c->ent);
		e->inst = ii;
		e->pair = p;
		e->start = x->start;
		e->end = x->start + x->dur;
		in->last_entry = c->ent.n - 1;
	}
	free(gmap);
	return rc;
}

/* What every summary must share with the first. */
static int check_run(struct comb *c, const struct summary *s, size_t i)
{
	if (!c->have_first) {
		c->have_first = true;
		c->first_name = gf_xstrdup(nm(c, i));
		c->run = s->run ? gf_xstrdup(s->run) : NULL;
		c->options = gf_xstrdup(s->options);
		c->world = s->world_size;
		c->ranks_known = s->rank >= 0;
		return GF_OK;
	}
	if ((c->run || s->run) && (!c->run || !s->run || strcmp(c->run, s->run)))
		return fail(c, "'%s': run '%s', but '%s' is run '%s': not ranks of one run", nm(c, i),
			    s->run ? s->run : "(none)", c->first_name, c->run ? c->run : "(none)");
	if (strcmp(c->options, s->options))
		return fail(c, "'%s': summarised with '%s', but '%s' with '%s': the steps and options must be the "
			       "same for every rank",
			    nm(c, i), s->options, c->first_name, c->options);
	if ((s->rank >= 0) != c->ranks_known)
		return fail(c, "'%s': %s, but '%s' %s: ranks must be known for every trace or for none "
			       "(summarise --rank N gives one)",
			    nm(c, i), s->rank >= 0 ? "has a rank" : "has no rank (no distributedInfo.rank)",
			    c->first_name, c->ranks_known ? "has one" : "has none");
	if (s->world_size != c->world)
		return fail(c, "'%s': world size %lld, but %lld in '%s': not ranks of one run", nm(c, i),
			    (long long)s->world_size, (long long)c->world, c->first_name);
	return GF_OK;
}

static int64_t fig_or_none(gf_ns v)
{
	return v < 0 ? INT64_MIN : v;
}

/* The figures and steps rank i keeps of its summary. */
static void add_rank(struct comb *c, const struct summary *s, size_t i)
{
	struct ranks_rank *k = vec_add(&c->rk);
	memset(k, 0, sizeof *k);
	k->file = gf_xstrdup(s->file);
	k->rank = s->rank;
	k->src = i;
	k->device = s->device;
	k->nsteps = s->nsteps;
	k->nwarm = s->nwarm;
	k->whole_trace = s->whole_trace;
	k->cause = s->cause ? gf_xstrdup(s->cause) : NULL;
	k->verdict = s->verdict ? gf_xstrdup(s->verdict) : NULL;
	k->action = s->action ? gf_xstrdup(s->action) : NULL;
	k->colls = s->ncoll;
	const struct summary_row *w = &s->steady;
	int64_t *f = k->fig;
	f[RF_WALL] = w->wall;
	f[RF_BUSY] = w->busy;
	f[RF_BUSY_SHARE] = w->wall > 0 ? (int64_t)(((__int128)w->busy * 20000 + w->wall) / (2 * (__int128)w->wall))
				       : INT64_MIN;
	f[RF_IDLE] = w->idle;
	f[RF_SYNC_WAIT] = w->sync_wait;
	f[RF_SYNCS] = (int64_t)w->syncs;
	f[RF_LAUNCHES] = (int64_t)w->launches;
	f[RF_KERNELS] = (int64_t)w->kernels;
	f[RF_COMM] = fig_or_none(w->comm);
	f[RF_OVERLAP] = fig_or_none(w->overlap);
	f[RF_EXPOSED] = fig_or_none(w->exposed);
	f[RF_WAIT] = f[RF_LAST] = INT64_MIN;
	for (int q = 0; q < GAP_NCAUSES; q++)
		f[RF_EDGE + q] = fig_or_none(w->cause[q]);
	k->cell = gf_xcalloc(s->nsteps ? s->nsteps : 1, sizeof *k->cell);
	k->ncell = s->nsteps;
	for (size_t q = 0; q < s->nsteps; q++) {
		const struct summary_row *x = &s->steps[q];
		struct ranks_cell *e = &k->cell[q];
		e->number = x->number;
		e->wall = x->wall;
		e->busy = x->busy;
		e->idle = x->idle;
		e->exposed = x->exposed;
		e->warmup = x->warmup;
	}
}

static int cmp_cell(const void *a, const void *b)
{
	const struct ranks_cell *x = a, *y = b;
	return (x->number > y->number) - (x->number < y->number);
}

/* Pass 1: every summary once. */
static int pass1(struct comb *c)
{
	struct sbuf text = SBUF_INIT;
	int rc = GF_OK;
	for (size_t i = 0; i < c->src->n && !rc; i++) {
		sbuf_reset(&text);
		if ((rc = c->src->load(c->src->ctx, i, &text, c->err)))
			break;
		struct summary s;
		if ((rc = summary_parse(&s, text.buf, text.len, nm(c, i), c->err)))
			break;
		rc = check_run(c, &s, i);
		if (!rc)
			rc = add_colls(c, &s, i);
		if (!rc) {
			add_rank(c, &s, i);
			struct ranks_rank *k = &c->rk.v[c->rk.n - 1];
			qsort(k->cell, k->ncell, sizeof *k->cell, cmp_cell);
		}
		summary_free(&s);
	}
	sbuf_release(&text);
	return rc;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct ranks_rank *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->src > y->src) - (x->src < y->src);
}

/* Sorts the ranks and checks them: no rank twice, every rank unless partial. */
static int order_ranks(struct comb *c, const struct ranks_opts *o, struct ranks *r, size_t *pos)
{
	if (c->ranks_known)
		qsort(c->rk.v, c->rk.n, sizeof *c->rk.v, cmp_rank);
	for (size_t k = 0; k < c->rk.n; k++)
		pos[c->rk.v[k].src] = k;
	for (size_t k = 1; c->ranks_known && k < c->rk.n; k++)
		if (c->rk.v[k].rank == c->rk.v[k - 1].rank)
			return fail(c, "'%s' and '%s' are both rank %lld: the same rank twice, or ranks of two runs",
				    nm(c, c->rk.v[k].src), nm(c, c->rk.v[k - 1].src), (long long)c->rk.v[k].rank);
	r->partial = c->world > 0 && c->ranks_known && (int64_t)c->rk.n < c->world;
	if (r->partial && !o->partial) {
		int64_t miss = 0;
		for (size_t k = 0; k < c->rk.n && c->rk.v[k].rank == miss; k++)
			miss++;
		return fail(c, "rank %lld of world size %lld has no summary (%zu of %lld given%s%s); --partial "
			       "combines the ranks present",
			    (long long)miss, (long long)c->world, c->rk.n, (long long)c->world,
			    c->src->what ? " in " : "", c->src->what ? c->src->what : "");
	}
	return GF_OK;
}

/* The minimum-wait rule over every matched instance, per group. */
static void match(struct comb *c, struct ranks *r, const size_t *pos)
{
	/* first entry of each instance sets min; later ones lower it */
	uint8_t *seen = gf_xcalloc(c->in.n ? c->in.n : 1, 1);
	for (size_t e = 0; e < c->ent.n; e++) {
		const struct entry *x = &c->ent.v[e];
		struct inst *in = &c->in.v[x->inst];
		gf_ns d = x->end - x->start;
		if (!seen[x->inst]) {
			seen[x->inst] = 1;
			in->min = d;
			in->argmin = x->pair;
			in->ties = 0;
			continue;
		}
		size_t ra = pos[c->pairs.v[x->pair].rank], rb = pos[c->pairs.v[in->argmin].rank];
		if (d < in->min) {
			in->min = d;
			in->argmin = x->pair;
			in->ties = 0;
		} else if (d == in->min) {
			in->ties++;
			if (ra < rb)
				in->argmin = x->pair;
		}
	}
	free(seen);
	for (size_t i = 0; i < c->in.n; i++) {
		const struct inst *in = &c->in.v[i];
		struct ranks_group *g = &c->g.v[in->group];
		g->instances++;
		if (in->count == g->members) {
			g->matched++;
			if (!in->ties)
				c->pairs.v[in->argmin].last++;
			if (in->mismatch) {
				if (!g->mismatched) {
					g->mismatch_at = (long)pos[c->pairs.v[in->argmin].rank];
					g->mismatch_seq = in->seq;
				}
				g->mismatched++;
			}
		} else {
			g->unmatched++;
		}
	}
	for (size_t e = 0; e < c->ent.n; e++) {
		const struct entry *x = &c->ent.v[e];
		const struct inst *in = &c->in.v[x->inst];
		if (in->count == c->g.v[in->group].members)
			c->pairs.v[x->pair].wait += (x->end - x->start) - in->min;
	}
	/* per group: the straggler; per rank: its waits and arrivals */
	for (size_t k = 0; k < c->rk.n; k++)
		c->rk.v[k].fig[RF_WAIT] = c->rk.v[k].fig[RF_LAST] = c->rk.v[k].colls ? 0 : INT64_MIN;
	long *best = gf_xcalloc(c->g.n ? c->g.n : 1, sizeof *best);
	for (size_t g = 0; g < c->g.n; g++)
		best[g] = -1;
	for (size_t p = 0; p < c->pairs.n; p++) {
		const struct pair *x = &c->pairs.v[p];
		struct ranks_rank *k = &c->rk.v[pos[x->rank]];
		k->fig[RF_WAIT] += x->wait;
		k->fig[RF_LAST] += (int64_t)x->last;
		if (!x->last) /* arrived last nowhere: no straggler */
			continue;
		long b = best[x->group];
		const struct pair *y = b < 0 ? NULL : &c->pairs.v[b];
		if (!y || x->last > y->last ||
		    (x->last == y->last && (x->wait < y->wait || (x->wait == y->wait && pos[x->rank] < pos[y->rank]))))
			best[x->group] = (long)p;
	}
	for (size_t p = 0; p < c->pairs.n; p++) {
		const struct pair *x = &c->pairs.v[p];
		struct ranks_group *g = &c->g.v[x->group];
		if (x->wait > g->max_wait)
			g->max_wait = x->wait;
		if (best[x->group] < 0)
			continue;
		const struct pair *y = &c->pairs.v[best[x->group]];
		if (x != y)
			g->waited += x->wait;
	}
	for (size_t g = 0; g < c->g.n; g++) {
		struct ranks_group *gr = &c->g.v[g];
		if (best[g] < 0)
			continue;
		const struct pair *y = &c->pairs.v[best[g]];
		gr->straggler = (long)pos[y->rank];
		gr->last = y->last;
		gr->clear = true;
	}
	for (size_t p = 0; p < c->pairs.n; p++) {
		const struct pair *x = &c->pairs.v[p];
		if (best[x->group] >= 0 && (long)p != best[x->group] && x->last >= c->g.v[x->group].last)
			c->g.v[x->group].clear = false;
	}
	free(best);
	r->fallback = c->fallback != 0;
	/* groups only declared (pg_config) but with no collective: not shown */
	uint32_t *remap = gf_xcalloc(c->g.n ? c->g.n : 1, sizeof *remap);
	size_t m = 0;
	for (size_t g = 0; g < c->g.n; g++) {
		if (c->g.v[g].members) {
			remap[g] = (uint32_t)m;
			c->g.v[m++] = c->g.v[g];
			continue;
		}
		free(c->g.v[g].name);
		free(c->g.v[g].desc);
		free(c->g.v[g].ranks);
	}
	c->g.n = m;
	for (size_t p = 0; p < c->pairs.n; p++) /* a pair's group has a member: it is kept */
		c->pairs.v[p].group = remap[c->pairs.v[p].group];
	free(remap);
}

/* --- distributions, steps, verdicts ------------------------------------ */

struct val {
	int64_t v;
	size_t k;
};

static int cmp_val(const void *a, const void *b)
{
	const struct val *x = a, *y = b;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* The nearest-rank p-th percentile of the n sorted values. */
static int64_t pct(const struct val *v, size_t n, unsigned p)
{
	size_t i = (p * n + 99) / 100;
	return v[i ? i - 1 : 0].v;
}

static int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

struct outl {
	size_t k;
	int64_t d;
};

static int cmp_outl(const void *a, const void *b)
{
	const struct outl *x = a, *y = b;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

static void distribution(struct ranks *r, int f, struct val *v)
{
	struct ranks_dist *d = &r->fig[f];
	size_t n = 0;
	for (size_t k = 0; k < r->n; k++)
		if (r->rank[k].fig[f] != INT64_MIN) {
			v[n].v = r->rank[k].fig[f];
			v[n++].k = k;
		}
	d->n = n;
	if (!n)
		return;
	qsort(v, n, sizeof *v, cmp_val);
	d->min = v[0].v;
	d->max = v[n - 1].v;
	d->q1 = pct(v, n, 25);
	d->p50 = pct(v, n, 50);
	d->q3 = pct(v, n, 75);
	d->p90 = pct(v, n, 90);
	__int128 iqr = (__int128)d->q3 - d->q1;
	struct outl *o = gf_xcalloc(n, sizeof *o);
	for (size_t i = 0; i < n; i++) {
		__int128 x = v[i].v;
		bool fence = 2 * x < 2 * (__int128)d->q1 - 3 * iqr || 2 * x > 2 * (__int128)d->q3 + 3 * iqr;
		int64_t dm = absdiff(v[i].v, d->p50);
		if (fence && (__int128)dm * 100 > (d->p50 < 0 ? -(__int128)d->p50 : (__int128)d->p50)) {
			o[d->nout].k = v[i].k;
			o[d->nout++].d = dm;
		}
	}
	qsort(o, d->nout, sizeof *o, cmp_outl);
	d->out = gf_xcalloc(d->nout ? d->nout : 1, sizeof *d->out);
	for (size_t i = 0; i < d->nout; i++)
		d->out[i] = o[i].k;
	free(o);
	if (f == RF_WALL)
		r->median = v[(50 * n + 99) / 100 - 1].k;
}

struct stepval {
	int64_t number;
	gf_ns wall;
	size_t k;
	bool warm;
};

static int cmp_stepval(const void *a, const void *b)
{
	const struct stepval *x = a, *y = b;
	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	if (x->wall != y->wall)
		return x->wall < y->wall ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* Step numbers of any rank, with the step wall across the ranks having it. */
static void steps(struct ranks *r)
{
	size_t n = 0;
	for (size_t k = 0; k < r->n; k++)
		n += r->rank[k].ncell;
	struct stepval *v = gf_xcalloc(n ? n : 1, sizeof *v);
	size_t m = 0;
	for (size_t k = 0; k < r->n; k++)
		for (size_t q = 0; q < r->rank[k].ncell; q++) {
			const struct ranks_cell *e = &r->rank[k].cell[q];
			v[m++] = (struct stepval){ e->number, e->wall, k, e->warmup };
		}
	qsort(v, m, sizeof *v, cmp_stepval);
	VEC(struct ranks_step) out = VEC_INIT;
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j < m && v[j].number == v[i].number)
			j++;
		struct ranks_step *s = vec_add(&out);
		memset(s, 0, sizeof *s);
		s->number = v[i].number;
		s->n = j - i;
		for (size_t q = i; q < j; q++)
			s->warm += v[q].warm;
		s->min = v[i].wall;
		s->max = v[j - 1].wall;
		s->p50 = v[i + ((50 * s->n + 99) / 100 - 1)].wall;
		/* the slowest: the lowest rank among the longest */
		size_t sl = j - 1;
		while (sl > i && v[sl - 1].wall == v[j - 1].wall)
			sl--;
		s->slowest = v[sl].k;
		i = j;
	}
	free(v);
	r->steps = out.v;
	r->nsteps = out.n;
}

static int cmp_verdict(const void *a, const void *b)
{
	const struct ranks_verdict *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (!x->cause || !y->cause)
		return !x->cause - !y->cause;
	return strcmp(x->cause, y->cause);
}

static void verdicts(struct ranks *r)
{
	VEC(struct ranks_verdict) v = VEC_INIT;
	for (size_t k = 0; k < r->n; k++) {
		const char *c = r->rank[k].cause;
		size_t i = 0;
		while (i < v.n && !((!c && !v.v[i].cause) || (c && v.v[i].cause && !strcmp(c, v.v[i].cause))))
			i++;
		if (i == v.n) {
			struct ranks_verdict *x = vec_add(&v);
			x->cause = c ? gf_xstrdup(c) : NULL;
			x->count = 0;
			x->first = k;
		}
		v.v[i].count++;
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_verdict);
	r->verdicts = v.v;
	r->nverdicts = v.n;
}

/* --- pass 2: the ranks compared or shown in full ------------------------ */

/* Loads and parses summary src index i into s (and its text into text). */
static int reload(struct comb *c, size_t i, struct sbuf *text, struct summary *s)
{
	sbuf_reset(text);
	int rc = c->src->load(c->src->ctx, i, text, c->err);
	if (!rc)
		rc = summary_parse(s, text->buf, text->len, nm(c, i), c->err);
	return rc;
}

/* The group the output leads with: the most waiting for a clear straggler,
 * else the most waiting; -1 when no group matched anything. */
static long lead_group(const struct ranks *r)
{
	long best = -1;
	for (int clear = 1; clear >= 0 && best < 0; clear--)
		for (size_t g = 0; g < r->ngroups; g++) {
			const struct ranks_group *x = &r->groups[g];
			if (x->straggler < 0 || (clear && !x->clear))
				continue;
			if (best < 0 || x->waited > r->groups[best].waited)
				best = (long)g;
		}
	return best;
}

static int cmp_kdiff(const void *a, const void *b)
{
	const struct ranks_kdiff *x = a, *y = b;
	gf_ns dx = x->a - x->b, dy = y->a - y->b;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static gf_ns per_step(gf_ns v, size_t n)
{
	return n ? (gf_ns)(((__int128)v * 2 + (__int128)n) / (2 * (__int128)n)) : v;
}

/* The straggler of the lead group against the median rank of its group's
 * other members: the kernels with the most extra GPU time per step (among
 * each one's top kernels). */
static int compare(struct comb *c, struct ranks *r, const size_t *pos)
{
	struct ranks_cmp *m = &r->cmp;
	m->group = lead_group(r);
	m->a = m->b = -1;
	if (m->group < 0 || r->n < 2)
		return GF_OK;
	m->a = r->groups[m->group].straggler;
	/* the median by step wall of the group's other members */
	struct val *v = gf_xcalloc(r->n, sizeof *v);
	size_t n = 0;
	for (size_t p = 0; p < c->pairs.n; p++) {
		const struct pair *x = &c->pairs.v[p];
		size_t k = pos[x->rank];
		if ((long)x->group == m->group && (long)k != m->a && r->rank[k].fig[RF_WALL] != INT64_MIN) {
			v[n].v = r->rank[k].fig[RF_WALL];
			v[n++].k = k;
		}
	}
	qsort(v, n, sizeof *v, cmp_val);
	m->b = n ? (long)v[(50 * n + 99) / 100 - 1].k : -1;
	free(v);
	if (m->b < 0)
		return GF_OK;
	struct sbuf ta = SBUF_INIT, tb = SBUF_INIT;
	struct summary sa, sb;
	int rc = reload(c, r->rank[m->a].src, &ta, &sa);
	if (rc)
		goto out0;
	if ((rc = reload(c, r->rank[m->b].src, &tb, &sb)))
		goto out1;
	VEC(struct ranks_kdiff) kd = VEC_INIT;
	size_t na = sa.nsteps, nb = sb.nsteps;
	for (size_t i = 0; i < sa.nkernels; i++) {
		struct ranks_kdiff *x = vec_add(&kd);
		x->name = gf_xstrdup(sa.kernels[i].name);
		x->a = per_step(sa.kernels[i].gpu, na);
		x->b = 0;
		for (size_t j = 0; j < sb.nkernels; j++)
			if (!strcmp(sb.kernels[j].name, x->name))
				x->b = per_step(sb.kernels[j].gpu, nb);
	}
	if (kd.n)
		qsort(kd.v, kd.n, sizeof *kd.v, cmp_kdiff);
	size_t keep = 0;
	while (keep < kd.n && keep < RANKS_KERNEL_DIFF && kd.v[keep].a > kd.v[keep].b)
		keep++;
	for (size_t i = keep; i < kd.n; i++)
		free(kd.v[i].name);
	m->k = kd.v;
	m->nk = keep;
	summary_free(&sb);
out1:
	summary_free(&sa);
out0:
	sbuf_release(&ta);
	sbuf_release(&tb);
	return rc;
}

static bool page_has(const struct ranks *r, size_t k)
{
	for (size_t i = 0; i < r->npages; i++)
		if (r->pages[i].rank == k)
			return true;
	return false;
}

static int cmp_group_wait(const void *a, const void *b, void *ctx)
{
	const struct ranks *r = ctx;
	const struct ranks_group *x = &r->groups[*(const size_t *)a], *y = &r->groups[*(const size_t *)b];
	if (x->waited != y->waited)
		return x->waited > y->waited ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* The ranks the page shows in full: the stragglers of the groups with the
 * most waiting, then the median rank; their report and page text. */
static int pages(struct comb *c, struct ranks *r)
{
	r->pages = gf_xcalloc(RANKS_PAGES, sizeof *r->pages);
	size_t *ord = gf_xcalloc(r->ngroups ? r->ngroups : 1, sizeof *ord);
	for (size_t g = 0; g < r->ngroups; g++)
		ord[g] = g;
	qsort_r(ord, r->ngroups, sizeof *ord, cmp_group_wait, r);
	for (size_t i = 0; i < r->ngroups && r->npages < RANKS_PAGES - 1; i++) {
		const struct ranks_group *g = &r->groups[ord[i]];
		if (g->straggler < 0 || page_has(r, (size_t)g->straggler))
			continue;
		struct ranks_page *p = &r->pages[r->npages++];
		p->rank = (size_t)g->straggler;
		struct sbuf w = SBUF_INIT;
		if (r->fallback)
			sbuf_addstr(&w, "straggler");
		else
			sbuf_addf(&w, "straggler of group '%s'", g->name);
		p->why_buf = sbuf_detach(&w, NULL);
		p->why = p->why_buf;
	}
	free(ord);
	if (r->n && !page_has(r, r->median)) {
		struct ranks_page *p = &r->pages[r->npages++];
		p->rank = r->median;
		p->why = "median rank by step wall";
	}
	int rc = GF_OK;
	struct sbuf t = SBUF_INIT;
	for (size_t i = 0; i < r->npages && !rc; i++) {
		struct ranks_page *p = &r->pages[i];
		struct summary s;
		if ((rc = reload(c, r->rank[p->rank].src, &t, &s)))
			break;
		p->report = gf_xmalloc(s.rep_len + 1);
		memcpy(p->report, s.text + s.rep_off, s.rep_len);
		p->report[s.rep_len] = 0;
		if (s.page_len) {
			p->page = gf_xmalloc(s.page_len + 1);
			memcpy(p->page, s.text + s.page_off, s.page_len);
			p->page[s.page_len] = 0;
		}
		summary_free(&s);
	}
	sbuf_release(&t);
	return rc;
}

/* --- the combine ---------------------------------------------------------- */

static void comb_free(struct comb *c)
{
	pool_free(c->names);
	for (size_t i = 0; i < c->rk.n; i++) {
		free(c->rk.v[i].file);
		free(c->rk.v[i].cause);
		free(c->rk.v[i].verdict);
		free(c->rk.v[i].action);
		free(c->rk.v[i].cell);
	}
	vec_free(&c->rk);
	for (size_t i = 0; i < c->g.n; i++) {
		free(c->g.v[i].name);
		free(c->g.v[i].desc);
		free(c->g.v[i].ranks);
	}
	vec_free(&c->g);
	vec_free(&c->gs);
	free(c->group_of);
	vec_free(&c->in);
	free(c->slot);
	vec_free(&c->ent);
	vec_free(&c->pairs);
	free(c->occ);
	free(c->occ_rank);
	free(c->first_name);
	free(c->run);
	free(c->options);
}

int ranks_combine(const struct ranks_source *src, const struct ranks_opts *o, struct ranks *r, struct sbuf *err)
{
	memset(r, 0, sizeof *r);
	struct comb c;
	memset(&c, 0, sizeof c);
	c.src = src;
	c.err = err;
	c.names = pool_new();
	c.world = -1;
	int rc = pass1(&c);
	size_t *pos = gf_xcalloc(src->n ? src->n : 1, sizeof *pos);
	if (!rc && !c.rk.n)
		rc = fail(&c, "no summary to combine");
	if (!rc)
		rc = order_ranks(&c, o, r, pos);
	if (rc) {
		free(pos);
		comb_free(&c);
		return rc;
	}
	match(&c, r, pos);
	/* hand over what the result keeps */
	r->n = c.rk.n;
	r->rank = c.rk.v;
	c.rk.v = NULL;
	c.rk.n = 0;
	r->groups = c.g.v;
	r->ngroups = c.g.n;
	c.g.v = NULL;
	c.g.n = 0;
	r->world_size = c.world;
	r->ranks_known = c.ranks_known;
	r->options = c.options;
	c.options = NULL;
	struct val *v = gf_xcalloc(r->n, sizeof *v);
	for (int f = 0; f < RF_N; f++)
		distribution(r, f, v);
	free(v);
	steps(r);
	verdicts(r);
	rc = compare(&c, r, pos);
	free(pos);
	if (!rc && o->pages)
		rc = pages(&c, r);
	comb_free(&c);
	if (rc)
		ranks_free(r);
	return rc;
}

void ranks_free(struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rank[i].file);
		free(r->rank[i].cause);
		free(r->rank[i].verdict);
		free(r->rank[i].action);
		free(r->rank[i].cell);
	}
	free(r->rank);
	for (int f = 0; f < RF_N; f++)
		free(r->fig[f].out);
	for (size_t i = 0; i < r->ngroups; i++) {
		free(r->groups[i].name);
		free(r->groups[i].desc);
		free(r->groups[i].ranks);
	}
	free(r->groups);
	free(r->steps);
	for (size_t i = 0; i < r->nverdicts; i++)
		free(r->verdicts[i].cause);
	free(r->verdicts);
	for (size_t i = 0; i < r->cmp.nk; i++)
		free(r->cmp.k[i].name);
	free(r->cmp.k);
	for (size_t i = 0; i < r->npages; i++) {
		free(r->pages[i].report);
		free(r->pages[i].page);
		free(r->pages[i].why_buf);
	}
	free(r->pages);
	free(r->options);
	memset(r, 0, sizeof *r);
}

void ranks_name(const struct ranks *r, size_t i, struct sbuf *b)
{
	const struct ranks_rank *k = &r->rank[i];
	if (k->rank >= 0)
		sbuf_addf(b, "rank %lld", (long long)k->rank);
	else
		sbuf_addf(b, "#%zu (%s)", i + 1, k->file);
}
