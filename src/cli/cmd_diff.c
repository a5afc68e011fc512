/*
 * cmd_diff.c — gpuflame diff: compare two profiles (differential flame graphs).
 *
 * USAGE: gpuflame diff [options] BEFORE AFTER
 *
 * Inputs are folded files ("a;b;c 12"), ours with a "# gpuflame:" header or
 * plain ones (py-spy, flamegraph.pl). Example:
 *   gpuflame diff before.folded after.folded > diff.folded     # stack before after
 *   gpuflame diff before.folded after.folded | flamegraph.pl > diff.svg
 *   gpuflame diff --svg -o diff.svg before.folded after.folded
 *   gpuflame diff --top 20 before.folded after.folded
 * Output: "stack before after" lines (difffolded.pl's format), per step when
 * both profiles have step counts; the SVG is AFTER's shape, red where a
 * frame's weight grew and blue where it shrank (see docs/diff.md).
 * Exit: 0 ok, 1 bad input, 2 bad usage or unlike profiles refused, 3 output
 * not written.
 */
#include "cli/cli.h"

#include "stacks/ops/diff.h"
#include "base/num.h"
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"
#include "base/ofile.h"
#include "stacks/folded.h"
#include "input/source.h"
#include "base/escape.h"
#include "stacks/folded_out.h"
#include "stacks/ops/merge.h"

#include "stacks/render/svg.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: gpuflame diff [options] BEFORE AFTER\n"
		"\n"
		"Aligns two folded profiles and prints 'stack before after' lines (difffolded.pl's\n"
		"format, pipes into flamegraph.pl), or renders a differential flame graph.\n"
		"\n"
		"Output:\n"
		"  -o, --output FILE     write to FILE (default stdout); a name ending in .svg implies --svg\n"
		"      --svg             render an SVG: AFTER's shape, red = grew, blue = shrank\n"
		"      --negate          BEFORE's shape (widths = before; colours still after - before);\n"
		"                        in text output the columns are swapped (for flamegraph.pl --negate)\n"
		"      --top N           print the N biggest changes by total and by self weight\n"
		"                        (to stdout; the stacks/SVG then need -o)\n"
		"      --title TEXT      SVG title\n"
		"Normalisation:\n"
		"      --scale MODE      auto (default: per step when both step counts are known),\n"
		"                        steps, total (BEFORE scaled to AFTER's total, difffolded -n), none\n"
		"      --steps N,M       step counts of BEFORE and AFTER (plain folded files)\n"
		"      --decimals D      extra decimals kept when dividing (default 3)\n"
		"      --round MODE      largest (default: totals exact), even, floor (difffolded -n)\n"
		"Matching:\n"
		"      --no-normalise-names  match names as they are (no 0x..., ProfilerStep#N... rules)\n"
		"      --force           compare profiles whose headers differ (weight, unit, rank,\n"
		"                        world_size, label.*); the differences are printed\n"
		"Noise (sampled inputs):\n"
		"      --sampled / --no-sampled  treat counts as samples (default: integer counts and\n"
		"                        no unit= in the headers)\n"
		"      --alpha A         significance level of the two-proportion test (default 0.01)\n"
		"      --min-share S     frames under this share (default 0.01 = 1%%) are noise\n"
		"      --strict          an invalid input line is an error (default: skipped, counted)\n"
		"Traces (BEFORE/AFTER may be Kineto traces; both are folded with the same options,\n"
		"as 'gpuflame fold' does):\n"
		"  -w, --weight W        gpu (default), cpu, wall, idle, calls\n"
		"  -s, --stack LEVELS    step, annotation, python, module, op, runtime\n"
		"      --max-depth N, --per-step, --kernel-names family|full, --families FILE,\n"
		"      --step-marker NAME, --skip N, --unit ns|us|ms, --label KEY=VALUE\n"
		"      --steps A..B      fold only steps A to B (N,M are step counts, see above)\n"
		"  -j, --threads N       cores for reading a trace: 1 or 2 (default: 2 when there are)\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit codes: 0 ok, 1 bad input, 2 usage error or refused comparison, 3 output not written.\n");
}

