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
 * Layout (git builtin style): options (parse_args), calls (compare: the
 * library's diff_run; write_output: stacks/render/diff_out.h), exit. Input
 * handling is one block (looks_like_trace, open_folded, load_side) and the
 * step-range conversion one function (steps_range), so both can be swapped
 * for the input layer and the model's step selection.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"
#include "cli/values.h"

#include "stacks/ops/diff.h"
#include "base/num.h"
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"
#include "base/ofile.h"
#include "stacks/folded.h"
#include "input/input.h"
#include "stacks/folded_out.h"
#include "stacks/render/diff_html.h"
#include "stacks/render/diff_out.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_SVG = CLIOPT_FIRST_ID, OPT_NEGATE, OPT_TOP, OPT_TITLE, OPT_SCALE, OPT_STEPS, OPT_DECIMALS, OPT_ROUND,
	OPT_NONORM, OPT_FORCE, OPT_SAMPLED, OPT_NOSAMPLED, OPT_ALPHA, OPT_MINSHARE, OPT_STRICT,
	OPT_MAXDEPTH, OPT_PERSTEP, OPT_KNAMES, OPT_FAMILIES, OPT_MARKER, OPT_SKIP, OPT_UNIT, OPT_LABEL,
	OPT_ALLTH, OPT_NOTHF,
};
enum { FMT_TEXT = 0, FMT_SVG, FMT_HTML };

static const char *const diff_formats[] = { [FMT_TEXT] = "text", [FMT_SVG] = "svg", [FMT_HTML] = "html", NULL };
_Static_assert(GF_ARRAY_LEN(diff_formats) == FMT_HTML + 2, "a name per format");

