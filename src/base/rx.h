/*
 * rx.h — regular expressions matched in time linear in the text: the
 * POSIX extended expressions of a --families rules file, read as glibc's
 * regcomp(REG_EXTENDED | REG_ICASE | REG_NOSUB) reads them in the C locale,
 * searched anywhere in a name by a lazily built DFA over a Thompson NFA.
 *
 *   struct sbuf err = SBUF_INIT;
 *   if (rx_too_costly(pat, n)) refuse;                 // before compiling
 *   struct rx *r = rx_compile(pat, n, true, &err);     // NULL: err says why
 *   bool hit = rx_search(r, name, len);
 *   rx_free(r);
 *
 * glibc's regexec backtracks: `(a|aa)*b` takes about 0.25 s on a name of
 * 4096 'a's. Here every byte of the text is one step of the DFA (a table
 * lookup once the state is known), each new DFA state costs at most one
 * walk of the NFA, and the states are kept (at most RX_MAX_STATES, then
 * dropped and rebuilt): a search is O(text + new states x NFA), never
 * worse than the NFA simulation, whatever the pattern.
 *
 * What is read (the caller keeps regcomp as the judge of syntax and of its
 * error messages, and gives rx only what regcomp accepted): literals,
 * '.', bracket expressions ([a-z], [^...], [:class:], [=c=], [.c.]),
 * groups, '|', '*' '+' '?' {m} {m,} {m,n} {,n} (an escaped comma "\," in a
 * bound is its comma, as glibc's bound reader takes it), anchors '^' '$' anywhere,
 * GNU escapes \w \W \s \S \b \B \< \> \` \', any other escaped byte as
 * itself, an unmatched ')' as a literal. Case-insensitive as glibc: the
 * pattern and the text are compared in upper case ([:lower:] and
 * [:upper:] then mean [:alpha:]). No back-references (rx_too_costly
 * refuses them). Bytes are characters (the C locale): '.' matches any byte.
 * Where glibc is wrong, rx follows the pattern: glibc copies a subtree for
 * '+' and {m,n}, and in the copies an assertion loses its condition
 * ("(.\<){2,}" matches " .1b", where no two bytes are each followed by the
 * start of a word); case-insensitive, an escaped lower-case letter that is
 * no operator ("\k") matches nothing in glibc (it folds the text, not the
 * escaped letter), "k" and "K" in rx; tests/unit/test_rx.c compares the two
 * everywhere else.
 *
 * Layer: base. Never prints.
 */
#ifndef GF_RX_H
#define GF_RX_H

#include "base/gf.h"
#include "base/sbuf.h"

#define RX_MAX_STATES 1024

struct rx;

/*
 * What makes pattern p[0..n) too costly for glibc's regcomp (which copies
 * the subtree under each repetition: memory exponential in stacked or
 * nested repetitions) or for rx's own expansion of counted repetitions:
 * the compiled size is estimated (each atom 1, a group the sum of its
 * parts, a repetition multiplies what it repeats by its upper bound, or by
 * 2 for *, + and ?) and patterns over 100000 states, over 2000 optional
 * states (what a '?', '*', '+' or {m,n} with n > m repeats, and all of a
 * repeated group holding one: glibc's memory grows with their square), with
 * stacked repetitions ('++', '}*'), with more than 12 copies of an
 * alternation with two branches that match the empty string (glibc's
 * closures are exponential in them: "(|a|){20,}") or with back-references
 * are refused. @return
 * NULL when fine, else what is wrong (for a message).
 */
const char *rx_too_costly(const char *p, size_t n);

/* Compiles p[0..n) (icase: case-insensitive). @return NULL with err set
 * when the pattern holds what rx does not read. */
struct rx *rx_compile(const char *p, size_t n, bool icase, struct sbuf *err);
/* Whether the pattern matches somewhere in s[0..n). */
bool rx_search(struct rx *r, const char *s, size_t n);
/* The work done so far: bytes stepped plus NFA instructions visited while
 * building DFA states (for tests that bound the cost without a clock). */
uint64_t rx_steps(const struct rx *r);
void rx_free(struct rx *r);

#endif
