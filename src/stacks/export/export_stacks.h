/*
 * export_stacks.h — what the stack exporters (speedscope, pprof) share: the
 * profiles to write (one call tree per weight), the unit of a tree's weights
 * as the ecosystem names it, exact conversion of a weight to an integer of
 * that unit, and the split of a Python frame into function, file and line.
 *
 * A profile is a call tree (stacks/ftree.h) whose metadata header
 * (`# gpuflame: weight=gpu; unit=us;`) says what its weights are, as
 * folded_units (stacks/folded.h) reads it:
 *   unit=ns|us|ms|s  -> "nanoseconds": a weight v at the tree's scale is
 *                       v * 10^(3k - scale) ns (k = 0, 1, 2, 3), exact;
 *   unit=bytes       -> "bytes";
 *   weight=calls, samples, events, no unit, or an unknown one -> "none"
 *                       (speedscope) or "count" (pprof), written as they are.
 * Python frames, as fold writes them ("path/x.py(12): forward") or as py-spy
 * does ("forward (path/x.py:12)"), split into name "forward", file
 * "path/x.py" and line 12; CPython's -X perf frames ("py::forward:x.py")
 * into name and file (no line); any other frame, thread and process roots
 * ("thread (12): python3") included, is its name alone.
 *
 * Layer: stacks/export (base, stacks). Never prints.
 */
#ifndef GF_EXPORT_STACKS_H
#define GF_EXPORT_STACKS_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

#define EXPORT_STACKS_MAX 8

struct export_stacks_prof {
	const struct ftree *t;
	const char *name;  /* the profile's name (its weight: "gpu", "cpu"...; or the file's name) */
};

/*
 * A time-ordered profile (speedscope "evented"; pprof has none): one
 * thread's frames opening and closing, produced by an iterator so the
 * writer never holds them (the trace side: trace/write/export_threads.h).
 * next fills ev and returns true, false after the last event; rewind starts
 * again (the writer reads the events twice: frames first, then events).
 * Opens and closes nest; at never decreases.
 */
struct export_stacks_event {
	bool open;
	const char *name;
	size_t len;
	int64_t at;      /* ns */
};
struct export_stacks_evented {
	const char *name;
	int64_t start, end; /* ns */
	void *ctx;
	bool (*next)(void *ctx, struct export_stacks_event *ev);
	void (*rewind)(void *ctx);
};

struct export_stacks {
	struct export_stacks_prof p[EXPORT_STACKS_MAX];
	unsigned n;
	const struct export_stacks_evented *ev; /* speedscope only: after the sampled ones */
	size_t nev;
	const char *title;    /* the file's name (speedscope "name"), NULL for none */
	int64_t time_ns;      /* pprof time_nanos (absolute start), 0 = unknown */
	int64_t duration_ns;  /* pprof duration_nanos, 0 = unknown */
	/* pprof for Pyroscope (push --format pprof): the rank and step labels as
	 * strings (its ingest keeps string labels only), and at most max_samples
	 * samples (0: no cap; its max_profile_stacktrace_samples, default
	 * 16000, refuses a bigger profile): each profile keeps its heaviest
	 * stacks and sums the rest into one "[other]" sample */
	bool str_labels;
	size_t max_samples;
};

/* The profile's name: "weight=" in t's header, else what an import's
 * header says (folded_units: "cpu", "samples", "wall"...), else fallback. */
const char *export_stacks_weight(const struct ftree *t, const char *fallback);
/* The unit's name: "nanoseconds", "bytes", else "count" (pprof) or "none"
 * (speedscope). */
const char *export_stacks_unit(const struct ftree *t, bool pprof);
/* Exponent e such that a weight v is v * 10^e nanoseconds (e may be
 * negative: then v / 10^-e); false for a tree without a time unit. */
bool export_stacks_ns_exp(const struct ftree *t, int *e);
/*
 * A weight as an integer of the profile's unit (ns, or the count itself):
 * false when it is not a whole number of that unit (a count of 2.5, a
 * weight of 0.0001 us) or overflows int64.
 */
bool export_stacks_int(const struct ftree *t, int64_t v, int64_t *out);
/* Appends a weight exactly as a JSON number in the profile's unit (ns, or
 * the count): "1234", "2.5". */
void export_stacks_num(struct sbuf *b, const struct ftree *t, int64_t v);

/* A frame's parts: name[0..name_len), file[0..file_len) (file_len 0: none),
 * line (0: none). Pointers into s. */
struct export_stacks_frame {
	const char *name, *file;
	size_t name_len, file_len;
	int64_t line;
};
void export_stacks_split(const char *s, size_t n, struct export_stacks_frame *f);

/* Appends s[0..n) with each invalid UTF-8 sequence as U+FFFD (pprof's
 * strings must be UTF-8). */
void export_stacks_utf8(struct sbuf *b, const char *s, size_t n);

/*
 * Depth-first walk of every stack with a non-zero self weight (column 0):
 * fn(ctx, frames, depth, self) gets the node ids from the root's child down
 * (names: ftree_name). Iterative (any depth). @return fn's first non-zero
 * return, or 0.
 */
typedef int (*export_stacks_fn)(void *ctx, const struct ftree *t, const uint32_t *nodes, size_t depth,
				int64_t self);
int export_stacks_walk(const struct ftree *t, export_stacks_fn fn, void *ctx);

#endif
