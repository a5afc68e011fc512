/*
 * vec.h — typed growable arrays as macros.
 *
 *   VEC(int) v = VEC_INIT;
 *   vec_push(&v, 3);
 *   for (size_t i = 0; i < v.n; i++) use(v.v[i]);
 *   vec_free(&v);
 *
 * Layer: base. The array owns v.v; vec_free releases it. Elements are moved by
 * memcpy when the array grows, so do not keep pointers into it across pushes.
 */
#ifndef GF_VEC_H
#define GF_VEC_H

#include "base/gf.h"

#include <stdlib.h>
#include <string.h>

#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_INIT { NULL, 0, 0 }

/* Makes room for at least `need` elements of size `elem`. */
static inline void vec_reserve_(void **v, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 8;
	while (c < need)
		c = c + c / 2 + 8;
	*v = gf_xreallocarray(*v, c, elem);
	*cap = c;
}

#define vec_reserve(vp, need) \
	vec_reserve_((void **)&(vp)->v, &(vp)->cap, (need), sizeof(*(vp)->v))
#define vec_push(vp, x) \
	(vec_reserve((vp), (vp)->n + 1), (vp)->v[(vp)->n++] = (x))
/* Appends one zeroed element and returns a pointer to it. */
#define vec_add(vp) \
	(vec_reserve((vp), (vp)->n + 1), memset(&(vp)->v[(vp)->n], 0, sizeof(*(vp)->v)), &(vp)->v[(vp)->n++])
#define vec_last(vp) ((vp)->v[(vp)->n - 1])
#define vec_free(vp) (free((vp)->v), (vp)->v = NULL, (vp)->n = (vp)->cap = 0)

#endif
