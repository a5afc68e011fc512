/* folded_out.c — folded text writer (see folded_out.h). */
#include "stacks/folded_out.h"

#include "base/num.h"
#include "base/escape.h"

#include <stdlib.h>
#include <string.h>

void folded_out_line(FILE *fp, const char *s, size_t n, bool terminal)
{
	if (!terminal) {
		fwrite(s, 1, n, fp);
		return;
	}
	struct sbuf b = SBUF_INIT;
	bool nl = n && s[n - 1] == '\n';
	esc_term(&b, s, n - nl);
	if (nl)
		sbuf_addch(&b, '\n');
	fwrite(b.buf, 1, b.len, fp);
	sbuf_release(&b);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

void folded_put_frame(struct sbuf *b, const char *s, size_t n, bool first)
{
	size_t i = 0;
	/* s[1] as written: LF and NUL become blanks too */
	if (first && n >= 2 && s[0] == '#' && (blank(s[1]) || s[1] == '\n' || s[1] == 0)) {
		sbuf_addstr(b, "#_");
		i = 2;
	}
	for (; i < n; i++) {
		char c = s[i];
		if (c == ';')
			c = ':';
		else if (c == '\n' || c == 0)
			c = ' ';
		sbuf_addch(b, c);
	}
}

bool folded_stack_end_needed(const char *s, size_t n, bool decides_cols)
{
	if (n == 0 || s[n - 1] == ';' || blank(s[n - 1]) || (n == 1 && s[0] == '#'))
		return true;
	if (!decides_cols)
		return false;
	/* a last blank-separated token that is a number reads as a first count */
	size_t k = n;
	while (k > 0 && !blank(s[k - 1]))
		k--;
	if (k == 0)
		return false;
	size_t i = k;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i > k && i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
	return i > k && i == n;
}

void folded_end_stack(struct sbuf *b, size_t start, bool decides_cols)
{
	if (folded_stack_end_needed(b->buf + start, b->len - start, decides_cols))
		sbuf_addch(b, ';');
}

void folded_put_path(struct sbuf *b, const struct ftree *t, uint32_t node)
{
	/* collect root-first */
	uint32_t stack[64], *v = stack;
	size_t n = 0, cap = 64;
	for (uint32_t x = node; x != 0 && x != FT_NONE; x = t->parent[x]) {
		if (n == cap) {
			cap *= 2;
			if (v == stack) {
				v = gf_xmalloc(cap * sizeof *v);
				memcpy(v, stack, sizeof stack);
			} else {
				v = gf_xreallocarray(v, cap, sizeof *v);
			}
		}
		v[n++] = x;
	}
	for (size_t i = n; i-- > 0;) {
		if (i != n - 1)
			sbuf_addch(b, ';');
		folded_put_frame(b, pool_str(t->names, t->name[v[i]]), pool_len(t->names, t->name[v[i]]),
				 i == n - 1);
	}
	if (v != stack)
		free(v);
}

void folded_meta_escape(struct sbuf *b, const char *val)
{
	for (const unsigned char *p = (const unsigned char *)val; *p; p++) {
		if (*p == ';' || *p == '%' || *p == '=' || *p <= ' ' || *p == 0x7f)
			sbuf_addf(b, "%%%02X", *p);
		else
			sbuf_addch(b, *p);
	}
}

void folded_write_meta(FILE *fp, const struct ftree_meta *m, bool terminal)
{
	if (!m->n)
		return;
	struct sbuf b = SBUF_INIT;
	sbuf_addstr(&b, "# gpuflame:");
	for (unsigned i = 0; i < m->n; i++) {
		sbuf_addch(&b, ' ');
		folded_meta_escape(&b, m->kv[i].key);
		sbuf_addch(&b, '=');
		folded_meta_escape(&b, m->kv[i].val);
		sbuf_addch(&b, ';');
	}
	sbuf_addch(&b, '\n');
	folded_out_line(fp, b.buf, b.len, terminal);
	sbuf_release(&b);
}

int folded_write(FILE *fp, const struct ftree *t, bool terminal)
{
	folded_write_meta(fp, &t->meta, terminal);
	struct sbuf path = SBUF_INIT, line = SBUF_INIT;
	bool first = true; /* the first stack line decides the number of counts */
	/* explicit DFS stack of (node, path length before the node) */
	size_t cap = 256, sp = 0;
	uint32_t *st = gf_xmalloc(cap * sizeof *st);
	size_t *plen = gf_xmalloc(cap * sizeof *plen);
	/* children are pushed, then reversed, so the first child pops first */
	#define PUSH_CHILDREN(node, len) do { \
		size_t base_ = sp; \
		for (uint32_t c_ = t->child[(node)]; c_ != FT_NONE; c_ = t->sib[c_]) { \
			if (sp == cap) { \
				cap *= 2; \
				st = gf_xreallocarray(st, cap, sizeof *st); \
				plen = gf_xreallocarray(plen, cap, sizeof *plen); \
			} \
			st[sp] = c_; plen[sp] = (len); sp++; \
		} \
		for (size_t i_ = base_, j_ = sp ? sp - 1 : 0; i_ < j_; i_++, j_--) { \
			uint32_t x_ = st[i_]; st[i_] = st[j_]; st[j_] = x_; \
		} \
	} while (0)
	PUSH_CHILDREN(0, SIZE_MAX); /* SIZE_MAX: a root child, no ';' before it */
	while (sp) {
		sp--;
		uint32_t n = st[sp];
		sbuf_setlen(&path, plen[sp] == SIZE_MAX ? 0 : plen[sp]);
		if (plen[sp] != SIZE_MAX)
			sbuf_addch(&path, ';');
		folded_put_frame(&path, pool_str(t->names, t->name[n]), pool_len(t->names, t->name[n]),
				 plen[sp] == SIZE_MAX);
		int64_t s0 = ftree_self(t, n, 0);
		int64_t s1 = t->ncols == 2 ? ftree_self(t, n, 1) : 0;
		if (s0 || s1) {
			sbuf_reset(&line);
			sbuf_add(&line, path.buf, path.len);
			folded_end_stack(&line, 0, first && t->ncols == 1);
			first = false;
			sbuf_addch(&line, ' ');
			num_fmt(&line, s0, t->scale);
			if (t->ncols == 2) {
				sbuf_addch(&line, ' ');
				num_fmt(&line, s1, t->scale);
			}
			sbuf_addch(&line, '\n');
			folded_out_line(fp, line.buf, line.len, terminal);
		}
		size_t l = path.len;
		PUSH_CHILDREN(n, l);
	}
	#undef PUSH_CHILDREN
	free(st);
	free(plen);
	sbuf_release(&path);
	sbuf_release(&line);
	return ferror(fp) ? -1 : 0;
}
