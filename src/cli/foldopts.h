/*
 * foldopts.h — the options that say how a trace is folded, declared once
 * for every command that folds one (fold; diff, whose traces are folded as
 * fold folds them): their rows (help, man page and completions follow) and
 * their parsing into a struct fold_opts.
 *
 *   static const struct cli_opt opts[] = { ..., FOLDOPTS_ROWS(""), ..., { NULL } };
 *   case ...: default: if (foldopts_option(&cmd_fold_def, c, arg, &fo)) break; ...
 *
 * P is the help's prefix ("traces: " where the command also takes folded
 * stacks). Their ids start at FOLDOPT_FIRST, apart from the command's own.
 *
 * Layer: cli.
 */
#ifndef GF_FOLDOPTS_H
#define GF_FOLDOPTS_H

#include "cli/cliopt.h"
#include "cli/values.h"
#include "trace/analysis/fold.h"

#define FOLDOPT_FIRST (CLIOPT_FIRST_ID + 128)
enum {
	FOLDOPT_MAXDEPTH = FOLDOPT_FIRST, FOLDOPT_PERSTEP, FOLDOPT_KNAMES, FOLDOPT_FAMILIES, FOLDOPT_MARKER,
	FOLDOPT_SKIP, FOLDOPT_UNIT, FOLDOPT_LABEL, FOLDOPT_ALLTH, FOLDOPT_NOTHF, FOLDOPT_END
};

#define FOLDOPTS_ROWS(P) \
	{ "weight", 'w', 'w', "W", \
	  P "gpu (default): kernel/memcpy/memset time charged to the launching host stack; cpu: host self time " \
	  "without blocking calls; wall: with blocking calls as leaf frames and [untraced] step time; idle: GPU " \
	  "idle time charged to the host stack running at that moment; calls: launches", \
	  cli_values_trace_weights, 0 }, \
	{ "stack", 's', 's', "LEVELS", \
	  P "comma list of step, annotation, python, module, op, runtime (default annotation,python,op)", \
	  fold_level_names, CLI_OPT_LIST }, \
	{ "max-depth", 0, FOLDOPT_MAXDEPTH, "N", P "keep the innermost N host frames", NULL, 0 }, \
	{ "per-step", 0, FOLDOPT_PERSTEP, NULL, P "one ProfilerStep#N tower per step (implies level step)", NULL, 0 }, \
	{ "kernel-names", 0, FOLDOPT_KNAMES, "K", P "family (default) or full", fold_kernel_names, 0 }, \
	{ "families", 0, FOLDOPT_FAMILIES, "FILE", P "kernel family rules (REGEX<TAB>FAMILY lines; docs/fold.md)", \
	  NULL, CLI_OPT_FILE }, \
	{ "step-marker", 0, FOLDOPT_MARKER, "NAME", P "step ranges are NAME or NAME#<n> (default ProfilerStep)", \
	  NULL, 0 }, \
	{ "skip", 0, FOLDOPT_SKIP, "N", P "drop the first N selected steps (warm-up)", NULL, 0 }, \
	{ "unit", 0, FOLDOPT_UNIT, "U", P "ns (default: integers every folded-stack reader takes), us or ms", \
	  cli_values_fold_units, 0 }, \
	{ "label", 0, FOLDOPT_LABEL, "KEY=VALUE", P "record a label in the header (repeatable; diff compares them)", \
	  NULL, CLI_OPT_REPEAT }, \
	{ "all-threads", 0, FOLDOPT_ALLTH, NULL, \
	  P "cpu/wall: fold every host thread over the steps, not only the thread(s) holding the step markers", \
	  NULL, 0 }, \
	{ "no-thread-frames", 0, FOLDOPT_NOTHF, NULL, \
	  P "cpu/wall: no 'thread (TID): NAME' root frame (thread ids differ between runs)", NULL, 0 }

/* What the rows set beyond struct fold_opts. */
struct foldopts_extra {
	const char *families;   /* --families FILE, or NULL */
};

/*
 * One option of the rows, for command c (its table holds FOLDOPTS_ROWS):
 * sets o (and x). A bad value is a usage error (exit 2). @return false when
 * id is not one of the rows' options.
 */
bool foldopts_option(const struct cli_command *c, int id, const char *arg, struct fold_opts *o,
		     struct foldopts_extra *x);

#endif
