/* flames.c — the page's four graphs, calls per frame name and the top real
 * kernels of each family (see flames.h). */
#include "trace/analysis/flames.h"

#include "trace/model/trace_sel.h"

#include <stdlib.h>
#include <string.h>

/* Index of the selected step holding time x, or -1 (keep: by start, and
 * selected steps do not overlap in a trace of one step thread; with
 * overlapping steps the latest starting at or before x is tried). */
static int in_steps(const struct trace *t, const uint32_t *keep, uint32_t n, gf_ns x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->steps[keep[mid]].start <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct trace_step *s = &t->steps[keep[lo - 1]];
	return x < s->end ? (int)(lo - 1) : -1;
}

static void add_call(struct flames *f, uint32_t id, uint64_t k)
{
	if (id >= f->ncalls) {
		uint32_t nc = f->ncalls ? f->ncalls : 64;
		while (nc <= id)
			nc *= 2;
		f->calls = gf_xrealloc(f->calls, (size_t)nc * sizeof *f->calls);
		memset(f->calls + f->ncalls, 0, (size_t)(nc - f->ncalls) * sizeof *f->calls);
		f->ncalls = nc;
	}
	f->calls[id] += k;
}

/* Host calls per normalised frame name. */
static void count_ranges(struct flames *f, const struct trace *t, const uint32_t *keep, uint32_t nk)
{
	uint32_t nn = pool_count(t->names);
	uint64_t *by[2] = { gf_xcalloc((size_t)nn + 1, sizeof(uint64_t)), gf_xcalloc((size_t)nn + 1, sizeof(uint64_t)) };
	uint64_t *step = gf_xcalloc((size_t)nn + 1, sizeof(uint64_t));
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		if (t->nsteps && in_steps(t, keep, nk, r->start) < 0)
			continue;
		if (r->flags & TRF_STEP)
			step[r->name]++;
		else
			by[r->kind == TR_PYTHON][r->name]++;
	}
	struct sbuf tmp = SBUF_INIT;
	for (uint32_t id = 0; id < nn; id++) {
		const char *s = pool_str(t->names, id);
		size_t n = pool_len(t->names, id);
		for (int py = 0; py < 3; py++) {
			uint64_t k = py == 2 ? step[id] : by[py][id];
			if (!k)
				continue;
			sbuf_reset(&tmp);
			if (py == 2) {
				const char *h = memchr(s, '#', n);
				fold_frame_name(s, h ? (size_t)(h - s) : n, false, &tmp);
			} else {
				fold_frame_name(s, n, py == 1, &tmp);
			}
			add_call(f, pool_intern(f->names, tmp.buf, tmp.len), k);
		}
	}
	sbuf_release(&tmp);
	free(by[0]);
	free(by[1]);
	free(step);
}

static int fam_cmp(const void *a, const void *b)
{
	const struct flames_family *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static void fam_offer(struct flames_family *fm, uint32_t name, gf_ns ns, uint64_t count, const struct trace_kcfg *cfg)
{
	fm->kernels++;
	unsigned i = fm->ntop;
	while (i > 0 && (fm->top[i - 1].ns < ns || (fm->top[i - 1].ns == ns && fm->top[i - 1].name > name)))
		i--;
	if (i >= FLAMES_TOP_KERNELS)
		return;
	unsigned end = fm->ntop < FLAMES_TOP_KERNELS ? fm->ntop : FLAMES_TOP_KERNELS - 1;
	memmove(&fm->top[i + 1], &fm->top[i], (end - i) * sizeof fm->top[0]);
	fm->top[i] = (struct flames_kernel){ name, ns, count, { 0 } };
	if (cfg)
		fm->top[i].cfg = *cfg;
	if (fm->ntop < FLAMES_TOP_KERNELS)
		fm->ntop++;
}

void flames_act_family(const struct kfamily *kf, const struct trace *t, uint32_t name, int kind, struct sbuf *fam,
		       struct sbuf *out)
{
	sbuf_reset(out);
	if (kind == TA_MEMCPY || kind == TA_MEMSET) {
		sbuf_addstr(out, kind == TA_MEMCPY ? "memcpy" : "memset");
		return;
	}
	kfamily_of(kf, pool_str(t->names, name), pool_len(t->names, name), fam);
	fold_frame_name(fam->buf, fam->len, false, out);
}

/* GPU activities per family, and each family's top real names. */
static void count_acts(struct flames *f, const struct trace *t, const uint32_t *keep, uint32_t nk)
{
	uint32_t nn = pool_count(t->names);
	gf_ns *ns = gf_xcalloc((size_t)nn + 1, sizeof *ns);
	uint64_t *cnt = gf_xcalloc((size_t)nn + 1, sizeof *cnt);
	uint8_t *kind = gf_xcalloc((size_t)nn + 1, 1);
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		gf_ns at = a->launch != TRACE_NONE ? t->r[a->launch].start : a->start;
		if (t->nsteps && in_steps(t, keep, nk, at) < 0)
			continue;
		ns[a->name] += a->end - a->start;
		cnt[a->name]++;
		kind[a->name] = a->kind;
	}
	struct kfamily *kf = kfamily_new();
	struct sbuf fam = SBUF_INIT, tmp = SBUF_INIT;
	uint32_t *fam_of = NULL; /* family index by f->names id */
	uint32_t nfo = 0;
	size_t cap = 0;
	for (uint32_t id = 0; id < nn; id++) {
		if (!cnt[id])
			continue;
		const char *s = pool_str(t->names, id);
		size_t n = pool_len(t->names, id);
		flames_act_family(kf, t, id, kind[id], &fam, &tmp);
		uint32_t fid = pool_intern(f->names, tmp.buf, tmp.len);
		add_call(f, fid, cnt[id]);
		if (fid >= nfo) {
			uint32_t nf = nfo ? nfo : 64;
			while (nf <= fid)
				nf *= 2;
			fam_of = gf_xrealloc(fam_of, (size_t)nf * sizeof *fam_of);
			for (uint32_t k = nfo; k < nf; k++)
				fam_of[k] = UINT32_MAX;
			nfo = nf;
		}
		if (fam_of[fid] == UINT32_MAX) {
			if (f->nfam == cap) {
				cap = cap ? cap * 2 : 16;
				f->fam = gf_xrealloc(f->fam, cap * sizeof *f->fam);
			}
			memset(&f->fam[f->nfam], 0, sizeof *f->fam);
			f->fam[f->nfam].name = fid;
			fam_of[fid] = (uint32_t)f->nfam++;
		}
		struct flames_family *fm = &f->fam[fam_of[fid]];
		fm->ns += ns[id];
		fm->count += cnt[id];
		fam_offer(fm, pool_intern(f->names, s, n), ns[id], cnt[id], trace_kcfg_top(t, id));
	}
	if (f->nfam)
		qsort(f->fam, f->nfam, sizeof *f->fam, fam_cmp);
	kfamily_free(kf);
	sbuf_release(&fam);
	sbuf_release(&tmp);
	free(fam_of);
	free(ns);
	free(cnt);
	free(kind);
}

