/*
 * import_perf.c — `perf script` text collapsed into folded stacks by the
 * rules of FlameGraph's stackcollapse-perf.pl (see import.h; the mapping and
 * its losses in docs/formats.md). Streams the input line by line (the
 * bounded line reader of stacks/folded.h): memory is the distinct stacks.
 *
 * A sample is an event line ("comm pid/tid [cpu] time: period event:"),
 * frame lines ("\taddr func+0x1f (module)", leaf first) and a blank line;
 * '#' lines are comments. A sample of another event type than the first
 * one seen is skipped (counted in st->skipped).
 */
#include "stacks/import.h"

#include "base/num.h"
#include "base/vec.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

#include <string.h>

static bool is_ws(char c)
{
	/* Perl's \s: space, \t, \n, \v, \f, \r */
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

struct perf {
	const struct import_opts *o;
	struct import_agg *a;
	struct import_stats *st;
	struct sbuf pname;   /* the sample's root frame */
	bool have_pname;
	char *event;         /* the event type counted (first seen) */
	int64_t period;
	bool any_period;     /* some sample printed a period */
	VEC(char *) frames;  /* leaf first, as read */
	struct sbuf stack, func;
};

/* /:\s*(\d+)*\s+(\S+):\s*$/ on s[0..n): the period digits (*p, *pl; pl 0
 * when absent) and the event name (*ev, *evl). */
static bool period_event(const char *s, size_t n, const char **p, size_t *pl, const char **ev, size_t *evl)
{
	size_t e = n;
	while (e > 0 && is_ws(s[e - 1]))
		e--;
	size_t ts = e;
	while (ts > 0 && !is_ws(s[ts - 1]))
		ts--;
	if (e - ts < 2 || s[e - 1] != ':' || ts == 0)
		return false;
	for (size_t c = 0; c < ts; c++) {
		if (s[c] != ':')
			continue;
		size_t i = c + 1;
		while (i < ts && is_ws(s[i]))
			i++;
		size_t ds = i;
		while (i < ts && is_digit(s[i]))
			i++;
		size_t de = i;
		if (i == ts) { /* "\s*" took the blank "\s+" needs: give it back */
			if (de > ds || i == c + 1)
				continue;
			ds = de = i;
		} else {
			while (i < ts && is_ws(s[i]))
				i++;
			if (i != ts || !is_ws(s[de]))
				continue;
		}
		*p = s + ds;
		*pl = de - ds;
		*ev = s + ts;
		*evl = e - ts - 1;
		return true;
	}
	return false;
}

/* The event line regex of stackcollapse-perf.pl, ^(\S.+?)\s+(\d+)
 * then slashes, digits and a blank: comm, pid and tid (tid_n 0 when
 * absent). */
static bool event_line(const char *s, size_t n, size_t *comm_n, const char **pid, size_t *pid_n,
		       const char **tid, size_t *tid_n)
{
	if (!n || is_ws(s[0]))
		return false;
	for (size_t c = 2; c < n; c++) { /* comm = s[0..c), at least 2 bytes, shortest first */
		size_t i = c;
		if (!is_ws(s[i]))
			continue;
		while (i < n && is_ws(s[i]))
			i++;
		size_t ps = i;
		while (i < n && is_digit(s[i]))
			i++;
		if (i == ps)
			continue;
		size_t pe = i;
		while (i < n && s[i] == '/')
			i++;
		size_t ts = i;
		while (i < n && is_digit(s[i]))
			i++;
		size_t te = i;
		if (i < n && is_ws(s[i])) {
			*comm_n = c;
			*pid = s + ps;
			*pid_n = pe - ps;
			*tid = s + ts;
			*tid_n = te - ts;
			return true;
		}
	}
	return false;
}

/* /^\s*(\w+)\s*(.+) \((.*)\)/: pc, the function text and the module. */
static bool frame_line(const char *s, size_t n, const char **pc, size_t *pc_n, const char **fn, size_t *fn_n,
		       const char **mod, size_t *mod_n)
{
	size_t w0 = 0;
	while (w0 < n && is_ws(s[w0]))
		w0++;
	size_t we = w0;
	while (we < n && is_word(s[we]))
		we++;
	if (we == w0)
		return false;
	size_t f = we;
	while (f < n && is_ws(s[f]))
		f++;
	const char *r = NULL; /* the last ')' */
	for (size_t i = n; i-- > 0;)
		if (s[i] == ')') {
			r = s + i;
			break;
		}
	if (!r)
		return false;
	size_t rl = (size_t)(r - s);
	/* the last " (" with the ')' at or after its end */
	size_t q = 0;
	bool found = false;
	for (size_t i = rl >= 2 ? rl - 2 : 0; i + 2 <= rl && !found; i--) {
		if (s[i] == ' ' && s[i + 1] == '(') {
			q = i;
			found = true;
		}
		if (!i)
			break;
	}
	if (!found || q < w0 + 2)
		return false;
	/* ".+" needs a byte: a shorter "\s*", then a shorter "\w+" (its last
	 * word characters go to the function) make room */
	size_t fs = f > q - 1 ? q - 1 : f;
	if (fs < we)
		we = fs;
	*pc = s + w0;
	*pc_n = we - w0;
	*fn = s + fs;
	*fn_n = q - fs;
	*mod = s + q + 2;
	*mod_n = rl - (q + 2);
	return true;
}

static bool has_str(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, p, k))
			return true;
	return false;
}

