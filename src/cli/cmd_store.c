/*
 * cmd_store.c — gpuflame store: keep every run, diff release against release.
 *
 * USAGE: gpuflame store add|list|show|diff|trend|gc [--db URL] [options] ...
 *   gpuflame store add --release v2 --label batch=32 trace.json.gz
 *   gpuflame store diff v1 v2 | flamegraph.pl > v1-v2.svg
 *   gpuflame store trend --metric step_wall
 * The database: --db URL, else $GPUFLAME_DB, else ./gpuflame.db (SQLite);
 * postgresql://... for PostgreSQL. The work is in src/store/ (docs/store.md).
 * Exit: 0 ok (a run added, or found already stored; its line goes to stderr
 * when stdout fails), 1 bad input, not a store or database error, 2 usage
 * error (unknown run or release, unlike profiles), 3 the database could
 * not be written.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "input/input.h"
#include "store/store.h"
#include "store/store_collect.h"
#include "store/store_ranks.h"
#include "cli/diffopts.h"
#include "cli/values.h"
#include "trace/analysis/fold.h"

#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_DB = CLIOPT_FIRST_ID, OPT_RELEASE, OPT_LABEL, OPT_WEIGHT, OPT_SINCE, OPT_UNTIL, OPT_JSON, OPT_METRIC, OPT_SVG,
       OPT_KEEP, OPT_MARKER };

static const struct cli_opt opts[] = {
	{ "db", 0, OPT_DB, "URL",
	  "the store: a SQLite file (default $GPUFLAME_DB, else ./gpuflame.db) or postgresql://user@host:port/db "
	  "(libpq's URI)",
	  NULL, 0 },
	{ "release", 0, OPT_RELEASE, "R", "the release a run belongs to (add; filter for list)", NULL, 0 },
	{ "label", 0, OPT_LABEL, "K=V", "a label (add: kept in every profile's header as label.K; list: filter)",
	  NULL, CLI_OPT_REPEAT },
	{ "weight", 0, OPT_WEIGHT, "W",
	  "add: the weight of a folded file without a header: %V (diff: see 'gpuflame store diff --help')",
	  cli_values_weights, 0 },
	{ "since", 0, OPT_SINCE, "D", "list: added on or after D (YYYY-MM-DD or UNIX seconds)", NULL, 0 },
	{ "until", 0, OPT_UNTIL, "D", "list: added before D (YYYY-MM-DD or UNIX seconds)", NULL, 0 },
	{ "json", 0, OPT_JSON, NULL, "list, show, trend: JSON", NULL, 0 },
	{ "metric", 0, OPT_METRIC, "M",
	  "trend: %V (idle.C: the steady step's GPU idle time of gap cause C; weight.W: W's total per step)",
	  cli_values_store_metrics, 0 },
	{ "svg", 0, OPT_SVG, NULL, "trend: an SVG chart", NULL, 0 },
	{ "keep", 0, OPT_KEEP, "N", "gc: keep the newest N releases", NULL, 0 },
	{ "step-marker", 0, OPT_MARKER, "NAME", "add: step ranges are NAME or NAME#<n>, as 'gpuflame fold'", NULL,
	  0 },
	{ "output", 'o', 'o', "FILE", "trend: write to FILE", NULL, CLI_OPT_FILE },
	{ "threads", 'j', 'j', "N", "add: cores for reading a trace: 1 or 2, as 'gpuflame fold'", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

struct store_cli {
	const char *db, *release, *weight, *metric, *out, *marker, *threads;
	const char *labels[STORE_MAX_LABELS];
	size_t nlabels;
	int64_t since, until, keep;
	bool json, svg;
};

static int64_t parse_date(const char *opt, const char *v)
{
	int y, m, d;
	char c;
	if (sscanf(v, "%4d-%2d-%2d%c", &y, &m, &d, &c) == 3) {
		struct tm tm = { .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d };
		return (int64_t)timegm(&tm);
	}
	return cli_int(opt, v, 0, INT64_MAX);
}

static void add_label(struct store_cli *c, const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv)
		cli_usage_error("invalid argument '%s' for '--label'; expected KEY=VALUE", kv);
	if (!fold_label_key_ok(kv, (size_t)(eq - kv)))
		cli_usage_error("invalid label key in '%s': letters, digits, '_', '-', '.'", kv);
	if (c->nlabels == STORE_MAX_LABELS)
		cli_usage_error("at most %d --label options", STORE_MAX_LABELS);
	c->labels[c->nlabels++] = kv;
}

/* Parses argv (the action's options); @return the first operand's index. */
static int parse_args(int argc, char **argv, struct store_cli *c)
{
	memset(c, 0, sizeof *c);
	int ch;
	const char *optarg;
	while ((ch = cliopt_next(&cmd_store_def, argc, argv, &optarg)) != -1) {
		switch (ch) {
		case OPT_DB: c->db = cli_nonempty("--db", optarg); break;
		case OPT_RELEASE: c->release = cli_nonempty("--release", optarg); break;
		case OPT_LABEL: add_label(c, optarg); break;
		case OPT_WEIGHT: c->weight = optarg; break;
		case OPT_SINCE: c->since = parse_date("--since", optarg); break;
		case OPT_UNTIL: c->until = parse_date("--until", optarg); break;
		case OPT_JSON: c->json = true; break;
		case OPT_METRIC: c->metric = cli_nonempty("--metric", optarg); break;
		case OPT_SVG: c->svg = true; break;
		case OPT_KEEP: c->keep = cli_int("--keep", optarg, 1, INT64_MAX); break;
		case OPT_MARKER: c->marker = cli_nonempty("--step-marker", optarg); break;
		case 'o': c->out = optarg; break;
		case 'j': cli_threads(optarg); c->threads = optarg; break;
		}
	}
	if (c->weight)
		cli_pick(&cmd_store_def, OPT_WEIGHT, c->weight);
	return optind;
}

