/* report_text.c — the terminal text format of the report (see report_fmt.h):
 * names escaped for the terminal, aligned tables, prose wrapped at 100
 * columns (table rows are never wrapped: the ranks table of 5 or 6 ranks is
 * wider). */
#include "trace/write/report_fmt.h"

#include "base/escape.h"

#include <string.h>

static void text(struct sbuf *out, const char *s)
{
	esc_term(out, s, strlen(s));
}

static void title(struct sbuf *out, const char *head, const char *file)
{
	sbuf_addstr(out, head);
	esc_term(out, file, strlen(file));
	sbuf_addch(out, '\n');
}

static void heading(struct sbuf *out, const char *h)
{
	sbuf_addf(out, "\n%s\n", h);
}

static void strong(struct sbuf *out, const char *label)
{
	sbuf_addstr(out, label);
	sbuf_addch(out, ' ');
}

/* Marks a line of a table in the body: finish() keeps it whole and drops
 * the mark (a table row wrapped at 100 columns is no longer a row; esc_term
 * shows every control byte of a name as \xNN, so no name holds the mark). */
#define TABLE_LINE '\x01'

static void table(struct sbuf *out, struct rtable *t)
{
	struct sbuf b = SBUF_INIT;
	rtable_text(t, &b, 2);
	rtable_release(t);
	for (size_t i = 0; i < b.len;) {
		const char *nl = memchr(b.buf + i, '\n', b.len - i);
		size_t e = nl ? (size_t)(nl - b.buf) + 1 : b.len;
		sbuf_addch(out, TABLE_LINE);
		sbuf_add(out, b.buf + i, e - i);
		i = e;
	}
	sbuf_release(&b);
}

/* A long label ("outer;middle;inner" frames) elided in the middle: its
 * first frame (the Python site or op) when it fits in a third, "...", and
 * the innermost frames, whole from a ';' when one is near; cut at UTF-8
 * boundaries. */
static void cell_long(struct rtable *t, const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max || max < 12) {
		rtable_cell(t, s);
		return;
	}
	size_t head = strcspn(s, ";");
	if (head > (max - 3) / 3)
		head = (max - 3) / 3;
	while (head && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	const char *p = s + n - (max - 3 - head), *end = s + n;
	while (((unsigned char)*p & 0xc0) == 0x80)
		p++;
	const char *semi = memchr(p, ';', (size_t)(end - p));
	if (semi && end - semi > 8)
		p = semi;
	rtable_cellf(t, "%.*s...%s", (int)head, s, p);
}

/* "dir/sub/file.py(12): f" -> "file.py(12): f" for the narrow sync table. */
static void cell_site(struct rtable *t, const char *site)
{
	const char *p = strchr(site, '(');
	const char *e = p ? p : site + strlen(site);
	const char *b = site;
	for (const char *q = site; q < e; q++)
		if (*q == '/' || *q == '\\')
			b = q + 1;
	rtable_cell(t, b);
}

/* Prose wrapped at 100 columns; table lines (marked) copied whole. */
static void finish(const struct sbuf *body, struct sbuf *out)
{
	const char *s = body->buf;
	size_t n = body->len, i = 0;
	while (i < n) {
		if (s[i] == TABLE_LINE) {
			const char *nl = memchr(s + i, '\n', n - i);
			size_t e = nl ? (size_t)(nl - s) + 1 : n;
			sbuf_add(out, s + i + 1, e - i - 1);
			i = e;
			continue;
		}
		/* the prose up to the next table line */
		size_t e = i;
		while (e < n) {
			const char *nl = memchr(s + e, '\n', n - e);
			e = nl ? (size_t)(nl - s) + 1 : n;
			if (e < n && s[e] == TABLE_LINE)
				break;
		}
		rtable_wrap(s + i, e - i, 100, out);
		i = e;
	}
}

const struct report_fmt report_text_fmt = {
	.text = text,
	.title = title,
	.heading = heading,
	.strong = strong,
	.table = table,
	.cell_long = cell_long,
	.cell_site = cell_site,
	.finish = finish,
	.lead = "  ",
	.next = "  ",
	.gap = "",
	.item = "  ",
	.brk = "\n",
};
