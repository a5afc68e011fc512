/*
 * fold.c — the folders (see fold.h): gpu, cpu, wall, idle and calls weights
 * over the trace model, in one pass each. Host stacks are memoised per host
 * range (node_of; with --max-depth per shown range and shown parent, see
 * node_for), so a stack costs O(1) amortised per activity; host time is
 * cut into segments by one stack sweep per thread (trace_wsweep) and
 * intersected with the window with a monotone pointer (cpu/wall: per thread
 * its own steps' pairs, built by one counting sort; the thread frame is the
 * root of the memoised stacks, one node per thread). Weights are summed as
 * self weights per tree node and totalled bottom-up at the end.
 */
#include "trace/analysis/fold.h"

#include "base/names.h"
#include "base/num.h"
#include "trace/analysis/gaps.h"
#include "trace/model/trace_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fold_opts_init(struct fold_opts *o)
{
	memset(o, 0, sizeof *o);
	o->weight = FW_GPU;
	o->levels = FL_DEFAULT;
	trace_sel_init(&o->steps);
	o->unit = FU_NS;
	o->device = -1;
}

const char *const fold_level_names[] = { "step", "annotation", "python", "module", "op", "runtime", NULL };
_Static_assert(GF_ARRAY_LEN(fold_level_names) == 7 && (FL_RUNTIME >> 5) == 1, "a name per FL_* bit");
#define NLEVELS (GF_ARRAY_LEN(fold_level_names) - 1)
const char *const fold_kernel_names[] = { "family", "full", NULL };

int fold_add_label(struct fold_opts *o, const char *kv, struct sbuf *err)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv) {
		sbuf_setf(err, "invalid argument '%s' for '--label'; expected KEY=VALUE", kv);
		return GF_EUSAGE;
	}
	if (o->nlabels == FOLD_MAX_LABELS) {
		sbuf_setf(err, "at most %d --label options", FOLD_MAX_LABELS);
		return GF_EUSAGE;
	}
	if (!fold_label_key_ok(kv, (size_t)(eq - kv))) {
		sbuf_setf(err, "invalid label key in '%s'; use letters, digits, '_', '-', '.'", kv);
		return GF_EUSAGE;
	}
	o->labels[o->nlabels++] = kv;
	return GF_OK;
}

bool fold_label_key_ok(const char *k, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') || (k[i] >= '0' && k[i] <= '9') ||
		      k[i] == '_' || k[i] == '-' || k[i] == '.'))
			return false;
	return true;
}

int fold_parse_levels(const char *s, unsigned *levels, struct sbuf *err)
{
	unsigned lv = 0;
	const char *p = s;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		unsigned k = 0;
		while (k < NLEVELS && !(strlen(fold_level_names[k]) == n && !memcmp(fold_level_names[k], p, n)))
			k++;
		if (k == NLEVELS) {
			sbuf_setf(err, "invalid stack level '%.*s'; valid levels are: ", (int)n, p);
			for (k = 0; k < NLEVELS; k++)
				sbuf_addf(err, "%s%s", k ? ", " : "", fold_level_names[k]);
			return GF_EUSAGE;
		}
		lv |= 1u << k;
		if (!c)
			break;
		p = c + 1;
	}
	*levels = lv;
	return GF_OK;
}

