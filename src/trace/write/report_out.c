/* report_out.c — the report's and the syncs' sections, written once for every
 * prose format (report_fmt.h: text, Markdown), and the dispatch by format
 * (see report_out.h). */
#include "trace/write/report_fmt.h"
#include "trace/write/report_json.h"
#include "trace/write/explain.h"
#include "trace/write/prose.h"

#include "base/names.h"
#include "base/num.h"

#include <string.h>

/* --- small formatters ------------------------------------------------- *
 * Every formatter appends to the buffer it is given and returns nothing. None
 * returns a pointer into a scratch buffer: the next use of that buffer resets
 * it, or grows it and frees the old storage, so two such pointers in one
 * sbuf_addf printed one number twice, or freed memory (the --expect-ms
 * use-after-free). Table cells are formatted by the cell_* helpers into a
 * buffer of their own that rtable_cell copies. */

static void ms3(struct sbuf *b, gf_ns ns)
{
	num_fmt_fixed(b, ns, 6, 3, false);
}

static void us1(struct sbuf *b, gf_ns ns)
{
	num_fmt_fixed(b, ns, 3, 1, false);
}

enum cell_kind { CK_MS, CK_US, CK_PCT, CK_PCT1, CK_PER_STEP };

static void cell_num(struct rtable *t, enum cell_kind k, int64_t a, int64_t w)
{
	struct sbuf b = SBUF_INIT;
	switch (k) {
	case CK_MS: ms3(&b, a); break;
	case CK_US: us1(&b, a); break;
	case CK_PCT: prose_pct(&b, a, w); break;
	case CK_PCT1: prose_pct1(&b, a, w); break;
	case CK_PER_STEP: prose_per_step(&b, (uint64_t)a, (size_t)w); break;
	}
	rtable_cell(t, b.buf);
	sbuf_release(&b);
}

static void cell_ms(struct rtable *t, gf_ns ns)
{
	cell_num(t, CK_MS, ns, 0);
}

static void cell_us(struct rtable *t, gf_ns ns)
{
	cell_num(t, CK_US, ns, 0);
}

static void cell_pct(struct rtable *t, gf_ns part, gf_ns whole)
{
	cell_num(t, CK_PCT, part, whole);
}

static void cell_pct1(struct rtable *t, gf_ns part, gf_ns whole)
{
	cell_num(t, CK_PCT1, part, whole);
}

static void cell_per_step(struct rtable *t, uint64_t count, size_t n)
{
	cell_num(t, CK_PER_STEP, (int64_t)count, (int64_t)n);
}

/* --- one rank, text / markdown ---------------------------------------- */

static void step_table(const struct report *r, size_t max, bool nogpu, const struct report_fmt *f, struct sbuf *out)
{
	size_t head = max && max < r->st.n ? (max + 1) / 2 : r->st.n, tail = max && max < r->st.n ? max / 2 : 0;
	struct rtable t;
	/* without GPU activity: the step and its wall, no columns of zeros */
	unsigned nc = nogpu ? 3 : 13;
	rtable_init(&t, nc);
	static const char *const hd[] = { "step", "wall", "busy", "busy%", "kernel", "memcpy", "idle",
					  "sync", "syncs", "launch", "kern", "med k us", "" };
	for (unsigned i = 0; i < nc; i++) {
		unsigned h = nogpu && i == 2 ? 12 : i;
		rtable_head(&t, i, hd[h], h == 12 ? RT_LEFT : RT_RIGHT);
	}
	t.sep = 1;
	for (size_t i = 0; i <= r->st.n; i++) {
		if (i == head && i + tail < r->st.n) /* --max-steps: the middle steps are left out */
			i = r->st.n - tail;
		const struct step_row *row = i < r->st.n ? &r->st.rows[i] : &r->st.steady;
		if (i == r->st.n)
			rtable_cell(&t, "steady");
		else if (row->number < 0)
			rtable_cell(&t, "all");
		else
			rtable_cellf(&t, "%lld", (long long)row->number);
		cell_ms(&t, row->wall);
		if (nogpu) {
			rtable_cell(&t, i < r->st.n && row->warmup ? "warm" : "");
			continue;
		}
		cell_ms(&t, row->busy);
		cell_pct(&t, row->busy, row->wall);
		cell_ms(&t, row->kernel);
		cell_ms(&t, row->memcpy);
		cell_ms(&t, row->idle);
		cell_ms(&t, row->sync_wait);
		rtable_cellf(&t, "%llu", (unsigned long long)row->syncs);
		rtable_cellf(&t, "%llu", (unsigned long long)row->launches);
		rtable_cellf(&t, "%llu", (unsigned long long)row->kernels);
		cell_us(&t, row->median_kernel);
		rtable_cell(&t, i < r->st.n && row->warmup ? "warm" : "");
	}
	f->table(out, &t);
	if (head + tail < r->st.n)
		sbuf_addf(out, "%s(%zu of %zu steps shown, the first %zu and the last %zu: --max-steps; the JSON has "
			  "every step)\n", f->gap, head + tail, r->st.n, head, tail);
}

