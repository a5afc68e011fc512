/* syncs.c — hidden syncs in a trace (see syncs.h). */
#include "trace/analysis/syncs.h"

#include "trace/analysis/gaps.h"

#include "base/names.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

/* An op of the one list of syncing aten ops (names.h: names_op_sync). */
static bool known_op(const char *n)
{
	return names_op_sync(n, strlen(n)) != NAMES_OP_NONE;
}

/* Row (window) containing ts, or -1. Rows are sorted by start. */
static long row_at(const struct steps_result *st, gf_ns ts)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (st->rows[m].start <= ts)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == 0)
		return -1;
	const struct step_row *r = &st->rows[lo - 1];
	return ts < r->end ? (long)(lo - 1) : -1;
}

/* An async copy in direction dir (TAF_DTOH, TAF_HTOD) before sync call si
 * under the same parent. */
static uint32_t copy_before(const struct actx *c, uint32_t si, unsigned dir)
{
	const struct trace *t = c->t;
	uint32_t p = t->r[si].parent;
	uint32_t first = t->th[t->r[si].thread].first;
	for (uint32_t k = si, n = 0; k-- > first && n < 64; n++) {
		if (k == p)
			break;
		if (t->r[k].parent != p)
			continue;
		if (!(t->r[k].flags & TRF_MEMCPY) || (t->r[k].flags & TRF_SYNC))
			continue;
		uint32_t a = c->first_act[k];
		if (a != TRACE_NONE && (t->act[a].flags & dir))
			return k;
	}
	return TRACE_NONE;
}

/* Direction of the copy behind a blocking call: its own activity, else a
 * preceding memcpy under the same parent. */
static unsigned copy_dir(const struct actx *c, uint32_t si, uint32_t memcpy_call)
{
	const struct trace *t = c->t;
	uint32_t a = c->first_act[si];
	if (a == TRACE_NONE && memcpy_call != TRACE_NONE)
		a = c->first_act[memcpy_call];
	return a == TRACE_NONE ? 0 : t->act[a].flags & (TAF_DTOH | TAF_HTOD | TAF_DTOD);
}

/* The fix of a blocking call: what the op asked for first (a value, a
 * check, a copy and its direction), then what the call is. memcpy_call: a
 * device-to-host copy before it; h2d_call: a host-to-device one. */
static int pick_fix(const struct actx *c, uint32_t si, const char *api, const char *op,
		    uint32_t memcpy_call, uint32_t h2d_call)
{
	if (names_sync_kind(api, strlen(api)) == NAMES_SYNC_FREE)
		return SF_FREE;
	if ((c->blk[si] & ACTX_B_H2D) || (h2d_call != TRACE_NONE && memcpy_call == TRACE_NONE))
		return SF_H2D_INPUT; /* an input copy that waited for the GPU */
	if (!strcmp(op, "aten::is_nonzero"))
		return SF_BOOL;
	if (!strcmp(op, "aten::item") || !strcmp(op, "aten::_local_scalar_dense"))
		return SF_ITEM;
	if (!strcmp(op, "aten::to") || !strcmp(op, "aten::_to_copy") || !strcmp(op, "aten::copy_") ||
	    !strcmp(op, "aten::tolist") || !strcmp(op, "aten::numpy"))
		return copy_dir(c, si, memcpy_call) & TAF_HTOD ? SF_TO_DEVICE : SF_TO_HOST;
	if (known_op(op))
		return SF_NONZERO;
	if (c->blk[si] & ACTX_B_PAGEABLE)
		return SF_PAGEABLE;
	switch (names_sync_kind(api, strlen(api))) {
	case NAMES_SYNC_DEVICE:
		return SF_DEVICE_SYNC;
	case NAMES_SYNC_EVENT:
		return SF_EVENT_SYNC;
	case NAMES_SYNC_COPY:
	case NAMES_SYNC_ASYNC_COPY:
		return copy_dir(c, si, memcpy_call) & TAF_HTOD ? SF_TO_DEVICE : SF_TO_HOST;
	default:
		return SF_STREAM_SYNC;
	}
}

static int cmp_site(const void *a, const void *b)
{
	const struct sync_site *x = a, *y = b;
	if (x->bubble != y->bubble)
		return x->bubble > y->bubble ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait > y->wait ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int k = strcmp(x->site_name, y->site_name);
	if (k)
		return k;
	k = strcmp(x->op_name, y->op_name);
	return k ? k : strcmp(x->api, y->api);
}

