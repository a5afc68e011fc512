/*
 * explain.h — the words for GPU idle time, in one place: what each cause of
 * the gap model means (the report's gap table prints it) and the sentence
 * that explains one classified piece (the page's timeline shows it when a
 * gap is hovered; a text view of the pieces can print the same).
 *
 *   explain_piece(&actx, &r.gp.pieces[k], &sb);
 *   // "sync: a blocking call drained the GPU, until the next launch. The host
 *   //  waited in cudaStreamSynchronize at engine.py(251): check_eos while the
 *   //  GPU ran out of work, and launched again only after it returned."
 *
 * A piece's sentence starts with its cause's line (explain_cause) and names
 * what the piece is charged to exactly as the report's key tables do (sync
 * sites, host stacks, queued waits: gaps_key_label), so a gap on the page
 * reads as the row of the report it adds to. No duration: the caller says
 * how long the piece is.
 *
 * Layer: trace/write. Never prints.
 */
#ifndef GF_EXPLAIN_H
#define GF_EXPLAIN_H

#include "trace/analysis/gaps.h"

/* "edge: window edges, or launched before the window", ... (enum gap_cause). */
const char *explain_cause(int cause);

/* Appends the sentence explaining piece p (of the analysed device of c). */
void explain_piece(const struct actx *c, const struct gap_piece *p, struct sbuf *out);

#endif
