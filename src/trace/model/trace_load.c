/*
 * trace_load.c — the one way a trace command reads a trace: trace_read_input
 * streams the events of an input opened by the input layer (input/input.h)
 * to a callback; trace_load / trace_load_input / trace_load_mem build the
 * trace model from them (see trace.h), info_load (info.c) its summary. Kept
 * apart from trace.c so that the model can be unit-tested without linking
 * the reader. An input the reader refuses that is plainly of another kind
 * (folded stacks, say) gets the input layer's one-line hint instead
 * (input_plainly_other: "'x.folded' is folded stacks, not a PyTorch profiler
 * trace: run 'gpuflame svg x.folded'"), stdin included: the peek window of
 * the input is the evidence, so nothing is read twice.
 */
#include "trace/model/trace.h"

#include "input/input.h"
#include "input/source.h"

#include <stdlib.h>
#include <string.h>

int trace_read_input(struct kineto_trace *kt, struct input *in, kineto_event_fn fn, void *ctx,
		     const struct trace_opts *o, struct sbuf *err)
{
	int f = input_format(in);
	if (f != INPUT_TRACE && f != INPUT_FOLDED) /* speedscope, perf script, pprof...: say so */
		return input_hint(err, in, INPUT_TRACE, NULL);
	struct kineto_opts ko;
	memset(&ko, 0, sizeof ko);
	if (o) {
		ko.progress = o->progress;
		ko.progress_ctx = o->progress_ctx;
		ko.threads = o->threads;
	}
	struct source *src = input_take_source(in);
	int rc = kineto_read_source(kt, src, input_path(in), fn, ctx, &ko, err);
	source_close(src);
	if (rc == GF_EINPUT && input_plainly_other(in, INPUT_TRACE))
		input_hint(err, in, INPUT_TRACE, NULL);
	return rc;
}

int trace_read(struct kineto_trace *kt, const char *path, kineto_event_fn fn, void *ctx,
	       const struct trace_opts *o, struct sbuf *err)
{
	struct input *in;
	int rc = input_open(&in, path, o ? o->threads : 0, err);
	if (rc)
		return rc;
	rc = trace_read_input(kt, in, fn, ctx, o, err);
	input_close(in);
	return rc;
}

struct load_ctx {
	struct trace *t;
	struct kineto_trace *kt;
	int rc;
};

static int load_cb(void *ctx, const struct kev *e)
{
	struct load_ctx *c = ctx;
	const struct ktrack *tr = e->track < c->kt->ntracks ? &c->kt->tracks[e->track] : NULL;
	int rc = trace_add_event(c->t, e, tr);
	if (rc)
		c->rc = rc;
	return rc;
}

/* Reads from the input in, or from buf/len when !in (name then names the
 * data in messages), into t and finishes it. */
static int load(struct trace *t, struct input *in, const char *name, const void *buf, size_t len,
		const struct trace_opts *o, struct sbuf *err)
{
	struct kineto_trace kt;
	kineto_init(&kt, t->names);
	struct load_ctx c = { t, &kt, 0 };
	const char *path = in ? input_name(in) : name;
	int rc;
	if (in)
		rc = trace_read_input(&kt, in, load_cb, &c, o, err);
	else
		rc = kineto_read_mem(&kt, buf, len, name, load_cb, &c, err);
	if (rc) {
		if (c.rc)
			sbuf_setf(err, "'%s': too many host threads or events for the trace model", path);
		kineto_release(&kt);
		return c.rc ? GF_EINTERNAL : rc;
	}
	t->meta.rank = kt.meta.rank;
	t->meta.world_size = kt.meta.world_size;
	memcpy(t->meta.backend, kt.meta.backend, sizeof t->meta.backend);
	t->meta.base_time_ns = kt.meta.base_time_ns;
	t->meta.has_base_time = kt.meta.has_base_time;
	t->meta.ts_gen = kt.meta.ts_gen;
	t->meta.bytes_in = kt.stats.bytes_in;
	t->meta.bytes_file = kt.stats.bytes_file;
	t->meta.events = kt.stats.events;
	t->meta.truncated = kt.stats.truncated;
	t->meta.legacy = kt.meta.legacy_events > 0;
	free(t->meta.pgs); /* a second load into t would leak it */
	t->meta.pgs = kt.meta.pgs;
	t->meta.npgs = kt.meta.npgs;
	kt.meta.pgs = NULL;
	t->meta.dev_kinds = kt.meta.dev_kinds;
	/* thread names may be declared after the events: take the final ones */
	trace_update_thread_names(t, kt.tracks, kt.ntracks);
	kineto_release(&kt);
	rc = trace_finish(t, o, err);
	if (rc == GF_EINPUT) {
		struct sbuf m = SBUF_INIT;
		sbuf_addf(&m, "'%s': %s", path, err->buf);
		sbuf_setf(err, "%s", m.buf);
		sbuf_release(&m);
	}
	return rc;
}

int trace_load_input(struct trace *t, struct input *in, const struct trace_opts *o, struct sbuf *err)
{
	return load(t, in, NULL, NULL, 0, o, err);
}

int trace_load(struct trace *t, const char *path, const struct trace_opts *o, struct sbuf *err)
{
	struct input *in;
	int rc = input_open(&in, path, o ? o->threads : 0, err);
	if (rc)
		return rc;
	rc = load(t, in, NULL, NULL, 0, o, err);
	input_close(in);
	return rc;
}

int trace_load_mem(struct trace *t, const void *buf, size_t len, const char *name, const struct trace_opts *o,
		   struct sbuf *err)
{
	return load(t, NULL, name, buf, len, o, err);
}

bool trace_gpu_note(const struct trace *t, const char *disp, const char *what, struct sbuf *note)
{
	if (t->nact || t->warn.unweighted || t->ngpu_ann)
		return false;
	sbuf_addf(note, "'%s': no GPU activity in the trace (%s); %s has nothing to weigh: ", disp,
		  t->meta.legacy ? "a legacy autograd profiler trace, without \"CUDA functions\""
				 : "no kernel, memcpy or memset: a CPU-only capture",
		  what);
	sbuf_addstr(note, t->nr ? "use --weight cpu or wall" : "it has no host ranges either");
	return true;
}
