/* merge.c — sum folded files, streaming when sorted (see merge.h). */
#include "stacks/ops/merge.h"

#include "base/num.h"
#include "base/vec.h"
#include "stacks/folded.h"
#include "base/escape.h"
#include "stacks/folded_out.h"
#include "input/input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- headers ---- */

struct mkey {
	char *key;
	VEC(char *) vals; /* distinct values in order of appearance */
	unsigned nfiles;  /* files that have the key */
	char *first_file; /* file the first value came from */
};

struct merge_meta {
	struct merge_opts o;
	struct mkey keys[FT_MAX_META];
	unsigned nkeys;
	unsigned files;
	int64_t steps;
	bool steps_bad;
};

struct merge_meta *merge_meta_new(const struct merge_opts *o)
{
	struct merge_meta *mm = gf_xcalloc(1, sizeof *mm);
	if (o)
		mm->o = *o;
	return mm;
}

void merge_meta_free(struct merge_meta *mm)
{
	if (!mm)
		return;
	for (unsigned i = 0; i < mm->nkeys; i++) {
		for (size_t j = 0; j < mm->keys[i].vals.n; j++)
			free(mm->keys[i].vals.v[j]);
		vec_free(&mm->keys[i].vals);
		free(mm->keys[i].key);
		free(mm->keys[i].first_file);
	}
	free(mm);
}

static struct mkey *find_key(struct merge_meta *mm, const char *key, bool create)
{
	for (unsigned i = 0; i < mm->nkeys; i++)
		if (!strcmp(mm->keys[i].key, key))
			return &mm->keys[i];
	if (!create || mm->nkeys == FT_MAX_META)
		return NULL;
	struct mkey *k = &mm->keys[mm->nkeys++];
	memset(k, 0, sizeof *k);
	k->key = gf_xstrdup(key);
	return k;
}

static const char *const checked[] = { "rank", "weight", "unit" };
static const char *const allow_opt[] = { "--allow-ranks", "--allow-weights", "--allow-units" };

int merge_meta_add(struct merge_meta *mm, const struct ftree_meta *m, const char *fname, struct sbuf *err)
{
	bool allow[3] = { mm->o.allow_ranks, mm->o.allow_weights, mm->o.allow_units };
	/* checks first, so a refused file changes nothing */
	if (mm->files) {
		for (int c = 0; c < 3; c++) {
			if (allow[c])
				continue;
			struct mkey *k = find_key(mm, checked[c], false);
			const char *prev = k && k->vals.n ? k->vals.v[0] : NULL;
			const char *cur = ftree_meta_get(m, checked[c]);
			bool prev_absent = !k || k->nfiles < mm->files;
			if ((prev_absent && !k && !cur) || (!prev_absent && cur && !strcmp(prev, cur)))
				continue;
			/* header values are untrusted: the message goes to a terminal */
			struct sbuf ec = SBUF_INIT, ep = SBUF_INIT;
			if (cur)
				esc_term(&ec, cur, strlen(cur));
			if (prev && !prev_absent)
				esc_term(&ep, prev, strlen(prev));
			sbuf_setf(err, "'%s': %s %s%s%s differs from %s%s%s%s%s%s; refusing to merge unlike profiles "
				  "(use %s to merge anyway)", fname, checked[c], cur ? "'" : "",
				  cur ? ec.buf : "(absent)", cur ? "'" : "", prev && !prev_absent ? "'" : "",
				  prev && !prev_absent ? ep.buf : "(absent)", prev && !prev_absent ? "'" : "",
				  k && k->first_file ? " in '" : "", k && k->first_file ? k->first_file : "",
				  k && k->first_file ? "'" : "",
				  allow_opt[c]);
			sbuf_release(&ec);
			sbuf_release(&ep);
			return GF_EUSAGE;
		}
	}
	for (unsigned i = 0; i < m->n; i++) {
		const char *key = m->kv[i].key, *val = m->kv[i].val;
		if (!strcmp(key, "steps")) {
			int64_t s;
			if (num_parse(val, strlen(val), 0, 0, &s) != NUM_OK || !num_add(&mm->steps, s))
				mm->steps_bad = true;
			continue;
		}
		struct mkey *k = find_key(mm, key, true);
		if (!k)
			continue;
		k->nfiles++;
		if (!k->first_file)
			k->first_file = gf_xstrdup(fname);
		bool seen = false;
		for (size_t j = 0; j < k->vals.n && !seen; j++)
			seen = !strcmp(k->vals.v[j], val);
		if (!seen)
			vec_push(&k->vals, gf_xstrdup(val));
	}
	if (!ftree_meta_get(m, "steps"))
		mm->steps_bad = true;
	mm->files++;
	return GF_OK;
}

