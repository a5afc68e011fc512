/*
 * kineto_schema.c — what the keys of a Kineto / Chrome trace mean, across
 * profiler versions: the event keys gpuflame reads (ph, cat, name, pid,
 * tid, ts, dur, id, args) and the args it reads (correlation, External id,
 * stream, device, Python ids, bytes, M names and labels) into struct kev,
 * the categories of current, legacy and ROCm traces into enum kcat, the
 * top-level members into struct kmeta, the timestamp generation; and the
 * commit of one event (kind, time checks, statistics, track, metadata,
 * the callback). Kineto writes its keys in a fixed order, which is tried
 * first (see kineto_schema_event). Reads values through jfast.h and
 * kineto_fields.h; touches kt->meta, kt->stats, the record and, through
 * kineto_tracks.c, the tracks.
 *
 * Layer: read (private).
 */
#include "trace/read/kineto_fields.h"

#include "base/names.h"
#include "base/num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The accelerator a category belongs to (KDEV_*), 0 for none. */
const struct kdev_def kdev_defs[KDEV_N] = {
	{ KDEV_CUDA, "cuda_", "CUDA" },
	{ KDEV_HIP, "", "ROCm" }, /* cuda_runtime calls named hip*: kineto_schema_commit */
	{ KDEV_XPU, "xpu_", "XPU" },
	{ KDEV_PRIVATEUSE1, "privateuse1_", "PrivateUse1" },
	{ KDEV_MTIA, "mtia_", "MTIA" },
};

static unsigned dev_of_cat(const char *s, size_t n)
{
	for (size_t i = 0; i < KDEV_N; i++) {
		size_t k = strlen(kdev_defs[i].prefix);
		if (k && n > k && !memcmp(s, kdev_defs[i].prefix, k))
			return kdev_defs[i].bit;
	}
	return 0;
}

/* An event of a KC_BY_NAME category (MTIA's mtia_ccp_events): its name
 * decides (the one classifier, base/names.h). */
static int kc_by_name(const struct rd *r, uint32_t name)
{
	switch (names_device_event(pool_str(r->kt->names, name), pool_len(r->kt->names, name))) {
	case NAMES_DEV_COPY: return KC_GPU_MEMCPY;
	case NAMES_DEV_SYNC: return KC_CUDA_SYNC;
	default: return KC_KERNEL;
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
		/* other accelerators' launches, linked as CUDA's (issue 26) */
		{ "xpu_runtime", KC_CUDA_RUNTIME }, { "xpu_driver", KC_CUDA_DRIVER }, { "xpu_sync", KC_CUDA_SYNC },
		{ "privateuse1_runtime", KC_CUDA_RUNTIME }, { "privateuse1_driver", KC_CUDA_DRIVER },
		{ "mtia_runtime", KC_CUDA_RUNTIME }, { "mtia_ccp_events", KC_BY_NAME },
		{ "ac2g", KC_FLOW }, { "fwdbwd", KC_FLOW }, { "async", KC_FLOW }, { "async_gpu", KC_FLOW },
		{ "async_cpu_to_gpu", KC_FLOW }, { "cpu_to_cuda", KC_FLOW },
		{ "cpu_instant_event", KC_INSTANT },
		{ "Trace", KC_TRACE }, { "overhead", KC_TRACE },
	};
	for (size_t i = 0; i < GF_ARRAY_LEN(tab); i++)
		if (strlen(tab[i].s) == n && !memcmp(tab[i].s, s, n))
			return tab[i].kc;
	return KC_OTHER;
}


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
	e->total_alloc = e->wait_stream = e->wait_corr = e->occupancy = KEV_NONE;
	e->grid[0] = e->block[0] = e->regs = -1;
	e->arg_name = UINT32_MAX;
	e->pg_name = e->pg_desc = e->pg_ranks = e->coll_name = e->dtype = UINT32_MAX;
	e->seq = e->nelems = e->group_size = KEV_NONE;
	e->flags = 0;
	t->pid.kind = t->tid.kind = 2;
	t->pid.v = t->tid.v = 0;
	t->pid.str = t->tid.str = UINT32_MAX;
	t->has_ph = false;
	t->ts_dec = -1;
	t->ts_status = t->dur_status = TV_ABSENT;
}


