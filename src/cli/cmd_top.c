/* cmd_top.c — placeholder until the 'top' command lands; see issues. */
#include "cli.h"

int cmd_top(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
