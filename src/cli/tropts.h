/*
 * tropts.h — the options `gpuflame report` and `gpuflame syncs` share (one
 * table in docs/report.md): -f/--format, --steps, --skip, --step-marker,
 * --device, -o/--output, -j/--threads, -h/--help, and report's --unprofiled-step-ms and
 * --expect-ms.
 *
 *   struct tropts o;
 *   int first = tropts_parse(&o, argc, argv, true, usage);   // report
 *   ... argv[first..argc) are the inputs ...
 *
 * Layer: cli.
 */
#ifndef GF_TROPTS_H
#define GF_TROPTS_H

#include "trace/analysis/report.h"
#include "trace/write/report_out.h"

#include <stdio.h>

struct tropts {
	int format;             /* REP_TEXT (default), REP_MD, REP_JSON */
	int device;             /* --device, -1 = automatic */
	const char *output;     /* -o, NULL = stdout */
	const char *marker;     /* --step-marker, NULL = ProfilerStep */
	const char *threads;    /* -j/--threads, NULL = GPUFLAME_THREADS or automatic */
	struct report_opts ro;  /* steps selection (+ report's targets) */
};

/*
 * Parses argv with getopt_long. with_targets accepts report's
 * --unprofiled-step-ms and --expect-ms (syncs: unknown options). --help
 * prints usage(stdout) and exits 0; a bad option or value is a usage error
 * (exit 2). @return the index of the first non-option argument.
 */
int tropts_parse(struct tropts *o, int argc, char **argv, bool with_targets, void (*usage)(FILE *fp));

#endif
