/* test_tree_memory.c — memory per stack of the structures behind `top` and
 * `svg` (issue 16: 10 M unique stacks took 3.9 GB in top, 1.5 GB in svg),
 * from their own accounting (ftree_bytes, ftrie_bytes, pool_count), and the
 * results of the leaner code against plain reference computations: the
 * top table against a recursive walk, the in-place row sort against qsort,
 * a compacted tree that is added to again. */
#include "t.h"
#include "tree_util.h"

#include "stacks/ops/top.h"
#include "stacks/ftrie.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

#define NSTACKS 100000

/* "main;b<i/10>;c<i> 1" for i < n: n unique stacks, 1.1 n + 1 frames. */
static char *unique_stacks(size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "main;b%zu;c%zu 1\n", i / 10, i);
	fclose(fp);
	return buf;
}

/* The trie interns nothing while reading and holds at most ~75 bytes per
 * trie node (32-byte nodes, their array at most twice the count; 4-byte
 * slots at most 3/4 full, the table at most twice that), plus the copied
 * bytes for a stream that is not mapped. The old trie interned every frame
 * (pool entry, slot and copy) besides a 32-byte slot and a 24-byte node. */
T_TEST(test_tree_memory__trie_per_stack)
{
	size_t len;
	char *in = unique_stacks(NSTACKS, &len);
	size_t nodes = NSTACKS + NSTACKS / 10 + 1;
	for (int mapped = 0; mapped < 2; mapped++) {
		FILE *fp = mapped ? tmpfile() : fmemopen(in, len, "r");
		T_TRUE(fp != NULL);
		if (!fp)
			break;
		if (mapped) {
			fwrite(in, 1, len, fp);
			rewind(fp);
		}
		struct ftree t;
		ftree_init(&t, NULL, 0);
		struct ftrie *tr = ftrie_new(&t);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		struct sbuf err = SBUF_INIT;
		T_EQ_I64(ftrie_read(tr, fp, "m", NULL, &st, &err), 0);
		fclose(fp);
		T_EQ_I64(st.stacks, NSTACKS);
		T_EQ_I64(pool_count(t.names), 0);
		size_t bound = nodes * 75 + (mapped ? 0 : 2 * len + (1u << 20));
		if (ftrie_bytes(tr) > bound)
			T_FAIL_("%s: %zu bytes for %zu trie nodes (%.1f per node), bound %zu",
				mapped ? "mapped" : "copied", ftrie_bytes(tr), nodes,
				(double)ftrie_bytes(tr) / (double)nodes, bound);
		/* keep_min 0: every frame, interned once */
		ftrie_build(tr, 0);
		ftrie_free(tr);
		T_EQ_I64(t.n, nodes + 1);
		T_EQ_I64(pool_count(t.names), nodes);
		T_EQ_I64(t.total[0], NSTACKS);
		ftree_release(&t);
		sbuf_release(&err);
	}
	free(in);
}

/* The tree: 25 bytes per node allocated plus a lookup table at most 3/4
 * full (it was 1/2); ftree_compact leaves exactly 25 bytes per node. */
T_TEST(test_tree_memory__tree_per_node)
{
	size_t len;
	char *in = unique_stacks(NSTACKS, &len);
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(folded_read_mem(&t, in, len, "m", NULL, &st, &err), 0);
	T_EQ_I64(t.n, NSTACKS + NSTACKS / 10 + 2);
	/* wide parents: main (10,000 children) and every b (10) */
	T_TRUE(t.nhashed >= NSTACKS);
	T_TRUE(t.nhashed * 4 <= t.nslot * 3);
	T_TRUE(t.nslot <= 2 * (t.nhashed * 4 / 3 + 1));
	size_t before = ftree_bytes(&t);
	T_TRUE(before <= (size_t)t.cap * 25 + t.nslot * 4);
	ftree_compact(&t);
	T_EQ_I64(ftree_bytes(&t), (size_t)t.n * 25);
	T_TRUE(t.slot == NULL);
	free(in);
	ftree_release(&t);
	sbuf_release(&err);
}

/* A compacted tree still finds every child and can be added to (the table
 * comes back when a wide parent gets a new child). */
