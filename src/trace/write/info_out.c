/*
 * info_out.c — the text and JSON of `gpuflame info` (see info_out.h).
 */
#include "trace/write/info_out.h"

#include "base/escape.h"
#include "base/names.h"
#include "base/num.h"

#include <stdlib.h>
#include <string.h>

struct kv {
	const char *k;
	size_t kn;
	uint64_t v;
};

static int cmp_kv(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	size_t n = GF_MIN(x->kn, y->kn);
	int c = memcmp(x->k, y->k, n);
	if (c)
		return c;
	return (x->kn > y->kn) - (x->kn < y->kn);
}

/* Categories sorted by name (events without cat under ""). */
static struct kv *categories(const struct kineto_trace *kt, size_t *n)
{
	const struct kstats *st = &kt->stats;
	struct kv *v = gf_xcalloc((size_t)st->ncats + 1, sizeof *v);
	size_t k = 0;
	if (st->no_cat)
		v[k++] = (struct kv){ "", 0, st->no_cat };
	for (uint32_t i = 0; i < st->ncats; i++)
		v[k++] = (struct kv){ pool_str(kt->names, st->cat_ids[i]), pool_len(kt->names, st->cat_ids[i]),
				      st->cat_events[i] };
	qsort(v, k, sizeof *v, cmp_kv);
	*n = k;
	return v;
}

static void json_idv(struct sbuf *b, const struct kineto_trace *kt, int64_t num, uint32_t str)
{
	if (str != UINT32_MAX)
		esc_json_str(b, pool_str(kt->names, str), pool_len(kt->names, str));
	else if (num == KEV_NONE)
		sbuf_addstr(b, "null");
	else
		sbuf_addf(b, "%lld", (long long)num);
}

static void json_name(struct sbuf *b, const struct kineto_trace *kt, uint32_t id)
{
	if (id == UINT32_MAX)
		sbuf_addstr(b, "null");
	else
		esc_json_str(b, pool_str(kt->names, id), pool_len(kt->names, id));
}

static void json_i64(struct sbuf *b, int64_t v)
{
	if (v == KEV_NONE)
		sbuf_addstr(b, "null");
	else
		sbuf_addf(b, "%lld", (long long)v);
}

/* Ratio a/b with 4 decimals, exact (no double). */
static void fmt_ratio(struct sbuf *b, uint64_t a, uint64_t d)
{
	if (!d) {
		sbuf_addstr(b, "null");
		return;
	}
	int64_t v;
	if (!num_muldiv((int64_t)a, 10000, (int64_t)d, &v))
		v = 0;
	num_fmt_fixed(b, v, 4, 4, false);
}

/* Absolute span ends (base_time_ns + ts as written): false when one does
 * not fit in int64 (a hostile baseTimeNanoseconds); then none is shown. */
static bool abs_span(const struct info *in, const struct kineto_trace *kt, int64_t *a, int64_t *b)
{
	return !__builtin_add_overflow(kt->meta.base_time_ns, in->t_min, a) &&
	       !__builtin_add_overflow(kt->meta.base_time_ns, in->t_max, b);
}

/* At most this many warning lines (there are fewer kinds). */
#define NWARN 20

static void warnings_release(struct sbuf lines[NWARN])
{
	for (int i = 0; i < NWARN; i++)
		sbuf_release(&lines[i]);
}

/* Warnings as plain text lines (shared by both formats): initialises every
 * lines[i] (warnings_release frees them), fills lines[0..n), returns n. */
