/* test_stepnoise.c — Mann–Whitney U and Benjamini–Hochberg (stacks/ops/stepnoise.h).
 * Truth: the permutation distribution by brute force (every split of the
 * pooled values, enumerated), known p-values, and a Monte Carlo permutation
 * estimate for the normal approximation. */
#include "t.h"

#include "stacks/ops/stepnoise.h"

#include <math.h>

/* The two-sided permutation p-value by enumerating every n1-subset of the
 * pooled values: the statistic is U with ties counting 1/2, doubled to stay
 * an integer; p = 2 min(P(U <= u), P(U >= u)), at most 1. */
static double brute(const int64_t *x, size_t n1, const int64_t *y, size_t n2)
{
	int64_t v[24];
	size_t N = n1 + n2;
	for (size_t i = 0; i < n1; i++)
		v[i] = x[i];
	for (size_t j = 0; j < n2; j++)
		v[n1 + j] = y[j];
	long long u_obs = 0; /* 2U of the observed split: x against y */
	for (size_t a = 0; a < n1; a++)
		for (size_t b = 0; b < n2; b++)
			u_obs += x[a] > y[b] ? 2 : x[a] == y[b] ? 1 : 0;
	double le = 0, ge = 0, tot = 0;
	for (unsigned long m = 0; m < (1ul << N); m++) {
		if ((size_t)__builtin_popcountl(m) != n1)
			continue;
		long long u2 = 0;
		for (size_t a = 0; a < N; a++) {
			if (!(m >> a & 1))
				continue;
			for (size_t b = 0; b < N; b++)
				if (!(m >> b & 1))
					u2 += v[a] > v[b] ? 2 : v[a] == v[b] ? 1 : 0;
		}
		le += u2 <= u_obs;
		ge += u2 >= u_obs;
		tot++;
	}
	double p = 2 * (le < ge ? le : ge) / tot;
	return p < 1 ? p : 1;
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static bool close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-15;
}

/* exact p-values equal the brute-force permutation ones, with and without
 * ties, on random samples of every size up to 8 + 8 */
T_TEST(test_stepnoise__exact_is_permutation)
{
	struct stepnoise *s = stepnoise_new();
	int64_t x[16], y[16];
	for (int trial = 0; trial < 400; trial++) {
		size_t n1 = 1 + rnd() % 8, n2 = 1 + rnd() % 8;
		int range = trial % 2 ? 5 : 1000000; /* odd trials: many ties */
		for (size_t i = 0; i < n1; i++)
			x[i] = (int64_t)(rnd() % (uint64_t)range);
		for (size_t j = 0; j < n2; j++)
			y[j] = (int64_t)(rnd() % (uint64_t)range) + (trial % 3 == 0 ? range / 3 : 0);
		int how;
		double p = stepnoise_mwu(s, x, n1, 1, y, n2, 1, &how);
		if (how == STEPNOISE_NONE)
			continue; /* every value equal */
		double b = brute(x, n1, y, n2);
		if (!close_rel(p, b, 1e-9)) {
			T_FAIL_("trial %d (%zu vs %zu, %s): p %.12g, permutation %.12g", trial, n1, n2,
				how == STEPNOISE_EXACT ? "exact" : "ties", p, b);
			break;
		}
	}
	stepnoise_free(s);
}

/* known values: complete separation gives 2 / C(N, n1); R's wilcox.test
 * gives the same exact p-values without ties */
