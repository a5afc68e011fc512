/*
 * report_fmt.h — what a prose format (text, Markdown) implements so that
 * report_out.c writes the report's sections once: escaped prose, titles,
 * headings, bold labels, tables, long cells, the final pass, and the few
 * separators that differ. JSON has its own writer (report_json.h): it is a
 * schema, not prose; the HTML page (report_html.h) embeds that JSON and
 * the page's script lays it out.
 *
 *   report_out.c: f->heading(out, "Launches"); sbuf_addstr(out, f->lead); ...
 *
 * Layer: trace/write (internal to its report_*.c files).
 */
#ifndef GF_REPORT_FMT_H
#define GF_REPORT_FMT_H

#include "trace/write/report_out.h"
#include "base/rtable.h"

struct report_fmt {
	/* prose that may hold untrusted names, escaped for the format */
	void (*text)(struct sbuf *out, const char *s);
	/* the document's title: head as is, then file escaped */
	void (*title)(struct sbuf *out, const char *head, const char *file);
	void (*heading)(struct sbuf *out, const char *h);
	/* a bold label and one blank: "Verdict: " */
	void (*strong)(struct sbuf *out, const char *label);
	/* renders t and releases it */
	void (*table)(struct sbuf *out, struct rtable *t);
	/* a cell with a long label: text keeps its last max bytes ("...rest") */
	void (*cell_long)(struct rtable *t, const char *s, size_t max);
	/* a cell with a Python site: text drops the directories */
	void (*cell_site)(struct rtable *t, const char *site);
	/* copies the rendered body to out (text wraps prose at 100 columns,
	 * never a table line) */
	void (*finish)(const struct sbuf *body, struct sbuf *out);
	const char *lead;      /* starts a paragraph right after a heading */
	const char *next;      /* starts a paragraph after another block */
	const char *gap;       /* ends a block that a blank line must follow */
	const char *item;      /* starts a list item */
	const char *brk;       /* breaks a line inside a paragraph */
};

extern const struct report_fmt report_text_fmt;
extern const struct report_fmt report_md_fmt;

#endif