static size_t warnings(const struct info *in, const struct kineto_trace *kt, struct sbuf lines[NWARN])
{
	for (int i = 0; i < NWARN; i++)
		sbuf_init(&lines[i], 0);
	size_t n = 0;
	struct sbuf *l;
	if (kt->stats.truncated) {
		l = &lines[n++];
		sbuf_addf(l, "truncated file: the event array is cut off at byte %llu; read up to the last complete event",
			  (unsigned long long)kt->stats.truncated_at);
	}
	if (in->overlaps) {
		l = &lines[n++];
		sbuf_addf(l, "%llu host events overlap without nesting on their thread; first: '",
			  (unsigned long long)in->overlaps);
		esc_term(l, pool_str(kt->names, in->overlap_a.name), GF_MIN(pool_len(kt->names, in->overlap_a.name), 120u));
		sbuf_addf(l, "' [%lld, %lld) and '", (long long)in->overlap_a.ts, (long long)in->overlap_a.end);
		esc_term(l, pool_str(kt->names, in->overlap_b.name), GF_MIN(pool_len(kt->names, in->overlap_b.name), 120u));
		sbuf_addf(l, "' [%lld, %lld) ns as written", (long long)in->overlap_b.ts, (long long)in->overlap_b.end);
	}
	if (in->external_id_bogus) {
		l = &lines[n++];
		sbuf_addf(l, "bogus External id: %llu of %llu runtime calls (and %llu of %llu GPU activities) have "
			     "External id == correlation (Kineto before 2024-10); External id links are unreliable, "
			     "use correlation and time containment",
			  (unsigned long long)in->rt_ext_eq_corr, (unsigned long long)in->rt_with_ext,
			  (unsigned long long)in->gpu_ext_eq_corr, (unsigned long long)in->gpu_with_ext);
	}
	if (in->gpu_before_window) {
		l = &lines[n++];
		sbuf_addf(l, "%llu GPU activities were launched before the profiling window (their correlation "
			     "precedes every runtime call in the trace); the last starts at %lld ns as written",
			  (unsigned long long)in->gpu_before_window, (long long)in->before_window_last_ts);
	}
	if (in->gpu_unlinked > in->gpu_before_window) {
		l = &lines[n++];
		sbuf_addf(l, "%llu GPU activities have a correlation that matches no runtime call",
			  (unsigned long long)(in->gpu_unlinked - in->gpu_before_window));
	}
	if (kt->stats.ts_rounded) {
		l = &lines[n++];
		sbuf_addf(l, "%llu ts/dur values had digits below 1 ns (rounded)", (unsigned long long)kt->stats.ts_rounded);
	}
	if (kt->stats.skipped) {
		const struct kstats *k = &kt->stats;
		l = &lines[n++];
		sbuf_addf(l, "%llu events without a usable ts were skipped", (unsigned long long)k->skipped);
		if (k->ts_null || k->ts_invalid || k->ts_overflow)
			sbuf_addf(l, " (ts null %llu, not a number %llu, out of range %llu; the rest had no ts)",
				  (unsigned long long)k->ts_null, (unsigned long long)k->ts_invalid,
				  (unsigned long long)k->ts_overflow);
	}
	if (kt->stats.dur_null || kt->stats.dur_invalid || kt->stats.dur_overflow) {
		const struct kstats *k = &kt->stats;
		l = &lines[n++];
		sbuf_addf(l, "%llu events have a dur that could not be read (null %llu, not a number %llu, out of range %llu); "
			  "they add no time", (unsigned long long)(k->dur_null + k->dur_invalid + k->dur_overflow),
			  (unsigned long long)k->dur_null, (unsigned long long)k->dur_invalid,
			  (unsigned long long)k->dur_overflow);
	}
	if (in->gpu_unweighted)
		trace_msg_unweighted(&lines[n++], in->gpu_unweighted);
	if (in->out_of_range) {
		l = &lines[n++];
		sbuf_addf(l, "%llu events have a ts or dur beyond 2^61 ns (73 years); left out of the span, and "
			     "fold, report and syncs ignore them",
			  (unsigned long long)in->out_of_range);
	}
	if (in->gpu_time_overflow) {
		l = &lines[n++];
		sbuf_addstr(l, "the durations of the GPU activities add up to more than 2^63-1 ns (292 years); no GPU "
			       "time total is shown, and fold, report and syncs refuse the trace");
	}
	if (in->host_time_overflow) {
		l = &lines[n++];
		sbuf_addstr(l, "the durations of the host ranges add up to more than 2^63-1 ns (292 years); fold, "
			       "report and syncs refuse the trace");
	}
	int64_t a, b;
	if (in->have_span && !abs_span(in, kt, &a, &b)) {
		l = &lines[n++];
		sbuf_addf(l, "baseTimeNanoseconds %lld + ts overflows 64-bit ns; absolute times are not shown",
			  (long long)kt->meta.base_time_ns);
	}
	if (in->corr_shared) {
		l = &lines[n++];
		trace_msg_shared_ids(l, in->corr_shared, in->corr_processes);
		sbuf_addstr(l, "; fold, report and syncs link GPU activities within their device's process");
	}
	return n;
}



/* The host_threads (device = false) or gpu_streams (device = true) array
 * items: tracks that carried events, in track order. */
