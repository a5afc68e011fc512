/*
 * cmd_top.c — `gpuflame top`: the call-count table to keep beside a flame
 * graph. Per frame name: self weight, total weight (a recursive frame counted
 * once per stack), their shares of the whole, and the number of distinct
 * stacks containing the frame.
 *
 *   gpuflame top [--format text|tsv|md|json] [--sort self|total|name]
 *                [--limit N] [-o FILE] [FILE...]
 *
 * Input: folded stacks (files merged, stdin when none; plain, .gz or .zst
 * through the input layer; a trace gets a one-line hint to fold it). Example:
 *   $ printf 'main;mm 30\nmain;mm;gemm 70\n' | gpuflame top
 *   total 100 samples in 2 stacks
 *     SELF  SELF%  TOTAL  TOTAL%  STACKS  NAME
 *       70  70.00     70   70.00       1  gemm
 *       30  30.00    100  100.00       2  mm
 *        0   0.00    100  100.00       2  main
 * Weights are exact (the input's decimals are kept). The table's writers
 * are stacks/render/top_out.h's. See docs/svg.md.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "base/ofile.h"
#include "stacks/folded.h"
#include "stacks/render/top_out.h"

#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>

struct table_job {
	const struct top_view *v;
	int fmt;
};

static int write_table(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct table_job *j = arg;
	top_out_write(j->v, j->fmt, of->fp);
	return GF_OK;
}

static const struct cli_opt opts[] = {
	{ "format", 0, 'f', "FMT", "text (default, fits 100 columns), tsv, md, json", top_out_formats, 0 },
	{ "sort", 0, 's', "KEY", "self (default), total, name", top_sort_names, 0 },
	{ "limit", 0, 'n', "N", "print the first N rows only (0 = all, default)", NULL, 0 },
	{ "countname", 0, 'c', "TEXT",
	  "unit shown in the text header (default: the input's '# gpuflame: unit=' metadata, else \"samples\")",
	  NULL, 0 },
	{ "reverse", 0, 'r', NULL, "reverse each stack before counting", NULL, 0 },
	{ "strict", 0, 'S', NULL, "invalid input lines are fatal", NULL, 0 },
	{ "allow-ranks", 0, 'R', NULL,
	  "count files of different ranks together (refused by default, as merge does)", NULL, 0 },
	{ "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};


static int cmd_top(int argc, char **argv)
{
	int fmt = 0, sort = 0;
	long long limit = 0;
	const char *outpath = NULL, *countname = NULL;
	struct folded_opts fo = {0};
	bool allow_ranks = false;
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_top_def, argc, argv, &optarg)) != -1) {
		switch (c) {
		case 'f': fmt = cli_choice("--format", optarg, top_out_formats); break;
		case 's': sort = cli_choice("--sort", optarg, top_sort_names); break;
		case 'n': limit = cli_int("--limit", optarg, 0, INT64_MAX); break;
		case 'c': countname = optarg; break;
		case 'r': fo.reverse = true; break;
		case 'S': fo.strict = true; break;
		case 'R': allow_ranks = true; break;
		case 'o': outpath = optarg; break;
		}
	}
	cli_guard_ranks(!allow_ranks);
	struct ftree t;
	ftree_init(&t, NULL, 0);
	size_t nin;
	char **ins = cli_inputs(argc, argv, optind, &nin); /* '-' at most once */
	cli_read_folded(&t, (int)nin, ins, &fo);
	struct top_view v = { .t = &t };
	v.all = (t.ncols == 2 ? t.total2 : t.total)[0];
	if (v.all <= 0)
		cli_die(GF_EXIT_INPUT, "the input's total weight is 0: nothing to rank");
	v.countname = countname ? countname : ftree_meta_get(&t.meta, "unit");
	if (!v.countname)
		v.countname = "samples";
	/* the lookup indexes are not needed any more: free them before the rows */
	ftree_compact(&t);
	pool_compact(t.names);
	struct top_row *rows;
	top_compute(&t, &rows, &v.n);
	top_sort(rows, v.n, &t, (enum top_sort)sort);
	if (limit && (size_t)limit < v.n)
		v.n = (size_t)limit;
	v.rows = rows;
	v.nstacks = top_stacks(&t);
	struct table_job j = { &v, fmt };
	cli_write_with(outpath, write_table, &j);
	free(rows);
	ftree_release(&t);
	return GF_EXIT_OK;
}

const struct cli_command cmd_top_def = {
	.name = "top",
	.fn = cmd_top,
	.summary = "table of frames by self and total weight, with stack counts",
	.synopsis = "[options] [FILE...]",
	.description = "Table of frames from folded stacks: self weight, total weight (a recursive frame counted "
		       "once per stack), shares of the whole, and the number of distinct stacks containing the "
		       "frame. Files merge (files of different ranks only with --allow-ranks); stdin when none.",
	.opts = opts,
	.operands = CLI_OPERAND_FOLDED,
	.doc = "svg.md",
	.exits = "0 ok, 1 bad or empty input, 2 usage error or mixed ranks, 3 output not written, 4 internal "
		 "limit.",
};
