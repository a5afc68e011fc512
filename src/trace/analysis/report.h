/*
 * report.h — the one analysis result of a trace (one rank): the step table,
 * gap causes, hidden syncs, launch diagnosis, NCCL, the top calls per step,
 * the host stacks while the GPU idled, and the verdict read from them: a
 * finding (struct report_verdict: what, which cause and key, the numbers it
 * rests on, the advice's key), not a sentence. Every writer (trace/write/:
 * text, Markdown, JSON, the HTML page; the words are trace/write/prose.h's)
 * renders this struct and nothing else: it never reaches into the trace.
 *
 *   struct report_opts o;
 *   report_opts_init(&o);                   // every part
 *   o.parts = RP_SYNCS;                     // or only what is printed
 *   struct report r;
 *   report_build(&r, &actx, &o, &err);      // steps, then the parts asked
 *   ... trace/write/report_out.h renders it ...
 *   report_release(&r);
 *
 * Parts are computed on demand: the steps always (their columns only when a
 * part other than RP_SYNCS is asked, the median kernels only for RP_STEPS:
 * the step table prints them, syncs reads the windows only), the others only
 * when o.parts asks (RP_VERDICT brings the gaps, syncs and comm it reads). A part
 * not asked is left zeroed (no rows, no sites, no kernels), and r.parts says
 * which were computed.
 *
 * Idle stacks (RP_IDLE): fold --weight idle (fold.h) over the same step
 * selection, innermost 3 frames, only the analysed device (actx.h: the
 * automatic choice or --device), top REPORT_IDLE_TOP by idle time. A fold
 * error only drops them: r.idle_err holds its message.
 *
 * Cores: with t->cores 2 (trace.h: not -j1 / GPUFLAME_THREADS=1), the step
 * medians and the idle stacks are computed on a second thread while gaps,
 * syncs, comm and the top calls run on the caller's; each writes its own
 * fields, so the report is the same byte for byte.
 *
 * Verdict rules (docs/report.md "Verdict"), from the steady gap row G and the
 * steady step (wall W, busy B):
 *  - no GPU activity: VERDICT_NO_GPU (advice ADV_NO_GPU, or ADV_LEGACY for
 *    the legacy autograd export);
 *  - exposed communication (comm.h, means over the steady steps: exposed E,
 *    wall W', busy B') of at least W' / 4 and no less than the idle time
 *    W' - B': VERDICT_COMM (causes.h BUSY_COMM), the collective exposing most
 *    (r->cm.coll[0]) named; advice ADV_COMM. It comes before the GPU-bound
 *    rule: a GPU busy with communication alone is not kernel-bound;
 *  - B >= 90% of W - G.edge while G.edge < W / 2: VERDICT_GPU_BOUND (the
 *    writers add the median launch-to-start latency, the edge time when it is
 *    >= 1% of W and the exposed NCCL time when it is > 10% of W'); advice
 *    ADV_KERNELS;
 *  - else VERDICT_CAUSE: the cause (causes.h) holding most of the idle time
 *    (ties in the table's order), its top key and the cause's steady total
 *    that key's share is of, then the other causes >= 1% of W, largest first;
 *    the advice is the cause's (causes_gap[].advice) and names the same key;
 *    edge is never advised as code; the exposed NCCL time is added when it
 *    is > 10% of W';
 *  - no idle time at all (a zero-length step): VERDICT_NO_GAPS, ADV_NONE.
 * summary.verdict_cause in JSON is report_verdict_key().
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_REPORT_H
#define GF_REPORT_H

#include "trace/analysis/comm.h"
#include "trace/analysis/gaps.h"
#include "trace/analysis/syncs.h"

#define REPORT_TOP_CALLS 10
#define REPORT_IDLE_TOP 8
/* Host time per launch call below which host work that issues device work
 * is the issuing itself (dispatch, launch wrappers): 1 ms. */
#define REPORT_ISSUE_NS 1000000
/* Host time per launch call at or under which a launch costs about what the
 * launch API itself does (a few us on current CUDA and ROCm): the advice is
 * to launch fewer kernels, not to make each launch cheaper. */
#define REPORT_LAUNCH_FLOOR_NS 10000
/* Host ranges per launch call from which the profiler's own cost shows:
 * with_stack and record_function on every op. */
#define REPORT_RANGES_PER_LAUNCH 20

/* The parts of a report (report_opts.parts, report.parts). */
enum report_part {
	RP_GAPS = 1 << 0,     /* gaps.h: idle by cause, sync sites, host stacks, launches */
	RP_SYNCS = 1 << 1,    /* syncs.h: blocking calls by site */
	RP_COMM = 1 << 2,     /* comm.h: NCCL per step */
	RP_TOP = 1 << 3,      /* top calls per step */
	RP_IDLE = 1 << 4,     /* host stacks while the GPU idled (fold --weight idle) */
	RP_VERDICT = 1 << 5,  /* verdict and action (implies gaps, syncs, comm) */
	RP_STEPS = 1 << 6,    /* the step table's median kernel (without it: 0) */
	RP_ALL = 0x7f
};

