/* num.c — exact decimal parsing and formatting (see num.h). */
#include "base/num.h"

#include <string.h>

static const int64_t pow10_tab[19] = {
	1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
	100000000LL, 1000000000LL, 10000000000LL, 100000000000LL,
	1000000000000LL, 10000000000000LL, 100000000000000LL,
	1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
	1000000000000000000LL,
};

int64_t num_pow10(unsigned k)
{
	return k < 19 ? pow10_tab[k] : 0;
}

bool num_rescale(int64_t *v, unsigned k)
{
	if (k == 0)
		return true;
	if (k > 18)
		return *v == 0;
	int64_t r;
	if (__builtin_mul_overflow(*v, pow10_tab[k], &r))
		return false;
	*v = r;
	return true;
}

static inline bool push_digit(uint64_t *m, int d)
{
	if (*m > (UINT64_MAX - 9) / 10)
		return false;
	*m = *m * 10 + (uint64_t)d;
	return true;
}

int num_parse(const char *s, size_t n, unsigned scale, unsigned flags, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+')) {
		if (!(flags & NUM_ALLOW_SIGN))
			return NUM_INVALID;
		neg = s[i] == '-';
		i++;
	}
	/* value = mant * 10^exp10; digits that no longer fit in mant are only
	 * checked for being zero (they decide NUM_ROUNDED). */
	uint64_t mant = 0;
	long exp10 = 0;
	bool lost_nonzero = false;
	size_t int_digits = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, int_digits++) {
		int d = s[i] - '0';
		if (!push_digit(&mant, d)) {
			exp10++;
			lost_nonzero |= d != 0;
		}
	}
	if (!int_digits)
		return NUM_INVALID;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			int d = s[i] - '0';
			if (push_digit(&mant, d))
				exp10--;
			else
				lost_nonzero |= d != 0;
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (!(flags & NUM_ALLOW_EXP))
			return NUM_INVALID;
		i++;
		bool eneg = false;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		if (i >= n || s[i] < '0' || s[i] > '9')
			return NUM_INVALID;
		long e = 0;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return NUM_INVALID;
	long sh = exp10 + (long)scale; /* result = mant * 10^sh */
	int status = lost_nonzero ? NUM_ROUNDED : NUM_OK;
	uint64_t r;
	if (mant == 0) {
		r = 0;
	} else if (sh >= 0) {
		if (sh > 19)
			return NUM_OVERFLOW;
		uint64_t p = sh == 19 ? 10000000000000000000ULL : (uint64_t)pow10_tab[sh];
		if (__builtin_mul_overflow(mant, p, &r))
			return NUM_OVERFLOW;
	} else if (-sh > 19) {
		r = 0;
		status = NUM_ROUNDED;
	} else {
		uint64_t p = -sh == 19 ? 10000000000000000000ULL : (uint64_t)pow10_tab[-sh];
		uint64_t rem = mant % p;
		r = mant / p;
		if (rem) {
			status = NUM_ROUNDED;
			if (rem >= p - rem) /* half away from zero */
				r++;
		}
	}
	if (neg) {
		if (r > (uint64_t)INT64_MAX + 1)
			return NUM_OVERFLOW;
		*out = (int64_t)(0 - r);
	} else {
		if (r > (uint64_t)INT64_MAX)
			return NUM_OVERFLOW;
		*out = (int64_t)r;
	}
	return status;
}

unsigned num_decimals(const char *s, size_t n)
{
	size_t i = 0, dot = n, end = n;
	long e = 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			dot = i;
		if (s[i] == 'e' || s[i] == 'E') {
			end = i;
			size_t j = i + 1;
			bool neg = false;
			if (j < n && (s[j] == '-' || s[j] == '+'))
				neg = s[j++] == '-';
			for (; j < n && s[j] >= '0' && s[j] <= '9'; j++)
				if (e < 100000)
					e = e * 10 + (s[j] - '0');
			if (neg)
				e = -e;
			break;
		}
	}
	long d = 0;
	if (dot < end) {
		size_t last = end;
		while (last > dot + 1 && s[last - 1] == '0')
			last--;
		d = (long)(last - dot - 1);
	}
	d -= e;
	return d < 0 ? 0 : d > 100 ? 100 : (unsigned)d;
}

