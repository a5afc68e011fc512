/* report_md.c — the GitHub Markdown format of the report (see report_fmt.h):
 * names escaped for Markdown, "###" headings, bold labels, pipe tables. */
#include "trace/write/report_fmt.h"

#include "base/escape.h"

#include <string.h>

static void text(struct sbuf *out, const char *s)
{
	esc_md(out, s, strlen(s));
}

static void title(struct sbuf *out, const char *head, const char *file)
{
	sbuf_addstr(out, "## ");
	sbuf_addstr(out, head);
	esc_md(out, file, strlen(file));
	sbuf_addstr(out, "\n\n");
}

static void heading(struct sbuf *out, const char *h)
{
	sbuf_addf(out, "\n### %s\n\n", h);
}

static void strong(struct sbuf *out, const char *label)
{
	sbuf_addf(out, "**%s** ", label);
}

static void table(struct sbuf *out, struct rtable *t)
{
	rtable_md(t, out);
	rtable_release(t);
}

static void cell_whole(struct rtable *t, const char *s, size_t max)
{
	(void)max;
	rtable_cell(t, s);
}

static void cell_site(struct rtable *t, const char *site)
{
	rtable_cell(t, site);
}

static void finish(const struct sbuf *body, struct sbuf *out)
{
	sbuf_add(out, body->buf, body->len);
}

const struct report_fmt report_md_fmt = {
	.text = text,
	.title = title,
	.heading = heading,
	.strong = strong,
	.table = table,
	.cell_long = cell_whole,
	.cell_site = cell_site,
	.finish = finish,
	.lead = "",
	.next = "\n",
	.gap = "\n",
	.item = "- ",
	.brk = " ",
};