void merge_meta_result(const struct merge_meta *mm, struct ftree_meta *out)
{
	ftree_meta_clear(out);
	struct sbuf v = SBUF_INIT;
	bool steps_done = false;
	for (unsigned i = 0; i < mm->nkeys; i++) {
		const struct mkey *k = &mm->keys[i];
		sbuf_reset(&v);
		size_t shown = 0;
		for (size_t j = 0; j < k->vals.n; j++) {
			if (v.len > 1000)
				break;
			if (j)
				sbuf_addch(&v, ',');
			sbuf_addstr(&v, k->vals.v[j]);
			shown++;
		}
		if (shown < k->vals.n)
			sbuf_addf(&v, ",+%zu more", k->vals.n - shown);
		ftree_meta_set(out, k->key, v.buf);
		/* steps go right after weight/unit when there are steps */
		if (!steps_done && !strcmp(k->key, "unit") && !mm->steps_bad && mm->files) {
			sbuf_reset(&v);
			sbuf_addf(&v, "%lld", (long long)mm->steps);
			ftree_meta_set(out, "steps", v.buf);
			steps_done = true;
		}
	}
	if (!steps_done && !mm->steps_bad && mm->files) {
		sbuf_reset(&v);
		sbuf_addf(&v, "%lld", (long long)mm->steps);
		ftree_meta_set(out, "steps", v.buf);
	}
	if (mm->files > 1 && (out->n || mm->nkeys)) {
		sbuf_reset(&v);
		sbuf_addf(&v, "%u", mm->files);
		ftree_meta_set(out, "sources", v.buf);
	}
	sbuf_release(&v);
}

/* ---- streaming k-way merge ---- */

struct min {
	const char *name;
	struct input *in;
	bool is_stdin, seekable;
	struct folded_lines lr;
	uint64_t lineno;
	int want_cols; /* 0 until the first stack line, then 1 (2 is refused) */
	bool eof;
	/* current stack line */
	const char *stack, *cnt;
	size_t stack_len, cnt_len;
};

static int cmp_stack(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, GF_MIN(la, lb));
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

/* gpuflame's tree order (folded_write after ftree_sort): frame by frame,
 * names by bytes, a name before its extensions ("f1;..." before "f12"):
 * byte order with ';' below every other byte. */
static int cmp_frames(const char *a, size_t la, const char *b, size_t lb)
{
	size_t n = GF_MIN(la, lb);
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x == y)
			continue;
		if (x == ';')
			return -1;
		if (y == ';')
			return 1;
		return x < y ? -1 : 1;
	}
	return la < lb ? -1 : la > lb;
}

struct merger {
	bool frames; /* inputs in tree order (cmp_frames) rather than byte order */
	struct min *in;
	size_t n;
	const struct merge_opts *o;
	struct merge_stats *st;
	struct sbuf *err;
	uint32_t *heap;
	size_t hn;
	struct sbuf prev; /* scratch for the previous stack of the advancing file */
	/* a pass without output (out NULL) keeps its lines here while they fit
	 * in HOLD_MAX bytes, so a small merge to stdout needs no second pass */
	struct sbuf hold;
	bool hold_full;
	bool terminal; /* the output is a terminal (merge_sink): lines escaped */
};

#define HOLD_MAX ((size_t)1 << 20)

/* Reads the next stack line of x into x->stack/x->cnt (or sets eof).
 * Header lines are parsed into m (when m is not NULL, i.e. before the first
 * stack line). @return GF_OK or GF_EINPUT. */