/* What the verdict found. */
enum verdict_kind { VERDICT_NO_GPU = 0, VERDICT_GPU_BOUND, VERDICT_CAUSE, VERDICT_NO_GAPS, VERDICT_COMM, VERDICT_N };

/*
 * The failure modes of a profile (Flame Graphs for LLMs, in depth), each
 * with its evidence, found whatever the verdict: the writers say them after
 * the verdict. FINDING_COMM is the slot of exposed communication (its rule
 * is the communication analysis'; a finding of that kind leads the list).
 */
enum finding_kind {
	FINDING_COMM = 0,   /* exposed communication (reserved: issue 28) */
	FINDING_WARMUP,     /* warm-up inside the window: warm-up steps (n, their wall ns vs the
			       steady step), or one-time calls (n calls, ns of idle in them) */
	FINDING_OVERHEAD,   /* profiler overhead: host ranges per launch call (x100), Python
			       frames per op (x100) */
	FINDING_FEW_STEPS,  /* too few steps: n steady steps (< 3) */
	FINDING_RANKS,      /* several processes or devices in one trace: n processes, m devices */
	FINDING_ASYNC,      /* blocking calls hold ns of the step's host time (share of wall) */
	FINDING_N
};

struct report_finding {
	int kind;           /* enum finding_kind */
	uint64_t n, m;      /* counts (see the kinds) */
	gf_ns ns, of;       /* a time and what it is compared with */
};

#define REPORT_MAX_FINDINGS FINDING_N

/*
 * The verdict as data: the writers phrase it (trace/write/prose.h) and
 * every number they print is one of these (or of the report they point
 * into). Pointers are into the same struct report; strings are owned.
 *
 * The verdict is read from the idle-weighted tree (gaps_result.charges,
 * steady steps): the cause holding most idle, then the class of host work
 * holding most of it, then the stack: the innermost frame name holding
 * most of that class's time, its callers while one holds at least half of
 * it (frames, frames_ns: the stack the prose names), and on up through the
 * heaviest caller to the outermost frame (stack: summary.verdict_stack).
 */
struct report_verdict {
	int kind;                      /* enum verdict_kind */
	int cause;                     /* VERDICT_CAUSE: enum gap_cause, else -1 */
	int hclass;                    /* enum host_class of the cause's idle, HW_NONE */
	int advice;                    /* enum advice: what Next says */
	const struct gap_key *key;     /* sync: the top sync site; queued: the top wait; NULL */
	gf_ns key_total;               /* the cause's steady total the key's share is of */
	const struct sync_site *site;  /* sync: the hidden-sync site behind the key, NULL */
	bool key_dominant;             /* the stack holds at least a quarter of its cause */
	gf_ns ns;                      /* the cause's mean per steady step (VERDICT_CAUSE) */
	gf_ns class_ns;                /* the class's steady total inside the cause */
	char *stack;                   /* the heaviest path, outermost first (NULL) */
	char *frames;                  /* its innermost frames the prose names (NULL) */
	gf_ns frames_ns;               /* their steady total inside the cause and class */
	char *anchor;                  /* data, warm-up, allocator: the frame that gives the class (NULL) */
	/* the call behind the class (allocator, warm-up launch, sync): its
	 * name, its calls in the steady steps, their time, the longest and
	 * its name's median duration */
	char *call;
	uint32_t call_id;              /* its name id in the trace's pool (TRACE_NONE) */
	uint64_t call_n;
	gf_ns call_ns, call_max, call_median;
	bool issuing;                  /* host: the time is inside frames that issue device work */
	bool at_floor;                 /* issuing at <= REPORT_LAUNCH_FLOOR_NS per launch call */
	gf_ns per_launch;              /* then: that time per launch call (steady) */
	const struct gap_key *drain;   /* host: the sync site that drained the GPU before most of it */
	const struct sync_site *drain_site;
	int others[GAP_NCAUSES];       /* the other causes >= 1% of the step, largest first */
	gf_ns others_ns[GAP_NCAUSES];
	size_t nothers;
	/* the steady step it reads */
	gf_ns wall, busy;
	gf_ns wall_sum, busy_sum, edge_sum; /* over the steady steps: GPU-bound's share */
	gf_ns edge;                    /* the window's edge (GPU-bound: busy is of wall - edge) */
	bool edge_noted;               /* GPU-bound: the edge is >= 1% of the step: say it */
	gf_ns comm_exposed;            /* exposed NCCL time per steady step (comm.h's mean) */
	gf_ns comm_wall;               /* the mean steady step it is a share of */
	bool comm_noted;               /* GPU-bound or a cause: it is > 10% of comm_wall: say it */
	const struct comm_coll *coll;  /* VERDICT_COMM: the collective exposing most (r->cm.coll[0]) */
	const struct comm_coll *advise; /* VERDICT_COMM: the one Next advises on: the first of
					 * r->cm.coll whose kind the trace names, else coll */
	bool coll_small;               /* VERDICT_COMM: advise is many small calls (>= 8 per step,
					* under 100 us of communication each) */
	bool whole_trace;              /* the "step" is the whole trace */
	bool legacy;                   /* the legacy autograd profiler's export */
	struct report_finding findings[REPORT_MAX_FINDINGS];
	size_t nfindings;
};