void fold_levels_str(unsigned levels, struct sbuf *out)
{
	bool first = true;
	for (unsigned k = 0; k < NLEVELS; k++)
		if (levels & (1u << k)) {
			if (!first)
				sbuf_addch(out, ',');
			sbuf_addstr(out, fold_level_names[k]);
			first = false;
		}
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

void fold_frame_name(const char *s, size_t n, bool python, struct sbuf *out)
{
	if (!n) {
		sbuf_addstr(out, "[empty]");
		return;
	}
	/* "# x" would read back as a comment line when it is the root frame */
	size_t i0 = 0;
	if (s[0] == '#' && (n == 1 || s[1] == ' ' || s[1] == '\t')) {
		sbuf_addstr(out, "#_");
		i0 = n == 1 ? 1 : 2;
	}
	for (size_t i = i0; i < n; i++) {
		char c = s[i];
		if (python && c == '0' && i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') && is_hex(s[i + 2]) &&
		    (i == 0 || !is_hex(s[i - 1]))) {
			sbuf_addstr(out, "0x...");
			i += 2;
			while (i + 1 < n && is_hex(s[i + 1]))
				i++;
			continue;
		}
		if (c == ';')
			c = ':';
		else if ((unsigned char)c < ' ' || c == 0x7f)
			c = ' ';
		sbuf_addch(out, c);
	}
}

/* The max_depth memos of one range, together (a range's are read
 * together; apart they cost a cache miss each). Each holds its value + 1,
 * 0 = not yet (a zeroed allocation starts them all unknown). */
struct kmemo {
	uint32_t kdepth; /* per kept range: shown frames down to it */
	uint32_t win;    /* per kept range: node of its stack */
	uint32_t pre;    /* per kept range: node of its innermost max_depth - 1 frames */
	uint32_t gwin, gpre; /* idle: their generations (below) */
};

/* window_of's cache: a root and up to FOLD_WINDOW_MAX frame ids, and
 * their node. */
#define FOLD_WINDOW_MAX 4
#define WC_N 4096
struct wslot {
	uint32_t root, n, node;
	uint32_t fr[FOLD_WINDOW_MAX];
};

struct folder {
	struct trace *t;
	const struct fold_opts *o;
	struct ftree *tree;
	unsigned levels;
	int64_t *self;
	size_t cap_self;
	uint32_t nnames;
	uint32_t *map_py, *map_other, *map_step, *map_leaf;
	uint32_t *map_kind[TR_DRIVER + 1]; /* --kinds: per range kind (its suffix differs) */
	uint32_t *node_of;       /* per host range, UINT32_MAX = not yet */
	uint32_t *kept_of;       /* max_depth: per range, its nearest kept ancestor-or-self + 1
	                          * (0: not yet; KEPT_NONE + 1: none) */
	struct kmemo *km;        /* max_depth but a window: per range, one cache line's share */
	/* idle with max_depth <= FOLD_WINDOW_MAX: a stack's node found by its
	 * frames (window_of), no per-range memo but kept_of */
	bool window;
	struct wslot *wc;
	struct trace_walk walk;  /* host weights: O(log depth) sweep starts */
	bool has_walk;           /* walk is fold's own */
	const struct trace_walk *wk; /* the one used: &walk or fold_opts.walk */
	uint32_t *sync_anc;      /* per host range: nearest blocking ancestor-or-self (host weights) */
	struct sbuf tmp, tmp2;
	uint32_t *buf;
	size_t bufcap;
	uint32_t *frames;
	size_t framecap;
	gf_ns *win;              /* window pairs */
	size_t nwin;
	gf_ns *stepwin;          /* all selected/whole step windows (wall [untraced]) */
	size_t nstepwin;
	bool has_sel;
	bool thread_frames;      /* cpu/wall: a thread frame roots every stack */
	uint32_t *th_root;       /* per thread: node of its thread frame, UINT32_MAX = not yet */
	bool *tid_dup;           /* per thread: its tid is another thread's too (frame names the pid) */
	gf_ns *thw;              /* per step thread: its selected steps' pairs, thw[2 * thw_off[th] ..] */
	uint32_t *thw_off, *thw_n;
	uint32_t id_untraced, id_other, id_unattr;
	/* idle: the stacks hang under a label node (root), and the memos of
	 * node_of, win and pre hold for one root: an entry counts only
	 * when its generation is the current one (gen_node NULL, gens false:
	 * one root, node 0) */
	uint32_t root, gen;
	uint32_t *gen_node;
	bool gens;
	int ovf;
	int64_t total;
	uint64_t items;
	int64_t unattributed;
	uint32_t threads, threads_left_out;
	int64_t left_out;
};

static uint32_t intern(struct folder *f, const char *s, size_t n)
{
	return pool_intern(f->tree->names, s, n);
}

static uint32_t *lazy_map(struct folder *f, uint32_t **m)
{
	if (!*m) {
		*m = gf_xmalloc((size_t)(f->nnames ? f->nnames : 1) * sizeof **m);
		for (uint32_t i = 0; i < f->nnames; i++)
			(*m)[i] = UINT32_MAX;
	}
	return *m;
}

/* --kinds: the suffix of a host range of kind k named s[0..n). */
static const char *range_kind(int k, const char *s, size_t n)
{
	switch (k) {
	case TR_ANNOTATION: return "_[an]";
	case TR_PYTHON: return "_[py]";
	case TR_OP: return "_[op]";
	default: return names_api(s, n) & NAMES_API_SYNC ? "_[sy]" : "_[la]";
	}
}

/* Tree name id of range ri's frame. */
static uint32_t frame_id(struct folder *f, uint32_t ri)
{
	const struct trace_range *r = &f->t->r[ri];
	const char *s = pool_str(f->t->names, r->name);
	size_t n = pool_len(f->t->names, r->name);
	uint32_t *m;
	if ((r->flags & TRF_STEP) && !f->o->per_step) {
		m = lazy_map(f, &f->map_step);
		if (m[r->name] == UINT32_MAX) {
			const char *h = memchr(s, '#', n);
			sbuf_reset(&f->tmp);
			fold_frame_name(s, h ? (size_t)(h - s) : n, false, &f->tmp);
			if (f->o->kinds)
				sbuf_addstr(&f->tmp, "_[an]");
			m[r->name] = intern(f, f->tmp.buf, f->tmp.len);
		}
		return m[r->name];
	}
	bool py = r->kind == TR_PYTHON;
	bool mod = py && (r->flags & TRF_MODULE);
	if (f->o->kinds && r->kind <= TR_DRIVER)
		m = lazy_map(f, mod ? &f->map_py : &f->map_kind[r->kind]);
	else
		m = lazy_map(f, py ? &f->map_py : &f->map_other);
	if (m[r->name] == UINT32_MAX) {
		sbuf_reset(&f->tmp);
		fold_frame_name(s, n, py, &f->tmp);
		if (f->o->kinds)
			sbuf_addstr(&f->tmp, mod ? "_[mo]" : range_kind(r->kind, s, n));
		m[r->name] = intern(f, f->tmp.buf, f->tmp.len);
	}
	return m[r->name];
}

/* Tree name id of a plain name from the trace pool (API names). */
static uint32_t plain_id(struct folder *f, uint32_t name)
{
	uint32_t *m = lazy_map(f, &f->map_other);
	if (m[name] == UINT32_MAX) {
		sbuf_reset(&f->tmp);
		const char *s = pool_str(f->t->names, name);
		size_t n = pool_len(f->t->names, name);
		fold_frame_name(s, n, false, &f->tmp);
		if (f->o->kinds && names_api(s, n))
			sbuf_addstr(&f->tmp, names_api(s, n) & NAMES_API_SYNC ? "_[sy]" : "_[la]");
		m[name] = intern(f, f->tmp.buf, f->tmp.len);
	}
	return m[name];
}

static uint32_t leaf_id(struct folder *f, const struct trace_act *a)
{
	uint32_t *m = lazy_map(f, &f->map_leaf);
	if (m[a->name] != UINT32_MAX)
		return m[a->name];
	const char *s = pool_str(f->t->names, a->name);
	size_t n = pool_len(f->t->names, a->name);
	sbuf_reset(&f->tmp);
	if (f->o->kernel_full) {
		fold_frame_name(s, n, false, &f->tmp);
	} else if (a->kind == TA_MEMCPY) {
		sbuf_addstr(&f->tmp, "memcpy");
	} else if (a->kind == TA_MEMSET) {
		sbuf_addstr(&f->tmp, "memset");
	} else {
		kfamily_of(f->o->families, s, n, &f->tmp2);
		fold_frame_name(f->tmp2.buf, f->tmp2.len, false, &f->tmp);
	}
	if (f->o->kinds && a->kind != TA_ANNOTATION)
		sbuf_addstr(&f->tmp, "_[ke]");
	m[a->name] = intern(f, f->tmp.buf, f->tmp.len);
	return m[a->name];
}

static uint32_t child(struct folder *f, uint32_t node, uint32_t name)
{
	return ftree_child(f->tree, node, name);
}

/* Kineto names a thread "thread <tid> (<comm>)": the comm when s is that
 * with tid's own digits, else NULL. */
static const char *kineto_comm(const char *s, size_t n, int64_t tid, size_t *len)
{
	char pre[40];
	int k = snprintf(pre, sizeof pre, "thread %lld (", (long long)tid);
	if (tid == KEV_NONE || k <= 0 || (size_t)k + 1 >= n || memcmp(s, pre, (size_t)k) || s[n - 1] != ')')
		return NULL;
	*len = n - (size_t)k - 1;
	return s + k;
}

/* Node of thread th's frame, py-spy's "thread (TID): NAME" (no ": NAME"
 * without a name; "thread (TID, pid PID)" when threads of two processes
 * share the tid; "?" for an id written as a string); 0 without thread
 * frames. */
static uint32_t thread_root(struct folder *f, uint32_t th)
{
	if (!f->thread_frames || th == TRACE_NONE || th >= f->t->nth)
		return f->root;
	if (f->th_root[th] != UINT32_MAX)
		return f->th_root[th];
	const struct trace_thread *x = &f->t->th[th];
	struct sbuf *b = &f->tmp2;
	sbuf_reset(b);
	sbuf_addstr(b, "thread (");
	if (x->tid == KEV_NONE)
		sbuf_addch(b, '?');
	else
		sbuf_addf(b, "%lld", (long long)x->tid);
	if (f->tid_dup[th]) {
		sbuf_addstr(b, ", pid ");
		if (x->pid == KEV_NONE)
			sbuf_addch(b, '?');
		else
			sbuf_addf(b, "%lld", (long long)x->pid);
	}
	sbuf_addch(b, ')');
	if (x->name != TRACE_NONE && pool_len(f->t->names, x->name)) {
		const char *s = pool_str(f->t->names, x->name);
		size_t n = pool_len(f->t->names, x->name), cn;
		const char *c = kineto_comm(s, n, x->tid, &cn);
		if (c && cn) {
			s = c;
			n = cn;
		}
		sbuf_addstr(b, ": ");
		fold_frame_name(s, n, false, b);
	}
	f->th_root[th] = child(f, 0, intern(f, b->buf, b->len));
	return f->th_root[th];
}

static bool keep(unsigned lv, const struct trace_range *r)
{
	if (r->flags & TRF_STEP)
		return lv & FL_STEP;
	switch (r->kind) {
	case TR_ANNOTATION: return lv & FL_ANNOTATION;
	case TR_PYTHON: return (lv & FL_PYTHON) || ((lv & FL_MODULE) && (r->flags & TRF_MODULE));
	case TR_OP: return lv & FL_OP;
	default: return lv & FL_RUNTIME;
	}
}

/* Whether a memo entry of the current root is set (gen: its generation
 * array, NULL with one root). */
static bool memo_ok(const struct folder *f, const uint32_t *memo, const uint32_t *gen, uint32_t i)
{
	return memo[i] != UINT32_MAX && (!gen || gen[i] == f->gen);
}

static void memo_set(const struct folder *f, uint32_t *memo, uint32_t *gen, uint32_t i, uint32_t v)
{
	memo[i] = v;
	if (gen)
		gen[i] = f->gen;
}

/* kept_of's mark for "no shown ancestor" (stored + 1; 0 is "not yet"): that
 * answer is memoised too, so ranges under a deep chain of hidden frames
 * (nested step markers) do not each walk it. */
#define KEPT_NONE (UINT32_MAX - 1)

/* Nearest ancestor-or-self of ri that is a shown frame (TRACE_NONE),
 * memoised: the chain up to a known range is walked once. */
static uint32_t kept_anc(struct folder *f, uint32_t ri)
{
	const struct trace *t = f->t;
	if (ri == TRACE_NONE)
		return TRACE_NONE;
	if (f->kept_of[ri])
		return f->kept_of[ri] - 1 == KEPT_NONE ? TRACE_NONE : f->kept_of[ri] - 1;
	size_t k = 0;
	uint32_t q = ri;
	while (q != TRACE_NONE && !f->kept_of[q] && !keep(f->levels, &t->r[q])) {
		if (k == f->bufcap) {
			f->bufcap = f->bufcap ? f->bufcap * 2 : 256;
			f->buf = gf_xreallocarray(f->buf, f->bufcap, sizeof *f->buf);
		}
		f->buf[k++] = q;
		q = t->r[q].parent;
	}
	uint32_t v = q == TRACE_NONE ? KEPT_NONE : f->kept_of[q] ? f->kept_of[q] - 1 : q;
	if (q != TRACE_NONE)
		f->kept_of[q] = v + 1;
	while (k--)
		f->kept_of[f->buf[k]] = v + 1;
	return v == KEPT_NONE ? TRACE_NONE : v;
}

/* Tree node of the full shown stack of range ri, memoised per range: the
 * chain up to a known range is walked once. */
static uint32_t full_node(struct folder *f, uint32_t ri)
{
	const struct trace *t = f->t;
	if (ri == TRACE_NONE)
		return f->root;
	if (memo_ok(f, f->node_of, f->gen_node, ri))
		return f->node_of[ri];
	size_t k = 0;
	uint32_t q = ri;
	while (q != TRACE_NONE && !memo_ok(f, f->node_of, f->gen_node, q)) {
		if (k == f->bufcap) {
			f->bufcap = f->bufcap ? f->bufcap * 2 : 256;
			f->buf = gf_xreallocarray(f->buf, f->bufcap, sizeof *f->buf);
		}
		f->buf[k++] = q;
		q = t->r[q].parent;
	}
	uint32_t node = q == TRACE_NONE ? thread_root(f, t->r[ri].thread) : f->node_of[q];
	while (k--) {
		uint32_t x = f->buf[k];
		if (keep(f->levels, &t->r[x]))
			node = child(f, node, frame_id(f, x));
		memo_set(f, f->node_of, f->gen_node, x, node);
	}
	return node;
}

/* Shown frames from the root down to kept range kr (memoised). */
static uint32_t kept_depth(struct folder *f, uint32_t kr)
{
	const struct trace *t = f->t;
	size_t k = 0;
	uint32_t q = kr;
	while (q != TRACE_NONE && !f->km[q].kdepth) {
		if (k == f->framecap) {
			f->framecap = f->framecap ? f->framecap * 2 : 64;
			f->frames = gf_xreallocarray(f->frames, f->framecap, sizeof *f->frames);
		}
		f->frames[k++] = q;
		q = kept_anc(f, t->r[q].parent);
	}
	uint32_t d = q == TRACE_NONE ? 0 : f->km[q].kdepth - 1;
	while (k--)
		f->km[f->frames[k]].kdepth = ++d + 1;
	return f->km[kr].kdepth - 1;
}

/* Node of the innermost n shown frames ending at kept range kr: the full
 * stack when it is that short, else built from the root (O(n)). */
static uint32_t window_node(struct folder *f, uint32_t kr, size_t n)
{
	const struct trace *t = f->t;
	if (!n)
		return thread_root(f, t->r[kr].thread);
	if (kept_depth(f, kr) <= n)
		return full_node(f, kr);
	size_t nf = 0;
	for (uint32_t q = kr; q != TRACE_NONE && nf < n; q = kept_anc(f, t->r[q].parent)) {
		if (nf == f->framecap) {
			f->framecap = f->framecap ? f->framecap * 2 : 64;
			f->frames = gf_xreallocarray(f->frames, f->framecap, sizeof *f->frames);
		}
		f->frames[nf++] = q;
	}
	uint32_t node = thread_root(f, t->r[kr].thread);
	while (nf--)
		node = child(f, node, frame_id(f, f->frames[nf]));
	return node;
}

/* node_for of a window (f->window): the innermost max_depth shown frames
 * of ri's stack under its thread's root, the same node as node_for's memos
 * give, found by the frames' ids: a walk up the kept ancestors (memoised),
 * then a direct-mapped cache of (root, frames) before the tree. The idle
 * tree's charges are mostly distinct ranges, where per-range memos miss
 * and cost their memory; the windows repeat. */
static uint32_t window_of(struct folder *f, uint32_t ri)
{
	const struct trace *t = f->t;
	uint32_t root = thread_root(f, t->r[ri].thread);
	uint32_t kr = kept_anc(f, ri);
	if (kr == TRACE_NONE)
		return root;
	uint32_t fr[FOLD_WINDOW_MAX];
	size_t n = 0, K = f->o->max_depth;
	for (uint32_t q = kr; q != TRACE_NONE && n < K; q = kept_anc(f, t->r[q].parent))
		fr[n++] = frame_id(f, q);
	uint64_t h = (uint64_t)root * 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ fr[i]) * 0xff51afd7ed558ccdu;
	struct wslot *s = &f->wc[(h >> 40) & (WC_N - 1)];
	if (s->n == n && s->root == root && !memcmp(s->fr, fr, n * sizeof *fr) && s->node)
		return s->node;
	uint32_t node = root;
	for (size_t i = n; i-- > 0;) /* outermost first */
		node = child(f, node, fr[i]);
	s->root = root;
	s->n = (uint32_t)n;
	memcpy(s->fr, fr, n * sizeof *fr);
	s->node = node; /* never 0: n >= 1 frames under root */
	return node;
}