/* mod =~ m:/tmp/perf-\d+\.map: */
static bool jit_module(const char *s, size_t n)
{
	for (size_t i = 0; i + 10 <= n; i++) {
		if (memcmp(s + i, "/tmp/perf-", 10))
			continue;
		size_t j = i + 10, d = j;
		while (j < n && is_digit(s[j]))
			j++;
		if (j > d && j + 4 <= n && !memcmp(s + j, ".map", 4))
			return true;
	}
	return false;
}

/* The length left by the argument-list cut: nothing when the name holds
 * ".(" and later ")." (Go's "pkg.(*T).M"), else up to the first '(' not
 * opening "(anonymous namespace)". */
static size_t cut_args(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] != '.' || s[i + 1] != '(')
			continue;
		for (size_t j = n; j-- > i + 2;)
			if (s[j] == '.' && s[j - 1] == ')')
				return n;
	}
	static const char anon[] = "anonymous namespace)";
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '(')
			continue;
		if (n - i - 1 >= sizeof anon - 1 && !memcmp(s + i + 1, anon, sizeof anon - 1))
			continue;
		return i;
	}
	return n;
}

/* One function of a frame line into p->func (tidied and annotated). */
static void one_func(struct perf *p, const char *f, size_t fl, const char *pc, size_t pcl, const char *mod,
		     size_t ml, bool inlined)
{
	struct sbuf *b = &p->func;
	sbuf_reset(b);
	if (fl == 9 && !memcmp(f, "[unknown]", 9)) {
		sbuf_addch(b, '[');
		if (!(ml == 9 && !memcmp(mod, "[unknown]", 9))) {
			const char *base = mod;
			for (size_t i = 0; i < ml; i++)
				if (mod[i] == '/')
					base = mod + i + 1;
			sbuf_add(b, base, (size_t)(mod + ml - base));
		} else {
			sbuf_addstr(b, "unknown");
		}
		if (p->o->addrs) {
			sbuf_addstr(b, " <");
			sbuf_add(b, pc, pcl);
			sbuf_addch(b, '>');
		}
		sbuf_addch(b, ']');
	} else {
		sbuf_add(b, f, fl);
	}
	/* tidy: ';' -> ':', argument lists cut, quotes dropped */
	for (size_t i = 0; i < b->len; i++)
		if (b->buf[i] == ';')
			b->buf[i] = ':';
	sbuf_setlen(b, cut_args(b->buf, b->len));
	size_t k = 0;
	for (size_t i = 0; i < b->len; i++)
		if (b->buf[i] != '"' && b->buf[i] != '\'')
			b->buf[k++] = b->buf[i];
	sbuf_setlen(b, k);
	if (p->pname.len == 4 && !memcmp(p->pname.buf, "java", 4) && b->len && b->buf[0] == 'L' &&
	    memchr(b->buf, '/', b->len)) {
		memmove(b->buf, b->buf + 1, b->len - 1);
		sbuf_setlen(b, b->len - 1);
	}
	if (inlined) {
		if (!has_str(b->buf, b->len, "_[i]"))
			sbuf_addstr(b, "_[i]");
	} else if (p->o->kernel && ml && (mod[0] == '[' || (ml >= 7 && !memcmp(mod + ml - 7, "vmlinux", 7))) &&
		   !has_str(mod, ml, "unknown")) {
		sbuf_addstr(b, "_[k]");
	} else if (p->o->jit && jit_module(mod, ml)) {
		if (!has_str(b->buf, b->len, "_[j]"))
			sbuf_addstr(b, "_[j]");
	}
}

