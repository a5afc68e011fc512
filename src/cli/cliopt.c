/* cliopt.c — the option tables' parser and writers: --help, man pages,
 * bash and zsh completions (see cliopt.h). */
#include "cli/cliopt.h"

#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTS 96
#define WIDTH 79
#define OPT_COL 26

static const struct cli_opt help_opt = { "help", 'h', 'h', NULL, "show this help and exit", NULL, 0 };

/* o's help with "%V" replaced by its values, ", "-separated (a list the
 * help would otherwise spell again), into b (reset). */
static const char *help_of(const struct cli_opt *o, struct sbuf *b)
{
	sbuf_reset(b);
	for (const char *s = o->help; *s; s++) {
		if (s[0] != '%' || s[1] != 'V') {
			sbuf_addch(b, *s);
			continue;
		}
		for (size_t k = 0; o->values && o->values[k]; k++)
			sbuf_addf(b, "%s%s", k ? ", " : "", o->values[k]);
		s++;
	}
	return b->buf;
}

/* ---- parsing ---- */

static struct {
	const struct cli_command *c;
	struct option lo[MAX_OPTS + 2];
	char sh[3 * MAX_OPTS + 8];
	size_t n;
} tab;

static size_t count(const struct cli_command *c)
{
	size_t n = 0;
	while (c->opts && c->opts[n].name)
		n++;
	return n;
}

static void build(const struct cli_command *c)
{
	if (tab.c == c)
		return;
	size_t n = count(c), p = 0;
	if (n > MAX_OPTS)
		cli_die(GF_EXIT_INTERNAL, "internal: too many options for '%s'", c->name);
	tab.sh[p++] = ':'; /* ':' for a missing value, '?' for the rest */
	for (size_t i = 0; i < n; i++) {
		const struct cli_opt *o = &c->opts[i];
		int has = !o->arg ? no_argument : o->flags & CLI_OPT_OPTIONAL ? optional_argument : required_argument;
		tab.lo[i] = (struct option){ o->name, has, NULL, o->shrt ? o->shrt : o->id };
		if (o->shrt) {
			tab.sh[p++] = o->shrt;
			if (o->arg)
				tab.sh[p++] = ':';
		}
	}
	tab.lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
	tab.lo[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	tab.sh[p++] = 'h';
	tab.sh[p] = 0;
	tab.n = n;
	tab.c = c;
}

/* The row of a value getopt returned (a short letter or an id). */
const struct cli_opt *cliopt_find(const struct cli_command *c, int v)
{
	if (v == 'h')
		return &help_opt;
	for (size_t i = 0; c->opts && c->opts[i].name; i++)
		if ((c->opts[i].shrt && c->opts[i].shrt == v) || (!c->opts[i].shrt && c->opts[i].id == v))
			return &c->opts[i];
	return NULL;
}

size_t cliopt_distance(const char *a, const char *b)
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
			size_t x = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			size_t y = d[i - 1][j] + 1, z = d[i][j - 1] + 1;
			d[i][j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
		}
	return d[la][lb];
}

/* The nearest long option to word (without dashes), or NULL. */
static const char *nearest(const struct cli_command *c, const char *word)
{
	const char *best = NULL;
	size_t n = strlen(word), bd = n >= 4 ? 3 : 2; /* distance below bd: 2 edits (a swap) from 4 letters */
	for (size_t i = 0; i <= tab.n; i++) {
		const char *nm = tab.lo[i].name;
		size_t d = cliopt_distance(word, nm);
		if (n >= 3 && !strncmp(nm, word, n) && d > 1) /* a prefix of a longer name */
			d = 1;
		if (d < bd) {
			bd = d;
			best = nm;
		}
	}
	(void)c;
	return best;
}

/* The long options word (without dashes) abbreviates, as "--a, --b". */
static size_t prefixes(const char *word, struct sbuf *b)
{
	size_t n = strlen(word), k = 0;
	for (size_t i = 0; i <= tab.n; i++)
		if (!strncmp(tab.lo[i].name, word, n)) {
			sbuf_addf(b, "%s'--%s'", k++ ? ", " : "", tab.lo[i].name);
		}
	return k;
}

