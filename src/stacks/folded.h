/*
 * folded.h — read folded stacks ("frame;frame;frame count") into a call tree.
 *
 * Input format (flamegraph.pl's, see docs/folded.md):
 *   a;b;c 12            one stack and its weight
 *   a;b;c 10 14         differential line: weight before, weight after
 *   a;b 2.5             decimal weights are exact (fixed point)
 *   # gpuflame: weight=gpu; unit=us; steps=5;    metadata header (kept)
 *   # anything          comment (skipped): '#' then a blank or end of line;
 *                       "## forward ##;a 3" is a stack
 * The weight is the last blank-separated (space or TAB) token; CRLF is
 * accepted; blank lines are skipped; a trailing ';' adds no empty frame (as in
 * flamegraph.pl) but inner and leading empty frames are kept. Identical stacks
 * merge wherever they appear. Whether a file is differential is decided by its
 * first stack line. Invalid lines are counted (first one remembered) and
 * skipped, or are fatal with opts.strict.
 *
 * Layer: stacks (reads from input/). Does not print: the caller reports stats and errors.
 */
#ifndef GF_FOLDED_H
#define GF_FOLDED_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

#include <stdio.h>

struct folded_opts {
	bool strict;    /* the first invalid line is an error */
	bool reverse;   /* reverse each stack (leaf becomes root) */
};

struct folded_stats {
	uint64_t lines;    /* physical lines read */
	uint64_t stacks;   /* valid stack lines */
	uint64_t invalid;  /* skipped invalid lines */
	uint64_t comments; /* '#' lines, metadata included */
	uint64_t blank;
	uint64_t rounded;  /* weights with more than NUM_MAX_SCALE decimals */
	uint64_t first_invalid_line;
	char first_invalid_why[96];
};

/* One parsed line, pointing into the caller's buffer. */
struct folded_line {
	const char *stack;
	size_t stack_len;
	const char *cnt[2];
	size_t cnt_len[2];
	int ncols; /* 1 or 2 */
};

enum folded_kind {
	FOLDED_STACK = 0,
	FOLDED_BLANK = 1,
	FOLDED_COMMENT = 2,
	FOLDED_META = 3,   /* "# gpuflame: ..." */
	FOLDED_INVALID = -1,
};

/*
 * Classifies and splits one line (without its '\n'; a trailing '\r' is
 * ignored). For FOLDED_INVALID, *why says what was expected.
 * want_cols: 0 to accept one or two counts, else the required count.
 */
int folded_parse_line(const char *s, size_t n, int want_cols, struct folded_line *out,
		      const char **why);

/*
 * A bounded line reader over an opened input (input/input.h: plain, gzip,
 * zstd, stdin) or a stdio stream, for every folded reader (getline has no
 * cap and reports ENOMEM as end of file):
 *
 *   struct folded_lines lr;
 *   folded_lines_init_in(&lr, in);      // or folded_lines_init(&lr, fp, "x")
 *   while ((k = folded_lines_next(&lr, &s, &n, &err)) == 1) use(s, n);
 *   folded_lines_free(&lr);            // k == 0: end of file; k < 0: error
 *
 * A line is returned without its '\n' (the last one may lack it) and stays
 * valid until the next call. Bounds (base/limits.h): a line longer than
 * gf_limits.token is GF_EINTERNAL ("'x': line 3 (byte 1234): a line longer
 * than N bytes (GPUFLAME_MAX_TOKEN)"), the buffer never grows past it; more
 * than gf_limits.input bytes is GF_EINTERNAL ("'x': byte N: an input larger
 * than N bytes (GPUFLAME_MAX_INPUT)"). A read error is GF_EINPUT ("'x': read
 * error: Is a directory"), or GF_EINTERNAL when it is ENOMEM; never end of file.
 */
struct input;
struct folded_lines {
	FILE *fp;             /* one of fp and in */
	struct input *in;
	const char *name;
	char *buf;
	size_t cap, len, pos; /* buf[pos..len) is read but not returned yet */
	uint64_t off;         /* input offset of buf[pos] */
	uint64_t lineno;      /* lines returned so far */
	bool eof;
	size_t cap0;          /* first buffer size (64 KiB; merge sets 4 KiB per file) */
};

