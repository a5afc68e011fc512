/* cmd_svg.c — placeholder until the 'svg' command lands; see issues. */
#include "cli.h"

int cmd_svg(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