static void json_tracks(struct sbuf *b, const struct kineto_trace *kt, const struct info *in, bool device)
{
	bool first = true;
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		const struct ktrack *t = &kt->tracks[i];
		uint64_t ev = i < in->track_events.n ? in->track_events.v[i] : 0;
		if (t->is_device != device || (!device && !ev) || (device && !t->gpu_work))
			continue; /* a device track of sync records only is a sync row (json_sync_rows) */
		sbuf_addstr(b, first ? "\n    {" : ",\n    {");
		sbuf_addstr(b, device ? "\"device\": " : "\"pid\": ");
		json_idv(b, kt, t->pid, t->pid_str);
		sbuf_addstr(b, device ? ", \"stream\": " : ", \"tid\": ");
		json_idv(b, kt, t->tid, t->tid_str);
		sbuf_addstr(b, ", \"name\": ");
		json_name(b, kt, t->thread_name);
		sbuf_addstr(b, device ? ", \"label\": " : ", \"process\": ");
		json_name(b, kt, device ? t->process_label : t->process_name);
		sbuf_addf(b, ", \"events\": %llu}", (unsigned long long)ev);
		first = false;
	}
}

/* The stream whose sync row a device track of sync records only is: Kineto
 * puts a stream's Stream Sync records on tid = stream + 1000000. */
static int64_t sync_row_stream(const struct ktrack *t)
{
	return t->tid != KEV_NONE && t->tid >= KINETO_SYNC_TID_OFFSET ? t->tid - KINETO_SYNC_TID_OFFSET : t->tid;
}

/* The sync_rows array: device tracks holding sync records only (not a GPU
 * stream: no kernel, memcpy or memset runs there). */
static void json_sync_rows(struct sbuf *b, const struct kineto_trace *kt, const struct info *in)
{
	bool first = true;
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		const struct ktrack *t = &kt->tracks[i];
		if (!t->is_device || t->gpu_work)
			continue;
		uint64_t ev = i < in->track_events.n ? in->track_events.v[i] : 0;
		sbuf_addstr(b, first ? "\n    {\"device\": " : ",\n    {\"device\": ");
		json_idv(b, kt, t->pid, t->pid_str);
		sbuf_addstr(b, ", \"tid\": ");
		json_idv(b, kt, t->tid, t->tid_str);
		sbuf_addstr(b, ", \"stream\": ");
		json_i64(b, t->tid_str == UINT32_MAX ? sync_row_stream(t) : KEV_NONE);
		sbuf_addstr(b, ", \"name\": ");
		json_name(b, kt, t->thread_name);
		sbuf_addf(b, ", \"events\": %llu}", (unsigned long long)ev);
		first = false;
	}
}

/* the file, its compression and sizes, the events by phase, category and kind */
static void json_input(struct sbuf *b, const char *file, const struct info_file *f)
{
	const struct kineto_trace *kt = &f->kt;
	const struct kstats *st = &f->kt.stats;
	const struct kmeta *m = &f->kt.meta;
	const char *comp = info_compression(f);
	sbuf_addstr(b, "{\"file\": ");
	esc_json_str(b, file, strlen(file));
	sbuf_addf(b, ", \"compression\": \"%s\", \"bytes_file\": %llu, \"bytes_json\": %llu",
		  strcmp(comp, "plain") ? comp : "none", (unsigned long long)st->bytes_file,
		  (unsigned long long)st->bytes_in);
	sbuf_addf(b, ",\n  \"container\": \"%s\", \"format\": \"%s\", \"truncated\": %s, \"truncated_at\": ",
		  m->is_array ? "array" : "object", info_format(f), st->truncated ? "true" : "false");
	if (st->truncated)
		sbuf_addf(b, "%llu", (unsigned long long)st->truncated_at);
	else
		sbuf_addstr(b, "null");
	sbuf_addf(b, ",\n  \"events\": %llu, \"events_skipped\": %llu", (unsigned long long)st->events,
		  (unsigned long long)st->skipped);
	sbuf_addstr(b, ",\n  \"events_by_phase\": {");
	bool first = true;
	for (int c = 0; c < 128; c++) {
		if (!st->by_ph[c])
			continue;
		char ph = (char)c;
		sbuf_addstr(b, first ? "" : ", ");
		esc_json_str(b, &ph, 1);
		sbuf_addf(b, ": %llu", (unsigned long long)st->by_ph[c]);
		first = false;
	}
	sbuf_addstr(b, "},\n  \"events_by_category\": {");
	size_t ncat;
	struct kv *cats = categories(kt, &ncat);
	for (size_t i = 0; i < ncat; i++) {
		sbuf_addstr(b, i ? ", " : "");
		esc_json_str(b, cats[i].k, cats[i].kn);
		sbuf_addf(b, ": %llu", (unsigned long long)cats[i].v);
	}
	free(cats);
	sbuf_addstr(b, "},\n  \"events_by_kind\": {");
	first = true;
	for (int k = 0; k < KC_COUNT_; k++) {
		if (!st->by_kc[k])
			continue;
		sbuf_addf(b, "%s\"%s\": %llu", first ? "" : ", ", kcat_name(k), (unsigned long long)st->by_kc[k]);
		first = false;
	}
}

