/* gaps.c — GPU idle time by the one rule, and the launch-bound diagnosis (see gaps.h). */
#include "trace/analysis/gaps.h"

#include "base/names.h"
#include "base/num.h"
#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

/* HTA's runtime_cutoff for "short GPU kernels". */
#define RUNTIME_CUTOFF_NS 50000
/* A launch call this long and this many times its name's median is
 * one-time work (first launch of a kernel, module load). */
#define WARM_CALL_NS 1000000
#define WARM_CALL_X 20
/* Graph replays whose work starts this long after the call: a deep queue. */
#define DEEP_QUEUE_NS 1000000

static int cmp_key(const void *a, const void *b)
{
	const struct gap_key *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* A host stack's or sync site's label: "site > inner" by name ids
 * (UINT32_MAX: none). */
static void host_label(const struct trace *t, uint64_t key, struct sbuf *b)
{
	uint32_t a = (uint32_t)(key >> 32), z = (uint32_t)key;
	sbuf_addstr(b, a == UINT32_MAX ? "[no Python frame]" : pool_str(t->names, a));
	if (z != UINT32_MAX) {
		sbuf_addstr(b, " > ");
		sbuf_addstr(b, pool_str(t->names, z));
	}
}

/* The keys of a map (its first sums), labelled, sorted by time then label. */
static struct gap_key *map_keys(const struct trace *t, struct actx_cmap *m, size_t *n)
{
	struct gap_key *k = gf_xcalloc(m->n ? m->n : 1, sizeof *k);
	size_t j = 0;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->s[i].used || m->s[i].a <= 0)
			continue;
		sbuf_reset(&b);
		host_label(t, m->s[i].key, &b);
		k[j].label = gf_xstrdup(b.buf);
		k[j].ns = m->s[i].a;
		j++;
	}
	sbuf_release(&b);
	actx_cmap_free(m);
	if (j)
		qsort(k, j, sizeof *k, cmp_key);
	*n = j;
	return k;
}

int64_t gaps_share(gf_ns part, gf_ns whole)
{
	int64_t v = 0;
	if (whole <= 0 || !num_muldiv(part, 10000, whole, &v))
		return 0;
	return v;
}

gf_ns gaps_mean(gf_ns x, size_t n)
{
	int64_t v = 0;
	if (!n || !num_muldiv(x, 1, (int64_t)n, &v))
		return 0;
	return v;
}

gf_ns gaps_idle(const struct gap_row *g)
{
	gf_ns s = 0;
	for (int k = 0; k < GAP_NCAUSES; k++)
		s += g->c[k];
	return s;
}

void gaps_stack(const struct trace *t, uint32_t ri, struct sbuf *b)
{
	uint32_t buf[GAPS_STACK_MAX];
	size_t depth = trace_ancestors(t, ri, buf, GAPS_STACK_MAX);
	size_t have = depth < GAPS_STACK_MAX ? depth : GAPS_STACK_MAX;
	bool first = true;
	if (depth > GAPS_STACK_MAX) {
		/* the outermost frames come from a walk up from the innermost kept */
		uint32_t top[8];
		size_t nt = 0;
		for (uint32_t q = buf[0]; q != TRACE_NONE; q = t->r[q].parent) {
			top[nt % 8] = q;
			nt++;
		}
		for (size_t i = nt > 8 ? 8 : nt; i-- > 0;) {
			uint32_t q = top[(nt - 1 - i) % 8];
			if (t->r[q].flags & TRF_STEP)
				continue;
			sbuf_addstr(b, first ? "" : " > ");
			sbuf_addstr(b, trace_rname(t, q));
			first = false;
		}
		sbuf_addstr(b, first ? "..." : " > ...");
		first = false;
	}
	for (size_t i = 0; i < have; i++) {
		if (t->r[buf[i]].flags & TRF_STEP)
			continue;
		sbuf_addstr(b, first ? "" : " > ");
		sbuf_addstr(b, trace_rname(t, buf[i]));
		first = false;
	}
}

/* ---- what the analysis derives once ---------------------------------- */

/* Per range: the class its stack says (innermost first), whether a Python
 * frame or an annotation is on it, whether it lies inside the profiler's
 * own frames. One forward pass (a parent comes before its children). */
struct rinfo {
	int8_t *cls;       /* enum host_class or HW_NONE, inherited */
	uint8_t *flags;    /* RI_* */
};
#define RI_PY 1u
#define RI_PROF 2u
#define RI_ISSUES 4u

static int hw_class(enum names_hwork w)
{
	switch (w) {
	case NAMES_HW_ALLOCATOR: return HW_ALLOCATOR;
	case NAMES_HW_WARMUP: return HW_WARMUP;
	case NAMES_HW_DATA: return HW_DATA;
	default: return HW_NONE;
	}
}

static void rinfo_init(const struct trace *t, struct rinfo *ri)
{
	size_t n = t->nr ? t->nr : 1;
	uint32_t np = pool_count(t->names);
	/* per name: 0 unknown, else 1 + (class + 1) + 16 * profiler frame */
	uint8_t *nc = gf_xcalloc(np ? np : 1, 1);
	ri->cls = gf_xmalloc(n);
	ri->flags = gf_xcalloc(n, 1);
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		uint32_t p = r->parent;
		int cls = HW_NONE;
		uint8_t fl = 0;
		if (p != TRACE_NONE && p < i) {
			cls = ri->cls[p];
			fl = ri->flags[p];
		}
		if (r->kind == TR_PYTHON || (r->kind == TR_ANNOTATION && !(r->flags & TRF_STEP)))
			fl |= RI_PY;
		int own = HW_NONE;
		if (r->name < np) {
			if (!nc[r->name]) {
				const char *s = pool_str(t->names, r->name);
				size_t l = pool_len(t->names, r->name);
				int k = hw_class(names_host_work(s, l));
				nc[r->name] = (uint8_t)(1 + (k + 1) + (names_profiler_frame(s, l) ? 16 : 0));
			}
			own = (int)((nc[r->name] - 1) & 15) - 1;
			if ((nc[r->name] - 1) & 16)
				fl |= RI_PROF;
		}
		if (own != HW_NONE)
			cls = own;
		ri->cls[i] = (int8_t)cls;
		ri->flags[i] = fl & (uint8_t)~RI_ISSUES;
	}
	free(nc);
	/* a range issues device work when a launch call lies inside it: children
	 * come after their parents, so one backward pass */
	for (uint32_t i = t->nr; i-- > 0;) {
		if (t->r[i].flags & TRF_LAUNCH)
			ri->flags[i] |= RI_ISSUES;
		uint32_t p = t->r[i].parent;
		if ((ri->flags[i] & RI_ISSUES) && p != TRACE_NONE && p < i)
			ri->flags[p] |= RI_ISSUES;
	}
}

static void rinfo_release(struct rinfo *ri)
{
	free(ri->cls);
	free(ri->flags);
}

/* The class of host work of range r (the innermost open range on T). */
static int host_class(const struct rinfo *ri, uint32_t r)
{
	int k = ri->cls[r];
	if (k != HW_NONE)
		return k;
	return (ri->flags[r] & RI_PY) ? HW_PYTHON : HW_OTHER;
}

/* Per launch call (TRF_LAUNCH runtime/driver range): the latest wait-event
 * call on its thread after the thread's previous launch call and at or
 * before it (thread order is by start), else TRACE_NONE: one pass per
 * thread, names classified once per pool id. */
