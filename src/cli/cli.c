/* cli.c — messages, exits and option helpers shared by the subcommands. */
#include "cli/cli.h"
#include "cli/cliopt.h"
#include "cli/values.h"

#include "base/num.h"
#include "input/input.h"
#include "stacks/folded.h"
#include "stacks/import.h"
#include "stacks/ftree.h"

#include "base/ofile.h"
#include "trace/model/trace.h"
#include "trace/model/trace_sel.h"
#include "base/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *cli_cmd = NULL;

static void prefix(void)
{
	if (cli_cmd)
		fprintf(stderr, "gpuflame %s: ", cli_cmd);
	else
		fputs("gpuflame: ", stderr);
}

/* ---- process set-up and the end of stdout ---- */

static bool stdout_done; /* checked and closed, or dying anyway */
static bool stdout_lost; /* cli_done could not write: said on stderr, the exit code stands */

static int close_stdout(void)
{
	if (stdout_done)
		return 0;
	stdout_done = true;
	int e = errno;
	bool bad = ferror(stdout) != 0;
	if (fclose(stdout) != 0) {
		bad = true;
		e = errno;
	}
	if (!bad || stdout_lost)
		return 0;
	prefix();
	fprintf(stderr, "write failure on standard output: %s\n", strerror(e ? e : EIO));
	return GF_EXIT_OUTPUT;
}

/* An exit(0) from a command (e.g. after --help) still checks stdout; error
 * exits set stdout_done first, so their code stands. */
static void close_stdout_at_exit(void)
{
	if (close_stdout())
		_exit(GF_EXIT_OUTPUT);
}

int cli_finish(int rc)
{
	if (rc) {
		stdout_done = true;
		fflush(stdout);
		return rc;
	}
	return close_stdout();
}

static void on_oom(void)
{
	stdout_done = true;
	ofile_remove_temps();
}

static void on_signal(int sig)
{
	/* async-signal-safe: unlink(2), then die of the same signal (the
	 * handler was reset to the default by SA_RESETHAND) */
	ofile_remove_temps();
	raise(sig);
}

void cli_init(void)
{
	cli_values_init(); /* the option values from the library's tables */
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		int r = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (r >= 0 && r != fd)
			close(r); /* cannot happen: the lower ones are open */
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	for (size_t i = 0; i < GF_ARRAY_LEN(sigs); i++) {
		struct sigaction old;
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	gf_oom_hook = on_oom;
	atexit(close_stdout_at_exit);
	/* large blocks in transparent huge pages, unless GPUFLAME_HUGEPAGES=0 */
	const char *hp = getenv("GPUFLAME_HUGEPAGES");
	gf_alloc_hugepages(!hp || !*hp || cli_int("GPUFLAME_HUGEPAGES", hp, 0, 1) != 0);
}

/* Writes one message line: names and values inside it are untrusted, so
 * control bytes (a newline or ESC in a file name), bidi controls and invalid
 * UTF-8 are shown escaped (esc_term): a message stays one line and never
 * drives the terminal. */
static void message_raw(const char *what, const struct sbuf *raw)
{
	struct sbuf shown = SBUF_INIT;
	esc_term(&shown, raw->buf ? raw->buf : "", raw->len);
	prefix();
	if (what)
		fputs(what, stderr);
	fwrite(shown.buf ? shown.buf : "", 1, shown.len, stderr);
	fputc('\n', stderr);
	sbuf_release(&shown);
}

static void message(const char *what, const char *fmt, va_list ap)
{
	struct sbuf raw = SBUF_INIT;
	sbuf_vaddf(&raw, fmt, ap);
	message_raw(what, &raw);
	sbuf_release(&raw);
}

static void close_inputs(void);

void cli_die(int exit_code, const char *fmt, ...)
{
	/* the message first: its arguments may point into the inputs closed next */
	struct sbuf raw = SBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	ofile_remove_temps();
	close_inputs();
	cli_progress_done();
	stdout_done = true;
	fflush(stdout);
	message_raw(NULL, &raw);
	exit(exit_code);
}

static bool quiet;

void cli_set_quiet(bool q)
{
	quiet = q;
}

void cli_note(const char *fmt, ...)
{
	if (quiet)
		return;
	cli_progress_done();
	va_list ap;
	va_start(ap, fmt);
	message("note: ", fmt, ap);
	va_end(ap);
}

void cli_done(const char *fmt, ...)
{
	struct sbuf raw = SBUF_INIT, line = SBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	esc_term(&line, raw.buf ? raw.buf : "", raw.len); /* names are the user's: no control byte reaches the terminal */
	sbuf_release(&raw);
	/* a closed pipe is an error here, not a signal that would hide the work done */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	errno = 0;
	bool bad = stdout_lost || fprintf(stdout, "%s\n", line.buf) < 0 || fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	sigaction(SIGPIPE, &old, NULL);
	if (bad) {
		prefix();
		if (stdout_lost)
			fprintf(stderr, "%s\n", line.buf);
		else
			fprintf(stderr, "standard output failed (%s); %s\n", strerror(e ? e : EIO), line.buf);
		stdout_lost = true;
	}
	sbuf_release(&line);
}

void cli_warn(const char *fmt, ...)
{
	if (quiet)
		return;
	cli_progress_done();
	va_list ap;
	va_start(ap, fmt);
	message("warning: ", fmt, ap);
	va_end(ap);
}

void cli_usage_error(const char *fmt, ...)
{
	struct sbuf raw = SBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	sbuf_addf(&raw, " (see 'gpuflame %s%s--help')", cli_cmd ? cli_cmd : "", cli_cmd ? " " : "");
	message_raw(NULL, &raw);
	sbuf_release(&raw);
	stdout_done = true;
	exit(GF_EXIT_USAGE);
}

static int progress_state = -1;
static bool progress_shown;

bool cli_progress_enabled(void)
{
	if (progress_state < 0)
		progress_state = isatty(STDERR_FILENO) && !getenv("GPUFLAME_NO_PROGRESS");
	return progress_state;
}

unsigned cli_threads(const char *set)
{
	if (set)
		return (unsigned)cli_int("--threads", set, 1, 2);
	const char *env = getenv("GPUFLAME_THREADS");
	if (!env || !*env)
		return 0;
	return (unsigned)cli_int("GPUFLAME_THREADS", env, 1, 2);
}

void cli_progress(const char *fmt, ...)
{
	if (!cli_progress_enabled())
		return;
	char line[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	progress_shown = true;
}

void cli_progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		progress_shown = false;
	}
}

