/*
 * explain.h — the words of one idle piece and the text of `report
 * --explain N`: the largest GPU idle gaps, each a short timeline of the
 * device (what ran before, what started after, when it was issued) and of
 * the thread that issues the next work (its pieces, each with its cause,
 * class and frame in the words the report uses), so a person can check
 * every claim of the gap model by eye against the trace.
 *
 *   explain_piece(&b, &r.gaps[0].p[0]);   // "host (allocator) in aten::_convolution > ... > cudaMalloc"
 *   explain_text(&out, &r, fmt);          // every gap of r.gaps
 *
 * One function phrases a piece (explain_piece); the text view, and any page
 * that shows a piece, use it.
 *
 * Layer: trace/write. Never prints.
 */
#ifndef GF_EXPLAIN_H
#define GF_EXPLAIN_H

#include "trace/analysis/report.h"

/* One piece in words: its cause, its class and what it was charged to (the
 * frame's innermost stack, the call, what queued work waited on, the sync
 * that drained the GPU before it). */
void explain_piece(struct sbuf *b, const struct report_piece *p);

/* The explain view as text: one block per gap of r->gaps. lead and item are
 * the format's paragraph and list prefixes (report_fmt.h). */
void explain_text(struct sbuf *out, const struct report *r, const char *lead, const char *item,
		  void (*text)(struct sbuf *out, const char *s));

#endif