static int next_stack(struct merger *mg, struct min *x, struct ftree_meta *m)
{
	for (;;) {
		const char *line;
		size_t len;
		uint64_t off = x->lr.off;
		int r = folded_lines_next(&x->lr, &line, &len, mg->err);
		if (r < 0)
			return r;
		if (r == 0) {
			x->eof = true;
			return GF_OK;
		}
		mg->st->bytes += x->lr.off - off;
		x->lineno = x->lr.lineno;
		struct folded_line fl;
		const char *why = NULL;
		/* as the folded reader: the first stack line decides the columns */
		int k = folded_parse_line(line, len, x->want_cols, &fl, &why);
		if (k == FOLDED_META) {
			if (m)
				folded_parse_meta(line, len, m);
			else
				mg->st->late_meta++;
			continue;
		}
		if (k == FOLDED_BLANK || k == FOLDED_COMMENT)
			continue;
		if (k == FOLDED_STACK && fl.ncols == 2) {
			sbuf_setf(mg->err, "'%s': line %llu: a differential line (two counts); merge sums "
				  "one-count folded files", x->name, (unsigned long long)x->lineno);
			return GF_EINPUT;
		}
		if (k == FOLDED_INVALID) {
			if (!mg->st->invalid)
				snprintf(mg->st->first_invalid, sizeof mg->st->first_invalid,
					 "'%s': line %llu: expected %s", x->name,
					 (unsigned long long)x->lineno, why ? why : "'stack count'");
			mg->st->invalid++;
			if (mg->o->strict) {
				sbuf_setf(mg->err, "%s", mg->st->first_invalid);
				return GF_EINPUT;
			}
			continue;
		}
		x->want_cols = 1;
		x->stack = fl.stack;
		x->stack_len = fl.stack_len;
		if (x->stack_len && x->stack[x->stack_len - 1] == ';')
			x->stack_len--; /* as the folded reader: a trailing ';' adds nothing */
		x->cnt = fl.cnt[0];
		x->cnt_len = fl.cnt_len[0];
		mg->st->lines++;
		return GF_OK;
	}
}

static bool hless(const struct merger *mg, uint32_t a, uint32_t b)
{
	const struct min *x = &mg->in[a], *y = &mg->in[b];
	int c = mg->frames ? cmp_frames(x->stack, x->stack_len, y->stack, y->stack_len)
			   : cmp_stack(x->stack, x->stack_len, y->stack, y->stack_len);
	return c < 0 || (c == 0 && a < b);
}

static void sift_down(struct merger *mg, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < mg->hn && hless(mg, mg->heap[l], mg->heap[m]))
			m = l;
		if (r < mg->hn && hless(mg, mg->heap[r], mg->heap[m]))
			m = r;
		if (m == i)
			return;
		uint32_t t = mg->heap[i];
		mg->heap[i] = mg->heap[m];
		mg->heap[m] = t;
		i = m;
	}
}

static void sift_up(struct merger *mg, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		if (!hless(mg, mg->heap[i], mg->heap[p]))
			return;
		uint32_t t = mg->heap[i];
		mg->heap[i] = mg->heap[p];
		mg->heap[p] = t;
		i = p;
	}
}

#define UNSORTED 1 /* internal: unsorted input seen */

/* Adds the count text to acc (scale *sc raised as needed). */
static int add_count(struct merger *mg, const struct min *x, int64_t *acc, unsigned *sc)
{
	unsigned d = num_decimals(x->cnt, x->cnt_len);
	if (d > NUM_MAX_SCALE)
		d = NUM_MAX_SCALE;
	if (d > *sc) {
		if (!num_rescale(acc, d - *sc))
			goto overflow;
		*sc = d;
	}
	int64_t v;
	int rc = num_parse(x->cnt, x->cnt_len, *sc, 0, &v);
	if ((rc != NUM_OK && rc != NUM_ROUNDED) || !num_add(acc, v))
		goto overflow;
	return GF_OK;
overflow:
	sbuf_setf(mg->err, "'%s': line %llu: the summed count overflows 64-bit integers", x->name,
		  (unsigned long long)x->lineno);
	return GF_EINPUT;
}

/* The output's total, at the largest scale seen: every command that reads the
 * output into a call tree needs it to fit in int64 (the root's weight). */
static bool add_total(int64_t *tot, unsigned *tsc, int64_t v, unsigned sc)
{
	if (sc > *tsc) {
		if (!num_rescale(tot, sc - *tsc))
			return false;
		*tsc = sc;
	} else if (sc < *tsc && !num_rescale(&v, *tsc - sc)) {
		return false;
	}
	return num_add(tot, v);
}

/* One merging pass; out NULL writes nothing (a pass that only checks the
 * order and the lines; what it would have written is kept in mg->hold
 * while that is small). */
