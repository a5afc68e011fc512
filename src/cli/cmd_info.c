/*
 * cmd_info.c — gpuflame info: what is in a PyTorch profiler (Kineto) trace.
 *
 * USAGE: gpuflame info [--format text|json] [--step-marker NAME] [-o FILE] TRACE...
 *
 * TRACE is a Chrome-trace JSON file, plain, .gz or .zst (detected by content),
 * or "-" for stdin (the default). Prints, per trace: events by phase and
 * category, host threads and GPU streams, the time span, the timestamp
 * generation, the steps (ProfilerStep#N, or --step-marker's, found as fold
 * and report find them), rank/world size, python/nn.Module/graph/
 * NCCL counts, correlation coverage and warnings. --format json writes the
 * stable schema documented in docs/trace-reader.md:
 *   {"gpuflame_info": 1, "traces": [{"file": "t.json.gz", "events": 220, ...}]}
 * The summary is trace/model/info.c's, the text and JSON trace/write/info_out.c's.
 * Exit: 0 ok, 1 unreadable or malformed trace, 2 usage, 3 output not written.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "cli/values.h"
#include "trace/model/info.h"
#include "trace/write/info_out.h"

#include <getopt.h> /* optind */

enum { O_MARKER = CLIOPT_FIRST_ID };
static const struct cli_opt opts[] = {
	{ "format", 'f', 'f', "FMT", "text (default) or json (schema: docs/schema/info.schema.json)", cli_values_info_formats, 0 },
	{ "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE },
	{ "step-marker", 0, O_MARKER, "NAME", "step ranges are NAME or NAME#<n> (default ProfilerStep)", NULL, 0 },
	{ "threads", 'j', 'j', "N",
	  "cores for reading: 1 or 2 (default: 2 when there are; the environment's GPUFLAME_THREADS sets the "
	  "default)",
	  NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

static int cmd_info(int argc, char **argv);

const struct cli_command cmd_info_def = {
	.name = "info",
	.fn = cmd_info,
	.summary = "summarise a PyTorch profiler (Kineto) trace",
	.synopsis = "[options] [TRACE...]",
	.description = "Summarise PyTorch profiler (Kineto) Chrome traces: events by phase and category, threads "
		       "and GPU streams, time span, timestamp generation, steps, rank, python stacks, modules, "
		       "graph launches, NCCL kernels, correlation coverage and warnings. TRACE may be plain JSON, "
		       "gzip or zstd (by content); '-' or no TRACE reads stdin.",
	.opts = opts,
	.operands = CLI_OPERAND_TRACE,
	.doc = "trace-reader.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error, 3 output not written, 4 internal limit.",
};

static int cmd_info(int argc, char **argv)
{
	int format = REP_TEXT, c;
	const char *outpath = NULL, *threads = NULL;
	struct trace_opts to = { 0 };
	const char *optarg;
	while ((c = cliopt_next(&cmd_info_def, argc, argv, &optarg)) != -1) {
		switch (c) {
		case 'j': threads = optarg; break;
		case 'f': format = cli_values_info_format[cli_pick(&cmd_info_def, 'f', optarg)]; break;
		case 'o': outpath = optarg; break;
		case O_MARKER: to.step_marker = cli_nonempty("--step-marker", optarg); break;
		}
	}
	size_t nfiles;
	char **files = cli_inputs(argc, argv, optind, &nfiles);
	to.threads = cli_threads(threads);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	for (size_t i = 0; i < nfiles; i++) {
		const char *name = cli_in_name(files[i]);
		if (cli_progress_enabled()) {
			to.progress = cli_progress_reading;
			to.progress_ctx = (void *)name;
		}
		struct info_file f;
		int rc = info_load(&f, files[i], &to, &err);
		cli_progress_done();
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		if (format == REP_JSON)
			info_out_json(&out, i, name, &f);
		else
			info_out_text(&out, i, name, &f);
		info_release(&f);
	}
	if (format == REP_JSON)
		info_out_json_end(&out);
	cli_write_out(outpath, &out);
	sbuf_release(&out);
	sbuf_release(&err);
	return GF_EXIT_OK;
}
