/*
 * cmd_top.c — `gpuflame top`: the call-count table to keep beside a flame
 * graph. Per frame name: self weight, total weight (a recursive frame counted
 * once per stack), their shares of the whole, and the number of distinct
 * stacks containing the frame.
 *
 *   gpuflame top [--format text|tsv|md|json] [--sort self|total|name]
 *                [--limit N] [-o FILE] [FILE...]
 *
 * Input: folded stacks (files merged, stdin when none; plain, .gz or .zst
 * through the input layer; a trace gets a one-line hint to fold it). Example:
 *   $ printf 'main;mm 30\nmain;mm;gemm 70\n' | gpuflame top
 *   total 100 samples in 2 stacks
 *     SELF  SELF%  TOTAL  TOTAL%  STACKS  NAME
 *       70  70.00     70   70.00       1  gemm
 *       30  30.00    100  100.00       2  mm
 *        0   0.00    100  100.00       2  main
 * Weights are exact (the input's decimals are kept). See docs/svg.md.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "stacks/ops/top.h"
#include "base/num.h"
#include "base/ofile.h"
#include "stacks/folded.h"
#include "base/escape.h"

#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>

#define TEXT_COLS 100
#define FLUSH_AT (64u << 10)

static const char *const formats[] = {"text", "tsv", "md", "json", NULL};

/* 100 * v / d with two decimals (half away from zero); d > 0. */
static void pct(struct sbuf *b, int64_t v, int64_t d)
{
	bool neg = v < 0;
	__int128 a = neg ? -(__int128)v : v;
	__int128 q = (a * 20000 + d) / ((__int128)d * 2);
	sbuf_addf(b, "%s%lld.%02d", neg ? "-" : "", (long long)(q / 100), (int)(q % 100));
}

/* Display width in code points of valid UTF-8. */
static size_t width_of(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

/* Appends s cut to at most w code points, with an ellipsis when cut. */
static void add_cut(struct sbuf *b, const char *s, size_t n, size_t w)
{
	if (width_of(s, n) <= w) {
		sbuf_add(b, s, n);
		return;
	}
	size_t cnt = 0, i = 0;
	while (i < n) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (cnt == w - 1)
				break;
			cnt++;
		}
		i++;
	}
	sbuf_add(b, s, i);
	sbuf_addstr(b, "\xE2\x80\xA6"); /* U+2026 */
}

/* Appends cell k of a row: self, self%, total, total%, stacks (exact). */
static void add_cell(struct sbuf *b, const struct top_row *r, int k, int64_t all, unsigned scale)
{
	switch (k) {
	case 0: num_fmt(b, r->self, scale); break;
	case 1: pct(b, r->self, all); break;
	case 2: num_fmt(b, r->total, scale); break;
	case 3: pct(b, r->total, all); break;
	default: sbuf_addf(b, "%llu", (unsigned long long)r->stacks); break;
	}
}

/* Writes out b once it holds FLUSH_AT bytes (errors are seen at commit). */
static void flush_some(struct sbuf *b, FILE *fp)
{
	if (b->len < FLUSH_AT)
		return;
	fwrite(b->buf, 1, b->len, fp);
	sbuf_reset(b);
}

static void pad(struct sbuf *b, size_t have, size_t want)
{
	while (have++ < want)
		sbuf_addch(b, ' ');
}

/* The table to write: the rows (sorted, cut to --limit) and what the
 * headers show. */
struct top_view {
	const struct ftree *t;
	const struct top_row *rows;
	size_t n;
	int64_t all;
	uint64_t nstacks;
	const char *countname;
	struct sbuf tot; /* the total, formatted */
};

static const char *const head[5] = {"SELF", "SELF%", "TOTAL", "TOTAL%", "STACKS"};
static const char *const key[5] = {"self", "self_pct", "total", "total_pct", "stacks"};

static const char *row_name(const struct top_view *v, size_t i, size_t *len)
{
	*len = pool_len(v->t->names, v->rows[i].name);
	return pool_str(v->t->names, v->rows[i].name);
}

