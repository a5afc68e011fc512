/*
 * gaps.h — why the GPU idles: one rule for every idle nanosecond of the
 * analysed device inside the selected steps (docs/report.md "Why the GPU
 * idled: the rule"), plus the launch-to-start latency and the launch-bound
 * diagnosis.
 *
 * An idle gap is [a, b) between busy pairs of the device D (actx.h; a = -inf
 * before the first, b = +inf after the last). For a finite b, N is the
 * first activity starting at b (one with a launch call first, then the
 * lowest index), L its launch call, T = L's thread: the thread that issues
 * the next work. After the last activity T is the thread holding the step
 * marker whose window contains the instant, else the device's launching
 * thread. Work is ISSUED when its launch call RETURNS. Every instant t of a
 * gap is, in this order:
 *   queued    some activity of D was issued (its call returned at or before
 *             t) and has not started: one pass over D's activities by start
 *             gives the earliest return among the activities still to come
 *             (a suffix minimum), so a gap is queued from that instant on.
 *             Named by what the work waited on: the wait-event call on its
 *             launching thread after that thread's previous launch ("<call>
 *             (stream S)"), else "launch latency (stream S)" when it started
 *             < 30 us after its call returned, else "back-to-back on stream
 *             S" when the whole gap is < 30 us and it was issued before the
 *             gap began, else "stream S: no wait in the trace". The named
 *             work is N once N is issued, before that the first issued.
 *             Before D's first activity, queued work waits on work the
 *             trace does not hold (the profiler started while the device
 *             had work queued): edge.
 *   edge      N has no launch call in the trace (launched before the
 *             window, or its call is missing): no thread is named; or t lies
 *             before D's first or after D's last activity and no thread of
 *             the step (the device's launching threads and the step
 *             threads) is in traced work other than the profiler's own
 *             start/stop frames (names_profiler_frame)
 *   launch    T is inside a launch call (a runtime/driver call with linked
 *             work that does not block); class warmup when the call lasts
 *             >= 1 ms and >= 20x the median of its name's launch calls
 *             (first launch, module load), else launch
 *   sync      T is inside a blocking call (actx.h: synchronize calls,
 *             synchronous and pageable copies, cudaFree/hipFree...); class
 *             allocator for the free calls, warmup inside one-time work
 *             (graph capture, compilation), else sync
 *   host      T is inside traced host code (the innermost open range other
 *             than the step marker); class from the stack, innermost first
 *             (names_host_work: allocator, warmup, data), else python when
 *             a Python frame or annotation is on the stack, else other
 *   untraced  T has nothing traced open
 * A gap can hold several pieces; edge + sync + host + untraced + queued +
 * launch = idle, per step, exactly (asserted).
 *
 * A blocking call B that returns into an idle gap (B.start < a <= B.end <=
 * h, h the first issue of work after a; the smallest end, then the lowest
 * index) drained the device: the host pieces after it carry it (drain) and
 * its bubble, the idle it exposes, is min(h - a, B's wait while D was
 * busy), inside the selected steps (each step its own part): syncs' bubble.
 *
 * For cross-checking, the same gaps are also classified with HTA's rule
 * alone (hta_rule_host: launch started after a; hta_rule_kernel: else gap
 * < 30 us; hta_rule_other), per device in exact ns over every step: not
 * HTA's own per-stream, whole-us figures.
 *
 * Cost: each gap is classified once, on its full extent as far as the steps
 * reach: T's ranges through the gap are one sweep (trace_wsweep), the queue
 * test one suffix minimum, the wait label of every launch one pass per
 * thread, the medians of the long launch calls' names one pass; a step's
 * row is the measure of each cause inside its window, and a charge adds
 * its time inside every selected and steady step (actx_span): O(n log n)
 * even when steps nest or overlap. Pieces are kept only when asked
 * (gaps_analyze_pieces: the explain view and the exports).
 *
 * The causes' and classes' names, JSON fields and store metrics are
 * causes.h's tables; the words about them are the writers'
 * (trace/write/prose.h).
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_GAPS_H
#define GF_GAPS_H

#include "trace/analysis/causes.h"
#include "trace/analysis/steps.h"

struct gap_row {
	gf_ns c[GAP_NCAUSES];                  /* idle by cause (enum gap_cause) */
	gf_ns hta_host, hta_kernel, hta_other; /* the HTA rule (hta_rule_* in JSON) */
};

/* A host stack (Python site > innermost range), a sync site or a queued
 * wait, with the GPU idle time charged to it over the steady steps: the
 * keys of a cause (gaps_result.keys; causes_gap[].keys says which have keys). */
struct gap_key {
	char *label;
	gf_ns ns;
};

