/*
 * kineto_chunks.c — reading a mapped text's event array on two cores (see
 * the comment below). The parsers share nothing but the read-only text:
 * each has its own struct rd, string pool, intern cache and scratch, and
 * parses events with kineto_schema_event; only the caller's thread
 * touches the trace (pool, tracks, statistics) and calls the callback, in
 * file order, through kineto_schema_commit. Layer: read (private).
 */
#include "trace/read/kineto_int.h"

#include "base/mapguard.h"
#include "base/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* CPUs this process may run on. */
static unsigned cpus_available(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

bool kineto_chunks_allowed(const struct kineto_opts *opts)
{
	return !(opts && opts->threads == 1) && cpus_available() >= 2;
}

/* ---- reading on two cores ---------------------------------------------
 *
 * A mapped file's event array is cut into chunks of about PAR_CHUNK bytes
 * at likely event starts ('{' after '}' and ',', blanks between). The
 * caller's thread and one worker take chunks in file order from a shared
 * counter and parse each into a slot of event records, each parser with
 * its own string pool; between chunks the caller delivers the finished
 * slots in file order — strings re-interned into the trace's pool, then
 * tracks, statistics and the callback, all on the caller's thread — so the
 * records, their order and the pool ids are exactly those of one thread,
 * and whichever thread is less busy takes more chunks. A chunk start is
 * only trusted once the chunk before it ended exactly on it; anything else
 * — a start that was not an event boundary, the end of the array, an
 * error, the callback stopping — ends the parallel reading, and the caller
 * goes on alone from the last event delivered, reporting errors as always.
 */
#define PAR_CHUNK (2u << 20)
#define PAR_SLOTS 6

struct pev {
	struct evtmp t;
	uint64_t off; /* file offset of the event's '{' */
};

struct pstr {
	uint32_t id, n;
	const char *s; /* pool text: pool strings never move */
};

/* One parser: its own reader state and string pool. */
struct pctx {
	struct kineto_trace kt;
	struct rd r;
	uint32_t recorded; /* pool ids handed over so far */
	uint32_t *map;     /* pool id -> the trace's pool id (the caller's thread only) */
	size_t nmap;
};

struct pslot {
	int st;           /* 0 free, 1 being parsed, 2 done */
	uint32_t chunk;
	struct pctx *by;  /* the parser that filled it */
	bool none;        /* the chunk does not exist (past the last start) */
	VEC(struct pev) ev;
	VEC(struct pstr) strs; /* the parser's pool strings first seen in this chunk */
	const char *end;  /* where the chunk's parse stopped */
	int end_state;    /* ST_ARR_ITEM: at a '{'; ST_ARR_NEXT: after an event */
	bool boundary;    /* stopped exactly at the next chunk's start */
	bool bus;         /* the file shrank while it was parsed: nothing to deliver */
};

struct par {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t next_claim;  /* the next chunk to parse (either thread) */
	bool stop;            /* the caller is done with the worker */
	const char *c0, *end; /* chunk 0 start; end of the text */
	size_t chunk;
	struct pslot slot[PAR_SLOTS];
	struct pctx ctx[2];   /* [0] the caller's thread, [1] the worker */
};

/* Start of chunk j: the first '{' at or after c0 + j * chunk that follows
 * '}' and ',' (blanks between). NULL when there is none. */
static const char *par_start_of(const struct par *P, uint32_t j)
{
	if (!j)
		return P->c0;
	size_t off = (size_t)j * P->chunk;
	if (off >= (size_t)(P->end - P->c0))
		return NULL;
	for (const char *p = P->c0 + off; (p = memchr(p, ',', (size_t)(P->end - p))); p++) {
		const char *a = p - 1, *b = p + 1;
		while (a > P->c0 && jscan_cls[(unsigned char)*a] == 1)
			a--;
		while (b < P->end && jscan_cls[(unsigned char)*b] == 1)
			b++;
		if (*a == '}' && b < P->end && *b == '{')
			return b;
	}
	return NULL;
}

/* Parses the slot's chunk into it with parser x. */
static void par_parse(struct par *P, struct pctx *x, struct pslot *sl)
{
	uint32_t j = sl->chunk;
	struct rd *w = &x->r;
	const char *s = par_start_of(P, j), *e = s ? par_start_of(P, j + 1) : NULL;
	sl->ev.n = sl->strs.n = 0;
	sl->by = x;
	sl->boundary = false;
	sl->bus = false;
	sl->none = !s;
	if (!s)
		return;
	struct jcur c = { s, P->end, JS_OK, NULL, NULL, NULL, 0 };
	const char *lim = s + 2 * P->chunk; /* a start that is no boundary: stop in time */
	for (;;) {
		struct pev *pe = vec_add(&sl->ev);
		pe->off = (uint64_t)(c.p - w->buf);
		const char *ev = c.p;
		c.st = JS_OK;
		c.end = (size_t)(P->end - c.p) > w->unit_cap ? c.p + w->unit_cap : P->end; /* as kineto_bounds_units does */
		bool ok = kineto_schema_event(w, &c, &pe->t);
		c.end = P->end;
		if (!ok) {
			sl->ev.n--;
			sl->end = ev;
			sl->end_state = ST_ARR_ITEM;
			break;
		}
		const char *after = c.p;
		int ch = jscan_ws(&c);
		if (ch == ',') {
			c.p++;
			ch = jscan_ws(&c);
		} else {
			ch = -1;
		}
		if (ch != '{') {
			sl->end = after;
			sl->end_state = ST_ARR_NEXT;
			break;
		}
		if (c.p == e || (e && c.p > e) || c.p > lim) {
			sl->end = c.p;
			sl->end_state = ST_ARR_ITEM;
			sl->boundary = c.p == e;
			break;
		}
	}
	uint32_t n = pool_count(w->kt->names);
	for (uint32_t id = x->recorded; id < n; id++) {
		struct pstr *ps = vec_add(&sl->strs);
		ps->id = id;
		ps->s = pool_str(w->kt->names, id);
		ps->n = pool_len(w->kt->names, id);
	}
	x->recorded = n;
}

/* Claims the next chunk when its slot is free: @return the slot, or NULL
 * (stopping, or no free slot and !wait). Called locked. */
static struct pslot *par_claim(struct par *P, bool wait)
{
	for (;;) {
		if (P->stop)
			return NULL;
		struct pslot *sl = &P->slot[P->next_claim % PAR_SLOTS];
		if (sl->st == 0) {
			sl->st = 1;
			sl->chunk = P->next_claim++;
			return sl;
		}
		if (!wait)
			return NULL;
		pthread_cond_wait(&P->cv, &P->mu);
	}
}

static void *par_worker(void *arg)
{
	struct par *P = arg;
	pthread_mutex_lock(&P->mu);
	for (;;) {
		struct pslot *sl = par_claim(P, true);
		if (!sl)
			break;
		pthread_mutex_unlock(&P->mu);
		sigjmp_buf jb;
		if (sigsetjmp(jb, 0)) {
			/* the file shrank: deliver nothing of this chunk; the caller
			 * reads on alone from its start and reports it */
			sl->ev.n = sl->strs.n = 0;
			sl->none = false;
			sl->bus = true;
			sl->boundary = false;
		} else {
			mapguard_arm(&jb);
			par_parse(P, &P->ctx[1], sl);
		}
		mapguard_disarm();
		pthread_mutex_lock(&P->mu);
		sl->st = 2;
		pthread_cond_broadcast(&P->cv);
		if (sl->none)
			break; /* past the last chunk */
	}
	pthread_mutex_unlock(&P->mu);
	return NULL;
}

static void pctx_init(struct pctx *x, const struct rd *r)
{
	kineto_init(&x->kt, pool_new());
	x->r = *r; /* the same text and options; its own pool, cache and scratch */
	x->r.kt = &x->kt;
	x->r.pv = x->kt.priv_;
	x->r.fn = NULL;
	x->r.par = NULL;
	sbuf_init(&x->r.scratch, 0);
	x->r.icache = gf_xcalloc(ICACHE_SIZE, sizeof *x->r.icache);
	x->r.id_empty = pool_intern(x->kt.names, "", 0);
}

static void pctx_free(struct pctx *x)
{
	free(x->r.icache);
	sbuf_release(&x->r.scratch);
	struct pool *names = x->kt.names;
	kineto_release(&x->kt);
	pool_free(names);
	free(x->map);
}

static void par_free(struct par *P)
{
	for (unsigned i = 0; i < PAR_SLOTS; i++) {
		vec_free(&P->slot[i].ev);
		vec_free(&P->slot[i].strs);
	}
	pctx_free(&P->ctx[0]);
	pctx_free(&P->ctx[1]);
	pthread_mutex_destroy(&P->mu);
	pthread_cond_destroy(&P->cv);
	free(P);
}

/* Ends the parallel reading: stops and joins the worker, frees it all. */
void kineto_chunks_end(struct rd *r)
{
	struct par *P = r->par;
	if (!P)
		return;
	pthread_mutex_lock(&P->mu);
	P->stop = true;
	pthread_cond_broadcast(&P->cv);
	pthread_mutex_unlock(&P->mu);
	pthread_join(P->th, NULL);
	par_free(P);
	r->par = NULL;
}

static inline uint32_t par_id(const struct pctx *x, uint32_t id)
{
	return id == UINT32_MAX ? id : x->map[id];
}

/* Delivers a parsed slot: strings, then each event through
 * kineto_schema_commit. @return
 * the callback's non-zero value, or 0. */
static int par_deliver(struct rd *r, struct pslot *sl)
{
	struct pctx *x = sl->by;
	for (size_t i = 0; i < sl->strs.n; i++) {
		const struct pstr *ps = &sl->strs.v[i];
		if (ps->id >= x->nmap) {
			size_t nm = GF_MAX(x->nmap * 2, (size_t)ps->id + 1024);
			x->map = gf_xreallocarray(x->map, nm, sizeof *x->map);
			x->nmap = nm;
		}
		x->map[ps->id] = pool_intern(r->kt->names, ps->s, ps->n);
	}
	for (size_t i = 0; i < sl->ev.n; i++) {
		struct pev *pe = &sl->ev.v[i];
		struct evtmp *t = &pe->t;
		struct kev *e = &t->e;
		e->name = par_id(x, e->name);
		e->cat = par_id(x, e->cat);
		e->arg_name = par_id(x, e->arg_name);
		e->pg_name = par_id(x, e->pg_name);
		e->pg_desc = par_id(x, e->pg_desc);
		e->pg_ranks = par_id(x, e->pg_ranks);
		e->coll_name = par_id(x, e->coll_name);
		e->dtype = par_id(x, e->dtype);
		t->pid.str = par_id(x, t->pid.str);
		t->tid.str = par_id(x, t->tid.str);
		if (t->pid.kind == 1)
			t->pid.v = par_id(x, (uint32_t)t->pid.v);
		if (t->tid.kind == 1)
			t->tid.v = par_id(x, (uint32_t)t->tid.v);
		if (!t->has_ph && !r->noph_seen) {
			r->noph_seen = true;
			r->noph_off = pe->off;
		}
		int rc = kineto_schema_commit(r, t);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The caller is at the first event of a long array (c->p at its '{'):
 * reads the array on two cores as far as the chunks line up, then leaves
 * c->p and r->state where the caller goes on alone. @return PAR_RAN,
 * PAR_STOP (the callback asked to stop) or PAR_NONE (nothing done: the
 * array is short or no thread could be started).
 */
int kineto_chunks_run(struct rd *r, struct jcur *c)
{
	size_t chunk = r->opts && r->opts->par_chunk ? r->opts->par_chunk : PAR_CHUNK;
	if ((size_t)(r->buf + r->len - c->p) < 2 * chunk)
		return PAR_NONE;
	struct par *P = gf_xcalloc(1, sizeof *P);
	P->c0 = c->p;
	P->end = r->buf + r->len;
	P->chunk = chunk;
	pctx_init(&P->ctx[0], r);
	pctx_init(&P->ctx[1], r);
	pthread_mutex_init(&P->mu, NULL);
	pthread_cond_init(&P->cv, NULL);
	if (pthread_create(&P->th, NULL, par_worker, P)) {
		par_free(P);
		return PAR_NONE;
	}
	r->par = P;
	uint32_t next = 0; /* the next chunk to deliver */
	pthread_mutex_lock(&P->mu);
	for (;;) {
		struct pslot *d = &P->slot[next % PAR_SLOTS];
		if (d->st == 2 && d->chunk == next) {
			pthread_mutex_unlock(&P->mu);
			if (d->bus) { /* go on alone from this chunk's start: the caller meets the fault */
				kineto_chunks_end(r);
				return PAR_RAN;
			}
			int rc = par_deliver(r, d);
			if (rc) {
				r->stop_rc = rc;
				kineto_chunks_end(r);
				return PAR_STOP;
			}
			r->kt->stats.par_chunks++;
			c->p = d->end;
			r->state = d->end_state;
			r->pos = (size_t)(c->p - r->buf);
			if (r->pos >= r->next_mark)
				kineto_map_step(r);
			if (!d->boundary) {
				kineto_chunks_end(r);
				return PAR_RAN;
			}
			pthread_mutex_lock(&P->mu);
			d->st = 0;
			next++;
			pthread_cond_broadcast(&P->cv);
			continue;
		}
		/* nothing to deliver yet: parse a chunk here, or wait for one */
		struct pslot *sl = par_claim(P, false);
		if (!sl) {
			pthread_cond_wait(&P->cv, &P->mu);
			continue;
		}
		pthread_mutex_unlock(&P->mu);
		par_parse(P, &P->ctx[0], sl);
		pthread_mutex_lock(&P->mu);
		sl->st = 2;
		pthread_cond_broadcast(&P->cv);
	}
}

