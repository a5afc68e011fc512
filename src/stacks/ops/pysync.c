/* pysync.c — hidden syncs in py-spy folded stacks (see pysync.h). */
#include "stacks/ops/pysync.h"

#include "base/names.h"
#include "base/num.h"
#include "base/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the function part of a py-spy frame: up to " (" when the frame
 * ends in ')'. */
static size_t func_len(const char *f, size_t n)
{
	if (n < 3 || f[n - 1] != ')')
		return n;
	for (size_t i = n - 1; i > 0; i--)
		if (f[i] == '(' && f[i - 1] == ' ')
			return i - 1;
	return n;
}

size_t pysync_sync_symbol(const char *frame, size_t n)
{
	/* the one classifier's blocking calls (names_api: synchronize calls,
	 * memcpy without Async) and every memcpy: a sampled stack inside an
	 * async copy is the host blocked on pageable memory */
	size_t fl = func_len(frame, n);
	return names_api(frame, fl) & (NAMES_API_SYNC | NAMES_API_MEMCPY) ? fl : 0;
}

bool pysync_python_frame(const char *f, size_t n, struct sbuf *label)
{
	size_t kl;
	if (names_py_source(f, n, &kl) && kl >= 3 && !memcmp(f + kl - 3, ".py", 3)) {
		/* a trace's python_function frame, "path(123): func", as fold writes it */
		sbuf_add(label, f, n);
		return true;
	}
	const char *file;
	size_t fnl, filel;
	if (names_py_perf(f, n, &fnl, &file, &filel) && filel >= 3 && !memcmp(file + filel - 3, ".py", 3)) {
		/* CPython -X perf, as perf script shows it: "py::func:path.py" */
		sbuf_add(label, file, filel);
		sbuf_addstr(label, ": ");
		sbuf_add(label, f + 4, fnl);
		return true;
	}
	size_t fl = func_len(f, n);
	if (fl == n)
		return false;
	const char *in = f + fl + 2;           /* after " (" */
	size_t inl = n - fl - 3;               /* without the ')' */
	size_t pl = inl, ll = 0;
	const char *line = NULL;
	/* "path:line" — the line is the digits after the last ':' */
	for (size_t i = inl; i > 0; i--) {
		if (in[i - 1] == ':') {
			size_t k = i;
			while (k < inl && in[k] >= '0' && in[k] <= '9')
				k++;
			if (k == inl && k > i) {
				pl = i - 1;
				line = in + i;
				ll = inl - i;
			}
			break;
		}
	}
	if (pl < 3 || memcmp(in + pl - 3, ".py", 3))
		return false;
	sbuf_add(label, in, pl);
	if (line) {
		sbuf_addch(label, '(');
		sbuf_add(label, line, ll);
		sbuf_addch(label, ')');
	}
	sbuf_addstr(label, ": ");
	sbuf_add(label, f, fl);
	return true;
}

void pysync_wilson(double k, double n, double *lo, double *hi)
{
	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	const double z = 1.96;
	double p = k / n, z2 = z * z;
	double den = 1 + z2 / n;
	double c = (p + z2 / (2 * n)) / den;
	double h = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
}

struct symw {
	char *sym;
	int64_t w;
};

struct acc {
	char *site;
	VEC(struct symw) syms;
	int64_t w;
};

/* Sites and (site, symbol) pairs are interned in pools whose ids are dense
 * in order of first appearance: a site's id is its index in accs, a pair's
 * id indexes symref (where that symbol sits in its site's syms), so each
 * sample costs O(its names), not O(sites + symbols so far). */
struct accmap {
	struct pool *sites, *pairs;
	VEC(size_t) symref;
	struct sbuf key;
};

static struct acc *find_acc(void *vp, struct accmap *m, const char *site)
{
	VEC(struct acc) *v = vp;
	uint32_t id = pool_intern(m->sites, site, strlen(site));
	if (id < v->n)
		return &v->v[id];
	struct acc *a = vec_add(v);
	a->site = gf_xstrdup(site);
	return a;
}

/* The symbol entry sym[0..symlen) of site a (index ai), added when new. */
static void add_sym(struct accmap *m, struct acc *a, size_t ai, const char *sym, size_t symlen, int64_t w)
{
	uint32_t i32 = (uint32_t)ai;
	sbuf_reset(&m->key);
	sbuf_add(&m->key, (const char *)&i32, sizeof i32);
	/* the symbol as stored (gf_xstrndup stops at a NUL byte) */
	const char *z = memchr(sym, '\0', symlen);
	sbuf_add(&m->key, sym, z ? (size_t)(z - sym) : symlen);
	uint32_t id = pool_intern(m->pairs, m->key.buf, m->key.len);
	if (id < m->symref.n) {
		a->syms.v[m->symref.v[id]].w += w;
		return;
	}
	vec_push(&m->symref, a->syms.n);
	struct symw sw = { gf_xstrndup(sym, symlen), w };
	vec_push(&a->syms, sw);
}

static int cmp_site(const void *a, const void *b)
{
	const struct pysync_site *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->site, y->site);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct symw *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return strcmp(x->sym, y->sym);
}

