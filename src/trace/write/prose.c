/* prose.c — the report's words and the numbers in them (see prose.h). */
#include "trace/write/prose.h"

#include "base/names.h"
#include "base/num.h"

#include <string.h>

/* ---- numbers --------------------------------------------------------- */

void prose_dur(struct sbuf *b, gf_ns ns)
{
	if (ns >= 1000000 || ns <= -1000000) {
		num_fmt_fixed(b, ns, 6, 1, false);
		sbuf_addstr(b, " ms");
	} else {
		num_fmt_fixed(b, ns, 3, 1, false);
		sbuf_addstr(b, " us");
	}
}

void prose_pct(struct sbuf *b, gf_ns part, gf_ns whole)
{
	if (num_fmt_pct(b, part, whole, 0, NUM_HALF_UP))
		sbuf_addch(b, '%');
	else
		sbuf_addstr(b, "-");
}

void prose_pct1(struct sbuf *b, gf_ns part, gf_ns whole)
{
	if (num_fmt_pct(b, part, whole, 1, NUM_HALF_UP))
		sbuf_addch(b, '%');
	else
		sbuf_addstr(b, "-");
}

void prose_share(struct sbuf *b, gf_ns part, gf_ns whole)
{
	/* the JSON's share (gaps_share: 1e-4, half to even) times 100 */
	if (!num_fmt_pct(b, part, whole, 2, NUM_HALF_EVEN))
		sbuf_addstr(b, "0.00");
	sbuf_addch(b, '%');
}

void prose_per_step(struct sbuf *b, uint64_t count, size_t nsteps)
{
	int64_t v = 0;
	if (!nsteps || !num_muldiv((int64_t)count, 100, (int64_t)nsteps, &v)) {
		sbuf_addstr(b, "0");
		return;
	}
	num_fmt_fixed(b, v, 2, 2, false);
}

/* ---- the gap causes -------------------------------------------------- */

static const struct prose_cause causes[] = {
	[GAP_EDGE] = { " at the window's edges (before the first or after the last GPU activity with no traced work "
		       "running, or work whose launch is not in the trace), not code",
		       " at the window's edges, not code", NULL, false, "", NULL, NULL, 0 },
	[GAP_SYNC] = { " inside blocking calls (the thread that issues the next work waited)", " inside blocking calls",
		       "at", false, "", "GPU idle inside blocking calls, by Python site (per steady step)", "site", 5 },
	[GAP_HOST] = { " of host work before the next launch", " of host work before the next launch", "in", false, "",
		       "Top host stacks while the GPU idled (host pieces, per steady step)",
		       "Python site > innermost range", 8 },
	[GAP_UNTRACED] = { " of untraced host time before the next launch (no range open)",
			   " of untraced host time before the next launch", NULL, false, "", NULL, NULL, 0 },
	[GAP_QUEUED] = { " queued: issued work waited to start", " queued: issued work waited to start", "behind",
			 false, "", "Queued work: what the issued work waited on (per steady step)", "wait", 5 },
	[GAP_LAUNCH] = { " inside launch calls", " inside launch calls", "in", false, "", NULL, NULL, 0 },
};
_Static_assert(GF_ARRAY_LEN(causes) == GAP_NCAUSES, "words for every gap cause");

const struct prose_cause *prose_cause(int k)
{
	return &causes[k >= 0 && k < GAP_NCAUSES ? k : GAP_EDGE];
}

void prose_cause_line(struct sbuf *b, int k)
{
	const struct cause_def *c = &causes_gap[k >= 0 && k < GAP_NCAUSES ? k : GAP_EDGE];
	sbuf_addf(b, "%s: %s", c->key, c->rule);
}

static void range_name(struct sbuf *b, const struct trace *t, uint32_t ri)
{
	sbuf_add(b, pool_str(t->names, t->r[ri].name), pool_len(t->names, t->r[ri].name));
}

/* " (cudaLaunchKernel)": the call a piece names, when there is one. */
static void call_aside(struct sbuf *b, const struct trace *t, uint32_t ri)
{
	if (ri == TRACE_NONE)
		return;
	sbuf_addstr(b, " (");
	range_name(b, t, ri);
	sbuf_addstr(b, ")");
}