/* Text: columns measured in a first pass, names cut to fit 100 columns. */
static void write_text(const struct top_view *v, struct sbuf *out, FILE *fp)
{
	struct sbuf tmp = SBUF_INIT;
	size_t wd[5], used = 0, len;
	for (int k = 0; k < 5; k++) {
		wd[k] = strlen(head[k]);
		for (size_t i = 0; i < v->n; i++) {
			sbuf_reset(&tmp);
			add_cell(&tmp, &v->rows[i], k, v->all, v->t->scale);
			wd[k] = GF_MAX(wd[k], tmp.len);
		}
		used += wd[k] + 2;
	}
	size_t namew = used + 20 <= TEXT_COLS ? TEXT_COLS - used : 20;
	sbuf_addf(out, "total %s ", v->tot.buf);
	esc_term(out, v->countname, strlen(v->countname));
	sbuf_addf(out, " in %llu stack%s\n", (unsigned long long)v->nstacks, v->nstacks == 1 ? "" : "s");
	for (int k = 0; k < 5; k++) {
		pad(out, strlen(head[k]), wd[k]);
		sbuf_addf(out, "%s  ", head[k]);
	}
	sbuf_addstr(out, "NAME\n");
	for (size_t i = 0; i < v->n; i++) {
		for (int k = 0; k < 5; k++) {
			sbuf_reset(&tmp);
			add_cell(&tmp, &v->rows[i], k, v->all, v->t->scale);
			pad(out, tmp.len, wd[k]);
			sbuf_add(out, tmp.buf, tmp.len);
			sbuf_addstr(out, "  ");
		}
		sbuf_reset(&tmp);
		const char *nm = row_name(v, i, &len);
		esc_term(&tmp, nm, len);
		add_cut(out, tmp.buf, tmp.len, namew);
		sbuf_addch(out, '\n');
		flush_some(out, fp);
	}
	sbuf_release(&tmp);
}

static void write_tsv(const struct top_view *v, struct sbuf *out, FILE *fp)
{
	size_t len;
	for (int k = 0; k < 5; k++)
		sbuf_addf(out, "%s\t", key[k]);
	sbuf_addstr(out, "name\n");
	for (size_t i = 0; i < v->n; i++) {
		for (int k = 0; k < 5; k++) {
			add_cell(out, &v->rows[i], k, v->all, v->t->scale);
			sbuf_addch(out, '\t');
		}
		const char *nm = row_name(v, i, &len);
		esc_term(out, nm, len);
		sbuf_addch(out, '\n');
		flush_some(out, fp);
	}
}

static void write_md(const struct top_view *v, struct sbuf *out, FILE *fp)
{
	size_t len;
	sbuf_addstr(out, "| self | self % | total | total % | stacks | frame |\n"
			 "|---:|---:|---:|---:|---:|:---|\n");
	for (size_t i = 0; i < v->n; i++) {
		sbuf_addstr(out, "|");
		for (int k = 0; k < 5; k++) {
			sbuf_addch(out, ' ');
			add_cell(out, &v->rows[i], k, v->all, v->t->scale);
			sbuf_addstr(out, " |");
		}
		sbuf_addstr(out, " ");
		const char *nm = row_name(v, i, &len);
		esc_md(out, nm, len);
		sbuf_addstr(out, " |\n");
		flush_some(out, fp);
	}
}

