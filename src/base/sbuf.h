/*
 * sbuf.h — growable byte buffer.
 *
 * Invariants (asserted by tests/unit/test_base.c after every operation):
 *  - buf is never NULL, so it can always be used as a C string;
 *  - buf has at least len + 1 bytes and buf[len] == '\0' (the buffer may hold
 *    NUL bytes before len: it is a byte buffer, not only a string).
 * Verbs: sbuf_release frees, sbuf_reset empties but keeps the memory,
 * sbuf_detach hands the storage to the caller (who then frees it).
 *
 * Layer: base.
 */
#ifndef GF_SBUF_H
#define GF_SBUF_H

#include "base/gf.h"

#include <stdarg.h>
#include <stdio.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t alloc; /* 0 while buf points at the shared empty string */
};

extern char sbuf_empty_[1];
#define SBUF_INIT { sbuf_empty_, 0, 0 }

void sbuf_init(struct sbuf *b, size_t hint);
void sbuf_release(struct sbuf *b);
static inline void sbuf_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->alloc)
		b->buf[0] = 0;
}
/* Returns the NUL-terminated storage (caller frees); b is left empty. */
char *sbuf_detach(struct sbuf *b, size_t *len);
/* Ensures room for `extra` more bytes plus the NUL. */
void sbuf_grow(struct sbuf *b, size_t extra);
void sbuf_add(struct sbuf *b, const void *p, size_t n);
void sbuf_addstr(struct sbuf *b, const char *s);
static inline void sbuf_addch(struct sbuf *b, int c)
{
	if (b->len + 1 >= b->alloc)
		sbuf_grow(b, 1);
	b->buf[b->len++] = (char)c;
	b->buf[b->len] = 0;
}
void sbuf_addf(struct sbuf *b, const char *fmt, ...) GF_PRINTF(2, 3);
void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap);
/* Replaces the content by a formatted message (used for error buffers). */
void sbuf_setf(struct sbuf *b, const char *fmt, ...) GF_PRINTF(2, 3);
void sbuf_setlen(struct sbuf *b, size_t len);
/* Appends what is left to read of fp. @return false on a read error. */
bool sbuf_add_file(struct sbuf *b, FILE *fp);

#endif
