/*
 * test_vocab.c — the vocabulary tables (stacks/weight.h, trace/analysis/
 * causes.h, the name lists next to their enums) and the writers' words for
 * them (trace/write/prose.h): every row filled, names unique, the JSON fields
 * and store metrics spelled by one rule, the report schema naming every
 * cause's field, and words for every cause and every advice key.
 */
#include "t.h"

#include "base/rtable.h"
#include "stacks/ops/diff.h"
#include "stacks/ops/norm.h"
#include "stacks/ops/top.h"
#include "stacks/render/palette.h"
#include "stacks/weight.h"
#include "trace/analysis/causes.h"
#include "trace/analysis/fold.h"
#include "trace/write/prose.h"

/* A NULL-terminated list of n names, all set and distinct. */
static int list_ok(const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!v[i] || !*v[i])
			return 0;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(v[i], v[j]))
				return 0;
	}
	return v[n] == NULL;
}

T_TEST(test_vocab__weights)
{
	const char *names[FW_N + 1] = { NULL };
	for (int w = 0; w < FW_N; w++) {
		names[w] = weight_defs[w].name;
		T_EQ_I64(weight_find(weight_defs[w].name), w);
		/* a weight that folds from a trace has a title (svg, the page) */
		if (w < FW_NTRACE)
			T_TRUE(weight_defs[w].title != NULL);
	}
	T_TRUE(list_ok(names, FW_N));
	T_EQ_I64(weight_find("nope"), -1);
	/* the counts are the weights that are not times */
	T_TRUE(weight_defs[FW_CALLS].count && weight_defs[FW_SAMPLES].count && !weight_defs[FW_GPU].count);
	/* one title per weight in every writer: the SVG's (svg_apply_header) and the page's tab */
	T_EQ_STR(weight_defs[FW_CPU].title, "Host CPU time");
	T_EQ_STR(weight_defs[FW_IDLE].title, "GPU idle time");
	const char *units[FU_N + 1] = { NULL };
	for (int u = 0; u < FU_N; u++) {
		units[u] = weight_units[u].name;
		T_EQ_I64(weight_units[u].digits, 3 * u);
		T_EQ_I64(weight_unit_find(weight_units[u].name), u);
	}
	T_TRUE(list_ok(units, FU_N));
}

T_TEST(test_vocab__causes)
{
	const char *keys[GAP_NCAUSES + 1] = { NULL };
	char b[64];
	for (int k = 0; k < GAP_NCAUSES; k++) {
		const struct cause_def *c = &causes_gap[k];
		keys[k] = c->key;
		T_TRUE(c->label && *c->label && c->rule && *c->rule);
		/* the JSON field and the store metric follow the key */
		snprintf(b, sizeof b, "%s_us", c->key);
		T_EQ_STR(c->json, b);
		snprintf(b, sizeof b, "idle.%s", c->key);
		T_EQ_STR(c->metric, b);
		T_TRUE(c->advice > ADV_NONE && c->advice < ADV_N);
		T_TRUE(!c->keys == !c->key_field);
		T_EQ_I64(causes_find(c->key), k);
	}
	T_TRUE(list_ok(keys, GAP_NCAUSES));
	const char *cls[HW_NCLASSES + 1] = { NULL };
	for (int k = 0; k < HW_NCLASSES; k++) {
		cls[k] = causes_class[k].key;
		T_TRUE(causes_class[k].label && *causes_class[k].label);
		T_TRUE(causes_class[k].advice > ADV_NONE && causes_class[k].advice < ADV_N);
	}
	T_TRUE(list_ok(cls, HW_NCLASSES));
}

/* The report schema names every cause's field and key array (a cause added
 * to the table and not to docs/schema fails here, not in a user's validator). */
T_TEST(test_vocab__schema_names_every_cause)
{
	FILE *f = fopen("docs/schema/report.schema.json", "rb");
	if (!f) {
		T_SKIP(test_vocab__schema_names_every_cause, "run from the repository root");
		return;
	}
	static char s[1 << 20];
	size_t n = fread(s, 1, sizeof s - 1, f);
	fclose(f);
	s[n] = 0;
	char b[64];
	for (int k = 0; k < GAP_NCAUSES; k++) {
		snprintf(b, sizeof b, "\"%s\"", causes_gap[k].json);
		T_TRUE(strstr(s, b) != NULL);
		if (causes_gap[k].keys) {
			snprintf(b, sizeof b, "\"%s\"", causes_gap[k].keys);
			T_TRUE(strstr(s, b) != NULL);
		}
	}
}

T_TEST(test_vocab__lists_next_to_their_enums)
{
	T_TRUE(list_ok(rtable_formats, REP_NFORMATS));
	T_EQ_STR(rtable_formats[REP_JSON], "json");
	T_TRUE(list_ok(top_sort_names, TOP_SORT_N));
	T_TRUE(list_ok(diff_scale_names, DIFF_SCALE_N));
	T_TRUE(list_ok(norm_round_names, NORM_ROUND_N));
	T_TRUE(list_ok(palette_names, PAL_COUNT));
	T_EQ_I64(palette_find("gpu"), PAL_GPU);
	T_TRUE(list_ok(fold_level_names, 6));
	T_TRUE(list_ok(fold_kernel_names, 2));
}

/* Words for every cause, every advice key and every fix pattern. */
T_TEST(test_vocab__words_for_every_row)
{
	for (int k = 0; k < GAP_NCAUSES; k++) {
		const struct prose_cause *w = prose_cause(k);
		T_TRUE(w->verdict && *w->verdict && w->other && *w->other);
		/* a cause with keys has a table of them in the text report, and the reverse */
		T_TRUE(!causes_gap[k].keys == !w->keys_heading);
		T_TRUE(!w->keys_heading || (w->keys_col && w->keys_max > 0 && w->key_prep));
	}
	struct report r;
	memset(&r, 0, sizeof r);
	struct sbuf b = SBUF_INIT;
	for (int a = 0; a < ADV_N; a++) {
		r.verdict.advice = a;
		sbuf_reset(&b);
		prose_next(&b, &r);
		T_TRUE(b.len > 10 && b.buf[b.len - 1] == '.');
	}
	for (int f = 0; f < SF_COUNT_; f++)
		T_TRUE(prose_fix(f) && strlen(prose_fix(f)) > 10);
	sbuf_release(&b);
}

int main(void)
{
	T_RUN(test_vocab__weights);
	T_RUN(test_vocab__causes);
	T_RUN(test_vocab__schema_names_every_cause);
	T_RUN(test_vocab__lists_next_to_their_enums);
	T_RUN(test_vocab__words_for_every_row);
	return t_done();
}
