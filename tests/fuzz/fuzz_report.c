/*
 * fuzz_report.c — libFuzzer target for the report/syncs analyses and their
 * writers: the input is read as a Kineto trace (trace_load_mem), then
 * analysed (actx, steps, gaps, syncs, comm, verdict) with options chosen by the input's last byte and written as
 * text, Markdown and JSON, twice as two "ranks" for the straggler path; the
 * input is also read as py-spy folded stacks for the folded sync finder.
 * Must never crash, leak or trip UBSan; asserted invariants: per step,
 * busy + idle = wall and the gap causes add up to idle; every output is
 * valid UTF-8 with no control byte but the newline (names are untrusted: the
 * writers escape them), whatever the names in the input.
 * Seeds: tests/fuzz/corpus/report/ (small generated decode traces, a folded file).
 */
#include "stacks/ops/pysync.h"
#include "trace/analysis/report.h"
#include "stacks/folded.h"
#include "trace/model/trace.h"
#include "base/escape.h"
#include "stacks/render/pysync_out.h"
#include "trace/write/report_out.h"

#include <stdlib.h>
#include <string.h>

/* Writes one output into a fresh buffer and checks it: valid UTF-8, no C0
 * control but '\n', no DEL, no C1 control, no bidi control (text, md and
 * JSON alike: the writers escape every name). */
static void check_out(const struct sbuf *b)
{
	const unsigned char *p = (const unsigned char *)b->buf;
	for (size_t i = 0; i < b->len;) {
		long cp;
		int k = esc_utf8_next(p + i, b->len - i, &cp);
		if (cp < 0 || (cp < 0x20 && cp != '\n') || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
		    cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069))
			abort();
		i += (size_t)k;
	}
}

static void folded_path(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { 0 };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	if (!folded_read_mem(&t, (const char *)data, size, "fuzz", &fo, &st, &err)) {
		struct pysync_result r;
		if (!pysync_analyze(&t, &r, &err)) {
			for (int f = REP_TEXT; f <= REP_JSON; f++) {
				sbuf_reset(&out);
				pysync_out(&r, "fuzz", f, &out);
				check_out(&out);
			}
			pysync_release(&r);
		}
	}
	ftree_release(&t);
	sbuf_release(&out);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	folded_path(data, size);
	struct sbuf err = SBUF_INIT;
	struct trace t;
	trace_init(&t, NULL);
	int rc = trace_load_mem(&t, data, size, "fuzz.json", NULL, &err);
	if (!rc) {
		unsigned sel = size ? data[size - 1] : 0;
		struct actx cx;
		if (!actx_init(&cx, &t, (sel & 1) ? 0 : -1, &err)) {
			struct report_opts ro;
			report_opts_init(&ro);
			if (sel & 2)
				ro.steps.skip = 1;
			if (sel & 4) {
				ro.steps.first = 2;
				ro.steps.last = 5;
			}
			if (sel & 8)
				ro.expect_ns = 1000;
			if (sel & 16)
				ro.unprofiled_ns = 5000;
			/* a partial result: the writers leave out what was not computed */
			static const unsigned pick[4] = { RP_SYNCS, RP_GAPS | RP_TOP, RP_COMM | RP_IDLE,
							  RP_VERDICT };
			if (sel & 32)
				ro.parts = pick[(sel >> 6) & 3];
			struct report r;
			if (!report_build(&r, &cx, &ro, &err)) {
				for (size_t i = 0; i < r.st.n && (r.parts & RP_GAPS); i++) {
					const struct step_row *s = &r.st.rows[i];
					const struct gap_row *g = &r.gp.rows[i];
					if (s->busy + s->idle != s->wall)
						abort();
					if (gaps_idle(g) != s->idle)
						abort();
				}
				struct report_in in[2] = { { &r, "a", 0 }, { &r, "b", 0 } };
				struct coll *cl[2];
				size_t ncl[2];
				comm_collectives(&cx, &r.st, &cl[0], &ncl[0]);
				comm_collectives(&cx, &r.st, &cl[1], &ncl[1]);
				struct strag_result sr;
				comm_straggler(cl, ncl, 2, &sr);
				struct sbuf out = SBUF_INIT;
				for (int f = REP_TEXT; f <= REP_JSON; f++) {
					sbuf_reset(&out);
					report_out(in, 1, NULL, f, &out);
					check_out(&out);
					sbuf_reset(&out);
					report_out(in, 2, &sr, f, &out);
					check_out(&out);
					sbuf_reset(&out);
					report_out_syncs(in, f, &out);
					check_out(&out);
				}
				sbuf_release(&out);
				comm_straggler_release(&sr);
				free(cl[0]);
				free(cl[1]);
				report_release(&r);
			}
			actx_release(&cx);
		}
	}
	trace_release(&t);
	sbuf_release(&err);
	return 0;
}