int flames_build(struct flames *f, const struct actx *c, const struct trace_sel *steps, const char *marker,
		 struct sbuf *err)
{
	struct trace *t = c->t;
	memset(f, 0, sizeof *f);
	f->names = pool_new();
	f->ts_gen = t->meta.ts_gen;
	f->legacy = t->meta.legacy;
	uint32_t *keep = gf_xcalloc((size_t)t->nsteps + 1, sizeof *keep);
	uint32_t nk = 0;
	int rc = GF_OK;
	if (t->nsteps && (rc = trace_sel_pick(t, steps, marker, keep, &nk, err))) {
		free(keep);
		return rc;
	}
	f->steps = nk;
	for (int w = 0; w < FLAMES_N; w++) {
		struct fold_opts o;
		fold_opts_init(&o);
		o.weight = w;
		o.steps = *steps;
		o.step_marker = marker;
		o.walk = &c->walk;
		if (w == FW_IDLE)
			o.device = c->device;
		struct sbuf e = SBUF_INIT;
		rc = fold_trace(t, &o, &f->g[w], &f->st[w], &e);
		if (rc == GF_OK && f->g[w].total[0] == 0) {
			sbuf_setf(&e, "the %s fold has no weight", weight_defs[w].name);
			rc = GF_EINPUT;
		}
		f->have[w] = rc == GF_OK;
		if (rc) {
			if (rc != GF_EINPUT && rc != GF_EUSAGE) {
				sbuf_setf(err, "%s", e.buf);
				sbuf_release(&e);
				free(keep);
				return rc;
			}
			ftree_release(&f->g[w]);
			ftree_init(&f->g[w], NULL, 0);
			f->why[w] = gf_xstrdup(e.buf ? e.buf : "");
		}
		sbuf_release(&e);
	}
	count_ranges(f, t, keep, nk);
	count_acts(f, t, keep, nk);
	free(keep);
	return GF_OK;
}

void flames_release(struct flames *f)
{
	for (int w = 0; w < FLAMES_N; w++) {
		ftree_release(&f->g[w]);
		free(f->why[w]);
	}
	pool_free(f->names);
	free(f->calls);
	free(f->fam);
	memset(f, 0, sizeof *f);
}

int64_t flames_calls(const struct flames *f, const char *name, size_t n)
{
	uint32_t id = pool_find(f->names, name, n);
	if (id == UINT32_MAX || id >= f->ncalls || !f->calls[id])
		return -1;
	return (int64_t)f->calls[id];
}

const struct flames_family *flames_family(const struct flames *f, const char *name, size_t n)
{
	uint32_t id = pool_find(f->names, name, n);
	if (id == UINT32_MAX)
		return NULL;
	for (size_t i = 0; i < f->nfam; i++)
		if (f->fam[i].name == id)
			return &f->fam[i];
	return NULL;
}
