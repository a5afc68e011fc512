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

#include "trace/model/info.h"
#include "trace/write/info_out.h"

#include <getopt.h>

static void usage(FILE *fp)
{
	fprintf(fp, "usage: gpuflame info [--format text|json] [--step-marker NAME] [-o FILE] [TRACE...]\n"
		    "\n"
		    "Summarise PyTorch profiler (Kineto) Chrome traces: events by phase and\n"
		    "category, threads and GPU streams, time span, timestamp generation, steps,\n"
		    "rank, python stacks, modules, graph launches, NCCL kernels, correlation\n"
		    "coverage and warnings. TRACE may be plain JSON, gzip or zstd (by content);\n"
		    "'-' or no TRACE reads stdin.\n"
		    "\n"
		    "options:\n"
		    "  -f, --format FMT  text (default) or json (schema: docs/trace-reader.md)\n"
		    "  -o, --output FILE write to FILE instead of stdout\n"
		    "      --step-marker NAME  step ranges are NAME or NAME#<n> (default ProfilerStep)\n"
		    "  -j, --threads N   cores for reading: 1 or 2 (default: 2 when there are; the\n"
		    "                    environment's GPUFLAME_THREADS sets the default)\n"
		    "  -h, --help        show this help\n"
		    "\n"
		    "Exit codes: 0 ok, 1 bad or unreadable input, 2 usage error, 3 output not written.\n");
}

int cmd_info(int argc, char **argv)
{
	enum { O_MARKER = 256 };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 'j' },
		{ "step-marker", required_argument, NULL, O_MARKER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { "text", "json", NULL };
	int format = 0, c;
	const char *outpath = NULL, *threads = NULL;
	struct trace_opts to = { 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': threads = optarg; break;
		case 'f': format = cli_choice("--format", optarg, formats); break;
		case 'o': outpath = optarg; break;
		case O_MARKER: to.step_marker = cli_nonempty("--step-marker", optarg); break;
		case 'h': usage(stdout); return GF_EXIT_OK;
		default: cli_usage_error("unknown option");
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
		if (format == 1)
			info_out_json(&out, i, name, &f);
		else
			info_out_text(&out, i, name, &f);
		info_release(&f);
	}
	if (format == 1)
		info_out_json_end(&out);
	cli_write_out(outpath, &out);
	sbuf_release(&out);
	sbuf_release(&err);
	return GF_EXIT_OK;
}
