/*
 * info.h — the summary behind `gpuflame info`: what is in a Kineto trace and
 * what in it deserves a warning, gathered from the event stream as read.
 *
 *   struct info_file f;
 *   if (info_load(&f, "t.json.gz", &opts, &err)) die(err.buf);   // opts: trace_opts
 *   info_out_text(&out, 0, "t.json.gz", &f);                     // trace/write/info_out.h
 *   info_release(&f);
 *
 * or, event by event (tests, fuzzers):
 *   struct info *in = info_new(names);
 *   trace_read(&kt, path, info_event, in, &opts, &err);   // trace.h: the trace commands' one reader entry
 *   info_finish(in, &kt);
 *   ... read in->... (see struct info), then info_free(in) ...
 *
 * Gathered while streaming (info_event is a kineto_event_fn): counts by
 * kind, per-track event counts, the time span, the steps, python_function /
 * nn.Module / graph launch / NCCL counts, the GPU time by the model's rule
 * (trace_times_usable: weighted and unweighted activities, their exact
 * total). Names are classified by base/names.h, the rules the model uses:
 * a step is a user_annotation or cpu_op range the model keeps (ph X, a dur,
 * usable times) named by names_step with in->marker (ProfilerStep by
 * default), numbered #N or, for a bare marker, by ordinal; graph launches
 * are runtime/driver calls with NAMES_API_GRAPH, sync calls those with
 * NAMES_API_SYNC; NCCL kernels are kernels with names_is_comm. The span and the host intervals cover only events
 * inside the model's time range (|ts|, dur <= 2^61 ns), so no ts + dur
 * overflows; the others are counted (out_of_range). Kept per event for
 * info_finish: the correlation of each runtime call (with its process) and
 * GPU activity (16 bytes each) and the interval of each host event (24
 * bytes) — so memory grows with the number of events, never with the JSON
 * text.
 *
 * info_finish computes: correlation coverage (GPU activities whose
 * correlation matches a runtime/driver call), GPU work launched before the
 * window (unmatched, correlation below the first runtime correlation), the
 * pre-2024-10 Kineto "External id == correlation" bug, host events that
 * overlap without nesting on one thread, and correlation ids that calls of
 * several processes carry (merged traces; fold links within a process).
 *
 * Layer: trace/model (it consumes the reader's event stream, which only the model
 * layer may include; writers and the cli see it through this header).
 */
#ifndef GF_INFO_H
#define GF_INFO_H

#include "base/gf.h"
#include "base/pool.h"
#include "base/vec.h"
#include "trace/model/trace.h"
#include "trace/read/kineto.h"

struct info_hev {
	uint32_t track, name;
	gf_ns ts, end;
};

struct info_corr {
	int64_t corr;
	gf_ns ts;
};

/* A runtime/driver call's correlation and its process (track until
 * info_finish, then the track's pid). */
struct info_rtc {
	int64_t corr;
	int64_t pid;
};

struct info {
	struct pool *names;
	const char *marker;         /* the step marker (names_marker), set after info_new */
	VEC(uint64_t) track_events; /* non-metadata events per track */
	VEC(uint8_t) name_flags;    /* per pool id, see info.c */

	bool have_span;
	gf_ns t_min, t_max; /* as written (add kt->meta.base_time_ns for absolute), over the
			     * events with usable times (|ts|, dur <= TRACE_MAX_TIME) */
	uint64_t out_of_range; /* events left out of the span: ts or dur beyond TRACE_MAX_TIME */

	VEC(int64_t) steps; /* numbered step markers' N (with the ordinals: sorted, unique after finish) */
	uint64_t step_events;  /* step marker ranges */
	uint64_t step_bare;    /* of which bare markers (numbered 0, 1, ... by the model) */
	uint64_t python_events, module_events, graph_launches, nccl_kernels;
	uint64_t sync_calls;     /* runtime/driver calls that block by name (names_api NAMES_API_SYNC: the model's TRF_SYNC) */
	uint64_t gpu_activities; /* kernel + memcpy + memset */
	/* GPU time, by the model's rule (trace_times_usable): the weighted
	 * activities' durations sum exactly to what fold --weight gpu folds */
	uint64_t gpu_weighted, gpu_unweighted;
	gf_ns gpu_time_ns;
	bool gpu_time_overflow; /* the sum exceeds INT64_MAX (fold refuses such a trace) */
	gf_ns host_time_ns;     /* sum of the host ranges' durations (the model's ranges) */
	bool host_time_overflow; /* beyond INT64_MAX: fold, report and syncs refuse the trace */

	VEC(struct info_rtc) rt_corr;   /* runtime/driver correlations (sorted after finish) */
	VEC(struct info_corr) gpu_corr; /* GPU activities with a correlation */
	VEC(struct info_hev) host;      /* host X events for the overlap check */

	/* device sync records (cuda_sync; MTIA's event_wait/event_record): by
	 * enum trace_sync_kind, and how many name what they waited on */
	uint64_t dev_syncs, dev_sync_kind[TS_N], dev_sync_wait_stream, dev_sync_wait_corr;
	/* [memory] instant events (profile_memory=True): allocations (Bytes >
	 * 0) and frees (Bytes < 0), their bytes, the largest "Total Allocated" */
	uint64_t mem_events, mem_allocs, mem_frees;
	int64_t mem_alloc_bytes, mem_freed_bytes, mem_peak;
	bool mem_overflow;      /* a byte sum beyond int64: the sums are not shown */
	uint64_t kernels_with_config; /* kernels with grid/block/registers/occupancy args */
	uint64_t rt_events, rt_with_ext, rt_ext_eq_corr;
	uint64_t gpu_with_ext, gpu_ext_eq_corr;

	/* results of info_finish */
	uint64_t gpu_linked, gpu_unlinked, gpu_before_window;
	gf_ns before_window_last_ts; /* latest start among them, as written */
	bool external_id_bogus;
	uint32_t corr_processes;  /* processes (pids) with correlated runtime/driver calls */
	uint64_t corr_shared;     /* correlation ids carried by calls of more than one process */
	uint64_t overlaps;
	struct info_hev overlap_a, overlap_b; /* first example: a contains b's start, b ends after a */
};

struct info *info_new(struct pool *names);
/* kineto_event_fn: ctx is the struct info. Always returns 0. */
int info_event(void *ctx, const struct kev *e);
/* Computes the results once all events were seen. */
void info_finish(struct info *in, const struct kineto_trace *kt);
void info_free(struct info *in);

/* One trace read whole: its reader state (stats, meta, tracks, names) and
 * its summary. */
struct info_file {
	struct pool *names;
	struct kineto_trace kt;
	struct info *in;
};

/*
 * Reads the trace at path ("-" = stdin; plain, gzip or zstd) and
 * summarises it. o may be NULL; its step_marker, threads and progress are
 * used. @return GF_OK (release f with info_release), or the reader's error
 * with its one-line message in err (f holds nothing).
 */
int info_load(struct info_file *f, const char *path, const struct trace_opts *o, struct sbuf *err);
void info_release(struct info_file *f);

/* "plain", "gzip" or "zstd": how the file was compressed. */
const char *info_compression(const struct info_file *f);
/* The trace format: "kineto", or "legacy-autograd" (the autograd profiler's
 * export of a PyTorch without Kineto: kmeta.legacy_events > 0). */
const char *info_format(const struct info_file *f);

#endif
