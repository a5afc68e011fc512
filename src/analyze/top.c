/* top.c — per-frame self/total/stacks table (see top.h). */
#include "top.h"

#include <stdlib.h>
#include <string.h>

static const int64_t *wcol(const struct ftree *t)
{
	return t->ncols == 2 ? t->total2 : t->total;
}

/* ends[i]: stack ends in the subtree of i. Children have larger indices than
 * their parents, so one backwards pass accumulates them. */
static uint64_t *stack_ends(const struct ftree *t)
{
	const int64_t *w = wcol(t);
	uint64_t *ends = gf_xcalloc(t->n ? t->n : 1, sizeof *ends);
	int64_t *kids = gf_xcalloc(t->n ? t->n : 1, sizeof *kids); /* sum of children's w */
	for (uint32_t i = t->n; i-- > 1;) {
		bool leaf = t->child[i] == FT_NONE;
		if (leaf || w[i] - kids[i] != 0)
			ends[i]++;
		uint32_t p = t->parent[i];
		ends[p] += ends[i];
		kids[p] += w[i];
	}
	free(kids);
	return ends;
}

uint64_t top_stacks(const struct ftree *t)
{
	if (t->n <= 1)
		return 0;
	uint64_t *ends = stack_ends(t);
	uint64_t r = ends[0];
	free(ends);
	return r;
}

void top_compute(const struct ftree *t, struct top_row **rowsp, size_t *np)
{
	const int64_t *w = wcol(t);
	uint32_t nn = pool_count(t->names);
	struct top_row *rows = gf_xcalloc(nn ? nn : 1, sizeof *rows);
	uint32_t *active = gf_xcalloc(nn ? nn : 1, sizeof *active);
	uint64_t *ends = stack_ends(t);
	bool *seen = gf_xcalloc(nn ? nn : 1, sizeof *seen);

	/* iterative DFS: stack entries are node ids; the high bit marks "exit" */
	uint32_t *st = NULL;
	size_t sn = 0, scap = 0;
#define PUSH(x) do { if (sn == scap) { scap = scap ? scap * 2 : 256; \
	st = gf_xreallocarray(st, scap, sizeof *st); } st[sn++] = (x); } while (0)
	for (uint32_t c = t->child[0]; c != FT_NONE; c = t->sib[c])
		PUSH(c);
	while (sn) {
		uint32_t e = st[--sn];
		if (e & 0x80000000u) {
			active[t->name[e & 0x7fffffffu]]--;
			continue;
		}
		uint32_t nm = t->name[e];
		struct top_row *r = &rows[nm];
		seen[nm] = true;
		r->nodes++;
		int64_t self = w[e];
		for (uint32_t c = t->child[e]; c != FT_NONE; c = t->sib[c])
			self -= w[c];
		r->self += self;
		if (active[nm] == 0) {
			r->total += w[e];
			r->stacks += ends[e];
		}
		active[nm]++;
		PUSH(e | 0x80000000u);
		for (uint32_t c = t->child[e]; c != FT_NONE; c = t->sib[c])
			PUSH(c);
	}
#undef PUSH
	size_t k = 0;
	for (uint32_t i = 0; i < nn; i++)
		if (seen[i]) {
			rows[i].name = i;
			rows[k++] = rows[i];
		}
	free(st);
	free(seen);
	free(ends);
	free(active);
	*rowsp = rows;
	*np = k;
}

static const struct pool *sort_names;
static int sort_by;

static int cmp_name(const struct top_row *a, const struct top_row *b)
{
	size_t la = pool_len(sort_names, a->name), lb = pool_len(sort_names, b->name);
	int c = memcmp(pool_str(sort_names, a->name), pool_str(sort_names, b->name), GF_MIN(la, lb));
	return c ? c : (la < lb ? -1 : la > lb);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	if (sort_by == TOP_SORT_SELF && a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (sort_by != TOP_SORT_NAME && a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (sort_by == TOP_SORT_TOTAL && a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return cmp_name(a, b);
}

void top_sort(struct top_row *rows, size_t n, const struct ftree *t, enum top_sort by)
{
	sort_names = t->names;
	sort_by = by;
	qsort(rows, n, sizeof *rows, cmp_rows);
	sort_names = NULL;
}