/* A key table: ms/step, share of its cause, the label. */
static void key_table(const struct report_fmt *f, struct sbuf *out, const char *heading, const char *col,
		      const struct gap_key *k, size_t n, size_t max, size_t ns, gf_ns total)
{
	if (!n)
		return;
	f->heading(out, heading);
	struct rtable t;
	rtable_init(&t, 3);
	rtable_head(&t, 0, "ms/step", RT_RIGHT);
	rtable_head(&t, 1, "share", RT_RIGHT);
	rtable_head(&t, 2, col, RT_LEFT);
	t.maxw[2] = 80;
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < n && i < max; i++) {
		cell_ms(&t, gaps_mean(k[i].ns, ns));
		sbuf_reset(&b);
		prose_share(&b, k[i].ns, total);
		rtable_cell(&t, b.buf);
		rtable_cell(&t, k[i].label);
	}
	sbuf_release(&b);
	f->table(out, &t);
}

/* The idle of the causes with classes, by class of host work. */
static void class_table(const struct gaps_result *gp, const struct report_fmt *f, struct sbuf *out)
{
	struct rtable t;
	rtable_init(&t, 4);
	rtable_head(&t, 0, "cause", RT_LEFT);
	rtable_head(&t, 1, "class of host work", RT_LEFT);
	rtable_head(&t, 2, "ms/step", RT_RIGHT);
	rtable_head(&t, 3, "of cause", RT_RIGHT);
	size_t rows = 0;
	for (int k = 0; k < GAP_NCAUSES; k++)
		for (int c = 0; c < HW_NCLASSES; c++) {
			gf_ns w = gp->by_class[k][c];
			if (w <= 0)
				continue;
			rtable_cell(&t, causes_gap[k].key);
			rtable_cell(&t, causes_class[c].key);
			cell_ms(&t, gaps_mean(w, gp->nsteady));
			struct sbuf b = SBUF_INIT;
			prose_share(&b, w, gp->steady_sum.c[k]);
			rtable_cell(&t, b.buf);
			sbuf_release(&b);
			rows++;
		}
	if (!rows) {
		rtable_release(&t);
		return;
	}
	f->heading(out, "The same idle by class of host work (per steady step)");
	f->table(out, &t);
}

static void gaps_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct gaps_result *gp = &r->gp;
	const struct gap_row *g = &gp->steady;
	gf_ns idle = gaps_idle(g);
	f->heading(out, "Where the GPU idle time goes (mean per steady step)");
	struct rtable t;
	rtable_init(&t, 3);
	rtable_head(&t, 0, "cause", RT_LEFT);
	rtable_head(&t, 1, "ms/step", RT_RIGHT);
	rtable_head(&t, 2, "of idle", RT_RIGHT);
	/* the gap model's causes (causes.h), each with its rule in a few words */
	struct sbuf b = SBUF_INIT;
	for (int k = 0; k < GAP_NCAUSES; k++) {
		sbuf_reset(&b);
		prose_cause_line(&b, k);
		rtable_cell(&t, b.buf);
		cell_ms(&t, g->c[k]);
		cell_pct1(&t, g->c[k], idle);
	}
	sbuf_release(&b);
	f->table(out, &t);
	sbuf_addstr(out, f->next);
	sbuf_addstr(out, "HTA's rule per device (exact ns, every step; not HTA's per-stream figures): host wait ");
	ms3(out, g->hta_host);
	sbuf_addstr(out, " ms, kernel wait ");
	ms3(out, g->hta_kernel);
	sbuf_addstr(out, " ms, other ");
	ms3(out, g->hta_other);
	sbuf_addstr(out, " ms\n");
	size_t ns = gp->nsteady ? gp->nsteady : 1;
	class_table(gp, f, out);
	for (int k = 0; k < GAP_NCAUSES; k++) {
		const struct prose_cause *w = prose_cause(k);
		if (w->keys_heading)
			key_table(f, out, w->keys_heading, w->keys_col, gp->keys[k], gp->nkeys[k], w->keys_max, ns,
				  gp->steady_sum.c[k]);
	}
}

