/*
 * kineto.h — stream a PyTorch profiler (Kineto) Chrome-trace into compact
 * event records, one callback per event, without holding the JSON text.
 *
 *   struct kineto_trace kt;
 *   kineto_init(&kt, names);                  // names: shared string pool
 *   if (kineto_read(&kt, "trace.json.gz", on_event, ctx, &opts, &err)) die(err.buf);
 *   ... kt.meta, kt.tracks are filled ...
 *   kineto_release(&kt);
 *
 * Input: plain, gzip or zstd (by magic bytes), "-" for stdin; a JSON object
 * with "traceEvents" anywhere among its keys, or a bare array; a truncated
 * trailing array is read up to its last complete event (kt.stats.truncated).
 * The legacy autograd profiler's export (PyTorch without Kineto: no "cat",
 * pid "CPU functions" / "CUDA functions") is read as cpu_op and kernel
 * events (kt.meta.legacy_events counts them).
 *
 * Times: ts/dur are parsed as decimal text into int64 nanoseconds exactly
 * (integer epoch us, 19-digit absolute us with 3 decimals, relative us,
 * 1-3 decimals after re-saving, exponent forms, quoted numbers). kev.ts is
 * the value *as written* (relative when the trace has baseTimeNanoseconds,
 * which may come after traceEvents): absolute = kt.meta.base_time_ns + ts.
 *
 * Only the keys gpuflame needs are decoded; everything else is skipped by
 * bracket matching. Strings are unescaped (\uXXXX, surrogate pairs; a lone
 * surrogate becomes U+FFFD) and interned in the pool. Every string, skipped
 * or decoded, key or value, must be valid UTF-8 (else an error with the byte
 * offset). NUL bytes and raw control bytes in strings are errors; nesting is
 * limited to 64 levels per value. A key the reader takes meaning from that
 * appears twice in one object (two "traceEvents", two "ts" in an event, ...)
 * is an error at the second one. Bounds (gf_limits, base/limits.h): a string
 * longer than gf_limits.token bytes, or an event / top-level member longer
 * than twice that, is GF_EINTERNAL. Times are checked, never wrapped: a ts
 * or dur that is null, not a number or outside int64 ns (a dur also when
 * ts + dur would be) is counted by reason (kstats.ts_* / dur_*) and, for dur,
 * flagged (KEV_F_DUR_BAD); a baseTimeNanoseconds that is no int64, or that
 * carries some event's base + ts + dur out of int64, is an error. So ts + dur,
 * base + ts and base + ts + dur of every record fit in int64.
 * See docs/trace-reader.md. Implementation: kineto.c and its parts
 * kineto_*.c (listed in the private kineto_int.h), over jscan and jfast.
 *
 * Layer: trace/read. Never prints; errors come back in err as one line:
 *   'trace.json': byte 1048577 (line 3): expected ',' or ']' after event, got '}'
 */
#ifndef GF_KINETO_H
#define GF_KINETO_H

#include "base/gf.h"
#include "base/pool.h"
#include "base/sbuf.h"

#define KEV_NONE INT64_MIN /* an absent integer field */

/* Event category, classified from `cat` (current, legacy and ROCm names). */
enum kcat {
	KC_OTHER = 0,
	KC_CPU_OP,             /* cpu_op, Operator */
	KC_USER_ANNOTATION,    /* user_annotation (ProfilerStep#N, record_function) */
	KC_GPU_USER_ANNOTATION,/* gpu_user_annotation, gpu_user_Annotation */
	KC_PYTHON_FUNCTION,    /* python_function */
	KC_CUDA_RUNTIME,       /* cuda_runtime, Runtime (HIP calls too) */
	KC_CUDA_DRIVER,        /* cuda_driver */
	KC_KERNEL,             /* kernel, Kernel */
	KC_GPU_MEMCPY,         /* gpu_memcpy, Memcpy */
	KC_GPU_MEMSET,         /* gpu_memset, Memset */
	KC_CUDA_SYNC,          /* cuda_sync (GPU-side sync records) */
	KC_FLOW,               /* ac2g, fwdbwd, async, async_gpu, async_cpu_to_gpu */
	KC_INSTANT,            /* cpu_instant_event and other ph:i */
	KC_TRACE,              /* the Trace span, overhead */
	KC_METADATA,           /* ph:M */
	KC_COUNT_
};

