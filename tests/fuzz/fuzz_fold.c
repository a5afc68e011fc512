/*
 * fuzz_fold.c — libFuzzer target for the trace model and the folders: the
 * input is read as a Kineto trace (trace_load_mem), then folded with every
 * weight and a few option sets chosen by the input's last byte; the input is
 * also parsed as a --families rules file. Must never crash, leak or trip UBSan; GPU-weight conservation is
 * asserted (the folded total equals the sum of activity durations).
 * Seeds: tests/fuzz/corpus/fold/ (small generated decode traces).
 */
#include "trace/analysis/fold.h"
#include "trace/model/trace.h"

#include <stdlib.h>
#include <string.h>

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
			ftree_release(&tree);
		}
	}
	trace_release(&t);
	kfamily_free(kf);
	sbuf_release(&err);
	return 0;
}
