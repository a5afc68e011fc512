/*
 * tropts.h — the options `gpuflame report` and `gpuflame syncs` share (one
 * table in docs/report.md): -f/--format, --steps, --skip, --step-marker,
 * --device, -o/--output, -j/--threads, -h/--help, and report's --unprofiled-step-ms and
 * --expect-ms.
 *
 *   static const struct cli_opt opts[] = { TROPTS_FORMAT, TROPTS_COMMON, ..., { NULL } };
 *   struct tropts o;
 *   int first = tropts_parse(&o, &cmd_report_def, argc, argv);
 *   ... argv[first..argc) are the inputs ...
 *
 * Layer: cli.
 */
#ifndef GF_TROPTS_H
#define GF_TROPTS_H

#include "trace/analysis/report.h"
#include "trace/analysis/timeline.h"
#include "trace/write/report_out.h"

#include "cli/cliopt.h"
#include "cli/values.h"

#include <stdio.h>

/* The text report's step table beyond this many steps: the first and the last (--max-steps). */
#define TROPTS_MAX_STEPS 20

/* The option ids and the rows both commands' tables start with. */
enum {
	TRO_STEPS = CLIOPT_FIRST_ID, TRO_SKIP, TRO_MARKER, TRO_DEVICE, TRO_UNPROF, TRO_EXPECT, TRO_MAXSTEPS,
	TRO_FROM, TRO_PARTIAL, TRO_RUN, TRO_RANK, TRO_WORLD, TRO_NOFLAMES, TRO_TIMELINE, TRO_EXPLAIN
};
/* syncs' -f row: rtable_formats but html (report's row has them all) */
#define TROPTS_FORMAT { "format", 'f', 'f', "F", "text (default), md or json", cli_values_prose_formats, 0 }
#define TROPTS_COMMON \
	{ "steps", 0, TRO_STEPS, "A..B", "traces: only steps numbered A to B (A.. and ..B work too)", NULL, 0 }, \
	{ "skip", 0, TRO_SKIP, "N", "traces: drop the first N selected steps (warm-up)", NULL, 0 }, \
	{ "step-marker", 0, TRO_MARKER, "NAME", "traces: step ranges are NAME or NAME#<n> (default ProfilerStep)", \
	  NULL, 0 }, \
	{ "device", 0, TRO_DEVICE, "N", "traces: analyse GPU N (default: the one the step thread uses most)", NULL, \
	  0 }, \
	{ "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE }
/* -j of the commands that read one trace at a time */
#define TROPTS_THREADS { "threads", 'j', 'j', "N", "traces: cores for reading: 1 or 2 (default: 2 when there are)", \
			 NULL, 0 }

struct tropts {
	int format;             /* REP_TEXT (default), REP_MD, REP_JSON, REP_HTML (report only) */
	int device;             /* --device, -1 = automatic */
	const char *output;     /* -o, NULL = stdout */
	const char *marker;     /* --step-marker, NULL = ProfilerStep */
	const char *threads;    /* -j/--threads, NULL = GPUFLAME_THREADS or automatic */
	unsigned jobs;          /* -j N as a number (report: ranks at once), 0 when not given */
	bool from_summaries;    /* report --from-summaries */
	bool partial;           /* report --partial */
	bool no_flames;         /* summarise --no-flames */
	const char *run;        /* summarise --run */
	int64_t rank, world;    /* summarise --rank, --world-size; -1 when not given */
	int64_t max_steps;      /* report --max-steps: rows of the step table, 0 = all (default TROPTS_MAX_STEPS) */
	bool max_steps_set;     /* --max-steps given (else the ranks' skew table has 10 rows) */
	struct timeline_spec timeline; /* report --timeline: the page's step timelines */
	bool timeline_set;      /* --timeline given (refused with several ranks: their page has none) */
	size_t explain;         /* report --explain N|all: the N largest gaps (SIZE_MAX all), 0 none */
	struct report_opts ro;  /* steps selection (+ report's targets) */
};

/*
 * Parses argv with the command's table (cliopt_next): the common rows and
 * report's --unprofiled-step-ms, --expect-ms and --max-steps. --help prints
 * the help and exits 0; a bad option or value is a usage error (exit 2).
 * @return the index of the first non-option argument.
 */
int tropts_parse(struct tropts *o, const struct cli_command *c, int argc, char **argv);

#endif