void prose_piece(struct sbuf *b, const struct actx *c, const struct gaps_result *r, const struct gap_piece *p)
{
	const struct trace *t = c->t;
	prose_cause_line(b, p->cause);
	sbuf_addstr(b, ". ");
	switch (p->cause) {
	case GAP_SYNC:
		sbuf_addstr(b, "The host waited in ");
		if (p->ri != TRACE_NONE)
			range_name(b, t, p->ri);
		else
			sbuf_addstr(b, "a blocking call");
		sbuf_addstr(b, " at ");
		gaps_piece_label(c, r, p, b);
		sbuf_addstr(b, " while the GPU ran out of work, and launched again only after it returned.");
		break;
	case GAP_HOST:
		sbuf_addstr(b, "The launching thread was still in ");
		gaps_piece_label(c, r, p, b);
		sbuf_addstr(b, ": the next launch was issued only after that host work.");
		break;
	case GAP_UNTRACED:
		sbuf_addstr(b, "The launching thread was outside every traced range (only the step marker or "
			       "nothing open): profile with with_stack=True or py-spy to see that host work.");
		break;
	case GAP_QUEUED:
		sbuf_addstr(b, "The work was issued");
		call_aside(b, t, p->ri);
		sbuf_addstr(b, " and had not started: ");
		gaps_piece_label(c, r, p, b);
		sbuf_addstr(b, ".");
		break;
	case GAP_LAUNCH:
		sbuf_addstr(b, "The issuing thread was inside the launch call");
		call_aside(b, t, p->ri);
		sbuf_addstr(b, ": the next work was not issued until it returned.");
		break;
	default: /* GAP_EDGE */
		sbuf_addstr(b, "At the edge of the profiling window no thread of the step was in traced work, or the "
			       "next work was launched before the profiler started: not code.");
		break;
	}
}

/* One cause's words after its duration; lead: it leads the verdict, with
 * its class, its stack and that stack's share (or its top key). */
static void cause_words(struct sbuf *b, const struct report *r, int k, bool lead)
{
	const struct report_verdict *v = &r->verdict;
	const struct prose_cause *w = prose_cause(k);
	sbuf_addstr(b, lead ? w->verdict : w->other);
	if (!lead) {
		sbuf_addstr(b, w->close);
		return;
	}
	if (v->hclass >= 0 && v->hclass < HW_NCLASSES) {
		sbuf_addstr(b, ", ");
		prose_pct(b, v->class_ns, v->key_total);
		sbuf_addstr(b, " of it ");
		sbuf_addstr(b, causes_class[v->hclass].label);
	}
	if (v->frames && w->key_prep) {
		sbuf_addstr(b, "; ");
		prose_share(b, v->frames_ns, v->key_total);
		sbuf_addf(b, " of it %s ", w->key_prep);
		sbuf_addstr(b, v->frames);
	} else if (v->key && w->key_prep) {
		sbuf_addstr(b, "; ");
		prose_share(b, v->key->ns, v->key_total);
		sbuf_addf(b, " of it %s ", w->key_prep);
		sbuf_addstr(b, v->key->label);
	}
	if (w->kernels) {
		sbuf_addf(b, "; %lld kernels/step, median kernel ", (long long)r->gp.ld.kernels_per_step);
		prose_dur(b, r->gp.ld.median_kernel);
	}
	sbuf_addstr(b, w->close);
}

/* ---- the verdict ----------------------------------------------------- */

/* The exposed NCCL time beside another verdict, when it is > 10% of the
 * step. */
static void comm_note(struct sbuf *b, const struct report_verdict *v)
{
	if (!v->comm_noted)
		return;
	sbuf_addstr(b, "; ");
	prose_dur(b, v->comm_exposed);
	sbuf_addstr(b, " of NCCL communication is not overlapped with compute");
}

static void verdict_gpu_bound(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	const struct launch_diag *ld = &r->gp.ld;
	sbuf_addstr(b, "GPU-bound: busy ");
	prose_pct(b, v->busy_sum, v->wall_sum - v->edge_sum);
	sbuf_addstr(b, v->whole_trace ? " of the trace" : " of the steady steps");
	sbuf_addstr(b, " outside the window edges");
	if (ld->latency_launches) {
		sbuf_addstr(b, "; work starts a median ");
		prose_dur(b, ld->median_latency);
		sbuf_addstr(b, " after its launch call");
	}
	if (v->edge_noted) {
		sbuf_addstr(b, "; ");
		prose_dur(b, v->edge);
		sbuf_addstr(b, " is the window's edge (the profiler started or stopped while work was queued), not code");
	}
	comm_note(b, v);
	sbuf_addstr(b, ".");
}