static const struct cli_opt opts[] = {
	/* output */
	{ "output", 'o', 'o', "FILE",
	  "write to FILE (default stdout); a name ending in .svg implies --svg, one ending in .html --format html",
	  NULL, CLI_OPT_FILE },
	{ "format", 'f', 'f', "F",
	  "text (default: the stacks), svg, or html: one self-contained page with the differential graph, its "
	  "search, the biggest changes and the noise test",
	  diff_formats, 0 },
	{ "svg", 0, OPT_SVG, NULL, "render an SVG: AFTER's shape, red = grew, blue = shrank", NULL, 0 },
	{ "negate", 0, OPT_NEGATE, NULL,
	  "BEFORE's shape (widths = before; colours still after - before); in text output the columns are "
	  "swapped (for flamegraph.pl --negate)",
	  NULL, 0 },
	{ "top", 0, OPT_TOP, "N",
	  "print the N biggest changes by total and by self weight (to stdout; the stacks/SVG then need -o)", NULL,
	  0 },
	{ "title", 0, OPT_TITLE, "TEXT", "SVG title", NULL, 0 },
	/* normalisation */
	{ "scale", 0, OPT_SCALE, "MODE",
	  "auto (default: per step when both step counts are known), steps, total (BEFORE scaled to AFTER's "
	  "total, difffolded -n), none",
	  diff_scale_names, 0 },
	{ "steps", 0, OPT_STEPS, "N,M|A..B",
	  "N,M: the step counts of BEFORE and AFTER (plain folded files); A..B: fold only steps A to B of traces",
	  NULL, 0 },
	{ "decimals", 0, OPT_DECIMALS, "D", "extra decimals kept when dividing (default 3)", NULL, 0 },
	{ "round", 0, OPT_ROUND, "MODE", "largest (default: totals exact), even, floor (difffolded -n)", norm_round_names, 0 },
	/* matching */
	{ "no-normalise-names", 0, OPT_NONORM, NULL,
	  "match names as they are (no 0x..., ProfilerStep#N... rules)", NULL, 0 },
	{ "no-normalize-names", 0, OPT_NONORM, NULL, "the same as --no-normalise-names", NULL, 0 },
	{ "force", 0, OPT_FORCE, NULL,
	  "compare profiles whose headers differ (weight, unit, rank, world_size, label.*); the differences are "
	  "printed",
	  NULL, 0 },
	/* noise */
	{ "sampled", 0, OPT_SAMPLED, NULL,
	  "treat counts as samples (default: integer counts and no unit= in the headers)", NULL, 0 },
	{ "no-sampled", 0, OPT_NOSAMPLED, NULL, "never treat counts as samples", NULL, 0 },
	{ "alpha", 0, OPT_ALPHA, "A", "significance level of the two-proportion test (default 0.01)", NULL, 0 },
	{ "min-share", 0, OPT_MINSHARE, "S", "frames under this share (default 0.01 = 1%) are noise", NULL, 0 },
	{ "strict", 0, OPT_STRICT, NULL, "an invalid input line is an error (default: skipped, counted)", NULL, 0 },
	/* traces: folded as 'gpuflame fold' does */
	{ "weight", 'w', 'w', "W", "traces: gpu (default), cpu, wall, idle, calls", cli_values_trace_weights, 0 },
	{ "stack", 's', 's', "LEVELS", "traces: comma list of step, annotation, python, module, op, runtime",
	  fold_level_names, CLI_OPT_LIST },
	{ "max-depth", 0, OPT_MAXDEPTH, "N", "traces: keep the innermost N host frames", NULL, 0 },
	{ "per-step", 0, OPT_PERSTEP, NULL, "traces: one ProfilerStep#N tower per step", NULL, 0 },
	{ "kernel-names", 0, OPT_KNAMES, "K", "traces: family (default) or full", fold_kernel_names, 0 },
	{ "families", 0, OPT_FAMILIES, "FILE", "traces: kernel family rules (docs/fold.md)", NULL, CLI_OPT_FILE },
	{ "step-marker", 0, OPT_MARKER, "NAME", "traces: step ranges are NAME or NAME#<n>", NULL, 0 },
	{ "skip", 0, OPT_SKIP, "N", "traces: drop the first N selected steps", NULL, 0 },
	{ "unit", 0, OPT_UNIT, "U", "traces: ns (default, as fold), us or ms", cli_values_fold_units, 0 },
	{ "label", 0, OPT_LABEL, "KEY=VALUE", "traces: record a label in the header (repeatable)", NULL,
	  CLI_OPT_REPEAT },
	{ "all-threads", 0, OPT_ALLTH, NULL, "traces, cpu/wall: fold every host thread over the steps", NULL, 0 },
	{ "no-thread-frames", 0, OPT_NOTHF, NULL,
	  "traces, cpu/wall: no 'thread (TID): NAME' root frame (thread ids differ between runs)", NULL, 0 },
	{ "threads", 'j', 'j', "N", "cores for reading a trace: 1 or 2 (default: 2 when there are)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

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
	struct diff_opts o;
	const char *out, *title;
	const char *paths[2];   /* BEFORE, AFTER */
	bool svg, html, negate, force, strict;
	long long top;
	struct fold_cli fc;
};

/* ---- Inputs: BEFORE/AFTER through the one input layer (input/input.h):
 * plain, gzip, zstd or stdin, trace or folded decided by the decompressed
 * first bytes (input_sniff; cli_input_is_trace: what is not plainly folded
 * stacks and opens like JSON or is named .json goes to the trace reader,
 * which names its fault). */

/* Folds a trace with the fold options given on the diff command line. */
static void fold_profile(struct ftree *t, struct input *in, struct fold_cli *fc)
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
	trace_release(&tr);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(path), err.buf);
	if (t->total[0] == 0)
		cli_die(GF_EXIT_INPUT, "'%s': the %s fold has no weight", cli_in_name(path),
			weight_defs[o.weight].name);
	sbuf_release(&err);
}

void (*cmd_diff_loader)(struct ftree *t, const char *spec);

