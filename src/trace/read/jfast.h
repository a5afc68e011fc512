/*
 * jfast.h — the fast paths of the JSON reader beside jscan: numbers parsed
 * in one pass from the text, small values skipped inline, known keys
 * compared as one word, the separators between members, and the general
 * cases behind them (jfast.c).
 *
 *   int64_t v; int ch = jscan_ws(&c);
 *   if (!jfast_read_int(&c, ch, &v)) ...  // c.st is JS_MORE or JS_ERR
 *   if (jfast_key_is(&c, JFAST_LIT6("\"ph\": "), 6, &ch)) ...
 *
 * Each fast path accepts only a common subset (at most 16 digits, 1-3
 * decimals for times, the usual `": ` and `, "` spellings) and otherwise
 * leaves the cursor where it was, so the general path (jscan and
 * num_parse) decides every other case exactly as it would alone. The text
 * must carry jscan's padding (JSCAN_PAD NUL bytes after c->end): the word
 * loads read up to 8 bytes past a token. Knows JSON only, nothing of
 * Kineto: values that are no integer read as JFAST_NONE.
 *
 * Layer: trace/read (used by the Kineto reader, kineto_*.c).
 */
#ifndef GF_JFAST_H
#define GF_JFAST_H

#include "base/gf.h"
#include "base/num.h"
#include "trace/read/jscan.h"

#include <string.h>

#define JFAST_NONE INT64_MIN /* an integer value that is absent or no integer (kineto.h's KEV_NONE) */
#define JFAST_NULL 3         /* jfast_read_us's status for null, beyond the num_status values */

/* The largest integer part of a time in microseconds whose nanoseconds,
 * with up to 3 decimals, still fit in int64: the bound of both one-pass
 * paths (jfast_parse_us's and jfast_us). */
#define JFAST_US_INT_MAX ((uint64_t)INT64_MAX / 1000 - 1)

/* Integer from number text; quoted text too. @return false when not an integer. */
bool jfast_parse_int(const char *s, size_t n, int64_t *out);

/* Microseconds text -> ns. *dec = fraction digits as written, trailing
 * zeros included (as in jfast_us); forms past the one-pass one go to
 * num_parse, and num_decimals counts their significant digits (99 for
 * exponent forms).
 * @return a num_status. */
int jfast_parse_us(const char *s, size_t n, int64_t *out, int *dec);

/* The run of decimal digits at p, at most 8 of them: @return how many,
 * with *val their value (SWAR: one 8-byte load; p needs 8 readable bytes,
 * which the padding guarantees). */