/* The index of val among names; a bad value is a usage error naming opt,
 * the nearest value and every valid one. */
int cli_choice(const char *opt, const char *val, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], val))
			return i;
	struct sbuf b = SBUF_INIT, shown = SBUF_INIT;
	const char *near = NULL;
	size_t best = strlen(val) >= 4 ? 3 : 2;
	for (int i = 0; names[i]; i++) {
		sbuf_addf(&b, "%s%s", i ? ", " : "", names[i]);
		size_t d = cliopt_distance(val, names[i]);
		if (d < best) {
			best = d;
			near = names[i];
		}
	}
	esc_term(&shown, val, strlen(val));
	prefix();
	fprintf(stderr, "invalid argument '%s' for '%s'; %s%s%svalid arguments are: %s\n", shown.buf, opt,
		near ? "did you mean '" : "", near ? near : "", near ? "'? " : "", b.buf);
	sbuf_release(&shown);
	sbuf_release(&b);
	stdout_done = true;
	exit(GF_EXIT_USAGE);
}

int cli_pick(const struct cli_command *c, int id, const char *val)
{
	const struct cli_opt *o = cliopt_find(c, id);
	if (!o || !o->values)
		cli_die(GF_EXIT_INTERNAL, "internal: '%s' has no option %d with values", c->name, id);
	struct sbuf opt = SBUF_INIT;
	sbuf_addf(&opt, "--%s", o->name);
	int k = cli_choice(opt.buf, val, o->values);
	sbuf_release(&opt);
	return k;
}

double cli_double(const char *opt, const char *val)
{
	char *end;
	errno = 0;
	double d = strtod(val, &end);
	if (!*val || *end || errno || d != d)
		cli_usage_error("invalid number '%s' for '%s'", val, opt);
	return d;
}

long long cli_int(const char *opt, const char *val, long long min, long long max)
{
	char *end;
	errno = 0;
	long long v = strtoll(val, &end, 10);
	if (!*val || *end || errno || v < min || v > max)
		cli_usage_error("invalid value '%s' for '%s' (expected an integer from %lld to %lld)",
				val, opt, min, max);
	return v;
}

const char *cli_in_name(const char *path)
{
	return !path || !strcmp(path, "-") ? "<stdin>" : path;
}

