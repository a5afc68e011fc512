/*
 * kineto.c — streaming reader of Kineto / Chrome-trace JSON (see kineto.h).
 *
 * The text arrives in chunks from a byte source (source.h) into one buffer
 * that keeps only the unfinished tail. A small state machine walks the
 * container (object with "traceEvents" anywhere, or a bare array); each
 * "unit" — one event, one top-level member, one separator — is parsed
 * whole by the jscan primitives directly from the buffer. A unit that runs
 * into the end of the buffer is retried from its start once more text has
 * arrived (at least twice as much when it is bigger than a chunk, so a huge
 * unit costs O(n) in total). Per event only the keys listed in kineto.h are
 * decoded; every other value is skipped by bracket matching.
 *
 * Plain regular files of MAP_MIN bytes and more are instead mapped whole
 * (source_map) and parsed in place as one unit stream, releasing the pages
 * behind the parser as it goes (map_step). Fast paths (fast_key, fast_int,
 * fast_us, skip_value, the intern cache) each accept only a common subset
 * and leave the cursor unchanged otherwise, so the general code decides all
 * other cases exactly as before. See docs/trace-reader.md.
 */
#include "trace/read/kineto.h"

#include "base/limits.h"
#include "base/mapguard.h"
#include "base/num.h"
#include "base/vec.h"
#include "trace/read/jscan.h"
#include "input/source.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define PROGRESS_EVERY (16u << 20)

static const char *const kc_names[KC_COUNT_] = {
	"other", "cpu_op", "user_annotation", "gpu_user_annotation", "python_function",
	"cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync",
	"flow", "instant", "trace", "metadata",
};

const char *kcat_name(int kc)
{
	return kc >= 0 && kc < KC_COUNT_ ? kc_names[kc] : "other";
}

const char *kts_gen_name(int g)
{
	switch (g) {
	case KTS_INT_EPOCH_US: return "integer-us";
	case KTS_ABS_US_NS: return "absolute-us-3-decimals";
	case KTS_REL_US_NS: return "relative-us-3-decimals+baseTimeNanoseconds";
	case KTS_RESAVED: return "resaved-us-1-to-3-decimals";
	default: return "unknown";
	}
}

static int kc_of_cat(const char *s, size_t n)
{
	static const struct { const char *s; int kc; } tab[] = {
		{ "cpu_op", KC_CPU_OP }, { "Operator", KC_CPU_OP },
		{ "user_annotation", KC_USER_ANNOTATION },
		{ "gpu_user_annotation", KC_GPU_USER_ANNOTATION }, { "gpu_user_Annotation", KC_GPU_USER_ANNOTATION },
		{ "python_function", KC_PYTHON_FUNCTION },
		{ "cuda_runtime", KC_CUDA_RUNTIME }, { "Runtime", KC_CUDA_RUNTIME },
		{ "cuda_driver", KC_CUDA_DRIVER },
		{ "kernel", KC_KERNEL }, { "Kernel", KC_KERNEL },
		{ "gpu_memcpy", KC_GPU_MEMCPY }, { "Memcpy", KC_GPU_MEMCPY },
		{ "gpu_memset", KC_GPU_MEMSET }, { "Memset", KC_GPU_MEMSET },
		{ "cuda_sync", KC_CUDA_SYNC },
		{ "ac2g", KC_FLOW }, { "fwdbwd", KC_FLOW }, { "async", KC_FLOW }, { "async_gpu", KC_FLOW },
		{ "async_cpu_to_gpu", KC_FLOW },
		{ "cpu_instant_event", KC_INSTANT },
		{ "Trace", KC_TRACE }, { "overhead", KC_TRACE },
	};
	for (size_t i = 0; i < GF_ARRAY_LEN(tab); i++)
		if (strlen(tab[i].s) == n && !memcmp(tab[i].s, s, n))
			return tab[i].kc;
	return KC_OTHER;
}

/* ---- tracks ---------------------------------------------------------- */

/* How a pid or tid was written: kind 0 = integer (or integer text), 1 = other
 * text (v = pool id), 2 = absent. */
struct idv {
	int64_t v;
	uint32_t str; /* pool id of the text when written as a string */
	uint8_t kind;
};

struct tkey {
	int64_t p, t;
	uint8_t pk, tk;
};

struct pidmeta {
	int64_t p;
	uint8_t pk;
	uint32_t name, label;
};

struct cat_cache {
	uint32_t id;  /* pool id, UINT32_MAX = empty */
	uint32_t idx; /* dense index in stats.cat_ids */
	uint8_t kc;
};

struct priv {
	struct tkey *keys; /* parallel to kt->tracks */
	uint32_t *slot;    /* track index + 1 */
	size_t nslot;
	uint32_t last;     /* last track used, UINT32_MAX none */
	VEC(struct pidmeta) pids;
	struct cat_cache cc[64];
	uint32_t *cat_slot; /* dense cat index + 1, by pool id hash */
	size_t ncat_slot;
};

static uint64_t tkey_hash(const struct tkey *k)
{
	return gf_hash_u64((uint64_t)k->p * 0x9e3779b97f4a7c15ULL ^ (uint64_t)k->t ^
			   ((uint64_t)k->pk << 60) ^ ((uint64_t)k->tk << 62));
}

static bool tkey_eq(const struct tkey *a, const struct tkey *b)
{
	return a->p == b->p && a->t == b->t && a->pk == b->pk && a->tk == b->tk;
}

static void track_rehash(struct kineto_trace *kt, struct priv *pv)
{
	size_t ns = pv->nslot ? pv->nslot * 2 : 256;
	uint32_t *slot = gf_xcalloc(ns, sizeof *slot);
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		size_t j = tkey_hash(&pv->keys[i]) & (ns - 1);
		while (slot[j])
			j = (j + 1) & (ns - 1);
		slot[j] = i + 1;
	}
	free(pv->slot);
	pv->slot = slot;
	pv->nslot = ns;
}

static uint32_t track_get(struct kineto_trace *kt, struct priv *pv, const struct idv *pid, const struct idv *tid)
{
	struct tkey k = { pid->v, tid->v, pid->kind, tid->kind };
	if (pv->last != UINT32_MAX && tkey_eq(&pv->keys[pv->last], &k))
		return pv->last;
	if ((size_t)(kt->ntracks + 1) * 2 > pv->nslot)
		track_rehash(kt, pv);
	size_t j = tkey_hash(&k) & (pv->nslot - 1);
	while (pv->slot[j]) {
		uint32_t i = pv->slot[j] - 1;
		if (tkey_eq(&pv->keys[i], &k))
			return pv->last = i;
		j = (j + 1) & (pv->nslot - 1);
	}
	if (kt->ntracks == kt->cap_tracks) {
		kt->cap_tracks = kt->cap_tracks ? kt->cap_tracks * 2 : 64;
		kt->tracks = gf_xreallocarray(kt->tracks, kt->cap_tracks, sizeof *kt->tracks);
		pv->keys = gf_xreallocarray(pv->keys, kt->cap_tracks, sizeof *pv->keys);
	}
	uint32_t i = kt->ntracks++;
	struct ktrack *t = &kt->tracks[i];
	t->pid = pid->kind == 0 ? pid->v : KEV_NONE;
	t->tid = tid->kind == 0 ? tid->v : KEV_NONE;
	t->pid_str = pid->str;
	t->tid_str = tid->str;
	t->thread_name = t->process_name = t->process_label = UINT32_MAX;
	t->is_device = false;
	pv->keys[i] = k;
	pv->slot[j] = i + 1;
	return pv->last = i;
}

static struct pidmeta *pid_meta(struct priv *pv, const struct idv *pid)
{
	for (size_t i = 0; i < pv->pids.n; i++)
		if (pv->pids.v[i].p == pid->v && pv->pids.v[i].pk == pid->kind)
			return &pv->pids.v[i];
	struct pidmeta *m = vec_add(&pv->pids);
	m->p = pid->v;
	m->pk = pid->kind;
	m->name = m->label = UINT32_MAX;
	return m;
}

/* ---- the reader ------------------------------------------------------ */

enum {
	ST_START, ST_OBJ_FIRST, ST_OBJ_KEY, ST_OBJ_NEXT,
	ST_ARR_FIRST, ST_ARR_ITEM, ST_ARR_NEXT, ST_DONE,
};

struct rd {
	struct kineto_trace *kt;
	struct priv *pv;
	const char *fname;
	kineto_event_fn fn;
	void *ctx;
	const struct kineto_opts *opts;
	struct sbuf *err;
	struct sbuf scratch;

	char *buf;
	size_t cap, len, pos;
	uint64_t base_off;     /* file offset of buf[0] */
	const char *path;      /* for re-reading on errors (line numbers) */
	const void *mem;
	size_t mem_len;
	size_t need;           /* retry only when len - pos >= need */
	int state;
	bool bare, seen_events, eof;
	uint64_t nph;          /* events with a ph */
	uint64_t noph_off;     /* offset of the first event without a ph */
	bool noph_seen;
	uint64_t next_progress;
	uint64_t nts_int, nts_3, nts_other;

