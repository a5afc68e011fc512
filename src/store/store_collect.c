/*
 * store_collect.c — one input of `store add` into a run (store_collect.h).
 */
#include "store/store_collect.h"

#include "base/num.h"
#include "ranks/summary.h"
#include "stacks/folded.h"
#include "trace/analysis/actx.h"
#include "trace/analysis/fold.h"
#include "trace/analysis/report.h"
#include "trace/model/trace.h"

#include <stdlib.h>
#include <string.h>

static const char *keep(struct store_collect *c, char *s)
{
	if (c->nstrs == sizeof c->strs / sizeof c->strs[0]) {
		free(s);
		return "";
	}
	return c->strs[c->nstrs++] = s;
}

/* The report's times it records (ns), with idle by cause (causes.h). */
static const char *const ns_metrics[] = { "step_wall", "busy", "idle", "sync_wait" };

bool store_collect_ns(const char *metric)
{
	for (size_t i = 0; i < GF_ARRAY_LEN(ns_metrics); i++)
		if (!strcmp(metric, ns_metrics[i]))
			return true;
	for (int k = 0; k < GAP_NCAUSES; k++)
		if (!strcmp(metric, causes_gap[k].metric))
			return true;
	return false;
}

static void metric(struct store_collect *c, const char *key, int64_t v)
{
	if (c->in.nmetrics < STORE_MAX_METRICS)
		c->in.metrics[c->in.nmetrics++] = (struct store_metric){ key, v };
}

/* The metrics of a trace's report (its steady step), or of a summary's. */
static void step_metrics(struct store_collect *c, int64_t steps, gf_ns wall, gf_ns busy, gf_ns idle,
			 const gf_ns *cause, gf_ns sync_wait, uint64_t syncs, uint64_t kernels, uint64_t launches)
{
	metric(c, "steps", steps);
	metric(c, ns_metrics[0], wall);
	metric(c, ns_metrics[1], busy);
	metric(c, ns_metrics[2], idle);
	for (int k = 0; k < GAP_NCAUSES; k++)
		if (cause[k] >= 0)
			metric(c, causes_gap[k].metric, cause[k]);
	metric(c, ns_metrics[3], sync_wait);
	metric(c, "syncs", (int64_t)syncs);
	metric(c, "kernels", (int64_t)kernels);
	metric(c, "launches", (int64_t)launches);
}

/* A weight's per-step total: the metric weight.W. */
static void weight_metric(struct store_collect *c, const char *w, int64_t v)
{
	struct sbuf b = SBUF_INIT;
	sbuf_addf(&b, "weight.%s", w);
	metric(c, keep(c, sbuf_detach(&b, NULL)), v);
}

static void label(struct store_collect *c, const char *key, const char *val)
{
	for (size_t i = 0; i < c->in.nlabels; i++) {
		const char *l = c->in.labels[i];
		size_t n = strlen(key);
		if (!strncmp(l, key, n) && l[n] == '=')
			return; /* the command line's value wins */
	}
	if (c->in.nlabels < STORE_MAX_LABELS) {
		struct sbuf b = SBUF_INIT;
		sbuf_addf(&b, "%s=%s", key, val);
		c->in.labels[c->in.nlabels++] = keep(c, sbuf_detach(&b, NULL));
	}
}

/* The run's labels from the header of its first profile. */
static void header_labels(struct store_collect *c, const struct ftree_meta *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		const char *k = m->kv[i].key;
		if (!strncmp(k, "label.", 6))
			label(c, k + 6, m->kv[i].val);
		else if (!strcmp(k, "rank") || !strcmp(k, "world_size") || !strcmp(k, "device"))
			label(c, k, m->kv[i].val);
	}
}

/* The command line's labels into t's header as label.KEY (fold --label's). */
static void header_set_labels(struct ftree *t, const struct store_collect_opts *o)
{
	for (size_t i = 0; i < o->nlabels; i++) {
		const char *eq = strchr(o->labels[i], '=');
		struct sbuf k = SBUF_INIT;
		sbuf_addf(&k, "label.%.*s", (int)(eq - o->labels[i]), o->labels[i]);
		ftree_meta_set(&t->meta, k.buf, eq + 1);
		sbuf_release(&k);
	}
}

/* A folded file's header gets --label's and --steps' checks: label.KEY
 * with KEY of letters, digits, '_', '-', '.'; steps a positive integer. */
static int header_check(const struct ftree_meta *m, const char *name, int64_t *steps, struct sbuf *err)
{
	*steps = 0;
	for (unsigned i = 0; i < m->n; i++) {
		const char *k = m->kv[i].key, *v = m->kv[i].val;
		if (!strncmp(k, "label.", 6) && !fold_label_key_ok(k + 6, strlen(k + 6))) {
			sbuf_setf(err, "'%s': the header's key '%s': expected label.KEY, KEY of letters, digits, '_', "
				  "'-', '.'", name, k);
			return GF_EINPUT;
		}
		if (!strcmp(k, "steps") && (num_parse(v, strlen(v), 0, 0, steps) != NUM_OK || *steps <= 0)) {
			sbuf_setf(err, "'%s': invalid steps=%s in the header: expected a positive integer (of 64 bits)",
				  name, v);
			return GF_EINPUT;
		}
	}
	return GF_OK;
}