static uint32_t *waits_before(const struct trace *t)
{
	uint32_t np = pool_count(t->names);
	uint8_t *cls = gf_xcalloc(np ? np : 1, 1); /* 0 unknown, 1 no, 2 a wait call */
	uint32_t *w = gf_xmalloc((t->nr ? t->nr : 1) * sizeof *w);
	for (uint32_t k = 0; k < t->nth; k++) {
		uint32_t last = TRACE_NONE;
		for (uint32_t i = t->th[k].first; i < t->th[k].first + t->th[k].n; i++) {
			const struct trace_range *x = &t->r[i];
			w[i] = TRACE_NONE;
			if (x->kind != TR_RUNTIME && x->kind != TR_DRIVER)
				continue;
			if (x->flags & TRF_LAUNCH) {
				w[i] = last;
				last = TRACE_NONE;
				continue;
			}
			if (x->name >= np)
				continue;
			if (!cls[x->name])
				cls[x->name] = (names_api(pool_str(t->names, x->name), pool_len(t->names, x->name)) &
						NAMES_API_WAIT) ? 2 : 1;
			if (cls[x->name] == 2)
				last = i;
		}
	}
	free(cls);
	return w;
}

struct nd {
	uint32_t name;
	gf_ns dur;
};

static int cmp_nd(const void *a, const void *b)
{
	const struct nd *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return (x->dur > y->dur) - (x->dur < y->dur);
}

/* The median duration of the launch calls of every name that has a call
 * of at least WARM_CALL_NS (the only ones the warm-up test reads), by pool
 * id (0 for the others): two passes, the long names' calls sorted. */
static gf_ns *long_medians(const struct trace *t)
{
	uint32_t np = pool_count(t->names);
	gf_ns *med = gf_xcalloc(np ? np : 1, sizeof *med);
	uint8_t *mark = gf_xcalloc(np ? np : 1, 1);
	size_t cnt = 0;
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *x = &t->r[i];
		if ((x->flags & TRF_LAUNCH) && x->end - x->start >= WARM_CALL_NS && x->name < np)
			mark[x->name] = 1;
	}
	for (uint32_t i = 0; i < t->nr; i++)
		if ((t->r[i].flags & TRF_LAUNCH) && t->r[i].name < np && mark[t->r[i].name])
			cnt++;
	if (cnt) {
		struct nd *v = gf_xmalloc(cnt * sizeof *v);
		size_t n = 0;
		for (uint32_t i = 0; i < t->nr; i++) {
			const struct trace_range *x = &t->r[i];
			if ((x->flags & TRF_LAUNCH) && x->name < np && mark[x->name])
				v[n++] = (struct nd){ x->name, x->end - x->start };
		}
		qsort(v, n, sizeof *v, cmp_nd);
		for (size_t a = 0; a < n;) {
			size_t b = a;
			while (b < n && v[b].name == v[a].name)
				b++;
			size_t m = b - a;
			med[v[a].name] = m % 2 ? v[a + m / 2].dur : (v[a + m / 2 - 1].dur + v[a + m / 2].dur) / 2;
			a = b;
		}
		free(v);
	}
	free(mark);
	return med;
}

/* ---- the classification --------------------------------------------- */

enum { GC_HTA_HOST = GAP_NCAUSES, GC_HTA_KERNEL, GC_HTA_OTHER, GC_N };

struct bend {
	gf_ns end;
	uint32_t ri;
};

static int cmp_bend(const void *a, const void *b)
{
	const struct bend *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->ri > y->ri) - (x->ri < y->ri);
}

/* What the classification reads that needs no steps (gaps_prepare). */
struct gaps_prep {
	struct bend *be;            /* blocking calls by end */
	size_t nbe;
	bool dev;                   /* a device is analysed: the rest is made */
	struct rinfo ri;
	uint32_t *wait_of;
	gf_ns *lmed;                /* long_medians */
	/* the device's activities by start, and the earliest launch return
	 * among da[k..] (INT64_MAX: none has a call) and which */
	uint32_t *da;
	size_t nda;
	gf_ns *qmin;
	uint32_t *qarg;
};

struct gctx {
	const struct actx *c;
	const struct trace *t;
	struct gaps_prep pre;       /* the analysis owns it */
	uint8_t *devth;             /* per thread: launches the device's work or holds a step */
	struct actx_pairs zone;     /* traced work of those threads at the edges */
	struct actx_pairs p[GC_N];
	struct actx_span steady, sel;
	struct actx_span_cur steady_cur, sel_cur; /* piece()'s queries, in time order */
	bool same_span;             /* every selected step is steady: steady = sel */
	/* the charges by (cause, class, id), before keys_of orders them: a
	 * range's (host, sync and launch pieces: the range gives the cause and
	 * the class) summed in its slot; the others one per run of pieces */
	VEC(struct craw) charges;   /* the ranges' */
	uint32_t *rslot;            /* per range: its index in charges + 1, 0 */
	VEC(struct craw) other;     /* queued and untraced: runs merged */
	struct actx_cmap qmap;           /* queued label key -> index + 1 (in a) */
	VEC(struct gap_qlabel) ql;
	struct actx_cmap drained;        /* drain site key -> steady host time after it */
	VEC(struct gap_call) calls;
	gf_ns edge_sel;
	gf_ns by_class[GAP_NCAUSES][HW_NCLASSES];
	gf_ns by_class_short[GAP_NCAUSES][HW_NCLASSES];
	bool short_gap;             /* the gap being classified is shorter than GAPS_SHORT_NS */
	bool keep;
	VEC(struct gap_piece) pieces;
	VEC(struct gap_gap) gaps;
	size_t gap_j;               /* index of the gap being classified (keep) */
	struct trace_wsweep sw;     /* charge_thread's sweep, its stack reused */
	uint32_t *hint;             /* per thread: where its last sweep started */
	size_t da_cur;              /* da_lower's last answer (gaps come in time order) */
	uint64_t qkey;              /* qlabel's last key and its label + 1 (0: none) */
	uint32_t qlast;
	void (*ready)(void *);      /* gaps_analyze_unscanned's */
	void *ready_arg;
	/* the step rows: when the steps do not overlap (the usual case), each
	 * piece adds its time to the steps it meets as it is made (a cursor:
	 * pieces come in time order); else it is kept in p[] and step_rows
	 * measures each step there */
	bool direct;
	const struct steps_result *st;
	struct gap_row *rows;
	size_t scur;
};

/* A piece's charge before the charges are merged (keys_of). */
struct craw {
	uint64_t key;
	gf_ns a, b;
};

static uint64_t charge_key(int cause, int cls, uint32_t id)
{
	return (uint64_t)cause << 56 | (uint64_t)(cls + 1) << 48 | id;
}

/* A cause whose charges are by range (id: the range in time), the range
 * giving the cause and the class: host, sync, launch. */
static bool range_cause(int cause)
{
	return cause == GAP_HOST || cause == GAP_SYNC || cause == GAP_LAUNCH;
}

/* The cell of a step's row for cause or HTA category K (GC_*). */
static gf_ns *row_cell(struct gap_row *x, int k)
{
	if (k < GAP_NCAUSES)
		return &x->c[k];
	return k == GC_HTA_HOST ? &x->hta_host : k == GC_HTA_KERNEL ? &x->hta_kernel : &x->hta_other;
}

/* [lo, hi) of cause or HTA category K (GC_*) into the step rows: straight
 * into the steps it meets (direct; calls come in time order), else kept. */
