/*
 * import.c — the importers' entry (see import.h): which kind an input is,
 * the stack aggregator every importer feeds, austin's and py-spy's folded
 * lines.
 */
#include "stacks/import.h"

#include "base/limits.h"
#include "base/names.h"
#include "base/num.h"
#include "base/pool.h"
#include "input/input.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

#include <stdlib.h>
#include <string.h>

/* ---- the kind ---- */

static bool starts(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && !memcmp(s, p, k);
}

/* PyTorch export_stacks' frame: "path(123):_func" (its blanks turned to
 * '_'); *at gets the index of that '_'. */
static bool es_frame(const char *s, size_t n, size_t *at)
{
	const char *p = memchr(s, '(', n);
	if (!p || p == s)
		return false;
	size_t i = (size_t)(p - s) + 1, d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == d || i + 2 >= n || s[i] != ')' || s[i + 1] != ':' || s[i + 2] != '_')
		return false;
	*at = i + 2;
	return true;
}

/* The kind of a stack line s[0..k) by its first frame. */
static int line_kind(const char *s, size_t k)
{
	if (k > 3 && s[0] == 'P' && s[1] >= '0' && s[1] <= '9') {
		size_t d = 1;
		while (d < k && s[d] >= '0' && s[d] <= '9')
			d++;
		if (d + 1 < k && s[d] == ';' && s[d + 1] == 'T')
			return IMPORT_AUSTIN;
	}
	size_t sp = k; /* the stack ends at the last blank (the count follows) */
	while (sp > 0 && s[sp - 1] != ' ' && s[sp - 1] != '\t')
		sp--;
	if (!sp)
		return IMPORT_NONE;
	sp--;
	const char *semi = memchr(s, ';', sp);
	size_t fl = semi ? (size_t)(semi - s) : sp, at;
	if (names_is_process(s, fl) || names_is_thread(s, fl))
		return IMPORT_PYSPY;
	if (!memchr(s, ' ', sp) && es_frame(s, fl, &at))
		return IMPORT_EXPORT_STACKS;
	return IMPORT_NONE;
}

/* The kind of folded text by its first stack line: austin's "P<pid>;T",
 * py-spy's process or thread root ("process 12:\"...\"", "thread (12345):
 * MainThread", "thread (0x..."), export_stacks' "file.py(12):_func". A
 * "# gpuflame:" header first means gpuflame's own output (IMPORT_NONE). */
static int folded_kind(const char *b, size_t n)
{
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(b + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - b) : n;
		const char *s = b + i;
		size_t k = e - i;
		if (starts(s, k, "# gpuflame:"))
			return IMPORT_NONE;
		size_t j = 0;
		while (j < k && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
			j++;
		if (j < k && !(s[0] == '#' && (k == 1 || s[1] == ' ' || s[1] == '\t')))
			return line_kind(s, k && s[k - 1] == '\r' ? k - 1 : k);
		if (!nl)
			break;
		i = e + 1;
	}
	return IMPORT_NONE;
}

int import_kind_of(int f, const char *b, size_t n)
{
	switch (f) {
	case INPUT_PERF_SCRIPT: return IMPORT_PERF;
	case INPUT_SPEEDSCOPE: return IMPORT_SPEEDSCOPE;
	case INPUT_PYSPY_CHROME: return IMPORT_CHROME;
	case INPUT_FOLDED: return folded_kind(b, n);
	default: return IMPORT_NONE;
	}
}

int import_kind(const struct input *in)
{
	size_t n;
	const char *b = input_peek(in, &n);
	return import_kind_of(input_format(in), b, n);
}

const char *import_kind_name(int kind)
{
	switch (kind) {
	case IMPORT_PERF: return "perf script output";
	case IMPORT_SPEEDSCOPE: return "a speedscope profile";
	case IMPORT_AUSTIN: return "austin samples";
	case IMPORT_PYSPY: return "py-spy samples";
	case IMPORT_CHROME: return "py-spy chrometrace events";
	case IMPORT_EXPORT_STACKS: return "PyTorch export_stacks output";
	default: return "folded stacks";
	}
}

