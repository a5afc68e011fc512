/*
 * trace.h — the trace model: one Kineto trace (= one rank) as compact,
 * sorted, nested records that the folders (fold/) and the analyses
 * (analyze/) query without ever looking at JSON again.
 *
 *   struct trace t;
 *   trace_init(&t, NULL);
 *   if (trace_load(&t, "trace.json.gz", NULL, &err)) die(err.buf);
 *   for (uint32_t a = 0; a < t.nact; a++) {            // GPU activities, by start
 *           uint32_t r = t.act[a].launch;             // launching runtime call
 *           if (r != TRACE_NONE) ... trace_ancestors(&t, r, buf, cap) ...
 *   }
 *   trace_release(&t);
 *
 * What is kept (everything else in the file is dropped while reading):
 *  - host threads (one per (pid, tid) track that has host ranges), each with
 *    its host ranges: user annotations (ProfilerStep#N, record_function),
 *    python_function frames, cpu_op, cuda_runtime and cuda_driver calls;
 *  - GPU activities: kernels, memcpy and memset, each linked to the runtime
 *    or driver call with the same correlation (TRACE_NONE = unattributed);
 *    gpu_user_annotation ranges are kept apart (t.gpu_ann);
 *  - steps (ProfilerStep#N by default, or a user marker name), sorted;
 *    selected for an analysis by trace_sel (trace/model/trace_sel.h);
 *  - the trace meta (rank, world size, base time, timestamp generation,
 *    whether it is a legacy autograd profiler trace) and warning counters.
 *
 * Legacy autograd profiler traces (PyTorch without Kineto; the reader makes
 * their "CPU functions" ranges cpu_op and "CUDA functions" events kernels on
 * device = tid, docs/trace-reader.md) are modelled the same way: ranges per
 * thread, ProfilerStep#N steps; their kernels have no correlation and no
 * launch call, so they stay unattributed but are not "before the window".
 *
 * Times are exact int64 ns *as written* (relative to meta.base_time_ns when
 * the trace has baseTimeNanoseconds; absolute = base_time_ns + ts). Every
 * interval is half-open [start, end).
 *
 * Host ranges: ALL threads' ranges live in one array t.r, grouped by thread
 * (thread i owns t.r[th[i].first .. th[i].first + th[i].n)), each group
 * ordered by (start, longest first, kind: annotation < python < op < runtime
 * < driver, name, correlation). Nesting is by time with a stack sweep:
 * r.parent is the innermost earlier range on the same thread that encloses
 * it. Ranges that overlap without nesting (record_function and torch.compile
 * produce them) are clipped: the SHORTER of the two is cut at the boundary
 * (a short frame ends where a longer one starts, or a short child ends at its
 * parent's end), so a ProfilerStep that starts inside a 2 us C-call frame is
 * not destroyed; each cut sets TRF_CLIPPED and counts in warn.clipped.
 * python_function frames whose `Python parent id` names a frame that is open
 * (an ancestor in time) take that frame as parent (TRF_PYFIX when it differs
 * from the time parent, counted in warn.pyparent_fixed): the first earlier
 * frame of the thread with that `Python id`, when it encloses the frame and
 * the time parent's parent chain reaches it through Python frames only (a
 * cpu_op or annotation in between keeps time nesting). Decided in O(log
 * depth) per frame (depth, skew-binary jump ancestor and nearest non-Python
 * ancestor per range), ids found in a sorted table: nesting is n log n for
 * any chain, link or id pattern.
 *
 * Correlation: each GPU activity's correlation is looked up among runtime
 * calls first, then driver calls (CUPTI gives both their own ids); many
 * activities may share one (graph replay: TAF_GRAPH, fan-out in r.nact).
 * `External id` is never used for linking (it is unreliable: Kineto
 * before October 2024 wrote the correlation id into it); runtime calls whose External id equals their
 * correlation are only counted (warn.bogus_external). Activities without a
 * launch are unattributed; those whose correlation is below the smallest
 * runtime correlation were launched before the window (TAF_BEFORE).
 *
 * Correlation ids are per process (CUPTI counts from 1 in each), so in a
 * trace that merges several processes (ranks) they collide. Linking is
 * within a process: each device (GPU pid / args.device) belongs to the
 * process whose calls carry most of the correlations of its activities that
 * only one process carries; an activity links only to a call of its
 * device's process (to a call of the only process carrying its correlation
 * when the device has no such owner). An activity whose correlation only
 * other processes carry, or several processes but not its device's, stays
 * unattributed (warn.cross_process). With one process (every single-rank
 * trace) this is plain correlation lookup.
 *
 * GPU weight is conserved: every kernel, memcpy and memset with usable times
 * (trace_times_usable) is one t.act record whose duration enters each GPU
 * sum once; one without (dur null, absent, not a number, 1e400, or beyond
 * 2^61 ns) is counted in warn.unweighted and in no sum, and `info` counts
 * the same ones. The sum of all activity durations and the sum of all host
 * range durations (as written) are checked: beyond INT64_MAX ns (292 years)
 * trace_finish fails (GF_EINPUT), so every partial sum of durations (per
 * device, per step, unattributed, sync wait) fits in int64.
 *
 * Names are read by the one classifier, base/names.h: the step marker
 * (names_step), nn.Module frames, graph launches and blocking/memcpy calls
 * (names_api), communication kernels (names_is_comm), memcpy directions.
 *
 * Memory: 40 bytes per host range and per GPU activity, names as pool ids;
 * flow, instant, metadata and counter events cost nothing.
 *
 * Layer: trace/model. Never prints; errors are one line in err.
 */
