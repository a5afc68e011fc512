/*
 * escape.h — frame names are untrusted input: every writer escapes them here.
 *
 * All functions append to b and accept any bytes:
 *  - invalid UTF-8 (stray continuation bytes, overlongs, surrogates, bytes
 *    past U+10FFFF, truncated sequences) becomes U+FFFD, one per bad byte;
 *  - control characters are never emitted raw.
 *
 * Layer: base.
 */
#ifndef GF_ESCAPE_H
#define GF_ESCAPE_H

#include "base/sbuf.h"

/* XML/HTML text and attribute values: & < > " ' escaped; C0 controls (TAB,
 * LF and CR included, since names are one line), DEL and C1 controls are not
 * emitted raw but as the visible text "\xNN" (ESC would make the XML
 * invalid, see inferno #313). */
void esc_xml(struct sbuf *b, const char *s, size_t n);
/* JSON string content (without the quotes): " \ \n \t \r as such, the other
 * C0 controls, DEL, C1 controls, U+2028/U+2029 and the bidi controls as
 * \uXXXX (the decoded string is the same; the raw JSON is terminal-safe),
 * invalid UTF-8 as \ufffd. */
void esc_json(struct sbuf *b, const char *s, size_t n);
/* A whole JSON string with quotes. */
void esc_json_str(struct sbuf *b, const char *s, size_t n);
/* Markdown text and table cells (CommonMark/GFM): nothing in the name can
 * become markup. The ASCII punctuation \ ` * _ { } [ ] ( ) # + - . ! | ~
 * : $ is backslash-escaped ("[x](y)" -> "\[x\]\(y\)"; ':' and '.' also
 * stop the bare-URL autolinks, '$' GitHub math), '<' '>' '&' become &lt;
 * &gt; &amp; (no raw HTML, no entity references; a bare e-mail address is
 * still auto-linked to itself by GFM renderers); controls are shown as \xNN
 * and bidirectional controls
 * (U+200E/F, U+202A-E, U+2066-9) as \uXXXX, as in esc_term. */
void esc_md(struct sbuf *b, const char *s, size_t n);
/* Terminal text: C0/C1 controls and DEL (ESC included) shown as \xNN,
 * bidirectional controls as \uXXXX, invalid UTF-8 as U+FFFD. */
void esc_term(struct sbuf *b, const char *s, size_t n);
/* JavaScript string literal content inside an SVG <script> CDATA or a
 * JSON blob embedded in HTML: like esc_json, plus '<' '>' '&' as \u003c.. */
void esc_js(struct sbuf *b, const char *s, size_t n);

/* A JSON text (jsonw's output: '<' '>' '&', U+2028/U+2029 and bytes that
 * are not UTF-8 can only stand inside its strings) made safe as the body of
 * an HTML <script type="application/json"> element: '<' '>' '&' become
 * \u003c \u003e \u0026 (no "</script>" or "<!--" can end or change the
 * element), U+2028/U+2029 \u2028 \u2029, invalid UTF-8 \ufffd; everything
 * else is copied. JSON.parse of the result gives the same value. */
void esc_script_json(struct sbuf *b, const char *json, size_t n);

/*
 * Decodes one UTF-8 sequence at s[0..n). @return its length (1..4) and the
 * code point in *cp, or 1 with *cp = -1 for an invalid byte.
 */
int esc_utf8_next(const unsigned char *s, size_t n, long *cp);

#endif
