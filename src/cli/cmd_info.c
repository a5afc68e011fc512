/* cmd_info.c — placeholder until the 'info' command lands; see issues. */
#include "cli.h"

int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