/* A collective as prose names it: its kind, or the kernel when the trace
 * does not name the collective. */
static void coll_name(struct sbuf *b, const struct comm_coll *x)
{
	if (x->kind != NAMES_COLL_UNKNOWN) {
		sbuf_addstr(b, names_coll_key(x->kind));
		return;
	}
	sbuf_addstr(b, "collectives the trace does not name (");
	sbuf_addstr(b, x->kernel);
	sbuf_addstr(b, ")");
}

static void verdict_comm(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	const struct comm_row *x = &r->cm.steady;
	sbuf_addstr(b, "Communication-bound: the GPU is busy ");
	prose_pct(b, x->busy, x->wall);
	sbuf_addstr(b, v->whole_trace ? " of the trace, but " : " of the step, but ");
	prose_dur(b, x->exposed);
	sbuf_addstr(b, " of the ");
	prose_dur(b, x->wall);
	sbuf_addstr(b, v->whole_trace ? " trace (" : " step (");
	prose_pct(b, x->exposed, x->wall);
	sbuf_addstr(b, ") is NCCL communication with no compute running");
	if (v->coll) {
		sbuf_addstr(b, "; ");
		prose_dur(b, gaps_mean(v->coll->exposed, r->cm.nsteady));
		sbuf_addstr(b, " of it in ");
		coll_name(b, v->coll);
		if (v->coll->stream >= 0)
			sbuf_addf(b, " on stream %d", (int)v->coll->stream);
		sbuf_addstr(b, " (");
		prose_per_step(b, v->coll->calls, r->cm.nsteady);
		sbuf_addstr(b, " calls per step)");
	}
	sbuf_addstr(b, ".");
}

void prose_verdict(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	switch (v->kind) {
	case VERDICT_NO_GPU:
		sbuf_addstr(b, v->legacy ? "No GPU activity in the selected steps: the legacy autograd profiler's export "
					   "records none."
					 : "No GPU activity in the selected steps: a CPU-only capture, nothing ran on a "
					   "device to attribute.");
		return;
	case VERDICT_GPU_BOUND:
		verdict_gpu_bound(b, r);
		return;
	case VERDICT_COMM:
		verdict_comm(b, r);
		return;
	default:
		break;
	}
	sbuf_addstr(b, "GPU busy ");
	prose_dur(b, v->busy);
	sbuf_addstr(b, " of ");
	prose_dur(b, v->wall);
	sbuf_addstr(b, v->whole_trace ? " in the trace (" : " per step (");
	prose_pct(b, v->busy, v->wall);
	sbuf_addstr(b, ")");
	if (v->kind == VERDICT_CAUSE) {
		sbuf_addstr(b, "; ");
		prose_dur(b, v->ns);
		cause_words(b, r, v->cause, true);
		for (size_t i = 0; i < v->nothers; i++) {
			sbuf_addstr(b, "; ");
			prose_dur(b, v->others_ns[i]);
			cause_words(b, r, v->others[i], false);
		}
		comm_note(b, v);
	}
	sbuf_addstr(b, ".");
}

/* ---- Next ------------------------------------------------------------ */

/* "<n> per step" (whole trace: "<n> in the trace") of a count over the
 * steady steps. */
static void per_step(struct sbuf *b, const struct report *r, uint64_t n)
{
	size_t ns = r->st.nsteady ? r->st.nsteady : r->st.n;
	if (r->st.whole_trace) {
		sbuf_addf(b, "%llu in the trace", (unsigned long long)n);
		return;
	}
	prose_per_step(b, n, ns);
	sbuf_addstr(b, " per step");
}

