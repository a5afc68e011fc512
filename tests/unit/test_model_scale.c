/*
 * test_model_scale.c — the trace model's nesting stays n log n on hostile
 * Python chains (issue 16, "Hold under attack"): the re-parent check by
 * `Python parent id` counts O(log depth) hops per frame on chains whose
 * links point across a cpu_op, to far ancestors, every other frame; and the
 * nesting (parents, clipped ends, flags) equals the plain walk up the parent
 * chain of the earlier model on random traces with repeated ids, links to
 * siblings, later frames, themselves and nothing, partial overlaps and
 * zero-length ranges on several threads.
 */
#include "t.h"
#include "jtrace.h"

#include "base/sbuf.h"
#include "trace/model/trace.h"


static void jev(const char *cat, const char *name, int tid, long long ts, long long dur, const char *args)
{
	sbuf_addf(&J, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,"
		      "\"args\":{%s}}",
		  J.len > 20 ? ",\n" : "", cat, name, tid, ts, dur, args ? args : "");
}

/* The pychain shape of tests/gen/gen_nested.py: a python root (id 1), a
 * cpu_op in it, then n python frames each inside the previous, frame i
 * with Python id i + 2 and Python parent id given by link:
 * 'r' the root (across the cpu_op: never taken), 'f' the first chain frame
 * (taken), 's' the frame 2 above (taken by even frames). Frame i is named
 * "c<i>". */
static int pychain(struct trace *t, int n, char link)
{
	char args[96], name[32];
	long long total = 200LL * n + 1000;
	jbegin();
	jev("python_function", "train.py(10): main", 1, 1, total - 2, "\"Python id\":1,\"Python parent id\":0");
	jev("cpu_op", "aten::chain", 1, 2, total - 4, NULL);
	for (int i = 0; i < n; i++) {
		long long pid = link == 'r' ? 1 : link == 'f' ? 2 : (i >= 2 ? i : 2);
		snprintf(args, sizeof args, "\"Python id\":%d,\"Python parent id\":%lld", i + 2, pid);
		snprintf(name, sizeof name, "c%d", i);
		jev("python_function", name, 1, 10 + 100LL * i, total - 20 - 200LL * i, args);
	}
	return jload(t);
}

/* chain frame index of range q (its name "c<i>"), -1 for another range */
static int chain_ix(const struct trace *t, uint32_t q)
{
	if (q == TRACE_NONE)
		return -2;
	const char *s = pool_str(t->names, t->r[q].name);
	return s[0] == 'c' ? atoi(s + 1) : -1;
}

T_TEST(test_model_scale__pychain_links_log_hops)
{
	static const char links[] = { 'r', 'f', 's' };
	for (size_t l = 0; l < sizeof links; l++) {
		unsigned long long hops[2];
		for (int k = 0; k < 2; k++) {
			int n = k ? 80000 : 20000;
			struct trace t;
			trace_nest_steps = 0;
			T_TRUE(pychain(&t, n, links[l]) == GF_OK);
			hops[k] = trace_nest_steps;
			uint64_t fixed = 0;
			int bad = 0;
			for (uint32_t q = 0; q < t.nr; q++) {
				int i = chain_ix(&t, q);
				if (i < 0)
					continue;
				int p = chain_ix(&t, t.r[q].parent);
				int want = i - 1; /* time nesting (the cpu_op for frame 0) */
				if (links[l] == 'f' && i >= 2)
					want = 0;
				if (links[l] == 's' && i >= 2 && i % 2 == 0)
					want = i - 2;
				if (i == 0)
					want = -1;
				if (p != want)
					bad++;
				fixed += (t.r[q].flags & TRF_PYFIX) != 0;
			}
			T_EQ_I64(bad, 0);
			T_EQ_I64(fixed, links[l] == 'r' ? 0 : links[l] == 'f' ? n - 2 : (n - 1) / 2);
			T_EQ_I64(t.warn.pyparent_fixed, fixed);
			/* O(log depth) hops per frame; the walk made ~n^2/2 (or n^2/4) */
			T_TRUE(hops[k] <= 40ULL * (unsigned long long)n);
			trace_release(&t);
		}
		if (t_case_failed) {
			fprintf(stderr, "link %c: %llu, %llu hops\n", links[l], hops[0], hops[1]);
			return;
		}
	}
}

