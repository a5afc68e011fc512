/* foldopts.c — the fold options' parsing (see foldopts.h). */
#include "cli/foldopts.h"

#include "cli/cli.h"

bool foldopts_option(const struct cli_command *c, int id, const char *arg, struct fold_opts *o,
		     struct foldopts_extra *x)
{
	struct sbuf err = SBUF_INIT;
	switch (id) {
	case 'w': o->weight = cli_pick(c, 'w', arg); break;
	case 's':
		if (fold_parse_levels(arg, &o->levels, &err))
			cli_usage_error("%s", err.buf);
		break;
	case FOLDOPT_MAXDEPTH: o->max_depth = (unsigned)cli_int("--max-depth", arg, 1, 100000); break;
	case FOLDOPT_PERSTEP: o->per_step = true; break;
	case FOLDOPT_KNAMES: o->kernel_full = cli_pick(c, FOLDOPT_KNAMES, arg) == 1; break;
	case FOLDOPT_FAMILIES: x->families = arg; break;
	case FOLDOPT_MARKER: o->step_marker = cli_nonempty("--step-marker", arg); break;
	case FOLDOPT_SKIP: o->steps.skip = (uint64_t)cli_int("--skip", arg, 0, 1000000000); break;
	case FOLDOPT_UNIT: o->unit = cli_pick(c, FOLDOPT_UNIT, arg); break;
	case FOLDOPT_LABEL:
		if (fold_add_label(o, arg, &err))
			cli_usage_error("%s", err.buf);
		break;
	case FOLDOPT_ALLTH: o->all_threads = true; break;
	case FOLDOPT_NOTHF: o->no_thread_frames = true; break;
	default:
		sbuf_release(&err);
		return false;
	}
	sbuf_release(&err);
	return true;
}
