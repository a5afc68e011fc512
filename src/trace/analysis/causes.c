/* causes.c — the gap model's causes, the classes of host work (see causes.h). */
#include "trace/analysis/causes.h"

#include <string.h>

const struct cause_def causes_gap[] = {
	[GAP_EDGE] = { "edge", "edge_us", "idle.edge", "window edge",
		       "before the first or after the last activity with no traced work, or no launch in the trace",
		       ADV_EDGE, NULL, NULL },
	[GAP_SYNC] = { "sync", "sync_us", "idle.sync", "blocking call",
		       "the issuing thread inside a blocking call", ADV_SYNC, "sync_sites", "stack" },
	[GAP_HOST] = { "host", "host_us", "idle.host", "host work",
		       "the issuing thread in traced host code", ADV_HOST, "host_stacks", "stack" },
	[GAP_UNTRACED] = { "untraced", "untraced_us", "idle.untraced", "untraced host time",
			   "the issuing thread outside every traced range", ADV_UNTRACED, NULL, NULL },
	[GAP_QUEUED] = { "queued", "queued_us", "idle.queued", "queued work",
			 "work issued (its call returned), not started", ADV_QUEUED, "queued_waits", "wait" },
	[GAP_LAUNCH] = { "launch", "launch_us", "idle.launch", "launch calls",
			 "the issuing thread inside a launch call", ADV_LAUNCH, NULL, NULL },
};
_Static_assert(GF_ARRAY_LEN(causes_gap) == GAP_NCAUSES, "one row per gap cause");

/* The advice of a class is its cause's until the classes get their own
 * (issue 24): sync waits are sync's, the launch API launch's. */
const struct host_class_def causes_class[] = {
	[HW_ALLOCATOR] = { "allocator", "allocator", ADV_ALLOCATOR },
	[HW_WARMUP] = { "warmup", "warm-up and one-time work", ADV_WARMUP },
	[HW_DATA] = { "data", "data loading and pre-processing", ADV_DATA },
	[HW_PYTHON] = { "python", "scheduling and framework Python", ADV_HOST },
	[HW_SYNC] = { "sync", "waits in blocking calls", ADV_SYNC },
	[HW_LAUNCH] = { "launch", "the launch API", ADV_LAUNCH },
	[HW_OTHER] = { "other", "other host work", ADV_HOST },
};
_Static_assert(GF_ARRAY_LEN(causes_class) == HW_NCLASSES, "one row per class of host work");

const struct busy_def causes_busy[] = {
	[BUSY_COMM] = { "comm", "exposed communication",
			"communication with no compute running, at least a quarter of the step and no less than its "
			"idle time",
			ADV_COMM },
};
_Static_assert(GF_ARRAY_LEN(causes_busy) == BUSY_NFINDINGS, "one row per busy finding");

int causes_find(const char *key)
{
	for (int k = 0; k < GAP_NCAUSES; k++)
		if (!strcmp(causes_gap[k].key, key))
			return k;
	return -1;
}