static void idle_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	if (!r->nidle)
		return;
	f->heading(out, "The GPU idle flame graph's heaviest stacks (fold --weight idle, per step)");
	struct rtable t;
	rtable_init(&t, 2);
	rtable_head(&t, 0, "ms/step", RT_RIGHT);
	rtable_head(&t, 1, "[cause];[class];stack (innermost frames)", RT_LEFT);
	t.maxw[1] = 88;
	uint32_t ns = r->idle_steps ? r->idle_steps : 1;
	for (size_t i = 0; i < r->nidle; i++) {
		cell_ms(&t, gaps_mean(r->idle[i].ns, ns));
		f->cell_long(&t, r->idle[i].label, 86);
	}
	f->table(out, &t);
}

static void launch_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct launch_diag *ld = &r->gp.ld;
	f->heading(out, "Launches (steady steps)");
	sbuf_addf(out, "%s%lld kernels and %lld launch calls per step", f->lead,
		  (long long)ld->kernels_per_step, (long long)ld->launches_per_step);
	if (ld->graph_launches)
		sbuf_addf(out, " (%llu graph launches in %zu steps)", (unsigned long long)ld->graph_launches,
			  r->st.nsteady ? r->st.nsteady : r->st.n);
	sbuf_addstr(out, "; median kernel ");
	us1(out, ld->median_kernel);
	sbuf_addstr(out, " us vs median launch call ");
	us1(out, ld->median_launch);
	sbuf_addstr(out, " us.\n");
	if (ld->latency_launches) {
		sbuf_addstr(out, f->next);
		sbuf_addstr(out, "Work starts a median ");
		us1(out, ld->median_latency);
		sbuf_addf(out, " us after its launch call (%llu launch calls).\n",
			  (unsigned long long)ld->latency_launches);
	}
	if (ld->compared) {
		sbuf_addstr(out, f->next);
		prose_pct(out, (gf_ns)ld->short_kernels, (gf_ns)ld->compared);
		sbuf_addf(out, " of %llu kernels are shorter than their launch call (HTA short kernels).\n",
			  (unsigned long long)ld->compared);
	}
	if (ld->launch_bound) {
		sbuf_addstr(out, f->next);
		f->strong(out, "Launch-bound:");
		sbuf_addstr(out, prose_launch_advice(ld, ld->most_short));
		sbuf_addstr(out, ".\n");
	} else {
		sbuf_addstr(out, f->next);
		sbuf_addstr(out, "Not launch-bound (needs the time inside launch calls plus the launch latency of "
				 "queued work to be the largest part of the idle time, GPU busy < 80%, median kernel < "
				 "median launch call, and no deep queue of graph replays).\n");
	}
}