/* Tree node of the shown stack of range ri (its thread's root = empty
 * stack: node 0, or the thread frame). */
static uint32_t node_for(struct folder *f, uint32_t ri)
{
	const struct trace *t = f->t;
	if (ri == TRACE_NONE)
		return f->root;
	if (!f->o->max_depth)
		return full_node(f, ri);
	if (f->window)
		return window_of(f, ri);
	/* the innermost max_depth shown frames, memoised per innermost shown
	 * range kr: the full stack when it is no deeper, else kr under the
	 * innermost max_depth - 1 frames of its shown parent (memoised per
	 * parent, so siblings under a deep stack cost O(1) each and each
	 * parent O(max_depth) once) */
	uint32_t kr = kept_anc(f, ri);
	if (kr == TRACE_NONE)
		return thread_root(f, t->r[ri].thread);
	struct kmemo *m = &f->km[kr];
	if (m->win && (!f->gens || m->gwin == f->gen))
		return m->win - 1;
	size_t K = f->o->max_depth;
	uint32_t node;
	if (kept_depth(f, kr) <= K) {
		node = full_node(f, kr);
	} else {
		uint32_t p = kept_anc(f, t->r[kr].parent);
		struct kmemo *mp = &f->km[p];
		if (!mp->pre || (f->gens && mp->gpre != f->gen)) {
			uint32_t pre = window_node(f, p, K - 1);
			mp->pre = pre + 1;
			mp->gpre = f->gen;
		}
		node = child(f, mp->pre - 1, frame_id(f, kr));
	}
	m->win = node + 1;
	m->gwin = f->gen;
	return node;
}