/*
 * The accelerators a trace's categories name (kmeta.dev_kinds), each linked
 * the same way (the one category table, kineto_schema.c): runtime calls
 * cuda_runtime (HIP calls too: KDEV_HIP when their names start "hip"),
 * xpu_runtime, privateuse1_runtime, mtia_runtime are KC_CUDA_RUNTIME;
 * cuda_driver, xpu_driver, privateuse1_driver are KC_CUDA_DRIVER; device
 * work is kernel/gpu_memcpy/gpu_memset, or MTIA's mtia_ccp_events, whose
 * name says what it is (names_device_event: a copy, a stream sync, else a
 * kernel).
 */
#define KDEV_CUDA 1u
#define KDEV_HIP 2u
#define KDEV_XPU 4u
#define KDEV_PRIVATEUSE1 8u
#define KDEV_MTIA 16u

/* The accelerator kinds, one row per KDEV_* bit (the reader sets the bit of
 * a category starting with prefix; info, report and their JSON name a kind
 * by its name, trace_device_kind): adding a backend is one row here and its
 * categories' rows in the category table. */
struct kdev_def {
	unsigned bit;       /* KDEV_* */
	const char *prefix; /* "xpu_": its categories ("" for HIP: cuda_runtime calls named hip*) */
	const char *name;   /* "XPU": info's devices.kind, the report's device kind */
};
#define KDEV_N 5
extern const struct kdev_def kdev_defs[KDEV_N];

/* Name of a kcat for reports ("cpu_op", "kernel", ...). */
const char *kcat_name(int kc);

/* A host or device timeline: one (pid, tid) pair as written. */
struct ktrack {
	int64_t pid, tid;          /* numeric value, or KEV_NONE when not numeric */
	uint32_t pid_str, tid_str; /* pool ids of the text when written as strings, else UINT32_MAX */
	uint32_t thread_name;      /* from M thread_name, UINT32_MAX if none */
	uint32_t process_name;     /* from M process_name of its pid, UINT32_MAX if none */
	uint32_t process_label;    /* from M process_labels ("CPU", "GPU 0"), UINT32_MAX */
	bool is_device;            /* carried GPU activities (kernel/memcpy/memset/gpu annotation) or
				    * device sync records (cuda_sync) */
	bool gpu_work;             /* carried kernels, memcpys, memsets or GPU annotations: a stream;
				    * a device track without (Kineto's "stream 7 (sync)" row of Stream
				    * Sync records, tid = stream + KINETO_SYNC_TID_OFFSET) is not */
};

/* Kineto (output_json.cpp, kSyncStreamTidOffset) moves a stream's Stream Sync
 * records to a row of their own, tid = stream + this. */
#define KINETO_SYNC_TID_OFFSET 1000000

/* One event. Integer fields are KEV_NONE when absent. */
struct kev {
	gf_ns ts;                 /* as written, in ns (see above) */
	gf_ns dur;                /* ns; KEV_NONE for events without dur */
	uint32_t name;            /* pool id */
	uint32_t cat;             /* pool id of the raw cat text (UINT32_MAX if none) */
	uint32_t track;           /* index into kt->tracks */
	uint8_t kc;               /* enum kcat */
	char ph;                  /* 'X', 'i', 'M', 's', 'f', ... ('?' if absent) */
	uint8_t flags;            /* KEV_F_* */
	int64_t id;               /* flow id */
	int64_t correlation;      /* args.correlation */
	int64_t external_id;      /* args["External id"] */
	int64_t python_id;        /* args["Python id"] */
	int64_t python_parent_id; /* args["Python parent id"] */
	int64_t python_thread;    /* args["Python thread"] */
	int64_t stream;           /* args.stream */
	int64_t device;           /* args.device */
	int64_t bytes;            /* args.bytes (memcpy/memset), args.Bytes ([memory] events: + allocated,
				   * - freed) */
	int64_t total_alloc;      /* args["Total Allocated"] ([memory] events) */
	int64_t wait_stream;      /* args.wait_on_stream (cuda_sync: the stream an event sync waited on) */
	int64_t wait_corr;        /* args.wait_on_cuda_event_record_corr_id (cuda_sync: the correlation
				   * of the cudaEventRecord it waited for) */
	int64_t occupancy;        /* args["est. achieved occupancy %"] in thousandths of a percent */
	int32_t grid[3], block[3];/* args.grid, args.block (kernels); grid[0] = -1 when absent */
	int32_t regs;             /* args["registers per thread"], -1 when absent */
	uint32_t arg_name;        /* M events: args.name / args.labels text (pool id), else UINT32_MAX */
	/* Communication (record_param_comms cpu_op, and NCCL kernels since 2024;
	 * docs/trace-reader.md): pool ids (UINT32_MAX when absent) and integers
	 * (KEV_NONE). A group written by number ("Process Group ID": 0) or a rank
	 * list written as an array is interned as its compact JSON text ("0",
	 * "[0,1]"); a rank list written as a string ("[0, 1]") loses its blanks. */
	uint32_t pg_name;         /* args["Process Group Name"], or "Process Group ID" */
	uint32_t pg_desc;         /* args["Process Group Description"] / "Process Group Desc" */
	uint32_t pg_ranks;        /* args["Process Group Ranks"], compact: "[0,1]" */
	uint32_t coll_name;       /* args["Collective name"] ("allreduce") */
	uint32_t dtype;           /* args.dtype ("Float") */
	int64_t seq;              /* args.Seq (or seq): the collective's number in its group */
	int64_t nelems;           /* args["In msg nelems"] */
	int64_t group_size;       /* args["Group size"] */
};

