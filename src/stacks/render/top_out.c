/* top_out.c — the call-count table's writers (see top_out.h). */
#include "stacks/render/top_out.h"

#include "base/escape.h"
#include "base/num.h"
#include "base/sbuf.h"

#include <string.h>

#define TEXT_COLS 100
#define FLUSH_AT (64u << 10)

const char *const top_out_formats[] = {
	[TOP_OUT_TEXT] = "text", [TOP_OUT_TSV] = "tsv", [TOP_OUT_MD] = "md", [TOP_OUT_JSON] = "json", [TOP_OUT_N] = NULL,
};
_Static_assert(GF_ARRAY_LEN(top_out_formats) == TOP_OUT_N + 1, "a name per format");

/* 100 * v / d with two decimals (half away from zero); d > 0. */
static void pct(struct sbuf *b, int64_t v, int64_t d)
{
	num_fmt_pct(b, v, d, 2, NUM_HALF_AWAY);
}

/* Display width in code points of valid UTF-8. */
static size_t width_of(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

/* Appends s cut to at most w code points, with an ellipsis when cut. */
static void add_cut(struct sbuf *b, const char *s, size_t n, size_t w)
{
	if (width_of(s, n) <= w) {
		sbuf_add(b, s, n);
		return;
	}
	size_t cnt = 0, i = 0;
	while (i < n) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (cnt == w - 1)
				break;
			cnt++;
		}
		i++;
	}
	sbuf_add(b, s, i);
	sbuf_addstr(b, "\xE2\x80\xA6"); /* U+2026 */
}

/* Appends cell k of a row: self, self%, total, total%, stacks (exact). */
static void add_cell(struct sbuf *b, const struct top_row *r, int k, int64_t all, unsigned scale)
{
	switch (k) {
	case 0: num_fmt(b, r->self, scale); break;
	case 1: pct(b, r->self, all); break;
	case 2: num_fmt(b, r->total, scale); break;
	case 3: pct(b, r->total, all); break;
	default: sbuf_addf(b, "%llu", (unsigned long long)r->stacks); break;
	}
}

/* Writes out b once it holds FLUSH_AT bytes (errors are seen at commit). */
static void flush_some(struct sbuf *b, FILE *fp)
{
	if (b->len < FLUSH_AT)
		return;
	fwrite(b->buf, 1, b->len, fp);
	sbuf_reset(b);
}

static void pad(struct sbuf *b, size_t have, size_t want)
{
	while (have++ < want)
		sbuf_addch(b, ' ');
}

static const char *const head[5] = {"SELF", "SELF%", "TOTAL", "TOTAL%", "STACKS"};
static const char *const key[5] = {"self", "self_pct", "total", "total_pct", "stacks"};

static const char *row_name(const struct top_view *v, size_t i, size_t *len)
{
	*len = pool_len(v->t->names, v->rows[i].name);
	return pool_str(v->t->names, v->rows[i].name);
}

/* Text: columns measured in a first pass, names cut to fit 100 columns. */
static void write_text(const struct top_view *v, const char *tot, struct sbuf *out, FILE *fp)
{
	struct sbuf tmp = SBUF_INIT;
	size_t wd[5], used = 0, len;
	for (int k = 0; k < 5; k++) {
		wd[k] = strlen(head[k]);
		for (size_t i = 0; i < v->n; i++) {
			sbuf_reset(&tmp);
			add_cell(&tmp, &v->rows[i], k, v->all, v->t->scale);
			wd[k] = GF_MAX(wd[k], tmp.len);
		}
		used += wd[k] + 2;
	}
	size_t namew = used + 20 <= TEXT_COLS ? TEXT_COLS - used : 20;
	sbuf_addf(out, "total %s ", tot);
	esc_term(out, v->countname, strlen(v->countname));
	sbuf_addf(out, " in %llu stack%s\n", (unsigned long long)v->nstacks, v->nstacks == 1 ? "" : "s");
	for (int k = 0; k < 5; k++) {
		pad(out, strlen(head[k]), wd[k]);
		sbuf_addf(out, "%s  ", head[k]);
	}
	sbuf_addstr(out, "NAME\n");
	for (size_t i = 0; i < v->n; i++) {
		for (int k = 0; k < 5; k++) {
			sbuf_reset(&tmp);
			add_cell(&tmp, &v->rows[i], k, v->all, v->t->scale);
			pad(out, tmp.len, wd[k]);
			sbuf_add(out, tmp.buf, tmp.len);
			sbuf_addstr(out, "  ");
		}
		sbuf_reset(&tmp);
		const char *nm = row_name(v, i, &len);
		esc_term(&tmp, nm, len);
		add_cut(out, tmp.buf, tmp.len, namew);
		sbuf_addch(out, '\n');
		flush_some(out, fp);
	}
	sbuf_release(&tmp);
}

