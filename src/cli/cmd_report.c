/*
 * cmd_report.c — gpuflame report: where each step's time goes.
 *
 * USAGE: gpuflame report [options] TRACE...
 *
 *   gpuflame report trace.json.gz
 *   gpuflame report --skip 2 --expect-ms 11 --format json trace.json.gz > r.json
 *   gpuflame report rank0.json.gz rank1.json.gz      # one trace per rank
 *   gpuflame report --from-summaries sums/            # gpuflame summarise's outputs
 *
 * Output (docs/report.md): the per-step table (wall, GPU busy, kernel,
 * memcpy, idle, sync wait, syncs, launches, kernels, median kernel), a
 * one-sentence verdict and the next action, GPU idle by cause, the launch
 * diagnosis, the hidden syncs, NCCL overlap, the top calls per step.
 * --format html writes the one-file page (report_html.h: the report plus
 * the four flame graphs of the same steps, from the same read of the trace).
 * Several traces are ranks: each is summarised (rankrun.h; -j N at a time)
 * and freed before the next, and the summaries combined (ranks/ranks.h:
 * the straggler per process group, distributions, skew); --from-summaries
 * combines summaries made elsewhere, with the same bytes out. Exit: 0 ok,
 * 1 bad input, 2 usage (incl. an empty step selection), 3 output not
 * written, 4 internal.
 */
#include "cli/cli.h"
#include "cli/tropts.h"

#include "trace/analysis/flames.h"
#include "trace/analysis/report.h"
#include "trace/analysis/timeline.h"
#include "trace/model/trace.h"
#include "trace/write/report_html.h"
#include "trace/write/report_out.h"
#include "cli/rankrun.h"
#include "ranks/ranks_out.h"

#include <stdlib.h>
#include <string.h>