static void add(struct folder *f, uint32_t node, int64_t w)
{
	if (node >= f->cap_self || f->tree->n > f->cap_self) {
		size_t old = f->cap_self;
		size_t cap = old ? old : 1024;
		while (cap < f->tree->n || cap <= node)
			cap *= 2;
		f->self = gf_xreallocarray(f->self, cap, sizeof *f->self);
		memset(f->self + old, 0, (cap - old) * sizeof *f->self);
		f->cap_self = cap;
	}
	if (__builtin_add_overflow(f->self[node], w, &f->self[node]) ||
	    __builtin_add_overflow(f->total, w, &f->total))
		f->ovf = 1;
	f->items++;
}

/* Is ts inside one of the pairs in w (sorted, disjoint)? */
static bool in_pairs(const gf_ns *w, size_t n, gf_ns ts)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (w[2 * m] <= ts)
			l = m + 1;
		else
			h = m;
	}
	return l > 0 && ts < w[2 * (l - 1) + 1];
}

/* Overlap of [a, b) with the pairs w, advancing *p monotonically (calls
 * must come with non-decreasing a). */
static gf_ns overlap(const gf_ns *w, size_t n, size_t *p, gf_ns a, gf_ns b)
{
	while (*p < n && w[2 * *p + 1] <= a)
		(*p)++;
	gf_ns s = 0;
	for (size_t k = *p; k < n && w[2 * k] < b; k++) {
		gf_ns lo = GF_MAX(a, w[2 * k]), hi = GF_MIN(b, w[2 * k + 1]);
		if (hi > lo)
			s += hi - lo;
	}
	return s;
}

