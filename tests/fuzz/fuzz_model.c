/*
 * fuzz_model.c — libFuzzer target for GPU-weight conservation between the
 * trace model and `info` (issue 16): the input is read as a Kineto trace
 * twice, into the model (trace_load_mem) and into info (info_event), and
 * the two must agree: the model's activities are info's weighted ones, its
 * unweighted count is info's, and the sum of its durations is info's
 * gpu_time_ns (or both say the sum overflows; the model also refuses host
 * durations whose sum overflows, and info says so), and info's steps are the
 * model's (one classifier: the same names, kinds and kept ranges). Must never crash, leak or
 * trip UBSan (hostile ts, dur, baseTimeNanoseconds, correlation ids).
 * Seeds: tests/fuzz/corpus/model/.
 */
#include "trace/model/info.h"
#include "trace/model/trace.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbuf err = SBUF_INIT;
	struct trace t;
	trace_init(&t, NULL);
	int rc = trace_load_mem(&t, data, size, "fuzz.json", NULL, &err);

	struct pool *names = pool_new();
	struct kineto_trace kt;
	kineto_init(&kt, names);
	struct info *in = info_new(names);
	int irc = kineto_read_mem(&kt, data, size, "fuzz.json", info_event, in, &err);
	if (!irc) {
		info_finish(in, &kt);
		if (rc == GF_OK) {
			int64_t sum = 0;
			for (uint32_t i = 0; i < t.nact; i++)
				sum += t.act[i].end - t.act[i].start; /* checked by trace_finish */
			if (in->gpu_time_overflow || sum != in->gpu_time_ns || t.nact != in->gpu_weighted ||
			    t.warn.unweighted != in->gpu_unweighted)
				abort();
			/* one classifier: info's steps are the model's (numbers as a set) */
			if (in->step_events != t.nsteps)
				abort();
			int64_t *num = malloc(((size_t)t.nsteps + 1) * sizeof *num);
			for (uint32_t i = 0; i < t.nsteps; i++)
				num[i] = t.steps[i].number;
			qsort(num, t.nsteps, sizeof *num, cmp_i64);
			size_t k = 0;
			for (uint32_t i = 0; i < t.nsteps; i++)
				if (!k || num[k - 1] != num[i])
					num[k++] = num[i];
			if (k != in->steps.n || (k && memcmp(num, in->steps.v, k * sizeof *num)))
				abort();
			free(num);
		} else if (rc == GF_EINPUT && !in->gpu_time_overflow && !in->host_time_overflow) {
			abort(); /* the reader accepted it: only a sum of durations may fail */
		}
	}
	info_free(in);
	kineto_release(&kt);
	pool_free(names);
	trace_release(&t);
	sbuf_release(&err);
	return 0;
}
