/*
 * pysync.h — the hidden-sync finder over py-spy folded stacks.
 *
 * Input: a call tree read from `py-spy record --native --format raw` output
 * (folded stacks, root first, frames "function (file:line)" for Python and
 * "symbol (libfoo.so)" for native code), or from another sampler's samples
 * counted one per sample (stacks/import.h, o.samples: perf script with
 * CPython -X perf frames, austin, py-spy's speedscope). A stack is a *sync stack* when one of
 * its frames is a blocking CUDA/HIP call (pysync_sync_symbol). Each sync stack
 * is charged to a *site*: the innermost Python frame above the outermost sync
 * frame that is not inside torch (base/names.h names_in_torch), else the
 * innermost Python frame, else "[no Python frame]". Sites are ranked by
 * samples, with the share of all samples and a 95% Wilson score interval.
 *
 * Layer: stacks/ops. Never prints.
 */
#ifndef GF_PYSYNC_H
#define GF_PYSYNC_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

/* Sites under this share of all samples (in per mille) are labelled noise:
 * at 100 Hz, frames under 1% are sampling noise (Flame Graphs for LLMs, in depth). */
#define PYSYNC_NOISE_PERMILLE 10

struct pysync_site {
	char *site;        /* "file.py(line): function" or "[no Python frame]" */
	char *symbols;     /* sync symbols seen, most samples first, ", "-joined */
	int64_t samples;   /* in units of 10^-scale */
	double share;      /* samples / all samples, 0..1 */
	double ci_lo, ci_hi; /* 95% Wilson score interval of the share */
	bool noise;        /* share < PYSYNC_NOISE_PERMILLE / 1000 */
};

struct pysync_result {
	const char *sampler;     /* who took the samples ("py-spy", "perf", "austin"...: the
				  * folded header's format=), shown by the writers; NULL: py-spy */
	unsigned scale;          /* weights are in units of 10^-scale */
	int64_t total;           /* all samples in the file */
	int64_t sync;            /* samples of sync stacks */
	double sync_share;
	double sync_ci_lo, sync_ci_hi;
	struct pysync_site *sites; /* sorted by samples, descending, then site */
	size_t nsites;
};

/*
 * Finds sync stacks in t and groups them by site.
 * @return GF_OK (r filled; release with pysync_release) or GF_EINPUT with a
 * message in err when t holds no samples.
 */
int pysync_analyze(const struct ftree *t, struct pysync_result *r, struct sbuf *err);
void pysync_release(struct pysync_result *r);

/*
 * When the frame (py-spy text) names a blocking CUDA/HIP call, @return the
 * length of its function name (the part before " ("), else 0. The calls are
 * the one classifier's (base/names.h names_api, docs/classes.md): the
 * blocking ones (cuda/cu/hip {Stream,Device,Event,Ctx,Thread}Synchronize,
 * Memcpy* without Async) and every Memcpy* (an async copy a sample stands
 * in is the host blocked on pageable memory); a "_suffix" is ignored.
 */
size_t pysync_sync_symbol(const char *frame, size_t n);

/*
 * Parses a py-spy Python frame "function (path.py:line)" (or "(path.py)"),
 * a trace's python_function frame "path.py(line): function" as
 * `gpuflame fold` writes it, or CPython's -X perf frame in perf script
 * ("py::function:path.py"). @return true and appends
 * "path.py(line): function" ("path.py: function" without a line) to label
 * when it is one.
 */
bool pysync_python_frame(const char *frame, size_t n, struct sbuf *label);

/* 95% Wilson score interval for k successes out of n (z = 1.96). n = 0 gives
 * [0, 1]. */
void pysync_wilson(double k, double n, double *lo, double *hi);

#endif
