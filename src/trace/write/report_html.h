/*
 * report_html.h — `gpuflame report --format html`: the one page of a trace
 * (many ranks have theirs: ranks/ranks_out.h), from the one report result (report.h) and the
 * four weighted trees of the same steps (trace/analysis/flames.h), both
 * computed from one read of each trace.
 *
 *   struct report_html_rank k = { &report, &flames, "trace.json.gz" };
 *   report_html_write(&k, &out);
 *
 * The page (docs/report.md "The HTML page"; its frame, CSP and script:
 * stacks/render/page_html.h) embeds one JSON value, schema
 * "gpuflame.page/1":
 *   {"schema", "kind": "report", "title",
 *    "report": the "gpuflame.report/2" JSON exactly as --format json writes it,
 *    "ranks": [{"file", "steps", "ts_gen", "legacy",
 *               "graphs": {"gpu"|"cpu"|"wall"|"idle": flamejson tree or null},
 *               "why": {weight: why the graph is missing},
 *               "families": [{"name", "count", "us", "kernels",
 *                             "top": [{"name", "us", "count"}]}]}]}
 * Trees are pruned as the SVG renderer prunes (flamejson.h), the pruned
 * share stated per graph. Every figure of the report part equals the JSON
 * report's: it is the same text.
 *
 * Layer: trace/write. Never prints.
 */
#ifndef GF_REPORT_HTML_H
#define GF_REPORT_HTML_H

#include "trace/analysis/flames.h"
#include "trace/write/report_out.h"

struct report_html_rank {
	const struct report *r;
	const struct flames *f;
	const char *file;
};

/* One rank's object of "ranks" above (also a summary's "page", ranks/summary.h). */
void report_html_rank_json(struct sbuf *b, const struct report_html_rank *k);
/* The page's "vocab" member ("vocab":{...}, no comma): the weights and the
 * gap causes its script loops over (the page of many ranks has it too). */
void report_html_vocab(struct sbuf *b);

/* The page of one rank (many ranks: ranks/ranks_out.h). */
void report_html_write(const struct report_html_rank *k, struct sbuf *out);

#endif
