/*
 * fuzz_rx.c — libFuzzer target: base/rx.h (the --families regex matcher)
 * against glibc's regexec, the independent judge.
 *
 * Input: PATTERN NUL TEXT (no NUL: the pattern alone, an empty text). A
 * pattern regcomp(REG_EXTENDED | REG_ICASE | REG_NOSUB) accepts and
 * rx_too_costly lets through must compile in rx, and rx_search must give
 * regexec's answer on the text (at most 64 bytes: glibc backtracks), on
 * every prefix of it, and the same answer again after other searches (the
 * DFA states it keeps change nothing). Where glibc is known to be wrong (an
 * assertion inside '+' or {m,n}: its copies lose the condition; an escaped
 * lower-case letter under REG_ICASE: rx.h) the answers are not compared,
 * only computed.
 */
#include "base/rx.h"

#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The cases glibc gets wrong (conservative tests): an assertion and a
 * copying repetition in the same pattern; case-insensitive, an escaped
 * lower-case letter that is no GNU operator (glibc 2.36: `\k` with REG_ICASE
 * matches neither "k" nor "K": the text is folded to upper case, the escaped
 * letter is not). */
static bool glibc_may_err(const char *p, bool icase)
{
	bool as = strpbrk(p, "^$") != NULL, rep = strpbrk(p, "+{") != NULL, lower = false;
	for (const char *q = p; (q = strchr(q, '\\')) && q[1]; q += 2) {
		as |= strchr("bB<>`'", q[1]) != NULL;
		lower |= q[1] >= 'a' && q[1] <= 'z' && !strchr("wsb", q[1]);
	}
	return (as && rep) || (icase && lower);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, 0, size);
	size_t pn = nul ? (size_t)(nul - (const char *)data) : size;
	if (pn > 256)
		return 0;
	char pat[257], text[65];
	memcpy(pat, data, pn);
	pat[pn] = 0;
	size_t tn = nul ? size - pn - 1 : 0;
	if (tn > 64)
		tn = 64;
	if (tn)
		memcpy(text, nul + 1, tn);
	text[tn] = 0;
	tn = strlen(text); /* regexec reads up to a NUL */
	if (rx_too_costly(pat, pn))
		return 0;
	for (int icase = 0; icase < 2; icase++) {
		regex_t re;
		if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)))
			continue;
		struct sbuf err = SBUF_INIT;
		struct rx *r = rx_compile(pat, pn, icase, &err);
		if (!r)
			abort(); /* regcomp took it: rx must read it */
		bool cmp = !glibc_may_err(pat, icase);
		bool whole = rx_search(r, text, tn);
		for (size_t k = 0; k <= tn; k++) {
			char c = text[k];
			text[k] = 0;
			bool g = regexec(&re, text, 0, NULL, 0) == 0, x = rx_search(r, text, k);
			text[k] = c;
			if (cmp && g != x)
				abort();
		}
		if (rx_search(r, text, tn) != whole)
			abort(); /* the states kept change nothing */
		rx_free(r);
		regfree(&re);
		sbuf_release(&err);
	}
	return 0;
}