#ifndef GF_TRACE_H
#define GF_TRACE_H

#include "base/gf.h"
#include "base/pool.h"
#include "base/sbuf.h"
#include "trace/read/kineto.h"

#define TRACE_NONE UINT32_MAX
/* Events with |ts| or dur above this are dropped (warn.out_of_range), so
 * that every end (ts + dur <= 2^62) and the difference of any two times
 * (< 3 * 2^61) fit in int64. */
#define TRACE_MAX_TIME ((gf_ns)1 << 61)

/*
 * Whether a complete event's times are usable by the model: ts and dur
 * present (not KEV_NONE: the reader gives KEV_NONE for a dur that is absent,
 * null, not a number or beyond int64 ns, e.g. 1e400), |ts| <= TRACE_MAX_TIME
 * and dur <= TRACE_MAX_TIME (a negative dur counts as 0). The one predicate
 * that `info` and the model share, so their GPU totals agree.
 */
static inline bool trace_times_usable(gf_ns ts, gf_ns dur)
{
	return ts != KEV_NONE && dur != KEV_NONE && ts <= TRACE_MAX_TIME && ts >= -TRACE_MAX_TIME &&
	       dur <= TRACE_MAX_TIME;
}

/* Host range kinds (struct trace_range.kind), in nesting-tie order. */
enum trange_kind {
	TR_ANNOTATION = 0, /* user_annotation: ProfilerStep#N (TRF_STEP), record_function */
	TR_PYTHON = 1,     /* python_function (nn.Module frames: TRF_MODULE) */
	TR_OP = 2,         /* cpu_op (also legacy "Operator", and legacy autograd "CPU functions") */
	TR_RUNTIME = 3,    /* cuda_runtime (HIP calls too) */
	TR_DRIVER = 4,     /* cuda_driver */
};

/* Host range flags. */
#define TRF_STEP 0x01    /* the step marker (ProfilerStep#N or --step-marker) */
#define TRF_MODULE 0x02  /* python frame "nn.Module: Class_N" */
#define TRF_SYNC 0x04    /* a blocking call: stream/device/event/context sync, synchronous memcpy */
#define TRF_GRAPH 0x08   /* cudaGraphLaunch / hipGraphLaunch (and cuGraphLaunch) */
#define TRF_CLIPPED 0x10 /* end was cut to resolve a partial overlap */
#define TRF_LAUNCH 0x20  /* at least one GPU activity is linked to this call */
#define TRF_MEMCPY 0x40  /* a memcpy API (cudaMemcpy*, cuMemcpy*, hipMemcpy*) */
#define TRF_PYFIX 0x80   /* parent taken from `Python parent id`, differs from time nesting */

/* One host range: 40 bytes. */
struct trace_range {
	gf_ns start, end;  /* [start, end), ns as written; end after clipping */
	int64_t corr;      /* correlation of runtime/driver calls, KEV_NONE otherwise */
	uint32_t name;     /* pool id (raw name, not normalised) */
	uint32_t parent;   /* global index into t.r of the enclosing range, TRACE_NONE at the root */
	uint32_t nact;     /* GPU activities linked to this call (saturates at UINT32_MAX) */
	uint16_t thread;   /* index into t.th */
	uint8_t kind;      /* enum trange_kind */
	uint8_t flags;     /* TRF_* */
};

