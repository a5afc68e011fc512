/* import_json.c — a small strict JSON tree reader (see import_json.h). */
#include "stacks/import_json.h"

#include <stdlib.h>
#include <string.h>

struct jp {
	struct import_json *j;
	const char *s;
	size_t n, i;
	const char *name;
	struct sbuf *err;
};

static int fail(struct jp *p, const char *what)
{
	sbuf_setf(p->err, "'%s': byte %zu: expected %s", p->name, p->i, what);
	return GF_EINPUT;
}

static void ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static uint32_t node(struct jp *p, int type)
{
	struct import_json *j = p->j;
	if (j->nn == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 256;
		j->n = gf_xreallocarray(j->n, j->cap, sizeof *j->n);
	}
	struct import_json_node *x = &j->n[j->nn];
	memset(x, 0, sizeof *x);
	x->type = (uint8_t)type;
	x->at = p->i;
	return (uint32_t)j->nn++;
}

static int hex4(struct jp *p, unsigned *v)
{
	if (p->n - p->i < 4)
		return fail(p, "4 hex digits after \\u");
	*v = 0;
	for (int k = 0; k < 4; k++) {
		char c = p->s[p->i++];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (unsigned)((c | 0x20) - 'a' + 10) : 99;
		if (d > 15) {
			p->i--;
			return fail(p, "a hex digit after \\u");
		}
		*v = *v << 4 | d;
	}
	return GF_OK;
}

static void utf8(struct sbuf *b, unsigned c)
{
	if (c < 0x80) {
		sbuf_addch(b, (char)c);
	} else if (c < 0x800) {
		sbuf_addch(b, (char)(0xc0 | c >> 6));
		sbuf_addch(b, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		sbuf_addch(b, (char)(0xe0 | c >> 12));
		sbuf_addch(b, (char)(0x80 | (c >> 6 & 0x3f)));
		sbuf_addch(b, (char)(0x80 | (c & 0x3f)));
	} else {
		sbuf_addch(b, (char)(0xf0 | c >> 18));
		sbuf_addch(b, (char)(0x80 | (c >> 12 & 0x3f)));
		sbuf_addch(b, (char)(0x80 | (c >> 6 & 0x3f)));
		sbuf_addch(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* A string at p->i ('"'): decoded into j->str; *off = its offset + 1. */
static int string(struct jp *p, uint32_t *off, uint32_t *len)
{
	struct sbuf *b = &p->j->str;
	if (b->len > UINT32_MAX - 1 - (p->n - p->i)) {
		sbuf_setf(p->err, "'%s': byte %zu: strings longer than 4 GiB in all", p->name, p->i);
		return GF_EINTERNAL;
	}
	size_t start = b->len;
	p->i++;
	for (;;) {
		if (p->i >= p->n)
			return fail(p, "'\"' closing the string");
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			p->i++;
			break;
		}
		if (c < 0x20)
			return fail(p, "no control byte inside a string (\\n, \\t...)");
		if (c != '\\') {
			size_t k = p->i;
			while (k < p->n && p->s[k] != '"' && p->s[k] != '\\' && (unsigned char)p->s[k] >= 0x20)
				k++;
			sbuf_add(b, p->s + p->i, k - p->i);
			p->i = k;
			continue;
		}
		if (++p->i >= p->n)
			return fail(p, "an escape after '\\'");
		char e = p->s[p->i++];
		switch (e) {
		case '"': case '\\': case '/': sbuf_addch(b, e); break;
		case 'b': sbuf_addch(b, '\b'); break;
		case 'f': sbuf_addch(b, '\f'); break;
		case 'n': sbuf_addch(b, '\n'); break;
		case 'r': sbuf_addch(b, '\r'); break;
		case 't': sbuf_addch(b, '\t'); break;
		case 'u': {
			unsigned v, w;
			int rc = hex4(p, &v);
			if (rc)
				return rc;
			if (v >= 0xd800 && v < 0xdc00 && p->n - p->i >= 6 && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
				size_t save = p->i;
				p->i += 2;
				if ((rc = hex4(p, &w)))
					return rc;
				if (w >= 0xdc00 && w < 0xe000) {
					v = 0x10000 + ((v - 0xd800) << 10) + (w - 0xdc00);
				} else {
					p->i = save;
					v = 0xfffd;
				}
			} else if (v >= 0xd800 && v < 0xe000) {
				v = 0xfffd;
			}
			utf8(b, v);
			break;
		}
		default:
			p->i--;
			return fail(p, "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u after '\\'");
		}
	}
	*off = (uint32_t)start + 1;
	*len = (uint32_t)(b->len - start);
	sbuf_addch(b, 0);
	return GF_OK;
}

static bool digit(struct jp *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static int number(struct jp *p, uint32_t x)
{
	size_t s = p->i;
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (!digit(p))
		return fail(p, "a digit");
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (digit(p))
			p->i++;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!digit(p))
			return fail(p, "a digit after '.'");
		while (digit(p))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] | 0x20) == 'e') {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!digit(p))
			return fail(p, "a digit in the exponent");
		while (digit(p))
			p->i++;
	}
	if (p->i - s > UINT32_MAX)
		return fail(p, "a shorter number");
	p->j->n[x].off = s;
	p->j->n[x].len = (uint32_t)(p->i - s);
	return GF_OK;
}