void import_header(struct sbuf *out, const char *format, const char *u, struct import_stats *st)
{
	sbuf_addf(out, "# gpuflame: format=%s;", format);
	snprintf(st->unit, sizeof st->unit, "%s", u ? u : "");
	if (u && *u)
		sbuf_addf(out, " unit=%s;", u);
}

/* ---- the aggregator ---- */

void import_agg_init(struct import_agg *a, unsigned scale)
{
	memset(a, 0, sizeof *a);
	a->stacks = pool_new();
	a->scale = scale;
}

int import_agg_add(struct import_agg *a, const char *s, size_t n, int64_t w, struct sbuf *err)
{
	uint32_t id = pool_intern(a->stacks, s, n);
	if (id >= a->cap) {
		size_t c = a->cap ? a->cap * 2 : 1024;
		a->w = gf_xreallocarray(a->w, c, sizeof *a->w);
		memset(a->w + a->cap, 0, (c - a->cap) * sizeof *a->w);
		a->cap = c;
	}
	if (!num_add(&a->total, w)) {
		sbuf_setf(err, "weights overflow 64-bit integers (their total)");
		return GF_EINPUT;
	}
	if (!num_add(&a->w[id], w)) {
		sbuf_setf(err, "weights overflow 64-bit integers");
		return GF_EINPUT;
	}
	return GF_OK;
}

void import_agg_write(const struct import_agg *a, struct sbuf *out)
{
	uint32_t n = pool_count(a->stacks);
	uint32_t *ids = gf_xreallocarray(NULL, n ? n : 1, sizeof *ids);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	pool_sort_ids(a->stacks, ids, n);
	for (uint32_t i = 0; i < n; i++) {
		sbuf_add(out, pool_str(a->stacks, ids[i]), pool_len(a->stacks, ids[i]));
		sbuf_addch(out, ' ');
		num_fmt(out, a->w[ids[i]], a->scale);
		sbuf_addch(out, '\n');
	}
	free(ids);
}

void import_agg_free(struct import_agg *a)
{
	pool_free(a->stacks);
	free(a->w);
	memset(a, 0, sizeof *a);
}

/* ---- austin and py-spy: folded lines with thread roots ---- */

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Appends austin's frame "file:func:line" as py-spy's "func (file:line)";
 * anything else as is. */
static void austin_frame(struct sbuf *b, const char *s, size_t n)
{
	const char *c2 = NULL, *c1 = NULL;
	for (size_t i = n; i-- > 0;) {
		if (s[i] != ':')
			continue;
		if (!c2)
			c2 = s + i;
		else {
			c1 = s + i;
			break;
		}
	}
	if (!c1 || !all_digits(c2 + 1, (size_t)(s + n - c2 - 1)) || c1 == s) {
		folded_put_frame(b, s, n, false);
		return;
	}
	folded_put_frame(b, c1 + 1, (size_t)(c2 - c1 - 1), false);
	sbuf_addstr(b, " (");
	folded_put_frame(b, s, (size_t)(c1 - s), false);
	sbuf_addch(b, ':');
	sbuf_add(b, c2 + 1, (size_t)(s + n - c2 - 1));
	sbuf_addch(b, ')');
}

/* One stack of an austin, py-spy or export_stacks line into b; roots
 * rewritten or, with merge, dropped: austin's "P<pid>" and "T<tid>",
 * py-spy's leading process frames (the process and, with --subprocesses,
 * each ancestor) and its thread frame. */