/* timestamps, span, schema, distributed info, devices */
static void json_meta(struct sbuf *b, const struct info_file *f)
{
	const struct info *in = f->in;
	const struct kineto_trace *kt = &f->kt;
	const struct kstats *st = &f->kt.stats;
	const struct kmeta *m = &f->kt.meta;
	sbuf_addf(b, "},\n  \"timestamps\": {\"generation\": \"%s\", \"base_time_ns\": ", kts_gen_name(m->ts_gen));
	if (m->has_base_time)
		sbuf_addf(b, "%lld", (long long)m->base_time_ns);
	else
		sbuf_addstr(b, "null");
	sbuf_addstr(b, ", \"display_time_unit\": ");
	if (m->display_time_unit[0])
		esc_json_str(b, m->display_time_unit, strlen(m->display_time_unit));
	else
		sbuf_addstr(b, "null");
	sbuf_addf(b, ", \"rounded\": %llu, \"negative_dur\": %llu", (unsigned long long)st->ts_rounded,
		  (unsigned long long)st->dur_negative);
	sbuf_addf(b, ", \"ts_null\": %llu, \"ts_invalid\": %llu, \"ts_overflow\": %llu, \"dur_null\": %llu, "
		  "\"dur_invalid\": %llu, \"dur_overflow\": %llu}", (unsigned long long)st->ts_null,
		  (unsigned long long)st->ts_invalid, (unsigned long long)st->ts_overflow,
		  (unsigned long long)st->dur_null, (unsigned long long)st->dur_invalid,
		  (unsigned long long)st->dur_overflow);
	sbuf_addstr(b, ",\n  \"span\": ");
	int64_t abs_a, abs_b;
	if (in->have_span && abs_span(in, kt, &abs_a, &abs_b))
		sbuf_addf(b, "{\"start_ns\": %lld, \"end_ns\": %lld, \"duration_ns\": %lld}", (long long)abs_a,
			  (long long)abs_b, (long long)(in->t_max - in->t_min));
	else if (in->have_span)
		sbuf_addf(b, "{\"start_ns\": null, \"end_ns\": null, \"duration_ns\": %lld}",
			  (long long)(in->t_max - in->t_min));
	else
		sbuf_addstr(b, "null");
	sbuf_addstr(b, ",\n  \"schema_version\": ");
	json_i64(b, m->schema_version);
	sbuf_addstr(b, ", \"trace_name\": ");
	json_name(b, kt, m->trace_name);
	sbuf_addstr(b, ",\n  \"distributed\": {\"rank\": ");
	json_i64(b, m->rank);
	sbuf_addstr(b, ", \"world_size\": ");
	json_i64(b, m->world_size);
	sbuf_addstr(b, ", \"backend\": ");
	if (m->backend[0])
		esc_json_str(b, m->backend, strlen(m->backend));
	else
		sbuf_addstr(b, "null");
	char kind[64];
	trace_device_kind(m->dev_kinds, kind);
	sbuf_addstr(b, "},\n  \"devices\": {\"kind\": ");
	if (kind[0])
		esc_json_str(b, kind, strlen(kind));
	else
		sbuf_addstr(b, "null");
	sbuf_addf(b, ", \"count\": %u, \"names\": [", m->ndevices);
	for (unsigned i = 0; i < m->ndevices && i < 16; i++) {
		sbuf_addstr(b, i ? ", " : "");
		json_name(b, kt, m->device_name[i]);
	}
}

