/* jsonw.c — tiny JSON writer (see jsonw.h). */
#include "base/jsonw.h"

#include "base/num.h"
#include "base/escape.h"

#include <math.h>
#include <string.h>

void jsonw_init(struct jsonw *j, struct sbuf *out)
{
	memset(j, 0, sizeof *j);
	j->out = out;
	j->first[0] = true;
}

static void nl(struct jsonw *j)
{
	sbuf_addch(j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		sbuf_addstr(j->out, "  ");
}

/* Separator before a value (or a key). */
static void pre(struct jsonw *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (!j->first[j->depth])
			sbuf_addch(j->out, ',');
		nl(j);
	}
	j->first[j->depth] = false;
}

static void jopen(struct jsonw *j, char c)
{
	pre(j);
	sbuf_addch(j->out, c);
	if (j->depth + 1 < JSONW_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

void jsonw_obj(struct jsonw *j)
{
	jopen(j, '{');
}

void jsonw_arr(struct jsonw *j)
{
	jopen(j, '[');
}

void jsonw_end(struct jsonw *j, char close)
{
	bool empty = j->first[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (!empty)
		nl(j);
	sbuf_addch(j->out, close);
	if (j->depth == 0)
		sbuf_addch(j->out, '\n');
}

void jsonw_key(struct jsonw *j, const char *k)
{
	pre(j);
	esc_json_str(j->out, k, strlen(k));
	sbuf_addstr(j->out, ": ");
	j->after_key = true;
}

void jsonw_str(struct jsonw *j, const char *s)
{
	if (!s) {
		jsonw_null(j);
		return;
	}
	jsonw_strn(j, s, strlen(s));
}

void jsonw_strn(struct jsonw *j, const char *s, size_t n)
{
	pre(j);
	esc_json_str(j->out, s, n);
}

void jsonw_int(struct jsonw *j, int64_t v)
{
	pre(j);
	sbuf_addf(j->out, "%lld", (long long)v);
}

void jsonw_bool(struct jsonw *j, bool v)
{
	pre(j);
	sbuf_addstr(j->out, v ? "true" : "false");
}

void jsonw_null(struct jsonw *j)
{
	pre(j);
	sbuf_addstr(j->out, "null");
}

void jsonw_dec(struct jsonw *j, int64_t v, unsigned scale)
{
	pre(j);
	num_fmt(j->out, v, scale);
}

void jsonw_ns_us(struct jsonw *j, int64_t ns)
{
	jsonw_dec(j, ns, 3);
}

void jsonw_raw(struct jsonw *j, const char *s)
{
	pre(j);
	sbuf_addstr(j->out, s);
}

void jsonw_double(struct jsonw *j, double v, int decimals)
{
	pre(j);
	if (!isfinite(v))
		sbuf_addstr(j->out, "null");
	else
		sbuf_addf(j->out, "%.*f", decimals, v);
}
