/*
 * cmd_push.c — gpuflame push: send a profile to Grafana Pyroscope.
 *
 * USAGE: gpuflame push --url URL --app NAME [options] TRACE|FOLDED|run:N...
 *   gpuflame push --url http://pyroscope:4040 --app llm-serve --release v2 trace.json.gz
 * Each input is one POST /ingest?format=pprof carrying every weight as a
 * sample type of one profile (--format folded: one POST per weight, for
 * servers before pprof ingest; docs/store.md, "Pyroscope"). Exit: 0 pushed (even when the "pushed" line could not be
 * written to stdout: then it goes to stderr), 1 bad input, 2 usage error or
 * a profile Pyroscope cannot take, 3 the server refused it or could not be
 * reached (the profiles pushed before stay pushed and were said so).
 */
#include "cli/cli.h"
#include "cli/cliopt.h"
#include "cli/values.h"

#include "input/input.h"
#include "stacks/export/export_pprof.h"
#include "store/http.h"
#include "store/push.h"
#include "store/store.h"
#include "store/store_collect.h"

#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_URL = CLIOPT_FIRST_ID, OPT_APP, OPT_RELEASE, OPT_LABEL, OPT_DB, OPT_FROM, OPT_UNTIL, OPT_MAX, OPT_RATE, OPT_HEADER,
       OPT_RETRIES, OPT_TIMEOUT, OPT_FORMAT };

/* what a push sends: one multi-type pprof profile per input, or folded text
 * per weight (servers without pprof ingest) */
enum { PF_PPROF = 0, PF_FOLDED };
static const char *const push_formats[] = { "pprof", "folded", NULL };