/* Sites are grouped by their three names compared as C strings (a name may
 * hold a NUL byte from \u0000): each trace name id maps once to a canonical
 * id of its C string, and the triple of canonical ids is hashed, so grouping
 * costs O(1) per blocking call whatever the number of sites. */
struct sitemap {
	struct pool *cstr;      /* C strings of the names seen */
	uint32_t *canon;        /* per trace name id: id in cstr, UINT32_MAX = not yet */
	uint8_t *known;         /* per trace name id: 0 not yet, 1 not a sync op, 2 a sync op */
	uint32_t np;
	struct skey { uint32_t k[3]; uint32_t idx; } *tab; /* idx UINT32_MAX = empty */
	size_t cap, n;
};

static uint32_t canon_of(struct sitemap *m, const struct trace *t, uint32_t name)
{
	if (name >= m->np)
		return pool_intern_str(m->cstr, pool_str(t->names, name));
	if (m->canon[name] == UINT32_MAX)
		m->canon[name] = pool_intern_str(m->cstr, pool_str(t->names, name));
	return m->canon[name];
}

static bool known_id(struct sitemap *m, const struct trace *t, uint32_t name)
{
	if (name >= m->np)
		return known_op(pool_str(t->names, name));
	if (!m->known[name])
		m->known[name] = known_op(pool_str(t->names, name)) ? 2 : 1;
	return m->known[name] == 2;
}

static uint64_t skey_hash(const uint32_t k[3])
{
	return gf_hash_u64(((uint64_t)k[0] << 32 | k[1]) ^ gf_hash_u64(k[2]));
}

/* Slot of key k (empty when absent). */
static struct skey *smap_slot(struct sitemap *m, const uint32_t k[3])
{
	size_t mask = m->cap - 1, h = (size_t)skey_hash(k) & mask;
	while (m->tab[h].idx != UINT32_MAX &&
	       (m->tab[h].k[0] != k[0] || m->tab[h].k[1] != k[1] || m->tab[h].k[2] != k[2]))
		h = (h + 1) & mask;
	return &m->tab[h];
}

static void smap_grow(struct sitemap *m)
{
	size_t oc = m->cap, nc = oc ? 2 * oc : 64;
	struct skey *old = m->tab;
	m->tab = gf_xmalloc(nc * sizeof *m->tab);
	for (size_t i = 0; i < nc; i++)
		m->tab[i].idx = UINT32_MAX;
	m->cap = nc;
	for (size_t i = 0; i < oc; i++)
		if (old[i].idx != UINT32_MAX)
			*smap_slot(m, old[i].k) = old[i];
	free(old);
}

