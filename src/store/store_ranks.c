/* store_ranks.c — a stored side as ranks (see store_ranks.h). */
#include "store/store_ranks.h"

#include "stacks/folded.h"

#include <stdlib.h>
#include <string.h>

struct run_rank {
	int64_t id, rank;
};

static int cmp_run_rank(const void *a, const void *b)
{
	const struct run_rank *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The rank label of run id: -1 when absent or not a number. */
static int run_rank(struct store *s, int64_t id, int64_t *rank, struct sbuf *err)
{
	struct store_stmt *st;
	*rank = -1;
	int rc = store_eng_prepare(s->e, "SELECT value FROM labels WHERE run = ? AND key = 'rank'", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, id);
	if ((rc = store_eng_step(st, err)) == 1) {
		size_t len;
		const char *v = store_eng_col_text(st, 0, &len);
		int64_t x = 0;
		size_t i = 0;
		for (; i < len && i < 18 && v[i] >= '0' && v[i] <= '9'; i++)
			x = x * 10 + (v[i] - '0');
		if (len && i == len)
			*rank = x;
	}
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

static int side_rank(void *ctx, size_t i, int64_t *rank, struct sbuf *err)
{
	(void)err;
	*rank = ((struct store_ranks *)ctx)->rank[i];
	return GF_OK;
}

static int side_tree(void *ctx, size_t i, struct ftree *t, struct sbuf *err)
{
	struct store_ranks *r = ctx;
	struct sbuf text = SBUF_INIT;
	int rc = store_runs_text(r->s, r->ids + r->first[i], r->first[i + 1] - r->first[i], r->weight, &text, err);
	if (!rc) {
		struct folded_opts fo = { .strict = true, .reverse = false };
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		rc = folded_read_mem(t, text.buf, text.len, r->names[i], &fo, &st, err);
	}
	sbuf_release(&text);
	return rc;
}

static const char *side_name(void *ctx, size_t i)
{
	return ((struct store_ranks *)ctx)->names[i];
}

int store_ranks_open(struct store_ranks *r, struct store *s, const char *spec, const char *w, struct sbuf *err)
{
	memset(r, 0, sizeof *r);
	r->s = s;
	r->weight = w;
	size_t n;
	int rc = store_side_runs(s, spec, &r->ids, &n, &r->what, err);
	if (rc)
		return rc;
	struct run_rank *rr = gf_xcalloc(n, sizeof *rr);
	for (size_t i = 0; i < n && !rc; i++) {
		rr[i].id = r->ids[i];
		rc = run_rank(s, r->ids[i], &rr[i].rank, err);
	}
	if (rc) {
		free(rr);
		return rc;
	}
	qsort(rr, n, sizeof *rr, cmp_run_rank);
	r->first = gf_xcalloc(n + 1, sizeof *r->first);
	r->rank = gf_xcalloc(n, sizeof *r->rank);
	r->names = gf_xcalloc(n, sizeof *r->names);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		r->ids[i] = rr[i].id;
	for (size_t i = 0, j; i < n; i = j) {
		struct sbuf name = SBUF_INIT;
		for (j = i + 1; j < n && rr[j].rank == rr[i].rank; j++)
			;
		sbuf_addf(&name, "run%s ", j - i > 1 ? "s" : "");
		for (size_t m = i; m < j; m++)
			sbuf_addf(&name, "%s%lld", m > i ? "+" : "", (long long)rr[m].id);
		r->first[k] = i;
		r->rank[k] = rr[i].rank;
		r->names[k++] = sbuf_detach(&name, NULL);
	}
	r->first[k] = n;
	free(rr);
	r->side = (struct ranks_side){ k, side_rank, side_tree, side_name, r, r->what.buf };
	return GF_OK;
}

void store_ranks_release(struct store_ranks *r)
{
	for (size_t i = 0; i < r->side.n; i++)
		free(r->names[i]);
	free(r->names);
	free(r->rank);
	free(r->first);
	free(r->ids);
	sbuf_release(&r->what);
}