/* kev.flags */
#define KEV_F_DUR_BAD 1u     /* a "dur" key was there but is no usable time — null, not a number, or
			      * outside int64 ns (1e400) — so dur is KEV_NONE (counted in
			      * kstats.dur_null / dur_invalid / dur_overflow) */
#define KEV_F_DUR_CLAMPED 2u /* dur was negative and is now 0 (kstats.dur_negative) */

/* Timestamp generation, detected from the text of ts values. */
enum kts_gen {
	KTS_UNKNOWN = 0,
	KTS_INT_EPOCH_US,    /* integer epoch microseconds (Kineto <= 2024-03) */
	KTS_ABS_US_NS,       /* absolute us with 3 decimals (19 digits) */
	KTS_REL_US_NS,       /* relative us + baseTimeNanoseconds (Kineto >= 2024-05) */
	KTS_RESAVED,         /* 1-3 decimals without a fixed width (re-saved by Python) */
};
const char *kts_gen_name(int g);

/* One process group of distributedInfo.pg_config (pool ids, UINT32_MAX when
 * absent; ranks as compact text "[0,1,2]"). */
struct kpg {
	uint32_t name, desc, ranks;
	int64_t size;                /* pg_size, KEV_NONE */
};

#define KMETA_MAX_PGS 65536  /* pg_config entries kept (more are counted in npgs_dropped) */

struct kmeta {
	int64_t rank, world_size;    /* distributedInfo; KEV_NONE when absent */
	struct kpg *pgs;             /* distributedInfo.pg_config, in file order (kineto_release frees) */
	uint32_t npgs, npgs_dropped;
	char backend[32];            /* distributedInfo.backend ("nccl"), "" */
	int64_t base_time_ns;        /* baseTimeNanoseconds, 0 when absent */
	bool has_base_time;
	int64_t schema_version;      /* KEV_NONE when absent */
	char display_time_unit[8];   /* "ms", "ns", "" */
	uint32_t trace_name;         /* pool id, UINT32_MAX when absent */
	unsigned ndevices;           /* deviceProperties entries */
	uint32_t device_name[16];    /* pool ids of the first 16 device names */
	int ts_gen;                  /* enum kts_gen */
	bool is_array;               /* bare array container */
	unsigned dev_kinds;          /* KDEV_*: the accelerators whose runtime, driver or device
				      * event categories the trace holds */
	uint64_t legacy_events;      /* events read as the legacy autograd profiler's (no "cat", pid
				      * "CPU functions": cpu_op; "CUDA functions": kernel, device = tid);
				      * non-zero: a legacy (non-Kineto) trace */
};