int syncs_analyze(const struct actx *c, const struct steps_result *st, const struct gaps_result *gp,
		  struct syncs_result *r)
{
	const struct trace *t = c->t;
	memset(r, 0, sizeof *r);
	if (GF_CHECKS) /* row_at's binary search */
		for (size_t i = 1; i < st->n; i++)
			GF_ASSERT(st->rows[i - 1].start <= st->rows[i].start);
	r->nsteps = st->n;
	r->nsteady = st->nsteady ? st->nsteady : st->n;
	VEC(struct sync_site) v = VEC_INIT;
	struct sbuf chain = SBUF_INIT;
	uint32_t ops[64];
	struct sitemap sm = { 0 };
	sm.cstr = pool_new();
	sm.np = pool_count(t->names);
	sm.canon = gf_xmalloc((sm.np ? sm.np : 1) * sizeof *sm.canon);
	for (uint32_t i = 0; i < sm.np; i++)
		sm.canon[i] = UINT32_MAX;
	sm.known = gf_xcalloc(sm.np ? sm.np : 1, 1);
	uint32_t no_site = pool_intern_str(sm.cstr, "[no Python frame]");
	uint32_t no_op = pool_intern_str(sm.cstr, "-");
	smap_grow(&sm);
	for (uint32_t i = 0; i < t->nr; i++) {
		if (!c->blk[i])
			continue;
		const struct trace_range *s = &t->r[i];
		if (row_at(st, s->start) < 0)
			continue;
		uint32_t mc = (s->flags & TRF_SYNC) ? copy_before(c, i, TAF_DTOH) : TRACE_NONE;
		uint32_t hc = (s->flags & TRF_SYNC) ? copy_before(c, i, TAF_HTOD) : TRACE_NONE;
		/* the op chain: contiguous cpu_op ancestors above the call (the
		 * runtime/driver calls between are skipped without a walk) */
		size_t nops = 0;
		uint32_t p = actx_nonrt_parent(c, i);
		while (p != TRACE_NONE && t->r[p].kind == TR_OP && nops < GF_ARRAY_LEN(ops)) {
			ops[nops++] = p;
			p = t->r[p].parent;
		}
		/* ops[] is innermost first */
		uint32_t op = nops ? ops[0] : TRACE_NONE;
		for (size_t k = nops; k-- > 0;) {
			if (known_id(&sm, t, t->r[ops[k]].name)) {
				op = ops[k];
				break;
			}
		}
		uint32_t site = actx_site(c, i);
		gf_ns wait = s->end - s->start;
		const struct gap_call *gcall = gaps_call(gp, i);
		gf_ns bubble = gcall ? gcall->ns : 0, after = gcall ? gcall->after : 0;
		gf_ns bsteady = gcall ? gcall->steady : 0;
		/* one row per call site: a Python site with its op is one line of
		 * code whatever calls it makes (.tolist(): a pageable copy, then a
		 * stream sync); without a site the call tells rows apart */
		uint32_t key[3] = {
			site == TRACE_NONE ? no_site : canon_of(&sm, t, t->r[site].name),
			op == TRACE_NONE ? no_op : canon_of(&sm, t, t->r[op].name),
			site == TRACE_NONE ? canon_of(&sm, t, s->name) : no_op,
		};
		struct skey *slot = smap_slot(&sm, key);
		struct sync_site *g;
		if (slot->idx != UINT32_MAX) {
			g = &v.v[slot->idx];
		} else {
			slot->idx = (uint32_t)v.n;
			memcpy(slot->k, key, sizeof key);
			if (2 * ++sm.n > sm.cap)
				smap_grow(&sm);
			const char *site_name = site == TRACE_NONE ? "[no Python frame]" : trace_rname(t, site);
			const char *op_name = op == TRACE_NONE ? "-" : trace_rname(t, op);
			const char *api = trace_rname(t, i);
			sbuf_reset(&chain);
			for (size_t k = nops; k-- > 0;)
				sbuf_addf(&chain, "%s%s", k + 1 < nops ? " > " : "", trace_rname(t, ops[k]));
			g = vec_add(&v);
			g->site = site;
			g->op = op;
			g->site_name = gf_xstrdup(site_name);
			g->op_name = gf_xstrdup(op_name);
			g->op_chain = gf_xstrdup(nops ? chain.buf : "-");
			g->api = gf_xstrdup(api);
			g->copy = mc == TRACE_NONE ? NULL : gf_xstrdup(trace_rname(t, mc));
			g->pageable = c->blk[i] & ACTX_B_PAGEABLE;
			g->fix = pick_fix(c, i, api, op_name, mc, hc);
		}
		g->count++;
		g->wait += wait;
		g->bubble += bubble;
		g->after += after;
		g->bubble_steady += bsteady;
		if (wait > g->max_wait)
			g->max_wait = wait;
		r->count++;
		r->wait += wait;
		r->bubble += bubble;
	}
	for (size_t k = 0; k < v.n; k++) {
		struct sync_site *g = &v.v[k];
		/* on average more than HTA's 30 us of GPU idle after each return
		 * before the next launch */
		g->host_work_after = g->after / (gf_ns)g->count > ACTX_KERNEL_WAIT_NS;
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_site);
	r->sites = v.v;
	r->nsites = v.n;
	sbuf_release(&chain);
	pool_free(sm.cstr);
	free(sm.canon);
	free(sm.known);
	free(sm.tab);
	return GF_OK;
}

void syncs_release(struct syncs_result *r)
{
	for (size_t i = 0; i < r->nsites; i++) {
		free(r->sites[i].site_name);
		free(r->sites[i].op_name);
		free(r->sites[i].op_chain);
		free(r->sites[i].api);
		free(r->sites[i].copy);
	}
	free(r->sites);
	memset(r, 0, sizeof *r);
}