static void next_sync(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	if (!v->key) {
		sbuf_addstr(b, "Remove the blocking calls from the step loop (gpuflame syncs).");
		return;
	}
	sbuf_addstr(b, "Remove the sync at ");
	sbuf_addstr(b, v->key->label);
	if (v->site) {
		sbuf_addstr(b, " (");
		sbuf_addstr(b, v->site->api);
		sbuf_addstr(b, ", ");
		per_step(b, r, v->site->count);
		sbuf_addstr(b, "): ");
		prose_sync_fix(b, v->site);
	}
	sbuf_addstr(b, ".");
}

/* "<frames> (<share> of the <cause> time)" */
static void where(struct sbuf *b, const struct report_verdict *v)
{
	sbuf_addstr(b, v->frames);
	sbuf_addstr(b, " (");
	prose_share(b, v->frames_ns, v->key_total);
	sbuf_addstr(b, ")");
}

static void next_host(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	if (v->drain) {
		sbuf_addstr(b, "The GPU drained at the sync at ");
		sbuf_addstr(b, v->drain->label);
		sbuf_addstr(b, " first, then idled while the host worked");
		if (v->frames) {
			sbuf_addstr(b, " in ");
			where(b, v);
		}
		sbuf_addstr(b, ": ");
		if (v->drain_site) {
			sbuf_addstr(b, prose_fix(v->drain_site->fix));
			sbuf_addstr(b, ", so the host runs ahead of the GPU; or move that host work to another thread.");
		} else {
			sbuf_addstr(b, "remove the sync so the host runs ahead of the GPU, or move that host work to "
				       "another thread.");
		}
		return;
	}
	sbuf_addstr(b, "The host is too slow to feed the GPU");
	if (v->frames && !v->key_dominant) {
		sbuf_addstr(b, "; no single host stack dominates (the largest, ");
		sbuf_addstr(b, v->frames);
		sbuf_addstr(b, ", holds ");
		prose_share(b, v->frames_ns, v->key_total);
		sbuf_addstr(b, "): read the idle-weighted flame graph (gpuflame fold --weight idle) for where that "
			       "host work is, then move it off the launching thread or overlap it with GPU work.");
		return;
	}
	if (v->frames) {
		sbuf_addstr(b, " in ");
		where(b, v);
	}
	sbuf_addstr(b, ": move that host work off the launching thread or overlap it with GPU work (gpuflame "
		       "fold --weight idle).");
}

static void next_issue(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	sbuf_addstr(b, "The host work is the issuing of the kernels itself (");
	prose_dur(b, v->per_launch);
	sbuf_addstr(b, " of host time per launch call");
	if (v->at_floor)
		sbuf_addstr(b, ", about what the launch API itself costs");
	if (v->frames) {
		sbuf_addstr(b, ", most in ");
		where(b, v);
	}
	sbuf_addstr(b, v->at_floor ? "): launch fewer kernels: " : "): cut the host time per launch: ");
	sbuf_addstr(b, prose_launch_advice(&r->gp.ld, false));
	sbuf_addstr(b, ".");
}

static void next_queued(struct sbuf *b, const struct report_verdict *v)
{
	sbuf_addstr(b, "The work was issued but waited");
	if (v->key) {
		sbuf_addstr(b, " behind ");
		sbuf_addstr(b, v->key->label);
	}
	sbuf_addstr(b, ": find what it waited for (an event another stream, device or process records, or the "
		       "host blocked elsewhere) in a timeline (report --explain, Perfetto) and overlap it or take it "
		       "out of the step.");
}

static void next_launch(struct sbuf *b, const struct report *r)
{
	const struct launch_diag *ld = &r->gp.ld;
	if (ld->launch_bound) {
		sbuf_addstr(b, "The step is launch-bound: ");
	} else {
		sbuf_addstr(b, "The idle time is inside launch calls (");
		per_step(b, r, (uint64_t)ld->launches_per_step * (r->st.whole_trace ? 1 : 1));
		sbuf_addstr(b, ", median call ");
		prose_dur(b, ld->median_launch);
		sbuf_addstr(b, "): ");
	}
	sbuf_addstr(b, prose_launch_advice(ld, ld->most_short));
	sbuf_addstr(b, ".");
}

