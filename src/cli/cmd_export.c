/*
 * cmd_export.c — gpuflame export: a trace or folded stacks in the
 * ecosystem's formats (docs/formats.md, "Exports").
 *
 * USAGE: gpuflame export --to speedscope|pprof|perfetto [options] [INPUT...]
 *
 *   gpuflame export --to speedscope -o p.speedscope.json trace.json.gz
 *   gpuflame export --to pprof -o gpu.pb.gz gpu.folded
 *   gpuflame export --to perfetto -o annotated.json.gz trace.json.gz
 *
 * speedscope and pprof take a trace (one profile / sample type per weight:
 * gpu, cpu, wall, idle, folded as `gpuflame fold` does, in ns; speedscope
 * also gets an evented profile per host thread, in time order) or folded
 * stacks (files merge; one profile named by the header's weight). perfetto
 * takes a trace file (read twice: not a pipe). Exit: 0 ok, 1 bad input, 2
 * usage, 3 output not written, 4 internal.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"
#include "cli/values.h"

#include "base/ofile.h"
#include "base/ozip.h"
#include "input/input.h"
#include "stacks/export/export_pprof.h"
#include "stacks/export/export_speedscope.h"
#include "stacks/folded.h"
#include "trace/analysis/fold.h"
#include "trace/write/export_perfetto.h"
#include "trace/write/export_threads.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TO_SPEEDSCOPE = 0, TO_PPROF, TO_PERFETTO };

enum { O_TO = CLIOPT_FIRST_ID, O_STEPS, O_SKIP, O_MARKER, O_DEVICE };
static const char *const tos[] = { [TO_SPEEDSCOPE] = "speedscope", [TO_PPROF] = "pprof", [TO_PERFETTO] = "perfetto",
				    NULL };
_Static_assert(GF_ARRAY_LEN(tos) == TO_PERFETTO + 2, "a name per target");

static const struct cli_opt opts[] = {
	{ "to", 0, O_TO, "FORMAT", "speedscope, pprof or perfetto (required)", tos, 0 },
	{ "weights", 'w', 'w', "LIST",
	  "traces, speedscope/pprof: the weights, a comma list of gpu, cpu, wall, idle, calls (default "
	  "gpu,cpu,wall,idle)",
	  cli_values_trace_weights, CLI_OPT_LIST },
	{ "steps", 0, O_STEPS, "A..B", "traces: only steps A to B (A.. and ..B work too)", NULL, 0 },
	{ "skip", 0, O_SKIP, "N", "traces: drop the first N selected steps", NULL, 0 },
	{ "step-marker", 0, O_MARKER, "NAME", "traces: step ranges are NAME or NAME#<n>", NULL, 0 },
	{ "device", 0, O_DEVICE, "N", "perfetto: only this GPU's tracks (default: every GPU with work)", NULL, 0 },
	{ "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE },
	{ "quiet", 'q', 'q', NULL, "no warnings on stderr", NULL, 0 },
	{ "threads", 'j', 'j', "N", "cores for reading a trace: 1 or 2", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

struct export_args {
	int to;
	unsigned weights; /* bit per enum fold_weight */
	struct trace_sel sel;
	const char *marker, *out, *threads;
	int device;
	bool quiet;
	char **files;
	size_t nfiles;
};

static unsigned parse_weights(const char *s)
{
	unsigned bits = 0;
	char *dup = gf_xstrdup(s), *save = NULL;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save))
		bits |= 1u << cli_pick(&cmd_export_def, 'w', w);
	free(dup);
	if (!bits)
		cli_usage_error("--weights: empty list");
	return bits;
}

static void parse(int argc, char **argv, struct export_args *a)
{
	int c;
	const char *optarg;
	while ((c = cliopt_next(&cmd_export_def, argc, argv, &optarg)) != -1) {
		switch (c) {
		case O_TO: a->to = cli_choice("--to", optarg, tos); break;
		case 'w': a->weights = parse_weights(optarg); break;
		case O_STEPS: cli_steps("--steps", optarg, &a->sel.first, &a->sel.last); break;
		case O_SKIP: a->sel.skip = (uint64_t)cli_int("--skip", optarg, 0, 1000000000); break;
		case O_MARKER: a->marker = cli_nonempty("--step-marker", optarg); break;
		case O_DEVICE: a->device = (int)cli_int("--device", optarg, 0, 32767); break;
		case 'o': a->out = optarg; break;
		case 'q': a->quiet = true; break;
		case 'j': a->threads = optarg; break;
		}
	}
	if (a->to < 0)
		cli_usage_error("--to is required: speedscope, pprof or perfetto");
	a->files = cli_inputs(argc, argv, optind, &a->nfiles);
}

