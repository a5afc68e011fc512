/*
 * export_perfetto.h — the original trace plus gpuflame's findings, as one
 * Chrome-trace JSON file that Perfetto's UI (and chrome://tracing) opens.
 *
 *   report_opts o; o.parts = RP_GAPS; o.gap_pieces = true;  report_build(&r, &c, &o, ..)
 *   input_reopen(in, &err);              // the trace's bytes, a second pass
 *   export_perfetto_write(&c, &r, in, fp, ozip_by_name(path), &err);
 *
 * The original bytes are copied through unchanged, streamed (64 KiB at a
 * time, whatever the trace's size: bounded memory), so every original event
 * is kept exactly as written; the added events go at the end of the
 * "traceEvents" array (or of a top-level array of events; an object without
 * "traceEvents" gets one). Added, all with "cat":"gpuflame", on a process of
 * their own for each device (pid EXPORT_PERFETTO_PID + device, named
 * "gpuflame: GPU N", sorted beside the GPU's row: process_sort_index
 * EXPORT_PERFETTO_SORT + device):
 *  - tid 1 "idle by cause": each piece of the gap model (trace/analysis/
 *    gaps.h) as a B/E slice pair named by its cause (edge, sync, host,
 *    untraced, queued, launch), cut at every step boundary and kept only
 *    inside a step, so the slices inside a step's window sum to its idle
 *    time exactly, cause by cause; args: cause, step, and the call (sync:
 *    the blocking call and its Python site; host: the innermost range;
 *    queued and launch: the launch call);
 *  - a flow (ph s -> f, "sync bubble") from each sync slice's blocking call
 *    (on the host thread that made it, when its pid and tid are numbers) to
 *    the slice;
 *  - tid 2 "steps": a counter "GPU busy" (series "%") set at each step's
 *    start to 100 * busy / wall (3 decimals, rounded half to even) and to 0
 *    at a step end where no step starts, and a slice "step N" per step with
 *    that share, so the thread shows it (Perfetto makes JSON counters the
 *    process's).
 * Slices are B/E pairs: both ends round alike in Perfetto's double reading
 * of absolute microseconds, so they never cross (an X's start rounds, its
 * dur does not).
 * Times are written as the trace's microseconds, exactly (ns / 1000 with 3
 * decimals: the model's times are the trace's, see trace.h).
 * Output goes through base/ozip.h: gzip or zstd by the output's name.
 *
 * Layer: trace/write (reads the bytes again through input/: the one edge to
 * it, listed in src/README.md). Never prints.
 */
#ifndef GF_EXPORT_PERFETTO_H
#define GF_EXPORT_PERFETTO_H

#include "trace/analysis/report.h"

#include <stdio.h>

#define EXPORT_PERFETTO_PID 1000000000
/* Kineto's process_sort_index of GPU N's row is this + N */
#define EXPORT_PERFETTO_SORT 5000000

struct input;

/* One device's analysis: its gap model (report with RP_GAPS, gap_pieces). */
struct export_perfetto_dev {
	const struct actx *c;
	const struct report *r;
};

/* Writes the trace with the tracks of every device in devs[0..ndev) (its
 * own process each). @return GF_OK; GF_EINPUT (read error, a trace that
 * ends before its top-level value closes: a cut-off file), GF_EOUTPUT
 * (write or compression error), all with err set. */
int export_perfetto_write(const struct export_perfetto_dev *devs, size_t ndev, struct input *in, FILE *fp,
			  int zkind, struct sbuf *err);

#endif
