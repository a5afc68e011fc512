/*
 * cmd_diff.c — gpuflame diff: compare two profiles (differential flame graphs).
 *
 * USAGE: gpuflame diff [options] BEFORE AFTER
 *
 * Inputs are folded files ("a;b;c 12"), ours with a "# gpuflame:" header or
 * plain ones (py-spy, flamegraph.pl), plain, gzip or zstd, or Kineto traces
 * (folded on the fly through trace/analysis/fold.h). Example:
 *   gpuflame diff before.folded after.folded > diff.folded     # stack before after
 *   gpuflame diff before.folded after.folded | flamegraph.pl > diff.svg
 *   gpuflame diff --svg -o diff.svg before.folded after.folded
 *   gpuflame diff --top 20 before.folded after.folded
 *   gpuflame diff --format html -o diff.html before.json.gz after.json.gz
 * Output: "stack before after" lines (difffolded.pl's format), per step when
 * both profiles have step counts; the SVG is AFTER's shape, red where a
 * frame's weight grew and blue where it shrank (see docs/diff.md).
 * Exit: 0 ok, 1 bad input, 2 bad usage or unlike profiles refused, 3 output
 * not written.
 *
 * Layout (git builtin style): options (parse_args: diffopts.h's rows, which
 * store diff shares, foldopts.h's for traces, and diff's own), the sides
 * (load_side: folded files or traces folded on the fly), then diffopts_run
 * (the library's diff_run and the writers of stacks/render/diff_out.h).
 */
#include "cli/cli.h"
#include "cli/cliopt.h"
#include "cli/diffopts.h"
#include "cli/foldopts.h"

#include "stacks/ops/diff.h"
#include "base/num.h"
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"
#include "stacks/folded.h"
#include "input/input.h"
#include "cli/rankdiff.h"
#include "base/rtable.h"

#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_STEPS = CLIOPT_FIRST_ID, OPT_STRICT };