/* Nearest ancestor-or-self that is a blocking call (parents always come
 * before their children in t->r, so one forward pass fills the table). */
static void sync_table(struct folder *f)
{
	const struct trace *t = f->t;
	f->sync_anc = gf_xmalloc((size_t)(t->nr ? t->nr : 1) * sizeof *f->sync_anc);
	for (uint32_t i = 0; i < t->nr; i++) {
		uint32_t p = t->r[i].parent;
		if (t->r[i].flags & TRF_SYNC)
			f->sync_anc[i] = i;
		else if (p != TRACE_NONE && p < i)
			f->sync_anc[i] = f->sync_anc[p];
		else
			f->sync_anc[i] = TRACE_NONE;
	}
}

static void walk_init(struct folder *f)
{
	if (f->o->walk && f->o->walk->t == f->t) {
		f->wk = f->o->walk;
		return;
	}
	trace_walk_init(&f->walk, f->t);
	f->has_walk = true;
	f->wk = &f->walk;
}

static uint32_t sync_of(const struct folder *f, uint32_t ri)
{
	return f->sync_anc[ri];
}

/* Node for host time of thread th whose innermost range is r (wall/idle
 * classification; cpu skips syncs before calling). */
static uint32_t host_node(struct folder *f, uint32_t r, uint32_t th)
{
	const struct trace *t = f->t;
	uint32_t root = thread_root(f, th);
	if (r == TRACE_NONE)
		return child(f, root, f->id_untraced);
	uint32_t s = sync_of(f, r);
	if (s != TRACE_NONE) {
		uint32_t node = node_for(f, s);
		if (!keep(f->levels, &t->r[s]))
			node = child(f, node, plain_id(f, t->r[s].name));
		return node;
	}
	uint32_t node = node_for(f, r);
	if (t->r[r].flags & TRF_STEP)
		return child(f, node, f->id_untraced);
	if (node == root)
		return child(f, root, f->id_other);
	return node;
}

static void fold_gpu(struct folder *f)
{
	struct trace *t = f->t;
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		gf_ns when = a->launch != TRACE_NONE ? t->r[a->launch].start : a->start;
		if (f->has_sel && !in_pairs(f->win, f->nwin, when))
			continue;
		uint32_t node;
		if (a->launch == TRACE_NONE)
			node = child(f, 0, f->id_unattr);
		else
			node = node_for(f, a->launch);
		node = child(f, node, leaf_id(f, a));
		add(f, node, a->end - a->start);
		if (a->launch == TRACE_NONE)
			f->unattributed += a->end - a->start;
	}
}

static void fold_calls(struct folder *f)
{
	struct trace *t = f->t;
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		if (!(r->flags & TRF_LAUNCH))
			continue;
		if (f->has_sel && !in_pairs(f->win, f->nwin, r->start))
			continue;
		uint32_t node = node_for(f, i);
		if (!keep(f->levels, r))
			node = child(f, node, plain_id(f, r->name));
		add(f, node, 1);
	}
	for (uint32_t i = 0; i < t->nact; i++) {
		const struct trace_act *a = &t->act[i];
		if (a->launch != TRACE_NONE)
			continue;
		if (f->has_sel && !in_pairs(f->win, f->nwin, a->start))
			continue;
		add(f, child(f, child(f, 0, f->id_unattr), leaf_id(f, a)), 1);
		f->unattributed++;
	}
}

/* Thread th's host weight over the window pairs w, with [untraced] (wall)
 * where no range is open inside the pairs u (its own steps; u within w).
 * kept: added to the tree, else only summed. @return its weight. */
static int64_t fold_thread(struct folder *f, uint32_t th, bool wall, bool kept, const gf_ns *w, size_t nw,
			   const gf_ns *u, size_t nu)
{
	struct trace_wsweep s;
	trace_wsweep_init(&s, f->wk, th, w[0], w[2 * nw - 1]);
	size_t pw = 0, pu = 0;
	int64_t sum = 0;
	gf_ns a, b;
	uint32_t r;
	while (trace_wsweep_next(&s, &a, &b, &r)) {
		gf_ns x;
		if (r == TRACE_NONE) {
			/* wall: time inside the thread's own steps that no range covers */
			if (!wall || !nu)
				continue;
			x = overlap(u, nu, &pu, a, b);
		} else {
			if (!wall && sync_of(f, r) != TRACE_NONE)
				continue;
			x = overlap(w, nw, &pw, a, b);
		}
		if (!x)
			continue;
		if (kept)
			add(f, host_node(f, r, th), x);
		else if (__builtin_add_overflow(f->left_out, x, &f->left_out))
			f->ovf = 1;
		sum += x;
	}
	trace_wsweep_release(&s);
	return sum;
}

/* cpu/wall. With steps, a step thread is weighted over its own selected
 * steps (all of them with all_threads), every other thread over their
 * union, folded only with all_threads; without steps every thread over
 * the whole window. */
static void fold_host(struct folder *f, bool wall)
{
	struct trace *t = f->t;
	if (!f->nwin)
		return;
	/* without steps the wall fold covers the window on the thread that
	 * stands for the step thread: the one launching most device work, else
	 * the only thread with ranges; its untraced time is [untraced] */
	uint32_t main_th = TRACE_NONE, with_ranges = 0;
	for (uint32_t th = 0; th < t->nth; th++) {
		with_ranges += t->th[th].n > 0;
		if (t->th[th].launches && (main_th == TRACE_NONE || t->th[th].launches > t->th[main_th].launches))
			main_th = th;
	}
	if (main_th == TRACE_NONE && with_ranges == 1)
		for (uint32_t th = 0; th < t->nth; th++)
			if (t->th[th].n)
				main_th = th;
	for (uint32_t th = 0; th < t->nth; th++) {
		if (!t->th[th].n)
			continue;
		const gf_ns *u = NULL, *w = f->win;
		size_t nu = 0, nw = f->nwin;
		bool kept = true;
		if (f->nstepwin) {
			nu = f->thw_n[th];
			u = nu ? f->thw + 2 * (size_t)f->thw_off[th] : NULL;
			if (nu && !f->o->all_threads) {
				w = u;
				nw = nu;
			}
			kept = nu || f->o->all_threads;
		} else if (wall && th == main_th) {
			u = f->win;
			nu = f->nwin;
		}
		int64_t sum = fold_thread(f, th, wall, kept, w, nw, u, nu);
		if (sum && kept)
			f->threads++;
		else if (sum)
			f->threads_left_out++;
	}
}