/* Runs write(x, fp) into the output, all-or-nothing. */
struct stacks_job {
	int to;
	const struct export_stacks *x;
};

static int stacks_write(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct stacks_job *j = arg;
	return (j->to == TO_PPROF ? export_pprof_write : export_speedscope_write)(j->x, of->fp, err);
}

static void write_stacks(const struct export_args *a, const struct export_stacks *x)
{
	struct stacks_job j = { a->to, x };
	cli_write_with(a->out, stacks_write, &j);
}

/* Folded input: one profile, named by its weight. */
static void from_folded(const struct export_args *a)
{
	if (a->to == TO_PERFETTO)
		cli_die(GF_EXIT_INPUT, "'%s' is folded stacks: --to perfetto needs a PyTorch profiler trace",
			cli_in_name(a->files[0]));
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { 0 };
	cli_read_folded(&t, (int)a->nfiles, a->files, &fo);
	struct export_stacks x;
	memset(&x, 0, sizeof x);
	x.p[0].t = &t;
	x.p[0].name = export_stacks_weight(&t, a->nfiles == 1 ? cli_source_name(a->files[0]) : "samples");
	x.n = 1;
	x.title = a->nfiles == 1 ? cli_source_name(a->files[0]) : "gpuflame";
	write_stacks(a, &x);
	ftree_release(&t);
}

