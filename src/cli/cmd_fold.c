/*
 * cmd_fold.c — gpuflame fold: folded stacks from a PyTorch profiler trace,
 * weighted by GPU time, host CPU time, wall time, GPU idle time or calls.
 *
 * USAGE: gpuflame fold [options] [TRACE]
 *
 *   gpuflame fold trace.json.gz > gpu.folded          # GPU us per launching stack
 *   gpuflame fold --weight wall --skip 2 trace.json.gz
 *
 * Output (docs/fold.md): a header line, then "frame;frame;leaf weight" lines
 *   # gpuflame: weight=gpu; unit=us; steps=5; rank=0; world_size=8; source=trace.json; ...
 *   ## forward ##;model.py(12): forward;aten::mm;gemm 1234.567
 * Warnings (clipped overlaps, bogus External ids, unattributed GPU time) go
 * to stderr. Exit: 0 ok, 1 bad input, 2 usage (incl. an empty step
 * selection), 3 output not written, 4 internal.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"
#include "cli/foldopts.h"

#include "base/names.h"
#include "base/num.h"
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"
#include "stacks/folded_out.h"
#include "stacks/import.h"
#include "input/input.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { O_STEPS = CLIOPT_FIRST_ID, O_NORM, O_KINDS, O_PID, O_TID, O_KERNEL, O_JIT, O_ALL, O_ADDRS };

static const char *const thread_modes[] = { "keep", "merge", NULL };

static const struct cli_opt opts[] = {
	FOLDOPTS_ROWS(""),
	{ "steps", 0, O_STEPS, "A..B", "fold only steps numbered A to B (A.. and ..B work too)", NULL, 0 },
	{ "per-step-normalise", 0, O_NORM, NULL, "divide weights by the number of steps folded", NULL, 0 },
	{ "per-step-normalize", 0, O_NORM, NULL, "the same as --per-step-normalise", NULL, 0 },
	{ "kinds", 0, O_KINDS, NULL,
	  "append each frame's kind (_[an] _[py] _[mo] _[op] _[la] _[sy] _[ke], docs/fold.md): svg colours by it",
	  NULL, 0 },
	{ "pid", 0, O_PID, NULL, "perf script input: root frame comm-PID", NULL, 0 },
	{ "tid", 0, O_TID, NULL, "perf script input: root frame comm-PID/TID", NULL, 0 },
	{ "kernel", 0, O_KERNEL, NULL, "perf script input: annotate kernel frames _[k]", NULL, 0 },
	{ "jit", 0, O_JIT, NULL, "perf script input: annotate JIT frames _[j]", NULL, 0 },
	{ "all", 0, O_ALL, NULL, "perf script input: --kernel and --jit", NULL, 0 },
	{ "addrs", 0, O_ADDRS, NULL, "perf script input: [module <addr>] for unknown symbols", NULL, 0 },
	{ "output", 'o', 'o', "FILE", "write to FILE instead of stdout", NULL, CLI_OPT_FILE },
	{ "quiet", 'q', 'q', NULL, "no warnings on stderr", NULL, 0 },
	{ "threads", 'j', 'j', "N|keep|merge",
	  "traces: cores for reading, 1 or 2 (default: 2 when there are; the environment's GPUFLAME_THREADS sets "
	  "the default); py-spy, austin, speedscope input: keep (default) or merge (drop) the process/thread/"
	  "profile root frames",
	  thread_modes, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
};

static int cmd_fold(int argc, char **argv);

const struct cli_command cmd_fold_def = {
	.name = "fold",
	.fn = cmd_fold,
	.summary = "fold a trace into GPU-, CPU-, wall-, idle- or call-weighted stacks",
	.synopsis = "[options] [TRACE]",
	.description = "Fold a PyTorch profiler (Kineto) trace into folded stacks ('frame;frame;leaf weight' "
		       "lines after a '# gpuflame:' metadata header), for 'gpuflame svg', flamegraph.pl, inferno "
		       "or speedscope. TRACE may be plain JSON, gzip or zstd; '-' or no TRACE reads stdin. One "
		       "trace = one rank.\n\n"
		       "Other profilers' stacks (docs/formats.md, Imports): perf script text, a speedscope JSON "
		       "file, austin or py-spy samples print as folded stacks (--pid, --tid, --kernel, --jit, "
		       "--all, --addrs, --threads keep|merge apply to them; the trace options do not).\n\n"
		       "  gpuflame fold trace.json.gz | gpuflame svg --colors gpu > gpu.svg\n"
		       "  gpuflame fold --weight wall --skip 2 -o wall.folded trace.json.gz",
	.opts = opts,
	.operands = CLI_OPERAND_TRACE,
	.doc = "fold.md",
	.exits = "0 ok, 1 bad or unreadable input, 2 usage error or empty step selection, 3 output not written, "
		 "4 internal limit.",
	.output = "folded stacks",
};

static void pct(struct sbuf *b, int64_t part, int64_t whole)
{
	if (!num_fmt_pct(b, part, whole, 2, NUM_HALF_EVEN))
		sbuf_addstr(b, "?");
}

/* What the command line asks for. */
struct fold_args {
	struct fold_opts o;
	struct trace_opts to;
	const char *out, *families, *threads, *path;
	bool quiet;
	struct import_opts io;
	const char *trace_opt; /* a trace-only option given (for imports) */
	const char *import_opt; /* an import-only option given (for traces) */
};

