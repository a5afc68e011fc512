/*
 * fuzz_import_threads.c — libFuzzer target: austin and py-spy samples (import.c)
 * into folded stacks; the checks are import_fuzz.h's.
 */
#define FUZZ_KINDS IMPORT_AUSTIN, IMPORT_PYSPY, IMPORT_EXPORT_STACKS
#include "import_fuzz.h"