static void thread_stack(struct sbuf *b, int kind, const char *s, size_t n, bool merge)
{
	size_t i = 0, k = 0;
	bool roots = true; /* still in the leading root frames */
	while (i <= n) {
		size_t e = i;
		while (e < n && s[e] != ';')
			e++;
		const char *f = s + i;
		size_t fl = e - i, at;
		bool root = false;
		if (roots && kind == IMPORT_AUSTIN && k == 0 && fl > 1 && f[0] == 'P' && all_digits(f + 1, fl - 1)) {
			root = true;
			if (!merge) {
				sbuf_addstr(b, "process ");
				sbuf_add(b, f + 1, fl - 1);
			}
		} else if (roots && kind == IMPORT_AUSTIN && k <= 1 && fl > 1 && f[0] == 'T') {
			root = true;
			roots = false;
			if (!merge) {
				/* T<tid> or austin 3's T<iid>:<tid>: the tid as given */
				const char *c = memchr(f, ':', fl);
				const char *t = c ? c + 1 : f + 1;
				if (b->len)
					sbuf_addch(b, ';');
				sbuf_addstr(b, "thread (");
				folded_put_frame(b, t, (size_t)(f + fl - t), false);
				sbuf_addch(b, ')');
			}
		} else if (roots && kind == IMPORT_PYSPY && (names_is_process(f, fl) || names_is_thread(f, fl))) {
			root = true;
			roots = !names_is_thread(f, fl); /* the thread frame ends the roots */
			if (!merge) {
				if (b->len)
					sbuf_addch(b, ';');
				sbuf_add(b, f, fl);
			}
		} else {
			roots = false;
			if (b->len)
				sbuf_addch(b, ';');
			if (kind == IMPORT_AUSTIN)
				austin_frame(b, f, fl);
			else if (kind == IMPORT_EXPORT_STACKS && es_frame(f, fl, &at)) {
				sbuf_add(b, f, at); /* "file.py(12):" */
				sbuf_addch(b, ' ');
				sbuf_add(b, f + at + 1, fl - at - 1);
			} else
				sbuf_add(b, f, fl);
		}
		k = root ? k + 1 : 2;
		i = e + 1;
	}
}

/* austin's metric: the first of "time,idle,memory" (full mode). */
static size_t metric_len(const char *c, size_t n)
{
	const char *comma = memchr(c, ',', n);
	return comma ? (size_t)(comma - c) : n;
}

/* What read_threads learns of the input. */
struct threads_info {
	bool memory;         /* austin "# mode: memory": bytes, frees negative */
	bool full;           /* austin "# mode: full": "time,idle,memory" */
	char mode[16];       /* austin's mode as written ("wall", "cpu"...), "" */
	uint64_t samples;    /* austin: lines; py-spy: the sum of the counts */
};

/* austin's "# mode: M" comment line. */
static void austin_mode(const char *s, size_t n, struct threads_info *ti)
{
	if (!starts(s, n, "# mode: "))
		return;
	s += 8;
	n -= 8;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	ti->memory = n == 6 && !memcmp(s, "memory", 6);
	ti->full = n == 4 && !memcmp(s, "full", 4);
	snprintf(ti->mode, sizeof ti->mode, "%.*s", (int)GF_MIN(n, sizeof ti->mode - 1), s);
}

/* Raises a's scale to the d decimals of a weight just read. */
static int raise_scale(struct import_agg *a, unsigned d, const char *name, uint64_t line, struct sbuf *err)
{
	if (d <= a->scale)
		return GF_OK;
	unsigned want = d > NUM_MAX_SCALE ? NUM_MAX_SCALE : d;
	for (size_t i = 0; i < pool_count(a->stacks); i++)
		if (!num_rescale(&a->w[i], want - a->scale)) {
			sbuf_setf(err, "'%s': line %llu: weights overflow 64-bit integers", name, (unsigned long long)line);
			return GF_EINPUT;
		}
	a->scale = want;
	return GF_OK;
}

