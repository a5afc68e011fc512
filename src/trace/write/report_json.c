/* report_json.c — the report and the trace syncs as JSON ("gpuflame.report/2",
 * "gpuflame.syncs/2", docs/report.md; see report_fmt.h). */
#include "trace/write/report_fmt.h"
#include "trace/write/report_json.h"

#include "base/jsonw.h"
#include "trace/write/prose.h"

static void j_step(struct jsonw *j, const struct step_row *s, bool with_index)
{
	jsonw_obj(j);
	if (with_index) {
		jsonw_key(j, "index");
		if (s->number < 0)
			jsonw_null(j);
		else
			jsonw_int(j, s->number);
		jsonw_key(j, "start_us");
		jsonw_ns_us(j, s->start);
	}
	jsonw_key(j, with_index ? "wall_us" : "steady_step_us");
	jsonw_ns_us(j, s->wall);
	jsonw_key(j, "gpu_busy_us");
	jsonw_ns_us(j, s->busy);
	jsonw_key(j, "kernel_us");
	jsonw_ns_us(j, s->kernel);
	jsonw_key(j, "memcpy_us");
	jsonw_ns_us(j, s->memcpy);
	jsonw_key(j, "memset_us");
	jsonw_ns_us(j, s->memset);
	jsonw_key(j, "idle_us");
	jsonw_ns_us(j, s->idle);
	jsonw_key(j, "sync_wait_us");
	jsonw_ns_us(j, s->sync_wait);
	jsonw_key(j, "syncs");
	jsonw_int(j, (int64_t)s->syncs);
	jsonw_key(j, "launches");
	jsonw_int(j, (int64_t)s->launches);
	jsonw_key(j, "graph_launches");
	jsonw_int(j, (int64_t)s->graph_launches);
	jsonw_key(j, "kernels");
	jsonw_int(j, (int64_t)s->kernels);
	jsonw_key(j, "median_kernel_us");
	jsonw_ns_us(j, s->median_kernel);
}

static void j_gaprow(struct jsonw *j, const struct gap_row *g)
{
	for (int k = 0; k < GAP_NCAUSES; k++) {
		jsonw_key(j, causes_gap[k].json);
		jsonw_ns_us(j, g->c[k]);
	}
	const struct { const char *k; gf_ns v; } f[] = {
		{ "hta_rule_host_wait_us", g->hta_host }, { "hta_rule_kernel_wait_us", g->hta_kernel },
		{ "hta_rule_other_us", g->hta_other },
	};
	for (size_t i = 0; i < GF_ARRAY_LEN(f); i++) {
		jsonw_key(j, f[i].k);
		jsonw_ns_us(j, f[i].v);
	}
}

static void j_per_step(struct jsonw *j, uint64_t count, size_t n)
{
	struct sbuf b = SBUF_INIT;
	prose_per_step(&b, count, n);
	jsonw_raw(j, b.buf);
	sbuf_release(&b);
}