GF_NORETURN static void unknown(const struct cli_command *c, const char *typed)
{
	char word[64];
	const char *w = typed;
	while (*w == '-')
		w++;
	size_t len = strcspn(w, "=");
	if (len >= sizeof word)
		len = sizeof word - 1;
	memcpy(word, w, len);
	word[len] = 0;
	struct sbuf amb = SBUF_INIT;
	if (len && prefixes(word, &amb) > 1)
		cli_usage_error("option '%.*s' is ambiguous: %s", (int)(w - typed + len), typed, amb.buf);
	const char *sugg = len > 1 || typed[1] == '-' ? nearest(c, word) : NULL;
	if (sugg)
		cli_usage_error("unknown option '%.*s'; did you mean '--%s'?", (int)(w - typed + len), typed, sugg);
	cli_usage_error("unknown option '%.*s'", (int)(w - typed + len), typed);
}

int cliopt_next(const struct cli_command *c, int argc, char **argv, const char **arg)
{
	build(c);
	opterr = 0;
	int prev = optind;
	int v = c->long_only ? getopt_long_only(argc, argv, tab.sh, tab.lo, NULL)
			     : getopt_long(argc, argv, tab.sh, tab.lo, NULL);
	*arg = optarg;
	if (v == -1)
		return -1;
	const char *typed = optind > prev && optind - 1 < argc ? argv[optind - 1] : argv[prev < argc ? prev : argc - 1];
	if (v == ':') {
		const struct cli_opt *o = cliopt_find(c, optopt);
		if (o)
			cli_usage_error("option '--%s' needs a value (%s)", o->name, o->arg);
		cli_usage_error("option '%s' needs a value", typed);
	}
	if (v == '?') {
		const struct cli_opt *o = optopt ? cliopt_find(c, optopt) : NULL;
		if (o && typed[0] == '-' && (typed[1] == '-' || c->long_only) && strchr(typed, '='))
			cli_usage_error("option '--%s' takes no value", o->name);
		if (optopt && !(typed[0] == '-' && typed[1] == '-')) {
			char s[3] = { '-', (char)optopt, 0 };
			if (!c->long_only || strlen(typed) == 2)
				unknown(c, s);
		}
		unknown(c, typed);
	}
	if (v == 'h') {
		cliopt_help(c, stdout);
		exit(GF_EXIT_OK);
	}
	const struct cli_opt *o = cliopt_find(c, v);
	return o ? o->id : v;
}

/* ---- --help ---- */

/* Writes text wrapped to WIDTH, its first line after col columns already
 * used, the others indented by indent. */
static void wrap(FILE *fp, const char *s, size_t col, size_t indent)
{
	size_t at = col;
	bool first = true;
	while (*s) {
		while (*s == ' ' || *s == '\n')
			s++;
		size_t n = strcspn(s, " \n");
		if (!n)
			break;
		if (!first && at + 1 + n > WIDTH) {
			fprintf(fp, "\n%*s", (int)indent, "");
			at = indent;
		} else if (!first) {
			fputc(' ', fp);
			at++;
		}
		fwrite(s, 1, n, fp);
		at += n;
		s += n;
		first = false;
	}
	fputc('\n', fp);
}

/* Paragraphs separated by blank lines; lines starting with two blanks are
 * written as they are. */
static void paragraphs(FILE *fp, const char *s)
{
	while (*s) {
		const char *end = strstr(s, "\n\n");
		size_t n = end ? (size_t)(end - s) : strlen(s);
		char *p = gf_xstrndup(s, n);
		if (p[0] == ' ' && p[1] == ' ')
			fprintf(fp, "%s\n", p);
		else
			wrap(fp, p, 0, 0);
		free(p);
		s += n;
		if (*s)
			s += 2, fputc('\n', fp);
	}
}