static const struct cli_opt opts[] = {
	DIFFOPTS_ROWS,
	{ "steps", 0, OPT_STEPS, "N,M|A..B",
	  "N,M: the step counts of BEFORE and AFTER (plain folded files); A..B: fold only steps A to B of traces",
	  NULL, 0 },
	{ "strict", 0, OPT_STRICT, NULL, "an invalid input line is an error (default: skipped, counted)", NULL, 0 },
	/* traces: folded as 'gpuflame fold' does */
	FOLDOPTS_ROWS("traces: "),
	{ "threads", 'j', 'j', "N", "cores for reading a trace: 1 or 2 (default: 2 when there are)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

/* The fold options (for BEFORE/AFTER given as traces). */
struct fold_cli {
	struct fold_opts o;
	bool used;              /* a fold option was given */
	const char *families;
	const char *marker;
	const char *threads;    /* -j/--threads (reading only: not a fold option) */
	struct kfamily *kf;
};

/* Everything the command line says. */
struct diff_cli {
	struct diffopts d;      /* the comparison and its outputs (diffopts.h) */
	bool strict;
	struct fold_cli fc;
};

/* ---- Inputs: BEFORE/AFTER through the one input layer (input/input.h):
 * plain, gzip, zstd or stdin, trace or folded decided by the decompressed
 * first bytes (input_sniff; cli_input_is_trace: what is not plainly folded
 * stacks and opens like JSON or is named .json goes to the trace reader,
 * which names its fault). */

/* Folds a trace with the fold options given on the diff command line into
 * t, and, unless --per-step was given, one tower per step into steps (the
 * steps' values for the noise test: diff_opts.step_side). */
static void fold_profile(struct ftree *t, struct ftree *steps, struct input *in, struct fold_cli *fc)
{
	const char *path = input_path(in);
	struct sbuf err = SBUF_INIT;
	if (fc->families && !fc->kf) {
		fc->kf = kfamily_new();
		if (kfamily_load(fc->kf, fc->families, &err))
			cli_die(GF_EXIT_INPUT, "%s", err.buf);
		fc->o.families = fc->kf;
	}
	struct fold_opts o = fc->o;
	o.source = cli_source_name(path);
	o.step_marker = fc->marker;
	struct trace tr;
	trace_init(&tr, NULL);
	struct trace_opts to;
	memset(&to, 0, sizeof to);
	to.step_marker = fc->marker;
	to.threads = cli_threads(fc->threads);
	int rc = trace_load_input(&tr, in, &to, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_warn_trace(&tr, cli_in_name(path));
	struct fold_stats st;
	memset(&st, 0, sizeof st);
	rc = fold_trace(&tr, &o, t, &st, &err);
	if (!rc && !o.per_step) {
		/* one tower per step: the steps are the repeated measurements of
		 * the noise test (stacks/ops/diff.h); the graph stays t */
		o.per_step = true;
		ftree_release(steps);
		memset(&st, 0, sizeof st);
		rc = fold_trace(&tr, &o, steps, &st, &err);
	}
	trace_release(&tr);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(path), err.buf);
	if (t->total[0] == 0)
		cli_die(GF_EXIT_INPUT, "'%s': the %s fold has no weight", cli_in_name(path),
			weight_defs[o.weight].name);
	sbuf_release(&err);
}

/* Reads one side (a folded file, or a trace folded on the fly) into t;
 * a trace's per-step fold into steps. */
static void load_side(struct ftree *t, struct ftree *steps, const char *path, bool strict, struct fold_cli *fc)
{
	struct input *in = cli_open_input(path, cli_threads(fc->threads));
	if (cli_input_is_trace(in)) {
		ftree_release(t);
		fold_profile(t, steps, in, fc);
		cli_close_input(in);
		return;
	}
	if (fc->used)
		cli_warn("'%s' is folded already: the fold options do not apply to it", cli_in_name(path));
	struct folded_opts fo = { .strict = strict, .reverse = false };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	int rc = folded_read_in(t, in, &fo, &st, &err);
	if (rc) /* exit 1 bad input or read error, 4 a limit or ENOMEM */
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_close_input(in);
	cli_folded_warn(&st, cli_in_name(path));
	if (st.rounded)
		cli_warn("'%s': %llu count%s with more than %d decimals rounded", cli_in_name(path),
			 (unsigned long long)st.rounded, st.rounded == 1 ? "" : "s", NUM_MAX_SCALE);
	if (!st.stacks)
		cli_die(GF_EXIT_INPUT, "'%s': no stack lines ('stack count') found", cli_in_name(path));
	sbuf_release(&err);
}

/* ---- Options ---- */

/* --steps N,M (step counts of BEFORE and AFTER) or A..B (steps to fold). */
static void steps_option(const char *arg, struct diff_cli *d)
{
	const char *comma = strchr(arg, ',');
	if (strstr(arg, "..") && !comma) {
		cli_steps("--steps", arg, &d->fc.o.steps.first, &d->fc.o.steps.last);
		d->fc.used = true;
		return;
	}
	if (!comma)
		cli_usage_error("--steps wants N,M (BEFORE's and AFTER's step counts) or A..B "
				"(steps to fold), got '%s'", arg);
	char *a = gf_xstrndup(arg, (size_t)(comma - arg));
	d->d.o.steps[0] = cli_int("--steps", a, 1, INT64_MAX);
	d->d.o.steps[1] = cli_int("--steps", comma + 1, 1, INT64_MAX);
	free(a);
}

/* A fold option (for traces, foldopts.h): @return false when c is not one. */
static bool fold_option(int c, const char *arg, struct fold_cli *fc)
{
	struct foldopts_extra x = { fc->families };
	if (!foldopts_option(&cmd_diff_def, c, arg, &fc->o, &x))
		return false;
	fc->families = x.families;
	fc->marker = fc->o.step_marker;
	fc->used = true;
	return true;
}

/* An option of diff's own: @return false when c is not one. */
static bool own_option(int c, const char *arg, struct diff_cli *d)
{
	switch (c) {
	case 'j': cli_threads(arg); d->fc.threads = arg; break;
	case OPT_STEPS: steps_option(arg, d); break;
	case OPT_STRICT: d->strict = true; break;
	default: return false;
	}
	return true;
}

/* Parses the command line into d (--help exits in cliopt_next). */
static bool parse_args(int argc, char **argv, struct diff_cli *d)
{
	memset(d, 0, sizeof *d);
	diffopts_init(&d->d);
	fold_opts_init(&d->fc.o);
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_diff_def, argc, argv, &optarg)) != -1)
		if (!diffopts_option(&cmd_diff_def, c, optarg, &d->d) && !own_option(c, optarg, d))
			fold_option(c, optarg, &d->fc);
	if (argc - optind != 2)
		cli_usage_error("expected two inputs, BEFORE and AFTER (got %d)", argc - optind);
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-"))
		cli_usage_error("only one input can be stdin ('-')");
	diffopts_finish(&d->d);
	return true;
}