static const struct cli_opt opts[] = {
	{ "url", 0, OPT_URL, "URL", "the server, http://host:4040 (user:password@ for Basic auth)", NULL, 0 },
	{ "app", 0, OPT_APP, "NAME", "the application name (Pyroscope's service_name prefix)", NULL, 0 },
	{ "format", 0, OPT_FORMAT, "F",
	  "pprof (default): one profile per input, its weights as sample types (Pyroscope 1.x); folded: one "
	  "request per weight (older servers)",
	  push_formats, 0 },
	{ "weight", 'w', 'w', "W",
	  "gpu, cpu, wall, idle, calls, samples; repeat for several (default: pprof every weight the input has, "
	  "folded gpu for traces); a folded file pushes the weight of its header",
	  cli_values_weights, CLI_OPT_REPEAT },
	{ "release", 0, OPT_RELEASE, "R", "label release=R (a stored run: its release by default)", NULL, 0 },
	{ "label", 0, OPT_LABEL, "K=V", "a label (repeatable)", NULL, CLI_OPT_REPEAT },
	{ "db", 0, OPT_DB, "URL",
	  "the store holding run:N and releases (a name that is not a file; default $GPUFLAME_DB, else "
	  "./gpuflame.db); a release: its runs summed",
	  NULL, 0 },
	{ "from", 0, OPT_FROM, "T", "start of the profile's time range, UNIX seconds (default: the last 10 s)", NULL, 0 },
	{ "until", 0, OPT_UNTIL, "T", "end of the profile's time range, UNIX seconds (default: the last 10 s)", NULL, 0 },
	{ "max-stacks", 0, OPT_MAX, "N",
	  "at most N folded lines, the heaviest N-1 and [other]; pprof: at most N samples, each weight's heaviest "
	  "stacks and [other] (default 16000, Pyroscope's max_profile_stacktrace_samples)",
	  NULL, 0 },
	{ "sample-rate", 0, OPT_RATE, "HZ", "py-spy samples: the sampling rate (default 100)", NULL, 0 },
	{ "header", 0, OPT_HEADER, "'K: V'", "an extra HTTP header (X-Scope-OrgID: tenant); repeatable", NULL,
	  CLI_OPT_REPEAT },
	{ "retries", 0, OPT_RETRIES, "N", "retries after a connection failure, 429 or 5xx (default 3)", NULL, 0 },
	{ "timeout", 0, OPT_TIMEOUT, "S",
	  "seconds for one attempt as a whole: connecting, sending, the reply (default 30)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

struct push_cli {
	struct push_opts o;
	const char *release, *db;
	const char *weights[FW_N];
	size_t nweights;
	int format;
};

static void parse_args(int argc, char **argv, struct push_cli *c)
{
	memset(c, 0, sizeof *c);
	push_opts_init(&c->o);
	int ch;
	const char *optarg;
	while ((ch = cliopt_next(&cmd_push_def, argc, argv, &optarg)) != -1) {
		switch (ch) {
		case OPT_URL: c->o.url = cli_nonempty("--url", optarg); break;
		case OPT_APP: c->o.app = cli_nonempty("--app", optarg); break;
		case 'w':
			if (c->nweights == FW_N)
				cli_usage_error("at most %d --weight options", FW_N);
			c->weights[c->nweights++] = weight_defs[cli_pick(&cmd_push_def, 'w', optarg)].name;
			break;
		case OPT_RELEASE: c->release = cli_nonempty("--release", optarg); break;
		case OPT_LABEL:
			if (c->o.nlabels == PUSH_MAX_LABELS)
				cli_usage_error("at most %d --label options", PUSH_MAX_LABELS);
			c->o.labels[c->o.nlabels++] = optarg;
			break;
		case OPT_DB: c->db = cli_nonempty("--db", optarg); break;
		case OPT_FROM: c->o.from = cli_int("--from", optarg, 1, INT64_MAX); break;
		case OPT_UNTIL: c->o.until = cli_int("--until", optarg, 1, INT64_MAX); break;
		case OPT_MAX: c->o.max_stacks = (size_t)cli_int("--max-stacks", optarg, 2, 100000000); break;
		case OPT_RATE: c->o.sample_rate = cli_int("--sample-rate", optarg, 1, 1000000000); break;
		case OPT_HEADER:
			if (c->o.nheaders == 8 || !strchr(optarg, ':') || strpbrk(optarg, "\r\n"))
				cli_usage_error("--header wants 'Name: value' (at most 8)");
			c->o.headers[c->o.nheaders++] = optarg;
			break;
		case OPT_RETRIES: c->o.retries = (int)cli_int("--retries", optarg, 0, 20); break;
		case OPT_TIMEOUT: c->o.timeout_s = (int)cli_int("--timeout", optarg, 1, 3600); break;
		case OPT_FORMAT: c->format = cli_pick(&cmd_push_def, OPT_FORMAT, optarg); break;
		}
	}
	if (!c->o.url || !c->o.app)
		cli_usage_error("push needs --url URL and --app NAME");
	struct sbuf err = SBUF_INIT;
	if (http_url_check(c->o.url, &err))
		cli_usage_error("%s", err.buf);
	sbuf_release(&err);
	if (optind == argc)
		cli_usage_error("push needs at least one TRACE, FOLDED or run:N");
}

struct retry_ctx {
	const char *what, *weight;
};

static void say_retry(void *ctx, int attempt, long wait_ms, const char *why)
{
	const struct retry_ctx *r = ctx;
	cli_warn("'%s' (%s): attempt %d failed: %s; retrying in %ld.%01ld s", r->what, r->weight, attempt, why,
		 wait_ms / 1000, wait_ms % 1000 / 100);
}

static void push_one(struct push_cli *c, const struct ftree *t, const char *weight, const char *release,
		     const char *what)
{
	struct push_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	struct retry_ctx rc_ = { what, weight };
	c->o.retrying = say_retry;
	c->o.ctx = &rc_;
	int rc = push_send(t, weight, release, &c->o, &st, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s' (%s): %s", what, weight, err.buf);
	cli_done("pushed %s %s: %zu lines (%zu stacks in [other], %zu cut), total %lld, HTTP %d", what, weight,
		 st.lines, st.merged, st.truncated, (long long)st.total, st.status);
	sbuf_release(&err);
}

/* One multi-type pprof profile of the n trees (weights w) to Pyroscope. */
static void push_pprof(struct push_cli *c, struct ftree *const *t, const char *const *w, size_t n,
		       const char *release, const char *what)
{
	struct export_stacks x;
	memset(&x, 0, sizeof x);
	struct sbuf names = SBUF_INIT, err = SBUF_INIT, q = SBUF_INIT;
	for (size_t i = 0; i < n && x.n < EXPORT_STACKS_MAX; i++) {
		x.p[x.n++] = (struct export_stacks_prof){ t[i], w[i] };
		sbuf_addf(&names, "%s%s", i ? "," : "", w[i]);
	}
	x.str_labels = true;                 /* Pyroscope keeps string labels only */
	x.max_samples = c->o.max_stacks;     /* and refuses a profile over its cap */
	int64_t from, until;
	push_range(&c->o, &from, &until);
	x.time_ns = from * 1000000000;       /* in its ingestion window: now, unless --from */
	x.duration_ns = (until - from) * 1000000000;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		cli_die(GF_EXIT_INTERNAL, "out of memory");
	struct export_pprof_stats ps;
	int rc = export_pprof_write_st(&x, fp, &ps, &err);
	if (fclose(fp) && !rc)
		cli_die(GF_EXIT_INTERNAL, "out of memory encoding the pprof profile");
	if (!rc)
		rc = push_pprof_query(n ? ftree_meta_get(&t[0]->meta, "rank") : NULL, release, &c->o, &q, &err);
	struct push_stats st;
	memset(&st, 0, sizeof st);
	struct retry_ctx rc_ = { what, names.buf };
	c->o.retrying = say_retry;
	c->o.ctx = &rc_;
	if (!rc)
		rc = push_post(q.buf, "application/octet-stream", buf, len, &c->o, &st, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s' (%s): %s", what, names.buf, err.buf);
	cli_done("pushed %s %s: one pprof profile, %zu samples (%zu stacks in [other]), HTTP %d", what, names.buf,
		 ps.samples, ps.merged, st.status);
	free(buf);
	sbuf_release(&names);
	sbuf_release(&err);
	sbuf_release(&q);
}

/* pprof of a stored run: the weights asked, else every one it has. */
static void push_run_pprof(struct push_cli *c, struct store *s, const char *spec, const char *release)
{
	struct ftree trees[FW_N];
	struct ftree *tp[FW_N];
	const char *ws[FW_N];
	size_t n = 0, nw = c->nweights ? c->nweights : FW_N;
	struct sbuf err = SBUF_INIT, name = SBUF_INIT;
	for (size_t i = 0; i < nw; i++) {
		const char *w = c->nweights ? c->weights[i] : weight_defs[i].name;
		ftree_init(&trees[n], NULL, 0);
		sbuf_reset(&err);
		int rc = store_side(s, spec, w, &trees[n], &name, &err);
		if (rc && c->nweights)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		if (rc) { /* not one of the run's weights */
			ftree_release(&trees[n]);
			continue;
		}
		tp[n] = &trees[n];
		ws[n++] = w;
	}
	if (!n)
		cli_die(GF_EXIT_INPUT, "%s", err.buf);
	push_pprof(c, tp, ws, n, release, spec);
	for (size_t i = 0; i < n; i++)
		ftree_release(&trees[i]);
	sbuf_release(&err);
	sbuf_release(&name);
}

static void push_run(struct push_cli *c, const char *spec)
{
	struct store *s;
	struct sbuf err = SBUF_INIT, name = SBUF_INIT;
	int rc = store_open(&s, c->db ? c->db : store_default_url(), STORE_READ, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	struct sbuf rel = SBUF_INIT;
	if (!c->release && (rc = store_side_release(s, spec, &rel, &err)))
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (c->format == PF_PPROF) {
		push_run_pprof(c, s, spec, c->release ? c->release : rel.buf);
		store_close(s);
		sbuf_release(&err);
		sbuf_release(&name);
		sbuf_release(&rel);
		return;
	}
	const char *ws[] = { "gpu" };
	const char *const *w = c->nweights ? c->weights : ws;
	size_t nw = c->nweights ? c->nweights : 1;
	for (size_t i = 0; i < nw; i++) {
		struct ftree t;
		ftree_init(&t, NULL, 0);
		if ((rc = store_side(s, spec, w[i], &t, &name, &err)))
			cli_die(gf_err_exit(rc), "%s", err.buf);
		push_one(c, &t, w[i], c->release ? c->release : rel.buf, spec);
		ftree_release(&t);
	}
	store_close(s);
	sbuf_release(&err);
	sbuf_release(&name);
	sbuf_release(&rel);
}

static void warn_trace(const struct trace *t, void *name)
{
	cli_warn_trace(t, name);
}

static void push_file(struct push_cli *c, const char *path)
{
	struct input *in = cli_open_input(path, 0);
	bool trace = cli_input_is_trace(in);
	struct store_collect col;
	struct store_collect_opts so = { .release = c->release, .trace_loaded = warn_trace, .ctx = (void *)cli_in_name(path) };
	struct sbuf err = SBUF_INIT;
	int rc = store_collect_input(&col, in, trace, &so, &err);
	cli_close_input(in);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	bool pprof = c->format == PF_PPROF;
	const char *const *w = c->nweights ? c->weights : col.in.weights;
	size_t nw = c->nweights ? c->nweights : pprof ? col.in.nprof : 1;
	struct ftree *tp[FW_N];
	for (size_t i = 0; i < nw && i < FW_N; i++) {
		size_t k = 0;
		while (k < col.in.nprof && strcmp(col.in.weights[k], w[i]))
			k++;
		if (k == col.in.nprof)
			cli_die(GF_EXIT_USAGE, "'%s' has no %s profile (it has %s)", cli_in_name(path), w[i], col.in.weights[0]);
		tp[i] = col.in.prof[k];
		if (!pprof)
			push_one(c, col.in.prof[k], w[i], c->release, cli_in_name(path));
	}
	if (pprof)
		push_pprof(c, tp, w, nw, c->release, cli_in_name(path));
	store_collect_release(&col);
	sbuf_release(&err);
}

static int cmd_push(int argc, char **argv)
{
	struct push_cli c;
	parse_args(argc, argv, &c);
	for (int i = optind; i < argc; i++) {
		struct stat sb;
		const char *a = argv[i];
		if (strcmp(a, "-") && stat(a, &sb)) /* not a file: a stored run (run:N, N) or release */
			push_run(&c, a);
		else
			push_file(&c, a);
	}
	return GF_EXIT_OK;
}

const struct cli_command cmd_push_def = {
	.name = "push",
	.fn = cmd_push,
	.summary = "send a trace, folded file or stored run to Pyroscope",
	.synopsis = "--url URL --app NAME [options] TRACE|FOLDED|run:N|RELEASE...",
	.description = "Sends profiles to Grafana Pyroscope's ingest API (POST /ingest). By default each input is "
		       "one pprof profile (format=pprof) whose sample types are its weights (gpu, cpu, wall, idle "
		       "in nanoseconds, calls as a count), the rank and step labels as strings, time_nanos the "
		       "push's start, at most --max-stacks samples; service NAME, labels release, rank and yours. "
		       "--format folded sends one POST per weight instead: time weights as NAME.WEIGHT.wall with "
		       "sampleRate=1000000000 (ns stay ns), py-spy samples as NAME.samples.cpu.\n\n"
		       "  gpuflame push --url http://pyroscope:4040 --app llm-serve --release v2 trace.json.gz",
	.opts = opts,
	.operands = CLI_OPERAND_ANY,
	.doc = "store.md",
	.exits = "0 pushed (a \"pushed\" line that standard output could not take goes to standard error), 1 bad "
		 "input, 2 usage error or a profile Pyroscope cannot take, 3 refused, unreachable or timed-out server "
		 "(what was pushed before stays pushed).",
	.output = "Pyroscope (HTTP ingest)",
};