/* A frame line: its functions ("a->b" are inlined ones) onto the stack. */
static void frame(struct perf *p, const char *s, size_t n)
{
	const char *pc, *fn, *mod;
	size_t pcl, fnl, ml;
	if (!frame_line(s, n, &pc, &pcl, &fn, &fnl, &mod, &ml))
		return;
	/* s/\+0x[\da-f]+$// */
	size_t e = fnl;
	while (e > 0 && (is_digit(fn[e - 1]) || (fn[e - 1] >= 'a' && fn[e - 1] <= 'f')))
		e--;
	if (e < fnl && e >= 3 && !memcmp(fn + e - 3, "+0x", 3))
		fnl = e - 3;
	if (fnl && fn[0] == '(')
		return;
	/* split /->/, trailing empty fields dropped */
	VEC(size_t) pc2 = VEC_INIT; /* start, length of each piece */
	size_t i = 0;
	for (;;) {
		size_t j = i;
		while (j + 1 < fnl && !(fn[j] == '-' && fn[j + 1] == '>'))
			j++;
		if (j + 1 >= fnl)
			j = fnl;
		vec_push(&pc2, i);
		vec_push(&pc2, j - i);
		if (j >= fnl)
			break;
		i = j + 2;
	}
	size_t nf = pc2.n / 2;
	while (nf > 0 && !pc2.v[2 * nf - 1])
		nf--;
	/* unshift @stack, @inline: the frames are kept leaf first, so the
	 * pieces go in reverse */
	for (size_t k = nf; k-- > 0;) {
		one_func(p, fn + pc2.v[2 * k], pc2.v[2 * k + 1], pc, pcl, mod, ml, k > 0);
		char *f = gf_xmalloc(p->func.len + 1);
		memcpy(f, p->func.buf ? p->func.buf : "", p->func.len);
		f[p->func.len] = 0;
		vec_push(&p->frames, f);
	}
	vec_free(&pc2);
}

static void clear_frames(struct perf *p)
{
	for (size_t i = 0; i < p->frames.n; i++)
		free(p->frames.v[i]);
	p->frames.n = 0;
}

static int end_sample(struct perf *p, struct sbuf *err)
{
	if (!p->have_pname)
		return GF_OK;
	struct sbuf *b = &p->stack;
	sbuf_reset(b);
	sbuf_add(b, p->pname.buf ? p->pname.buf : "", p->pname.len);
	for (size_t i = p->frames.n; i-- > 0;) {
		sbuf_addch(b, ';');
		sbuf_addstr(b, p->frames.v[i]);
	}
	int rc = import_agg_add(p->a, b->buf, b->len, p->o->samples ? 1 : p->period, err);
	p->st->samples++;
	clear_frames(p);
	p->have_pname = false;
	return rc;
}

