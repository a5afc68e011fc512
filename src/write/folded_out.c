/* folded_out.c — folded text writer (see folded_out.h). */
#include "folded_out.h"

#include "../base/num.h"

#include <stdlib.h>
#include <string.h>

void folded_meta_escape(struct sbuf *b, const char *val)
{
	for (const unsigned char *p = (const unsigned char *)val; *p; p++) {
		if (*p == ';' || *p == '%' || *p == '=' || *p <= ' ' || *p == 0x7f)
			sbuf_addf(b, "%%%02X", *p);
		else
			sbuf_addch(b, *p);
	}
}

void folded_write_meta(FILE *fp, const struct fmeta *m)
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
	fwrite(b.buf, 1, b.len, fp);
	sbuf_release(&b);
}

int folded_write(FILE *fp, const struct ftree *t)
{
	folded_write_meta(fp, &t->meta);
	struct sbuf path = SBUF_INIT, line = SBUF_INIT;
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
		sbuf_add(&path, pool_str(t->names, t->name[n]), pool_len(t->names, t->name[n]));
		int64_t s0 = ftree_self(t, n, 0);
		int64_t s1 = t->ncols == 2 ? ftree_self(t, n, 1) : 0;
		if (s0 || s1) {
			sbuf_reset(&line);
			sbuf_add(&line, path.buf, path.len);
			sbuf_addch(&line, ' ');
			num_fmt(&line, s0, t->scale);
			if (t->ncols == 2) {
				sbuf_addch(&line, ' ');
				num_fmt(&line, s1, t->scale);
			}
			sbuf_addch(&line, '\n');
			fwrite(line.buf, 1, line.len, fp);
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
