/* report_text.c — the terminal text format of the report (see report_fmt.h):
 * names escaped for the terminal, aligned tables, lines wrapped at 100. */
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

static void table(struct sbuf *out, struct rtable *t)
{
	rtable_text(t, out, 2);
	rtable_release(t);
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

static void finish(const struct sbuf *body, struct sbuf *out)
{
	rtable_wrap(body->buf, body->len, 100, out);
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
	.sep_rank = "\n",
	.ranks_aside = "; steady medians per step, ms",
};
