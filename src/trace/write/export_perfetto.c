#include "trace/write/export_perfetto.h"

#include "base/escape.h"
#include "base/num.h"
#include "base/ozip.h"
#include "base/vec.h"
#include "input/input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (64u << 10)
#define FLOW_ID0 4000000000000LL

struct pout {
	struct ozip z;
	struct sbuf b;
	const struct export_perfetto_dev *devs;
	size_t ndev;
	const struct actx *c;    /* the device being written */
	const struct report *r;
	int64_t pid;
	uint64_t nflow;
	bool first;  /* no event written into the array yet */
};

static void flush(struct pout *o, bool force)
{
	if (o->b.len && (force || o->b.len >= CHUNK)) {
		ozip_write(&o->z, o->b.buf, o->b.len);
		sbuf_reset(&o->b);
	}
}

static void ev_start(struct pout *o)
{
	sbuf_addstr(&o->b, o->first ? "\n" : ",\n");
	o->first = false;
}

static void us(struct sbuf *b, gf_ns ns)
{
	num_fmt(b, ns, 3);
}

static void name_arg(struct pout *o, const char *key, uint32_t name)
{
	const struct trace *t = o->c->t;
	sbuf_addf(&o->b, ",\"%s\":", key);
	esc_json_str(&o->b, pool_str(t->names, name), pool_len(t->names, name));
}

static void meta(struct pout *o, const char *what, int tid, const char *val)
{
	ev_start(o);
	sbuf_addf(&o->b, "{\"ph\":\"M\",\"cat\":\"gpuflame\",\"name\":\"%s\",\"pid\":%lld,\"tid\":%d,"
			 "\"args\":{\"name\":\"%s\"}}", what, (long long)o->pid, tid, val);
}

/*
 * Slices are written as B/E pairs, never X (ts, dur): Perfetto reads a
 * fractional ts as a double and truncates ts * 1000 to ns, so on absolute
 * microseconds (1.7e15: a double's step is 0.25 us) the start of an X slice
 * moves while its dur does not, and abutting slices overlapped (833 of
 * 6,529 on one trace, spilled to overflow tracks). Both ends of a B/E pair
 * go through the same monotonic rounding: an end can equal the next start,
 * never pass it. An E is written before a B at the same time.
 */
static void begin(struct pout *o, const char *name, int tid, gf_ns at)
{
	ev_start(o);
	sbuf_addf(&o->b, "{\"ph\":\"B\",\"cat\":\"gpuflame\",\"name\":\"%s\",\"pid\":%lld,\"tid\":%d,\"ts\":", name,
		  (long long)o->pid, tid);
	us(&o->b, at);
}

static void end(struct pout *o, int tid, gf_ns at)
{
	ev_start(o);
	sbuf_addf(&o->b, "{\"ph\":\"E\",\"cat\":\"gpuflame\",\"pid\":%lld,\"tid\":%d,\"ts\":", (long long)o->pid, tid);
	us(&o->b, at);
	sbuf_addch(&o->b, '}');
}

/* One idle slice [lo, hi) of piece p inside step row `row`. */
static void slice(struct pout *o, const struct gap_piece *p, gf_ns lo, gf_ns hi, const struct step_row *row)
{
	const struct trace *t = o->c->t;
	const char *cause = causes_gap[p->cause].key;
	begin(o, cause, 1, lo);
	sbuf_addf(&o->b, ",\"args\":{\"cause\":\"%s\",\"step\":%lld,\"dur_ns\":%lld", cause, (long long)row->number,
		  (long long)(hi - lo));
	if (p->ri != TRACE_NONE) {
		name_arg(o, p->cause == GAP_HOST ? "range" : "call", t->r[p->ri].name);
		uint32_t site = p->cause == GAP_SYNC ? actx_site(o->c, p->ri) : TRACE_NONE;
		if (site != TRACE_NONE)
			name_arg(o, "site", t->r[site].name);
	}
	sbuf_addstr(&o->b, "}}");
	/* the sync bubble's flow from its blocking call */
	const struct trace_thread *th = p->ri != TRACE_NONE ? &t->th[t->r[p->ri].thread] : NULL;
	if (p->cause == GAP_SYNC && th && th->pid != KEV_NONE && th->tid != KEV_NONE) {
		long long id = FLOW_ID0 + (long long)o->nflow++;
		ev_start(o);
		sbuf_addf(&o->b, "{\"ph\":\"s\",\"cat\":\"gpuflame\",\"name\":\"sync bubble\",\"id\":%lld,"
				 "\"pid\":%lld,\"tid\":%lld,\"ts\":", id, (long long)th->pid, (long long)th->tid);
		us(&o->b, t->r[p->ri].start);
		sbuf_addf(&o->b, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"gpuflame\",\"name\":\"sync bubble\","
				 "\"id\":%lld,\"pid\":%lld,\"tid\":1,\"ts\":", id, (long long)o->pid);
		us(&o->b, lo);
		sbuf_addch(&o->b, '}');
	}
	end(o, 1, hi);
	flush(o, false);
}