static void syncs_table(const struct report *r, const struct report_fmt *f, struct sbuf *out, size_t max,
			bool fixes)
{
	struct sbuf b = SBUF_INIT;
	if (!r->sy.nsites) {
		sbuf_addstr(out, f->lead);
		sbuf_addstr(out, "No blocking host calls in the selected steps.\n");
		return;
	}
	struct rtable t;
	rtable_init(&t, 7);
	/* the report's section gives the bubble per steady step, as the gap
	 * table's sync sites do (its heading says so); syncs the total over
	 * the selected steps */
	static const char *const hd[] = { "#", "per step", "wait ms", "bubble ms", "site", "op", "api" };
	for (unsigned i = 0; i < 7; i++)
		rtable_head(&t, i, hd[i], i < 4 ? RT_RIGHT : RT_LEFT);
	t.maxw[4] = 28;
	t.maxw[5] = 16;
	t.maxw[6] = 22;
	t.sep = 1;
	for (size_t i = 0; i < r->sy.nsites && i < max; i++) {
		const struct sync_site *s = &r->sy.sites[i];
		rtable_cellf(&t, "%zu", i + 1);
		cell_per_step(&t, s->count, r->sy.nsteps);
		cell_ms(&t, s->wait);
		cell_ms(&t, fixes ? s->bubble : gaps_mean(s->bubble_steady, r->sy.nsteady));
		f->cell_site(&t, s->site_name);
		rtable_cell(&t, s->op_name);
		sbuf_reset(&b);
		sbuf_addstr(&b, s->api);
		if (s->pageable)
			sbuf_addstr(&b, " (pageable)");
		rtable_cell(&t, b.buf);
	}
	f->table(out, &t);
	if (r->sy.nsites > max)
		sbuf_addf(out, "%s... %zu more sites (gpuflame syncs lists them all)\n", f->next,
			  r->sy.nsites - max);
	if (fixes) {
		sbuf_addf(out, "\n%sFixes:\n%s", f->lead, f->gap);
		for (size_t i = 0; i < r->sy.nsites && i < max; i++) {
			const struct sync_site *s = &r->sy.sites[i];
			sbuf_addf(out, "%s%zu. ", f->lead, i + 1);
			f->text(out, s->site_name);
			sbuf_addstr(out, " (");
			f->text(out, s->op_chain);
			if (s->copy) {
				sbuf_addstr(out, "; ");
				f->text(out, s->copy);
				sbuf_addstr(out, " device-to-host, then ");
				f->text(out, s->api);
			}
			sbuf_addstr(out, "): ");
			prose_sync_fix(out, s);
			sbuf_addstr(out, "\n");
		}
	}
	sbuf_release(&b);
}

/* Busy split per step (comm.h): busy = compute + overlapped + exposed. */
static void comm_steps(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct comm_result *c = &r->cm;
	struct rtable t;
	rtable_init(&t, 8);
	static const char *const hd[] = { "step", "wall", "busy", "compute", "overlapped", "exposed", "exposed%", "" };
	for (unsigned i = 0; i < 8; i++)
		rtable_head(&t, i, hd[i], i == 7 ? RT_LEFT : RT_RIGHT);
	for (size_t i = 0; i <= c->n; i++) {
		const struct comm_row *x = i < c->n ? &c->rows[i] : &c->steady;
		const struct step_row *row = i < c->n ? &r->st.rows[i] : NULL;
		if (!row)
			rtable_cell(&t, "steady");
		else if (row->number < 0)
			rtable_cell(&t, "all");
		else
			rtable_cellf(&t, "%lld", (long long)row->number);
		cell_ms(&t, x->wall);
		cell_ms(&t, x->busy);
		cell_ms(&t, x->compute);
		cell_ms(&t, x->overlap);
		cell_ms(&t, x->exposed);
		cell_pct(&t, x->exposed, x->wall);
		rtable_cell(&t, row && row->warmup ? "warm" : !row ? "mean" : "");
	}
	sbuf_addf(out, "%sBusy time split per step (compute: busy with no NCCL kernel running; overlapped: NCCL "
		  "under compute kernels; exposed: NCCL alone):\n%s", f->next, f->gap);
	f->table(out, &t);
}

/* Exposed time per collective (comm.h struct comm_coll), per steady step. */
static void comm_colls(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct comm_result *c = &r->cm;
	if (!c->ncoll)
		return;
	f->heading(out, "Exposed communication by collective (mean per steady step)");
	struct rtable t;
	rtable_init(&t, 6);
	static const char *const hd[] = { "exposed ms", "comm ms", "calls/step", "stream", "collective", "kernel" };
	for (unsigned i = 0; i < 6; i++)
		rtable_head(&t, i, hd[i], i < 4 ? RT_RIGHT : RT_LEFT);
	t.maxw[5] = 60;
	size_t ns = c->nsteady ? c->nsteady : 1;
	for (size_t i = 0; i < c->ncoll; i++) {
		const struct comm_coll *x = &c->coll[i];
		cell_ms(&t, gaps_mean(x->exposed, ns));
		cell_ms(&t, gaps_mean(x->comm, ns));
		cell_per_step(&t, x->calls, ns);
		if (x->stream >= 0)
			rtable_cellf(&t, "%d", (int)x->stream);
		else
			rtable_cell(&t, "-");
		rtable_cell(&t, names_coll_key(x->kind));
		f->cell_long(&t, x->kernel, 58);
	}
	f->table(out, &t);
}

