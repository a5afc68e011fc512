/*
 * cmd_syncs.c — gpuflame syncs: the hidden-sync finder.
 *
 * USAGE: gpuflame syncs [options] TRACE|FOLDED...
 *
 *   gpuflame syncs trace.json.gz              # blocking calls by Python site, op, API
 *   gpuflame syncs wall.folded                # py-spy --native --format raw samples
 *
 * The input type is detected by content: a JSON trace starts with '{' or
 * '[' (after decompression); anything else is read as folded stacks.
 * Trace output: one row per (Python site, op, API) with the count per step,
 * host wait, GPU bubble after the call and the fix for that pattern, ranked
 * by bubble. Folded output: sync stacks by nearest Python frame with the
 * share of samples and a 95% Wilson interval; sites under 1% are "noise".
 * Exit: 0 ok, 1 bad input, 2 usage, 3 output not written, 4 internal.
 */
#include "cli/cli.h"
#include "cli/tropts.h"

#include "stacks/ops/pysync.h"
#include "trace/analysis/report.h"
#include "trace/model/trace.h"
#include "stacks/folded.h"
#include "input/source.h"
#include "stacks/render/pysync_out.h"
#include "trace/write/report_out.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
	fputs(
		"usage: gpuflame syncs [options] TRACE|FOLDED...\n"
		"\n"
		"Find hidden host-device synchronisations (.item(), .cpu(), .tolist(), `if t:`,\n"
		"torch.cuda.synchronize(), blocking copies) and what they cost.\n"
		"From a PyTorch profiler trace: every blocking CUDA/HIP call grouped by the\n"
		"user's Python line, the aten op and the API, with count per step, host wait\n"
		"and the GPU idle that follows. From py-spy --native --format raw folded\n"
		"stacks: sync stacks by nearest Python frame with sample share and 95% CI.\n"
		"The input type is detected from the content; '-' reads stdin.\n"
		"\n"
		"options:\n"
		"  -f, --format F          text (default), md or json\n"
		"      --steps A..B        (traces) only steps numbered A to B\n"
		"      --skip N            (traces) drop the first N selected steps\n"
		"      --step-marker NAME  (traces) step ranges are NAME or NAME#<n>\n"
		"      --device N          (traces) GPU whose idle time is measured\n"
		"  -o, --output FILE       write to FILE instead of stdout\n"
		"  -j, --threads N         (traces) cores for reading: 1 or 2 (default: 2 when there are)\n"
		"  -h, --help              show this help\n"
		"\n"
		"Exit codes: 0 ok, 1 bad or unreadable input, 2 usage error or empty step\n"
		"selection, 3 output not written, 4 internal error.\n", fp);
}

