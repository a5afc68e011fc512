/* ftree.c — the call tree (see ftree.h). */
#include "stacks/ftree.h"

#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

void ftree_init(struct ftree *t, struct pool *names, unsigned flags)
{
	memset(t, 0, sizeof *t);
	t->names = names ? names : pool_new();
	t->own_names = names == NULL;
	t->flamechart = (flags & FT_FLAMECHART) != 0;
	t->ncols = 1;
	t->nslot = 1024;
	t->slot = gf_xcalloc(t->nslot, sizeof *t->slot);
	/* the root */
	t->cap = 1024;
	t->name = gf_xmalloc(t->cap * sizeof *t->name);
	t->parent = gf_xmalloc(t->cap * sizeof *t->parent);
	t->child = gf_xmalloc(t->cap * sizeof *t->child);
	t->sib = gf_xmalloc(t->cap * sizeof *t->sib);
	t->total = gf_xmalloc(t->cap * sizeof *t->total);
	t->nkid = gf_xmalloc(t->cap * sizeof *t->nkid);
	t->nkid[0] = 0;
	if (t->flamechart)
		t->last = gf_xmalloc(t->cap * sizeof *t->last);
	t->n = 1;
	t->name[0] = FT_NONE;
	t->parent[0] = FT_NONE;
	t->child[0] = t->sib[0] = FT_NONE;
	t->total[0] = 0;
	if (t->last)
		t->last[0] = FT_NONE;
}

void ftree_release(struct ftree *t)
{
	free(t->name);
	free(t->parent);
	free(t->child);
	free(t->sib);
	free(t->last);
	free(t->total);
	free(t->total2);
	free(t->nkid);
	free(t->slot);
	if (t->own_names)
		pool_free(t->names);
	ftree_meta_clear(&t->meta);
	memset(t, 0, sizeof *t);
}

static inline size_t slot_of(uint32_t parent, uint32_t name, size_t nslot)
{
	return (size_t)gf_hash_u64((((uint64_t)parent << 32) | name) ^ gf_hash_seed) & (nslot - 1);
}

static inline bool wide(const struct ftree *t, uint32_t parent)
{
	return t->nkid[parent] > FT_SCAN_KIDS;
}

static void slot_put(uint32_t *slot, size_t ns, uint32_t parent, uint32_t name, uint32_t i)
{
	size_t j = slot_of(parent, name, ns);
	while (slot[j])
		j = (j + 1) & (ns - 1);
	slot[j] = i + 1;
}

/* Rebuilds the table with room for `want` entries at load <= 3/4. */
static void reindex(struct ftree *t, size_t want)
{
	size_t ns = 1024;
	while (want * 4 > ns * 3)
		ns *= 2;
	uint32_t *slot = gf_xcalloc(ns, sizeof *slot);
	size_t nh = 0;
	for (uint32_t i = 1; i < t->n; i++)
		if (wide(t, t->parent[i])) {
			slot_put(slot, ns, t->parent[i], t->name[i], i);
			nh++;
		}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	t->nhashed = nh;
}

static void rehash(struct ftree *t)
{
	reindex(t, t->nslot * 3 / 4 + 1);
}

/* Adds child i of parent to the hash table (and all of parent's children
 * when parent just became wide). */
static void index_child(struct ftree *t, uint32_t parent, uint32_t i)
{
	if (!t->slot) { /* after ftree_compact: i is already in the tree */
		reindex(t, t->n);
		return;
	}
	if (t->nkid[parent] == FT_SCAN_KIDS + 1) {
		for (uint32_t c = t->child[parent]; c != FT_NONE; c = t->sib[c]) {
			slot_put(t->slot, t->nslot, parent, t->name[c], c);
			t->nhashed++;
		}
	} else {
		slot_put(t->slot, t->nslot, parent, t->name[i], i);
		t->nhashed++;
	}
	if (t->nhashed * 4 > t->nslot * 3) /* load <= 3/4 */
		rehash(t);
}

