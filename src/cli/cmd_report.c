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
#include "cli/cli.h"
#include "cli/tropts.h"

#include "trace/analysis/report.h"
#include "base/vec.h"
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"
#include "trace/write/report_out.h"

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
		"  -j, --threads N           cores for reading: 1 or 2 (default: 2 when there are)\n"
		"  -h, --help                show this help\n"
		"\n"
		"Exit codes: 0 ok, 1 bad or unreadable input, 2 usage error or empty step\n"
		"selection, 3 output not written, 4 internal error.\n");
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
	struct tropts o;
	int first = tropts_parse(&o, argc, argv, true, usage);
	size_t n;
	char **files = cli_inputs(argc, argv, first, &n);

	struct sbuf err = SBUF_INIT;
	struct pool *names = pool_new();
	struct trace *tr = gf_xcalloc(n, sizeof *tr);
	struct actx *cx = gf_xcalloc(n, sizeof *cx);
	struct report *rep = gf_xcalloc(n, sizeof *rep);
	struct report_in *in = gf_xcalloc(n, sizeof *in);
	struct gap_key **idle = gf_xcalloc(n, sizeof *idle);
	for (size_t i = 0; i < n; i++) {
		struct trace_opts to = { 0 };
		to.step_marker = o.marker;
		to.threads = cli_threads(o.threads);
		to.progress = cli_progress_reading;
		to.progress_ctx = (void *)cli_in_name(files[i]);
		trace_init(&tr[i], names);
		int rc = trace_load(&tr[i], files[i], &to, &err);
		cli_progress_done();
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		cli_warn_trace(&tr[i], cli_in_name(files[i]));
		rc = actx_init(&cx[i], &tr[i], o.device, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(files[i]), err.buf);
		rc = report_build(&rep[i], &cx[i], &o.ro, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", cli_in_name(files[i]), err.buf);
		in[i].r = &rep[i];
		in[i].file = cli_in_name(files[i]);
		if (cx[i].dev != TRACE_NONE)
			idle_stacks(&tr[i], &o.ro, &in[i], &idle[i]);
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
	report_out(in, n, have_sr ? &sr : NULL, o.format, &out);
	cli_write_out(o.output, &out);
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