/* threads, streams, steps, the classified counts, GPU time, correlation, External id */
static void json_counts(struct sbuf *b, const struct info_file *f)
{
	const struct info *in = f->in;
	const struct kineto_trace *kt = &f->kt;
	sbuf_addstr(b, "]},\n  \"host_threads\": [");
	json_tracks(b, kt, in, false);
	sbuf_addstr(b, "],\n  \"gpu_streams\": [");
	json_tracks(b, kt, in, true);
	sbuf_addstr(b, "],\n  \"sync_rows\": [");
	json_sync_rows(b, kt, in);
	sbuf_addf(b, "],\n  \"steps\": {\"count\": %zu, \"events\": %llu, \"numbers\": [", in->steps.n,
		  (unsigned long long)in->step_events);
	for (size_t i = 0; i < in->steps.n; i++)
		sbuf_addf(b, "%s%lld", i ? ", " : "", (long long)in->steps.v[i]);
	sbuf_addf(b, "]},\n  \"python_function_events\": %llu, \"nn_module_events\": %llu, \"graph_launches\": %llu, "
		     "\"sync_calls\": %llu, \"nccl_kernels\": %llu, \"gpu_activities\": %llu",
		  (unsigned long long)in->python_events, (unsigned long long)in->module_events,
		  (unsigned long long)in->graph_launches, (unsigned long long)in->sync_calls,
		  (unsigned long long)in->nccl_kernels,
		  (unsigned long long)in->gpu_activities);
	sbuf_addf(b, ",\n  \"gpu_time\": {\"weighted\": %llu, \"unweighted\": %llu, \"total_ns\": ",
		  (unsigned long long)in->gpu_weighted, (unsigned long long)in->gpu_unweighted);
	if (in->gpu_time_overflow)
		sbuf_addstr(b, "null");
	else
		sbuf_addf(b, "%lld", (long long)in->gpu_time_ns);
	sbuf_addf(b, "}, \"time_out_of_range\": %llu, \"correlation_processes\": %u, \"correlation_ids_shared\": %llu",
		  (unsigned long long)in->out_of_range, in->corr_processes, (unsigned long long)in->corr_shared);
	sbuf_addf(b, ",\n  \"correlation\": {\"runtime_calls\": %llu, \"gpu_with_correlation\": %zu, \"linked\": %llu, "
		     "\"unlinked\": %llu, \"launched_before_window\": %llu, \"coverage\": ",
		  (unsigned long long)in->rt_events, in->gpu_corr.n, (unsigned long long)in->gpu_linked,
		  (unsigned long long)in->gpu_unlinked, (unsigned long long)in->gpu_before_window);
	fmt_ratio(b, in->gpu_linked, in->gpu_corr.n);
	sbuf_addf(b, "},\n  \"external_id\": {\"runtime_with\": %llu, \"runtime_equal_correlation\": %llu, "
		     "\"gpu_with\": %llu, \"gpu_equal_correlation\": %llu, \"bogus\": %s}",
		  (unsigned long long)in->rt_with_ext, (unsigned long long)in->rt_ext_eq_corr,
		  (unsigned long long)in->gpu_with_ext, (unsigned long long)in->gpu_ext_eq_corr,
		  in->external_id_bogus ? "true" : "false");
	sbuf_addf(b, ",\n  \"device_syncs\": {\"count\": %llu", (unsigned long long)in->dev_syncs);
	for (int i = 0; i < TS_N; i++) { /* the kinds, other last */
		int k = (i + 1) % TS_N;
		sbuf_addf(b, ", \"%s\": %llu", trace_sync_kinds[k].key, (unsigned long long)in->dev_sync_kind[k]);
	}
	sbuf_addf(b, ", \"with_wait_on_stream\": %llu, \"with_wait_on_event_record\": %llu}",
		  (unsigned long long)in->dev_sync_wait_stream, (unsigned long long)in->dev_sync_wait_corr);
	sbuf_addf(b, ",\n  \"memory_events\": {\"count\": %llu, \"allocations\": %llu, \"frees\": %llu, "
		     "\"bytes_allocated\": ",
		  (unsigned long long)in->mem_events, (unsigned long long)in->mem_allocs, (unsigned long long)in->mem_frees);
	json_i64(b, in->mem_overflow ? KEV_NONE : in->mem_alloc_bytes);
	sbuf_addstr(b, ", \"bytes_freed\": ");
	json_i64(b, in->mem_overflow ? KEV_NONE : in->mem_freed_bytes);
	sbuf_addstr(b, ", \"peak_total_allocated\": ");
	json_i64(b, in->mem_events ? in->mem_peak : KEV_NONE);
	sbuf_addf(b, "},\n  \"kernels_with_launch_config\": %llu", (unsigned long long)in->kernels_with_config);
}

