/* gf.c — allocation helpers and error-code mapping (see gf.h). */
#include "base/gf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/*
 * Large blocks ask for transparent huge pages. A page's first touch costs a
 * fault, and on a virtual machine that shadows the guest's page tables it
 * costs 5-10 us (measured here: 200 MB touched in 4 KB pages took 530 ms,
 * in 2 MB pages 12 ms, 320 ms when the host first backed them); a report of
 * a 900 MB trace touches ~400 MB.
 * With MADV_HUGEPAGE one fault maps 2 MB. Growing such a block copies it
 * into a new advised block: realloc's mremap moves every page-table entry
 * and splits the huge pages.
 */
#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)
static bool huge = true;

void gf_alloc_hugepages(bool on)
{
	huge = on;
#ifdef __GLIBC__
	/* A large block gets its own mapping, returned when freed (a fixed
	 * threshold: glibc's moving one keeps freed blocks up to 32 MB in the
	 * heap, resident, and with huge pages that costs +15 % peak RSS); the
	 * heap keeps up to 64 MB free at its top rather than fault it again. */
	if (on) {
		mallopt(M_MMAP_THRESHOLD, (int)HUGE_MIN);
		mallopt(M_TRIM_THRESHOLD, (int)(16 * HUGE_MIN));
	}
#endif
}

/* X rounded down / up to a whole page (the system's: madvise wants page
 * alignment, and a page is 16 or 64 KB on some arm64 kernels) */
static inline uintptr_t page_down(uintptr_t x)
{
	return x & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
}

static inline uintptr_t page_up(uintptr_t x)
{
	return page_down(x + (uintptr_t)sysconf(_SC_PAGESIZE) - 1);
}

static void huge_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (!huge || n < HUGE_MIN)
		return;
	/* the block's pages: the kernel maps a huge page where a whole aligned
	 * 2 MB lies inside; advising whole pages keeps a mapped block one VMA */
	uintptr_t a = page_down((uintptr_t)p), e = page_up((uintptr_t)p + n);
	(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

#ifdef __GLIBC__
/* P (OLD usable bytes) copied into Q, a new advised block: 2 MB at a time,
 * each piece's whole pages of the old block released once copied, so the
 * two blocks are never both resident (peak RSS as with mremap). */
static void *grow_copy(void *p, size_t old, char *q)
{
	char *s = p;
	uintptr_t rel = page_up((uintptr_t)s); /* released up to here */
	size_t off = 0;
	while (off < old) {
		uintptr_t at = (uintptr_t)s + off, next = (at + HUGE_PAGE) & ~(HUGE_PAGE - 1);
		size_t k = GF_MIN(next - at, old - off);
		memcpy(q + off, s + off, k);
		off += k;
		uintptr_t e = page_down((uintptr_t)s + off);
		if (e > rel) {
			(void)madvise((void *)rel, e - rel, MADV_DONTNEED);
			rel = e;
		}
	}
	free(p);
	return q;
}
#endif

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
	huge_advise(p, n);
	return p;
}

void *gf_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	huge_advise(p, n * size);
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
#ifdef __GLIBC__
	if (huge && p && n >= HUGE_MIN) {
		size_t old = malloc_usable_size(p);
		char *q = n > old ? malloc(n) : NULL;
		if (q) {
			huge_advise(q, n);
			return grow_copy(p, old, q);
		}
		/* no address space for both blocks (ulimit -v): realloc may
		 * still grow it where it lies */
	}
#endif
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
