/* rtable.c — aligned text and Markdown tables (see rtable.h). */
#include "base/rtable.h"

#include "base/escape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const rtable_formats[] = {
	[REP_TEXT] = "text", [REP_MD] = "md", [REP_JSON] = "json", [REP_HTML] = "html", [REP_NFORMATS] = NULL,
};
_Static_assert(GF_ARRAY_LEN(rtable_formats) == REP_NFORMATS + 1, "a name per format");

void rtable_init(struct rtable *t, unsigned ncols)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols > RT_MAX_COLS ? RT_MAX_COLS : ncols;
}

void rtable_release(struct rtable *t)
{
	for (unsigned i = 0; i < t->ncols; i++)
		free(t->head[i]);
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof *t);
}

void rtable_head(struct rtable *t, unsigned col, const char *name, int align)
{
	if (col >= t->ncols)
		return;
	free(t->head[col]);
	t->head[col] = gf_xstrdup(name);
	t->align[col] = align;
}

void rtable_cell(struct rtable *t, const char *s)
{
	if (t->ncells == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->cells = gf_xreallocarray(t->cells, t->cap, sizeof *t->cells);
	}
	t->cells[t->ncells++] = gf_xstrdup(s ? s : "");
}

void rtable_cellf(struct rtable *t, const char *fmt, ...)
{
	struct sbuf b = SBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	rtable_cell(t, b.buf);
	sbuf_release(&b);
}

size_t rtable_rows(const struct rtable *t)
{
	return t->ncols ? (t->ncells + t->ncols - 1) / t->ncols : 0;
}

size_t rtable_width(const char *s)
{
	size_t w = 0, n = strlen(s);
	for (size_t i = 0; i < n;) {
		long cp;
		i += (size_t)esc_utf8_next((const unsigned char *)s + i, n - i, &cp);
		w++;
	}
	return w;
}

/* Terminal-escaped cell, cut to max code points. */
static void term_cell(struct sbuf *b, const char *s, unsigned max)
{
	struct sbuf e = SBUF_INIT;
	esc_term(&e, s, strlen(s));
	if (rtable_width(e.buf) > max && max > 3) {
		size_t i = 0, w = 0;
		while (i < e.len && w < max - 3) {
			long cp;
			i += (size_t)esc_utf8_next((const unsigned char *)e.buf + i, e.len - i, &cp);
			w++;
		}
		sbuf_add(b, e.buf, i);
		sbuf_addstr(b, "...");
	} else {
		sbuf_add(b, e.buf, e.len);
	}
	sbuf_release(&e);
}

static const char *cell_at(const struct rtable *t, size_t r, unsigned c)
{
	size_t i = r * t->ncols + c;
	return i < t->ncells ? t->cells[i] : "";
}

/* Marks the columns with an empty header and no cell: they are not drawn
 * (the step table's warm-up column when no step is a warm-up one), in text
 * and in Markdown alike. */
static void empty_cols(const struct rtable *t, bool skip[RT_MAX_COLS])
{
	size_t rows = rtable_rows(t);
	for (unsigned c = 0; c < t->ncols; c++) {
		skip[c] = !t->head[c] || !*t->head[c];
		for (size_t r = 0; r < rows && skip[c]; r++)
			if (*cell_at(t, r, c))
				skip[c] = false;
	}
}

static void pad(struct sbuf *b, size_t n)
{
	while (n--)
		sbuf_addch(b, ' ');
}

void rtable_text(const struct rtable *t, struct sbuf *out, unsigned indent)
{
	size_t rows = rtable_rows(t);
	size_t w[RT_MAX_COLS] = { 0 };
	bool skip[RT_MAX_COLS];
	empty_cols(t, skip);
	struct sbuf tmp = SBUF_INIT;
	for (unsigned c = 0; c < t->ncols; c++) {
		unsigned max = t->maxw[c] ? t->maxw[c] : RT_MAX_CELL;
		sbuf_reset(&tmp);
		term_cell(&tmp, t->head[c] ? t->head[c] : "", max);
		w[c] = rtable_width(tmp.buf);
		for (size_t r = 0; r < rows; r++) {
			sbuf_reset(&tmp);
			term_cell(&tmp, cell_at(t, r, c), max);
			size_t x = rtable_width(tmp.buf);
			if (x > w[c])
				w[c] = x;
		}
	}
	for (size_t r = 0; r <= rows + 1; r++) {
		pad(out, indent);
		size_t lastlen = out->len;
		bool first = true;
		for (unsigned c = 0; c < t->ncols; c++) {
			if (skip[c])
				continue;
			if (!first)
				pad(out, t->sep ? t->sep : 2);
			first = false;
			if (r == 1) {
				for (size_t k = 0; k < w[c]; k++)
					sbuf_addch(out, '-');
				continue;
			}
			const char *s = r == 0 ? (t->head[c] ? t->head[c] : "") : cell_at(t, r - 2, c);
			unsigned max = t->maxw[c] ? t->maxw[c] : RT_MAX_CELL;
			sbuf_reset(&tmp);
			term_cell(&tmp, s, max);
			size_t x = rtable_width(tmp.buf);
			if (t->align[c] == RT_RIGHT)
				pad(out, w[c] - x);
			sbuf_add(out, tmp.buf, tmp.len);
			if (t->align[c] != RT_RIGHT && c + 1 < t->ncols)
				pad(out, w[c] - x);
		}
		/* no trailing blanks */
		while (out->len > lastlen && out->buf[out->len - 1] == ' ')
			out->len--;
		out->buf[out->len] = 0;
		sbuf_addch(out, '\n');
	}
	sbuf_release(&tmp);
}