static double to_d(int64_t w, unsigned scale)
{
	return (double)w / (double)num_pow10(scale);
}

int pysync_analyze(const struct ftree *t, struct pysync_result *r, struct sbuf *err)
{
	memset(r, 0, sizeof *r);
	r->scale = t->scale;
	for (uint32_t c = t->n ? t->child[0] : FT_NONE; c != FT_NONE; c = t->sib[c])
		r->total += t->total[c];
	if (r->total <= 0) {
		sbuf_setf(err, "no samples in the folded input");
		return GF_EINPUT;
	}
	VEC(struct acc) accs = VEC_INIT;
	VEC(uint32_t) path = VEC_INIT;
	struct sbuf lab = SBUF_INIT, fallback = SBUF_INIT;
	struct accmap am = { pool_new(), pool_new(), VEC_INIT, SBUF_INIT };
	/* iterative DFS: path holds the nodes from the root's child to the current */
	uint32_t node = t->child[0];
	while (node != FT_NONE) {
		vec_push(&path, node);
		int64_t self = ftree_self(t, node, 0);
		if (self > 0) {
			/* outermost sync frame */
			size_t s = path.n;
			size_t symlen = 0;
			for (size_t i = 0; i < path.n; i++) {
				const char *f = pool_str(t->names, t->name[path.v[i]]);
				size_t fl = pool_len(t->names, t->name[path.v[i]]);
				if ((symlen = pysync_sync_symbol(f, fl))) {
					s = i;
					break;
				}
			}
			if (s < path.n) {
				sbuf_reset(&lab);
				sbuf_reset(&fallback);
				bool found = false, any = false;
				for (size_t i = s; i-- > 0;) {
					const char *f = pool_str(t->names, t->name[path.v[i]]);
					size_t fl = pool_len(t->names, t->name[path.v[i]]);
					struct sbuf one = SBUF_INIT;
					if (!pysync_python_frame(f, fl, &one)) {
						sbuf_release(&one);
						continue;
					}
					/* the path is the text before the "(line): " we wrote */
					const char *lp = strchr(one.buf, '(');
					size_t plen = lp ? (size_t)(lp - one.buf) : one.len;
					if (!any) {
						sbuf_addstr(&fallback, one.buf);
						any = true;
					}
					if (!names_in_torch(one.buf, plen)) {
						sbuf_addstr(&lab, one.buf);
						found = true;
					}
					sbuf_release(&one);
					if (found)
						break;
				}
				const char *site = found ? lab.buf : any ? fallback.buf : "[no Python frame]";
				struct acc *a = find_acc(&accs, &am, site);
				a->w += self;
				const char *sym = pool_str(t->names, t->name[path.v[s]]);
				add_sym(&am, a, (size_t)(a - accs.v), sym, symlen, self);
				r->sync += self;
			}
		}
		/* next node: first child, else next sibling up the path */
		if (t->child[node] != FT_NONE) {
			node = t->child[node];
			continue;
		}
		node = FT_NONE;
		while (path.n) {
			uint32_t top = path.v[--path.n];
			if (t->sib[top] != FT_NONE) {
				node = t->sib[top];
				break;
			}
		}
	}
	double n = to_d(r->total, r->scale);
	r->sync_share = to_d(r->sync, r->scale) / n;
	pysync_wilson(to_d(r->sync, r->scale), n, &r->sync_ci_lo, &r->sync_ci_hi);
	r->sites = gf_xcalloc(accs.n ? accs.n : 1, sizeof *r->sites);
	r->nsites = accs.n;
	for (size_t i = 0; i < accs.n; i++) {
		struct acc *a = &accs.v[i];
		struct pysync_site *ps = &r->sites[i];
		qsort(a->syms.v, a->syms.n, sizeof *a->syms.v, cmp_sym);
		struct sbuf sy = SBUF_INIT;
		for (size_t k = 0; k < a->syms.n; k++) {
			sbuf_addf(&sy, "%s%s", k ? ", " : "", a->syms.v[k].sym);
			free(a->syms.v[k].sym);
		}
		vec_free(&a->syms);
		ps->site = a->site;
		ps->symbols = sbuf_detach(&sy, NULL);
		ps->samples = a->w;
		double k = to_d(a->w, r->scale);
		ps->share = k / n;
		pysync_wilson(k, n, &ps->ci_lo, &ps->ci_hi);
		/* integer comparison: w * 1000 < total * permille */
		__int128 lhs = (__int128)a->w * 1000, rhs = (__int128)r->total * PYSYNC_NOISE_PERMILLE;
		ps->noise = lhs < rhs;
	}
	qsort(r->sites, r->nsites, sizeof *r->sites, cmp_site);
	vec_free(&accs);
	vec_free(&path);
	sbuf_release(&lab);
	sbuf_release(&fallback);
	pool_free(am.sites);
	pool_free(am.pairs);
	vec_free(&am.symref);
	sbuf_release(&am.key);
	return GF_OK;
}

void pysync_release(struct pysync_result *r)
{
	for (size_t i = 0; i < r->nsites; i++) {
		free(r->sites[i].site);
		free(r->sites[i].symbols);
	}
	free(r->sites);
	memset(r, 0, sizeof *r);
}
