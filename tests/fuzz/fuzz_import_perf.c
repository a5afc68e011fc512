/*
 * fuzz_import_perf.c — libFuzzer target: perf script text (import_perf.c)
 * into folded stacks; the checks are import_fuzz.h's.
 */
#define FUZZ_KINDS IMPORT_PERF
#include "import_fuzz.h"
