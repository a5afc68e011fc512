/*
 * timeline.h — the step timeline the HTML page draws (trace/write/
 * report_html.h): for one step window, lanes of time segments for the
 * analysed device (its GPU idle by cause, from the gap model's pieces, and
 * its activities, one lane per stream, communication kernels apart), and
 * for the thread that issues the device's work (its innermost traced frames,
 * and its runtime/driver calls: launches, blocking calls, others).
 *
 *   report_opts o; report_opts_init(&o); o.gap_pieces = true;
 *   report_build(&r, &c, &o, &err);
 *   struct timeline_spec sp;
 *   timeline_parse("median", &sp, &err);                     // --timeline
 *   size_t rows[TIMELINE_MAX_STEPS], n;
 *   if (timeline_pick(&r.st, &sp, rows, &n, &err)) ...;
 *   struct timeline tl;
 *   timeline_build(&c, &r.st, &r.gp, rows[0], TIMELINE_WIDTH_PX, &tl);
 *   ... tl.lane[k].seg[..] ...
 *   timeline_release(&tl);
 *
 * Bounded: a lane never holds more than about two segments per pixel of
 * the default width, however many items the window holds. The resolution
 * is px = ceil(wall / width_px) ns. An item at least px long is one
 * segment; consecutive items shorter than px are merged while they start
 * within px of the group's start: a group of one is that item, a larger
 * one a merged segment spanning its members (count > 1, busy = the sum of
 * their lengths, ref and name its longest member's, and for idle the time
 * of each cause in parts). Each lane counts its items, the merged ones and
 * their time, so the page states what it merged. Streams beyond
 * TIMELINE_MAX_STREAMS (by busy time) share one lane (TL_STREAMS).
 *
 * Lanes, in order:
 *  - TL_IDLE: the gap model's pieces (gaps.h) clipped to the window: cls
 *    is the cause (GAP_*), ref the piece index;
 *  - TL_STREAM, then TL_COMM: the device's kernels, memcpy and memset
 *    clipped to the window, one lane per stream (communication kernels,
 *    TAF_NCCL, in a lane of their own per stream); name is the kernel's
 *    family as the GPU flame graph names its leaves (flames_act_family),
 *    name2 the kernel's own name, aux the launch-to-start latency (-1: no
 *    launch), ref the activity index;
 *  - TL_FRAMES: the issuing thread's innermost traced range (a runtime or
 *    driver call stands for its nearest non-runtime ancestor; nothing where
 *    only the step marker or no range is open), name its name, name2 its
 *    Python site (actx_site), ref the range;
 *  - TL_CALLS: the thread's outermost runtime/driver calls, cls 0 a launch
 *    (TRF_LAUNCH), 1 a blocking call (actx_blocking), 2 any other; aux the
 *    launch-to-start latency of a launch (-1), name2 the Python site.
 * The issuing thread is the one that launched most of the device's work
 * (trace_device.launch_thread), else the step's thread.
 *
 * Cost: the window's own activities, pieces and ranges (binary searches to
 * find them; straddling activities through actx_straddlers), kernel
 * families once per distinct name.
 *
 * Layer: trace/analysis. Numbers and names only: the words are the
 * writers' (trace/write/prose.h: prose_piece). Never prints.
 */
#ifndef GF_TIMELINE_H
#define GF_TIMELINE_H

#include "trace/analysis/gaps.h"

#define TIMELINE_WIDTH_PX 1200
#define TIMELINE_MAX_STREAMS 12
#define TIMELINE_MAX_STEPS 8

enum tl_kind { TL_IDLE = 0, TL_STREAM, TL_COMM, TL_STREAMS, TL_FRAMES, TL_CALLS };
enum tl_call { TLC_LAUNCH = 0, TLC_BLOCKING, TLC_OTHER };

struct tl_seg {
	gf_ns lo, hi;       /* absolute, inside the window */
	gf_ns busy;         /* the members' time (count 1: hi - lo) */
	gf_ns aux;          /* launch-to-start latency, -1 when none */
	uint32_t name;      /* id in timeline.names, UINT32_MAX: none */
	uint32_t name2;     /* idem */
	uint32_t ref;       /* piece, activity or range index (the longest member) */
	uint32_t count;     /* members */
	uint8_t cls;
	bool mixed;         /* merged members of more than one name or class */
};

struct tl_lane {
	int kind;           /* enum tl_kind */
	int32_t stream;     /* TL_STREAM, TL_COMM; -1 otherwise */
	uint32_t thread;    /* TL_FRAMES, TL_CALLS: index into t->th; TRACE_NONE */
	struct tl_seg *seg;
	size_t n, cap;
	gf_ns (*parts)[GAP_NCAUSES]; /* TL_IDLE: per segment, the time of each cause */
	uint64_t items;     /* items in the window */
	uint64_t merged;    /* of which merged into segments of count > 1 */
	gf_ns items_ns, merged_ns;
};

struct timeline {
	size_t row;         /* index into steps_result.rows */
	gf_ns lo, hi, px;
	unsigned width_px;
	struct tl_lane *lane;
	size_t nlane;
	uint32_t thread;    /* the issuing thread, TRACE_NONE */
	bool median;        /* the caller's note: the step is the median steady step (timeline_pick's default) */
	struct pool *names;
};

/* Which steps get a timeline (report --timeline). */
enum { TLS_MEDIAN = 0, TLS_NONE, TLS_LIST };
struct timeline_spec {
	int mode;
	int64_t first[TIMELINE_MAX_STEPS], last[TIMELINE_MAX_STEPS];
	size_t n;
};

/* Parses "median" (the default: a zeroed spec), "none", or a
 * comma-separated list of step numbers and ranges A..B. @return GF_OK, or
 * GF_EUSAGE with a one-line message. */
int timeline_parse(const char *arg, struct timeline_spec *sp, struct sbuf *err);

/*
 * The rows of st that sp names, into rows[0..*n) (room for
 * TIMELINE_MAX_STEPS), in step order: for median, the steady step whose
 * wall is nearest the steady median wall (the earliest on a tie; the
 * whole-trace row of a trace without steps); for a list, every selected
 * step whose number is in one of its ranges, each once. @return GF_OK, or
 * GF_EUSAGE with a one-line message (a range no selected step is in, more
 * than TIMELINE_MAX_STEPS steps).
 */
int timeline_pick(const struct steps_result *st, const struct timeline_spec *sp, size_t *rows, size_t *n,
		  struct sbuf *err);

/* The timeline of row `row` of st; gp must hold the pieces
 * (gaps_analyze_pieces). */
void timeline_build(const struct actx *c, const struct steps_result *st, const struct gaps_result *gp, size_t row,
		    unsigned width_px, struct timeline *tl);
void timeline_release(struct timeline *tl);

#endif