static void comm_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct comm_result *c = &r->cm;
	if (!c->kernels)
		return;
	f->heading(out, "NCCL communication (mean per steady step)");
	sbuf_addf(out, "%s%llu NCCL kernels; comm ", f->lead, (unsigned long long)c->kernels);
	ms3(out, c->steady.comm);
	sbuf_addstr(out, " ms, overlapped with compute ");
	ms3(out, c->steady.overlap);
	sbuf_addstr(out, " ms (");
	prose_pct1(out, c->steady.overlap, c->steady.comm);
	sbuf_addstr(out, "), exposed ");
	ms3(out, c->steady.exposed);
	sbuf_addstr(out, " ms per step.\n");
	sbuf_addstr(out, f->next);
	sbuf_addstr(out, "HTA comm/compute overlap over the whole trace: ");
	prose_pct1(out, c->hta_overlap, c->hta_comm);
	sbuf_addstr(out, ".\n");
	comm_steps(r, f, out);
	comm_colls(r, f, out);
}

static void top_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	if (!r->ntop)
		return;
	size_t ns = r->st.nsteady ? r->st.nsteady : r->st.n;
	f->heading(out, "Top calls per step (steady steps; launch problems are about counts)");
	struct rtable tb;
	rtable_init(&tb, 3);
	rtable_head(&tb, 0, "calls/step", RT_RIGHT);
	rtable_head(&tb, 1, "kind", RT_LEFT);
	rtable_head(&tb, 2, "name", RT_LEFT);
	tb.maxw[2] = 80;
	for (size_t i = 0; i < r->ntop; i++) {
		cell_per_step(&tb, r->top[i].count, ns);
		rtable_cell(&tb, r->top[i].kind == TR_OP ? "op" : "launch");
		rtable_cell(&tb, r->top[i].name);
	}
	f->table(out, &tb);
}

static void extra_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct step_row *s = &r->st.steady;
	if (r->unprofiled_ns >= 0) {
		f->heading(out, "Profiler overhead");
		gf_ns d = s->wall - r->unprofiled_ns;
		sbuf_addstr(out, f->lead);
		sbuf_addstr(out, "Profiled steady step ");
		ms3(out, s->wall);
		sbuf_addstr(out, " ms vs unprofiled ");
		ms3(out, r->unprofiled_ns);
		sbuf_addstr(out, " ms: ");
		if (d > 0) {
			sbuf_addstr(out, "the profiler adds ");
			ms3(out, d);
			sbuf_addstr(out, " ms per step (");
			prose_pct1(out, d, r->unprofiled_ns);
			sbuf_addstr(out, " of the unprofiled step)");
			sbuf_addstr(out, d > s->idle ? "; that is more than all GPU idle time, so host-bound "
						       "conclusions may be profiler artefacts.\n"
						     : "; host gaps above are inflated by at most that much.\n");
		} else {
			sbuf_addstr(out, "no measurable profiler overhead.\n");
		}
	}
	if (r->expect_ns >= 0) {
		f->heading(out, "Speed of light");
		gf_ns d = s->wall - r->expect_ns;
		sbuf_addstr(out, f->lead);
		sbuf_addstr(out, "Steady step ");
		ms3(out, s->wall);
		sbuf_addstr(out, " ms vs your estimate ");
		ms3(out, r->expect_ns);
		sbuf_addstr(out, " ms: ");
		if (d > 0) {
			ms3(out, d);
			sbuf_addstr(out, " ms (");
			prose_pct1(out, d, r->expect_ns);
			sbuf_addstr(out, ") above it; GPU busy alone is ");
			ms3(out, s->busy);
			sbuf_addstr(out, " ms, so GPU idle (");
			ms3(out, s->idle);
			sbuf_addstr(out, " ms) explains ");
			gf_ns ex = s->idle < d ? s->idle : d;
			prose_pct1(out, ex, d);
			sbuf_addstr(out, " of the distance.\n");
		} else {
			sbuf_addstr(out, "at or below it: the estimate is reached.\n");
		}
	}
}

