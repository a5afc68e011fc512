/*
 * export_speedscope.h — call trees as a speedscope JSON file
 * (https://www.speedscope.app/file-format-schema.json).
 *
 *   struct export_stacks x = { ... one tree per weight ... };
 *   if (export_speedscope_write(&x, fp, &err)) ...
 *
 * One "sampled" profile per tree, in the order given, named by its weight:
 * one sample per stack with a non-zero self weight (depth first, the tree's
 * order), its weight exact in the profile's unit ("nanoseconds" for a time
 * unit, "none" for counts; see export_stacks.h); startValue 0, endValue the
 * total. Frames are shared by every profile and de-duplicated by their full
 * name; a Python frame gets "file" and "line" (export_stacks_split). Names
 * are escaped for JSON (esc_json: invalid UTF-8 becomes U+FFFD).
 * Then one "evented" profile per x->ev (a trace's threads in time order):
 * "O"/"C" events at ns, frames shared with the sampled profiles.
 *
 * Layer: stacks/export. Never prints; errors are GF_EOUTPUT from the caller's
 * commit (writes go to fp).
 */
#ifndef GF_EXPORT_SPEEDSCOPE_H
#define GF_EXPORT_SPEEDSCOPE_H

#include "stacks/export/export_stacks.h"

#include <stdio.h>

/* @return GF_OK, or GF_EINPUT for a differential tree (err set). */
int export_speedscope_write(const struct export_stacks *x, FILE *fp, struct sbuf *err);

#endif
