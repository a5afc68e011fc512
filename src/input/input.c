/*
 * input.c — the one opener (a source plus a peek window, a view, a second
 * pass) and the one sniffer of inputs (see input.h).
 */
#include "input/input.h"

#include "input/source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct input {
	struct source *src;
	char *path;       /* as given: "-" for stdin */
	char *name;       /* for messages: "<stdin>" for "-"; lives until input_close */
	unsigned threads;
	bool mem;
	const void *mem_buf;
	size_t mem_len;
	char peek[INPUT_PEEK];
	size_t npeek, peek_pos;
	bool peek_eof;    /* the whole input fits in the window */
	int format;
	bool mapped;
	void *owned;      /* input_open_owned: freed by input_close */
	bool format_given; /* input_open_owned: format not sniffed */
	/* input_open_obj: the object, its text once made (after the head, which
	 * is the peek window), the read position in it */
	void *obj;
	const struct input_obj_ops *obj_ops;
	struct sbuf obj_text;
	size_t obj_pos;
	bool obj_made;
};

/* ---- the sniffer ---- */

static bool json_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The first index at or after i that is not a JSON blank. */
static size_t skip_ws(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && json_ws(b[i]))
		i++;
	return i;
}

static bool has(const unsigned char *b, size_t n, const char *s)
{
	size_t k = strlen(s);
	for (size_t i = 0; i + k <= n; i++)
		if (b[i] == (unsigned char)s[0] && !memcmp(b + i, s, k))
			return true;
	return false;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* A line of b[s..e) holds a token "<digits>.<digits>:" (perf script's
 * timestamp) preceded by a blank. */
static bool has_timestamp(const unsigned char *b, size_t s, size_t e)
{
	for (size_t i = s + 1; i < e; i++) {
		if (!is_digit(b[i]) || (b[i - 1] != ' ' && b[i - 1] != '\t'))
			continue;
		size_t j = i;
		while (j < e && is_digit(b[j]))
			j++;
		if (j >= e || b[j] != '.')
			continue;
		size_t k = ++j;
		while (j < e && is_digit(b[j]))
			j++;
		if (j > k && j < e && b[j] == ':')
			return true;
	}
	return false;
}

/* A line of b[s..e) ends in a token ending in ':' (perf script's event
 * name, "cpu-clock:") after a blank, trailing blanks aside. */
static bool ends_in_event(const unsigned char *b, size_t s, size_t e)
{
	while (e > s && (b[e - 1] == ' ' || b[e - 1] == '\t' || b[e - 1] == '\r'))
		e--;
	if (e - s < 3 || b[e - 1] != ':' || b[e - 2] == ' ' || b[e - 2] == '\t')
		return false;
	for (size_t i = s; i < e; i++)
		if (b[i] == ' ' || b[i] == '\t')
			return true;
	return false;
}

/* perf script: a sample header line with a timestamp or ending in an
 * event name ("comm 123 cpu-clock:", perf script without -F time), then a frame line
 * (blank, hex address). '#' and blank lines before them are skipped. */
static bool is_perf_script(const unsigned char *b, size_t n)
{
	size_t i = 0;
	for (;;) {
		if (i >= n)
			return false;
		const unsigned char *nl = memchr(b + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - b) : n;
		size_t k = i;
		while (k < e && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r'))
			k++;
		if (k == e || b[i] == '#') {
			if (!nl)
				return false;
			i = e + 1;
			continue;
		}
		if (!nl || b[i] == ' ' || b[i] == '\t' || (!has_timestamp(b, i, e) && !ends_in_event(b, i, e)))
			return false;
		size_t j = e + 1;
		/* frame lines are indented (perf 3.x and older printed them at
		 * column 0: then the event line must end in an event name) */
		if (j >= n || ((b[j] != ' ' && b[j] != '\t') && !ends_in_event(b, i, e)))
			return false;
		while (j < n && (b[j] == ' ' || b[j] == '\t'))
			j++;
		size_t h = j;
		while (j < n && is_hex(b[j]))
			j++;
		return j > h && (j == n || b[j] == ' ' || b[j] == '\t');
	}
}

/* The first index after a UTF-8 byte order mark and JSON blanks. */
static size_t skip_bom_ws(const unsigned char *b, size_t n)
{
	size_t i = n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
	return skip_ws(b, n, i);
}

/* At b[j] (the first key of an object): "schema": "gpuflame.summary/ */
static bool is_summary(const unsigned char *b, size_t n, size_t j)
{
	static const char key[] = "\"schema\"", val[] = "\"gpuflame.summary/";
	if (n - j < sizeof key - 1 || memcmp(b + j, key, sizeof key - 1))
		return false;
	j = skip_ws(b, n, j + sizeof key - 1);
	if (j >= n || b[j] != ':')
		return false;
	j = skip_ws(b, n, j + 1);
	return n - j >= sizeof val - 1 && !memcmp(b + j, val, sizeof val - 1);
}

int input_sniff(const void *data, size_t n)
{
	const unsigned char *b = data;
	static const char sqlite[] = "SQLite format 3"; /* and a NUL */
	if (n >= sizeof sqlite && !memcmp(b, sqlite, sizeof sqlite))
		return INPUT_NSYS_SQLITE;
	/* pprof: Profile.sample_type (field 1, length-delimited) holding a
	 * ValueType whose first field is type (field 1, varint) */
	if (n >= 3 && b[0] == 0x0a && b[1] > 0 && b[1] < 0x80 && b[2] == 0x08)
		return INPUT_PPROF;
	size_t i = skip_bom_ws(b, n);
	if (i < n && b[i] == '{') {
		size_t j = skip_ws(b, n, i + 1);
		if (j == n || b[j] == '"' || b[j] == '}') {
			if (is_summary(b, n, j))
				return INPUT_SUMMARY;
			if (has(b + i, n - i, "\"$schema\"") && has(b + i, n - i, "speedscope"))
				return INPUT_SPEEDSCOPE;
			return INPUT_TRACE;
		}
	}
	if (i < n && b[i] == '[') {
		size_t j = skip_ws(b, n, i + 1);
		if (j < n && b[j] == '{' && has(b + i, n - i, "\"cat\":\"py-spy\""))
			return INPUT_PYSPY_CHROME;
		if (j == n || b[j] == '{' || b[j] == ']')
			return INPUT_TRACE;
	}
	if (is_perf_script(b, n))
		return INPUT_PERF_SCRIPT;
	return INPUT_FOLDED;
}

const char *input_format_name(int format)
{
	switch (format) {
	case INPUT_TRACE: return "a PyTorch profiler trace";
	case INPUT_SPEEDSCOPE: return "a speedscope profile";
	case INPUT_PERF_SCRIPT: return "perf script output";
	case INPUT_PYSPY_CHROME: return "py-spy chrometrace output";
	case INPUT_PPROF: return "a pprof profile";
	case INPUT_NSYS_SQLITE: return "an SQLite database (an Nsight Systems export?)";
	case INPUT_SUMMARY: return "a gpuflame summary";
	default: return "folded stacks";
	}
}

bool input_format_read(int format)
{
	return format == INPUT_FOLDED || format == INPUT_TRACE || format == INPUT_SPEEDSCOPE ||
	       format == INPUT_PERF_SCRIPT;
}

/* ---- the hint ---- */

/* Appends path as a shell word: as is when it holds only safe bytes, else
 * in single quotes ('\'' for a quote). */
static void add_word(struct sbuf *b, const char *p)
{
	size_t n = strlen(p);
	bool safe = n > 0;
	for (size_t i = 0; i < n && safe; i++) {
		unsigned char c = (unsigned char)p[i];
		safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
		       strchr("._/+-=,:@%", c) != NULL;
	}
	if (safe) {
		sbuf_add(b, p, n);
		return;
	}
	sbuf_addch(b, '\'');
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\'')
			sbuf_addstr(b, "'\\''");
		else
			sbuf_addch(b, p[i]);
	}
	sbuf_addch(b, '\'');
}

