/*
 * prose.h — the report's words: every sentence the report says about a
 * finding, in one place, for every format (text, Markdown, the JSON's
 * verdict/action strings, the HTML page that embeds that JSON). The
 * analysis returns data (trace/analysis/report.h: struct report_verdict,
 * the gap causes of causes.h, the sync sites' fix keys); this file phrases
 * it, and formats the numbers prose prints.
 *
 *   prose_verdict(&b, r);      // "GPU busy 12.0 ms of 40.0 ms per step (30%); ..."
 *   prose_next(&b, r);         // "Remove the sync at engine.py(251): check_eos: ..."
 *   prose_sync_fix(&b, site);  // a sync site's fix, the same words in report and syncs
 *
 * Words for a new gap cause, advice key or sync fix are one row in the
 * tables of prose.c (each asserts a row per enum value).
 *
 * Layer: trace/write. Never prints.
 */
#ifndef GF_PROSE_H
#define GF_PROSE_H

#include "trace/analysis/report.h"

/* The words of a gap cause in the report. */
struct prose_cause {
	const char *verdict;     /* after its duration when it leads the verdict */
	const char *other;       /* after its duration among the other causes */
	const char *key_prep;    /* before its top key: "; 41.23% of it <prep> <key>", NULL: no key */
	bool kernels;            /* leading, it adds the kernels per step and the median kernel */
	const char *close;       /* after all that ("" or ")") */
	const char *keys_heading; /* the heading of its keys' table, NULL: none */
	const char *keys_col;     /* that table's key column */
	size_t keys_max;          /* rows of that table in the report */
};
/* @return the words of cause k (enum gap_cause). */
const struct prose_cause *prose_cause(int k);

/* The verdict, one sentence, and Next, the advice for the same cause that
 * names the same key (r computed with RP_VERDICT). */
void prose_verdict(struct sbuf *b, const struct report *r);
void prose_next(struct sbuf *b, const struct report *r);

/* A gap cause's line as the report's gap table prints it: "<key>: <rule>"
 * (causes.h's words). */
void prose_cause_line(struct sbuf *b, int k);
/*
 * The sentence explaining one classified piece of idle time (gaps.h), the
 * words the page's step timeline shows when a gap is hovered (and a text
 * view of the pieces can print): its cause's line, then what the piece is
 * charged to, named exactly as the report's key tables name it (sync sites,
 * host stacks, queued waits: gaps_piece_label), so a gap reads as the row of
 * the report it adds to. No duration: the caller says how long. c: the
 * analysis context and r the result the pieces come from.
 *   "sync: a blocking call drained the GPU, until the next launch. The host
 *    waited in cudaStreamSynchronize at engine.py(251): check_eos while the
 *    GPU ran out of work, and launched again only after it returned."
 */
void prose_piece(struct sbuf *b, const struct actx *c, const struct gaps_result *r, const struct gap_piece *p);

/* A fix pattern's advice (enum sync_fix), one clause: the JSON's "fix". */
const char *prose_fix(int fix);
/* A sync site's fix as report and syncs say it: the pattern's advice, and
 * when host work follows the sync before the next launch, to move it. */
void prose_sync_fix(struct sbuf *b, const struct sync_site *s);
/* The recommendation for fewer, larger launches (graphs already used or
 * not); most_short: say that most kernels are shorter than their call
 * (only when more than half of the compared kernels are). */
const char *prose_launch_advice(const struct launch_diag *ld, bool most_short);

/* A failure mode of the profile (report.h: struct report_finding): its
 * JSON key and its one sentence. */
const char *prose_finding_key(int kind);
void prose_finding(struct sbuf *b, const struct report *r, const struct report_finding *f);

/* Numbers in prose: a duration "38.0 ms" (>= 1 ms, 1 decimal) or "7.3 us";
 * part/whole as a whole percentage rounded half up ("29%", "-" when whole
 * <= 0) or with one decimal ("72.8%"); a key's share of its cause with 2
 * decimals ("41.23%": gaps_share, the JSON's share times 100 exactly);
 * count / nsteps with 2 decimals, rounded half to even ("0.67"). */
void prose_dur(struct sbuf *b, gf_ns ns);
void prose_pct(struct sbuf *b, gf_ns part, gf_ns whole);
void prose_pct1(struct sbuf *b, gf_ns part, gf_ns whole);
void prose_share(struct sbuf *b, gf_ns part, gf_ns whole);
void prose_per_step(struct sbuf *b, uint64_t count, size_t nsteps);

#endif
