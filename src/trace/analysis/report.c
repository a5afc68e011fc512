/* report.c — one trace's report and its verdict (see report.h). */
#include "trace/analysis/report.h"

#include "base/names.h"
#include "base/vec.h"
#include "trace/analysis/fold.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void report_opts_init(struct report_opts *o)
{
	trace_sel_init(&o->steps);
	o->unprofiled_ns = -1;
	o->expect_ns = -1;
	o->parts = RP_ALL;
	o->gap_pieces = false;
	o->explain = 0;
}

/* A top call while counting: its pool id (the order among equal counts). */
struct top_slot {
	uint32_t name;
	uint8_t kind;
	uint64_t count;
};

static int cmp_top(const void *a, const void *b)
{
	const struct top_slot *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

static void top_calls(struct report *r, const struct actx *c)
{
	const struct trace *t = c->t;
	struct top_slot top[REPORT_TOP_CALLS];
	size_t ntop = 0;
	uint32_t np = pool_count(t->names);
	uint64_t *cnt = gf_xcalloc((size_t)np * 2 + 1, sizeof *cnt);
	/* each call counts once per steady step holding its start (weights:
	 * overlapping steps cost O(n + threads log steps), not a pass per step) */
	struct actx_cover cv;
	actx_cover_init(&cv, &r->st);
	struct actx_cover_sweep sw = { 0 }; /* each thread's ranges are in start order */
	for (uint32_t k = 0; k < t->nr && cv.n; k++) {
		const struct trace_range *x = &t->r[k];
		if (x->name >= np)
			continue;
		size_t slot;
		if (x->kind == TR_OP)
			slot = x->name;
		else if ((x->kind == TR_RUNTIME || x->kind == TR_DRIVER) && (x->flags & TRF_LAUNCH))
			slot = (size_t)np + x->name;
		else
			continue;
		cnt[slot] += actx_cover_next(&cv, &sw, x->start);
	}
	actx_cover_release(&cv);
	/* keep the top REPORT_TOP_CALLS */
	for (size_t i = 0; i < (size_t)np * 2; i++) {
		if (!cnt[i])
			continue;
		struct top_slot x = { (uint32_t)(i % np), (uint8_t)(i < np ? TR_OP : TR_RUNTIME), cnt[i] };
		if (ntop < REPORT_TOP_CALLS) {
			top[ntop++] = x;
			qsort(top, ntop, sizeof *top, cmp_top);
		} else if (cmp_top(&x, &top[ntop - 1]) < 0) {
			top[ntop - 1] = x;
			qsort(top, ntop, sizeof *top, cmp_top);
		}
	}
	free(cnt);
	for (size_t i = 0; i < ntop; i++) {
		r->top[i].name = gf_xstrdup(pool_str(t->names, top[i].name));
		r->top[i].kind = top[i].kind;
		r->top[i].count = top[i].count;
	}
	r->ntop = ntop;
}

static int cmp_key(const void *a, const void *b)
{
	const struct gap_key *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* The idle stacks collected: the self weight of every node of the idle
 * tree, by path (or the fold's error). */
struct idle_set {
	VEC(struct gap_key) v;
	size_t steps;
	char *err;
};

/*
 * Host stacks by GPU idle time on the analysed device: fold's idle weight
 * (the gap model's charges, rooted in their cause and class), innermost 3
 * frames, over the same step selection (idle_finish keeps the top
 * REPORT_IDLE_TOP). Reads r's gap model only: may run on the second core.
 */
static void idle_collect(const struct report *r, const struct actx *c, const struct trace_sel *so,
			 struct idle_set *out)
{
	struct fold_opts fo;
	fold_opts_init(&fo);
	fo.weight = FW_IDLE;
	fo.unit = FU_NS;
	fo.max_depth = 3;
	fo.device = c->device;
	fo.steps = *so; /* the model's one step selection, as the step table's */
	fo.walk = &c->walk;
	struct ftree tr;
	struct fold_stats fs;
	struct sbuf err = SBUF_INIT, path = SBUF_INIT;
	memset(&fs, 0, sizeof fs);
	memset(out, 0, sizeof *out);
	if (fold_idle_tree(c->t, &fo, &r->gp, false, &tr, &fs, &err)) {
		out->err = sbuf_detach(&err, NULL);
		ftree_release(&tr); /* initialised even on error */
		sbuf_release(&path);
		return;
	}
	for (uint32_t nd = 1; nd < tr.n; nd++) {
		int64_t w = ftree_self(&tr, nd, 0);
		if (w <= 0)
			continue;
		sbuf_reset(&path);
		ftree_path(&tr, nd, &path);
		struct gap_key k = { gf_xstrdup(path.buf), w };
		vec_push(&out->v, k);
	}
	out->steps = fs.steps;
	ftree_release(&tr);
	sbuf_release(&err);
	sbuf_release(&path);
}

/* The top REPORT_IDLE_TOP of the collected stacks; a fold error only
 * drops them (r->idle_err). */
static void idle_finish(struct report *r, struct idle_set *sh)
{
	if (sh->err) {
		for (size_t i = 0; i < sh->v.n; i++)
			free(sh->v.v[i].label);
		vec_free(&sh->v);
		r->idle_err = sh->err;
		return;
	}
	if (sh->v.n)
		qsort(sh->v.v, sh->v.n, sizeof *sh->v.v, cmp_key);
	for (size_t i = REPORT_IDLE_TOP; i < sh->v.n; i++)
		free(sh->v.v[i].label);
	r->idle = sh->v.v;
	r->nidle = sh->v.n < REPORT_IDLE_TOP ? sh->v.n : REPORT_IDLE_TOP;
	r->idle_steps = sh->steps ? sh->steps : 1;
}

const char *report_verdict_key(const struct report_verdict *v)
{
	if (v->kind == VERDICT_CAUSE && v->cause >= 0 && v->cause < GAP_NCAUSES)
		return causes_gap[v->cause].key;
	if (v->kind == VERDICT_COMM)
		return causes_busy[BUSY_COMM].key;
	return v->kind == VERDICT_GPU_BOUND ? "gpu_bound" : "none";
}

/* The syncs table's site behind a gap sync-site label, or NULL. */
static const struct sync_site *sync_site_of(const struct report *r, const char *label)
{
	size_t pl = strlen("[no Python frame] > ");
	for (size_t i = 0; i < r->sy.nsites; i++) {
		const struct sync_site *s = &r->sy.sites[i];
		if (s->site != TRACE_NONE ? !strcmp(s->site_name, label)
					  : !strncmp(label, "[no Python frame] > ", pl) && !strcmp(label + pl, s->api))
			return s;
	}
	return NULL;
}

/* GPU-bound: busy >= 90% of the steady steps outside the window edges
 * (sums over the same steps, so the share is at most 100%), and the edges
 * hold under half of them. */
static bool gpu_bound(gf_ns wall, gf_ns busy, gf_ns edge)
{
	gf_ns inner = wall - edge;
	return inner > 0 && (__int128)edge * 2 < (__int128)wall && (__int128)busy * 10 >= (__int128)inner * 9;
}

/* The largest cause of g (ties: the table's order) and the other causes
 * of at least 1% of wall, largest first. */
static void rank_causes(const struct gap_row *g, gf_ns wall, struct report_verdict *v)
{
	int top = -1;
	for (int k = 0; k < GAP_NCAUSES; k++)
		if (g->c[k] > 0 && (top < 0 || g->c[k] > g->c[top]))
			top = k;
	v->cause = top;
	if (top < 0)
		return;
	v->ns = g->c[top];
	bool done[GAP_NCAUSES] = { false };
	done[top] = true;
	for (;;) {
		int k2 = -1;
		for (int k = 0; k < GAP_NCAUSES; k++)
			if (!done[k] && g->c[k] > 0 && (__int128)g->c[k] * 100 >= (__int128)wall &&
			    (k2 < 0 || g->c[k] > g->c[k2]))
				k2 = k;
		if (k2 < 0)
			break;
		done[k2] = true;
		v->others[v->nothers] = k2;
		v->others_ns[v->nothers++] = g->c[k2];
	}
}

/* ---- the verdict's path through the idle-weighted tree ---------------- */

#define ROOT_NAME (UINT32_MAX - 1)

/* The heaviest name of names[0..n) (weights w) summed by name (ties: the
 * lower pool id, so the first seen in the trace; ROOT_NAME above every
 * id). acc: one zeroed slot per pool id and one for ROOT_NAME (np), left
 * zeroed; direct addressing, as a level's entries run to millions. */
static uint32_t heaviest(const uint32_t *names, const gf_ns *w, size_t n, gf_ns *acc, uint32_t np, gf_ns *out)
{
	uint32_t best = UINT32_MAX;
	gf_ns bw = -1;
	VEC(uint32_t) seen = VEC_INIT;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = names[i] == ROOT_NAME ? np : names[i];
		GF_ASSERT(k <= np && w[i] > 0);
		if (!acc[k])
			vec_push(&seen, k);
		acc[k] += w[i];
	}
	for (size_t i = 0; i < seen.n; i++) {
		uint32_t k = seen.v[i];
		uint32_t key = k == np ? ROOT_NAME : k;
		if (acc[k] > bw || (acc[k] == bw && key < best)) {
			bw = acc[k];
			best = key;
		}
		acc[k] = 0;
	}
	vec_free(&seen);
	*out = n ? bw : 0;
	return best;
}

/* The nearest ancestor of ri that is not the step marker (TRACE_NONE). */
static uint32_t up(const struct trace *t, uint32_t ri)
{
	uint32_t p = t->r[ri].parent;
	while (p != TRACE_NONE && (t->r[p].flags & TRF_STEP))
		p = t->r[p].parent;
	return p;
}

/* The verdict's stack inside (cause, class): the innermost frame name
 * holding most of its steady idle, then its callers (the heaviest at each
 * level) up to the outermost frame; frames stops where the heaviest caller
 * holds under half of what the frames so far hold. */
static void verdict_path(const struct report *r, const struct actx *c, struct report_verdict *v)
{
	const struct trace *t = c->t;
	const struct gaps_result *gp = &r->gp;
	uint32_t np = pool_count(t->names);
	gf_ns *acc = gf_xcalloc((size_t)np + 1, sizeof *acc);
	VEC(uint32_t) cur = VEC_INIT;  /* the ranges of this level */
	VEC(gf_ns) cw = VEC_INIT;      /* their weights */
	VEC(uint32_t) nm = VEC_INIT;   /* their names (or their parents') */
	VEC(uint32_t) par = VEC_INIT;  /* their parents */
	uint32_t *pos = NULL;          /* per range: its index in cur + 1 (the level's merge) */
	for (size_t i = 0; i < gp->ncharges; i++) {
		const struct gap_charge *x = &gp->charges[i];
		if (x->cause != v->cause || x->hclass != v->hclass || x->steady <= 0 || x->id >= t->nr)
			continue;
		vec_push(&nm, t->r[x->id].name);
		vec_push(&cw, x->steady);
		vec_push(&cur, x->id);
	}
	gf_ns w;
	bool leaf_call = false;
	uint32_t leaf = heaviest(nm.v, cw.v, nm.n, acc, np, &w);
	if (leaf == UINT32_MAX)
		goto out;
	size_t k = 0;
	for (size_t i = 0; i < cur.n; i++) {
		if (nm.v[i] != leaf)
			continue;
		cur.v[k] = cur.v[i];
		cw.v[k++] = cw.v[i];
		leaf_call = t->r[cur.v[i]].kind == TR_RUNTIME || t->r[cur.v[i]].kind == TR_DRIVER;
	}
	cur.n = cw.n = k;
	pos = gf_xzalloc_dense(t->nr ? t->nr : 1, sizeof *pos);
	/* names innermost first */
	VEC(uint32_t) path = VEC_INIT;
	vec_push(&path, leaf);
	size_t nframes = 1;
	bool dominant = true;
	gf_ns have = w;
	v->frames_ns = w;
	for (size_t level = 1; level < GAPS_STACK_MAX && cur.n; level++) {
		nm.n = par.n = 0;
		for (size_t i = 0; i < cur.n; i++) {
			uint32_t p = up(t, cur.v[i]);
			vec_push(&par, p);
			vec_push(&nm, p == TRACE_NONE ? ROOT_NAME : t->r[p].name);
		}
		gf_ns pw;
		uint32_t pn = heaviest(nm.v, cw.v, nm.n, acc, np, &pw);
		if (pn == ROOT_NAME)
			break;
		/* the parents named pn, each once with the weight of its children */
		k = 0;
		for (size_t i = 0; i < cur.n; i++) {
			uint32_t p = par.v[i];
			if (p == TRACE_NONE || nm.v[i] != pn)
				continue;
			if (!pos[p]) {
				pos[p] = (uint32_t)k + 1;
				cur.v[k] = p;
				cw.v[k++] = cw.v[i];
			} else {
				cw.v[pos[p] - 1] += cw.v[i];
			}
		}
		cur.n = cw.n = k;
		for (size_t i = 0; i < k; i++)
			pos[cur.v[i]] = 0;
		vec_push(&path, pn);
		if (dominant && (__int128)pw * 2 >= (__int128)have) {
			nframes++;
			v->frames_ns = pw;
		} else {
			dominant = false;
		}
		have = pw;
	}
	struct sbuf b = SBUF_INIT;
	for (size_t i = path.n; i-- > 0;) {
		sbuf_addstr(&b, i + 1 < path.n ? " > " : "");
		sbuf_addstr(&b, pool_str(t->names, path.v[i]));
	}
	v->stack = sbuf_detach(&b, NULL);
	/* the prose names at most the innermost 3 of the dominant frames */
	size_t shown = nframes < 3 ? nframes : 3;
	for (size_t i = shown; i-- > 0;) {
		sbuf_addstr(&b, i + 1 < shown ? " > " : "");
		sbuf_addstr(&b, pool_str(t->names, path.v[i]));
	}
	v->frames = sbuf_detach(&b, NULL);
	/* the frame that gives the class, outermost first */
	if (v->hclass == HW_DATA || v->hclass == HW_WARMUP || v->hclass == HW_ALLOCATOR) {
		int want = v->hclass == HW_DATA ? NAMES_HW_DATA : v->hclass == HW_WARMUP ? NAMES_HW_WARMUP : NAMES_HW_ALLOCATOR;
		for (size_t i = path.n; i-- > 0;) {
			const char *s = pool_str(t->names, path.v[i]);
			if ((int)names_host_work(s, pool_len(t->names, path.v[i])) == want) {
				v->anchor = gf_xstrdup(s);
				break;
			}
		}
	}
	/* the call behind the class: the innermost frame when it is a call */
	if (leaf_call) {
		v->call = gf_xstrdup(pool_str(t->names, leaf));
		v->call_id = leaf;
	}
	sbuf_release(&b);
	vec_free(&path);
out:
	free(pos);
	free(acc);
	vec_free(&cur);
	vec_free(&cw);
	vec_free(&nm);
	vec_free(&par);
}

/* The evidence of the verdict's call: its calls starting in the steady
 * steps, their time, the longest, and the median duration of its name's
 * calls in the whole trace. */
static void call_evidence(const struct report *r, const struct actx *c, struct report_verdict *v)
{
	const struct trace *t = c->t;
	if (!v->call)
		return;
	struct actx_cover cv;
	actx_cover_init(&cv, &r->st);
	VEC(gf_ns) d = VEC_INIT;
	for (uint32_t th = 0; th < t->nth; th++) {
		struct actx_cover_sweep sw = { 0 };
		for (uint32_t i = t->th[th].first; i < t->th[th].first + t->th[th].n; i++) {
			const struct trace_range *x = &t->r[i];
			if ((x->kind != TR_RUNTIME && x->kind != TR_DRIVER) || x->name != v->call_id)
				continue; /* names are interned: one id a name */
			gf_ns dur = x->end - x->start;
			vec_push(&d, dur);
			uint64_t w = actx_cover_next(&cv, &sw, x->start);
			if (!w)
				continue;
			v->call_n += w;
			v->call_ns += dur * (gf_ns)w;
			if (dur > v->call_max)
				v->call_max = dur;
		}
	}
	v->call_median = actx_median(d.v, d.n);
	vec_free(&d);
	actx_cover_release(&cv);
}

/* Host time of the verdict's class inside frames that issue device work
 * (the host work IS launching: eager dispatch, compiled wrappers, graph
 * replays), and that time per launch call. */
static void issuing(const struct report *r, struct report_verdict *v)
{
	const struct gaps_result *gp = &r->gp;
	gf_ns in = 0, all = 0;
	for (size_t i = 0; i < gp->ncharges; i++) {
		const struct gap_charge *x = &gp->charges[i];
		if (x->cause != v->cause || x->hclass != v->hclass)
			continue;
		all += x->steady;
		if (x->flags & GCF_ISSUES)
			in += x->steady;
	}
	uint64_t launches = gp->ld.launch_calls + gp->ld.graph_launches;
	/* most of it between launches, in issuing frames: not one long piece */
	gf_ns sh = gp->by_class_short[v->cause][v->hclass];
	if (!launches || in * 2 < all || sh * 2 < all)
		return;
	v->per_launch = in / (gf_ns)launches;
	v->issuing = v->per_launch < REPORT_ISSUE_NS;
	v->at_floor = v->issuing && v->per_launch <= REPORT_LAUNCH_FLOOR_NS;
}

static void verdict_findings(struct report *r, const struct actx *c);


/* Exposed communication leads (report.h, causes.h BUSY_COMM): at least a
 * quarter of the mean steady step, and no less than its idle time. */
static bool comm_leads(const struct comm_result *cm)
{
	const struct comm_row *x = &cm->steady;
	return cm->kernels && cm->nsteady && x->wall > 0 && (__int128)x->exposed * 4 >= (__int128)x->wall &&
	       x->exposed >= x->wall - x->busy;
}

static void verdict_comm(struct report *r)
{
	struct report_verdict *v = &r->verdict;
	v->kind = VERDICT_COMM;
	v->advice = causes_busy[BUSY_COMM].advice;
	if (r->cm.ncoll) {
		const struct comm_coll *x = &r->cm.coll[0];
		v->coll = x;
		for (size_t i = 0; i < r->cm.ncoll && x->kind == NAMES_COLL_UNKNOWN; i++)
			if (r->cm.coll[i].kind != NAMES_COLL_UNKNOWN && r->cm.coll[i].exposed > 0)
				x = &r->cm.coll[i];
		v->advise = x;
		/* >= 8 calls per step, each under 100 us of communication */
		v->coll_small = x->calls >= 8 * (uint64_t)r->cm.nsteady && (__int128)x->comm * 10 < (__int128)x->calls * 1000000;
	}
}

static void verdict(struct report *r, const struct actx *c)
{
	struct report_verdict *v = &r->verdict;
	const struct step_row *s = &r->st.steady;
	const struct gap_row *g = &r->gp.steady;
	memset(v, 0, sizeof *v);
	v->call_id = TRACE_NONE;
	v->cause = -1;
	v->hclass = HW_NONE;
	v->wall = s->wall;
	v->busy = s->busy;
	v->whole_trace = r->st.whole_trace;
	v->legacy = c->t->meta.legacy;
	verdict_findings(r, c);
	if (c->dev == TRACE_NONE) {
		v->kind = VERDICT_NO_GPU;
		v->advice = v->legacy ? ADV_LEGACY : ADV_CPU_ONLY;
		return;
	}
	for (size_t i = 0; i < r->st.n; i++) {
		const struct step_row *row = &r->st.rows[i];
		if (row->warmup && r->st.nsteady)
			continue;
		v->wall_sum += row->wall;
		v->busy_sum += row->busy;
	}
	v->edge_sum = r->gp.steady_sum.c[GAP_EDGE];
	v->edge = g->c[GAP_EDGE];
	v->comm_exposed = r->cm.kernels ? r->cm.steady.exposed : 0;
	v->comm_wall = r->cm.kernels ? r->cm.steady.wall : 0;
	if (comm_leads(&r->cm)) {
		verdict_comm(r);
		return;
	}
	v->comm_noted = r->cm.kernels && (__int128)v->comm_exposed * 10 > (__int128)v->comm_wall;
	if (gpu_bound(v->wall_sum, v->busy_sum, v->edge_sum)) {
		v->kind = VERDICT_GPU_BOUND;
		v->advice = ADV_KERNELS;
		v->edge_noted = (__int128)v->edge * 100 >= (__int128)s->wall;
		return;
	}
	rank_causes(g, s->wall, v);
	if (v->cause < 0) {
		v->comm_noted = false;
		v->kind = VERDICT_NO_GAPS;
		v->advice = ADV_NONE;
		return;
	}
	v->kind = VERDICT_CAUSE;
	v->advice = causes_gap[v->cause].advice;
	const struct gaps_result *gp = &r->gp;
	if (v->cause == GAP_HOST || v->cause == GAP_SYNC || v->cause == GAP_LAUNCH) {
		int best = HW_NONE;
		for (int k = 0; k < HW_NCLASSES; k++)
			if (gp->by_class[v->cause][k] > 0 && (best < 0 || gp->by_class[v->cause][k] > gp->by_class[v->cause][best]))
				best = k;
		v->hclass = best;
		if (best >= 0) {
			v->class_ns = gp->by_class[v->cause][best];
			v->advice = causes_class[best].advice;
			verdict_path(r, c, v);
			call_evidence(r, c, v);
		}
	}
	v->key_total = gp->steady_sum.c[v->cause];
	if (v->frames)
		v->key_dominant = (__int128)v->frames_ns * 4 >= (__int128)v->key_total;
	if ((v->cause == GAP_SYNC || v->cause == GAP_QUEUED) && gp->nkeys[v->cause]) {
		v->key = &gp->keys[v->cause][0];
		if (v->cause == GAP_SYNC)
			v->site = sync_site_of(r, v->key->label);
		if (v->cause == GAP_QUEUED)
			v->key_dominant = (__int128)v->key->ns * 4 >= (__int128)v->key_total;
	}
	if (v->cause == GAP_HOST) {
		/* the GPU drained at a sync before most of this host time */
		if (gp->ndrained && (__int128)gp->drained[0].ns * 2 >= (__int128)v->key_total) {
			v->drain = &gp->drained[0];
			v->drain_site = sync_site_of(r, v->drain->label);
			if (v->hclass == HW_PYTHON || v->hclass == HW_OTHER)
				v->advice = ADV_HOST;
		}
		/* the drain is the story when there is one (the sync threw the
		 * host's lead away); else the host work may be the issuing itself */
		if (!v->drain && (v->hclass == HW_PYTHON || v->hclass == HW_OTHER)) {
			issuing(r, v);
			if (v->issuing)
				v->advice = ADV_ISSUE;
		}
	}
}

/* ---- the failure modes ---------------------------------------------- */

static void finding(struct report_verdict *v, int kind, uint64_t n, uint64_t m, gf_ns ns, gf_ns of)
{
	if (v->nfindings < REPORT_MAX_FINDINGS) {
		struct report_finding f = { kind, n, m, ns, of };
		v->findings[v->nfindings++] = f;
	}
}

/* Host ranges per launch call and Python frames per op inside the selected
 * steps' windows (each range once). */
static void overhead_counts(const struct report *r, const struct trace *t, uint64_t *ranges, uint64_t *launches,
			    uint64_t *py, uint64_t *ops)
{
	struct actx_cover cv;
	actx_cover_init(&cv, &r->st);
	for (uint32_t th = 0; th < t->nth; th++) {
		struct actx_cover_sweep sw = { 0 };
		for (uint32_t i = t->th[th].first; i < t->th[th].first + t->th[th].n; i++) {
			const struct trace_range *x = &t->r[i];
			if (!actx_cover_next(&cv, &sw, x->start))
				continue;
			if (x->flags & TRF_STEP)
				continue;
			if ((x->kind == TR_RUNTIME || x->kind == TR_DRIVER) && (x->flags & TRF_LAUNCH))
				(*launches)++;
			else
				(*ranges)++;
			if (x->kind == TR_PYTHON)
				(*py)++;
			if (x->kind == TR_OP)
				(*ops)++;
		}
	}
	actx_cover_release(&cv);
}

static void verdict_findings(struct report *r, const struct actx *c)
{
	struct report_verdict *v = &r->verdict;
	const struct trace *t = c->t;
	const struct steps_result *st = &r->st;
	/* warm-up inside the window: flagged steps, or one-time calls */
	if (st->nwarm) {
		gf_ns w = 0;
		for (size_t i = 0; i < st->n; i++)
			if (st->rows[i].warmup)
				w += st->rows[i].wall;
		finding(v, FINDING_WARMUP, st->nwarm, 0, w, st->steady.wall);
	} else if (r->gp.warm_calls) {
		gf_ns w = 0;
		for (int k = 0; k < GAP_NCAUSES; k++)
			w += r->gp.by_class[k][HW_WARMUP];
		finding(v, FINDING_WARMUP, 0, r->gp.warm_calls, w, r->gp.steady_sum.c[GAP_EDGE] + gaps_idle(&r->gp.steady_sum));
	}
	/* profiler overhead: many host ranges per launch (with_stack, record_function) */
	uint64_t ranges = 0, launches = 0, py = 0, ops = 0;
	overhead_counts(r, t, &ranges, &launches, &py, &ops);
	if (launches && ranges >= REPORT_RANGES_PER_LAUNCH * launches)
		finding(v, FINDING_OVERHEAD, ranges * 100 / launches, ops ? py * 100 / ops : 0, 0, 0);
	/* too few steps to tell the steady state */
	if (!st->whole_trace && st->nsteady < 3)
		finding(v, FINDING_FEW_STEPS, st->nsteady, st->n, 0, 0);
	/* several ranks or devices merged in one trace */
	uint32_t ndev = 0;
	for (uint32_t i = 0; i < t->ndev; i++)
		ndev += t->dev[i].nact > 0;
	if (t->warn.processes > 1 || ndev > 1)
		finding(v, FINDING_RANKS, t->warn.processes, ndev, 0, 0);
	/* asynchrony: blocking calls hold a large share of the step's host time */
	if (c->dev != TRACE_NONE && (__int128)st->steady.sync_wait * 4 >= (__int128)st->steady.wall &&
	    st->steady.sync_wait > 0)
		finding(v, FINDING_ASYNC, st->steady.syncs, 0, st->steady.sync_wait, st->steady.wall);
}

/* ---- CPU-only traces ------------------------------------------------- */

static int cmp_hs(const void *a, const void *b)
{
	const struct host_stack *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* The host side of a trace without device activity: the largest host
 * stacks by self time (cpu fold, innermost 3 frames) and the calls that
 * would synchronise on a GPU, over the selected steps. */
static void cpu_report(struct report *r, const struct actx *c, const struct trace_sel *so)
{
	struct cpu_report *cr = &r->cpu;
	const struct trace *t = c->t;
	struct fold_opts fo;
	fold_opts_init(&fo);
	fo.weight = FW_CPU;
	fo.unit = FU_NS;
	fo.max_depth = 3;
	fo.steps = *so;
	fo.walk = &c->walk;
	fo.no_thread_frames = true;
	struct ftree tr;
	struct fold_stats fs;
	struct sbuf err = SBUF_INIT, path = SBUF_INIT;
	memset(&fs, 0, sizeof fs);
	if (!fold_trace(c->t, &fo, &tr, &fs, &err)) {
		VEC(struct host_stack) v = VEC_INIT;
		for (uint32_t nd = 1; nd < tr.n; nd++) {
			int64_t w = ftree_self(&tr, nd, 0);
			if (w <= 0)
				continue;
			sbuf_reset(&path);
			ftree_path(&tr, nd, &path);
			struct host_stack k = { gf_xstrdup(path.buf), w };
			vec_push(&v, k);
			cr->host_ns += w;
		}
		if (v.n)
			qsort(v.v, v.n, sizeof *v.v, cmp_hs);
		for (size_t i = 0; i < v.n; i++) {
			if (i < REPORT_HOST_TOP)
				cr->top[cr->ntop++] = v.v[i];
			else
				free(v.v[i].label);
		}
		vec_free(&v);
	}
	ftree_release(&tr);
	sbuf_release(&err);
	sbuf_release(&path);
	cr->steps = (uint32_t)r->st.n;
	/* the ops that read a device value (names_op_sync: NAMES_OP_READS) */
	uint32_t np = pool_count(t->names);
	uint64_t *cnt = gf_xcalloc(np ? np : 1, sizeof *cnt);
	uint8_t *reads = gf_xcalloc(np ? np : 1, 1);
	struct actx_cover cv;
	actx_cover_init(&cv, &r->st);
	for (uint32_t th = 0; th < t->nth; th++) {
		struct actx_cover_sweep sw = { 0 };
		for (uint32_t i = t->th[th].first; i < t->th[th].first + t->th[th].n; i++) {
			const struct trace_range *x = &t->r[i];
			if (x->kind != TR_OP || x->name >= np)
				continue;
			if (!reads[x->name])
				reads[x->name] = names_op_sync(pool_str(t->names, x->name), pool_len(t->names, x->name)) ==
							 NAMES_OP_READS ? 2 : 1;
			if (reads[x->name] != 2)
				continue;
			/* the outermost of a chain (aten::item > _local_scalar_dense) counts */
			uint32_t p = x->parent;
			if (p != TRACE_NONE && p < i && t->r[p].kind == TR_OP && reads[t->r[p].name] == 2)
				continue;
			cnt[x->name] += actx_cover_next(&cv, &sw, x->start);
		}
	}
	actx_cover_release(&cv);
	for (uint32_t k = 0; k < np; k++) {
		if (!cnt[k])
			continue;
		struct host_sync x = { gf_xstrdup(pool_str(t->names, k)), cnt[k] };
		size_t i = cr->nsyncs;
		if (i == REPORT_HOST_TOP) {
			if (cr->syncs[i - 1].count >= x.count) {
				free(x.name);
				continue;
			}
			free(cr->syncs[--i].name);
			cr->nsyncs--;
		}
		while (i > 0 && cr->syncs[i - 1].count < x.count) {
			cr->syncs[i] = cr->syncs[i - 1];
			i--;
		}
		cr->syncs[i] = x;
		cr->nsyncs++;
	}
	free(cnt);
	free(reads);
}

/* Below this many ranges and activities a thread costs more than it saves. */
#define REPORT_PAR_MIN 8192

struct side {
	struct report *r;
	const struct actx *c;
	const struct report_opts *o;
	bool more; /* side_parts runs comm and top too (on the second core) */
	bool scan; /* ... and the launch scan into ld */
	struct launch_diag ld;
	struct idle_set ish;   /* idle_part's idle stacks */
	/* the second core's threads: side_parts (par), then idle_part (ipar,
	 * started by charges_ready as soon as the gap model's charges are) */
	pthread_t th, ith;
	bool par, idle, ipar;
};

/* ---- the explain view ------------------------------------------------ */

static char *xdup_name(const struct trace *t, uint32_t name)
{
	return gf_xstrdup(pool_str(t->names, name));
}

static void act_of(const struct trace *t, uint32_t a, struct report_act *x)
{
	if (a == TRACE_NONE)
		return;
	const struct trace_act *A = &t->act[a];
	x->have = true;
	x->name = xdup_name(t, A->name);
	x->kind = A->kind;
	x->stream = A->stream;
	x->start = A->start;
	x->end = A->end;
	if (A->launch != TRACE_NONE) {
		x->call = xdup_name(t, t->r[A->launch].name);
		x->call_start = t->r[A->launch].start;
		x->call_end = t->r[A->launch].end;
	}
}

static void piece_of(const struct report *r, const struct actx *c, const struct gap_piece *gp, gf_ns lo, gf_ns hi,
		     struct report_piece *p)
{
	const struct trace *t = c->t;
	struct sbuf b = SBUF_INIT;
	p->lo = lo;
	p->hi = hi;
	p->cause = gp->cause;
	p->hclass = gp->hclass;
	bool range = gp->ri != TRACE_NONE && gp->ri < t->nr;
	if (range && gp->cause != GAP_QUEUED) {
		p->frame = xdup_name(t, t->r[gp->ri].name);
		gaps_stack(t, gp->ri, &b);
		p->stack = sbuf_detach(&b, NULL);
		if (gp->cause == GAP_SYNC || gp->cause == GAP_LAUNCH)
			p->call = xdup_name(t, t->r[gp->ri].name);
	}
	if (gp->cause == GAP_QUEUED) {
		if (range)
			p->call = xdup_name(t, t->r[gp->ri].name);
		if (gp->q < r->gp.nqlabels)
			p->waits = gf_xstrdup(r->gp.qlabels[gp->q].label);
	}
	if (gp->drain != TRACE_NONE) {
		uint32_t site = actx_site(c, gp->drain);
		if (site == TRACE_NONE) {
			sbuf_addstr(&b, "[no Python frame] > ");
			sbuf_addstr(&b, trace_rname(t, gp->drain));
		} else {
			sbuf_addstr(&b, trace_rname(t, site));
		}
		p->drained = sbuf_detach(&b, NULL);
	}
	sbuf_release(&b);
}

static int cmp_gapidx(const void *a, const void *b, void *ctx)
{
	const struct gap_gap *g = ctx;
	const uint32_t *x = a, *y = b;
	if (g[*x].idle != g[*y].idle)
		return g[*x].idle > g[*y].idle ? -1 : 1;
	return (*x > *y) - (*x < *y);
}

/* The merged windows of the selected steps (sorted, disjoint). */
static size_t sel_windows(const struct steps_result *st, gf_ns **out)
{
	gf_ns *w = gf_xmalloc(2 * (st->n ? st->n : 1) * sizeof *w);
	size_t n = 0;
	/* rows are by start */
	for (size_t i = 0; i < st->n; i++) {
		gf_ns a = st->rows[i].start, b = st->rows[i].end;
		if (b <= a)
			continue;
		if (n && a <= w[2 * n - 1]) {
			if (b > w[2 * n - 1])
				w[2 * n - 1] = b;
			continue;
		}
		w[2 * n] = a;
		w[2 * n + 1] = b;
		n++;
	}
	*out = w;
	return n;
}

/* The step number whose window holds ts, else -1. */
static int64_t step_at(const struct steps_result *st, gf_ns ts)
{
	if (st->whole_trace)
		return -1;
	for (size_t i = 0; i < st->n; i++)
		if (st->rows[i].start <= ts && ts < st->rows[i].end)
			return st->rows[i].number;
	return -1;
}

static void explain(struct report *r, const struct actx *c, size_t want)
{
	const struct trace *t = c->t;
	const struct gaps_result *gp = &r->gp;
	uint32_t *ix = gf_xmalloc((gp->ngaps ? gp->ngaps : 1) * sizeof *ix);
	size_t n = 0;
	for (size_t i = 0; i < gp->ngaps; i++)
		if (gp->gaps[i].idle > 0)
			ix[n++] = (uint32_t)i;
	r->ngaps_all = n;
	qsort_r(ix, n, sizeof *ix, cmp_gapidx, gp->gaps);
	if (want < n)
		n = want;
	gf_ns *w;
	size_t nw = sel_windows(&r->st, &w);
	r->gaps = gf_xcalloc(n ? n : 1, sizeof *r->gaps);
	r->ngaps = n;
	for (size_t k = 0; k < n; k++) {
		const struct gap_gap *g = &gp->gaps[ix[k]];
		struct report_gap *x = &r->gaps[k];
		x->a = g->a;
		x->b = g->b;
		x->idle = g->idle;
		x->pid = x->tid = KEV_NONE;
		act_of(t, g->prev, &x->prev);
		act_of(t, g->next, &x->next);
		if (g->thread != TRACE_NONE && g->thread < t->nth) {
			x->pid = t->th[g->thread].pid;
			x->tid = t->th[g->thread].tid;
			if (t->th[g->thread].name != TRACE_NONE)
				x->thread = xdup_name(t, t->th[g->thread].name);
		}
		/* the pieces clipped to the selected steps' windows */
		VEC(struct report_piece) ps = VEC_INIT;
		for (size_t i = g->first; i < g->first + g->n; i++) {
			const struct gap_piece *q = &gp->pieces[i];
			for (size_t j = 0; j < nw; j++) {
				gf_ns lo = q->lo > w[2 * j] ? q->lo : w[2 * j];
				gf_ns hi = q->hi < w[2 * j + 1] ? q->hi : w[2 * j + 1];
				if (hi <= lo)
					continue;
				piece_of(r, c, q, lo, hi, vec_add(&ps));
			}
		}
		x->p = ps.v;
		x->np = ps.n;
		x->lo = ps.n ? ps.v[0].lo : g->lo;
		x->hi = ps.n ? ps.v[ps.n - 1].hi : g->hi;
		x->step = step_at(&r->st, x->lo);
	}
	free(w);
	free(ix);
}

struct prep_arg {
	const struct actx *c;
	struct gaps_prep *p;
};

/* The gap model's preparation (reads the model only) beside the steps. */
static void *prep_part(void *arg)
{
	struct prep_arg *pa = arg;
	pa->p = gaps_prepare(pa->c);
	return NULL;
}

static void *idle_part(void *arg);

/* The gap model's charges are final (gaps_analyze_unscanned's ready):
 * the side parts joined, the idle stacks start on the second core. */
static void charges_ready(void *arg)
{
	struct side *sd = arg;
	if (!sd->par)
		return;
	pthread_join(sd->th, NULL);
	sd->par = false;
	sd->ipar = sd->idle && pthread_create(&sd->ith, NULL, idle_part, sd) == 0;
}

/* The idle stacks (they read the gap model, write only r->idle*): beside
 * the syncs, comm, top calls and the verdict, which never read them. */
static void *idle_part(void *arg)
{
	struct side *sd = arg;
	idle_collect(sd->r, sd->c, &sd->o->steps, &sd->ish);
	return NULL;
}

/* The second core's share while this one runs the gap model: the step
 * medians, the communication split and the top calls (none reads the gap
 * model; each writes only its own fields of r). */
static void *side_parts(void *arg)
{
	struct side *sd = arg;
	struct report *r = sd->r;
	if (r->parts & RP_STEPS)
		steps_medians(sd->c, &r->st);
	if (sd->more) {
		if (r->parts & RP_COMM)
			comm_analyze(sd->c, &r->st, &r->cm);
		if (r->parts & RP_TOP)
			top_calls(r, sd->c);
		if (sd->scan)
			gaps_launch_scan(sd->c, &r->st, &sd->ld);
	}
	return NULL;
}

int report_build(struct report *r, const struct actx *c, const struct report_opts *o,
		 struct sbuf *err)
{
	memset(r, 0, sizeof *r);
	const struct trace *t = c->t;
	r->meta.rank = t->meta.rank;
	r->meta.world_size = t->meta.world_size;
	r->meta.device = c->device;
	r->meta.dev_kinds = t->meta.dev_kinds;
	r->meta.unattributed = t->warn.unattributed;
	r->meta.before_window = t->warn.before_window;
	r->meta.clipped = t->warn.clipped;
	r->meta.truncated = t->meta.truncated;
	r->unprofiled_ns = o->unprofiled_ns;
	r->expect_ns = o->expect_ns;
	unsigned parts = o->parts & RP_ALL;
	if (parts & RP_VERDICT)
		parts |= RP_GAPS | RP_SYNCS | RP_COMM;
	if (parts & RP_IDLE)
		parts |= RP_GAPS; /* the idle tree is the gap model's charges */
	/* the step table's sums unless only the sync sites are asked (they read
	 * the windows); its medians below */
	bool gaps = parts & (RP_GAPS | RP_SYNCS); /* the sync bubbles are the gap model's: syncs needs it */
	/* what the gap model needs without the steps, on the second core
	 * while this one reads the steps */
	struct prep_arg pa = { c, NULL };
	pthread_t pth;
	bool two = t->cores >= 2 && t->nr + t->nact >= REPORT_PAR_MIN; /* a second core worth its thread */
	bool ppar = gaps && two && pthread_create(&pth, NULL, prep_part, &pa) == 0;
	int rc = steps_analyze_part(c, &o->steps, (parts & ~(unsigned)RP_SYNCS) ? STEPS_SUMS : 0, &r->st, err);
	if (ppar)
		pthread_join(pth, NULL);
	if (rc) {
		gaps_prep_free(pa.p);
		return rc;
	}
	r->parts = parts;
	/* the step medians on the second core (t->cores) while this one does
	 * gaps, syncs, comm and the top calls: each side reads the model and
	 * the step windows and writes its own fields of r */
	struct side sd;
	memset(&sd, 0, sizeof sd);
	sd.r = r;
	sd.c = c;
	sd.o = o;
	sd.par = two && (parts & RP_STEPS) && (parts & (RP_GAPS | RP_SYNCS | RP_COMM | RP_TOP));
	sd.more = sd.par;
	sd.scan = sd.par && gaps;
	sd.idle = (parts & RP_IDLE) && c->dev != TRACE_NONE;
	if (sd.par && pthread_create(&sd.th, NULL, side_parts, &sd) != 0)
		sd.par = sd.more = sd.scan = false;
	if (!sd.par)
		side_parts(&sd);
	/* the idle stacks start on the second core as soon as the charges are
	 * made (charges_ready), while this one sums the keys and goes on */
	if (gaps)
		gaps_analyze_unscanned(c, &r->st, &r->gp, o->gap_pieces || o->explain, pa.p, charges_ready, &sd);
	charges_ready(&sd); /* no gap model: the side parts joined all the same */
	if (gaps) {
		struct launch_diag ld;
		if (!sd.scan)
			gaps_launch_scan(c, &r->st, &ld);
		gaps_launch_finish(&r->gp, &r->st, sd.scan ? &sd.ld : &ld);
	}
	struct idle_set ish;
	if (sd.idle && !sd.ipar) {
		idle_collect(r, c, &o->steps, &ish);
		idle_finish(r, &ish);
	}
	if (parts & RP_SYNCS)
		syncs_analyze(c, &r->st, &r->gp, &r->sy);
	if (!sd.more) {
		if (parts & RP_COMM)
			comm_analyze(c, &r->st, &r->cm);
		if (parts & RP_TOP)
			top_calls(r, c);
	}
	if (parts & RP_VERDICT) {
		verdict(r, c);
		if (c->dev == TRACE_NONE)
			cpu_report(r, c, &o->steps);
	}
	if (sd.ipar) {
		pthread_join(sd.ith, NULL);
		idle_finish(r, &sd.ish);
	}
	r->explained = o->explain > 0;
	if (o->explain && r->gp.gaps)
		explain(r, c, o->explain);
	return GF_OK;
}

void report_release(struct report *r)
{
	steps_release(&r->st);
	gaps_release(&r->gp);
	syncs_release(&r->sy);
	comm_release(&r->cm);
	for (size_t i = 0; i < r->ntop; i++)
		free(r->top[i].name);
	for (size_t i = 0; i < r->nidle; i++)
		free(r->idle[i].label);
	free(r->idle);
	free(r->idle_err);
	free(r->verdict.stack);
	free(r->verdict.frames);
	free(r->verdict.anchor);
	free(r->verdict.call);
	for (size_t i = 0; i < r->cpu.ntop; i++)
		free(r->cpu.top[i].label);
	for (size_t i = 0; i < r->cpu.nsyncs; i++)
		free(r->cpu.syncs[i].name);
	for (size_t k = 0; k < r->ngaps; k++) {
		struct report_gap *x = &r->gaps[k];
		free(x->prev.name);
		free(x->prev.call);
		free(x->next.name);
		free(x->next.call);
		free(x->thread);
		for (size_t i = 0; i < x->np; i++) {
			free(x->p[i].frame);
			free(x->p[i].stack);
			free(x->p[i].call);
			free(x->p[i].waits);
			free(x->p[i].drained);
		}
		free(x->p);
	}
	free(r->gaps);
	memset(r, 0, sizeof *r);
}
