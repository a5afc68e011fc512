/* stepnoise.c — Mann–Whitney U on per-step values, Benjamini–Hochberg (see stepnoise.h). */
#include "stacks/ops/stepnoise.h"

#include "base/gf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_MAX 50      /* no ties: exact when n1, n2 < 50 (R's rule) */
#define TIES_MAX_N 40     /* ties: exact when n1 + n2 <= 40 */
#define TIES_CACHE 4096   /* tie patterns kept (a power of two) */

/* The permutation distribution of a score sum: cum[s] = the number of
 * n-subsets of the scores whose sum is <= s (s = 0..smax); total =
 * cum[smax]. Counts are doubles: C(98, 49) ~ 2.5e28 fits, to 16 digits. */
struct dist {
	double *cum;
	size_t smax;
};

struct tie_ent {
	unsigned char *key; /* n, N, then the tie groups' sizes */
	size_t keylen;
	struct dist d;
};

struct stepnoise {
	struct dist exact[EXACT_MAX][EXACT_MAX]; /* [n_small][n_large], no ties: scores 1..N */
	struct tie_ent ties[TIES_CACHE];
	size_t nties;
};

struct stepnoise *stepnoise_new(void)
{
	return gf_xcalloc(1, sizeof(struct stepnoise));
}

void stepnoise_free(struct stepnoise *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < EXACT_MAX; i++)
		for (size_t j = 0; j < EXACT_MAX; j++)
			free(s->exact[i][j].cum);
	for (size_t i = 0; i < TIES_CACHE; i++) {
		free(s->ties[i].key);
		free(s->ties[i].d.cum);
	}
	free(s);
}

/* The distribution of the sum of n of the scores sc[0..N) (non-negative
 * integers), every n-subset equally likely: subset counting, scores one at
 * a time, k from high to low so that each score is taken at most once. */
static void dist_build(struct dist *d, const unsigned *sc, size_t N, size_t n)
{
	size_t smax = 0;
	for (size_t i = 0; i < N; i++)
		smax += sc[i];
	double *c = gf_xcalloc((n + 1) * (smax + 1), sizeof *c);
#define C(k, s) c[(size_t)(k) * (smax + 1) + (s)]
	C(0, 0) = 1;
	size_t reach = 0; /* the largest sum any subset of the scores so far reaches */
	for (size_t i = 0; i < N; i++) {
		reach += sc[i];
		for (size_t k = i + 1 < n ? i + 1 : n; k >= 1; k--)
			for (size_t t = reach; t >= sc[i]; t--) {
				C(k, t) += C(k - 1, t - sc[i]);
				if (t == 0)
					break;
			}
	}
	d->smax = smax;
	d->cum = gf_xmalloc((smax + 1) * sizeof *d->cum);
	double acc = 0;
	for (size_t t = 0; t <= smax; t++)
		d->cum[t] = acc += C(n, t);
#undef C
	free(c);
}

/* Two-sided p of an observed sum (both tails doubled, at most 1). */
static double dist_p(const struct dist *d, size_t obs)
{
	double total = d->cum[d->smax];
	double lo = d->cum[obs < d->smax ? obs : d->smax];
	double hi = total - (obs ? d->cum[obs - 1] : 0);
	double p = 2 * (lo < hi ? lo : hi) / total;
	return p < 1 ? p : 1;
}

/* One value of either side, scaled, with its side. */
struct sv {
	__int128 v;
	int side; /* 0: x, 1: y */
};

static int cmp_sv(const void *a, const void *b)
{
	const struct sv *x = a, *y = b;
	return (x->v > y->v) - (x->v < y->v);
}

static uint64_t hash_key(const unsigned char *k, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 1099511628211ULL;
	return h;
}

/* The cached distribution of tie pattern key (NULL when the cache is full:
 * out gets an own one, freed by the caller). */
static const struct dist *ties_dist(struct stepnoise *s, const unsigned char *key, size_t keylen,
				    const unsigned *sc, size_t N, size_t n, struct dist *own)
{
	size_t h = (size_t)hash_key(key, keylen) & (TIES_CACHE - 1);
	for (size_t probe = 0; probe < TIES_CACHE; probe++, h = (h + 1) & (TIES_CACHE - 1)) {
		struct tie_ent *e = &s->ties[h];
		if (!e->key) {
			if (s->nties >= TIES_CACHE / 2)
				break; /* keep the table sparse: compute without keeping */
			e->key = gf_xmalloc(keylen);
			memcpy(e->key, key, keylen);
			e->keylen = keylen;
			dist_build(&e->d, sc, N, n);
			s->nties++;
			return &e->d;
		}
		if (e->keylen == keylen && !memcmp(e->key, key, keylen))
			return &e->d;
	}
	dist_build(own, sc, N, n);
	return own;
}