static int read_threads(struct input *in, int kind, const struct import_opts *o, struct import_agg *a,
			struct import_stats *st, struct threads_info *ti, struct sbuf *err)
{
	struct folded_lines lr;
	folded_lines_init_in(&lr, in);
	struct folded_stats fs;
	memset(&fs, 0, sizeof fs);
	struct sbuf stack = SBUF_INIT, line = SBUF_INIT, rest = SBUF_INIT;
	struct ftree_meta meta;
	memset(&meta, 0, sizeof meta);
	const char *s;
	size_t n;
	int k, rc = GF_OK;
	if (kind == IMPORT_EXPORT_STACKS && o->samples) {
		sbuf_setf(err, "'%s': PyTorch export_stacks output holds times (us), not samples", lr.name);
		rc = GF_EINPUT;
	}
	while (!rc && (k = folded_lines_next(&lr, &s, &n, err)) == 1) {
		if (n && s[n - 1] == '\r')
			n--;
		if (kind == IMPORT_AUSTIN)
			austin_mode(s, n, ti);
		/* austin's full metrics "12,0,-3": cut at the first comma so the
		 * line parses as folded; memory mode's negative delta (freed):
		 * its magnitude, under a [freed] root */
		size_t sp = n;
		while (sp > 0 && s[sp - 1] != ' ' && s[sp - 1] != '\t')
			sp--;
		size_t cut = kind == IMPORT_AUSTIN && sp > 0 ? sp + metric_len(s + sp, n - sp) : n;
		bool freed = kind == IMPORT_AUSTIN && ti->memory && sp > 0 && sp < cut && s[sp] == '-';
		sbuf_reset(&line);
		sbuf_add(&line, s, freed ? sp : cut);
		if (freed)
			sbuf_add(&line, s + sp + 1, cut - sp - 1);
		struct folded_line fl;
		int t = folded_take_line(line.buf ? line.buf : "", line.len, 1, false, lr.name, &meta, &fs, &fl, err);
		ftree_meta_clear(&meta); /* a "# gpuflame:" line inside: not kept */
		if (t <= 0) {
			rc = t;
			continue;
		}
		int64_t w = 1;
		bool one = o->samples && kind == IMPORT_AUSTIN; /* a line is a sample */
		if (!one) {
			if ((rc = raise_scale(a, num_decimals(fl.cnt[0], fl.cnt_len[0]), lr.name, lr.lineno, err)))
				break;
			if (num_parse(fl.cnt[0], fl.cnt_len[0], a->scale, 0, &w) < 0) {
				sbuf_setf(err, "'%s': line %llu: count does not fit in 64-bit integers", lr.name,
					  (unsigned long long)lr.lineno);
				rc = GF_EINPUT;
				break;
			}
		}
		sbuf_reset(&stack);
		if (freed && !o->samples)
			sbuf_addstr(&stack, "[freed];"); /* thread_stack adds no ';' before a first frame */
		size_t sl = fl.stack_len;
		if (sl && fl.stack[sl - 1] == ';')
			sl--;
		sbuf_reset(&rest);
		thread_stack(&rest, kind, fl.stack, sl, o->merge_threads);
		if (!rest.len)
			sbuf_addstr(&rest, "[no frames]");
		sbuf_add(&stack, rest.buf, rest.len);
		if ((rc = import_agg_add(a, stack.buf, stack.len, w, err)))
			folded_line_error(err, lr.name, lr.lineno);
		st->samples++;
		if (kind == IMPORT_PYSPY && !a->scale && w > 0)
			ti->samples += (uint64_t)w;
		else if (kind == IMPORT_AUSTIN)
			ti->samples++;
	}
	if (!rc && k < 0)
		rc = k;
	st->unrecognized = fs.invalid;
	st->first_bad = fs.first_invalid_line;
	sbuf_release(&stack);
	sbuf_release(&line);
	sbuf_release(&rest);
	folded_lines_free(&lr);
	return rc;
}

/* The header of austin, py-spy and export_stacks input. */
static void threads_header(struct sbuf *out, int kind, const struct import_opts *o, const struct import_agg *a,
			   const struct threads_info *ti, struct import_stats *st)
{
	if (kind == IMPORT_EXPORT_STACKS) {
		import_header(out, "export_stacks", "us", st);
	} else if (kind == IMPORT_PYSPY) {
		/* py-spy raw counts samples; decimals: not py-spy's own numbers */
		import_header(out, "py-spy", a->scale ? "" : "samples", st);
		if (!a->scale)
			sbuf_addf(out, " samples=%llu;", (unsigned long long)ti->samples);
	} else {
		import_header(out, "austin", o->samples ? "samples" : ti->memory ? "bytes" : "us", st);
		if (ti->mode[0]) {
			sbuf_addstr(out, " mode=");
			folded_meta_escape(out, ti->mode);
			sbuf_addch(out, ';');
		}
		sbuf_addf(out, " samples=%llu;", (unsigned long long)ti->samples);
	}
	sbuf_addch(out, '\n');
}

