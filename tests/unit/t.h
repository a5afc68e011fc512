/*
 * t.h — the unit-test harness. Each test binary prints one line per case:
 *   PASS test_<suite>__<case>
 *   FAIL test_<suite>__<case>: file.c:123: <what>
 *   SKIP test_<suite>__<case>: <why>
 * tests/run.sh counts those lines. A binary that crashes is a failure too.
 *
 *   T_TEST(test_num__parse_us) { T_EQ_I64(x, 5); T_TRUE(ok); }
 *   int main(void) { T_RUN(test_num__parse_us); return t_done(); }
 */
#ifndef GF_T_H
#define GF_T_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_cases, t_case_failed;
static char t_msg[512];
/* Path of ../shared (corpus), or NULL when absent: tests needing it SKIP. */
static inline const char *t_shared(void)
{
	const char *s = getenv("GF_SHARED");
	return s && *s ? s : NULL;
}

#define T_TEST(name) static void name(void)
#define T_FAIL_(...) do { if (!t_case_failed) { \
		int k_ = snprintf(t_msg, sizeof t_msg, "%s:%d: ", __FILE__, __LINE__); \
		snprintf(t_msg + k_, sizeof t_msg - (size_t)k_, __VA_ARGS__); } \
		t_case_failed = 1; } while (0)
#define T_TRUE(c) do { if (!(c)) T_FAIL_("expected %s", #c); } while (0)
#define T_EQ_I64(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
		if (a_ != b_) T_FAIL_("%s == %lld, expected %lld", #a, a_, b_); } while (0)
#define T_EQ_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
		if (strcmp(a_, b_)) T_FAIL_("%s == \"%.200s\", expected \"%.200s\"", #a, a_, b_); } while (0)
#define T_RUN(name) do { t_case_failed = 0; name(); t_report(#name); } while (0)
#define T_SKIP(name, why) printf("SKIP %s: %s\n", #name, why)
/* A case that takes seconds (large generated inputs): the fast tier (`make
 * check` sets GF_FAST=1) skips it, visibly; `make test` runs it. */
#define T_RUN_SLOW(name) do { const char *f_ = getenv("GF_FAST"); \
		if (f_ && *f_) T_SKIP(name, "slow: make test runs it (GF_FAST)"); else T_RUN(name); } while (0)

static inline void t_report(const char *name)
{
	if (t_case_failed) {
		printf("FAIL %s: %s\n", name, t_msg);
		t_failed_cases++;
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

static inline int t_done(void)
{
	return t_failed_cases ? 1 : 0;
}

#endif
