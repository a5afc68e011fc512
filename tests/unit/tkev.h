/*
 * tkev.h — a kev record as the Kineto reader would emit it for a complete
 * ("ph": "X") event with no optional field, for unit tests that feed the
 * trace model directly (test_trace.c, test_fold.c):
 *
 *   struct kev e = tkev(t.names, KC_CPU_OP, "aten::mm", 20, 30, 0);
 *   e.correlation = 5;                  // set what the case needs
 *   trace_add_event(&t, &e, &tracks[e.track]);
 */
#ifndef GF_TKEV_H
#define GF_TKEV_H

#include "base/pool.h"
#include "trace/read/kineto.h"

#include <stdint.h>
#include <string.h>

static inline struct kev tkev(struct pool *names, int kc, const char *name, int64_t ts, int64_t dur,
			      uint32_t track)
{
	struct kev e;
	memset(&e, 0, sizeof e);
	e.ts = ts;
	e.dur = dur;
	e.name = pool_intern_str(names, name);
	e.cat = UINT32_MAX;
	e.track = track;
	e.kc = (uint8_t)kc;
	e.ph = 'X';
	e.id = e.correlation = e.external_id = e.python_id = e.python_parent_id = e.python_thread = KEV_NONE;
	e.stream = e.device = e.bytes = KEV_NONE;
	e.total_alloc = e.wait_stream = e.wait_corr = e.occupancy = KEV_NONE;
	e.grid[0] = e.block[0] = e.regs = -1;
	e.arg_name = UINT32_MAX;
	return e;
}

#endif
