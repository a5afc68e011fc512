/*
 * jfast.c — the general cases behind jfast.h's inline paths: number text
 * to integers and to nanoseconds (exact; num_parse past the one-pass
 * forms), values that should be integers or times in any other spelling,
 * the duplicate-key error. Knows JSON only (see jfast.h). Layer: read.
 */
#include "trace/read/jfast.h"

/* Integer from number text; quoted text too. @return false when not an integer. */
bool jfast_parse_int(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i < n && n - i <= 18) {
		int64_t v = 0;
		size_t j = i;
		for (; j < n && s[j] >= '0' && s[j] <= '9'; j++)
			v = v * 10 + (s[j] - '0');
		if (j == n) {
			*out = neg ? -v : v;
			return true;
		}
	}
	int rc = num_parse(s, n, 0, NUM_ALLOW_SIGN | NUM_ALLOW_EXP, out);
	return rc == NUM_OK;
}

/* Microseconds text -> ns. *dec = fraction digits as written, trailing
 * zeros included (as in jfast_us); forms past the one-pass one go to
 * num_parse, and num_decimals counts their significant digits (99 for
 * exponent forms).
 * @return a num_status. */
int jfast_parse_us(const char *s, size_t n, int64_t *out, int *dec)
{
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	size_t i0 = i;
	int64_t v = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && i - i0 < 17; i++)
		v = v * 10 + (s[i] - '0');
	size_t nint = i - i0; /* 17 means "maybe more": the general path decides */
	if (nint && nint <= 16 && (uint64_t)v <= JFAST_US_INT_MAX) {
		if (i == n) {
			*dec = 0;
			*out = neg ? -v * 1000 : v * 1000;
			return NUM_OK;
		}
		if (s[i] == '.') {
			size_t f0 = ++i;
			int64_t f = 0;
			for (; i < n && s[i] >= '0' && s[i] <= '9' && i - f0 < 3; i++)
				f = f * 10 + (s[i] - '0');
			size_t fd = i - f0;
			if (i == n && fd) {
				static const int64_t m[4] = { 1000, 100, 10, 1 };
				*dec = (int)fd;
				int64_t r = v * 1000 + f * m[fd];
				*out = neg ? -r : r;
				return NUM_OK;
			}
		}
	}
	*dec = (int)num_decimals(s, n);
	for (size_t k = 0; k < n; k++)
		if (s[k] == 'e' || s[k] == 'E')
			*dec = 99;
	return num_parse(s, n, 3, NUM_ALLOW_SIGN | NUM_ALLOW_EXP, out);
}

bool jfast_read_int_gen(struct jcur *c, int ch, int64_t *out)
{
	*out = JFAST_NONE;
	const char *s;
	size_t n;
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		if (GF_LIKELY(jfast_int(c, out)))
			return true;
		if (!jscan_number(c, &s, &n))
			return false;
		if (!jfast_parse_int(s, n, out))
			*out = JFAST_NONE;
		return true;
	}
	if (ch == '"') {
		struct jstr js;
		if (!jscan_string(c, &js))
			return false;
		if ((js.flags & JSTR_ESC) || !jfast_parse_int(js.s, js.n, out))
			*out = JFAST_NONE;
		return true;
	}
	return jfast_skip(c, ch, 3);
}

bool jfast_read_us_gen(struct jcur *c, int ch, int64_t *out, int *dec, int *st)
{
	*out = JFAST_NONE;
	*st = NUM_INVALID;
	*dec = -1;
	const char *s;
	size_t n;
	if (ch == '"') {
		struct jstr js;
		if (!jscan_string(c, &js))
			return false;
		s = js.s;
		n = js.n;
	} else if (ch == '-' || (ch >= '0' && ch <= '9')) {
		if (GF_LIKELY(jfast_us(c, out, dec))) {
			*st = NUM_OK;
			return true;
		}
		if (!jscan_number(c, &s, &n))
			return false;
	} else {
		if (!jfast_skip(c, ch, 2))
			return false;
		if (ch == 'n')
			*st = JFAST_NULL; /* jfast_skip read exactly "null" */
		return true;
	}
	int64_t v;
	int rc = jfast_parse_us(s, n, &v, dec);
	if ((rc == NUM_OK || rc == NUM_ROUNDED) && v == JFAST_NONE)
		rc = NUM_OVERFLOW; /* INT64_MIN is the "absent" marker, and -INT64_MIN wraps */
	if (rc == NUM_OK || rc == NUM_ROUNDED)
		*out = v;
	*st = rc;
	return true;
}

bool jfast_dup_key(struct jcur *c, const char *at, const char *what)
{
	return jscan_fail_got(c, at, what, "a second one (duplicate keys are refused)");
}