/* the first overlap and the warnings; closes the trace object */
static void json_tail(struct sbuf *b, const struct info_file *f)
{
	const struct info *in = f->in;
	const struct kineto_trace *kt = &f->kt;
	sbuf_addf(b, ",\n  \"overlaps\": {\"count\": %llu, \"first\": ", (unsigned long long)in->overlaps);
	if (in->overlaps) {
		sbuf_addstr(b, "{\"outer\": ");
		json_name(b, kt, in->overlap_a.name);
		sbuf_addf(b, ", \"outer_ts_ns\": %lld, \"outer_end_ns\": %lld, \"inner\": ", (long long)in->overlap_a.ts,
			  (long long)in->overlap_a.end);
		json_name(b, kt, in->overlap_b.name);
		sbuf_addf(b, ", \"inner_ts_ns\": %lld, \"inner_end_ns\": %lld}", (long long)in->overlap_b.ts,
			  (long long)in->overlap_b.end);
	} else {
		sbuf_addstr(b, "null");
	}
	sbuf_addstr(b, "},\n  \"warnings\": [");
	struct sbuf wl[NWARN];
	size_t nw = warnings(in, kt, wl);
	for (size_t i = 0; i < nw; i++) {
		sbuf_addstr(b, i ? ",\n    " : "\n    ");
		esc_json_str(b, wl[i].buf, wl[i].len);
	}
	warnings_release(wl);
	sbuf_addstr(b, "]}");
}

void info_out_json(struct sbuf *b, size_t index, const char *file, const struct info_file *f)
{
	if (!index)
		sbuf_addstr(b, "{\"gpuflame_info\": 1, \"traces\": [\n");
	else
		sbuf_addstr(b, ",\n");
	json_input(b, file, f);
	json_meta(b, f);
	json_counts(b, f);
	json_tail(b, f);
}

static void text_idv(struct sbuf *b, const struct kineto_trace *kt, int64_t num, uint32_t str)
{
	if (str != UINT32_MAX) {
		sbuf_addch(b, '"');
		esc_term(b, pool_str(kt->names, str), pool_len(kt->names, str));
		sbuf_addch(b, '"');
	} else if (num == KEV_NONE) {
		sbuf_addstr(b, "-");
	} else {
		sbuf_addf(b, "%lld", (long long)num);
	}
}

static void text_name(struct sbuf *b, const struct kineto_trace *kt, uint32_t id)
{
	if (id != UINT32_MAX) {
		sbuf_addstr(b, " '");
		esc_term(b, pool_str(kt->names, id), pool_len(kt->names, id));
		sbuf_addch(b, '\'');
	}
}

/* the file line, the events by phase and category */
static void text_input(struct sbuf *b, const char *file, const struct info_file *f)
{
	const struct kineto_trace *kt = &f->kt;
	const struct kstats *st = &f->kt.stats;
	const struct kmeta *m = &f->kt.meta;
	sbuf_addstr(b, "trace: ");
	esc_term(b, file, strlen(file));
	sbuf_addf(b, " (%s, %llu bytes, %llu bytes of JSON, %s%s%s)\n", info_compression(f),
		  (unsigned long long)st->bytes_file, (unsigned long long)st->bytes_in,
		  m->is_array ? "bare array" : "object",
		  m->legacy_events ? ", legacy autograd profiler (PyTorch without Kineto)" : "",
		  st->truncated ? ", TRUNCATED" : "");
	sbuf_addf(b, "events: %llu", (unsigned long long)st->events);
	sbuf_addstr(b, "  by phase:");
	for (int c = 0; c < 128; c++)
		if (st->by_ph[c])
			sbuf_addf(b, " %c=%llu", c >= 0x20 && c < 0x7f ? c : '?', (unsigned long long)st->by_ph[c]);
	sbuf_addstr(b, "\nby category:\n");
	size_t ncat;
	struct kv *cats = categories(kt, &ncat);
	for (size_t i = 0; i < ncat; i++) {
		sbuf_addf(b, "  %12llu  ", (unsigned long long)cats[i].v);
		if (cats[i].kn)
			esc_term(b, cats[i].k, cats[i].kn);
		else
			sbuf_addstr(b, "(no cat)");
		sbuf_addch(b, '\n');
	}
	free(cats);
}