static void findings_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct report_verdict *v = &r->verdict;
	if (!(r->parts & RP_VERDICT) || !v->nfindings)
		return;
	f->heading(out, "Caveats of this profile");
	struct sbuf b = SBUF_INIT;
	for (size_t i = 0; i < v->nfindings; i++) {
		sbuf_reset(&b);
		prose_finding(&b, r, &v->findings[i]);
		sbuf_addstr(out, f->item);
		f->text(out, b.buf);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&b);
}

/* A trace without GPU activity: the host side instead of GPU tables. */
static void host_section(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct cpu_report *c = &r->cpu;
	size_t ns = c->steps ? c->steps : 1;
	f->heading(out, "Host time without a GPU (cpu fold, self time per step)");
	if (!c->ntop) {
		sbuf_addstr(out, f->lead);
		sbuf_addstr(out, "No traced host time in the selected steps.\n");
	} else {
		struct rtable t;
		rtable_init(&t, 3);
		rtable_head(&t, 0, "ms/step", RT_RIGHT);
		rtable_head(&t, 1, "share", RT_RIGHT);
		rtable_head(&t, 2, "host stack (innermost frames)", RT_LEFT);
		t.maxw[2] = 80;
		struct sbuf b = SBUF_INIT;
		for (size_t i = 0; i < c->ntop; i++) {
			cell_ms(&t, gaps_mean(c->top[i].ns, ns));
			sbuf_reset(&b);
			prose_share(&b, c->top[i].ns, c->host_ns);
			rtable_cell(&t, b.buf);
			f->cell_long(&t, c->top[i].label, 78);
		}
		sbuf_release(&b);
		f->table(out, &t);
	}
	f->heading(out, "Calls that would synchronise on a GPU (per step)");
	if (!c->nsyncs) {
		sbuf_addstr(out, f->lead);
		sbuf_addstr(out, "None of aten::item, .tolist(), nonzero, boolean checks or other value reads.\n");
		return;
	}
	struct rtable t;
	rtable_init(&t, 2);
	rtable_head(&t, 0, "calls/step", RT_RIGHT);
	rtable_head(&t, 1, "op", RT_LEFT);
	for (size_t i = 0; i < c->nsyncs; i++) {
		cell_per_step(&t, c->syncs[i].count, ns);
		rtable_cell(&t, c->syncs[i].name);
	}
	f->table(out, &t);
}

static void notes(const struct report *r, const struct report_fmt *f, struct sbuf *out)
{
	const struct report_meta *m = &r->meta;
	struct sbuf n = SBUF_INIT;
	if (m->unattributed)
		sbuf_addf(&n, "%s%llu GPU activities have no launch in the trace (%llu launched before the window)\n",
			  f->item, (unsigned long long)m->unattributed, (unsigned long long)m->before_window);
	if (m->clipped)
		sbuf_addf(&n, "%s%llu host ranges overlapped without nesting and were clipped\n", f->item,
			  (unsigned long long)m->clipped);
	if (r->st.whole_trace)
		sbuf_addf(&n, "%sno step markers: the whole trace is one step (use --step-marker NAME)\n",
			  f->item);
	if (r->st.dropped)
		sbuf_addf(&n, "%s%llu steps left out by --steps/--skip\n", f->item,
			  (unsigned long long)r->st.dropped);
	if (r->st.empty)
		sbuf_addf(&n, "%s%llu zero-length step%s left out (a step marker with no duration holds nothing)\n",
			  f->item, (unsigned long long)r->st.empty, r->st.empty == 1 ? "" : "s");
	if (m->truncated)
		sbuf_addf(&n, "%sthe trace file is truncated: read up to its last complete event\n", f->item);
	if (n.len) {
		f->heading(out, "Notes");
		sbuf_add(out, n.buf, n.len);
	}
	sbuf_release(&n);
}