static int cmp_ns(const void *a, const void *b)
{
	gf_ns x = *(const gf_ns *)a, y = *(const gf_ns *)b;
	return x < y ? -1 : x > y;
}

static int cmp_row(const void *a, const void *b, void *rows)
{
	const struct step_row *r = rows;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (r[x].start != r[y].start)
		return r[x].start < r[y].start ? -1 : 1;
	/* the longer first: the inner one ends up on top of the stack */
	return r[x].end > r[y].end ? -1 : r[x].end < r[y].end;
}

/* The pieces cut at every step boundary, each part kept when a step holds
 * it (labelled by the innermost step open there). */
static void idle_slices(struct pout *o)
{
	const struct steps_result *st = &o->r->st;
	const struct gaps_result *gp = &o->r->gp;
	size_t nb = 0;
	gf_ns *bd = gf_xcalloc(2 * st->n + 1, sizeof *bd);
	uint32_t *ord = gf_xcalloc(st->n + 1, sizeof *ord);
	for (size_t i = 0; i < st->n; i++) {
		bd[nb++] = st->rows[i].start;
		bd[nb++] = st->rows[i].end;
		ord[i] = (uint32_t)i;
	}
	qsort(bd, nb, sizeof *bd, cmp_ns);
	qsort_r(ord, st->n, sizeof *ord, cmp_row, st->rows);
	VEC(uint32_t) open = VEC_INIT;
	size_t next = 0, bi = 0;
	for (size_t k = 0; k < gp->npieces; k++) {
		const struct gap_piece *p = &gp->pieces[k];
		gf_ns x = p->lo;
		while (x < p->hi) {
			while (bi < nb && bd[bi] <= x)
				bi++;
			gf_ns y = bi < nb && bd[bi] < p->hi ? bd[bi] : p->hi;
			/* steps open over [x, y): started at or before x, ending after it */
			while (next < st->n && st->rows[ord[next]].start <= x)
				vec_push(&open, ord[next++]);
			while (open.n && st->rows[open.v[open.n - 1]].end <= x)
				open.n--;
			if (open.n)
				slice(o, p, x, y, &st->rows[open.v[open.n - 1]]);
			x = y;
		}
	}
	vec_free(&open);
	free(bd);
	free(ord);
}

/* The busy counter: named "GPU busy" with its one series "%" (Perfetto
 * names a JSON counter track "NAME SERIES": "GPU busy %"). */
static void counter(struct pout *o, gf_ns at, int64_t milli)
{
	ev_start(o);
	sbuf_addf(&o->b, "{\"ph\":\"C\",\"cat\":\"gpuflame\",\"name\":\"GPU busy\",\"pid\":%lld,\"tid\":2,\"ts\":",
		  (long long)o->pid);
	us(&o->b, at);
	sbuf_addstr(&o->b, ",\"args\":{\"%\":");
	num_fmt(&o->b, milli, 3);
	sbuf_addstr(&o->b, "}}");
}

