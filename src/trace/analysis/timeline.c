/* timeline.c — the step timeline's lanes (see timeline.h). */
#include "trace/analysis/timeline.h"

#include "base/vec.h"
#include "trace/analysis/flames.h"
#include "trace/analysis/kfamily.h"

#include <stdlib.h>
#include <string.h>

/* ---- picking the steps ---- */

/* The steady row whose wall is nearest the steady median (earliest on a tie). */
static size_t median_row(const struct steps_result *st)
{
	size_t best = 0;
	gf_ns bd = INT64_MAX;
	for (size_t i = 0; i < st->n; i++) {
		const struct step_row *r = &st->rows[i];
		if (r->warmup && st->nsteady)
			continue;
		gf_ns d = r->wall > st->steady.wall ? r->wall - st->steady.wall : st->steady.wall - r->wall;
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}

static bool parse_num(const char **p, int64_t *v)
{
	const char *s = *p;
	bool neg = *s == '-';
	if (neg)
		s++;
	if (*s < '0' || *s > '9')
		return false;
	int64_t x = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (INT64_MAX - (*s - '0')) / 10)
			return false;
		x = x * 10 + (*s - '0');
	}
	*v = neg ? -x : x;
	*p = s;
	return true;
}

static void range_msg(const struct steps_result *st, struct sbuf *err)
{
	if (st->whole_trace) {
		sbuf_addstr(err, "the trace has no steps: its timeline is the whole trace (--timeline median)");
		return;
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < st->n; i++) {
		lo = st->rows[i].number < lo ? st->rows[i].number : lo;
		hi = st->rows[i].number > hi ? st->rows[i].number : hi;
	}
	sbuf_addf(err, "the selected steps are numbered %lld..%lld", (long long)lo, (long long)hi);
}

int timeline_parse(const char *arg, struct timeline_spec *sp, struct sbuf *err)
{
	memset(sp, 0, sizeof *sp);
	if (!strcmp(arg, "none")) {
		sp->mode = TLS_NONE;
		return GF_OK;
	}
	if (!strcmp(arg, "median"))
		return GF_OK;
	sp->mode = TLS_LIST;
	const char *p = arg;
	for (;;) {
		int64_t a, b;
		if (!parse_num(&p, &a))
			break;
		b = a;
		if (p[0] == '.' && p[1] == '.') {
			p += 2;
			if (!parse_num(&p, &b) || b < a)
				break;
		}
		if (sp->n == TIMELINE_MAX_STEPS) {
			sbuf_setf(err, "--timeline: at most %d steps (the page embeds each step's timeline)",
				  TIMELINE_MAX_STEPS);
			return GF_EUSAGE;
		}
		sp->first[sp->n] = a;
		sp->last[sp->n++] = b;
		if (*p == '\0')
			return GF_OK;
		if (*p++ != ',')
			break;
	}
	sbuf_setf(err, "invalid argument for '--timeline'; expected median, none, or step numbers and ranges "
		       "A..B separated by commas");
	return GF_EUSAGE;
}

int timeline_pick(const struct steps_result *st, const struct timeline_spec *sp, size_t *rows, size_t *n,
		  struct sbuf *err)
{
	*n = 0;
	if (sp->mode == TLS_NONE)
		return GF_OK;
	if (sp->mode == TLS_MEDIAN) {
		if (st->n)
			rows[(*n)++] = median_row(st);
		return GF_OK;
	}
	bool *want = gf_xcalloc(st->n ? st->n : 1, sizeof *want);
	size_t k = 0;
	for (size_t j = 0; j < sp->n; j++) {
		bool any = false;
		for (size_t i = 0; i < st->n && !st->whole_trace; i++) {
			if (st->rows[i].number < sp->first[j] || st->rows[i].number > sp->last[j])
				continue;
			any = true;
			k += !want[i];
			want[i] = true;
		}
		if (k > TIMELINE_MAX_STEPS) {
			sbuf_setf(err, "--timeline: at most %d steps (the page embeds each step's timeline)",
				  TIMELINE_MAX_STEPS);
			free(want);
			return GF_EUSAGE;
		}
		if (!any) {
			sbuf_setf(err, "--timeline: no selected step numbered %lld", (long long)sp->first[j]);
			if (sp->last[j] != sp->first[j])
				sbuf_addf(err, "..%lld", (long long)sp->last[j]);
			sbuf_addstr(err, " (");
			range_msg(st, err);
			sbuf_addstr(err, ")");
			free(want);
			return GF_EUSAGE;
		}
	}
	for (size_t i = 0; i < st->n; i++)
		if (want[i])
			rows[(*n)++] = i;
	free(want);
	return GF_OK;
}

