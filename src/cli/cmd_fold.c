/* cmd_fold.c — placeholder until the 'fold' command lands; see issues. */
#include "cli.h"

int cmd_fold(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_die(GF_EXIT_USAGE, "not built yet");
}