/* Per step: the counter (a JSON counter is the process's in Perfetto, whatever
 * its tid) and a slice on the steps thread with the step's busy share, so the
 * thread shows it too. Steps that overlap are cut where the next starts. */
static void counters(struct pout *o)
{
	const struct steps_result *st = &o->r->st;
	for (size_t i = 0; i < st->n; i++) {
		const struct step_row *row = &st->rows[i];
		int64_t v = 0;
		if (row->wall > 0 && !num_muldiv(row->busy, 100000, row->wall, &v))
			v = 0;
		counter(o, row->start, v);
		gf_ns e = row->end;
		bool starts = false;
		for (size_t j = i + 1; j < st->n && st->rows[j].start <= row->end && !starts; j++) {
			starts = st->rows[j].start == row->end;
			if (st->rows[j].start > row->start && st->rows[j].start < e)
				e = st->rows[j].start;
		}
		char nm[64];
		snprintf(nm, sizeof nm, "step %lld", (long long)row->number);
		begin(o, nm, 2, row->start);
		sbuf_addstr(&o->b, ",\"args\":{\"GPU busy %\":");
		num_fmt(&o->b, v, 3);
		sbuf_addf(&o->b, ",\"busy_ns\":%lld,\"wall_ns\":%lld}}", (long long)row->busy, (long long)row->wall);
		end(o, 2, e);
		if (!starts)
			counter(o, row->end, 0);
		flush(o, false);
	}
}

/* gpuflame's events, after the original ones (first: the array was empty):
 * one process per device, beside the device's own row. */
static void added(struct pout *o, bool first)
{
	o->first = first;
	for (size_t d = 0; d < o->ndev; d++) {
		o->c = o->devs[d].c;
		o->r = o->devs[d].r;
		o->pid = EXPORT_PERFETTO_PID + (o->c->device >= 0 ? o->c->device : 0);
		char pname[64];
		if (o->c->device >= 0)
			snprintf(pname, sizeof pname, "gpuflame: GPU %d", o->c->device);
		else
			snprintf(pname, sizeof pname, "gpuflame: no GPU activity");
		meta(o, "process_name", 0, pname);
		/* Kineto sorts GPU N's row at 5000000 + N: the same index puts this
		 * process right after it (the lower pid first) */
		ev_start(o);
		sbuf_addf(&o->b, "{\"ph\":\"M\",\"cat\":\"gpuflame\",\"name\":\"process_sort_index\",\"pid\":%lld,"
				 "\"tid\":0,\"args\":{\"sort_index\":%lld}}",
			  (long long)o->pid, (long long)EXPORT_PERFETTO_SORT + (o->c->device >= 0 ? o->c->device : 0));
		meta(o, "thread_name", 1, "idle by cause (gap model)");
		meta(o, "thread_name", 2, "steps");
		if (o->c->dev != TRACE_NONE)
			idle_slices(o);
		counters(o);
	}
	sbuf_addch(&o->b, '\n');
	flush(o, true);
}

/* The copy: a JSON scanner that only follows strings and nesting, to find
 * where the trace's event array (or its top-level object) closes. */
struct scan {
	int depth;
	bool in_str, esc;
	bool key_next;     /* depth 1 of an object: the next string is a key */
	bool is_key, te_key;
	char key[16];
	size_t klen;
	int te_depth;      /* depth of the events array (0: not inside it) */
	bool te_any;       /* it holds something */
	bool obj;          /* the top level is an object */
	bool done;         /* the added events are written */
	bool top_closed;
	int uhex;          /* hex digits of a \uXXXX still to come */
	unsigned ucp;
};

static unsigned hexval(char ch)
{
	int l = ch | 0x20;
	if (ch >= '0' && ch <= '9')
		return (unsigned)(ch - '0');
	return l >= 'a' && l <= 'f' ? (unsigned)(l - 'a' + 10) : 0;
}

/* One decoded character of a depth-1 key (longer keys cannot match). */
static void key_char(struct scan *s, char ch)
{
	if (s->is_key && s->klen < sizeof s->key)
		s->key[s->klen++] = ch;
}

