/* report.c — one trace's report and its verdict (see report.h). */
#include "trace/analysis/report.h"

#include "base/num.h"
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
}

void report_fmt_dur(struct sbuf *b, gf_ns ns)
{
	if (ns >= 1000000 || ns <= -1000000) {
		num_fmt_fixed(b, ns, 6, 1, false);
		sbuf_addstr(b, " ms");
	} else {
		num_fmt_fixed(b, ns, 3, 1, false);
		sbuf_addstr(b, " us");
	}
}

void report_fmt_pct(struct sbuf *b, gf_ns part, gf_ns whole)
{
	if (whole <= 0) {
		sbuf_addstr(b, "-");
		return;
	}
	__int128 p = ((__int128)part * 200 + whole) / (2 * (__int128)whole);
	sbuf_addf(b, "%lld%%", (long long)p);
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

struct cause {
	gf_ns ns;
	int kind; /* 0 sync, 1 launch, 2 host, 3 untraced, 4 other */
};

static int cmp_cause(const void *a, const void *b)
{
	const struct cause *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->kind - y->kind;
}

/* Appends ": cause, cause" for the sorted causes; @return the largest's kind, -1 for none. */
static int verdict_causes(const struct report *r, const struct cause *cs, struct sbuf *v)
{
	const struct launch_diag *ld = &r->gp.ld;
	int shown = 0, top = -1;
	for (int i = 0; i < 5; i++) {
		if (cs[i].ns <= 0)
			continue;
		sbuf_addstr(v, shown ? ", " : ": ");
		report_fmt_dur(v, cs[i].ns);
		switch (cs[i].kind) {
		case 0:
			if (r->gp.nsync) {
				bool host = r->sy.nsites && r->sy.sites[0].host_work_after;
				sbuf_addstr(v, host ? " host work after a sync in " : " waiting on a sync in ");
				sbuf_addstr(v, r->gp.sync[0].label);
			} else {
				sbuf_addstr(v, " after syncs");
			}
			break;
		case 1:
			sbuf_addf(v, " launch-bound (%lld kernels/step, median kernel ",
				  (long long)ld->kernels_per_step);
			report_fmt_dur(v, ld->median_kernel);
			sbuf_addstr(v, ")");
			break;
		case 2:
			sbuf_addstr(v, " host-bound");
			if (r->gp.nhost) {
				sbuf_addstr(v, " in ");
				sbuf_addstr(v, r->gp.host[0].label);
			}
			break;
		case 3:
			sbuf_addstr(v, " untraced host time");
			break;
		default:
			sbuf_addstr(v, " other");
			break;
		}
		if (top < 0)
			top = cs[i].kind;
		shown++;
	}
	return top;
}

/* The next step for the largest cause (kind top, -1 for none). */
static void verdict_action(const struct report *r, int top, struct sbuf *a)
{
	const struct launch_diag *ld = &r->gp.ld;
	switch (top) {
	case 0:
		if (r->sy.nsites) {
			sbuf_addstr(a, "Remove the sync at ");
			sbuf_addstr(a, r->sy.sites[0].site_name);
			sbuf_addstr(a, ": ");
			sbuf_addstr(a, syncs_fix_text(r->sy.sites[0].fix));
			if (r->sy.sites[0].host_work_after)
				sbuf_addstr(a, "; then move the host work that follows it (stop checks, "
						"detokenisation, bookkeeping) off the launching thread");
			sbuf_addstr(a, ".");
		} else {
			sbuf_addstr(a, "Remove the blocking calls from the step loop (gpuflame syncs).");
		}
		break;
	case 1:
		sbuf_addstr(a, ld->launch_bound ? "The step is launch-bound: " : "Short gaps between kernels: ");
		sbuf_addstr(a, gaps_launch_advice(ld));
		sbuf_addstr(a, ".");
		break;
	case 2:
		sbuf_addstr(a, "The host is too slow to feed the GPU: move that host work off the "
				"launching thread or overlap it with GPU work (gpuflame fold --weight idle).");
		break;
	case 3:
		sbuf_addstr(a, "The launching thread was outside every traced range while the GPU "
				"idled: profile with with_stack=True or py-spy to see that host work.");
		break;
	case 4:
		sbuf_addstr(a, "Queued work waited on something else (cross-stream or event waits, "
				"or work outside the step): look at the gaps in a timeline (Perfetto).");
		break;
	default:
		sbuf_addstr(a, "No gaps to explain.");
		break;
	}
}

static void verdict(struct report *r, const struct actx *c)
{
	struct sbuf v = SBUF_INIT, a = SBUF_INIT;
	const struct step_row *s = &r->st.steady;
	const struct gap_row *g = &r->gp.steady;
	if (c->dev == TRACE_NONE) {
		sbuf_addstr(&v, "No GPU activity in the selected steps: nothing ran on a device to attribute.");
		sbuf_addstr(&a, "Check that the profiler recorded CUDA/HIP activities (ProfilerActivity.CUDA).");
		goto out;
	}
	sbuf_addstr(&v, "GPU busy ");
	report_fmt_dur(&v, s->busy);
	sbuf_addstr(&v, " of ");
	report_fmt_dur(&v, s->wall);
	sbuf_addstr(&v, r->st.whole_trace ? " in the trace (" : " per step (");
	report_fmt_pct(&v, s->busy, s->wall);
	sbuf_addstr(&v, ")");
	if ((__int128)s->busy * 10 >= (__int128)s->wall * 9) {
		sbuf_addstr(&v, ": the step is GPU-bound");
		if (r->cm.kernels && r->cm.steady.exposed * 10 > s->wall) {
			sbuf_addstr(&v, ", and ");
			report_fmt_dur(&v, r->cm.steady.exposed);
			sbuf_addstr(&v, " of NCCL communication is not overlapped with compute");
		}
		sbuf_addstr(&v, ".");
		sbuf_addstr(&a, "Speed comes from the kernels now: read the GPU-weighted flame graph "
				 "(gpuflame fold --weight gpu) and compare it with your speed-of-light estimate.");
		goto out;
	}
	gf_ns idle = g->sync + g->launch + g->host + g->untraced + g->other;
	sbuf_addstr(&v, "; ");
	report_fmt_dur(&v, idle);
	sbuf_addstr(&v, " are gaps");
	struct cause cs[5] = {
		{ g->sync, 0 }, { g->launch, 1 }, { g->host, 2 }, { g->untraced, 3 }, { g->other, 4 },
	};
	/* small causes (< 1% of the step) fold into "other" */
	for (int i = 0; i < 4; i++)
		if (cs[i].ns > 0 && (__int128)cs[i].ns * 100 < (__int128)s->wall) {
			cs[4].ns += cs[i].ns;
			cs[i].ns = 0;
		}
	qsort(cs, 5, sizeof *cs, cmp_cause);
	int top = verdict_causes(r, cs, &v);
	sbuf_addstr(&v, ".");
	verdict_action(r, top, &a);
out:
	r->verdict = sbuf_detach(&v, NULL);
	r->action = sbuf_detach(&a, NULL);
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
	if (parts & RP_GAPS)
		gaps_analyze(c, &r->st, &r->gp);
	if (parts & RP_SYNCS)
		syncs_analyze(c, &r->st, &r->sy);
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
	free(r->verdict);
	free(r->action);
	memset(r, 0, sizeof *r);
}