/* ---- the entry ---- */

static int read_all(struct input *in, struct sbuf *b, struct sbuf *err)
{
	char tmp[1 << 16];
	size_t n;
	int rc;
	while (!(rc = input_read(in, tmp, sizeof tmp, &n, err)) && n)
		sbuf_add(b, tmp, n);
	return rc;
}

int import_fold(struct input *in, int kind, const struct import_opts *o, struct sbuf *out,
		struct import_stats *st, struct sbuf *err)
{
	static const struct import_opts none;
	if (!o)
		o = &none;
	memset(st, 0, sizeof *st);
	int rc;
	if (kind == IMPORT_SPEEDSCOPE) {
		struct sbuf all = SBUF_INIT;
		rc = read_all(in, &all, err);
		if (!rc)
			rc = import_speedscope(all.buf ? all.buf : "", all.len, input_name(in), o, out, st, err);
		sbuf_release(&all);
		return rc;
	}
	if (kind == IMPORT_CHROME) {
		struct sbuf all = SBUF_INIT;
		rc = read_all(in, &all, err);
		if (!rc)
			rc = import_chrome(all.buf ? all.buf : "", all.len, input_name(in), o, out, st, err);
		sbuf_release(&all);
		return rc;
	}
	struct import_agg a;
	import_agg_init(&a, 0);
	struct threads_info ti;
	memset(&ti, 0, sizeof ti);
	struct sbuf head = SBUF_INIT;
	if (kind == IMPORT_PERF)
		rc = import_perf(in, o, &a, st, &head, err);
	else if (kind == IMPORT_AUSTIN || kind == IMPORT_PYSPY || kind == IMPORT_EXPORT_STACKS) {
		rc = read_threads(in, kind, o, &a, st, &ti, err);
		if (!rc)
			threads_header(&head, kind, o, &a, &ti, st);
	} else {
		sbuf_setf(err, "'%s': not an importable format", input_name(in));
		rc = GF_EINTERNAL;
	}
	if (!rc) {
		sbuf_add(out, head.buf ? head.buf : "", head.len);
		import_agg_write(&a, out);
	}
	sbuf_release(&head);
	import_agg_free(&a);
	return rc;
}

/* ---- an import as a folded input ---- */

static int tree_text(void *obj, struct sbuf *out, struct sbuf *err)
{
	import_tree_text(obj, out);
	return GF_OK;
}

static void tree_release(void *obj)
{
	ftree_release(obj);
	free(obj);
}

static const struct input_obj_ops tree_ops = { "ftree", tree_text, tree_release };

int import_open(struct input **out, struct input *in, int kind, const struct import_opts *o,
		struct import_stats *st, struct sbuf *err)
{
	static const struct import_opts none;
	struct sbuf text = SBUF_INIT;
	*out = NULL;
	if (kind != IMPORT_SPEEDSCOPE) {
		int rc = import_fold(in, kind, o, &text, st, err);
		if (!rc)
			rc = input_open_owned(out, text.alloc ? text.buf : NULL, text.len, input_path(in), input_name(in),
					      INPUT_FOLDED, err);
		else
			sbuf_release(&text);
		return rc;
	}
	memset(st, 0, sizeof *st);
	struct sbuf all = SBUF_INIT;
	int rc = read_all(in, &all, err);
	struct ftree *t = gf_xmalloc(sizeof *t);
	ftree_init(t, NULL, 0);
	if (!rc)
		rc = import_speedscope_tree(all.buf ? all.buf : "", all.len, input_name(in), o ? o : &none, t, &text, st,
					    err);
	sbuf_release(&all);
	if (rc) {
		tree_release(t);
		sbuf_release(&text);
		return rc;
	}
	rc = input_open_obj(out, t, &tree_ops, text.buf, text.len, input_path(in), input_name(in), INPUT_FOLDED, err);
	sbuf_release(&text);
	return rc;
}