/* A cell that is only a number ("12", "0.448", "28.04%", "-", "1.5-2.0%"):
 * digits, blanks and . , % + - cannot form inline markup in a table cell, so
 * it is kept as is (esc_md would write "0\.448"). */
static bool md_number(const char *s)
{
	return *s && strspn(s, "0123456789 .,%+-") == strlen(s);
}

void rtable_md(const struct rtable *t, struct sbuf *out)
{
	size_t rows = rtable_rows(t);
	bool skip[RT_MAX_COLS];
	empty_cols(t, skip);
	for (size_t r = 0; r <= rows + 1; r++) {
		sbuf_addch(out, '|');
		for (unsigned c = 0; c < t->ncols; c++) {
			if (skip[c])
				continue;
			sbuf_addch(out, ' ');
			if (r == 1) {
				sbuf_addstr(out, t->align[c] == RT_RIGHT ? "---:" : "---");
			} else {
				const char *s = r == 0 ? (t->head[c] ? t->head[c] : "") : cell_at(t, r - 2, c);
				if (md_number(s))
					sbuf_addstr(out, s);
				else
					esc_md(out, s, strlen(s));
			}
			sbuf_addstr(out, " |");
		}
		sbuf_addch(out, '\n');
	}
}

/* Byte offset of the code point number k in s[0..n) (n when past the end). */
static size_t cp_offset(const char *s, size_t n, size_t k)
{
	size_t i = 0;
	while (i < n && k--) {
		long cp;
		i += (size_t)esc_utf8_next((const unsigned char *)s + i, n - i, &cp);
	}
	return i;
}

static size_t cp_count(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; w++) {
		long cp;
		i += (size_t)esc_utf8_next((const unsigned char *)s + i, n - i, &cp);
	}
	return w;
}

void rtable_wrap(const char *text, size_t n, unsigned width, struct sbuf *out)
{
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - text) : n;
		const char *line = text + i;
		size_t len = e - i;
		size_t ind = 0;
		while (ind < len && line[ind] == ' ')
			ind++;
		size_t cont = ind + 2;
		bool first = true;
		while (true) {
			size_t lim = first ? width : width - (cont < width ? cont : 0);
			if (cp_count(line, len) <= lim) {
				if (!first)
					for (size_t k = 0; k < cont; k++)
						sbuf_addch(out, ' ');
				sbuf_add(out, line, len);
				break;
			}
			size_t cut = cp_offset(line, len, lim);
			size_t b = cut;
			while (b > 0 && line[b] != ' ')
				b--;
			size_t minb = first ? ind : 0;
			if (b <= minb) {
				/* no blank to break at: the next blank after the limit */
				b = cut;
				while (b < len && line[b] != ' ')
					b++;
				if (b >= len) {
					if (!first)
						for (size_t k = 0; k < cont; k++)
							sbuf_addch(out, ' ');
					sbuf_add(out, line, len);
					break;
				}
			}
			if (!first)
				for (size_t k = 0; k < cont; k++)
					sbuf_addch(out, ' ');
			size_t keep = b;
			while (keep > 0 && line[keep - 1] == ' ')
				keep--;
			sbuf_add(out, line, keep);
			sbuf_addch(out, '\n');
			while (b < len && line[b] == ' ')
				b++;
			line += b;
			len -= b;
			first = false;
		}
		if (nl)
			sbuf_addch(out, '\n');
		i = nl ? e + 1 : n;
	}
}