/* Reads one side (a folded file, or a trace folded on the fly) into t. */
static void load_side(struct ftree *t, const char *path, bool strict, struct fold_cli *fc)
{
	if (cmd_diff_loader) { /* store diff: the sides come from the store */
		if (fc->used) {
			cli_warn("the fold options do not apply to stored runs (folded when they were added)");
			fc->used = false; /* said once */
		}
		cmd_diff_loader(t, path);
		return;
	}
	struct input *in = cli_open_input(path, cli_threads(fc->threads));
	if (cli_input_is_trace(in)) {
		ftree_release(t);
		fold_profile(t, in, fc);
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
	d->o.steps[0] = cli_int("--steps", a, 1, INT64_MAX);
	d->o.steps[1] = cli_int("--steps", comma + 1, 1, INT64_MAX);
	free(a);
}

/* A fold option (for traces): @return false when c is not one. */
static bool fold_option(int c, const char *arg, struct fold_cli *fc)
{
	struct sbuf err = SBUF_INIT;
	switch (c) {
	case 'w': fc->o.weight = cli_pick(&cmd_diff_def, 'w', arg); break;
	case 's':
		if (fold_parse_levels(arg, &fc->o.levels, &err))
			cli_usage_error("%s", err.buf);
		sbuf_release(&err);
		break;
	case OPT_MAXDEPTH: fc->o.max_depth = (unsigned)cli_int("--max-depth", arg, 1, 100000); break;
	case OPT_PERSTEP: fc->o.per_step = true; break;
	case OPT_ALLTH: fc->o.all_threads = true; break;
	case OPT_NOTHF: fc->o.no_thread_frames = true; break;
	case OPT_KNAMES: fc->o.kernel_full = cli_choice("--kernel-names", arg, fold_kernel_names) == 1; break;
	case OPT_FAMILIES: fc->families = arg; break;
	case OPT_MARKER:
		if (!*arg)
			cli_usage_error("--step-marker needs a non-empty name");
		fc->marker = arg;
		break;
	case OPT_SKIP: fc->o.steps.skip = (uint64_t)cli_int("--skip", arg, 0, 1000000000); break;
	case OPT_UNIT: fc->o.unit = cli_pick(&cmd_diff_def, OPT_UNIT, arg); break;
	case OPT_LABEL: {
		const char *eq = strchr(arg, '=');
		if (!eq || eq == arg)
			cli_usage_error("invalid argument '%s' for '--label'; expected KEY=VALUE", arg);
		if (fc->o.nlabels == FOLD_MAX_LABELS)
			cli_usage_error("at most %d --label options", FOLD_MAX_LABELS);
		fc->o.labels[fc->o.nlabels++] = arg;
		break;
	}
	default: return false;
	}
	fc->used = true;
	return true;
}

/* A diff option: @return false when c is not one. */
static bool diff_option(int c, const char *arg, struct diff_cli *d)
{
	switch (c) {
	case 'o': d->out = arg; break;
	case 'f': {
		int f = cli_choice("--format", arg, diff_formats);
		d->svg = f == FMT_SVG;
		d->html = f == FMT_HTML;
		break;
	}
	case 'j': cli_threads(arg); d->fc.threads = arg; break;
	case OPT_SVG: d->svg = true; break;
	case OPT_NEGATE: d->negate = true; break;
	case OPT_TOP: d->top = cli_int("--top", arg, 1, 1000000); break;
	case OPT_TITLE: d->title = arg; break;
	case OPT_SCALE: d->o.scale = (enum diff_scale)cli_choice("--scale", arg, diff_scale_names); break;
	case OPT_STEPS: steps_option(arg, d); break;
	case OPT_DECIMALS: d->o.decimals = (unsigned)cli_int("--decimals", arg, 0, 9); break;
	case OPT_ROUND: d->o.round = (enum norm_round)cli_choice("--round", arg, norm_round_names); break;
	case OPT_NONORM: d->o.normalise_names = false; break;
	case OPT_FORCE: d->force = true; break;
	case OPT_SAMPLED: d->o.sampled = 1; break;
	case OPT_NOSAMPLED: d->o.sampled = 0; break;
	case OPT_ALPHA:
		d->o.alpha = cli_double("--alpha", arg);
		if (!(d->o.alpha > 0 && d->o.alpha < 1))
			cli_usage_error("--alpha must be between 0 and 1, got '%s'", arg);
		break;
	case OPT_MINSHARE:
		d->o.min_share = cli_double("--min-share", arg);
		if (!(d->o.min_share >= 0 && d->o.min_share < 1))
			cli_usage_error("--min-share must be in [0, 1), got '%s'", arg);
		break;
	case OPT_STRICT: d->strict = true; break;
	default: return false;
	}
	return true;
}

/* Parses the command line into d (--help exits in cliopt_next). */
static bool parse_args(int argc, char **argv, struct diff_cli *d)
{
	memset(d, 0, sizeof *d);
	diff_opts_init(&d->o);
	fold_opts_init(&d->fc.o);
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_diff_def, argc, argv, &optarg)) != -1) {
		if (!diff_option(c, optarg, d))
			fold_option(c, optarg, &d->fc);
	}
	if (argc - optind != 2)
		cli_usage_error("expected two inputs, BEFORE and AFTER (got %d)", argc - optind);
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-"))
		cli_usage_error("only one input can be stdin ('-')");
	if (d->out && ends_with(d->out, ".svg") && !d->html)
		d->svg = true;
	if (d->out && ends_with(d->out, ".html") && !d->svg)
		d->html = true;
	if (d->html && d->negate)
		cli_usage_error("--negate is not supported with --format html (the page is AFTER's shape)");
	return true;
}

/* ---- Calls ---- */

