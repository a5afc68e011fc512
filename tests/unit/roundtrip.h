/*
 * roundtrip.h — the folded round-trip property, shared by test_folded_hostile
 * and fuzz_folded (header-only; include after stacks/ftree.h).
 *
 * rt_map_name: what the folded writer makes of a frame name (folded_out.h):
 * ';' -> ':', LF and NUL -> ' ', a first frame "#<blank>..." -> "#_...".
 * rt_same: two trees hold the same weighted stacks: every node with a
 * non-zero weight in one has a node at the same path in the other with the
 * same weights, compared at the larger of the two scales (the writer drops
 * trailing zeros, so the scale read back may be lower).
 */
#ifndef GF_ROUNDTRIP_H
#define GF_ROUNDTRIP_H

#include "base/sbuf.h"
#include "stacks/ftree.h"

#include <stdio.h>
#include <string.h>

static inline void rt_map_name(struct sbuf *b, const char *s, size_t n, bool first)
{
	size_t i = 0;
	if (first && n >= 2 && s[0] == '#' && (s[1] == ' ' || s[1] == '\t' || s[1] == '\n' || s[1] == 0)) {
		sbuf_addstr(b, "#_");
		i = 2;
	}
	for (; i < n; i++)
		sbuf_addch(b, s[i] == ';' ? ':' : s[i] == '\n' || s[i] == 0 ? ' ' : s[i]);
}

static inline __int128 rt_at(int64_t v, unsigned from, unsigned to)
{
	__int128 x = v;
	for (unsigned i = from; i < to; i++)
		x *= 10;
	return x;
}

static inline uint32_t rt_node(const struct ftree *b, const struct ftree *a, uint32_t x)
{
	if (x == 0)
		return 0;
	uint32_t p = rt_node(b, a, a->parent[x]);
	if (p == FT_NONE)
		return FT_NONE;
	uint32_t id = pool_find(b->names, ftree_name(a, x), pool_len(a->names, a->name[x]));
	return id == UINT32_MAX ? FT_NONE : ftree_find(b, p, id);
}

static inline bool rt_nonzero(const struct ftree *t, uint32_t x)
{
	return t->total[x] || (t->ncols == 2 && t->total2[x]);
}

/* One direction: every weighted node of a is in b with the same weights. */
static inline bool rt_sub(const struct ftree *a, const struct ftree *b, char *why, size_t wn)
{
	unsigned S = a->scale > b->scale ? a->scale : b->scale;
	for (uint32_t x = 0; x < a->n; x++) {
		if (!rt_nonzero(a, x))
			continue;
		uint32_t y = rt_node(b, a, x);
		if (y == FT_NONE) {
			snprintf(why, wn, "node %u '%.40s' (depth %u) missing", x, ftree_name(a, x), ftree_depth(a, x));
			return false;
		}
		for (int c = 0; c < a->ncols; c++) {
			int64_t va = ftree_total(a, x, c), vb = c < b->ncols ? ftree_total(b, y, c) : 0;
			if (rt_at(va, a->scale, S) != rt_at(vb, b->scale, S)) {
				snprintf(why, wn, "node '%.40s' col %d: %lld@%u vs %lld@%u", ftree_name(a, x), c,
					 (long long)va, a->scale, (long long)vb, b->scale);
				return false;
			}
		}
	}
	return true;
}

static inline bool rt_same(const struct ftree *a, const struct ftree *b, char *why, size_t wn)
{
	if (a->total[0] || b->total[0] || (a->ncols == 2 && a->total2[0])) {
		if (a->ncols != b->ncols) {
			snprintf(why, wn, "ncols %d vs %d", a->ncols, b->ncols);
			return false;
		}
	}
	return rt_sub(a, b, why, wn) && rt_sub(b, a, why, wn);
}

#endif
