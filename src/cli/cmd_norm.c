/*
 * cmd_norm.c — gpuflame norm: normalise a folded file to per-step weights.
 *
 * USAGE: gpuflame norm [options] [FILE] [--steps N] [-o OUT]
 *
 * Example: a plain py-spy capture of 5 decode steps:
 *   gpuflame norm --steps 5 capture.folded > per-step.folded
 * Input: folded stacks (plain, .gz, .zst or stdin through the input layer;
 * a trace gets a one-line hint to fold it first); the step count comes from --steps or the header's
 * steps=. Output: the same stacks with every weight divided by N exactly
 * (integers in, decimals out: "a;b 12" / 5 -> "a;b 2.4"), sorted by stack,
 * header steps=1; normalised=per-step; steps.raw=N. The total is exact:
 * largest-remainder rounding (docs/diff.md). Exit: 0 ok, 1 bad input,
 * 2 usage (no step count, already normalised), 3 output not written, 4 a
 * limit (GPUFLAME_MAX_TOKEN, GPUFLAME_MAX_INPUT) or out of memory. Written to
 * a terminal, names are escaped (cli_out_terminal).
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "stacks/ops/merge.h"
#include "stacks/ops/norm.h"
#include "base/num.h"
#include "stacks/folded.h"
#include "base/escape.h"
#include "stacks/folded_out.h"
#include "input/input.h"

#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const struct cli_opt opts[] = {
	{ "steps", 0, 's', "N", "the step count (default: the header's steps=)", NULL, 0 },
	{ "decimals", 0, 'd', "D", "extra decimals kept (default 3; the scale stays <= 9)", NULL, 0 },
	{ "round", 0, 'r', "MODE", "largest (default: the total is exact), even, floor", norm_round_names, 0 },
	{ "output", 'o', 'o', "FILE", "write to FILE (default stdout)", NULL, CLI_OPT_FILE },
	{ "strict", 0, 'T', NULL, "an invalid line is an error (default: skipped, counted)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};


/* The step count: --steps, else the header's steps=; dies (exit 2) when
 * there is none or the input is normalised already. */
static int64_t step_count(const struct ftree *t, const char *name, int64_t steps)
{
	/* header values are untrusted: escaped in messages (a terminal) */
	struct sbuf shown = SBUF_INIT;
	const char *nm = ftree_meta_get(&t->meta, "normalised");
	if (nm) {
		esc_term(&shown, nm, strlen(nm));
		cli_die(GF_EXIT_USAGE, "'%s' is already normalised (normalised=%s in its header)", name, shown.buf);
	}
	if (!steps) {
		const char *s = ftree_meta_get(&t->meta, "steps");
		if (!s)
			cli_die(GF_EXIT_USAGE, "'%s' has no steps= header; give --steps N", name);
		if (num_parse(s, strlen(s), 0, 0, &steps) != NUM_OK || steps <= 0) {
			esc_term(&shown, s, strlen(s));
			cli_die(GF_EXIT_INPUT, "'%s': invalid steps=%s in the header", name, shown.buf);
		}
	}
	sbuf_release(&shown);
	return steps;
}

/* Divides every weight by steps (exactly, see norm.h) and sets the header. */
static void normalise(struct ftree *t, const char *name, int64_t steps, unsigned decimals,
		      enum norm_round round)
{
	struct sbuf err = SBUF_INIT;
	int rc = GF_OK;
	if (steps > 1) {
		if (!(rc = norm_add_decimals(t, decimals, &err)))
			rc = norm_scale_col(t, 0, 1, steps, round, &err);
		if (!rc && t->ncols == 2)
			rc = norm_scale_col(t, 1, 1, steps, round, &err);
	}
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)steps);
	ftree_meta_set(&t->meta, "steps", "1");
	ftree_meta_set(&t->meta, "steps.raw", buf);
	ftree_meta_set(&t->meta, "normalised", "per-step");
	sbuf_release(&err);
}

static int cmd_norm(int argc, char **argv)
{
	int64_t steps = 0;
	unsigned decimals = 3;
	enum norm_round round = NORM_ROUND_LARGEST;
	const char *out = NULL;
	struct folded_opts fo = { .strict = false, .reverse = false };
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_norm_def, argc, argv, &optarg)) != -1) {
		switch (c) {
		case 's': steps = cli_int("--steps", optarg, 1, INT64_MAX); break;
		case 'd': decimals = (unsigned)cli_int("--decimals", optarg, 0, 9); break;
		case 'r': round = (enum norm_round)cli_choice("--round", optarg, norm_round_names); break;
		case 'o': out = optarg; break;
		case 'T': fo.strict = true; break;
		}
	}
	if (argc - optind > 1)
		cli_usage_error("expected at most one input file (got %d)", argc - optind);
	size_t n;
	char **paths = cli_inputs(argc, argv, optind, &n); /* stdin when none */
	struct input *in = cli_open_folded(paths[0], 0);
	const char *name = cli_in_name(paths[0]);
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	int rc = folded_read_in(&t, in, &fo, &st, &err);
	if (rc) /* exit 1 bad input or read error, 4 a limit or ENOMEM */
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_close_input(in);
	cli_folded_warn(&st, name);
	normalise(&t, name, step_count(&t, name, steps), decimals, round);
	/* names are untrusted: a terminal sees them escaped, a file or pipe gets the bytes */
	cli_write_tree(out, merge_write_sorted, &t);
	ftree_release(&t);
	sbuf_release(&err);
	return GF_EXIT_OK;
}

const struct cli_command cmd_norm_def = {
	.name = "norm",
	.fn = cmd_norm,
	.summary = "normalise a folded file to per-step weights, exactly",
	.synopsis = "[options] [FILE] [-o OUT]",
	.description = "Divides every weight of a folded file by its number of profiled steps, exactly "
		       "(integers in, decimals out; largest-remainder rounding keeps the total). The step count "
		       "comes from --steps or the header's steps=. '-' or no FILE reads stdin.\n\n"
		       "  gpuflame norm --steps 5 capture.folded > per-step.folded",
	.opts = opts,
	.operands = CLI_OPERAND_FOLDED,
	.doc = "diff.md",
	.exits = "0 ok, 1 bad input, 2 usage error, 3 output not written, 4 a limit (GPUFLAME_MAX_TOKEN, "
		 "GPUFLAME_MAX_INPUT) or out of memory.",
	.output = "folded stacks",
};
