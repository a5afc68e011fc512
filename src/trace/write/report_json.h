/*
 * report_json.h — the JSON writer of the one report result (report_json.c;
 * the schemas "gpuflame.report/2" and "gpuflame.syncs/2", docs/report.md).
 * JSON is a schema, not prose: it does not go through report_fmt.h.
 *
 *   report_json_write(&in, &out);   // one rank
 *
 * Layer: trace/write. Never prints.
 */
#ifndef GF_REPORT_JSON_H
#define GF_REPORT_JSON_H

#include "trace/write/report_out.h"

/* "gpuflame.report/2" of one rank (many ranks: ranks/ranks_out.h). */
void report_json_write(const struct report_in *in, struct sbuf *out);
/* "gpuflame.syncs/2": the sync sites of one rank. */
void report_json_syncs(const struct report_in *in, struct sbuf *out);

#endif
