/*
 * jscan.h — the lexical layer of the streaming JSON reader: find value
 * spans, skip values, decode strings, over a window of text that may end in
 * the middle of a value.
 *
 *   struct jcur c = { p, end, JS_OK, NULL, NULL };
 *   jscan_ws(&c);
 *   struct jstr k;
 *   if (jscan_string(&c, &k) ...)
 *   if (c.st == JS_MORE) { keep the text from the unit's start, read more, retry }
 *
 * The text must be followed by a readable NUL byte (text[end] == 0, a
 * sentinel that lets the blank and number loops run without bounds checks).
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
 * strings are errors. UTF-8 is validated only in strings that are decoded
 * (jscan_decode): invalid sequences there are an error with their offset;
 * strings that are skipped are not checked.
 *
 * Layer: read.
 */
#ifndef GF_JSCAN_H
#define GF_JSCAN_H

#include "../base/gf.h"
#include "../base/sbuf.h"

#define JSCAN_MAX_DEPTH 64 /* nesting limit of objects/arrays inside one value */

enum { JS_OK = 0, JS_MORE = 1, JS_ERR = 2 };

struct jcur {
	const char *p, *end;
	int st;
	const char *err_at; /* JS_ERR: the offending byte */
	const char *what;   /* JS_ERR: "expected ..." text */
};

/* A string token: s[0..n) is the raw text between the quotes. */
struct jstr {
	const char *s;
	size_t n;
	bool esc;  /* contains a backslash escape */
	bool high; /* may contain bytes >= 0x80 */
};

/* Sets a JS_ERR state. @return 0 for convenience. */
int jscan_fail(struct jcur *c, const char *at, const char *what);

/* 1 for JSON blanks, 2 for number characters, by byte. */
extern const unsigned char jscan_cls[256];

/* Skips blanks. @return the next byte, or -1 with st = JS_MORE at the end.
 * Requires the sentinel: *c->end is readable and not a blank (a NUL). */
static inline int jscan_ws(struct jcur *c)
{
	const char *p = c->p;
	while (jscan_cls[(unsigned char)*p] == 1)
		p++;
	c->p = p;
	if (GF_UNLIKELY(p >= c->end)) {
		c->p = c->end;
		c->st = JS_MORE;
		return -1;
	}
	return (unsigned char)*p;
}

/* c->p at '"': scans the string; on success c->p is past the closing quote.
 * @return true on success. */
bool jscan_string(struct jcur *c, struct jstr *out);

/* Decodes a scanned string: unescapes it (into scratch, only when it has
 * escapes; \uXXXX and surrogate pairs to UTF-8, lone surrogates to U+FFFD)
 * and validates UTF-8. *s and *n point into the text or into scratch.
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
