/* prose.c — the report's words and the numbers in them (see prose.h). */
#include "trace/write/prose.h"

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
	[GAP_EDGE] = { " at the window's edges (before the first or after the last GPU activity, or work "
		       "launched before the profiler started), not code",
		       " at the window's edges, not code", NULL, false, "", NULL, NULL, 0 },
	[GAP_SYNC] = { " drained into blocking calls (the host waited, then launched late)",
		       " drained into blocking calls (the host waited, then launched late)", "at", false, "",
		       "GPU idle drained into syncs, by Python site (per steady step)", "site", 5 },
	[GAP_HOST] = { " host late to launch", " host late to launch", "in", false, "",
		       "Top host stacks while the GPU idled (host gaps, per steady step)",
		       "Python site > innermost range", 8 },
	[GAP_UNTRACED] = { " host late to launch outside every traced range",
			   " host late to launch outside every traced range", NULL, false, "", NULL, NULL, 0 },
	[GAP_QUEUED] = { " queued: issued work waited to start", " queued: issued work waited to start", "behind",
			 false, "", "Queued work: what the issued work waited behind (per steady step)", "wait", 5 },
	[GAP_LAUNCH] = { " launch overhead (gaps under 30 us", " launch overhead (gaps under 30 us", NULL, true, ")",
			 NULL, NULL, 0 },
};
_Static_assert(GF_ARRAY_LEN(causes) == GAP_NCAUSES, "words for every gap cause");

const struct prose_cause *prose_cause(int k)
{
	return &causes[k >= 0 && k < GAP_NCAUSES ? k : GAP_EDGE];
}

/* One cause's words after its duration; lead: it leads the verdict, with
 * its top key and that key's share (launch: its kernels). */
static void cause_words(struct sbuf *b, const struct report *r, int k, bool lead)
{
	const struct report_verdict *v = &r->verdict;
	const struct prose_cause *w = prose_cause(k);
	sbuf_addstr(b, lead ? w->verdict : w->other);
	if (lead && v->key && w->key_prep) {
		sbuf_addstr(b, "; ");
		prose_share(b, v->key->ns, v->key_total);
		sbuf_addf(b, " of it %s ", w->key_prep);
		sbuf_addstr(b, v->key->label);
	}
	if (lead && w->kernels) {
		sbuf_addf(b, "; %lld kernels/step, median kernel ", (long long)r->gp.ld.kernels_per_step);
		prose_dur(b, r->gp.ld.median_kernel);
	}
	sbuf_addstr(b, w->close);
}

/* ---- the verdict ----------------------------------------------------- */

static void verdict_gpu_bound(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	const struct launch_diag *ld = &r->gp.ld;
	sbuf_addstr(b, "GPU-bound: busy ");
	prose_pct(b, v->busy, v->wall - v->edge);
	sbuf_addstr(b, v->whole_trace ? " of the trace" : " of the step");
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
	if (v->comm_noted) {
		sbuf_addstr(b, "; ");
		prose_dur(b, v->comm_exposed);
		sbuf_addstr(b, " of NCCL communication is not overlapped with compute");
	}
	sbuf_addstr(b, ".");
}

void prose_verdict(struct sbuf *b, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	switch (v->kind) {
	case VERDICT_NO_GPU:
		sbuf_addstr(b, "No GPU activity in the selected steps: nothing ran on a device to attribute.");
		return;
	case VERDICT_GPU_BOUND:
		verdict_gpu_bound(b, r);
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
	}
	sbuf_addstr(b, ".");
}

/* ---- Next ------------------------------------------------------------ */

static void next_sync(struct sbuf *b, const struct report_verdict *v)
{
	if (!v->key) {
		sbuf_addstr(b, "Remove the blocking calls from the step loop (gpuflame syncs).");
		return;
	}
	sbuf_addstr(b, "Remove the sync at ");
	sbuf_addstr(b, v->key->label);
	if (v->site) {
		sbuf_addstr(b, ": ");
		prose_sync_fix(b, v->site);
	}
	sbuf_addstr(b, ".");
}

static void next_host(struct sbuf *b, const struct report_verdict *v)
{
	sbuf_addstr(b, "The host is too slow to feed the GPU");
	if (v->key && !v->key_dominant) {
		/* no stack holds a quarter of it: say so, name the largest */
		sbuf_addstr(b, "; no single host stack dominates (the largest, ");
		sbuf_addstr(b, v->key->label);
		sbuf_addstr(b, ", holds ");
		prose_share(b, v->key->ns, v->key_total);
		sbuf_addstr(b, "): read the idle-weighted flame graph (gpuflame fold --weight idle) for where that "
			       "host work is, then move it off the launching thread or overlap it with GPU work.");
		return;
	}
	if (v->key) {
		sbuf_addstr(b, " in ");
		sbuf_addstr(b, v->key->label);
	}
	sbuf_addstr(b, ": move that host work off the launching thread or overlap it with GPU work (gpuflame "
		       "fold --weight idle).");
}

static void next_queued(struct sbuf *b, const struct report_verdict *v)
{
	sbuf_addstr(b, "The work was issued but waited");
	if (v->key) {
		sbuf_addstr(b, " behind ");
		sbuf_addstr(b, v->key->label);
	}
	sbuf_addstr(b, ": find what it waited for (an event another stream, device or process records, or the "
		       "host blocked elsewhere) in a timeline (Perfetto) and overlap it or take it out of the step.");
}

static void next_launch(struct sbuf *b, const struct report *r)
{
	const struct launch_diag *ld = &r->gp.ld;
	sbuf_addstr(b, ld->launch_bound ? "The step is launch-bound: " : "Short gaps between kernels: ");
	sbuf_addstr(b, prose_launch_advice(ld));
	sbuf_addstr(b, ".");
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
	[ADV_EDGE] = "The idle time is the profiling window's edge, not the code: select steps inside the window "
		     "(--steps, --skip) or profile more steps.",
	[ADV_SYNC] = NULL,
	[ADV_HOST] = NULL,
	[ADV_UNTRACED] = "The launching thread was outside every traced range while the GPU idled: profile with "
			 "with_stack=True or py-spy to see that host work.",
	[ADV_QUEUED] = NULL,
	[ADV_LAUNCH] = NULL,
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
	case ADV_SYNC: next_sync(b, v); break;
	case ADV_HOST: next_host(b, v); break;
	case ADV_QUEUED: next_queued(b, v); break;
	default: next_launch(b, r); break;
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

const char *prose_launch_advice(const struct launch_diag *ld)
{
	if (ld->graphs)
		return "the step already replays CUDA graphs: raise the effective batch, or fuse kernels "
		       "(torch.compile) so each launch carries more work";
	return "capture the step in a CUDA graph (torch.compile mode=\"reduce-overhead\" or torch.cuda.graphs), "
	       "raise the effective batch, or compile the step: most kernels are shorter than their launch call";
}
