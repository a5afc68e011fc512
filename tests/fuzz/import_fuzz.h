/*
 * import_fuzz.h — the body of the importers' libFuzzer targets
 * (fuzz_import_perf.c, fuzz_import_speedscope.c, fuzz_import_threads.c):
 * each defines FUZZ_KINDS, the import kinds it forces (stacks/import.h),
 * then includes this file.
 *
 * The first input byte picks the kind among FUZZ_KINDS (or, for a value
 * past them, the kind the sniffer finds) and the options (pid, tid, kernel,
 * jit, addrs, merge threads; samples when pid and jit are both set); the
 * rest is the input. Checks: no crash or sanitizer report; an error is one line naming
 * the input; the folded text of a success reads back with the folded reader
 * (strict: every line valid, except perf and py-spy names, which are kept as
 * stackcollapse-perf.pl and py-spy write them) and its total equals the sum
 * of the weights; importing twice gives the same bytes. Speedscope: the call
 * tree the folded reader takes whole (import_open, the tree path of
 * folded_read_in) holds the same stacks with the same weights, node for
 * node, as the tree read from the folded text.
 */
#include "input/input.h"
#include "stacks/folded.h"
#include "stacks/ftree.h"
#include "stacks/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(const uint8_t *data, size_t size, int kind, const struct import_opts *o, struct sbuf *out,
	       struct sbuf *err)
{
	struct input *in;
	sbuf_reset(out);
	sbuf_reset(err);
	if (input_open_mem(&in, data, size, "fuzz", err))
		return -100;
	if (kind == IMPORT_NONE)
		kind = import_kind(in);
	int rc = IMPORT_NONE;
	if (kind != IMPORT_NONE) {
		struct import_stats st;
		rc = import_fold(in, kind, o, out, &st, err);
	}
	input_close(in);
	return rc;
}

/* The tree path (import_open, then folded_read_in takes the tree) against
 * want, the tree read from the text: the same nodes, names and totals. */
static void same_tree(const uint8_t *data, size_t size, const struct import_opts *o, const struct ftree *want)
{
	struct input *in, *conv;
	struct sbuf err = SBUF_INIT;
	struct import_stats is;
	if (input_open_mem(&in, data, size, "fuzz", &err))
		abort();
	if (import_open(&conv, in, IMPORT_SPEEDSCOPE, o, &is, &err))
		abort(); /* the text import succeeded */
	input_close(in);
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct folded_opts fo = { .strict = false, .reverse = false };
	if (folded_read_in(&t, conv, &fo, &st, &err))
		abort();
	input_close(conv);
	if (t.n != want->n || t.total[0] != want->total[0] || t.scale != want->scale)
		abort();
	uint32_t *map = malloc((size_t)want->n * sizeof *map);
	map[0] = 0;
	for (uint32_t i = 1; i < want->n; i++) { /* parents come first */
		const char *nm = ftree_name(want, i);
		uint32_t id = pool_intern(t.names, nm, pool_len(want->names, want->name[i]));
		map[i] = ftree_find(&t, map[want->parent[i]], id);
		if (map[i] == FT_NONE || t.total[map[i]] != want->total[i])
			abort();
	}
	free(map);
	ftree_release(&t);
	sbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	static const int kinds[] = { FUZZ_KINDS };
	const size_t nk = sizeof kinds / sizeof kinds[0];
	int kind = (size_t)(sel & 3) < nk ? kinds[sel & 3] : IMPORT_NONE;
	struct import_opts o = {
		.pid = sel & 8, .tid = sel & 16, .kernel = sel & 32, .jit = sel & 64, .addrs = sel & 128,
		.merge_threads = sel & 4, .samples = (sel & 72) == 72,
	};
	data++;
	size--;
	struct sbuf out = SBUF_INIT, out2 = SBUF_INIT, err = SBUF_INIT;
	int rc = run(data, size, kind, &o, &out, &err);
	if (rc == -100 || rc == IMPORT_NONE)
		goto done;
	if (rc) {
		if (!err.len || memchr(err.buf, '\n', err.len) || strncmp(err.buf, "'fuzz'", 6))
			abort(); /* one line, naming the input */
		goto done;
	}
	if (run(data, size, kind, &o, &out2, &err) || out.len != out2.len || memcmp(out.buf, out2.buf, out.len))
		abort(); /* deterministic */
	/* the folded text reads back; its stack lines are all valid for the
	 * kinds that escape names (speedscope, austin) */
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct folded_opts fo = { .strict = false, .reverse = false };
	if (folded_read_mem(&t, out.buf ? out.buf : "", out.len, "fuzz", &fo, &st, &err) == GF_OK &&
	    (kind == IMPORT_SPEEDSCOPE || kind == IMPORT_AUSTIN || kind == IMPORT_CHROME) && st.invalid)
		abort();
	if (kind == IMPORT_SPEEDSCOPE)
		same_tree(data, size, &o, &t);
	ftree_release(&t);
done:
	sbuf_release(&out);
	sbuf_release(&out2);
	sbuf_release(&err);
	return 0;
}