/* GPU activity kinds. */
enum tact_kind {
	TA_KERNEL = 0,
	TA_MEMCPY = 1,
	TA_MEMSET = 2,
	TA_ANNOTATION = 3, /* gpu_user_annotation, only in t.gpu_ann */
};

/* GPU activity flags. */
#define TAF_NCCL 0x01   /* a communication kernel: "nccl" or "rccl" in any case (names_is_comm) */
#define TAF_GRAPH 0x02  /* launched by a graph launch (shares its correlation) */
#define TAF_BEFORE 0x04 /* unattributed, correlation below every runtime correlation:
			   launched before the profiling window */
#define TAF_DTOH 0x08   /* memcpy device-to-host ("DtoH" in the name) */
#define TAF_HTOD 0x10   /* memcpy host-to-device ("HtoD") */
#define TAF_DTOD 0x20   /* memcpy device-to-device ("DtoD", "PtoP") */

/* One GPU activity: 40 bytes. */
struct trace_act {
	gf_ns start, end;  /* [start, end) on the device */
	int64_t corr;      /* correlation, KEV_NONE when absent */
	uint32_t name;     /* pool id of the kernel / memcpy / memset name */
	uint32_t launch;   /* global index into t.r of the launching call, TRACE_NONE = unattributed */
	int32_t stream;    /* args.stream, else the track's tid; -1 unknown */
	int16_t device;    /* args.device, else the track's pid; -1 unknown */
	uint8_t kind;      /* enum tact_kind */
	uint8_t flags;     /* TAF_* */
};

/*
 * A device-side sync record (Kineto's cuda_sync: CUPTI's synchronization
 * activity; MTIA's event_wait/event_record, names_device_event): kept so the
 * gap model can name what a queued kernel waited on. Not busy time.
 */
enum trace_sync_kind {
	TS_OTHER = 0,
	TS_STREAM,        /* "Stream Sync": cudaStreamSynchronize's device side */
	TS_EVENT,         /* "Event Sync": cudaEventSynchronize */
	TS_STREAM_WAIT,   /* "Stream Wait Event": cudaStreamWaitEvent, the stream waits for wait_stream */
	TS_CONTEXT,       /* "Context Sync": cudaDeviceSynchronize */
	TS_N
};
/* The kinds, one row each (indexed by the enum): info's text and JSON loop
 * over them (writers list TS_OTHER last). */
struct trace_sync_kind_def {
	const char *name; /* Kineto's event name, as info's text says it ("other" for TS_OTHER) */
	const char *key;  /* info's JSON field ("stream_sync") */
};
extern const struct trace_sync_kind_def trace_sync_kinds[TS_N];
struct trace_sync {
	gf_ns start, end;
	int64_t corr;        /* its call's correlation, KEV_NONE */
	int64_t wait_corr;   /* the correlation of the event record it waited for (wait_on_cuda_event_record_corr_id), KEV_NONE */
	int32_t stream;      /* args.stream, -1 for none (Kineto writes -1 for an event or context sync) */
	int32_t wait_stream; /* the stream it waited on (wait_on_stream), -1 */
	int16_t device;      /* args.device, -1 */
	uint8_t kind;        /* enum trace_sync_kind */
	uint32_t name;       /* pool id of the record's name */
};

/*
 * A kernel's launch configuration (args grid, block, registers per thread,
 * est. achieved occupancy %), per distinct (kernel name, configuration):
 * how often it ran and for how long (weighted kernels only). Kept aside, so
 * an activity stays 40 bytes; trace_kcfg_top gives a name's most frequent.
 */
struct trace_kcfg {
	uint32_t name;       /* pool id of the kernel name */
	int32_t grid[3], block[3];
	int32_t regs;        /* -1 when absent */
	int64_t occupancy;   /* thousandths of a percent, KEV_NONE when absent */
	uint64_t count;
	gf_ns time;
};

struct trace_thread {
	int64_t pid, tid;     /* numeric (KEV_NONE when written as a non-numeric string) */
	uint32_t name;        /* thread_name pool id, TRACE_NONE */
	uint32_t first, n;    /* its ranges: t.r[first .. first + n) */
	uint64_t launches;    /* ranges with TRF_LAUNCH */
	uint64_t syncs;       /* ranges with TRF_SYNC */
};

