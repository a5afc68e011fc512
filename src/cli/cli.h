/*
 * cli.h — what every subcommand shares: messages, exit, option helpers.
 *
 * Adding a command (the checklist; docs/cli.md, "Adding a command or an option"):
 *   1. src/cli/cmd_<name>.c: its table of options (struct cli_opt, cliopt.h),
 *      its `const struct cli_command cmd_<name>_def` (name, summary, synopsis,
 *      description, operands, doc) and `int cmd_<name>(int argc, char **argv)`
 *      that loops on cliopt_next() and makes thin calls into the library;
 *      --help, the man page gpuflame-<name>(1) and the completions are
 *      generated from the table (nothing else to write);
 *   2. a declaration below and a row in main.c's table of commands;
 *   3. a row in docs/cli.md's table and its docs/<topic>.md;
 *   4. tests in tests/cli/<name>*.sh (tests/cli/cli_docs.sh checks help, man
 *      page and completions agree).
 *
 * Only this layer prints and exits. Messages are one line:
 *   gpuflame <cmd>: 'file': line 12: expected 'stack count'
 * Exit codes are enum gf_exit (base/gf.h), documented in docs/cli.md.
 *
 * Layer: cli (may use every other layer; nothing includes it).
 */
#ifndef GF_CLI_H
#define GF_CLI_H

#ifndef GF_VERSION
#define GF_VERSION "0.1.0"
#endif

#include "base/gf.h"
#include "base/sbuf.h"

#include <stdio.h>

/* The running subcommand's name, for message prefixes ("svg", "fold"...),
 * and its table (cliopt.h). */
extern const char *cli_cmd;
struct cli_command;
extern const struct cli_command *cli_def;

/*
 * Process set-up, first thing in main: a closed descriptor 0, 1 or 2 is
 * reserved with /dev/null opened the wrong way round (stdin write-only,
 * stdout/stderr read-only), so no file opened later takes its number and
 * reads from a closed stdin / writes to a closed stdout still fail (exit 1 /
 * exit 3); SIGINT, SIGTERM, SIGHUP and SIGPIPE (unless ignored) remove the
 * temporary output files in flight, then kill the process as they would
 * have; out of memory removes them too; stdout is checked at exit.
 */
void cli_init(void);
/* Flushes and closes stdout: on a write or close error prints "write failure
 * on standard output: ..." and @return GF_EXIT_OUTPUT, else rc. main returns
 * this; an exit() elsewhere with status 0 gets the same check. */
int cli_finish(int rc);

/* Removes temporary outputs, prints the message, exits with exit_code. */
GF_NORETURN void cli_die(int exit_code, const char *fmt, ...) GF_PRINTF(2, 3);
/* With q, cli_warn and cli_note print nothing (a command's -q). */
void cli_set_quiet(bool q);
/* "gpuflame CMD: note: ..." on stderr (silenced by cli_set_quiet). */
void cli_note(const char *fmt, ...) GF_PRINTF(1, 2);
void cli_warn(const char *fmt, ...) GF_PRINTF(1, 2);
/* The one-line message of work that is done for good (a run committed, a
 * profile delivered): on stdout, flushed at once. When stdout fails (full,
 * closed, a closed pipe: no SIGPIPE), the line goes to stderr after
 * "standard output failed (REASON); " and the exit code stays what the work
 * says (docs/cli.md, "Exit codes"); later lines go to stderr too. */
void cli_done(const char *fmt, ...) GF_PRINTF(1, 2);
/* Bad usage: one line, the message and where to look ("; see 'gpuflame fold
 * --help'"), exit GF_EXIT_USAGE. */
GF_NORETURN void cli_usage_error(const char *fmt, ...) GF_PRINTF(1, 2);

/* True when stderr is a terminal (progress lines are shown only then). */
bool cli_progress_enabled(void);

/* Cores the trace reader may use: --threads when given (set), else the
 * environment's GPUFLAME_THREADS, else 0 (automatic: two when the machine
 * has them). 1 keeps all reading on the caller's core. A bad value is a
 * usage error (exit 2). */
unsigned cli_threads(const char *set);
/* Rewrites one progress line on stderr (no-op when not a terminal);
 * cli_progress_done clears it. */
