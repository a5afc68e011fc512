/* gf.c — allocation helpers and error-code mapping (see gf.h). */
#include "base/gf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void (*gf_oom_hook)(void);

static GF_NORETURN void oom(size_t n)
{
	if (gf_oom_hook) {
		void (*hook)(void) = gf_oom_hook;
		gf_oom_hook = NULL; /* once, even if the hook itself runs out */
		hook();
	}
	fprintf(stderr, "gpuflame: out of memory allocating %zu bytes\n", n);
	exit(GF_EXIT_INTERNAL);
}

void gf_assert_fail(const char *cond, const char *file, int line)
{
	fprintf(stderr, "gpuflame: internal error: %s:%d: %s does not hold\n", file, line, cond);
	fflush(stderr);
	abort();
}

int gf_err_exit(int err)
{
	switch (err) {
	case GF_OK: return GF_EXIT_OK;
	case GF_EINPUT: return GF_EXIT_INPUT;
	case GF_EUSAGE: return GF_EXIT_USAGE;
	case GF_EOUTPUT: return GF_EXIT_OUTPUT;
	default: return GF_EXIT_INTERNAL;
	}
}

void *gf_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *gf_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *gf_xzalloc_dense(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	void *p = gf_xmalloc(n * size);
	memset(p, 0, n * size);
	return p;
}

void *gf_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *gf_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	return gf_xrealloc(p, n * size);
}

char *gf_xstrdup(const char *s)
{
	return gf_xstrndup(s, strlen(s));
}

char *gf_xstrndup(const char *s, size_t n)
{
	char *p = gf_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}