/* --- the reference: the earlier model's nesting, a plain walk --- */

struct rev {
	int kind; /* enum trange_kind */
	long long ts, dur;
	bool has_py;
	long long id, parent; /* KEV_NONE when absent */
};

static uint64_t rnd_state;
static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rnd_state >> 33) % n);
}

/* Nests t's ranges again from the events as written, the way the model did
 * before the jump tables (walk up Python frames from the time parent), and
 * counts the ranges whose parent, end or flags differ from t's. */
static int reference_diff(const struct trace *t, const struct rev *ev, uint64_t *fixes)
{
	uint32_t nr = t->nr;
	uint32_t *parent = malloc((nr ? nr : 1) * sizeof *parent);
	gf_ns *end = malloc((nr ? nr : 1) * sizeof *end);
	uint8_t *flags = calloc(nr ? nr : 1, 1);
	uint32_t *st = malloc((nr ? nr : 1) * sizeof *st);
	const struct rev **e = malloc((nr ? nr : 1) * sizeof *e);
	for (uint32_t q = 0; q < nr; q++) {
		e[q] = &ev[atoi(pool_str(t->names, t->r[q].name) + 1)];
		end[q] = t->r[q].start + (e[q]->dur > 0 ? e[q]->dur : 0) * 1000;
	}
	for (uint32_t th = 0; th < t->nth; th++) {
		uint32_t lo = t->th[th].first, hi = lo + t->th[th].n;
		size_t sp = 0;
		for (uint32_t i = lo; i < hi; i++) {
			while (sp && end[st[sp - 1]] <= t->r[i].start)
				sp--;
			while (sp && end[st[sp - 1]] < end[i]) {
				uint32_t T = st[sp - 1];
				if (end[T] - t->r[T].start < end[i] - t->r[i].start) {
					end[T] = t->r[i].start;
					flags[T] |= TRF_CLIPPED;
					sp--;
				} else {
					end[i] = end[T];
					flags[i] |= TRF_CLIPPED;
					break;
				}
			}
			parent[i] = sp ? st[sp - 1] : TRACE_NONE;
			if (e[i]->kind == TR_PYTHON && e[i]->has_py && e[i]->parent != KEV_NONE &&
			    parent[i] != TRACE_NONE) {
				uint32_t p = TRACE_NONE; /* the first frame of the thread with that id */
				for (uint32_t k = lo; k < hi && p == TRACE_NONE; k++)
					if (e[k]->kind == TR_PYTHON && e[k]->has_py && e[k]->id != KEV_NONE &&
					    e[k]->id == e[i]->parent)
						p = k;
				if (p != TRACE_NONE && p != parent[i] && p < i && t->r[p].start <= t->r[i].start &&
				    end[p] >= end[i]) {
					uint32_t q = parent[i];
					while (q != TRACE_NONE && q != p && e[q]->kind == TR_PYTHON)
						q = parent[q];
					if (q == p) {
						parent[i] = p;
						flags[i] |= TRF_PYFIX;
						++*fixes;
					}
				}
			}
			st[sp++] = i;
		}
	}
	int bad = 0;
	for (uint32_t q = 0; q < nr; q++)
		if (parent[q] != t->r[q].parent || end[q] != t->r[q].end ||
		    flags[q] != (t->r[q].flags & (TRF_CLIPPED | TRF_PYFIX)))
			bad++;
	free(parent);
	free(end);
	free(flags);
	free(st);
	free(e);
	return bad;
}

