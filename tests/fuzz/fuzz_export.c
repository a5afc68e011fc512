/*
 * fuzz_export.c — libFuzzer target for the exports (issue 14): the input is
 * read as folded stacks and written as speedscope JSON and as pprof
 * (export_speedscope, export_pprof), then read as a Kineto trace and, when
 * it is one, its gap model written as a Perfetto export over the same bytes
 * (export_perfetto: the streaming copy and the added tracks).
 * Must never crash, leak or trip UBSan; asserted invariants: the speedscope
 * output is valid UTF-8 without a raw control byte but '\n' (names are
 * escaped), the pprof output is a gzip stream (1f 8b), and a Perfetto
 * export of a plain input is never shorter than the input (every byte is
 * copied; the added events only add).
 * Seeds: tests/fuzz/corpus/export/ (folded files, small traces).
 */
#include "base/escape.h"
#include "base/ozip.h"
#include "input/input.h"
#include "stacks/export/export_pprof.h"
#include "stacks/export/export_speedscope.h"
#include "stacks/folded.h"
#include "trace/analysis/report.h"
#include "trace/model/trace.h"
#include "trace/write/export_perfetto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_text(const char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		long cp;
		int k = esc_utf8_next((const unsigned char *)p + i, n - i, &cp);
		if (cp < 0 || (cp < 0x20 && cp != '\n') || cp == 0x7f)
			abort();
		i += (size_t)k;
	}
}

static void stacks(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT;
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { 0 };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	if (!folded_read_mem(&t, (const char *)data, size, "fuzz", &fo, &st, &err)) {
		struct export_stacks x;
		memset(&x, 0, sizeof x);
		x.p[0].t = &t;
		x.p[0].name = export_stacks_weight(&t, "samples");
		x.p[1] = x.p[0];
		x.n = 2;
		x.title = "fuzz\x01<>";
		for (int k = 0; k < 2; k++) {
			char *buf = NULL;
			size_t len = 0;
			FILE *fp = open_memstream(&buf, &len);
			sbuf_reset(&err);
			int rc = (k ? export_pprof_write : export_speedscope_write)(&x, fp, &err);
			fclose(fp);
			if (!rc && !k)
				check_text(buf, len);
			if (!rc && k && (len < 2 || (unsigned char)buf[0] != 0x1f || (unsigned char)buf[1] != 0x8b))
				abort();
			free(buf);
		}
	}
	ftree_release(&t);
	sbuf_release(&err);
}

static void perfetto(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT;
	struct trace t;
	trace_init(&t, NULL);
	if (!trace_load_mem(&t, data, size, "fuzz.json", NULL, &err)) {
		struct actx cx;
		if (!actx_init(&cx, &t, -1, &err)) {
			struct report_opts ro;
			report_opts_init(&ro);
			ro.parts = RP_GAPS;
			ro.gap_pieces = true;
			struct report r;
			if (!report_build(&r, &cx, &ro, &err)) {
				struct input *in;
				if (!input_open_mem(&in, data, size, "fuzz.json", &err)) {
					char *buf = NULL;
					size_t len = 0;
					FILE *fp = open_memstream(&buf, &len);
					struct export_perfetto_dev dv = { &cx, &r };
					int rc = export_perfetto_write(&dv, 1, in, fp, OZIP_PLAIN, &err);

					fclose(fp);
					/* the copy keeps every input byte; the added events only add */
					if (!rc && input_compression(in) == 0 && len < size)
						abort();
					free(buf);
					input_close(in);
				}
				report_release(&r);
			}
			actx_release(&cx);
		}
	}
	trace_release(&t);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	stacks(data, size);
	perfetto(data, size);
	return 0;
}
