/*
 * rtable.h — small aligned tables for text (terminal) and Markdown output.
 *
 *   struct rtable t;
 *   rtable_init(&t, 3);
 *   rtable_head(&t, 0, "step", RT_RIGHT); ...
 *   rtable_cell(&t, "12.5");  // row-major; a row ends after ncols cells
 *   rtable_text(&t, &out, 2); // or rtable_md(&t, &out)
 *   rtable_release(&t);
 *
 * Cells are copied. Every cell and header is escaped for the terminal
 * (esc_term) or for Markdown (esc_md) when rendered, so frame names may be
 * passed as is; in Markdown a cell that is only a number (digits, blanks and
 * . , % + -) is written unchanged, since those cannot form markup there.
 * Widths are counted in UTF-8 code points. Cells wider than RT_MAX_CELL code
 * points are cut with "..." in text output (Markdown keeps them whole).
 * A column whose header and cells are all empty is not drawn (in text or
 * Markdown): a Markdown table has no blank column at the end of every row.
 *
 * enum rep_format names the output formats the report writers take, and
 * rtable_formats their names (--format's values, in enum order).
 *
 * Layer: base.
 */
#ifndef GF_RTABLE_H
#define GF_RTABLE_H

#include "base/sbuf.h"

/* The output formats of the reports (report, syncs, the py-spy sync table);
 * REP_HTML only for `report` (trace/write/report_html.h). */
enum rep_format { REP_TEXT = 0, REP_MD = 1, REP_JSON = 2, REP_HTML = 3, REP_NFORMATS };
extern const char *const rtable_formats[REP_NFORMATS + 1]; /* "text", "md", "json", "html", NULL */

#define RT_MAX_COLS 32
#define RT_MAX_CELL 60

enum rt_align { RT_LEFT = 0, RT_RIGHT = 1 };

struct rtable {
	unsigned ncols;
	char *head[RT_MAX_COLS];
	int align[RT_MAX_COLS];
	unsigned maxw[RT_MAX_COLS]; /* per column cut width for text; 0 = RT_MAX_CELL */
	unsigned sep;               /* blanks between text columns; 0 = 2 */
	char **cells;
	size_t ncells, cap;
};

void rtable_init(struct rtable *t, unsigned ncols);
void rtable_release(struct rtable *t);
void rtable_head(struct rtable *t, unsigned col, const char *name, int align);
/* Appends the next cell (row-major). */
void rtable_cell(struct rtable *t, const char *s);
void rtable_cellf(struct rtable *t, const char *fmt, ...) GF_PRINTF(2, 3);
size_t rtable_rows(const struct rtable *t);

/* Renders as aligned text with `indent` leading blanks and t->sep (default two)
 * blanks between columns; a dashed rule under the header. */
void rtable_text(const struct rtable *t, struct sbuf *out, unsigned indent);
/* Renders as a GitHub Markdown table (numbers right-aligned). */
void rtable_md(const struct rtable *t, struct sbuf *out);

/*
 * Copies text to out, wrapping every line wider than `width` code points at
 * its last blank before the limit; continuation lines are indented by the
 * line's own leading blanks plus two. Lines without a blank to break at are
 * kept whole.
 */
void rtable_wrap(const char *text, size_t n, unsigned width, struct sbuf *out);

/* Display width of s (UTF-8 code points; invalid bytes count 1). */
size_t rtable_width(const char *s);

#endif
