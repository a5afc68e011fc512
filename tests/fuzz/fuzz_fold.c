/*
 * fuzz_fold.c — libFuzzer target for the trace model and the folders: the
 * input is read as a Kineto trace (kineto_read_mem -> trace_add_event ->
 * trace_finish), then folded with every weight and a few option sets chosen
 * by the input's last byte; the input is also parsed as a --families rules
 * file. Must never crash, leak or trip UBSan; GPU-weight conservation is
 * asserted (the folded total equals the sum of activity durations).
 * Seeds: tests/fuzz/corpus/fold/ (small generated decode traces).
 */
#include "fold/fold.h"
#include "read/kineto.h"

#include <stdlib.h>
#include <string.h>

struct ctx {
	struct trace *t;
	struct kineto_trace *kt;
};

static int on_event(void *p, const struct kev *e)
{
	struct ctx *c = p;
	const struct ktrack *tr = e->track < c->kt->ntracks ? &c->kt->tracks[e->track] : NULL;
	return trace_add_event(c->t, e, tr);
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
	struct kineto_trace kt;
	kineto_init(&kt, t.names);
	struct ctx c = { &t, &kt };
	int rc = kineto_read_mem(&kt, data, size, "fuzz.json", on_event, &c, &err);
	if (!rc) {
		trace_update_thread_names(&t, kt.tracks, kt.ntracks);
		rc = trace_finish(&t, NULL, &err);
	}
	kineto_release(&kt);
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
				o.skip = 1;
			if (sel & 16)
				o.normalise = true;
			if (sel & 32)
				o.families = kf;
			struct ftree tree;
			struct fold_stats st;
			memset(&st, 0, sizeof st);
			int r = fold_trace(&t, &o, &tree, &st, &err);
			if (!r && w == FW_GPU && !o.skip) {
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
