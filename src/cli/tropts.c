/* tropts.c — option parsing shared by report and syncs (see tropts.h). */
#include "cli/tropts.h"

#include "cli/cli.h"

#include "base/num.h"

#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>

/* Milliseconds as exact ns. */
static gf_ns parse_ms(const char *opt, const char *val)
{
	int64_t v;
	int rc = num_parse(val, strlen(val), 6, 0, &v);
	if (rc < 0 || v < 0)
		cli_usage_error("invalid value '%s' for '%s' (expected milliseconds, e.g. 12.5)", val, opt);
	return v;
}

/* One option of either command. */
static void option(struct tropts *o, const struct cli_command *cmd, int c, const char *optarg)
{
	switch (c) {
	case 'j': /* checked now, whatever the inputs are; report reads N ranks at once */
		o->jobs = (unsigned)cli_int("--threads", optarg, 1, cmd == &cmd_report_def ? 4096 : 2);
		o->threads = optarg;
		break;
	case 'f':
		o->format = cli_choice("--format", optarg, rtable_formats);
		if (o->format == REP_HTML && cmd != &cmd_report_def)
			cli_usage_error("invalid argument 'html' for '--format'; expected text, md or json "
					"(the HTML page is 'gpuflame report --format html')");
		break;
	case 'o': o->output = optarg; break;
	case TRO_STEPS: cli_steps("--steps", optarg, &o->ro.steps.first, &o->ro.steps.last); break;
	case TRO_SKIP: o->ro.steps.skip = (uint64_t)cli_int("--skip", optarg, 0, 1000000000); break;
	case TRO_MARKER: o->marker = cli_nonempty("--step-marker", optarg); break;
	case TRO_DEVICE: o->device = (int)cli_int("--device", optarg, 0, 32767); break;
	case TRO_UNPROF: o->ro.unprofiled_ns = parse_ms("--unprofiled-step-ms", optarg); break;
	case TRO_EXPECT: o->ro.expect_ns = parse_ms("--expect-ms", optarg); break;
	case TRO_MAXSTEPS:
		o->max_steps = cli_int("--max-steps", optarg, 0, INT64_MAX);
		o->max_steps_set = true;
		break;
	case TRO_TIMELINE: {
		struct sbuf err = SBUF_INIT;
		if (timeline_parse(optarg, &o->timeline, &err))
			cli_usage_error("%s (got '%s')", err.buf, optarg);
		sbuf_release(&err);
		o->timeline_set = true;
		break;
	}
	case TRO_FROM: o->from_summaries = true; break;
	case TRO_PARTIAL: o->partial = true; break;
	case TRO_NOFLAMES: o->no_flames = true; break;
	case TRO_RUN: o->run = cli_nonempty("--run", optarg); break;
	case TRO_RANK: o->rank = cli_int("--rank", optarg, 0, INT32_MAX); break;
	case TRO_WORLD: o->world = cli_int("--world-size", optarg, 1, INT32_MAX); break;
	case TRO_EXPLAIN:
		o->explain = !strcmp(optarg, "all") ? SIZE_MAX : (size_t)cli_int("--explain", optarg, 1, 1000000000);
		o->ro.explain = o->explain;
		break;
	}
}

int tropts_parse(struct tropts *o, const struct cli_command *cmd, int argc, char **argv)
{
	memset(o, 0, sizeof *o);
	o->format = REP_TEXT;
	o->device = -1;
	o->rank = o->world = -1;
	o->max_steps = TROPTS_MAX_STEPS;
	report_opts_init(&o->ro);
	int c;
	const char *arg;
	while ((c = cliopt_next(cmd, argc, argv, &arg)) != -1)
		option(o, cmd, c, arg);
	return optind;
}
