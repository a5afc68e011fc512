/*
 * kineto_fields.c — the general cases of kineto_fields.h: a string that
 * missed the intern cache or has escapes, a pid or tid written as text or
 * in a form the inline path leaves alone. Layer: read (private).
 */
#include "trace/read/kineto_fields.h"

static uint32_t intern_miss(struct rd *r, struct icent *e, const char *s, size_t n)
{
	struct pool *pl = r->kt->names;
	uint32_t id = pool_intern(pl, s, n);
	if (n <= UINT32_MAX) {
		e->s = pool_str(pl, id);
		e->n = (uint32_t)n;
		e->id = id;
	}
	return id;
}

static uint32_t intern(struct rd *r, const char *s, size_t n)
{
	struct icent *e = kineto_fields_slot(r, s, n);
	if (kineto_fields_hit(e, s, n))
		return e->id;
	return intern_miss(r, e, s, n);
}

/* kineto_fields_str past the scan of a string without escapes that missed
 * the cache, and every other case. */
bool kineto_fields_str_gen(struct rd *r, struct jcur *c, int ch, uint32_t *id, const struct jstr *scanned)
{
	if (ch != '"')
		return jfast_skip(c, ch, 2);
	struct jstr js;
	if (scanned)
		js = *scanned;
	else if (!jscan_string(c, &js))
		return false;
	if (!(js.flags & JSTR_ESC)) {
		struct icent *e = kineto_fields_slot(r, js.s, js.n);
		if (kineto_fields_hit(e, js.s, js.n)) {
			*id = e->id;
			return true;
		}
		*id = intern_miss(r, e, js.s, js.n); /* UTF-8: checked by jscan_string */
		return true;
	}
	const char *s;
	size_t n;
	if (!jscan_decode(c, &js, &r->scratch, &s, &n))
		return false;
	*id = intern(r, s, n);
	return true;
}

bool kineto_fields_idv_gen(struct rd *r, struct jcur *c, int ch, struct idv *v)
{
	v->str = UINT32_MAX;
	if (ch == '"') {
		uint32_t id = UINT32_MAX;
		if (!kineto_fields_str(r, c, ch, &id))
			return false;
		v->str = id;
		int64_t x;
		if (jfast_parse_int(pool_str(r->kt->names, id), pool_len(r->kt->names, id), &x)) {
			v->kind = 0;
			v->v = x;
		} else {
			v->kind = 1;
			v->v = id;
		}
		return true;
	}
	int64_t x;
	if (!jfast_read_int(c, ch, &x))
		return false;
	v->kind = x == KEV_NONE ? 2 : 0;
	v->v = x == KEV_NONE ? 0 : x;
	return true;
}

/* s[0..n) without the JSON blanks outside strings, into out. */
static void compact_json(struct sbuf *out, const char *s, size_t n)
{
	bool in = false, esc = false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (in) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"')
				in = false;
		} else if (ch == '"') {
			in = true;
		} else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			continue;
		}
		sbuf_addch(out, ch);
	}
}

bool kineto_fields_text(struct rd *r, struct jcur *c, int ch, bool compact, uint32_t *id)
{
	if (ch == 'n')
		return jfast_skip(c, ch, 2);
	if (ch == '"') {
		uint32_t sid = UINT32_MAX;
		if (!kineto_fields_str(r, c, ch, &sid))
			return false;
		const char *s = pool_str(r->kt->names, sid);
		size_t n = pool_len(r->kt->names, sid);
		if (!compact || !memchr(s, ' ', n)) {
			*id = sid;
			return true;
		}
		sbuf_reset(&r->scratch);
		for (size_t i = 0; i < n; i++)
			if (s[i] != ' ')
				sbuf_addch(&r->scratch, s[i]);
		*id = intern(r, r->scratch.buf, r->scratch.len);
		return true;
	}
	const char *p0 = c->p;
	if (!jfast_skip(c, ch, 2))
		return false;
	sbuf_reset(&r->scratch);
	compact_json(&r->scratch, p0, (size_t)(c->p - p0));
	*id = intern(r, r->scratch.buf, r->scratch.len);
	return true;
}

bool kineto_fields_dim3(struct jcur *c, int ch, int32_t out[3])
{
	const char *s = c->p;
	out[0] = -1;
	if (!jfast_skip(c, ch, 2))
		return false;
	if (ch != '[')
		return true;
	/* the span just skipped: '[' int ',' int ',' int ']' with blanks */
	const char *p = s + 1, *e = c->p;
	int32_t v[3];
	for (int i = 0; i < 3; i++) {
		while (p < e && jscan_cls[(unsigned char)*p] == 1)
			p++;
		int64_t x = 0;
		const char *d = p;
		while (p < e && *p >= '0' && *p <= '9' && x <= INT32_MAX)
			x = x * 10 + (*p++ - '0');
		if (p == d || x > INT32_MAX)
			return true;
		v[i] = (int32_t)x;
		while (p < e && jscan_cls[(unsigned char)*p] == 1)
			p++;
		if (p >= e || *p != (i < 2 ? ',' : ']'))
			return true;
		p++;
	}
	memcpy(out, v, sizeof v);
	return true;
}
