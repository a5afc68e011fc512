/*
 * store_collect.h — what `store add` keeps of one input (store.h's
 * store_run_in): a trace is folded once per weight (gpu, cpu, wall, idle,
 * calls, with fold's defaults and the same options the user would give
 * `gpuflame fold`) and reported (the steady-step summary: step wall, busy,
 * idle by cause, syncs, kernels, launches, as integers in ns or counts); a
 * folded file is read once (its weight from its header, else --weight or
 * "samples"); a rank's summary (ranks/summary.h) gives the page's four
 * graphs of its steps (gpu, cpu, wall, idle: pruned, us at scale 3) and
 * its report's steady step, with its rank, world_size, device, backend and
 * run id as labels. Labels from the command line go into every profile's header
 * (label.KEY=VALUE, as fold --label puts them: the diff's like-with-like
 * guard compares them) and into the run's labels, with the header's rank,
 * world_size and label.* keys, and a trace's own: device (the analysed
 * one), timestamps (the Kineto generation that wrote it: kts_gen_name),
 * backend, export=legacy.
 *
 * Layer: store. Never prints.
 */
#ifndef GF_STORE_COLLECT_H
#define GF_STORE_COLLECT_H

#include "input/input.h"
#include "store/store.h"

struct trace;

struct store_collect_opts {
	const char *release;
	const char *labels[STORE_MAX_LABELS]; /* "KEY=VALUE" */
	size_t nlabels;
	const char *weight;      /* a folded file without weight= in its header: this weight */
	const char *step_marker; /* traces: as fold --step-marker */
	unsigned threads;
	/* called once a trace is loaded (the cli prints its data-loss warnings
	 * with cli_warn_trace, the words every trace command uses); NULL: none */
	void (*trace_loaded)(const struct trace *t, void *ctx);
	void *ctx;
};

struct store_collect {
	struct store_run_in in;
	struct ftree trees[STORE_MAX_PROFILES];
	struct ftree step_trees[STORE_MAX_PROFILES]; /* traces: each weight folded per step */
	char *strs[STORE_MAX_LABELS + STORE_MAX_METRICS + 4]; /* owned strings */
	size_t nstrs;
};

/* Reads in (a summary when its format says so, else a trace when is_trace,
 * else folded) into c. @return GF_OK or the reader's
 * / analysis' error with its message. */
int store_collect_input(struct store_collect *c, struct input *in, bool is_trace, const struct store_collect_opts *o,
			struct sbuf *err);
void store_collect_release(struct store_collect *c);

/* Whether metric is one of the report's times (integer ns: step_wall,
 * busy, idle, idle.<cause>, sync_wait), which the text outputs print in
 * microseconds; the others are counts or a profile's own unit. */
bool store_collect_ns(const char *metric);

#endif
