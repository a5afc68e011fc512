/*
 * page_assets.h — the HTML page's own script and style sheet as C string
 * data (page_assets.c is generated from page_assets.js and page_assets.css
 * by scripts/page_assets.py; tests/browser/run.sh checks it is fresh).
 * The script draws everything from the page's JSON block (page_html.h);
 * neither text holds "</", so both can stand inline.
 *
 * Layer: stacks/render.
 */
#ifndef GF_PAGE_ASSETS_H
#define GF_PAGE_ASSETS_H

extern const char page_assets_js[];
extern const char page_assets_css[];

#endif
