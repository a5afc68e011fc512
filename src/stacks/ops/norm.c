/* norm.c — exact rescaling of call-tree weights (see norm.h). */
#include "stacks/ops/norm.h"

#include "base/num.h"

#include <stdlib.h>
#include <string.h>

const char *const norm_round_names[] = {
	[NORM_ROUND_LARGEST] = "largest", [NORM_ROUND_EVEN] = "even", [NORM_ROUND_FLOOR] = "floor",
	[NORM_ROUND_N] = NULL,
};
_Static_assert(GF_ARRAY_LEN(norm_round_names) == NORM_ROUND_N + 1, "a name per rounding");

int norm_add_decimals(struct ftree *t, unsigned decimals, struct sbuf *err)
{
	unsigned want = t->scale + decimals;
	if (want > NUM_MAX_SCALE)
		want = NUM_MAX_SCALE;
	/* step down until the weights fit */
	while (want > t->scale) {
		int64_t a = t->total[0], b = t->ncols == 2 ? t->total2[0] : 0;
		if (num_rescale(&a, want - t->scale) && num_rescale(&b, want - t->scale))
			break;
		want--;
	}
	if (want <= t->scale)
		return GF_OK;
	return ftree_set_scale(t, want, err);
}

struct rem {
	int64_t r;
	uint32_t node;
};

static int cmp_rem(const void *a, const void *b)
{
	const struct rem *x = a, *y = b;
	if (x->r != y->r)
		return x->r > y->r ? -1 : 1; /* largest remainder first */
	return x->node < y->node ? -1 : x->node > y->node;
}

int norm_scale_col(struct ftree *t, int col, int64_t num, int64_t den,
		   enum norm_round round, struct sbuf *err)
{
	if (den <= 0 || num < 0) {
		sbuf_setf(err, "normalisation factor %lld/%lld is not positive",
			  (long long)num, (long long)den);
		return GF_EINPUT;
	}
	if (col == 1 && t->ncols != 2)
		return GF_OK;
	int64_t *w = col ? t->total2 : t->total;
	uint32_t n = t->n;
	int64_t *self = gf_xmalloc((size_t)n * sizeof *self);
	for (uint32_t i = 0; i < n; i++)
		self[i] = ftree_self(t, i, col);
	int64_t target;
	if (!num_muldiv(w[0], num, den, &target)) {
		free(self);
		sbuf_setf(err, "normalised weights overflow 64-bit integers");
		return GF_EINPUT;
	}
	struct rem *rems = NULL;
	size_t nrem = 0;
	int64_t sum = 0;
	if (round == NORM_ROUND_LARGEST)
		rems = gf_xmalloc((size_t)n * sizeof *rems);
	for (uint32_t i = 0; i < n; i++) {
		if (!self[i])
			continue;
		__int128 x = (__int128)self[i] * num;
		if (round == NORM_ROUND_EVEN) {
			int64_t q;
			num_muldiv(self[i], num, den, &q); /* <= target: cannot overflow */
			self[i] = q;
		} else {
			int64_t q = (int64_t)(x / den), r = (int64_t)(x % den);
			self[i] = q;
			if (rems && r) {
				rems[nrem].r = r;
				rems[nrem].node = i;
				nrem++;
			}
		}
		sum += self[i];
	}
	if (rems) {
		/* sum of floors <= target <= sum + nrem */
		int64_t deficit = target - sum;
		if (deficit > 0) {
			qsort(rems, nrem, sizeof *rems, cmp_rem);
			for (size_t k = 0; k < nrem && deficit > 0; k++, deficit--)
				self[rems[k].node]++;
		}
		free(rems);
	}
	/* totals bottom-up: a child's index is always above its parent's */
	for (uint32_t i = 0; i < n; i++)
		w[i] = self[i];
	for (uint32_t i = n; i-- > 1;)
		w[t->parent[i]] += w[i];
	free(self);
	return GF_OK;
}