struct kstats {
	uint64_t bytes_in;        /* uncompressed JSON bytes read */
	uint64_t bytes_file;      /* bytes read from the file (compressed size) */
	uint64_t events;          /* objects in traceEvents */
	uint64_t by_ph[128];      /* events per ph character */
	uint64_t by_kc[KC_COUNT_];
	uint64_t ts_rounded;      /* ts/dur with sub-ns digits (rounded) */
	uint64_t dur_negative;    /* clamped to 0 (KEV_F_DUR_CLAMPED) */
	/* "dur" present but unusable, by reason (every event, KEV_F_DUR_BAD;
	 * the event is passed on with dur = KEV_NONE): */
	uint64_t dur_null;        /* "dur": null */
	uint64_t dur_invalid;     /* not a number: a string that is no number, true, an object, ... */
	uint64_t dur_overflow;    /* a number outside int64 ns (1e400, -1e300) */
	/* "ts" present but unusable, by reason; events other than ph M are then
	 * skipped (also counted in `skipped`), M events get ts = 0: */
	uint64_t ts_null, ts_invalid, ts_overflow;
	uint64_t skipped;         /* events other than ph M without a usable ts (no "ts" key, or one of
				   * the ts_* above): counted, not passed on */
	bool truncated;           /* the array was cut off; read up to the last whole event */
	uint64_t truncated_at;    /* byte offset of the cut */
	/* Events per raw `cat` string (every event, skipped ones included):
	 * cat_ids[i] is the pool id, cat_events[i] the count; no_cat counts
	 * events without a cat. Freed by kineto_release. */
	uint32_t ncats;
	uint32_t *cat_ids;
	uint64_t *cat_events;
	uint64_t no_cat;
	int compression;          /* enum source_kind: 0 plain, 1 gzip, 2 zstd */
	uint32_t par_chunks;      /* chunks of the event array read on two cores (either core may
				   * take any chunk) */
};

struct kineto_trace {
	struct pool *names;
	struct ktrack *tracks;
	uint32_t ntracks, cap_tracks;
	struct kmeta meta;
	struct kstats stats;
	void *priv_;              /* reader internals (track index) */
};

/* Called once per event in file order. Return non-zero to stop reading
 * (kineto_read then returns that value). The record is only valid during
 * the call. */
typedef int (*kineto_event_fn)(void *ctx, const struct kev *e);

/* Progress: called every few MB with bytes read so far and the file size
 * (0 when unknown, e.g. stdin). */
typedef void (*kineto_progress_fn)(void *ctx, uint64_t done, uint64_t total);

struct kineto_opts {
	kineto_progress_fn progress;
	void *progress_ctx;
	unsigned threads;          /* 0 = auto: inflate (compressed input) or parse half of the
				    * events (plain files of 8 MiB and more) on a second core;
				    * 1 = everything on the caller's thread */
	size_t par_chunk;          /* bytes of text per chunk of the two-core reading (0 = 4 MiB;
				    * tests set it small) */
};

void kineto_init(struct kineto_trace *kt, struct pool *names);
void kineto_release(struct kineto_trace *kt);

/*
 * Reads the trace at path ("-" = stdin), calling fn for each event.
 * @return GF_OK; GF_EINPUT with a one-line message naming the file, the byte
 * offset (and line when known) and what was expected; or fn's non-zero value.
 */
int kineto_read(struct kineto_trace *kt, const char *path, kineto_event_fn fn, void *ctx,
		const struct kineto_opts *opts, struct sbuf *err);

/*
 * Same from a source already open (input/source.h; the input layer hands one
 * over with input_take_source), positioned at its first byte; src is not
 * closed. path is the file the source reads ("-" or NULL: stdin), used only to
 * read it again for the line number of an error.
 */
struct source;
int kineto_read_source(struct kineto_trace *kt, struct source *src, const char *path, kineto_event_fn fn,
		       void *ctx, const struct kineto_opts *opts, struct sbuf *err);

/* Same over a memory buffer (tests, fuzzer). */
int kineto_read_mem(struct kineto_trace *kt, const void *buf, size_t len, const char *fname,
		    kineto_event_fn fn, void *ctx, struct sbuf *err);

/*
 * Same as kineto_read_mem with the text handed to the reader in pieces: the
 * first read returns at most `first` bytes, later ones at most `chunk`
 * (0 = no limit). The records must not depend on where the text is cut;
 * tests and the fuzzer use this to prove it.
 */
int kineto_read_mem_split(struct kineto_trace *kt, const void *buf, size_t len, const char *fname, size_t first,
			  size_t chunk, kineto_event_fn fn, void *ctx, struct sbuf *err);

/*
 * The whole text at once, read as a mapped file is (on two cores when opts
 * allow it and the event array is long enough; see par_chunk). Compressed
 * text is read as kineto_read_mem does. The text needs no padding (it is
 * copied). Tests and the fuzzer compare it with the other readers.
 */
int kineto_read_mem_whole(struct kineto_trace *kt, const void *buf, size_t len, const char *fname,
			  kineto_event_fn fn, void *ctx, const struct kineto_opts *opts, struct sbuf *err);

#endif
