/* cmd_diff.c — placeholder until the 'diff' command lands; see issues. */
#include "cli.h"

int cmd_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