static void next_warmup(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	sbuf_addstr(b, "This is one-time work");
	if (v->call && v->call_max && v->cause == GAP_LAUNCH) {
		sbuf_addstr(b, " (the longest ");
		sbuf_addstr(b, v->call);
		sbuf_addstr(b, " lasts ");
		prose_dur(b, v->call_max);
		sbuf_addstr(b, ", its median ");
		prose_dur(b, v->call_median);
		sbuf_addstr(b, ": a first launch that loads the kernel)");
	} else if (v->anchor || v->frames) {
		sbuf_addstr(b, " (");
		sbuf_addstr(b, v->anchor ? v->anchor : v->frames);
		sbuf_addstr(b, ")");
	}
	if (r->st.whole_trace)
		sbuf_addstr(b, ", not the steady state: warm up before the profiler's active window (run the step once "
			       "first, or torch.profiler.schedule with wait and warmup steps) and mark steps with "
			       "prof.step() so the report can leave the first ones out.");
	else
		sbuf_addstr(b, ", not the steady state: select steady steps (--skip N, --steps A..B) or warm up "
			       "before the profiler's active window (torch.profiler.schedule with wait and warmup "
			       "steps).");
}

static void next_allocator(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	sbuf_addstr(b, "The allocator holds the idle time");
	if (v->call && v->call_n) {
		sbuf_addstr(b, " (");
		sbuf_addstr(b, v->call);
		sbuf_addstr(b, ": ");
		per_step(b, r, v->call_n);
		sbuf_addstr(b, ", ");
		prose_dur(b, v->call_ns);
		sbuf_addstr(b, " in all");
		if (v->cause == GAP_SYNC)
			sbuf_addstr(b, "; each free waits for the whole device");
		sbuf_addstr(b, ")");
	}
	sbuf_addstr(b, ": keep PyTorch's caching allocator on (unset PYTORCH_NO_CUDA_MEMORY_CACHING / "
		       "PYTORCH_NO_HIP_MEMORY_CACHING), pre-allocate or reuse buffers, and keep "
		       "torch.cuda.empty_cache() out of the loop.");
}

static void next_data(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	sbuf_addstr(b, "Data loading and pre-processing run on the thread that issues the GPU work");
	if (v->anchor || v->frames) {
		sbuf_addstr(b, " (");
		sbuf_addstr(b, v->anchor ? v->anchor : v->frames);
		sbuf_addstr(b, ", ");
		prose_dur(b, gaps_mean(v->class_ns, r->gp.nsteady));
		sbuf_addstr(b, r->st.whole_trace ? " in the trace)" : " per step)");
	}
	sbuf_addstr(b, ": load in DataLoader worker processes (num_workers > 0, pin_memory=True, prefetch) or move "
		       "the pre-processing off that thread, so the next batch is ready when the GPU is.");
}

static void next_cpu_only(struct sbuf *b, const struct report *r)
{
	const struct cpu_report *c = &r->cpu;
	sbuf_addstr(b, "No device to attribute: the host-side tables below show where the CPU time goes");
	if (c->ntop) {
		sbuf_addstr(b, " (the largest stack, ");
		sbuf_addstr(b, c->top[0].label);
		sbuf_addstr(b, ", holds ");
		prose_share(b, c->top[0].ns, c->host_ns);
		sbuf_addstr(b, " of it)");
	}
	if (c->nsyncs) {
		sbuf_addstr(b, "; on a GPU, ");
		sbuf_addstr(b, c->syncs[0].name);
		sbuf_addstr(b, " (");
		prose_per_step(b, c->syncs[0].count, c->steps ? c->steps : 1);
		sbuf_addstr(b, " per step) would synchronise the host with the device");
	}
	sbuf_addstr(b, ". To see the GPU, profile with ProfilerActivity.CUDA on a machine that runs the model there.");
}

/* How to hide a collective behind compute, by kind (names.h enum
 * names_coll); the kinds without words get the general advice. */