const char *cli_source_name(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return "<stdin>";
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void cli_steps(const char *opt, const char *arg, int64_t *first, int64_t *last)
{
	struct trace_sel sel;
	struct sbuf err = SBUF_INIT;
	trace_sel_init(&sel);
	if (trace_sel_parse(&sel, opt, arg, &err))
		cli_usage_error("%s", err.buf);
	*first = sel.first;
	*last = sel.last;
	sbuf_release(&err);
}

const char *cli_nonempty(const char *opt, const char *val)
{
	if (!*val)
		cli_usage_error("empty argument for '%s'", opt);
	return val;
}

void cli_progress_reading(void *ctx, uint64_t done, uint64_t total)
{
	const char *name = ctx;
	if (total)
		cli_progress("reading %s: %llu / %llu MB", name, (unsigned long long)(done >> 20),
			     (unsigned long long)(total >> 20));
	else
		cli_progress("reading %s: %llu MB", name, (unsigned long long)(done >> 20));
}

const struct cli_command *cli_def = NULL;

/* No file named and stdin a terminal: say what it waits for, rather than
 * wait without a word. */
static void stdin_note(void)
{
	static const char *const what[] = { "input", "a trace", "folded stacks", "a trace or folded stacks" };
	int k = cli_def ? (int)cli_def->operands : 0;
	prefix();
	fprintf(stderr, "reading %s from standard input (a terminal; end with Ctrl-D, or name a FILE; '-' reads "
			"standard input without this note)\n",
		what[k >= 0 && k < 4 ? k : 0]);
}

char **cli_inputs(int argc, char **argv, int optind_, size_t *n)
{
	static char dash[] = "-";
	static char *stdin_only[] = { dash };
	if (optind_ >= argc) {
		*n = 1;
		if (isatty(STDIN_FILENO))
			stdin_note();
		return stdin_only;
	}
	*n = (size_t)(argc - optind_);
	size_t nstdin = 0;
	for (size_t i = 0; i < *n; i++)
		nstdin += !strcmp(argv[optind_ + i], "-");
	if (nstdin > 1)
		cli_usage_error("stdin ('-') can be given only once");
	return argv + optind_;
}

/* The inputs open now: cli_die closes them (their inflate threads stop,
 * nothing is left behind). */
static struct input **open_ins;
static size_t n_open, cap_open;

static void close_inputs(void)
{
	while (n_open)
		input_close(open_ins[--n_open]);
	free(open_ins);
	open_ins = NULL;
	cap_open = 0;
}

static void register_input(struct input *in)
{
	if (n_open == cap_open) {
		cap_open = cap_open ? 2 * cap_open : 8;
		open_ins = gf_xreallocarray(open_ins, cap_open, sizeof *open_ins);
	}
	open_ins[n_open++] = in;
}

struct input *cli_open_raw(const char *path, unsigned threads)
{
	struct input *in;
	struct sbuf err = SBUF_INIT;
	int rc = input_open(&in, path ? path : "-", threads, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	sbuf_release(&err);
	register_input(in);
	return in;
}

void cli_import_warn(const struct import_stats *st, const char *name, int kind)
{
	if (st->skipped)
		cli_warn("'%s': %llu samples of event '%s' left out: only the first event type, '%s', is counted "
			 "(stackcollapse-perf.pl's rule)",
			 name, (unsigned long long)st->skipped, st->other_event, st->event);
	if (st->unterminated)
		cli_warn("'%s': the last sample has no blank line after it: left out, as stackcollapse-perf.pl does "
			 "(the file may be cut)", name);
	if (st->unrecognized)
		cli_warn("'%s': ignored %llu unrecognized line%s of %s (first at line %llu)", name,
			 (unsigned long long)st->unrecognized, st->unrecognized == 1 ? "" : "s", import_kind_name(kind),
			 (unsigned long long)st->first_bad);
}

struct input *cli_import(struct input *in, int kind, const struct import_opts *o)
{
	struct sbuf err = SBUF_INIT;
	struct import_stats st;
	struct input *conv;
	int rc = import_open(&conv, in, kind, o, &st, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_import_warn(&st, input_name(in), kind);
	cli_close_input(in);
	register_input(conv);
	sbuf_release(&err);
	return conv;
}

struct input *cli_open_input_with(const char *path, unsigned threads, const struct import_opts *o)
{
	struct input *in = cli_open_raw(path, threads);
	int kind = import_kind(in);
	if (kind == IMPORT_NONE)
		return in;
	return cli_import(in, kind, o);
}

struct input *cli_open_input(const char *path, unsigned threads)
{
	return cli_open_input_with(path, threads, NULL);
}

void cli_close_input(struct input *in)
{
	for (size_t i = n_open; i-- > 0;) {
		if (open_ins[i] == in) {
			open_ins[i] = open_ins[--n_open];
			break;
		}
	}
	input_close(in);
	if (!n_open)
		close_inputs();
}

bool cli_input_is_trace(struct input *in)
{
	int f = input_format(in);
	if (f != INPUT_TRACE && f != INPUT_FOLDED)
		cli_check_kind(in, INPUT_FOLDED); /* speedscope, perf script...: dies with the hint */
	return input_trace_likely(in);
}

void cli_check_kind(struct input *in, int want)
{
	if (input_format(in) == want)
		return;
	struct sbuf err = SBUF_INIT;
	input_hint(&err, in, want, cli_cmd);
	cli_die(GF_EXIT_INPUT, "%s", err.buf);
}

/* ---- one rank per graph (svg, top): the rank= of each input's header ---- */

static bool ranks_guarded;
static char *first_rank, *first_rank_file;

void cli_guard_ranks(bool on)
{
	ranks_guarded = on;
}

/* The rank= of the '# gpuflame:' header lines at the top of the input's
 * first bytes (the peek window: nothing is read twice), into m. */
static void peek_meta(struct input *in, struct ftree_meta *m)
{
	size_t n;
	const char *p = input_peek(in, &n), *end = p + n;
	static const char prefix[] = "# gpuflame:";
	while (p && p < end && *p == '#') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		if ((size_t)(nl - p) > sizeof prefix - 1 && !memcmp(p, prefix, sizeof prefix - 1))
			folded_parse_meta(p + sizeof prefix - 1, (size_t)(nl - p) - (sizeof prefix - 1), m);
		p = nl + 1;
	}
}

static void check_rank(struct input *in)
{
	struct ftree_meta m;
	memset(&m, 0, sizeof m);
	peek_meta(in, &m);
	const char *r = ftree_meta_get(&m, "rank");
	if (r && !first_rank) {
		first_rank = gf_xstrdup(r);
		first_rank_file = gf_xstrdup(input_name(in));
	} else if (r && strcmp(r, first_rank)) {
		struct sbuf a = SBUF_INIT, b = SBUF_INIT;
		esc_term(&a, r, strlen(r));
		esc_term(&b, first_rank, strlen(first_rank));
		cli_die(GF_EXIT_USAGE, "'%s': rank '%s' differs from rank '%s' in '%s'; refusing to add up ranks "
				       "(a sum of ranks hides the straggler: compare them with 'gpuflame report', or "
				       "use --allow-ranks)",
			input_name(in), a.buf, b.buf, first_rank_file);
	}
	ftree_meta_clear(&m);
}

struct input *cli_open_folded(const char *path, unsigned threads)
{
	struct input *in = cli_open_input(path, threads);
	cli_check_kind(in, INPUT_FOLDED);
	if (ranks_guarded)
		check_rank(in);
	return in;
}

void cli_warn_invalid(uint64_t n, const char *first)
{
	if (n)
		cli_warn("ignored %llu invalid line%s (first at %s)", (unsigned long long)n, n == 1 ? "" : "s",
			 first);
}

void cli_folded_warn(const struct folded_stats *st, const char *name)
{
	if (!st->invalid)
		return;
	struct sbuf first = SBUF_INIT;
	sbuf_setf(&first, "'%s': line %llu: expected %s", name, (unsigned long long)st->first_invalid_line,
		  st->first_invalid_why);
	cli_warn_invalid(st->invalid, first.buf);
	sbuf_release(&first);
}

bool cli_out_terminal(const char *path)
{
	return (!path || !strcmp(path, "-")) && isatty(STDOUT_FILENO);
}

void cli_write_with(const char *path, int (*write)(struct ofile *of, void *arg, struct sbuf *err), void *arg)
{
	struct sbuf err = SBUF_INIT;
	struct ofile of;
	if (ofile_open(&of, path, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	int rc = write(&of, arg, &err);
	if (!rc && ferror(of.fp))
		rc = GF_EOUTPUT;
	if (rc == GF_EOUTPUT && !err.len)
		ofile_write_error(&of, errno, &err);
	if (rc) {
		ofile_abort(&of);
		cli_die(gf_err_exit(rc), "%s", err.buf);
	}
	if (ofile_commit(&of, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	sbuf_release(&err);
}

static int write_sbuf(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct sbuf *out = arg;
	fwrite(out->buf, 1, out->len, of->fp);
	return GF_OK;
}

void cli_write_out(const char *path, const struct sbuf *out)
{
	cli_write_with(path, write_sbuf, (void *)out);
}

struct tree_job {
	int (*write)(FILE *fp, const struct ftree *t, bool terminal);
	const struct ftree *t;
	bool terminal;
};

static int write_tree(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct tree_job *j = arg;
	return j->write(of->fp, j->t, j->terminal) ? GF_EOUTPUT : GF_OK;
}

void cli_write_tree(const char *path, int (*write)(FILE *fp, const struct ftree *t, bool terminal),
		    const struct ftree *t)
{
	struct tree_job j = { write, t, cli_out_terminal(path) };
	cli_write_with(path, write_tree, &j);
}

void cli_folded_count(struct cli_folded_totals *tt, const struct folded_stats *st, const char *name)
{
	if (st->invalid && !tt->invalid)
		sbuf_setf(&tt->first, "'%s': line %llu: expected %s", name,
			  (unsigned long long)st->first_invalid_line, st->first_invalid_why);
	tt->stacks += st->stacks;
	tt->invalid += st->invalid;
	tt->rounded += st->rounded;
	if (tt->files++ < 4)
		sbuf_addf(&tt->names, "%s'%s'", tt->names.len ? ", " : "", name);
	else if (tt->files == 5)
		sbuf_addstr(&tt->names, ", ...");
}

void cli_folded_report(struct cli_folded_totals *tt)
{
	if (tt->rounded)
		cli_warn("%llu counts had more than %d decimals and were rounded",
			 (unsigned long long)tt->rounded, NUM_MAX_SCALE);
	if (!tt->stacks) {
		if (tt->invalid)
			cli_die(GF_EXIT_INPUT, "%s: no valid stack lines (%llu invalid, first at %s)", tt->names.buf,
				(unsigned long long)tt->invalid, tt->first.buf);
		cli_die(GF_EXIT_INPUT, "%s: no stack lines (expected 'frame;frame count' lines)", tt->names.buf);
	}
	cli_warn_invalid(tt->invalid, tt->first.buf);
	sbuf_release(&tt->first);
	sbuf_release(&tt->names);
}

void cli_read_folded(struct ftree *t, int nfiles, char **files, const struct folded_opts *fo)
{
	struct cli_folded_totals tt = CLI_FOLDED_TOTALS_INIT;
	struct sbuf err = SBUF_INIT;
	for (int i = 0; i < nfiles; i++) {
		struct input *in = cli_open_folded(files[i], 0);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		int rc = folded_read_in(t, in, fo, &st, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		cli_folded_count(&tt, &st, input_name(in));
		cli_close_input(in);
	}
	cli_folded_report(&tt);
	sbuf_release(&err);
}

void cli_trace_warnings(const struct trace *t, const char *name, struct sbuf *lines)
{
	struct sbuf m = SBUF_INIT;
	if (t->meta.truncated)
		sbuf_addf(lines, "'%s': the trace is truncated; only the events before the cut were read\n", name);
	if (t->warn.unweighted) {
		trace_msg_unweighted(&m, t->warn.unweighted);
		sbuf_addf(lines, "'%s': %s\n", name, m.buf);
	}
	if (t->warn.corr_shared || t->warn.cross_process) {
		sbuf_reset(&m);
		trace_msg_cross_process(&m, t);
		sbuf_addf(lines, "'%s': %s\n", name, m.buf);
	}
	sbuf_release(&m);
}

void cli_warn_lines(const struct sbuf *lines)
{
	for (size_t i = 0; i < lines->len;) {
		const char *nl = memchr(lines->buf + i, '\n', lines->len - i);
		size_t e = nl ? (size_t)(nl - lines->buf) : lines->len;
		cli_warn("%.*s", (int)(e - i), lines->buf + i);
		i = e + 1;
	}
}

void cli_warn_trace(const struct trace *t, const char *name)
{
	struct sbuf lines = SBUF_INIT;
	cli_trace_warnings(t, name, &lines);
	cli_warn_lines(&lines);
	sbuf_release(&lines);
}
