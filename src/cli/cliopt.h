/*
 * cliopt.h — one table of options per command, from which everything about
 * the command line is derived: getopt_long's table and option string, the
 * `--help` text, the man page gpuflame-<cmd>(1), the bash and zsh
 * completions, and the one-line errors with the nearest option. Nothing is
 * written twice, so nothing can drift (tests/cli/cli_docs.sh checks it).
 *
 * A command (cmd_<name>.c) defines its table and its description:
 *
 *   enum { O_UNIT = CLIOPT_FIRST_ID, O_SKIP };
 *   static const struct cli_opt opts[] = {
 *       { "weight", 'w', 'w', "W", "what the stacks weigh: ...", weights, 0 },
 *       { "unit", 0, O_UNIT, "U", "ns, us (default) or ms", units, 0 },
 *       { "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE },
 *       { NULL },
 *   };
 *   const struct cli_command cmd_fold_def = {
 *       .name = "fold", .fn = cmd_fold, .opts = opts,
 *       .summary = "...", .synopsis = "[options] [TRACE]",
 *       .description = "paragraph\n\nparagraph", .operands = CLI_OPERAND_TRACE,
 *       .doc = "fold.md",
 *   };
 *
 * and parses with
 *
 *   int c; const char *arg;
 *   while ((c = cliopt_next(&cmd_fold_def, argc, argv, &arg)) != -1)
 *       switch (c) { case 'w': ...; case O_UNIT: ...; }
 *   ... argv[optind..argc) are the operands ...
 *
 * `-h/--help` is added to every table by cliopt itself (usage on stdout,
 * exit 0). An unknown option, a missing value or an ambiguous abbreviation is
 * one line on stderr naming the nearest option, then exit 2:
 *   gpuflame fold: unknown option '--wieght'; did you mean '--weight'? (see 'gpuflame fold --help')
 *
 * To add an option: one row in the command's table (long name, short letter
 * or 0, the id the switch sees, the value's name or NULL for a flag, the help
 * paragraph, the accepted values when there is a fixed list, flags), and its
 * case in the command's switch. Help, man page and completions follow.
 *
 * Values that a library table owns (weights, units, formats, gap causes...)
 * are not copied into the command: the row names the table's own list
 * (palette_names, fold_level_names...) or one that cli/values.h fills from
 * the table at start-up, and cli_pick() returns the value's row of the
 * table (its enum), never a position in a list the command keeps:
 *
 *   { "weight", 'w', 'w', "W", "... %V ...", cli_values_trace_weights, 0 },
 *   case 'w': o.weight = cli_pick(&cmd_fold_def, 'w', arg); break;
 * To add a command: see cli.h's checklist.
 *
 * Layer: cli.
 */
#ifndef GF_CLIOPT_H
#define GF_CLIOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Ids of options without a short letter start here (getopt_long's val). */
#define CLIOPT_FIRST_ID 256

/* cli_opt.flags */
enum {
	CLI_OPT_FILE = 1,       /* the value is a file name (completion: files) */
	CLI_OPT_REPEAT = 2,     /* may be given several times */
	CLI_OPT_LIST = 4,       /* the value is a comma list of `values` */
	CLI_OPT_OPTIONAL = 8,   /* the value is optional (--opt=VALUE only) */
};

struct cli_opt {
	const char *name;              /* long name without "--"; NULL ends the table */
	char shrt;                     /* short letter, 0 for none */
	int id;                        /* what cliopt_next returns for it */
	const char *arg;               /* the value's name ("FILE"), NULL for a flag */
	const char *help;              /* one paragraph, wrapped by the writers; "%V" stands
					* for the values, ", "-separated */
	const char *const *values;     /* the accepted values (NULL-terminated) or NULL */
	unsigned flags;                /* CLI_OPT_* */
};

/* What the operands of a command are, for the completions. */
enum cli_operand {
	CLI_OPERAND_NONE,
	CLI_OPERAND_TRACE,     /* *.json, *.json.gz, *.json.zst */
	CLI_OPERAND_FOLDED,    /* *.folded, *.txt, their .gz/.zst */
	CLI_OPERAND_ANY,       /* traces or folded stacks */
};

struct cli_command {
	const char *name;                  /* "fold" */
	int (*fn)(int argc, char **argv);
	const char *summary;               /* one line: `gpuflame --help`, the man page's NAME */
	const char *synopsis;              /* after "gpuflame fold ": "[options] [TRACE]" */
	const char *description;           /* paragraphs separated by "\n\n"; lines starting with
					    * two blanks are kept as they are (examples) */
	const struct cli_opt *opts;        /* ends with { NULL } */
	enum cli_operand operands;
	bool long_only;                    /* single-dash long options too (svg: -title) */
	const char *doc;                   /* its document under docs/ ("fold.md") */
	const char *exits;                 /* the exit codes it uses, "0 ok, 1 ..." */
	const char *output;                /* what it writes when it has no -f/--format or --to
					    * ("folded stacks"): --version lists them */
};

/*
 * Next option of argv, getopt_long-style (optind as usual; start with
 * optind = 1). @return the option's id with *arg its value (NULL for a
 * flag), or -1 at the first operand. --help prints the help and exits 0;
 * any misuse is a one-line usage error (exit 2).
 */
int cliopt_next(const struct cli_command *c, int argc, char **argv, const char **arg);

/* The row of c's table whose id is id (the first), or NULL. */
const struct cli_opt *cliopt_find(const struct cli_command *c, int id);

/* Writers of the derived texts. */
void cliopt_help(const struct cli_command *c, FILE *fp);
/* The man page of one command (c) or, with c NULL, the gpuflame(1) page of
 * all commands[0..n). version is the program's. */
void cliopt_man(const struct cli_command *c, const struct cli_command *const *all, size_t n,
		const char *version, FILE *fp);
/* The completion script of "bash" or "zsh". @return false for another shell. */
bool cliopt_completion(const char *shell, const struct cli_command *const *all, size_t n, FILE *fp);

/* Levenshtein distance of two short strings (99 beyond 32 bytes). */
size_t cliopt_distance(const char *a, const char *b);

#endif
