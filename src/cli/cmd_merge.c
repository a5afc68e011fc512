/* cmd_merge.c — placeholder until the 'merge' command lands; see issues. */
#include "cli.h"

int cmd_merge(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
