/* explain.c — the explain view's words (see explain.h). */
#include "trace/write/explain.h"

#include "base/num.h"
#include "trace/write/prose.h"

#include <string.h>

/* The innermost n frames of a " > " stack. */
static void tail_frames(struct sbuf *b, const char *stack, int n)
{
	const char *p = stack + strlen(stack);
	int k = 0;
	while (p > stack) {
		const char *q = p;
		while (q > stack && !(q - stack >= 3 && !memcmp(q - 3, " > ", 3)))
			q--;
		k++;
		if (k == n || q == stack) {
			if (q != stack)
				sbuf_addstr(b, "... > ");
			sbuf_addstr(b, q);
			return;
		}
		p = q - 3;
	}
	sbuf_addstr(b, stack);
}

void explain_piece(struct sbuf *b, const struct report_piece *p)
{
	sbuf_addstr(b, causes_gap[p->cause].key);
	if (p->hclass >= 0 && p->hclass < HW_NCLASSES) {
		sbuf_addstr(b, " (");
		sbuf_addstr(b, causes_class[p->hclass].label);
		sbuf_addstr(b, ")");
	}
	switch (p->cause) {
	case GAP_QUEUED:
		if (p->waits) {
			sbuf_addstr(b, ": issued, waiting on ");
			sbuf_addstr(b, p->waits);
		}
		break;
	case GAP_SYNC:
	case GAP_LAUNCH:
	case GAP_HOST:
		if (p->stack && *p->stack) {
			sbuf_addstr(b, p->cause == GAP_HOST ? " in " : " inside ");
			tail_frames(b, p->stack, 4);
		}
		if (p->drained) {
			sbuf_addstr(b, " (after the sync at ");
			sbuf_addstr(b, p->drained);
			sbuf_addstr(b, " drained the GPU)");
		}
		break;
	case GAP_UNTRACED:
		sbuf_addstr(b, ": no traced range open");
		break;
	default:
		sbuf_addstr(b, ": no traced work, or no launch of the next work in the trace");
		break;
	}
}

static void us3(struct sbuf *b, gf_ns ns)
{
	num_fmt_fixed(b, ns, 3, 3, false);
}

/* A kernel name for a timeline line: middle-elided past 96 bytes (at UTF-8
 * character boundaries). */
static void short_name(struct sbuf *out, const char *s, void (*text)(struct sbuf *out, const char *s))
{
	size_t n = strlen(s);
	if (n <= 96) {
		text(out, s);
		return;
	}
	size_t h = 48, t = n - 45;
	while (h > 0 && ((unsigned char)s[h] & 0xc0) == 0x80)
		h--;
	while (t < n && ((unsigned char)s[t] & 0xc0) == 0x80)
		t++;
	struct sbuf b = SBUF_INIT;
	sbuf_add(&b, s, h);
	sbuf_addstr(&b, "...");
	sbuf_addstr(&b, s + t);
	text(out, b.buf);
	sbuf_release(&b);
}

static void act_line(struct sbuf *out, const char *item, const char *what, const struct report_act *a,
		     void (*text)(struct sbuf *out, const char *s))
{
	static const char *const kinds[] = { "kernel", "memcpy", "memset", "annotation" };
	sbuf_addf(out, "%s%s %s ", item, what, kinds[a->kind >= 0 && a->kind < 4 ? a->kind : 0]);
	short_name(out, a->name, text);
	sbuf_addf(out, " (stream %d) [", a->stream);
	us3(out, a->start);
	sbuf_addstr(out, ", ");
	us3(out, a->end);
	sbuf_addstr(out, ")");
	if (a->call) {
		sbuf_addstr(out, "; launched by ");
		text(out, a->call);
		sbuf_addstr(out, " [");
		us3(out, a->call_start);
		sbuf_addstr(out, ", ");
		us3(out, a->call_end);
		sbuf_addstr(out, "), issued when it returned");
	} else {
		sbuf_addstr(out, "; its launch is not in the trace");
	}
	sbuf_addstr(out, "\n");
}

void explain_text(struct sbuf *out, const struct report *r, const char *lead, const char *item,
		  void (*text)(struct sbuf *out, const char *s))
{
	struct sbuf b = SBUF_INIT;
	if (!r->ngaps) {
		sbuf_addf(out, "%sNo GPU idle gap in the selected steps.\n", lead);
		return;
	}
	sbuf_addf(out, "%sThe %zu largest of %zu idle gaps (times in us as the trace writes them):\n", lead,
		  r->ngaps, r->ngaps_all);
	for (size_t k = 0; k < r->ngaps; k++) {
		const struct report_gap *g = &r->gaps[k];
		sbuf_addf(out, "\n%sgap %zu: ", lead, k + 1);
		prose_dur(out, g->idle);
		sbuf_addstr(out, " idle in [");
		us3(out, g->lo);
		sbuf_addstr(out, ", ");
		us3(out, g->hi);
		sbuf_addstr(out, ")");
		if (g->step >= 0)
			sbuf_addf(out, ", step %lld", (long long)g->step);
		sbuf_addstr(out, "\n");
		if (g->prev.have)
			act_line(out, item, "device: before,", &g->prev, text);
		else
			sbuf_addf(out, "%sdevice: nothing ran before it in the trace\n", item);
		if (g->next.have)
			act_line(out, item, "device: next,", &g->next, text);
		else
			sbuf_addf(out, "%sdevice: nothing runs after it in the trace\n", item);
		sbuf_addf(out, "%sthread that issues the next work: ", item);
		if (g->tid != KEV_NONE)
			sbuf_addf(out, "%lld", (long long)g->tid);
		else
			sbuf_addstr(out, "-");
		if (g->thread) {
			sbuf_addstr(out, " (");
			text(out, g->thread);
			sbuf_addstr(out, ")");
		}
		sbuf_addstr(out, "\n");
		/* consecutive pieces of one cause and class are one line, named by
		 * the longest of them (the JSON has every piece) */
		for (size_t i = 0; i < g->np;) {
			size_t j = i, top = i;
			while (j < g->np && g->p[j].cause == g->p[i].cause && g->p[j].hclass == g->p[i].hclass &&
			       (j == i || g->p[j].lo == g->p[j - 1].hi)) {
				if (g->p[j].hi - g->p[j].lo > g->p[top].hi - g->p[top].lo)
					top = j;
				j++;
			}
			sbuf_addf(out, "%s  [", item);
			us3(out, g->p[i].lo);
			sbuf_addstr(out, ", ");
			us3(out, g->p[j - 1].hi);
			sbuf_addstr(out, ") ");
			prose_dur(out, g->p[j - 1].hi - g->p[i].lo);
			sbuf_addstr(out, " ");
			sbuf_reset(&b);
			explain_piece(&b, &g->p[top]);
			if (j - i > 1)
				sbuf_addf(&b, " (the longest of %zu pieces)", j - i);
			text(out, b.buf);
			sbuf_addstr(out, "\n");
			i = j;
		}
	}
	sbuf_release(&b);
}