/* ---- lanes ---- */

/* One item offered to a lane, in time order; name is the trace's name id
 * (the lane's segments are named once built: resolve_names). */
struct item {
	gf_ns lo, hi, aux;
	uint32_t name, name2, ref;
	uint8_t cls;
};

/* A lane being filled: the open group of short items. */
struct filler {
	struct tl_lane *l;
	gf_ns px;
	struct tl_seg g;        /* the group (count 0: none) */
	gf_ns gparts[GAP_NCAUSES];
	gf_ns longest;
};

static struct tl_seg *lane_push(struct tl_lane *l, const gf_ns *parts)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->seg = gf_xrealloc(l->seg, l->cap * sizeof *l->seg);
		if (l->kind == TL_IDLE)
			l->parts = gf_xrealloc(l->parts, l->cap * sizeof *l->parts);
	}
	if (l->kind == TL_IDLE)
		memcpy(l->parts[l->n], parts, sizeof l->parts[0]);
	return &l->seg[l->n++];
}

static void flush(struct filler *f)
{
	if (!f->g.count)
		return;
	if (f->g.count > 1) {
		f->l->merged += f->g.count;
		f->l->merged_ns += f->g.busy;
	}
	*lane_push(f->l, f->gparts) = f->g;
	f->g.count = 0;
}

static void offer(struct filler *f, const struct item *it)
{
	struct tl_lane *l = f->l;
	gf_ns len = it->hi - it->lo;
	if (len <= 0)
		return;
	l->items++;
	l->items_ns += len;
	struct tl_seg one = { it->lo, it->hi, len, it->aux, it->name, it->name2, it->ref, 1, it->cls, false };
	gf_ns parts[GAP_NCAUSES] = { 0 };
	if (l->kind == TL_IDLE && it->cls < GAP_NCAUSES)
		parts[it->cls] = len;
	if (len >= f->px) {
		flush(f);
		*lane_push(l, parts) = one;
		return;
	}
	if (f->g.count && it->lo < f->g.lo + f->px) {
		struct tl_seg *g = &f->g;
		g->mixed |= g->name != it->name || g->cls != it->cls;
		g->hi = it->hi > g->hi ? it->hi : g->hi;
		g->busy += len;
		g->count++;
		for (int k = 0; k < GAP_NCAUSES; k++)
			f->gparts[k] += parts[k];
		if (len > f->longest) {
			/* the group is named by its longest member */
			f->longest = len;
			g->name = it->name;
			g->name2 = it->name2;
			g->ref = it->ref;
			g->cls = it->cls;
			g->aux = it->aux;
		}
		return;
	}
	flush(f);
	f->g = one;
	f->longest = len;
	memcpy(f->gparts, parts, sizeof parts);
}

static struct tl_lane *new_lane(struct timeline *tl, int kind, int32_t stream, uint32_t thread)
{
	tl->lane = gf_xrealloc(tl->lane, (tl->nlane + 1) * sizeof *tl->lane);
	struct tl_lane *l = &tl->lane[tl->nlane++];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->stream = stream;
	l->thread = thread;
	return l;
}

static void filler_init(struct filler *f, struct tl_lane *l, gf_ns px)
{
	memset(f, 0, sizeof *f);
	f->l = l;
	f->px = px;
}

static uint32_t intern_name(struct timeline *tl, const struct trace *t, uint32_t id)
{
	return id == UINT32_MAX ? UINT32_MAX : pool_intern(tl->names, pool_str(t->names, id), pool_len(t->names, id));
}

static void idle_lane(struct timeline *tl, const struct gaps_result *gp)
{
	struct tl_lane *l = new_lane(tl, TL_IDLE, -1, TRACE_NONE);
	struct filler f;
	filler_init(&f, l, tl->px);
	size_t a = 0, b = gp->npieces;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (gp->pieces[m].hi <= tl->lo)
			a = m + 1;
		else
			b = m;
	}
	for (size_t k = a; k < gp->npieces && gp->pieces[k].lo < tl->hi; k++) {
		const struct gap_piece *p = &gp->pieces[k];
		struct item it = { p->lo > tl->lo ? p->lo : tl->lo, p->hi < tl->hi ? p->hi : tl->hi, -1,
				   UINT32_MAX, UINT32_MAX, (uint32_t)k, p->cause };
		offer(&f, &it);
	}
	flush(&f);
}