static const char *const comm_fix[NAMES_COLL_N] = {
	[NAMES_COLL_ALL_REDUCE] =
		"DDP all-reduces gradient buckets while the backward pass runs, so a smaller bucket_cap_mb "
		"starts the first all-reduce earlier and leaves less after the last gradient "
		"(gradient_as_bucket_view=True and static_graph=True cut its overhead; with gradient accumulation, "
		"no_sync() on all but the last micro-batch); a tensor-parallel all-reduce can overlap the next "
		"layer's compute (async_op=True, wait() just before its result is used)",
	[NAMES_COLL_ALL_GATHER] =
		"FSDP prefetches the next all-gather while the current layer computes (forward_prefetch=True, "
		"backward_prefetch=BACKWARD_PRE; limit_all_gathers=True bounds the memory it takes); DeepSpeed "
		"ZeRO overlaps it with overlap_comm=True and larger allgather_bucket_size",
	[NAMES_COLL_REDUCE_SCATTER] =
		"FSDP reduce-scatters each layer's gradients as the backward pass moves on "
		"(backward_prefetch=BACKWARD_PRE keeps compute queued behind it); DeepSpeed ZeRO overlaps it "
		"with overlap_comm=True and larger reduce_bucket_size",
	[NAMES_COLL_BROADCAST] =
		"DDP broadcasts its buffers at every forward (broadcast_buffers=True): set broadcast_buffers=False "
		"when the buffers need no sync, or broadcast with async_op=True and wait() where they are read",
	[NAMES_COLL_ALL_TO_ALL] =
		"pipeline the token dispatch and combine with the expert compute (split the batch into chunks, "
		"async_op=True, wait() per chunk)",
};

static void next_comm(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	const struct comm_coll *x = v->advise;
	int k = x ? x->kind : NAMES_COLL_UNKNOWN;
	sbuf_addstr(b, "Hide the communication behind compute");
	if (x) {
		sbuf_addstr(b, x->kind != NAMES_COLL_UNKNOWN ? ", first the " : ", first ");
		coll_name(b, x);
		if (x->stream >= 0)
			sbuf_addf(b, " on stream %d", (int)x->stream);
		bool open = false;
		if (x->nelems != KEV_NONE) {
			sbuf_addf(b, " (%lld elements", (long long)x->nelems);
			if (x->dtype) {
				sbuf_addstr(b, " of ");
				sbuf_addstr(b, x->dtype);
			}
			sbuf_addstr(b, " a call");
			open = true;
		}
		if (x != v->coll) {
			sbuf_addstr(b, open ? "; " : " (");
			prose_dur(b, gaps_mean(x->exposed, r->cm.nsteady));
			sbuf_addstr(b, " exposed per step, the largest collective the trace names");
			open = true;
		}
		if (open)
			sbuf_addstr(b, ")");
	}
	sbuf_addstr(b, ": ");
	sbuf_addstr(b, k > 0 && k < NAMES_COLL_N && comm_fix[k]
			       ? comm_fix[k]
			       : "issue the collectives asynchronously (async_op=True) and wait() just before their "
				 "result is used, so that compute runs meanwhile");
	if (v->coll_small) {
		sbuf_addstr(b, "; its ");
		prose_per_step(b, x->calls, r->cm.nsteady);
		sbuf_addstr(b, " calls per step carry ");
		prose_dur(b, gaps_mean(x->comm, (size_t)x->calls));
		sbuf_addstr(b, " of communication each: fewer, larger collectives (larger buckets, coalesced "
			       "tensors) pay the per-call latency less often");
	}
	sbuf_addstr(b, ".");
	if (r->meta.world_size > 1)
		sbuf_addstr(b, " A collective also waits on this rank until the last rank arrives: when the same "
			       "collective is shorter on other ranks, that wait is a straggler's, and gpuflame report "
			       "over every rank's trace names the rank the others wait for.");
}

/* The advice that is one fixed sentence (NULL: it names the verdict's key
 * or numbers, next()). */
static const char *const advice[] = {
	[ADV_NONE] = "No gaps to explain.",
	[ADV_NO_GPU] = "Check that the profiler recorded CUDA/HIP activities (ProfilerActivity.CUDA).",
	[ADV_LEGACY] = "This trace is the legacy autograd profiler's export (a PyTorch built without Kineto, such "
		       "as Debian's python3-torch): it records no GPU activity; profile with a Kineto build "
		       "(torch.profiler with ProfilerActivity.CUDA) to see the device.",
	[ADV_KERNELS] = "Speed comes from the kernels now: read the GPU-weighted flame graph (gpuflame fold "
			"--weight gpu) and compare it with your speed-of-light estimate.",
	[ADV_EDGE] = NULL,
	[ADV_SYNC] = NULL,
	[ADV_HOST] = NULL,
	[ADV_UNTRACED] = "The thread that issues the next work was outside every traced range while the GPU idled: "
			 "profile with with_stack=True or py-spy to see that host work.",
	[ADV_QUEUED] = NULL,
	[ADV_LAUNCH] = NULL,
	[ADV_WARMUP] = NULL,
	[ADV_ALLOCATOR] = NULL,
	[ADV_DATA] = NULL,
	[ADV_ISSUE] = NULL,
	[ADV_CPU_ONLY] = NULL,
	[ADV_COMM] = NULL,
};
_Static_assert(GF_ARRAY_LEN(advice) == ADV_N, "words for every advice key");

