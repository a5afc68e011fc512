/* tropts.c — option parsing shared by report and syncs (see tropts.h). */
#include "cli/tropts.h"

#include "cli/cli.h"

#include "base/num.h"

#include <getopt.h>
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

int tropts_parse(struct tropts *o, int argc, char **argv, bool with_targets, void (*usage)(FILE *fp))
{
	enum { O_STEPS = 256, O_SKIP, O_MARKER, O_DEVICE, O_UNPROF, O_EXPECT };
#define COMMON \
		{ "format", required_argument, NULL, 'f' }, \
		{ "steps", required_argument, NULL, O_STEPS }, \
		{ "skip", required_argument, NULL, O_SKIP }, \
		{ "step-marker", required_argument, NULL, O_MARKER }, \
		{ "device", required_argument, NULL, O_DEVICE }, \
		{ "output", required_argument, NULL, 'o' }, \
		{ "threads", required_argument, NULL, 'j' }, \
		{ "help", no_argument, NULL, 'h' }
	static const struct option syncs_lo[] = { COMMON, { NULL, 0, NULL, 0 } };
	static const struct option report_lo[] = {
		COMMON,
		{ "unprofiled-step-ms", required_argument, NULL, O_UNPROF },
		{ "expect-ms", required_argument, NULL, O_EXPECT },
		{ NULL, 0, NULL, 0 },
	};
#undef COMMON
	static const char *const formats[] = { "text", "md", "json", "html", NULL };
	memset(o, 0, sizeof *o);
	o->format = REP_TEXT;
	o->device = -1;
	report_opts_init(&o->ro);
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:j:h", with_targets ? report_lo : syncs_lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli_threads(optarg); /* checked now, whatever the inputs are */
			o->threads = optarg;
			break;
		case 'f':
			o->format = cli_choice("--format", optarg, formats);
			if (o->format == REP_HTML && !with_targets)
				cli_usage_error("invalid argument 'html' for '--format'; expected text, md or json "
						"(the HTML page is 'gpuflame report --format html')");
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(GF_EXIT_OK);
		case O_STEPS:
			cli_steps("--steps", optarg, &o->ro.steps.first, &o->ro.steps.last);
			break;
		case O_SKIP:
			o->ro.steps.skip = (uint64_t)cli_int("--skip", optarg, 0, 1000000000);
			break;
		case O_MARKER:
			o->marker = cli_nonempty("--step-marker", optarg);
			break;
		case O_DEVICE:
			o->device = (int)cli_int("--device", optarg, 0, 32767);
			break;
		case O_UNPROF:
			o->ro.unprofiled_ns = parse_ms("--unprofiled-step-ms", optarg);
			break;
		case O_EXPECT:
			o->ro.expect_ns = parse_ms("--expect-ms", optarg);
			break;
		case ':':
			cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	return optind;
}
