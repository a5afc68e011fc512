/*
 * cmd_summarise.c — gpuflame summarise: one rank's trace reduced to its
 * summary (ranks/summary.h), for `gpuflame report --from-summaries`.
 *
 * USAGE: gpuflame summarise [options] TRACE [-o RANK.summary.json.zst]
 *
 *   gpuflame summarise rank3.json.gz -o out/rank3.summary.json.zst
 *   gpuflame summarise --skip 2 --run "$SLURM_ARRAY_JOB_ID" "$TRACE" -o "$OUT"
 *
 * One read of the trace gives the small versioned document (docs/scale.md):
 * rank, world, process groups, per-step busy/idle by cause, the collectives
 * per group, the top kernels, the report, and the page's four flame graphs
 * pruned as the page prunes them. Written all-or-nothing (a private
 * temporary file renamed), compressed by the name: .zst (zstd), .gz (gzip),
 * else plain JSON; stdout without -o. Exit: 0 ok, 1 bad input, 2 usage
 * (incl. an empty step selection), 3 output not written, 4 internal.
 */
#include "cli/cli.h"
#include "cli/rankrun.h"
#include "cli/tropts.h"

#include "base/ofile.h"
#include "base/ozip.h"

#include <errno.h>
#include <string.h>

static const struct cli_opt opts[] = {
	TROPTS_COMMON,
	TROPTS_THREADS,
	{ "unprofiled-step-ms", 0, TRO_UNPROF, "X", "your step time without the profiler (the report's overhead line)",
	  NULL, 0 },
	{ "expect-ms", 0, TRO_EXPECT, "X", "your speed-of-light step estimate (the report's distance line)", NULL, 0 },
	{ "run", 0, TRO_RUN, "ID",
	  "the run the rank belongs to (a Slurm job id): summaries of different runs are never combined",
	  NULL, 0 },
	{ "rank", 0, TRO_RANK, "N", "the trace's rank, when its distributedInfo has none (or says otherwise)", NULL,
	  0 },
	{ "world-size", 0, TRO_WORLD, "N", "the run's world size, when the trace's distributedInfo has none", NULL,
	  0 },
	{ "no-flames", 0, TRO_NOFLAMES, NULL,
	  "leave the page's four flame graphs out (a smaller summary; report --format html then has none)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

struct out {
	const struct sbuf *json;
	const char *path;
};

/* The document through the compressor the output's name asks for. */
static int write_summary(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct out *o = arg;
	struct ozip z;
	if (ozip_open(&z, of->fp, ozip_by_name(o->path))) {
		sbuf_setf(err, "out of memory starting the compressor");
		return GF_EINTERNAL;
	}
	ozip_write(&z, o->json->buf, o->json->len);
	if (ozip_close(&z)) {
		sbuf_setf(err, "cannot write '%s': %s", o->path ? o->path : "<stdout>",
			  z.err ? strerror(z.err) : "compression failed");
		return GF_EOUTPUT;
	}
	return GF_OK;
}

static int cmd_summarise(int argc, char **argv)
{
	struct tropts o;
	int first = tropts_parse(&o, &cmd_summarise_def, argc, argv);
	size_t n;
	char **files = cli_inputs(argc, argv, first, &n);
	if (n > 1)
		cli_usage_error("one trace at a time (%zu given): run one summarise per rank, on as many machines as "
				"you like (docs/scale.md: Slurm job arrays, GNU parallel)",
				n);
	if (o.world >= 0 && o.rank >= o.world)
		cli_usage_error("--rank %lld is not below --world-size %lld", (long long)o.rank, (long long)o.world);
	struct rankrun_opts rr = { &o, o.run, o.rank, o.world, !o.no_flames, cli_threads(o.threads),
				   cli_progress_enabled() };
	struct sbuf json = SBUF_INIT, warn = SBUF_INIT, err = SBUF_INIT;
	int rc = rankrun_one(files[0], &rr, &json, &warn, &err);
	cli_warn_lines(&warn);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	struct out w = { &json, o.output && strcmp(o.output, "-") ? o.output : NULL };
	cli_write_with(o.output, write_summary, &w);
	sbuf_release(&json);
	sbuf_release(&warn);
	sbuf_release(&err);
	return GF_EXIT_OK;
}

const struct cli_command cmd_summarise_def = {
	.name = "summarise",
	.fn = cmd_summarise,
	.summary = "one rank's trace as a small summary, for report --from-summaries",
	.synopsis = "[options] [TRACE]",
	.description = "Reduces one rank's PyTorch profiler (Kineto) trace to a small, versioned summary "
		       "(gpuflame.summary/1: rank, world, process groups, per-step busy/idle by cause, the "
		       "collectives per group with their sequence numbers and times, top kernels, the report and "
		       "the page's four flame graphs), whose size does not grow with the trace. Run one per rank, "
		       "anywhere (a Slurm job array, GNU parallel), then combine them with 'gpuflame report "
		       "--from-summaries DIR'. The output is compressed by its name (.zst, .gz) and written "
		       "all-or-nothing, so a retried task is safe. '-' reads stdin.\n\n"
		       "  gpuflame summarise rank3.json.gz -o sums/rank3.summary.json.zst\n"
		       "  gpuflame report --from-summaries sums/",
	.opts = opts,
	.operands = CLI_OPERAND_TRACE,
	.doc = "scale.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error or empty step selection, 3 output not written, "
		 "4 internal limit.",
};
