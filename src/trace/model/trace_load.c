/*
 * trace_load.c — trace_load / trace_load_mem: read a Kineto file or an
 * in-memory trace text with the streaming reader straight into the trace
 * model (see trace.h). Kept apart from trace.c so
 * that the model can be unit-tested without linking the reader. A named
 * file the reader refuses that is of another kind (folded stacks, say) gets
 * the input layer's one-line hint instead (input_wrong_kind: "'x.folded' is
 * folded stacks, not a PyTorch profiler trace: run 'gpuflame svg x.folded'").
 */
#include "trace/model/trace.h"

#include "input/input.h"

#include <string.h>

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

/* Reads from the file path, or from buf/len when mem (path then names the
 * data in messages), into t and finishes it. */
static int load(struct trace *t, const char *path, bool mem, const void *buf, size_t len,
		const struct trace_opts *o, struct sbuf *err)
{
	struct kineto_trace kt;
	kineto_init(&kt, t->names);
	struct load_ctx c = { t, &kt, 0 };
	int rc;
	if (mem) {
		rc = kineto_read_mem(&kt, buf, len, path, load_cb, &c, err);
	} else {
		struct kineto_opts ko;
		memset(&ko, 0, sizeof ko);
		if (o) {
			ko.progress = o->progress;
			ko.progress_ctx = o->progress_ctx;
			ko.threads = o->threads;
		}
		rc = kineto_read(&kt, path, load_cb, &c, &ko, err);
	}
	if (rc) {
		if (c.rc)
			sbuf_setf(err, "'%s': too many host threads or events for the trace model", path);
		else if (rc == GF_EINPUT && !mem)
			input_wrong_kind(path, INPUT_TRACE, NULL, err); /* folded stacks given: say what to run */
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
	/* thread names may be declared after the events: take the final ones */
	trace_update_thread_names(t, kt.tracks, kt.ntracks);
	kineto_release(&kt);
	rc = trace_finish(t, o, err);
	if (rc == GF_EINPUT) {
		struct sbuf m = SBUF_INIT;
		sbuf_addf(&m, "'%s': %s", !mem && !strcmp(path, "-") ? "<stdin>" : path, err->buf);
		sbuf_setf(err, "%s", m.buf);
		sbuf_release(&m);
	}
	return rc;
}

int trace_load(struct trace *t, const char *path, const struct trace_opts *o, struct sbuf *err)
{
	return load(t, path, false, NULL, 0, o, err);
}

int trace_load_mem(struct trace *t, const void *buf, size_t len, const char *name, const struct trace_opts *o,
		   struct sbuf *err)
{
	return load(t, name, true, buf, len, o, err);
}
