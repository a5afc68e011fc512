/*
 * cmd_report.c — gpuflame report: where each step's time goes.
 *
 * USAGE: gpuflame report [options] TRACE...
 *
 *   gpuflame report trace.json.gz
 *   gpuflame report --skip 2 --expect-ms 11 --format json trace.json.gz > r.json
 *   gpuflame report rank0.json.gz rank1.json.gz      # one trace per rank
 *
 * Output (docs/report.md): the per-step table (wall, GPU busy, kernel,
 * memcpy, idle, sync wait, syncs, launches, kernels, median kernel), a
 * one-sentence verdict and the next action, GPU idle by cause, the launch
 * diagnosis, the hidden syncs, NCCL overlap, the top calls per step; with
 * several traces, one column per rank and the straggler. Exit: 0 ok, 1 bad
 * input, 2 usage (incl. an empty step selection), 3 output not written,
 * 4 internal.
 */
#include "cli.h"

#include "../analyze/report.h"
#include "../base/num.h"
#include "../base/ofile.h"
#include "../base/vec.h"
#include "../fold/fold.h"
#include "../model/trace.h"
#include "../write/report_out.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: gpuflame report [options] TRACE...\n"
		"\n"
		"Per-step GPU busy/idle table of a PyTorch profiler (Kineto) trace, why the GPU\n"
		"idles (syncs, launch overhead, host work), hidden syncs, NCCL overlap and a\n"
		"one-sentence verdict. Several traces are ranks: shown side by side with the\n"
		"straggler, never merged. '-' reads stdin.\n"
		"\n"
		"options:\n"
		"  -f, --format F            text (default), md or json\n"
		"      --steps A..B          only steps numbered A to B (A.. and ..B work too)\n"
		"      --skip N              drop the first N selected steps (warm-up)\n"
		"      --step-marker NAME    step ranges are NAME or NAME#<n> (default ProfilerStep)\n"
		"      --device N            analyse GPU N (default: the one the step thread uses most)\n"
		"      --unprofiled-step-ms X  your step time without the profiler: overhead estimate\n"
		"      --expect-ms X         your speed-of-light step estimate: distance to it\n"
		"  -o, --output FILE         write to FILE instead of stdout\n"
		"  -h, --help                show this help\n"
		"\n"
		"Exit codes: 0 ok, 1 bad or unreadable input, 2 usage error or empty step\n"
		"selection, 3 output not written, 4 internal error.\n");
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	const char *name = ctx;
	if (total)
		cli_progress("reading %s: %llu / %llu MB", name, (unsigned long long)(done >> 20),
			     (unsigned long long)(total >> 20));
	else
		cli_progress("reading %s: %llu MB", name, (unsigned long long)(done >> 20));
}

static int64_t parse_step(const char *s, size_t n, const char *whole, int64_t dflt)
{
	if (!n)
		return dflt;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > INT64_MAX / 10 - 10)
			cli_usage_error("invalid argument '%s' for '--steps'; expected A..B with step numbers", whole);
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "A..B", "A..", "..B" or "A" */
static void parse_steps(const char *arg, int64_t *first, int64_t *last)
{
	const char *dots = strstr(arg, "..");
	if (!dots) {
		*first = *last = parse_step(arg, strlen(arg), arg, INT64_MIN);
		if (!*arg)
			cli_usage_error("invalid argument '' for '--steps'");
		return;
	}
	*first = parse_step(arg, (size_t)(dots - arg), arg, INT64_MIN);
	*last = parse_step(dots + 2, strlen(dots + 2), arg, INT64_MAX);
	if (*first > *last)
		cli_usage_error("invalid argument '%s' for '--steps': A is after B", arg);
}

/* Milliseconds as exact ns. */
static gf_ns parse_ms(const char *opt, const char *val)
{
	int64_t v;
	int rc = num_parse(val, strlen(val), 6, 0, &v);
	if (rc < 0 || v < 0)
		cli_usage_error("invalid value '%s' for '%s' (expected milliseconds, e.g. 12.5)", val, opt);
	return v;
}

#define IDLE_TOP 8