/* Total of t per step (or the total without steps), in whole units. */
static int64_t per_step(const struct ftree *t, int64_t steps)
{
	int64_t v = t->total[0];
	for (unsigned k = 0; k < t->scale; k++)
		v /= 10;
	return steps > 0 ? v / steps : v;
}

/* What the trace says of itself: rank and world size (when the header did
 * not), the analysed device, the timestamps' generation (which Kineto wrote
 * it), the distributed backend, a legacy (non-Kineto) export. */
static void trace_labels(struct store_collect *c, const struct trace *tr, const struct actx *ax)
{
	char b[32];
	const struct trace_meta *m = &tr->meta;
	if (m->rank != KEV_NONE) {
		snprintf(b, sizeof b, "%lld", (long long)m->rank);
		label(c, "rank", b);
	}
	if (m->world_size != KEV_NONE) {
		snprintf(b, sizeof b, "%lld", (long long)m->world_size);
		label(c, "world_size", b);
	}
	if (ax->device >= 0) {
		snprintf(b, sizeof b, "%d", ax->device);
		label(c, "device", b);
	}
	label(c, "timestamps", kts_gen_name(m->ts_gen));
	if (m->backend[0])
		label(c, "backend", m->backend);
	if (m->legacy)
		label(c, "export", "legacy");
}

static int collect_trace(struct store_collect *c, struct input *in, const struct store_collect_opts *o,
			 struct sbuf *err)
{
	struct trace tr;
	trace_init(&tr, NULL);
	struct trace_opts to = { 0 };
	to.step_marker = o->step_marker;
	to.threads = o->threads;
	int rc = trace_load_input(&tr, in, &to, err);
	if (rc) {
		trace_release(&tr);
		return rc;
	}
	if (o->trace_loaded)
		o->trace_loaded(&tr, o->ctx);
	struct fold_opts fo;
	fold_opts_init(&fo);
	fo.unit = FU_NS;
	fo.source = c->in.source;
	fo.step_marker = o->step_marker;
	for (size_t i = 0; i < o->nlabels && !rc; i++)
		rc = fold_add_label(&fo, o->labels[i], err);
	for (int w = 0; w < FW_NTRACE && !rc; w++) {
		fo.weight = w;
		struct fold_stats st;
		memset(&st, 0, sizeof st);
		ftree_release(&c->trees[w]); /* fold_trace initialises its output */
		rc = fold_trace(&tr, &fo, &c->trees[w], &st, err);
		if (rc)
			break;
		c->in.weights[w] = weight_defs[w].name;
		c->in.prof[w] = &c->trees[w];
		c->in.nprof = (size_t)w + 1;
		if (w == 0)
			c->in.steps = st.steps;
		/* the same weight, one tower per step: the steps' values that
		 * store diff tests changes against (store.h step_folds) */
		struct fold_opts ps = fo;
		ps.per_step = true;
		struct fold_stats st2;
		memset(&st2, 0, sizeof st2);
		ftree_release(&c->step_trees[w]);
		rc = fold_trace(&tr, &ps, &c->step_trees[w], &st2, err);
		if (!rc)
			c->in.step_folds[w] = &c->step_trees[w];
	}
	struct actx ax;
	bool have_ax = false;
	struct report r;
	bool have_r = false;
	if (!rc && !(rc = actx_init(&ax, &tr, -1, err))) {
		have_ax = true;
		struct report_opts ro;
		report_opts_init(&ro);
		ro.parts = RP_GAPS | RP_SYNCS;
		if (!(rc = report_build(&r, &ax, &ro, err)))
			have_r = true;
	}
	if (!rc) {
		const struct step_row *s = &r.st.steady;
		step_metrics(c, (int64_t)r.st.n, s->wall, s->busy, s->idle, r.gp.steady.c, s->sync_wait, s->syncs,
			     s->kernels, s->launches);
		for (size_t k = 0; k < c->in.nprof; k++)
			weight_metric(c, c->in.weights[k], per_step(c->in.prof[k], c->in.steps));
		header_labels(c, &c->trees[0].meta);
		trace_labels(c, &tr, &ax);
	}
	if (have_r)
		report_release(&r);
	if (have_ax)
		actx_release(&ax);
	trace_release(&tr);
	return rc;
}

