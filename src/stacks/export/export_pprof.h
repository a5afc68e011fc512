/*
 * export_pprof.h — call trees as a pprof profile (profile.proto of
 * github.com/google/pprof, gzip'd as `go tool pprof` and Pyroscope expect),
 * encoded by hand: varints and length-delimited fields of six messages
 * (Profile, ValueType, Sample, Label, Location + Line, Function).
 *
 *   if (export_pprof_write(&x, fp, &err)) ...   // gzip'd bytes to fp
 *
 * Mapping (docs/formats.md, "Exports"):
 *  - one sample_type per tree, in the order given: type = its weight name
 *    ("gpu", "cpu", "wall", "idle", "calls"...), unit "nanoseconds" for a time
 *    unit, else "count"; default_sample_type the first; period_type the first,
 *    period 1;
 *  - one Sample per stack with a non-zero self weight, per tree: location
 *    ids leaf first, its value in its tree's slot and 0 in the others; the
 *    values are exact integers (ns or the count): a weight that is not a whole
 *    number of its unit is refused (GF_EINPUT naming it);
 *  - labels: "rank" (num) from a tree's `rank=` header, "step" (num) on a
 *    stack holding a ProfilerStep#N frame (fold --per-step; the outermost);
 *  - one Function and one Location per distinct frame name (id = index + 1):
 *    name, system_name = the full frame when it differs from name (never
 *    equal: pprof would "demangle" such a name, cutting <...> and (...)),
 *    filename and start_line / line from a Python frame
 *    (export_stacks_split);
 *  - time_nanos and duration_nanos when x gives them.
 *
 * Layer: stacks/export. Never prints.
 */
#ifndef GF_EXPORT_PPROF_H
#define GF_EXPORT_PPROF_H

#include "stacks/export/export_stacks.h"

#include <stdio.h>

/* @return GF_OK; GF_EINPUT (a differential tree, a weight that is not an
 * integer of its unit), GF_EOUTPUT (write or compression error), both with
 * err set. */
int export_pprof_write(const struct export_stacks *x, FILE *fp, struct sbuf *err);

/* What export_pprof_write_st wrote: samples, of which "[other]" samples,
 * and the stacks summed into them (x->max_samples). */
struct export_pprof_stats {
	size_t samples, others, merged;
};
int export_pprof_write_st(const struct export_stacks *x, FILE *fp, struct export_pprof_stats *st,
			  struct sbuf *err);

/* The encoder's pieces (tests): appends a varint, a field key, a varint
 * field, a length-delimited field. */
void export_pprof_varint(struct sbuf *b, uint64_t v);
void export_pprof_key(struct sbuf *b, unsigned field, unsigned wire);
void export_pprof_uint(struct sbuf *b, unsigned field, uint64_t v);
void export_pprof_bytes(struct sbuf *b, unsigned field, const void *p, size_t n);

#endif
