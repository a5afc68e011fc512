/*
 * fuzz_summary.c — libFuzzer target: the summary reader (ranks/summary.h)
 * and everything downstream of it: a document that parses is turned into
 * call trees (its page's graphs), combined as one rank and written in every
 * format. Nothing may crash, leak or read out of bounds; the combine of a
 * document the reader accepted must succeed (the reader checks what the
 * combine relies on), and the two documents a rank makes in memory and
 * back must agree.
 */
#include "ranks/ranks.h"
#include "ranks/ranks_out.h"
#include "ranks/summary.h"
#include "base/rtable.h"
#include "stacks/ftree.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT, doc = SBUF_INIT;
	sbuf_add(&doc, data, size);
	struct summary s;
	if (summary_parse(&s, doc.buf, doc.len, "fuzz.summary.json", &err)) {
		/* one line, naming the file */
		if (!err.len || memchr(err.buf, '\n', err.len) || strncmp(err.buf, "'fuzz.summary.json'", 19))
			abort();
		goto out;
	}
	static const char *const w[] = { "gpu", "cpu", "wall", "idle" };
	for (int k = 0; k < 4; k++) {
		struct ftree t;
		ftree_init(&t, NULL, 0);
		int rc = summary_tree(&s, w[k], &t, &err);
		if (!rc && t.total[0] < 0)
			abort();
		ftree_release(&t);
	}
	summary_free(&s);
	struct ranks_mem m;
	ranks_mem_init(&m, 1);
	ranks_mem_put(&m, 0, "fuzz.summary.json", &doc);
	struct ranks_source src;
	ranks_source_mem(&src, &m);
	struct ranks_opts o = { true, true };
	struct ranks r;
	if (ranks_combine(&src, &o, &r, &err))
		abort();
	struct sbuf out = SBUF_INIT;
	for (int f = REP_TEXT; f <= REP_JSON; f++) {
		sbuf_reset(&out);
		ranks_out(&r, f, 0, &out);
	}
	sbuf_reset(&out);
	ranks_out_html(&r, &out);
	sbuf_release(&out);
	ranks_free(&r);
	ranks_mem_free(&m);
out:
	sbuf_release(&doc);
	sbuf_release(&err);
	return 0;
}