/* Every per-node array to c entries. */
static void resize(struct ftree *t, uint32_t c)
{
	t->name = gf_xreallocarray(t->name, c, sizeof *t->name);
	t->parent = gf_xreallocarray(t->parent, c, sizeof *t->parent);
	t->child = gf_xreallocarray(t->child, c, sizeof *t->child);
	t->sib = gf_xreallocarray(t->sib, c, sizeof *t->sib);
	t->total = gf_xreallocarray(t->total, c, sizeof *t->total);
	t->nkid = gf_xreallocarray(t->nkid, c, sizeof *t->nkid);
	if (t->total2)
		t->total2 = gf_xreallocarray(t->total2, c, sizeof *t->total2);
	if (t->last)
		t->last = gf_xreallocarray(t->last, c, sizeof *t->last);
	t->cap = c;
}

static void grow(struct ftree *t)
{
	resize(t, t->cap * 2);
}

uint32_t ftree_find(const struct ftree *t, uint32_t parent, uint32_t name)
{
	if (t->flamechart) {
		uint32_t l = t->last[parent];
		return l != FT_NONE && t->name[l] == name ? l : FT_NONE;
	}
	if (!wide(t, parent) || !t->slot) {
		for (uint32_t c = t->child[parent]; c != FT_NONE; c = t->sib[c])
			if (t->name[c] == name)
				return c;
		return FT_NONE;
	}
	size_t j = slot_of(parent, name, t->nslot);
	for (uint32_t s; (s = t->slot[j]); j = (j + 1) & (t->nslot - 1)) {
		uint32_t i = s - 1;
		if (t->parent[i] == parent && t->name[i] == name)
			return i;
	}
	return FT_NONE;
}

uint32_t ftree_child(struct ftree *t, uint32_t parent, uint32_t name)
{
	uint32_t found = ftree_find(t, parent, name);
	if (found != FT_NONE)
		return found;
	if (t->n == t->cap)
		grow(t);
	uint32_t i = t->n++;
	t->name[i] = name;
	t->parent[i] = parent;
	t->child[i] = FT_NONE;
	t->nkid[i] = 0;
	if (t->nkid[parent] < UINT8_MAX)
		t->nkid[parent]++;
	t->total[i] = 0;
	if (t->total2)
		t->total2[i] = 0;
	if (t->flamechart) {
		/* append at the end to keep input order */
		t->sib[i] = FT_NONE;
		t->last[i] = FT_NONE;
		if (t->last[parent] == FT_NONE)
			t->child[parent] = i;
		else
			t->sib[t->last[parent]] = i;
		t->last[parent] = i;
		return i;
	}
	t->sib[i] = t->child[parent];
	t->child[parent] = i;
	if (wide(t, parent))
		index_child(t, parent, i);
	return i;
}

uint32_t ftree_add(struct ftree *t, const uint32_t *frames, size_t depth,
		   const int64_t *w, struct sbuf *err)
{
	/* Check overflow on the root first: every node's total is <= the
	 * root's for non-negative weights; negative weights (diff deltas are
	 * never stored here) are rejected by the parsers. */
	int64_t r0, r1 = 0;
	if (__builtin_add_overflow(t->total[0], w[0], &r0) ||
	    (t->ncols == 2 && __builtin_add_overflow(t->total2[0], w[1], &r1))) {
		sbuf_setf(err, "total weight overflows 64-bit integers");
		return FT_NONE;
	}
	t->total[0] = r0;
	if (t->ncols == 2)
		t->total2[0] = r1;
	uint32_t node = 0;
	for (size_t d = 0; d < depth; d++) {
		node = ftree_child(t, node, frames[d]);
		t->total[node] += w[0];
		if (t->ncols == 2)
			t->total2[node] += w[1];
	}
	return node;
}

void ftree_compact(struct ftree *t)
{
	free(t->slot);
	t->slot = NULL;
	t->nslot = 0;
	t->nhashed = 0;
	if (t->cap > t->n)
		resize(t, t->n);
}