/* timestamps, span, rank, devices */
static void text_meta(struct sbuf *b, const struct info_file *f)
{
	const struct info *in = f->in;
	const struct kineto_trace *kt = &f->kt;
	const struct kmeta *m = &f->kt.meta;
	sbuf_addf(b, "timestamps: %s", kts_gen_name(m->ts_gen));
	if (m->has_base_time)
		sbuf_addf(b, ", baseTimeNanoseconds %lld", (long long)m->base_time_ns);
	if (m->display_time_unit[0])
		sbuf_addf(b, ", displayTimeUnit %s", m->display_time_unit);
	sbuf_addch(b, '\n');
	if (in->have_span) {
		int64_t abs_a, abs_b;
		sbuf_addstr(b, "span: ");
		num_fmt_fixed(b, in->t_max - in->t_min, 6, 6, true);
		if (abs_span(in, kt, &abs_a, &abs_b))
			sbuf_addf(b, " ms, from %lld to %lld ns (absolute)\n", (long long)abs_a, (long long)abs_b);
		else
			sbuf_addstr(b, " ms (absolute times overflow 64-bit ns)\n");
	}
	sbuf_addstr(b, "rank: ");
	if (m->rank != KEV_NONE)
		sbuf_addf(b, "%lld", (long long)m->rank);
	else
		sbuf_addstr(b, "-");
	sbuf_addstr(b, "  world size: ");
	if (m->world_size != KEV_NONE)
		sbuf_addf(b, "%lld", (long long)m->world_size);
	else
		sbuf_addstr(b, "-");
	if (m->backend[0])
		sbuf_addf(b, "  backend: %s", m->backend);
	sbuf_addf(b, "\ndevices: %u", m->ndevices);
	for (unsigned i = 0; i < m->ndevices && i < 16; i++)
		text_name(b, kt, m->device_name[i]);
	char kind[64];
	if (*trace_device_kind(m->dev_kinds, kind))
		sbuf_addf(b, "  kind: %s", kind);
}

/* host threads and GPU streams */
static void text_tracks(struct sbuf *b, const struct info_file *f)
{
	const struct info *in = f->in;
	const struct kineto_trace *kt = &f->kt;
	sbuf_addstr(b, "\nhost threads:\n");
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		const struct ktrack *t = &kt->tracks[i];
		uint64_t ev = i < in->track_events.n ? in->track_events.v[i] : 0;
		if (t->is_device || !ev)
			continue;
		sbuf_addstr(b, "  pid ");
		text_idv(b, kt, t->pid, t->pid_str);
		sbuf_addstr(b, " tid ");
		text_idv(b, kt, t->tid, t->tid_str);
		text_name(b, kt, t->thread_name);
		sbuf_addf(b, ": %llu events\n", (unsigned long long)ev);
	}
	sbuf_addstr(b, "GPU streams:\n");
	bool rows = false;
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		const struct ktrack *t = &kt->tracks[i];
		uint64_t ev = i < in->track_events.n ? in->track_events.v[i] : 0;
		if (!t->is_device)
			continue;
		if (!t->gpu_work) {
			rows = true;
			continue;
		}
		sbuf_addstr(b, "  device ");
		text_idv(b, kt, t->pid, t->pid_str);
		sbuf_addstr(b, " stream ");
		text_idv(b, kt, t->tid, t->tid_str);
		text_name(b, kt, t->thread_name);
		sbuf_addf(b, ": %llu events\n", (unsigned long long)ev);
	}
	if (!rows)
		return;
	/* Kineto's rows of sync records (Stream Sync on tid = stream + 1000000):
	 * not streams, no GPU work runs there */
	sbuf_addstr(b, "sync rows (device sync records only, not streams):\n");
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		const struct ktrack *t = &kt->tracks[i];
		uint64_t ev = i < in->track_events.n ? in->track_events.v[i] : 0;
		if (!t->is_device || t->gpu_work)
			continue;
		sbuf_addstr(b, "  device ");
		text_idv(b, kt, t->pid, t->pid_str);
		sbuf_addstr(b, " tid ");
		text_idv(b, kt, t->tid, t->tid_str);
		if (t->tid_str == UINT32_MAX && t->tid != KEV_NONE && t->tid >= KINETO_SYNC_TID_OFFSET)
			sbuf_addf(b, " (stream %lld)", (long long)sync_row_stream(t));
		text_name(b, kt, t->thread_name);
		sbuf_addf(b, ": %llu events\n", (unsigned long long)ev);
	}
}