static void help_row(FILE *fp, const struct cli_opt *o)
{
	char left[96];
	int n = snprintf(left, sizeof left, "  %c%c%s--%s%s%s", o->shrt ? '-' : ' ', o->shrt ? o->shrt : ' ',
			 o->shrt ? ", " : "  ", o->name, o->arg ? (o->flags & CLI_OPT_OPTIONAL ? "[=" : " ") : "",
			 o->arg ? o->arg : "");
	if (o->arg && o->flags & CLI_OPT_OPTIONAL && n < (int)sizeof left - 2)
		n += snprintf(left + n, sizeof left - (size_t)n, "]");
	fputs(left, fp);
	if (n + 1 >= OPT_COL) {
		fprintf(fp, "\n%*s", OPT_COL, "");
	} else {
		fprintf(fp, "%*s", OPT_COL - n, "");
	}
	struct sbuf h = SBUF_INIT;
	wrap(fp, help_of(o, &h), OPT_COL, OPT_COL);
	sbuf_release(&h);
}

void cliopt_help(const struct cli_command *c, FILE *fp)
{
	fprintf(fp, "usage: gpuflame %s %s\n\n", c->name, c->synopsis);
	if (c->description)
		paragraphs(fp, c->description);
	fprintf(fp, "\noptions:\n");
	for (size_t i = 0; c->opts && c->opts[i].name; i++)
		help_row(fp, &c->opts[i]);
	help_row(fp, &help_opt);
	fputc('\n', fp);
	fprintf(fp, "Exit codes: ");
	wrap(fp, c->exits ? c->exits : "0 ok, 1 bad input, 2 usage error, 3 output not written, 4 internal limit.",
	     12, 0);
	fprintf(fp, "See 'man gpuflame-%s'%s%s.\n", c->name, c->doc ? " and docs/" : "", c->doc ? c->doc : "");
}

/* ---- man pages ---- */

/* Text for troff: backslashes and dashes escaped, no line starting with a
 * control character. */
static void man_text(FILE *fp, const char *s, size_t n)
{
	bool bol = true;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (bol && (ch == '.' || ch == '\''))
			fputs("\\&", fp);
		if (ch == '\\')
			fputs("\\e", fp);
		else if (ch == '-')
			fputs("\\-", fp);
		else
			fputc(ch, fp);
		bol = ch == '\n';
	}
}

static void man_str(FILE *fp, const char *s)
{
	man_text(fp, s, strlen(s));
}

static void man_paragraphs(FILE *fp, const char *s)
{
	while (*s) {
		const char *end = strstr(s, "\n\n");
		size_t n = end ? (size_t)(end - s) : strlen(s);
		bool verb = s[0] == ' ' && s[1] == ' ';
		fputs(verb ? ".PP\n.nf\n" : ".PP\n", fp);
		man_text(fp, s, n);
		fputs(verb ? "\n.fi\n" : "\n", fp);
		s += n;
		if (*s)
			s += 2;
	}
}

static void man_opt(FILE *fp, const struct cli_opt *o)
{
	fputs(".TP\n", fp);
	if (o->shrt)
		fprintf(fp, "\\fB\\-%c\\fR, ", o->shrt);
	fputs("\\fB\\-\\-", fp);
	man_str(fp, o->name);
	fputs("\\fR", fp);
	if (o->arg) {
		fputs(o->flags & CLI_OPT_OPTIONAL ? "[=\\fI" : " \\fI", fp);
		man_str(fp, o->arg);
		fputs(o->flags & CLI_OPT_OPTIONAL ? "\\fR]" : "\\fR", fp);
	}
	fputc('\n', fp);
	struct sbuf h = SBUF_INIT;
	man_str(fp, help_of(o, &h));
	sbuf_release(&h);
	fputc('\n', fp);
	if (o->values) {
		fputs(".br\nValues: ", fp);
		for (size_t k = 0; o->values[k]; k++) {
			fputs(k ? ", " : "", fp);
			man_str(fp, o->values[k]);
		}
		fputs(".\n", fp);
	}
}