/* Copies buf[0..n), inserting the added events where they go. */
static void copy(struct pout *o, struct scan *s, const char *buf, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = buf[i];
		if (s->in_str) {
			if (s->uhex) {
				/* a key's \uXXXX, decoded as the reader does ("trace\u0045vents") */
				s->ucp = s->ucp << 4 | hexval(ch);
				if (--s->uhex == 0)
					key_char(s, s->ucp < 0x80 ? (char)s->ucp : '\x01');
			} else if (s->esc) {
				s->esc = false;
				if (ch == 'u') {
					s->uhex = 4;
					s->ucp = 0;
				} else
					key_char(s, ch);
			} else if (ch == '\\')
				s->esc = true;
			else if (ch == '"') {
				s->in_str = false;
				if (s->is_key)
					s->te_key = s->klen == 11 && !memcmp(s->key, "traceEvents", 11);
			} else
				key_char(s, ch);
			continue;
		}
		switch (ch) {
		case '"':
			s->in_str = true;
			s->is_key = s->obj && s->depth == 1 && s->key_next;
			s->klen = 0;
			if (s->is_key)
				s->key_next = false;
			if (s->te_depth && s->depth == s->te_depth)
				s->te_any = true;
			break;
		case '{':
		case '[':
			if (s->te_depth && s->depth == s->te_depth)
				s->te_any = true;
			s->depth++;
			if (s->depth == 1) {
				s->obj = ch == '{';
				s->key_next = s->obj;
				if (!s->obj)
					s->te_depth = 1;
			} else if (s->depth == 2 && s->obj && ch == '[' && s->te_key && !s->done)
				s->te_depth = 2;
			break;
		case ',':
			if (s->depth == 1)
				s->key_next = s->obj;
			break;
		case ']':
		case '}':
			if (s->te_depth && s->depth == s->te_depth && ch == ']' && !s->done) {
				ozip_write(&o->z, buf + from, i - from);
				from = i;
				added(o, !s->te_any);
				s->done = true;
				s->te_depth = 0;
			} else if (s->depth == 1 && s->obj && ch == '}' && !s->done) {
				ozip_write(&o->z, buf + from, i - from);
				from = i;
				sbuf_addstr(&o->b, s->key_next ? "\"traceEvents\":[" : ",\"traceEvents\":[");
				added(o, true);
				sbuf_addstr(&o->b, "]");
				flush(o, true);
				s->done = true;
			}
			if (s->depth > 0 && --s->depth == 0)
				s->top_closed = true;
			break;
		default:
			if (s->te_depth && s->depth == s->te_depth && ch != ' ' && ch != '\n' && ch != '\t' &&
			    ch != '\r')
				s->te_any = true;
			break;
		}
	}
	ozip_write(&o->z, buf + from, n - from);
}

int export_perfetto_write(const struct export_perfetto_dev *devs, size_t ndev, struct input *in, FILE *fp,
			  int zkind, struct sbuf *err)
{
	struct pout o;
	memset(&o, 0, sizeof o);
	o.devs = devs;
	o.ndev = ndev;
	if (ozip_open(&o.z, fp, zkind)) {
		sbuf_addstr(err, "out of memory starting the compressor");
		return GF_EINTERNAL;
	}
	struct scan s;
	memset(&s, 0, sizeof s);
	char *buf = gf_xmalloc(CHUNK);
	int rc;
	size_t n;
	while (!(rc = input_read(in, buf, CHUNK, &n, err)) && n)
		copy(&o, &s, buf, n);
	free(buf);
	if (!rc && !s.top_closed) {
		sbuf_addf(err, "'%s': the trace ends before its top-level %s closes (a cut-off file): "
			       "the export needs a complete trace", input_name(in), s.obj ? "object" : "array");
		rc = GF_EINPUT;
	}
	flush(&o, true);
	errno = 0;
	if (ozip_close(&o.z) && !rc) {
		sbuf_addf(err, "compression or write error: %s", o.z.err ? strerror(o.z.err) : "codec");
		rc = GF_EOUTPUT;
	}
	sbuf_release(&o.b);
	return rc;
}
