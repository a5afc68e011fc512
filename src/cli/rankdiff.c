/* rankdiff.c — diff of two folders of ranks (see rankdiff.h). */
#include "cli/rankdiff.h"

#include "cli/cli.h"
#include "input/input.h"
#include "ranks/ranks.h"
#include "stacks/folded.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One side: its files, of one kind. */
struct side {
	char **paths;
	size_t n;
	bool summaries;
	const char *weight;
	struct ranks_side s;
	char *what;
};

static bool has_suffix(const char *s, const char *const *suf, size_t nsuf)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < nsuf; i++) {
		size_t k = strlen(suf[i]);
		if (n > k && !strcmp(s + n - k, suf[i]))
			return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The summaries of dir, else its folded files, in name order. */
static void list(struct side *d, const char *dir)
{
	static const char *const sums[] = { ".summary.json", ".summary.json.gz", ".summary.json.zst" };
	static const char *const folded[] = { ".folded", ".folded.gz", ".folded.zst" };
	for (int kind = 0; kind < 2 && !d->n; kind++) {
		DIR *dp = opendir(dir);
		if (!dp)
			cli_die(GF_EXIT_INPUT, "cannot read the folder '%s': %s", dir, strerror(errno));
		struct dirent *e;
		size_t cap = 0;
		while ((e = readdir(dp))) {
			if (!has_suffix(e->d_name, kind ? folded : sums, 3))
				continue;
			if (d->n == cap) {
				cap = cap ? cap * 2 : 64;
				d->paths = gf_xreallocarray(d->paths, cap, sizeof *d->paths);
			}
			size_t dl = strlen(dir);
			d->paths[d->n] = gf_xmalloc(dl + strlen(e->d_name) + 2);
			sprintf(d->paths[d->n++], "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", e->d_name);
		}
		closedir(dp);
		d->summaries = kind == 0;
	}
	if (!d->n)
		cli_die(GF_EXIT_INPUT, "'%s': no *.summary.json[.gz|.zst] or *.folded[.gz|.zst] file in the folder", dir);
	qsort(d->paths, d->n, sizeof *d->paths, cmp_str);
	d->what = gf_xmalloc(strlen(dir) + 3);
	sprintf(d->what, "'%s'", dir);
}

static const char *name_of(void *ctx, size_t i)
{
	return ((struct side *)ctx)->paths[i];
}

/* Summary i parsed (text kept in *text). */
static int summary_at(struct side *d, size_t i, struct sbuf *text, struct summary *s, struct sbuf *err)
{
	struct ranks_files f = { &d->paths[i], 1, SBUF_INIT, false };
	struct ranks_source src;
	ranks_source_files(&src, &f, NULL);
	int rc = src.load(src.ctx, 0, text, err);
	if (!rc)
		rc = summary_parse(s, text->buf, text->len, d->paths[i], err);
	return rc;
}

static int rank_of(void *ctx, size_t i, int64_t *rank, struct sbuf *err)
{
	struct side *d = ctx;
	*rank = -1;
	if (d->summaries) {
		struct sbuf text = SBUF_INIT;
		struct summary s;
		int rc = summary_at(d, i, &text, &s, err);
		if (!rc) {
			*rank = s.rank;
			summary_free(&s);
		}
		sbuf_release(&text);
		return rc;
	}
	/* a folded file: the rank= of its "# gpuflame:" header, read from the
	 * first bytes only */
	struct input *in;
	int rc = input_open(&in, d->paths[i], 1, err);
	if (rc)
		return rc;
	size_t n;
	const char *p = input_peek(in, &n);
	const char *h = n > 11 && !memcmp(p, "# gpuflame:", 11) ? p : NULL;
	const char *nl = h ? memchr(h, '\n', n) : NULL;
	for (const char *q = h; q && q + 5 < (nl ? nl : p + n); q++)
		if ((q[-1] == ' ' || q[-1] == ';') && !memcmp(q, "rank=", 5)) {
			*rank = strtoll(q + 5, NULL, 10);
			break;
		}
	input_close(in);
	return GF_OK;
}

static int tree_of(void *ctx, size_t i, struct ftree *t, struct sbuf *err)
{
	struct side *d = ctx;
	if (d->summaries) {
		struct sbuf text = SBUF_INIT;
		struct summary s;
		int rc = summary_at(d, i, &text, &s, err);
		if (!rc) {
			rc = summary_tree(&s, d->weight, t, err);
			summary_free(&s);
		}
		sbuf_release(&text);
		return rc;
	}
	struct input *in;
	int rc = input_open(&in, d->paths[i], 1, err);
	if (rc)
		return rc;
	if (input_format(in) != INPUT_FOLDED) {
		rc = input_hint(err, in, INPUT_FOLDED, "diff");
		input_close(in);
		return rc;
	}
	struct folded_opts fo = { .strict = false, .reverse = false };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	rc = folded_read_in(t, in, &fo, &st, err);
	input_close(in);
	if (!rc)
		cli_folded_warn(&st, d->paths[i]);
	return rc;
}

static void side_init(struct side *d, const char *dir, const char *weight)
{
	memset(d, 0, sizeof *d);
	d->weight = weight;
	list(d, dir);
	d->s = (struct ranks_side){ d->n, rank_of, tree_of, name_of, d, d->what };
}

static void side_free(struct side *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->paths[i]);
	free(d->paths);
	free(d->what);
}

void rankdiff_run(const char *before, const char *after, const char *weight, const struct ranks_diff_opts *o,
		  int format, const char *out)
{
	struct side b, a;
	side_init(&b, before, weight);
	side_init(&a, after, weight);
	if (b.summaries != a.summaries)
		cli_usage_error("'%s' holds %s and '%s' %s: compare summaries with summaries, folded files with folded "
				"files",
				before, b.summaries ? "summaries" : "folded files", after,
				a.summaries ? "summaries" : "folded files");
	struct sbuf text = SBUF_INIT, err = SBUF_INIT;
	int rc = ranks_diff(&b.s, &a.s, o, format, &text, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_write_out(out, &text);
	sbuf_release(&text);
	sbuf_release(&err);
	side_free(&b);
	side_free(&a);
}