struct trace_device {
	int device;           /* device index as written */
	uint32_t launch_thread; /* thread that launched most of its activities, TRACE_NONE */
	uint64_t nact;        /* its activities (kernels + memcpy + memset) */
	gf_ns act_ns;         /* sum of their durations */
	/* union of busy intervals across streams, filled by trace_busy() */
	gf_ns *busy;          /* pairs [start, end), sorted, disjoint, non-adjacent */
	size_t nbusy;
	bool busy_done;
};

struct trace_step {
	gf_ns start, end;     /* of the marker range as written (before any clipping) */
	int64_t number;       /* N of ProfilerStep#N; the ordinal for a marker without #N */
	uint32_t range;       /* global index into t.r */
	uint32_t thread;
};

struct trace_meta {
	int64_t rank, world_size;  /* KEV_NONE when absent */
	struct kpg *pgs;           /* distributedInfo.pg_config (kineto.h), names in t.names */
	uint32_t npgs;
	char backend[32];
	int64_t base_time_ns;      /* 0 when absent */
	bool has_base_time;
	int ts_gen;                /* enum kts_gen */
	uint64_t bytes_in, bytes_file, events;
	bool truncated;            /* the reader stopped at a cut-off array */
	bool legacy;               /* the legacy autograd profiler's export (no Kineto; kmeta.legacy_events) */
	unsigned dev_kinds;        /* KDEV_* (kineto.h): the accelerators the trace's categories name */
};

/* Warning counters (the CLI prints the non-zero ones). */
struct trace_warn {
	uint64_t clipped;          /* partial overlaps resolved by clipping */
	uint64_t pyparent_fixed;   /* python frames re-parented by Python parent id */
	uint64_t bogus_external;   /* runtime calls with External id == correlation (ignored) */
	uint64_t unattributed;     /* GPU activities without a launch (TAF_BEFORE included) */
	gf_ns unattributed_ns;
	uint64_t before_window;    /* of which TAF_BEFORE */
	uint64_t dup_corr;         /* runtime calls whose correlation was already taken */
	uint64_t zero_len;         /* host ranges of duration 0 (kept) */
	uint64_t out_of_range;     /* events dropped: |ts| or dur > TRACE_MAX_TIME */
	uint64_t unweighted;       /* kernels/memcpy/memset without usable times (not a complete
				    * event, dur absent/null/not a number, or out of range, see
				    * trace_times_usable): counted here only, in no GPU sum */
	uint64_t cross_process;    /* GPU activities left unattributed because their correlation
				    * is carried only by runtime/driver calls of processes other
				    * than their device's (ids collide across processes) */
	uint64_t corr_shared;      /* correlation ids carried by calls of more than one process */
	uint32_t processes;        /* host processes (pids) with correlated runtime/driver calls */
};

/*
 * The communication args of one NCCL kernel (trace_coll.c): its own args
 * (Kineto writes them on NCCL kernels since 2024), else those of the
 * innermost enclosing range of its launching call that carries a process
 * group or a collective name (record_param_comms, nccl:all_reduce). Pool ids
 * (TRACE_NONE when absent) and integers (KEV_NONE when absent).
 */
struct trace_coll {
	uint32_t act;              /* index into t.act: a kernel with TAF_NCCL */
	uint32_t pg, pg_desc, pg_ranks, coll, dtype; /* kev.pg_name ... (kineto.h) */
	int64_t seq, nelems, group_size;
	bool own;                  /* from the kernel's own args (else from its launch's op) */
};