void cli_progress(const char *fmt, ...) GF_PRINTF(1, 2);
void cli_progress_done(void);

/*
 * Parses an enum option value against a NULL-terminated list of names.
 * On a bad value prints "invalid argument 'x' for '--opt'; valid arguments
 * are: a, b, c" and exits GF_EXIT_USAGE. @return the index.
 */
int cli_choice(const char *opt, const char *val, const char *const *names);
/* The same for the option of command c whose id (or short letter) is id,
 * against its row's values (cliopt.h; a list filled from a library table,
 * cli/values.h): @return the value's index, the table's row (its enum). */
struct cli_command;
int cli_pick(const struct cli_command *c, int id, const char *val);
/* Parses a non-negative decimal (or integer with allow_frac = false);
 * bad values are usage errors. */
double cli_double(const char *opt, const char *val);
long long cli_int(const char *opt, const char *val, long long min, long long max);

/*
 * Parses a step range "A..B", "A..", "..B" or "A" (decimal step numbers) for
 * option opt with the model's one parser (trace_sel_parse; first/last are a
 * struct trace_sel's); an open end is INT64_MIN (first) or INT64_MAX
 * (last). Empty, non-digit or too large numbers and A > B are usage errors.
 */
void cli_steps(const char *opt, const char *arg, int64_t *first, int64_t *last);
/* A required non-empty option value (e.g. --step-marker); "" is a usage error. */
const char *cli_nonempty(const char *opt, const char *val);

/* Progress callback for the trace readers (kineto_progress_fn): ctx is the
 * input's display name; shows "reading NAME: X / Y MB" with cli_progress. */
void cli_progress_reading(void *ctx, uint64_t done, uint64_t total);

/*
 * The input files of a command taking FILE...: argv[optind..argc), or just
 * "-" (stdin) when there are none (the one stdin default: svg, top, merge,
 * norm, syncs, report use it); "-" given twice is a usage error. When none
 * is named and stdin is a terminal, a note on stderr says what is awaited
 * ("reading a trace from standard input (a terminal): ..."); "-" is silent.
 * @return the array (argv's own or a static one) and its length in *n.
 */
char **cli_inputs(int argc, char **argv, int optind_, size_t *n);

/*
 * The one way a command writes an output file: path (NULL or "-" = stdout)
 * is opened all or nothing (base/ofile.h: a temporary renamed on success),
 * write(of, arg, err) fills of->fp (a writer that rewinds, merge's, uses the
 * ofile itself) and returns enum gf_err; a failed write counts as
 * GF_EOUTPUT. On an error the command dies with gf_err_exit() of it and
 * err's message (GF_EOUTPUT with err empty: the file and the write's
 * reason), leaving no file; else the output is committed. The others are
 * this with a writer of their own.
 */
struct ofile;
void cli_write_with(const char *path, int (*write)(struct ofile *of, void *arg, struct sbuf *err), void *arg);
/* out's bytes. */
void cli_write_out(const char *path, const struct sbuf *out);
/* The text written by write(fp, t, terminal) (folded_write,
 * merge_write_sorted...), which returns non-zero on a write error;
 * terminal is cli_out_terminal(path). */
struct ftree;
void cli_write_tree(const char *path, int (*write)(FILE *fp, const struct ftree *t, bool terminal),
		    const struct ftree *t);
/* Whether output to path (NULL or "-" = stdout) reaches a terminal: the
 * writers of names escape them then. The one place that asks. */
bool cli_out_terminal(const char *path);

/*
 * Inputs go through the one input layer (input/input.h): plain, gzip, zstd,
 * "-" = stdin (read once, as a stream).
 * cli_open_input opens path or dies (exit 1; 4 for GPUFLAME_MAX_INPUT);
 * an input of another profiler's format (stacks/import.h: perf script,
 * speedscope, austin) comes back as its folded stacks (an input over
 * memory, named as the file), so every folded command reads them.
 * cli_open_raw opens without importing; cli_import converts an opened input
 * of import kind `kind` with options o (NULL: the defaults), closing it, and
 * warns on stderr what the import left out (cli_import_warn).
 * cli_open_folded also dies (exit 1) with the one-line hint when the
 * sniffer finds another kind of input ("'t.json.gz' is a PyTorch profiler
 * trace, not folded stacks: run 'gpuflame fold t.json.gz | gpuflame svg'").
 * cli_check_kind is that check alone, for an input opened already.
 * Close them with cli_close_input; cli_die closes those still open.
 */
