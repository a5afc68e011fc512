/*
 * fuzz_diff.c — libFuzzer target for gpuflame diff's library: two folded
 * texts (the input split at its first NUL byte: BEFORE \0 AFTER) are read,
 * aligned, normalised per step (steps taken from the input's last two bytes)
 * and ranked; name normalisation runs on every frame.
 * Properties checked (abort on violation):
 *   - with --scale none, column totals equal the inputs' totals exactly;
 *   - with per-step largest-remainder rounding, the normalised total equals
 *     round_half_even(total / steps) at the raised scale;
 *   - every node's total is its self weight plus its children's totals;
 *   - the differential writers run (stacks/render/diff_out.h: the --top
 *     tables on every result, the SVG when a data bit says so, in the view
 *     another bit picks); each frame's fill is rgb() of
 *     three values in 0..255 with 250/220 greys or one channel at 255.
 * Seeds: tests/fuzz/corpus/diff/.
 */
#include "stacks/ops/diff.h"
#include "stacks/ops/merge.h"
#include "base/num.h"
#include "stacks/folded.h"
#include "stacks/render/diff_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One name pool for every tree of every run (a pool costs a 4 MB block). */
static struct pool *names;

static void load(struct ftree *t, const char *p, size_t n)
{
	struct sbuf err = SBUF_INIT;
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	ftree_init(t, names, 0);
	if (folded_read_mem(t, p, n, "fuzz", NULL, &st, &err)) {
		ftree_release(t);
		ftree_init(t, names, 0);
	}
	sbuf_release(&err);
}

static void check_fills(const struct diff_result *r)
{
	int64_t md, msd;
	diff_out_maxima(r, &md, &msd);
	for (uint32_t i = 0; i < r->t.n; i++) {
		char rgb[24];
		int x, y, z;
		diff_out_fill(r, i & 1, md, i, rgb);
		if (sscanf(rgb, "rgb(%d,%d,%d)", &x, &y, &z) != 3 || x < 0 || y < 0 || z < 0 ||
		    x > 255 || y > 255 || z > 255 || !(x == 255 || z == 255 || (x == y && y == z)))
			abort();
		double w = 0;
		if (diff_out_stroke(r, false, msd, i, rgb, &w) && !(w >= 0.5 && w <= 2.5))
			abort();
	}
}

/* One SVG a run, for inputs with bit 3 of their last-but-one byte set (the
 * SVG is the slow part): the view chosen by bit 3 of the last byte. */
static void render(struct diff_result *r, bool negate)
{
	check_fills(r);
	struct diff_out_svg_opts so;
	diff_out_svg_opts_init(&so);
	so.negate = negate;
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	diff_out_svg_buf(r, &so, &out, &err);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void check_consistent(const struct ftree *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		for (int c = 0; c < t->ncols; c++)
			if (ftree_self(t, i, c) < 0)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	if (!names)
		names = pool_new();
	const char *s = (const char *)data;
	const char *nul = memchr(s, 0, size);
	size_t nb = nul ? (size_t)(nul - s) : size / 2;
	size_t off = nul ? nb + 1 : nb;
	int64_t steps0 = 1 + data[size - 2] % 7, steps1 = 1 + data[size - 1] % 7;
	for (int pass = 0; pass < 2; pass++) {
		struct ftree b, a;
		load(&b, s, nb);
		load(&a, s + off, size - off);
		if (b.ncols != 1 || a.ncols != 1) {
			ftree_release(&b);
			ftree_release(&a);
			return 0;
		}
		struct diff_opts o;
		diff_opts_init(&o);
		o.names = names;
		o.scale = pass ? DIFF_SCALE_STEPS : DIFF_SCALE_NONE;
		o.steps[0] = steps0;
		o.steps[1] = steps1;
		struct diff_result r;
		struct sbuf err = SBUF_INIT;
		if (!diff_run(&r, &b, &a, &o, &err)) {
			unsigned up = r.t.scale - r.raw_scale;
			if (!pass) {
				if (r.t.total[0] != b.total[0] || r.t.total2[0] != a.total[0])
					abort();
			} else {
				int64_t x0 = b.total[0], x1 = a.total[0], w0, w1;
				if (num_rescale(&x0, up) && num_rescale(&x1, up) &&
				    num_muldiv(x0, 1, steps0, &w0) && num_muldiv(x1, 1, steps1, &w1) &&
				    (r.t.total[0] != w0 || r.t.total2[0] != w1))
					abort();
			}
			check_consistent(&r.t);
			struct diff_row rows[8];
			diff_top(&r, pass, 8, rows);
			FILE *fp = fopen("/dev/null", "w");
			if (fp) {
				merge_write_sorted(fp, &r.t, false);
				diff_out_top(fp, &r, 4);
				fclose(fp);
			}
			if (!pass && (data[size - 2] & 8))
				render(&r, data[size - 1] & 8);
			diff_result_release(&r);
		}
		sbuf_release(&err);
		ftree_release(&b);
		ftree_release(&a);
	}
	return 0;
}
