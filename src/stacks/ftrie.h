/*
 * ftrie.h — build a call tree from folded text when only its wide part
 * will be used (the SVG renderer prunes frames narrower than minwidth).
 *
 * Most frames of a big profile belong to long single-line tails (a stack that
 * leaves the shared prefixes never meets another line again). The trie here
 * keeps such a tail as the raw bytes of its frames under one node; a later
 * line that shares the tail splits it. Nothing is interned while reading: a
 * node names its frame by pointing into the line's bytes. So reading costs
 * little more than the shared prefixes, and memory is 32 bytes per trie node
 * plus a 4-byte table slot, besides the bytes themselves (the mapped file, or
 * a copy of each line's unshared part for other streams). ftrie_build then
 * materialises a struct ftree holding every node whose total is at least
 * keep_min, plus all children of those nodes (lighter children as leaves,
 * with their exact totals), which is all the renderer looks at; totals are
 * exact. Only those nodes' names are interned.
 *
 *   struct ftree t; ftree_init(&t, NULL, 0);
 *   struct ftrie *tr = ftrie_new(&t);
 *   rc = ftrie_read(tr, fp, "in.folded", &opts, &stats, &err);  // per file
 *   ftrie_build(tr, keep_min);   // fills t (scale, meta, nodes)
 *   ftrie_free(tr);
 *
 * Regular files are mapped, and tails then point into the mapping (which
 * lives until ftrie_free); other streams are read with large freads and
 * tails are copied. Lookups hash the line's bytes along the path and
 * confirm every match exactly (parent node and name bytes); see
 * the notes at the top of ftrie.c and docs/svg.md "Performance".
 *
 * Parsing rules, statistics and messages are folded_read's (stacks/folded.h):
 * lines are classified by folded_parse_line. Differential (two-count) input is
 * not supported: ftrie_read then returns FTRIE_UNSUPPORTED and the caller
 * re-reads with folded_read. Flame chart trees are not supported either, nor
 * an importer's tree (input_open_obj): FTRIE_UNSUPPORTED before reading,
 * and folded_read_in merges it whole.
 *
 * Layer: stacks.
 */
#ifndef GF_FTRIE_H
#define GF_FTRIE_H

#include "stacks/folded.h"
#include "stacks/ftree.h"

#include <stdio.h>

#define FTRIE_UNSUPPORTED 1

struct ftrie;

/* t must be freshly initialised (no stacks, not flame chart). */
struct ftrie *ftrie_new(struct ftree *t);
void ftrie_free(struct ftrie *tr);

/*
 * Reads all lines of fp. @return GF_OK; GF_EINPUT with "'fname': line N: ..."
 * in err (as folded_read); FTRIE_UNSUPPORTED at the first two-count stack
 * line (nothing else is reported then).
 */
int ftrie_read(struct ftrie *tr, FILE *fp, const char *fname, const struct folded_opts *opts,
	       struct folded_stats *st, struct sbuf *err);

/*
 * Same from an opened input (input/input.h): a plain regular file is viewed
 * whole (input_map; the tails point into it, so in must stay open until
 * ftrie_free), anything else (compressed, stdin) is read with input_read.
 */
struct input;
int ftrie_read_in(struct ftrie *tr, struct input *in, const struct folded_opts *opts, struct folded_stats *st,
		  struct sbuf *err);

/* Total weight read so far, in units of 10^-ftrie_scale. */
int64_t ftrie_total(const struct ftrie *tr);
unsigned ftrie_scale(const struct ftrie *tr);

/* Bytes held by the trie (nodes, lookup table, copied bytes; not the
 * mapped files), for memory accounting. */
size_t ftrie_bytes(const struct ftrie *tr);

/* Fills the tree given to ftrie_new (see above). Call once; only
 * ftrie_free may follow. */
void ftrie_build(struct ftrie *tr, int64_t keep_min);

#endif
