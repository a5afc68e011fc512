/*
 * report_out.h — render `gpuflame report` and `gpuflame syncs` (trace input)
 * as text (100 columns, aligned, ms/us units), Markdown or JSON, from the one
 * analysis result (trace/analysis/report.h) and nothing else.
 *
 * Files: report_out.c writes the sections once for every prose format
 * through report_fmt.h, which report_text.c and report_md.c implement;
 * report_json.c writes the JSON, which the HTML page (report_html.h) embeds.
 * A part the report did not compute (report.h: report.parts) is left out of
 * the prose and is null in the JSON.
 *
 * JSON schemas "gpuflame.report/2" and "gpuflame.syncs/2" are documented
 * field by field in docs/report.md. Times are exact decimal microseconds
 * (integer ns printed at scale 3), counts are integers, per-step counts are
 * decimals with 2 digits, shares are decimals in 0..1.
 *
 * Layer: trace/write.
 */
#ifndef GF_REPORT_OUT_H
#define GF_REPORT_OUT_H

#include "trace/analysis/report.h"
#include "base/rtable.h"

/* One rank's report plus the name of its source; max_steps (text and
 * Markdown) caps the step table's rows: the first and the last steps are
 * shown, a line counts the others (0 = every step; JSON has them all). */
struct report_in {
	const struct report *r;
	const char *file;
	size_t max_steps;
};

/*
 * format: enum rep_format (base/rtable.h). Writes one rank's report; many
 * ranks are ranks/ranks_out.h's.
 */
void report_out(const struct report_in *in, int format, struct sbuf *out);

/* `gpuflame syncs` over one trace's report data (sync sites only). */
void report_out_syncs(const struct report_in *in, int format, struct sbuf *out);

#endif
