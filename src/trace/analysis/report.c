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
	o->gap_pieces = false;
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

const char *report_cause_name(int cause)
{
	static const char *const n[] = { "none", "gpu_bound", "edge", "sync", "host", "untraced", "queued", "launch" };
	return cause >= 0 && cause < (int)GF_ARRAY_LEN(n) ? n[cause] : "none";
}

void report_fmt_share(struct sbuf *b, gf_ns part, gf_ns whole)
{
	num_fmt_fixed(b, gaps_share(part, whole), 2, 2, false);
	sbuf_addch(b, '%');
}

/* The six causes of the steady gap row, in the tie order of the verdict. */
static void causes_of(const struct gap_row *g, gf_ns v[6])
{
	v[0] = g->edge;
	v[1] = g->sync;
	v[2] = g->host;
	v[3] = g->untraced;
	v[4] = g->queued;
	v[5] = g->launch;
}

/* The top key of a cause (RC_* order from RC_EDGE) and the steady total
 * its share is of, or NULL. */
static const struct gap_key *top_key(const struct report *r, int k, gf_ns *total)
{
	const struct gaps_result *gp = &r->gp;
	switch (k) {
	case 1:
		*total = gp->steady_sum.sync;
		return gp->nsync ? &gp->sync[0] : NULL;
	case 2:
		*total = gp->steady_sum.host;
		return gp->nhost ? &gp->host[0] : NULL;
	case 4:
		*total = gp->steady_sum.queued;
		return gp->nqueued ? &gp->queued[0] : NULL;
	default:
		*total = 0;
		return NULL;
	}
}

/* "; 41.23% of it <prep> <key>" for the cause's top key. */
static void key_share(struct sbuf *v, const struct report *r, int k, const char *prep)
{
	gf_ns tot;
	const struct gap_key *key = top_key(r, k, &tot);
	if (!key)
		return;
	sbuf_addstr(v, "; ");
	report_fmt_share(v, key->ns, tot);
	sbuf_addf(v, " of it %s ", prep);
	sbuf_addstr(v, key->label);
}

