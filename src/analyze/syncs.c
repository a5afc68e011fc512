/* syncs.c — hidden syncs in a trace (see syncs.h). */
#include "syncs.h"

#include "../base/num.h"
#include "../base/vec.h"

#include <stdlib.h>
#include <string.h>

static const char *const sync_ops[] = {
	"aten::is_nonzero", "aten::item", "aten::_local_scalar_dense", "aten::nonzero",
	"aten::masked_select", "aten::unique", "aten::_unique", "aten::_unique2",
	"aten::unique_consecutive", "aten::unique_dim", "aten::repeat_interleave",
	"aten::multinomial", "aten::randperm", "aten::to", "aten::_to_copy", "aten::copy_",
	"aten::index", "aten::index_put_", "aten::masked_scatter_", "aten::equal",
	"aten::allclose", "aten::tolist", "aten::numpy",
};

static bool known_op(const char *n)
{
	for (size_t i = 0; i < GF_ARRAY_LEN(sync_ops); i++)
		if (!strcmp(n, sync_ops[i]))
			return true;
	return false;
}

const char *syncs_fix_text(int fix)
{
	switch (fix) {
	case SF_ITEM:
		return "keep the values on the device and copy them asynchronously into pinned "
		       "memory one step behind (non_blocking=True), instead of .item() every step";
	case SF_BOOL:
		return "avoid boolean checks on GPU tensors (if t:, while t:, assert): compute the "
		       "condition on the device (torch.where) or check it one step later";
	case SF_NONZERO:
		return "nonzero/boolean-mask indexing needs the result size on the host: use "
		       "torch.where, fixed-size outputs or output_size=";
	case SF_TO_HOST:
		return ".cpu()/.tolist()/.numpy() blocks: copy with non_blocking=True into pinned "
		       "memory and consume the result one step later";
	case SF_TO_DEVICE:
		return "blocking copy from host memory: pin the host tensor (pin_memory()) and copy "
		       "with non_blocking=True, or keep the data on the device";
	case SF_DEVICE_SYNC:
		return "explicit torch.cuda.synchronize(): remove it from the step loop (keep it "
		       "only around timing code)";
	case SF_EVENT_SYNC:
		return "event.synchronize() blocks the host: poll event.query() or wait on another "
		       "thread so the host keeps launching";
	case SF_PAGEABLE:
		return "async copy to or from pageable memory is synchronous: use pinned host "
		       "buffers (pin_memory=True)";
	default:
		return "stream.synchronize(): wait later or on an event for just the work you need, "
		       "so the host keeps the GPU queue full";
	}
}

void syncs_per_step(struct sbuf *b, uint64_t count, size_t nsteps)
{
	int64_t v = 0;
	if (!nsteps || !num_muldiv((int64_t)count, 100, (int64_t)nsteps, &v)) {
		sbuf_addstr(b, "0");
		return;
	}
	num_fmt_fixed(b, v, 2, 2, false);
}

/* Row (window) containing ts, or -1. Rows are sorted by start. */
static long row_at(const struct steps_result *st, gf_ns ts)
{
	size_t lo = 0, hi = st->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (st->rows[m].start <= ts)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == 0)
		return -1;
	const struct step_row *r = &st->rows[lo - 1];
	return ts < r->end ? (long)(lo - 1) : -1;
}

/* A device-to-host async copy before sync call si under the same parent. */
static uint32_t dtoh_before(const struct actx *c, uint32_t si)
{
	const struct trace *t = c->t;
	uint32_t p = t->r[si].parent;
	uint32_t first = t->th[t->r[si].thread].first;
	for (uint32_t k = si, n = 0; k-- > first && n < 64; n++) {
		if (k == p)
			break;
		if (t->r[k].parent != p)
			continue;
		if (!(t->r[k].flags & TRF_MEMCPY) || (t->r[k].flags & TRF_SYNC))
			continue;
		uint32_t a = c->first_act[k];
		if (a != TRACE_NONE && (t->act[a].flags & TAF_DTOH))
			return k;
	}
	return TRACE_NONE;
}

/* Direction of the copy behind a blocking call: its own activity, else a
 * preceding memcpy under the same parent. */
static unsigned copy_dir(const struct actx *c, uint32_t si, uint32_t memcpy_call)
{
	const struct trace *t = c->t;
	uint32_t a = c->first_act[si];
	if (a == TRACE_NONE && memcpy_call != TRACE_NONE)
		a = c->first_act[memcpy_call];
	return a == TRACE_NONE ? 0 : t->act[a].flags & (TAF_DTOH | TAF_HTOD | TAF_DTOD);
}

static int pick_fix(const struct actx *c, uint32_t si, const char *api, const char *op,
		    uint32_t memcpy_call)
{
	if (c->blk[si] & ACTX_B_PAGEABLE)
		return SF_PAGEABLE;
	if (!strcmp(op, "aten::is_nonzero"))
		return SF_BOOL;
	if (!strcmp(op, "aten::item") || !strcmp(op, "aten::_local_scalar_dense"))
		return SF_ITEM;
	if (!strcmp(op, "aten::to") || !strcmp(op, "aten::_to_copy") || !strcmp(op, "aten::copy_") ||
	    !strcmp(op, "aten::tolist") || !strcmp(op, "aten::numpy"))
		return copy_dir(c, si, memcpy_call) & TAF_HTOD ? SF_TO_DEVICE : SF_TO_HOST;
	if (known_op(op))
		return SF_NONZERO;
	if (strstr(api, "DeviceSynchronize") || strstr(api, "CtxSynchronize"))
		return SF_DEVICE_SYNC;
	if (strstr(api, "EventSynchronize"))
		return SF_EVENT_SYNC;
	if (strstr(api, "Memcpy"))
		return copy_dir(c, si, memcpy_call) & TAF_HTOD ? SF_TO_DEVICE : SF_TO_HOST;
	return SF_STREAM_SYNC;
}