static struct store *open_store(const struct store_cli *c, int mode)
{
	struct store *s;
	struct sbuf err = SBUF_INIT;
	int rc = store_open(&s, c->db ? c->db : store_default_url(), mode, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	sbuf_release(&err);
	return s;
}

static void warn_trace(const struct trace *t, void *name)
{
	cli_warn_trace(t, name);
}

/* The summaries of one run of many ranks, collected one at a time for
 * store_add_all (one transaction: every rank or none). */
struct add_batch {
	char **paths;
	int i, n;
	struct store_collect col;
	bool have;
	const struct store_collect_opts *o;
};

static int add_next(void *ctx, const struct store_run_in **in, struct sbuf *err)
{
	struct add_batch *b = ctx;
	if (b->have)
		store_collect_release(&b->col);
	b->have = false;
	*in = NULL;
	if (b->i == b->n)
		return GF_OK;
	const char *path = b->paths[b->i++];
	struct input *inp = cli_open_input(path, 1);
	cli_check_kind(inp, INPUT_SUMMARY);
	int rc = store_collect_input(&b->col, inp, false, b->o, err);
	cli_close_input(inp);
	b->have = true;
	if (rc) { /* the message names the file (once) */
		struct sbuf m = SBUF_INIT;
		sbuf_addf(&m, "'%s': ", cli_in_name(path));
		if (strncmp(err->buf, m.buf, m.len)) {
			sbuf_add(&m, err->buf, err->len);
			sbuf_reset(err);
			sbuf_add(err, m.buf, m.len);
		}
		sbuf_release(&m);
		return rc;
	}
	*in = &b->col.in;
	return GF_OK;
}

/* Whether the inputs are summaries (all of them; a mix is refused before
 * anything is added; stdin, read once, is taken for what it is). */
static bool summaries(int argc, char **argv, int first)
{
	int kind = -1;
	const char *first_path = NULL;
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "-"))
			continue;
		struct input *in = cli_open_input(argv[i], 1);
		int sum = input_format(in) == INPUT_SUMMARY;
		cli_close_input(in);
		if (kind < 0) {
			kind = sum;
			first_path = argv[i];
		} else if (kind != sum) {
			cli_usage_error("'%s' is a summary and '%s' is not: store the summaries of a run of many ranks "
					"on their own", cli_in_name(sum ? argv[i] : first_path),
					cli_in_name(sum ? first_path : argv[i]));
		}
	}
	return kind == 1;
}