static void write_json(const struct top_view *v, struct sbuf *out, FILE *fp)
{
	size_t len;
	sbuf_addstr(out, "{\"schema\": \"gpuflame.top/1\", \"unit\": ");
	esc_json_str(out, v->countname, strlen(v->countname));
	sbuf_addf(out, ", \"total\": %s, \"stacks\": %llu, \"frames\": [", v->tot.buf,
		  (unsigned long long)v->nstacks);
	for (size_t i = 0; i < v->n; i++) {
		sbuf_addstr(out, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		const char *nm = row_name(v, i, &len);
		esc_json_str(out, nm, len);
		for (int k = 0; k < 5; k++) {
			sbuf_addf(out, ", \"%s\": ", key[k]);
			add_cell(out, &v->rows[i], k, v->all, v->t->scale);
		}
		sbuf_addch(out, '}');
		flush_some(out, fp);
	}
	sbuf_addstr(out, v->n ? "\n]}\n" : "]}\n");
}

/* Rows are formatted as they are written (the output can be bigger than
 * the input: nothing per row is kept). */
static void write_table(const struct top_view *v, int fmt, const char *outpath)
{
	static void (*const writers[])(const struct top_view *, struct sbuf *, FILE *) = {
		write_text, write_tsv, write_md, write_json,
	};
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	struct ofile of;
	if (ofile_open(&of, outpath, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	writers[fmt](v, &out, of.fp);
	fwrite(out.buf, 1, out.len, of.fp);
	if (ofile_commit(&of, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	sbuf_release(&out);
	sbuf_release(&err);
}

static const struct cli_opt opts[] = {
	{ "format", 0, 'f', "FMT", "text (default, fits 100 columns), tsv, md, json", formats, 0 },
	{ "sort", 0, 's', "KEY", "self (default), total, name", top_sort_names, 0 },
	{ "limit", 0, 'n', "N", "print the first N rows only (0 = all, default)", NULL, 0 },
	{ "countname", 0, 'c', "TEXT",
	  "unit shown in the text header (default: the input's '# gpuflame: unit=' metadata, else \"samples\")",
	  NULL, 0 },
	{ "reverse", 0, 'r', NULL, "reverse each stack before counting", NULL, 0 },
	{ "strict", 0, 'S', NULL, "invalid input lines are fatal", NULL, 0 },
	{ "allow-ranks", 0, 'R', NULL,
	  "count files of different ranks together (refused by default, as merge does)", NULL, 0 },
	{ "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};


static int cmd_top(int argc, char **argv)
{
	int fmt = 0, sort = 0;
	long long limit = 0;
	const char *outpath = NULL, *countname = NULL;
	struct folded_opts fo = {0};
	bool allow_ranks = false;
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_top_def, argc, argv, &optarg)) != -1) {
		switch (c) {
		case 'f': fmt = cli_choice("--format", optarg, formats); break;
		case 's': sort = cli_choice("--sort", optarg, top_sort_names); break;
		case 'n': limit = cli_int("--limit", optarg, 0, INT64_MAX); break;
		case 'c': countname = optarg; break;
		case 'r': fo.reverse = true; break;
		case 'S': fo.strict = true; break;
		case 'R': allow_ranks = true; break;
		case 'o': outpath = optarg; break;
		}
	}
	cli_guard_ranks(!allow_ranks);
	struct ftree t;
	ftree_init(&t, NULL, 0);
	size_t nin;
	char **ins = cli_inputs(argc, argv, optind, &nin); /* '-' at most once */
	cli_read_folded(&t, (int)nin, ins, &fo);
	struct top_view v = { .t = &t, .tot = SBUF_INIT };
	v.all = (t.ncols == 2 ? t.total2 : t.total)[0];
	if (v.all <= 0)
		cli_die(GF_EXIT_INPUT, "the input's total weight is 0: nothing to rank");
	v.countname = countname ? countname : ftree_meta_get(&t.meta, "unit");
	if (!v.countname)
		v.countname = "samples";
	/* the lookup indexes are not needed any more: free them before the rows */
	ftree_compact(&t);
	pool_compact(t.names);
	struct top_row *rows;
	top_compute(&t, &rows, &v.n);
	top_sort(rows, v.n, &t, (enum top_sort)sort);
	if (limit && (size_t)limit < v.n)
		v.n = (size_t)limit;
	v.rows = rows;
	v.nstacks = top_stacks(&t);
	num_fmt(&v.tot, v.all, t.scale);
	write_table(&v, fmt, outpath);
	free(rows);
	sbuf_release(&v.tot);
	ftree_release(&t);
	return GF_EXIT_OK;
}

const struct cli_command cmd_top_def = {
	.name = "top",
	.fn = cmd_top,
	.summary = "table of frames by self and total weight, with stack counts",
	.synopsis = "[options] [FILE...]",
	.description = "Table of frames from folded stacks: self weight, total weight (a recursive frame counted "
		       "once per stack), shares of the whole, and the number of distinct stacks containing the "
		       "frame. Files merge (files of different ranks only with --allow-ranks); stdin when none.",
	.opts = opts,
	.operands = CLI_OPERAND_FOLDED,
	.doc = "svg.md",
	.exits = "0 ok, 1 bad or empty input, 2 usage error or mixed ranks, 3 output not written, 4 internal "
		 "limit.",
};