static bool word(struct jp *p, const char *w)
{
	size_t k = strlen(w);
	if (p->n - p->i < k || memcmp(p->s + p->i, w, k))
		return false;
	p->i += k;
	return true;
}

static int value(struct jp *p, uint32_t *out, int depth);

/* Array or object at p->i: children linked under x. */
static int container(struct jp *p, uint32_t x, bool obj, int depth)
{
	char close = obj ? '}' : ']';
	p->i++;
	ws(p);
	uint32_t last = 0;
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		return GF_OK;
	}
	for (;;) {
		uint32_t koff = 0, klen = 0, c;
		int rc;
		if (obj) {
			if (p->i >= p->n || p->s[p->i] != '"')
				return fail(p, "'\"' starting a member name");
			if ((rc = string(p, &koff, &klen)))
				return rc;
			ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return fail(p, "':' after the member name");
			p->i++;
			ws(p);
		}
		if ((rc = value(p, &c, depth + 1)))
			return rc;
		p->j->n[c].key = koff;
		p->j->n[c].key_len = klen;
		if (last)
			p->j->n[last].next = c;
		else
			p->j->n[x].first = c;
		last = c;
		ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			ws(p);
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close) {
			p->i++;
			return GF_OK;
		}
		return fail(p, obj ? "',' or '}'" : "',' or ']'");
	}
}

static int value(struct jp *p, uint32_t *out, int depth)
{
	if (depth > IMPORT_JSON_DEPTH)
		return fail(p, "nesting at most 64 deep");
	if (p->i >= p->n)
		return fail(p, "a value");
	char c = p->s[p->i];
	uint32_t x;
	int rc = GF_OK;
	if (c == '{' || c == '[') {
		x = node(p, c == '{' ? IMPORT_JSON_OBJ : IMPORT_JSON_ARR);
		rc = container(p, x, c == '{', depth);
		p->j->n[x].off = p->i; /* just past the closing bracket */
	} else if (c == '"') {
		x = node(p, IMPORT_JSON_STR);
		uint32_t off, len;
		if (!(rc = string(p, &off, &len))) {
			p->j->n[x].off = off - 1;
			p->j->n[x].len = len;
		}
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		x = node(p, IMPORT_JSON_NUM);
		rc = number(p, x);
	} else if (word(p, "true")) {
		x = node(p, IMPORT_JSON_BOOL);
		p->j->n[x].off = 1;
	} else if (word(p, "false")) {
		x = node(p, IMPORT_JSON_BOOL);
	} else if (word(p, "null")) {
		x = node(p, IMPORT_JSON_NULL);
	} else {
		return fail(p, "a JSON value");
	}
	*out = x;
	return rc;
}

int import_json_parse(struct import_json *j, const char *buf, size_t len, const char *name, struct sbuf *err)
{
	memset(j, 0, sizeof *j);
	sbuf_init(&j->str, 0);
	j->src = buf;
	struct jp p = { j, buf, len, 0, name ? name : "<stdin>", err };
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		p.i = 3;
	ws(&p);
	uint32_t root;
	int rc = value(&p, &root, 0);
	if (rc)
		return rc;
	ws(&p);
	if (p.i != len)
		return fail(&p, "the end of the input after the JSON value");
	return GF_OK;
}

void import_json_free(struct import_json *j)
{
	free(j->n);
	sbuf_release(&j->str);
	memset(j, 0, sizeof *j);
}

uint32_t import_json_get(const struct import_json *j, uint32_t obj, const char *key)
{
	if (obj >= j->nn || j->n[obj].type != IMPORT_JSON_OBJ)
		return 0;
	size_t k = strlen(key);
	for (uint32_t c = j->n[obj].first; c; c = j->n[c].next)
		if (j->n[c].key_len == k && !memcmp(j->str.buf + j->n[c].key - 1, key, k))
			return c;
	return 0;
}

uint32_t import_json_child(const struct import_json *j, uint32_t node)
{
	if (node >= j->nn || (j->n[node].type != IMPORT_JSON_ARR && j->n[node].type != IMPORT_JSON_OBJ))
		return 0;
	return j->n[node].first;
}

const char *import_json_text(const struct import_json *j, uint32_t node, size_t *len)
{
	const struct import_json_node *x = &j->n[node];
	*len = x->len;
	if (x->type == IMPORT_JSON_STR)
		return j->str.buf + x->off;
	if (x->type == IMPORT_JSON_NUM)
		return j->src + x->off;
	*len = 0;
	return "";
}

const char *import_json_raw(const struct import_json *j, uint32_t node, size_t *len)
{
	const struct import_json_node *x = &j->n[node];
	if (x->type == IMPORT_JSON_ARR || x->type == IMPORT_JSON_OBJ) {
		*len = (size_t)(x->off - x->at);
		return j->src + x->at;
	}
	if (x->type == IMPORT_JSON_NUM) {
		*len = x->len;
		return j->src + x->off;
	}
	*len = 0;
	return "";
}