static const struct cli_opt opts[] = {
	{ "format", 'f', 'f', "F",
	  "html: one self-contained page with the four flame graphs (GPU, CPU, wall, GPU idle) of the same "
	  "steps, tables and per-step bars (needs -o or a pipe); or text (default), md, json",
	  rtable_formats, 0 },
	TROPTS_COMMON,
	{ "threads", 'j', 'j', "N",
	  "traces: one trace is read on N cores (1 or 2; default 2 when there are); several are read N at a time, "
	  "each on one core (default: one at a time; at most the cores)",
	  NULL, 0 },
	{ "unprofiled-step-ms", 0, TRO_UNPROF, "X", "your step time without the profiler: overhead estimate", NULL,
	  0 },
	{ "expect-ms", 0, TRO_EXPECT, "X", "your speed-of-light step estimate: distance to it", NULL, 0 },
	{ "max-steps", 0, TRO_MAXSTEPS, "N",
	  "text and md: at most N rows in the per-step table, the first and the last steps (default 20; 0 = "
	  "every step); with several ranks, of the step-skew table (default 10); JSON always holds every step",
	  NULL, 0 },
	{ "from-summaries", 0, TRO_FROM, NULL,
	  "the inputs are rank summaries (gpuflame summarise) or folders holding *.summary.json[.zst|.gz] files: "
	  "combine them, one at a time in little memory (docs/scale.md)",
	  NULL, 0 },
	{ "partial", 0, TRO_PARTIAL, NULL,
	  "with --from-summaries: combine the ranks present when some rank of the world size has no summary "
	  "(otherwise an error)",
	  NULL, 0 },
	{ "timeline", 0, TRO_TIMELINE, "STEPS",
	  "html: the steps whose timeline the page draws: median (default: the median steady step), none, or "
	  "step numbers and ranges A..B separated by commas (at most 8 steps)",
	  NULL, 0 },
	{ "explain", 0, TRO_EXPLAIN, "N|all",
	  "the N largest GPU idle gaps (all: every one), each as a short timeline of the device and of the thread "
	  "that issues the next work, every piece with its cause, class and frame (text: a section at the end; "
	  "json: \"explain\")",
	  NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

/* One input: its trace, the analysed device, the report, the page's graphs
 * and step timelines. */
struct rank {
	struct trace t;
	struct actx c;
	struct report r;
	struct flames f;
	struct timeline tl[TIMELINE_MAX_STEPS];
	size_t ntl;
};

/* The page's parts of one rank: its graphs and the timelines --timeline asks. */
static void build_page(struct rank *k, const char *name, const struct tropts *o)
{
	struct sbuf err = SBUF_INIT;
	int rc = flames_build(&k->f, &k->c, &o->ro.steps, o->marker, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	size_t rows[TIMELINE_MAX_STEPS];
	if ((rc = timeline_pick(&k->r.st, &o->timeline, rows, &k->ntl, &err)))
		cli_usage_error("'%s': %s", name, err.buf);
	for (size_t i = 0; i < k->ntl; i++) {
		timeline_build(&k->c, &k->r.st, &k->r.gp, rows[i], TIMELINE_WIDTH_PX, &k->tl[i]);
		k->tl[i].median = o->timeline.mode == TLS_MEDIAN;
	}
	sbuf_release(&err);
}

static void load_rank(struct rank *k, const char *file, const struct tropts *o)
{
	const char *name = cli_in_name(file);
	struct sbuf err = SBUF_INIT;
	struct trace_opts to = { 0 };
	k->ntl = 0;
	to.step_marker = o->marker;
	to.threads = cli_threads(o->jobs ? (o->jobs > 1 ? "2" : "1") : NULL);
	to.progress = cli_progress_reading;
	to.progress_ctx = (void *)name;
	trace_init(&k->t, NULL);
	int rc = trace_load(&k->t, file, &to, &err);
	cli_progress_done();
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_warn_trace(&k->t, name);
	if ((rc = actx_init(&k->c, &k->t, o->device, &err)))
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	struct report_opts ro = o->ro;
	ro.gap_pieces = o->format == REP_HTML; /* the timeline's idle lane */
	if ((rc = report_build(&k->r, &k->c, &ro, &err)))
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	if (k->r.idle_err)
		cli_warn("'%s': no idle stacks: %s", name, k->r.idle_err);
	if (o->format == REP_HTML)
		build_page(k, name, o);
	sbuf_release(&err);
}

/* The options that choose what a summary holds: given to summarise, not here. */
static void refuse_trace_opts(const struct tropts *o)
{
	const char *opt = trace_sel_active(&o->ro.steps) ? "--steps/--skip" : o->marker ? "--step-marker"
			  : o->device >= 0			    ? "--device"
			  : o->ro.unprofiled_ns >= 0		    ? "--unprofiled-step-ms"
			  : o->ro.expect_ns >= 0		    ? "--expect-ms"
								    : NULL;
	if (opt)
		cli_usage_error("%s is chosen when summarising (gpuflame summarise %s ...); summaries keep what "
				"they were made with",
				opt, opt);
}

/* The combine of many ranks, from files or from memory, written. */
static void combine(const struct tropts *o, const struct ranks_source *src)
{
	struct ranks_opts ro = { o->partial || !o->from_summaries, o->format == REP_HTML };
	struct ranks r;
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	int rc = ranks_combine(src, &ro, &r, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (o->format == REP_HTML)
		ranks_out_html(&r, &out);
	else
		ranks_out(&r, o->format, o->max_steps_set ? (size_t)o->max_steps : 0, &out);
	cli_write_out(o->output, &out);
	sbuf_release(&out);
	sbuf_release(&err);
	ranks_free(&r);
}

/* report TRACE TRACE...: each rank summarised (N at a time), then combined. */
static void several(const struct tropts *o, char **files, size_t n)
{
	unsigned cores = rankrun_cores();
	unsigned jobs = o->jobs > 1 ? (o->jobs < cores ? o->jobs : cores) : 1;
	/* -j N: N ranks at a time, each read on one core; else one at a time, on two */
	struct rankrun_opts rr = { o, NULL, -1, -1, o->format == REP_HTML, o->jobs ? 1 : cli_threads(NULL),
				   cli_progress_enabled() };
	struct ranks_mem m;
	ranks_mem_init(&m, n);
	rankrun_all(files, n, jobs, &rr, &m);
	struct ranks_source src;
	ranks_source_mem(&src, &m);
	combine(o, &src);
	ranks_mem_free(&m);
}

static int cmd_report(int argc, char **argv)
{
	struct tropts o;
	int first = tropts_parse(&o, &cmd_report_def, argc, argv);
	if (o.partial && !o.from_summaries)
		cli_usage_error("--partial goes with --from-summaries (several traces are always the ranks given)");
	if (o.timeline_set && (o.from_summaries || argc - first > 1))
		cli_usage_error("--timeline draws the steps of one trace; the page of several ranks has no step "
				"timeline (give one TRACE)");
	if (o.from_summaries) {
		refuse_trace_opts(&o);
		struct ranks_files f;
		char *what = NULL;
		rankrun_inputs(argc, argv, first, &f, &what);
		struct ranks_source src;
		ranks_source_files(&src, &f, what);
		combine(&o, &src);
		rankrun_inputs_free(&f, what);
		return GF_EXIT_OK;
	}
	size_t n;
	char **files = cli_inputs(argc, argv, first, &n);
	if (n > 1) {
		several(&o, files, n);
		return GF_EXIT_OK;
	}
	struct rank k;
	load_rank(&k, files[0], &o);
	struct report_in in = { &k.r, cli_in_name(files[0]), (size_t)o.max_steps };
	struct sbuf out = SBUF_INIT;
	if (o.format == REP_HTML) {
		struct report_html_rank h = { &k.r, &k.f, in.file, &k.c, k.tl, k.ntl };
		report_html_write(&h, &out);
	} else {
		report_out(&in, o.format, &out);
	}
	cli_write_out(o.output, &out);
	sbuf_release(&out);
	report_release(&k.r);
	if (o.format == REP_HTML)
		flames_release(&k.f);
	for (size_t j = 0; j < k.ntl; j++)
		timeline_release(&k.tl[j]);
	actx_release(&k.c);
	trace_release(&k.t);
	return GF_EXIT_OK;
}

const struct cli_command cmd_report_def = {
	.name = "report",
	.fn = cmd_report,
	.summary = "per-step GPU busy/idle table, gap causes and a verdict",
	.synopsis = "[options] [TRACE...]  |  --from-summaries [options] FILE|DIR...",
	.description = "Per-step GPU busy/idle table of a PyTorch profiler (Kineto) trace, why the GPU idles "
		       "(syncs, launch overhead, host work), hidden syncs, NCCL overlap and a one-sentence verdict. "
		       "Several traces are ranks, never merged: the straggler of each process group, the "
		       "distribution of every per-rank figure with its outlying ranks, the skew of step times "
		       "(each trace summarised and freed before the next, -j N at a time). --from-summaries combines "
		       "the summaries of 'gpuflame summarise' (a Slurm job array, GNU parallel: docs/scale.md) with "
		       "the same output. '-' reads stdin; with no TRACE, stdin too (a note says so when it is a "
		       "terminal).\n\n"
		       "  gpuflame report --skip 2 trace.json.gz\n"
		       "  gpuflame report --format json -o r.json rank0.json.gz rank1.json.gz\n"
		       "  gpuflame report --from-summaries sums/",
	.opts = opts,
	.operands = CLI_OPERAND_TRACE,
	.doc = "report.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error or empty step selection, 3 output not written, "
		 "4 internal limit.",
};