/* A CPU-only trace (no device activity): what the host did, per step. */
struct host_stack {
	char *label;       /* the stack's innermost frames */
	gf_ns ns;          /* self time over the selected steps */
};
struct host_sync {
	char *name;        /* an op that would synchronise on a GPU (aten::item ...) */
	uint64_t count;    /* calls in the selected steps */
};
#define REPORT_HOST_TOP 8
struct cpu_report {
	struct host_stack top[REPORT_HOST_TOP];
	size_t ntop;
	struct host_sync syncs[REPORT_HOST_TOP];
	size_t nsyncs;
	gf_ns host_ns;     /* traced host time (self, all frames) over the selected steps */
	uint32_t steps;
};

struct top_call {
	char *name;
	uint8_t kind;      /* enum trange_kind: TR_OP or TR_RUNTIME (a launch) */
	uint64_t count;    /* over the steady steps */
};

/* What the writers print about the trace itself (copied from the model). */
struct report_meta {
	int64_t rank, world_size;  /* KEV_NONE when absent */
	int device;                /* the analysed device, -1 when no GPU activity */
	unsigned dev_kinds;        /* KDEV_* (kineto.h's kdev_defs): the writers name them (trace_device_kind) */
	uint64_t unattributed;     /* GPU activities without a launch */
	uint64_t before_window;    /* of which launched before the window */
	uint64_t clipped;          /* host ranges clipped */
	bool truncated;            /* the file was cut off */
};

/* The explain view (report_opts.explain): the largest idle gaps, each a
 * short timeline of the device and of the thread that issues the next
 * work, and its pieces with the words the report uses (names copied from
 * the trace; times as written, the steps' time base). */
struct report_act {
	bool have;
	char *name;            /* kernel / memcpy / memset name */
	int kind;              /* enum tact_kind */
	int stream;
	gf_ns start, end;
	char *call;            /* its launch call, NULL */
	gf_ns call_start, call_end;
};
struct report_piece {
	gf_ns lo, hi;
	int cause, hclass;     /* enum gap_cause, enum host_class (HW_NONE) */
	char *frame;           /* the innermost traced frame on the issuing thread, NULL */
	char *stack;           /* its stack, outermost first (gaps_stack), NULL */
	char *call;            /* the launch or blocking call, NULL */
	char *waits;           /* queued: what the work waited on, NULL */
	char *drained;         /* host after a drain: the sync site, NULL */
};
struct report_gap {
	gf_ns lo, hi, idle;    /* the gap's part inside the steps' span; idle inside the selected steps */
	gf_ns a, b;            /* its full extent (INT64_MIN / INT64_MAX at the trace's ends) */
	int64_t step;          /* the step number holding lo, -1 none */
	struct report_act prev, next;
	int64_t pid, tid;      /* the thread that issues the next work (KEV_NONE) */
	char *thread;          /* its name, NULL */
	struct report_piece *p;
	size_t np;
};

struct report_opts {
	struct trace_sel steps;
	gf_ns unprofiled_ns;   /* --unprofiled-step-ms, -1 when absent */
	gf_ns expect_ns;       /* --expect-ms, -1 when absent */
	unsigned parts;        /* RP_* to compute; report_opts_init: RP_ALL */
	bool gap_pieces;       /* keep the gap model's pieces (gaps_analyze_pieces) */
	size_t explain;        /* --explain: the N largest gaps (SIZE_MAX: all), 0 none */
};

struct report {
	unsigned parts;      /* RP_* computed */
	struct report_meta meta;
	struct steps_result st;
	struct gaps_result gp;
	struct syncs_result sy;
	struct comm_result cm;
	struct top_call top[REPORT_TOP_CALLS];
	size_t ntop;
	struct gap_key *idle; /* host stacks by GPU idle, descending, total over idle_steps */
	size_t nidle;
	uint32_t idle_steps;
	char *idle_err;      /* why the idle stacks are missing (fold error), NULL */
	gf_ns unprofiled_ns, expect_ns;
	struct report_verdict verdict; /* RP_VERDICT (parts says so) */
	struct cpu_report cpu;         /* RP_VERDICT without GPU activity: the host side */
	struct report_gap *gaps;       /* report_opts.explain: the largest gaps, largest first */
	size_t ngaps;                  /* of them */
	size_t ngaps_all;              /* idle gaps met by the selected steps */
	bool explained;                /* report_opts.explain was asked */
};

void report_opts_init(struct report_opts *o);

/* Computes the steps and the parts o->parts asks (c is not kept).
 * @return GF_OK, or GF_EUSAGE when the step selection keeps no step. */
int report_build(struct report *r, const struct actx *c, const struct report_opts *o,
		 struct sbuf *err);
void report_release(struct report *r);

/* The verdict's key (summary.verdict_cause): "none", "gpu_bound", the
 * cause's key or the busy finding's (causes.h). */
const char *report_verdict_key(const struct report_verdict *v);

#endif