void prose_next(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	int k = v->advice >= 0 && v->advice < ADV_N ? v->advice : ADV_NONE;
	if (advice[k]) {
		sbuf_addstr(b, advice[k]);
		return;
	}
	switch (k) {
	case ADV_EDGE:
		sbuf_addstr(b, r->st.whole_trace ? "The idle time is the profiling window's edge, not the code: mark "
						    "steps with prof.step() and profile more of them."
						  : "The idle time is the profiling window's edge, not the code: select "
						    "steps inside the window (--steps, --skip) or profile more steps.");
		break;
	case ADV_SYNC: next_sync(b, r); break;
	case ADV_HOST: next_host(b, r); break;
	case ADV_QUEUED: next_queued(b, v); break;
	case ADV_WARMUP: next_warmup(b, r); break;
	case ADV_ALLOCATOR: next_allocator(b, r); break;
	case ADV_DATA: next_data(b, r); break;
	case ADV_ISSUE: next_issue(b, r); break;
	case ADV_CPU_ONLY: next_cpu_only(b, r); break;
	case ADV_COMM: next_comm(b, r); break;
	default: next_launch(b, r); break;
	}
}

/* ---- the failure modes ----------------------------------------------- */

static const char *const finding_keys[] = {
	[FINDING_COMM] = "comm",         [FINDING_WARMUP] = "warmup", [FINDING_OVERHEAD] = "profiler_overhead",
	[FINDING_FEW_STEPS] = "few_steps", [FINDING_RANKS] = "ranks_merged", [FINDING_ASYNC] = "asynchrony",
};
_Static_assert(GF_ARRAY_LEN(finding_keys) == FINDING_N, "a key for every finding");

const char *prose_finding_key(int kind)
{
	return finding_keys[kind >= 0 && kind < FINDING_N ? kind : FINDING_COMM];
}

/* x100 counts as "12.34" */
static void hundredths(struct sbuf *b, uint64_t x)
{
	num_fmt_fixed(b, (int64_t)x, 2, 2, false);
}

void prose_finding(struct sbuf *b, const struct report *r, const struct report_finding *f)
{
	switch (f->kind) {
	case FINDING_WARMUP:
		if (f->n) {
			sbuf_addf(b, "Warm-up inside the window: %llu leading step%s (", (unsigned long long)f->n,
				  f->n == 1 ? "" : "s");
			prose_dur(b, f->ns);
			sbuf_addstr(b, " in all) last over 1.5x the median step and are left out of the steady figures.");
		} else {
			sbuf_addf(b, "One-time work inside the window: %llu launch call%s far above their name's median "
				  "(a first launch, module load); ", (unsigned long long)f->m, f->m == 1 ? "" : "s");
			prose_dur(b, f->ns);
			sbuf_addstr(b, " of the steady idle is warm-up and one-time work.");
		}
		break;
	case FINDING_OVERHEAD:
		sbuf_addstr(b, "Profiler overhead: ");
		hundredths(b, f->n);
		sbuf_addstr(b, " host ranges per launch call");
		if (f->m) {
			sbuf_addstr(b, " and ");
			hundredths(b, f->m);
			sbuf_addstr(b, " Python frames per op");
		}
		sbuf_addstr(b, " (with_stack, record_function): the profiler adds host time the unprofiled run does "
			       "not have; compare with the step measured without it (--unprofiled-step-ms).");
		break;
	case FINDING_FEW_STEPS:
		sbuf_addf(b, "Only %llu steady step%s of %llu: too few to tell the steady state from noise; profile "
			  "at least 3 (more to compare runs).", (unsigned long long)f->n, f->n == 1 ? "" : "s",
			  (unsigned long long)f->m);
		break;
	case FINDING_RANKS:
		sbuf_addf(b, "%llu host process%s and %llu device%s with activity in one trace: the report analyses "
			  "device %d only (--device N for another); one trace per rank is the reliable input.",
			  (unsigned long long)f->n, f->n == 1 ? "" : "es", (unsigned long long)f->m, f->m == 1 ? "" : "s",
			  r->meta.device);
		break;
	case FINDING_ASYNC:
		sbuf_addstr(b, "Asynchrony: blocking calls hold ");
		prose_dur(b, f->ns);
		sbuf_addstr(b, " of the ");
		prose_dur(b, f->of);
		sbuf_addstr(b, " step (");
		prose_pct(b, f->ns, f->of);
		sbuf_addstr(b, "): the CPU and wall flame graphs charge that wait to the line that synchronised, "
			       "not to the GPU work it waited for, which was launched earlier.");
		break;
	default:
		sbuf_addstr(b, "Communication is exposed.");
		break;
	}
}