/* Summaries (a run of many ranks): one stored run per rank, all or none;
 * ranks already in the release (the same content) are not added again. */
static void add_summaries(struct store *s, const struct store_cli *c, const struct store_collect_opts *o, int argc,
			  char **argv, int first)
{
	struct add_batch b = { .paths = argv + first, .n = argc - first, .o = o };
	struct sbuf err = SBUF_INIT;
	int64_t id;
	size_t n, ndup;
	int rc = store_add_all(s, add_next, &b, &id, &n, &ndup, &err);
	if (b.have)
		store_collect_release(&b.col);
	if (rc)
		cli_die(gf_err_exit(rc), "%s (no rank was added)", err.buf);
	if (!n)
		cli_done("runs already stored: release %s, %zu rank%s (the same content; not added again)", c->release,
			 ndup, ndup == 1 ? "" : "s");
	else if (!ndup)
		cli_done("added runs %lld..%lld: release %s, %zu rank%s (one run each)", (long long)id,
			 (long long)id + (long long)n - 1, c->release, n, n == 1 ? "" : "s");
	else
		cli_done("added runs %lld..%lld: release %s, %zu rank%s (one run each); %zu already stored (the same "
			 "content; not added again)", (long long)id, (long long)id + (long long)n - 1, c->release, n,
			 n == 1 ? "" : "s", ndup);
	sbuf_release(&err);
}

static int store_add_cmd(int argc, char **argv)
{
	struct store_cli c;
	int first = parse_args(argc, argv, &c);
	if (!c.release)
		cli_usage_error("add needs --release R");
	if (first == argc)
		cli_usage_error("add needs at least one TRACE, FOLDED or SUMMARY file");
	struct store *s = open_store(&c, STORE_CREATE);
	struct store_collect_opts o = { .release = c.release, .weight = c.weight, .step_marker = c.marker };
	o.threads = cli_threads(c.threads);
	memcpy(o.labels, c.labels, sizeof c.labels);
	o.nlabels = c.nlabels;
	if (summaries(argc, argv, first)) {
		add_summaries(s, &c, &o, argc, argv, first);
		store_close(s);
		return GF_EXIT_OK;
	}
	struct sbuf err = SBUF_INIT;
	for (int i = first; i < argc; i++) {
		struct input *in = cli_open_input(argv[i], o.threads);
		bool trace = input_format(in) != INPUT_SUMMARY && cli_input_is_trace(in);
		o.trace_loaded = warn_trace;
		o.ctx = (void *)cli_in_name(argv[i]);
		struct store_collect col;
		int rc = store_collect_input(&col, in, trace, &o, &err);
		cli_close_input(in);
		int64_t id = 0;
		bool dup = false;
		if (!rc)
			rc = store_add(s, &col.in, &id, &dup, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(argv[i]), err.buf);
		if (dup)
			cli_done("run %lld is already stored: release %s, %s %s (the same content; not added again)",
				 (long long)id, c.release, col.in.kind, col.in.source);
		else
			cli_done("added run %lld: release %s, %s %s, %zu profile%s", (long long)id, c.release, col.in.kind,
				 col.in.source, col.in.nprof, col.in.nprof == 1 ? "" : "s");
		store_collect_release(&col);
	}
	store_close(s);
	sbuf_release(&err);
	return GF_EXIT_OK;
}

