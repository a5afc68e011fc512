/*
 * ftree.h — the call tree: folded stacks merged by common prefix, with exact
 * integer weights. It is the common currency of gpuflame: readers of folded
 * text and folders of traces build one, svg/top/diff/merge read one, and the
 * folded writer turns one back into text.
 *
 * Layout: nodes are indices 0..n-1 in parallel arrays; node 0 is the root
 * (name FT_NONE). Children of a node form a singly linked list (child, sib).
 * A node's weight is its *total* (itself plus all descendants): adding a
 * stack adds its weight to every node on the path, so totals are exact by
 * construction and self weight is derived (ftree_self). Weights are int64 in
 * units of 10^-scale, so decimal counts are summed without drift.
 *
 * Differential trees (two counts per stack, "stack before after") keep the
 * second column in total2; col 0 is "before", col 1 "after".
 *
 * Flame chart mode (ft_init flag): a frame merges only with the *last* child
 * of its parent, so input order is kept (flamegraph.pl --flamechart).
 *
 * Metadata: the "# gpuflame: key=value; ..." header of a folded file is kept
 * in t->meta as ordered key/value pairs.
 *
 * Ownership: the tree owns its arrays and, unless one was passed to
 * ftree_init, its name pool. Layer: stacks.
 */
#ifndef GF_FTREE_H
#define GF_FTREE_H

#include "base/gf.h"
#include "base/pool.h"
#include "base/sbuf.h"

#define FT_NONE UINT32_MAX
#define FT_MAX_META 64
#define FT_SCAN_KIDS 4

struct ftree_meta_kv {
	char *key;
	char *val;
};

struct ftree_meta {
	struct ftree_meta_kv kv[FT_MAX_META];
	unsigned n;
};

struct ftree {
	struct pool *names;
	bool own_names;
	bool flamechart;
	int ncols;       /* 1, or 2 for a differential tree */
	unsigned scale;  /* weights are in units of 10^-scale */
	uint32_t n, cap; /* nodes */
	uint32_t *name, *parent, *child, *sib;
	uint32_t *last;  /* last child; only in flame chart mode */
	int64_t *total;  /* column 0 */
	int64_t *total2; /* column 1; NULL unless ncols == 2 */
	/* Child lookup (internal): a parent with at most FT_SCAN_KIDS children
	 * is searched by walking its child list; the children of wider parents
	 * are also in the hash table slot ((parent, name) -> node + 1). New
	 * chains of frames (most of a random profile) thus never touch the
	 * table, which keeps building fast and small. The table is kept at
	 * most 3/4 full; slot is NULL after ftree_compact. */
	uint32_t *slot;
	size_t nslot;
	size_t nhashed;  /* entries in slot */
	uint8_t *nkid;   /* number of children, saturating at 255 */
	struct ftree_meta meta;
};

#define FT_FLAMECHART 1u

/* names: a pool to share (not freed by the tree), or NULL to own a new one. */
void ftree_init(struct ftree *t, struct pool *names, unsigned flags);
void ftree_release(struct ftree *t);

/* Child of `parent` named `name`, created when missing. */
uint32_t ftree_child(struct ftree *t, uint32_t parent, uint32_t name);
/* @return the child or FT_NONE; never creates. */
uint32_t ftree_find(const struct ftree *t, uint32_t parent, uint32_t name);

/*
 * Adds one stack (root-first frame name ids) with weight w[0] (and w[1] for a
 * differential tree) in units of the tree's current scale.
 * @return the leaf node, or FT_NONE with a message in err on int64 overflow
 * (the tree is then unchanged).
 */
uint32_t ftree_add(struct ftree *t, const uint32_t *frames, size_t depth,
		   const int64_t *w, struct sbuf *err);

/*
 * inferno's --base: into dst (initialised by the caller over src's name
 * pool), every stack of src that holds a frame named one of base[0..nbase)
 * above its leaf, re-rooted at the innermost such frame (inferno compares
 * the leaf with its count attached, so a leaf never matches: the same rule
 * here); stacks without one are left out (inferno also drops a stack whose
 * only match is its root: not here). src's header is copied. @return GF_OK
 * or GF_EINPUT (int64 overflow, err set).
 */
int ftree_rebase(const struct ftree *src, struct ftree *dst, const char *const *base, size_t nbase,
		 struct sbuf *err);

/*
 * Frees the child lookup table and trims the node arrays to the nodes in use,
 * for a tree that is only read from now on (top, svg). Adding to it stays
 * correct: the table is rebuilt when a wide parent gets a new child.
 */
void ftree_compact(struct ftree *t);
/* Bytes held by the node arrays and the lookup table (not the name pool:
 * pool_bytes), for memory accounting. About 25 bytes per node allocated
 * (33 differential) plus 4 per table slot (at most 1/4 of them empty once
 * more than 768 are used). */
size_t ftree_bytes(const struct ftree *t);

/*
 * Adds the stacks of src into dst (both one-count trees), as reading src's
 * folded text into dst would: the same nodes and weights, siblings created
 * in the order of the text's sorted lines; the scale is raised to the
 * larger. Linear in src's nodes (plus sorting each node's children), where
 * the text can be quadratic (a chain N deep is N stacks of up to N frames).
 * @return GF_OK with *stacks = src's stacks (nodes with a self weight), or
 * GF_EINPUT on overflow (dst is then partly added to).
 */
int ftree_merge(struct ftree *dst, const struct ftree *src, uint64_t *stacks, struct sbuf *err);

/* Makes the tree differential (allocates column 1, zero-filled). */
void ftree_make_diff(struct ftree *t);

/* Raises the scale to `scale` (>= current), multiplying every weight.
 * @return GF_OK, or GF_EINPUT with a message on overflow. */
int ftree_set_scale(struct ftree *t, unsigned scale, struct sbuf *err);

/* Sorts every child list by name bytes (no-op in flame chart mode). */
void ftree_sort(struct ftree *t);

/* Self weight of a node in column col: total minus the children's totals. */
int64_t ftree_self(const struct ftree *t, uint32_t node, int col);
static inline int64_t ftree_total(const struct ftree *t, uint32_t node, int col)
{
	return col ? t->total2[node] : t->total[node];
}
static inline const char *ftree_name(const struct ftree *t, uint32_t node)
{
	return node == 0 ? "" : pool_str(t->names, t->name[node]);
}
/* Depth of a node (root = 0). */
unsigned ftree_depth(const struct ftree *t, uint32_t node);

/*
 * Appends the frame names from the root's child down to `node`, joined with
 * ';', to b.
 */
void ftree_path(const struct ftree *t, uint32_t node, struct sbuf *b);

/* Metadata header. ftree_meta_set replaces an existing key. */
const char *ftree_meta_get(const struct ftree_meta *m, const char *key);
void ftree_meta_set(struct ftree_meta *m, const char *key, const char *val);
void ftree_meta_del(struct ftree_meta *m, const char *key);
void ftree_meta_clear(struct ftree_meta *m);
void ftree_meta_copy(struct ftree_meta *dst, const struct ftree_meta *src);

#endif