#define KEY(lit) (kn == sizeof(lit) - 1 && !memcmp(k, lit, sizeof(lit) - 1))

/* The communication args (kev.pg_name ...): the dup bit of key k (9 and up),
 * with *iv set for the integer ones; -1 for any other key. */
static int comm_arg(struct kev *e, const char *k, size_t kn, int64_t **iv)
{
	if (KEY("Process Group Name") || KEY("Process Group ID"))
		return 9;
	if (KEY("Process Group Description") || KEY("Process Group Desc"))
		return 10;
	if (KEY("Process Group Ranks"))
		return 11;
	if (KEY("Collective name"))
		return 12;
	if (KEY("dtype"))
		return 13;
	if (KEY("Seq") || KEY("seq")) {
		*iv = &e->seq;
		return 14;
	}
	if (KEY("In msg nelems")) {
		*iv = &e->nelems;
		return 15;
	}
	if (KEY("Group size")) {
		*iv = &e->group_size;
		return 16;
	}
	return -1;
}

/* The pool id field a text communication arg (dup bit b, 9..13) fills. */
static uint32_t *comm_text(struct kev *e, int b)
{
	switch (b) {
	case 9: return &e->pg_name;
	case 10: return &e->pg_desc;
	case 11: return &e->pg_ranks;
	case 12: return &e->coll_name;
	default: return &e->dtype;
	}
}