static int stream(struct merger *mg, FILE *out)
{
	struct sbuf key = SBUF_INIT, line = SBUF_INIT;
	int rc = GF_OK;
	sbuf_reset(&mg->hold);
	mg->hold_full = false;
	int64_t total = 0;
	unsigned tsc = 0;
	mg->hn = 0;
	for (size_t i = 0; i < mg->n; i++)
		if (!mg->in[i].eof) {
			mg->heap[mg->hn++] = (uint32_t)i;
			sift_up(mg, mg->hn - 1);
		}
	while (mg->hn) {
		uint32_t top = mg->heap[0];
		struct min *x = &mg->in[top];
		sbuf_reset(&key);
		sbuf_add(&key, x->stack, x->stack_len);
		int64_t acc = 0;
		unsigned sc = 0;
		/* take every line equal to key, from every file */
		while (mg->hn) {
			top = mg->heap[0];
			x = &mg->in[top];
			if (x->stack_len != key.len || memcmp(x->stack, key.buf, key.len))
				break;
			if ((rc = add_count(mg, x, &acc, &sc)))
				goto out;
			if ((rc = next_stack(mg, x, NULL)))
				goto out;
			if (x->eof) {
				mg->heap[0] = mg->heap[--mg->hn];
			} else if ((mg->frames ? cmp_frames(x->stack, x->stack_len, key.buf, key.len)
					       : cmp_stack(x->stack, x->stack_len, key.buf, key.len)) < 0) {
				snprintf(mg->st->unsorted, sizeof mg->st->unsorted,
					 "'%s': line %llu: stack sorts before the line above it",
					 x->name, (unsigned long long)x->lineno);
				rc = UNSORTED;
				goto out;
			}
			if (mg->hn)
				sift_down(mg, 0);
		}
		if (!add_total(&total, &tsc, acc, sc)) {
			sbuf_setf(mg->err, "'%s': line %llu: the total of the merged stacks overflows 64-bit "
				  "integers (no command could read the output)", x->name,
				  (unsigned long long)x->lineno);
			rc = GF_EINPUT;
			goto out;
		}
		sbuf_reset(&line);
		sbuf_add(&line, key.buf, key.len);
		/* read back as the same stack (folded_out.h) */
		folded_end_stack(&line, 0, mg->st->out_stacks == 0);
		sbuf_addch(&line, ' ');
		num_fmt(&line, acc, sc);
		sbuf_addch(&line, '\n');
		if (!out && !mg->hold_full) {
			if (mg->hold.len + line.len <= HOLD_MAX) {
				sbuf_add(&mg->hold, line.buf, line.len);
			} else {
				mg->hold_full = true;
				sbuf_release(&mg->hold);
			}
		}
		if (out && (folded_out_line(out, line.buf, line.len, mg->terminal), ferror(out))) {
			sbuf_setf(mg->err, "cannot write the output: %s", strerror(errno));
			rc = GF_EOUTPUT;
			goto out;
		}
		mg->st->out_stacks++;
	}
out:
	sbuf_release(&key);
	sbuf_release(&line);
	return rc;
}

/* ---- sorted writer (also the fallback's output) ---- */

struct sline {
	char *s;
	size_t n, sl; /* line length, stack length */
};

static int cmp_sline(const void *a, const void *b)
{
	const struct sline *x = a, *y = b;
	return cmp_stack(x->s, x->sl, y->s, y->sl);
}

int merge_write_sorted(FILE *fp, const struct ftree *t, bool terminal)
{
	folded_write_meta(fp, &t->meta, terminal);
	VEC(struct sline) v = VEC_INIT;
	struct sbuf b = SBUF_INIT;
	for (uint32_t i = 1; i < t->n; i++) {
		int64_t s0 = ftree_self(t, i, 0), s1 = t->ncols == 2 ? ftree_self(t, i, 1) : 0;
		if (!s0 && !s1)
			continue;
		sbuf_reset(&b);
		folded_put_path(&b, t, i);
		size_t sl = b.len; /* the sort key: the stack as merge reads it back */
		if (folded_stack_end_needed(b.buf, b.len, false))
			sbuf_addch(&b, ';');
		sbuf_addch(&b, ' ');
		num_fmt(&b, s0, t->scale);
		if (t->ncols == 2) {
			sbuf_addch(&b, ' ');
			num_fmt(&b, s1, t->scale);
		}
		sbuf_addch(&b, '\n');
		struct sline *l = vec_add(&v);
		l->n = b.len;
		l->sl = sl;
		l->s = sbuf_detach(&b, NULL);
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_sline);
	for (size_t i = 0; i < v.n; i++) {
		struct sline *l = &v.v[i];
		if (i == 0 && t->ncols == 1 && l->s[l->sl] == ' ' && folded_stack_end_needed(l->s, l->sl, true)) {
			/* the first line decides the columns: "x 12 3" -> "x 12; 3" */
			sbuf_reset(&b);
			sbuf_add(&b, l->s, l->sl);
			sbuf_addch(&b, ';');
			sbuf_add(&b, l->s + l->sl, l->n - l->sl);
			folded_out_line(fp, b.buf, b.len, terminal);
		} else {
			folded_out_line(fp, l->s, l->n, terminal);
		}
		free(l->s);
	}
	vec_free(&v);
	sbuf_release(&b);
	return ferror(fp) ? -1 : 0;
}