/* A device activity's lane key: stream, and whether it is communication. */
struct actref {
	int64_t key;  /* stream << 1 | comm */
	uint32_t a;
};

static int cmp_actref(const void *x, const void *y)
{
	const struct actref *p = x, *q = y;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return (p->a > q->a) - (p->a < q->a);
}

struct famcache {
	struct kfamily *kf;
	uint32_t *of;     /* t->names id -> tl->names id + 1 (0: not yet) */
	struct sbuf fam, tmp;
};

static uint32_t family(struct timeline *tl, const struct trace *t, struct famcache *fc, const struct trace_act *a)
{
	uint32_t id = a->name;
	if (!fc->of[id]) {
		flames_act_family(fc->kf, t, id, a->kind, &fc->fam, &fc->tmp);
		fc->of[id] = pool_intern(tl->names, fc->tmp.buf, fc->tmp.len) + 1;
	}
	return fc->of[id] - 1;
}

/* The device's activities meeting the window, by (lane, start). */
static size_t window_acts(const struct actx *c, const struct timeline *tl, struct actref **out)
{
	const struct trace *t = c->t;
	VEC(struct actref) v = VEC_INIT;
	uint32_t *st = NULL;
	size_t cap = 0, ns = actx_straddlers(c, tl->lo, &st, &cap);
	for (size_t k = 0; k < ns; k++) {
		const struct trace_act *a = &t->act[st[k]];
		struct actref r = { (int64_t)a->stream * 2 + !!(a->flags & TAF_NCCL), st[k] };
		vec_push(&v, r);
	}
	free(st);
	for (uint32_t i = trace_act_lower(t, tl->lo); i < t->nact && t->act[i].start < tl->hi; i++) {
		const struct trace_act *a = &t->act[i];
		if (!actx_on_dev(c, a) || a->end <= a->start)
			continue;
		struct actref r = { (int64_t)a->stream * 2 + !!(a->flags & TAF_NCCL), i };
		vec_push(&v, r);
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_actref);
	*out = v.v;
	return v.n;
}

struct lanekey {
	int64_t key;
	size_t from, to;  /* its activities in the sorted list */
	gf_ns busy;
};

static int cmp_busy(const void *x, const void *y)
{
	const struct lanekey *p = x, *q = y;
	if (p->busy != q->busy)
		return p->busy > q->busy ? -1 : 1;
	return (p->key > q->key) - (p->key < q->key);
}

static int cmp_key(const void *x, const void *y)
{
	const struct lanekey *p = x, *q = y;
	bool pc = p->key & 1, qc = q->key & 1;
	if (pc != qc)
		return pc ? 1 : -1; /* compute lanes first, communication after */
	return (p->key > q->key) - (p->key < q->key);
}

static void act_item(const struct timeline *tl, const struct actx *c, uint32_t ai, struct item *it)
{
	const struct trace *t = c->t;
	const struct trace_act *a = &t->act[ai];
	it->lo = a->start > tl->lo ? a->start : tl->lo;
	it->hi = a->end < tl->hi ? a->end : tl->hi;
	it->aux = a->launch != TRACE_NONE ? a->start - t->r[a->launch].start : -1;
	it->name = a->name;
	it->name2 = UINT32_MAX;
	it->ref = ai;
	it->cls = a->kind;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t p = *(const uint32_t *)x, q = *(const uint32_t *)y;
	return (p > q) - (p < q);
}

/* One lane from the activities of keys[0..nk) (several streams' for
 * TL_STREAMS), by start (activity index order). */
static void fill_acts(struct timeline *tl, const struct actx *c, struct tl_lane *l,
		      const struct actref *ar, const struct lanekey *keys, size_t nk)
{
	VEC(uint32_t) v = VEC_INIT;
	for (size_t k = 0; k < nk; k++)
		for (size_t i = keys[k].from; i < keys[k].to; i++)
			vec_push(&v, ar[i].a);
	if (nk > 1)
		qsort(v.v, v.n, sizeof *v.v, cmp_u32);
	struct filler f;
	filler_init(&f, l, tl->px);
	for (size_t i = 0; i < v.n; i++) {
		struct item it;
		act_item(tl, c, v.v[i], &it);
		offer(&f, &it);
	}
	flush(&f);
	vec_free(&v);
}

