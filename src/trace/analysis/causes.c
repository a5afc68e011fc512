/* causes.c — the gap model's causes, the classes of host work (see causes.h). */
#include "trace/analysis/causes.h"

#include <string.h>

const struct cause_def causes_gap[] = {
	[GAP_EDGE] = { "edge", "edge_us", "idle.edge", "window edge",
		       "window edges, or launched before the window", ADV_EDGE, NULL, NULL },
	[GAP_SYNC] = { "sync", "sync_us", "idle.sync", "blocking call",
		       "a blocking call drained the GPU, until the next launch", ADV_SYNC,
		       "sync_sites", "stack" },
	[GAP_HOST] = { "host", "host_us", "idle.host", "host work",
		       "next launch not issued yet (traced host work)", ADV_HOST,
		       "host_stacks", "stack" },
	[GAP_UNTRACED] = { "untraced", "untraced_us", "idle.untraced", "untraced host time",
			   "next launch not issued yet, no traced range open", ADV_UNTRACED, NULL, NULL },
	[GAP_QUEUED] = { "queued", "queued_us", "idle.queued", "queued work",
			 "launch issued, work waited to start", ADV_QUEUED,
			 "queued_waits", "wait" },
	[GAP_LAUNCH] = { "launch", "launch_us", "idle.launch", "launch overhead",
			 "gap or launch-to-start under 30 us", ADV_LAUNCH, NULL, NULL },
};
_Static_assert(GF_ARRAY_LEN(causes_gap) == GAP_NCAUSES, "one row per gap cause");

/* The advice of a class is its cause's until the classes get their own
 * (issue 24): sync waits are sync's, the launch API launch's. */
const struct host_class_def causes_class[] = {
	[HW_ALLOCATOR] = { "allocator", "allocator", ADV_HOST },
	[HW_WARMUP] = { "warmup", "warm-up and one-time work", ADV_HOST },
	[HW_DATA] = { "data", "data loading and pre-processing", ADV_HOST },
	[HW_PYTHON] = { "python", "scheduling and framework Python", ADV_HOST },
	[HW_SYNC] = { "sync", "waits in blocking calls", ADV_SYNC },
	[HW_LAUNCH] = { "launch", "the launch API", ADV_LAUNCH },
	[HW_OTHER] = { "other", "other host work", ADV_HOST },
};
_Static_assert(GF_ARRAY_LEN(causes_class) == HW_NCLASSES, "one row per class of host work");

int causes_find(const char *key)
{
	for (int k = 0; k < GAP_NCAUSES; k++)
		if (!strcmp(causes_gap[k].key, key))
			return k;
	return -1;
}
