/*
 * top.h — the call-count table: per frame name, its self weight, its total
 * weight (a recursive frame counted once per stack: only its outermost
 * occurrences on a path add their totals), and the number of distinct stacks
 * (merged stack lines) that contain it.
 *
 *   struct top_row *rows; size_t n;
 *   top_compute(&tree, &rows, &n);
 *   top_sort(rows, n, &tree, TOP_SORT_SELF);
 *   ... free(rows);
 *
 * Memory: 32 bytes per frame name, nothing per tree node (one walk over the
 * child lists).
 *
 * Weights come from the tree's width column (column 1, "after", for a
 * differential tree), in tree units (10^-t->scale), exact.
 *
 * Layer: stacks/ops.
 */
#ifndef GF_TOP_H
#define GF_TOP_H

#include "base/gf.h"
#include "stacks/ftree.h"

struct top_row {
	uint32_t name;   /* pool id in t->names */
	uint32_t nodes;  /* tree nodes with this name */
	int64_t self;    /* sum of self weights of its nodes */
	int64_t total;   /* sum of totals of its outermost nodes */
	uint64_t stacks; /* distinct stacks (lines) containing it */
};

enum top_sort { TOP_SORT_SELF = 0, TOP_SORT_TOTAL = 1, TOP_SORT_NAME = 2, TOP_SORT_N };
/* The sort keys' names (--sort) in enum order, NULL-terminated. */
extern const char *const top_sort_names[TOP_SORT_N + 1];

/*
 * Fills *rows (malloc'ed; the caller frees) with one row per frame name that
 * occurs in the tree, in name-id order. A stack is a node where a stack line
 * ends: a leaf, or a node with non-zero self weight.
 */
void top_compute(const struct ftree *t, struct top_row **rows, size_t *n);

/* Sorts by self or total (descending; ties by name bytes) or by name bytes. */
void top_sort(struct top_row *rows, size_t n, const struct ftree *t, enum top_sort by);

/* Number of distinct stacks in the tree (the denominator for stack shares). */
uint64_t top_stacks(const struct ftree *t);

#endif
