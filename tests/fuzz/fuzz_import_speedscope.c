/*
 * fuzz_import_speedscope.c — libFuzzer target: speedscope JSON (import_speedscope.c, import_json.c)
 * into folded stacks; the checks are import_fuzz.h's.
 */
#define FUZZ_KINDS IMPORT_SPEEDSCOPE, IMPORT_CHROME
#include "import_fuzz.h"