static inline __attribute__((always_inline)) unsigned jfast_digits8(const char *p, uint64_t *val)
{
	const uint64_t F0 = 0xF0F0F0F0F0F0F0F0ULL, Z = 0x3030303030303030ULL;
	uint64_t x;
	memcpy(&x, p, 8);
	/* a byte is a digit iff its high nibble is 3 and stays 3 after + 6;
	 * exact for the lowest non-digit byte, which is all that counts */
	uint64_t nd = ((x & F0) ^ Z) | (((x + 0x0606060606060606ULL) & F0) ^ Z);
	unsigned k = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
	if (!k) {
		*val = 0;
		return 0;
	}
	uint64_t t = (x - Z) << (8 * (8 - k)); /* the k digits in the top bytes, leading zeros below */
	t = t * 10 + (t >> 8);                 /* pairs */
	t = (((t & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	     (((t >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
	*val = t;
	return k;
}

static const uint64_t jfast_pow10_8[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };

/* 1-16 decimal digits at p into *v (16 is the integer part of both epoch
 * microsecond forms). @return the end of the digits, or NULL when there is
 * no digit or there are 17 or more (the slow path's cases). */
static inline __attribute__((always_inline)) const char *jfast_digits(const char *p, uint64_t *v)
{
	uint64_t v2;
	unsigned k = jfast_digits8(p, v);
	if (GF_UNLIKELY(!k))
		return NULL;
	p += k;
	if (k == 8) {
		unsigned k2 = jfast_digits8(p, &v2);
		if (GF_UNLIKELY(k2 == 8 && (unsigned)((unsigned char)p[8] - '0') <= 9))
			return NULL;
		*v = *v * jfast_pow10_8[k2] + v2;
		p += k2;
	}
	return p;
}

/* Fast paths for the usual number forms, parsed in one pass straight from
 * the text (the generic path scans the token, then parses it). They accept
 * only a subset — at most 16 digits (with '-' and, for times, 1-3
 * decimals) followed by a byte that cannot continue a number, before the
 * end of the buffer — and return false without moving c->p otherwise, so
 * the generic path decides every other case exactly as before. */
static inline __attribute__((always_inline)) bool jfast_int(struct jcur *c, int64_t *out)
{
	const char *p = c->p;
	bool neg = *p == '-';
	p += neg;
	uint64_t v;
	if (GF_UNLIKELY(!(p = jfast_digits(p, &v))))
		return false;
	if (GF_UNLIKELY(jscan_cls[(unsigned char)*p] == 2 || p >= c->end))
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	c->p = p;
	return true;
}

/* Microseconds with at most 16 integer digits (and no more than int64 ns
 * can hold) and 0-3 decimals -> ns. */
static inline __attribute__((always_inline)) bool jfast_us(struct jcur *c, int64_t *out, int *dec)
{
	const char *p = c->p;
	bool neg = *p == '-';
	p += neg;
	uint64_t v, f = 0;
	if (GF_UNLIKELY(!(p = jfast_digits(p, &v)) || v > JFAST_US_INT_MAX))
		return false;
	unsigned fd = 0;
	if (*p == '.') {
		/* 1-3 decimals, then no fourth digit */
		unsigned d1 = (unsigned char)p[1] - '0', d2 = (unsigned char)p[2] - '0', d3 = (unsigned char)p[3] - '0';
		if (GF_UNLIKELY(d1 > 9))
			return false;
		f = d1;
		fd = 1;
		if (d2 <= 9) {
			f = f * 10 + d2;
			fd = 2;
			if (d3 <= 9) {
				f = f * 10 + d3;
				fd = 3;
			}
		}
		p += 1 + fd;
		if (GF_UNLIKELY((unsigned)((unsigned char)*p - '0') <= 9))
			return false;
	}
	if (GF_UNLIKELY(jscan_cls[(unsigned char)*p] == 2 || p >= c->end))
		return false;
	static const int64_t m[4] = { 1000, 100, 10, 1 };
	int64_t r = (int64_t)v * 1000 + (int64_t)f * m[fd];
	*out = neg ? -r : r;
	*dec = (int)fd;
	c->p = p;
	return true;
}

/* Skips the value at c->p (first byte ch) like jscan_skip(c, depth), with
 * the common small values (integers, short strings, null) inline. */
static inline bool jfast_skip(struct jcur *c, int ch, int depth)
{
	if (ch == '"') {
		struct jstr js;
		return jscan_string(c, &js);
	}
	if ((unsigned)(ch - '0') < 10 || ch == '-') {
		int64_t v;
		if (GF_LIKELY(jfast_int(c, &v)))
			return true;
	}
	return jscan_skip(c, depth);
}

/* A value that should be an integer: number, numeric string or null. Other
 * values are skipped and give JFAST_NONE. */
bool jfast_read_int_gen(struct jcur *c, int ch, int64_t *out);

/* jfast_read_int_gen with the usual plain integer inline. */
static inline __attribute__((always_inline)) bool jfast_read_int(struct jcur *c, int ch, int64_t *out)
{
	if (GF_LIKELY((unsigned)(ch - '0') < 10 && jfast_int(c, out)))
		return true;
	return jfast_read_int_gen(c, ch, out);
}

/* A time in microseconds (ts, dur) as ns: number or numeric string. *st =
 * a num_status (NUM_INVALID when the value is not a number), or JFAST_NULL
 * for null; *dec = fraction digits as written (-1 when none were read). */
bool jfast_read_us_gen(struct jcur *c, int ch, int64_t *out, int *dec, int *st);

/* jfast_read_us_gen with the usual plain number inline. */
static inline __attribute__((always_inline)) bool jfast_read_us(struct jcur *c, int ch, int64_t *out, int *dec, int *st)
{
	if (GF_LIKELY((unsigned)(ch - '0') < 10 && jfast_us(c, out, dec))) {
		*st = NUM_OK;
		return true;
	}
	return jfast_read_us_gen(c, ch, out, dec, st);
}

static inline uint64_t jfast_ld8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

static inline uint32_t jfast_ld4(const char *s)
{
	uint32_t w;
	memcpy(&w, s, 4);
	return w;
}

/* A word made of the n bytes at s, reading nothing outside them (the text
 * may be a decoded copy in the scratch buffer). */
static inline uint64_t jfast_head_word(const char *s, size_t n)
{
	if (n >= 8)
		return jfast_ld8(s);
	if (n >= 4)
		return jfast_ld4(s) | (uint64_t)jfast_ld4(s + n - 4) << 32;
	if (!n)
		return 0;
	return (unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 | (uint64_t)(unsigned char)s[n - 1] << 16;
}

/* Little-endian word of the first 6, 7 or 8 bytes of a string literal, a
 * constant expression (a memcpy into a local was not folded: gcc stored the
 * bytes and loaded them back as one wider word, a store-forwarding stall on
 * every key). */
#define JFAST_LB_(s, i) ((uint64_t)(unsigned char)(s)[i] << (8 * (i)))
#define JFAST_LIT6(s) \
	(JFAST_LB_(s, 0) | JFAST_LB_(s, 1) | JFAST_LB_(s, 2) | JFAST_LB_(s, 3) | JFAST_LB_(s, 4) | JFAST_LB_(s, 5))
#define JFAST_LIT7(s) (JFAST_LIT6(s) | JFAST_LB_(s, 6))
#define JFAST_LIT8(s) (JFAST_LIT7(s) | JFAST_LB_(s, 7))

/* Whether the key at c->p is spelled exactly as the n-byte word w (`"ph": `
 * then a non-blank; the padding makes 8 bytes readable): then c->p moves to
 * the value and *ch is its first byte. */
static inline __attribute__((always_inline)) bool jfast_key_is(struct jcur *c, uint64_t w, unsigned n, int *ch)
{
	const char *p = c->p;
	uint64_t mask = n == 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
	if ((jfast_ld8(p) & mask) != w)
		return false;
	unsigned char v = (unsigned char)p[n];
	if (GF_UNLIKELY(v <= ' ' || p + n >= c->end))
		return false;
	c->p = p + n;
	*ch = v;
	return true;
}

/* After a member value: ',' (then *ch is the next key's '"') or the closing
 * byte. @return 1 more members, 0 closed, -1 stop (c->st set). */
static inline __attribute__((always_inline)) int jfast_next_member(struct jcur *c, int close, const char *what)
{
	const char *p = c->p;
	if (GF_LIKELY(p[0] == ',')) { /* the usual `, "`, `,"` or `,\n    "` (p[0] is in the text: the padding is NUL) */
		if (p[1] == '"') {
			c->p = p + 1;
			return 1;
		}
		if (p[1] == ' ' && p[2] == '"') {
			c->p = p + 2;
			return 1;
		}
		c->p = p + 1;
		int x = jscan_ws(c);
		if (x < 0)
			return -1;
		if (GF_UNLIKELY(x != '"'))
			return jscan_fail(c, c->p, "a key string"), -1;
		return 1;
	}
	int x = jscan_ws(c);
	if (x < 0)
		return -1;
	if (x == close) {
		c->p++;
		return 0;
	}
	if (x != ',')
		return jscan_fail(c, c->p, what), -1;
	c->p++;
	x = jscan_ws(c);
	if (x < 0)
		return -1;
	if (x != '"')
		return jscan_fail(c, c->p, "a key string"), -1;
	return 1;
}

/*
 * Enters the object whose '{' is at c->p. @return 0 when it is empty (its '}'
 * consumed), 1 when a key string follows, -1 on error (expected = what the
 * message says was expected instead).
 */
static inline __attribute__((always_inline)) int jfast_obj_enter(struct jcur *c, const char *expected)
{
	c->p++;
	int x = jscan_ws(c);
	if (x < 0)
		return -1;
	if (x == '}') {
		c->p++;
		return 0;
	}
	if (x != '"')
		return jscan_fail(c, c->p, expected), -1;
	return 1;
}

/* A key read twice in one object: the error at the second one (the cursor
 * fails with what was expected). @return false. */
__attribute__((cold)) bool jfast_dup_key(struct jcur *c, const char *at, const char *what);

/* Whether bit b of *seen was set (then the error), and sets it. */
#define JFAST_SEEN_TWICE(seen, b) (GF_UNLIKELY((seen) & (1u << (b))) || ((seen) |= 1u << (b), 0))

#endif
