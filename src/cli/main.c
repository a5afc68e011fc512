/*
 * main.c — gpuflame: flame graphs and diagnoses for LLM GPU workloads.
 *
 * USAGE: gpuflame <command> [options] [FILE...]
 *
 * The commands share one text format, folded stacks ("a;b;c 12"), so they
 * pipe into each other and into flamegraph.pl/inferno/speedscope:
 *   gpuflame fold --weight gpu trace.json.gz | gpuflame svg > gpu.svg
 *
 * This file is only the dispatcher: the table of commands, --help/--version
 * and the "did you mean" for typos. Each command lives in cmd_<name>.c.
 */
#include "cli/cli.h"

#include "base/limits.h"

#include <stdlib.h>
#include <string.h>

#ifndef GF_VERSION
#define GF_VERSION "0.1.0"
#endif

struct cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};

static const struct cmd commands[] = {
	{ "svg", cmd_svg, "render folded stacks as an interactive SVG flame graph (flamegraph.pl drop-in)" },
	{ "top", cmd_top, "table of frames by self and total weight, with stack counts" },
	{ "info", cmd_info, "summarise a PyTorch profiler (Kineto) trace" },
	{ "fold", cmd_fold, "fold a trace into GPU-, CPU-, wall-, idle- or call-weighted stacks" },
	{ "report", cmd_report, "per-step GPU busy/idle table, gap causes and a verdict" },
	{ "syncs", cmd_syncs, "find hidden host-device synchronisations and their cost" },
	{ "diff", cmd_diff, "differential stacks and flame graphs between two profiles" },
	{ "merge", cmd_merge, "sum folded files of the same kind" },
	{ "norm", cmd_norm, "normalise a folded file to per-step weights, exactly" },
	{ "export", cmd_export, "write a trace or folded stacks as speedscope, pprof or Perfetto" },
	{ "store", cmd_store, "keep every run; diff, list and trend releases (SQLite or PostgreSQL)" },
	{ "push", cmd_push, "send a trace, folded file or stored run to Pyroscope" },
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: gpuflame <command> [options] [FILE...]\n\ncommands:\n");
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++)
		fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\nRun 'gpuflame <command> --help' for a command's options.\n"
		    "Exit codes: 0 ok, 1 bad or unreadable input, 2 usage error or refused\n"
		    "comparison, 3 output not written, 4 internal limit or out of memory.\n");
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 32 || lb > 32)
		return 99;
	size_t d[33][33];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			size_t x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
			d[i][j] = GF_MIN(c, GF_MIN(x, y));
		}
	return d[la][lb];
}

int main(int argc, char **argv)
{
	/* before anything opens a file: closed 0/1/2 reserved, signals and
	 * out of memory remove temporary outputs, stdout checked at exit */
	cli_init();
	if (argc < 2) {
		usage(stderr);
		return cli_finish(GF_EXIT_USAGE);
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return cli_finish(GF_EXIT_OK);
	}
	if (!strcmp(name, "--version")) {
		printf("gpuflame %s\n", GF_VERSION);
		return cli_finish(GF_EXIT_OK);
	}
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++) {
		if (!strcmp(name, commands[i].name)) {
			cli_cmd = commands[i].name;
			struct sbuf err = SBUF_INIT;
			if (gf_limits_init(&err))
				cli_die(GF_EXIT_USAGE, "%s", err.buf);
			sbuf_release(&err);
			return cli_finish(commands[i].fn(argc - 1, argv + 1));
		}
	}
	fprintf(stderr, "gpuflame: '%s' is not a gpuflame command.", name);
	size_t best = 3;
	const char *sugg = NULL;
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++) {
		size_t d = edit_distance(name, commands[i].name);
		if (d < best) {
			best = d;
			sugg = commands[i].name;
		}
	}
	if (sugg)
		fprintf(stderr, " The most similar command is '%s'.", sugg);
	fprintf(stderr, " See 'gpuflame --help'.\n");
	return cli_finish(GF_EXIT_USAGE);
}