T_TEST(test_tree_memory__compact_then_add)
{
	const char *in = "m;a 1\nm;b 1\nm;c 1\nm;d 1\nm;e 1\nm;f 1\nx 2\n";
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(folded_read_mem(&t, in, strlen(in), "m", NULL, &st, &err), 0);
	ftree_compact(&t);
	uint32_t m = ftree_find(&t, 0, pool_find(t.names, "m", 1));
	T_TRUE(m != FT_NONE);
	T_TRUE(ftree_find(&t, m, pool_find(t.names, "e", 1)) != FT_NONE);
	T_TRUE(ftree_find(&t, m, pool_intern(t.names, "zz", 2)) == FT_NONE);
	/* add to the wide parent m, to a narrow one and a new chain */
	const char *more = "m;g 3\nm;a 4\nx;y 1\nn;o;p 1\n";
	T_EQ_I64(folded_read_mem(&t, more, strlen(more), "m", NULL, &st, &err), 0);
	T_TRUE(t.slot != NULL);
	T_TRUE(ftree_find(&t, m, pool_find(t.names, "g", 1)) != FT_NONE);
	char *out = folded_of(&t);
	T_EQ_STR(out, "m;a 5\nm;b 1\nm;c 1\nm;d 1\nm;e 1\nm;f 1\nm;g 3\nn;o;p 1\nx 2\nx;y 1\n");
	free(out);
	ftree_release(&t);
	sbuf_release(&err);
}

/* ---- top against a reference ---- */

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

struct ref {
	int64_t self, total;
	uint64_t stacks, nodes;
};

/* Stack ends in the subtree of x (x itself included). */
static uint64_t ref_ends(const struct ftree *t, const int64_t *w, uint32_t x)
{
	uint64_t e = 0;
	int64_t kids = 0;
	for (uint32_t c = t->child[x]; c != FT_NONE; c = t->sib[c]) {
		e += ref_ends(t, w, c);
		kids += w[c];
	}
	if (x && (t->child[x] == FT_NONE || w[x] != kids))
		e++;
	return e;
}

/* The definition in top.h, recursively: on[name] = open occurrences. */
static void ref_walk(const struct ftree *t, const int64_t *w, uint32_t x, struct ref *r,
		     unsigned *on)
{
	uint32_t nm = t->name[x];
	r[nm].nodes++;
	r[nm].self += ftree_self(t, x, t->ncols == 2);
	if (on[nm]++ == 0) {
		r[nm].total += w[x];
		r[nm].stacks += ref_ends(t, w, x);
	}
	for (uint32_t c = t->child[x]; c != FT_NONE; c = t->sib[c])
		ref_walk(t, w, c, r, on);
	on[nm]--;
}

static char *random_profile(bool diff, size_t *len)
{
	static const char *const nm[] = {"a", "b", "c", "rec", "x y", ""};
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	size_t lines = 1 + rnd(300);
	for (size_t i = 0; i < lines; i++) {
		size_t depth = 1 + rnd(9);
		for (size_t d = 0; d < depth; d++)
			fprintf(fp, "%s%s", d ? ";" : "", nm[rnd(d ? 6 : 3)]);
		/* zero weights: a leaf with zero self is still a stack, an
		 * inner node is not */
		if (diff)
			fprintf(fp, " %llu %llu\n", (unsigned long long)rnd(4), (unsigned long long)rnd(4));
		else
			fprintf(fp, " %llu\n", (unsigned long long)rnd(5));
	}
	fclose(fp);
	return buf;
}