/* One cause's words after its duration; top: with its key and share. */
static void cause_words(struct sbuf *v, const struct report *r, int k, bool top)
{
	const struct launch_diag *ld = &r->gp.ld;
	switch (k) {
	case 0:
		sbuf_addstr(v, top ? " at the window's edges (before the first or after the last GPU "
				     "activity, or work launched before the profiler started), not code"
				   : " at the window's edges, not code");
		break;
	case 1:
		sbuf_addstr(v, " drained into blocking calls (the host waited, then launched late)");
		if (top)
			key_share(v, r, k, "at");
		break;
	case 2:
		sbuf_addstr(v, " host late to launch");
		if (top)
			key_share(v, r, k, "in");
		break;
	case 3:
		sbuf_addstr(v, " host late to launch outside every traced range");
		break;
	case 4:
		sbuf_addstr(v, " queued: issued work waited to start");
		if (top)
			key_share(v, r, k, "behind");
		break;
	default:
		sbuf_addstr(v, " launch overhead (gaps under 30 us");
		if (top) {
			sbuf_addf(v, "; %lld kernels/step, median kernel ", (long long)ld->kernels_per_step);
			report_fmt_dur(v, ld->median_kernel);
		}
		sbuf_addstr(v, ")");
		break;
	}
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

/* The next step for the verdict's cause k (-1: none), naming the same key. */
static void verdict_action(const struct report *r, int k, struct sbuf *a)
{
	const struct launch_diag *ld = &r->gp.ld;
	gf_ns tot;
	const struct gap_key *key = k >= 0 ? top_key(r, k, &tot) : NULL;
	switch (k) {
	case 0:
		sbuf_addstr(a, "The idle time is the profiling window's edge, not the code: select steps "
			       "inside the window (--steps, --skip) or profile more steps.");
		break;
	case 1: {
		const struct sync_site *s = key ? sync_site_of(r, key->label) : NULL;
		if (!key) {
			sbuf_addstr(a, "Remove the blocking calls from the step loop (gpuflame syncs).");
			break;
		}
		sbuf_addstr(a, "Remove the sync at ");
		sbuf_addstr(a, key->label);
		if (s) {
			sbuf_addstr(a, ": ");
			sbuf_addstr(a, syncs_fix_text(s->fix));
			if (s->host_work_after)
				sbuf_addstr(a, "; then move the host work that follows it (stop checks, "
					       "detokenisation, bookkeeping) off the launching thread");
		}
		sbuf_addstr(a, ".");
		break;
	}
	case 2:
		sbuf_addstr(a, "The host is too slow to feed the GPU");
		if (key && (__int128)key->ns * 4 < (__int128)tot) {
			/* no stack holds a quarter of it: say so, name the largest */
			sbuf_addstr(a, "; no single host stack dominates (the largest, ");
			sbuf_addstr(a, key->label);
			sbuf_addstr(a, ", holds ");
			report_fmt_share(a, key->ns, tot);
			sbuf_addstr(a, "): read the idle-weighted flame graph (gpuflame fold --weight "
				       "idle) for where that host work is, then move it off the launching "
				       "thread or overlap it with GPU work.");
			break;
		}
		if (key) {
			sbuf_addstr(a, " in ");
			sbuf_addstr(a, key->label);
		}
		sbuf_addstr(a, ": move that host work off the launching thread or overlap it with GPU "
			       "work (gpuflame fold --weight idle).");
		break;
	case 3:
		sbuf_addstr(a, "The launching thread was outside every traced range while the GPU "
			       "idled: profile with with_stack=True or py-spy to see that host work.");
		break;
	case 4:
		sbuf_addstr(a, "The work was issued but waited");
		if (key) {
			sbuf_addstr(a, " behind ");
			sbuf_addstr(a, key->label);
		}
		sbuf_addstr(a, ": find what it waited for (an event another stream, device or process "
			       "records, or the host blocked elsewhere) in a timeline (Perfetto) and "
			       "overlap it or take it out of the step.");
		break;
	case 5:
		sbuf_addstr(a, ld->launch_bound ? "The step is launch-bound: " : "Short gaps between kernels: ");
		sbuf_addstr(a, gaps_launch_advice(ld));
		sbuf_addstr(a, ".");
		break;
	default:
		sbuf_addstr(a, "No gaps to explain.");
		break;
	}
}

/* GPU-bound: busy >= 90% of the step outside the window edges, which hold
 * under half of it. */
static void verdict_gpu_bound(struct report *r, gf_ns edge, struct sbuf *v, struct sbuf *a)
{
	const struct step_row *s = &r->st.steady;
	const struct launch_diag *ld = &r->gp.ld;
	sbuf_addstr(v, "GPU-bound: busy ");
	report_fmt_pct(v, s->busy, s->wall - edge);
	sbuf_addstr(v, r->st.whole_trace ? " of the trace" : " of the step");
	sbuf_addstr(v, " outside the window edges");
	if (ld->latency_launches) {
		sbuf_addstr(v, "; work starts a median ");
		report_fmt_dur(v, ld->median_latency);
		sbuf_addstr(v, " after its launch call");
	}
	if ((__int128)edge * 100 >= (__int128)s->wall) {
		sbuf_addstr(v, "; ");
		report_fmt_dur(v, edge);
		sbuf_addstr(v, " is the window's edge (the profiler started or stopped while work was "
			       "queued), not code");
	}
	if (r->cm.kernels && r->cm.steady.exposed * 10 > s->wall) {
		sbuf_addstr(v, "; ");
		report_fmt_dur(v, r->cm.steady.exposed);
		sbuf_addstr(v, " of NCCL communication is not overlapped with compute");
	}
	sbuf_addstr(v, ".");
	sbuf_addstr(a, "Speed comes from the kernels now: read the GPU-weighted flame graph "
		       "(gpuflame fold --weight gpu) and compare it with your speed-of-light estimate.");
	r->cause = RC_GPU_BOUND;
}

static void verdict(struct report *r, const struct actx *c)
{
	struct sbuf v = SBUF_INIT, a = SBUF_INIT;
	const struct step_row *s = &r->st.steady;
	const struct gap_row *g = &r->gp.steady;
	r->cause = RC_NONE;
	if (c->dev == TRACE_NONE) {
		sbuf_addstr(&v, "No GPU activity in the selected steps: nothing ran on a device to attribute.");
		if (c->t->meta.legacy)
			sbuf_addstr(&a, "This trace is the legacy autograd profiler's export (a PyTorch built "
					"without Kineto, such as Debian's python3-torch): it records no GPU "
					"activity; profile with a Kineto build (torch.profiler with "
					"ProfilerActivity.CUDA) to see the device.");
		else
			sbuf_addstr(&a, "Check that the profiler recorded CUDA/HIP activities "
					"(ProfilerActivity.CUDA).");
		goto out;
	}
	gf_ns inner = s->wall - g->edge;
	/* GPU-bound only when the window edges hold under half the step: a step
	 * that is mostly edge is explained by the edge (the largest cause) */
	if (inner > 0 && (__int128)g->edge * 2 < (__int128)s->wall &&
	    (__int128)s->busy * 10 >= (__int128)inner * 9) {
		verdict_gpu_bound(r, g->edge, &v, &a);
		goto out;
	}
	gf_ns cs[6];
	causes_of(g, cs);
	int top = -1;
	for (int k = 0; k < 6; k++)
		if (cs[k] > 0 && (top < 0 || cs[k] > cs[top]))
			top = k;
	sbuf_addstr(&v, "GPU busy ");
	report_fmt_dur(&v, s->busy);
	sbuf_addstr(&v, " of ");
	report_fmt_dur(&v, s->wall);
	sbuf_addstr(&v, r->st.whole_trace ? " in the trace (" : " per step (");
	report_fmt_pct(&v, s->busy, s->wall);
	sbuf_addstr(&v, ")");
	if (top >= 0) {
		sbuf_addstr(&v, "; ");
		report_fmt_dur(&v, cs[top]);
		cause_words(&v, r, top, true);
		/* the other causes of at least 1% of the step, largest first */
		bool done[6] = { false };
		done[top] = true;
		for (;;) {
			int k2 = -1;
			for (int k = 0; k < 6; k++)
				if (!done[k] && cs[k] > 0 && (__int128)cs[k] * 100 >= (__int128)s->wall &&
				    (k2 < 0 || cs[k] > cs[k2]))
					k2 = k;
			if (k2 < 0)
				break;
			done[k2] = true;
			sbuf_addstr(&v, "; ");
			report_fmt_dur(&v, cs[k2]);
			cause_words(&v, r, k2, false);
		}
		r->cause = RC_EDGE + top;
	}
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
	trace_device_kind(t->meta.dev_kinds, r->meta.device_kind);
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
	free(r->verdict);
	free(r->action);
	memset(r, 0, sizeof *r);
}
