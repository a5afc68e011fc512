/* page_html.c — the page's frame: CSP, style, data block, script (see page_html.h). */
#include "stacks/render/page_html.h"

#include "base/escape.h"
#include "base/sha256.h"
#include "stacks/render/page_assets.h"

#include <string.h>

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
	esc_xml(out, title, strlen(title));
	sbuf_addstr(out, "</title>\n<style>");
	sbuf_addstr(out, page_assets_css);
	sbuf_addstr(out, "</style>\n</head>\n<body>\n<noscript>This page draws its figures with its own "
			 "script; the data is in the gf-data block of its source.</noscript>\n"
			 "<div id=\"app\"></div>\n<script type=\"application/json\" id=\"gf-data\">");
	esc_script_json(out, json->buf, json->len);
	sbuf_addstr(out, "</script>\n<script>");
	sbuf_addstr(out, page_assets_js);
	sbuf_addstr(out, "</script>\n</body>\n</html>\n");
}