static void span_add(struct gctx *g, int k, gf_ns lo, gf_ns hi)
{
	if (hi <= lo)
		return;
	if (!g->direct || GF_CHECKS) /* the checked builds keep both, step_rows compares */
		actx_pairs_add(&g->p[k], lo, hi);
	if (!g->direct)
		return;
	const struct step_row *rw = g->st->rows;
	size_t n = g->st->n;
	/* the steps are apart and in order: one ending by lo is behind every later call */
	while (g->scur < n && (rw[g->scur].end <= lo || rw[g->scur].end <= rw[g->scur].start))
		g->scur++;
	for (size_t i = g->scur; i < n && rw[i].start < hi; i++) {
		gf_ns a = GF_MAX(lo, rw[i].start), b = GF_MIN(hi, rw[i].end);
		if (b <= a)
			continue;
		*row_cell(&g->rows[i], k) += b - a;
	}
}

/* Adds [lo, hi) with its cause and class to the lists, the charges and the
 * pieces. */
static void piece(struct gctx *g, int cause, int cls, gf_ns lo, gf_ns hi, uint32_t ri, uint32_t id, uint32_t act,
		  uint32_t q, uint32_t drain)
{
	if (hi <= lo)
		return;
	span_add(g, cause, lo, hi);
	gf_ns s = actx_span_in_near(&g->sel, &g->sel_cur, lo, hi);
	gf_ns w = g->same_span ? s : actx_span_in_near(&g->steady, &g->steady_cur, lo, hi);
	if (cause == GAP_QUEUED) {
		g->ql.v[q].sel += s;
		g->ql.v[q].steady += w;
	}
	if (cause == GAP_EDGE)
		g->edge_sel += s;
	else if (s || w)
	{
		uint64_t key = charge_key(cause, cls, id);
		if (range_cause(cause) && id < g->t->nr) {
			uint32_t *sl = &g->rslot[id];
			if (*sl) {
				GF_ASSERT(g->charges.v[*sl - 1].key == key); /* one cause and class a range */
				g->charges.v[*sl - 1].a += s;
				g->charges.v[*sl - 1].b += w;
			} else {
				struct craw x = { key, s, w };
				vec_push(&g->charges, x);
				*sl = (uint32_t)g->charges.n;
			}
		} else if (g->other.n && g->other.v[g->other.n - 1].key == key) {
			/* consecutive pieces often share a key; the rest is sorted once */
			g->other.v[g->other.n - 1].a += s;
			g->other.v[g->other.n - 1].b += w;
		} else {
			struct craw x = { key, s, w };
			vec_push(&g->other, x);
		}
	}
	if (cls >= 0 && cls < HW_NCLASSES) {
		g->by_class[cause][cls] += w;
		if (g->short_gap)
			g->by_class_short[cause][cls] += w;
	}
	if (g->keep) {
		struct gap_piece x = { lo, hi, (uint32_t)g->gap_j, ri, act, q, drain, (uint8_t)cause, (int8_t)cls };
		struct gap_piece *l = g->pieces.n ? &g->pieces.v[g->pieces.n - 1] : NULL;
		/* a sweep may cut one state in two (a child of no time opened) */
		if (l && l->hi == lo && l->gap == x.gap && l->ri == ri && l->act == act && l->q == q && l->drain == drain &&
		    l->cause == x.cause && l->hclass == x.hclass)
			l->hi = hi;
		else
			vec_push(&g->pieces, x);
	}
}

/* The sync site key of blocking call B (sync_sites' label). */
static uint64_t site_key(const struct actx *c, uint32_t B)
{
	uint32_t site = actx_site(c, B);
	return site == TRACE_NONE ? (uint64_t)UINT32_MAX << 32 | c->t->r[B].name
				  : (uint64_t)c->t->r[site].name << 32 | UINT32_MAX;
}

/* The host stack key of range ri (host_stacks' label: site > innermost). */
static uint64_t stack_key(const struct actx *c, uint32_t ri)
{
	uint32_t site = actx_site(c, ri);
	uint32_t sn = site == TRACE_NONE ? UINT32_MAX : c->t->r[site].name;
	uint32_t in = site == ri ? UINT32_MAX : c->t->r[ri].name;
	return (uint64_t)sn << 32 | in;
}

void gaps_piece_label(const struct actx *c, const struct gaps_result *r, const struct gap_piece *p, struct sbuf *b)
{
	const struct trace *t = c->t;
	if (p->cause == GAP_QUEUED) {
		if (p->q < r->nqlabels)
			sbuf_addstr(b, r->qlabels[p->q].label);
		return;
	}
	if (p->ri == TRACE_NONE || p->ri >= t->nr)
		return;
	if (p->cause == GAP_SYNC) {
		host_label(t, site_key(c, p->ri), b);
	} else if (p->cause == GAP_HOST) {
		host_label(t, stack_key(c, p->ri), b);
	}
}

/* One segment [a, b) of T with innermost open range r (TRACE_NONE: none)
 * outside the queue: launch, sync, host, untraced, or edge in an edge zone
 * where no thread of the step is in traced work. */
static void charge_segment(struct gctx *g, uint32_t th, uint32_t r, gf_ns a, gf_ns b, bool zone,
			   uint32_t drain)
{
	const struct trace *t = g->t;
	bool traced = r != TRACE_NONE && !(t->r[r].flags & TRF_STEP) && !(zone && (g->pre.ri.flags[r] & RI_PROF));
	if (!traced) {
		if (!zone) {
			piece(g, GAP_UNTRACED, HW_NONE, a, b, TRACE_NONE, th, TRACE_NONE, 0, TRACE_NONE);
			return;
		}
		/* edge where no thread of the step is in traced work */
		gf_ns x = a;
		while (x < b) {
			gf_ns in = actx_pairs_in(&g->zone, x, b);
			if (!in) {
				piece(g, GAP_EDGE, HW_NONE, x, b, TRACE_NONE, 0, TRACE_NONE, 0, TRACE_NONE);
				return;
			}
			/* the first covered point after x: binary search on the
			 * pairs (few at the edges) */
			size_t lo = 0, hi = g->zone.n;
			while (lo < hi) {
				size_t m = lo + (hi - lo) / 2;
				if (g->zone.v[2 * m + 1] <= x)
					lo = m + 1;
				else
					hi = m;
			}
			gf_ns cs = g->zone.v[2 * lo] > x ? g->zone.v[2 * lo] : x;
			gf_ns ce = g->zone.v[2 * lo + 1] < b ? g->zone.v[2 * lo + 1] : b;
			piece(g, GAP_EDGE, HW_NONE, x, cs, TRACE_NONE, 0, TRACE_NONE, 0, TRACE_NONE);
			piece(g, GAP_UNTRACED, HW_NONE, cs, ce, TRACE_NONE, th, TRACE_NONE, 0, TRACE_NONE);
			x = ce;
		}
		return;
	}
	const struct trace_range *R = &t->r[r];
	bool call = R->kind == TR_RUNTIME || R->kind == TR_DRIVER;
	if (call && g->c->blk[r]) {
		int cls = g->pre.ri.cls[r] == HW_ALLOCATOR ? HW_ALLOCATOR : g->pre.ri.cls[r] == HW_WARMUP ? HW_WARMUP : HW_SYNC;
		piece(g, GAP_SYNC, cls, a, b, r, r, TRACE_NONE, 0, TRACE_NONE);
		return;
	}
	if (call && (R->flags & TRF_LAUNCH)) {
		gf_ns d = R->end - R->start, m = R->name < pool_count(t->names) ? g->pre.lmed[R->name] : 0;
		bool warm = g->pre.ri.cls[r] == HW_WARMUP ||
			    (d >= WARM_CALL_NS && m > 0 && (__int128)d >= (__int128)m * WARM_CALL_X);
		piece(g, GAP_LAUNCH, warm ? HW_WARMUP : HW_LAUNCH, a, b, r, r, TRACE_NONE, 0, TRACE_NONE);
		return;
	}
	uint32_t dr = drain != TRACE_NONE && b > t->r[drain].end ? drain : TRACE_NONE;
	piece(g, GAP_HOST, host_class(&g->pre.ri, r), a, b, r, r, TRACE_NONE, 0, dr);
	if (dr != TRACE_NONE) {
		gf_ns w = actx_span_in(&g->steady, a, b);
		if (w)
			actx_cmap_add(&g->drained, site_key(g->c, dr), w, 0);
	}
}