/* Reads all decompressed bytes of path into b. */
static void slurp(const char *path, struct sbuf *b)
{
	struct sbuf err = SBUF_INIT;
	struct source *s;
	int rc = source_open(&s, path, 1, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	for (;;) {
		size_t got;
		sbuf_grow(b, 1 << 16);
		if ((rc = source_read(s, b->buf + b->len, 1 << 16, &got, &err)))
			cli_die(gf_err_exit(rc), "%s", err.buf); /* 4 for a limit (GPUFLAME_MAX_INPUT) */
		if (!got)
			break;
		sbuf_setlen(b, b->len + got);
	}
	source_close(s);
	sbuf_release(&err);
}

/* True when the data looks like a JSON trace. */
static bool is_json(const char *p, size_t n)
{
	size_t i = 0;
	if (n >= 3 && (unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	return i < n && (p[i] == '{' || p[i] == '[');
}

/* Peeks at the first decompressed bytes of a named file. */
static bool file_is_json(const char *path)
{
	struct sbuf err = SBUF_INIT;
	struct source *s;
	if (source_open(&s, path, 1, &err))
		cli_die(GF_EXIT_INPUT, "%s", err.buf);
	char buf[4096];
	size_t have = 0;
	while (have < sizeof buf) {
		size_t got;
		if (source_read(s, buf + have, sizeof buf - have, &got, &err))
			cli_die(GF_EXIT_INPUT, "%s", err.buf);
		if (!got)
			break;
		have += got;
	}
	source_close(s);
	sbuf_release(&err);
	return is_json(buf, have);
}

static void do_folded(const char *name, const struct sbuf *data, int format, struct sbuf *out)
{
	struct sbuf err = SBUF_INIT;
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { 0 };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	int rc = folded_read_mem(&t, data->buf, data->len, name, &fo, &st, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (!st.stacks) {
		if (st.invalid)
			cli_die(GF_EXIT_INPUT, "'%s': line %llu: expected %s", name,
				(unsigned long long)st.first_invalid_line, st.first_invalid_why);
		cli_die(GF_EXIT_INPUT, "'%s': no stacks: expected a JSON trace or folded 'stack count' lines",
			name);
	}
	if (st.invalid)
		cli_warn("'%s': %llu invalid lines skipped (first: line %llu: expected %s)", name,
			 (unsigned long long)st.invalid, (unsigned long long)st.first_invalid_line,
			 st.first_invalid_why);
	struct pysync_result r;
	if (pysync_analyze(&t, &r, &err))
		cli_die(GF_EXIT_INPUT, "'%s': %s", name, err.buf);
	pysync_out(&r, name, format, out);
	pysync_release(&r);
	ftree_release(&t);
	sbuf_release(&err);
}

static void do_trace(const char *path, const char *name, const struct sbuf *data,
		     const struct trace_opts *to, const struct report_opts *ro, int device, int format,
		     struct sbuf *out)
{
	struct sbuf err = SBUF_INIT;
	struct trace t;
	trace_init(&t, NULL);
	int rc = data ? trace_load_mem(&t, data->buf, data->len, name, to, &err) : trace_load(&t, path, to, &err);
	cli_progress_done();
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_warn_trace(&t, name);
	struct actx c;
	rc = actx_init(&c, &t, device, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	struct report_opts so = *ro;
	so.parts = RP_SYNCS; /* syncs prints the sites only */
	struct report r;
	rc = report_build(&r, &c, &so, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	struct report_in in = { &r, name };
	report_out_syncs(&in, format, out);
	report_release(&r);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

int cmd_syncs(int argc, char **argv)
{
	struct tropts o;
	int first = tropts_parse(&o, argc, argv, false, usage);
	size_t n;
	char **files = cli_inputs(argc, argv, first, &n);
	struct sbuf out = SBUF_INIT;
	if (o.format == REP_JSON && n > 1)
		sbuf_addstr(&out, "[\n");
	for (size_t i = 0; i < n; i++) {
		const char *name = cli_in_name(files[i]);
		struct trace_opts to = { 0 };
		to.step_marker = o.marker;
		to.threads = cli_threads(o.threads);
		to.progress = cli_progress_reading;
		to.progress_ctx = (void *)name;
		if (i) {
			if (o.format == REP_JSON)
				sbuf_addstr(&out, ",\n");
			else
				sbuf_addstr(&out, "\n");
		}
		if (!strcmp(files[i], "-")) {
			struct sbuf data = SBUF_INIT;
			slurp("-", &data);
			if (is_json(data.buf, data.len))
				do_trace(NULL, name, &data, &to, &o.ro, o.device, o.format, &out);
			else
				do_folded(name, &data, o.format, &out);
			sbuf_release(&data);
		} else if (file_is_json(files[i])) {
			do_trace(files[i], name, NULL, &to, &o.ro, o.device, o.format, &out);
		} else {
			struct sbuf data = SBUF_INIT;
			slurp(files[i], &data);
			do_folded(name, &data, o.format, &out);
			sbuf_release(&data);
		}
	}
	if (o.format == REP_JSON && n > 1)
		sbuf_addstr(&out, "]\n");
	cli_write_out(o.output, &out);
	sbuf_release(&out);
	return GF_EXIT_OK;
}