T_TEST(test_model_scale__nesting_matches_plain_walk)
{
	static const char *const cats[] = { "user_annotation", "python_function", "cpu_op", "cuda_runtime" };
	uint64_t fixes = 0, clipped = 0;
	for (unsigned seed = 1; seed <= 60 && !t_case_failed; seed++) {
		rnd_state = seed;
		int n = 20 + (int)rnd(400);
		long long span = 1000LL * n + 10;
		struct rev *ev = calloc((size_t)n, sizeof *ev);
		long long *ids = calloc((size_t)n, sizeof *ids);
		int *tids = calloc((size_t)n, sizeof *tids), *in = calloc((size_t)n, sizeof *in);
		int nids = 0;
		char args[128], name[16];
		jbegin();
		for (int k = 0; k < n; k++) {
			struct rev *r = &ev[k];
			unsigned c = rnd(10);
			r->kind = c < 7 ? TR_PYTHON : c < 8 ? TR_OP : c < 9 ? TR_ANNOTATION : TR_RUNTIME;
			int tid = 1 + (int)rnd(3);
			in[k] = -1;
			r->ts = rnd((unsigned)span);
			unsigned d = rnd(6);
			r->dur = d == 0 ? 0 : d == 1 ? 1 : d == 2 ? 3 : d == 3 ? (long long)rnd(20) + 1
						     : (long long)rnd((unsigned)span) + 1;
			if (k && rnd(4)) {
				/* inside (or overlapping the end of) a recent range of the thread */
				int j = rnd(2) ? k - 1 : k - 1 - (int)rnd((unsigned)(k < 30 ? k : 30));
				long long jd = ev[j].dur > 0 ? ev[j].dur : 0;
				tid = tids[j];
				in[k] = j;
				r->ts = ev[j].ts + (long long)rnd((unsigned)jd / 8 + 1);
				long long room = ev[j].ts + jd - r->ts;
				r->dur = room - (long long)rnd((unsigned)room / 8 + 1) + (rnd(10) ? 0 : (long long)rnd(5));
			}
			tids[k] = tid;
			r->id = r->parent = KEV_NONE;
			args[0] = 0;
			if (r->kind == TR_PYTHON && rnd(10)) {
				r->has_py = true;
				r->id = nids && !rnd(8) ? ids[rnd((unsigned)nids)] : k + 1;
				ids[nids++] = r->id;
				/* often a python frame 2 to 4 containers up */
				int a = in[k];
				for (unsigned up = 1 + rnd(4); up && a >= 0; up--)
					a = in[a];
				unsigned w = rnd(9);
				if (w >= 7 && a >= 0 && ev[a].has_py)
					r->parent = ev[a].id;
				else if (w == 0 || w >= 6)
					r->parent = ids[rnd((unsigned)nids)];
				else
					r->parent = w == 1 ? ids[nids > 1 ? nids - 2 : 0] : w == 2 ? r->id
						    : w == 3 ? r->id + 1 : w == 4 ? 0 : KEV_NONE;
				if (r->parent == KEV_NONE)
					snprintf(args, sizeof args, "\"Python id\":%lld", r->id);
				else
					snprintf(args, sizeof args, "\"Python id\":%lld,\"Python parent id\":%lld", r->id,
						 r->parent);
			} else if (r->kind == TR_RUNTIME) {
				snprintf(args, sizeof args, "\"correlation\":%d", k + 1);
			}
			snprintf(name, sizeof name, "e%d", k);
			jev(cats[r->kind == TR_ANNOTATION ? 0 : r->kind == TR_PYTHON ? 1 : r->kind == TR_OP ? 2 : 3],
			    name, tid, r->ts, r->dur, args);
		}
		struct trace t;
		T_TRUE(jload(&t) == GF_OK);
		T_EQ_I64(t.nr, n);
		uint64_t f = 0;
		int bad = reference_diff(&t, ev, &f);
		if (bad)
			fprintf(stderr, "seed %u: %d of %d ranges differ\n", seed, bad, n);
		T_EQ_I64(bad, 0);
		T_EQ_I64(t.warn.pyparent_fixed, f);
		fixes += f;
		clipped += t.warn.clipped;
		trace_release(&t);
		free(ev);
		free(ids);
		free(tids);
		free(in);
	}
	if (fixes <= 100 || clipped <= 100)
		fprintf(stderr, "%llu fixes, %llu clipped\n", (unsigned long long)fixes, (unsigned long long)clipped);
	/* the shapes exercised both paths */
	T_TRUE(fixes > 100);
	T_TRUE(clipped > 100);
}

int main(void)
{
	T_RUN(test_model_scale__pychain_links_log_hops);
	T_RUN_SLOW(test_model_scale__nesting_matches_plain_walk);
	return t_done();
}