/* TSV and Markdown rows: the same cells, in their own punctuation and
 * with the name escaped for each. */
struct row_fmt {
	const char *start, *pre, *post, *name_pre, *end;
	void (*esc)(struct sbuf *b, const char *s, size_t n);
};

static void write_rows(const struct top_view *v, const struct row_fmt *f, struct sbuf *out, FILE *fp)
{
	size_t len;
	for (size_t i = 0; i < v->n; i++) {
		sbuf_addstr(out, f->start);
		for (int k = 0; k < 5; k++) {
			sbuf_addstr(out, f->pre);
			add_cell(out, &v->rows[i], k, v->all, v->t->scale);
			sbuf_addstr(out, f->post);
		}
		sbuf_addstr(out, f->name_pre);
		const char *nm = row_name(v, i, &len);
		f->esc(out, nm, len);
		sbuf_addstr(out, f->end);
		flush_some(out, fp);
	}
}

static void write_tsv(const struct top_view *v, const char *tot, struct sbuf *out, FILE *fp)
{
	static const struct row_fmt f = { "", "", "\t", "", "\n", esc_term };
	for (int k = 0; k < 5; k++)
		sbuf_addf(out, "%s\t", key[k]);
	sbuf_addstr(out, "name\n");
	write_rows(v, &f, out, fp);
}

static void write_md(const struct top_view *v, const char *tot, struct sbuf *out, FILE *fp)
{
	static const struct row_fmt f = { "|", " ", " |", " ", " |\n", esc_md };
	sbuf_addstr(out, "| self | self % | total | total % | stacks | frame |\n"
			 "|---:|---:|---:|---:|---:|:---|\n");
	write_rows(v, &f, out, fp);
}

static void write_json(const struct top_view *v, const char *tot, struct sbuf *out, FILE *fp)
{
	size_t len;
	sbuf_addstr(out, "{\"schema\": \"gpuflame.top/1\", \"unit\": ");
	esc_json_str(out, v->countname, strlen(v->countname));
	sbuf_addf(out, ", \"total\": %s, \"stacks\": %llu, \"frames\": [", tot,
		  (unsigned long long)v->nstacks);
	for (size_t i = 0; i < v->n; i++) {
		sbuf_addstr(out, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		const char *nm = row_name(v, i, &len);
		esc_json_str(out, nm, len);
		for (int k = 0; k < 5; k++) {
			sbuf_addf(out, ", \"%s\": ", key[k]);
			add_cell(out, &v->rows[i], k, v->all, v->t->scale);
		}
		sbuf_addch(out, '}');
		flush_some(out, fp);
	}
	sbuf_addstr(out, v->n ? "\n]}\n" : "]}\n");
}

/* Rows are formatted as they are written (the output can be bigger than
 * the input: nothing per row is kept). */
void top_out_write(const struct top_view *v, int fmt, FILE *fp)
{
	static void (*const writers[])(const struct top_view *, const char *, struct sbuf *, FILE *) = {
		[TOP_OUT_TEXT] = write_text, [TOP_OUT_TSV] = write_tsv, [TOP_OUT_MD] = write_md,
		[TOP_OUT_JSON] = write_json,
	};
	_Static_assert(GF_ARRAY_LEN(writers) == TOP_OUT_N, "a writer per format");
	struct sbuf out = SBUF_INIT, tot = SBUF_INIT;
	num_fmt(&tot, v->all, v->t->scale);
	writers[fmt >= 0 && fmt < TOP_OUT_N ? fmt : TOP_OUT_TEXT](v, tot.buf, &out, fp);
	fwrite(out.buf, 1, out.len, fp);
	sbuf_release(&out);
	sbuf_release(&tot);
}