/* [lo, hi) outside the queue: the state of T through it. */
static void charge_thread(struct gctx *g, uint32_t th, gf_ns lo, gf_ns hi, bool zone, uint32_t drain)
{
	const struct trace *t = g->t;
	if (th == TRACE_NONE || th >= t->nth || !t->th[th].n) {
		charge_segment(g, th, TRACE_NONE, lo, hi, zone, drain);
		return;
	}
	gf_ns a, b;
	uint32_t r;
	/* O(log depth) to start: one sweep per gap stays linear on deep stacks;
	 * the gaps come in time order, so the search starts at the last one's */
	trace_wsweep_restart(&g->sw, &g->c->walk, th, lo, hi, &g->hint[th]);
	while (trace_wsweep_next(&g->sw, &a, &b, &r))
		charge_segment(g, th, r, a, b, zone, drain);
}

/* The label of queued work X (launched by call LX), in a gap [af, bf). */
static uint32_t qlabel(struct gctx *g, uint32_t X, gf_ns af, gf_ns bf)
{
	const struct trace *t = g->t;
	const struct trace_act *x = &t->act[X];
	uint32_t LX = x->launch, w = g->pre.wait_of[LX];
	int kind;
	uint32_t hi;
	if (w != TRACE_NONE) {
		kind = GQ_WAIT;
		hi = t->r[w].name;
	} else if (x->start - t->r[LX].end < ACTX_KERNEL_WAIT_NS) {
		kind = GQ_LATENCY;
	} else if (af != INT64_MIN && bf - af < ACTX_KERNEL_WAIT_NS && t->r[LX].end <= af) {
		kind = GQ_B2B;
	} else {
		kind = GQ_NONE;
	}
	if (kind != GQ_WAIT)
		hi = UINT32_MAX - 3 + (uint32_t)kind;
	uint64_t key = (uint64_t)hi << 32 | (uint32_t)x->stream;
	if (g->qlast && g->qkey == key)
		return g->qlast - 1; /* consecutive queued pieces mostly share one */
	struct actx_cslot *s = actx_cmap_get(&g->qmap, key);
	if (!s->a) {
		struct sbuf b = SBUF_INIT;
		long long st = x->stream;
		switch (kind) {
		case GQ_WAIT: sbuf_addf(&b, "%s (stream %lld)", pool_str(t->names, hi), st); break;
		case GQ_LATENCY: sbuf_addf(&b, "launch latency (stream %lld)", st); break;
		case GQ_B2B: sbuf_addf(&b, "back-to-back on stream %lld", st); break;
		default: sbuf_addf(&b, "stream %lld: no wait in the trace", st); break;
		}
		struct gap_qlabel q = { sbuf_detach(&b, NULL), kind, 0, 0 };
		vec_push(&g->ql, q);
		s->a = (gf_ns)g->ql.n;
	}
	g->qkey = key;
	g->qlast = (uint32_t)s->a;
	return (uint32_t)(s->a - 1);
}

static void charge_queued(struct gctx *g, uint32_t X, gf_ns lo, gf_ns hi, gf_ns af, gf_ns bf)
{
	if (hi <= lo)
		return;
	uint32_t q = qlabel(g, X, af, bf);
	piece(g, GAP_QUEUED, HW_NONE, lo, hi, g->t->act[X].launch, q, X, q, TRACE_NONE);
}

/* The blocking call that drained the device into the gap at af: B.start <
 * af <= B.end <= h, the smallest end, then the lowest index (be is sorted
 * so); only the calls ending in [af, h] are looked at. TRACE_NONE. */
static uint32_t drain_call(const struct gctx *g, gf_ns af, gf_ns h)
{
	size_t lo = 0, hi = g->pre.nbe;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (g->pre.be[m].end < af)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t k = lo; k < g->pre.nbe && g->pre.be[k].end <= h; k++)
		if (g->t->r[g->pre.be[k].ri].start < af)
			return g->pre.be[k].ri;
	return TRACE_NONE;
}

/* The first activity on the device starting at bf: one with a launch call
 * first, then the lowest index; TRACE_NONE. */
static uint32_t next_act(const struct gctx *g, size_t k0, gf_ns bf)
{
	uint32_t first = TRACE_NONE;
	for (size_t k = k0; k < g->pre.nda && g->t->act[g->pre.da[k]].start == bf; k++) {
		uint32_t a = g->pre.da[k];
		if (first == TRACE_NONE)
			first = a;
		if (g->t->act[a].launch != TRACE_NONE)
			return a;
	}
	return first;
}

/* The first index of da whose activity starts at or after ts: a gallop
 * from the last answer when ts has not gone back, else a binary search. */
static size_t da_lower(struct gctx *g, gf_ns ts)
{
	size_t lo = 0, hi = g->pre.nda;
	size_t k = g->da_cur;
	if (k <= g->pre.nda && (k == 0 || g->t->act[g->pre.da[k - 1]].start < ts)) {
		size_t step = 1;
		lo = hi = k;
		while (hi < g->pre.nda && g->t->act[g->pre.da[hi]].start < ts) {
			lo = hi + 1;
			hi = g->pre.nda - hi > step ? hi + step : g->pre.nda;
			step *= 2;
		}
	}
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (g->t->act[g->pre.da[m]].start < ts)
			lo = m + 1;
		else
			hi = m;
	}
	g->da_cur = lo;
	return lo;
}

/* The thread holding the step marker whose window holds ts, else the
 * device's launching thread. */
static uint32_t step_thread(const struct gctx *g, gf_ns ts)
{
	const struct trace *t = g->t;
	uint32_t s = trace_step_at(t, ts);
	if (s != TRACE_NONE)
		return t->steps[s].thread;
	return g->c->dev == TRACE_NONE ? TRACE_NONE : t->dev[g->c->dev].launch_thread;
}

/* The bubble of blocking call B that drained the device at af, the next
 * work issued at h. */
static void bubble(struct gctx *g, uint32_t B, gf_ns af, gf_ns h)
{
	const struct trace_range *R = &g->t->r[B];
	gf_ns busy = actx_busy_in(g->c, R->start, af);
	gf_ns len = h - af < busy ? h - af : busy;
	gf_ns in = actx_span_in(&g->sel, af, af + len);
	gf_ns be = R->end > af ? R->end : af;
	gf_ns after = be < h ? actx_span_in(&g->sel, be, h) : 0;
	/* one gap per call: B.end lies in exactly one gap's [a, h] */
	if (in) {
		struct gap_call x = { B, in, after, actx_span_in(&g->steady, af, af + len) };
		vec_push(&g->calls, x);
	}
}

/* Classifies the idle gap [af, bf) (busy pair ends and starts; INT64_MIN /
 * INT64_MAX at the trace's ends), as far as [cur, e) (the steps' span):
 * the rule of gaps.h. */
