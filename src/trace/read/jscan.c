/* jscan.c — JSON spans, skipping and string decoding over partial text (see jscan.h). */
#include "trace/read/jscan.h"

#include "base/limits.h"

#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

int jscan_fail_got(struct jcur *c, const char *at, const char *what, const char *got)
{
	if (c->st != JS_ERR) {
		c->st = JS_ERR;
		c->err_at = at;
		c->what = what;
		c->got = got;
		c->limit = 0;
	}
	return 0;
}

int jscan_fail(struct jcur *c, const char *at, const char *what)
{
	return jscan_fail_got(c, at, what, NULL);
}

size_t jscan_token_max(void)
{
	uint64_t t = gf_limits.token;
	if (t < 32)
		return 32;
	return t > (uint64_t)(SIZE_MAX / 4) ? SIZE_MAX / 4 : (size_t)t;
}

/* A string (quote at q) that reached more than jscan_token_max() bytes. */
static bool fail_limit(struct jcur *c, const char *q)
{
	jscan_fail(c, q, "a shorter string");
	c->limit = 1;
	return false;
}

bool jscan_utf8_or_fail(struct jcur *c, const struct jstr *js)
{
	size_t bad = jscan_utf8_check(js->s, js->n);
	if (bad < js->n)
		return jscan_fail(c, js->s + bad, "valid UTF-8 in a string");
	return true;
}

const unsigned char jscan_cls[256] = {
	[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1,
	['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
	['-'] = 2, ['+'] = 2, ['.'] = 2, ['e'] = 2, ['E'] = 2,
};

const char *jscan_byte_desc(int ch, char buf[16])
{
	if (ch < 0)
		return "end of data";
	if (ch >= 0x21 && ch < 0x7f)
		snprintf(buf, 16, "'%c'", ch);
	else
		snprintf(buf, 16, "byte 0x%02x", ch & 0xff);
	return buf;
}

/* Mask of bytes equal to '"' or '\\' or below 0x20 (exact for the lowest set byte). */
static inline uint64_t special_mask(uint64_t x)
{
	uint64_t q = x ^ (ONES * '"');
	uint64_t b = x ^ (ONES * '\\');
	uint64_t m = ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((x - ONES * 0x20) & ~x);
	return m & HIGHS;
}

bool jscan_string_slow(struct jcur *c, struct jstr *out)
{
	const char *start = c->p + 1, *p = start, *end = c->end;
	size_t max = jscan_token_max();
	bool esc = false;
	uint64_t high = 0;
	for (;;) {
#ifdef __SSE2__
		{
			const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), lim = _mm_set1_epi8(0x20 - 128),
				      flip = _mm_set1_epi8((char)0x80);
			while (end - p >= 16) {
				__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
				/* unsigned x < 0x20  <=>  signed (x ^ 0x80) < 0x20 - 128 */
				__m128i ctl = _mm_cmplt_epi8(_mm_xor_si128(x, flip), lim);
				__m128i sp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)), ctl);
				unsigned m = (unsigned)_mm_movemask_epi8(sp);
				unsigned hm = (unsigned)_mm_movemask_epi8(x);
				if (m) {
					unsigned k = (unsigned)__builtin_ctz(m);
					if (hm & ((1u << k) - 1))
						high |= 0x80;
					p += k;
					goto special;
				}
				if (hm)
					high |= 0x80;
				p += 16;
			}
		}
#endif
		while (p + 8 <= end) {
			uint64_t x;
			memcpy(&x, p, 8);
			uint64_t m = special_mask(x);
			if (m) {
				unsigned k = (unsigned)__builtin_ctzll(m) >> 3;
				high |= x & (k ? (~0ULL >> (64 - 8 * k)) : 0);
				p += k;
				goto special;
			}
			high |= x;
			p += 8;
		}
		while (p < end) {
			unsigned char ch = (unsigned char)*p;
			if (ch == '"' || ch == '\\' || ch < 0x20)
				goto special;
			high |= ch;
			p++;
		}
	more:
		/* the same verdict however the text is cut: too long as soon as
		 * more than max bytes are seen, else wait for more text */
		if (GF_UNLIKELY(end > start && (size_t)(end - start) > max))
			return fail_limit(c, start - 1);
		c->st = JS_MORE;
		return false;
	special:;
		unsigned char ch = (unsigned char)*p;
		if (GF_UNLIKELY((size_t)(p - start) > max))
			return fail_limit(c, start - 1);
		if (ch == '"') {
			out->s = start;
			out->n = (size_t)(p - start);
			out->flags = (esc ? JSTR_ESC : 0) | ((high & HIGHS) || (high & 0x80) ? JSTR_HIGH : 0);
			c->p = p + 1;
			if (out->flags & JSTR_HIGH)
				return jscan_utf8_or_fail(c, out);
			return true;
		}
		if (ch == '\\') {
			esc = true;
			if (p + 1 >= end)
				goto more;
			p += 2; /* the escaped byte is checked by jscan_decode */
			continue;
		}
		return jscan_fail(c, p, ch ? "a string without raw control characters (escape them as \\u00XX)"
					  : "no NUL byte inside a string");
	}
}