size_t ftree_bytes(const struct ftree *t)
{
	size_t per = 4 * sizeof(uint32_t) + sizeof(int64_t) + sizeof(uint8_t);
	if (t->total2)
		per += sizeof(int64_t);
	if (t->last)
		per += sizeof(uint32_t);
	return (size_t)t->cap * per + t->nslot * sizeof *t->slot;
}

void ftree_make_diff(struct ftree *t)
{
	if (t->ncols == 2)
		return;
	t->total2 = gf_xcalloc(t->cap, sizeof *t->total2);
	t->ncols = 2;
}

int ftree_set_scale(struct ftree *t, unsigned scale, struct sbuf *err)
{
	if (scale <= t->scale)
		return GF_OK;
	unsigned k = scale - t->scale;
	/* all weights are <= the root's, so checking the root is enough */
	int64_t a = t->total[0], b = t->ncols == 2 ? t->total2[0] : 0;
	int64_t p = 1;
	for (unsigned i = 0; i < k; i++)
		p *= 10;
	if (__builtin_mul_overflow(a, p, &a) || __builtin_mul_overflow(b, p, &b)) {
		sbuf_setf(err, "weights with %u decimals overflow 64-bit integers", scale);
		return GF_EINPUT;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		t->total[i] *= p;
		if (t->total2)
			t->total2[i] *= p;
	}
	t->scale = scale;
	return GF_OK;
}

int64_t ftree_self(const struct ftree *t, uint32_t node, int col)
{
	const int64_t *w = col ? t->total2 : t->total;
	int64_t s = w[node];
	for (uint32_t c = t->child[node]; c != FT_NONE; c = t->sib[c])
		s -= w[c];
	return s;
}

unsigned ftree_depth(const struct ftree *t, uint32_t node)
{
	unsigned d = 0;
	while (node != 0 && node != FT_NONE) {
		node = t->parent[node];
		d++;
	}
	return d;
}

void ftree_path(const struct ftree *t, uint32_t node, struct sbuf *b)
{
	uint32_t stackbuf[256], *st = stackbuf;
	size_t n = 0, cap = GF_ARRAY_LEN(stackbuf);
	for (uint32_t x = node; x != 0 && x != FT_NONE; x = t->parent[x]) {
		if (n == cap) {
			uint32_t *ns = gf_xreallocarray(st == stackbuf ? NULL : st, cap * 2, sizeof *ns);
			if (st == stackbuf)
				memcpy(ns, stackbuf, sizeof stackbuf);
			st = ns;
			cap *= 2;
		}
		st[n++] = x;
	}
	for (size_t i = n; i-- > 0;) {
		sbuf_add(b, pool_str(t->names, t->name[st[i]]), pool_len(t->names, t->name[st[i]]));
		if (i)
			sbuf_addch(b, ';');
	}
	if (st != stackbuf)
		free(st);
}

/* ---- sorting ---- */

/* Two nodes by the rank of their names (rank: per node). */
static int cmp_nodes_by_rank(const void *a, const void *b, void *rank)
{
	const uint32_t *r = rank;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return r[x] < r[y] ? -1 : r[x] > r[y];
}

void ftree_sort(struct ftree *t)
{
	if (t->flamechart || t->n <= 1)
		return;
	/* Rank every name once, then sort children by integer rank. */
	uint32_t nn = pool_count(t->names);
	uint32_t *ids = gf_xmalloc((size_t)(nn ? nn : 1) * sizeof *ids);
	for (uint32_t i = 0; i < nn; i++)
		ids[i] = i;
	pool_sort_ids(t->names, ids, nn);
	uint32_t *rank = gf_xmalloc((size_t)(nn ? nn : 1) * sizeof *rank);
	for (uint32_t i = 0; i < nn; i++)
		rank[ids[i]] = i;
	free(ids); /* each table is freed once the next is made: 8 bytes per name at most */
	/* node rank table: rank of each node's name */
	uint32_t *nrank = gf_xmalloc((size_t)t->n * sizeof *nrank);
	for (uint32_t i = 1; i < t->n; i++)
		nrank[i] = rank[t->name[i]];
	nrank[0] = 0;
	free(rank);
	{
		uint32_t *kids = NULL;
		size_t kcap = 0;
		for (uint32_t p = 0; p < t->n; p++) {
			size_t k = 0;
			for (uint32_t c = t->child[p]; c != FT_NONE; c = t->sib[c]) {
				if (k == kcap) {
					kcap = kcap ? kcap * 2 : 64;
					kids = gf_xreallocarray(kids, kcap, sizeof *kids);
				}
				kids[k++] = c;
			}
			if (k < 2)
				continue;
			qsort_r(kids, k, sizeof *kids, cmp_nodes_by_rank, nrank);
			t->child[p] = kids[0];
			for (size_t i = 0; i + 1 < k; i++)
				t->sib[kids[i]] = kids[i + 1];
			t->sib[kids[k - 1]] = FT_NONE;
		}
		free(kids);
	}
	free(nrank);
}

