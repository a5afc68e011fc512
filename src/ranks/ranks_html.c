/* ranks_html.c — many ranks as the one-file page (see ranks_out.h). */
#include "ranks/ranks_out.h"

#include "base/escape.h"
#include "stacks/render/page_html.h"
#include "trace/write/report_html.h"

#include <string.h>

/*
 * The page's data ("gpuflame.page/1", kind "ranks"):
 *   {"schema", "kind": "ranks", "title",
 *    "report": the "gpuflame.ranks/1" JSON exactly as --format json writes it,
 *    "ranks": [{"index": into report.per_rank, "why": "straggler of group 'x'",
 *               "report": that rank's "gpuflame.report/2",
 *               "page": its page object (report_html.h) or null}],
 *    "vocab": the weights and gap causes (report_html.h)}
 * page_ranks.js draws the rank view; the ranks shown in full reuse the
 * single-rank view of page_assets.js.
 */
void ranks_out_html(const struct ranks *r, struct sbuf *out)
{
	struct sbuf rep = SBUF_INIT, json = SBUF_INIT, title = SBUF_INIT;
	ranks_out_json(r, &rep);
	sbuf_addf(&title, "gpuflame report: %zu rank%s", r->n, r->n == 1 ? "" : "s");
	if (r->world_size > 0)
		sbuf_addf(&title, " of world size %lld", (long long)r->world_size);
	sbuf_addstr(&json, "{\"schema\":\"gpuflame.page/1\",\"kind\":\"ranks\",\"title\":");
	esc_json_str(&json, title.buf, title.len);
	sbuf_addstr(&json, ",\"report\":");
	sbuf_add(&json, rep.buf, rep.len);
	sbuf_addstr(&json, ",\n\"ranks\":[");
	for (size_t i = 0; i < r->npages; i++) {
		const struct ranks_page *p = &r->pages[i];
		sbuf_addf(&json, "%s{\"index\":%zu,\"why\":", i ? ",\n" : "", p->rank);
		esc_json_str(&json, p->why, strlen(p->why));
		sbuf_addstr(&json, ",\"report\":");
		sbuf_addstr(&json, p->report);
		sbuf_addstr(&json, ",\"page\":");
		sbuf_addstr(&json, p->page ? p->page : "null");
		sbuf_addch(&json, '}');
	}
	sbuf_addstr(&json, "],\n");
	report_html_vocab(&json); /* what the single-rank views of page_assets.js loop over */
	sbuf_addstr(&json, "}");
	page_html_write(out, title.buf, &json);
	sbuf_release(&rep);
	sbuf_release(&json);
	sbuf_release(&title);
}