size_t jscan_utf8_check(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		if (i + 8 <= n) {
			uint64_t x;
			memcpy(&x, s + i, 8);
			if (!(x & HIGHS)) {
				i += 8;
				continue;
			}
		}
		unsigned c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len;
		unsigned min;
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			min = 0x10000;
		} else {
			return i;
		}
		if (i + len > n)
			return i;
		unsigned cp = c & (0xff >> (len + 1));
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += len;
	}
	return n;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int hex4(const char *p, const char *end)
{
	if (end - p < 4)
		return -1;
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static void put_utf8(struct sbuf *b, unsigned cp)
{
	char t[4];
	size_t n;
	if (cp < 0x80) {
		t[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		t[0] = (char)(0xc0 | (cp >> 6));
		t[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		t[0] = (char)(0xe0 | (cp >> 12));
		t[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		t[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		t[0] = (char)(0xf0 | (cp >> 18));
		t[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		t[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		t[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sbuf_add(b, t, n);
}

bool jscan_decode(struct jcur *c, const struct jstr *js, struct sbuf *scratch, const char **s, size_t *n)
{
	if (js->flags & JSTR_HIGH) {
		size_t bad = jscan_utf8_check(js->s, js->n);
		if (bad < js->n)
			return jscan_fail(c, js->s + bad, "valid UTF-8 in a string");
	}
	if (!(js->flags & JSTR_ESC)) {
		*s = js->s;
		*n = js->n;
		return true;
	}
	sbuf_reset(scratch);
	const char *p = js->s, *end = js->s + js->n;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		if (!bs) {
			sbuf_add(scratch, p, (size_t)(end - p));
			break;
		}
		sbuf_add(scratch, p, (size_t)(bs - p));
		p = bs + 1;
		if (p >= end)
			return jscan_fail(c, bs, "an escape sequence after '\\'");
		char e = *p++;
		switch (e) {
		case '"': sbuf_addch(scratch, '"'); break;
		case '\\': sbuf_addch(scratch, '\\'); break;
		case '/': sbuf_addch(scratch, '/'); break;
		case 'b': sbuf_addch(scratch, '\b'); break;
		case 'f': sbuf_addch(scratch, '\f'); break;
		case 'n': sbuf_addch(scratch, '\n'); break;
		case 'r': sbuf_addch(scratch, '\r'); break;
		case 't': sbuf_addch(scratch, '\t'); break;
		case 'u': {
			int v = hex4(p, end);
			if (v < 0)
				return jscan_fail(c, bs, "four hex digits after '\\u'");
			p += 4;
			unsigned cp = (unsigned)v;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				int lo = -1;
				if (end - p >= 6 && p[0] == '\\' && p[1] == 'u')
					lo = hex4(p + 2, end);
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned)lo - 0xdc00);
					p += 6;
				} else {
					cp = 0xfffd; /* lone high surrogate */
				}
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				cp = 0xfffd; /* lone low surrogate */
			}
			put_utf8(scratch, cp);
			break;
		}
		default:
			return jscan_fail(c, bs, "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
		}
	}
	*s = scratch->buf;
	*n = scratch->len;
	return true;
}

/* Byte classes for number tokens. */
static inline bool numch(unsigned char ch)
{
	return (ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E';
}

bool jscan_number(struct jcur *c, const char **s, size_t *n)
{
	const char *p = c->p, *end = c->end;
	while (jscan_cls[(unsigned char)*p] == 2)
		p++;
	if (p > end)
		p = end;
	if (p == end) {
		c->st = JS_MORE;
		return false;
	}
	if (p == c->p)
		return jscan_fail(c, p, "a value");
	*s = c->p;
	*n = (size_t)(p - c->p);
	c->p = p;
	return true;
}

bool jscan_literal(struct jcur *c, const char *lit, size_t n)
{
	size_t avail = (size_t)(c->end - c->p);
	size_t k = GF_MIN(avail, n);
	if (memcmp(c->p, lit, k))
		return jscan_fail(c, c->p, "a value");
	if (avail < n + 1) { /* also need the byte after it */
		c->st = JS_MORE;
		return false;
	}
	unsigned char nx = (unsigned char)c->p[n];
	if ((nx >= 'a' && nx <= 'z') || (nx >= '0' && nx <= '9'))
		return jscan_fail(c, c->p, "a value");
	c->p += n;
	return true;
}

/* Skip-class of each byte outside strings: 0 plain, 1 '"', 2 open, 3 close, 4 NUL. */
static const unsigned char skip_cls[256] = {
	[0] = 4, ['"'] = 1, ['{'] = 2, ['['] = 2, ['}'] = 3, [']'] = 3,
};

bool jscan_skip(struct jcur *c, int depth)
{
	int ch = jscan_ws(c);
	if (ch < 0)
		return false;
	if (ch == '"') {
		struct jstr js;
		return jscan_string(c, &js);
	}
	if (ch == 't')
		return jscan_literal(c, "true", 4);
	if (ch == 'f')
		return jscan_literal(c, "false", 5);
	if (ch == 'n')
		return jscan_literal(c, "null", 4);
	if (ch != '{' && ch != '[') {
		const char *s;
		size_t n;
		if (!numch((unsigned char)ch))
			return jscan_fail(c, c->p, "a value");
		return jscan_number(c, &s, &n);
	}
	char stack[JSCAN_MAX_DEPTH];
	int sp = 0;
	const char *p = c->p, *end = c->end;
#ifdef __SSE2__
	unsigned bits = 0;    /* quotes, brackets and NULs of the block at base not handled yet */
	const char *base = p;
#endif
	for (;;) {
		/* to the next quote, bracket or NUL (the NUL padding at end stops it) */
#ifdef __SSE2__
		if (!bits) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
			__m128i m = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_setzero_si128()));
			/* '[' 0x5b, ']' 0x5d, '{' 0x7b, '}' 0x7d: (x | 0x20) & ~6 is 0x79 for all four
			 * (and for 'Y', 'y', '_', 0x7f, which the switch below passes over) */
			__m128i br = _mm_andnot_si128(_mm_set1_epi8(6), _mm_or_si128(x, _mm_set1_epi8(0x20)));
			m = _mm_or_si128(m, _mm_cmpeq_epi8(br, _mm_set1_epi8(0x79)));
			bits = (unsigned)_mm_movemask_epi8(m);
			if (!bits) {
				p += 16;
				continue;
			}
			base = p;
		}
		p = base + __builtin_ctz(bits);
		bits &= bits - 1;
#endif
		if (p >= end)
			break;
		unsigned char b = (unsigned char)*p;
		switch (skip_cls[b]) {
		case 0:
			p++;
			break;
		case 1: {
			struct jcur sc = { p, end, JS_OK, NULL, NULL, NULL, 0 };
			struct jstr js;
			if (!jscan_string(&sc, &js)) {
				c->st = sc.st;
				c->err_at = sc.err_at;
				c->what = sc.what;
				c->got = sc.got;
				c->limit = sc.limit;
				return false;
			}
			p = sc.p;
#ifdef __SSE2__
			bits = 0; /* go on from the end of the string */
			continue;
#else
			break;
#endif
		}
		case 2:
			if (depth + sp + 1 > JSCAN_MAX_DEPTH)
				return jscan_fail(c, p, "nesting no deeper than 64 levels");
			stack[sp++] = b == '{' ? '}' : ']';
			p++;
			break;
		case 3:
			if (!sp || stack[sp - 1] != (char)b)
				return jscan_fail(c, p, sp && stack[sp - 1] == '}' ? "'}'" : "']'");
			sp--;
			p++;
			if (!sp) {
				c->p = p;
				return true;
			}
			break;
		default:
			return jscan_fail(c, p, "no NUL byte in JSON text");
		}
#ifdef __SSE2__
		if (!bits)
			p = base + 16; /* nothing else of interest in this block */
#endif
	}
	c->st = JS_MORE;
	return false;
}
