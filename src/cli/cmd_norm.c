/* cmd_norm.c — placeholder until the 'norm' command lands; see issues. */
#include "cli.h"

int cmd_norm(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