static void j_syncs(struct jsonw *j, const struct report *r)
{
	jsonw_key(j, "syncs");
	jsonw_arr(j);
	for (size_t i = 0; i < r->sy.nsites; i++) {
		const struct sync_site *s = &r->sy.sites[i];
		jsonw_obj(j);
		jsonw_key(j, "site");
		jsonw_str(j, s->site_name);
		jsonw_key(j, "op");
		jsonw_str(j, s->op_name);
		jsonw_key(j, "op_chain");
		jsonw_str(j, s->op_chain);
		jsonw_key(j, "api");
		jsonw_str(j, s->api);
		jsonw_key(j, "copy");
		jsonw_str(j, s->copy);
		jsonw_key(j, "pageable");
		jsonw_bool(j, s->pageable);
		jsonw_key(j, "count");
		jsonw_int(j, (int64_t)s->count);
		jsonw_key(j, "count_per_step");
		j_per_step(j, s->count, r->sy.nsteps);
		jsonw_key(j, "wait_us");
		jsonw_ns_us(j, s->wait);
		jsonw_key(j, "max_wait_us");
		jsonw_ns_us(j, s->max_wait);
		jsonw_key(j, "bubble_us");
		jsonw_ns_us(j, s->bubble);
		jsonw_key(j, "bubble_per_step_us");
		jsonw_ns_us(j, gaps_mean(s->bubble_steady, r->sy.nsteady));
		jsonw_key(j, "host_work_after");
		jsonw_bool(j, s->host_work_after);
		jsonw_key(j, "fix");
		jsonw_str(j, prose_fix(s->fix));
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

/* A cause's keys (the first 20): name, idle, per step, share of the
 * cause's steady total (4 decimals, gaps_share). */
static void j_keys(struct jsonw *j, const char *name, const char *label, const struct gap_key *k, size_t n,
		   size_t ns, gf_ns total)
{
	jsonw_key(j, name);
	jsonw_arr(j);
	for (size_t i = 0; i < n && i < 20; i++) {
		jsonw_obj(j);
		jsonw_key(j, label);
		jsonw_str(j, k[i].label);
		jsonw_key(j, "idle_us");
		jsonw_ns_us(j, k[i].ns);
		jsonw_key(j, "idle_per_step_us");
		jsonw_ns_us(j, gaps_mean(k[i].ns, ns));
		jsonw_key(j, "share");
		jsonw_dec(j, gaps_share(k[i].ns, total), 4);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

static void j_keys_n(struct jsonw *j, const struct gap_key *k, size_t n, size_t ns)
{
	jsonw_arr(j);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj(j);
		jsonw_key(j, "stack");
		jsonw_str(j, k[i].label);
		jsonw_key(j, "idle_us");
		jsonw_ns_us(j, k[i].ns);
		jsonw_key(j, "idle_per_step_us");
		jsonw_ns_us(j, gaps_mean(k[i].ns, ns));
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

/* The verdict (prose.h's words) and its key; null when not computed. */
static void j_verdict(struct jsonw *j, const struct report *r)
{
	bool have = r->parts & RP_VERDICT;
	struct sbuf b = SBUF_INIT;
	jsonw_key(j, "verdict");
	if (have) {
		prose_verdict(&b, r);
		jsonw_str(j, b.buf);
	} else {
		jsonw_null(j);
	}
	jsonw_key(j, "verdict_cause");
	if (have)
		jsonw_str(j, report_verdict_key(&r->verdict));
	else
		jsonw_null(j);
	jsonw_key(j, "action");
	if (have) {
		sbuf_reset(&b);
		prose_next(&b, r);
		jsonw_str(j, b.buf);
	} else {
		jsonw_null(j);
	}
	sbuf_release(&b);
}

static void j_launch(struct jsonw *j, const struct launch_diag *ld);
static void j_tail(struct jsonw *j, const struct report *r, size_t ns);

/* One rank's object; a part the report did not compute (report.h) is null. */
static void j_rank(struct jsonw *j, const struct report_in *in, bool top)
{
	const struct report *r = in->r;
	const struct report_meta *m = &r->meta;
	size_t ns = r->st.nsteady ? r->st.nsteady : r->st.n;
	jsonw_obj(j);
	if (top) {
		jsonw_key(j, "schema");
		jsonw_str(j, "gpuflame.report/2");
	}
	jsonw_key(j, "file");
	jsonw_str(j, in->file);
	jsonw_key(j, "rank");
	if (m->rank == KEV_NONE)
		jsonw_null(j);
	else
		jsonw_int(j, m->rank);
	jsonw_key(j, "world_size");
	if (m->world_size == KEV_NONE)
		jsonw_null(j);
	else
		jsonw_int(j, m->world_size);
	jsonw_key(j, "device");
	if (m->device < 0)
		jsonw_null(j);
	else
		jsonw_int(j, m->device);
	jsonw_key(j, "device_kind");
	char kind[64];
	if (*trace_device_kind(m->dev_kinds, kind))
		jsonw_str(j, kind);
	else
		jsonw_null(j);
	jsonw_key(j, "whole_trace");
	jsonw_bool(j, r->st.whole_trace);
	jsonw_key(j, "steps");
	jsonw_arr(j);
	for (size_t i = 0; i < r->st.n; i++) {
		j_step(j, &r->st.rows[i], true);
		jsonw_key(j, "warmup");
		jsonw_bool(j, r->st.rows[i].warmup);
		jsonw_key(j, "gaps");
		if (r->parts & RP_GAPS) {
			jsonw_obj(j);
			j_gaprow(j, &r->gp.rows[i]);
			jsonw_end(j, '}');
		} else {
			jsonw_null(j);
		}
		if (r->cm.kernels) {
			jsonw_key(j, "comm_us");
			jsonw_ns_us(j, r->cm.rows[i].comm);
			jsonw_key(j, "comm_overlap_us");
			jsonw_ns_us(j, r->cm.rows[i].overlap);
			jsonw_key(j, "comm_exposed_us");
			jsonw_ns_us(j, r->cm.rows[i].exposed);
		}
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	jsonw_key(j, "summary");
	j_step(j, &r->st.steady, false);
	jsonw_key(j, "steps");
	jsonw_int(j, (int64_t)r->st.n);
	jsonw_key(j, "warmup_steps");
	jsonw_int(j, (int64_t)r->st.nwarm);
	jsonw_key(j, "steady_steps");
	jsonw_int(j, (int64_t)r->st.nsteady);
	jsonw_key(j, "gpu_busy_share");
	jsonw_double(j, r->st.steady.wall > 0 ? (double)r->st.steady.busy / (double)r->st.steady.wall : 0, 4);
	j_verdict(j, r);
	jsonw_end(j, '}');
	jsonw_key(j, "gaps");
	if (r->parts & RP_GAPS) {
		jsonw_obj(j);
		const struct gaps_result *gp = &r->gp;
		j_gaprow(j, &gp->steady);
		for (int k = 0; k < GAP_NCAUSES; k++)
			if (causes_gap[k].keys)
				j_keys(j, causes_gap[k].keys, causes_gap[k].key_field, gp->keys[k], gp->nkeys[k], ns,
				       gp->steady_sum.c[k]);
		jsonw_key(j, "latency");
		jsonw_obj(j);
		jsonw_key(j, "median_launch_to_start_us");
		jsonw_ns_us(j, gp->ld.median_latency);
		jsonw_key(j, "launches");
		jsonw_int(j, (int64_t)gp->ld.latency_launches);
		jsonw_end(j, '}');
		jsonw_end(j, '}');
	} else {
		jsonw_null(j);
	}
	jsonw_key(j, "idle_stacks");
	if (!r->nidle)
		jsonw_null(j);
	else
		j_keys_n(j, r->idle, r->nidle, r->idle_steps ? r->idle_steps : 1);
	jsonw_key(j, "launch");
	if (r->parts & RP_GAPS)
		j_launch(j, &r->gp.ld);
	else
		jsonw_null(j);
	j_tail(j, r, ns);
}

static void j_launch(struct jsonw *j, const struct launch_diag *ld)
{
	jsonw_obj(j);
	jsonw_key(j, "kernels_per_step");
	jsonw_int(j, ld->kernels_per_step);
	jsonw_key(j, "launches_per_step");
	jsonw_int(j, ld->launches_per_step);
	jsonw_key(j, "graph_launches");
	jsonw_int(j, (int64_t)ld->graph_launches);
	jsonw_key(j, "median_kernel_us");
	jsonw_ns_us(j, ld->median_kernel);
	jsonw_key(j, "median_launch_us");
	jsonw_ns_us(j, ld->median_launch);
	jsonw_key(j, "short_kernels");
	jsonw_int(j, (int64_t)ld->short_kernels);
	jsonw_key(j, "compared_kernels");
	jsonw_int(j, (int64_t)ld->compared);
	jsonw_key(j, "launch_bound");
	jsonw_bool(j, ld->launch_bound);
	jsonw_key(j, "recommendation");
	if (ld->launch_bound)
		jsonw_str(j, prose_launch_advice(ld));
	else
		jsonw_null(j);
	jsonw_end(j, '}');
}

/* comm, syncs, top calls, targets and warnings of one rank. */
static void j_tail(struct jsonw *j, const struct report *r, size_t ns)
{
	const struct report_meta *m = &r->meta;
	jsonw_key(j, "comm");
	if (!r->cm.kernels) {
		jsonw_null(j);
	} else {
		jsonw_obj(j);
		jsonw_key(j, "kernels");
		jsonw_int(j, (int64_t)r->cm.kernels);
		jsonw_key(j, "comm_us");
		jsonw_ns_us(j, r->cm.steady.comm);
		jsonw_key(j, "overlap_us");
		jsonw_ns_us(j, r->cm.steady.overlap);
		jsonw_key(j, "exposed_us");
		jsonw_ns_us(j, r->cm.steady.exposed);
		jsonw_key(j, "hta_comm_us");
		jsonw_ns_us(j, r->cm.hta_comm);
		jsonw_key(j, "hta_overlap_us");
		jsonw_ns_us(j, r->cm.hta_overlap);
		jsonw_key(j, "hta_overlap_ratio");
		jsonw_double(j, r->cm.hta_comm ? (double)r->cm.hta_overlap / (double)r->cm.hta_comm : 0, 4);
		jsonw_end(j, '}');
	}
	j_syncs(j, r);
	jsonw_key(j, "top_calls");
	jsonw_arr(j);
	for (size_t i = 0; i < r->ntop; i++) {
		jsonw_obj(j);
		jsonw_key(j, "name");
		jsonw_str(j, r->top[i].name);
		jsonw_key(j, "kind");
		jsonw_str(j, r->top[i].kind == TR_OP ? "op" : "launch");
		jsonw_key(j, "count");
		jsonw_int(j, (int64_t)r->top[i].count);
		jsonw_key(j, "per_step");
		j_per_step(j, r->top[i].count, ns);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	jsonw_key(j, "overhead");
	if (r->unprofiled_ns < 0) {
		jsonw_null(j);
	} else {
		jsonw_obj(j);
		jsonw_key(j, "unprofiled_step_us");
		jsonw_ns_us(j, r->unprofiled_ns);
		jsonw_key(j, "overhead_us");
		jsonw_ns_us(j, r->st.steady.wall - r->unprofiled_ns);
		jsonw_end(j, '}');
	}
	jsonw_key(j, "expect");
	if (r->expect_ns < 0) {
		jsonw_null(j);
	} else {
		jsonw_obj(j);
		jsonw_key(j, "expect_us");
		jsonw_ns_us(j, r->expect_ns);
		jsonw_key(j, "distance_us");
		jsonw_ns_us(j, r->st.steady.wall - r->expect_ns);
		jsonw_end(j, '}');
	}
	jsonw_key(j, "warnings");
	jsonw_obj(j);
	jsonw_key(j, "unattributed_activities");
	jsonw_int(j, (int64_t)m->unattributed);
	jsonw_key(j, "launched_before_window");
	jsonw_int(j, (int64_t)m->before_window);
	jsonw_key(j, "clipped_ranges");
	jsonw_int(j, (int64_t)m->clipped);
	jsonw_key(j, "steps_left_out");
	jsonw_int(j, (int64_t)r->st.dropped);
	jsonw_key(j, "truncated");
	jsonw_bool(j, m->truncated);
	jsonw_end(j, '}');
	jsonw_end(j, '}');
}

void report_json_write(const struct report_in *in, size_t n, const struct strag_result *s,
		       struct sbuf *out)
{
	struct jsonw j;
	jsonw_init(&j, out);
	if (n == 1) {
		j_rank(&j, &in[0], true);
		return;
	}
	jsonw_obj(&j);
	jsonw_key(&j, "schema");
	jsonw_str(&j, "gpuflame.report/2");
	jsonw_key(&j, "ranks");
	jsonw_arr(&j);
	for (size_t k = 0; k < n; k++)
		j_rank(&j, &in[k], false);
	jsonw_end(&j, ']');
	jsonw_key(&j, "straggler");
	if (!s || !s->matched) {
		jsonw_null(&j);
	} else {
		jsonw_obj(&j);
		jsonw_key(&j, "index");
		jsonw_int(&j, s->straggler);
		jsonw_key(&j, "clear");
		jsonw_bool(&j, s->clear);
		jsonw_key(&j, "file");
		jsonw_str(&j, in[s->straggler].file);
		jsonw_key(&j, "rank");
		const struct report_meta *m = &in[s->straggler].r->meta;
		if (m->rank == KEV_NONE)
			jsonw_null(&j);
		else
			jsonw_int(&j, m->rank);
		jsonw_key(&j, "matched");
		jsonw_int(&j, (int64_t)s->matched);
		jsonw_key(&j, "unmatched");
		jsonw_int(&j, (int64_t)s->unmatched);
		jsonw_key(&j, "per_rank");
		jsonw_arr(&j);
		for (size_t k = 0; k < s->nranks; k++) {
			jsonw_obj(&j);
			jsonw_key(&j, "index");
			jsonw_int(&j, (int64_t)k);
			jsonw_key(&j, "wait_us");
			jsonw_ns_us(&j, s->r[k].wait);
			jsonw_key(&j, "arrived_last");
			jsonw_int(&j, (int64_t)s->r[k].last);
			jsonw_end(&j, '}');
		}
		jsonw_end(&j, ']');
		jsonw_end(&j, '}');
	}
	jsonw_end(&j, '}');
}

void report_json_syncs(const struct report_in *in, struct sbuf *out)
{
	const struct report *r = in->r;
	struct jsonw j;
	jsonw_init(&j, out);
	jsonw_obj(&j);
	jsonw_key(&j, "schema");
	jsonw_str(&j, "gpuflame.syncs/2");
	jsonw_key(&j, "input");
	jsonw_str(&j, "trace");
	jsonw_key(&j, "file");
	jsonw_str(&j, in->file);
	jsonw_key(&j, "steps");
	jsonw_int(&j, (int64_t)r->sy.nsteps);
	jsonw_key(&j, "whole_trace");
	jsonw_bool(&j, r->st.whole_trace);
	jsonw_key(&j, "count");
	jsonw_int(&j, (int64_t)r->sy.count);
	jsonw_key(&j, "wait_us");
	jsonw_ns_us(&j, r->sy.wait);
	jsonw_key(&j, "bubble_us");
	jsonw_ns_us(&j, r->sy.bubble);
	j_syncs(&j, r);
	jsonw_end(&j, '}');
}