	uint32_t id_empty, id_process_name, id_process_labels, id_thread_name;
	int stop_rc;
	struct icent *icache; /* ICACHE_SIZE entries (see intern) */
	/* a mapped file (source_map): buf is the whole file, never written */
	struct source *src;
	bool mapped;
	size_t next_mark;      /* mapped: offset of the next progress/release step, else SIZE_MAX */
	/* reading on two cores (mapped files only; see par_run) */
	bool par_ok;           /* may still try it (cleared once tried) */
	struct par *par;
	const char *whole;     /* kineto_read_mem_whole: the padded copy, read as a mapped file */
	/* hostile input */
	size_t unit_cap;       /* longest unit (event, top-level member): 2 * jscan_token_max() */
	int err_rc;            /* what U_ERR returns: GF_EINPUT, or GF_EINTERNAL for a limit */
	unsigned top_seen;     /* top-level keys read so far (1 << TK_*) */
	uint64_t base_at;      /* offset of the baseTimeNanoseconds value */
	int64_t ts_min, end_max; /* over delivered events: smallest ts, largest ts + dur */
	uint64_t ndeliv;       /* events delivered */
};

/* ts_status / dur_status beyond the num_status values: no such key, null. */
#define TV_ABSENT 2
#define TV_NULL 3

/* Fills e->... temporaries of one event before it is committed. */
struct evtmp {
	struct kev e;
	struct idv pid, tid;
	bool has_ph;
	int ts_dec;  /* fraction digits of ts as written, -1 none, 99 other forms */
	int ts_status, dur_status;
};

/* An event's fields before its keys are read. */
static inline void evtmp_init(const struct rd *r, struct evtmp *t)
{
	struct kev *e = &t->e;
	e->ts = e->dur = KEV_NONE;
	e->name = r->id_empty;
	e->cat = UINT32_MAX;
	e->track = 0;
	e->kc = KC_OTHER;
	e->ph = '?';
	e->id = e->correlation = e->external_id = e->python_id = e->python_parent_id = KEV_NONE;
	e->python_thread = e->stream = e->device = e->bytes = KEV_NONE;
	e->arg_name = UINT32_MAX;
	e->flags = 0;
	t->pid.kind = t->tid.kind = 2;
	t->pid.v = t->tid.v = 0;
	t->pid.str = t->tid.str = UINT32_MAX;
	t->has_ph = false;
	t->ts_dec = -1;
	t->ts_status = t->dur_status = TV_ABSENT;
}

/* Line number (1-based) of byte offset off, found by reading the input
 * again (only on errors, so the hot path never counts lines); 0 when the
 * input cannot be read twice (stdin). */
static uint64_t line_of(struct rd *r, uint64_t off)
{
	struct source *src = NULL;
	struct sbuf e2 = SBUF_INIT;
	int rc;
	if (r->mem)
		rc = source_open_mem(&src, r->mem, r->mem_len, r->fname, 1, &e2);
	else if (r->path && strcmp(r->path, "-"))
		rc = source_open(&src, r->path, 1, &e2);
	else
		rc = GF_EINPUT;
	sbuf_release(&e2);
	if (rc)
		return 0;
	uint64_t line = 1, pos = 0;
	char *b = gf_xmalloc(CHUNK);
	while (pos < off) {
		size_t n;
		if (source_read(src, b, GF_MIN((uint64_t)CHUNK, off - pos), &n, &e2) || !n)
			break;
		for (const char *p = b, *e = b + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
			line++;
		pos += n;
	}
	free(b);
	sbuf_release(&e2);
	source_close(src);
	return line;
}

static void set_err_got(struct rd *r, const char *at, const char *what, const char *got)
{
	uint64_t off = r->base_off + (uint64_t)(at - r->buf);
	uint64_t line = line_of(r, off);
	char tmp[16], lbuf[40] = "";
	int ch = at < r->buf + r->len ? (unsigned char)*at : -1;
	if (line)
		snprintf(lbuf, sizeof lbuf, " (line %llu)", (unsigned long long)line);
	sbuf_setf(r->err, "'%s': byte %llu%s: expected %s, got %s", r->fname, (unsigned long long)off, lbuf, what,
		  got ? got : jscan_byte_desc(ch, tmp));
}

static void set_err(struct rd *r, const char *at, const char *what)
{
	set_err_got(r, at, what, NULL);
}

/* A bound of gf_limits passed (no line number: finding it would read the
 * whole input again): GF_EINTERNAL, as base/limits.h says. */
static void set_limit_err(struct rd *r, const char *at, const char *thing, uint64_t bound, const char *var)
{
	sbuf_setf(r->err, "'%s': byte %llu: %s longer than %llu bytes (%s)", r->fname,
		  (unsigned long long)(r->base_off + (uint64_t)(at - r->buf)), thing, (unsigned long long)bound, var);
	r->err_rc = GF_EINTERNAL;
}

/* Integer from number text; quoted text too. @return false when not an integer. */
static bool parse_int(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i < n && n - i <= 18) {
		int64_t v = 0;
		size_t j = i;
		for (; j < n && s[j] >= '0' && s[j] <= '9'; j++)
			v = v * 10 + (s[j] - '0');
		if (j == n) {
			*out = neg ? -v : v;
			return true;
		}
	}
	int rc = num_parse(s, n, 0, NUM_ALLOW_SIGN | NUM_ALLOW_EXP, out);
	return rc == NUM_OK;
}

/* The largest integer part of a time in microseconds whose nanoseconds,
 * with up to 3 decimals, still fit in int64: the bound of both one-pass
 * paths (parse_us's and fast_us). */
#define US_INT_MAX ((uint64_t)INT64_MAX / 1000 - 1)

/* Microseconds text -> ns. *dec = fraction digits as written, trailing
 * zeros included (as in fast_us); forms past the one-pass one go to
 * num_parse, and num_decimals counts their significant digits (99 for
 * exponent forms).
 * @return a num_status. */
static int parse_us(const char *s, size_t n, int64_t *out, int *dec)
{
	size_t i = 0;
	bool neg = false;
	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	size_t i0 = i;
	int64_t v = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9' && i - i0 < 17; i++)
		v = v * 10 + (s[i] - '0');
	size_t nint = i - i0; /* 17 means "maybe more": the general path decides */
	if (nint && nint <= 16 && (uint64_t)v <= US_INT_MAX) {
		if (i == n) {
			*dec = 0;
			*out = neg ? -v * 1000 : v * 1000;
			return NUM_OK;
		}
		if (s[i] == '.') {
			size_t f0 = ++i;
			int64_t f = 0;
			for (; i < n && s[i] >= '0' && s[i] <= '9' && i - f0 < 3; i++)
				f = f * 10 + (s[i] - '0');
			size_t fd = i - f0;
			if (i == n && fd) {
				static const int64_t m[4] = { 1000, 100, 10, 1 };
				*dec = (int)fd;
				int64_t r = v * 1000 + f * m[fd];
				*out = neg ? -r : r;
				return NUM_OK;
			}
		}
	}
	*dec = (int)num_decimals(s, n);
	for (size_t k = 0; k < n; k++)
		if (s[k] == 'e' || s[k] == 'E')
			*dec = 99;
	return num_parse(s, n, 3, NUM_ALLOW_SIGN | NUM_ALLOW_EXP, out);
}

/* The run of decimal digits at p, at most 8 of them: @return how many,
 * with *val their value (SWAR: one 8-byte load; p needs 8 readable bytes,
 * which the padding guarantees). */