/* The long name of option id c, for messages. */
static const char *opt_name(int c)
{
	const struct cli_opt *o = cliopt_find(&cmd_fold_def, c);
	return o ? o->name : "?";
}

/* --pid, --tid, --kernel, --jit, --all, --addrs (k: their order). */
static void import_flag(int k, struct import_opts *io)
{
	switch (k) {
	case 0: io->pid = true; break;
	case 1: io->tid = true; break;
	case 2: io->kernel = true; break;
	case 3: io->jit = true; break;
	case 4: io->kernel = io->jit = true; break;
	default: io->addrs = true; break;
	}
}

/* -j, --threads: a number of cores, or keep|merge (thread roots of imports). */
static void threads_arg(const char *v, struct fold_args *a)
{
	if (!strcmp(v, "keep") || !strcmp(v, "merge")) {
		a->io.merge_threads = v[0] == 'm';
		a->import_opt = "threads";
	} else {
		a->threads = v;
	}
}

static void parse(int argc, char **argv, struct fold_args *a)
{
	struct fold_opts *o = &a->o;
	struct sbuf err = SBUF_INIT;
	int c;
	const char *optarg;
	struct foldopts_extra x = { NULL };
	while ((c = cliopt_next(&cmd_fold_def, argc, argv, &optarg)) != -1) {
		if (c >= O_PID && c <= O_ADDRS) {
			a->import_opt = opt_name(c);
			import_flag(c - O_PID, &a->io);
			continue;
		}
		if (c != 'o' && c != 'q' && c != 'j')
			a->trace_opt = opt_name(c);
		if (foldopts_option(&cmd_fold_def, c, optarg, o, &x))
			continue;
		switch (c) {
		case O_STEPS: cli_steps("--steps", optarg, &o->steps.first, &o->steps.last); break;
		case O_NORM: o->normalise = true; break;
		case O_KINDS: o->kinds = true; break;
		case 'o': a->out = optarg; break;
		case 'q': a->quiet = true; break;
		case 'j': threads_arg(optarg, a); break;
		}
	}
	a->families = x.families;
	a->to.step_marker = o->step_marker;
	size_t n;
	char **in = cli_inputs(argc, argv, optind, &n); /* stdin when none */
	if (n > 1)
		cli_usage_error("one trace at a time (one trace = one rank); got %zu", n);
	a->path = in[0];
	sbuf_release(&err);
}

/* cpu/wall: the threads left out (the header says it too). */
static void warn_threads(const struct fold_stats *st, const struct fold_args *a, const char *disp)
{
	if (!st->threads_left_out)
		return;
	struct sbuf v = SBUF_INIT;
	num_fmt(&v, st->left_out, weight_units[a->o.unit].digits);
	cli_warn("'%s': %u host thread%s without the folded steps' markers left out (%s %s of %s time); "
		 "--all-threads folds them",
		 disp, st->threads_left_out, st->threads_left_out == 1 ? "" : "s", v.buf, weight_units[a->o.unit].name,
		 weight_defs[a->o.weight].name);
	sbuf_release(&v);
}