static int cmp_key(const void *a, const void *b)
{
	const struct gap_key *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

/*
 * Host stacks by GPU idle time from fold's idle weight (innermost 3 frames),
 * over the same step selection; the top IDLE_TOP go into in. A fold error
 * only drops the section (with a warning).
 */
static void idle_stacks(struct trace *t, const struct report_opts *ro, struct report_in *in,
			struct gap_key **keep)
{
	struct fold_opts fo;
	fold_opts_init(&fo);
	fo.weight = FW_IDLE;
	fo.unit = FU_NS;
	fo.max_depth = 3;
	fo.step_lo = ro->steps.first == INT64_MIN ? KEV_NONE : ro->steps.first;
	fo.step_hi = ro->steps.last == INT64_MAX ? KEV_NONE : ro->steps.last;
	fo.skip = (unsigned)ro->steps.skip;
	struct ftree tr;
	struct fold_stats fs;
	struct sbuf err = SBUF_INIT, path = SBUF_INIT;
	memset(&fs, 0, sizeof fs);
	if (fold_trace(t, &fo, &tr, &fs, &err)) {
		cli_warn("'%s': no idle stacks: %s", in->file, err.buf);
		sbuf_release(&err);
		return;
	}
	VEC(struct gap_key) v = VEC_INIT;
	for (uint32_t nd = 1; nd < tr.n; nd++) {
		int64_t w = ftree_self(&tr, nd, 0);
		if (w <= 0)
			continue;
		sbuf_reset(&path);
		ftree_path(&tr, nd, &path);
		struct gap_key k = { gf_xstrdup(path.buf), w };
		vec_push(&v, k);
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_key);
	for (size_t i = IDLE_TOP; i < v.n; i++)
		free(v.v[i].label);
	in->idle = v.v;
	in->nidle = v.n < IDLE_TOP ? v.n : IDLE_TOP;
	in->idle_steps = fs.steps ? fs.steps : 1;
	*keep = v.v;
	ftree_release(&tr);
	sbuf_release(&err);
	sbuf_release(&path);
}

int cmd_report(int argc, char **argv)
{
	enum { O_STEPS = 256, O_SKIP, O_MARKER, O_DEVICE, O_UNPROF, O_EXPECT };
	static const struct option lo[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "steps", required_argument, NULL, O_STEPS },
		{ "skip", required_argument, NULL, O_SKIP },
		{ "step-marker", required_argument, NULL, O_MARKER },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "unprofiled-step-ms", required_argument, NULL, O_UNPROF },
		{ "expect-ms", required_argument, NULL, O_EXPECT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { "text", "md", "json", NULL };
	int format = REP_TEXT, device = -1;
	const char *output = NULL, *marker = NULL;
	struct report_opts ro;
	report_opts_init(&ro);
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = cli_choice("--format", optarg, formats);
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return GF_EXIT_OK;
		case O_STEPS:
			parse_steps(optarg, &ro.steps.first, &ro.steps.last);
			break;
		case O_SKIP:
			ro.steps.skip = (uint64_t)cli_int("--skip", optarg, 0, 1000000000);
			break;
		case O_MARKER:
			if (!*optarg)
				cli_usage_error("empty argument for '--step-marker'");
			marker = optarg;
			break;
		case O_DEVICE:
			device = (int)cli_int("--device", optarg, 0, 32767);
			break;
		case O_UNPROF:
			ro.unprofiled_ns = parse_ms("--unprofiled-step-ms", optarg);
			break;
		case O_EXPECT:
			ro.expect_ns = parse_ms("--expect-ms", optarg);
			break;
		case ':':
			cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	char *stdin_only[] = { (char *)"-" };
	char **files = argv + optind;
	size_t n = (size_t)(argc - optind);
	if (!n) {
		files = stdin_only;
		n = 1;
	}
	size_t nstdin = 0;
	for (size_t i = 0; i < n; i++)
		nstdin += !strcmp(files[i], "-");
	if (nstdin > 1)
		cli_usage_error("stdin ('-') can be given only once");

	struct sbuf err = SBUF_INIT;
	struct pool *names = pool_new();
	struct trace *tr = gf_xcalloc(n, sizeof *tr);
	struct actx *cx = gf_xcalloc(n, sizeof *cx);
	struct report *rep = gf_xcalloc(n, sizeof *rep);
	struct report_in *in = gf_xcalloc(n, sizeof *in);
	struct gap_key **idle = gf_xcalloc(n, sizeof *idle);
	for (size_t i = 0; i < n; i++) {
		struct trace_opts to = { 0 };
		to.step_marker = marker;
		to.progress = progress_cb;
		to.progress_ctx = (void *)cli_in_name(files[i]);
		trace_init(&tr[i], names);
		int rc = trace_load(&tr[i], files[i], &to, &err);
		cli_progress_done();
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		rc = actx_init(&cx[i], &tr[i], device, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(files[i]), err.buf);
		rc = report_build(&rep[i], &cx[i], &ro, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(files[i]), err.buf);
		in[i].r = &rep[i];
		in[i].file = cli_in_name(files[i]);
		if (cx[i].dev != TRACE_NONE)
			idle_stacks(&tr[i], &ro, &in[i], &idle[i]);
	}
	struct strag_result sr = { 0 };
	bool have_sr = false;
	if (n > 1) {
		struct coll **cl = gf_xcalloc(n, sizeof *cl);
		size_t *ncl = gf_xcalloc(n, sizeof *ncl);
		for (size_t i = 0; i < n; i++)
			comm_collectives(&cx[i], &rep[i].st, &cl[i], &ncl[i]);
		comm_straggler(cl, ncl, n, &sr);
		have_sr = true;
		for (size_t i = 0; i < n; i++)
			free(cl[i]);
		free(cl);
		free(ncl);
	}
	struct sbuf out = SBUF_INIT;
	report_out(in, n, have_sr ? &sr : NULL, format, &out);
	struct ofile of;
	if (ofile_open(&of, output, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	fwrite(out.buf, 1, out.len, of.fp);
	if (ofile_commit(&of, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	sbuf_release(&out);
	if (have_sr)
		comm_straggler_release(&sr);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < in[i].nidle; k++)
			free(idle[i][k].label);
		free(idle[i]);
		report_release(&rep[i]);
		actx_release(&cx[i]);
		trace_release(&tr[i]);
	}
	free(rep);
	free(cx);
	free(tr);
	free(in);
	free(idle);
	pool_free(names);
	sbuf_release(&err);
	return GF_EXIT_OK;
}
