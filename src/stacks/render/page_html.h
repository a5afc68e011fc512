/*
 * page_html.h — the frame of gpuflame's one-file HTML page (`report
 * --format html`, `diff --format html`): a document that needs nothing but
 * itself (no network, no fonts, works from file://).
 *
 *   page_html_write(&out, "gpuflame report: trace.json.gz", &json);
 *
 * It holds, in order: a Content-Security-Policy meta element
 * (default-src 'none'; script-src and style-src only the sha256 of the
 * page's own inline script and style, computed here when the page is
 * written; img-src data:; base-uri 'none'; form-action 'none'), so no
 * inline handler, injected script or remote load can run; the title
 * (esc_xml); the style; the data once as JSON in
 * <script type="application/json" id="gf-data"> (esc_script_json: no '<',
 * U+2028/9 or invalid UTF-8 can leave the element); the script
 * (page_assets.h), which reads the block and builds every element with the
 * DOM API, names as text only.
 *
 * Layer: stacks/render. Never prints.
 */
#ifndef GF_PAGE_HTML_H
#define GF_PAGE_HTML_H

#include "base/sbuf.h"

/* json: one JSON value (jsonw's output). */
void page_html_write(struct sbuf *out, const char *title, const struct sbuf *json);

#endif