T_TEST(test_stepnoise__known)
{
	struct stepnoise *s = stepnoise_new();
	int64_t a[10], b[10];
	for (int i = 0; i < 10; i++) {
		a[i] = i + 1;
		b[i] = i + 11;
	}
	int how;
	double p = stepnoise_mwu(s, a, 10, 1, b, 10, 1, &how);
	T_EQ_I64(how, STEPNOISE_EXACT);
	T_TRUE(close_rel(p, 2.0 / 184756, 1e-12)); /* wilcox.test(1:10, 11:20): 1.083e-05 */
	T_TRUE(close_rel(stepnoise_min_p(10, 10), 2.0 / 184756, 1e-12));
	p = stepnoise_mwu(s, a, 5, 1, b, 5, 1, &how);
	T_TRUE(close_rel(p, 2.0 / 252, 1e-12)); /* 0.007937 */
	/* the same samples interleaved: no evidence */
	int64_t c[4] = { 1, 4, 5, 8 }, d[4] = { 2, 3, 6, 7 };
	p = stepnoise_mwu(s, c, 4, 1, d, 4, 1, &how);
	T_TRUE(p == 1);
	/* every value equal: p 1, no test */
	int64_t e[3] = { 7, 7, 7 };
	T_TRUE(stepnoise_mwu(s, e, 3, 1, e, 3, 1, &how) == 1);
	T_EQ_I64(how, STEPNOISE_NONE);
	/* scale factors compare x * xm against y * ym exactly: 2*3 == 3*2 */
	int64_t f[3] = { 2, 2, 2 }, g[3] = { 3, 3, 3 };
	T_TRUE(stepnoise_mwu(s, f, 3, 3, g, 3, 2, &how) == 1);
	T_EQ_I64(how, STEPNOISE_NONE);
	/* empty sides, and too few steps to tell at 1% */
	T_TRUE(stepnoise_mwu(s, a, 0, 1, b, 3, 1, &how) == 1);
	T_TRUE(stepnoise_min_p(4, 4) > 0.01 && stepnoise_min_p(5, 5) < 0.01);
	T_TRUE(stepnoise_min_p(1, 30) == 2.0 / 31);
	stepnoise_free(s);
}

/* large samples (normal approximation) against a Monte Carlo permutation
 * estimate (20,000 random relabellings) */
T_TEST(test_stepnoise__normal_vs_permutation)
{
	struct stepnoise *s = stepnoise_new();
	enum { N1 = 40, N2 = 45 };
	int64_t x[N1], y[N2], v[N1 + N2], px[N1], py[N2];
	for (int trial = 0; trial < 4; trial++) {
		for (int i = 0; i < N1; i++)
			x[i] = (int64_t)(rnd() % 1000);
		for (int j = 0; j < N2; j++)
			y[j] = (int64_t)(rnd() % 1000) + 60 * trial;
		/* exact when no value repeats, else the normal approximation */
		double p = stepnoise_mwu(s, x, N1, 1, y, N2, 1, NULL);
		for (int i = 0; i < N1; i++)
			v[i] = x[i];
		for (int j = 0; j < N2; j++)
			v[N1 + j] = y[j];
		/* the U statistic's distance from its mean, observed and permuted */
		double obs = 0;
		for (int i = 0; i < N1; i++)
			for (int j = 0; j < N2; j++)
				obs += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
		obs = fabs(obs - N1 * N2 / 2.0);
		int hits = 0, R = 20000;
		for (int r = 0; r < R; r++) {
			for (int k = N1 + N2 - 1; k > 0; k--) {
				int m = (int)(rnd() % (uint64_t)(k + 1));
				int64_t t = v[k];
				v[k] = v[m];
				v[m] = t;
			}
			memcpy(px, v, sizeof px);
			memcpy(py, v + N1, sizeof py);
			double u = 0;
			for (int i = 0; i < N1; i++)
				for (int j = 0; j < N2; j++)
					u += px[i] > py[j] ? 1 : px[i] == py[j] ? 0.5 : 0;
			hits += fabs(u - N1 * N2 / 2.0) >= obs - 1e-9;
		}
		double mc = (double)hits / R, se = sqrt(mc * (1 - mc) / R) + 1.0 / R;
		if (fabs(p - mc) > 4 * se + 0.01 * p) {
			T_FAIL_("trial %d: p %.5g, permutation estimate %.5g (+- %.2g)", trial, p, mc, se);
			break;
		}
	}
	/* with many ties over 40 values: the normal approximation, still near
	 * the permutation estimate */
	for (int i = 0; i < N1; i++)
		x[i] = (int64_t)(rnd() % 6);
	for (int j = 0; j < N2; j++)
		y[j] = (int64_t)(rnd() % 6) + (j % 3 == 0);
	int how;
	double p = stepnoise_mwu(s, x, N1, 1, y, N2, 1, &how);
	T_EQ_I64(how, STEPNOISE_NORMAL);
	T_TRUE(p > 0 && p <= 1);
	stepnoise_free(s);
}