int input_hint_for(struct sbuf *err, const char *path, int got, int want, const char *cmd)
{
	bool is_stdin = !path || !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	sbuf_reset(err);
	sbuf_addf(err, "'%s' is %s, not %s", name, input_format_name(got), input_format_name(want));
	if (want == INPUT_FOLDED && got == INPUT_TRACE) {
		sbuf_addstr(err, ": run '");
		if (is_stdin) {
			sbuf_addstr(err, "gpuflame fold");
		} else {
			sbuf_addstr(err, "gpuflame fold ");
			add_word(err, path);
		}
		sbuf_addf(err, " | gpuflame %s'", cmd ? cmd : "svg");
	} else if (want == INPUT_TRACE && got == INPUT_FOLDED) {
		sbuf_addstr(err, ": run 'gpuflame svg");
		if (!is_stdin) {
			sbuf_addch(err, ' ');
			add_word(err, path);
		}
		sbuf_addstr(err, "' (or top, merge, norm, diff)");
	} else if (want == INPUT_TRACE && (got == INPUT_SPEEDSCOPE || got == INPUT_PERF_SCRIPT ||
					   got == INPUT_PYSPY_CHROME)) {
		sbuf_addstr(err, ": run 'gpuflame svg");
		if (!is_stdin) {
			sbuf_addch(err, ' ');
			add_word(err, path);
		}
		sbuf_addstr(err, "' (or fold, top, merge, norm, diff)");
	} else if (got == INPUT_SUMMARY) {
		sbuf_addstr(err, ": run 'gpuflame report --from-summaries ");
		add_word(err, is_stdin ? "-" : path);
		sbuf_addch(err, '\'');
	} else if (want == INPUT_SUMMARY && got == INPUT_TRACE) {
		sbuf_addstr(err, ": run 'gpuflame summarise ");
		add_word(err, is_stdin ? "-" : path);
		sbuf_addstr(err, " -o RANK.summary.json.zst' first");
	} else if (got == INPUT_NSYS_SQLITE && !is_stdin) {
		/* a gpuflame store is one (docs/store.md) */
		sbuf_addstr(err, ": a gpuflame store? run 'gpuflame store list --db ");
		add_word(err, path);
		sbuf_addstr(err, "' (an Nsight Systems export cannot be read yet)");
	} else {
		sbuf_addstr(err, "; gpuflame cannot read it yet: convert it to folded stacks");
	}
	return GF_EINPUT;
}

