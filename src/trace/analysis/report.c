/* report.c — one trace's report and its verdict (see report.h). */
#include "trace/analysis/report.h"

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

/*
 * Host stacks by GPU idle time on the analysed device: fold's idle weight,
 * innermost 3 frames, over the same step selection; the top REPORT_IDLE_TOP.
 * A fold error only drops them (r->idle_err).
 */
static void idle_stacks(struct report *r, const struct actx *c, const struct trace_sel *so)
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
	if (fold_trace(c->t, &fo, &tr, &fs, &err)) {
		r->idle_err = sbuf_detach(&err, NULL);
		ftree_release(&tr); /* initialised even on error */
		sbuf_release(&path);
		return;
	}
	VEC(struct gap_key) v = VEC_INIT;
	for (uint32_t nd = 1; nd < tr.n; nd++) {
		int64_t w = ftree_self(&tr, nd, 0);
		if (w <= 0)
			continue;
		sbuf_reset(&path);
		ftree_path(&tr, nd, &path);
		struct gap_key k = { gf_xstrdup(path.buf), w };
		vec_push(&v, k);
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_key);
	for (size_t i = REPORT_IDLE_TOP; i < v.n; i++)
		free(v.v[i].label);
	r->idle = v.v;
	r->nidle = v.n < REPORT_IDLE_TOP ? v.n : REPORT_IDLE_TOP;
	r->idle_steps = fs.steps ? fs.steps : 1;
	ftree_release(&tr);
	sbuf_release(&err);
	sbuf_release(&path);
}

const char *report_verdict_key(const struct report_verdict *v)
{
	if (v->kind == VERDICT_CAUSE && v->cause >= 0 && v->cause < GAP_NCAUSES)
		return causes_gap[v->cause].key;
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

/* GPU-bound: busy >= 90% of the step outside the window edges, which hold
 * under half of it. */
static bool gpu_bound(const struct step_row *s, gf_ns edge)
{
	gf_ns inner = s->wall - edge;
	return inner > 0 && (__int128)edge * 2 < (__int128)s->wall && (__int128)s->busy * 10 >= (__int128)inner * 9;
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

static void verdict(struct report *r, const struct actx *c)
{
	struct report_verdict *v = &r->verdict;
	const struct step_row *s = &r->st.steady;
	const struct gap_row *g = &r->gp.steady;
	memset(v, 0, sizeof *v);
	v->cause = -1;
	v->hclass = HW_NONE;
	v->wall = s->wall;
	v->busy = s->busy;
	v->whole_trace = r->st.whole_trace;
	v->legacy = c->t->meta.legacy;
	if (c->dev == TRACE_NONE) {
		v->kind = VERDICT_NO_GPU;
		v->advice = v->legacy ? ADV_LEGACY : ADV_NO_GPU;
		return;
	}
	v->edge = g->c[GAP_EDGE];
	v->comm_exposed = r->cm.kernels ? r->cm.steady.exposed : 0;
	if (gpu_bound(s, v->edge)) {
		v->kind = VERDICT_GPU_BOUND;
		v->advice = ADV_KERNELS;
		v->edge_noted = (__int128)v->edge * 100 >= (__int128)s->wall;
		v->comm_noted = r->cm.kernels && r->cm.steady.exposed * 10 > s->wall;
		return;
	}
	rank_causes(g, s->wall, v);
	if (v->cause < 0) {
		v->kind = VERDICT_NO_GAPS;
		v->advice = ADV_NONE;
		return;
	}
	v->kind = VERDICT_CAUSE;
	v->advice = causes_gap[v->cause].advice;
	const struct gaps_result *gp = &r->gp;
	if (gp->nkeys[v->cause]) {
		v->key = &gp->keys[v->cause][0];
		v->key_total = gp->steady_sum.c[v->cause];
		v->key_dominant = (__int128)v->key->ns * 4 >= (__int128)v->key_total;
		if (v->cause == GAP_SYNC)
			v->site = sync_site_of(r, v->key->label);
	}
}

/* Below this many ranges and activities a thread costs more than it saves. */
#define REPORT_PAR_MIN 8192

struct side {
	struct report *r;
	const struct actx *c;
	const struct report_opts *o;
};

/* The parts that may run on another thread: they write r->st's
 * median_kernel fields and r->idle* only. */
static void *side_parts(void *arg)
{
	struct side *sd = arg;
	struct report *r = sd->r;
	if (r->parts & RP_STEPS)
		steps_medians(sd->c, &r->st);
	if ((r->parts & RP_IDLE) && sd->c->dev != TRACE_NONE)
		idle_stacks(r, sd->c, &sd->o->steps);
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
	/* the step table's sums unless only the sync sites are asked (they read
	 * the windows); its medians below */
	int rc = steps_analyze_part(c, &o->steps, (parts & ~(unsigned)RP_SYNCS) ? STEPS_SUMS : 0, &r->st, err);
	if (rc)
		return rc;
	r->parts = parts;
	/* the step medians and idle stacks on the second core (t->cores)
	 * while this one does gaps, syncs, comm and the top calls: each side
	 * reads the model and the step windows and writes its own fields of r */
	struct side sd = { r, c, o };
	pthread_t th;
	bool par = t->cores >= 2 && (parts & (RP_STEPS | RP_IDLE)) &&
		   (parts & (RP_GAPS | RP_SYNCS | RP_COMM | RP_TOP)) && t->nr + t->nact >= REPORT_PAR_MIN &&
		   pthread_create(&th, NULL, side_parts, &sd) == 0;
	if (!par)
		side_parts(&sd);
	/* the sync bubbles are the gap model's sync pieces: syncs needs it */
	if (parts & (RP_GAPS | RP_SYNCS))
		(o->gap_pieces ? gaps_analyze_pieces : gaps_analyze)(c, &r->st, &r->gp);
	if (parts & RP_SYNCS)
		syncs_analyze(c, &r->st, &r->gp, &r->sy);
	if (parts & RP_COMM)
		comm_analyze(c, &r->st, &r->cm);
	if (parts & RP_TOP)
		top_calls(r, c);
	if (par)
		pthread_join(th, NULL);
	if (parts & RP_VERDICT)
		verdict(r, c);
	return GF_OK;
}

int report_straggler(const struct actx *const *c, const struct report *const *r, size_t n,
		     struct strag_result *out)
{
	struct coll **cl = gf_xcalloc(n ? n : 1, sizeof *cl);
	size_t *ncl = gf_xcalloc(n ? n : 1, sizeof *ncl);
	for (size_t i = 0; i < n; i++)
		comm_collectives(c[i], &r[i]->st, &cl[i], &ncl[i]);
	int rc = comm_straggler(cl, ncl, n, out);
	for (size_t i = 0; i < n; i++)
		free(cl[i]);
	free(cl);
	free(ncl);
	return rc;
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
	memset(r, 0, sizeof *r);
}