/* Benjamini–Hochberg: the largest k with p_(k) <= k q / m, and all below it */
T_TEST(test_stepnoise__bh)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005, 0.5, 0.02, 0.9, 0.045 };
	bool rej[8];
	/* sorted: .005 .01 .02 .03 .04 .045 .5 .9; q = .05, m = 8: thresholds
	 * .00625 .0125 .01875 .025 .03125 .0375 .04375 .05: p_(2) = .01 <=
	 * .0125, p_(3) = .02 > .01875, ... the largest k is 2 */
	T_EQ_I64(stepnoise_bh(p, 8, 0.05, rej), 2);
	T_TRUE(rej[0] && rej[3] && !rej[1] && !rej[2] && !rej[5]);
	/* a later p under its threshold takes every smaller one with it */
	double p2[] = { 0.04, 0.041, 0.042, 0.043 };
	T_EQ_I64(stepnoise_bh(p2, 4, 0.05, rej), 4);
	T_EQ_I64(stepnoise_bh(p2, 4, 0.01, rej), 0);
	T_EQ_I64(stepnoise_bh(p2, 0, 0.05, rej), 0);
}

/* The false-positive rate across many stacks (docs/diff.md, "Many stacks,
 * one false discovery rate"): profiles of 40 stacks whose 16 + 16 step
 * values come from one distribution (each stack its own level, ±10% uniform
 * jitter per step, independent draws): with BH at q = 0.05 per profile, the
 * share of profiles with any flagged stack (under the full null the family-
 * wise error, which BH bounds by q) stays under q + 3 sigma of 1000 trials;
 * each test alone rejects at most alpha of the time. A stack +20% among them
 * is found in every profile, and the false discoveries beside it stay a
 * share of at most q of the flagged stacks on average (BH's guarantee, the
 * same 3-sigma margin). */
T_TEST(test_stepnoise__null_rate)
{
	enum { TRIALS = 1000, STACKS = 40, N = 16 };
	struct stepnoise *sn = stepnoise_new();
	size_t any = 0, single = 0, found = 0;
	double fdr = 0; /* Σ false / flagged over the planted profiles */
	for (int planted = 0; planted < 2; planted++)
		for (int t = 0; t < TRIALS; t++) {
			double p[STACKS];
			bool rej[STACKS];
			for (int k = 0; k < STACKS; k++) {
				int64_t x[N], y[N], level = 100000 + (int64_t)(rnd() % 900000);
				for (int i = 0; i < N; i++) {
					x[i] = level * (900 + (int64_t)(rnd() % 201)) / 1000;
					y[i] = level * (900 + (int64_t)(rnd() % 201)) / 1000;
					if (planted && k == 7)
						y[i] = y[i] * 6 / 5;
				}
				int how;
				p[k] = stepnoise_mwu(sn, x, N, 1, y, N, 1, &how);
				if (!planted && p[k] <= 0.05)
					single++;
			}
			size_t r = stepnoise_bh(p, STACKS, 0.05, rej);
			if (!planted) {
				any += r > 0;
				continue;
			}
			found += rej[7];
			fdr += r ? (double)(r - rej[7]) / (double)r : 0;
		}
	stepnoise_free(sn);
	/* 0.05 + 3 sqrt(0.05 * 0.95 / 1000) = 0.0707 */
	T_TRUE(any <= 70);
	T_TRUE(single <= (size_t)(TRIALS * STACKS * 0.05 * 1.1));
	T_EQ_I64(found, TRIALS);
	T_TRUE(fdr <= 71);
}

int main(void)
{
	T_RUN(test_stepnoise__exact_is_permutation);
	T_RUN(test_stepnoise__known);
	T_RUN(test_stepnoise__normal_vs_permutation);
	T_RUN(test_stepnoise__bh);
	T_RUN(test_stepnoise__null_rate);
	return t_done();
}