/* ---- syncs and launches ---------------------------------------------- */

static const char *const fixes[] = {
	[SF_ITEM] = "keep the values on the device and copy them asynchronously into pinned memory one step "
		    "behind (non_blocking=True), instead of .item() every step",
	[SF_BOOL] = "avoid boolean checks on GPU tensors (if t:, while t:, assert): compute the condition on the "
		    "device (torch.where) or check it one step later",
	[SF_NONZERO] = "nonzero/boolean-mask indexing needs the result size on the host: use torch.where, "
		       "fixed-size outputs or output_size=",
	[SF_TO_HOST] = ".cpu()/.tolist()/.numpy() blocks: copy with non_blocking=True into pinned memory and "
		       "consume the result one step later",
	[SF_TO_DEVICE] = "blocking copy from host memory: pin the host tensor (pin_memory()) and copy with "
			 "non_blocking=True, or keep the data on the device",
	[SF_DEVICE_SYNC] = "explicit torch.cuda.synchronize(): remove it from the step loop (keep it only around "
			   "timing code)",
	[SF_EVENT_SYNC] = "event.synchronize() blocks the host: poll event.query() or wait on another thread so "
			  "the host keeps launching",
	[SF_STREAM_SYNC] = "stream.synchronize(): wait later or on an event for just the work you need, so the "
			   "host keeps the GPU queue full",
	[SF_PAGEABLE] = "async copy to or from pageable memory is synchronous: use pinned host buffers "
			"(pin_memory=True)",
	[SF_H2D_INPUT] = "the host-to-device input copy from pageable memory waits for the GPU: pin the batch "
			 "(DataLoader pin_memory=True or tensor.pin_memory()), copy with non_blocking=True, and "
			 "prefetch the next batch on a side stream",
	[SF_FREE] = "freeing device memory waits for the whole device: keep PyTorch's caching allocator on, reuse "
		    "buffers, and keep torch.cuda.empty_cache() out of the loop",
};
_Static_assert(GF_ARRAY_LEN(fixes) == SF_COUNT_, "words for every fix pattern");

const char *prose_fix(int fix)
{
	return fixes[fix >= 0 && fix < SF_COUNT_ ? fix : SF_STREAM_SYNC];
}

void prose_sync_fix(struct sbuf *b, const struct sync_site *s)
{
	sbuf_addstr(b, prose_fix(s->fix));
	if (s->host_work_after)
		sbuf_addstr(b, "; the GPU then idles while the host works: move that work to another thread");
}

const char *prose_launch_advice(const struct launch_diag *ld, bool most_short)
{
	if (ld->graphs)
		return "the step already replays CUDA graphs: raise the effective batch, or fuse kernels "
		       "(torch.compile) so each launch carries more work";
	if (most_short)
		return "capture the step in a CUDA graph (torch.compile mode=\"reduce-overhead\" or torch.cuda.graphs), "
		       "raise the effective batch, or compile the step: most kernels are shorter than their launch call";
	return "capture the step in a CUDA graph (torch.compile mode=\"reduce-overhead\" or torch.cuda.graphs), "
	       "raise the effective batch, or compile the step so each launch carries more work";
}
