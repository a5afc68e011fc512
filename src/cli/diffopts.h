/*
 * diffopts.h — what `diff` and `store diff` share once their two sides are
 * loaded: the options of the comparison and its outputs (rows declared once:
 * help, man page and completions follow), their parsing, and the run (the
 * headers checked, the library's diff_run, --top, the stacks, SVG or page
 * written all or nothing). Each command loads its sides its own way (files
 * or traces; stored runs and releases) and keeps its own table and --help.
 *
 *   static const struct cli_opt opts[] = { DIFFOPTS_ROWS, ..., { NULL } };
 *   struct diffopts d; diffopts_init(&d);
 *   ... if (diffopts_option(&cmd_diff_def, c, arg, &d)) continue; ...
 *   diffopts_run(&d, &before, &after, "before.folded", "after.folded");
 *
 * Layer: cli.
 */
#ifndef GF_DIFFOPTS_H
#define GF_DIFFOPTS_H

#include "cli/cliopt.h"
#include "stacks/ops/diff.h"

#define DIFFOPT_FIRST (CLIOPT_FIRST_ID + 192)
enum {
	DIFFOPT_SVG = DIFFOPT_FIRST, DIFFOPT_NEGATE, DIFFOPT_TOP, DIFFOPT_TITLE, DIFFOPT_SCALE, DIFFOPT_DECIMALS,
	DIFFOPT_ROUND, DIFFOPT_NONORM, DIFFOPT_FORCE, DIFFOPT_SAMPLED, DIFFOPT_NOSAMPLED, DIFFOPT_ALPHA,
	DIFFOPT_MINSHARE, DIFFOPT_END
};

/* The output formats (--format). */
enum { DIFFOPTS_TEXT = 0, DIFFOPTS_SVG, DIFFOPTS_HTML, DIFFOPTS_NFORMATS };
extern const char *const diffopts_formats[DIFFOPTS_NFORMATS + 1];

#define DIFFOPTS_ROWS \
	/* output */ \
	{ "output", 'o', 'o', "FILE", \
	  "write to FILE (default stdout); a name ending in .svg implies --svg, one ending in .html --format html", \
	  NULL, CLI_OPT_FILE }, \
	{ "format", 'f', 'f', "F", \
	  "text (default: the stacks), svg, or html: one self-contained page with the differential graph, its " \
	  "search, the biggest changes and the noise test", \
	  diffopts_formats, 0 }, \
	{ "svg", 0, DIFFOPT_SVG, NULL, "render an SVG: AFTER's shape, red = grew, blue = shrank", NULL, 0 }, \
	{ "negate", 0, DIFFOPT_NEGATE, NULL, \
	  "BEFORE's shape (widths = before; colours still after - before); in text output the columns are " \
	  "swapped (for flamegraph.pl --negate)", \
	  NULL, 0 }, \
	{ "top", 0, DIFFOPT_TOP, "N", \
	  "print the N biggest changes by total and by self weight (to stdout; the stacks/SVG then need -o)", NULL, \
	  0 }, \
	{ "title", 0, DIFFOPT_TITLE, "TEXT", "SVG title", NULL, 0 }, \
	/* normalisation */ \
	{ "scale", 0, DIFFOPT_SCALE, "MODE", \
	  "auto (default: per step when both step counts are known), steps, total (BEFORE scaled to AFTER's " \
	  "total, difffolded -n), none", \
	  diff_scale_names, 0 }, \
	{ "decimals", 0, DIFFOPT_DECIMALS, "D", "extra decimals kept when dividing (default 3)", NULL, 0 }, \
	{ "round", 0, DIFFOPT_ROUND, "MODE", "largest (default: totals exact), even, floor (difffolded -n)", \
	  norm_round_names, 0 }, \
	/* matching */ \
	{ "no-normalise-names", 0, DIFFOPT_NONORM, NULL, \
	  "match names as they are (no 0x..., ProfilerStep#N... rules)", NULL, 0 }, \
	{ "no-normalize-names", 0, DIFFOPT_NONORM, NULL, "the same as --no-normalise-names", NULL, 0 }, \
	{ "force", 0, DIFFOPT_FORCE, NULL, \
	  "compare profiles whose headers differ (weight, unit, rank, world_size, label.*); the differences are " \
	  "printed", \
	  NULL, 0 }, \
	/* noise */ \
	{ "sampled", 0, DIFFOPT_SAMPLED, NULL, \
	  "treat counts as samples (default: integer counts and no unit= in the headers)", NULL, 0 }, \
	{ "no-sampled", 0, DIFFOPT_NOSAMPLED, NULL, "never treat counts as samples", NULL, 0 }, \
	{ "alpha", 0, DIFFOPT_ALPHA, "A", \
	  "significance level of the noise tests: the two-proportion test of samples, the step-to-step " \
	  "test's false discovery rate (default 0.01)", \
	  NULL, 0 }, \
	{ "min-share", 0, DIFFOPT_MINSHARE, "S", "frames under this share (default 0.01 = 1%) are noise", NULL, 0 }

/* What the rows say. */
struct diffopts {
	struct diff_opts o;
	const char *out, *title;
	bool svg, html, negate, force;
	long long top;
};

void diffopts_init(struct diffopts *d);
/* One option of the rows for command c: @return false when id is not one. */
bool diffopts_option(const struct cli_command *c, int id, const char *arg, struct diffopts *d);
/* After the options: the output name's suffix implies the format; --negate
 * with the page is a usage error. */
void diffopts_finish(struct diffopts *d);
/*
 * Compares the loaded sides (named as the page and the messages name them):
 * unlike headers refused without --force, then diff_run, --top to stdout,
 * the stacks, SVG or page to -o or stdout, all or nothing. Dies (cli_die)
 * on an error. Releases both trees once compared (the result holds what
 * the outputs need), so the peak is one tree pair or the result.
 */
void diffopts_run(const struct diffopts *d, struct ftree *before, struct ftree *after, const char *bname,
		  const char *aname);

#endif