T_TEST(test_tree_memory__top_matches_reference)
{
	for (int round = 0; round < 200; round++) {
		size_t len;
		bool diff = round % 4 == 3;
		char *in = random_profile(diff, &len);
		struct ftree t;
		ftree_init(&t, NULL, 0);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		struct sbuf err = SBUF_INIT;
		T_EQ_I64(folded_read_mem(&t, in, len, "m", NULL, &st, &err), 0);
		if (round % 2)
			ftree_compact(&t);
		uint32_t nn = pool_count(t.names);
		struct ref *r = calloc(nn + 1, sizeof *r);
		unsigned *on = calloc(nn + 1, sizeof *on);
		const int64_t *w = t.ncols == 2 ? t.total2 : t.total;
		for (uint32_t c = t.child[0]; c != FT_NONE; c = t.sib[c])
			ref_walk(&t, w, c, r, on);
		struct top_row *rows;
		size_t n;
		top_compute(&t, &rows, &n);
		size_t used = 0;
		for (uint32_t i = 0; i < nn; i++)
			used += r[i].nodes > 0;
		T_EQ_I64(n, used);
		for (size_t i = 0; i < n; i++) {
			const struct top_row *x = &rows[i];
			const struct ref *y = &r[x->name];
			if (x->self != y->self || x->total != y->total || x->stacks != y->stacks ||
			    x->nodes != y->nodes)
				T_FAIL_("round %d, '%s': self %lld/%lld total %lld/%lld stacks %llu/%llu "
					"nodes %llu/%llu", round, pool_str(t.names, x->name),
					(long long)x->self, (long long)y->self, (long long)x->total,
					(long long)y->total, (unsigned long long)x->stacks,
					(unsigned long long)y->stacks, (unsigned long long)x->nodes,
					(unsigned long long)y->nodes);
		}
		T_EQ_I64(top_stacks(&t), t.n > 1 ? ref_ends(&t, w, 0) : 0);
		free(rows);
		free(r);
		free(on);
		free(in);
		ftree_release(&t);
		sbuf_release(&err);
	}
}

/* ---- the in-place sort against qsort ---- */

static const struct pool *q_names;
static int q_by;

static int q_cmp(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	if (q_by == TOP_SORT_SELF && a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (q_by != TOP_SORT_NAME && a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (q_by == TOP_SORT_TOTAL && a->self != b->self)
		return a->self > b->self ? -1 : 1;
	size_t la = pool_len(q_names, a->name), lb = pool_len(q_names, b->name);
	int c = memcmp(pool_str(q_names, a->name), pool_str(q_names, b->name), la < lb ? la : lb);
	return c ? c : (la < lb ? -1 : la > lb);
}

T_TEST(test_tree_memory__sort_as_qsort)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	char nb[32];
	for (int i = 0; i < 3000; i++) {
		snprintf(nb, sizeof nb, "f%d", i * 7919 % 3001);
		pool_intern_str(t.names, nb);
	}
	for (int round = 0; round < 60; round++) {
		size_t n = round < 20 ? (size_t)round : 1 + rnd(3000);
		struct top_row *a = calloc(n + 1, sizeof *a), *b = calloc(n + 1, sizeof *b);
		/* distinct names; few distinct weights (ties), some sorted runs */
		for (size_t i = 0; i < n; i++) {
			a[i].name = (uint32_t)i;
			a[i].self = round % 5 == 0 ? (int64_t)i : (int64_t)rnd(4);
			a[i].total = round % 7 == 0 ? (int64_t)(n - i) : a[i].self + (int64_t)rnd(3);
		}
		for (int by = 0; by < 3; by++) {
			memcpy(b, a, n * sizeof *a);
			q_names = t.names;
			q_by = by;
			qsort(b, n, sizeof *b, q_cmp);
			struct top_row *c = calloc(n + 1, sizeof *c);
			memcpy(c, a, n * sizeof *a);
			top_sort(c, n, &t, (enum top_sort)by);
			for (size_t i = 0; i < n; i++)
				if (c[i].name != b[i].name) {
					T_FAIL_("round %d, sort %d, n %zu: row %zu is '%s', expected '%s'", round,
						by, n, i, pool_str(t.names, c[i].name),
						pool_str(t.names, b[i].name));
					break;
				}
			free(c);
		}
		free(a);
		free(b);
	}
	ftree_release(&t);
}

int main(void)
{
	T_RUN(test_tree_memory__trie_per_stack);
	T_RUN(test_tree_memory__tree_per_node);
	T_RUN(test_tree_memory__compact_then_add);
	T_RUN(test_tree_memory__top_matches_reference);
	T_RUN(test_tree_memory__sort_as_qsort);
	return t_done();
}