static inline __attribute__((always_inline)) unsigned digits8(const char *p, uint64_t *val)
{
	const uint64_t F0 = 0xF0F0F0F0F0F0F0F0ULL, Z = 0x3030303030303030ULL;
	uint64_t x;
	memcpy(&x, p, 8);
	/* a byte is a digit iff its high nibble is 3 and stays 3 after + 6;
	 * exact for the lowest non-digit byte, which is all that counts */
	uint64_t nd = ((x & F0) ^ Z) | (((x + 0x0606060606060606ULL) & F0) ^ Z);
	unsigned k = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
	if (!k) {
		*val = 0;
		return 0;
	}
	uint64_t t = (x - Z) << (8 * (8 - k)); /* the k digits in the top bytes, leading zeros below */
	t = t * 10 + (t >> 8);                 /* pairs */
	t = (((t & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	     (((t >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
	*val = t;
	return k;
}

static const uint64_t pow10_8[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };

/* 1-16 decimal digits at p into *v (16 is the integer part of both epoch
 * microsecond forms). @return the end of the digits, or NULL when there is
 * no digit or there are 17 or more (the slow path's cases). */
static inline __attribute__((always_inline)) const char *fast_digits(const char *p, uint64_t *v)
{
	uint64_t v2;
	unsigned k = digits8(p, v);
	if (GF_UNLIKELY(!k))
		return NULL;
	p += k;
	if (k == 8) {
		unsigned k2 = digits8(p, &v2);
		if (GF_UNLIKELY(k2 == 8 && (unsigned)((unsigned char)p[8] - '0') <= 9))
			return NULL;
		*v = *v * pow10_8[k2] + v2;
		p += k2;
	}
	return p;
}

/* Fast paths for the usual number forms, parsed in one pass straight from
 * the text (the generic path scans the token, then parses it). They accept
 * only a subset — at most 16 digits (with '-' and, for times, 1-3
 * decimals) followed by a byte that cannot continue a number, before the
 * end of the buffer — and return false without moving c->p otherwise, so
 * the generic path decides every other case exactly as before. */
static inline __attribute__((always_inline)) bool fast_int(struct jcur *c, int64_t *out)
{
	const char *p = c->p;
	bool neg = *p == '-';
	p += neg;
	uint64_t v;
	if (GF_UNLIKELY(!(p = fast_digits(p, &v))))
		return false;
	if (GF_UNLIKELY(jscan_cls[(unsigned char)*p] == 2 || p >= c->end))
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	c->p = p;
	return true;
}

/* Microseconds with at most 16 integer digits (and no more than int64 ns
 * can hold) and 0-3 decimals -> ns. */
static inline __attribute__((always_inline)) bool fast_us(struct jcur *c, int64_t *out, int *dec)
{
	const char *p = c->p;
	bool neg = *p == '-';
	p += neg;
	uint64_t v, f = 0;
	if (GF_UNLIKELY(!(p = fast_digits(p, &v)) || v > US_INT_MAX))
		return false;
	unsigned fd = 0;
	if (*p == '.') {
		/* 1-3 decimals, then no fourth digit */
		unsigned d1 = (unsigned char)p[1] - '0', d2 = (unsigned char)p[2] - '0', d3 = (unsigned char)p[3] - '0';
		if (GF_UNLIKELY(d1 > 9))
			return false;
		f = d1;
		fd = 1;
		if (d2 <= 9) {
			f = f * 10 + d2;
			fd = 2;
			if (d3 <= 9) {
				f = f * 10 + d3;
				fd = 3;
			}
		}
		p += 1 + fd;
		if (GF_UNLIKELY((unsigned)((unsigned char)*p - '0') <= 9))
			return false;
	}
	if (GF_UNLIKELY(jscan_cls[(unsigned char)*p] == 2 || p >= c->end))
		return false;
	static const int64_t m[4] = { 1000, 100, 10, 1 };
	int64_t r = (int64_t)v * 1000 + (int64_t)f * m[fd];
	*out = neg ? -r : r;
	*dec = (int)fd;
	c->p = p;
	return true;
}

/* Skips the value at c->p (first byte ch) like jscan_skip(c, depth), with
 * the common small values (integers, short strings, null) inline. */
static inline bool skip_value(struct jcur *c, int ch, int depth)
{
	if (ch == '"') {
		struct jstr js;
		return jscan_string(c, &js);
	}
	if ((unsigned)(ch - '0') < 10 || ch == '-') {
		int64_t v;
		if (GF_LIKELY(fast_int(c, &v)))
			return true;
	}
	return jscan_skip(c, depth);
}

/* A value that should be an integer: number, numeric string or null. Other
 * values are skipped and give KEV_NONE. */
static __attribute__((noinline)) bool read_int_gen(struct jcur *c, int ch, int64_t *out)
{
	*out = KEV_NONE;
	const char *s;
	size_t n;
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		if (GF_LIKELY(fast_int(c, out)))
			return true;
		if (!jscan_number(c, &s, &n))
			return false;
		if (!parse_int(s, n, out))
			*out = KEV_NONE;
		return true;
	}
	if (ch == '"') {
		struct jstr js;
		if (!jscan_string(c, &js))
			return false;
		if ((js.flags & JSTR_ESC) || !parse_int(js.s, js.n, out))
			*out = KEV_NONE;
		return true;
	}
	return skip_value(c, ch, 3);
}

/* read_int_gen with the usual plain integer inline. */
static inline __attribute__((always_inline)) bool read_int(struct jcur *c, int ch, int64_t *out)
{
	if (GF_LIKELY((unsigned)(ch - '0') < 10 && fast_int(c, out)))
		return true;
	return read_int_gen(c, ch, out);
}

/* ts or dur: number or numeric string. *st = num status (NUM_INVALID when
 * the value is not a number). */
static __attribute__((noinline)) bool read_us_gen(struct jcur *c, int ch, int64_t *out, int *dec, int *st)
{
	*out = KEV_NONE;
	*st = NUM_INVALID;
	*dec = -1;
	const char *s;
	size_t n;
	if (ch == '"') {
		struct jstr js;
		if (!jscan_string(c, &js))
			return false;
		s = js.s;
		n = js.n;
	} else if (ch == '-' || (ch >= '0' && ch <= '9')) {
		if (GF_LIKELY(fast_us(c, out, dec))) {
			*st = NUM_OK;
			return true;
		}
		if (!jscan_number(c, &s, &n))
			return false;
	} else {
		if (!skip_value(c, ch, 2))
			return false;
		if (ch == 'n')
			*st = TV_NULL; /* skip_value read exactly "null" */
		return true;
	}
	int64_t v;
	int rc = parse_us(s, n, &v, dec);
	if ((rc == NUM_OK || rc == NUM_ROUNDED) && v == KEV_NONE)
		rc = NUM_OVERFLOW; /* INT64_MIN is the "absent" marker, and -INT64_MIN wraps */
	if (rc == NUM_OK || rc == NUM_ROUNDED)
		*out = v;
	*st = rc;
	return true;
}

/* read_us_gen with the usual plain number inline. */
static inline __attribute__((always_inline)) bool read_us(struct jcur *c, int ch, int64_t *out, int *dec, int *st)
{
	if (GF_LIKELY((unsigned)(ch - '0') < 10 && fast_us(c, out, dec))) {
		*st = NUM_OK;
		return true;
	}
	return read_us_gen(c, ch, out, dec, st);
}

static inline uint64_t ld8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

static inline uint32_t ld4(const char *s)
{
	uint32_t w;
	memcpy(&w, s, 4);
	return w;
}

/* A word made of the n bytes at s, reading nothing outside them (the text
 * may be a decoded copy in the scratch buffer). */
static inline uint64_t head_word(const char *s, size_t n)
{
	if (n >= 8)
		return ld8(s);
	if (n >= 4)
		return ld4(s) | (uint64_t)ld4(s + n - 4) << 32;
	if (!n)
		return 0;
	return (unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 | (uint64_t)(unsigned char)s[n - 1] << 16;
}

/* pool_intern through a direct-mapped cache (per read) keyed by the length
 * and up to three 8-byte samples of the text; an entry points at the pooled
 * copy (pool strings never move), so a repeated name costs one hash and one
 * compare. Nothing outside the text is read, and the compare is inline up to
 * 16 bytes (most names and categories). */
struct icent {
	const char *s; /* pooled text, NULL = empty slot */
	uint32_t n, id;
};
#define ICACHE_SIZE 4096

static inline __attribute__((always_inline)) struct icent *icache_slot(struct rd *r, const char *s, size_t n)
{
	uint64_t k = n * 0x9e3779b97f4a7c15ULL ^ head_word(s, n);
	if (n > 8)
		k ^= ld8(s + n - 8) * 0xc2b2ae3d27d4eb4fULL;
	if (n >= 16)
		k ^= ld8(s + n / 2) >> 3;
	k = (k ^ (k >> 29)) * 0xbf58476d1ce4e5b9ULL;
	return &r->icache[(k >> 40) & (ICACHE_SIZE - 1)];
}

static inline __attribute__((always_inline)) bool icache_hit(const struct icent *e, const char *s, size_t n)
{
	if (!e->s || e->n != n)
		return false;
	const char *a = e->s;
	if (n >= 8) {
		if (n <= 16)
			return ld8(a) == ld8(s) && ld8(a + n - 8) == ld8(s + n - 8);
		return !memcmp(a, s, n);
	}
	return head_word(a, n) == head_word(s, n);
}

static uint32_t intern_miss(struct rd *r, struct icent *e, const char *s, size_t n)
{
	struct pool *pl = r->kt->names;
	uint32_t id = pool_intern(pl, s, n);
	if (n <= UINT32_MAX) {
		e->s = pool_str(pl, id);
		e->n = (uint32_t)n;
		e->id = id;
	}
	return id;
}

static uint32_t intern(struct rd *r, const char *s, size_t n)
{
	struct icent *e = icache_slot(r, s, n);
	if (icache_hit(e, s, n))
		return e->id;
	return intern_miss(r, e, s, n);
}

/* read_str past the scan of a string without escapes that missed the cache,
 * and every other case. */
static __attribute__((noinline)) bool read_str_gen(struct rd *r, struct jcur *c, int ch, uint32_t *id,
						  const struct jstr *scanned)
{
	if (ch != '"')
		return skip_value(c, ch, 2);
	struct jstr js;
	if (scanned)
		js = *scanned;
	else if (!jscan_string(c, &js))
		return false;
	if (!(js.flags & JSTR_ESC)) {
		struct icent *e = icache_slot(r, js.s, js.n);
		if (icache_hit(e, js.s, js.n)) {
			*id = e->id;
			return true;
		}
		*id = intern_miss(r, e, js.s, js.n); /* UTF-8: checked by jscan_string */
		return true;
	}
	const char *s;
	size_t n;
	if (!jscan_decode(c, &js, &r->scratch, &s, &n))
		return false;
	*id = intern(r, s, n);
	return true;
}

/* A string value interned in the pool; other values are skipped (*id unchanged).
 * A string without escapes is looked up in the cache by its raw bytes before
 * it is decoded (jscan_string has validated its UTF-8). The usual case — a
 * repeated name — is inline. */
static inline __attribute__((always_inline)) bool read_str(struct rd *r, struct jcur *c, int ch, uint32_t *id)
{
	struct jstr js;
	if (GF_LIKELY(ch == '"')) {
		if (!jscan_string(c, &js))
			return false;
		if (GF_LIKELY(!(js.flags & JSTR_ESC))) {
			struct icent *e = icache_slot(r, js.s, js.n);
			if (GF_LIKELY(icache_hit(e, js.s, js.n))) {
				*id = e->id;
				return true;
			}
		}
		return read_str_gen(r, c, ch, id, &js);
	}
	return read_str_gen(r, c, ch, id, NULL);
}

static __attribute__((noinline)) bool read_idv_gen(struct rd *r, struct jcur *c, int ch, struct idv *v)
{
	v->str = UINT32_MAX;
	if (ch == '"') {
		uint32_t id = UINT32_MAX;
		if (!read_str(r, c, ch, &id))
			return false;
		v->str = id;
		int64_t x;
		if (parse_int(pool_str(r->kt->names, id), pool_len(r->kt->names, id), &x)) {
			v->kind = 0;
			v->v = x;
		} else {
			v->kind = 1;
			v->v = id;
		}
		return true;
	}
	int64_t x;
	if (!read_int(c, ch, &x))
		return false;
	v->kind = x == KEV_NONE ? 2 : 0;
	v->v = x == KEV_NONE ? 0 : x;
	return true;
}

/* A pid or tid: integer, string (numeric text reads as its number) or absent. */
static inline __attribute__((always_inline)) bool read_idv(struct rd *r, struct jcur *c, int ch, struct idv *v)
{
	if (GF_LIKELY((unsigned)(ch - '0') < 10 && fast_int(c, &v->v))) {
		v->str = UINT32_MAX;
		v->kind = 0;
		return true;
	}
	return read_idv_gen(r, c, ch, v);
}

/* Reads a key and the ':' after it; *ch = first byte of the value. */
static inline __attribute__((always_inline)) bool read_key(struct rd *r, struct jcur *c, const char **k,
						       size_t *kn, int *ch)
{
	struct jstr js;
	*ch = -1;
	if (!jscan_string(c, &js))
		return false;
	if (js.flags) {
		if (!jscan_decode(c, &js, &r->scratch, k, kn))
			return false;
	} else {
		*k = js.s;
		*kn = js.n;
	}
	/* fast path for the usual `": v` (the padding makes p[2] readable) */
	const char *p = c->p;
	if (GF_LIKELY(p[0] == ':' && p[1] == ' ' && (unsigned char)p[2] > ' ' && p + 2 < c->end)) {
		c->p = p + 2;
		*ch = (unsigned char)p[2];
		return true;
	}
	int x = jscan_ws(c);
	if (x < 0)
		return false;
	if (x != ':')
		return jscan_fail(c, c->p, "':' after a key");
	c->p++;
	*ch = jscan_ws(c);
	return *ch >= 0;
}

#define KEY(lit) (kn == sizeof(lit) - 1 && !memcmp(k, lit, sizeof(lit) - 1))

/* After a member value: ',' (then *ch is the next key's '"') or the closing
 * byte. @return 1 more members, 0 closed, -1 stop (c->st set). */
static inline __attribute__((always_inline)) int next_member(struct jcur *c, int close, const char *what)
{
	const char *p = c->p;
	if (GF_LIKELY(p[0] == ',')) { /* the usual `, "`, `,"` or `,\n    "` (p[0] is in the text: the padding is NUL) */
		if (p[1] == '"') {
			c->p = p + 1;
			return 1;
		}
		if (p[1] == ' ' && p[2] == '"') {
			c->p = p + 2;
			return 1;
		}
		c->p = p + 1;
		int x = jscan_ws(c);
		if (x < 0)
			return -1;
		if (GF_UNLIKELY(x != '"'))
			return jscan_fail(c, c->p, "a key string"), -1;
		return 1;
	}
	int x = jscan_ws(c);
	if (x < 0)
		return -1;
	if (x == close) {
		c->p++;
		return 0;
	}
	if (x != ',')
		return jscan_fail(c, c->p, what), -1;
	c->p++;
	x = jscan_ws(c);
	if (x < 0)
		return -1;
	if (x != '"')
		return jscan_fail(c, c->p, "a key string"), -1;
	return 1;
}

/*
 * Enters the object whose '{' is at c->p. @return 0 when it is empty (its '}'
 * consumed), 1 when a key string follows, -1 on error (expected = what the
 * message says was expected instead).
 */
static inline __attribute__((always_inline)) int obj_enter(struct jcur *c, const char *expected)
{
	c->p++;
	int x = jscan_ws(c);
	if (x < 0)
		return -1;
	if (x == '}') {
		c->p++;
		return 0;
	}
	if (x != '"')
		return jscan_fail(c, c->p, expected), -1;
	return 1;
}

/* A key read twice in one object: the error at the second one. */
static __attribute__((noinline, cold)) bool dup_key(struct jcur *c, const char *at, const char *what)
{
	return jscan_fail_got(c, at, what, "a second one (duplicate keys are refused)");
}

/* Whether bit b of *seen was set (then the error), and sets it. */
#define SEEN_TWICE(seen, b) (GF_UNLIKELY((seen) & (1u << (b))) || ((seen) |= 1u << (b), 0))

static bool parse_args(struct rd *r, struct jcur *c, struct evtmp *t)
{
	static const char *const dups[] = {
		"one \"correlation\" key in \"args\"", "one \"External id\" key in \"args\"",
		"one \"stream\" key in \"args\"", "one \"device\" key in \"args\"",
		"one \"Python id\" key in \"args\"", "one \"Python parent id\" key in \"args\"",
		"one \"Python thread\" key in \"args\"", "one \"bytes\" key in \"args\"",
		"one \"name\" or \"labels\" key in \"args\"",
	};
	struct kev *e = &t->e;
	unsigned seen = 0;
	int in = obj_enter(c, "a key string or '}' in \"args\"");
	if (in <= 0)
		return in == 0;
	for (;;) {
		const char *k, *kp = c->p;
		size_t kn;
		int ch, b = -1;
		if (!read_key(r, c, &k, &kn, &ch))
			return false;
		int64_t *iv = NULL;
		if (KEY("correlation"))
			iv = &e->correlation, b = 0;
		else if (KEY("External id"))
			iv = &e->external_id, b = 1;
		else if (KEY("stream"))
			iv = &e->stream, b = 2;
		else if (KEY("device"))
			iv = &e->device, b = 3;
		else if (KEY("Python id"))
			iv = &e->python_id, b = 4;
		else if (KEY("Python parent id"))
			iv = &e->python_parent_id, b = 5;
		else if (KEY("Python thread"))
			iv = &e->python_thread, b = 6;
		else if (KEY("bytes"))
			iv = &e->bytes, b = 7;
		else if (KEY("name") || KEY("labels"))
			b = 8;
		if (b >= 0 && SEEN_TWICE(seen, b))
			return dup_key(c, kp, dups[b]);
		bool ok = iv ? read_int(c, ch, iv) : b == 8 ? read_str(r, c, ch, &e->arg_name) : skip_value(c, ch, 2);
		if (!ok)
			return false;
		int m = next_member(c, '}', "',' or '}' in \"args\"");
		if (m < 0)
			return false;
		if (m == 0)
			return true;
	}
}

/* Event keys gpuflame reads. */
enum { EK_OTHER = 0, EK_PH, EK_TS, EK_ID, EK_PID, EK_TID, EK_DUR, EK_CAT, EK_NAME, EK_ARGS };

static int event_key_code(const char *k, size_t kn)
{
	switch (kn) {
	case 2:
		return KEY("ph") ? EK_PH : KEY("ts") ? EK_TS : KEY("id") ? EK_ID : EK_OTHER;
	case 3:
		return KEY("pid") ? EK_PID : KEY("tid") ? EK_TID : KEY("dur") ? EK_DUR : KEY("cat") ? EK_CAT : EK_OTHER;
	case 4:
		return KEY("name") ? EK_NAME : KEY("args") ? EK_ARGS : EK_OTHER;
	default:
		return EK_OTHER;
	}
}

/* Little-endian word of the first 6, 7 or 8 bytes of a string literal, a
 * constant expression (a memcpy into a local was not folded: gcc stored the
 * bytes and loaded them back as one wider word, a store-forwarding stall on
 * every key). */
#define LB_(s, i) ((uint64_t)(unsigned char)(s)[i] << (8 * (i)))
#define LIT6(s) (LB_(s, 0) | LB_(s, 1) | LB_(s, 2) | LB_(s, 3) | LB_(s, 4) | LB_(s, 5))
#define LIT7(s) (LIT6(s) | LB_(s, 6))
#define LIT8(s) (LIT7(s) | LB_(s, 7))

/* Whether the key at c->p is spelled exactly as the n-byte word w (`"ph": `
 * then a non-blank; the padding makes 8 bytes readable): then c->p moves to
 * the value and *ch is its first byte. */
static inline __attribute__((always_inline)) bool key_is(struct jcur *c, uint64_t w, unsigned n, int *ch)
{
	const char *p = c->p;
	uint64_t mask = n == 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
	if ((ld8(p) & mask) != w)
		return false;
	unsigned char v = (unsigned char)p[n];
	if (GF_UNLIKELY(v <= ' ' || p + n >= c->end))
		return false;
	c->p = p + n;
	*ch = v;
	return true;
}

/* The usual spelling of a known event key, `"ph": ` (quote, key, quote,
 * colon, one blank) followed by a non-blank byte, found by its first letter
 * and one 8-byte compare (key_is). @return the EK_ code, or 0 (c->p
 * unchanged) for anything else, which read_key then reads. */
static inline int fast_key(struct jcur *c, int *ch)
{
	switch (c->p[1]) {
	case 'p':
		return key_is(c, LIT6("\"ph\": "), 6, ch) ? EK_PH : key_is(c, LIT7("\"pid\": "), 7, ch) ? EK_PID : 0;
	case 't':
		return key_is(c, LIT6("\"ts\": "), 6, ch) ? EK_TS : key_is(c, LIT7("\"tid\": "), 7, ch) ? EK_TID : 0;
	case 'd':
		return key_is(c, LIT7("\"dur\": "), 7, ch) ? EK_DUR : 0;
	case 'c':
		return key_is(c, LIT7("\"cat\": "), 7, ch) ? EK_CAT : 0;
	case 'n':
		return key_is(c, LIT8("\"name\": "), 8, ch) ? EK_NAME : 0;
	case 'a':
		return key_is(c, LIT8("\"args\": "), 8, ch) ? EK_ARGS : 0;
	case 'i':
		return key_is(c, LIT6("\"id\": "), 6, ch) ? EK_ID : 0;
	default:
		return 0;
	}
}

/* One event member's value (key code, c->p at the value, ch its first
 * byte). Inlined with a constant code, the switch folds away. */
static inline __attribute__((always_inline)) bool event_value(struct rd *r, struct jcur *c, struct evtmp *t,
							      int code, int ch)
{
	struct kev *e = &t->e;
	int dec;
	switch (code) {
	case EK_PH:
		if (ch == '"') {
			struct jstr js;
			if (!jscan_string(c, &js))
				return false;
			t->has_ph = true;
			e->ph = js.n == 1 && (unsigned char)js.s[0] < 0x80 && js.s[0] >= 0x20 ? js.s[0] : '?';
			return true;
		}
		return skip_value(c, ch, 1);
	case EK_TS:
		return read_us(c, ch, &e->ts, &t->ts_dec, &t->ts_status);
	case EK_ID:
		return read_int(c, ch, &e->id);
	case EK_PID:
		return read_idv(r, c, ch, &t->pid);
	case EK_TID:
		return read_idv(r, c, ch, &t->tid);
	case EK_DUR:
		return read_us(c, ch, &e->dur, &dec, &t->dur_status);
	case EK_CAT:
		return read_str(r, c, ch, &e->cat);
	case EK_NAME:
		return read_str(r, c, ch, &e->name);
	case EK_ARGS:
		return ch == '{' ? parse_args(r, c, t) : skip_value(c, ch, 1);
	default:
		return skip_value(c, ch, 1);
	}
}

/* One member of the expected key order: the key must be lit, else the
 * general loop takes over at this key (c->p unchanged). The keys of the
 * order are distinct, so only the general loop checks for a second one. */
#define EXPECT(lit, n, code)                                                              \
	do {                                                                              \
		if (!key_is(c, LIT##n(lit), n, &ch))                                      \
			goto general;                                                     \
		seen |= 1u << (code);                                                     \
		if (!event_value(r, c, t, code, ch))                                      \
			return false;                                                     \
		int m_ = next_member(c, '}', "',' or '}' after a value in an event");     \
		if (m_ <= 0)                                                              \
			return m_ == 0;                                                   \
	} while (0)

/*
 * c->p at '{': parses one event into t. Kineto writes its keys in a fixed
 * order — complete events `ph cat name pid tid ts dur args`, flow events
 * `ph id pid tid ts cat name [bp]` — so that order is tried first, one
 * known word per key and no dispatch; at the first other key the general
 * loop goes on from there (any order, any spelling); a key it reads that
 * comes twice is an error at the second one.
 */
static bool parse_event(struct rd *r, struct jcur *c, struct evtmp *t)
{
	static const char *const dups[] = {
		[EK_PH] = "one \"ph\" key in an event", [EK_TS] = "one \"ts\" key in an event",
		[EK_ID] = "one \"id\" key in an event", [EK_PID] = "one \"pid\" key in an event",
		[EK_TID] = "one \"tid\" key in an event", [EK_DUR] = "one \"dur\" key in an event",
		[EK_CAT] = "one \"cat\" key in an event", [EK_NAME] = "one \"name\" key in an event",
		[EK_ARGS] = "one \"args\" key in an event",
	};
	struct kev *e = &t->e;
	unsigned seen = 0;
	evtmp_init(r, t);
	int in = obj_enter(c, "a key string or '}' in an event");
	if (in <= 0)
		return in == 0;
	int ch;
	EXPECT("\"ph\": ", 6, EK_PH);
	if (e->ph == 'X') {
		EXPECT("\"cat\": ", 7, EK_CAT);
		EXPECT("\"name\": ", 8, EK_NAME);
		EXPECT("\"pid\": ", 7, EK_PID);
		EXPECT("\"tid\": ", 7, EK_TID);
		EXPECT("\"ts\": ", 6, EK_TS);
		EXPECT("\"dur\": ", 7, EK_DUR);
		EXPECT("\"args\": ", 8, EK_ARGS);
	} else if (e->ph == 's' || e->ph == 'f') {
		EXPECT("\"id\": ", 6, EK_ID);
		EXPECT("\"pid\": ", 7, EK_PID);
		EXPECT("\"tid\": ", 7, EK_TID);
		EXPECT("\"ts\": ", 6, EK_TS);
		EXPECT("\"cat\": ", 7, EK_CAT);
		EXPECT("\"name\": ", 8, EK_NAME);
	}
general:
	for (;;) {
		const char *kp = c->p;
		int code = fast_key(c, &ch);
		if (!code) {
			const char *k;
			size_t kn;
			if (!read_key(r, c, &k, &kn, &ch))
				return false;
			code = event_key_code(k, kn);
		}
		if (code && SEEN_TWICE(seen, code))
			return dup_key(c, kp, dups[code]);
		if (!event_value(r, c, t, code, ch))
			return false;
		int m = next_member(c, '}', "',' or '}' after a value in an event");
		if (m < 0)
			return false;
		if (m == 0)
			return true;
	}
}
#undef EXPECT

static struct cat_cache *cat_lookup(struct rd *r, uint32_t id)
{
	struct priv *pv = r->pv;
	struct cat_cache *cc = &pv->cc[id & 63];
	if (cc->id == id)
		return cc;
	struct kstats *st = &r->kt->stats;
	/* dense index by open addressing over pool ids */
	if ((size_t)(st->ncats + 1) * 2 > pv->ncat_slot) {
		size_t ns = pv->ncat_slot ? pv->ncat_slot * 2 : 64;
		uint32_t *slot = gf_xcalloc(ns, sizeof *slot);
		for (uint32_t i = 0; i < st->ncats; i++) {
			size_t j = gf_hash_u64(st->cat_ids[i]) & (ns - 1);
			while (slot[j])
				j = (j + 1) & (ns - 1);
			slot[j] = i + 1;
		}
		free(pv->cat_slot);
		pv->cat_slot = slot;
		pv->ncat_slot = ns;
	}
	size_t j = gf_hash_u64(id) & (pv->ncat_slot - 1);
	uint32_t idx = UINT32_MAX;
	while (pv->cat_slot[j]) {
		if (st->cat_ids[pv->cat_slot[j] - 1] == id) {
			idx = pv->cat_slot[j] - 1;
			break;
		}
		j = (j + 1) & (pv->ncat_slot - 1);
	}
	if (idx == UINT32_MAX) {
		idx = st->ncats++;
		st->cat_ids = gf_xreallocarray(st->cat_ids, st->ncats, sizeof *st->cat_ids);
		st->cat_events = gf_xreallocarray(st->cat_events, st->ncats, sizeof *st->cat_events);
		st->cat_ids[idx] = id;
		st->cat_events[idx] = 0;
		pv->cat_slot[j] = idx + 1;
	}
	cc->id = id;
	cc->idx = idx;
	cc->kc = (uint8_t)kc_of_cat(pool_str(r->kt->names, id), pool_len(r->kt->names, id));
	return cc;
}

/* Commits a parsed event: stats, tracks, metadata, callback. @return the
 * callback's value (0 = go on). */
static int commit_event(struct rd *r, struct evtmp *t)
{
	struct kineto_trace *kt = r->kt;
	struct kstats *st = &kt->stats;
	struct kev *e = &t->e;
	st->events++;
	st->by_ph[(unsigned char)e->ph & 127]++;
	if (t->has_ph)
		r->nph++;
	int kc = KC_OTHER;
	if (e->cat != UINT32_MAX) {
		struct cat_cache *cc = cat_lookup(r, e->cat);
		st->cat_events[cc->idx]++;
		kc = cc->kc;
	} else {
		st->no_cat++;
	}
	if (e->ph == 'M')
		kc = KC_METADATA;
	else if (kc == KC_OTHER && (e->ph == 'i' || e->ph == 'I'))
		kc = KC_INSTANT;
	else if (kc == KC_OTHER && (e->ph == 's' || e->ph == 'f' || e->ph == 't'))
		kc = KC_FLOW;
	e->kc = (uint8_t)kc;
	st->by_kc[kc]++;

	if (t->ts_status == NUM_ROUNDED)
		st->ts_rounded++;
	if (t->dur_status == NUM_ROUNDED)
		st->ts_rounded++;
	/* a dur that would carry the event's end past int64 ns is out of range too */
	if (GF_UNLIKELY(e->dur > 0 && e->ts > INT64_MAX - e->dur)) { /* a KEV_NONE ts: never */
		e->dur = KEV_NONE;
		t->dur_status = NUM_OVERFLOW;
	}
	/* unusable values: NUM_INVALID, NUM_OVERFLOW (negative) and TV_NULL */
	if (GF_UNLIKELY((unsigned)t->dur_status > TV_ABSENT)) {
		e->flags |= KEV_F_DUR_BAD;
		if (t->dur_status == TV_NULL)
			st->dur_null++;
		else if (t->dur_status == NUM_OVERFLOW)
			st->dur_overflow++;
		else
			st->dur_invalid++;
	}
	if (GF_UNLIKELY((unsigned)t->ts_status > TV_ABSENT)) {
		if (t->ts_status == TV_NULL)
			st->ts_null++;
		else if (t->ts_status == NUM_OVERFLOW)
			st->ts_overflow++;
		else
			st->ts_invalid++;
	}
	if (e->dur != KEV_NONE && e->dur < 0) {
		st->dur_negative++;
		e->dur = 0;
		e->flags |= KEV_F_DUR_CLAMPED;
	}
	e->track = track_get(kt, r->pv, &t->pid, &t->tid);
	if (kc == KC_KERNEL || kc == KC_GPU_MEMCPY || kc == KC_GPU_MEMSET || kc == KC_GPU_USER_ANNOTATION ||
	    kc == KC_CUDA_SYNC)
		kt->tracks[e->track].is_device = true;
	if (kc == KC_METADATA) {
		if (e->arg_name != UINT32_MAX) {
			if (e->name == r->id_thread_name)
				kt->tracks[e->track].thread_name = e->arg_name;
			else if (e->name == r->id_process_name)
				pid_meta(r->pv, &t->pid)->name = e->arg_name;
			else if (e->name == r->id_process_labels)
				pid_meta(r->pv, &t->pid)->label = e->arg_name;
		}
		if (e->ts == KEV_NONE)
			e->ts = 0;
	} else {
		if (e->ts == KEV_NONE) {
			st->skipped++;
			return 0;
		}
		if (t->ts_dec == 0)
			r->nts_int++;
		else if (t->ts_dec == 3)
			r->nts_3++;
		else if (t->ts_dec > 0)
			r->nts_other++;
	}
	/* for the check of baseTimeNanoseconds + ts + dur at the end (ts + dur
	 * fits, see above) */
	int64_t end = e->dur > 0 ? e->ts + e->dur : e->ts;
	if (e->ts < r->ts_min)
		r->ts_min = e->ts;
	if (end > r->end_max)
		r->end_max = end;
	r->ndeliv++;
	return r->fn ? r->fn(r->ctx, e) : 0;
}

/* Reads one top-level member's value (key k already read; c->p at the value). */
static bool parse_top_value(struct rd *r, struct jcur *c, const char *k, size_t kn, int ch)
{
	struct kmeta *m = &r->kt->meta;
	int64_t v;
	if (KEY("baseTimeNanoseconds")) {
		const char *vp = c->p;
		if (!read_int(c, ch, &v))
			return false;
		if (v != KEV_NONE) {
			m->base_time_ns = v;
			m->has_base_time = true;
			r->base_at = r->base_off + (uint64_t)(vp - r->buf);
		} else if (ch != 'n') { /* null: as if absent */
			return jscan_fail(c, vp, "baseTimeNanoseconds as an integer number of nanoseconds within int64");
		}
		return true;
	}
	if (KEY("schemaVersion")) {
		if (!read_int(c, ch, &v))
			return false;
		m->schema_version = v;
		return true;
	}
	if (KEY("traceName"))
		return read_str(r, c, ch, &m->trace_name);
	if (KEY("displayTimeUnit")) {
		uint32_t id = UINT32_MAX;
		if (!read_str(r, c, ch, &id))
			return false;
		if (id != UINT32_MAX)
			snprintf(m->display_time_unit, sizeof m->display_time_unit, "%s", pool_str(r->kt->names, id));
		return true;
	}
	if (KEY("distributedInfo") && ch == '{') {
		int in = obj_enter(c, "a key string or '}' in \"distributedInfo\"");
		if (in <= 0)
			return in == 0;
		int64_t rank = KEV_NONE, ws = KEV_NONE;
		uint32_t backend = UINT32_MAX;
		unsigned seen = 0;
		for (;;) {
			const char *dk, *kp = c->p;
			size_t dn;
			int dch;
			if (!read_key(r, c, &dk, &dn, &dch))
				return false;
			bool ok;
			if (dn == 4 && !memcmp(dk, "rank", 4))
				ok = SEEN_TWICE(seen, 0) ? dup_key(c, kp, "one \"rank\" key in \"distributedInfo\"")
							 : read_int(c, dch, &rank);
			else if (dn == 10 && !memcmp(dk, "world_size", 10))
				ok = SEEN_TWICE(seen, 1) ? dup_key(c, kp, "one \"world_size\" key in \"distributedInfo\"")
							 : read_int(c, dch, &ws);
			else if (dn == 7 && !memcmp(dk, "backend", 7))
				ok = SEEN_TWICE(seen, 2) ? dup_key(c, kp, "one \"backend\" key in \"distributedInfo\"")
							 : read_str(r, c, dch, &backend);
			else
				ok = jscan_skip(c, 2);
			if (!ok)
				return false;
			int nm = next_member(c, '}', "',' or '}' in \"distributedInfo\"");
			if (nm < 0)
				return false;
			if (nm == 0)
				break;
		}
		m->rank = rank;
		m->world_size = ws;
		if (backend != UINT32_MAX)
			snprintf(m->backend, sizeof m->backend, "%s", pool_str(r->kt->names, backend));
		return true;
	}
	if (KEY("deviceProperties") && ch == '[') {
		c->p++;
		unsigned nd = 0;
		uint32_t names[16];
		int x = jscan_ws(c);
		if (x < 0)
			return false;
		if (x == ']') {
			c->p++;
		} else {
			for (;;) {
				x = jscan_ws(c);
				if (x < 0)
					return false;
				if (x == '{') {
					/* find "name" among the device's keys */
					uint32_t nm = UINT32_MAX;
					int in = obj_enter(c, "a key string in a device");
					if (in < 0)
						return false;
					if (in) {
						unsigned seen = 0;
						for (;;) {
							const char *dk, *kp = c->p;
							size_t dn;
							int dch;
							if (!read_key(r, c, &dk, &dn, &dch))
								return false;
							bool isname = dn == 4 && !memcmp(dk, "name", 4);
							if (isname && SEEN_TWICE(seen, 0))
								return dup_key(c, kp, "one \"name\" key in a device");
							bool ok = isname ? read_str(r, c, dch, &nm) : jscan_skip(c, 3);
							if (!ok)
								return false;
							int q = next_member(c, '}', "',' or '}' in a device");
							if (q < 0)
								return false;
							if (q == 0)
								break;
						}
					}
					if (nd < 16)
						names[nd] = nm;
				} else if (!jscan_skip(c, 2)) {
					return false;
				}
				nd++;
				x = jscan_ws(c);
				if (x < 0)
					return false;
				c->p++;
				if (x == ']')
					break;
				if (x != ',')
					return jscan_fail(c, c->p - 1, "',' or ']' in \"deviceProperties\"");
			}
		}
		m->ndevices = nd;
		for (unsigned i = 0; i < nd && i < 16; i++)
			m->device_name[i] = names[i];
		return true;
	}
	return jscan_skip(c, 1);
}

enum { U_OK, U_MORE, U_ERR, U_STOP };

#define MAP_STEP (8u << 20)   /* mapped file: release/populate/progress every 8 MB */
#define MAP_AHEAD (16u << 20) /* pages mapped ahead of the parser */
#define MAP_BEHIND (1u << 20) /* pages kept behind the parser */
#define MAP_MIN (64u << 10)   /* smaller files are read into the buffer */

static int at_eof(struct rd *r);
static void finish_meta(struct rd *r);
static int parse_units(struct rd *r);

/* Mapped file: drop the pages behind the parser, map those ahead, report
 * progress. */
static void map_step(struct rd *r)
{
	source_map_done(r->src, r->pos > MAP_BEHIND ? r->pos - MAP_BEHIND : 0, MAP_AHEAD);
	r->next_mark = r->pos + MAP_STEP;
	if (r->opts && r->opts->progress && r->pos >= r->next_progress) {
		r->next_progress = r->pos + PROGRESS_EVERY;
		r->opts->progress(r->opts->progress_ctx, r->pos, r->len);
	}
}

/* CPUs this process may run on. */
static unsigned cpus_available(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* The file shrank while mapped (SIGBUS, caught by mapguard). */
static int shrank(struct rd *r)
{
	sbuf_setf(r->err, "'%s': byte %llu: expected the file to stay as it was, got it cut short while being read "
		  "(is another process still writing it?)", r->fname, (unsigned long long)(r->base_off + r->pos));
	return GF_EINPUT;
}

/* Parses a whole mapped file (see source_map). */
static int run_mapped(struct rd *r, const char *data, size_t len)
{
	struct kineto_trace *kt = r->kt;
	r->mapped = true;
	r->par_ok = !(r->opts && r->opts->threads == 1) && cpus_available() >= 2;
	r->buf = (char *)(uintptr_t)data; /* read only: compact() and the padding writes are never reached */
	r->len = r->cap = len;
	r->eof = true;
	kt->stats.bytes_in = len;
	kt->stats.bytes_file = len;
	source_map_done(r->src, 0, MAP_AHEAD);
	r->next_mark = MAP_STEP;
	sigjmp_buf jb;
	if (sigsetjmp(jb, 0))
		return shrank(r); /* read_src stops the worker and frees what the parse left */
	mapguard_arm(&jb);
	int u = parse_units(r);
	mapguard_disarm();
	if (u == U_ERR)
		return r->err_rc;
	if (u == U_STOP)
		return r->stop_rc;
	if (r->opts && r->opts->progress)
		r->opts->progress(r->opts->progress_ctx, len, len);
	finish_meta(r);
	return at_eof(r);
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
		c.end = (size_t)(P->end - c.p) > w->unit_cap ? c.p + w->unit_cap : P->end; /* as parse_units does */
		bool ok = parse_event(w, &c, &pe->t);
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
static void par_end(struct rd *r)
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

/* Delivers a parsed slot: strings, then each event as commit_event. @return
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
		int rc = commit_event(r, t);
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
enum { PAR_NONE, PAR_RAN, PAR_STOP };

static int par_run(struct rd *r, struct jcur *c)
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
				par_end(r);
				return PAR_RAN;
			}
			int rc = par_deliver(r, d);
			if (rc) {
				r->stop_rc = rc;
				par_end(r);
				return PAR_STOP;
			}
			r->kt->stats.par_chunks++;
			c->p = d->end;
			r->state = d->end_state;
			r->pos = (size_t)(c->p - r->buf);
			if (r->pos >= r->next_mark)
				map_step(r);
			if (!d->boundary) {
				par_end(r);
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

/* Top-level keys the reader takes meaning from (a second one is an error). */
enum { TK_NONE = 0, TK_EVENTS, TK_BASE, TK_SCHEMA, TK_NAME, TK_UNIT, TK_DIST, TK_DEV };

static int top_key_code(const char *k, size_t kn)
{
	return KEY("traceEvents") ? TK_EVENTS : KEY("baseTimeNanoseconds") ? TK_BASE
	       : KEY("schemaVersion") ? TK_SCHEMA : KEY("traceName") ? TK_NAME
	       : KEY("displayTimeUnit") ? TK_UNIT : KEY("distributedInfo") ? TK_DIST
	       : KEY("deviceProperties") ? TK_DEV : TK_NONE;
}

static const char *const top_dups[] = {
	[TK_EVENTS] = "one \"traceEvents\" key in the top-level object",
	[TK_BASE] = "one \"baseTimeNanoseconds\" key in the top-level object",
	[TK_SCHEMA] = "one \"schemaVersion\" key in the top-level object",
	[TK_NAME] = "one \"traceName\" key in the top-level object",
	[TK_UNIT] = "one \"displayTimeUnit\" key in the top-level object",
	[TK_DIST] = "one \"distributedInfo\" key in the top-level object",
	[TK_DEV] = "one \"deviceProperties\" key in the top-level object",
};

/* Parses as many units as the buffer holds. Each unit is parsed within
 * r->unit_cap bytes of its start (c.end is moved in), so a unit that is too
 * long is found at the same place however the text arrives. */
static int parse_units(struct rd *r)
{
	struct jcur c;
	const char *real_end = r->buf + r->len;
	for (;;) {
		c.p = r->buf + r->pos;
		c.end = real_end;
		c.st = JS_OK;
		int x = jscan_ws(&c);
		if (x < 0) {
			r->pos = (size_t)(c.p - r->buf);
			return U_MORE;
		}
		r->pos = (size_t)(c.p - r->buf); /* blanks are consumed */
		if (GF_UNLIKELY((size_t)(real_end - c.p) > r->unit_cap))
			c.end = c.p + r->unit_cap;
		int state0 = r->state;
		switch (r->state) {
		case ST_START:
			if (x == 0xef && r->base_off + r->pos == 0) { /* a UTF-8 byte order mark */
				if (c.end - c.p < 3) {
					c.st = JS_MORE;
					break;
				}
				if ((unsigned char)c.p[1] == 0xbb && (unsigned char)c.p[2] == 0xbf) {
					c.p += 3;
					break;
				}
			}
			if (x == '{') {
				r->state = ST_OBJ_FIRST;
			} else if (x == '[') {
				r->bare = true;
				r->kt->meta.is_array = true;
				r->seen_events = true;
				r->state = ST_ARR_FIRST;
			} else {
				jscan_fail(&c, c.p, "'{' or '[' at the start of a trace (a JSON object or array)");
				break;
			}
			c.p++;
			break;
		case ST_OBJ_FIRST:
		case ST_OBJ_KEY:
			if (x == '}' && r->state == ST_OBJ_FIRST) {
				c.p++;
				r->state = ST_DONE;
				break;
			}
			if (x != '"') {
				jscan_fail(&c, c.p, r->state == ST_OBJ_FIRST ? "a key string or '}'" : "a key string");
				break;
			}
			{
				const char *k, *kp = c.p;
				size_t kn;
				int ch;
				if (!read_key(r, &c, &k, &kn, &ch))
					break;
				int tk = top_key_code(k, kn);
				if (tk && (r->top_seen & (1u << tk))) {
					dup_key(&c, kp, top_dups[tk]);
					break;
				}
				if (tk == TK_EVENTS) {
					if (ch != '[') {
						jscan_fail(&c, c.p, "'[' after \"traceEvents\"");
						break;
					}
					c.p++;
					r->seen_events = true;
					r->state = ST_ARR_FIRST;
				} else {
					if (!parse_top_value(r, &c, k, kn, ch))
						break;
					r->state = ST_OBJ_NEXT;
				}
				r->top_seen |= 1u << tk; /* only once the member is read: a retried unit sees it anew */
			}
			break;
		case ST_OBJ_NEXT:
			if (x == ',') {
				r->state = ST_OBJ_KEY;
			} else if (x == '}') {
				r->state = ST_DONE;
			} else {
				jscan_fail(&c, c.p, "',' or '}' after a top-level value");
				break;
			}
			c.p++;
			break;
		case ST_ARR_FIRST:
		case ST_ARR_ITEM:
			if (x == ']') { /* also a trailing comma, which Chrome accepts */
				c.p++;
				r->state = r->bare ? ST_DONE : ST_OBJ_NEXT;
				break;
			}
			if (x != '{') {
				jscan_fail(&c, c.p, "'{' (an event) or ']'");
				break;
			}
			if (GF_UNLIKELY(r->par_ok)) {
				r->par_ok = false;
				int pr = par_run(r, &c);
				if (pr == PAR_STOP)
					return U_STOP;
				if (pr == PAR_RAN)
					break; /* go on from where the chunks stopped */
			}
			{
				struct evtmp t;
				const char *ev_start = c.p;
				if (!parse_event(r, &c, &t))
					break;
				if (!t.has_ph && !r->noph_seen) {
					r->noph_seen = true;
					r->noph_off = r->base_off + (uint64_t)(ev_start - r->buf);
				}
				r->pos = (size_t)(c.p - r->buf);
				r->state = ST_ARR_NEXT;
				if (GF_UNLIKELY(r->pos >= r->next_mark))
					map_step(r);
				int rc = commit_event(r, &t);
				if (rc) {
					r->stop_rc = rc;
					return U_STOP;
				}
			}
			break;
		case ST_ARR_NEXT:
			if (x == ',') {
				r->state = ST_ARR_ITEM;
			} else if (x == ']') {
				r->state = r->bare ? ST_DONE : ST_OBJ_NEXT;
				if (r->par)
					par_end(r);
			} else {
				jscan_fail(&c, c.p, "',' or ']' after an event");
				break;
			}
			c.p++;
			break;
		case ST_DONE:
			jscan_fail(&c, c.p, "end of data after the trace");
			break;
		}
		if (c.st == JS_MORE) {
			if (GF_UNLIKELY(c.end != real_end)) {
				set_limit_err(r, r->buf + r->pos,
					      state0 == ST_ARR_FIRST || state0 == ST_ARR_ITEM ? "an event"
					      : "a top-level member", r->unit_cap, "twice GPUFLAME_MAX_TOKEN");
				return U_ERR;
			}
			return U_MORE;
		}
		if (c.st == JS_ERR) {
			if (c.limit)
				set_limit_err(r, c.err_at, "a string", jscan_token_max(), "GPUFLAME_MAX_TOKEN");
			else
				set_err_got(r, c.err_at, c.what, c.got);
			return U_ERR;
		}
		r->pos = (size_t)(c.p - r->buf);
	}
}

/* Drops the consumed prefix. */
static void compact(struct rd *r)
{
	if (!r->pos)
		return;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->base_off += r->pos;
	r->pos = 0;
	memset(r->buf + r->len, 0, JSCAN_PAD);
}

static int at_eof(struct rd *r)
{
	struct kineto_trace *kt = r->kt;
	if (r->state == ST_START) {
		sbuf_setf(r->err, "'%s': byte %llu: expected a JSON object or array (a trace), got %s", r->fname,
			  (unsigned long long)(r->base_off + r->len), r->base_off + r->len ? "only blanks" : "an empty file");
		return GF_EINPUT;
	}
	if (r->state != ST_DONE) {
		if (!r->seen_events) {
			set_err(r, r->buf + r->len, r->state == ST_OBJ_NEXT ? "',' or '}'" : "a complete top-level value");
			return GF_EINPUT;
		}
		kt->stats.truncated = true;
		kt->stats.truncated_at = r->base_off + r->pos;
	}
	if (!r->seen_events) {
		sbuf_setf(r->err, "'%s': byte %llu: expected a \"traceEvents\" array in the top-level object, got none "
			  "(not a Chrome/Kineto trace)", r->fname, (unsigned long long)(r->base_off + r->len));
		return GF_EINPUT;
	}
	if (kt->stats.events && !r->nph) {
		sbuf_setf(r->err, "'%s': byte %llu: expected trace events with a \"ph\" field, got %llu objects "
			  "without one (not a Chrome/Kineto trace)", r->fname, (unsigned long long)r->noph_off,
			  (unsigned long long)kt->stats.events);
		return GF_EINPUT;
	}
	int64_t a, b, base = kt->meta.base_time_ns;
	if (kt->meta.has_base_time && r->ndeliv &&
	    (__builtin_add_overflow(base, r->ts_min, &a) || __builtin_add_overflow(base, r->end_max, &b))) {
		sbuf_setf(r->err, "'%s': byte %llu: expected a baseTimeNanoseconds that keeps every event's absolute "
			  "time (baseTimeNanoseconds + ts + dur) within int64 nanoseconds, got %lld with events from "
			  "%lld to %lld ns as written", r->fname, (unsigned long long)r->base_at, (long long)base,
			  (long long)r->ts_min, (long long)r->end_max);
		return GF_EINPUT;
	}
	return GF_OK;
}

static void finish_meta(struct rd *r)
{
	struct kineto_trace *kt = r->kt;
	struct kmeta *m = &kt->meta;
	if (r->nts_other)
		m->ts_gen = KTS_RESAVED;
	else if (r->nts_3)
		m->ts_gen = m->has_base_time ? KTS_REL_US_NS : KTS_ABS_US_NS;
	else if (r->nts_int)
		m->ts_gen = m->has_base_time ? KTS_REL_US_NS : KTS_INT_EPOCH_US;
	else
		m->ts_gen = KTS_UNKNOWN;
	for (uint32_t i = 0; i < kt->ntracks; i++) {
		struct idv pid = { r->pv->keys[i].p, UINT32_MAX, r->pv->keys[i].pk };
		for (size_t j = 0; j < r->pv->pids.n; j++) {
			const struct pidmeta *pm = &r->pv->pids.v[j];
			if (pm->p == pid.v && pm->pk == pid.kind) {
				kt->tracks[i].process_name = pm->name;
				kt->tracks[i].process_label = pm->label;
			}
		}
	}
}

static int run(struct rd *r, struct source *src)
{
	struct kineto_trace *kt = r->kt;
	const char *data;
	size_t dlen;
	r->src = src;
	r->next_mark = SIZE_MAX;
	if (r->whole)
		return run_mapped(r, r->whole, r->mem_len);
	if (!r->mem && source_map(src, JSCAN_PAD, MAP_MIN, &data, &dlen))
		return run_mapped(r, data, dlen);
	r->cap = r->mem ? GF_MAX(GF_MIN(r->mem_len, (size_t)4 * CHUNK), (size_t)4096) : 4 * CHUNK;
	r->buf = gf_xmalloc(r->cap + JSCAN_PAD);
	memset(r->buf, 0, JSCAN_PAD);
	for (;;) {
		if (r->len - r->pos >= r->need || r->eof) {
			size_t unit_start = r->pos;
			int u = parse_units(r);
			if (u == U_ERR)
				return r->err_rc;
			if (u == U_STOP)
				return r->stop_rc;
			if (r->eof) {
				finish_meta(r);
				return at_eof(r);
			}
			/* a unit bigger than a chunk: wait for twice as much text */
			size_t avail = r->len - r->pos;
			r->need = avail > CHUNK ? GF_MIN(2 * avail, r->unit_cap + 1) : 0;
			(void)unit_start;
		}
		compact(r);
		if (r->cap - r->len < r->cap / 4) {
			r->cap *= 2;
			r->buf = gf_xrealloc(r->buf, r->cap + JSCAN_PAD);
		}
		size_t n;
		int rc = source_read(src, r->buf + r->len, GF_MIN(r->cap - r->len, (size_t)4 * CHUNK), &n, r->err);
		if (rc)
			return rc;
		r->len += n;
		memset(r->buf + r->len, 0, JSCAN_PAD); /* the sentinel jscan needs */
		kt->stats.bytes_in += n;
		kt->stats.bytes_file = source_file_pos(src);
		if (!n)
			r->eof = true;
		if (r->opts && r->opts->progress && kt->stats.bytes_in >= r->next_progress) {
			r->next_progress = kt->stats.bytes_in + PROGRESS_EVERY;
			r->opts->progress(r->opts->progress_ctx, source_file_pos(src), source_file_size(src));
		}
	}
}

void kineto_init(struct kineto_trace *kt, struct pool *names)
{
	memset(kt, 0, sizeof *kt);
	kt->names = names;
	kt->meta.rank = kt->meta.world_size = KEV_NONE;
	kt->meta.schema_version = KEV_NONE;
	kt->meta.trace_name = UINT32_MAX;
	for (unsigned i = 0; i < 16; i++)
		kt->meta.device_name[i] = UINT32_MAX;
	struct priv *pv = gf_xcalloc(1, sizeof *pv);
	pv->last = UINT32_MAX;
	for (unsigned i = 0; i < 64; i++)
		pv->cc[i].id = UINT32_MAX;
	kt->priv_ = pv;
}

void kineto_release(struct kineto_trace *kt)
{
	struct priv *pv = kt->priv_;
	if (pv) {
		free(pv->keys);
		free(pv->slot);
		free(pv->cat_slot);
		vec_free(&pv->pids);
		free(pv);
	}
	free(kt->tracks);
	free(kt->stats.cat_ids);
	free(kt->stats.cat_events);
	kt->tracks = NULL;
	kt->stats.cat_ids = NULL;
	kt->stats.cat_events = NULL;
	kt->priv_ = NULL;
	kt->ntracks = kt->cap_tracks = 0;
}

static int read_src(struct kineto_trace *kt, struct source *src, const char *fname, const char *path,
		    const void *mem, size_t mem_len, const char *whole, kineto_event_fn fn, void *ctx,
		    const struct kineto_opts *opts, struct sbuf *err)
{
	struct rd r;
	memset(&r, 0, sizeof r);
	r.whole = whole;
	r.path = path;
	r.mem = mem;
	r.mem_len = mem_len;
	r.kt = kt;
	r.pv = kt->priv_;
	r.fname = fname;
	r.fn = fn;
	r.ctx = ctx;
	r.opts = opts;
	r.err = err;
	sbuf_init(&r.scratch, 0);
	r.icache = gf_xcalloc(ICACHE_SIZE, sizeof *r.icache);
	r.err_rc = GF_EINPUT;
	r.unit_cap = 2 * jscan_token_max(); /* at most SIZE_MAX / 2 */
	r.ts_min = INT64_MAX;
	r.end_max = INT64_MIN;
	r.id_empty = pool_intern(kt->names, "", 0);
	r.id_process_name = pool_intern_str(kt->names, "process_name");
	r.id_process_labels = pool_intern_str(kt->names, "process_labels");
	r.id_thread_name = pool_intern_str(kt->names, "thread_name");
	int rc = run(&r, src);
	par_end(&r);
	if (!r.mapped)
		free(r.buf);
	free(r.icache);
	sbuf_release(&r.scratch);
	return rc;
}

int kineto_read(struct kineto_trace *kt, const char *path, kineto_event_fn fn, void *ctx,
		const struct kineto_opts *opts, struct sbuf *err)
{
	struct source *src;
	int rc = source_open(&src, path, opts ? opts->threads : 0, err);
	if (rc)
		return rc;
	kt->stats.compression = source_kind(src);
	rc = read_src(kt, src, source_name(src), path, NULL, 0, NULL, fn, ctx, opts, err);
	source_close(src);
	return rc;
}

int kineto_read_mem(struct kineto_trace *kt, const void *buf, size_t len, const char *fname,
		    kineto_event_fn fn, void *ctx, struct sbuf *err)
{
	return kineto_read_mem_split(kt, buf, len, fname, 0, 0, fn, ctx, err);
}

int kineto_read_mem_split(struct kineto_trace *kt, const void *buf, size_t len, const char *fname, size_t first,
			  size_t chunk, kineto_event_fn fn, void *ctx, struct sbuf *err)
{
	struct source *src;
	int rc = source_open_mem(&src, buf, len, fname, 1, err);
	if (rc)
		return rc;
	source_set_split(src, first, chunk);
	kt->stats.compression = source_kind(src);
	rc = read_src(kt, src, fname, NULL, buf, len, NULL, fn, ctx, NULL, err);
	source_close(src);
	return rc;
}

int kineto_read_mem_whole(struct kineto_trace *kt, const void *buf, size_t len, const char *fname,
			  kineto_event_fn fn, void *ctx, const struct kineto_opts *opts, struct sbuf *err)
{
	struct source *src;
	int rc = source_open_mem(&src, buf, len, fname, 1, err);
	if (rc)
		return rc;
	kt->stats.compression = source_kind(src);
	char *copy = NULL;
	if (source_kind(src) == SOURCE_PLAIN) {
		copy = gf_xmalloc(len + JSCAN_PAD);
		memcpy(copy, buf, len);
		memset(copy + len, 0, JSCAN_PAD);
	}
	rc = read_src(kt, src, fname, NULL, buf, len, copy, fn, ctx, opts, err);
	free(copy);
	source_close(src);
	return rc;
}