static void gap_classify(struct gctx *g, gf_ns af, gf_ns bf, gf_ns cur, gf_ns e)
{
	const struct trace *t = g->t;
	bool finite = af != INT64_MIN && bf != INT64_MAX;
	size_t k0 = bf == INT64_MAX ? g->pre.nda : da_lower(g, bf);
	uint32_t N = bf == INT64_MAX ? TRACE_NONE : next_act(g, k0, bf);
	uint32_t L = N == TRACE_NONE ? TRACE_NONE : t->act[N].launch;
	/* HTA's rule */
	bool late = L != TRACE_NONE && t->r[L].start > af;
	bool full_short = finite && bf - af < ACTX_KERNEL_WAIT_NS;
	span_add(g, late ? GC_HTA_HOST : full_short ? GC_HTA_KERNEL : GC_HTA_OTHER, cur, e);
	size_t p0 = g->pieces.n;
	g->short_gap = finite && bf - af < GAPS_SHORT_NS;
	/* the queue: issued from q on (the earliest return among the work to come) */
	gf_ns q = k0 < g->pre.nda ? g->pre.qmin[k0] : INT64_MAX;
	uint32_t qa = k0 < g->pre.nda ? g->pre.qarg[k0] : TRACE_NONE;
	gf_ns h = q < bf ? q : bf;
	uint32_t B = af != INT64_MIN && h != INT64_MAX && h > af ? drain_call(g, af, h) : TRACE_NONE;
	if (B != TRACE_NONE)
		bubble(g, B, af, h);
	/* outside the queue: the state of T */
	gf_ns nq = q > cur ? (q < e ? q : e) : cur;
	if (nq > cur) {
		bool zone = !finite;
		if (bf != INT64_MAX && L == TRACE_NONE)
			piece(g, GAP_EDGE, HW_NONE, cur, nq, TRACE_NONE, 0, TRACE_NONE, 0, TRACE_NONE);
		else
			charge_thread(g, L != TRACE_NONE ? t->r[L].thread : step_thread(g, cur), cur, nq, zone, B);
	}
	/* the queue: named by N once N is issued, before that by the first issued */
	gf_ns q0 = q > cur ? q : cur;
	if (q0 < e && qa != TRACE_NONE && af == INT64_MIN) {
		/* before the device's first activity: what the queued work waits
		 * on is not in the trace */
		piece(g, GAP_EDGE, HW_NONE, q0, e, TRACE_NONE, 0, TRACE_NONE, 0, TRACE_NONE);
	} else if (q0 < e && qa != TRACE_NONE) {
		gf_ns ni = L != TRACE_NONE ? t->r[L].end : INT64_MAX;
		if (ni <= q0) {
			charge_queued(g, N, q0, e, af, bf);
		} else if (ni < e) {
			charge_queued(g, qa, q0, ni, af, bf);
			charge_queued(g, N, ni, e, af, bf);
		} else {
			charge_queued(g, qa, q0, e, af, bf);
		}
	}
	if (g->keep) {
		uint32_t prev = TRACE_NONE;
		if (af != INT64_MIN) {
			/* the activity that ended at af (the last one by start) */
			for (size_t k = k0; k-- > 0;)
				if (t->act[g->pre.da[k]].end == af) {
					prev = g->pre.da[k];
					break;
				} else if (k0 - k > 64) {
					break;
				}
		}
		struct gap_gap x = { af, bf, cur, e, 0, prev, N, L != TRACE_NONE ? t->r[L].thread : step_thread(g, cur),
				     p0, g->pieces.n - p0 };
		for (size_t i = p0; i < g->pieces.n; i++)
			x.idle += actx_span_in(&g->sel, g->pieces.v[i].lo, g->pieces.v[i].hi);
		vec_push(&g->gaps, x);
		g->gap_j++;
	}
}

/* Gap j of the device (0 <= j <= nbusy): [end of busy pair j-1, start of
 * pair j), unbounded at the ends. */
static gf_ns gap_af(const struct actx *c, size_t j)
{
	return j > 0 ? c->busy[2 * j - 1] : INT64_MIN;
}

static gf_ns gap_bf(const struct actx *c, size_t j)
{
	return j < c->nbusy ? c->busy[2 * j] : INT64_MAX;
}

/* The gaps meeting [lo, hi) (hi > lo) are among jf..jl. */
static void gap_span(const struct actx *c, gf_ns lo, gf_ns hi, size_t *jf, size_t *jl)
{
	size_t i = actx_busy_after(c, lo);
	*jf = (i < c->nbusy && c->busy[2 * i] <= lo) ? i + 1 : i;
	size_t l = 0, h = c->nbusy;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (c->busy[2 * m + 1] < hi)
			l = m + 1;
		else
			h = m;
	}
	*jl = l;
}

/* The device's activities by start and the suffix minimum of their calls'
 * returns. */
static void queue_init(const struct actx *c, struct gaps_prep *p)
{
	const struct trace *t = c->t;
	size_t n = 0;
	for (uint32_t a = 0; a < t->nact; a++)
		if (actx_on_dev(c, &t->act[a]))
			n++;
	p->da = gf_xmalloc((n ? n : 1) * sizeof *p->da);
	p->qmin = gf_xmalloc((n ? n : 1) * sizeof *p->qmin);
	p->qarg = gf_xmalloc((n ? n : 1) * sizeof *p->qarg);
	for (uint32_t a = 0; a < t->nact; a++)
		if (actx_on_dev(c, &t->act[a]))
			p->da[p->nda++] = a;
	gf_ns m = INT64_MAX;
	uint32_t arg = TRACE_NONE;
	for (size_t k = p->nda; k-- > 0;) {
		const struct trace_act *x = &t->act[p->da[k]];
		/* ties: the activity that starts first (the lower k) */
		if (x->launch != TRACE_NONE && t->r[x->launch].end <= m) {
			m = t->r[x->launch].end;
			arg = p->da[k];
		}
		p->qmin[k] = m;
		p->qarg[k] = arg;
	}
}

/* The threads of the step (they launch the device's work or hold a step),
 * and their traced work at the device's edges (before its first and after
 * its last activity, inside [slo, shi)). */
static void zone_init(struct gctx *g, gf_ns slo, gf_ns shi)
{
	const struct trace *t = g->t;
	const struct actx *c = g->c;
	g->devth = gf_xcalloc(t->nth ? t->nth : 1, 1);
	for (size_t k = 0; k < g->pre.nda; k++) {
		uint32_t L = t->act[g->pre.da[k]].launch;
		if (L != TRACE_NONE)
			g->devth[t->r[L].thread] = 1;
	}
	for (uint32_t s = 0; s < t->nsteps; s++)
		g->devth[t->steps[s].thread] = 1;
	gf_ns z[2][2] = { { slo, c->nbusy ? c->busy[0] : shi }, { c->nbusy ? c->busy[2 * c->nbusy - 1] : shi, shi } };
	VEC(gf_ns) v = VEC_INIT;
	for (int zi = 0; zi < 2; zi++) {
		gf_ns lo = z[zi][0], hi = z[zi][1];
		if (zi == 1 && lo < z[0][1])
			lo = z[0][1];
		if (hi <= lo)
			continue;
		for (uint32_t th = 0; th < t->nth; th++) {
			if (!g->devth[th] || !t->th[th].n)
				continue;
			struct trace_wsweep s;
			gf_ns a, b;
			uint32_t r;
			trace_wsweep_init(&s, &c->walk, th, lo, hi);
			while (trace_wsweep_next(&s, &a, &b, &r))
				if (r != TRACE_NONE && !(t->r[r].flags & TRF_STEP) && !(g->pre.ri.flags[r] & RI_PROF)) {
					vec_push(&v, a);
					vec_push(&v, b);
				}
			trace_wsweep_release(&s);
		}
	}
	/* sort the intervals by start, merge */
	size_t n = v.n / 2;
	struct actx_kv *kv = gf_xmalloc((n ? n : 1) * sizeof *kv);
	for (size_t i = 0; i < n; i++)
		kv[i] = (struct actx_kv){ v.v[2 * i], (uint64_t)v.v[2 * i + 1] };
	actx_sort_kv(kv, n);
	gf_ns ca = 0, cb = 0;
	bool open = false;
	for (size_t i = 0; i < n; i++) {
		gf_ns a = kv[i].k, b = (gf_ns)kv[i].v;
		if (open && a <= cb) {
			cb = b > cb ? b : cb;
			continue;
		}
		if (open)
			actx_pairs_add(&g->zone, ca, cb);
		ca = a;
		cb = b;
		open = true;
	}
	if (open)
		actx_pairs_add(&g->zone, ca, cb);
	actx_pairs_seal(&g->zone);
	free(kv);
	vec_free(&v);
}

