/*
 * cmd_merge.c — gpuflame merge: sum folded files of the same kind.
 *
 * USAGE: gpuflame merge [options] FILE... [-o OUT]
 *
 * Example: three capture windows of rank 0, GPU-weighted:
 *   gpuflame merge win1.folded win2.folded win3.folded -o rank0.folded
 * Input: folded files ("a;b;c 12"), with or without a "# gpuflame:" header,
 * plain, .gz or .zst, or stdin ("-", once) through the input layer; a trace
 * gets a one-line hint to fold it first.
 * Output: one folded file, stacks sorted by bytes, equal stacks summed
 * exactly; the header sums steps= and counts the sources. Files whose rank,
 * weight or unit differ are refused (exit 2) unless --allow-ranks,
 * --allow-weights, --allow-units. Sorted inputs (LC_ALL=C sort) are merged
 * streaming in bounded memory; unsorted regular files (compressed ones too:
 * they are inflated again) are merged in memory (a warning says so). See
 * docs/diff.md.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "stacks/ops/merge.h"
#include "base/ofile.h"
#include "input/input.h"
#include "stacks/folded_out.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const struct cli_opt opts[] = {
	{ "output", 'o', 'o', "FILE", "write to FILE (default stdout)", NULL, CLI_OPT_FILE },
	{ "allow-ranks", 0, 'R', NULL,
	  "merge files of different ranks (a sum of ranks hides the straggler: compare them with report instead)",
	  NULL, 0 },
	{ "allow-weights", 0, 'W', NULL, "merge files of different weights (gpu, cpu, wall...)", NULL, 0 },
	{ "allow-units", 0, 'U', NULL, "merge files of different units", NULL, 0 },
	{ "sorted", 0, 'S', NULL, "unsorted input is an error (no in-memory fallback)", NULL, 0 },
	{ "strict", 0, 'T', NULL, "an invalid line is an error (default: skipped, counted)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};


/* One descriptor per input: raises the soft limit when there are many, or
 * dies (exit 2) when it cannot be raised far enough. */
static void want_files(size_t n)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && n + 16 > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > n + 16 ? n + 16 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && n + 8 > rl.rlim_cur)
			cli_die(GF_EXIT_USAGE, "%zu inputs but only %llu open files allowed (ulimit -n); "
				"merge them in groups", n, (unsigned long long)rl.rlim_cur);
	}
}

/* merge_sink.restart for the ofile temporary: empties it for another pass. */
static bool restart_out(void *ctx)
{
	FILE *fp = ctx;
	return !fflush(fp) && !fseeko(fp, 0, SEEK_SET) && !ftruncate(fileno(fp), 0);
}

/* The warnings of a merge that worked. */
static void warn_stats(const struct merge_stats *st)
{
	cli_warn_invalid(st->invalid, st->first_invalid);
	if (st->fell_back)
		cli_warn("%s: inputs are not sorted, merged in memory; sort them (LC_ALL=C sort) for "
			 "bounded memory", st->unsorted);
	if (st->late_meta)
		cli_warn("ignored %llu '# gpuflame:' header line%s found after the first stack",
			 (unsigned long long)st->late_meta, st->late_meta == 1 ? "" : "s");
}

struct merge_job {
	char **paths;
	size_t n;
	const struct merge_opts *o;
	bool terminal;
};

/* The merge into of (cli_write_with): the inputs opened, merged, closed. */
static int merge_write(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct merge_job *j = arg;
	static struct input **ins; /* static: still reachable when a message exits */
	ins = gf_xcalloc(j->n, sizeof *ins);
	for (size_t i = 0; i < j->n; i++)
		ins[i] = cli_open_folded(j->paths[i], 1); /* inflated on this thread: there may be many */
	/* stdout, a FIFO or a device is written once, never rewound: the
	 * library checks the order first (no staging copy anywhere) */
	struct merge_sink sink = { of->fp, of->tmp ? restart_out : NULL, of->fp, j->terminal };
	struct merge_stats st;
	int rc = merge_inputs(ins, j->n, &sink, j->o, &st, err);
	if (rc == GF_EOUTPUT)
		sbuf_reset(err); /* a write error: cli_write_with names the file and the reason */
	if (!rc)
		warn_stats(&st);
	for (size_t i = 0; i < j->n; i++)
		cli_close_input(ins[i]);
	free(ins);
	ins = NULL;
	return rc;
}

static int cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	memset(&o, 0, sizeof o);
	const char *out = NULL;
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_merge_def, argc, argv, &optarg)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'R': o.allow_ranks = true; break;
		case 'W': o.allow_weights = true; break;
		case 'U': o.allow_units = true; break;
		case 'S': o.no_fallback = true; break;
		case 'T': o.strict = true; break;
		}
	}
	size_t n;
	char **paths = cli_inputs(argc, argv, optind, &n); /* stdin when none, '-' at most once */
	want_files(n);
	struct merge_job j = { paths, n, &o, cli_out_terminal(out) };
	cli_write_with(out, merge_write, &j); /* the output first: a failure removes it */
	return GF_EXIT_OK;
}

const struct cli_command cmd_merge_def = {
	.name = "merge",
	.fn = cmd_merge,
	.summary = "sum folded files of the same kind",
	.synopsis = "[options] FILE... [-o OUT]",
	.description = "Sums folded files of the same kind (capture windows of one rank, runs of one benchmark): "
		       "equal stacks summed exactly, stacks sorted by bytes, the header's steps= summed. Files "
		       "whose rank, weight or unit differ are refused. Sorted inputs ('LC_ALL=C sort') merge "
		       "streaming in bounded memory. With no FILE (or '-') reads stdin.",
	.opts = opts,
	.operands = CLI_OPERAND_FOLDED,
	.doc = "diff.md",
	.exits = "0 ok, 1 bad input (or unsorted with --sorted), 2 usage error or refused merge, 3 output not "
		 "written, 4 internal limit.",
	.output = "folded stacks",
};
