/*
 * cmd_report.c — gpuflame report: where each step's time goes.
 *
 * USAGE: gpuflame report [options] TRACE...
 *
 *   gpuflame report trace.json.gz
 *   gpuflame report --skip 2 --expect-ms 11 --format json trace.json.gz > r.json
 *   gpuflame report rank0.json.gz rank1.json.gz      # one trace per rank
 *
 * Output (docs/report.md): the per-step table (wall, GPU busy, kernel,
 * memcpy, idle, sync wait, syncs, launches, kernels, median kernel), a
 * one-sentence verdict and the next action, GPU idle by cause, the launch
 * diagnosis, the hidden syncs, NCCL overlap, the top calls per step; with
 * several traces, one column per rank and the straggler. --format html
 * writes the one-file page (report_html.h: the report plus the four flame
 * graphs of the same steps, from the same read of each trace). Exit: 0 ok, 1 bad
 * input, 2 usage (incl. an empty step selection), 3 output not written,
 * 4 internal.
 */
#include "cli/cli.h"
#include "cli/tropts.h"

#include "trace/analysis/flames.h"
#include "trace/analysis/report.h"
#include "trace/model/trace.h"
#include "trace/write/report_html.h"
#include "trace/write/report_out.h"

#include <stdlib.h>
#include <string.h>

static const struct cli_opt opts[] = {
	{ "format", 'f', 'f', "F",
	  "html: one self-contained page with the four flame graphs (GPU, CPU, wall, GPU idle) of the same "
	  "steps, tables and per-step bars (needs -o or a pipe); or text (default), md, json",
	  rtable_formats, 0 },
	TROPTS_COMMON,
	{ "unprofiled-step-ms", 0, TRO_UNPROF, "X", "your step time without the profiler: overhead estimate", NULL,
	  0 },
	{ "expect-ms", 0, TRO_EXPECT, "X", "your speed-of-light step estimate: distance to it", NULL, 0 },
	{ "max-steps", 0, TRO_MAXSTEPS, "N",
	  "text and md: at most N rows in the per-step table, the first and the last steps (default 20; 0 = "
	  "every step); JSON always holds every step",
	  NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

/* One input: its trace, the analysed device, the report, the page's graphs. */
struct rank {
	struct trace t;
	struct actx c;
	struct report r;
	struct flames f;
};

static void load_rank(struct rank *k, struct pool *names, const char *file, const struct tropts *o)
{
	const char *name = cli_in_name(file);
	struct sbuf err = SBUF_INIT;
	struct trace_opts to = { 0 };
	to.step_marker = o->marker;
	to.threads = cli_threads(o->threads);
	to.progress = cli_progress_reading;
	to.progress_ctx = (void *)name;
	trace_init(&k->t, names);
	int rc = trace_load(&k->t, file, &to, &err);
	cli_progress_done();
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_warn_trace(&k->t, name);
	if ((rc = actx_init(&k->c, &k->t, o->device, &err)))
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	if ((rc = report_build(&k->r, &k->c, &o->ro, &err)))
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	if (k->r.idle_err)
		cli_warn("'%s': no idle stacks: %s", name, k->r.idle_err);
	if (o->format == REP_HTML && (rc = flames_build(&k->f, &k->c, &o->ro.steps, o->marker, &err)))
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	sbuf_release(&err);
}

/* The page of n ranks. */
static void write_html(const struct rank *k, const struct report_in *in, size_t n, const struct strag_result *s,
		       struct sbuf *out)
{
	struct report_html_rank *h = gf_xcalloc(n, sizeof *h);
	for (size_t i = 0; i < n; i++) {
		h[i].r = &k[i].r;
		h[i].f = &k[i].f;
		h[i].file = in[i].file;
	}
	report_html_write(h, n, s, out);
	free(h);
}

static int cmd_report(int argc, char **argv)
{
	struct tropts o;
	int first = tropts_parse(&o, &cmd_report_def, argc, argv);
	size_t n;
	char **files = cli_inputs(argc, argv, first, &n);
	struct pool *names = pool_new(); /* one pool: collectives match by name id */
	struct rank *k = gf_xcalloc(n, sizeof *k);
	struct report_in *in = gf_xcalloc(n, sizeof *in);
	const struct actx **cx = gf_xcalloc(n, sizeof *cx);
	const struct report **rep = gf_xcalloc(n, sizeof *rep);
	for (size_t i = 0; i < n; i++) {
		load_rank(&k[i], names, files[i], &o);
		in[i].r = &k[i].r;
		in[i].file = cli_in_name(files[i]);
		in[i].max_steps = (size_t)o.max_steps;
		cx[i] = &k[i].c;
		rep[i] = &k[i].r;
	}
	struct strag_result sr = { 0 };
	if (n > 1)
		report_straggler(cx, rep, n, &sr);
	struct sbuf out = SBUF_INIT;
	if (o.format == REP_HTML)
		write_html(k, in, n, n > 1 ? &sr : NULL, &out);
	else
		report_out(in, n, n > 1 ? &sr : NULL, o.format, &out);
	cli_write_out(o.output, &out);
	sbuf_release(&out);
	comm_straggler_release(&sr);
	for (size_t i = 0; i < n; i++) {
		report_release(&k[i].r);
		if (o.format == REP_HTML)
			flames_release(&k[i].f);
		actx_release(&k[i].c);
		trace_release(&k[i].t);
	}
	free(k);
	free(in);
	free(cx);
	free(rep);
	pool_free(names);
	return GF_EXIT_OK;
}

const struct cli_command cmd_report_def = {
	.name = "report",
	.fn = cmd_report,
	.summary = "per-step GPU busy/idle table, gap causes and a verdict",
	.synopsis = "[options] [TRACE...]",
	.description = "Per-step GPU busy/idle table of a PyTorch profiler (Kineto) trace, why the GPU idles "
		       "(syncs, launch overhead, host work), hidden syncs, NCCL overlap and a one-sentence verdict. "
		       "Several traces are ranks: shown side by side with the straggler, never merged. '-' reads "
		       "stdin; with no TRACE, stdin too (a note says so when it is a terminal).\n\n"
		       "  gpuflame report --skip 2 trace.json.gz\n"
		       "  gpuflame report --format json -o r.json rank0.json.gz rank1.json.gz",
	.opts = opts,
	.operands = CLI_OPERAND_TRACE,
	.doc = "report.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error or empty step selection, 3 output not written, "
		 "4 internal limit.",
};
