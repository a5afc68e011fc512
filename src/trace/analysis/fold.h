/*
 * fold.h — turn a trace model into a weighted call tree: one trace, five
 * weights, each answering a different question (docs/fold.md).
 *
 *   struct fold_opts o;
 *   fold_opts_init(&o);                 // gpu weight, annotation,python,op, us
 *   struct ftree tree;
 *   if (fold_trace(&trace, &o, &tree, &st, &err)) die(err.buf);
 *   folded_write(stdout, &tree);        // header from tree.meta
 *   ftree_release(&tree);
 *
 * Weights (all exact int64 ns, printed at the unit's scale):
 *  - gpu:   every kernel/memcpy/memset duration, charged to the host stack of
 *           its launching runtime call (graph replays: every kernel under the
 *           graph launch's stack), leaf = kernel family; activities without a
 *           launch go under "[unattributed]". Sum == sum of durations.
 *  - cpu:   host self time per stack (a range minus its children), except
 *           time inside blocking calls (TRF_SYNC) and their descendants.
 *           Traced time, not scheduled CPU time: a thread asleep inside a
 *           traced frame (threading.py wait) counts (docs/fold.md).
 *  - wall:  cpu plus the blocking calls, each as a leaf frame named by the
 *           call (even when the runtime level is not shown).
 *  cpu and wall: every stack starts with a thread frame, py-spy's
 *  "thread (TID): NAME" (fold_opts.no_thread_frames drops it), and only the
 *  threads holding the folded steps are weighted, each over its own steps,
 *  so a wall fold sums to the steps' wall time; the other threads' weight is
 *  left out and counted in fold_stats (fold_opts.all_threads folds them,
 *  over the union of the steps). A trace without steps folds every thread.
 *  - idle:  per device, the time inside the window with no activity on any
 *           stream, as the gap model charges it (gaps.h: the one rule),
 *           rooted in its labels: "[<cause>];[<class>];<stack of the
 *           thread that issues the next work at that instant>" for host,
 *           sync and launch (a call is the leaf even when the runtime level
 *           is not shown), "[queued];<what the work waited on>",
 *           "[untraced]", "[edge]". fold_opts.device >= 0 keeps only that
 *           device's idle time.
 *  - calls: one per launching call (runtime/driver call with linked GPU
 *           work), leaf = the API name (cudaLaunchKernel, cudaGraphLaunch)
 *           unless the runtime level is shown; one per unattributed
 *           activity under "[unattributed];family".
 * Host time whose innermost range is a step marker, or (wall/idle) no range
 * at all on the step/launching thread, is the leaf "[untraced]"; host time
 * whose shown stack is empty otherwise is "[other]".
 *
 * Window: with --steps/--skip, the selected steps (cpu/wall/idle: time
 * intersected with them; gpu/calls: activities whose launching call, or the
 * activity itself when unattributed, starts inside them). Without a
 * selection the whole trace, except for cpu, wall and idle, whose window is
 * the union of all steps when the trace has steps. gpu, idle and calls keep
 * the launching thread's stacks without a thread frame.
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_FOLD_H
#define GF_FOLD_H

#include "trace/model/trace.h"
#include "trace/model/trace_sel.h"
#include "stacks/ftree.h"
#include "stacks/weight.h"
#include "trace/analysis/kfamily.h"

/* The weights and units (enum fold_weight, enum fold_unit, their names):
 * stacks/weight.h. A trace folds into the first FW_NTRACE weights and the
 * first FU_NFOLD units. */

/* Stack levels (fold_opts.levels). */
#define FL_STEP 0x01       /* the step marker (ProfilerStep) */
#define FL_ANNOTATION 0x02 /* user_annotation (record_function) other than the step marker */
#define FL_PYTHON 0x04     /* python_function frames (nn.Module frames included) */
#define FL_MODULE 0x08     /* only the nn.Module: frames */
#define FL_OP 0x10         /* cpu_op */
#define FL_RUNTIME 0x20    /* cuda_runtime / cuda_driver calls */
#define FL_DEFAULT (FL_ANNOTATION | FL_PYTHON | FL_OP)

#define FOLD_MAX_LABELS 16

