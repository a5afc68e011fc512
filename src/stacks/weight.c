/* weight.c — the weights and units of a folded profile (see weight.h). */
#include "stacks/weight.h"

#include <string.h>

const struct weight_def weight_defs[] = {
	[FW_GPU] = { "gpu", "GPU time", NULL },
	[FW_CPU] = { "cpu", "Host CPU time", NULL },
	[FW_WALL] = { "wall", "Wall time", NULL },
	[FW_IDLE] = { "idle", "GPU idle time", NULL },
	[FW_CALLS] = { "calls", "Kernel launches", "calls" },
	[FW_SAMPLES] = { "samples", NULL, "samples" },
};
_Static_assert(GF_ARRAY_LEN(weight_defs) == FW_N, "one row per weight (and the header's size)");

const struct weight_unit weight_units[] = {
	[FU_NS] = { "ns", 0 },
	[FU_US] = { "us", 3 },
	[FU_MS] = { "ms", 6 },
	[FU_S] = { "s", 9 },
};
_Static_assert(GF_ARRAY_LEN(weight_units) == FU_N, "one row per unit");

int weight_find(const char *name)
{
	for (int i = 0; i < FW_N; i++)
		if (!strcmp(weight_defs[i].name, name))
			return i;
	return -1;
}

int weight_unit_find(const char *name)
{
	for (int i = 0; i < FU_N; i++)
		if (!strcmp(weight_units[i].name, name))
			return i;
	return -1;
}