static bool parse_args(struct rd *r, struct jcur *c, struct evtmp *t)
{
	static const char *const dups[] = {
		"one \"correlation\" key in \"args\"", "one \"External id\" key in \"args\"",
		"one \"stream\" key in \"args\"", "one \"device\" key in \"args\"",
		"one \"Python id\" key in \"args\"", "one \"Python parent id\" key in \"args\"",
		"one \"Python thread\" key in \"args\"", "one \"bytes\" key in \"args\"",
		"one \"name\" or \"labels\" key in \"args\"",
		"one \"Process Group Name\" or \"Process Group ID\" key in \"args\"",
		"one \"Process Group Description\" or \"Process Group Desc\" key in \"args\"",
		"one \"Process Group Ranks\" key in \"args\"", "one \"Collective name\" key in \"args\"",
		"one \"dtype\" key in \"args\"", "one \"Seq\" or \"seq\" key in \"args\"",
		"one \"In msg nelems\" key in \"args\"", "one \"Group size\" key in \"args\"",
	};
	int64_t tmp;
	struct kev *e = &t->e;
	unsigned seen = 0;
	int in = jfast_obj_enter(c, "a key string or '}' in \"args\"");
	if (in <= 0)
		return in == 0;
	for (;;) {
		const char *k, *kp = c->p;
		size_t kn;
		int ch, b = -1;
		if (!kineto_fields_key(r, c, &k, &kn, &ch))
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
		else if (KEY("Bytes"))
			iv = &e->bytes;
		else if (KEY("Total Allocated"))
			iv = &e->total_alloc;
		else if (KEY("wait_on_stream"))
			iv = &e->wait_stream;
		else if (KEY("wait_on_cuda_event_record_corr_id"))
			iv = &e->wait_corr;
		else if (kn >= 3 && (k[0] == 'P' || k[0] == 'C' || k[0] == 'd' || k[0] == 'S' || k[0] == 's' ||
				     k[0] == 'I' || k[0] == 'G'))
			b = comm_arg(e, k, kn, &iv);
		if (b >= 0 && JFAST_SEEN_TWICE(seen, b))
			return jfast_dup_key(c, kp, dups[b]);
		bool ok;
		if (iv || b == 8)
			ok = iv ? jfast_read_int(c, ch, iv) : kineto_fields_str(r, c, ch, &e->arg_name);
		else if (b > 8)
			ok = kineto_fields_text(r, c, ch, b == 11, comm_text(e, b));
		else if (KEY("grid"))
			ok = kineto_fields_dim3(c, ch, e->grid);
		else if (KEY("block"))
			ok = kineto_fields_dim3(c, ch, e->block);
		else if (KEY("registers per thread")) {
			ok = jfast_read_int(c, ch, &tmp);
			e->regs = tmp >= 0 && tmp <= INT32_MAX ? (int32_t)tmp : -1;
		} else if (KEY("est. achieved occupancy %")) {
			int dec, stt;
			ok = jfast_read_us(c, ch, &e->occupancy, &dec, &stt);
			if (stt != NUM_OK)
				e->occupancy = KEV_NONE;
		} else
			ok = jfast_skip(c, ch, 2);
		if (!ok)
			return false;
		int m = jfast_next_member(c, '}', "',' or '}' in \"args\"");
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

/* The usual spelling of a known event key, `"ph": ` (quote, key, quote,
 * colon, one blank) followed by a non-blank byte, found by its first letter
 * and one 8-byte compare (jfast_key_is). @return the EK_ code, or 0 (c->p
 * unchanged) for anything else, which kineto_fields_key then reads. */
static inline int fast_key(struct jcur *c, int *ch)
{
	switch (c->p[1]) {
	case 'p':
		return jfast_key_is(c, JFAST_LIT6("\"ph\": "), 6, ch)    ? EK_PH
		       : jfast_key_is(c, JFAST_LIT7("\"pid\": "), 7, ch) ? EK_PID : 0;
	case 't':
		return jfast_key_is(c, JFAST_LIT6("\"ts\": "), 6, ch)    ? EK_TS
		       : jfast_key_is(c, JFAST_LIT7("\"tid\": "), 7, ch) ? EK_TID : 0;
	case 'd':
		return jfast_key_is(c, JFAST_LIT7("\"dur\": "), 7, ch) ? EK_DUR : 0;
	case 'c':
		return jfast_key_is(c, JFAST_LIT7("\"cat\": "), 7, ch) ? EK_CAT : 0;
	case 'n':
		return jfast_key_is(c, JFAST_LIT8("\"name\": "), 8, ch) ? EK_NAME : 0;
	case 'a':
		return jfast_key_is(c, JFAST_LIT8("\"args\": "), 8, ch) ? EK_ARGS : 0;
	case 'i':
		return jfast_key_is(c, JFAST_LIT6("\"id\": "), 6, ch) ? EK_ID : 0;
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
		return jfast_skip(c, ch, 1);
	case EK_TS:
		return jfast_read_us(c, ch, &e->ts, &t->ts_dec, &t->ts_status);
	case EK_ID:
		return jfast_read_int(c, ch, &e->id);
	case EK_PID:
		return kineto_fields_idv(r, c, ch, &t->pid);
	case EK_TID:
		return kineto_fields_idv(r, c, ch, &t->tid);
	case EK_DUR:
		return jfast_read_us(c, ch, &e->dur, &dec, &t->dur_status);
	case EK_CAT:
		return kineto_fields_str(r, c, ch, &e->cat);
	case EK_NAME:
		return kineto_fields_str(r, c, ch, &e->name);
	case EK_ARGS:
		return ch == '{' ? parse_args(r, c, t) : jfast_skip(c, ch, 1);
	default:
		return jfast_skip(c, ch, 1);
	}
}

/* One member of the expected key order: the key must be lit, else the
 * general loop takes over at this key (c->p unchanged). The keys of the
 * order are distinct, so only the general loop checks for a second one. */
#define EXPECT(lit, n, code)                                                                \
	do {                                                                                \
		if (!jfast_key_is(c, JFAST_LIT##n(lit), n, &ch))                            \
			goto general;                                                       \
		seen |= 1u << (code);                                                       \
		if (!event_value(r, c, t, code, ch))                                        \
			return false;                                                       \
		int m_ = jfast_next_member(c, '}', "',' or '}' after a value in an event"); \
		if (m_ <= 0)                                                                \
			return m_ == 0;                                                     \
	} while (0)

/*
 * c->p at '{': parses one event into t. Kineto writes its keys in a fixed
 * order — complete events `ph cat name pid tid ts dur args`, flow events
 * `ph id pid tid ts cat name [bp]` — so that order is tried first, one
 * known word per key and no dispatch; at the first other key the general
 * loop goes on from there (any order, any spelling); a key it reads that
 * comes twice is an error at the second one.
 */
bool kineto_schema_event(struct rd *r, struct jcur *c, struct evtmp *t)
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
	int in = jfast_obj_enter(c, "a key string or '}' in an event");
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
			if (!kineto_fields_key(r, c, &k, &kn, &ch))
				return false;
			code = event_key_code(k, kn);
		}
		if (code && JFAST_SEEN_TWICE(seen, code))
			return jfast_dup_key(c, kp, dups[code]);
		if (!event_value(r, c, t, code, ch))
			return false;
		int m = jfast_next_member(c, '}', "',' or '}' after a value in an event");
		if (m < 0)
			return false;
		if (m == 0)
			return true;
	}
}
#undef EXPECT

/* The cache entry of category pool id `id`: its dense index in
 * kt->stats.cat_ids (added when new) and its enum kcat. */
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
	r->kt->meta.dev_kinds |= dev_of_cat(pool_str(r->kt->names, id), pool_len(r->kt->names, id));
	return cc;
}

