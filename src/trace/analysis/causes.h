/*
 * causes.h — the vocabulary of the gap model (gaps.h) and of the verdict
 * (report.h): why the GPU idled (the gap causes), what the host was doing
 * (the classes of host work), and what to do about it (the advice keys).
 * One table per enum, indexed by it; every writer, the store, the command
 * line and the HTML page (through the page's JSON) loop over these rows,
 * so adding a cause or a class is one row here plus its words in the
 * writers (trace/write/prose.c, which asserts it has words for every row).
 *
 *   for (int k = 0; k < GAP_NCAUSES; k++)
 *       jsonw_key(j, causes_gap[k].json);           // "edge_us", ...
 *   metric(c, causes_gap[k].metric, row[k]);        // "idle.edge", ...
 *
 * The tables hold names, not prose: a key for JSON and the tracks, the
 * JSON field, the store's metric, a short label, the rule in a few words
 * (docs/report.md "The gap model") and the advice key; sentences are the
 * writers' (no English is assembled in trace/analysis/).
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_CAUSES_H
#define GF_CAUSES_H

#include "base/gf.h"

/* Why a piece of idle time idled (gaps.h has the rules). The order is the
 * verdict's tie order and the order of every table and JSON object. */
enum gap_cause { GAP_EDGE = 0, GAP_SYNC, GAP_HOST, GAP_UNTRACED, GAP_QUEUED, GAP_LAUNCH, GAP_NCAUSES };

/* What Next advises (a writer's words for each, trace/write/prose.c). */
enum advice {
	ADV_NONE = 0,    /* nothing to advise (no idle time) */
	ADV_NO_GPU,      /* check that the profiler recorded the device */
	ADV_LEGACY,      /* the legacy autograd export records no device */
	ADV_KERNELS,     /* GPU-bound: the kernels */
	ADV_EDGE,        /* select steps inside the window */
	ADV_SYNC,        /* remove the blocking call (its fix) */
	ADV_HOST,        /* move the host work off the launching thread */
	ADV_UNTRACED,    /* trace the untraced host time */
	ADV_QUEUED,      /* find what the issued work waited for */
	ADV_LAUNCH,      /* fewer, larger launches (CUDA graphs, compile) */
	ADV_WARMUP,      /* one-time work: select steady steps or warm up before the window */
	ADV_ALLOCATOR,   /* keep the caching allocator, pre-allocate, no empty_cache in the loop */
	ADV_DATA,        /* DataLoader workers, pin_memory, pre-processing off the launching thread */
	ADV_ISSUE,       /* the host work is issuing the kernels: less host work per launch */
	ADV_CPU_ONLY,    /* no device: the host's largest stacks and the would-be syncs */
	ADV_COMM,        /* hide the exposed communication behind compute */
	ADV_N
};

struct cause_def {
	const char *key;    /* "edge": verdict_cause, the Perfetto slices, the page */
	const char *json;   /* "edge_us": its field in a gap row's JSON */
	const char *metric; /* "idle.edge": the store's metric (mean per steady step) */
	const char *label;  /* "window edge": a few words for a legend */
	const char *rule;   /* "window edges, or launched before the window" */
	int advice;         /* enum advice */
	/* a cause with keys (gaps_result.keys): its JSON array and the keys'
	 * field ("sync_sites", "stack"); NULL for a cause without */
	const char *keys, *key_field;
};
extern const struct cause_def causes_gap[GAP_NCAUSES];

/*
 * Classes of host work (docs/report.md; issue 24 classifies the pieces):
 * what the launching thread was doing while the GPU idled. Rows may be
 * added; HW_NONE is "no class" (edge, untraced, queued and launch-latency
 * pieces; JSON null).
 */
enum host_class {
	HW_NONE = -1,
	HW_ALLOCATOR = 0, /* cudaMalloc/cudaFree/hipFree, emptyCache, caching-allocator growth */
	HW_WARMUP,        /* one-time work: first launch (module load), handles, autotune, compilation */
	HW_DATA,          /* data loading and pre-processing: DataLoader, image processors, tokenisers */
	HW_PYTHON,        /* scheduling and framework Python */
	HW_SYNC,          /* waits in blocking calls */
	HW_LAUNCH,        /* the launch API itself */
	HW_OTHER,         /* traced host work that is none of the above */
	HW_NCLASSES
};

struct host_class_def {
	const char *key;    /* "allocator": JSON */
	const char *label;  /* "allocator": a few words */
	int advice;         /* enum advice */
};
extern const struct host_class_def causes_class[HW_NCLASSES];

/*
 * What the verdict finds when the step is not lost to idle time but to
 * busy time that does no compute (report.h's rules): one row per finding,
 * its key (summary.verdict_cause), a few words, its rule and its advice.
 */
enum busy_finding { BUSY_COMM = 0, BUSY_NFINDINGS };

struct busy_def {
	const char *key;    /* "comm": summary.verdict_cause */
	const char *label;  /* "exposed communication" */
	const char *rule;   /* the rule in a few words */
	int advice;         /* enum advice */
};
extern const struct busy_def causes_busy[BUSY_NFINDINGS];

/* @return the cause (enum gap_cause) whose key is key, or -1. */
int causes_find(const char *key);

#endif