static void device_lanes(struct timeline *tl, const struct actx *c)
{
	struct actref *ar = NULL;
	size_t n = window_acts(c, tl, &ar);
	VEC(struct lanekey) keys = VEC_INIT;
	for (size_t i = 0; i < n;) {
		struct lanekey k = { ar[i].key, i, i, 0 };
		for (; i < n && ar[i].key == k.key; i++) {
			const struct trace_act *a = &c->t->act[ar[i].a];
			gf_ns lo = a->start > tl->lo ? a->start : tl->lo, hi = a->end < tl->hi ? a->end : tl->hi;
			k.busy += hi > lo ? hi - lo : 0;
		}
		k.to = i;
		vec_push(&keys, k);
	}
	/* the busiest streams get lanes of their own, the rest share one */
	size_t own = keys.n;
	if (keys.n > TIMELINE_MAX_STREAMS) {
		qsort(keys.v, keys.n, sizeof *keys.v, cmp_busy);
		own = TIMELINE_MAX_STREAMS - 1;
	}
	if (own)
		qsort(keys.v, own, sizeof *keys.v, cmp_key);
	for (size_t k = 0; k < own; k++) {
		bool comm = keys.v[k].key & 1;
		int32_t stream = (int32_t)((keys.v[k].key - comm) / 2);
		struct tl_lane *l = new_lane(tl, comm ? TL_COMM : TL_STREAM, stream, TRACE_NONE);
		fill_acts(tl, c, l, ar, &keys.v[k], 1);
	}
	if (keys.n > own) {
		struct tl_lane *l = new_lane(tl, TL_STREAMS, -1, TRACE_NONE);
		fill_acts(tl, c, l, ar, &keys.v[own], keys.n - own);
	}
	vec_free(&keys);
	free(ar);
}

static bool is_call(const struct trace_range *r)
{
	return r->kind == TR_RUNTIME || r->kind == TR_DRIVER;
}

static uint32_t site_name(struct timeline *tl, const struct actx *c, uint32_t ri)
{
	uint32_t s = actx_site(c, ri);
	return s == TRACE_NONE || s == ri ? UINT32_MAX : intern_name(tl, c->t, c->t->r[s].name);
}

/* Names the segments of lane l from what they refer to, interning only the
 * names drawn (a lane's members merged below a pixel are not named). */
static void resolve_names(struct timeline *tl, const struct actx *c, struct famcache *fc, struct tl_lane *l)
{
	const struct trace *t = c->t;
	for (size_t i = 0; i < l->n; i++) {
		struct tl_seg *g = &l->seg[i];
		if (l->kind == TL_IDLE) {
			g->name = g->name2 = UINT32_MAX;
		} else if (l->kind == TL_FRAMES || l->kind == TL_CALLS) {
			g->name = intern_name(tl, t, t->r[g->ref].name);
			g->name2 = site_name(tl, c, g->ref);
		} else {
			const struct trace_act *a = &t->act[g->ref];
			g->name = family(tl, t, fc, a);
			g->name2 = intern_name(tl, t, a->name);
		}
	}
}

static void frames_lane(struct timeline *tl, const struct actx *c, uint32_t th)
{
	const struct trace *t = c->t;
	struct tl_lane *l = new_lane(tl, TL_FRAMES, -1, th);
	struct filler f;
	filler_init(&f, l, tl->px);
	struct trace_wsweep s;
	gf_ns a, b;
	uint32_t r;
	struct item cur = { 0, 0, -1, UINT32_MAX, UINT32_MAX, TRACE_NONE, 0 };
	trace_wsweep_init(&s, &c->walk, th, tl->lo, tl->hi);
	while (trace_wsweep_next(&s, &a, &b, &r)) {
		while (r != TRACE_NONE && is_call(&t->r[r]))
			r = actx_nonrt_parent(c, r);
		if (r != TRACE_NONE && (t->r[r].flags & TRF_STEP))
			r = TRACE_NONE;
		if (cur.ref == r && cur.hi == a && r != TRACE_NONE) {
			cur.hi = b;
			continue;
		}
		if (cur.ref != TRACE_NONE)
			offer(&f, &cur);
		cur.ref = r;
		cur.lo = a;
		cur.hi = b;
		if (r != TRACE_NONE) {
			cur.name = t->r[r].name;
			cur.name2 = UINT32_MAX;
			cur.cls = t->r[r].kind;
		}
	}
	if (cur.ref != TRACE_NONE)
		offer(&f, &cur);
	trace_wsweep_release(&s);
	flush(&f);
}

