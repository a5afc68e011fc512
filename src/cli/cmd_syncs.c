/* cmd_syncs.c — placeholder until the 'syncs' command lands; see issues. */
#include "cli.h"

int cmd_syncs(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
