/*
 * fuzz_fold.c — libFuzzer target for the trace model and the folders: the
 * input is read as a Kineto trace (trace_load_mem), then folded with every
 * weight and a few option sets chosen by the input's last byte; the input is
 * also parsed as a --families rules file. Must never crash, leak or trip UBSan; GPU-weight conservation is
 * asserted (the folded total equals the sum of activity durations), and so is the wall total of
 * a trace with steps (per step thread, the union of its steps; docs/fold.md).
 * Seeds: tests/fuzz/corpus/fold/ (small generated decode traces).
 */
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"

#include <stdlib.h>
#include <string.h>

/* What a default wall fold of all steps sums to: per step thread, the
 * union of its steps (steps are sorted by start; quadratic, fuzz sizes). */
static int64_t wall_of_steps(const struct trace *t)
{
	int64_t sum = 0;
	for (uint32_t i = 0; i < t->nsteps; i++) {
		bool first = true;
		for (uint32_t j = 0; j < i; j++)
			first &= t->steps[j].thread != t->steps[i].thread;
		if (!first)
			continue;
		gf_ns lo = 0, hi = 0;
		bool open = false;
		for (uint32_t j = i; j < t->nsteps; j++) {
			const struct trace_step *s = &t->steps[j];
			if (s->thread != t->steps[i].thread || s->end <= s->start)
				continue;
			if (open && s->start <= hi) {
				hi = s->end > hi ? s->end : hi;
				continue;
			}
			if (open)
				sum += hi - lo;
			lo = s->start;
			hi = s->end;
			open = true;
		}
		if (open)
			sum += hi - lo;
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT;
	struct kfamily *kf = kfamily_new();
	kfamily_parse(kf, (const char *)data, size, "fuzz", &err);
	struct sbuf fam = SBUF_INIT;
	kfamily_of(kf, (const char *)data, size < 256 ? size : 256, &fam);
	sbuf_release(&fam);

	struct trace t;
	trace_init(&t, NULL);
	int rc = trace_load_mem(&t, data, size, "fuzz.json", NULL, &err);
	if (!rc) {
		unsigned sel = size ? data[size - 1] : 0;
		for (int w = FW_GPU; w <= FW_CALLS; w++) {
			struct fold_opts o;
			fold_opts_init(&o);
			o.weight = w;
			o.unit = FU_NS;
			if (sel & 1)
				o.levels = FL_STEP | FL_MODULE | FL_OP | FL_RUNTIME;
			if (sel & 2)
				o.max_depth = 2;
			if (sel & 4)
				o.per_step = true;
			if (sel & 8)
				o.steps.skip = 1;
			if (sel & 16)
				o.normalise = true;
			if (sel & 32)
				o.families = kf;
			if (sel & 64)
				o.all_threads = true;
			if (sel & 128)
				o.no_thread_frames = true;
			struct ftree tree;
			struct fold_stats st;
			memset(&st, 0, sizeof st);
			int r = fold_trace(&t, &o, &tree, &st, &err);
			if (!r && w == FW_GPU && !o.steps.skip) {
				int64_t sum = 0;
				bool ovf = false;
				for (uint32_t i = 0; i < t.nact; i++)
					ovf |= __builtin_add_overflow(sum, t.act[i].end - t.act[i].start, &sum);
				if (!ovf && st.total != sum)
					abort();
			}
			if (!r && w == FW_WALL && !o.steps.skip && !o.all_threads && t.nsteps &&
			    wall_of_steps(&t) != st.total)
				abort();
			ftree_release(&tree);
		}
	}
	trace_release(&t);
	kfamily_free(kf);
	sbuf_release(&err);
	return 0;
}