struct input;
struct import_opts;
struct input *cli_open_input(const char *path, unsigned threads);
/* Same with import options (syncs: o->samples, every sample weighs 1). */
struct input *cli_open_input_with(const char *path, unsigned threads, const struct import_opts *o);
struct input *cli_open_raw(const char *path, unsigned threads);
struct import_stats;
struct input *cli_import(struct input *in, int kind, const struct import_opts *o);
void cli_import_warn(const struct import_stats *st, const char *name, int kind);
void cli_close_input(struct input *in);
struct input *cli_open_folded(const char *path, unsigned threads);
/* With on, cli_open_folded refuses (exit 2) an input whose header's rank=
 * differs from the first input's that had one (svg and top; their
 * --allow-ranks turns it off, as merge's does). */
void cli_guard_ranks(bool on);
void cli_check_kind(struct input *in, int want);
/* For the commands that take both kinds (diff, syncs): a trace rather than
 * folded stacks (input_trace_likely)? Dies with the hint for the other
 * formats (speedscope, perf script...). */
bool cli_input_is_trace(struct input *in);

/* Display name for messages: "<stdin>" for "-". */
const char *cli_in_name(const char *path);
/* The fold header's source= of a trace: its file name without the folders,
 * "<stdin>" for "-". */
const char *cli_source_name(const char *path);

/* The one wording of the skipped-lines warning: "warning: ignored N invalid
 * lines (first at 'x': line 7: expected ...)" (nothing when n is 0); first
 * says where ("'x': line 7: expected ..."). cli_folded_warn: the same for
 * one input's stats. */
struct folded_stats;
void cli_warn_invalid(uint64_t n, const char *first);
void cli_folded_warn(const struct folded_stats *st, const char *name);

/* Folded-input bookkeeping shared by the commands that read folded stacks:
 * count each file's stats, then warn about skipped lines and die (exit 1)
 * when no input held a stack. */
struct folded_stats;
struct folded_opts;
struct ftree;
struct cli_folded_totals {
	uint64_t stacks, invalid, rounded, files;
	struct sbuf first; /* where the first invalid line is */
	struct sbuf names; /* 'a', 'b': the inputs, for "no stack lines" */
};
#define CLI_FOLDED_TOTALS_INIT { 0, 0, 0, 0, SBUF_INIT, SBUF_INIT }
void cli_folded_count(struct cli_folded_totals *tt, const struct folded_stats *st, const char *name);
void cli_folded_report(struct cli_folded_totals *tt);
/* Reads every input files[0..nfiles) (from cli_inputs, the one place where
 * no file means stdin) into t with the folded reader (cli_open_folded:
 * compressed files and the wrong-kind hint), then cli_folded_report; dies
 * on errors. */
void cli_read_folded(struct ftree *t, int nfiles, char **files, const struct folded_opts *fo);

/* The trace model's data-loss warnings, in the same words for every command
 * that reads a trace (fold, report, syncs, diff; info prints its own lines):
 * a truncated file, unweighted GPU activities, correlation ids shared by
 * processes. */
struct trace;
void cli_warn_trace(const struct trace *t, const char *name);
/* The same warnings as lines ("'file': ...\n") appended to lines (for a
 * worker thread: cli_warn_lines prints them later, each a warning). */
void cli_trace_warnings(const struct trace *t, const char *name, struct sbuf *lines);
void cli_warn_lines(const struct sbuf *lines);

/* The commands (cliopt.h): each cmd_<name>.c defines its table. */
struct cli_command;
extern const struct cli_command cmd_svg_def, cmd_top_def, cmd_info_def, cmd_fold_def, cmd_report_def,
	cmd_syncs_def, cmd_diff_def, cmd_merge_def, cmd_norm_def, cmd_export_def, cmd_store_def,
	cmd_push_def, cmd_summarise_def;

#endif