/* The warnings about what the model and the fold left out (stderr). */
static void warn(const struct trace *t, const struct fold_args *a, const struct kfamily *kf, const char *disp)
{
	if (t->warn.clipped)
		cli_warn("'%s': %llu host ranges overlapped without nesting; the shorter one was clipped", disp,
			 (unsigned long long)t->warn.clipped);
	if (t->warn.out_of_range)
		cli_warn("'%s': %llu events with a timestamp or duration beyond 2^61 ns were ignored", disp,
			 (unsigned long long)t->warn.out_of_range);
	cli_warn_trace(t, disp);
	if (kf && kfamily_truncated(kf))
		cli_warn("'%s': %llu kernel names longer than %d bytes were matched against its regexes by their "
			 "first %d bytes", a->families, (unsigned long long)kfamily_truncated(kf), KFAMILY_MATCH_MAX,
			 KFAMILY_MATCH_MAX);
	if (t->warn.bogus_external)
		cli_warn("'%s': %llu runtime calls carry External id == correlation (old Kineto bug); "
			 "ignored, launches are linked by correlation and time",
			 disp, (unsigned long long)t->warn.bogus_external);
	if (t->warn.unattributed && (a->o.weight == FW_GPU || a->o.weight == FW_CALLS)) {
		struct sbuf p = SBUF_INIT;
		int64_t all = 0;
		for (uint32_t i = 0; i < t->ndev; i++)
			all += t->dev[i].act_ns;
		pct(&p, t->warn.unattributed_ns, all);
		cli_warn("'%s': %llu GPU activities (%s%% of GPU time) have no launch in the trace "
			 "(%llu launched before the window); folded under [unattributed]",
			 disp, (unsigned long long)t->warn.unattributed, p.buf, (unsigned long long)t->warn.before_window);
		sbuf_release(&p);
	}
	/* gpu, idle and calls weigh GPU activities: a CPU-only trace says so (exit 0, docs/fold.md) */
	struct sbuf note = SBUF_INIT, what = SBUF_INIT;
	sbuf_addf(&what, "--weight %s", weight_defs[a->o.weight].name);
	if (a->o.weight != FW_CPU && a->o.weight != FW_WALL && trace_gpu_note(t, disp, what.buf, &note))
		cli_warn("%s", note.buf);
	sbuf_release(&note);
	sbuf_release(&what);
	if (!t->nsteps && (a->o.weight == FW_IDLE || a->o.per_step))
		cli_warn("'%s': no '%s' steps; the window is the whole trace", disp, names_marker(a->o.step_marker));
}

/* Another profiler's stacks: printed as folded stacks (stacks/import.h). */
static void fold_import(const struct fold_args *a, struct input *in, int kind)
{
	const char *disp = input_name(in);
	if (a->trace_opt)
		cli_usage_error("--%s applies to traces; '%s' is %s", a->trace_opt, disp, import_kind_name(kind));
	in = cli_import(in, kind, &a->io);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	char buf[1 << 16];
	size_t n;
	int rc;
	while (!(rc = input_read(in, buf, sizeof buf, &n, &err)) && n)
		sbuf_add(&out, buf, n);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	cli_close_input(in);
	cli_write_out(a->out, &out);
	sbuf_release(&out);
	sbuf_release(&err);
}

static int cmd_fold(int argc, char **argv)
{
	struct fold_args a;
	memset(&a, 0, sizeof a);
	fold_opts_init(&a.o);
	parse(argc, argv, &a);
	if ((a.o.all_threads || a.o.no_thread_frames) && a.o.weight != FW_CPU && a.o.weight != FW_WALL)
		cli_usage_error("--all-threads and --no-thread-frames apply to --weight cpu and wall");
	struct sbuf err = SBUF_INIT;
	struct kfamily *kf = NULL;
	if (a.families) {
		kf = kfamily_new();
		if (kfamily_load(kf, a.families, &err))
			cli_die(GF_EXIT_INPUT, "%s", err.buf);
		a.o.families = kf;
	}
	a.o.source = cli_source_name(a.path);
	a.to.threads = cli_threads(a.threads);
	const char *disp = cli_in_name(a.path);
	if (cli_progress_enabled()) {
		a.to.progress = cli_progress_reading;
		a.to.progress_ctx = (void *)disp;
	}
	struct input *in = cli_open_raw(a.path, a.to.threads);
	int kind = import_kind(in);
	if (kind != IMPORT_NONE) {
		fold_import(&a, in, kind);
		kfamily_free(kf);
		sbuf_release(&err);
		return GF_EXIT_OK;
	}
	if (a.import_opt)
		cli_usage_error("--%s applies to perf script, speedscope, austin and py-spy input; '%s' is %s", a.import_opt,
				disp, input_format_name(input_format(in)));
	struct trace t;
	trace_init(&t, NULL);
	int rc = trace_load_input(&t, in, &a.to, &err);
	cli_close_input(in);
	cli_progress_done();
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	struct ftree tree;
	struct fold_stats st;
	memset(&st, 0, sizeof st);
	if ((rc = fold_trace(&t, &a.o, &tree, &st, &err)))
		cli_die(gf_err_exit(rc), "'%s': %s", disp, err.buf);
	if (!a.quiet) {
		warn(&t, &a, kf, disp);
		warn_threads(&st, &a, disp);
	}
	/* folded text to a terminal shows control bytes and invalid UTF-8 escaped */
	cli_write_tree(a.out, folded_write, &tree);
	ftree_release(&tree);
	trace_release(&t);
	kfamily_free(kf);
	sbuf_release(&err);
	return GF_EXIT_OK;
}