static int collect_folded(struct store_collect *c, struct input *in, const struct store_collect_opts *o,
			  struct sbuf *err)
{
	struct ftree *t = &c->trees[0];
	struct folded_opts fo = { .strict = true, .reverse = false };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	int rc = folded_read_in(t, in, &fo, &st, err);
	if (rc)
		return rc;
	if (!st.stacks || t->ncols != 1) {
		sbuf_setf(err, "'%s': %s", input_name(in),
			  t->ncols != 1 ? "a differential file (two counts per line) cannot be stored: store the two profiles"
					: "no stack lines ('stack count') found");
		return GF_EINPUT;
	}
	const char *w = ftree_meta_get(&t->meta, "weight");
	if (w && o->weight && strcmp(w, o->weight)) {
		sbuf_setf(err, "'%s': its header says weight=%s, not %s", input_name(in), w, o->weight);
		return GF_EUSAGE;
	}
	struct folded_units fu;
	folded_units(t, &fu); /* an import's header names its profile: cpu, wall, samples... */
	w = w ? w : o->weight ? o->weight : fu.name ? fu.name : "samples";
	header_set_labels(t, o);
	if ((rc = header_check(&t->meta, input_name(in), &c->in.steps, err)))
		return rc;
	c->in.weights[0] = keep(c, gf_xstrdup(w));
	c->in.prof[0] = t;
	c->in.nprof = 1;
	if (c->in.steps > 0)
		metric(c, "steps", c->in.steps);
	weight_metric(c, c->in.weights[0], per_step(t, c->in.steps));
	header_labels(c, &t->meta);
	return GF_OK;
}

/* A summary (gpuflame summarise): the page's four graphs of its steps
 * (pruned, "[pruned]" for what the page left out; us at scale 3, so whole
 * ns), its report's steady step, and its rank, world size, device,
 * backend and run id as labels. */
static int collect_summary(struct store_collect *c, struct input *in, const struct store_collect_opts *o,
			   struct sbuf *err)
{
	struct sbuf text = SBUF_INIT;
	char buf[1 << 16];
	size_t n;
	int rc;
	while (!(rc = input_read(in, buf, sizeof buf, &n, err)) && n)
		sbuf_add(&text, buf, n);
	struct summary s;
	if (rc || (rc = summary_parse(&s, text.buf, text.len, input_name(in), err))) {
		sbuf_release(&text);
		return rc;
	}
	static const char *const ws[] = { "gpu", "cpu", "wall", "idle" };
	for (size_t w = 0; w < sizeof ws / sizeof ws[0] && !rc; w++) {
		ftree_release(&c->trees[w]);
		ftree_init(&c->trees[w], NULL, 0);
		if (!(rc = summary_tree(&s, ws[w], &c->trees[w], err))) {
			header_set_labels(&c->trees[w], o);
			c->in.weights[w] = ws[w];
			c->in.prof[w] = &c->trees[w];
			c->in.nprof = w + 1;
		}
	}
	if (rc == GF_EUSAGE)
		sbuf_setf(err, "'%s': no flame graphs in the summary (made with summarise --no-flames): nothing to store",
			  input_name(in));
	if (!rc) {
		const char *st = ftree_meta_get(&c->trees[0].meta, "steps");
		c->in.steps = st ? strtoll(st, NULL, 10) : 0;
		const struct summary_row *r = &s.steady;
		step_metrics(c, (int64_t)s.nsteps, r->wall, r->busy, r->idle, r->cause, r->sync_wait,
			     r->syncs, r->kernels, r->launches);
		for (size_t k = 0; k < c->in.nprof; k++)
			weight_metric(c, c->in.weights[k], c->trees[k].total[0] / (c->in.steps > 0 ? c->in.steps : 1));
		char b[32];
		if (s.rank >= 0) {
			snprintf(b, sizeof b, "%lld", (long long)s.rank);
			label(c, "rank", b);
		}
		if (s.world_size >= 0) {
			snprintf(b, sizeof b, "%lld", (long long)s.world_size);
			label(c, "world_size", b);
		}
		if (s.device >= 0) {
			snprintf(b, sizeof b, "%d", s.device);
			label(c, "device", b);
		}
		if (s.backend)
			label(c, "backend", s.backend);
		if (s.run)
			label(c, "run", s.run);
	}
	summary_free(&s);
	sbuf_release(&text);
	return rc == GF_EUSAGE ? GF_EINPUT : rc;
}

int store_collect_input(struct store_collect *c, struct input *in, bool is_trace, const struct store_collect_opts *o,
			struct sbuf *err)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < STORE_MAX_PROFILES; i++) {
		ftree_init(&c->trees[i], NULL, 0);
		ftree_init(&c->step_trees[i], NULL, 0);
	}
	c->in.release = o->release;
	const char *path = input_name(in), *slash = strrchr(path, '/');
	c->in.source = keep(c, gf_xstrdup(slash ? slash + 1 : path));
	bool summary = input_format(in) == INPUT_SUMMARY;
	c->in.kind = summary ? "summary" : is_trace ? "trace" : "folded";
	for (size_t i = 0; i < o->nlabels; i++)
		c->in.labels[c->in.nlabels++] = o->labels[i];
	if (summary)
		return collect_summary(c, in, o, err);
	return is_trace ? collect_trace(c, in, o, err) : collect_folded(c, in, o, err);
}

void store_collect_release(struct store_collect *c)
{
	for (int i = 0; i < STORE_MAX_PROFILES; i++) {
		ftree_release(&c->trees[i]);
		ftree_release(&c->step_trees[i]);
	}
	for (size_t i = 0; i < c->nstrs; i++)
		free(c->strs[i]);
}
