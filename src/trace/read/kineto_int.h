/*
 * kineto_int.h — what the parts of the Kineto reader share: the reader's
 * state (struct rd), an event before it is committed (struct evtmp), the
 * track and category indexes (struct priv, kineto_trace.priv_), the
 * intern cache, and each part's entry points. Private: included only by
 * src/trace/read/kineto*.c (the public API is kineto.h).
 *
 * The parts, in the order the text goes through them (each file's header
 * says what it may touch):
 *   kineto.c         the API; the byte source, the buffer that keeps the
 *                    unfinished tail, a mapped file's pages (kineto_map_step)
 *   kineto_bounds.c  event boundaries: the top-level state machine over the
 *                    container, one unit (event, member, separator) at a time,
 *                    the limits on units, error messages with offset and line
 *   kineto_chunks.c  the event array cut into chunks and parsed on two cores
 *   kineto_schema.c  what each key means for Kineto across versions: event
 *                    keys and args into struct kev, categories into enum kcat,
 *                    top-level members into struct kmeta, the commit of an
 *                    event (kinds, time checks, statistics, the callback)
 *   kineto_tracks.c  the (pid, tid) track index, process metadata
 *   kineto_fields.h  field readers that need this state (interned strings,
 *                    pids and tids, keys); jfast.h the JSON-only fast paths
 *
 * Layer: trace/read (private).
 */
#ifndef GF_KINETO_INT_H
#define GF_KINETO_INT_H

#include "base/sbuf.h"
#include "base/vec.h"
#include "trace/read/jfast.h"
#include "trace/read/jscan.h"
#include "trace/read/kineto.h"

/* A category whose events are classified by name (kineto_schema.c: MTIA's
 * mtia_ccp_events); never an event's kc. */
#define KC_BY_NAME 0xfe

_Static_assert(KEV_NONE == JFAST_NONE, "jfast's absent integer is kineto's");

struct source;
struct par;

#define CHUNK (1u << 20) /* bytes read at a time from a byte source */

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

/* States of the top-level walk (kineto_bounds.c). */
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
	uint32_t id_cpu_functions, id_cuda_functions; /* the legacy autograd profiler's pids */
	int stop_rc;
	struct icent *icache; /* ICACHE_SIZE entries (see intern) */
	/* a mapped file (source_map): buf is the whole file, never written */
	struct source *src;
	bool mapped;
	size_t next_mark;      /* mapped: offset of the next progress/release step, else SIZE_MAX */
	/* reading on two cores (mapped files only; see kineto_chunks_run) */
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
#define TV_NULL JFAST_NULL

/* Fills e->... temporaries of one event before it is committed. */
struct evtmp {
	struct kev e;
	struct idv pid, tid;
	bool has_ph;
	int ts_dec;  /* fraction digits of ts as written, -1 none, 99 other forms */
	int ts_status, dur_status;
};

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

/* What kineto_bounds_units returns. */
enum { U_OK, U_MORE, U_ERR, U_STOP };

/* What kineto_chunks_run returns. */
enum { PAR_NONE, PAR_RAN, PAR_STOP };

/* Top-level keys the reader takes meaning from (a second one is an error). */
enum { TK_NONE = 0, TK_EVENTS, TK_BASE, TK_SCHEMA, TK_NAME, TK_UNIT, TK_DIST, TK_DEV };

/* ---- kineto.c */

/* Mapped file: drops the pages behind the parser, maps those ahead,
 * reports progress (at r->next_mark). */
void kineto_map_step(struct rd *r);

/* ---- kineto_bounds.c */

/* Parses as many units as the buffer holds. @return U_MORE (needs more
 * text), U_ERR (r->err filled, r->err_rc says the code) or U_STOP (the
 * callback's value in r->stop_rc). */
int kineto_bounds_units(struct rd *r);
/* At the end of the text: whether what was read is a trace. @return GF_OK
 * or GF_EINPUT with r->err filled. */
int kineto_bounds_eof(struct rd *r);

/* ---- kineto_chunks.c */

/* Whether the two-core reading may be tried (opts allow it, two CPUs). */
bool kineto_chunks_allowed(const struct kineto_opts *opts);
/* c->p at the first '{' of a long event array of a mapped text: reads on
 * two cores as far as the chunks line up, leaving c->p and r->state where
 * one core goes on. @return PAR_RAN, PAR_STOP or PAR_NONE (nothing done). */
int kineto_chunks_run(struct rd *r, struct jcur *c);
/* Stops and frees the second core's reading, if any. */
void kineto_chunks_end(struct rd *r);

/* ---- kineto_schema.c */

/* c->p at '{': parses one event into t (only the keys kineto.h lists). */
bool kineto_schema_event(struct rd *r, struct jcur *c, struct evtmp *t);
/* Commits a parsed event: kind, time checks, statistics, track, metadata,
 * the callback. @return the callback's value (0 = go on). */
int kineto_schema_commit(struct rd *r, struct evtmp *t);
/* The TK_* code of a top-level key, TK_NONE for keys without meaning. */
int kineto_schema_top_code(const char *k, size_t kn);
/* The message for a second top-level key of code tk ("one ... key"). */
const char *kineto_schema_top_dup(int tk);
/* Reads the value of a top-level member other than traceEvents (tk its
 * code, c->p at the value, ch its first byte) into kt->meta. */
bool kineto_schema_top(struct rd *r, struct jcur *c, int tk, int ch);
/* After the last event: the timestamp generation, process names on tracks. */
void kineto_schema_finish(struct rd *r);

/* ---- kineto_tracks.c */

/* The indexes of a new kineto_trace (its priv_), and their release. */
struct priv *kineto_tracks_new(void);
void kineto_tracks_free(struct priv *pv);
/* The index of the track (pid, tid), added when new. */
uint32_t kineto_tracks_get(struct kineto_trace *kt, struct priv *pv, const struct idv *pid, const struct idv *tid);
/* The metadata of process pid, added when new. */
struct pidmeta *kineto_tracks_pid(struct priv *pv, const struct idv *pid);
/* Copies the process names and labels onto every track of their pid. */
void kineto_tracks_finish(struct rd *r);

#endif