/* ---- the launch diagnosis --------------------------------------------- */

/* The part that reads only the model and the steps' windows: the kernel
 * and launch-call counts and medians (report runs it on its second core
 * beside the classification). */
void gaps_launch_scan(const struct actx *c, const struct steps_result *st, struct launch_diag *ld)
{
	const struct trace *t = c->t;
	memset(ld, 0, sizeof *ld);
	/* Every activity and call counts once per steady step whose window
	 * holds its start (steps may overlap): weighted, so overlapping or
	 * nested steps cost O(n + threads log steps), not a copy per step. */
	struct actx_cover cv;
	actx_cover_init(&cv, st);
	VEC(struct actx_wval) kd = VEC_INIT;
	VEC(struct actx_wval) ldur = VEC_INIT;
	VEC(struct actx_wval) lat = VEC_INIT;
	uint64_t nkd = 0, nldur = 0, nlat = 0;
	struct actx_cover_sweep sa = { 0 }, sr = { 0 };
	if (c->dev != TRACE_NONE && cv.n) {
		for (uint32_t k = 0; k < t->nact; k++) {
			const struct trace_act *a = &t->act[k];
			if (!actx_on_dev(c, a) || a->kind != TA_KERNEL)
				continue;
			uint64_t w = actx_cover_next(&cv, &sa, a->start);
			if (!w)
				continue;
			struct actx_wval x = { a->end - a->start, w };
			vec_push(&kd, x);
			nkd += w;
			if (a->launch == TRACE_NONE || (a->flags & TAF_GRAPH))
				continue;
			const struct trace_range *l = &t->r[a->launch];
			ld->compared += w;
			gf_ns cd = l->end - l->start;
			if (cd <= RUNTIME_CUTOFF_NS && a->end - a->start < cd)
				ld->short_kernels += w;
		}
	}
	for (uint32_t k = 0; k < t->nr && cv.n; k++) {
		const struct trace_range *x = &t->r[k];
		if (!(x->flags & TRF_LAUNCH) || (x->kind != TR_RUNTIME && x->kind != TR_DRIVER))
			continue;
		uint64_t w = actx_cover_next(&cv, &sr, x->start);
		if (!w)
			continue;
		uint32_t fa = c->first_act[k];
		if (fa != TRACE_NONE && actx_on_dev(c, &t->act[fa])) {
			struct actx_wval z = { t->act[fa].start - x->start, w };
			vec_push(&lat, z);
			nlat += w;
		}
		if (x->flags & TRF_GRAPH) {
			ld->graph_launches += w;
			continue;
		}
		struct actx_wval y = { x->end - x->start, w };
		vec_push(&ldur, y);
		nldur += w;
	}
	actx_cover_release(&cv);
	ld->kernels = nkd;
	ld->launch_calls = nldur;
	ld->median_kernel = actx_wmedian(kd.v, kd.n);
	ld->median_launch = actx_wmedian(ldur.v, ldur.n);
	ld->median_latency = actx_wmedian(lat.v, lat.n);
	ld->latency_launches = nlat;
	ld->graphs = ld->graph_launches > 0;
	ld->most_short = ld->compared && 2 * ld->short_kernels > ld->compared;
	vec_free(&kd);
	vec_free(&ldur);
	vec_free(&lat);
}

/* The rest, from the scan and the classification. */
void gaps_launch_finish(struct gaps_result *r, const struct steps_result *st, const struct launch_diag *scan)
{
	struct launch_diag *ld = &r->ld;
	*ld = *scan;
	ld->kernels_per_step = (gf_ns)st->steady.kernels;
	ld->launches_per_step = (gf_ns)st->steady.launches;
	/* launch-bound: time inside launch calls plus the launch latency of
	 * queued work is the largest part of the idle time, the GPU is busy
	 * under 80% of the step, the kernels are short, and the step is not
	 * graph replays whose work was queued deep already */
	gf_ns lat_q = 0;
	for (size_t i = 0; i < r->nqlabels; i++)
		if (r->qlabels[i].kind == GQ_LATENCY)
			lat_q += r->qlabels[i].steady;
	ld->latency_queued = gaps_mean(lat_q, r->nsteady);
	const struct step_row *s = &st->steady;
	const gf_ns *v = r->steady_sum.c;
	gf_ns lw = v[GAP_LAUNCH] + lat_q;
	bool largest = lw > 0;
	for (int k = 0; k < GAP_NCAUSES && largest; k++) {
		gf_ns o = k == GAP_QUEUED ? v[k] - lat_q : v[k];
		if (k != GAP_LAUNCH && o >= lw)
			largest = false;
	}
	bool low_busy = (__int128)s->busy * 5 < (__int128)s->wall * 4;
	bool short_k = ld->kernels && ld->launch_calls && ld->median_kernel < ld->median_launch;
	if (ld->graphs && !ld->launch_calls)
		short_k = ld->kernels_per_step > 0 && ld->median_kernel < ACTX_KERNEL_WAIT_NS;
	ld->deep_queue = ld->graphs && ld->latency_launches && ld->median_latency >= DEEP_QUEUE_NS;
	ld->launch_bound = largest && low_busy && short_k && !ld->deep_queue;
}

/* ---- the analysis ------------------------------------------------------ */

static int cmp_call(const void *a, const void *b)
{
	const struct gap_call *x = a, *y = b;
	return (x->ri > y->ri) - (x->ri < y->ri);
}

const struct gap_call *gaps_call(const struct gaps_result *r, uint32_t ri)
{
	size_t lo = 0, hi = r->ncalls;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (r->calls[m].ri < ri)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < r->ncalls && r->calls[lo].ri == ri ? &r->calls[lo] : NULL;
}

static void row_add(struct gap_row *s, const struct gap_row *g)
{
	for (int k = 0; k < GAP_NCAUSES; k++)
		s->c[k] += g->c[k];
	s->hta_host += g->hta_host;
	s->hta_kernel += g->hta_kernel;
	s->hta_other += g->hta_other;
}

/* The steady sums and means (ns rounded half to even). */
static void steady_rows(const struct steps_result *st, struct gaps_result *r)
{
	struct gap_row sum = { 0 };
	size_t m = 0;
	for (size_t ri = 0; ri < st->n; ri++) {
		if (st->rows[ri].warmup && st->nsteady)
			continue;
		row_add(&sum, &r->rows[ri]);
		m++;
	}
	r->steady_sum = sum;
	r->nsteady = m;
	for (int k = 0; k < GAP_NCAUSES; k++)
		r->steady.c[k] = gaps_mean(sum.c[k], m);
	r->steady.hta_host = gaps_mean(sum.hta_host, m);
	r->steady.hta_kernel = gaps_mean(sum.hta_kernel, m);
	r->steady.hta_other = gaps_mean(sum.hta_other, m);
}