static const char man_env[] =
	".SH ENVIRONMENT\n"
	".TP\n.B GPUFLAME_THREADS\ncores for reading a trace, 1 or 2 (default: 2 when the machine has them).\n"
	".TP\n.B GPUFLAME_MAX_TOKEN\nthe longest JSON string, trace event or folded line accepted "
	"(default 64M; K, M, G, T suffixes).\n"
	".TP\n.B GPUFLAME_MAX_INPUT\nthe most bytes one input may be or decompress to (default 64G).\n"
	".TP\n.B GPUFLAME_NO_PROGRESS\nset to silence the progress line shown when standard error is a terminal.\n";

static void man_head(FILE *fp, const char *title, const char *version)
{
	fprintf(fp, ".\\\" generated by 'gpuflame --print-man'; do not edit\n");
	fprintf(fp, ".TH %s 1 \"\" \"gpuflame %s\" \"gpuflame manual\"\n", title, version);
}

static void man_see(FILE *fp, const char *doc, const char *docdir)
{
	fprintf(fp, ".SH SEE ALSO\n\\fBgpuflame\\fR(1)");
	if (doc) {
		fputs(", ", fp);
		man_str(fp, docdir);
		fputs("/docs/", fp);
		man_str(fp, doc);
	}
	fputs("\n", fp);
}

static void man_command(FILE *fp, const struct cli_command *c, const char *version, const char *docdir)
{
	char title[64];
	snprintf(title, sizeof title, "GPUFLAME-%s", c->name);
	for (char *p = title; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	man_head(fp, title, version);
	fprintf(fp, ".SH NAME\ngpuflame\\-%s \\- ", c->name);
	man_str(fp, c->summary);
	fprintf(fp, "\n.SH SYNOPSIS\n.B gpuflame %s\n", c->name);
	man_str(fp, c->synopsis);
	fputs("\n.SH DESCRIPTION\n", fp);
	man_paragraphs(fp, c->description ? c->description : c->summary);
	fputs(".SH OPTIONS\n", fp);
	for (size_t i = 0; c->opts && c->opts[i].name; i++)
		man_opt(fp, &c->opts[i]);
	man_opt(fp, &help_opt);
	fputs(".SH EXIT STATUS\n", fp);
	man_str(fp, c->exits ? c->exits : "0 ok, 1 bad input, 2 usage error, 3 output not written, 4 internal limit.");
	fputc('\n', fp);
	fputs(man_env, fp);
	man_see(fp, c->doc, docdir);
}

static void man_main(FILE *fp, const struct cli_command *const *all, size_t n, const char *version,
		     const char *docdir)
{
	man_head(fp, "GPUFLAME", version);
	fputs(".SH NAME\ngpuflame \\- flame graphs and diagnoses for LLM GPU workloads\n"
	      ".SH SYNOPSIS\n.B gpuflame\n\\fICOMMAND\\fR [\\fIoptions\\fR] [\\fIFILE\\fR...]\n"
	      ".br\n.B gpuflame\n\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR | \\fB\\-\\-print\\-man\\fR [\\fICOMMAND\\fR]"
	      " | \\fB\\-\\-print\\-completion\\fR \\fIbash\\fR|\\fIzsh\\fR\n"
	      ".SH DESCRIPTION\n"
	      "gpuflame turns PyTorch profiler (Kineto) traces and py\\-spy samples into flame graphs weighted "
	      "by GPU time, host CPU time, wall time and GPU idle time; says how much of each step the GPU was "
	      "busy and why it idled; finds the hidden host\\-device synchronisations that stall decode loops; "
	      "and diffs profiles release against release. The commands share one text format, folded stacks "
	      "(\\fBa;b;c 12\\fR), so they pipe into each other and into flamegraph.pl, inferno and speedscope.\n"
	      ".PP\nInputs are named files or standard input (\\fB\\-\\fR, or no file), plain, gzip or zstd, "
	      "detected from their bytes. Outputs go to standard output or to \\fB\\-o\\fR \\fIFILE\\fR, "
	      "written whole or not at all. Messages are one line on standard error.\n"
	      ".SH COMMANDS\n", fp);
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, ".TP\n\\fBgpuflame\\-%s\\fR(1)\n", all[i]->name);
		man_str(fp, all[i]->summary);
		fputc('\n', fp);
	}
	fputs(".SH OPTIONS\n"
	      ".TP\n\\fB\\-\\-help\\fR\nthe commands and what they do.\n"
	      ".TP\n\\fB\\-\\-version\\fR\nthe version, the input decoders and the features built in.\n"
	      ".TP\n\\fB\\-\\-print\\-man\\fR [\\fICOMMAND\\fR]\nthis page, or the page of \\fICOMMAND\\fR.\n"
	      ".TP\n\\fB\\-\\-print\\-completion\\fR \\fISHELL\\fR\nthe completion script for bash or zsh.\n"
	      ".SH EXIT STATUS\n"
	      "0 ok; 1 bad or unreadable input; 2 usage error or a refused comparison; 3 the output could not "
	      "be written; 4 internal limit or out of memory.\n", fp);
	fputs(man_env, fp);
	fputs(".SH FILES\n", fp);
	man_str(fp, docdir);
	fputs("\nREADME.md and, under docs/, the documents: cli.md (conventions), svg.md, fold.md, report.md, "
	      "diff.md, trace\\-reader.md, and the JSON Schemas of the outputs (docs/schema/).\n"
	      ".SH SEE ALSO\n", fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s\\fBgpuflame\\-%s\\fR(1)", i ? ", " : "", all[i]->name);
	fputs(", \\fBflamegraph.pl\\fR(1), \\fBpy\\-spy\\fR(1)\n", fp);
}

