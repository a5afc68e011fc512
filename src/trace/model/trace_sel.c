/* trace_sel.c — the one step selection (see trace_sel.h). */
#include "trace/model/trace_sel.h"

#include "base/escape.h"
#include "base/names.h"

#include <string.h>

void trace_sel_init(struct trace_sel *s)
{
	s->first = INT64_MIN;
	s->last = INT64_MAX;
	s->skip = 0;
}

bool trace_sel_active(const struct trace_sel *s)
{
	return s->first != INT64_MIN || s->last != INT64_MAX || s->skip;
}

/* One end of a range: n decimal digits at p, or dflt when n is 0. */
static bool end_num(const char *p, size_t n, int64_t dflt, int64_t *v)
{
	*v = dflt;
	if (!n)
		return true;
	int64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9' || x > INT64_MAX / 10 - 10)
			return false;
		x = x * 10 + (p[i] - '0');
	}
	*v = x;
	return true;
}

int trace_sel_parse(struct trace_sel *s, const char *opt, const char *arg, struct sbuf *err)
{
	const char *dots = strstr(arg, "..");
	int64_t a, b;
	bool ok;
	if (!*arg)
		ok = false;
	else if (!dots)
		ok = end_num(arg, strlen(arg), INT64_MIN, &a) && end_num(arg, strlen(arg), INT64_MIN, &b);
	else
		ok = end_num(arg, (size_t)(dots - arg), INT64_MIN, &a) &&
		     end_num(dots + 2, strlen(dots + 2), INT64_MAX, &b);
	if (!ok || a > b) {
		/* the argument shown with control bytes escaped: one line */
		sbuf_reset(err);
		sbuf_addstr(err, "invalid argument '");
		esc_term(err, arg, strlen(arg));
		sbuf_addf(err, "' for '%s'%s", opt, !ok ? "; expected A..B with step numbers" : ": A is after B");
		return GF_EUSAGE;
	}
	s->first = a;
	s->last = b;
	return GF_OK;
}

int trace_sel_pick(const struct trace *t, const struct trace_sel *s, const char *marker, uint32_t *keep,
		   uint32_t *n, struct sbuf *err)
{
	uint64_t skipped = 0;
	*n = 0;
	for (uint32_t i = 0; i < t->nsteps; i++) {
		const struct trace_step *st = &t->steps[i];
		if (st->number < s->first || st->number > s->last)
			continue;
		if (skipped < s->skip) {
			skipped++;
			continue;
		}
		keep[(*n)++] = i;
	}
	if (*n || !trace_sel_active(s))
		return GF_OK;
	if (t->nsteps)
		sbuf_setf(err, "no step left by the step selection (the trace has %u steps, numbered %lld..%lld)",
			  t->nsteps, (long long)t->steps[0].number, (long long)t->steps[t->nsteps - 1].number);
	else
		sbuf_setf(err, "the trace has no steps (no '%s' ranges) to select", names_marker(marker));
	return GF_EUSAGE;
}