/* Each step's row: the measure of every cause inside its window; the causes
 * add up to the step's idle time exactly. */
static void step_rows(const struct actx *c, const struct steps_result *st, const struct gctx *g,
		      struct gaps_result *r)
{
	for (size_t ri = 0; ri < st->n; ri++) {
		const struct step_row *row = &st->rows[ri];
		struct gap_row *gr = &r->rows[ri];
		gf_ns lo = row->start, hi = row->end;
		if (c->dev == TRACE_NONE) {
			gr->c[GAP_EDGE] = hi > lo ? hi - lo : 0;
			gr->hta_other = gr->c[GAP_EDGE];
			continue;
		}
		for (int k = 0; k < GC_N && (!g->direct || GF_CHECKS); k++) {
			gf_ns v = actx_pairs_in(&g->p[k], lo, hi);
			GF_ASSERT(!g->direct || *row_cell(gr, k) == v); /* the rows made as the pieces came: the same */
			*row_cell(gr, k) = v;
		}
		/* the causes split the step's idle time exactly, and so does HTA's rule */
		if (hi > lo)
			GF_ASSERT(gaps_idle(gr) == (hi - lo) - actx_busy_in(c, lo, hi));
		GF_ASSERT(gr->hta_host + gr->hta_kernel + gr->hta_other == gaps_idle(gr));
	}
}

static int cmp_charge(const void *a, const void *b)
{
	const struct gap_charge *x = a, *y = b;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	if (x->hclass != y->hclass)
		return x->hclass < y->hclass ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* A charge as the result holds it. */
static struct gap_charge charge_of(const struct gctx *g, const struct craw *s)
{
	struct gap_charge x = { (uint32_t)s->key, (uint8_t)(s->key >> 56), (int8_t)((int)((s->key >> 48) & 0xff) - 1),
				0, s->a, s->b };
	if (range_cause(x.cause) && x.id < g->t->nr && (g->pre.ri.flags[x.id] & RI_ISSUES))
		x.flags |= GCF_ISSUES;
	return x;
}

/* The charges as an array, and the keys of the sync, host and queued causes
 * over the steady steps. */

static void keys_of(const struct actx *c, struct gctx *g, struct gaps_result *r)
{
	const struct trace *t = c->t;
	/* the others (queued labels, untraced threads): few keys, radix-sorted,
	 * equal keys summed in place */
	size_t no = g->other.n, nm = 0;
	struct actx_kv *kv = gf_xmalloc((no ? no : 1) * sizeof *kv);
	for (size_t i = 0; i < no; i++)
		kv[i] = (struct actx_kv){ (gf_ns)g->other.v[i].key, i };
	actx_sort_kv(kv, no);
	struct craw *om = gf_xmalloc((no ? no : 1) * sizeof *om);
	for (size_t j = 0; j < no; j++) {
		const struct craw *x = &g->other.v[kv[j].v];
		if (nm && om[nm - 1].key == x->key) {
			om[nm - 1].a += x->a;
			om[nm - 1].b += x->b;
		} else {
			om[nm++] = *x;
		}
	}
	free(kv);
	vec_free(&g->other);
	/* every charge in key order (charge_key: cause, class, id), counted
	 * by (cause, class) first: a range's cause and class are its own (a
	 * cause's charges are all the ranges' or all the others'), so the
	 * ranges' are placed by one pass over the ranges in id order */
	size_t nr = g->charges.n, n = nr + nm;
	struct gap_charge *v = gf_xmalloc((n ? n : 1) * sizeof *v);
	size_t off[GAP_NCAUSES << 8] = { 0 }; /* by key >> 48: cause, class + 1 */
	for (size_t i = 0; i < nr; i++)
		off[g->charges.v[i].key >> 48]++;
	for (size_t i = 0; i < nm; i++)
		off[om[i].key >> 48]++;
	size_t pos = 0;
	for (size_t b = 0; b < (size_t)GAP_NCAUSES << 8; b++) {
		size_t k = off[b];
		off[b] = pos;
		pos += k;
	}
	for (uint32_t id = 0; id < t->nr && nr; id++)
		if (g->rslot[id]) {
			const struct craw *x = &g->charges.v[g->rslot[id] - 1];
			v[off[x->key >> 48]++] = charge_of(g, x);
		}
	for (size_t i = 0; i < nm; i++)
		v[off[om[i].key >> 48]++] = charge_of(g, &om[i]);
	free(om);
	free(g->rslot);
	g->rslot = NULL;
	vec_free(&g->charges);
	struct actx_cmap hk = { 0 }, sk = { 0 };
	if (GF_CHECKS) /* report.c and fold.c rely on the order */
		for (size_t i = 1; i < n; i++)
			GF_ASSERT(cmp_charge(&v[i - 1], &v[i]) < 0);
	r->charges = v;
	r->ncharges = n;
	r->qlabels = g->ql.v;
	r->nqlabels = g->ql.n;
	/* what the idle tree reads is final: the charges, the queued labels,
	 * edge_sel (analyze set it) */
	if (g->ready)
		g->ready(g->ready_arg);
	for (size_t i = 0; i < n; i++) {
		const struct gap_charge *x = &v[i];
		if (x->steady && x->cause == GAP_HOST)
			actx_cmap_add(&hk, stack_key(c, x->id), x->steady, 0);
		else if (x->steady && x->cause == GAP_SYNC)
			actx_cmap_add(&sk, site_key(c, x->id), x->steady, 0);
	}
	r->keys[GAP_HOST] = map_keys(t, &hk, &r->nkeys[GAP_HOST]);
	r->keys[GAP_SYNC] = map_keys(t, &sk, &r->nkeys[GAP_SYNC]);
	struct gap_key *qk = gf_xcalloc(g->ql.n ? g->ql.n : 1, sizeof *qk);
	size_t nq = 0;
	for (size_t i = 0; i < g->ql.n; i++)
		if (g->ql.v[i].steady > 0) {
			qk[nq].label = gf_xstrdup(g->ql.v[i].label);
			qk[nq++].ns = g->ql.v[i].steady;
		}
	if (nq)
		qsort(qk, nq, sizeof *qk, cmp_key);
	r->keys[GAP_QUEUED] = qk;
	r->nkeys[GAP_QUEUED] = nq;
	r->drained = map_keys(t, &g->drained, &r->ndrained);
}

/* Launch calls starting in the selected steps that the warm-up test (a call
 * far above its name's median) marks. */
static uint32_t warm_calls(const struct gctx *g, const struct actx_span *sel)
{
	const struct trace *t = g->t;
	uint32_t n = 0, np = pool_count(t->names);
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *x = &t->r[i];
		if (!(x->flags & TRF_LAUNCH) || x->name >= np || !g->pre.lmed[x->name])
			continue;
		gf_ns d = x->end - x->start;
		if (d >= WARM_CALL_NS && (__int128)d >= (__int128)g->pre.lmed[x->name] * WARM_CALL_X &&
		    actx_span_in(sel, x->start, x->start + 1))
			n++;
	}
	return n;
}