/* ---- metadata ---- */

const char *ftree_meta_get(const struct ftree_meta *m, const char *key)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].val;
	return NULL;
}

void ftree_meta_set(struct ftree_meta *m, const char *key, const char *val)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key)) {
			free(m->kv[i].val);
			m->kv[i].val = gf_xstrdup(val);
			return;
		}
	if (m->n == FT_MAX_META)
		return;
	m->kv[m->n].key = gf_xstrdup(key);
	m->kv[m->n].val = gf_xstrdup(val);
	m->n++;
}

void ftree_meta_del(struct ftree_meta *m, const char *key)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key)) {
			free(m->kv[i].key);
			free(m->kv[i].val);
			memmove(&m->kv[i], &m->kv[i + 1], (m->n - i - 1) * sizeof m->kv[0]);
			m->n--;
			return;
		}
}

void ftree_meta_clear(struct ftree_meta *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		free(m->kv[i].key);
		free(m->kv[i].val);
	}
	m->n = 0;
}

void ftree_meta_copy(struct ftree_meta *dst, const struct ftree_meta *src)
{
	ftree_meta_clear(dst);
	for (unsigned i = 0; i < src->n; i++)
		ftree_meta_set(dst, src->kv[i].key, src->kv[i].val);
}

int ftree_rebase(const struct ftree *src, struct ftree *dst, const char *const *base, size_t nbase,
		 struct sbuf *err)
{
	ftree_meta_copy(&dst->meta, &src->meta);
	dst->scale = src->scale;
	if (src->ncols == 2 && dst->ncols != 2)
		ftree_make_diff(dst);
	if (!src->n)
		return GF_OK;
	/* which names are base symbols (src's pool, shared with dst) */
	uint32_t nn = pool_count(src->names);
	uint8_t *is_base = gf_xcalloc(nn ? nn : 1, 1);
	for (size_t i = 0; i < nbase; i++) {
		uint32_t id = pool_find(src->names, base[i], strlen(base[i]));
		if (id != UINT32_MAX && id < nn)
			is_base[id] = 1;
	}
	VEC(uint32_t) path = VEC_INIT;
	VEC(uint32_t) names = VEC_INIT;
	int rc = GF_OK;
	uint32_t node = src->child[0];
	while (node != FT_NONE && !rc) {
		vec_push(&path, node);
		int64_t w[2] = { ftree_self(src, node, 0), src->ncols == 2 ? ftree_self(src, node, 1) : 0 };
		if (w[0] || w[1]) {
			/* inferno's rule: the innermost match above the leaf (it
			 * compares the leaf with its count, "SYM 3", never equal) */
			size_t at = path.n - 1;
			while (at > 0 && !is_base[src->name[path.v[at - 1]]])
				at--;
			if (at > 0) {
				names.n = 0;
				for (size_t i = at - 1; i < path.n; i++)
					vec_push(&names, src->name[path.v[i]]);
				if (ftree_add(dst, names.v, names.n, w, err) == FT_NONE)
					rc = GF_EINPUT;
			}
		}
		if (src->child[node] != FT_NONE) {
			node = src->child[node];
			continue;
		}
		node = FT_NONE;
		while (path.n) {
			uint32_t top = path.v[--path.n];
			if (src->sib[top] != FT_NONE) {
				node = src->sib[top];
				break;
			}
		}
	}
	vec_free(&path);
	vec_free(&names);
	free(is_base);
	return rc;
}