void cliopt_man(const struct cli_command *c, const struct cli_command *const *all, size_t n,
		const char *version, FILE *fp)
{
	const char *docdir = getenv("GPUFLAME_DOCDIR");
	if (!docdir || !*docdir)
		docdir = "/usr/local/share/doc/gpuflame";
	if (c)
		man_command(fp, c, version, docdir);
	else
		man_main(fp, all, n, version, docdir);
}

/* ---- completions ---- */

static const char *const trace_globs[] = { "*.json", "*.json.gz", "*.json.zst", NULL };
static const char *const folded_globs[] = { "*.folded", "*.folded.gz", "*.folded.zst", "*.txt", "*.txt.gz",
					    "*.txt.zst", NULL };

static void bash_globs(FILE *fp, enum cli_operand k)
{
	if (k == CLI_OPERAND_NONE)
		return;
	fputs("\t\t_gpuflame_files", fp);
	if (k != CLI_OPERAND_FOLDED)
		for (size_t i = 0; trace_globs[i]; i++)
			fprintf(fp, " '%s'", trace_globs[i]);
	if (k != CLI_OPERAND_TRACE)
		for (size_t i = 0; folded_globs[i]; i++)
			fprintf(fp, " '%s'", folded_globs[i]);
	fputs("\n", fp);
}

static void bash_words(FILE *fp, const struct cli_command *c)
{
	fputs("-h --help", fp);
	for (size_t i = 0; c->opts[i].name; i++) {
		if (c->opts[i].shrt)
			fprintf(fp, " -%c", c->opts[i].shrt);
		fprintf(fp, " --%s", c->opts[i].name);
	}
}

/* The option's values separated by blanks. */
static void values_line(FILE *fp, const struct cli_opt *o)
{
	for (size_t k = 0; o->values[k]; k++)
		fprintf(fp, "%s%s", k ? " " : "", o->values[k]);
}