void folded_lines_init(struct folded_lines *lr, FILE *fp, const char *name);
/* Over an input: named input_name(in); it stays the caller's to close. */
void folded_lines_init_in(struct folded_lines *lr, struct input *in);
/* @return 1 (a line in *s, *n), 0 (end of file) or a gf_err with err set. */
int folded_lines_next(struct folded_lines *lr, const char **s, size_t *n, struct sbuf *err);
/* After the caller rewound lr->fp (or input_reopen'ed lr->in): start again
 * at line 1, byte 0. */
void folded_lines_rewind(struct folded_lines *lr);
void folded_lines_free(struct folded_lines *lr);

/*
 * Reads all lines of fp into t (which may already hold stacks: files merge).
 * fname is used in messages. Metadata lines are parsed into t->meta.
 * @return GF_OK, GF_EINPUT with "'fname': line N: ..." in err (read error,
 * NUL byte with strict, invalid line with strict, weight overflow), or
 * GF_EINTERNAL (a bound of folded_lines_next, or ENOMEM while reading).
 */
int folded_read(struct ftree *t, FILE *fp, const char *fname,
		const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err);
/* Same from an opened input (messages name input_name(in)); the errors of
 * input_read (corrupt or truncated compressed data) are GF_EINPUT. */
int folded_read_in(struct ftree *t, struct input *in, const struct folded_opts *opts,
		   struct folded_stats *st, struct sbuf *err);

/* Same over a memory buffer (used by the fuzzer and tests); the same
 * gf_limits.token bound on one line. */
int folded_read_mem(struct ftree *t, const char *buf, size_t len, const char *fname,
		    const struct folded_opts *opts, struct folded_stats *st, struct sbuf *err);

/*
 * The bookkeeping every folded reader shares, for one line s[0..n): counts
 * it in st, parses a metadata line into meta, remembers the first invalid
 * line (and fails on it when strict).
 * @return 1 for a stack line (fl filled: the caller adds it), 0 for a line
 * that was handled (blank, comment, metadata, skipped invalid), or GF_EINPUT
 * with "'fname': line N: expected ..." in err.
 */
/*
 * What a folded file's weights are, from its "# gpuflame:" header (fold's
 * output or an import's, stacks/import.h; docs/formats.md, "Units"): the one
 * reading that svg, syncs, export, store and push share.
 *   FOLDED_U_TIME     unit=ns|us|ms|s: a weight v at the tree's scale is
 *                     v * 10^ns_exp ns (ns_exp = 3k - scale, may be < 0)
 *   FOLDED_U_SAMPLES  unit=samples (py-spy, perf without periods, ...):
 *                     rate = the header's rate= (Hz), 0 when unknown
 *   FOLDED_U_BYTES    unit=bytes
 *   FOLDED_U_EVENTS   unit=events (perf periods of a non-clock event)
 *   FOLDED_U_COUNT    weight=calls, no header, no unit or another unit
 * name: the profile's name: weight=, else what the import says of it
 * (perf: "cpu" for a clock event, else the event; austin: its mode; py-spy
 * and other samples: "samples"; chrometrace: "wall"; export_stacks and
 * other times: "time"; bytes: "space"), else NULL.
 */
enum folded_unit_kind { FOLDED_U_COUNT = 0, FOLDED_U_TIME, FOLDED_U_SAMPLES, FOLDED_U_BYTES, FOLDED_U_EVENTS };
struct folded_units {
	int kind;
	int ns_exp;
	int64_t rate;
	const char *name;
};
void folded_units(const struct ftree *t, struct folded_units *u);

int folded_take_line(const char *s, size_t n, int want_cols, bool strict, const char *fname,
		     struct ftree_meta *meta, struct folded_stats *st, struct folded_line *fl,
		     struct sbuf *err);

/* Prefixes the message in err with "'fname': line N: ". @return GF_EINPUT. */
int folded_line_error(struct sbuf *err, const char *fname, uint64_t line);

/* Parses a metadata line body ("weight=gpu; unit=us;") into m. Values are
 * %-decoded. @return the number of pairs read. */
int folded_parse_meta(const char *s, size_t n, struct ftree_meta *m);

#endif
