/*
 * gf.h — project-wide types, exit codes and the few helpers every layer uses.
 *
 * Layer: base. Includes nothing from the project. Everything here may be used
 * by every other layer (read, model, fold, analyze, write, cli).
 *
 * Ownership rule: functions named *_new return memory the caller frees with the
 * matching *_free; gf_x* allocators never return NULL (they abort with a
 * message on exhaustion, as git's xmalloc does).
 */
#ifndef GF_H
#define GF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Time is integer nanoseconds everywhere. */
typedef int64_t gf_ns;

/* Process exit codes, documented in docs/cli.md. Only cli/ calls exit(). */
enum gf_exit {
	GF_EXIT_OK = 0,
	GF_EXIT_INPUT = 1,    /* input missing, unreadable or malformed */
	GF_EXIT_USAGE = 2,    /* bad options, or a refused comparison (diff/merge of unlike profiles) */
	GF_EXIT_OUTPUT = 3,   /* output could not be written */
	GF_EXIT_INTERNAL = 4, /* out of memory or an internal limit */
};

/* Status of library calls: 0 is success, negative an error described in an
 * accompanying struct sbuf *err. */
enum gf_err {
	GF_OK = 0,
	GF_EINPUT = -1,
	GF_EUSAGE = -2,
	GF_EOUTPUT = -3,
	GF_EINTERNAL = -4,
};

/* Called once, when set, just before an out-of-memory exit (exit code 4):
 * the CLI points it at its clean-up (temporary output files). */
extern void (*gf_oom_hook)(void);

/* Maps a gf_err to the matching exit code. */
int gf_err_exit(int err);

/* Blocks of 4 MB and more ask for transparent huge pages (on by default).
 * gf_alloc_hugepages(true) also sets glibc's malloc for it (gf.c); the CLI
 * calls it first, with false for GPUFLAME_HUGEPAGES=0. Before threads start. */
void gf_alloc_hugepages(bool on);
void *gf_xmalloc(size_t n);
void *gf_xcalloc(size_t n, size_t size);
/* Zeroed like gf_xcalloc, every page written now: for a large array read
 * before it is written (memo tables). A fresh page first read maps the
 * shared zero page; the write that follows costs a second fault and, while
 * other threads of the process run, a TLB shootdown on every CPU. */
void *gf_xzalloc_dense(size_t n, size_t size);
void *gf_xrealloc(void *p, size_t n);
/* Overflow-checked n*size reallocation. */
void *gf_xreallocarray(void *p, size_t n, size_t size);
char *gf_xstrdup(const char *s);
char *gf_xstrndup(const char *s, size_t n);

#define GF_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define GF_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GF_MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__)
#define GF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GF_NORETURN __attribute__((noreturn))
#define GF_LIKELY(x) __builtin_expect(!!(x), 1)
#define GF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define GF_PRINTF(f, a)
#define GF_NORETURN
#define GF_LIKELY(x) (x)
#define GF_UNLIKELY(x) (x)
#endif

/*
 * GF_ASSERT(cond): an invariant the code relies on — a sorted input to a
 * merge or a binary search, ranges nested in the model, weight conserved by
 * a fold, gap causes that add up to the idle time. Checked in the test builds
 * (MODE=asan and the fuzzers define GF_CHECKS=1): a broken invariant is a
 * bug, so it stops with the file, line and condition on stderr (the one
 * place library code writes there) and aborts. In release (GF_CHECKS 0)
 * the condition is compiled but never run: it costs nothing. A loop that
 * only feeds asserts goes under `if (GF_CHECKS)`, which the compiler drops.
 */
#ifndef GF_CHECKS
#define GF_CHECKS 0
#endif
#define GF_ASSERT(c) ((void)(!GF_CHECKS || (c) || (gf_assert_fail(#c, __FILE__, __LINE__), 0)))
/* GF_ASSERT's failure: the message, then abort(). */
GF_NORETURN void gf_assert_fail(const char *cond, const char *file, int line);

#endif
