/*
 * jscan.h — the lexical layer of the streaming JSON reader: find value
 * spans, skip values, decode strings, over a window of text that may end in
 * the middle of a value.
 *
 *   struct jcur c = { p, end, JS_OK, NULL, NULL, NULL, 0 };
 *   jscan_ws(&c);
 *   struct jstr k;
 *   if (jscan_string(&c, &k) ...)
 *   if (c.st == JS_MORE) { keep the text from the unit's start, read more, retry }
 *
 * The text must be followed by JSCAN_PAD readable NUL bytes (a sentinel that
 * lets the blank and number loops run without bounds checks).
 * Every function advances c->p; when it reaches c->end before the value is
 * complete it sets c->st = JS_MORE (the caller keeps the unfinished tail,
 * appends the next chunk and retries the whole unit — an event — from its
 * start); on malformed text it sets c->st = JS_ERR, c->err_at to the
 * offending byte and c->what to what was expected. Nothing is allocated
 * except by jscan_decode into the caller's scratch buffer.
 *
 * Design (after Perfetto's JSON tokenizer): strings are scanned 8 bytes at a
 * time for '"', '\\' and control bytes; values that are not needed are skipped
 * by bracket matching (strings inside them are scanned, the grammar between
 * brackets is not checked); strings are unescaped only when a backslash was
 * seen. Control bytes (NUL included) inside any string and NUL outside
 * strings are errors. Every string scanned — key or value, decoded or
 * skipped — must be valid UTF-8 (an invalid sequence is an error with its
 * offset; the check runs only on strings with a byte >= 0x80). A string
 * longer than jscan_token_max() bytes (gf_limits.token, GPUFLAME_MAX_TOKEN)
 * is an error with c->limit set, at its opening quote, however the text is
 * cut: the scan stops as soon as that many bytes are seen.
 *
 * Layer: trace/read.
 */
#ifndef GF_JSCAN_H
#define GF_JSCAN_H

#include "base/gf.h"
#include "base/sbuf.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define JSCAN_MAX_DEPTH 64 /* nesting limit of objects/arrays inside one value */
#define JSCAN_PAD 32       /* readable zero bytes required after the end of the text */

enum { JS_OK = 0, JS_MORE = 1, JS_ERR = 2 };

struct jcur {
	const char *p, *end;
	int st;
	const char *err_at; /* JS_ERR: the offending byte */
	const char *what;   /* JS_ERR: "expected ..." text */
	const char *got;    /* JS_ERR: what was found instead; NULL = describe the byte at err_at */
	int limit;          /* JS_ERR: 1 = a string longer than jscan_token_max() (err_at: its quote) */
};

/* A string token: s[0..n) is the raw text between the quotes. */
struct jstr {
	const char *s;
	size_t n;
	unsigned flags; /* JSTR_ESC | JSTR_HIGH (one word: written and tested at once) */
};
#define JSTR_ESC 1u  /* contains a backslash escape */
#define JSTR_HIGH 2u /* may contain bytes >= 0x80 */

/* Sets a JS_ERR state (got = NULL, limit = 0). @return 0 for convenience. */
int jscan_fail(struct jcur *c, const char *at, const char *what);
/* The same with the text of what was found instead. */
int jscan_fail_got(struct jcur *c, const char *at, const char *what, const char *got);

/* The longest string jscan accepts: gf_limits.token, at least 32 (shorter
 * strings take the inline path, which does not count). */
size_t jscan_token_max(void);

/* Validates a scanned string with JSTR_HIGH set. @return true, or false
 * with JS_ERR at the first invalid byte. */
bool jscan_utf8_or_fail(struct jcur *c, const struct jstr *js);

/* 1 for JSON blanks, 2 for number characters, by byte. */
extern const unsigned char jscan_cls[256];

/* Skips blanks. @return the next byte, or -1 with st = JS_MORE at the end.
 * Requires the padding: JSCAN_PAD readable bytes after c->end, the first of
 * them a NUL (not a blank). */