static void call_item(struct timeline *tl, const struct actx *c, struct filler *f, uint32_t i)
{
	const struct trace *t = c->t;
	const struct trace_range *r = &t->r[i];
	struct item it = { r->start > tl->lo ? r->start : tl->lo, r->end < tl->hi ? r->end : tl->hi, -1,
			   r->name, UINT32_MAX, i, TLC_OTHER };
	if (actx_blocking(c, i))
		it.cls = TLC_BLOCKING;
	else if (r->flags & TRF_LAUNCH)
		it.cls = TLC_LAUNCH;
	uint32_t fa = c->first_act[i];
	if ((r->flags & TRF_LAUNCH) && fa != TRACE_NONE)
		it.aux = t->act[fa].start - r->start;
	offer(f, &it);
}

static void calls_lane(struct timeline *tl, const struct actx *c, uint32_t th)
{
	const struct trace *t = c->t;
	struct tl_lane *l = new_lane(tl, TL_CALLS, -1, th);
	struct filler f;
	filler_init(&f, l, tl->px);
	/* a call open at the window's start (the outermost call around it),
	 * then the outermost calls starting inside the window */
	uint32_t open = TRACE_NONE;
	for (uint32_t o = trace_walk_innermost(&c->walk, th, tl->lo); o != TRACE_NONE; o = t->r[o].parent)
		if (is_call(&t->r[o]) && t->r[o].start < tl->lo)
			open = o;
	uint32_t end = t->th[th].first + t->th[th].n;
	if (open != TRACE_NONE)
		call_item(tl, c, &f, open);
	for (uint32_t i = trace_range_lower(t, th, tl->lo); i < end && t->r[i].start < tl->hi; i++) {
		const struct trace_range *r = &t->r[i];
		if (is_call(r) && (r->parent == TRACE_NONE || !is_call(&t->r[r->parent])))
			call_item(tl, c, &f, i);
	}
	flush(&f);
}

void timeline_build(const struct actx *c, const struct steps_result *st, const struct gaps_result *gp, size_t row,
		    unsigned width_px, struct timeline *tl)
{
	const struct trace *t = c->t;
	memset(tl, 0, sizeof *tl);
	tl->names = pool_new();
	tl->row = row;
	tl->lo = st->rows[row].start;
	tl->hi = st->rows[row].end;
	tl->width_px = width_px ? width_px : TIMELINE_WIDTH_PX;
	gf_ns wall = tl->hi > tl->lo ? tl->hi - tl->lo : 0;
	tl->px = wall / tl->width_px + (wall % tl->width_px != 0);
	if (tl->px < 1)
		tl->px = 1;
	tl->thread = TRACE_NONE;
	if (c->dev != TRACE_NONE)
		tl->thread = t->dev[c->dev].launch_thread;
	if (tl->thread == TRACE_NONE && st->rows[row].step != TRACE_NONE)
		tl->thread = t->steps[st->rows[row].step].thread;
	if (wall <= 0)
		return;
	if (c->dev != TRACE_NONE) {
		idle_lane(tl, gp);
		device_lanes(tl, c);
	}
	if (tl->thread != TRACE_NONE) {
		frames_lane(tl, c, tl->thread);
		calls_lane(tl, c, tl->thread);
	}
	struct famcache fc = { kfamily_new(), gf_xcalloc(pool_count(t->names) + 1, sizeof(uint32_t)), SBUF_INIT, SBUF_INIT };
	for (size_t k = 0; k < tl->nlane; k++)
		resolve_names(tl, c, &fc, &tl->lane[k]);
	kfamily_free(fc.kf);
	free(fc.of);
	sbuf_release(&fc.fam);
	sbuf_release(&fc.tmp);
}

void timeline_release(struct timeline *tl)
{
	for (size_t k = 0; k < tl->nlane; k++) {
		free(tl->lane[k].seg);
		free(tl->lane[k].parts);
	}
	free(tl->lane);
	pool_free(tl->names);
	memset(tl, 0, sizeof *tl);
}
