/* report_json.c — the report and the trace syncs as JSON ("gpuflame.report/2",
 * "gpuflame.syncs/2", docs/report.md; see report_fmt.h). */
#include "trace/write/report_fmt.h"
#include "trace/write/report_json.h"

#include "base/names.h"

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
	const struct report_verdict *v = &r->verdict;
	jsonw_key(j, "verdict_class");
	if (have && v->hclass >= 0 && v->hclass < HW_NCLASSES)
		jsonw_str(j, causes_class[v->hclass].key);
	else
		jsonw_null(j);
	jsonw_key(j, "verdict_stack");
	if (have && v->stack)
		jsonw_str(j, v->stack);
	else if (have && v->key && v->cause == GAP_QUEUED)
		jsonw_str(j, v->key->label);
	else
		jsonw_null(j);
	/* the numbers the verdict and Next quote beyond the causes */
	jsonw_key(j, "verdict_stack_share"); /* the stack's frames' share of the class (or key) */
	if (have && v->key_total > 0 && v->frames_ns > 0)
		jsonw_dec(j, gaps_share(v->frames_ns, v->key_total), 4);
	else
		jsonw_null(j);
	jsonw_key(j, "verdict_busy_share"); /* GPU-bound: busy of the steady steps outside the edges */
	if (have && v->wall_sum - v->edge_sum > 0)
		jsonw_dec(j, gaps_share(v->busy_sum, v->wall_sum - v->edge_sum), 4);
	else
		jsonw_null(j);
	jsonw_key(j, "verdict_call"); /* the call behind the class */
	if (have && v->call) {
		jsonw_obj(j);
		jsonw_key(j, "name");
		jsonw_str(j, v->call);
		jsonw_key(j, "calls");
		jsonw_int(j, (int64_t)v->call_n);
		jsonw_key(j, "time_us");
		jsonw_ns_us(j, v->call_ns);
		jsonw_key(j, "longest_us");
		jsonw_ns_us(j, v->call_max);
		jsonw_key(j, "median_us");
		jsonw_ns_us(j, v->call_median);
		jsonw_end(j, '}');
	} else {
		jsonw_null(j);
	}
	jsonw_key(j, "verdict_per_launch_us"); /* host: the host time per launch call */
	if (have && v->issuing)
		jsonw_ns_us(j, v->per_launch);
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

static void j_nstr(struct jsonw *j, const char *k, const char *s)
{
	jsonw_key(j, k);
	if (s)
		jsonw_str(j, s);
	else
		jsonw_null(j);
}