static int cmp_site(const void *a, const void *b)
{
	const struct sync_site *x = a, *y = b;
	if (x->bubble != y->bubble)
		return x->bubble > y->bubble ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait > y->wait ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int k = strcmp(x->site_name, y->site_name);
	if (k)
		return k;
	k = strcmp(x->op_name, y->op_name);
	return k ? k : strcmp(x->api, y->api);
}

int syncs_analyze(const struct actx *c, const struct steps_result *st, struct syncs_result *r)
{
	const struct trace *t = c->t;
	memset(r, 0, sizeof *r);
	r->nsteps = st->n;
	VEC(struct sync_site) v = VEC_INIT;
	struct sbuf api = SBUF_INIT, chain = SBUF_INIT;
	uint32_t ops[64];
	for (uint32_t i = 0; i < t->nr; i++) {
		if (!c->blk[i])
			continue;
		const struct trace_range *s = &t->r[i];
		if (row_at(st, s->start) < 0)
			continue;
		uint32_t mc = (s->flags & TRF_SYNC) ? dtoh_before(c, i) : TRACE_NONE;
		sbuf_reset(&api);
		sbuf_addstr(&api, trace_rname(t, i));
		/* the op chain: contiguous cpu_op ancestors above the call */
		size_t nops = 0;
		uint32_t p = s->parent;
		while (p != TRACE_NONE && t->r[p].kind != TR_OP && t->r[p].kind >= TR_RUNTIME)
			p = t->r[p].parent;
		while (p != TRACE_NONE && t->r[p].kind == TR_OP && nops < GF_ARRAY_LEN(ops)) {
			ops[nops++] = p;
			p = t->r[p].parent;
		}
		/* ops[] is innermost first */
		uint32_t op = nops ? ops[0] : TRACE_NONE;
		for (size_t k = nops; k-- > 0;) {
			if (known_op(trace_rname(t, ops[k]))) {
				op = ops[k];
				break;
			}
		}
		sbuf_reset(&chain);
		for (size_t k = nops; k-- > 0;)
			sbuf_addf(&chain, "%s%s", k + 1 < nops ? " > " : "", trace_rname(t, ops[k]));
		uint32_t site = actx_site(c, i);
		const char *site_name = site == TRACE_NONE ? "[no Python frame]" : trace_rname(t, site);
		const char *op_name = op == TRACE_NONE ? "-" : trace_rname(t, op);
		gf_ns wait = s->end - s->start;
		gf_ns bubble = 0;
		if (c->dev != TRACE_NONE) {
			gf_ns nb = actx_next_busy(c, s->end);
			if (nb >= 0 && nb != INT64_MAX)
				bubble = nb - s->end;
		}
		struct sync_site *g = NULL;
		for (size_t k = v.n; k-- > 0;) {
			if (!strcmp(v.v[k].site_name, site_name) && !strcmp(v.v[k].op_name, op_name) &&
			    !strcmp(v.v[k].api, api.buf)) {
				g = &v.v[k];
				break;
			}
		}
		if (!g) {
			g = vec_add(&v);
			g->site = site;
			g->op = op;
			g->site_name = gf_xstrdup(site_name);
			g->op_name = gf_xstrdup(op_name);
			g->op_chain = gf_xstrdup(nops ? chain.buf : "-");
			g->api = gf_xstrdup(api.buf);
			g->copy = mc == TRACE_NONE ? NULL : gf_xstrdup(trace_rname(t, mc));
			g->pageable = c->blk[i] & ACTX_B_PAGEABLE;
			g->fix = pick_fix(c, i, api.buf, op_name, mc);
		}
		g->count++;
		g->wait += wait;
		g->bubble += bubble;
		if (wait > g->max_wait)
			g->max_wait = wait;
		r->count++;
		r->wait += wait;
		r->bubble += bubble;
	}
	for (size_t k = 0; k < v.n; k++) {
		struct sync_site *g = &v.v[k];
		/* on average more than HTA's 30 us of GPU idle after each return */
		g->host_work_after = g->bubble > g->wait &&
				     g->bubble / (gf_ns)g->count > ACTX_KERNEL_WAIT_NS;
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_site);
	r->sites = v.v;
	r->nsites = v.n;
	sbuf_release(&api);
	sbuf_release(&chain);
	return GF_OK;
}

void syncs_release(struct syncs_result *r)
{
	for (size_t i = 0; i < r->nsites; i++) {
		free(r->sites[i].site_name);
		free(r->sites[i].op_name);
		free(r->sites[i].op_chain);
		free(r->sites[i].api);
		free(r->sites[i].copy);
	}
	free(r->sites);
	memset(r, 0, sizeof *r);
}
