/* pool.c — string interning with blocks and an open-addressing index. */
#include "base/pool.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define POOL_BLOCK (4u << 20)      /* largest block */
#define POOL_FIRST_BLOCK (16u << 10) /* first block; each new one doubles */

struct pool_ent {
	const char *s;
	uint32_t len;
	uint32_t hash32;
};

struct pool {
	struct pool_ent *ent;
	uint32_t n, cap;
	uint32_t *slot; /* id + 1, 0 = empty */
	size_t nslot;   /* power of two */
	char **blocks;
	size_t nblocks;
	char *cur;
	size_t cur_left;
	size_t next_block; /* size of the next block */
	size_t bytes;
};

uint64_t gf_hash_seed;

/* Before main (and before any reader thread): getrandom, or failing that
 * whatever varies from run to run. */
__attribute__((constructor)) static void hash_seed_init(void)
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)&v ^ (uint64_t)getpid() << 16;
	}
	gf_hash_seed = gf_hash_u64(v);
}

uint64_t gf_hash(const void *s, size_t n)
{
	/* Word-at-a-time multiply-mix hash; good enough for interning and fast
	 * on long names (kernel names of several kilobytes are common). */
	const unsigned char *p = s;
	uint64_t h = gf_hash_seed ^ 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = (h ^ gf_hash_u64(w)) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, p, n);
	h = (h ^ gf_hash_u64(w ^ (uint64_t)n << 56)) * 0x9fb21c651e98df25ULL;
	return gf_hash_u64(h);
}

struct pool *pool_new(void)
{
	struct pool *p = gf_xcalloc(1, sizeof *p);
	p->nslot = 1024;
	p->slot = gf_xcalloc(p->nslot, sizeof *p->slot);
	return p;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nblocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->slot);
	free(p->ent);
	free(p);
}

static char *pool_store(struct pool *p, const char *s, size_t n)
{
	char *dst;
	if (n + 1 > POOL_BLOCK / 4) {
		/* Big strings get a block of their own. */
		dst = gf_xmalloc(n + 1);
		p->blocks = gf_xreallocarray(p->blocks, p->nblocks + 1, sizeof *p->blocks);
		/* keep the current block as the current one: insert before it */
		p->blocks[p->nblocks++] = dst;
	} else {
		if (p->cur_left < n + 1) {
			size_t bs = p->next_block ? p->next_block : POOL_FIRST_BLOCK;
			while (bs < n + 1)
				bs *= 2;
			p->next_block = bs < POOL_BLOCK ? bs * 2 : POOL_BLOCK;
			p->cur = gf_xmalloc(bs);
			p->cur_left = bs;
			p->blocks = gf_xreallocarray(p->blocks, p->nblocks + 1, sizeof *p->blocks);
			p->blocks[p->nblocks++] = p->cur;
		}
		dst = p->cur;
		p->cur += n + 1;
		p->cur_left -= n + 1;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
	p->bytes += n + 1;
	return dst;
}

/* (Re)builds the lookup table with ns slots (a power of two > 2n). */
static void pool_slots(struct pool *p, size_t ns)
{
	uint32_t *slot = gf_xcalloc(ns, sizeof *slot);
	for (uint32_t i = 0; i < p->n; i++) {
		size_t j = p->ent[i].hash32 & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = i + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->nslot = ns;
}

static void pool_rehash(struct pool *p)
{
	pool_slots(p, p->nslot * 2);
}

void pool_compact(struct pool *p)
{
	free(p->slot);
	p->slot = NULL;
	p->nslot = 0;
	if (p->n && p->n < p->cap) {
		p->ent = gf_xreallocarray(p->ent, p->n, sizeof *p->ent);
		p->cap = p->n;
	}
}

uint32_t pool_find(const struct pool *p, const char *s, size_t n)
{
	uint32_t h = (uint32_t)gf_hash(s, n);
	if (!p->slot) { /* compacted: no table until the next intern */
		for (uint32_t i = 0; i < p->n; i++)
			if (p->ent[i].hash32 == h && p->ent[i].len == n && memcmp(p->ent[i].s, s, n) == 0)
				return i;
		return UINT32_MAX;
	}
	size_t j = h & (p->nslot - 1);
	while (p->slot[j]) {
		const struct pool_ent *e = &p->ent[p->slot[j] - 1];
		if (e->hash32 == h && e->len == n && memcmp(e->s, s, n) == 0)
			return p->slot[j] - 1;
		j = (j + 1) & (p->nslot - 1);
	}
	return UINT32_MAX;
}

uint32_t pool_intern(struct pool *p, const char *s, size_t n)
{
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	uint32_t h = (uint32_t)gf_hash(s, n);
	if (!p->slot) { /* compacted: rebuild the table */
		size_t ns = 1024;
		while (ns <= (size_t)p->n * 2)
			ns *= 2;
		pool_slots(p, ns);
	}
	size_t j = h & (p->nslot - 1);
	while (p->slot[j]) {
		const struct pool_ent *e = &p->ent[p->slot[j] - 1];
		if (e->hash32 == h && e->len == n && memcmp(e->s, s, n) == 0)
			return p->slot[j] - 1;
		j = (j + 1) & (p->nslot - 1);
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->ent = gf_xreallocarray(p->ent, p->cap, sizeof *p->ent);
	}
	uint32_t id = p->n++;
	p->ent[id].s = pool_store(p, s, n);
	p->ent[id].len = (uint32_t)n;
	p->ent[id].hash32 = h;
	p->slot[j] = id + 1;
	if ((size_t)p->n * 2 > p->nslot)
		pool_rehash(p);
	return id;
}

uint32_t pool_intern_str(struct pool *p, const char *s)
{
	return pool_intern(p, s, strlen(s));
}

const char *pool_str(const struct pool *p, uint32_t id)
{
	return id < p->n ? p->ent[id].s : "";
}

uint32_t pool_len(const struct pool *p, uint32_t id)
{
	return id < p->n ? p->ent[id].len : 0;
}

uint32_t pool_count(const struct pool *p)
{
	return p->n;
}

size_t pool_bytes(const struct pool *p)
{
	return p->bytes + (size_t)p->cap * sizeof *p->ent + p->nslot * sizeof *p->slot;
}

int pool_cmp(const struct pool *p, uint32_t a, uint32_t b)
{
	uint32_t la = pool_len(p, a), lb = pool_len(p, b);
	int c = memcmp(pool_str(p, a), pool_str(p, b), la < lb ? la : lb);
	return c ? c : (la < lb ? -1 : la > lb);
}

static int cmp_ids(const void *x, const void *y, void *p)
{
	return pool_cmp(p, *(const uint32_t *)x, *(const uint32_t *)y);
}

void pool_sort_ids(const struct pool *p, uint32_t *ids, size_t n)
{
	if (n > 1)
		qsort_r(ids, n, sizeof *ids, cmp_ids, (void *)p);
	if (GF_CHECKS)
		for (size_t i = 1; i < n; i++)
			GF_ASSERT(pool_cmp(p, ids[i - 1], ids[i]) <= 0);
}