/* ---- the driver ---- */

static int fallback(struct merger *mg, FILE *out, const struct ftree_meta *hdr)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { .strict = mg->o->strict, .reverse = false };
	int rc = GF_OK;
	mg->st->bytes = mg->st->lines = mg->st->invalid = 0;
	for (size_t i = 0; i < mg->n && !rc; i++) {
		struct min *x = &mg->in[i];
		struct folded_stats fs;
		memset(&fs, 0, sizeof fs);
		if ((rc = input_reopen(x->in, mg->err)))
			break;
		mg->st->bytes += input_file_size(x->in);
		rc = folded_read_in(&t, x->in, &fo, &fs, mg->err);
		mg->st->lines += fs.stacks;
		if (fs.invalid && !mg->st->invalid)
			snprintf(mg->st->first_invalid, sizeof mg->st->first_invalid,
				 "'%s': line %llu: expected %s", x->name,
				 (unsigned long long)fs.first_invalid_line, fs.first_invalid_why);
		mg->st->invalid += fs.invalid;
		if (!rc && t.ncols == 2) {
			sbuf_setf(mg->err, "'%s': differential lines (two counts); merge sums one-count "
				  "folded files", x->name);
			rc = GF_EINPUT;
		}
	}
	if (!rc) {
		ftree_meta_copy(&t.meta, hdr);
		if (merge_write_sorted(out, &t, mg->terminal)) {
			sbuf_setf(mg->err, "cannot write the output: %s", strerror(errno));
			rc = GF_EOUTPUT;
		}
		for (uint32_t i = 1; i < t.n; i++)
			if (ftree_self(&t, i, 0))
				mg->st->out_stacks++;
	}
	ftree_release(&t);
	return rc;
}

/* Empties the output for another pass. @return true when it could. */
static bool rewind_out(const struct merge_sink *out)
{
	return out->restart && out->restart(out->ctx);
}

/* Rewinds every (seekable) input to its first stack line for another pass,
 * counting from zero again. */
static int restart(struct merger *mg, struct ftree_meta *m)
{
	struct merge_stats *st = mg->st;
	st->bytes = st->lines = st->out_stacks = st->invalid = st->late_meta = 0;
	for (size_t i = 0; i < mg->n; i++) {
		struct min *x = &mg->in[i];
		int rc = input_reopen(x->in, mg->err);
		if (rc)
			return rc;
		folded_lines_rewind(&x->lr); /* same input, started again */
		x->lineno = 0;
		x->eof = false;
		x->want_cols = 0;
		ftree_meta_clear(m);
		rc = next_stack(mg, x, m);
		if (rc)
			return rc;
	}
	return GF_OK;
}