/*
 * The legacy autograd profiler (PyTorch built without Kineto, e.g. Debian's
 * python3-torch 1.13, or torch.autograd.profiler's EventList export) writes
 * complete events without "cat": host ranges under pid "CPU functions" (tid =
 * the thread), and in older versions GPU kernels under pid "CUDA functions"
 * (tid = the device, no stream). Those become cpu_op and kernel events (the
 * device from the tid); anything else without a cat stays as it was.
 */
static int legacy_kc(struct rd *r, struct evtmp *t)
{
	uint32_t p = t->pid.str;
	if (p == r->id_cpu_functions) {
		r->kt->meta.legacy_events++;
		return KC_CPU_OP;
	}
	if (p == r->id_cuda_functions) {
		r->kt->meta.legacy_events++;
		if (t->e.device == KEV_NONE && t->tid.kind == 0)
			t->e.device = t->tid.v;
		return KC_KERNEL;
	}
	return KC_OTHER;
}

int kineto_schema_commit(struct rd *r, struct evtmp *t)
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
		if (GF_UNLIKELY(kc == KC_BY_NAME))
			kc = kc_by_name(r, e->name);
		else if (kc == KC_CUDA_RUNTIME && !(kt->meta.dev_kinds & KDEV_HIP) &&
			 pool_len(kt->names, e->name) > 3 && !memcmp(pool_str(kt->names, e->name), "hip", 3))
			kt->meta.dev_kinds |= KDEV_HIP;
	} else {
		st->no_cat++;
		if (GF_UNLIKELY(t->pid.kind == 1) && e->ph == 'X')
			kc = legacy_kc(r, t);
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
	e->track = kineto_tracks_get(kt, r->pv, &t->pid, &t->tid);
	if (kc == KC_KERNEL || kc == KC_GPU_MEMCPY || kc == KC_GPU_MEMSET || kc == KC_GPU_USER_ANNOTATION) {
		kt->tracks[e->track].is_device = true;
		kt->tracks[e->track].gpu_work = true;
	} else if (kc == KC_CUDA_SYNC) {
		kt->tracks[e->track].is_device = true;
	}
	if (kc == KC_METADATA) {
		if (e->arg_name != UINT32_MAX) {
			if (e->name == r->id_thread_name)
				kt->tracks[e->track].thread_name = e->arg_name;
			else if (e->name == r->id_process_name)
				kineto_tracks_pid(r->pv, &t->pid)->name = e->arg_name;
			else if (e->name == r->id_process_labels)
				kineto_tracks_pid(r->pv, &t->pid)->label = e->arg_name;
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

int kineto_schema_top_code(const char *k, size_t kn)
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

const char *kineto_schema_top_dup(int tk)
{
	return top_dups[tk];
}

/* One pg_config entry (c->p at '{'): pg_name, pg_desc, pg_size, ranks. */
static bool read_pg(struct rd *r, struct jcur *c, struct kpg *g)
{
	static const char *const dups[] = {
		"one \"pg_name\" key in a \"pg_config\" entry", "one \"pg_desc\" key in a \"pg_config\" entry",
		"one \"pg_size\" key in a \"pg_config\" entry", "one \"ranks\" key in a \"pg_config\" entry",
	};
	g->name = g->desc = g->ranks = UINT32_MAX;
	g->size = KEV_NONE;
	int in = jfast_obj_enter(c, "a key string or '}' in a \"pg_config\" entry");
	if (in <= 0)
		return in == 0;
	unsigned seen = 0;
	for (;;) {
		const char *k, *kp = c->p;
		size_t kn;
		int ch, b = -1;
		if (!kineto_fields_key(r, c, &k, &kn, &ch))
			return false;
		b = KEY("pg_name") ? 0 : KEY("pg_desc") ? 1 : KEY("pg_size") ? 2 : KEY("ranks") ? 3 : -1;
		if (b >= 0 && JFAST_SEEN_TWICE(seen, b))
			return jfast_dup_key(c, kp, dups[b]);
		bool ok = b == 0   ? kineto_fields_text(r, c, ch, false, &g->name)
			  : b == 1 ? kineto_fields_text(r, c, ch, false, &g->desc)
			  : b == 2 ? jfast_read_int(c, ch, &g->size)
			  : b == 3 ? kineto_fields_text(r, c, ch, true, &g->ranks)
				   : jscan_skip(c, 3);
		if (!ok)
			return false;
		int m = jfast_next_member(c, '}', "',' or '}' in a \"pg_config\" entry");
		if (m < 0)
			return false;
		if (m == 0)
			return true;
	}
}

/* distributedInfo.pg_config (c->p at its value): its entries into meta.pgs. */
static bool read_pg_config(struct rd *r, struct jcur *c, int ch)
{
	struct kmeta *m = &r->kt->meta;
	if (ch != '[')
		return jscan_skip(c, 2);
	c->p++;
	int x = jscan_ws(c);
	if (x < 0)
		return false;
	if (x == ']') {
		c->p++;
		return true;
	}
	for (;;) {
		x = jscan_ws(c);
		if (x < 0)
			return false;
		if (x == '{') {
			struct kpg g;
			if (!read_pg(r, c, &g))
				return false;
			if (m->npgs < KMETA_MAX_PGS) {
				m->pgs = gf_xreallocarray(m->pgs, (size_t)m->npgs + 1, sizeof *m->pgs);
				m->pgs[m->npgs++] = g;
			} else {
				m->npgs_dropped++;
			}
		} else if (!jscan_skip(c, 2)) {
			return false;
		}
		x = jscan_ws(c);
		if (x < 0)
			return false;
		c->p++;
		if (x == ']')
			return true;
		if (x != ',')
			return jscan_fail(c, c->p - 1, "',' or ']' in \"pg_config\"");
	}
}

bool kineto_schema_top(struct rd *r, struct jcur *c, int tk, int ch)
{
	struct kmeta *m = &r->kt->meta;
	int64_t v;
	if (tk == TK_BASE) {
		const char *vp = c->p;
		if (!jfast_read_int(c, ch, &v))
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
	if (tk == TK_SCHEMA) {
		if (!jfast_read_int(c, ch, &v))
			return false;
		m->schema_version = v;
		return true;
	}
	if (tk == TK_NAME)
		return kineto_fields_str(r, c, ch, &m->trace_name);
	if (tk == TK_UNIT) {
		uint32_t id = UINT32_MAX;
		if (!kineto_fields_str(r, c, ch, &id))
			return false;
		if (id != UINT32_MAX)
			snprintf(m->display_time_unit, sizeof m->display_time_unit, "%s", pool_str(r->kt->names, id));
		return true;
	}
	if (tk == TK_DIST && ch == '{') {
		int in = jfast_obj_enter(c, "a key string or '}' in \"distributedInfo\"");
		if (in <= 0)
			return in == 0;
		int64_t rank = KEV_NONE, ws = KEV_NONE;
		uint32_t backend = UINT32_MAX;
		unsigned seen = 0;
		for (;;) {
			const char *dk, *kp = c->p;
			size_t dn;
			int dch;
			if (!kineto_fields_key(r, c, &dk, &dn, &dch))
				return false;
			bool ok;
			if (dn == 4 && !memcmp(dk, "rank", 4))
				ok = JFAST_SEEN_TWICE(seen, 0) ? jfast_dup_key(c, kp, "one \"rank\" key in \"distributedInfo\"")
							 : jfast_read_int(c, dch, &rank);
			else if (dn == 10 && !memcmp(dk, "world_size", 10))
				ok = JFAST_SEEN_TWICE(seen, 1) ? jfast_dup_key(c, kp, "one \"world_size\" key in \"distributedInfo\"")
							 : jfast_read_int(c, dch, &ws);
			else if (dn == 7 && !memcmp(dk, "backend", 7))
				ok = JFAST_SEEN_TWICE(seen, 2) ? jfast_dup_key(c, kp, "one \"backend\" key in \"distributedInfo\"")
							 : kineto_fields_str(r, c, dch, &backend);
			else if (dn == 9 && !memcmp(dk, "pg_config", 9))
				ok = JFAST_SEEN_TWICE(seen, 3) ? jfast_dup_key(c, kp, "one \"pg_config\" key in \"distributedInfo\"")
							 : read_pg_config(r, c, dch);
			else
				ok = jscan_skip(c, 2);
			if (!ok)
				return false;
			int nm = jfast_next_member(c, '}', "',' or '}' in \"distributedInfo\"");
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
	if (tk == TK_DEV && ch == '[') {
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
					int in = jfast_obj_enter(c, "a key string in a device");
					if (in < 0)
						return false;
					if (in) {
						unsigned seen = 0;
						for (;;) {
							const char *dk, *kp = c->p;
							size_t dn;
							int dch;
							if (!kineto_fields_key(r, c, &dk, &dn, &dch))
								return false;
							bool isname = dn == 4 && !memcmp(dk, "name", 4);
							if (isname && JFAST_SEEN_TWICE(seen, 0))
								return jfast_dup_key(c, kp, "one \"name\" key in a device");
							bool ok = isname ? kineto_fields_str(r, c, dch, &nm) : jscan_skip(c, 3);
							if (!ok)
								return false;
							int q = jfast_next_member(c, '}', "',' or '}' in a device");
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

void kineto_schema_finish(struct rd *r)
{
	struct kmeta *m = &r->kt->meta;
	if (r->nts_other)
		m->ts_gen = KTS_RESAVED;
	else if (r->nts_3)
		m->ts_gen = m->has_base_time ? KTS_REL_US_NS : KTS_ABS_US_NS;
	else if (r->nts_int)
		m->ts_gen = m->has_base_time ? KTS_REL_US_NS : KTS_INT_EPOCH_US;
	else
		m->ts_gen = KTS_UNKNOWN;
	kineto_tracks_finish(r);
}
