/* cmd_report.c — placeholder until the 'report' command lands; see issues. */
#include "cli.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