/* ---- merge ---- */

struct mkey {
	const char *s;
	uint32_t n;
	char end; /* ' ' when the node has a self weight (its own line comes first), else ';' */
	uint32_t node, made; /* src's node, and dst's */
};

static int cmp_mkey(const void *x, const void *y)
{
	const struct mkey *a = x, *b = y;
	uint32_t m = a->n < b->n ? a->n : b->n;
	int c = memcmp(a->s, b->s, m);
	if (c)
		return c;
	unsigned ca = a->n == m ? (unsigned char)a->end : (unsigned char)a->s[m];
	unsigned cb = b->n == m ? (unsigned char)b->end : (unsigned char)b->s[m];
	return (ca > cb) - (ca < cb);
}

int ftree_merge(struct ftree *dst, const struct ftree *src, uint64_t *stacks, struct sbuf *err)
{
	*stacks = 0;
	int rc = ftree_set_scale(dst, src->scale, err);
	if (rc)
		return rc;
	int64_t mul = 1;
	for (unsigned k = src->scale; k < dst->scale; k++)
		mul *= 10;
	int64_t root;
	if (__builtin_mul_overflow(src->total[0], mul, &root) || __builtin_add_overflow(dst->total[0], root, &root)) {
		sbuf_setf(err, "weights overflow 64-bit integers");
		return GF_EINPUT;
	}
	uint32_t nn = pool_count(src->names);
	uint32_t *nmap = gf_xmalloc((size_t)(nn ? nn : 1) * sizeof *nmap);
	for (uint32_t i = 0; i < nn; i++)
		nmap[i] = FT_NONE;
	/* depth-first: (src node, dst node) pairs on a stack; a node's children
	 * are pushed in reverse key order so that they are created in key order */
	size_t cap = 256, sp = 0, kcap = 0;
	uint32_t *st = gf_xmalloc(cap * 2 * sizeof *st);
	struct mkey *kids = NULL;
	st[sp++] = 0;
	st[sp++] = 0;
	dst->total[0] = root;
	while (sp && !rc) {
		uint32_t d = st[--sp], sn = st[--sp];
		size_t k = 0;
		for (uint32_t c = src->child[sn]; c != FT_NONE; c = src->sib[c]) {
			if (k == kcap)
				kids = gf_xreallocarray(kids, kcap = kcap ? 2 * kcap : 64, sizeof *kids);
			kids[k++] = (struct mkey){ pool_str(src->names, src->name[c]), pool_len(src->names, src->name[c]),
						   ftree_self(src, c, 0) ? ' ' : ';', c, FT_NONE };
		}
		if (k > 1)
			qsort(kids, k, sizeof *kids, cmp_mkey);
		if (sp + 2 * k > cap * 2) {
			while (sp + 2 * k > cap * 2)
				cap *= 2;
			st = gf_xreallocarray(st, cap * 2, sizeof *st);
		}
		for (size_t i = 0; i < k && !rc; i++) {
			uint32_t c = kids[i].node, nm = src->name[c];
			if (nmap[nm] == FT_NONE)
				nmap[nm] = pool_intern(dst->names, kids[i].s, kids[i].n);
			uint32_t dc = kids[i].made = ftree_child(dst, d, nmap[nm]);
			int64_t w;
			if (__builtin_mul_overflow(src->total[c], mul, &w) ||
			    __builtin_add_overflow(dst->total[dc], w, &dst->total[dc])) {
				sbuf_setf(err, "weights overflow 64-bit integers");
				rc = GF_EINPUT;
			}
			if (kids[i].end == ' ')
				++*stacks;
		}
		for (size_t i = k; i-- > 0 && !rc;) {
			st[sp++] = kids[i].node;
			st[sp++] = kids[i].made;
		}
	}
	free(kids);
	free(st);
	free(nmap);
	return rc;
}