struct fold_opts {
	int weight;              /* enum fold_weight, < FW_NTRACE */
	unsigned levels;         /* FL_* */
	unsigned max_depth;      /* innermost N host frames; 0 = all */
	bool per_step;           /* ProfilerStep#N frames (implies FL_STEP) instead of "ProfilerStep" */
	bool kernel_full;        /* leaf = full kernel name instead of the family */
	const struct kfamily *families; /* NULL = default rules */
	struct trace_sel steps;  /* --steps A..B, --skip N: the model's one selection */
	int device;              /* idle: only this device number; -1 (default) = every device */
	bool normalise;          /* --per-step-normalise */
	int unit;                /* enum fold_unit, < FU_NFOLD (ignored for calls) */
	const char *source;      /* for the header ("source=") */
	const char *step_marker; /* for the header and the messages; the trace model found the steps */
	const char *labels[FOLD_MAX_LABELS]; /* "KEY=VALUE" -> header "label.KEY=VALUE" */
	unsigned nlabels;
	const struct trace_walk *walk; /* the trace's walk built already (actx's), only read;
	                                * NULL (default): fold builds its own */
	bool all_threads;        /* cpu/wall: every host thread, not only the step threads */
	bool no_thread_frames;   /* cpu/wall: no "thread (TID): NAME" root frame */
	bool kinds;              /* --kinds: each frame's kind as a suffix (FOLD_KIND_*), header kinds=yes */
};

/*
 * Frame kinds (--kinds), appended to the frame name in flamegraph.pl's
 * annotation style ("aten::mm_[op]"), so that a renderer colours by what the
 * model knows instead of guessing from the name (stacks/render/palette.h
 * reads them; svg strips them from labels when the header says kinds=yes):
 *   _[an] annotation (record_function, the step frames)   _[py] Python frame
 *   _[mo] nn.Module frame   _[op] operator (cpu_op)   _[la] runtime/driver
 *   call (a launch)   _[sy] a runtime call that blocks the host (base/names:
 *   NAMES_API_SYNC)   _[ke] GPU kernel, memcpy or memset (its family by name)
 * Markers ("[untraced]", "[idle]"...) and thread frames have none.
 */

struct fold_stats {
	uint32_t steps;          /* steps in the window */
	int64_t total;           /* sum of weights before normalisation (ns or count) */
	uint64_t items;          /* activities / segments / calls folded */
	int64_t unattributed;    /* gpu/calls weight under [unattributed] */
	uint32_t threads;        /* cpu/wall: host threads with weight in the fold */
	uint32_t threads_left_out; /* cpu/wall: threads with weight in the window, not folded */
	int64_t left_out;        /* cpu/wall: their weight (ns, before normalisation) */
};

void fold_opts_init(struct fold_opts *o);

/* Parses "step,annotation,python,module,op,runtime" (any subset, any order)
 * into FL_* bits. @return GF_OK or GF_EUSAGE with a message. */
int fold_parse_levels(const char *s, unsigned *levels, struct sbuf *err);
/* Writes levels back as a comma list in canonical order. */
void fold_levels_str(unsigned levels, struct sbuf *out);

/* The stack levels' names in FL_* bit order (bit 1 << i), NULL-terminated:
 * --stack's values. */
extern const char *const fold_level_names[];
/* The kernel leaves (--kernel-names): "family" (fold_opts.kernel_full
 * false, index 0) or "full" (true, 1), NULL-terminated. */
extern const char *const fold_kernel_names[];

/* Adds a --label "KEY=VALUE" (kept by pointer) to o: KEY is letters,
 * digits, '_', '-', '.'; at most FOLD_MAX_LABELS. @return GF_OK or
 * GF_EUSAGE with the message. */
int fold_add_label(struct fold_opts *o, const char *kv, struct sbuf *err);
/* A label key: letters, digits, '_', '-', '.', not empty (--label, and a
 * folded header's label.KEY where a run is stored). */
bool fold_label_key_ok(const char *k, size_t n);

/*
 * Folds t into out (initialised here; the caller releases it). The tree is
 * sorted and its meta holds the header (weight, unit, steps, rank,
 * world_size, source, stack, threads, threads_left_out, left_out,
 * thread_frames, kernel_names, normalised, label.*).
 * @return GF_OK; GF_EUSAGE when the step selection matches no step or
 * normalisation has no step; GF_EINPUT on weight overflow.
 */
int fold_trace(struct trace *t, const struct fold_opts *o, struct ftree *out,
	       struct fold_stats *st, struct sbuf *err);

/*
 * The idle tree (as fold --weight idle, o->weight FW_IDLE) of a gap model
 * already computed over the same steps (gaps_analyze): over the steady
 * steps (steady) or all the selected ones. Same returns as fold_trace.
 */
struct gaps_result;
int fold_idle_tree(struct trace *t, const struct fold_opts *o, const struct gaps_result *gp, bool steady,
		   struct ftree *out, struct fold_stats *st, struct sbuf *err);

/*
 * Frame-name normalisation used by fold (exposed for tests and for diff):
 * ';' -> ':', control bytes -> ' ', a leading "# " -> "#_" (it would read
 * back as a comment), "" -> "[empty]", and when `python` is true every
 * "0x" + hex digits not preceded by a hex digit -> "0x...". Appends to out.
 */
void fold_frame_name(const char *s, size_t n, bool python, struct sbuf *out);

#endif
