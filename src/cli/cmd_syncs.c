/*
 * cmd_syncs.c — gpuflame syncs: the hidden-sync finder.
 *
 * USAGE: gpuflame syncs [options] TRACE|FOLDED...
 *
 *   gpuflame syncs trace.json.gz              # blocking calls by Python site, op, API
 *   gpuflame syncs wall.folded                # py-spy --native --format raw samples
 *
 * The input type is detected by content: a JSON trace starts with '{' or
 * '[' (after decompression); anything else is read as folded stacks.
 * Trace output: one row per (Python site, op, API) with the count per step,
 * host wait, GPU bubble after the call and the fix for that pattern, ranked
 * by bubble. Folded output: sync stacks by nearest Python frame with the
 * share of samples and a 95% Wilson interval; sites under 1% are "noise".
 * Exit: 0 ok, 1 bad input, 2 usage, 3 output not written, 4 internal.
 */
#include "cli/cli.h"
#include "cli/tropts.h"

#include "stacks/ops/pysync.h"
#include "trace/analysis/report.h"
#include "trace/model/trace.h"
#include "stacks/folded.h"
#include "stacks/import.h"
#include "input/input.h"
#include "stacks/render/pysync_out.h"
#include "trace/write/report_out.h"

#include <stdlib.h>
#include <string.h>

static const struct cli_opt opts[] = {
	TROPTS_FORMAT,
	TROPTS_COMMON,
	TROPTS_THREADS,
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

/* Shares of samples and their confidence intervals need sample counts:
 * folded stacks weighted by time (a gpuflame fold of a trace: weight=gpu,
 * unit=us; or decimal weights) are refused with the command to run. */
static void refuse_timed(const struct ftree *t, const char *name)
{
	const char *w = ftree_meta_get(&t->meta, "weight"), *u = ftree_meta_get(&t->meta, "unit");
	bool timed = (w && strcmp(w, "samples")) || (u && strcmp(u, "samples"));
	if (!timed && !t->scale)
		return;
	struct sbuf what = SBUF_INIT;
	if (w)
		sbuf_addf(&what, "weighted by %s%s%s", w, u && strcmp(u, w) ? " in " : "", u && strcmp(u, w) ? u : "");
	else if (u)
		sbuf_addf(&what, "weighted in %s", u);
	else
		sbuf_addstr(&what, "with decimal weights");
	const char *fmt = ftree_meta_get(&t->meta, "format");
	if (fmt && *fmt) /* an import's folded output: the import itself counts samples */
		cli_die(GF_EXIT_INPUT, "'%s': folded stacks %s, not sample counts: shares and confidence intervals "
				       "need samples; run 'gpuflame syncs' on the %s file itself, whose samples it "
				       "counts",
			name, what.buf, fmt);
	cli_die(GF_EXIT_INPUT, "'%s': folded stacks %s, not py-spy sample counts: shares and confidence "
			       "intervals need samples; run 'gpuflame syncs' on the trace itself (gpuflame syncs "
			       "TRACE), or on py-spy record --native --format raw output",
		name, what.buf);
}

static void do_folded(struct input *in, const char *name, int format, struct sbuf *out)
{
	struct sbuf err = SBUF_INIT;
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { 0 };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	int rc = folded_read_in(&t, in, &fo, &st, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (!st.stacks) {
		if (st.invalid)
			cli_die(GF_EXIT_INPUT, "'%s': line %llu: expected %s", name,
				(unsigned long long)st.first_invalid_line, st.first_invalid_why);
		cli_die(GF_EXIT_INPUT, "'%s': no stacks: expected a JSON trace or folded 'stack count' lines",
			name);
	}
	cli_folded_warn(&st, name);
	refuse_timed(&t, name);
	struct pysync_result r;
	if (pysync_analyze(&t, &r, &err))
		cli_die(GF_EXIT_INPUT, "'%s': %s", name, err.buf);
	r.sampler = ftree_meta_get(&t.meta, "format"); /* perf, austin, speedscope, py-spy (import.h) */
	pysync_out(&r, name, format, out);
	pysync_release(&r);
	ftree_release(&t);
	sbuf_release(&err);
}

static void do_trace(struct input *in, const char *name, const struct trace_opts *to, const struct report_opts *ro, int device, int format,
		     struct sbuf *out)
{
	struct sbuf err = SBUF_INIT;
	struct trace t;
	trace_init(&t, NULL);
	int rc = trace_load_input(&t, in, to, &err);
	cli_progress_done();
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_warn_trace(&t, name);
	struct actx c;
	rc = actx_init(&c, &t, device, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	struct report_opts so = *ro;
	so.parts = RP_SYNCS; /* syncs prints the sites only */
	struct report r;
	rc = report_build(&r, &c, &so, &err);
	if (rc)
		cli_die(gf_err_exit(rc), "'%s': %s", name, err.buf);
	struct report_in ri = { &r, name, 0 };
	report_out_syncs(&ri, format, out);
	report_release(&r);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

static int cmd_syncs(int argc, char **argv)
{
	struct tropts o;
	int first = tropts_parse(&o, &cmd_syncs_def, argc, argv);
	size_t n;
	char **files = cli_inputs(argc, argv, first, &n);
	struct sbuf out = SBUF_INIT;
	if (o.format == REP_JSON && n > 1)
		sbuf_addstr(&out, "[\n");
	for (size_t i = 0; i < n; i++) {
		const char *name = cli_in_name(files[i]);
		struct trace_opts to = { 0 };
		to.step_marker = o.marker;
		to.threads = cli_threads(o.threads);
		to.progress = cli_progress_reading;
		to.progress_ctx = (void *)name;
		if (i) {
			if (o.format == REP_JSON)
				sbuf_addstr(&out, ",\n");
			else
				sbuf_addstr(&out, "\n");
		}
		/* samples: shares and intervals count samples, not periods (perf)
		 * or times (austin, py-spy's speedscope seconds) */
		static const struct import_opts samples = { .samples = true };
		struct input *in = cli_open_input_with(files[i], to.threads, &samples);
		if (cli_input_is_trace(in))
			do_trace(in, name, &to, &o.ro, o.device, o.format, &out);
		else
			do_folded(in, name, o.format, &out);
		cli_close_input(in);
	}
	if (o.format == REP_JSON && n > 1)
		sbuf_addstr(&out, "]\n");
	cli_write_out(o.output, &out);
	sbuf_release(&out);
	return GF_EXIT_OK;
}

const struct cli_command cmd_syncs_def = {
	.name = "syncs",
	.fn = cmd_syncs,
	.summary = "find hidden host-device synchronisations and their cost",
	.synopsis = "[options] [TRACE|FOLDED...]",
	.description = "Find hidden host-device synchronisations (.item(), .cpu(), .tolist(), `if t:`, "
		       "torch.cuda.synchronize(), blocking copies) and what they cost. From a PyTorch profiler "
		       "trace: every blocking CUDA/HIP call grouped by the user's Python line, the aten op and the "
		       "API, with count per step, host wait and the GPU idle that follows. From py-spy "
		       "--native --format raw folded stacks (sample counts): sync stacks by nearest Python frame "
		       "with sample share and 95% CI; a fold of a trace weighted by time is refused (run syncs on "
		       "the trace itself). The input type is detected from the content; '-' reads stdin.",
	.opts = opts,
	.operands = CLI_OPERAND_ANY,
	.doc = "report.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error or empty step selection, 3 output not written, "
		 "4 internal limit.",
};
