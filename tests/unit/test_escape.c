/*
 * test_escape.c — the escaping of untrusted names (write/escape.c) and the
 * Markdown/text tables that use it (write/rtable.c): nothing in a name can
 * become Markdown markup, HTML, a terminal escape sequence, or break XML,
 * JSON or a script string (issue 16, "Hold under attack").
 */
#include "t.h"

#include "base/escape.h"
#include "base/rtable.h"

static struct sbuf B = SBUF_INIT;

static const char *md(const char *s)
{
	sbuf_reset(&B);
	esc_md(&B, s, strlen(s));
	return B.buf;
}

static const char *term(const char *s)
{
	sbuf_reset(&B);
	esc_term(&B, s, strlen(s));
	return B.buf;
}

static const char *xml(const char *s, size_t n)
{
	sbuf_reset(&B);
	esc_xml(&B, s, n);
	return B.buf;
}

static const char *json(const char *s, size_t n)
{
	sbuf_reset(&B);
	esc_json(&B, s, n);
	return B.buf;
}

static const char *js(const char *s)
{
	sbuf_reset(&B);
	esc_js(&B, s, strlen(s));
	return B.buf;
}

T_TEST(test_escape__md_links_images)
{
	T_EQ_STR(md("[x](javascript:alert(1))"), "\\[x\\]\\(javascript\\:alert\\(1\\)\\)");
	T_EQ_STR(md("![](http://e/x.png)"), "\\!\\[\\]\\(http\\://e/x\\.png\\)");
	/* bare URLs: no autolink without ':' and "www." */
	T_EQ_STR(md("www.evil.com"), "www\\.evil\\.com");
}

