/* cli.c — messages, exits and option helpers shared by the subcommands. */
#include "cli.h"

#include <errno.h>
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

void cli_die(int exit_code, const char *fmt, ...)
{
	cli_progress_done();
	fflush(stdout);
	prefix();
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(exit_code);
}

void cli_warn(const char *fmt, ...)
{
	cli_progress_done();
	prefix();
	fputs("warning: ", stderr);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_usage_error(const char *fmt, ...)
{
	prefix();
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fprintf(stderr, "Try 'gpuflame %s --help' for more information.\n", cli_cmd ? cli_cmd : "");
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

int cli_choice(const char *opt, const char *val, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], val))
			return i;
	struct sbuf b = SBUF_INIT;
	for (int i = 0; names[i]; i++)
		sbuf_addf(&b, "%s%s", i ? ", " : "", names[i]);
	prefix();
	fprintf(stderr, "invalid argument '%s' for '%s'; valid arguments are: %s\n", val, opt, b.buf);
	sbuf_release(&b);
	exit(GF_EXIT_USAGE);
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

FILE *cli_open_in(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdin;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		cli_die(GF_EXIT_INPUT, "cannot open '%s': %s", path, strerror(errno));
	return fp;
}

void cli_close_in(FILE *fp)
{
	if (fp && fp != stdin)
		fclose(fp);
}
