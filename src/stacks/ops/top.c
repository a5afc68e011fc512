/* top.c — per-frame self/total/stacks table (see top.h).
 *
 * Memory: one row per frame name (32 bytes) and a stack as deep as the
 * tree; nothing per node. One depth-first walk over the child lists gives
 * every sum: a node's self weight is its total minus its children's, a stack
 * end (a leaf, or a node with non-zero self weight) bumps a running count,
 * and a node's stacks are the ends counted between its entry and its exit.
 * While walking, a row's name field counts the open occurrences of the name
 * on the current path (so only outermost ones add their totals); it is set
 * to the name id at the end. */
#include "stacks/ops/top.h"

#include <stdlib.h>
#include <string.h>

const char *const top_sort_names[] = {
	[TOP_SORT_SELF] = "self", [TOP_SORT_TOTAL] = "total", [TOP_SORT_NAME] = "name", [TOP_SORT_N] = NULL,
};
_Static_assert(GF_ARRAY_LEN(top_sort_names) == TOP_SORT_N + 1, "a name per sort key");

static const int64_t *wcol(const struct ftree *t)
{
	return t->ncols == 2 ? t->total2 : t->total;
}

static int64_t self_of(const struct ftree *t, const int64_t *w, uint32_t i)
{
	int64_t s = w[i];
	for (uint32_t c = t->child[i]; c != FT_NONE; c = t->sib[c])
		s -= w[c];
	return s;
}

/* A stack line ends at i: a leaf, or a node with non-zero self weight. */
static bool is_end(const struct ftree *t, uint32_t i, int64_t self)
{
	return t->child[i] == FT_NONE || self != 0;
}

uint64_t top_stacks(const struct ftree *t)
{
	const int64_t *w = wcol(t);
	uint64_t r = 0;
	for (uint32_t i = 1; i < t->n; i++)
		r += is_end(t, i, self_of(t, w, i));
	return r;
}

struct open_node {
	uint32_t node;
	uint64_t ends0; /* stack ends counted before the node was entered */
};

void top_compute(const struct ftree *t, struct top_row **rowsp, size_t *np)
{
	const int64_t *w = wcol(t);
	uint32_t nn = pool_count(t->names);
	struct top_row *rows = gf_xcalloc(nn ? nn : 1, sizeof *rows);
	struct open_node *path = NULL; /* the open ancestors of the current node */
	size_t depth = 0, cap = 0;
	uint64_t ends = 0;
	uint32_t cur = t->n > 1 ? t->child[0] : FT_NONE;
	while (cur != FT_NONE) {
		/* enter cur */
		struct top_row *r = &rows[t->name[cur]];
		int64_t self = self_of(t, w, cur);
		if (depth == cap) {
			cap = cap ? cap * 2 : 256;
			path = gf_xreallocarray(path, cap, sizeof *path);
		}
		path[depth++] = (struct open_node){cur, ends};
		r->nodes++;
		r->self += self;
		if (r->name++ == 0) /* outermost occurrence on this path */
			r->total += w[cur];
		ends += is_end(t, cur, self);
		if (t->child[cur] != FT_NONE) {
			cur = t->child[cur];
			continue;
		}
		/* exit open nodes until one has a next sibling */
		for (;;) {
			struct open_node o = path[--depth];
			r = &rows[t->name[o.node]];
			if (--r->name == 0)
				r->stacks += ends - o.ends0;
			if (t->sib[o.node] != FT_NONE) {
				cur = t->sib[o.node];
				break;
			}
			if (depth == 0) {
				cur = FT_NONE;
				break;
			}
		}
	}
	free(path);
	size_t k = 0;
	for (uint32_t i = 0; i < nn; i++)
		if (rows[i].nodes) {
			rows[i].name = i;
			rows[k++] = rows[i];
		}
	if (k < nn)
		rows = gf_xreallocarray(rows, k ? k : 1, sizeof *rows);
	*rowsp = rows;
	*np = k;
}
/* What a sort compares by: the key and the names (no state outside the call). */
struct sort_ctx {
	const struct pool *names;
	enum top_sort by;
};

static int cmp_rows(const struct sort_ctx *x, const struct top_row *a, const struct top_row *b)
{
	if (x->by == TOP_SORT_SELF && a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (x->by != TOP_SORT_NAME && a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (x->by == TOP_SORT_TOTAL && a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return pool_cmp(x->names, a->name, b->name);
}

static void swap_rows(struct top_row *a, struct top_row *b)
{
	struct top_row x = *a;
	*a = *b;
	*b = x;
}

/* In-place quicksort (median of three, insertion sort for short runs, the
 * larger side looped): no copy of the rows, which glibc's qsort makes (a
 * merge sort with a buffer as big as the array). The order is total (ties
 * end on distinct names), so the result is the same as any sort's. */
static void sort_rows(const struct sort_ctx *x, struct top_row *v, size_t n)
{
	while (n > 16) {
		size_t m = n / 2;
		if (cmp_rows(x, &v[m], &v[0]) < 0)
			swap_rows(&v[m], &v[0]);
		if (cmp_rows(x, &v[n - 1], &v[m]) < 0) {
			swap_rows(&v[n - 1], &v[m]);
			if (cmp_rows(x, &v[m], &v[0]) < 0)
				swap_rows(&v[m], &v[0]);
		}
		struct top_row piv = v[m];
		size_t i = 0, j = n - 1;
		for (;;) {
			while (cmp_rows(x, &v[i], &piv) < 0)
				i++;
			while (cmp_rows(x, &piv, &v[j]) < 0)
				j--;
			if (i >= j)
				break;
			swap_rows(&v[i], &v[j]);
			i++;
			j--;
		}
		/* v[0, j] <= piv <= v[j + 1, n) */
		size_t left = j + 1;
		if (left < n - left) {
			sort_rows(x, v, left);
			v += left;
			n -= left;
		} else {
			sort_rows(x, v + left, n - left);
			n = left;
		}
	}
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && cmp_rows(x, &v[k], &v[k - 1]) < 0; k--)
			swap_rows(&v[k], &v[k - 1]);
}

void top_sort(struct top_row *rows, size_t n, const struct ftree *t, enum top_sort by)
{
	struct sort_ctx x = { t->names, by };
	sort_rows(&x, rows, n);
	if (GF_CHECKS)
		for (size_t i = 1; i < n; i++)
			GF_ASSERT(cmp_rows(&x, &rows[i - 1], &rows[i]) < 0); /* a total order: ties end on names */
}
