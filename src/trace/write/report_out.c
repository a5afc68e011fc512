/* report_out.c — text, Markdown and JSON for report and syncs (see report_out.h). */
#include "trace/write/report_out.h"

#include "base/num.h"
#include "base/escape.h"
#include "base/jsonw.h"
#include "base/rtable.h"

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

/* part/whole with one decimal, "72.8%" */
static void pct1(struct sbuf *b, gf_ns part, gf_ns whole)
{
	if (whole <= 0) {
		sbuf_addstr(b, "-");
		return;
	}
	__int128 p = ((__int128)part * 2000 + whole) / (2 * (__int128)whole);
	num_fmt_fixed(b, (int64_t)p, 1, 1, false);
	sbuf_addch(b, '%');
}

enum cell_kind { CK_MS, CK_US, CK_PCT, CK_PCT1, CK_PER_STEP };

static void cell_num(struct rtable *t, enum cell_kind k, int64_t a, int64_t w)
{
	struct sbuf b = SBUF_INIT;
	switch (k) {
	case CK_MS: ms3(&b, a); break;
	case CK_US: us1(&b, a); break;
	case CK_PCT: report_fmt_pct(&b, a, w); break;
	case CK_PCT1: pct1(&b, a, w); break;
	case CK_PER_STEP: syncs_per_step(&b, (uint64_t)a, (size_t)w); break;
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

static void text(struct sbuf *out, bool md, const char *s)
{
	if (md)
		esc_md(out, s, strlen(s));
	else
		esc_term(out, s, strlen(s));
}

static void heading(struct sbuf *out, bool md, const char *h)
{
	if (md)
		sbuf_addf(out, "\n### %s\n\n", h);
	else
		sbuf_addf(out, "\n%s\n", h);
}

static void table(struct sbuf *out, bool md, struct rtable *t)
{
	if (md)
		rtable_md(t, out);
	else
		rtable_text(t, out, 2);
	rtable_release(t);
}

/* --- one rank, text / markdown ---------------------------------------- */

static void step_table(const struct report *r, bool md, struct sbuf *out)
{
	struct rtable t;
	rtable_init(&t, 13);
	static const char *const hd[] = { "step", "wall", "busy", "busy%", "kernel", "memcpy", "idle",
					  "sync", "syncs", "launch", "kern", "med k us", "" };
	for (unsigned i = 0; i < 13; i++)
		rtable_head(&t, i, hd[i], i == 12 ? RT_LEFT : RT_RIGHT);
	t.sep = 1;
	for (size_t i = 0; i <= r->st.n; i++) {
		const struct step_row *row = i < r->st.n ? &r->st.rows[i] : &r->st.steady;
		if (i == r->st.n)
			rtable_cell(&t, "steady");
		else if (row->number < 0)
			rtable_cell(&t, "all");
		else
			rtable_cellf(&t, "%lld", (long long)row->number);
		cell_ms(&t, row->wall);
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
	table(out, md, &t);
}

static void gaps_section(const struct report *r, bool md, struct sbuf *out)
{
	const struct gap_row *g = &r->gp.steady;
	gf_ns idle = g->sync + g->launch + g->host + g->untraced + g->other;
	heading(out, md, "Where the GPU idle time goes (mean per steady step)");
	struct rtable t;
	rtable_init(&t, 3);
	rtable_head(&t, 0, "cause", RT_LEFT);
	rtable_head(&t, 1, "ms/step", RT_RIGHT);
	rtable_head(&t, 2, "of idle", RT_RIGHT);
	const char *names[5] = { "sync: after a blocking call returned",
				 "launch: gaps under 30 us between kernels",
				 "host: host late to launch (traced work)",
				 "untraced: host outside every traced range", "other: queued work waited" };
	gf_ns v[5] = { g->sync, g->launch, g->host, g->untraced, g->other };
	for (int i = 0; i < 5; i++) {
		rtable_cell(&t, names[i]);
		cell_ms(&t, v[i]);
		cell_pct1(&t, v[i], idle);
	}
	table(out, md, &t);
	sbuf_addstr(out, md ? "\n" : "  ");
	sbuf_addstr(out, "HTA idle categories (per device): host wait ");
	ms3(out, g->hta_host);
	sbuf_addstr(out, " ms, kernel wait ");
	ms3(out, g->hta_kernel);
	sbuf_addstr(out, " ms, other ");
	ms3(out, g->hta_other);
	sbuf_addstr(out, " ms\n");
	size_t ns = r->st.nsteady ? r->st.nsteady : r->st.n;
	if (r->gp.nsync) {
		heading(out, md, "GPU idle after syncs, by Python site (per steady step)");
		rtable_init(&t, 2);
		rtable_head(&t, 0, "ms/step", RT_RIGHT);
		rtable_head(&t, 1, "site", RT_LEFT);
		t.maxw[1] = 88;
		for (size_t i = 0; i < r->gp.nsync && i < 5; i++) {
			cell_ms(&t, gaps_mean(r->gp.sync[i].ns, ns));
			rtable_cell(&t, r->gp.sync[i].label);
		}
		table(out, md, &t);
	}
	if (r->gp.nhost) {
		heading(out, md, "Top host stacks while the GPU idled (host gaps, per steady step)");
		rtable_init(&t, 2);
		rtable_head(&t, 0, "ms/step", RT_RIGHT);
		rtable_head(&t, 1, "Python site > innermost range", RT_LEFT);
		t.maxw[1] = 88;
		for (size_t i = 0; i < r->gp.nhost && i < 8; i++) {
			cell_ms(&t, gaps_mean(r->gp.host[i].ns, ns));
			rtable_cell(&t, r->gp.host[i].label);
		}
		table(out, md, &t);
	}
}

/* A cell with the end of a long label ("...rest"), cut at a UTF-8 boundary. */
static void cell_tail(struct rtable *t, const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max) {
		rtable_cell(t, s);
		return;
	}
	const char *p = s + n - (max - 3);
	while (((unsigned char)*p & 0xc0) == 0x80)
		p++;
	rtable_cellf(t, "...%s", p);
}

static void idle_section(const struct report_in *in, bool md, struct sbuf *out)
{
	if (!in->nidle)
		return;
	heading(out, md, "What the host was doing while the GPU idled (fold --weight idle, per step)");
	struct rtable t;
	rtable_init(&t, 2);
	rtable_head(&t, 0, "ms/step", RT_RIGHT);
	rtable_head(&t, 1, "host stack (innermost frames)", RT_LEFT);
	t.maxw[1] = 88;
	uint32_t ns = in->idle_steps ? in->idle_steps : 1;
	for (size_t i = 0; i < in->nidle; i++) {
		cell_ms(&t, gaps_mean(in->idle[i].ns, ns));
		if (md)
			rtable_cell(&t, in->idle[i].label);
		else
			cell_tail(&t, in->idle[i].label, 86);
	}
	table(out, md, &t);
}

static void launch_section(const struct report *r, bool md, struct sbuf *out)
{
	const struct launch_diag *ld = &r->gp.ld;
	heading(out, md, "Launches (steady steps)");
	sbuf_addf(out, "%s%lld kernels and %lld launch calls per step", md ? "" : "  ",
		  (long long)ld->kernels_per_step, (long long)ld->launches_per_step);
	if (ld->graph_launches)
		sbuf_addf(out, " (%llu graph launches in %zu steps)", (unsigned long long)ld->graph_launches,
			  r->st.nsteady ? r->st.nsteady : r->st.n);
	sbuf_addstr(out, "; median kernel ");
	us1(out, ld->median_kernel);
	sbuf_addstr(out, " us vs median launch call ");
	us1(out, ld->median_launch);
	sbuf_addstr(out, " us.\n");
	if (ld->compared) {
		sbuf_addstr(out, md ? "\n" : "  ");
		report_fmt_pct(out, (gf_ns)ld->short_kernels, (gf_ns)ld->compared);
		sbuf_addf(out, " of %llu kernels are shorter than their launch call (HTA short kernels).\n",
			  (unsigned long long)ld->compared);
	}
	if (ld->launch_bound) {
		sbuf_addstr(out, md ? "\n**Launch-bound:** " : "  Launch-bound: ");
		sbuf_addstr(out, gaps_launch_advice(ld));
		sbuf_addstr(out, ".\n");
	} else {
		sbuf_addstr(out, md ? "\n" : "  ");
		sbuf_addstr(out, "Not launch-bound (needs median kernel < median launch call, GPU busy "
				 "< 80% and launch/host gaps above sync gaps).\n");
	}
}

/* "dir/sub/file.py(12): f" -> "file.py(12): f" for narrow tables. */
static const char *short_site(const char *s)
{
	const char *p = strchr(s, '(');
	const char *e = p ? p : s + strlen(s);
	const char *b = s;
	for (const char *q = s; q < e; q++)
		if (*q == '/' || *q == '\\')
			b = q + 1;
	return b;
}

static void syncs_table(const struct report *r, bool md, struct sbuf *out, size_t max, bool fixes)
{
	struct sbuf b = SBUF_INIT;
	if (!r->sy.nsites) {
		sbuf_addstr(out, md ? "No blocking host calls in the selected steps.\n"
				    : "  No blocking host calls in the selected steps.\n");
		return;
	}
	struct rtable t;
	rtable_init(&t, 7);
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
		cell_ms(&t, s->bubble);
		rtable_cell(&t, md ? s->site_name : short_site(s->site_name));
		rtable_cell(&t, s->op_name);
		sbuf_reset(&b);
		sbuf_addstr(&b, s->api);
		if (s->pageable)
			sbuf_addstr(&b, " (pageable)");
		rtable_cell(&t, b.buf);
	}
	table(out, md, &t);
	if (r->sy.nsites > max)
		sbuf_addf(out, "%s... %zu more sites (gpuflame syncs lists them all)\n", md ? "\n" : "  ",
			  r->sy.nsites - max);
	if (fixes) {
		sbuf_addstr(out, md ? "\nFixes:\n\n" : "\n  Fixes:\n");
		for (size_t i = 0; i < r->sy.nsites && i < max; i++) {
			const struct sync_site *s = &r->sy.sites[i];
			sbuf_addf(out, "%s%zu. ", md ? "" : "  ", i + 1);
			text(out, md, s->site_name);
			sbuf_addstr(out, " (");
			text(out, md, s->op_chain);
			if (s->copy) {
				sbuf_addstr(out, "; ");
				text(out, md, s->copy);
				sbuf_addstr(out, " device-to-host, then ");
				text(out, md, s->api);
			}
			sbuf_addstr(out, "): ");
			sbuf_addstr(out, syncs_fix_text(s->fix));
			if (s->host_work_after)
				sbuf_addstr(out, "; the GPU then idles while the host works: move that work "
						 "to another thread");
			sbuf_addstr(out, "\n");
		}
	}
	sbuf_release(&b);
}

static void comm_section(const struct report *r, bool md, struct sbuf *out)
{
	const struct comm_result *c = &r->cm;
	if (!c->kernels)
		return;
	heading(out, md, "NCCL communication (mean per steady step)");
	sbuf_addf(out, "%s%llu NCCL kernels; comm ", md ? "" : "  ", (unsigned long long)c->kernels);
	ms3(out, c->steady.comm);
	sbuf_addstr(out, " ms, overlapped with compute ");
	ms3(out, c->steady.overlap);
	sbuf_addstr(out, " ms (");
	pct1(out, c->steady.overlap, c->steady.comm);
	sbuf_addstr(out, "), exposed ");
	ms3(out, c->steady.exposed);
	sbuf_addstr(out, " ms per step.\n");
	sbuf_addstr(out, md ? "\nHTA comm/compute overlap over the whole trace: "
			    : "  HTA comm/compute overlap over the whole trace: ");
	pct1(out, c->hta_overlap, c->hta_comm);
	sbuf_addstr(out, ".\n");
}

static void top_section(const struct report *r, bool md, struct sbuf *out)
{
	if (!r->ntop)
		return;
	const struct trace *t = r->c->t;
	size_t ns = r->st.nsteady ? r->st.nsteady : r->st.n;
	heading(out, md, "Top calls per step (steady steps; launch problems are about counts)");
	struct rtable tb;
	rtable_init(&tb, 3);
	rtable_head(&tb, 0, "calls/step", RT_RIGHT);
	rtable_head(&tb, 1, "kind", RT_LEFT);
	rtable_head(&tb, 2, "name", RT_LEFT);
	tb.maxw[2] = 80;
	for (size_t i = 0; i < r->ntop; i++) {
		cell_per_step(&tb, r->top[i].count, ns);
		rtable_cell(&tb, r->top[i].kind == TR_OP ? "op" : "launch");
		rtable_cell(&tb, pool_str(t->names, r->top[i].name));
	}
	table(out, md, &tb);
}

static void extra_section(const struct report *r, bool md, struct sbuf *out)
{
	const struct step_row *s = &r->st.steady;
	if (r->unprofiled_ns >= 0) {
		heading(out, md, "Profiler overhead");
		gf_ns d = s->wall - r->unprofiled_ns;
		sbuf_addstr(out, md ? "Profiled steady step " : "  Profiled steady step ");
		ms3(out, s->wall);
		sbuf_addstr(out, " ms vs unprofiled ");
		ms3(out, r->unprofiled_ns);
		sbuf_addstr(out, " ms: ");
		if (d > 0) {
			sbuf_addstr(out, "the profiler adds ");
			ms3(out, d);
			sbuf_addstr(out, " ms per step (");
			pct1(out, d, r->unprofiled_ns);
			sbuf_addstr(out, " of the unprofiled step)");
			sbuf_addstr(out, d > s->idle ? "; that is more than all GPU idle time, so host-bound "
						       "conclusions may be profiler artefacts.\n"
						     : "; host gaps above are inflated by at most that much.\n");
		} else {
			sbuf_addstr(out, "no measurable profiler overhead.\n");
		}
	}
	if (r->expect_ns >= 0) {
		heading(out, md, "Speed of light");
		gf_ns d = s->wall - r->expect_ns;
		sbuf_addstr(out, md ? "Steady step " : "  Steady step ");
		ms3(out, s->wall);
		sbuf_addstr(out, " ms vs your estimate ");
		ms3(out, r->expect_ns);
		sbuf_addstr(out, " ms: ");
		if (d > 0) {
			ms3(out, d);
			sbuf_addstr(out, " ms (");
			pct1(out, d, r->expect_ns);
			sbuf_addstr(out, ") above it; GPU busy alone is ");
			ms3(out, s->busy);
			sbuf_addstr(out, " ms, so GPU idle (");
			ms3(out, s->idle);
			sbuf_addstr(out, " ms) explains ");
			gf_ns ex = s->idle < d ? s->idle : d;
			pct1(out, ex, d);
			sbuf_addstr(out, " of the distance.\n");
		} else {
			sbuf_addstr(out, "at or below it: the estimate is reached.\n");
		}
	}
}

static void notes(const struct report *r, bool md, struct sbuf *out)
{
	const struct trace *t = r->c->t;
	struct sbuf n = SBUF_INIT;
	if (t->warn.unattributed)
		sbuf_addf(&n, "%s%llu GPU activities have no launch in the trace (%llu launched before the window)\n",
			  md ? "- " : "  ", (unsigned long long)t->warn.unattributed,
			  (unsigned long long)t->warn.before_window);
	if (t->warn.clipped)
		sbuf_addf(&n, "%s%llu host ranges overlapped without nesting and were clipped\n",
			  md ? "- " : "  ", (unsigned long long)t->warn.clipped);
	if (r->st.whole_trace)
		sbuf_addf(&n, "%sno step markers: the whole trace is one step (use --step-marker NAME)\n",
			  md ? "- " : "  ");
	if (r->st.dropped)
		sbuf_addf(&n, "%s%llu steps left out by --steps/--skip\n", md ? "- " : "  ",
			  (unsigned long long)r->st.dropped);
	if (t->meta.truncated)
		sbuf_addf(&n, "%sthe trace file is truncated: read up to its last complete event\n",
			  md ? "- " : "  ");
	if (n.len) {
		heading(out, md, "Notes");
		sbuf_add(out, n.buf, n.len);
	}
	sbuf_release(&n);
}

static void rank_text(const struct report_in *in, bool md, struct sbuf *out)
{
	const struct report *r = in->r;
	const struct trace *t = r->c->t;
	if (md) {
		sbuf_addstr(out, "## gpuflame report: ");
		esc_md(out, in->file, strlen(in->file));
		sbuf_addstr(out, "\n\n");
	} else {
		sbuf_addstr(out, "gpuflame report: ");
		esc_term(out, in->file, strlen(in->file));
		sbuf_addch(out, '\n');
	}
	if (t->meta.rank != KEV_NONE)
		sbuf_addf(out, "rank %lld%s", (long long)t->meta.rank, t->meta.world_size != KEV_NONE ? "" : ", ");
	if (t->meta.rank != KEV_NONE && t->meta.world_size != KEV_NONE)
		sbuf_addf(out, " of %lld, ", (long long)t->meta.world_size);
	if (r->c->device >= 0)
		sbuf_addf(out, "device %d, ", r->c->device);
	sbuf_addf(out, "%zu step%s (%zu warm-up, %zu steady); times in ms\n", r->st.n, r->st.n == 1 ? "" : "s",
		  r->st.nwarm, r->st.nsteady);
	if (md)
		sbuf_addch(out, '\n');
	step_table(r, md, out);
	sbuf_addstr(out, md ? "\n**Verdict:** " : "\nVerdict: ");
	text(out, md, r->verdict);
	sbuf_addstr(out, md ? "\n\n**Next:** " : "\nNext: ");
	text(out, md, r->action);
	sbuf_addch(out, '\n');
	gaps_section(r, md, out);
	idle_section(in, md, out);
	launch_section(r, md, out);
	heading(out, md, "Hidden syncs (blocking host calls; gpuflame syncs has the full list)");
	syncs_table(r, md, out, 5, false);
	comm_section(r, md, out);
	top_section(r, md, out);
	extra_section(r, md, out);
	notes(r, md, out);
}

/* --- JSON ---------------------------------------------------------------- */

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
	jsonw_key(j, "sync_us");
	jsonw_ns_us(j, g->sync);
	jsonw_key(j, "launch_us");
	jsonw_ns_us(j, g->launch);
	jsonw_key(j, "host_us");
	jsonw_ns_us(j, g->host);
	jsonw_key(j, "untraced_us");
	jsonw_ns_us(j, g->untraced);
	jsonw_key(j, "other_us");
	jsonw_ns_us(j, g->other);
	jsonw_key(j, "hta_host_wait_us");
	jsonw_ns_us(j, g->hta_host);
	jsonw_key(j, "hta_kernel_wait_us");
	jsonw_ns_us(j, g->hta_kernel);
	jsonw_key(j, "hta_other_us");
	jsonw_ns_us(j, g->hta_other);
}

