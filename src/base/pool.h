/*
 * pool.h — string interning: each distinct byte string is stored once and
 * named by a dense uint32_t id (0, 1, 2, ... in order of first appearance).
 *
 *   struct pool *p = pool_new();
 *   uint32_t id = pool_intern(p, "aten::mm", 8);
 *   printf("%s\n", pool_str(p, id));
 *   pool_free(p);
 *
 * Strings live in append-only blocks and never move, so pool_str pointers stay
 * valid until pool_free. Strings may contain any bytes, NUL included; each is
 * also NUL-terminated for convenience. Equal hashes are confirmed by comparing
 * bytes.
 *
 * Layer: base.
 */
#ifndef GF_POOL_H
#define GF_POOL_H

#include "base/gf.h"

struct pool;

struct pool *pool_new(void);
void pool_free(struct pool *p);
/* @return the id of the string (existing or newly added). */
uint32_t pool_intern(struct pool *p, const char *s, size_t n);
uint32_t pool_intern_str(struct pool *p, const char *s);
/* @return the id, or UINT32_MAX when the string was never interned. */
uint32_t pool_find(const struct pool *p, const char *s, size_t n);
const char *pool_str(const struct pool *p, uint32_t id);
uint32_t pool_len(const struct pool *p, uint32_t id);
uint32_t pool_count(const struct pool *p);
/* Byte order of two strings of the pool (memcmp, then the shorter first). */
int pool_cmp(const struct pool *p, uint32_t a, uint32_t b);
/* Sorts ids[0..n) by their strings (pool_cmp; qsort_r: no state outside
 * the call, so pools may be sorted on several threads at once). */
void pool_sort_ids(const struct pool *p, uint32_t *ids, size_t n);
/* Frees the lookup table and trims the entries once interning is done (ids
 * and strings stay): pool_str is unchanged, pool_find scans, and the next
 * pool_intern rebuilds the table. */
void pool_compact(struct pool *p);
/* Bytes held by the pool (for memory accounting in benchmarks). */
size_t pool_bytes(const struct pool *p);

/* 64-bit hash of a byte string, used by the pool and by other tables. It
 * starts from gf_hash_seed, drawn at random when the program starts, so
 * input crafted to collide in one bucket (names, or trees whose node ids
 * collide) cannot be made in advance: lookups stay O(1) on hostile input.
 * Nothing printed depends on it (tables only look up; ids are handed out in
 * insertion order). */
extern uint64_t gf_hash_seed;
uint64_t gf_hash(const void *s, size_t n);
static inline uint64_t gf_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
