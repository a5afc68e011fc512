/* values.c — option values from the library's tables (see values.h). */
#include "cli/values.h"

#include "base/sbuf.h"

const char *cli_values_trace_weights[FW_NTRACE + 1];
const char *cli_values_weights[FW_N + 1];
const char *cli_values_fold_units[FU_NFOLD + 1];
const char *cli_values_prose_formats[REP_HTML + 1];
const char *cli_values_info_formats[3];
const int cli_values_info_format[2] = { REP_TEXT, REP_JSON };
const char *cli_values_store_metrics[CLI_STORE_METRICS + 1];

/* the store's own metrics (store/store_collect.c records them) around the
 * idle time by cause */
static const char *const metrics_head[] = { "step_wall", "busy", "idle" };
static const char *const metrics_tail[] = { "syncs", "sync_wait", "kernels", "launches", "steps" };
_Static_assert(GF_ARRAY_LEN(metrics_head) + GF_ARRAY_LEN(metrics_tail) == 8, "CLI_STORE_METRICS");

void cli_values_init(void)
{
	for (int w = 0; w < FW_N; w++) {
		cli_values_weights[w] = weight_defs[w].name;
		if (w < FW_NTRACE)
			cli_values_trace_weights[w] = weight_defs[w].name;
	}
	for (int u = 0; u < FU_NFOLD; u++)
		cli_values_fold_units[u] = weight_units[u].name;
	for (int f = 0; f < REP_HTML; f++)
		cli_values_prose_formats[f] = rtable_formats[f];
	for (int f = 0; f < 2; f++)
		cli_values_info_formats[f] = rtable_formats[cli_values_info_format[f]];
	size_t n = 0;
	for (size_t i = 0; i < GF_ARRAY_LEN(metrics_head); i++)
		cli_values_store_metrics[n++] = metrics_head[i];
	for (int k = 0; k < GAP_NCAUSES; k++)
		cli_values_store_metrics[n++] = causes_gap[k].metric;
	for (size_t i = 0; i < GF_ARRAY_LEN(metrics_tail); i++)
		cli_values_store_metrics[n++] = metrics_tail[i];
	for (int w = 0; w < FW_N; w++) { /* kept for the process's life */
		struct sbuf b = SBUF_INIT;
		sbuf_addf(&b, "weight.%s", weight_defs[w].name);
		cli_values_store_metrics[n++] = sbuf_detach(&b, NULL);
	}
}