int merge_inputs(struct input *const *ins, size_t n, const struct merge_sink *sink_out,
		 const struct merge_opts *o, struct merge_stats *st, struct sbuf *err)
{
	static const struct merge_opts defaults;
	memset(st, 0, sizeof *st);
	st->files = n;
	struct merger mg;
	memset(&mg, 0, sizeof mg);
	mg.o = o ? o : &defaults;
	mg.st = st;
	mg.err = err;
	mg.terminal = sink_out->terminal;
	mg.n = n;
	mg.in = gf_xcalloc(n ? n : 1, sizeof *mg.in);
	mg.heap = gf_xcalloc(n ? n : 1, sizeof *mg.heap);
	struct merge_meta *mm = merge_meta_new(mg.o);
	struct ftree_meta hdr, m;
	memset(&hdr, 0, sizeof hdr);
	memset(&m, 0, sizeof m);
	int rc = GF_OK;
	size_t nstdin = 0;
	FILE *out = sink_out->fp;
	for (size_t i = 0; i < n; i++) {
		struct min *x = &mg.in[i];
		x->in = ins[i];
		x->name = input_name(ins[i]);
		x->is_stdin = input_is_stdin(ins[i]);
		nstdin += x->is_stdin;
		folded_lines_init_in(&x->lr, x->in);
		x->lr.cap0 = 4096; /* one small buffer per file: memory stays ~ files, not stacks */
		x->seekable = input_can_reopen(x->in);
		ftree_meta_clear(&m);
		if ((rc = next_stack(&mg, x, &m)))
			goto out;
		if ((rc = merge_meta_add(mm, &m, x->name, err)))
			goto out;
	}
	merge_meta_result(mm, &hdr);
	bool seekable = true;
	for (size_t i = 0; i < n && seekable; i++)
		seekable = mg.in[i].seekable;
	/* an output that cannot be rewound (stdout, a pipe): the order is
	 * found by passes that write nothing, then the inputs are read again
	 * and the output written once */
	bool dry = !sink_out->restart && seekable;
	FILE *sink = dry ? NULL : out;
	if (sink)
		folded_write_meta(sink, &hdr, mg.terminal);
	rc = stream(&mg, sink);
	if (rc == UNSORTED && seekable && (dry || rewind_out(sink_out))) {
		/* not in byte order: try gpuflame's tree order (fold's output) */
		char first[sizeof st->unsorted];
		memcpy(first, st->unsorted, sizeof first);
		mg.frames = true;
		st->unsorted[0] = 0;
		if ((rc = restart(&mg, &m)))
			goto out;
		if (sink)
			folded_write_meta(sink, &hdr, mg.terminal);
		rc = stream(&mg, sink);
		if (rc == UNSORTED)
			memcpy(st->unsorted, first, sizeof first); /* report the byte-order failure */
		else if (!rc)
			st->tree_order = true;
	}
	if (rc == UNSORTED) {
		bool can = !mg.o->no_fallback && seekable;
		if (can && (dry || rewind_out(sink_out))) {
			st->fell_back = true;
			st->out_stacks = 0;
			rc = fallback(&mg, out, &hdr);
		} else {
			sbuf_setf(err, "%s; merge streams inputs sorted by stack: sort them with "
				  "'LC_ALL=C sort -o FILE FILE'%s", st->unsorted,
				  nstdin ? " (stdin cannot be re-read in memory)" : "");
			rc = GF_EINPUT;
		}
	} else if (!rc && dry && !mg.hold_full) {
		/* the whole output was small enough to keep */
		folded_write_meta(out, &hdr, mg.terminal);
		for (size_t a = 0, b; a < mg.hold.len; a = b) { /* line by line: escaped for a terminal */
			const char *nl = memchr(mg.hold.buf + a, '\n', mg.hold.len - a);
			b = nl ? (size_t)(nl - mg.hold.buf) + 1 : mg.hold.len;
			folded_out_line(out, mg.hold.buf + a, b - a, mg.terminal);
		}
		if (ferror(out)) {
			sbuf_setf(err, "cannot write the output: %s", strerror(errno));
			rc = GF_EOUTPUT;
		}
	} else if (!rc && dry) {
		/* the order is known: the pass that writes */
		if ((rc = restart(&mg, &m)))
			goto out;
		folded_write_meta(out, &hdr, mg.terminal);
		rc = stream(&mg, out);
		if (rc == UNSORTED) {
			sbuf_setf(err, "%s (the input changed while being merged)", st->unsorted);
			rc = GF_EINPUT;
		}
	}
	if (!rc && fflush(out)) {
		sbuf_setf(err, "cannot write the output: %s", strerror(errno));
		rc = GF_EOUTPUT;
	}
out:
	for (size_t i = 0; i < n; i++)
		folded_lines_free(&mg.in[i].lr);
	free(mg.in);
	free(mg.heap);
	sbuf_release(&mg.prev);
	sbuf_release(&mg.hold);
	ftree_meta_clear(&hdr);
	ftree_meta_clear(&m);
	merge_meta_free(mm);
	return rc;
}