static void fmt_u(struct sbuf *b, uint64_t u, bool group)
{
	char tmp[32];
	int k = 0, g = 0;
	do {
		if (group && g == 3) {
			tmp[k++] = ',';
			g = 0;
		}
		tmp[k++] = (char)('0' + u % 10);
		u /= 10;
		g++;
	} while (u);
	while (k)
		sbuf_addch(b, tmp[--k]);
}

void num_fmt(struct sbuf *b, int64_t v, unsigned scale)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	if (v < 0)
		sbuf_addch(b, '-');
	if (scale == 0 || scale > 18) {
		fmt_u(b, u, false);
		return;
	}
	uint64_t p = (uint64_t)pow10_tab[scale];
	fmt_u(b, u / p, false);
	uint64_t f = u % p;
	if (!f)
		return;
	char tmp[24];
	for (int i = (int)scale - 1; i >= 0; i--) {
		tmp[i] = (char)('0' + f % 10);
		f /= 10;
	}
	int len = (int)scale;
	while (len > 0 && tmp[len - 1] == '0')
		len--;
	sbuf_addch(b, '.');
	sbuf_add(b, tmp, (size_t)len);
}

void num_fmt_fixed(struct sbuf *b, int64_t v, unsigned scale, unsigned decimals, bool group)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	if (scale > 18)
		scale = 18;
	if (decimals > 18)
		decimals = 18;
	if (decimals < scale) {
		uint64_t p = (uint64_t)pow10_tab[scale - decimals];
		uint64_t q = u / p, r = u % p;
		if (r && r >= p - r)
			q++;
		u = q;
		scale = decimals;
	}
	uint64_t p = (uint64_t)pow10_tab[scale];
	uint64_t ip = u / p, f = u % p;
	if (v < 0 && (ip || f))
		sbuf_addch(b, '-');
	fmt_u(b, ip, group);
	if (!decimals)
		return;
	char tmp[40];
	for (unsigned i = 0; i < decimals; i++)
		tmp[i] = '0';
	/* place f (scale digits) at the start of the decimals */
	for (int i = (int)scale - 1; i >= 0; i--) {
		tmp[i] = (char)('0' + f % 10);
		f /= 10;
	}
	sbuf_addch(b, '.');
	sbuf_add(b, tmp, decimals);
}

bool num_fmt_pct(struct sbuf *b, int64_t part, int64_t whole, unsigned decimals, enum num_round r)
{
	if (whole <= 0 || decimals > 9)
		return false;
	bool neg = part < 0;
	__int128 x = (neg ? -(__int128)part : (__int128)part) * 100 * pow10_tab[decimals];
	__int128 q = x / whole, rem = x % whole;
	/* |x| / whole = q + rem / whole: the half decides by the mode */
	if (2 * rem > whole || (2 * rem == whole && (r == NUM_HALF_AWAY || (r == NUM_HALF_EVEN && (q & 1)) ||
						     (r == NUM_HALF_UP && !neg))))
		q++;
	if (q > INT64_MAX)
		return false;
	if (neg && r == NUM_HALF_AWAY && q == 0)
		sbuf_addch(b, '-');
	num_fmt_fixed(b, neg ? -(int64_t)q : (int64_t)q, decimals, decimals, false);
	return true;
}

bool num_muldiv(int64_t v, int64_t num, int64_t den, int64_t *out)
{
	if (den == 0)
		return false;
	__int128 x = (__int128)v * num;
	__int128 q = x / den, r = x % den;
	if (r != 0) {
		__int128 ar = r < 0 ? -r : r, ad = den < 0 ? -(__int128)den : den;
		bool neg = (x < 0) != (den < 0);
		if (2 * ar > ad || (2 * ar == ad && (q & 1)))
			q += neg ? -1 : 1;
	}
	if (q > INT64_MAX || q < INT64_MIN)
		return false;
	*out = (int64_t)q;
	return true;
}
