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
 * --print-man/--print-completion (cliopt.h), and the "did you mean" for
 * typos. Each command lives in cmd_<name>.c with its table of options.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "base/limits.h"
#include "input/input.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#ifndef GF_VERSION
#define GF_VERSION "0.1.0"
#endif

#ifndef GF_DOCDIR
#define GF_DOCDIR "/usr/local/share/doc/gpuflame"
#endif

/* The commands, in the order of `gpuflame --help` and gpuflame(1). */
static const struct cli_command *const commands[] = {
	&cmd_svg_def, &cmd_top_def, &cmd_info_def, &cmd_fold_def, &cmd_report_def,
	&cmd_syncs_def, &cmd_diff_def, &cmd_merge_def, &cmd_norm_def, &cmd_export_def,
	&cmd_store_def, &cmd_push_def,
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: gpuflame <command> [options] [FILE...]\n\ncommands:\n");
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++)
		fprintf(fp, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(fp, "\nRun 'gpuflame <command> --help', 'gpuflame help <command>' or 'man gpuflame-<command>' for a "
		    "command's options.\n"
		    "  --version                    version, decoders and features built in\n"
		    "  --print-man [COMMAND]        the man page gpuflame(1) or gpuflame-COMMAND(1)\n"
		    "  --print-completion bash|zsh  the shell completion script\n"
		    "Exit codes: 0 ok, 1 bad or unreadable input, 2 usage error or refused\n"
		    "comparison, 3 output not written, 4 internal limit or out of memory.\n");
}

static const struct cli_command *lookup(const char *name)
{
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

/* The values of c's option named name, ", "-separated, into b; false when
 * it has none. */
static bool option_values(const struct cli_command *c, const char *name, struct sbuf *b)
{
	for (size_t i = 0; c->opts && c->opts[i].name; i++) {
		const struct cli_opt *o = &c->opts[i];
		if (strcmp(o->name, name) || !o->values)
			continue;
		for (size_t k = 0; o->values[k]; k++)
			sbuf_addf(b, "%s%s", k ? ", " : "", o->values[k]);
		return true;
	}
	return false;
}

/* --version's inputs and outputs, from the input layer's formats and the
 * command table (each command's --format or --to values, else its output). */
static void version_formats(void)
{
	struct sbuf b = SBUF_INIT, named = SBUF_INIT;
	for (int f = 0; f < INPUT_NFORMATS; f++) {
		struct sbuf *w = input_format_read(f) ? &b : &named;
		sbuf_addf(w, "%s%s", w->len ? ", " : "", input_format_name(f));
	}
	printf("inputs: %s (plain, gzip or zstd; a trace also in the legacy autograd export); named "
	       "with what to run instead: %s\n", b.buf, named.buf);
	printf("outputs:\n");
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++) {
		const struct cli_command *c = commands[i];
		sbuf_reset(&b);
		if (!option_values(c, "format", &b) && !option_values(c, "to", &b))
			sbuf_addstr(&b, c->output ? c->output : "text");
		printf("  %-8s %s\n", c->name, b.buf);
	}
	sbuf_release(&b);
	sbuf_release(&named);
}

/* --version: what this binary can read and do. */
static void version(void)
{
	printf("gpuflame %s\n", GF_VERSION);
	printf("decoders: plain, gzip (zlib %s", zlibVersion());
#ifdef GF_HAVE_ISAL
	printf(", ISA-L igzip fast path");
#else
	printf(", no ISA-L fast path: built with ISAL=0");
#endif
	unsigned z = ZSTD_versionNumber();
	printf("), zstd (libzstd %u.%u.%u)\n", z / 10000, z / 100 % 100, z % 100);
	version_formats();
	printf("features: two-core trace reading, man pages and bash/zsh completions (--print-man, "
	       "--print-completion)\n");
}

/* --print-man [CMD] and --print-completion SHELL (the build writes the
 * installed files with them). */
static int print_generated(int argc, char **argv)
{
	const char *docdir = getenv("GPUFLAME_DOCDIR");
	if (!docdir || !*docdir)
		setenv("GPUFLAME_DOCDIR", GF_DOCDIR, 1);
	if (!strcmp(argv[1], "--print-man")) {
		const struct cli_command *c = argc > 2 && strcmp(argv[2], "gpuflame") ? lookup(argv[2]) : NULL;
		if (argc > 2 && strcmp(argv[2], "gpuflame") && !c)
			cli_usage_error("--print-man: '%s' is not a gpuflame command", argv[2]);
		cliopt_man(c, commands, GF_ARRAY_LEN(commands), GF_VERSION, stdout);
		return GF_EXIT_OK;
	}
	if (argc < 3 || !cliopt_completion(argv[2], commands, GF_ARRAY_LEN(commands), stdout))
		cli_usage_error("--print-completion wants bash or zsh");
	return GF_EXIT_OK;
}

/* An unknown command: one line naming the nearest one, exit 2. */
static int unknown(const char *name)
{
	fprintf(stderr, "gpuflame: '%s' is not a gpuflame command.", name);
	size_t best = 3;
	const char *sugg = NULL;
	for (size_t i = 0; i < GF_ARRAY_LEN(commands); i++) {
		size_t d = cliopt_distance(name, commands[i]->name);
		if (d < best) {
			best = d;
			sugg = commands[i]->name;
		}
	}
	if (sugg)
		fprintf(stderr, " The most similar command is '%s'.", sugg);
	fprintf(stderr, " See 'gpuflame --help'.\n");
	return cli_finish(GF_EXIT_USAGE);
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
	if (!strcmp(name, "help") && argc > 2) { /* "gpuflame help fold" is "gpuflame fold --help" */
		const struct cli_command *c = lookup(argv[2]);
		if (!c)
			return unknown(argv[2]);
		cliopt_help(c, stdout);
		return cli_finish(GF_EXIT_OK);
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return cli_finish(GF_EXIT_OK);
	}
	if (!strcmp(name, "--version")) {
		version();
		return cli_finish(GF_EXIT_OK);
	}
	if (!strcmp(name, "--print-man") || !strcmp(name, "--print-completion"))
		return cli_finish(print_generated(argc, argv));
	const struct cli_command *cmd = lookup(name);
	if (cmd) {
		cli_cmd = cmd->name;
		cli_def = cmd;
		struct sbuf err = SBUF_INIT;
		if (gf_limits_init(&err))
			cli_die(GF_EXIT_USAGE, "%s", err.buf);
		sbuf_release(&err);
		optind = 1;
		return cli_finish(cmd->fn(argc - 1, argv + 1));
	}
	return unknown(name);
}