enum {
	OPT_SVG = 256, OPT_NEGATE, OPT_TOP, OPT_TITLE, OPT_SCALE, OPT_STEPS, OPT_DECIMALS, OPT_ROUND,
	OPT_NONORM, OPT_FORCE, OPT_SAMPLED, OPT_NOSAMPLED, OPT_ALPHA, OPT_MINSHARE, OPT_STRICT,
	OPT_MAXDEPTH, OPT_PERSTEP, OPT_KNAMES, OPT_FAMILIES, OPT_MARKER, OPT_SKIP, OPT_UNIT, OPT_LABEL,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "svg", no_argument, NULL, OPT_SVG },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "steps", required_argument, NULL, OPT_STEPS },
	{ "decimals", required_argument, NULL, OPT_DECIMALS },
	{ "round", required_argument, NULL, OPT_ROUND },
	{ "no-normalise-names", no_argument, NULL, OPT_NONORM },
	{ "no-normalize-names", no_argument, NULL, OPT_NONORM },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "sampled", no_argument, NULL, OPT_SAMPLED },
	{ "no-sampled", no_argument, NULL, OPT_NOSAMPLED },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "min-share", required_argument, NULL, OPT_MINSHARE },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "weight", required_argument, NULL, 'w' },
	{ "stack", required_argument, NULL, 's' },
	{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
	{ "per-step", no_argument, NULL, OPT_PERSTEP },
	{ "kernel-names", required_argument, NULL, OPT_KNAMES },
	{ "families", required_argument, NULL, OPT_FAMILIES },
	{ "step-marker", required_argument, NULL, OPT_MARKER },
	{ "skip", required_argument, NULL, OPT_SKIP },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "threads", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

/* A Kineto trace rather than folded text? By name, then by the first byte. */
static bool looks_like_trace(const char *path, FILE *fp)
{
	if (ends_with(path, ".json") || ends_with(path, ".json.gz") || ends_with(path, ".json.zst") ||
	    ends_with(path, ".gz") || ends_with(path, ".zst"))
		return true;
	if (fp == stdin)
		return false;
	unsigned char m[4] = {0};
	size_t got = fread(m, 1, sizeof m, fp);
	bool trace = source_magic(m, got) != SOURCE_PLAIN; /* gzip, zstd (pzstd too), as the reader decides */
	rewind(fp);
	if (!trace) {
		int c;
		while ((c = getc(fp)) == ' ' || c == '\t' || c == '\n' || c == '\r')
			;
		trace = c == '{' || c == '['; /* JSON */
		rewind(fp);
	}
	return trace;
}

struct fold_cli {
	struct fold_opts o;
	bool used;              /* a fold option was given */
	const char *families;
	const char *marker;
	const char *threads;    /* -j/--threads (reading only: not a fold option) */
	struct kfamily *kf;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Folds a trace with the fold options given on the diff command line. */
static void fold_profile(struct ftree *t, const char *path, struct fold_cli *fc)
{
	struct sbuf err = SBUF_INIT;
	if (fc->families && !fc->kf) {
		fc->kf = kfamily_new();
		if (kfamily_load(fc->kf, fc->families, &err))
			cli_die(GF_EXIT_INPUT, "%s", err.buf);
		fc->o.families = fc->kf;
	}
	struct fold_opts o = fc->o;
	o.source = strcmp(path, "-") ? base_name(path) : "<stdin>";
	o.step_marker = fc->marker;
	struct trace tr;
	trace_init(&tr, NULL);
	struct trace_opts to;
	memset(&to, 0, sizeof to);
	to.step_marker = fc->marker;
	to.threads = cli_threads(fc->threads);
	int rc = trace_load(&tr, path, &to, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_warn_trace(&tr, cli_in_name(path));
	struct fold_stats st;
	memset(&st, 0, sizeof st);
	rc = fold_trace(&tr, &o, t, &st, &err);
	trace_release(&tr);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(path), err.buf);
	if (t->total[0] == 0)
		cli_die(GF_EXIT_INPUT, "'%s': the %s fold has no weight", cli_in_name(path),
			fold_weight_name(o.weight));
	sbuf_release(&err);
}

static void read_profile(struct ftree *t, const char *path, bool strict, struct fold_cli *fc)
{
	FILE *fp = cli_open_in(path);
	if (looks_like_trace(path, fp)) {
		cli_close_in(fp);
		ftree_release(t);
		fold_profile(t, path, fc);
		return;
	}
	if (fc->used)
		cli_warn("'%s' is folded already: the fold options do not apply to it", cli_in_name(path));
	struct folded_opts fo = { .strict = strict, .reverse = false };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	int rc = folded_read(t, fp, cli_in_name(path), &fo, &st, &err);
	if (rc) /* exit 1 bad input or read error, 4 a limit or ENOMEM */
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_close_in(fp);
	if (st.invalid)
		cli_warn("'%s': skipped %llu invalid line%s (first: line %llu: expected %s)",
			 cli_in_name(path), (unsigned long long)st.invalid, st.invalid == 1 ? "" : "s",
			 (unsigned long long)st.first_invalid_line, st.first_invalid_why);
	if (st.rounded)
		cli_warn("'%s': %llu count%s with more than %d decimals rounded", cli_in_name(path),
			 (unsigned long long)st.rounded, st.rounded == 1 ? "" : "s", NUM_MAX_SCALE);
	if (!st.stacks)
		cli_die(GF_EXIT_INPUT, "'%s': no stack lines ('stack count') found", cli_in_name(path));
	sbuf_release(&err);
}

/* ---- --top ---- */

static void fmt_rel(struct sbuf *b, int64_t before, int64_t delta)
{
	if (!before) {
		sbuf_addstr(b, "new");
		return;
	}
	/* percent with 1 decimal, exact rounding: delta * 1000 / before */
	int64_t q;
	if (!num_muldiv(delta, 1000, before, &q)) {
		sbuf_addstr(b, "?");
		return;
	}
	if (q > 0)
		sbuf_addch(b, '+');
	num_fmt_fixed(b, q, 1, 1, false);
	sbuf_addch(b, '%');
}

static void fmt_delta(struct sbuf *b, int64_t d, unsigned scale)
{
	if (d > 0)
		sbuf_addch(b, '+');
	num_fmt(b, d, scale);
}

static void print_top(FILE *fp, const struct diff_result *r, size_t n, bool self)
{
	struct diff_row *rows = gf_xmalloc((n ? n : 1) * sizeof *rows);
	size_t k = diff_top(r, self, n, rows);
	const char *per = r->scale == DIFF_SCALE_STEPS ? " per step" : "";
	const char *unit = fmeta_get(&r->t.meta, "unit");
	fprintf(fp, "Biggest changes by %s weight%s%s%s%s:\n", self ? "self" : "total", per,
		unit ? " (" : "", unit ? unit : "", unit ? ")" : "");
	fprintf(fp, "%14s %14s %14s %9s  %-6s %s\n", "before", "after", "delta", "delta%", "class", "frame");
	struct sbuf b = SBUF_INIT, c1 = SBUF_INIT, c2 = SBUF_INIT, c3 = SBUF_INIT, c4 = SBUF_INIT;
	static const char *const cls[] = { "same", "grew", "shrank", "noise", "small" };
	for (size_t i = 0; i < k; i++) {
		sbuf_reset(&b);
		sbuf_reset(&c1);
		sbuf_reset(&c2);
		sbuf_reset(&c3);
		sbuf_reset(&c4);
		num_fmt(&c1, rows[i].before, r->t.scale);
		num_fmt(&c2, rows[i].after, r->t.scale);
		fmt_delta(&c3, rows[i].delta, r->t.scale);
		fmt_rel(&c4, rows[i].before, rows[i].delta);
		struct sbuf path = SBUF_INIT;
		ftree_path(&r->t, rows[i].node, &path);
		esc_term(&b, path.buf, path.len);
		sbuf_release(&path);
		uint8_t c = (self ? r->cls_self : r->cls_total)[rows[i].node];
		fprintf(fp, "%14s %14s %14s %9s  %-6s %s\n", c1.buf, c2.buf, c3.buf, c4.buf,
			cls[c < 5 ? c : 0], b.buf);
	}
	if (!k)
		fprintf(fp, "(no change)\n");
	sbuf_release(&b);
	sbuf_release(&c1);
	sbuf_release(&c2);
	sbuf_release(&c3);
	sbuf_release(&c4);
	free(rows);
}

/* ---- SVG ---- */

struct svgctx {
	const struct diff_result *r;
	bool negate;
	int64_t maxd;  /* largest |total delta| over non-root frames */
	int64_t maxsd; /* largest |self delta| over non-root frames */
};

static int64_t col(const struct svgctx *c, uint32_t node, int which, bool self)
{
	/* which: 0 before, 1 after, in the result (not the swapped view) */
	const struct ftree *t = &c->r->t;
	int k = c->negate ? !which : which;
	return self ? ftree_self(t, node, k) : ftree_total(t, node, k);
}

static int svg_color(void *ctx, const struct ftree *t, uint32_t node, char rgb[24])
{
	const struct svgctx *c = ctx;
	(void)t;
	uint8_t cls = c->r->cls_total[node];
	if (cls == DIFF_NOISE || cls == DIFF_SMALL) {
		snprintf(rgb, 24, "rgb(220,220,220)");
		return 1;
	}
	int64_t d = col(c, node, 1, false) - col(c, node, 0, false);
	if (cls == DIFF_SAME || !d) {
		snprintf(rgb, 24, "rgb(250,250,250)");
		return 1;
	}
	uint64_t ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
	uint64_t m = c->maxd > 0 ? (uint64_t)c->maxd : 1;
	if (ad > m)
		ad = m;
	/* 210 (pale) .. 0 (saturated), as flamegraph.pl */
	int v = (int)(210.0 * (double)(m - ad) / (double)m);
	if (d > 0)
		snprintf(rgb, 24, "rgb(255,%d,%d)", v, v);
	else
		snprintf(rgb, 24, "rgb(%d,%d,255)", v, v);
	return 1;
}

/* The outline of a frame whose own (self) weight changed (by its class:
 * significant only, for sampled inputs): dark red = grew, dark blue = shrank,
 * 0.5 px (smallest change) .. 2.5 px (largest |self delta|). */
static int svg_stroke(void *ctx, const struct ftree *t, uint32_t node, char rgb[24], double *width)
{
	const struct svgctx *c = ctx;
	(void)t;
	if (node == 0)
		return 0;
	int dir = diff_direction(c->r, node, true);
	int64_t d = col(c, node, 1, true) - col(c, node, 0, true);
	if (!dir || !d || (d > 0) != (dir > 0))
		return 0;
	uint64_t ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
	uint64_t m = c->maxsd > 0 ? (uint64_t)c->maxsd : 1;
	if (ad > m)
		ad = m;
	*width = 0.5 + 2.0 * (double)ad / (double)m;
	snprintf(rgb, 24, dir > 0 ? "rgb(160,0,0)" : "rgb(0,0,160)");
	return 1;
}

static void add_change(struct sbuf *out, int64_t b, int64_t a, unsigned scale)
{
	if (!a && !b) {
		sbuf_addch(out, '0');
		return;
	}
	num_fmt(out, b, scale);
	sbuf_addstr(out, " -> ");
	num_fmt(out, a, scale);
	sbuf_addstr(out, ", ");
	fmt_delta(out, a - b, scale);
	sbuf_addstr(out, " (");
	fmt_rel(out, b, a - b);
	sbuf_addch(out, ')');
}

static void svg_tooltip(void *ctx, const struct ftree *t, uint32_t node, struct sbuf *out)
{
	const struct svgctx *c = ctx;
	const struct diff_result *r = c->r;
	sbuf_add(out, pool_str(t->names, t->name[node]), pool_len(t->names, t->name[node]));
	sbuf_addstr(out, " (total ");
	add_change(out, col(c, node, 0, false), col(c, node, 1, false), t->scale);
	sbuf_addstr(out, "; self ");
	add_change(out, col(c, node, 0, true), col(c, node, 1, true), t->scale);
	if (r->scale == DIFF_SCALE_STEPS)
		sbuf_addstr(out, "; per step");
	uint8_t cls = r->cls_total[node];
	if (cls == DIFF_NOISE)
		sbuf_addf(out, "; within sampling noise, p=%.2g", r->p_total[node]);
	else if (cls == DIFF_SMALL)
		sbuf_addstr(out, "; under the noise share");
	else if (r->sampled && (cls == DIFF_GREW || cls == DIFF_SHRANK))
		sbuf_addf(out, "; significant, p=%.2g", r->p_total[node]);
	sbuf_addch(out, ')');
}

static void render_svg(struct ofile *of, struct diff_result *r, bool negate, const char *title,
		       const struct diff_opts *o)
{
	struct svgctx c = { .r = r, .negate = negate, .maxd = 0, .maxsd = 0 };
	struct ftree *t = &r->t;
	for (uint32_t i = 1; i < t->n; i++) {
		int64_t d = t->total2[i] - t->total[i];
		if (d < 0)
			d = -d;
		if (d > c.maxd)
			c.maxd = d;
		d = ftree_self(t, i, 1) - ftree_self(t, i, 0);
		if (d < 0)
			d = -d;
		if (d > c.maxsd)
			c.maxsd = d;
	}
	if (negate) { /* widths = before: swap the columns for the renderer */
		int64_t *x = t->total;
		t->total = t->total2;
		t->total2 = x;
	}
	struct sbuf l1 = SBUF_INIT, l2 = SBUF_INIT, l3 = SBUF_INIT, l4 = SBUF_INIT;
	const char *per = r->scale == DIFF_SCALE_STEPS ? " per step" : "";
	sbuf_addf(&l1, "Widths: %s%s. Fill: change of each frame's total (itself + callees), "
		  "red = grew, blue = shrank, deeper = larger (max ", negate ? "BEFORE" : "AFTER", per);
	fmt_delta(&l1, c.maxd, t->scale);
	sbuf_addstr(&l1, "); white = unchanged.");
	sbuf_addstr(&l4, "Outline: change of the frame's own (self) weight, dark red = grew, "
		    "dark blue = shrank, thicker = larger (0.5 to 2.5 px, max ");
	fmt_delta(&l4, c.maxsd, t->scale);
	sbuf_addstr(&l4, r->sampled ? "); significant changes only. Both changes: in each tooltip."
				    : "); none = unchanged. Both changes: in each tooltip.");
	sbuf_addstr(&l2, "Total");
	sbuf_addstr(&l2, per);
	sbuf_addstr(&l2, ": ");
	add_change(&l2, negate ? t->total2[0] : t->total[0], negate ? t->total[0] : t->total2[0], t->scale);
	sbuf_addf(&l2, ". Frames only in %s (not drawn, see %s): %u.", negate ? "AFTER" : "BEFORE",
		  negate ? "the default view" : "--negate", negate ? r->only_after : r->only_before);
	if (r->sampled)
		sbuf_addf(&l3, "Sampled counts: grey = change within noise (two-proportion test, alpha %g: %u "
			  "frames) or under %g%% share (%u frames).", o->alpha, r->n_noise,
			  o->min_share * 100, r->n_small);
	const char *legend[5] = { l1.buf, l4.buf, l2.buf, r->sampled ? l3.buf : NULL, NULL };
	struct svg_opts so;
	svg_opts_init(&so);
	so.title = title ? title : negate ? "Differential flame graph (before's shape)"
					  : "Differential flame graph";
	so.color = svg_color;
	so.tooltip = svg_tooltip;
	so.stroke = svg_stroke;
	so.ctx = &c;
	so.legend = legend;
	const char *u = fmeta_get(&t->meta, "unit");
	if (u)
		so.countname = u;
	struct sbuf err = SBUF_INIT;
	ftree_sort(t);
	int rc = svg_render(t, &so, of->fp, NULL, &err);
	if (negate) {
		int64_t *x = t->total;
		t->total = t->total2;
		t->total2 = x;
	}
	sbuf_release(&l1);
	sbuf_release(&l2);
	sbuf_release(&l3);
	sbuf_release(&l4);
	if (rc) {
		if (rc == GF_EOUTPUT)
			ofile_write_error(of, errno, &err);
		ofile_abort(of); /* no partial output */
		cli_die(gf_err_exit(rc), "%s", err.buf);
	}
	sbuf_release(&err);
}

/* 3-column text, sorted by stack bytes; --negate swaps the columns. */
static int write_text(FILE *fp, struct diff_result *r, bool negate)
{
	struct ftree *t = &r->t;
	if (negate) {
		int64_t *x = t->total;
		t->total = t->total2;
		t->total2 = x;
	}
	int rc = merge_write_sorted(fp, t);
	if (negate) {
		int64_t *x = t->total;
		t->total = t->total2;
		t->total2 = x;
	}
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	diff_opts_init(&o);
	const char *out = NULL, *title = NULL;
	bool svg = false, negate = false, force = false, strict = false;
	long long top = 0;
	static const char *const scales[] = { "auto", "steps", "total", "none", NULL };
	static const char *const rounds[] = { "largest", "even", "floor", NULL };
	static const char *const weights[] = { "gpu", "cpu", "wall", "idle", "calls", NULL };
	static const char *const units[] = { "ns", "us", "ms", NULL };
	static const char *const knames[] = { "family", "full", NULL };
	struct fold_cli fc;
	memset(&fc, 0, sizeof fc);
	fold_opts_init(&fc.o);
	struct sbuf diffs = SBUF_INIT, err = SBUF_INIT;
	int c;
	while ((c = getopt_long(argc, argv, "o:w:s:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'j': cli_threads(optarg); fc.threads = optarg; break;
		case OPT_SVG: svg = true; break;
		case OPT_NEGATE: negate = true; break;
		case OPT_TOP: top = cli_int("--top", optarg, 1, 1000000); break;
		case OPT_TITLE: title = optarg; break;
		case OPT_SCALE: o.scale = (enum diff_scale)cli_choice("--scale", optarg, scales); break;
		case OPT_STEPS: {
			const char *comma = strchr(optarg, ',');
			const char *dd = strstr(optarg, "..");
			if (dd && !comma) {
				cli_steps("--steps", optarg, &fc.o.step_lo, &fc.o.step_hi);
				if (fc.o.step_hi == INT64_MAX) /* fold's open end */
					fc.o.step_hi = KEV_NONE;
				fc.used = true;
				break;
			}
			if (!comma)
				cli_usage_error("--steps wants N,M (BEFORE's and AFTER's step counts) or A..B "
						"(steps to fold), got '%s'", optarg);
			char *a = gf_xstrndup(optarg, (size_t)(comma - optarg));
			o.steps[0] = cli_int("--steps", a, 1, INT64_MAX);
			o.steps[1] = cli_int("--steps", comma + 1, 1, INT64_MAX);
			free(a);
			break;
		}
		case OPT_DECIMALS: o.decimals = (unsigned)cli_int("--decimals", optarg, 0, 9); break;
		case OPT_ROUND: o.round = (enum norm_round)cli_choice("--round", optarg, rounds); break;
		case OPT_NONORM: o.normalise_names = false; break;
		case OPT_FORCE: force = true; break;
		case OPT_SAMPLED: o.sampled = 1; break;
		case OPT_NOSAMPLED: o.sampled = 0; break;
		case OPT_ALPHA:
			o.alpha = cli_double("--alpha", optarg);
			if (!(o.alpha > 0 && o.alpha < 1))
				cli_usage_error("--alpha must be between 0 and 1, got '%s'", optarg);
			break;
		case OPT_MINSHARE:
			o.min_share = cli_double("--min-share", optarg);
			if (!(o.min_share >= 0 && o.min_share < 1))
				cli_usage_error("--min-share must be in [0, 1), got '%s'", optarg);
			break;
		case OPT_STRICT: strict = true; break;
		case 'w': fc.o.weight = cli_choice("--weight", optarg, weights); fc.used = true; break;
		case 's':
			if (fold_parse_levels(optarg, &fc.o.levels, &err))
				cli_usage_error("%s", err.buf);
			fc.used = true;
			break;
		case OPT_MAXDEPTH: fc.o.max_depth = (unsigned)cli_int("--max-depth", optarg, 1, 100000); fc.used = true; break;
		case OPT_PERSTEP: fc.o.per_step = true; fc.used = true; break;
		case OPT_KNAMES: fc.o.kernel_full = cli_choice("--kernel-names", optarg, knames) == 1; fc.used = true; break;
		case OPT_FAMILIES: fc.families = optarg; fc.used = true; break;
		case OPT_MARKER:
			if (!*optarg)
				cli_usage_error("--step-marker needs a non-empty name");
			fc.marker = optarg;
			fc.used = true;
			break;
		case OPT_SKIP: fc.o.skip = (unsigned)cli_int("--skip", optarg, 0, 1000000000); fc.used = true; break;
		case OPT_UNIT: fc.o.unit = cli_choice("--unit", optarg, units); fc.used = true; break;
		case OPT_LABEL: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				cli_usage_error("invalid argument '%s' for '--label'; expected KEY=VALUE", optarg);
			if (fc.o.nlabels == FOLD_MAX_LABELS)
				cli_usage_error("at most %d --label options", FOLD_MAX_LABELS);
			fc.o.labels[fc.o.nlabels++] = optarg;
			fc.used = true;
			break;
		}
		case 'h': usage(stdout); return GF_EXIT_OK;
		default: cli_usage_error("unknown option");
		}
	}
	if (argc - optind != 2)
		cli_usage_error("expected two inputs, BEFORE and AFTER (got %d)", argc - optind);
	const char *bpath = argv[optind], *apath = argv[optind + 1];
	if (!strcmp(bpath, "-") && !strcmp(apath, "-"))
		cli_usage_error("only one input can be stdin ('-')");
	if (out && ends_with(out, ".svg"))
		svg = true;
	struct ftree before, after;
	ftree_init(&before, NULL, 0);
	ftree_init(&after, NULL, 0);
	read_profile(&before, bpath, strict, &fc);
	read_profile(&after, apath, strict, &fc);
	if (fc.kf && kfamily_truncated(fc.kf))
		cli_warn("'%s': %llu kernel names longer than %d bytes were matched against its regexes by their "
			 "first %d bytes", fc.families, (unsigned long long)kfamily_truncated(fc.kf), KFAMILY_MATCH_MAX,
			 KFAMILY_MATCH_MAX);
	kfamily_free(fc.kf);

	if (diff_check_meta(&before.meta, &after.meta, &diffs)) {
		if (!force)
			cli_die(GF_EXIT_USAGE, "refusing to compare unlike profiles: %s (use --force to compare anyway)",
				diffs.buf);
		cli_warn("comparing unlike profiles (--force): %s", diffs.buf);
	}
	struct diff_result r;
	int rc = diff_run(&r, &before, &after, &o, &err);
	ftree_release(&before);
	ftree_release(&after);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (r.note[0])
		cli_warn("%s", r.note);

	if (top) {
		print_top(stdout, &r, (size_t)top, false);
		printf("\n");
		print_top(stdout, &r, (size_t)top, true);
		if (r.only_before || r.only_after)
			printf("\n%u frames only in BEFORE, %u only in AFTER\n", r.only_before, r.only_after);
		if (fflush(stdout) || ferror(stdout))
			cli_die(GF_EXIT_OUTPUT, "write failure on standard output: %s", strerror(errno));
		if (!out) {
			diff_result_release(&r);
			sbuf_release(&diffs);
			sbuf_release(&err);
			return GF_EXIT_OK;
		}
	}
	folded_out_set_terminal((!out || !strcmp(out, "-")) && isatty(STDOUT_FILENO)); /* escape names for a terminal */
	struct ofile of;
	if (ofile_open(&of, out, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	if (svg) {
		render_svg(&of, &r, negate, title, &o);
	} else if (write_text(of.fp, &r, negate)) {
		ofile_write_error(&of, errno, &err);
		ofile_abort(&of);
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	}
	if (ofile_commit(&of, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	diff_result_release(&r);
	sbuf_release(&diffs);
	sbuf_release(&err);
	return GF_EXIT_OK;
}
