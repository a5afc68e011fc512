/*
 * stepnoise.h — is a change larger than step-to-step noise? A two-sample
 * test on per-step values that needs no normality (Mann–Whitney U, the
 * Wilcoxon rank-sum test), and the Benjamini–Hochberg procedure that keeps
 * the false discovery rate of many such tests at q. diff.h runs one test
 * per stack and per frame on the per-step values of two runs
 * (docs/diff.md, "Step-to-step noise").
 *
 *   struct stepnoise *sn = stepnoise_new();
 *   double p = stepnoise_mwu(sn, before, 10, 1, after, 12, 1, &how);
 *   ...
 *   stepnoise_bh(p, m, 0.01, reject);
 *   stepnoise_free(sn);
 *
 * The p-value is two-sided: 2 min(P(U <= u), P(U >= u)), at most 1, where
 * U counts the pairs (x_i, y_j) with x_i > y_j, ties counting one half
 * (mid-ranks). It is exact — the permutation distribution of the rank sum,
 * every split of the N = n1 + n2 values into n1 and n2 equally likely —
 * when there are no ties and n1, n2 < 50 (R's wilcox.test rule; one table
 * per (n1, n2), kept), or when there are ties and N <= 40 (the
 * distribution of the sum of the mid-ranks that occur, kept per pattern of
 * ties). Otherwise it is the normal approximation with the tie correction
 * of the variance and a continuity correction of 1/2, as R's wilcox.test
 * computes it. Values compare exactly: x_i * xm against y_j * ym in
 * 128-bit integers (xm, ym > 0 scale one side, e.g. to the other's total).
 *
 * Layer: stacks/ops. Never prints; allocation failure aborts (gf_x*).
 */
#ifndef GF_STEPNOISE_H
#define GF_STEPNOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a p-value was computed (*how). */
enum stepnoise_how { STEPNOISE_EXACT = 0, STEPNOISE_EXACT_TIES, STEPNOISE_NORMAL, STEPNOISE_NONE };

struct stepnoise;

struct stepnoise *stepnoise_new(void);
void stepnoise_free(struct stepnoise *s);

/* The two-sided p-value of x[0..n1) against y[0..n2) (see above); 1 when a
 * side is empty or every value is equal (*how = STEPNOISE_NONE then). */
double stepnoise_mwu(struct stepnoise *s, const int64_t *x, size_t n1, int64_t xm, const int64_t *y, size_t n2,
		     int64_t ym, int *how);

/* The smallest two-sided p-value any data of n1 and n2 steps can give:
 * 2 / C(n1 + n2, n1), at most 1 (all of one side above all of the other).
 * With fewer steps than that allows, no change can be told from noise. */
double stepnoise_min_p(size_t n1, size_t n2);

/*
 * Benjamini–Hochberg at level q over p[0..m): reject[i] for the p-values up
 * to the largest p_(k) <= k q / m (k-th smallest, 1-based). Controls the
 * expected share of false discoveries among the rejections at q for
 * independent or positively dependent tests. @return the rejections.
 */
size_t stepnoise_bh(const double *p, size_t m, double q, bool *reject);

#endif