/* A trace: every weight asked, folded as `gpuflame fold` does, in ns. */
static void trace_stacks(const struct export_args *a, struct trace *t)
{
	struct export_stacks x;
	memset(&x, 0, sizeof x);
	struct ftree trees[5];
	struct sbuf err = SBUF_INIT;
	const char *disp = cli_in_name(a->files[0]);
	for (int w = FW_GPU; w <= FW_CALLS; w++) {
		if (!(a->weights & (1u << w)))
			continue;
		struct fold_opts o;
		fold_opts_init(&o);
		o.weight = w;
		o.unit = FU_NS;
		o.steps = a->sel;
		o.step_marker = a->marker;
		o.source = cli_source_name(a->files[0]);
		struct fold_stats st;
		memset(&st, 0, sizeof st);
		int rc = fold_trace(t, &o, &trees[x.n], &st, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", disp, err.buf);
		x.p[x.n].t = &trees[x.n];
		x.p[x.n].name = weight_defs[w].name;
		x.n++;
	}
	x.title = cli_source_name(a->files[0]);
	struct export_threads th;
	export_threads_init(&th, t);
	if (a->to == TO_SPEEDSCOPE) {
		x.ev = th.ev;
		x.nev = th.n;
	}
	if (t->win_end > t->win_start) {
		x.time_ns = t->meta.has_base_time ? t->meta.base_time_ns + t->win_start : 0;
		x.duration_ns = t->win_end - t->win_start;
	}
	write_stacks(a, &x);
	export_threads_release(&th);
	for (unsigned k = 0; k < x.n; k++)
		ftree_release(&trees[k]);
	sbuf_release(&err);
}

struct perfetto_job {
	const struct export_perfetto_dev *devs;
	size_t ndev;
	struct input *in;
	int zip;
};

static int perfetto_write(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct perfetto_job *j = arg;
	return export_perfetto_write(j->devs, j->ndev, j->in, of->fp, j->zip, err);
}

/* The trace again, with the gap model's tracks of every device with GPU
 * work (--device N: that one; none: the no-activity process). */
static void trace_perfetto(const struct export_args *a, struct trace *t)
{
	struct sbuf err = SBUF_INIT;
	const char *disp = cli_in_name(a->files[0]);
	size_t n = a->device >= 0 || !t->ndev ? 1 : t->ndev;
	struct actx *c = gf_xcalloc(n, sizeof *c);
	struct report *r = gf_xcalloc(n, sizeof *r);
	struct export_perfetto_dev *devs = gf_xcalloc(n, sizeof *devs);
	struct report_opts ro;
	report_opts_init(&ro);
	ro.steps = a->sel;
	ro.parts = RP_GAPS;
	ro.gap_pieces = true;
	for (size_t i = 0; i < n; i++) {
		int rc = actx_init(&c[i], t, n > 1 || (a->device < 0 && t->ndev) ? t->dev[i].device : a->device, &err);
		if (!rc)
			rc = report_build(&r[i], &c[i], &ro, &err);
		if (rc)
			cli_die(gf_err_exit(rc), "'%s': %s", disp, err.buf);
		devs[i] = (struct export_perfetto_dev){ &c[i], &r[i] };
	}
	/* the second pass: the file again (stdin redirected from a file: rewound) */
	if (!strcmp(a->files[0], "-") && lseek(STDIN_FILENO, 0, SEEK_SET) < 0)
		cli_die(GF_EXIT_INPUT, "'<stdin>': cannot rewind: %s", strerror(errno));
	struct perfetto_job j = { devs, n, cli_open_input(a->files[0], 1), ozip_by_name(a->out) };
	cli_write_with(a->out, perfetto_write, &j);
	cli_close_input(j.in);
	for (size_t i = 0; i < n; i++) {
		report_release(&r[i]);
		actx_release(&c[i]);
	}
	free(devs);
	free(r);
	free(c);
	sbuf_release(&err);
}

static void from_trace(const struct export_args *a, struct input *in)
{
	if (a->nfiles > 1)
		cli_usage_error("one trace at a time (one trace = one rank); got %zu inputs", a->nfiles);
	const char *disp = cli_in_name(a->files[0]);
	if (a->to == TO_PERFETTO && !input_can_reopen(in))
		cli_die(GF_EXIT_INPUT, "'%s': --to perfetto reads the trace twice (the model, then the copy): "
			"give a file, not a pipe", disp);
	struct sbuf err = SBUF_INIT;
	struct trace_opts to = { 0 };
	to.step_marker = a->marker;
	to.threads = cli_threads(a->threads);
	if (cli_progress_enabled()) {
		to.progress = cli_progress_reading;
		to.progress_ctx = (void *)disp;
	}
	struct trace t;
	trace_init(&t, NULL);
	int rc = trace_load_input(&t, in, &to, &err);
	cli_progress_done();
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (!a->quiet)
		cli_warn_trace(&t, disp);
	if (a->to == TO_PERFETTO)
		trace_perfetto(a, &t);
	else
		trace_stacks(a, &t);
	trace_release(&t);
	sbuf_release(&err);
}

static int cmd_export(int argc, char **argv)
{
	struct export_args a;
	memset(&a, 0, sizeof a);
	a.to = -1;
	a.device = -1;
	a.weights = 1u << FW_GPU | 1u << FW_CPU | 1u << FW_WALL | 1u << FW_IDLE;
	trace_sel_init(&a.sel);
	optind = 1;
	parse(argc, argv, &a);
	struct input *in = cli_open_input(a.files[0], cli_threads(a.threads));
	int kind = input_format(in);
	if (kind == INPUT_TRACE) {
		from_trace(&a, in);
		cli_close_input(in);
	} else {
		if (kind != INPUT_FOLDED)
			cli_check_kind(in, INPUT_FOLDED); /* the hint for the formats not read yet */
		cli_close_input(in);
		from_folded(&a);
	}
	return GF_EXIT_OK;
}

const struct cli_command cmd_export_def = {
	.name = "export",
	.fn = cmd_export,
	.summary = "write a trace or folded stacks as speedscope, pprof or Perfetto",
	.synopsis = "--to speedscope|pprof|perfetto [options] [INPUT...]",
	.description = "Write a PyTorch profiler trace or folded stacks in another tool's format (docs/formats.md). "
		       "INPUT may be plain, gzip or zstd; '-' or none reads stdin. speedscope: JSON for speedscope, "
		       "one sampled profile per weight (and, from a trace, one time-ordered profile per host "
		       "thread). pprof: gzip'd profile.proto for pprof, Pyroscope, Grafana, one sample type per "
		       "weight (values in ns, or counts). perfetto: the trace itself plus tracks for Perfetto's UI "
		       "(GPU idle by cause, sync bubbles linked to their calls, GPU busy % per step), from a trace "
		       "file (read twice: not a pipe); gzip or zstd output by the name (.gz, .zst).\n\n"
		       "  gpuflame export --to speedscope -o p.speedscope.json trace.json.gz\n"
		       "  gpuflame export --to pprof -o gpu.pb.gz gpu.folded\n"
		       "  gpuflame export --to perfetto -o annotated.json.gz trace.json.gz",
	.opts = opts,
	.operands = CLI_OPERAND_ANY,
	.doc = "formats.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error, 3 output not written, 4 internal limit.",
};