static void bash_pattern(FILE *fp, const struct cli_opt *o)
{
	fputs("\t\t", fp);
	if (o->shrt)
		fprintf(fp, "-%c|", o->shrt);
	fprintf(fp, "--%s", o->name);
	if (o->flags & CLI_OPT_FILE)
		fputs(") _gpuflame_files '*'; return;;\n", fp);
	else if (o->values) {
		fprintf(fp, ") _gpuflame_%s '", o->flags & CLI_OPT_LIST ? "list" : "words");
		values_line(fp, o);
		fputs("'; return;;\n", fp);
	} else
		fputs(") return;;\n", fp);
}

static void bash(FILE *fp, const struct cli_command *const *all, size_t n)
{
	fputs("# bash completion for gpuflame (generated by 'gpuflame --print-completion bash'; do not edit)\n"
	      "_gpuflame_files() { # GLOB...: folders, and the files matching one GLOB\n"
	      "\tlocal f g IFS=$'\\n'\n"
	      "\tcompopt -o filenames 2>/dev/null\n"
	      "\tfor f in $(compgen -f -- \"$cur\"); do\n"
	      "\t\tif [ -d \"$f\" ]; then COMPREPLY+=(\"$f\"); continue; fi\n"
	      "\t\tfor g in \"$@\"; do if [[ $f == $g ]]; then COMPREPLY+=(\"$f\"); break; fi; done\n"
	      "\tdone\n"
	      "}\n"
	      "_gpuflame_words() { local IFS=$' \\t\\n'; COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")); }\n"
	      "_gpuflame_list() { # comma lists: complete the last item\n"
	      "\tlocal head=\n"
	      "\tcase $cur in *,*) head=${cur%,*},;; esac\n"
	      "\tlocal IFS=$' \\t\\n' w\n"
	      "\tfor w in $(compgen -W \"$1\" -- \"${cur##*,}\"); do COMPREPLY+=(\"$head$w\"); done\n"
	      "\tcompopt -o nospace 2>/dev/null\n"
	      "}\n"
	      "_gpuflame() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tCOMPREPLY=()\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\t_gpuflame_words '",
	      fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s ", all[i]->name);
	fputs("--help --version --print-man --print-completion'\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tcase ${COMP_WORDS[1]} in\n"
	      "\t--print-man) [ \"$COMP_CWORD\" -eq 2 ] && _gpuflame_words '",
	      fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? " " : "", all[i]->name);
	fputs("'; return;;\n"
	      "\t--print-completion) [ \"$COMP_CWORD\" -eq 2 ] && _gpuflame_words 'bash zsh'; return;;\n", fp);
	for (size_t i = 0; i < n; i++) {
		const struct cli_command *c = all[i];
		fprintf(fp, "\t%s)\n\t\tcase $prev in\n", c->name);
		for (size_t k = 0; c->opts[k].name; k++)
			if (c->opts[k].arg)
				bash_pattern(fp, &c->opts[k]);
		fputs("\t\tesac\n\t\tif [[ $cur == -* ]]; then _gpuflame_words '", fp);
		bash_words(fp, c);
		fputs("'; return; fi\n", fp);
		bash_globs(fp, c->operands);
		fputs("\t\t;;\n", fp);
	}
	fputs("\tesac\n}\ncomplete -F _gpuflame gpuflame\n", fp);
}

/* The help's first clause, without what zsh's [...] cannot hold. */
static void zsh_desc(FILE *fp, const char *s)
{
	size_t n = strcspn(s, ";:(");
	if (n > 60)
		n = 60;
	while (n && s[n - 1] == ' ')
		n--;
	for (size_t i = 0; i < n; i++)
		if (!strchr("[]'\\`$\"", s[i]))
			fputc(s[i], fp);
}

