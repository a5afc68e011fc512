/*
 * tree_util.h — helpers shared by the tree tests and fuzzers (header-only;
 * include after stacks/ftree.h and write/folded_out.h).
 */
#ifndef GF_TREE_UTIL_H
#define GF_TREE_UTIL_H

#include "stacks/ftree.h"
#include "stacks/folded_out.h"

#include <stdio.h>

/* The tree as sorted folded text (caller frees). */
static inline char *folded_of(struct ftree *t)
{
	ftree_sort(t);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	folded_write(fp, t, false);
	fclose(fp);
	return buf;
}

/* Node of `full` with the same path as node x of t (FT_NONE if none). */
static inline uint32_t same_node(const struct ftree *full, const struct ftree *t, uint32_t x)
{
	if (x == 0)
		return 0;
	uint32_t p = same_node(full, t, t->parent[x]);
	if (p == FT_NONE)
		return FT_NONE;
	uint32_t id = pool_find(full->names, ftree_name(t, x), pool_len(t->names, t->name[x]));
	return id == UINT32_MAX ? FT_NONE : ftree_find(full, p, id);
}

#endif