static int fold_run(struct trace *t, const struct fold_opts *o, const struct gaps_result *gp, bool steady,
		    struct ftree *out, struct fold_stats *st, struct sbuf *err);

/* A label frame ("[host]", "[queued]", a queued wait) under node. */
static uint32_t label_node(struct folder *f, uint32_t node, const char *s, bool bracket)
{
	sbuf_reset(&f->tmp);
	if (bracket)
		sbuf_addch(&f->tmp, '[');
	fold_frame_name(s, strlen(s), false, &f->tmp);
	if (bracket)
		sbuf_addch(&f->tmp, ']');
	return child(f, node, intern(f, f->tmp.buf, f->tmp.len));
}

/* The idle tree of a gap model's charges: [edge], [untraced], [queued];WAIT,
 * and [cause];[class];STACK for host, sync and launch (the call the
 * innermost frame, shown or not). steady: the charges' time inside the
 * steady steps, else inside the selected ones. */
static void fold_charges(struct folder *f, const struct gaps_result *gp, bool steady)
{
	const struct trace *t = f->t;
	int gc = -1, gk = -2;
	uint32_t base = 0;
	for (size_t i = 0; i < gp->ncharges; i++) {
		const struct gap_charge *x = &gp->charges[i];
		gf_ns w = steady ? x->steady : x->sel;
		if (w <= 0)
			continue;
		if (x->cause != gc || x->hclass != gk) {
			gc = x->cause;
			gk = x->hclass;
			f->gen++;
			base = label_node(f, 0, causes_gap[gc].key, true);
			if (gk >= 0 && gk < HW_NCLASSES)
				base = label_node(f, base, causes_class[gk].key, true);
			f->root = base;
		}
		uint32_t node = base;
		if (x->cause == GAP_QUEUED) {
			if (x->id < gp->nqlabels)
				node = label_node(f, base, gp->qlabels[x->id].label, false);
		} else if (x->cause != GAP_UNTRACED && x->id < t->nr) {
			const struct trace_range *r = &t->r[x->id];
			node = node_for(f, x->id);
			if (!keep(f->levels, r) && (r->kind == TR_RUNTIME || r->kind == TR_DRIVER))
				node = child(f, node, plain_id(f, r->name));
			else if (node == base)
				node = child(f, node, f->id_other);
		}
		add(f, node, w);
	}
	f->root = 0;
	gf_ns e = steady ? gp->steady_sum.c[GAP_EDGE] : gp->edge_sel;
	if (e > 0)
		add(f, label_node(f, 0, causes_gap[GAP_EDGE].key, true), e);
}

/* idle: per device (fold_opts.device, else every device with activity),
 * the gap model over the selected steps (gaps.h), its charges folded. */
static int fold_idle(struct folder *f, struct sbuf *err)
{
	struct trace *t = f->t;
	for (uint32_t di = 0; di < t->ndev; di++) {
		if (f->o->device >= 0 && t->dev[di].device != f->o->device)
			continue;
		if (!t->dev[di].nact)
			continue;
		struct actx c;
		struct steps_result st;
		struct gaps_result gp;
		int rc = actx_init(&c, t, t->dev[di].device, err);
		if (rc)
			return rc;
		rc = steps_analyze_part(&c, &f->o->steps, 0, &st, err);
		if (rc) {
			actx_release(&c);
			return rc;
		}
		gaps_analyze(&c, &st, &gp);
		fold_charges(f, &gp, false);
		gaps_release(&gp);
		steps_release(&st);
		actx_release(&c);
	}
	return GF_OK;
}

int fold_idle_tree(struct trace *t, const struct fold_opts *o, const struct gaps_result *gp, bool steady,
		   struct ftree *out, struct fold_stats *st, struct sbuf *err)
{
	return fold_run(t, o, gp, steady, out, st, err);
}

static void add_pair(gf_ns **v, size_t *n, size_t *cap, gf_ns a, gf_ns b)
{
	if (b <= a)
		return;
	if (*n && a <= (*v)[2 * *n - 1]) {
		if (b > (*v)[2 * *n - 1])
			(*v)[2 * *n - 1] = b;
		return;
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = gf_xreallocarray(*v, *cap, 2 * sizeof **v);
	}
	(*v)[2 * *n] = a;
	(*v)[2 * *n + 1] = b;
	(*n)++;
}

/* Per thread, the pairs of its selected steps (keep: nsel step indices in
 * start order): a counting sort by thread, then merged per thread. */
static void thread_windows(struct folder *f, const uint32_t *keep, uint32_t nsel)
{
	const struct trace *t = f->t;
	size_t nth = t->nth ? t->nth : 1;
	f->thw_off = gf_xcalloc(nth + 1, sizeof *f->thw_off);
	f->thw_n = gf_xcalloc(nth, sizeof *f->thw_n);
	f->thw = gf_xmalloc(2 * (size_t)(nsel ? nsel : 1) * sizeof *f->thw);
	for (uint32_t k = 0; k < nsel; k++)
		f->thw_off[t->steps[keep[k]].thread + 1]++;
	for (size_t i = 0; i < nth; i++)
		f->thw_off[i + 1] += f->thw_off[i];
	for (uint32_t k = 0; k < nsel; k++) {
		const struct trace_step *st = &t->steps[keep[k]];
		gf_ns *v = f->thw + 2 * (size_t)f->thw_off[st->thread];
		uint32_t *n = &f->thw_n[st->thread];
		if (st->end <= st->start)
			continue;
		if (*n && st->start <= v[2 * *n - 1]) {
			v[2 * *n - 1] = GF_MAX(v[2 * *n - 1], st->end);
			continue;
		}
		v[2 * *n] = st->start;
		v[2 * *n + 1] = st->end;
		(*n)++;
	}
}

