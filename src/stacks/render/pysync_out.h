/*
 * pysync_out.h — write the py-spy hidden-sync table (pysync.h) as text,
 * Markdown or JSON.
 *
 * Text (fits 100 columns):
 *   py-spy samples: 3000 in 'wall.folded', 620 in blocking CUDA calls (20.7%, 95% CI 19.3-22.2%)
 *
 *     #  samples  share  95% CI       site                       sync call
 *     1      450  15.0%  13.8-16.3%   engine.py(240): step       cudaStreamSynchronize
 *     ...
 *   then one "fix" line per non-noise site.
 *
 * JSON schema "gpuflame.syncs.folded/1": see docs/report.md.
 *
 * Layer: stacks/render.
 */
#ifndef GF_PYSYNC_OUT_H
#define GF_PYSYNC_OUT_H

#include "stacks/ops/pysync.h"
#include "base/rtable.h"

/* The article's advice for a blocking symbol (cudaStreamSynchronize, ...). */
const char *pysync_out_fix(const char *symbol);

/* format: enum rep_format (base/rtable.h) */
void pysync_out(const struct pysync_result *r, const char *fname, int format, struct sbuf *out);

#endif