static void zsh_opt(FILE *fp, const struct cli_opt *o)
{
	const char *rep = o->flags & CLI_OPT_REPEAT ? "*" : "";
	fputs("\t\t", fp);
	/* a value: -X+ (joined or the next word), --name= (after '=' or the next word) */
	const char *sv = o->arg ? "+" : "", *lv = o->arg ? "=" : "";
	if (o->shrt)
		fprintf(fp, "'%s(-%c --%s)'%s{-%c%s,--%s%s}'", rep, o->shrt, o->name, rep, o->shrt, sv, o->name, lv);
	else
		fprintf(fp, "'%s--%s%s", rep, o->name, lv);
	fputc('[', fp);
	struct sbuf h = SBUF_INIT;
	zsh_desc(fp, help_of(o, &h));
	sbuf_release(&h);
	fputc(']', fp);
	if (o->arg) {
		fputc(':', fp);
		for (const char *a = o->arg; *a; a++)
			if (!strchr("[]:'\\`$\"", *a))
				fputc(*a, fp);
		fputc(':', fp);
		if (o->flags & CLI_OPT_FILE)
			fputs("_files", fp);
		else if (o->values) {
			fputs(o->flags & CLI_OPT_LIST ? "_sequence compadd - " : "(", fp);
			values_line(fp, o);
			fputs(o->flags & CLI_OPT_LIST ? "" : ")", fp);
		} else
			fputs(" ", fp);
	}
	fputs("' \\\n", fp);
}

static void zsh_operands(FILE *fp, enum cli_operand k)
{
	if (k == CLI_OPERAND_NONE)
		return;
	fputs("\t\t'*:file:_files -g \"", fp);
	bool any = false;
	fputs("(", fp);
	if (k != CLI_OPERAND_FOLDED)
		for (size_t i = 0; trace_globs[i]; i++, any = true)
			fprintf(fp, "%s%s", any ? "|" : "", trace_globs[i]);
	if (k != CLI_OPERAND_TRACE)
		for (size_t i = 0; folded_globs[i]; i++, any = true)
			fprintf(fp, "%s%s", any ? "|" : "", folded_globs[i]);
	fputs(")(-.)\"' \\\n", fp);
}

static void zsh(FILE *fp, const struct cli_command *const *all, size_t n)
{
	fputs("#compdef gpuflame\n"
	      "# zsh completion for gpuflame (generated by 'gpuflame --print-completion zsh'; do not edit)\n", fp);
	for (size_t i = 0; i < n; i++) {
		const struct cli_command *c = all[i];
		fprintf(fp, "_gpuflame_%s() {\n\t_arguments -s -S \\\n", c->name);
		for (size_t k = 0; c->opts[k].name; k++)
			zsh_opt(fp, &c->opts[k]);
		zsh_opt(fp, &help_opt);
		zsh_operands(fp, c->operands);
		fputs("\t\t&& return 0\n\treturn 1\n}\n", fp);
	}
	fputs("_gpuflame() {\n\tlocal -a cmds\n\tcmds=(\n", fp);
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "\t\t'%s:", all[i]->name);
		zsh_desc(fp, all[i]->summary);
		fputs("'\n", fp);
	}
	fputs("\t)\n"
	      "\tif (( CURRENT == 2 )); then\n"
	      "\t\t_describe -t commands 'gpuflame command' cmds\n"
	      "\t\t_arguments '--help[the commands]' '--version[version and features]' "
	      "'--print-man[a man page]' '--print-completion[a completion script]:shell:(bash zsh)'\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal cmd=$words[2]\n"
	      "\tshift words\n"
	      "\t(( CURRENT-- ))\n"
	      "\tcurcontext=\"${curcontext%:*:*}:gpuflame-$cmd:\"\n"
	      "\t(( $+functions[_gpuflame_$cmd] )) && _gpuflame_$cmd\n"
	      "}\n"
	      "_gpuflame \"$@\"\n",
	      fp);
}

bool cliopt_completion(const char *shell, const struct cli_command *const *all, size_t n, FILE *fp)
{
	if (!strcmp(shell, "bash"))
		bash(fp, all, n);
	else if (!strcmp(shell, "zsh"))
		zsh(fp, all, n);
	else
		return false;
	return true;
}
