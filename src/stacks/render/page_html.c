/* page_html.c — the page's frame: CSP, style, data block, script (see page_html.h). */
#include "stacks/render/page_html.h"

#include "base/escape.h"
#include "base/pool.h"
#include "base/sha256.h"
#include "stacks/render/page_assets.h"

#include <stdlib.h>
#include <string.h>

/* The decoded UTF-8 bytes of one JSON escape or byte of string content at
 * s[i] (the body of a string token, i at its start); *step its length in
 * the JSON text. */
static size_t unit(const char *s, size_t n, size_t i, size_t *step)
{
	if (s[i] != '\\') {
		*step = 1;
		return 1;
	}
	if (i + 1 < n && s[i + 1] == 'u' && i + 6 <= n) {
		*step = 6;
		unsigned cp = 0;
		for (size_t k = i + 2; k < i + 6; k++)
			cp = cp << 4 | (unsigned)(s[k] <= '9' ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
		/* a surrogate pair's halves count 2 each (4 for the pair) */
		return cp < 0x80 ? 1 : cp < 0x800 ? 2 : (cp >= 0xd800 && cp < 0xe000) ? 2 : 3;
	}
	*step = i + 1 < n ? 2 : 1;
	return 1;
}

/* Whether a string body may be cut before s[i]: not inside an escape (the
 * caller steps over them) nor before a UTF-8 continuation byte. */
static bool cut_ok(const char *s, size_t i)
{
	return ((unsigned char)s[i] & 0xc0) != 0x80;
}

struct capper {
	struct pool *shown;     /* elided strings given out */
	uint64_t *hash;         /* per shown id: the hash of the full string it stands for */
	uint32_t nhash;
	struct sbuf full;       /* "full_names" entries */
	size_t full_bytes;
	uint32_t nfull;
};

/* Appends the token body s[0..n) (JSON text, n > PAGE_NAME_CAP) elided:
 * its first and last PAGE_NAME_KEEP bytes around "… (N bytes) …"; each
 * distinct full string gets a distinct shown string ("#2" when two
 * elide alike), and its full text goes to the side table while the budget
 * lasts. */
static void elide(struct capper *c, const char *s, size_t n, struct sbuf *out)
{
	size_t total = 0, head = 0, tail = n, step;
	bool tail_set = false;
	for (size_t i = 0; i < n; i += step) {
		size_t u = unit(s, n, i, &step);
		if (i <= PAGE_NAME_KEEP && cut_ok(s, i))
			head = i;
		if (!tail_set && i >= n - PAGE_NAME_KEEP && cut_ok(s, i)) {
			tail = i;
			tail_set = true;
		}
		total += u;
	}
	uint64_t h = gf_hash(s, n);
	struct sbuf shown = SBUF_INIT;
	for (unsigned k = 1;; k++) {
		sbuf_reset(&shown);
		sbuf_add(&shown, s, head);
		sbuf_addf(&shown, " \\u2026 (%zu bytes, middle elided)", total);
		if (k > 1)
			sbuf_addf(&shown, " #%u", k);
		sbuf_addstr(&shown, " \\u2026 ");
		sbuf_add(&shown, s + tail, n - tail);
		uint32_t had = pool_count(c->shown);
		uint32_t id = pool_intern(c->shown, shown.buf, shown.len);
		if (id == had) {
			/* a new shown string: it stands for this full string */
			if (id >= c->nhash) {
				c->nhash = c->nhash ? 2 * c->nhash : 16;
				c->hash = gf_xrealloc(c->hash, (size_t)c->nhash * sizeof *c->hash);
			}
			c->hash[id] = h;
			if (c->full_bytes + n <= PAGE_FULL_BUDGET) {
				c->full_bytes += n;
				sbuf_addstr(&c->full, c->nfull++ ? ",[\"" : "[\"");
				sbuf_add(&c->full, shown.buf, shown.len);
				sbuf_addstr(&c->full, "\",\"");
				sbuf_add(&c->full, s, n);
				sbuf_addstr(&c->full, "\"]");
			}
			break;
		}
		if (c->hash[id] == h)
			break; /* the same full string again (a hash collision only shares its full text) */
	}
	sbuf_add(out, shown.buf, shown.len);
	sbuf_release(&shown);
}

void page_html_cap(const char *json, size_t n, struct sbuf *out)
{
	struct capper c;
	memset(&c, 0, sizeof c);
	c.shown = pool_new();
	c.full = (struct sbuf)SBUF_INIT;
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		if (json[i] != '"')
			continue;
		size_t j = i + 1;
		while (j < n && json[j] != '"')
			j += json[j] == '\\' ? 2 : 1;
		if (j > n)
			j = n;
		if (j - i - 1 > PAGE_NAME_CAP) {
			sbuf_add(out, json + from, i + 1 - from);
			elide(&c, json + i + 1, j - i - 1, out);
			from = j;
		}
		i = j;
	}
	/* the side table of full names: a last member of the top-level object */
	size_t end = n;
	while (end > from && json[end - 1] != '}')
		end--;
	if (c.nfull && end > from) {
		sbuf_add(out, json + from, end - 1 - from);
		sbuf_addstr(out, ",\n\"full_names\":[");
		sbuf_add(out, c.full.buf, c.full.len);
		sbuf_addstr(out, "]}");
		sbuf_add(out, json + end, n - end);
	} else {
		sbuf_add(out, json + from, n - from);
	}
	sbuf_release(&c.full);
	free(c.hash);
	pool_free(c.shown);
}

void page_html_write(struct sbuf *out, const char *title, const struct sbuf *json)
{
	char js[SHA256_B64_LEN + 1], css[SHA256_B64_LEN + 1];
	sha256_b64(page_assets_js, strlen(page_assets_js), js);
	sha256_b64(page_assets_css, strlen(page_assets_css), css);
	sbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	sbuf_addf(out,
		  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		  "script-src 'sha256-%s'; style-src 'sha256-%s'; img-src data:; base-uri 'none'; "
		  "form-action 'none'\">\n",
		  js, css);
	sbuf_addstr(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			 "<meta name=\"generator\" content=\"gpuflame\">\n<title>");
	size_t tl = strlen(title);
	if (tl > PAGE_NAME_CAP) {
		/* the title is the first string of the data: its elided form is there */
		esc_xml(out, title, PAGE_NAME_KEEP);
		sbuf_addstr(out, " \xe2\x80\xa6");
	} else {
		esc_xml(out, title, tl);
	}
	sbuf_addstr(out, "</title>\n<style>");
	sbuf_addstr(out, page_assets_css);
	sbuf_addstr(out, "</style>\n</head>\n<body>\n<noscript>This page draws its figures with its own "
			 "script; the data is in the gf-data block of its source.</noscript>\n"
			 "<div id=\"app\"></div>\n<script type=\"application/json\" id=\"gf-data\">");
	struct sbuf capped = SBUF_INIT;
	page_html_cap(json->buf ? json->buf : "", json->len, &capped);
	esc_script_json(out, capped.buf ? capped.buf : "", capped.len);
	sbuf_release(&capped);
	sbuf_addstr(out, "</script>\n<script>");
	sbuf_addstr(out, page_assets_js);
	sbuf_addstr(out, "</script>\n</body>\n</html>\n");
}
