/* escape.c — escaping untrusted names for XML, JSON, Markdown, terminals. */
#include "base/escape.h"

#include <string.h>

int esc_utf8_next(const unsigned char *s, size_t n, long *cp)
{
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	int len;
	long v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		*cp = -1;
		return 1;
	}
	if ((size_t)len > n) {
		*cp = -1;
		return 1;
	}
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		*cp = -1;
		return 1;
	}
	*cp = v;
	return len;
}

static const char REPL[] = "\xef\xbf\xbd"; /* U+FFFD */

static void hexbyte(struct sbuf *b, unsigned c)
{
	sbuf_addf(b, "\\x%02X", c & 0xff);
}

static bool is_ctrl(long cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

void esc_xml(struct sbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		long cp;
		int k = esc_utf8_next(p + i, n - i, &cp);
		if (cp < 0) {
			sbuf_add(b, REPL, 3);
		} else if (is_ctrl(cp)) {
			hexbyte(b, (unsigned)cp);
		} else if (cp == 0xfffe || cp == 0xffff) {
			sbuf_add(b, REPL, 3); /* not XML characters */
		} else {
			switch (cp) {
			case '&': sbuf_addstr(b, "&amp;"); break;
			case '<': sbuf_addstr(b, "&lt;"); break;
			case '>': sbuf_addstr(b, "&gt;"); break;
			case '"': sbuf_addstr(b, "&quot;"); break;
			case '\'': sbuf_addstr(b, "&#39;"); break;
			default: sbuf_add(b, p + i, (size_t)k);
			}
		}
		i += (size_t)k;
	}
}

/* Invisible characters that reorder or hide text ("Trojan source"): the
 * bidirectional embeddings, overrides and isolates and the marks. Shown as
 * \uXXXX in terminal and Markdown text. */
static bool is_bidi(long cp)
{
	return cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static void json_like(struct sbuf *b, const char *s, size_t n, bool js)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		long cp;
		int k = esc_utf8_next(p + i, n - i, &cp);
		if (cp < 0) {
			sbuf_addstr(b, "\\ufffd");
		} else if (cp == '"') {
			sbuf_addstr(b, "\\\"");
		} else if (cp == '\\') {
			sbuf_addstr(b, "\\\\");
		} else if (cp == '\n') {
			sbuf_addstr(b, "\\n");
		} else if (cp == '\t') {
			sbuf_addstr(b, "\\t");
		} else if (cp == '\r') {
			sbuf_addstr(b, "\\r");
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0x2028 ||
			   cp == 0x2029 || is_bidi(cp) || (js && (cp == '<' || cp == '>' || cp == '&'))) {
			/* the same string once decoded; the raw JSON stays terminal-safe */
			sbuf_addf(b, "\\u%04lx", cp);
		} else {
			sbuf_add(b, p + i, (size_t)k);
		}
		i += (size_t)k;
	}
}

void esc_json(struct sbuf *b, const char *s, size_t n)
{
	json_like(b, s, n, false);
}

void esc_js(struct sbuf *b, const char *s, size_t n)
{
	json_like(b, s, n, true);
}

void esc_script_json(struct sbuf *b, const char *json, size_t n)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c != '<' && c != '>' && c != '&' && c < 0x80) {
			i++;
			continue;
		}
		long cp = c;
		int k = 1;
		if (c >= 0x80) {
			k = esc_utf8_next(p + i, n - i, &cp);
			if (cp >= 0 && cp != 0x2028 && cp != 0x2029) {
				i += (size_t)k;
				continue;
			}
		}
		sbuf_add(b, json + run, i - run);
		if (cp < 0)
			sbuf_addstr(b, "\\ufffd");
		else
			sbuf_addf(b, "\\u%04lx", cp);
		i += (size_t)k;
		run = i;
	}
	sbuf_add(b, json + run, n - run);
}

void esc_json_str(struct sbuf *b, const char *s, size_t n)
{
	sbuf_addch(b, '"');
	json_like(b, s, n, false);
	sbuf_addch(b, '"');
}

/* ASCII punctuation that can start or end Markdown markup (CommonMark and
 * GFM: emphasis, code, links, images, tables, strikethrough, headings, lists,
 * block quotes; ':' and '.' the bare-URL autolinks "http://x" and "www.x";
 * '$' GitHub's math). All are valid backslash escapes in CommonMark. '<', '>'
 * and '&' are written as entity references instead, which every Markdown
 * renderer decodes (Python-Markdown, for one, does not treat "\<" as an
 * escape). A bare e-mail address is still auto-linked by cmark-gfm whatever
 * is escaped (to itself: the link text is the address). */
static const char MD_BACKSLASH[] = "\\`*_{}[]()#+-.!|~:$";

static void text_like(struct sbuf *b, const char *s, size_t n, bool md)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		long cp;
		int k = esc_utf8_next(p + i, n - i, &cp);
		if (cp < 0)
			sbuf_add(b, REPL, 3);
		else if (is_ctrl(cp))
			hexbyte(b, (unsigned)cp);
		else if (is_bidi(cp))
			sbuf_addf(b, "\\u%04lX", cp);
		else if (md && cp == '<')
			sbuf_addstr(b, "&lt;");
		else if (md && cp == '>')
			sbuf_addstr(b, "&gt;");
		else if (md && cp == '&')
			sbuf_addstr(b, "&amp;");
		else if (md && cp < 0x80 && cp && strchr(MD_BACKSLASH, (int)cp)) {
			sbuf_addch(b, '\\');
			sbuf_addch(b, (int)cp);
		} else
			sbuf_add(b, p + i, (size_t)k);
		i += (size_t)k;
	}
}

void esc_md(struct sbuf *b, const char *s, size_t n)
{
	text_like(b, s, n, true);
}

void esc_term(struct sbuf *b, const char *s, size_t n)
{
	text_like(b, s, n, false);
}