/* One rank; the sections of parts the report did not compute are left out. */
static void rank_text(const struct report_in *in, const struct report_fmt *f, struct sbuf *out)
{
	const struct report *r = in->r;
	const struct report_meta *m = &r->meta;
	f->title(out, "gpuflame report: ", in->file);
	if (m->rank != KEV_NONE)
		sbuf_addf(out, "rank %lld%s", (long long)m->rank, m->world_size != KEV_NONE ? "" : ", ");
	if (m->rank != KEV_NONE && m->world_size != KEV_NONE)
		sbuf_addf(out, " of %lld, ", (long long)m->world_size);
	if (m->device >= 0) {
		char kind[64];
		bool named = *trace_device_kind(m->dev_kinds, kind);
		sbuf_addf(out, "device %d%s%s%s, ", m->device, named ? " (" : "", kind, named ? ")" : "");
	}
	sbuf_addf(out, "%zu step%s (%zu warm-up, %zu steady); times in ms\n", r->st.n, r->st.n == 1 ? "" : "s",
		  r->st.nwarm, r->st.nsteady);
	bool verdict = r->parts & RP_VERDICT;
	if (verdict) { /* the summary first, then the steps */
		struct sbuf b = SBUF_INIT;
		sbuf_addstr(out, f->gap);
		f->strong(out, "Verdict:");
		prose_verdict(&b, r);
		f->text(out, b.buf);
		sbuf_addf(out, "\n%s", f->gap);
		f->strong(out, "Next:");
		sbuf_reset(&b);
		prose_next(&b, r);
		f->text(out, b.buf);
		sbuf_addch(out, '\n');
		sbuf_release(&b);
	}
	sbuf_addstr(out, f->gap);
	if (verdict && !*f->gap)
		sbuf_addch(out, '\n');
	bool nogpu = verdict && r->verdict.kind == VERDICT_NO_GPU;
	step_table(r, in->max_steps, nogpu, f, out);
	if (nogpu)
		host_section(r, f, out);
	if ((r->parts & RP_GAPS) && !nogpu)
		gaps_section(r, f, out);
	idle_section(r, f, out);
	if ((r->parts & RP_GAPS) && !nogpu)
		launch_section(r, f, out);
	if (r->parts & RP_SYNCS) {
		f->heading(out, "Hidden syncs (blocking host calls, bubble ms per steady step; gpuflame syncs "
				"has the full list)");
		syncs_table(r, f, out, 5, false);
	}
	comm_section(r, f, out);
	top_section(r, f, out);
	extra_section(r, f, out);
	findings_section(r, f, out);
	notes(r, f, out);
	if (r->explained) {
		f->heading(out, "Explain: the largest GPU idle gaps, one by one (--explain)");
		explain_text(out, r, f->lead, f->item, f->text);
	}
}

static const struct report_fmt *fmt_of(int format)
{
	return format == REP_MD ? &report_md_fmt : &report_text_fmt;
}

void report_out(const struct report_in *in, int format, struct sbuf *out)
{
	if (format == REP_JSON) {
		report_json_write(in, out);
		return;
	}
	const struct report_fmt *f = fmt_of(format);
	struct sbuf body = SBUF_INIT;
	rank_text(in, f, &body);
	f->finish(&body, out);
	sbuf_release(&body);
}

void report_out_syncs(const struct report_in *in, int format, struct sbuf *out)
{
	if (format == REP_JSON) {
		report_json_syncs(in, out);
		return;
	}
	const struct report *r = in->r;
	const struct report_fmt *f = fmt_of(format);
	struct sbuf body = SBUF_INIT;
	f->title(&body, "gpuflame syncs: ", in->file);
	sbuf_addf(&body, "%llu blocking calls in %zu %s: host wait ", (unsigned long long)r->sy.count,
		  r->sy.nsteps, r->st.whole_trace ? "trace (no step markers)" : r->sy.nsteps == 1 ? "step" : "steps");
	ms3(&body, r->sy.wait);
	sbuf_addstr(&body, " ms, GPU idle after them ");
	ms3(&body, r->sy.bubble);
	sbuf_addstr(&body, " ms\n\n");
	syncs_table(r, f, &body, SIZE_MAX, true);
	f->finish(&body, out);
	sbuf_release(&body);
}