/* ---- Calls ---- */

static bool is_dir(const char *p)
{
	struct stat st;
	return strcmp(p, "-") && !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* BEFORE and AFTER folders of many ranks: compared rank by rank (rankdiff.h). */
static void many_ranks(const struct diff_cli *d, const char *bpath, const char *apath)
{
	if (d->d.svg || d->d.html || d->d.negate)
		cli_usage_error("two folders of ranks are compared as a table (text); for one rank's graph run "
				"'gpuflame diff' on its two files");
	if (d->fc.o.weight == FW_CALLS)
		cli_usage_error("--weight calls: summaries hold the gpu, cpu, wall and idle weights");
	struct ranks_diff_opts o = { d->d.o, d->d.force, (size_t)d->d.top, 0 };
	rankdiff_run(bpath, apath, weight_defs[d->fc.o.weight].name, &o, REP_TEXT, d->d.out);
}

/* Reads both sides, then compares and writes (diffopts.h); a trace's
 * per-step fold goes with it (diff_opts.step_side: the noise test); two
 * folders of ranks are compared rank by rank. */
static int cmd_diff(int argc, char **argv)
{
	struct diff_cli d;
	if (!parse_args(argc, argv, &d))
		return GF_EXIT_OK;
	const char *bpath = argv[optind], *apath = argv[optind + 1];
	if (is_dir(bpath) || is_dir(apath)) {
		if (!is_dir(bpath) || !is_dir(apath))
			cli_usage_error("'%s' is a folder and '%s' is not: compare two folders of ranks, or two profiles",
					is_dir(bpath) ? bpath : apath, is_dir(bpath) ? apath : bpath);
		many_ranks(&d, bpath, apath);
		return GF_EXIT_OK;
	}
	struct ftree before, after, steps[2];
	ftree_init(&before, NULL, 0);
	ftree_init(&after, NULL, 0);
	ftree_init(&steps[0], NULL, 0);
	ftree_init(&steps[1], NULL, 0);
	load_side(&before, &steps[0], bpath, d.strict, &d.fc);
	load_side(&after, &steps[1], apath, d.strict, &d.fc);
	for (int c = 0; c < 2; c++)
		d.d.o.step_side[c] = steps[c].n > 1 ? &steps[c] : NULL;
	struct kfamily *kf = d.fc.kf;
	if (kf && kfamily_truncated(kf))
		cli_warn("'%s': %llu kernel names longer than %d bytes were matched against its regexes by their "
			 "first %d bytes", d.fc.families, (unsigned long long)kfamily_truncated(kf), KFAMILY_MATCH_MAX,
			 KFAMILY_MATCH_MAX);
	kfamily_free(kf);
	diffopts_run(&d.d, &before, &after, cli_in_name(bpath), cli_in_name(apath));
	ftree_release(&steps[0]);
	ftree_release(&steps[1]);
	return GF_EXIT_OK;
}

const struct cli_command cmd_diff_def = {
	.name = "diff",
	.fn = cmd_diff,
	.summary = "differential stacks and flame graphs between two profiles",
	.synopsis = "[options] BEFORE AFTER",
	.description = "Aligns two profiles and prints 'stack before after' lines (difffolded.pl's format, pipes "
		       "into flamegraph.pl), renders a differential flame graph, or (--format html) writes one self-contained page. BEFORE and AFTER are folded "
		       "files (plain, gzip or zstd) or PyTorch profiler traces, folded on the fly with the fold "
		       "options below, as 'gpuflame fold' does. Weights are compared per step when both step counts "
		       "are known; profiles of different weight, unit or rank are refused unless --force. Two "
		       "folders of many ranks (summaries, or folded files with their rank= headers) are compared "
		       "rank by rank: which ranks and which stacks changed.\n\n"
		       "  gpuflame diff before.folded after.folded --svg -o diff.svg\n"
		       "  gpuflame diff --top 20 before.json.gz after.json.gz\n"
		       "  gpuflame diff sums-v1.4/ sums-v1.5/",
	.opts = opts,
	.operands = CLI_OPERAND_ANY,
	.doc = "diff.md",
	.exits = "0 ok, 1 bad input, 2 usage error or refused comparison, 3 output not written, 4 internal limit.",
};