static int header(struct perf *p, const char *s, size_t n, size_t comm_n, const char *pid, size_t pid_n,
		   const char *tid, size_t tid_n, struct sbuf *err)
{
	if (!tid_n) {
		tid = pid;
		tid_n = pid_n;
		pid = "?";
		pid_n = 1;
	}
	const char *pd, *ev;
	size_t pdl = 0, evl;
	if (period_event(s, n, &pd, &pdl, &ev, &evl)) {
		if (!p->event) {
			p->event = gf_xmalloc(evl + 1);
			memcpy(p->event, ev, evl);
			p->event[evl] = 0;
			snprintf(p->st->event, sizeof p->st->event, "%s", p->event);
		} else if (strlen(p->event) != evl || memcmp(p->event, ev, evl)) {
			if (!p->st->other_event[0])
				snprintf(p->st->other_event, sizeof p->st->other_event, "%.*s", (int)GF_MIN(evl, 63), ev);
			p->st->skipped++;
			return GF_OK;
		}
	}
	int64_t per = 0;
	if (pdl && num_parse(pd, pdl, 0, 0, &per) != NUM_OK) {
		sbuf_setf(err, "period '%.*s' does not fit in 64-bit integers", (int)GF_MIN(pdl, 40), pd);
		return GF_EINPUT;
	}
	if (!per)
		per = 1; /* Perl's "not $period": absent, empty or 0 */
	else
		p->any_period = true;
	p->period = per;
	struct sbuf *b = &p->pname;
	sbuf_reset(b);
	sbuf_add(b, s, comm_n);
	if (p->o->tid || p->o->pid) {
		sbuf_addch(b, '-');
		sbuf_add(b, pid, pid_n);
		if (p->o->tid) {
			sbuf_addch(b, '/');
			sbuf_add(b, tid, tid_n);
		}
	}
	for (size_t i = 0; i < b->len; i++)
		if (b->buf[i] == ' ')
			b->buf[i] = '_';
	p->have_pname = true;
	return GF_OK;
}

/* A clock event, whose period perf prints in ns: cpu-clock or task-clock,
 * with or without modifiers ("cpu-clock:u"). */
static bool clock_event(const char *e)
{
	static const char *const clocks[] = { "cpu-clock", "task-clock" };
	for (size_t i = 0; i < 2; i++) {
		size_t k = strlen(clocks[i]);
		if (!strncmp(e, clocks[i], k) && (!e[k] || e[k] == ':'))
			return true;
	}
	return false;
}

/* "# gpuflame: format=perf; unit=U; event=E; samples=N;": the periods of a
 * clock event are ns, of another event a count of events; without periods
 * (or with o->samples) each sample weighs 1. */
static void perf_header(const struct perf *p, struct sbuf *head)
{
	const char *u = p->o->samples || !p->any_period ? "samples" : p->event && clock_event(p->event) ? "ns" : "events";
	import_header(head, "perf", u, p->st);
	if (p->event) {
		sbuf_addstr(head, " event=");
		folded_meta_escape(head, p->event);
		sbuf_addch(head, ';');
	}
	sbuf_addf(head, " samples=%llu;\n", (unsigned long long)p->st->samples);
}

int import_perf(struct input *in, const struct import_opts *o, struct import_agg *a, struct import_stats *st,
		struct sbuf *head, struct sbuf *err)
{
	struct perf p;
	memset(&p, 0, sizeof p);
	p.o = o;
	p.a = a;
	p.st = st;
	struct folded_lines lr;
	folded_lines_init_in(&lr, in);
	const char *s;
	size_t n;
	int k, rc = GF_OK;
	while ((k = folded_lines_next(&lr, &s, &n, err)) == 1) {
		if (n && s[0] == '#')
			continue;
		if (!n) {
			if ((rc = end_sample(&p, err))) {
				folded_line_error(err, lr.name, lr.lineno);
				break;
			}
			continue;
		}
		size_t comm_n, pid_n, tid_n;
		const char *pid, *tid;
		if (event_line(s, n, &comm_n, &pid, &pid_n, &tid, &tid_n)) {
			if ((rc = header(&p, s, n, comm_n, pid, pid_n, tid, tid_n, err))) {
				folded_line_error(err, lr.name, lr.lineno);
				break;
			}
			continue;
		}
		const char *pc, *fn, *mod;
		size_t pcl, fnl, ml;
		if (frame_line(s, n, &pc, &pcl, &fn, &fnl, &mod, &ml)) {
			if (p.have_pname)
				frame(&p, s, n);
			continue;
		}
		if (!st->unrecognized++)
			st->first_bad = lr.lineno;
	}
	if (!rc && k < 0)
		rc = k;
	if (!rc && p.have_pname)
		st->unterminated = true; /* left out, as stackcollapse-perf.pl does */
	if (!rc)
		perf_header(&p, head);
	clear_frames(&p);
	vec_free(&p.frames);
	sbuf_release(&p.pname);
	sbuf_release(&p.stack);
	sbuf_release(&p.func);
	free(p.event);
	folded_lines_free(&lr);
	return rc;
}
