/*
 * merge.h — sum folded files of the same kind (several capture windows of
 * one rank, several runs of one benchmark) into one folded file.
 *
 * Like with like: the files' "# gpuflame:" headers must agree on rank,
 * weight and unit (a key absent from every file is fine; absent from some
 * and present in others is a difference). The article's rule is "never merge
 * ranks into one graph"; allow_ranks / allow_weights / allow_units lift the
 * check, and the merged value then lists the distinct values ("0,1").
 * Merged header: steps = the sum of the files' steps (dropped when a file
 * has none), sources = number of files merged, source = the distinct source=
 * values joined with ',' (shortened with "+N more" past 1000 bytes); every
 * other key keeps its value when all files agree, else the distinct values
 * joined with ','.
 *
 * Streaming (merge_inputs): when every input is sorted by stack (byte order of
 * the stack text, i.e. `LC_ALL=C sort` for names without control bytes),
 * the files are merged line by line with a k-way heap: memory is one line
 * per file, independent of the number of stacks. Equal stacks, within a file
 * or across files, are summed exactly (decimal counts at the largest scale
 * seen in the group). The output is sorted the same way, so it can be merged
 * again.
 * Files written by gpuflame fold (folded_write: tree order, children sorted
 * by name) are sorted frame by frame, which differs from byte order when a
 * name is a prefix of a sibling's followed by a byte below ';' ("f1" and
 * "f12"): when byte order fails and the inputs can be re-read, the merge
 * restarts once in tree order (';' below every byte; stats->tree_order),
 * still streaming, and its output is then in tree order.
 * Unsorted input: detected at the first line whose stack sorts before the
 * previous stack of the same file. When every input can be re-read,
 * merge_inputs starts again in memory (a call
 * tree: memory grows with the number of distinct stacks), writes the same
 * sorted output and sets stats->fell_back; otherwise (stdin input, or
 * opts.no_fallback) it fails with advice to sort the inputs.
 *
 * Reading and writing (docs/diff.md, "Folded text between commands"): lines
 * are read with the bounded line reader (stacks/folded.h: a line longer than
 * gf_limits.token or an input larger than gf_limits.input is GF_EINTERNAL; a
 * read error is an error, never end of file); one or two counts are decided
 * by each file's first stack line, as folded_read does; every stack is
 * written with folded_end_stack so that merge, norm, diff, top and svg read
 * the output back to the same stacks (";" stays "; 3", never " 3"); an
 * output whose total would overflow int64 (no reader could hold it) is
 * GF_EINPUT. With merge_sink.terminal the lines are escaped for a
 * terminal (folded_out.h).
 *
 * Layer: stacks/ops. Never prints, opens no file.
 */
#ifndef GF_MERGE_H
#define GF_MERGE_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

#include <stdio.h>

struct merge_opts {
	bool allow_ranks, allow_weights, allow_units;
	bool no_fallback; /* unsorted input is an error even when the tree could be used */
	bool strict;      /* invalid lines are errors (default: skipped and counted) */
};

/*
 * Where merge_inputs writes: fp, and how to empty it for another pass.
 * restart NULL: fp cannot be rewound (stdout, a pipe); with inputs that can
 * be re-read, the order is then checked by passes that write nothing, and
 * the output is written in one pass. restart(ctx) empties fp (a regular
 * output file: cli's ofile temporary) and @return true when it could.
 */
struct merge_sink {
	FILE *fp;
	bool (*restart)(void *ctx);
	void *ctx;
	bool terminal; /* fp is a terminal: names escaped (folded_out.h) */
};

struct merge_stats {
	uint64_t files;
	uint64_t bytes;        /* input bytes read (last pass) */
	uint64_t lines;        /* stack lines read */
	uint64_t out_stacks;   /* lines written */
	uint64_t invalid;      /* skipped invalid lines */
	uint64_t late_meta;    /* "# gpuflame:" lines after the first stack (ignored) */
	bool fell_back;        /* unsorted input: merged in memory */
	bool tree_order;       /* streamed in gpuflame's tree order, not byte order */
	char unsorted[256];    /* where the first unsorted line was ("" if none) */
	char first_invalid[256]; /* "'file': line N: expected ..." of the first invalid line */
};

/*
 * Merging of headers, one file at a time. merge_meta_add checks m against the
 * files added before (rank/weight/unit) and records its values.
 * @return GF_OK, or GF_EUSAGE with "'fname': rank '1' differs from '0' in
 * 'a.folded'; ... use --allow-ranks" in err.
 */
struct merge_meta;
struct merge_meta *merge_meta_new(const struct merge_opts *o);
void merge_meta_free(struct merge_meta *mm);
int merge_meta_add(struct merge_meta *mm, const struct ftree_meta *m, const char *fname, struct sbuf *err);
/* Writes the merged header into out (cleared first). */
void merge_meta_result(const struct merge_meta *mm, struct ftree_meta *out);

/*
 * Merges the opened folded inputs in[0..n) (input/input.h; the caller opens
 * and closes them: ops opens no file) into out->fp, header first. Another
 * pass over the inputs (the tree-order restart, the in-memory fallback, the
 * writing pass after a dry one) re-opens them with input_reopen, so it
 * needs every input to be re-readable (input_can_reopen: named regular
 * files, compressed or not, and stdin redirected from a regular file);
 * with a pipe among them the output is written as it is merged, and an
 * unsorted input stops it part-way (an error, exit 1). The output is begun
 * again with out->restart, or, without one, a first pass that writes
 * nothing finds the order (keeping up to 1 MiB of output in memory); the
 * inputs are read a second time, writing, only when the output is larger.
 * The bytes written are the same either way.
 * @return GF_OK; GF_EINPUT (unreadable input, invalid line with strict,
 * differential input, unsorted input without fallback, overflow); GF_EUSAGE
 * (headers refused); GF_EOUTPUT (write error); GF_EINTERNAL (a limit).
 * Message in err.
 */
struct input;
int merge_inputs(struct input *const *in, size_t n, const struct merge_sink *out, const struct merge_opts *o,
		 struct merge_stats *st, struct sbuf *err);

/*
 * Writes t's stack lines (nodes with non-zero self weight) sorted by stack
 * bytes, as merge_inputs does, header first ("stack w" or "stack w0 w1").
 * @return 0, or -1 on a write error.
 */
int merge_write_sorted(FILE *fp, const struct ftree *t, bool terminal);

#endif