struct tid_ix {
	int64_t tid;
	uint32_t th;
};

static int cmp_tid(const void *x, const void *y)
{
	const struct tid_ix *a = x, *b = y;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Thread frames: which tids two threads with host ranges share (their
 * frames name the pid). */
static void thread_frames_init(struct folder *f)
{
	const struct trace *t = f->t;
	size_t nth = t->nth ? t->nth : 1;
	f->thread_frames = true;
	f->th_root = gf_xmalloc(nth * sizeof *f->th_root);
	f->tid_dup = gf_xcalloc(nth, sizeof *f->tid_dup);
	struct tid_ix *ix = gf_xmalloc(nth * sizeof *ix);
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nth; i++) {
		f->th_root[i] = UINT32_MAX;
		if (t->th[i].n)
			ix[n++] = (struct tid_ix){ t->th[i].tid, i };
	}
	qsort(ix, n, sizeof *ix, cmp_tid);
	for (uint32_t i = 1; i < n; i++)
		if (ix[i].tid == ix[i - 1].tid)
			f->tid_dup[ix[i].th] = f->tid_dup[ix[i - 1].th] = true;
	free(ix);
}

/* cpu/wall: which threads were folded and what the others held (at the
 * tree's scale, normalised like the stacks). */
static void set_thread_meta(struct folder *f, uint32_t nsteps, unsigned scale)
{
	struct ftree_meta *m = &f->tree->meta;
	char b[64];
	ftree_meta_set(m, "threads", f->nstepwin && !f->o->all_threads ? "steps" : "all");
	if (f->threads_left_out) {
		snprintf(b, sizeof b, "%u", f->threads_left_out);
		ftree_meta_set(m, "threads_left_out", b);
		int64_t v = f->left_out;
		if (f->o->normalise && nsteps)
			num_muldiv(v, num_pow10(scale - (unsigned)f->o->unit * 3), nsteps, &v);
		struct sbuf s = SBUF_INIT;
		num_fmt(&s, v, scale);
		ftree_meta_set(m, "left_out", s.buf);
		sbuf_release(&s);
	}
	if (f->o->no_thread_frames)
		ftree_meta_set(m, "thread_frames", "no");
}

static void set_meta(struct folder *f, uint32_t nsteps, unsigned levels, unsigned scale)
{
	struct ftree_meta *m = &f->tree->meta;
	const struct fold_opts *o = f->o;
	struct trace *t = f->t;
	char b[64];
	const struct weight_def *w = &weight_defs[o->weight];
	ftree_meta_set(m, "weight", w->name);
	ftree_meta_set(m, "unit", w->count ? w->count : weight_units[o->unit].name);
	snprintf(b, sizeof b, "%u", nsteps);
	ftree_meta_set(m, "steps", b);
	if (t->meta.rank != KEV_NONE) {
		snprintf(b, sizeof b, "%lld", (long long)t->meta.rank);
		ftree_meta_set(m, "rank", b);
	}
	if (t->meta.world_size != KEV_NONE) {
		snprintf(b, sizeof b, "%lld", (long long)t->meta.world_size);
		ftree_meta_set(m, "world_size", b);
	}
	if (o->source)
		ftree_meta_set(m, "source", o->source);
	struct sbuf s = SBUF_INIT;
	fold_levels_str(levels, &s);
	ftree_meta_set(m, "stack", s.buf);
	sbuf_release(&s);
	if (o->max_depth) {
		snprintf(b, sizeof b, "%u", o->max_depth);
		ftree_meta_set(m, "max_depth", b);
	}
	if (o->weight == FW_CPU || o->weight == FW_WALL)
		set_thread_meta(f, nsteps, scale);
	if (o->weight == FW_GPU || o->weight == FW_CALLS)
		ftree_meta_set(m, "kernel_names", o->kernel_full ? "full" : "family");
	if (o->per_step)
		ftree_meta_set(m, "per_step", "yes");
	if (o->kinds)
		ftree_meta_set(m, "kinds", "yes");
	if (o->normalise)
		ftree_meta_set(m, "normalised", "per-step");
	if (o->step_marker && strcmp(o->step_marker, NAMES_STEP_MARKER))
		ftree_meta_set(m, "step_marker", o->step_marker);
	for (unsigned i = 0; i < o->nlabels; i++) {
		const char *eqs = strchr(o->labels[i], '=');
		struct sbuf k = SBUF_INIT;
		sbuf_addstr(&k, "label.");
		if (eqs)
			sbuf_add(&k, o->labels[i], (size_t)(eqs - o->labels[i]));
		else
			sbuf_addstr(&k, o->labels[i]);
		ftree_meta_set(m, k.buf, eqs ? eqs + 1 : "");
		sbuf_release(&k);
	}
}

/* fold_trace, or the idle tree of charges already computed (gp). */
static int fold_run(struct trace *t, const struct fold_opts *o, const struct gaps_result *gp, bool steady,
		    struct ftree *out, struct fold_stats *st, struct sbuf *err)
{
	ftree_init(out, NULL, 0);
	struct folder F;
	memset(&F, 0, sizeof F);
	struct folder *f = &F;
	f->t = t;
	f->o = o;
	f->tree = out;
	f->levels = o->levels | (o->per_step ? FL_STEP : 0);
	f->nnames = pool_count(t->names);
	sbuf_init(&f->tmp, 256);
	sbuf_init(&f->tmp2, 256);
	int rc = GF_OK;

