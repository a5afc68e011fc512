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

/* json: one JSON value (jsonw's output), an object; its strings are capped
 * first (page_html_cap). */
void page_html_write(struct sbuf *out, const char *title, const struct sbuf *json);

/*
 * Names are untrusted and may be huge: every JSON string longer than
 * PAGE_NAME_CAP bytes (of JSON text) is written as its first and last
 * PAGE_NAME_KEEP bytes (cut at character boundaries) around
 * " … (N bytes, middle elided) … " (N its decoded length), distinct full
 * strings getting distinct elided ones (" #2" ...). The full strings follow
 * in a last member of the top-level object, "full_names": [[elided, full],
 * ...], first come first kept while their sum stays within
 * PAGE_FULL_BUDGET bytes: the page shows a full name on demand when it is
 * there, and says it is not otherwise. So the page's size is bounded by what
 * it draws, not by the names' lengths. Appends the result to out.
 */
#define PAGE_NAME_CAP 1000
#define PAGE_NAME_KEEP 400
#define PAGE_FULL_BUDGET (1u << 20)
void page_html_cap(const char *json, size_t n, struct sbuf *out);

#endif
