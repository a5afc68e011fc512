/*
 * import.h — other profilers' stack formats into folded stacks.
 *
 *   struct import_opts o = IMPORT_OPTS_INIT;      // --pid, --threads merge...
 *   struct import_stats st;
 *   struct sbuf folded = SBUF_INIT;
 *   if (import_handles(in))
 *       rc = import_fold(in, &o, &folded, &st, &err);   // the whole input
 *
 * The formats (docs/formats.md, "Imports"), sniffed by the input layer
 * (input/input.h) or, for py-spy and austin, by the first stack line:
 *   INPUT_PERF_SCRIPT  `perf script` text, collapsed as FlameGraph's
 *                      stackcollapse-perf.pl does (import_perf.c): the
 *                      process name as root frame (-PID, -PID/TID with
 *                      o.pid, o.tid), frames root first, "+0x.." offsets
 *                      cut, "[unknown]" as the module's name, "_[k]"
 *                      (o.kernel) and "_[j]" (o.jit) annotations, "<addr>"
 *                      of unknown frames (o.addrs), only the first event
 *                      type counted, periods as weights;
 *   INPUT_SPEEDSCOPE   a speedscope JSON file (import_speedscope.c):
 *                      sampled profiles (stack + weight) and evented ones
 *                      (open/close events: the time between two events is
 *                      the stack's), one root frame per profile when the
 *                      file holds several (unless o.merge_threads);
 *   austin             "P<pid>;T<iid>:<tid>;file:func:line;... <metric>"
 *                      (import.c): frames become py-spy's "func (file:line)",
 *                      the roots "process <pid>" and "thread (<tid>)" (the
 *                      tid as austin prints it);
 *   py-spy raw         folded stacks whose first frame is a process root
 *                      ("process 12:\"python x.py\"", one per ancestor with
 *                      --subprocesses) or a thread root ("thread (12345):
 *                      MainThread" on Linux, "thread (0x...)" on macOS): as
 *                      read, or without those roots with o.merge_threads;
 *   py-spy chrometrace py-spy record --format chrometrace (B/E events,
 *                      import_chrome.c): per thread, the time between two
 *                      events is the stack open then, in us;
 *   export_stacks      PyTorch's profiler.export_stacks(): folded lines of
 *                      "file.py(12):_func" frames (blanks turned into '_'),
 *                      weights in us; the first "):_" is read back as "): ".
 * The output is folded text (the folded reader's input, stacks/folded.h):
 * a "# gpuflame:" header (format=perf|speedscope|austin|py-spy|
 * chrometrace|export_stacks, then the unit of the weights and what the
 * input says of them, below), identical stacks summed, lines sorted by
 * bytes (stackcollapse-perf.pl's `sort`), each "stack weight\n". Weights
 * are exact (integers, or decimals at the input's precision, at most
 * NUM_MAX_SCALE digits).
 *
 * Units (docs/formats.md, "Imports"): unit=ns (perf cpu-clock/task-clock
 * periods; event=), unit=events (another perf event's periods, a count;
 * event=), unit=samples (py-spy raw, perf without periods, a py-spy
 * speedscope file whose weights are 1/rate s: rate=), unit=us (austin
 * wall/cpu/full time, export_stacks, chrometrace), unit=bytes (austin
 * memory mode: a negative delta, memory freed, is kept under a "[freed]"
 * root with its magnitude), a speedscope file's own unit. samples=N: the
 * samples read, where the input has samples. With o.samples every sample
 * (perf, austin, py-spy, speedscope sampled) weighs 1 and unit=samples:
 * what statistics over samples need (syncs' intervals); inputs without
 * samples (evented speedscope, chrometrace, export_stacks) are refused.
 *
 * Layer: stacks (reads from input/). Never prints; one-line errors in err
 * naming the file and the line, event or byte offset.
 */
#ifndef GF_IMPORT_H
#define GF_IMPORT_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

struct input;
struct pool;

struct import_opts {
	bool pid, tid;       /* perf: "comm-PID" / "comm-PID/TID" root frames */
	bool kernel, jit;    /* perf: "_[k]" kernel and "_[j]" JIT annotations */
	bool addrs;          /* perf: "[module <addr>]" for unknown symbols */
	bool merge_threads;  /* no process / thread / profile root frames */
	bool samples;        /* every sample weighs 1 (unit=samples); no samples: an error */
};