static inline int jscan_ws(struct jcur *c)
{
	const char *p = c->p;
	if (GF_LIKELY(jscan_cls[(unsigned char)*p] != 1))
		return p < c->end ? (unsigned char)*p : (c->st = JS_MORE, -1);
#ifdef __SSE2__
	/* branch-free for runs under 16 blanks (whether a blank follows is
	 * unpredictable in real traces, so a first-byte test mispredicts) */
	for (;;) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i w = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
		w = _mm_or_si128(w, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\t'))));
		unsigned m = (unsigned)_mm_movemask_epi8(w) ^ 0xffffu;
		p += __builtin_ctz(m | 0x10000u);
		if (GF_LIKELY(m))
			break;
	}
#else
	while (jscan_cls[(unsigned char)*p] == 1)
		p++;
#endif
	c->p = p;
	if (GF_UNLIKELY(p >= c->end)) {
		c->p = c->end;
		c->st = JS_MORE;
		return -1;
	}
	return (unsigned char)*p;
}

/* The general case of jscan_string. */
bool jscan_string_slow(struct jcur *c, struct jstr *out);

#ifdef __SSE2__
/* Bits of the bytes of x that end a plain run in a string ('"', '\\', control). */
static inline unsigned jscan_special16(__m128i x)
{
	__m128i ctl = _mm_cmplt_epi8(_mm_xor_si128(x, _mm_set1_epi8((char)0x80)), _mm_set1_epi8(0x20 - 128));
	__m128i sp = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
					       _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))), ctl);
	return (unsigned)_mm_movemask_epi8(sp);
}
#endif

/* c->p at '"': scans the string; on success c->p is past the closing quote.
 * @return true on success. Strings shorter than 32 bytes without escapes
 * (keys and most names) take an inline SSE2 path. Invalid UTF-8 and
 * strings longer than jscan_token_max() are errors (see above). */
static inline bool jscan_string(struct jcur *c, struct jstr *out)
{
#ifdef __SSE2__
	const char *p = c->p + 1;
	if (GF_LIKELY(c->end - p >= 32)) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = jscan_special16(x), hm = (unsigned)_mm_movemask_epi8(x);
		if (!m) {
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
			m = jscan_special16(y) << 16;
			hm |= (unsigned)_mm_movemask_epi8(y) << 16;
		}
		if (GF_LIKELY(m)) {
			unsigned k = (unsigned)__builtin_ctz(m);
			if (GF_LIKELY(p[k] == '"')) {
				out->s = p;
				out->n = k;
				c->p = p + k + 1;
				if (GF_UNLIKELY(hm & ((1u << k) - 1))) {
					out->flags = JSTR_HIGH;
					return jscan_utf8_or_fail(c, out);
				}
				out->flags = 0;
				return true;
			}
		}
	}
#endif
	return jscan_string_slow(c, out);
}

/* Decodes a scanned string: unescapes it (into scratch, only when it has
 * escapes; \uXXXX and surrogate pairs to UTF-8, lone surrogates to U+FFFD)
 * and validates UTF-8 (again: jscan_string did). *s and *n point into the text or into scratch.
 * @return true, or false with c->st = JS_ERR. */
bool jscan_decode(struct jcur *c, const struct jstr *js, struct sbuf *scratch, const char **s, size_t *n);

/* Number token span at c->p (JSON number characters). @return true. */
bool jscan_number(struct jcur *c, const char **s, size_t *n);

/* Skips one value of any kind (depth = nesting depth of the value's parent,
 * counted against JSCAN_MAX_DEPTH). @return true on success. */
bool jscan_skip(struct jcur *c, int depth);

/* Exact literal (true, false, null) at c->p. */
bool jscan_literal(struct jcur *c, const char *lit, size_t n);

/* Byte offset of the first invalid UTF-8 sequence in s[0..n), or n. */
size_t jscan_utf8_check(const char *s, size_t n);

/* Short printable description of byte c for messages: "'x'", "byte 0x00", "end of data". */
const char *jscan_byte_desc(int ch, char buf[16]);

#endif