double stepnoise_mwu(struct stepnoise *s, const int64_t *x, size_t n1, int64_t xm, const int64_t *y, size_t n2,
		     int64_t ym, int *how)
{
	int dummy;
	if (!how)
		how = &dummy;
	*how = STEPNOISE_NONE;
	if (!n1 || !n2)
		return 1;
	/* the smaller side is "a": the distribution is of its rank sum */
	bool swap = n1 > n2;
	const int64_t *a = swap ? y : x, *b = swap ? x : y;
	size_t na = swap ? n2 : n1, nb = swap ? n1 : n2, N = na + nb;
	int64_t am = swap ? ym : xm, bm = swap ? xm : ym;
	struct sv *v = gf_xmalloc(N * sizeof *v);
	for (size_t i = 0; i < na; i++)
		v[i] = (struct sv){ (__int128)a[i] * am, 0 };
	for (size_t j = 0; j < nb; j++)
		v[na + j] = (struct sv){ (__int128)b[j] * bm, 1 };
	qsort(v, N, sizeof *v, cmp_sv);
	/* doubled mid-ranks: a tie group at positions [i, j) has ranks i+1..j,
	 * doubled mean i + j + 1 */
	unsigned *sc = gf_xmalloc(N * sizeof *sc);
	unsigned char *key = gf_xmalloc(N + 2);
	size_t keylen = 2, groups = 0;
	double tie3 = 0; /* Σ (t^3 - t) */
	uint64_t ra2 = 0; /* the doubled rank sum of side a */
	for (size_t i = 0; i < N;) {
		size_t j = i + 1;
		while (j < N && v[j].v == v[i].v)
			j++;
		double t = (double)(j - i);
		tie3 += t * t * t - t;
		for (size_t k = i; k < j; k++) {
			sc[k] = (unsigned)(i + j + 1);
			if (v[k].side == 0)
				ra2 += i + j + 1;
		}
		if (N <= TIES_MAX_N)
			key[keylen++] = (unsigned char)(j - i);
		groups++;
		i = j;
	}
	double p = 1;
	if (groups == 1) {
		/* every value equal: no evidence of any difference */
	} else if (groups == N && nb < EXACT_MAX) {
		/* no ties: ranks 1..N (the doubled ranks halved) */
		struct dist *d = &s->exact[na][nb];
		if (!d->cum) {
			for (size_t k = 0; k < N; k++)
				sc[k] = (unsigned)(k + 1);
			dist_build(d, sc, N, na);
		}
		p = dist_p(d, (size_t)(ra2 / 2));
		*how = STEPNOISE_EXACT;
	} else if (N <= TIES_MAX_N) {
		key[0] = (unsigned char)na;
		key[1] = (unsigned char)N;
		struct dist own = { NULL, 0 };
		const struct dist *d = ties_dist(s, key, keylen, sc, N, na, &own);
		p = dist_p(d, (size_t)ra2);
		free(own.cum);
		*how = STEPNOISE_EXACT_TIES;
	} else {
		/* normal approximation, tie-corrected variance, continuity 1/2 */
		double fa = (double)na, fb = (double)nb, fn = (double)N;
		double u = (double)ra2 / 2 - fa * (fa + 1) / 2;
		double z = u - fa * fb / 2;
		double var = fa * fb / 12 * ((fn + 1) - tie3 / (fn * (fn - 1)));
		if (var > 0) {
			double corr = z > 0 ? 0.5 : z < 0 ? -0.5 : 0;
			z = (z - corr) / sqrt(var);
			p = erfc(fabs(z) / sqrt(2.0));
			p = p < 1 ? p : 1;
		}
		*how = STEPNOISE_NORMAL;
	}
	free(v);
	free(sc);
	free(key);
	return p;
}

double stepnoise_min_p(size_t n1, size_t n2)
{
	if (!n1 || !n2)
		return 1;
	/* 2 / C(n1 + n2, n1), multiplied out in doubles */
	size_t k = n1 < n2 ? n1 : n2, N = n1 + n2;
	double c = 1;
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(N - k + i) / (double)i;
	double p = 2 / c;
	return p < 1 ? p : 1;
}

struct pi {
	double p;
	size_t i;
};

static int cmp_pi(const void *a, const void *b)
{
	const struct pi *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

size_t stepnoise_bh(const double *p, size_t m, double q, bool *reject)
{
	if (!m)
		return 0;
	struct pi *o = gf_xmalloc(m * sizeof *o);
	for (size_t i = 0; i < m; i++) {
		o[i] = (struct pi){ p[i], i };
		reject[i] = false;
	}
	qsort(o, m, sizeof *o, cmp_pi);
	size_t k = 0; /* the largest rank (1-based) with p_(k) <= k q / m */
	for (size_t r = 1; r <= m; r++)
		if (o[r - 1].p <= (double)r * q / (double)m)
			k = r;
	for (size_t r = 0; r < k; r++)
		reject[o[r].i] = true;
	free(o);
	return k;
}
