/*
 * values.h — option values that the library's tables own, as the NULL-
 * terminated lists an option row names (cliopt.h): filled from the tables
 * once, by cli_init(), before any command parses its options. A command
 * never spells a weight, a unit, a format or a gap cause itself, and
 * cli_pick() maps a value back to the table's row.
 *
 *   { "weight", 'w', 'w', "W", "...", cli_values_trace_weights, 0 },
 *
 * Layer: cli.
 */
#ifndef GF_VALUES_H
#define GF_VALUES_H

#include "stacks/weight.h"
#include "trace/analysis/causes.h"
#include "base/rtable.h"

/* the weights a trace folds into (stacks/weight.h, the first FW_NTRACE) */
extern const char *cli_values_trace_weights[FW_NTRACE + 1];
/* every weight (a folded file's "samples" too) */
extern const char *cli_values_weights[FW_N + 1];
/* the units fold writes (the first FU_NFOLD) */
extern const char *cli_values_fold_units[FU_NFOLD + 1];
/* syncs' formats: base/rtable.h's but html */
extern const char *cli_values_prose_formats[REP_HTML + 1];
/* info's formats: text and json (cli_values_info_format maps them back) */
extern const char *cli_values_info_formats[3];
extern const int cli_values_info_format[2];
/* store trend's metrics: the steady step's, idle by gap cause (causes.h's
 * metric), the counts, weight.W for every weight */
#define CLI_STORE_METRICS (8 + GAP_NCAUSES + FW_N)
extern const char *cli_values_store_metrics[CLI_STORE_METRICS + 1];

/* Fills the lists (cli_init calls it; once). */
void cli_values_init(void);

#endif