static void prep_fill(const struct actx *c, struct gaps_prep *p)
{
	const struct trace *t = c->t;
	memset(p, 0, sizeof *p);
	VEC(struct bend) be = VEC_INIT;
	for (uint32_t i = 0; i < t->nr; i++)
		if (c->blk[i]) {
			struct bend x = { t->r[i].end, i };
			vec_push(&be, x);
		}
	if (be.n)
		qsort(be.v, be.n, sizeof *be.v, cmp_bend);
	if (GF_CHECKS) /* drain_call's binary search */
		for (size_t i = 1; i < be.n; i++)
			GF_ASSERT(cmp_bend(&be.v[i - 1], &be.v[i]) < 0);
	p->be = be.v;
	p->nbe = be.n;
	if (c->dev == TRACE_NONE)
		return;
	p->dev = true;
	rinfo_init(t, &p->ri);
	p->wait_of = waits_before(t);
	p->lmed = long_medians(t);
	queue_init(c, p);
}

static void prep_release(struct gaps_prep *p)
{
	free(p->be);
	if (p->dev)
		rinfo_release(&p->ri);
	free(p->wait_of);
	free(p->lmed);
	free(p->da);
	free(p->qmin);
	free(p->qarg);
	memset(p, 0, sizeof *p);
}

struct gaps_prep *gaps_prepare(const struct actx *c)
{
	struct gaps_prep *p = gf_xmalloc(sizeof *p);
	prep_fill(c, p);
	return p;
}

void gaps_prep_free(struct gaps_prep *p)
{
	if (!p)
		return;
	prep_release(p);
	free(p);
}

static int analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r, bool keep, bool scan,
		   struct gaps_prep *pre, void (*ready)(void *), void *ready_arg)
{
	const struct trace *t = c->t;
	memset(r, 0, sizeof *r);
	r->n = st->n;
	r->rows = gf_xcalloc(st->n ? st->n : 1, sizeof *r->rows);
	struct gctx G;
	memset(&G, 0, sizeof G);
	struct gctx *g = &G;
	g->c = c;
	g->t = t;
	g->keep = keep;
	g->ready = ready;
	g->ready_arg = ready_arg;
	g->st = st;
	g->rows = r->rows;
	g->direct = true;
	for (size_t i = 0, last = SIZE_MAX; i < st->n; i++) {
		if (st->rows[i].end <= st->rows[i].start)
			continue;
		if (last != SIZE_MAX && st->rows[i].start < st->rows[last].end)
			g->direct = false; /* overlapping or out of order: measured in p[] */
		last = i;
	}
	if (pre) {
		g->pre = *pre;
		free(pre);
	} else {
		prep_fill(c, &g->pre);
	}
	/*
	 * Each gap is classified once, on its full extent, as far as the steps
	 * reach (only gaps meeting a step); a step's row is then the measure of
	 * each cause inside its window, and a charge counts its time inside
	 * each selected and steady step (actx_span): O(n log n) even when every
	 * step holds most of the trace.
	 */
	size_t ng = c->dev == TRACE_NONE ? 0 : c->nbusy + 1;
	int64_t *dall = gf_xcalloc(ng + 1, sizeof *dall);
	gf_ns slo = INT64_MAX, shi = INT64_MIN;
	for (size_t ri = 0; ri < st->n; ri++) {
		const struct step_row *row = &st->rows[ri];
		size_t jf, jl;
		if (row->end <= row->start)
			continue;
		if (!row->warmup || !st->nsteady)
			actx_span_add(&g->steady, row->start, row->end);
		actx_span_add(&g->sel, row->start, row->end);
		slo = row->start < slo ? row->start : slo;
		shi = row->end > shi ? row->end : shi;
		if (!ng)
			continue;
		gap_span(c, row->start, row->end, &jf, &jl);
		if (jf > jl)
			continue;
		dall[jf]++;
		dall[jl + 1]--;
	}
	actx_span_seal(&g->steady);
	actx_span_seal(&g->sel);
	g->same_span = g->steady.n == g->sel.n && (!g->sel.n || (!memcmp(g->steady.s, g->sel.s, g->sel.n * sizeof *g->sel.s) &&
								  !memcmp(g->steady.e, g->sel.e, g->sel.n * sizeof *g->sel.e)));
	if (ng) {
		GF_ASSERT(g->pre.dev);
		g->hint = gf_xcalloc(t->nth ? t->nth : 1, sizeof *g->hint);
		g->rslot = gf_xzalloc_dense(t->nr ? t->nr : 1, sizeof *g->rslot);
		if (shi > slo)
			zone_init(g, slo, shi);
		int64_t call = 0;
		for (size_t j = 0; j < ng; j++) {
			call += dall[j];
			gf_ns af = gap_af(c, j), bf = gap_bf(c, j);
			gf_ns cur = af > slo ? af : slo, e = bf < shi ? bf : shi;
			if (!call || e <= cur)
				continue;
			gap_classify(g, af, bf, cur, e);
		}
		r->warm_calls = warm_calls(g, &g->sel);
		free(g->devth);
		free(g->hint);
		trace_wsweep_release(&g->sw);
	}
	free(dall);
	for (int k = 0; k < GC_N; k++)
		actx_pairs_seal(&g->p[k]);
	step_rows(c, st, g, r);
	for (int k = 0; k < GC_N; k++)
		actx_pairs_release(&g->p[k]);
	actx_pairs_release(&g->zone);
	actx_span_release(&g->steady);
	actx_span_release(&g->sel);
	steady_rows(st, r);
	memcpy(r->by_class, g->by_class, sizeof r->by_class);
	memcpy(r->by_class_short, g->by_class_short, sizeof r->by_class_short);
	r->edge_sel = g->edge_sel;
	keys_of(c, g, r);
	prep_release(&g->pre);
	actx_cmap_free(&g->qmap);
	if (g->calls.n)
		qsort(g->calls.v, g->calls.n, sizeof *g->calls.v, cmp_call);
	if (GF_CHECKS) /* gaps_call's binary search: one entry per call */
		for (size_t i = 1; i < g->calls.n; i++)
			GF_ASSERT(g->calls.v[i - 1].ri < g->calls.v[i].ri);
	r->calls = g->calls.v;
	r->ncalls = g->calls.n;
	r->pieces = g->pieces.v;
	r->npieces = g->pieces.n;
	r->gaps = g->gaps.v;
	r->ngaps = g->gaps.n;
	if (scan) {
		struct launch_diag ld;
		gaps_launch_scan(c, st, &ld);
		gaps_launch_finish(r, st, &ld);
	}
	return GF_OK;
}

int gaps_analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	return analyze(c, st, r, false, true, NULL, NULL, NULL);
}

int gaps_analyze_pieces(const struct actx *c, const struct steps_result *st, struct gaps_result *r)
{
	return analyze(c, st, r, true, true, NULL, NULL, NULL);
}

int gaps_analyze_unscanned(const struct actx *c, const struct steps_result *st, struct gaps_result *r, bool pieces,
			   struct gaps_prep *pre, void (*ready)(void *), void *arg)
{
	return analyze(c, st, r, pieces, false, pre, ready, arg);
}

void gaps_release(struct gaps_result *r)
{
	for (int k = 0; k < GAP_NCAUSES; k++) {
		for (size_t i = 0; i < r->nkeys[k]; i++)
			free(r->keys[k][i].label);
		free(r->keys[k]);
	}
	for (size_t i = 0; i < r->nqlabels; i++)
		free(r->qlabels[i].label);
	free(r->qlabels);
	for (size_t i = 0; i < r->ndrained; i++)
		free(r->drained[i].label);
	free(r->drained);
	free(r->charges);
	free(r->calls);
	free(r->pieces);
	free(r->gaps);
	free(r->rows);
	memset(r, 0, sizeof *r);
}