T_TEST(test_escape__md_every_metacharacter)
{
	/* each of the CommonMark/GFM punctuation that can start markup */
	const char *meta = "\\`*_{}[]()#+-.!|~:$";
	for (const char *p = meta; *p; p++) {
		char in[4] = { 'a', *p, 'b', 0 };
		char want[5] = { 'a', '\\', *p, 'b', 0 };
		T_EQ_STR(md(in), want);
	}
	/* HTML and entity references */
	T_EQ_STR(md("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert\\(1\\)&gt;");
	T_EQ_STR(md("&lt;"), "&amp;lt;");
	/* what cannot start markup is kept */
	T_EQ_STR(md("aten::mm"), "aten\\:\\:mm");
	T_EQ_STR(md("plain name 12, ok? \"q\" 'q' /x/ = % ^ ; ,"), "plain name 12, ok? \"q\" 'q' /x/ = % ^ ; ,");
	T_EQ_STR(md("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
}

T_TEST(test_escape__md_controls)
{
	/* a newline would end the table row; ESC, DEL and C1 controls are shown */
	T_EQ_STR(md("a\nb\rc\td"), "a\\x0Ab\\x0Dc\\x09d");
	T_EQ_STR(md("\x1b[31m"), "\\x1B\\[31m");
	T_EQ_STR(md("\x7f\xc2\x9b"), "\\x7F\\x9B");
	/* bidirectional override: shown, not applied */
	T_EQ_STR(md("a\xe2\x80\xae" "b"), "a\\u202Eb");
	/* invalid UTF-8: one U+FFFD per bad byte */
	T_EQ_STR(md("a\xff\xc3"), "a\xef\xbf\xbd\xef\xbf\xbd");
}

T_TEST(test_escape__term)
{
	T_EQ_STR(term("esc\x1b[31mred\x1b[0m"), "esc\\x1B[31mred\\x1B[0m");
	T_EQ_STR(term("\x07\x08\x7f"), "\\x07\\x08\\x7F");
	/* C1 CSI (U+009B) is an escape sequence introducer on some terminals */
	T_EQ_STR(term("\xc2\x9b" "2J"), "\\x9B2J");
	/* bidi controls (Trojan source): U+202E, U+2066..U+2069, U+200F */
	T_EQ_STR(term("x\xe2\x80\xaey\xe2\x81\xa6z\xe2\x80\x8f"), "x\\u202Ey\\u2066z\\u200F");
	/* Markdown characters are left alone in text */
	T_EQ_STR(term("[a](b) *c* a|b"), "[a](b) *c* a|b");
	T_EQ_STR(term("\xfe"), "\xef\xbf\xbd");
}

T_TEST(test_escape__xml)
{
	T_EQ_STR(xml("<a href='x'>&\"", 14), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;");
	/* not XML 1.0 characters: C0 controls (shown), U+FFFE/U+FFFF, NUL */
	T_EQ_STR(xml("a\x1b" "b\x00" "c", 5), "a\\x1Bb\\x00c");
	T_EQ_STR(xml("\xef\xbf\xbe\xef\xbf\xbf", 6), "\xef\xbf\xbd\xef\xbf\xbd");
	/* surrogates encoded in UTF-8 and overlongs are invalid */
	T_EQ_STR(xml("\xed\xa0\x80\xc0\xbc", 5),
		 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	T_EQ_STR(xml("]]>--", 5), "]]&gt;--");
}

T_TEST(test_escape__json)
{
	T_EQ_STR(json("a\"b\\c\n\x1b\x7f", 8), "a\\\"b\\\\c\\n\\u001b\\u007f");
	T_EQ_STR(json("\xff", 1), "\\ufffd");
	T_EQ_STR(json("\x00", 1), "\\u0000");
	T_EQ_STR(json("\xe2\x80\xa8", 3), "\\u2028");
	/* C1 controls (CSI) and bidi controls: escaped, the same string decoded */
	T_EQ_STR(json("\xc2\x9b" "2J\xe2\x80\xae", 7), "\\u009b2J\\u202e");
	/* in a script: no "</script>", no "]]>" */
	T_EQ_STR(js("</script>]]>&"), "\\u003c/script\\u003e]]\\u003e\\u0026");
}

T_TEST(test_escape__rtable_md)
{
	struct rtable t;
	rtable_init(&t, 3);
	rtable_head(&t, 0, "ms", RT_RIGHT);
	rtable_head(&t, 1, "share", RT_RIGHT);
	rtable_head(&t, 2, "site", RT_LEFT);
	rtable_cell(&t, "0.448");
	rtable_cell(&t, "40.4-59.6%");
	rtable_cell(&t, "[x](javascript:alert(1))|y");
	struct sbuf b = SBUF_INIT;
	rtable_md(&t, &b);
	/* numbers are kept as they are; names are escaped */
	T_EQ_STR(b.buf, "| ms | share | site |\n| ---: | ---: | --- |\n"
			"| 0.448 | 40.4-59.6% | \\[x\\]\\(javascript\\:alert\\(1\\)\\)\\|y |\n");
	sbuf_reset(&b);
	rtable_text(&t, &b, 0);
	T_TRUE(strstr(b.buf, "[x](javascript:alert(1))|y") != NULL);
	rtable_release(&t);
	/* text tables: a name cannot move the cursor or recolour the terminal */
	rtable_init(&t, 1);
	rtable_head(&t, 0, "name", RT_LEFT);
	rtable_cell(&t, "a\x1b[2Jb\r");
	sbuf_reset(&b);
	rtable_text(&t, &b, 0);
	T_TRUE(strchr(b.buf, '\x1b') == NULL && strchr(b.buf, '\r') == NULL);
	T_TRUE(strstr(b.buf, "a\\x1B[2Jb\\x0D") != NULL);
	rtable_release(&t);
	/* a column with no header and no cell is not drawn (the step table's
	 * warm-up column); with one cell it is */
	rtable_init(&t, 3);
	rtable_head(&t, 0, "step", RT_RIGHT);
	rtable_head(&t, 1, "wall", RT_RIGHT);
	rtable_head(&t, 2, "", RT_LEFT);
	rtable_cell(&t, "1");
	rtable_cell(&t, "0.5");
	rtable_cell(&t, "");
	sbuf_reset(&b);
	rtable_md(&t, &b);
	T_EQ_STR(b.buf, "| step | wall |\n| ---: | ---: |\n| 1 | 0.5 |\n");
	sbuf_reset(&b);
	rtable_text(&t, &b, 0);
	T_EQ_STR(b.buf, "step  wall\n----  ----\n   1   0.5\n");
	rtable_cell(&t, "2");
	rtable_cell(&t, "0.25");
	rtable_cell(&t, "warm");
	sbuf_reset(&b);
	rtable_md(&t, &b);
	T_EQ_STR(b.buf, "| step | wall |  |\n| ---: | ---: | --- |\n| 1 | 0.5 |  |\n| 2 | 0.25 | warm |\n");
	rtable_release(&t);
	sbuf_release(&b);
}

int main(void)
{
	T_RUN(test_escape__md_links_images);
	T_RUN(test_escape__md_every_metacharacter);
	T_RUN(test_escape__md_controls);
	T_RUN(test_escape__term);
	T_RUN(test_escape__xml);
	T_RUN(test_escape__json);
	T_RUN(test_escape__rtable_md);
	sbuf_release(&B);
	return t_done();
}