	/* step selection */
	struct trace_sel sel = o->steps;
	f->has_sel = trace_sel_active(&sel);
	uint32_t nsel = 0;
	size_t capw = 0, caps = 0;
	uint32_t *keep = gf_xmalloc((t->nsteps ? t->nsteps : 1) * sizeof *keep);
	rc = trace_sel_pick(t, &sel, o->step_marker, keep, &nsel, err);
	for (uint32_t k = 0; k < nsel; k++)
		add_pair(&f->stepwin, &f->nstepwin, &caps, t->steps[keep[k]].start, t->steps[keep[k]].end);
	if (!rc && (o->weight == FW_CPU || o->weight == FW_WALL))
		thread_windows(f, keep, nsel);
	free(keep);
	if (rc)
		goto out;
	if (o->normalise && !nsel) {
		sbuf_setf(err, "the trace has no steps (no '%s' ranges) to normalise by", names_marker(o->step_marker));
		rc = GF_EUSAGE;
		goto out;
	}
	/* windows */
	bool host_w = o->weight == FW_CPU || o->weight == FW_WALL;
	if (f->has_sel || ((o->weight == FW_IDLE || host_w) && f->nstepwin)) {
		f->win = gf_xmalloc(2 * (f->nstepwin ? f->nstepwin : 1) * sizeof *f->win);
		memcpy(f->win, f->stepwin, 2 * f->nstepwin * sizeof *f->win);
		f->nwin = f->nstepwin;
	} else if (t->win_end > t->win_start) {
		add_pair(&f->win, &f->nwin, &capw, t->win_start, t->win_end);
	}

	f->window = o->weight == FW_IDLE && o->max_depth && o->max_depth <= FOLD_WINDOW_MAX;
	if (!f->window) { /* a window reads only kept_of */
		f->node_of = gf_xmalloc((size_t)(t->nr ? t->nr : 1) * sizeof *f->node_of);
		for (uint32_t i = 0; i < t->nr; i++)
			f->node_of[i] = UINT32_MAX;
	}
	if (o->max_depth) {
		size_t n = t->nr ? t->nr : 1;
		f->kept_of = gf_xzalloc_dense(n, sizeof *f->kept_of);
		if (f->window)
			f->wc = gf_xcalloc(WC_N, sizeof *f->wc);
		else
			f->km = gf_xzalloc_dense(n, sizeof *f->km);
	}
	if (host_w && !o->no_thread_frames)
		thread_frames_init(f);
	f->id_untraced = intern(f, "[untraced]", 10);
	f->id_other = intern(f, "[other]", 7);
	f->id_unattr = intern(f, "[unattributed]", 14);

	unsigned scale = o->weight == FW_CALLS ? 0 : (unsigned)o->unit * 3;
	switch (o->weight) {
	case FW_GPU: fold_gpu(f); break;
	case FW_CPU: sync_table(f); walk_init(f); fold_host(f, false); break;
	case FW_WALL: sync_table(f); walk_init(f); fold_host(f, true); break;
	case FW_IDLE:
		if (!f->window)
			f->gen_node = gf_xzalloc_dense(t->nr ? t->nr : 1, sizeof *f->gen_node);
		f->gens = true;
		if (gp)
			fold_charges(f, gp, steady);
		else if ((rc = fold_idle(f, err)))
			goto out;
		break;
	case FW_CALLS: fold_calls(f); break;
	default:
		sbuf_setf(err, "unknown weight %d", o->weight);
		rc = GF_EUSAGE;
		goto out;
	}
	if (f->ovf) {
		sbuf_setf(err, "weights overflow 64-bit integers");
		rc = GF_EINPUT;
		goto out;
	}
	/* make sure self[] covers every node */
	if (f->tree->n > f->cap_self) {
		size_t old = f->cap_self;
		f->self = gf_xreallocarray(f->self, f->tree->n, sizeof *f->self);
		memset(f->self + old, 0, (f->tree->n - old) * sizeof *f->self);
		f->cap_self = f->tree->n;
	}
	if (o->normalise) {
		unsigned k = GF_MIN(3u, NUM_MAX_SCALE - scale);
		int64_t p = num_pow10(k);
		for (uint32_t i = 0; i < f->tree->n; i++)
			if (f->self[i] && !num_muldiv(f->self[i], p, nsel, &f->self[i])) {
				sbuf_setf(err, "weights overflow 64-bit integers while normalising");
				rc = GF_EINPUT;
				goto out;
			}
		scale += k;
	}
	if ((rc = ftree_set_scale(out, scale, err)))
		goto out;
	for (uint32_t i = 0; i < f->tree->n; i++)
		out->total[i] = f->self[i];
	for (uint32_t i = f->tree->n; i-- > 1;)
		if (__builtin_add_overflow(out->total[out->parent[i]], out->total[i], &out->total[out->parent[i]])) {
			sbuf_setf(err, "weights overflow 64-bit integers");
			rc = GF_EINPUT;
			goto out;
		}
	/* conservation: every weight added is under the root, once */
	GF_ASSERT(o->normalise || out->total[0] == f->total);
	ftree_sort(out);
	GF_ASSERT(o->normalise || out->total[0] == f->total);
	set_meta(f, nsel, f->levels, scale);
	if (st) {
		st->steps = nsel;
		st->total = f->total;
		st->items = f->items;
		st->unattributed = f->unattributed;
		st->threads = f->threads;
		st->threads_left_out = f->threads_left_out;
		st->left_out = f->left_out;
	}
out:
	free(f->self);
	free(f->map_py);
	free(f->map_other);
	free(f->map_step);
	free(f->map_leaf);
	for (size_t k = 0; k < GF_ARRAY_LEN(f->map_kind); k++)
		free(f->map_kind[k]);
	free(f->node_of);
	free(f->km);
	free(f->kept_of);
	free(f->wc);
	if (f->has_walk)
		trace_walk_release(&f->walk);
	free(f->sync_anc);
	free(f->buf);
	free(f->frames);
	free(f->win);
	free(f->stepwin);
	free(f->th_root);
	free(f->tid_dup);
	free(f->thw);
	free(f->thw_off);
	free(f->thw_n);
	free(f->gen_node);
	sbuf_release(&f->tmp);
	sbuf_release(&f->tmp2);
	return rc;
}

int fold_trace(struct trace *t, const struct fold_opts *o, struct ftree *out, struct fold_stats *st,
	       struct sbuf *err)
{
	return fold_run(t, o, NULL, false, out, st, err);
}