struct trace {
	struct pool *names;
	bool own_names;
	struct trace_range *r;     /* all host ranges, grouped by thread (see above) */
	uint32_t nr;
	struct trace_thread *th;
	uint32_t nth;
	struct trace_act *act;     /* kernels, memcpy, memset; sorted by (start, end, device, stream) */
	uint32_t nact;
	struct trace_act *gpu_ann; /* gpu_user_annotation ranges, sorted by start; launch = TRACE_NONE */
	uint32_t ngpu_ann;
	struct trace_device *dev;  /* devices seen in activities, sorted by device index */
	uint32_t ndev;
	struct trace_step *steps;  /* sorted by start */
	uint32_t nsteps;
	struct trace_sync *syncs;  /* device sync records (cuda_sync...), in file order */
	uint32_t nsyncs;
	struct trace_kcfg *kcfg;   /* kernel launch configurations, in order of first appearance */
	uint32_t nkcfg;
	gf_ns win_start, win_end;  /* earliest start, latest end over ranges and activities (0,0 if none) */
	struct trace_coll *coll;   /* NCCL kernels with communication args, by act */
	uint32_t ncoll;
	struct trace_meta meta;
	struct trace_warn warn;
	unsigned cores;            /* cores the analyses may use: 1 or 2 (trace_finish: 1 when
	                            * o->threads is 1 or the process has one CPU) */
	void *priv_;               /* build state; NULL after trace_finish */
};

struct trace_opts {
	const char *step_marker;   /* NULL = "ProfilerStep": name M or M#<digits> marks a step */
	unsigned threads;          /* passed to the reader */
	kineto_progress_fn progress;
	void *progress_ctx;
};

/*
 * The note for a weight that needs GPU activities (gpu, idle, calls: `what`
 * names it, "--weight gpu") on a trace that has none at all — no kernel,
 * memcpy or memset, usable or not (a CPU-only capture, or a legacy autograd
 * profiler trace without "CUDA functions"): one line into note, naming the
 * file (disp) and the weights the trace does support. @return whether there
 * is such a note (the trace has no GPU activity); note untouched otherwise.
 */
bool trace_gpu_note(const struct trace *t, const char *disp, const char *what, struct sbuf *note);

/* names: a pool to share (not freed by trace_release), or NULL for an own one. */
void trace_init(struct trace *t, struct pool *names);
void trace_release(struct trace *t);

/*
 * Reads a trace file ("-" = stdin) and builds the model (trace_add_event for
 * every event, then trace_finish). o may be NULL.
 * @return GF_OK; GF_EINPUT with the reader's one-line message, or when the
 * GPU activities' or the host ranges' durations add up beyond INT64_MAX ns;
 * GF_EINTERNAL when a
 * limit is exceeded (> 65535 host threads, > 4 G records).
 */
int trace_load(struct trace *t, const char *path, const struct trace_opts *o, struct sbuf *err);

/* Same from an input the caller opened (input/input.h: it looked at its
 * kind first); in stays the caller's to close. */
struct input;
int trace_load_input(struct trace *t, struct input *in, const struct trace_opts *o, struct sbuf *err);

/*
 * The one reader entry of the trace commands: streams the events of in (or of
 * the file at path, "-" = stdin, opened through the input layer) to fn. An
 * input that is plainly another kind (folded stacks, a speedscope or pprof
 * profile...) gets the input layer's one-line hint naming what to run.
 * Same return values as kineto_read.
 */
int trace_read_input(struct kineto_trace *kt, struct input *in, kineto_event_fn fn, void *ctx,
		     const struct trace_opts *o, struct sbuf *err);
int trace_read(struct kineto_trace *kt, const char *path, kineto_event_fn fn, void *ctx,
	       const struct trace_opts *o, struct sbuf *err);

/*
 * Same over trace text already in memory (decompressed); name is the file
 * name used in messages. o's progress and threads are not used (there is
 * nothing to read). Same return values as trace_load.
 */
int trace_load_mem(struct trace *t, const void *buf, size_t len, const char *name, const struct trace_opts *o,
		   struct sbuf *err);

/*
 * Adds one event; track describes e->track (its pid/tid/thread name). Events
 * of kinds the model does not keep are ignored. Usable directly by tests.
 * @return GF_OK or GF_EINTERNAL (limits).
 */
int trace_add_event(struct trace *t, const struct kev *e, const struct ktrack *track);

/* Before trace_finish: takes the final thread names from the reader's tracks
 * (thread_name metadata may follow the events). */
void trace_update_thread_names(struct trace *t, const struct ktrack *tracks, uint32_t ntracks);

/*
 * Sorts, nests, links and finds steps (o->step_marker, by names_step). Must
 * be called once after the last trace_add_event; o may be NULL.
 * @return GF_OK; GF_EINPUT with err (one line without the file name:
 * trace_load adds it) when the durations of the GPU activities, or of the
 * host ranges, add up beyond INT64_MAX ns, and t is then finished but
 * unusable (only trace_release); GF_EINTERNAL with err ("trace_finish
 * called twice") on any later call.
 */