int input_hint(struct sbuf *err, const struct input *in, int want, const char *cmd)
{
	return input_hint_for(err, in->path, in->format, want, cmd);
}

/* The first line of b[0..n) that is not blank or a '#' comment ends with a
 * count ("frames 12", "frames 10 14", "frames 2.5"), and holds no NUL. */
static bool looks_folded(const unsigned char *b, size_t n)
{
	size_t i = 0;
	while (i < n) {
		const unsigned char *nl = memchr(b + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - b) : n;
		size_t k = e;
		while (k > i && (b[k - 1] == ' ' || b[k - 1] == '\t' || b[k - 1] == '\r'))
			k--;
		if (k == i || (b[i] == '#' && (k == i + 1 || b[i + 1] == ' ' || b[i + 1] == '\t'))) {
			i = e + 1;
			continue;
		}
		if (memchr(b + i, 0, k - i))
			return false;
		size_t d = k;
		while (d > i && (is_digit(b[d - 1]) || b[d - 1] == '.'))
			d--;
		return d < k && is_digit(b[d]) && d > i && (b[d - 1] == ' ' || b[d - 1] == '\t');
	}
	return false;
}

bool input_plainly_other(const struct input *in, int want)
{
	int f = input_format(in);
	if (f == want)
		return false;
	if (f == INPUT_FOLDED)
		return looks_folded((const unsigned char *)in->peek, in->npeek);
	return true;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

bool input_trace_likely(const struct input *in)
{
	if (in->format == INPUT_TRACE)
		return true;
	if (in->format_given) /* input_open_owned: the caller knows */
		return false;
	if (in->format != INPUT_FOLDED || input_plainly_other(in, INPUT_TRACE))
		return false;
	const unsigned char *b = (const unsigned char *)in->peek;
	size_t i = skip_bom_ws(b, in->npeek);
	return (i < in->npeek && (b[i] == '{' || b[i] == '[')) || ends_with(in->path, ".json") ||
	       ends_with(in->path, ".json.gz") || ends_with(in->path, ".json.zst");
}

/* ---- the opener ---- */

/* Fills the peek window from a fresh source and sniffs it. */
static int fill_peek(struct input *in, struct sbuf *err)
{
	in->npeek = in->peek_pos = 0;
	in->peek_eof = false;
	while (in->npeek < INPUT_PEEK) {
		size_t got;
		int rc = source_read(in->src, in->peek + in->npeek, INPUT_PEEK - in->npeek, &got, err);
		if (rc)
			return rc;
		if (!got) {
			in->peek_eof = true;
			break;
		}
		in->npeek += got;
	}
	in->format = input_sniff(in->peek, in->npeek);
	return GF_OK;
}

static int start(struct input *in, struct sbuf *err)
{
	int rc = in->mem ? source_open_mem(&in->src, in->mem_buf, in->mem_len, in->path, 1, err)
			 : source_open(&in->src, in->path, in->threads, err);
	if (rc)
		return rc;
	return fill_peek(in, err);
}

static int open_common(struct input **out, struct input *in, struct sbuf *err)
{
	int rc = start(in, err);
	if (rc) {
		input_close(in);
		*out = NULL;
		return rc;
	}
	*out = in;
	return GF_OK;
}

int input_open(struct input **out, const char *path, unsigned threads, struct sbuf *err)
{
	struct input *in = gf_xcalloc(1, sizeof *in);
	in->path = gf_xstrdup(path ? path : "-");
	in->name = gf_xstrdup(strcmp(in->path, "-") ? in->path : "<stdin>");
	in->threads = threads;
	return open_common(out, in, err);
}

int input_open_mem(struct input **out, const void *buf, size_t len, const char *name, struct sbuf *err)
{
	struct input *in = gf_xcalloc(1, sizeof *in);
	in->path = gf_xstrdup(name ? name : "<memory>");
	in->name = gf_xstrdup(in->path);
	in->mem = true;
	in->mem_buf = buf;
	in->mem_len = len;
	in->threads = 1;
	return open_common(out, in, err);
}

int input_open_owned(struct input **out, void *buf, size_t len, const char *path, const char *name,
		     int format, struct sbuf *err)
{
	struct input *in = gf_xcalloc(1, sizeof *in);
	in->path = gf_xstrdup(path ? path : "<memory>");
	in->name = gf_xstrdup(name ? name : in->path);
	in->mem = true;
	in->mem_buf = buf ? buf : "";
	in->mem_len = len;
	in->threads = 1;
	in->owned = buf;
	int rc = open_common(out, in, err);
	if (!rc) {
		(*out)->format = format;
		(*out)->format_given = true;
	}
	return rc;
}

int input_open_obj(struct input **out, void *obj, const struct input_obj_ops *ops, const char *head, size_t nhead,
		   const char *path, const char *name, int format, struct sbuf *err)
{
	*out = NULL;
	if (nhead > INPUT_PEEK) {
		ops->release(obj);
		sbuf_setf(err, "'%s': a header of %zu bytes (at most %d)", name ? name : "<memory>", nhead, INPUT_PEEK);
		return GF_EINTERNAL;
	}
	char *h = gf_xmalloc(nhead + 1);
	memcpy(h, head, nhead);
	int rc = input_open_owned(out, h, nhead, path, name, format, err);
	if (rc) {
		ops->release(obj);
		return rc;
	}
	(*out)->obj = obj;
	(*out)->obj_ops = ops;
	return GF_OK;
}

void *input_obj(const struct input *in, const char *kind)
{
	if (!in->obj || in->peek_pos || in->obj_made || strcmp(in->obj_ops->kind, kind))
		return NULL;
	return in->obj;
}

void input_obj_taken(struct input *in)
{
	in->peek_pos = in->npeek;
	in->obj_made = true;
}

/* An object's input past its head: the text, made once. */
static int obj_read(struct input *in, void *dst, size_t cap, size_t *n, struct sbuf *err)
{
	if (!in->obj_made) {
		in->obj_made = true;
		int rc = in->obj_ops->text(in->obj, &in->obj_text, err);
		if (rc)
			return rc;
	}
	size_t k = GF_MIN(cap, in->obj_text.len - in->obj_pos);
	if (k)
		memcpy(dst, in->obj_text.buf + in->obj_pos, k);
	in->obj_pos += k;
	*n = k;
	return GF_OK;
}

int input_read(struct input *in, void *dst, size_t cap, size_t *n, struct sbuf *err)
{
	*n = 0;
	if (in->peek_pos < in->npeek) {
		size_t k = GF_MIN(cap, in->npeek - in->peek_pos);
		memcpy(dst, in->peek + in->peek_pos, k);
		in->peek_pos += k;
		*n = k;
		return GF_OK;
	}
	if (in->obj)
		return obj_read(in, dst, cap, n, err);
	if (in->peek_eof || in->mapped || !in->src)
		return GF_OK;
	return source_read(in->src, dst, cap, n, err);
}

int input_format(const struct input *in)
{
	return in->format;
}

const char *input_peek(const struct input *in, size_t *n)
{
	*n = in->npeek;
	return in->peek;
}

const char *input_name(const struct input *in)
{
	return in->name;
}

const char *input_path(const struct input *in)
{
	return in->path;
}

bool input_is_stdin(const struct input *in)
{
	return !in->mem && !strcmp(in->path, "-");
}

int input_compression(const struct input *in)
{
	return in->src ? source_kind(in->src) : SOURCE_PLAIN;
}

uint64_t input_file_size(const struct input *in)
{
	return in->src ? source_file_size(in->src) : 0;
}

bool input_map(struct input *in, const char **data, size_t *len)
{
	if (in->mapped || in->mem || !in->src || in->peek_pos || input_is_stdin(in) ||
	    source_kind(in->src) != SOURCE_PLAIN)
		return false;
	if (!source_map(in->src, 1, 1, data, len))
		return false;
	if (*len < in->npeek || memcmp(*data, in->peek, in->npeek)) {
		/* the file changed under us: stay with what was read */
		return false;
	}
	source_map_done(in->src, 0, *len);
	in->mapped = true;
	return true;
}

bool input_mapped(const struct input *in)
{
	return in->mapped;
}

bool input_can_reopen(const struct input *in)
{
	return !in->mem && in->src && source_is_regular(in->src);
}

int input_reopen(struct input *in, struct sbuf *err)
{
	if (!input_can_reopen(in)) {
		sbuf_setf(err, "'%s': cannot be read twice (stdin or a pipe)", input_name(in));
		return GF_EINPUT;
	}
	source_close(in->src);
	in->src = NULL;
	in->mapped = false;
	if (input_is_stdin(in) && lseek(STDIN_FILENO, 0, SEEK_SET) < 0) {
		sbuf_setf(err, "'<stdin>': cannot rewind: %s", strerror(errno));
		return GF_EINPUT;
	}
	return start(in, err);
}

struct source *input_take_source(struct input *in)
{
	struct source *s = in->src;
	if (!s)
		return NULL;
	if (in->peek_pos < in->npeek)
		source_unread(s, in->peek + in->peek_pos, in->npeek - in->peek_pos);
	in->peek_pos = in->npeek;
	in->src = NULL;
	in->mapped = false;
	return s;
}

void input_close(struct input *in)
{
	if (!in)
		return;
	source_close(in->src);
	if (in->obj)
		in->obj_ops->release(in->obj);
	sbuf_release(&in->obj_text);
	free(in->path);
	free(in->name);
	free(in->owned);
	free(in);
}