/* The failure modes: their key, their sentence and the numbers in it. */
static void j_findings(struct jsonw *j, const struct report *r)
{
	const struct report_verdict *v = &r->verdict;
	struct sbuf b = SBUF_INIT;
	jsonw_key(j, "findings");
	jsonw_arr(j);
	for (size_t i = 0; (r->parts & RP_VERDICT) && i < v->nfindings; i++) {
		const struct report_finding *f = &v->findings[i];
		jsonw_obj(j);
		jsonw_key(j, "kind");
		jsonw_str(j, prose_finding_key(f->kind));
		sbuf_reset(&b);
		prose_finding(&b, r, f);
		jsonw_key(j, "text");
		jsonw_str(j, b.buf);
		switch (f->kind) {
		case FINDING_WARMUP:
			jsonw_key(j, "steps");
			jsonw_int(j, (int64_t)f->n);
			jsonw_key(j, "calls");
			jsonw_int(j, (int64_t)f->m);
			jsonw_key(j, f->n ? "wall_us" : "idle_us");
			jsonw_ns_us(j, f->ns);
			break;
		case FINDING_OVERHEAD:
			jsonw_key(j, "ranges_per_launch");
			jsonw_dec(j, (int64_t)f->n, 2);
			jsonw_key(j, "python_frames_per_op");
			jsonw_dec(j, (int64_t)f->m, 2);
			break;
		case FINDING_FEW_STEPS:
			jsonw_key(j, "steady_steps");
			jsonw_int(j, (int64_t)f->n);
			jsonw_key(j, "steps");
			jsonw_int(j, (int64_t)f->m);
			break;
		case FINDING_RANKS:
			jsonw_key(j, "processes");
			jsonw_int(j, (int64_t)f->n);
			jsonw_key(j, "devices");
			jsonw_int(j, (int64_t)f->m);
			break;
		case FINDING_ASYNC:
			jsonw_key(j, "sync_wait_us");
			jsonw_ns_us(j, f->ns);
			jsonw_key(j, "step_us");
			jsonw_ns_us(j, f->of);
			break;
		default:
			break;
		}
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	sbuf_release(&b);
}

/* The steady idle of each cause by class of host work (sums over the
 * steady steps as means, and each one's share of its cause). */
static void j_classes(struct jsonw *j, const struct gaps_result *gp)
{
	jsonw_key(j, "classes");
	jsonw_arr(j);
	for (int k = 0; k < GAP_NCAUSES; k++)
		for (int c = 0; c < HW_NCLASSES; c++) {
			gf_ns w = gp->by_class[k][c];
			if (w <= 0)
				continue;
			jsonw_obj(j);
			jsonw_key(j, "cause");
			jsonw_str(j, causes_gap[k].key);
			jsonw_key(j, "class");
			jsonw_str(j, causes_class[c].key);
			jsonw_key(j, "idle_per_step_us");
			jsonw_ns_us(j, gaps_mean(w, gp->nsteady));
			jsonw_key(j, "share");
			jsonw_dec(j, gaps_share(w, gp->steady_sum.c[k]), 4);
			jsonw_end(j, '}');
		}
	jsonw_end(j, ']');
}

static void j_act(struct jsonw *j, const char *role, const struct report_act *a)
{
	static const char *const kinds[] = { "kernel", "memcpy", "memset", "annotation" };
	if (!a->have)
		return;
	jsonw_obj(j);
	jsonw_key(j, "role");
	jsonw_str(j, role);
	jsonw_key(j, "kind");
	jsonw_str(j, kinds[a->kind >= 0 && a->kind < 4 ? a->kind : 0]);
	jsonw_key(j, "name");
	jsonw_str(j, a->name);
	jsonw_key(j, "stream");
	jsonw_int(j, a->stream);
	jsonw_key(j, "start_us");
	jsonw_ns_us(j, a->start);
	jsonw_key(j, "end_us");
	jsonw_ns_us(j, a->end);
	j_nstr(j, "call", a->call);
	if (a->call) {
		jsonw_key(j, "call_start_us");
		jsonw_ns_us(j, a->call_start);
		jsonw_key(j, "issued_us");
		jsonw_ns_us(j, a->call_end);
	}
	jsonw_end(j, '}');
}

/* --explain: the largest gaps with their pieces and short timelines. */
static void j_explain(struct jsonw *j, const struct report *r)
{
	jsonw_key(j, "explain");
	jsonw_arr(j);
	for (size_t k = 0; k < r->ngaps; k++) {
		const struct report_gap *g = &r->gaps[k];
		jsonw_obj(j);
		jsonw_key(j, "step");
		if (g->step < 0)
			jsonw_null(j);
		else
			jsonw_int(j, g->step);
		jsonw_key(j, "start_us");
		jsonw_ns_us(j, g->lo);
		jsonw_key(j, "end_us");
		jsonw_ns_us(j, g->hi);
		jsonw_key(j, "idle_us");
		jsonw_ns_us(j, g->idle);
		jsonw_key(j, "pieces");
		jsonw_arr(j);
		for (size_t i = 0; i < g->np; i++) {
			const struct report_piece *p = &g->p[i];
			jsonw_obj(j);
			jsonw_key(j, "start_us");
			jsonw_ns_us(j, p->lo);
			jsonw_key(j, "end_us");
			jsonw_ns_us(j, p->hi);
			jsonw_key(j, "us");
			jsonw_ns_us(j, p->hi - p->lo);
			jsonw_key(j, "cause");
			jsonw_str(j, causes_gap[p->cause].key);
			j_nstr(j, "class", p->hclass >= 0 && p->hclass < HW_NCLASSES ? causes_class[p->hclass].key : NULL);
			j_nstr(j, "frame", p->frame);
			j_nstr(j, "stack", p->stack);
			j_nstr(j, "call", p->call);
			j_nstr(j, "waits_on", p->waits);
			j_nstr(j, "drained_by", p->drained);
			jsonw_end(j, '}');
		}
		jsonw_end(j, ']');
		jsonw_key(j, "device");
		jsonw_arr(j);
		j_act(j, "before", &g->prev);
		j_act(j, "next", &g->next);
		jsonw_end(j, ']');
		jsonw_key(j, "thread");
		jsonw_arr(j);
		if (g->tid != KEV_NONE || g->thread) {
			jsonw_obj(j);
			jsonw_key(j, "pid");
			if (g->pid == KEV_NONE)
				jsonw_null(j);
			else
				jsonw_int(j, g->pid);
			jsonw_key(j, "tid");
			if (g->tid == KEV_NONE)
				jsonw_null(j);
			else
				jsonw_int(j, g->tid);
			j_nstr(j, "name", g->thread);
			jsonw_end(j, '}');
		}
		jsonw_end(j, ']');
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

/* A trace without device activity: the host side. */
static void j_host(struct jsonw *j, const struct report *r)
{
	const struct cpu_report *c = &r->cpu;
	jsonw_key(j, "host_side");
	if (!(r->parts & RP_VERDICT) || r->verdict.kind != VERDICT_NO_GPU) {
		jsonw_null(j);
		return;
	}
	size_t ns = c->steps ? c->steps : 1;
	jsonw_obj(j);
	jsonw_key(j, "traced_us");
	jsonw_ns_us(j, c->host_ns);
	jsonw_key(j, "stacks");
	jsonw_arr(j);
	for (size_t i = 0; i < c->ntop; i++) {
		jsonw_obj(j);
		jsonw_key(j, "stack");
		jsonw_str(j, c->top[i].label);
		jsonw_key(j, "self_us");
		jsonw_ns_us(j, c->top[i].ns);
		jsonw_key(j, "self_per_step_us");
		jsonw_ns_us(j, gaps_mean(c->top[i].ns, ns));
		jsonw_key(j, "share");
		jsonw_dec(j, gaps_share(c->top[i].ns, c->host_ns), 4);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	jsonw_key(j, "would_sync");
	jsonw_arr(j);
	for (size_t i = 0; i < c->nsyncs; i++) {
		jsonw_obj(j);
		jsonw_key(j, "op");
		jsonw_str(j, c->syncs[i].name);
		jsonw_key(j, "count");
		jsonw_int(j, (int64_t)c->syncs[i].count);
		jsonw_key(j, "count_per_step");
		j_per_step(j, c->syncs[i].count, ns);
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
	jsonw_end(j, '}');
}

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
			jsonw_key(j, "compute_us");
			jsonw_ns_us(j, r->cm.rows[i].compute);
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
		j_classes(j, gp);
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
	j_findings(j, r);
	j_host(j, r);
	if (r->explained)
		j_explain(j, r);
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
	jsonw_key(j, "most_short");
	jsonw_bool(j, ld->most_short);
	jsonw_key(j, "latency_queued_us");
	jsonw_ns_us(j, ld->latency_queued);
	jsonw_key(j, "launch_bound");
	jsonw_bool(j, ld->launch_bound);
	jsonw_key(j, "recommendation");
	if (ld->launch_bound)
		jsonw_str(j, prose_launch_advice(ld, ld->most_short));
	else
		jsonw_null(j);
	jsonw_end(j, '}');
}

/* The steady busy split and the collectives (comm.h), means per steady
 * step. */
static void j_comm_split(struct jsonw *j, const struct comm_result *c)
{
	size_t ns = c->nsteady ? c->nsteady : 1;
	jsonw_key(j, "steps");
	jsonw_int(j, (int64_t)c->nsteady);
	jsonw_key(j, "wall_us");
	jsonw_ns_us(j, c->steady.wall);
	jsonw_key(j, "busy_us");
	jsonw_ns_us(j, c->steady.busy);
	jsonw_key(j, "compute_us");
	jsonw_ns_us(j, c->steady.compute);
	jsonw_key(j, "exposed_share");
	jsonw_double(j, c->steady.wall > 0 ? (double)c->steady.exposed / (double)c->steady.wall : 0, 4);
	jsonw_key(j, "collectives");
	jsonw_arr(j);
	for (size_t i = 0; i < c->ncoll; i++) {
		const struct comm_coll *x = &c->coll[i];
		jsonw_obj(j);
		jsonw_key(j, "collective");
		jsonw_str(j, names_coll_key(x->kind));
		jsonw_key(j, "stream");
		if (x->stream >= 0)
			jsonw_int(j, x->stream);
		else
			jsonw_null(j);
		jsonw_key(j, "kernel");
		jsonw_str(j, x->kernel);
		jsonw_key(j, "nelems");
		if (x->nelems != KEV_NONE)
			jsonw_int(j, x->nelems);
		else
			jsonw_null(j);
		jsonw_key(j, "dtype");
		if (x->dtype)
			jsonw_str(j, x->dtype);
		else
			jsonw_null(j);
		jsonw_key(j, "calls");
		jsonw_int(j, (int64_t)x->calls);
		jsonw_key(j, "calls_per_step");
		j_per_step(j, x->calls, ns);
		jsonw_key(j, "comm_us");
		jsonw_ns_us(j, gaps_mean(x->comm, ns));
		jsonw_key(j, "exposed_us");
		jsonw_ns_us(j, gaps_mean(x->exposed, ns));
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
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
		j_comm_split(j, &r->cm);
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
	jsonw_key(j, "zero_length_steps");
	jsonw_int(j, (int64_t)r->st.empty);
	jsonw_key(j, "truncated");
	jsonw_bool(j, m->truncated);
	jsonw_end(j, '}');
	jsonw_end(j, '}');
}

void report_json_write(const struct report_in *in, struct sbuf *out)
{
	struct jsonw j;
	jsonw_init(&j, out);
	j_rank(&j, in, true);
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