int trace_finish(struct trace *t, const struct trace_opts *o, struct sbuf *err);

/* Hops made by trace_finish's Python re-parent checks (skew-binary jumps,
 * O(log depth) per frame), so tests can assert that nesting stays n log n
 * on any chain of Python frames and links. */
extern _Thread_local unsigned long long trace_nest_steps;

/* --- queries (all O(log n) or O(depth) unless said) --- */

/* Name of a range / activity. */
static inline const char *trace_rname(const struct trace *t, uint32_t ri)
{
	return pool_str(t->names, t->r[ri].name);
}

/*
 * Fills buf with the ancestors of ri, ROOT FIRST, ending with ri itself.
 * @return the full depth (number of ranges on the chain); only the innermost
 * min(depth, cap) are written when the chain is longer than cap.
 */
size_t trace_ancestors(const struct trace *t, uint32_t ri, uint32_t *buf, size_t cap);

/* The innermost range of thread th enclosing time ts (start <= ts < end),
 * or TRACE_NONE. */
uint32_t trace_innermost(const struct trace *t, uint32_t th, gf_ns ts);

/* The nearest ancestor-or-self of ri whose kind is `kind` (TRACE_NONE). */
uint32_t trace_enclosing_kind(const struct trace *t, uint32_t ri, int kind);

/* Index into t.dev of a device, or TRACE_NONE. */
uint32_t trace_device_index(const struct trace *t, int device);

/*
 * The union of busy intervals of device index di across all its streams
 * (computed on first use, O(activities)); *n gets the number of intervals.
 * @return pairs {start, end}.
 */
const gf_ns *trace_busy(struct trace *t, uint32_t di, size_t *n);

/* Index of the step containing ts (start <= ts < end), or TRACE_NONE. */
uint32_t trace_step_at(const struct trace *t, gf_ns ts);

/* First activity index with start >= ts (t.nact when none). */
uint32_t trace_act_lower(const struct trace *t, gf_ns ts);

/* First host range index of thread th with start >= ts (the thread's end,
 * t.th[th].first + t.th[th].n, when none); th < t.nth. */
uint32_t trace_range_lower(const struct trace *t, uint32_t th, gf_ns ts);
/* The first range of thread th starting after ts (start > ts). */
uint32_t trace_range_upper(const struct trace *t, uint32_t th, gf_ns ts);

/*
 * The wording shared by info, fold, report and syncs for the model's
 * data-loss counts: appends one line (no file name, no newline) to b.
 *   if (t.warn.unweighted) trace_msg_unweighted(b, t.warn.unweighted);
 *   if (t.warn.corr_shared || t.warn.cross_process) trace_msg_cross_process(b, &t);
 * trace_msg_shared_ids is the first half of the latter, for info (which
 * counts the shared ids itself but does not link).
 */
void trace_msg_unweighted(struct sbuf *b, uint64_t n);
void trace_msg_cross_process(struct sbuf *b, const struct trace *t);
void trace_msg_shared_ids(struct sbuf *b, uint64_t ids, uint32_t processes);

/* The communication args of NCCL kernel activity ai (t.coll), or NULL. */
const struct trace_coll *trace_coll_of(const struct trace *t, uint32_t ai);

/* Name of a range kind ("annotation", "python", "op", "runtime", "driver"). */
const char *trace_kind_name(int kind);

/* The most frequent launch configuration of kernel name `name` (ties: the
 * longest total time, then the first seen), NULL when none was recorded. */
const struct trace_kcfg *trace_kcfg_top(const struct trace *t, uint32_t name);
/* Appends "grid 128x1x1, block 256x1x1, 32 regs, 37.5% occupancy" (the parts
 * c has). */
void trace_kcfg_text(const struct trace_kcfg *c, struct sbuf *b);
/* The kind of a device sync record from its name ("Stream Sync", ...). */
int trace_sync_kind_of(const char *name, size_t n);

/* The accelerator kind of KDEV_* bits (kmeta.dev_kinds, trace_meta.dev_kinds)
 * for info and report: "CUDA", "ROCm", "XPU", "PrivateUse1", "MTIA",
 * several joined by "+", "" for none. */
const char *trace_device_kind(unsigned dev_kinds, char buf[64]);

#endif