/* Reads both sides, checks they are alike and builds the result. */
static void compare(struct diff_result *r, struct diff_cli *d, const char *bpath, const char *apath)
{
	struct ftree before, after;
	ftree_init(&before, NULL, 0);
	ftree_init(&after, NULL, 0);
	load_side(&before, bpath, d->strict, &d->fc);
	load_side(&after, apath, d->strict, &d->fc);
	struct kfamily *kf = d->fc.kf;
	if (kf && kfamily_truncated(kf))
		cli_warn("'%s': %llu kernel names longer than %d bytes were matched against its regexes by their "
			 "first %d bytes", d->fc.families, (unsigned long long)kfamily_truncated(kf), KFAMILY_MATCH_MAX,
			 KFAMILY_MATCH_MAX);
	kfamily_free(kf);
	d->fc.kf = NULL;
	struct sbuf diffs = SBUF_INIT, err = SBUF_INIT;
	if (diff_check_meta(&before.meta, &after.meta, &diffs)) {
		if (!d->force)
			cli_die(GF_EXIT_USAGE, "refusing to compare unlike profiles: %s (use --force to compare anyway)",
				diffs.buf);
		cli_warn("comparing unlike profiles (--force): %s", diffs.buf);
	}
	int rc = diff_run(r, &before, &after, &d->o, &err);
	ftree_release(&before);
	ftree_release(&after);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (r->note[0])
		cli_warn("%s", r->note);
	sbuf_release(&diffs);
	sbuf_release(&err);
}

/* The page into fp. @return GF_OK or GF_EOUTPUT (errno set). */
static int write_html(struct diff_result *r, const struct diff_cli *d, FILE *fp)
{
	struct diff_html_opts ho = { 0 };
	ho.before = cli_in_name(d->paths[0]);
	ho.after = cli_in_name(d->paths[1]);
	ho.title = d->title;
	ho.alpha = d->o.alpha;
	ho.min_share = d->o.min_share;
	struct sbuf page = SBUF_INIT;
	diff_html_write(r, &ho, &page);
	int rc = fwrite(page.buf, 1, page.len, fp) == page.len ? GF_OK : GF_EOUTPUT;
	sbuf_release(&page);
	return rc;
}

/* The stacks (3 columns), the SVG or the page, to -o or stdout, all or nothing. */
static void write_output(struct diff_result *r, const struct diff_cli *d)
{
	struct sbuf err = SBUF_INIT;
	folded_out_set_terminal((!d->out || !strcmp(d->out, "-")) && isatty(STDOUT_FILENO)); /* escape names for a terminal */
	struct ofile of;
	if (ofile_open(&of, d->out, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	int rc = GF_OK;
	if (d->html) {
		rc = write_html(r, d, of.fp);
	} else if (d->svg) {
		struct diff_out_svg_opts so;
		diff_out_svg_opts_init(&so);
		so.negate = d->negate;
		so.title = d->title;
		so.alpha = d->o.alpha;
		so.min_share = d->o.min_share;
		rc = diff_out_svg(r, &so, of.fp, &err);
	} else if (diff_out_text(of.fp, r, d->negate)) {
		rc = GF_EOUTPUT;
	}
	if (rc) {
		if (rc == GF_EOUTPUT)
			ofile_write_error(&of, errno, &err);
		ofile_abort(&of); /* no partial output */
		cli_die(gf_err_exit(rc), "%s", err.buf);
	}
	if (ofile_commit(&of, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	sbuf_release(&err);
}

static int cmd_diff(int argc, char **argv)
{
	struct diff_cli d;
	if (!parse_args(argc, argv, &d))
		return GF_EXIT_OK;
	struct diff_result r;
	d.paths[0] = argv[optind];
	d.paths[1] = argv[optind + 1];
	compare(&r, &d, argv[optind], argv[optind + 1]);
	if (d.top) {
		if (diff_out_top(stdout, &r, (size_t)d.top) || fflush(stdout) || ferror(stdout))
			cli_die(GF_EXIT_OUTPUT, "write failure on standard output: %s", strerror(errno));
	}
	if (!d.top || d.out) /* with --top, the stacks/SVG only to -o */
		write_output(&r, &d);
	diff_result_release(&r);
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
		       "are known; profiles of different weight, unit or rank are refused unless --force.\n\n"
		       "  gpuflame diff before.folded after.folded --svg -o diff.svg\n"
		       "  gpuflame diff --top 20 before.json.gz after.json.gz",
	.opts = opts,
	.operands = CLI_OPERAND_ANY,
	.doc = "diff.md",
	.exits = "0 ok, 1 bad input, 2 usage error or refused comparison, 3 output not written, 4 internal limit.",
};