static void write_result(const char *path, struct sbuf *out, int rc, struct sbuf *err)
{
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err->buf);
	cli_write_out(path, out);
	sbuf_release(out);
	sbuf_release(err);
}

static int store_list_cmd(int argc, char **argv)
{
	struct store_cli c;
	if (parse_args(argc, argv, &c) != argc)
		cli_usage_error("list takes no operand (filters: --release, --label, --since, --until)");
	if (c.nlabels > 1)
		cli_usage_error("list filters by one --label");
	struct store *s = open_store(&c, STORE_READ);
	struct store_filter f = { c.release, c.nlabels ? c.labels[0] : NULL, c.since, c.until };
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	int rc = store_list(s, &f, c.json, &out, &err);
	store_close(s);
	write_result(c.out, &out, rc, &err);
	return GF_EXIT_OK;
}

static int store_show_cmd(int argc, char **argv)
{
	struct store_cli c;
	int first = parse_args(argc, argv, &c);
	if (argc - first != 1)
		cli_usage_error("show takes one RUN (its id, see 'gpuflame store list')");
	const char *r = argv[first];
	int64_t id = cli_int("RUN", !strncmp(r, "run:", 4) ? r + 4 : r, 1, INT64_MAX);
	struct store *s = open_store(&c, STORE_READ);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	int rc = store_show(s, id, c.json, &out, &err);
	store_close(s);
	write_result(c.out, &out, rc, &err);
	return GF_EXIT_OK;
}

static int store_trend_cmd(int argc, char **argv)
{
	struct store_cli c;
	if (parse_args(argc, argv, &c) != argc)
		cli_usage_error("trend takes no operand");
	if (!c.metric)
		cli_usage_error("trend needs --metric M (step_wall, busy, idle, weight.gpu...: 'gpuflame store --help' "
				"lists them)");
	struct store *s = open_store(&c, STORE_READ);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	bool svg = c.svg || (c.out && strlen(c.out) > 4 && !strcmp(c.out + strlen(c.out) - 4, ".svg"));
	int rc = store_trend(s, c.metric, svg ? STORE_TREND_SVG : c.json ? STORE_TREND_JSON : STORE_TREND_TEXT, &out, &err);
	store_close(s);
	write_result(c.out, &out, rc, &err);
	return GF_EXIT_OK;
}

static int store_gc_cmd(int argc, char **argv)
{
	struct store_cli c;
	if (parse_args(argc, argv, &c) != argc)
		cli_usage_error("gc takes no operand");
	if (!c.keep)
		cli_usage_error("gc needs --keep N (the newest N releases are kept)");
	struct store *s = open_store(&c, STORE_UPDATE);
	struct sbuf err = SBUF_INIT;
	int64_t runs = 0, stacks = 0;
	int rc = store_gc(s, c.keep, &runs, &stacks, &err);
	store_close(s);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_done("deleted %lld run%s and %lld stack%s no run uses", (long long)runs, runs == 1 ? "" : "s",
		 (long long)stacks, stacks == 1 ? "" : "s");
	sbuf_release(&err);
	return GF_EXIT_OK;
}

/* ---- diff: the comparison of gpuflame diff (diffopts.h), its sides read from the store ---- */