/* steps, the classified counts, GPU time, coverage, the warnings */
static void text_counts(struct sbuf *b, const struct info_file *f)
{
	const struct info *in = f->in;
	const struct kineto_trace *kt = &f->kt;
	sbuf_addf(b, "steps: %zu", in->steps.n);
	if (in->steps.n) {
		const char *mk = names_marker(in->marker);
		sbuf_addstr(b, " (");
		esc_term(b, mk, strlen(mk));
		sbuf_addf(b, "#%lld .. #%lld)", (long long)in->steps.v[0], (long long)in->steps.v[in->steps.n - 1]);
	}
	sbuf_addf(b, "\npython stacks: %s (%llu python_function events), nn.Module events: %llu\n",
		  in->python_events ? "yes" : "no", (unsigned long long)in->python_events,
		  (unsigned long long)in->module_events);
	sbuf_addf(b, "graph launches: %llu, sync calls: %llu, NCCL kernels: %llu, GPU activities: %llu\n",
		  (unsigned long long)in->graph_launches, (unsigned long long)in->sync_calls,
		  (unsigned long long)in->nccl_kernels,
		  (unsigned long long)in->gpu_activities);
	sbuf_addstr(b, "GPU time: ");
	if (in->gpu_time_overflow)
		sbuf_addstr(b, "overflows 64-bit ns");
	else {
		num_fmt_fixed(b, in->gpu_time_ns, 6, 6, true);
		sbuf_addstr(b, " ms");
	}
	sbuf_addf(b, " in %llu activities (%llu unweighted: dur missing or out of range)\n",
		  (unsigned long long)in->gpu_weighted, (unsigned long long)in->gpu_unweighted);
	if (in->dev_syncs) {
		sbuf_addf(b, "device syncs: %llu (", (unsigned long long)in->dev_syncs);
		for (int i = 0; i < TS_N; i++) { /* the kinds, other last */
			int k = (i + 1) % TS_N;
			sbuf_addf(b, "%s%s %llu", i ? ", " : "", trace_sync_kinds[k].name,
				  (unsigned long long)in->dev_sync_kind[k]);
		}
		sbuf_addf(b, "); %llu name the stream they waited on, %llu the event record's correlation\n",
			  (unsigned long long)in->dev_sync_wait_stream, (unsigned long long)in->dev_sync_wait_corr);
	}
	if (in->mem_events) {
		sbuf_addf(b, "memory events: %llu ([memory]: %llu allocations, %llu frees", (unsigned long long)in->mem_events,
			  (unsigned long long)in->mem_allocs, (unsigned long long)in->mem_frees);
		if (!in->mem_overflow)
			sbuf_addf(b, ", %lld bytes allocated, %lld freed", (long long)in->mem_alloc_bytes,
				  (long long)in->mem_freed_bytes);
		sbuf_addf(b, ", peak total allocated %lld bytes)\n", (long long)in->mem_peak);
	}
	if (in->kernels_with_config)
		sbuf_addf(b, "kernel launch configurations: %llu kernels with grid, block, registers or occupancy\n",
			  (unsigned long long)in->kernels_with_config);
	sbuf_addf(b, "correlation coverage: %llu of %zu GPU activities link to a runtime call (",
		  (unsigned long long)in->gpu_linked, in->gpu_corr.n);
	if (in->gpu_corr.n) {
		int64_t pct;
		if (!num_muldiv((int64_t)in->gpu_linked, 1000, (int64_t)in->gpu_corr.n, &pct))
			pct = 0;
		num_fmt_fixed(b, pct, 1, 1, false);
		sbuf_addstr(b, "%)\n");
	} else {
		sbuf_addstr(b, "n/a)\n");
	}
	struct sbuf wl[NWARN];
	size_t nw = warnings(in, kt, wl);
	for (size_t i = 0; i < nw; i++)
		sbuf_addf(b, "warning: %s\n", wl[i].buf);
	warnings_release(wl);
}

void info_out_text(struct sbuf *b, size_t index, const char *file, const struct info_file *f)
{
	if (index)
		sbuf_addch(b, '\n');
	text_input(b, file, f);
	text_meta(b, f);
	text_tracks(b, f);
	text_counts(b, f);
}

void info_out_json_end(struct sbuf *b)
{
	sbuf_addstr(b, "\n]}\n");
}
