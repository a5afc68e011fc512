/*
 * trace_sel.h — the one step selection (--steps A..B, --skip N) over the
 * model's steps, used by fold, the step table (steps.c) and every command
 * that offers the options: one struct, one parser, one "keeps no step"
 * message.
 *
 *   struct trace_sel s;
 *   trace_sel_init(&s);                                   // all steps
 *   if (trace_sel_parse(&s, "--steps", "3..", &err)) usage(err.buf);
 *   s.skip = 2;
 *   uint32_t *keep = malloc(t.nsteps * sizeof *keep), n;
 *   if (trace_sel_pick(&t, &s, marker, keep, &n, &err)) usage(err.buf);
 *   ... t.steps[keep[0..n)] are the selected steps, by start ...
 *
 * A step is kept when first <= its number <= last (the number of
 * ProfilerStep#N, the ordinal for a bare marker), then the first `skip`
 * of those are dropped, in the model's step order (by start).
 *
 * Layer: trace/model. Never prints; errors are one line in err.
 */
#ifndef GF_TRACE_SEL_H
#define GF_TRACE_SEL_H

#include "trace/model/trace.h"

struct trace_sel {
	int64_t first, last; /* step numbers to keep, inclusive (INT64_MIN, INT64_MAX = open) */
	uint64_t skip;       /* then drop this many leading steps */
};

/* Everything: first = INT64_MIN, last = INT64_MAX, skip = 0. */
void trace_sel_init(struct trace_sel *s);

/* Whether s narrows anything (a bound or a skip). */
bool trace_sel_active(const struct trace_sel *s);

/*
 * Parses a step range into s->first/s->last: "A..B", "A..", "..B" or "N"
 * (decimal step numbers, A <= B). opt names the option in the message.
 * @return GF_OK; GF_EUSAGE with err, one line, X with its control bytes
 * escaped ("invalid argument 'X' for '--steps';
 * expected A..B with step numbers", or "...: A is after B").
 */
int trace_sel_parse(struct trace_sel *s, const char *opt, const char *arg, struct sbuf *err);

/*
 * The selected steps: their indexes into t->steps, by start, in
 * keep[0..*n) (keep has room for t->nsteps). marker (NULL = ProfilerStep)
 * names the steps in the message. @return GF_OK; GF_EUSAGE with err when
 * s is active and keeps no step ("no step left by the step selection (the
 * trace has N steps, numbered A..B)", or "the trace has no steps (no
 * 'ProfilerStep' ranges) to select" when it has none).
 */
int trace_sel_pick(const struct trace *t, const struct trace_sel *s, const char *marker, uint32_t *keep,
		   uint32_t *n, struct sbuf *err);

#endif