static const struct cli_opt diff_opts[] = {
	{ "db", 0, OPT_DB, "URL", "the store (as for the other actions; default $GPUFLAME_DB, else ./gpuflame.db)",
	  NULL, 0 },
	{ "weight", 'w', 'w', "W", "the weight compared: %V (default gpu)", cli_values_weights, 0 },
	DIFFOPTS_ROWS,
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

static int store_diff_cmd(int argc, char **argv);

/* `store diff` has a table and a --help of its own (not in the command list:
 * its man page is gpuflame-store(1)'s). */
static const struct cli_command cmd_store_diff_def = {
	.name = "store diff",
	.fn = store_diff_cmd,
	.summary = "diff two releases or runs of the store",
	.synopsis = "[--db URL] [--weight W] [options] BASE TARGET",
	.description = "Compares two sides of the store as 'gpuflame diff' compares two profiles: a side is a "
		       "release (its runs summed, per step) or a run (run:N, or N). The comparison's options and "
		       "outputs are diff's (docs/diff.md); the stored runs were folded when they were added. Two "
		       "releases of many ranks (runs with rank labels) are compared rank by rank, as 'gpuflame diff "
		       "DIR1 DIR2' compares two folders (a table; docs/store.md).\n\n"
		       "  gpuflame store diff v1 v2 | flamegraph.pl > v1-v2.svg\n"
		       "  gpuflame store diff --top 10 --weight idle v1.4 v1.5",
	.opts = diff_opts,
	.operands = CLI_OPERAND_NONE,
	.doc = "store.md",
	.exits = "0 ok, 1 bad input or database error, 2 usage error (unknown run or release, unlike profiles), "
		 "3 output not written.",
};

/* One side of the comparison from the store into t, with the per-step
 * folds kept beside its runs into steps (store.h store_side_steps). */
static void diff_side(struct store *s, const char *spec, const char *weight, struct ftree *t, struct ftree *steps)
{
	struct sbuf name = SBUF_INIT, err = SBUF_INIT;
	int rc = store_side(s, spec, weight, t, &name, &err);
	if (!rc)
		rc = store_side_steps(s, spec, weight, steps, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	sbuf_release(&name);
	sbuf_release(&err);
}

/* Two sides of many ranks (releases of a multi-rank job): compared rank by
 * rank, as gpuflame diff DIR1 DIR2 compares two folders (a table); one of
 * many ranks against one rank is refused. @return false when neither side
 * holds several ranks (the one-graph diff follows). */
static bool diff_many(struct store *s, const char *bspec, const char *aspec, const char *weight,
		      const struct diffopts *d)
{
	struct store_ranks r[2];
	struct sbuf err = SBUF_INIT, text = SBUF_INIT;
	const char *spec[2] = { bspec, aspec };
	for (int i = 0; i < 2; i++) {
		int rc = store_ranks_open(&r[i], s, spec[i], weight, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
	}
	size_t nb = r[0].side.n, na = r[1].side.n;
	if ((nb > 1) != (na > 1))
		cli_usage_error("%s holds %zu ranks and %s %zu: compare like with like (two runs of many ranks, or one "
				"rank's runs: run:N)", r[0].what.buf, nb, r[1].what.buf, na);
	bool many = nb > 1;
	if (many && (d->svg || d->html || d->negate))
		cli_usage_error("two runs of many ranks are compared as a table (text); for one rank's graph run "
				"'gpuflame store diff run:N run:M'");
	if (many) {
		struct ranks_diff_opts o = { d->o, d->force, (size_t)d->top, 0 };
		int rc = ranks_diff(&r[0].side, &r[1].side, &o, REP_TEXT, &text, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		cli_write_out(d->out, &text);
	}
	store_ranks_release(&r[0]);
	store_ranks_release(&r[1]);
	sbuf_release(&text);
	sbuf_release(&err);
	return many;
}

static int store_diff_cmd(int argc, char **argv)
{
	cli_cmd = cmd_store_diff_def.name;
	struct diffopts d;
	diffopts_init(&d);
	const char *db = NULL, *weight = weight_defs[FW_GPU].name;
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_store_diff_def, argc, argv, &optarg)) != -1) {
		if (c == OPT_DB)
			db = cli_nonempty("--db", optarg);
		else if (c == 'w')
			weight = weight_defs[cli_pick(&cmd_store_diff_def, 'w', optarg)].name;
		else
			diffopts_option(&cmd_store_diff_def, c, optarg, &d);
	}
	if (argc - optind != 2)
		cli_usage_error("expected two sides, BASE and TARGET (a release, or run:N), got %d", argc - optind);
	diffopts_finish(&d);
	struct store_cli sc = { .db = db };
	struct store *s = open_store(&sc, STORE_READ);
	if (diff_many(s, argv[optind], argv[optind + 1], weight, &d)) {
		store_close(s);
		return GF_EXIT_OK;
	}
	struct ftree before, after, steps[2];
	ftree_init(&before, NULL, 0);
	ftree_init(&after, NULL, 0);
	ftree_init(&steps[0], NULL, 0);
	ftree_init(&steps[1], NULL, 0);
	diff_side(s, argv[optind], weight, &before, &steps[0]);
	diff_side(s, argv[optind + 1], weight, &after, &steps[1]);
	store_close(s);
	for (int k = 0; k < 2; k++)
		d.o.step_side[k] = steps[k].n > 1 ? &steps[k] : NULL;
	diffopts_run(&d, &before, &after, argv[optind], argv[optind + 1]);
	ftree_release(&steps[0]);
	ftree_release(&steps[1]);
	return GF_EXIT_OK;
}

static int cmd_store(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(int, char **); } acts[] = {
		{ "add", store_add_cmd }, { "list", store_list_cmd }, { "show", store_show_cmd },
		{ "diff", store_diff_cmd }, { "trend", store_trend_cmd }, { "gc", store_gc_cmd },
	};
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cliopt_help(&cmd_store_def, argc < 2 ? stderr : stdout);
		return argc < 2 ? GF_EXIT_USAGE : GF_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
		if (!strcmp(argv[1], acts[i].name))
			return acts[i].fn(argc - 1, argv + 1);
	cli_usage_error("unknown store action '%s' (add, list, show, diff, trend, gc)", argv[1]);
}