/* What one blocking call exposed, inside the selected steps (each step its
 * own part): syncs' bubble. bubble = the idle after the device ran out of
 * work while the call waited, up to the next issue of work and at most the
 * call's wait while the device was busy; after = the part of the gap from
 * the call's return to that issue (host work after the sync); steady = the
 * bubble's part inside the steady steps. */
struct gap_call {
	uint32_t ri;
	gf_ns ns, after, steady;
};

/* Idle time by what it was charged to: (cause, class, the innermost range
 * open on T: the call for launch and sync, the frame for host; the thread
 * for untraced; a queued label's index for queued), its time inside the
 * selected steps and inside the steady steps. The idle-weighted tree
 * (fold --weight idle), the verdict's path and the keys are read from
 * these. */
struct gap_charge {
	uint32_t id;      /* range index, thread index (untraced), qlabel index (queued), 0 (edge) */
	uint8_t cause;    /* enum gap_cause */
	int8_t hclass;    /* enum host_class, HW_NONE */
	uint8_t flags;    /* GCF_* (host, sync and launch charges) */
	gf_ns sel, steady;
};
#define GCF_ISSUES 1u     /* the range issues device work: a launch call is inside it */

/* A queued piece's label ("cudaStreamWaitEvent (stream 8)", "launch latency
 * (stream 7)"...), with the queued time it names. */
struct gap_qlabel {
	char *label;
	int kind;         /* enum gap_qkind */
	gf_ns sel, steady;
};

enum gap_qkind { GQ_WAIT = 0, GQ_LATENCY, GQ_B2B, GQ_NONE };

/*
 * One classified piece of idle time (gaps_analyze_pieces): [lo, hi) of the
 * analysed device inside the steps' span, gap index j (its gap is
 * gaps_result.gaps[j]), its cause (GAP_*) and class (HW_*, HW_NONE), and:
 *   ri     launch/sync: the call; host: the innermost range on T; queued:
 *          the named work's launch call; else TRACE_NONE
 *   act    queued: the named activity; else TRACE_NONE
 *   q      queued: index into gaps_result.qlabels
 *   drain  host: the blocking call that drained the device before it
 *          (TRACE_NONE)
 * Pieces are disjoint and in time order; inside a step window they sum to
 * its idle time, cause by cause, exactly (they cover the span of the
 * steps, gaps between steps included: clip them to the windows).
 */
struct gap_piece {
	gf_ns lo, hi;
	uint32_t gap, ri, act, q, drain;
	uint8_t cause;
	int8_t hclass;
};

/* One idle gap met by the selected steps (gaps_analyze_pieces): its full
 * extent [a, b) (INT64_MIN / INT64_MAX at the trace's ends), the part the
 * steps' span holds [lo, hi), the idle of it inside the selected steps,
 * the activity that ended at a and the next one N starting at b
 * (TRACE_NONE), T (the thread that issues the next work, TRACE_NONE), and
 * its pieces gaps_result.pieces[first .. first + n). */
struct gap_gap {
	gf_ns a, b, lo, hi, idle;
	uint32_t prev, next, thread;
	size_t first, n;
};

struct launch_diag {
	gf_ns kernels_per_step, launches_per_step; /* steady medians (counts) */
	uint64_t kernels, launch_calls;   /* in the steady steps */
	gf_ns median_kernel, median_launch;
	uint64_t short_kernels;           /* kernels shorter than their launch call
					     (call <= 50 us, HTA's runtime_cutoff) */
	uint64_t compared;                /* kernels with a non-graph launch */
	uint64_t graph_launches;          /* in the steady steps */
	gf_ns median_latency;             /* launch-to-start: first linked activity on
					     the device's start - call start, median over
					     the steady steps' launch calls */
	uint64_t latency_launches;        /* launch calls in that median */
	gf_ns latency_queued;             /* queued idle labelled "launch latency", steady mean */
	bool most_short;                  /* more than half of the compared kernels are short */
	bool launch_bound;
	bool graphs;                      /* the steady steps use graph launches */
	bool deep_queue;                  /* graphs replayed, work starts >= 1 ms after its call */
};

