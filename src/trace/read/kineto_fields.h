/*
 * kineto_fields.h — the readers of the field values an event's keys hold
 * that need the reader's state: strings interned in the trace's pool
 * through the per-read cache, pids and tids (integer or text), keys
 * (decoded when they have escapes). Private to the Kineto reader; the
 * general cases are in kineto_fields.c.
 *
 *   uint32_t id; int ch;
 *   if (!kineto_fields_key(r, c, &k, &kn, &ch)) ...   // c->st says why
 *   if (!kineto_fields_str(r, c, ch, &id)) ...
 *
 * Same contract as jfast.h: the usual case inline, the rest as jscan and
 * the pool decide it; the cursor needs jscan's padding.
 *
 * Layer: trace/read (private: included only by kineto_*.c).
 */
#ifndef GF_KINETO_FIELDS_H
#define GF_KINETO_FIELDS_H

#include "trace/read/jfast.h"
#include "trace/read/kineto_int.h"

/* The cache slot of the text s[0..n) (see struct icent). */
static inline __attribute__((always_inline)) struct icent *kineto_fields_slot(struct rd *r, const char *s, size_t n)
{
	uint64_t k = n * 0x9e3779b97f4a7c15ULL ^ jfast_head_word(s, n);
	if (n > 8)
		k ^= jfast_ld8(s + n - 8) * 0xc2b2ae3d27d4eb4fULL;
	if (n >= 16)
		k ^= jfast_ld8(s + n / 2) >> 3;
	k = (k ^ (k >> 29)) * 0xbf58476d1ce4e5b9ULL;
	return &r->icache[(k >> 40) & (ICACHE_SIZE - 1)];
}

/* Whether the slot holds the text s[0..n). */
static inline __attribute__((always_inline)) bool kineto_fields_hit(const struct icent *e, const char *s, size_t n)
{
	if (!e->s || e->n != n)
		return false;
	const char *a = e->s;
	if (n >= 8) {
		if (n <= 16)
			return jfast_ld8(a) == jfast_ld8(s) && jfast_ld8(a + n - 8) == jfast_ld8(s + n - 8);
		return !memcmp(a, s, n);
	}
	return jfast_head_word(a, n) == jfast_head_word(s, n);
}

/* The general cases of kineto_fields_str and kineto_fields_idv (kineto_fields.c). */
bool kineto_fields_str_gen(struct rd *r, struct jcur *c, int ch, uint32_t *id, const struct jstr *scanned);
bool kineto_fields_idv_gen(struct rd *r, struct jcur *c, int ch, struct idv *v);

/* A string value interned in the pool; other values are skipped (*id unchanged).
 * A string without escapes is looked up in the cache by its raw bytes before
 * it is decoded (jscan_string has validated its UTF-8). The usual case — a
 * repeated name — is inline. */
static inline __attribute__((always_inline)) bool kineto_fields_str(struct rd *r, struct jcur *c, int ch,
							    uint32_t *id)
{
	struct jstr js;
	if (GF_LIKELY(ch == '"')) {
		if (!jscan_string(c, &js))
			return false;
		if (GF_LIKELY(!(js.flags & JSTR_ESC))) {
			struct icent *e = kineto_fields_slot(r, js.s, js.n);
			if (GF_LIKELY(kineto_fields_hit(e, js.s, js.n))) {
				*id = e->id;
				return true;
			}
		}
		return kineto_fields_str_gen(r, c, ch, id, &js);
	}
	return kineto_fields_str_gen(r, c, ch, id, NULL);
}

/* Any value but null as text interned in the pool (*id unchanged for null):
 * a string as kineto_fields_str does (with compact, its blanks dropped: the
 * rank list "[0, 1]" is "[0,1]"); a number, array or object as its JSON
 * text without the blanks outside strings ("Process Group ID": 0 is "0",
 * [0, 1] is "[0,1]"). */
bool kineto_fields_text(struct rd *r, struct jcur *c, int ch, bool compact, uint32_t *id);

/* A pid or tid: integer, string (numeric text reads as its number) or absent. */
static inline __attribute__((always_inline)) bool kineto_fields_idv(struct rd *r, struct jcur *c, int ch,
							    struct idv *v)
{
	if (GF_LIKELY((unsigned)(ch - '0') < 10 && jfast_int(c, &v->v))) {
		v->str = UINT32_MAX;
		v->kind = 0;
		return true;
	}
	return kineto_fields_idv_gen(r, c, ch, v);
}

/* Reads a key and the ':' after it; *ch = first byte of the value. */
static inline __attribute__((always_inline)) bool kineto_fields_key(struct rd *r, struct jcur *c, const char **k,
							    size_t *kn, int *ch)
{
	struct jstr js;
	*ch = -1;
	if (!jscan_string(c, &js))
		return false;
	if (js.flags) {
		if (!jscan_decode(c, &js, &r->scratch, k, kn))
			return false;
	} else {
		*k = js.s;
		*kn = js.n;
	}
	/* fast path for the usual `": v` (the padding makes p[2] readable) */
	const char *p = c->p;
	if (GF_LIKELY(p[0] == ':' && p[1] == ' ' && (unsigned char)p[2] > ' ' && p + 2 < c->end)) {
		c->p = p + 2;
		*ch = (unsigned char)p[2];
		return true;
	}
	int x = jscan_ws(c);
	if (x < 0)
		return false;
	if (x != ':')
		return jscan_fail(c, c->p, "':' after a key");
	c->p++;
	*ch = jscan_ws(c);
	return *ch >= 0;
}

/* A kernel's "grid" or "block": an array of three non-negative integers
 * ("[128, 1, 1]"); anything else is skipped and leaves out[0] = -1. */
bool kineto_fields_dim3(struct jcur *c, int ch, int32_t out[3]);

#endif