const struct cli_command cmd_store_def = {
	.name = "store",
	.fn = cmd_store,
	.summary = "keep every run; diff, list and trend releases (SQLite or PostgreSQL)",
	.synopsis = "add|list|show|diff|trend|gc [--db URL] [options] ...",
	.description = "Keeps every benchmark run (folded once per weight, with its report summary and labels) "
		       "and diffs release against release. The actions:\n\n"
		       "  add --release R [--label K=V]... [--weight W] TRACE|FOLDED...   one run per input\n"
		       "  add --release R [--label K=V]... SUMMARY...   a run of many ranks: one run per rank, all or none\n"
		       "  list [--release R] [--label K=V] [--since D] [--until D] [--json]\n"
		       "  show [--json] RUN\n"
		       "  diff [--weight W] [options] BASE TARGET\n"
		       "  trend --metric M [--svg|--json] [-o FILE]\n"
		       "  gc --keep N\n\n"
		       "A side of diff is a release (its runs summed, per step) or a run (run:N, or N); the "
		       "comparison's options and outputs are 'gpuflame diff's ('gpuflame store diff --help'). Two "
		       "releases of many ranks (runs with rank labels) are compared rank by rank, as 'gpuflame diff "
		       "DIR1 DIR2'.\n\n"
		       "  gpuflame store add --release v2 --label batch=32 trace.json.gz\n"
		       "  gpuflame store diff v1 v2 | flamegraph.pl > v1-v2.svg\n"
		       "  gpuflame store trend --metric step_wall",
	.opts = opts,
	.operands = CLI_OPERAND_ANY,
	.doc = "store.md",
	.exits = "0 ok (add: the run was added, or was already stored; gc: done; a line that standard output "
		 "could not take goes to standard error), 1 bad input, not a store, or a database error (nothing was "
		 "changed), 2 usage error (unknown run or release, unlike profiles), 3 the database could not be "
		 "written.",
	.output = "SQLite or PostgreSQL (list, show, trend: text, JSON; trend: SVG)",
};
