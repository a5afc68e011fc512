/*
 * kfamily.h — kernel families: the leaf frame of a GPU-weighted stack.
 *
 * A kernel's family is found by the first matching rule: user rules (from a
 * --families file) first, in file order, then the defaults: base/names.h's
 * names_kernel_family (the one kernel classifier the palettes use too:
 * nccl/rccl, flash, attn, gemm, triton, elementwise, reduce, copy, memcpy,
 * memset; docs/classes.md).
 *
 * A name matched by no rule becomes its demangled name cut at its template
 * arguments and parameter list, without a leading "void "
 * ("void at::native::foo<float, 4>(int)" -> "at::native::foo"; an
 * "(anonymous namespace)" is part of the qualified name); a ROCm
 * composable kernel ck_tile::kentry<N, K<...>> becomes the kernel K it wraps
 * ("ck_tile::Rmsnorm2dFwd"); another mangled name (ROCm traces keep them:
 * "_ZN5aiter9my_kernelIfEEvPT_") becomes its qualified identifier
 * ("aiter::my_kernel").
 *
 * Rules file format (one rule per line; blank lines and lines starting with
 * '#' are ignored):
 *
 *   REGEX<TAB>FAMILY          POSIX extended regular expression, matched
 *                             case-insensitively anywhere in the name
 *   =SUBSTRING<TAB>FAMILY     plain substring (case-insensitive)
 *   !nodefaults               drop the default rules (only the file's rules
 *                             and the template cut remain)
 *
 * Example:  "^sm90_xmma\tgemm", "=rms_norm\tnorm", "all_?gather\tnccl".
 *
 * Bounded work: a REGEX rule is matched by base/rx.h (a lazy DFA: linear
 * in the name whatever the pattern; glibc's regexec backtracks, 0.25 s a
 * name on `(a|aa)*b`) against the first KFAMILY_MATCH_MAX bytes of the name
 * (cut back to a UTF-8 character boundary; a NUL byte ends the text
 * earlier); regcomp still judges the pattern's syntax and words its
 * errors. =SUBSTRING rules and the defaults read the whole name (linear).
 * kfamily_truncated() counts the distinct names that were cut (over every
 * fold the rule set served: diff folds each side twice). Callers match each
 * distinct name once (fold.c memoises per name id), so the total is linear
 * in the distinct names' bytes. A rule set keeps its rules' DFA states:
 * one caller at a time.
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_KFAMILY_H
#define GF_KFAMILY_H

#include "base/gf.h"
#include "base/sbuf.h"

struct kfamily;

/* Bytes of a kernel name that REGEX rules see. */
#define KFAMILY_MATCH_MAX 4096

/* A rule set holding the default rules. */
struct kfamily *kfamily_new(void);
void kfamily_free(struct kfamily *k);

/*
 * Adds the rules of a file (in front of the defaults).
 * @return GF_OK, or GF_EINPUT with "'file': line N: expected ..." in err.
 */
int kfamily_load(struct kfamily *k, const char *path, struct sbuf *err);
/* Same over text in memory; fname is used in messages. */
int kfamily_parse(struct kfamily *k, const char *text, size_t n, const char *fname, struct sbuf *err);

/*
 * The family of a kernel name (n bytes, need not be NUL-terminated); the
 * result is appended to out (which is reset first).
 */
void kfamily_of(const struct kfamily *k, const char *name, size_t n, struct sbuf *out);

/* Names longer than KFAMILY_MATCH_MAX bytes (without a NUL byte before the
 * cut) matched by their first KFAMILY_MATCH_MAX bytes against the regex
 * rules so far, each call counted once (0 for NULL). */
uint64_t kfamily_truncated(const struct kfamily *k);

#endif