struct gaps_result {
	struct gap_row *rows;       /* parallel to steps_result.rows */
	size_t n;
	struct gap_row steady;      /* mean over steady steps, ns rounded half to even */
	struct gap_row steady_sum;  /* sum over the steady steps (the keys' shares are of it) */
	size_t nsteady;             /* steps in those (all when none is steady) */
	/* a cause's keys by idle over the steady steps, descending: sync sites
	 * (GAP_SYNC), host stacks (GAP_HOST), queued waits (GAP_QUEUED); the
	 * other causes have none (NULL, 0) */
	struct gap_key *keys[GAP_NCAUSES];
	size_t nkeys[GAP_NCAUSES];
	/* the same idle by (cause, class) over the steady steps (sums), and the
	 * part of it in gaps shorter than GAPS_SHORT_NS (host time between
	 * launches rather than one long piece of host work) */
	gf_ns by_class[GAP_NCAUSES][HW_NCLASSES];
	gf_ns by_class_short[GAP_NCAUSES][HW_NCLASSES];
	struct gap_charge *charges; /* by cause, class, id */
	size_t ncharges;
	gf_ns edge_sel;             /* the edge time inside the selected steps */
	struct gap_qlabel *qlabels;
	size_t nqlabels;
	struct gap_call *calls;     /* blocking calls with a bubble, by range index */
	size_t ncalls;
	/* host time over the steady steps that followed a drain, by the
	 * draining call's sync site (sync_sites' labels), descending */
	struct gap_key *drained;
	size_t ndrained;
	struct launch_diag ld;
	struct gap_piece *pieces;   /* gaps_analyze_pieces only, else NULL */
	size_t npieces;
	struct gap_gap *gaps;       /* likewise: the gaps the pieces belong to, in time order */
	size_t ngaps;
	uint32_t warm_calls;        /* launch calls in the selected steps classed warm-up */
};

/* @return GF_OK. Only the windows of st are read for the causes (a table
 * built without STEPS_SUMS will do); the launch diagnosis reads its counts. */
int gaps_analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r);
void gaps_release(struct gaps_result *r);
/* Same as gaps_analyze, and keeps every classified piece and gap (r->pieces,
 * r->gaps) for the explain view and the exports. */
int gaps_analyze_pieces(const struct actx *c, const struct steps_result *st, struct gaps_result *r);
/* The launch diagnosis apart, for a caller with a second core: the part
 * that reads only the model and the steps' windows (gaps_launch_scan) may
 * run beside gaps_analyze_unscanned (gaps_analyze, or _pieces when PIECES,
 * with r->ld left empty); gaps_launch_finish then fills r->ld as
 * gaps_analyze would have. */
void gaps_launch_scan(const struct actx *c, const struct steps_result *st, struct launch_diag *ld);
/* What the classification reads that needs no steps (blocking calls by
 * end, per-range classes, waits, the device's queue), made by
 * gaps_prepare: it may run beside steps_analyze. gaps_analyze_unscanned
 * takes it (NULL: made there) and frees it; gaps_prep_free frees one not
 * handed over. READY (NULL: none) is called with ARG, on this thread, once
 * r->charges, r->qlabels and r->edge_sel are final and before the rest
 * is written (what fold_idle_tree reads of r: it may start then, on
 * another thread, while the keys are summed). */
struct gaps_prep;
struct gaps_prep *gaps_prepare(const struct actx *c);
void gaps_prep_free(struct gaps_prep *p);
int gaps_analyze_unscanned(const struct actx *c, const struct steps_result *st, struct gaps_result *r, bool pieces,
			   struct gaps_prep *pre, void (*ready)(void *), void *arg);
void gaps_launch_finish(struct gaps_result *r, const struct steps_result *st, const struct launch_diag *scan);
/* Appends what piece p (of r's pieces) is charged to, named exactly as its
 * cause's key table (gaps_result.keys) names it: the host stack (Python
 * site > innermost range) of a host piece, the sync site of a sync piece,
 * the wait of a queued piece; nothing for the other causes. The page's
 * timeline reads a gap as the row of the report it adds to. */
void gaps_piece_label(const struct actx *c, const struct gaps_result *r, const struct gap_piece *p, struct sbuf *b);

/* The bubble of blocking call ri, or NULL. O(log n). */
const struct gap_call *gaps_call(const struct gaps_result *r, uint32_t ri);

/* x / n rounded half to even (0 when n = 0). */
gf_ns gaps_mean(gf_ns x, size_t n);
/* The sum of a row's causes: the idle time it splits. */
gf_ns gaps_idle(const struct gap_row *g);

/* part / whole in units of 1e-4, rounded half to even (0 when whole <= 0):
 * a key's share of its cause, JSON 4 decimals, text a percentage with 2. */
int64_t gaps_share(gf_ns part, gf_ns whole);

/* The full stack of range ri as the explain view and the verdict write it:
 * its chain from the outermost range to ri, the step marker left out,
 * " > " between frames; a chain deeper than GAPS_STACK_MAX keeps its
 * outermost and innermost frames around "...". */
#define GAPS_STACK_MAX 96
#define GAPS_SHORT_NS 1000000
void gaps_stack(const struct trace *t, uint32_t ri, struct sbuf *b);

#endif
