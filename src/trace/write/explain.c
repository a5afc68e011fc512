/* explain.c — the words for GPU idle time (see explain.h). */
#include "trace/write/explain.h"

const char *explain_cause(int cause)
{
	static const char *const w[GAP_NCAUSES] = {
		"edge: window edges, or launched before the window",
		"sync: a blocking call drained the GPU, until the next launch",
		"host: next launch not issued yet (traced host work)",
		"untraced: next launch not issued yet, no traced range open",
		"queued: launch issued, work waited to start",
		"launch: gap or launch-to-start under 30 us",
	};
	return cause >= 0 && cause < GAP_NCAUSES ? w[cause] : "?";
}

static void rname(const struct trace *t, uint32_t ri, struct sbuf *out)
{
	sbuf_add(out, pool_str(t->names, t->r[ri].name), pool_len(t->names, t->r[ri].name));
}

void explain_piece(const struct actx *c, const struct gap_piece *p, struct sbuf *out)
{
	const struct trace *t = c->t;
	sbuf_addstr(out, explain_cause(p->cause));
	sbuf_addstr(out, ". ");
	switch (p->cause) {
	case GAP_EDGE:
		sbuf_addstr(out, "Before the first or after the last GPU activity of the profiling window, or work "
				 "launched before the profiler started: not code.");
		break;
	case GAP_SYNC:
		sbuf_addstr(out, "The host waited in ");
		if (p->ri != TRACE_NONE)
			rname(t, p->ri, out);
		else
			sbuf_addstr(out, "a blocking call");
		sbuf_addstr(out, " at ");
		gaps_key_label(t, p->cause, p->key, out);
		sbuf_addstr(out, " while the GPU ran out of work, and launched again only after it returned.");
		break;
	case GAP_HOST:
		sbuf_addstr(out, "The launching thread was still in ");
		gaps_key_label(t, p->cause, p->key, out);
		sbuf_addstr(out, ": the next launch was issued only after that host work.");
		break;
	case GAP_UNTRACED:
		sbuf_addstr(out, "The launching thread was outside every traced range (only the step marker or "
				 "nothing open): profile with with_stack=True or py-spy to see that host work.");
		break;
	case GAP_QUEUED:
		sbuf_addstr(out, "The work was issued");
		if (p->ri != TRACE_NONE) {
			sbuf_addstr(out, " (");
			rname(t, p->ri, out);
			sbuf_addstr(out, ")");
		}
		sbuf_addstr(out, " before the GPU went idle but waited to start, behind ");
		gaps_key_label(t, p->cause, p->key, out);
		sbuf_addstr(out, ".");
		break;
	default:
		sbuf_addstr(out, "Launch overhead: the gap between two activities, or from the launch call");
		if (p->ri != TRACE_NONE) {
			sbuf_addstr(out, " (");
			rname(t, p->ri, out);
			sbuf_addstr(out, ")");
		}
		sbuf_addstr(out, " to the start of its work, is under 30 us (HTA's kernel wait).");
		break;
	}
}