static void j_per_step(struct jsonw *j, uint64_t count, size_t n)
{
	struct sbuf b = SBUF_INIT;
	syncs_per_step(&b, count, n);
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
		jsonw_key(j, "host_work_after");
		jsonw_bool(j, s->host_work_after);
		jsonw_key(j, "fix");
		jsonw_str(j, syncs_fix_text(s->fix));
		jsonw_end(j, '}');
	}
	jsonw_end(j, ']');
}

static void j_keys(struct jsonw *j, const char *name, const struct gap_key *k, size_t n, size_t ns)
{
	jsonw_key(j, name);
	jsonw_arr(j);
	for (size_t i = 0; i < n && i < 20; i++) {
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

static void j_rank(struct jsonw *j, const struct report_in *in, bool top)
{
	const struct report *r = in->r;
	const struct trace *t = r->c->t;
	size_t ns = r->st.nsteady ? r->st.nsteady : r->st.n;
	jsonw_obj(j);
	if (top) {
		jsonw_key(j, "schema");
		jsonw_str(j, "gpuflame.report/1");
	}
	jsonw_key(j, "file");
	jsonw_str(j, in->file);
	jsonw_key(j, "rank");
	if (t->meta.rank == KEV_NONE)
		jsonw_null(j);
	else
		jsonw_int(j, t->meta.rank);
	jsonw_key(j, "world_size");
	if (t->meta.world_size == KEV_NONE)
		jsonw_null(j);
	else
		jsonw_int(j, t->meta.world_size);
	jsonw_key(j, "device");
	if (r->c->device < 0)
		jsonw_null(j);
	else
		jsonw_int(j, r->c->device);
	jsonw_key(j, "whole_trace");
	jsonw_bool(j, r->st.whole_trace);
	jsonw_key(j, "steps");
	jsonw_arr(j);
	for (size_t i = 0; i < r->st.n; i++) {
		j_step(j, &r->st.rows[i], true);
		jsonw_key(j, "warmup");
		jsonw_bool(j, r->st.rows[i].warmup);
		jsonw_key(j, "gaps");
		jsonw_obj(j);
		j_gaprow(j, &r->gp.rows[i]);
		jsonw_end(j, '}');
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
	jsonw_key(j, "verdict");
	jsonw_str(j, r->verdict);
	jsonw_key(j, "action");
	jsonw_str(j, r->action);
	jsonw_end(j, '}');
	jsonw_key(j, "gaps");
	jsonw_obj(j);
	j_gaprow(j, &r->gp.steady);
	j_keys(j, "sync_sites", r->gp.sync, r->gp.nsync, ns);
	j_keys(j, "host_stacks", r->gp.host, r->gp.nhost, ns);
	jsonw_end(j, '}');
	jsonw_key(j, "idle_stacks");
	if (!in->nidle)
		jsonw_null(j);
	else
		j_keys_n(j, in->idle, in->nidle, in->idle_steps ? in->idle_steps : 1);
	const struct launch_diag *ld = &r->gp.ld;
	jsonw_key(j, "launch");
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
		jsonw_str(j, gaps_launch_advice(ld));
	else
		jsonw_null(j);
	jsonw_end(j, '}');
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
		jsonw_str(j, pool_str(t->names, r->top[i].name));
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
	jsonw_int(j, (int64_t)t->warn.unattributed);
	jsonw_key(j, "launched_before_window");
	jsonw_int(j, (int64_t)t->warn.before_window);
	jsonw_key(j, "clipped_ranges");
	jsonw_int(j, (int64_t)t->warn.clipped);
	jsonw_key(j, "steps_left_out");
	jsonw_int(j, (int64_t)r->st.dropped);
	jsonw_key(j, "truncated");
	jsonw_bool(j, t->meta.truncated);
	jsonw_end(j, '}');
	jsonw_end(j, '}');
}

/* --- several ranks ------------------------------------------------------- */

static void ranks_text(const struct report_in *in, size_t n, const struct strag_result *s, bool md,
		       struct sbuf *out)
{
	struct sbuf b = SBUF_INIT;
	sbuf_addf(out, md ? "## gpuflame report: %zu ranks (never merged)\n\n"
			  : "gpuflame report: %zu ranks (never merged; steady medians per step, ms)\n", n);
	enum { NROWS = 13 };
	static const char *const rows[NROWS] = {
		"file", "rank", "steps (warm-up)", "wall ms", "GPU busy ms", "busy %", "idle ms",
		"sync wait ms", "syncs", "launches", "kernels", "NCCL exposed ms", "coll. wait ms",
	};
	for (size_t c0 = 0; c0 < n; c0 += 6) {
		size_t c1 = c0 + 6 < n ? c0 + 6 : n;
		struct rtable t;
		rtable_init(&t, (unsigned)(c1 - c0 + 1));
		rtable_head(&t, 0, "per step", RT_LEFT);
		for (size_t k = c0; k < c1; k++) {
			sbuf_reset(&b);
			sbuf_addf(&b, "#%zu", k + 1);
			rtable_head(&t, (unsigned)(k - c0 + 1), b.buf, RT_RIGHT);
			t.maxw[k - c0 + 1] = 16;
		}
		for (int row = 0; row < NROWS; row++) {
			rtable_cell(&t, rows[row]);
			for (size_t k = c0; k < c1; k++) {
				const struct report *r = in[k].r;
				const struct step_row *st = &r->st.steady;
				const struct trace *tr = r->c->t;
				const char *slash = strrchr(in[k].file, '/');
				switch (row) {
				case 0: {
					/* keep the end of the name: it tells ranks apart */
					const char *nm = slash ? slash + 1 : in[k].file;
					size_t l = strlen(nm);
					sbuf_reset(&b);
					if (l > 16) {
						/* cut at a UTF-8 boundary */
						const char *e = nm + l - 13;
						while (((unsigned char)*e & 0xc0) == 0x80)
							e++;
						sbuf_addstr(&b, "...");
						sbuf_addstr(&b, e);
					} else {
						sbuf_addstr(&b, nm);
					}
					rtable_cell(&t, b.buf);
					break;
				}
				case 1:
					if (tr->meta.rank == KEV_NONE)
						rtable_cell(&t, "-");
					else
						rtable_cellf(&t, "%lld", (long long)tr->meta.rank);
					break;
				case 2:
					rtable_cellf(&t, "%zu (%zu)", r->st.n, r->st.nwarm);
					break;
				case 3:
					cell_ms(&t, st->wall);
					break;
				case 4:
					cell_ms(&t, st->busy);
					break;
				case 5:
					cell_pct(&t, st->busy, st->wall);
					break;
				case 6:
					cell_ms(&t, st->idle);
					break;
				case 7:
					cell_ms(&t, st->sync_wait);
					break;
				case 8:
					rtable_cellf(&t, "%llu", (unsigned long long)st->syncs);
					break;
				case 9:
					rtable_cellf(&t, "%llu", (unsigned long long)st->launches);
					break;
				case 10:
					rtable_cellf(&t, "%llu", (unsigned long long)st->kernels);
					break;
				case 11:
					if (r->cm.kernels)
						cell_ms(&t, r->cm.steady.exposed);
					else
						rtable_cell(&t, "-");
					break;
				default:
					if (s && s->matched)
						cell_ms(&t, s->r[k].wait);
					else
						rtable_cell(&t, "-");
					break;
				}
			}
		}
		if (c0)
			sbuf_addch(out, '\n');
		table(out, md, &t);
	}
	heading(out, md, "Straggler (minimum-wait rule over matched collectives)");
	if (!s || !s->matched) {
		sbuf_addstr(out, md ? "No NCCL collective matched across all ranks.\n"
				    : "  No NCCL collective matched across all ranks.\n");
	} else {
		size_t k = (size_t)s->straggler;
		if (!s->clear)
			sbuf_addstr(out, md ? "No clear straggler (ranks arrive last about equally often); "
					      "the most likely one: "
					    : "  No clear straggler (ranks arrive last about equally often); "
					      "the most likely one:\n");
		sbuf_addf(out, "%s#%zu (", md ? "" : "  ", k + 1);
		text(out, md, in[k].file);
		sbuf_addf(out, ") arrived last at %llu of %llu matched collectives (",
			  (unsigned long long)s->r[k].last, (unsigned long long)s->matched);
		report_fmt_pct(out, (gf_ns)s->r[k].last, (gf_ns)s->matched);
		gf_ns others = 0;
		for (size_t i = 0; i < s->nranks; i++)
			if (i != k)
				others += s->r[i].wait;
		sbuf_addstr(out, "); the other ranks waited ");
		ms3(out, others);
		sbuf_addstr(out, " ms in total for it.");
		if (s->unmatched)
			sbuf_addf(out, " %llu collectives were not found on every rank.",
				  (unsigned long long)s->unmatched);
		sbuf_addstr(out, md ? "\n\nCompare its step table with the others': its extra time "
				      "before the collectives is the cause.\n"
				    : "\n  Compare its step table with the others': its extra time before "
				      "the collectives is the cause.\n");
	}
	heading(out, md, "Verdicts");
	for (size_t k = 0; k < n; k++) {
		sbuf_addf(out, "%s#%zu: ", md ? "- " : "  ", k + 1);
		text(out, md, in[k].r->verdict);
		sbuf_addch(out, '\n');
	}
	sbuf_release(&b);
	for (size_t k = 0; k < n; k++) {
		sbuf_addstr(out, md ? "\n" : "\n\n");
		rank_text(&in[k], md, out);
	}
}

void report_out(const struct report_in *in, size_t n, const struct strag_result *s, int format,
		struct sbuf *out)
{
	if (format != REP_JSON) {
		struct sbuf tmp = SBUF_INIT;
		struct sbuf *o = format == REP_TEXT ? &tmp : out;
		if (n == 1)
			rank_text(&in[0], format == REP_MD, o);
		else
			ranks_text(in, n, s, format == REP_MD, o);
		if (format == REP_TEXT)
			rtable_wrap(tmp.buf, tmp.len, 100, out);
		sbuf_release(&tmp);
		return;
	}
	struct jsonw j;
	jsonw_init(&j, out);
	if (n == 1) {
		j_rank(&j, &in[0], true);
		return;
	}
	jsonw_obj(&j);
	jsonw_key(&j, "schema");
	jsonw_str(&j, "gpuflame.report/1");
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
		const struct trace *tr = in[s->straggler].r->c->t;
		if (tr->meta.rank == KEV_NONE)
			jsonw_null(&j);
		else
			jsonw_int(&j, tr->meta.rank);
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

void report_out_syncs(const struct report_in *in, int format, struct sbuf *out)
{
	const struct report *r = in->r;
	if (format == REP_JSON) {
		struct jsonw j;
		jsonw_init(&j, out);
		jsonw_obj(&j);
		jsonw_key(&j, "schema");
		jsonw_str(&j, "gpuflame.syncs/1");
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
		return;
	}
	bool md = format == REP_MD;
	struct sbuf tmp = SBUF_INIT;
	struct sbuf *final = out;
	if (!md)
		out = &tmp;
	sbuf_addstr(out, md ? "## gpuflame syncs: " : "gpuflame syncs: ");
	text(out, md, in->file);
	sbuf_addf(out, "%s%llu blocking calls in %zu %s: host wait ", md ? "\n\n" : "\n",
		  (unsigned long long)r->sy.count, r->sy.nsteps,
		  r->st.whole_trace ? "trace (no step markers)" : r->sy.nsteps == 1 ? "step" : "steps");
	ms3(out, r->sy.wait);
	sbuf_addstr(out, " ms, GPU idle after them ");
	ms3(out, r->sy.bubble);
	sbuf_addstr(out, " ms");
	sbuf_addstr(out, md ? "\n\n" : "\n\n");
	syncs_table(r, md, out, SIZE_MAX, true);
	if (!md)
		rtable_wrap(tmp.buf, tmp.len, 100, final);
	sbuf_release(&tmp);
}
