#include "stacks/export/export_stacks.h"

#include "base/escape.h"
#include "base/names.h"
#include "base/num.h"
#include "base/vec.h"
#include "stacks/folded.h"

#include <stdlib.h>
#include <string.h>

const char *export_stacks_weight(const struct ftree *t, const char *fallback)
{
	struct folded_units u;
	folded_units(t, &u);
	return u.name ? u.name : fallback;
}

bool export_stacks_ns_exp(const struct ftree *t, int *e)
{
	struct folded_units u;
	folded_units(t, &u);
	if (u.kind != FOLDED_U_TIME)
		return false;
	*e = u.ns_exp;
	return true;
}

const char *export_stacks_unit(const struct ftree *t, bool pprof)
{
	struct folded_units u;
	folded_units(t, &u);
	return u.kind == FOLDED_U_TIME ? "nanoseconds" : u.kind == FOLDED_U_BYTES ? "bytes" : pprof ? "count" : "none";
}

bool export_stacks_int(const struct ftree *t, int64_t v, int64_t *out)
{
	int e;
	if (!export_stacks_ns_exp(t, &e))
		e = -(int)t->scale;
	if (e >= 0) {
		for (int i = 0; i < e; i++)
			if (__builtin_mul_overflow(v, 10, &v))
				return false;
		*out = v;
		return true;
	}
	int64_t d = num_pow10((unsigned)-e);
	if (v % d)
		return false;
	*out = v / d;
	return true;
}

void export_stacks_num(struct sbuf *b, const struct ftree *t, int64_t v)
{
	int e;
	if (!export_stacks_ns_exp(t, &e))
		e = -(int)t->scale;
	if (e < 0) {
		num_fmt(b, v, (unsigned)-e);
		return;
	}
	int64_t x = v;
	bool ok = true;
	for (int i = 0; i < e && ok; i++)
		ok = !__builtin_mul_overflow(x, 10, &x);
	if (ok) {
		sbuf_addf(b, "%lld", (long long)x);
		return;
	}
	/* beyond int64 ns: the exact decimal digits, then the zeros */
	num_fmt(b, v, 0);
	for (int i = 0; i < e; i++)
		sbuf_addch(b, '0');
}

static bool digits(const char *s, size_t n, int64_t *v)
{
	if (!n || n > 18)
		return false;
	int64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return true;
}

void export_stacks_split(const char *s, size_t n, struct export_stacks_frame *f)
{
	memset(f, 0, sizeof *f);
	f->name = s;
	f->name_len = n;
	size_t pl;
	/* fold's Kineto frame: "path(123): func" */
	if (names_py_source(s, n, &pl)) {
		const char *close = memchr(s + pl, ')', n - pl);
		int64_t line;
		if (close && digits(s + pl + 1, (size_t)(close - s) - pl - 1, &line)) {
			size_t at = (size_t)(close - s) + 2; /* past "):" */
			while (at < n && s[at] == ' ')
				at++;
			f->file = s;
			f->file_len = pl;
			f->line = line;
			f->name = s + at;
			f->name_len = n - at;
			return;
		}
	}
	/* CPython's -X perf frame: "py::func:path" (no line) */
	size_t fl;
	const char *file;
	size_t file_len;
	if (names_py_perf(s, n, &fl, &file, &file_len)) {
		f->name = s + 4;
		f->name_len = fl;
		f->file = file;
		f->file_len = file_len;
		return;
	}
	if (names_is_thread(s, n) || names_is_process(s, n))
		return; /* a root frame, not "func (path:123)" */
	/* py-spy's frame: "func (path:123)" */
	if (n >= 6 && s[n - 1] == ')') {
		const char *open = NULL;
		for (size_t i = n - 1; i-- > 0;)
			if (s[i] == '(') {
				open = s + i;
				break;
			}
		if (!open || open == s || open[-1] != ' ')
			return;
		const char *in = open + 1;
		size_t inl = (size_t)(s + n - 1 - in);
		const char *colon = NULL;
		for (size_t i = inl; i-- > 0;)
			if (in[i] == ':') {
				colon = in + i;
				break;
			}
		int64_t line;
		if (!colon || colon == in || !digits(colon + 1, (size_t)(in + inl - colon - 1), &line))
			return;
		f->name = s;
		f->name_len = (size_t)(open - 1 - s);
		f->file = in;
		f->file_len = (size_t)(colon - in);
		f->line = line;
	}
}

int export_stacks_walk(const struct ftree *t, export_stacks_fn fn, void *ctx)
{
	VEC(uint32_t) path = VEC_INIT;
	int rc = 0;
	if (!t->n) {
		return 0;
	}
	uint32_t node = t->child[0];
	/* preorder: visit node, then its children, then its next sibling */
	while (node != FT_NONE && !rc) {
		vec_push(&path, node);
		int64_t self = ftree_self(t, node, 0);
		if (self)
			rc = fn(ctx, t, path.v, path.n, self);
		if (t->child[node] != FT_NONE) {
			node = t->child[node];
			continue;
		}
		/* climb to the first ancestor with a next sibling */
		while (path.n) {
			uint32_t top = path.v[--path.n];
			if (t->sib[top] != FT_NONE) {
				node = t->sib[top];
				break;
			}
			node = FT_NONE;
		}
	}
	vec_free(&path);
	return rc;
}

void export_stacks_utf8(struct sbuf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		long cp;
		int k = esc_utf8_next(u + i, n - i, &cp);
		if (k <= 0 || cp < 0) {
			sbuf_addstr(b, "\xEF\xBF\xBD");
			i++;
			continue;
		}
		sbuf_add(b, s + i, (size_t)k);
		i += (size_t)k;
	}
}