struct import_stats {
	uint64_t samples;      /* stacks taken (samples, intervals, lines) */
	uint64_t skipped;      /* samples of another event type (perf) */
	uint64_t unrecognized; /* lines neither header nor frame (perf) */
	uint64_t first_bad;    /* line of the first one */
	bool unterminated;     /* perf: the last sample lacked its blank line (left out) */
	char event[64];        /* perf: the event type counted */
	char other_event[64];  /* perf: the first event type left out */
	char unit[16];         /* the unit= written in the header ("" for none) */
};

/* Import kinds (import_kind). */
enum import_kind {
	IMPORT_NONE = 0,
	IMPORT_PERF,
	IMPORT_SPEEDSCOPE,
	IMPORT_AUSTIN,
	IMPORT_PYSPY,
	IMPORT_CHROME,         /* py-spy --format chrometrace */
	IMPORT_EXPORT_STACKS,  /* PyTorch's export_stacks */
};

/* What the importer makes of in (from its format and peek window):
 * IMPORT_NONE for a trace, plain folded stacks and the formats not read. */
int import_kind(const struct input *in);
/* Same for data starting with b[0..n). */
int import_kind_of(int input_format, const char *b, size_t n);
/* "perf script output", "a speedscope profile", "austin samples",
 * "py-spy samples", "py-spy chrometrace events", "PyTorch export_stacks
 * output". */
const char *import_kind_name(int kind);

/*
 * Reads the whole input in (of kind import_kind(in)) and appends its folded
 * text to out. @return GF_OK; GF_EINPUT ("'x': line 12: expected ...",
 * "'x': byte 345: ...", "'x': profile 2, event 7: ..."); GF_EINTERNAL for a
 * bound of base/limits.h.
 */
int import_fold(struct input *in, int kind, const struct import_opts *o, struct sbuf *out,
		struct import_stats *st, struct sbuf *err);

/* ---- shared by the readers (import_perf.c, import_speedscope.c) ---- */

/* Sums weights per stack string, then writes them sorted. */
struct import_agg {
	struct pool *stacks;
	int64_t *w;
	size_t cap;
	unsigned scale; /* weights are v / 10^scale */
	int64_t total;  /* of every weight: it must fit too (the readers' root) */
};
void import_agg_init(struct import_agg *a, unsigned scale);
/* Adds w to stack s[0..n). @return GF_OK or GF_EINPUT (the stack's sum or
 * the total of all overflows; err says "weights overflow 64-bit integers"). */
int import_agg_add(struct import_agg *a, const char *s, size_t n, int64_t w, struct sbuf *err);
/* Appends "stack weight\n" lines, sorted by bytes. */
void import_agg_write(const struct import_agg *a, struct sbuf *out);
void import_agg_free(struct import_agg *a);

/* Appends "# gpuflame: format=F; unit=U; " (no unit= when u is NULL or
 * empty) and records u in st->unit; the caller adds its keys and "\n". */
void import_header(struct sbuf *out, const char *format, const char *u, struct import_stats *st);

/* perf script into a; its header ("# gpuflame: format=perf; ...\n") into
 * head. */
int import_perf(struct input *in, const struct import_opts *o, struct import_agg *a, struct import_stats *st,
		struct sbuf *head, struct sbuf *err);
int import_speedscope(const char *buf, size_t len, const char *name, const struct import_opts *o,
		      struct sbuf *out, struct import_stats *st, struct sbuf *err);
int import_chrome(const char *buf, size_t len, const char *name, const struct import_opts *o,
		  struct sbuf *out, struct import_stats *st, struct sbuf *err);
/* The same as a call tree: t (initialised by the caller, empty) is the tree
 * the folded reader builds from import_speedscope's text, head gets its
 * header line ("# gpuflame: format=speedscope; ...\n"); time and memory
 * linear in the file, where the text can be quadratic (deep stacks). */
int import_speedscope_tree(const char *buf, size_t len, const char *name, const struct import_opts *o, struct ftree *t,
			   struct sbuf *head, struct import_stats *st, struct sbuf *err);
/* The folded lines of an imported tree (its stacks, sorted by bytes, as
 * import_agg_write writes them), appended to out. */
void import_tree_text(const struct ftree *t, struct sbuf *out);

/*
 * Opens the import of in (of kind import_kind(in)) as a folded input *out
 * named as in: a speedscope file as its call tree (input_open_obj, kind
 * "ftree": the folded readers take the tree whole, and the text is made
 * only for a reader of bytes), the other kinds as their folded text.
 * @return as import_fold. in stays the caller's to close.
 */
int import_open(struct input **out, struct input *in, int kind, const struct import_opts *o,
		struct import_stats *st, struct sbuf *err);

#endif
