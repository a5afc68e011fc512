/*
 * test_kineto.c — the streaming trace reader (src/trace/read/kineto*.c, jscan.c,
 * jfast.c, src/input/source.c): exact times of every timestamp generation, strings and escapes,
 * pid/tid forms, metadata, truncated arrays, compressed input and errors with
 * offsets. Every input is also read split at every byte boundary and in
 * 1-byte chunks, and must give the same records (or the same error).
 */
#include "t.h"

#include "base/pool.h"
#include "base/sbuf.h"
#include "trace/read/kineto.h"

#include <zlib.h>
#include <zstd.h>

#include <string.h>
#include <unistd.h>

/* Serialises every record (with its strings) so runs can be compared. */
struct rec {
	struct sbuf out;
	struct pool *names;
	int stop_after; /* stop (return 7) after this many events; 0 = never */
	int n;
};

static void add_id(struct sbuf *b, const struct pool *p, uint32_t id)
{
	if (id == UINT32_MAX)
		sbuf_addstr(b, "-");
	else
		sbuf_add(b, pool_str(p, id), pool_len(p, id));
}

static int rec_cb(void *ctx, const struct kev *e)
{
	struct rec *r = ctx;
	struct sbuf *b = &r->out;
	sbuf_addf(b, "%c kc=%d ts=%lld dur=%lld name=", e->ph, e->kc, (long long)e->ts, (long long)e->dur);
	add_id(b, r->names, e->name);
	sbuf_addstr(b, " cat=");
	add_id(b, r->names, e->cat);
	sbuf_addf(b, " track=%u id=%lld corr=%lld ext=%lld py=%lld pp=%lld pt=%lld st=%lld dev=%lld by=%lld arg=",
		  e->track, (long long)e->id, (long long)e->correlation, (long long)e->external_id,
		  (long long)e->python_id, (long long)e->python_parent_id, (long long)e->python_thread,
		  (long long)e->stream, (long long)e->device, (long long)e->bytes);
	add_id(b, r->names, e->arg_name);
	sbuf_addch(b, '\n');
	if (r->stop_after && ++r->n >= r->stop_after)
		return 7;
	return 0;
}

/* One pool for every run (pools allocate 4 MiB blocks; thousands of split
 * runs under ASan would spend their time in page faults). */
static struct pool *g_names;
static struct pool *names(void)
{
	if (!g_names)
		g_names = pool_new();
	return g_names;
}

/* Reads text with the given split; returns rc; fills out with records,
 * tracks, meta and stats (or the error). */
static uint64_t g_whole_par; /* two-core chunks over all run_whole calls */

/* whole = 0: kineto_read_mem_split(first, chunk); 1: kineto_read_mem_whole
 * on one core; 2: the same on two cores in chunks of 16 bytes. */
static int run_read(const void *text, size_t len, int whole, size_t first, size_t chunk, struct sbuf *out)
{
	struct rec r = { SBUF_INIT, names(), 0, 0 };
	struct kineto_trace kt;
	kineto_init(&kt, r.names);
	struct sbuf err = SBUF_INIT;
	struct kineto_opts o = { .threads = whole == 1 ? 1 : 2, .par_chunk = 16 };
	int rc = whole ? kineto_read_mem_whole(&kt, text, len, "t.json", rec_cb, &r, &o, &err)
		       : kineto_read_mem_split(&kt, text, len, "t.json", first, chunk, rec_cb, &r, &err);
	g_whole_par += kt.stats.par_chunks;
	sbuf_reset(out);
	sbuf_add(out, r.out.buf, r.out.len);
	if (rc) {
		sbuf_addf(out, "ERROR %d %s\n", rc, err.buf);
	} else {
		for (uint32_t i = 0; i < kt.ntracks; i++) {
			const struct ktrack *t = &kt.tracks[i];
			sbuf_addf(out, "track %u pid=%lld tid=%lld pid_str=", i, (long long)t->pid, (long long)t->tid);
			add_id(out, r.names, t->pid_str);
			sbuf_addstr(out, " tid_str=");
			add_id(out, r.names, t->tid_str);
			sbuf_addstr(out, " thread=");
			add_id(out, r.names, t->thread_name);
			sbuf_addstr(out, " process=");
			add_id(out, r.names, t->process_name);
			sbuf_addstr(out, " label=");
			add_id(out, r.names, t->process_label);
			sbuf_addf(out, " dev=%d\n", t->is_device);
		}
		const struct kmeta *m = &kt.meta;
		sbuf_addf(out, "meta rank=%lld ws=%lld backend=%s base=%lld has=%d schema=%lld unit=%s ndev=%u gen=%d arr=%d name=",
			  (long long)m->rank, (long long)m->world_size, m->backend, (long long)m->base_time_ns,
			  m->has_base_time, (long long)m->schema_version, m->display_time_unit, m->ndevices, m->ts_gen,
			  m->is_array);
		add_id(out, r.names, m->trace_name);
		sbuf_addstr(out, " dev0=");
		add_id(out, r.names, m->device_name[0]);
		const struct kstats *st = &kt.stats;
		sbuf_addf(out, "\nstats events=%llu X=%llu M=%llu rounded=%llu neg=%llu skipped=%llu trunc=%d at=%llu nocat=%llu ncats=%u\n",
			  (unsigned long long)st->events, (unsigned long long)st->by_ph['X'],
			  (unsigned long long)st->by_ph['M'], (unsigned long long)st->ts_rounded,
			  (unsigned long long)st->dur_negative, (unsigned long long)st->skipped, st->truncated,
			  (unsigned long long)st->truncated_at, (unsigned long long)st->no_cat, st->ncats);
	}
	kineto_release(&kt);
	sbuf_release(&r.out);
	sbuf_release(&err);
	return rc;
}

static int run_split(const void *text, size_t len, size_t first, size_t chunk, struct sbuf *out)
{
	return run_read(text, len, 0, first, chunk, out);
}

/* Reads whole, then split at every byte and in 1-byte chunks, then whole as
 * a mapped file is read, on one core and on two: all identical.
 * @return rc of the whole read; whole output in out. */
static int read_all_ways(const char *text, size_t len, struct sbuf *out)
{
	int rc = run_split(text, len, 0, 0, out);
	struct sbuf o2 = SBUF_INIT;
	for (size_t k = 1; k < len; k++) {
		int rc2 = run_split(text, len, k, 0, &o2);
		if (rc2 != rc || o2.len != out->len || memcmp(o2.buf, out->buf, out->len)) {
			fprintf(stderr, "---- split:\n%s---- whole:\n%s----\n", o2.buf, out->buf);
			T_FAIL_("split at byte %zu differs (outputs on stderr)", k);
			break;
		}
	}
	int rc3 = run_split(text, len, 1, 1, &o2);
	if (rc3 != rc || o2.len != out->len || memcmp(o2.buf, out->buf, out->len))
	{
		fprintf(stderr, "---- 1-byte:\n%s---- whole:\n%s----\n", o2.buf, out->buf);
		T_FAIL_("1-byte chunks differ (outputs on stderr)");
	}
	for (int w = 1; w <= 2; w++) {
		int rc4 = run_read(text, len, w, 0, 0, &o2);
		if (rc4 != rc || o2.len != out->len || memcmp(o2.buf, out->buf, out->len)) {
			fprintf(stderr, "---- whole, %d core(s):\n%s---- streamed:\n%s----\n", w, o2.buf, out->buf);
			T_FAIL_("the whole-text read on %d core(s) differs (outputs on stderr)", w);
		}
	}
	sbuf_release(&o2);
	return rc;
}

static bool has(const struct sbuf *b, const char *needle)
{
	return strstr(b->buf, needle) != NULL;
}

#define T_HAS(b, s) do { if (!has(b, s)) { fprintf(stderr, "---- output:\n%s----\n", (b)->buf); \
		T_FAIL_("missing \"%.200s\" (output on stderr)", s); } } while (0)
#define RUN(text) read_all_ways(text, strlen(text), &out)

T_TEST(test_kineto__int_epoch_us)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
		     "\"tid\": 2, \"ts\": 1698438996453838, \"dur\": 12478}]}");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "X kc=1 ts=1698438996453838000 dur=12478000 name=aten::mm cat=cpu_op");
	T_HAS(&out, "gen=1");
	sbuf_release(&out);
}

/* 16 integer digits take the one-pass number path; its edges (the largest
 * value it may take, one past it, 17 digits, negative, pid/tid) must give
 * what the general path gives. */
T_TEST(test_kineto__sixteen_digit_edges)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1234567890123456, \"tid\": -1234567890123456, "
		     "\"ts\": 9223372036854774.999, \"dur\": 9999999999999999},\n"
		     "{\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 9223372036854775, \"dur\": 1},\n"
		     "{\"ph\": \"X\", \"name\": \"c\", \"pid\": 1, \"tid\": 1, \"ts\": 9223372036854775.808, \"dur\": 1},\n"
		     "{\"ph\": \"X\", \"name\": \"d\", \"pid\": 1, \"tid\": 1, \"ts\": 12345678901234567, \"dur\": 1},\n"
		     "{\"ph\": \"X\", \"name\": \"e\", \"pid\": 1, \"tid\": 1, \"ts\": -1000000000000000.5, \"dur\": 1},\n"
		     "{\"ph\": \"X\", \"name\": \"f\", \"pid\": 1, \"tid\": 1, \"ts\": 0000000000000001, \"dur\": 1}]");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "ts=9223372036854774999 dur=-9223372036854775808 name=a"); /* dur does not fit in int64 ns: unknown */
	T_HAS(&out, "pid=1234567890123456 tid=-1234567890123456");
	/* ts + dur past int64 ns: dur out of range, unknown (counted, flagged) */
	T_HAS(&out, "ts=9223372036854775000 dur=-9223372036854775808 name=b");
	T_HAS(&out, "ts=-1000000000000000500 dur=1000 name=e");
	T_HAS(&out, "ts=1000 dur=1000 name=f");
	T_EQ_I64(has(&out, "name=c"), 0); /* one past int64 ns */
	T_EQ_I64(has(&out, "name=d"), 0); /* 17 digits: 1.2e19 ns */
	sbuf_release(&out);
	/* 19-digit times whose last decimal is 0, plain or quoted: still the
	 * absolute 3-decimal generation (decimals as written, not significant) */
	rc = RUN("[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1712195495541300.980, \"dur\": 1.000},\n"
		 "{\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": \"1712195495541301.900\", \"dur\": 1.000}]");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "ts=1712195495541300980 dur=1000 name=a");
	T_HAS(&out, "ts=1712195495541301900 dur=1000 name=b");
	T_HAS(&out, "gen=2");
	sbuf_release(&out);
}

T_TEST(test_kineto__abs_19_digits)
{
	struct sbuf out = SBUF_INIT;
	/* a double cannot hold these: 19 significant digits */
	int rc = RUN("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
		     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
		     "\"ts\": 1712195495541300.987, \"dur\": 1.003},\n"
		     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
		     "\"ts\": 1712195495541300.989, \"dur\": 0.001},\n"
		     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
		     "\"ts\": 9223372036854775.807, \"dur\": 0.000}]}");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "ts=1712195495541300987 dur=1003 ");
	T_HAS(&out, "ts=1712195495541300989 dur=1 ");
	T_HAS(&out, "ts=9223372036854775807 dur=0 ");
	T_HAS(&out, "gen=2");
	T_HAS(&out, "unit=ns");
	sbuf_release(&out);
}

T_TEST(test_kineto__relative_base_after_events)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", "
		     "\"pid\": 1, \"tid\": 1, \"ts\": 1419247332972.318, \"dur\": 0.020}], "
		     "\"baseTimeNanoseconds\": 1735632360000000000, \"traceName\": \"/tmp/x.json\"}");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "ts=1419247332972318 dur=20 ");
	T_HAS(&out, "base=1735632360000000000 has=1 schema=1");
	T_HAS(&out, "gen=3");
	T_HAS(&out, "name=/tmp/x.json");
	sbuf_release(&out);
}

T_TEST(test_kineto__resaved_exp_quoted)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1419247332972.3,\"dur\":\"12.5\"},"
		     "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1.5e3,\"dur\":2E-3},"
		     "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":\"7\",\"dur\":-3},"
		     "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":0.0004,\"dur\":1.23456},"
		     "{\"ph\":\"X\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":123456789012345678901234567890}]");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "ts=1419247332972300 dur=12500 name=a");
	T_HAS(&out, "ts=1500000 dur=2 name=b");
	T_HAS(&out, "ts=7000 dur=0 name=c"); /* negative dur clamped */
	T_HAS(&out, "ts=0 dur=1235 name=d"); /* rounded half away from zero */
	T_HAS(&out, "gen=4");
	T_HAS(&out, "arr=1");
	T_HAS(&out, "rounded=2 neg=1 skipped=1"); /* e's ts does not fit in int64 ns */
	sbuf_release(&out);
}

T_TEST(test_kineto__strings_escapes)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,"
		     "\"name\":\"a\\\"b\\\\c\\/\\u00e9\\ud83d\\ude00|\\ud800x|\\udc00|\\n\\t\xc3\xa9\"}]");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "name=a\"b\\c/\xc3\xa9\xf0\x9f\x98\x80|\xef\xbf\xbdx|\xef\xbf\xbd|\n\t\xc3\xa9 cat=-");
	sbuf_release(&out);
}

T_TEST(test_kineto__long_name)
{
	struct sbuf text = SBUF_INIT, out = SBUF_INIT;
	sbuf_addstr(&text, "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":0,\"tid\":7,\"cat\":\"kernel\",\"name\":\"void k<");
	for (int i = 0; i < 700; i++)
		sbuf_addstr(&text, "int, \\\"x\\\"");
	sbuf_addstr(&text, ">()\"}]");
	/* every split of a 7 kB text: 7000 reads, fine */
	int rc = read_all_ways(text.buf, text.len, &out);
	T_EQ_I64(rc, 0);
	const char *nm = strstr(out.buf, "name=void k<");
	T_TRUE(nm != NULL);
	if (nm) {
		const char *e = strstr(nm, " cat=kernel");
		T_TRUE(e && e - nm - 5 == 7 + 700 * 8 + 3);
	}
	sbuf_release(&text);
	sbuf_release(&out);
}

T_TEST(test_kineto__huge_values)
{
	/* a 3 MB top-level value and a 3 MB name, fed in 64 KiB pieces: the
	 * unit is retried with geometrically more text, and the result is exact */
	struct sbuf t = SBUF_INIT, out = SBUF_INIT;
	sbuf_addstr(&t, "{\"metadata\": {\"blob\": \"");
	for (int i = 0; i < 3 << 20; i++)
		sbuf_addch(&t, 'a' + i % 26);
	sbuf_addstr(&t, "\"}, \"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"name\": \"");
	for (int i = 0; i < 3 << 20; i++)
		sbuf_addch(&t, 'a' + i % 26);
	sbuf_addstr(&t, "\"}]}");
	int rc = run_split(t.buf, t.len, 65536, 65536, &out);
	T_EQ_I64(rc, 0);
	T_HAS(&out, "events=1 ");
	const char *nm = strstr(out.buf, "name=abc");
	const char *e = nm ? strstr(nm, " cat=-") : NULL;
	T_TRUE(nm && e && e - nm - 5 == 3 << 20);
	sbuf_release(&t);
	sbuf_release(&out);
}

T_TEST(test_kineto__pid_tid_forms)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("{\"traceEvents\":[\n"
		     "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"ts\":1,\"dur\":9},\n"
		     "{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":2,\"dur\":1,\"args\":{\"correlation\":5,\"stream\":7,\"device\":0}},\n"
		     "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"op\",\"pid\":25738,\"tid\":\"25738\",\"ts\":2,\"dur\":1},\n"
		     "{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"op2\",\"pid\":25738,\"tid\":25738,\"ts\":3,\"dur\":1},\n"
		     "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Event Sync\",\"pid\":0,\"tid\":-1,\"ts\":3,\"dur\":1},\n"
		     "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\",\"ts\":4}\n"
		     "]}");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "track 0 pid=-9223372036854775808 tid=-9223372036854775808 pid_str=Spans tid_str=PyTorch Profiler");
	T_HAS(&out, "track 1 pid=0 tid=-9223372036854775808 pid_str=- tid_str=stream 7 thread=- process=- label=- dev=1");
	T_HAS(&out, "track 2 pid=25738 tid=25738 pid_str=- tid_str=25738");
	T_TRUE(!has(&out, "track 3 pid=25738")); /* "25738" and 25738 are one thread */
	T_HAS(&out, "track 3 pid=0 tid=-1 ");
	T_HAS(&out, "track 4 pid=-9223372036854775808 tid=-9223372036854775808 pid_str= tid_str= ");
	T_HAS(&out, "kc=7 ts=2000 dur=1000 name=k cat=Kernel track=1 id=-9223372036854775808 corr=5 ");
	T_HAS(&out, "kc=1 ts=3000 dur=1000 name=op2 cat=Operator track=2");
	T_HAS(&out, "i kc=12 ts=4000");
	sbuf_release(&out);
}

/* The legacy autograd profiler's export (no cat; pid "CPU functions" /
 * "CUDA functions"): cpu_op and kernel on device = tid; other cat-less
 * events, and events with a cat, are read as before (docs/trace-reader.md). */
T_TEST(test_kineto__legacy_autograd)
{
	struct sbuf out = SBUF_INIT;
	static const char text[] =
		"[{\"name\": \"ProfilerStep#1\", \"ph\": \"X\", \"ts\": 10, \"dur\": 50, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}, "
		"{\"name\": \"aten::mm\", \"ph\": \"s\", \"ts\": 12, \"tid\": 1, \"pid\": \"CPU functions\", \"id\": 0, \"cat\": \"cpu_to_cuda\", \"args\": {}}, "
		"{\"name\": \"gemm\", \"ph\": \"X\", \"ts\": 20, \"dur\": 15, \"tid\": 3, \"pid\": \"CUDA functions\", \"args\": {}}, "
		"{\"name\": \"k2\", \"ph\": \"X\", \"ts\": 21, \"dur\": 1, \"tid\": 3, \"pid\": \"CUDA functions\", \"args\": {\"device\": 5}}, "
		"{\"name\": \"nocat\", \"ph\": \"X\", \"ts\": 22, \"dur\": 1, \"tid\": 1, \"pid\": \"Other functions\"}, "
		"{\"name\": \"withcat\", \"ph\": \"X\", \"cat\": \"python_function\", \"ts\": 23, \"dur\": 1, \"tid\": 1, \"pid\": \"CPU functions\"}, "
		"{\"name\": \"inst\", \"ph\": \"i\", \"ts\": 24, \"tid\": 1, \"pid\": \"CPU functions\"}]";
	int rc = RUN(text);
	T_EQ_I64(rc, 0);
	T_HAS(&out, "X kc=1 ts=10000 dur=50000 name=ProfilerStep#1 cat=- ");
	T_HAS(&out, "s kc=11 ts=12000 ");
	T_HAS(&out, "X kc=7 ts=20000 dur=15000 name=gemm cat=- track=1 ");
	T_HAS(&out, "st=-9223372036854775808 dev=3 ");
	T_HAS(&out, "X kc=7 ts=21000 dur=1000 name=k2 cat=- track=1 ");
	T_HAS(&out, "st=-9223372036854775808 dev=5 ");
	T_HAS(&out, "X kc=0 ts=22000 dur=1000 name=nocat ");
	T_HAS(&out, "X kc=4 ts=23000 dur=1000 name=withcat ");
	T_HAS(&out, "i kc=12 ts=24000 ");
	sbuf_release(&out);
	struct kineto_trace kt;
	kineto_init(&kt, names());
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(kineto_read_mem(&kt, text, sizeof text - 1, "t", NULL, NULL, &err), 0);
	T_EQ_I64((int64_t)kt.meta.legacy_events, 3);
	kineto_release(&kt);
	static const char kin[] = "{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1}]}";
	kineto_init(&kt, names());
	T_EQ_I64(kineto_read_mem(&kt, kin, sizeof kin - 1, "t", NULL, NULL, &err), 0);
	T_EQ_I64((int64_t)kt.meta.legacy_events, 0);
	kineto_release(&kt);
	sbuf_release(&err);
}

T_TEST(test_kineto__metadata_and_args)
{
	struct sbuf out = SBUF_INIT;
	int rc = RUN("{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100\", \"totalGlobalMem\": 1}, "
		     "{\"id\": 1, \"name\": \"\"}], \"metadata\": {\"a\": [1, {\"b\": \"]}\"}]},\n"
		     "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"pg_config\": [{\"ranks\": [0, 1]}], "
		     "\"world_size\": 8},\n"
		     "\"traceEvents\": [\n"
		     "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
		     "{\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 0, \"args\": {\"labels\": \"GPU 0\"}},\n"
		     "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 7, \"tid\": 8, \"args\": {\"name\": \"thread 8 (python3)\"}},\n"
		     "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): g\", \"pid\": 7, \"tid\": 8, \"ts\": 5, \"dur\": 2,\n"
		     "  \"args\": {\"Python parent id\": null, \"Python id\": 12, \"Python thread\": 0, \"Ev Idx\": 4}},\n"
		     "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH\", \"pid\": 0, \"tid\": 7, \"ts\": 6, \"dur\": 1,\n"
		     "  \"args\": {\"External id\": 3, \"device\": 0, \"stream\": 7, \"correlation\": 44, \"bytes\": \"256\", "
		     "\"grid\": [1, 1, 1], \"x\": true, \"y\": false, \"z\": -1.5e2}},\n"
		     "{\"ph\": \"s\", \"id\": 44, \"pid\": 7, \"tid\": 8, \"ts\": 5, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n"
		     "{\"ph\": \"X\", \"cat\": \"x\", \"name\": \"no ts\", \"pid\": 7, \"tid\": 8}\n"
		     "]}");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "M kc=14 ts=0 dur=-9223372036854775808 name=thread_name cat=- track=");
	T_HAS(&out, "arg=thread 8 (python3)");
	T_HAS(&out, "name=f.py(1): g cat=python_function");
	T_HAS(&out, "py=12 pp=-9223372036854775808 pt=0 ");
	T_HAS(&out, "ext=3 py=-9223372036854775808 pp=-9223372036854775808 pt=-9223372036854775808 st=7 dev=0 by=256");
	T_HAS(&out, "s kc=11 ts=5000 dur=-9223372036854775808 name=ac2g cat=ac2g track=2 id=44");
	T_HAS(&out, "pid=7 tid=8 pid_str=- tid_str=- thread=thread 8 (python3) process=python3 label=- dev=0");
	T_HAS(&out, "pid=0 tid=7 pid_str=- tid_str=- thread=- process=- label=GPU 0 dev=1");
	T_HAS(&out, "meta rank=3 ws=8 backend=nccl");
	T_HAS(&out, "ndev=2");
	T_HAS(&out, "dev0=NVIDIA H100");
	T_HAS(&out, "skipped=1");
	T_TRUE(!has(&out, "no ts"));
	sbuf_release(&out);
}

T_TEST(test_kineto__truncated_array)
{
	struct sbuf out = SBUF_INIT;
	/* speedscope's simple-partial-trailing-comma.json shape */
	int rc = RUN("[\n  {\"pid\": 0, \"tid\": 0, \"ph\": \"B\", \"name\": \"alpha\", \"ts\": 0},\n"
		     "  {\"pid\": 0, \"tid\": 0, \"ph\": \"E\", \"name\": \"alpha\", \"ts\": 14},\n");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "E kc=0 ts=14000");
	T_HAS(&out, "events=2 ");
	T_HAS(&out, "trunc=1 at=");
	rc = RUN("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": \"a\"}, {\"ph\": \"X\", \"ts\": 2, \"na");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "events=1 ");
	T_HAS(&out, "trunc=1 at=62");
	/* a UTF-8 byte order mark is skipped */
	rc = RUN("\xef\xbb\xbf[{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": \"a\"}]");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "events=1 ");
	/* a trailing comma before ']' is accepted, as Chrome does */
	rc = RUN("[{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"name\": \"a\"},]");
	T_EQ_I64(rc, 0);
	T_HAS(&out, "events=1 ");
	T_HAS(&out, "trunc=0");
	sbuf_release(&out);
}

T_TEST(test_kineto__callback_stop)
{
	const char *text = "[{\"ph\":\"X\",\"ts\":1,\"name\":\"a\"},{\"ph\":\"X\",\"ts\":2,\"name\":\"b\"},{\"ph\":\"X\",\"ts\":3,\"name\":\"c\"}]";
	struct rec r = { SBUF_INIT, pool_new(), 2, 0 };
	struct kineto_trace kt;
	kineto_init(&kt, r.names);
	struct sbuf err = SBUF_INIT;
	int rc = kineto_read_mem(&kt, text, strlen(text), "t", rec_cb, &r, &err);
	T_EQ_I64(rc, 7);
	T_EQ_I64(r.n, 2);
	kineto_release(&kt);
	pool_free(r.names);
	sbuf_release(&r.out);
	sbuf_release(&err);
}

/* Expects an error containing each needle (whole and split reads agree). */
static void expect_error(const char *text, size_t len, const char *n1, const char *n2)
{
	struct sbuf out = SBUF_INIT;
	int rc = read_all_ways(text, len, &out);
	T_EQ_I64(rc, -1);
	T_HAS(&out, "ERROR -1 't.json': ");
	if (n1)
		T_HAS(&out, n1);
	if (n2)
		T_HAS(&out, n2);
	const char *e = strstr(out.buf, "ERROR");
	if (e && strchr(e, '\n') != out.buf + out.len - 1)
		T_FAIL_("error is not one line: %.300s", e);
	sbuf_release(&out);
}

#define EXPECT_ERR(lit, n1, n2) expect_error(lit, sizeof(lit) - 1, n1, n2)

T_TEST(test_kineto__errors)
{
	EXPECT_ERR("", "byte 0: expected a JSON object or array (a trace), got an empty file", NULL);
	EXPECT_ERR("  \n ", "byte 4: expected a JSON object or array", "only blanks");
	EXPECT_ERR("hello", "byte 0 (line 1): expected '{' or '['", "got 'h'");
	EXPECT_ERR("{\"a\": 1, \"b\": [1, 2]}", "expected a \"traceEvents\" array", "not a Chrome/Kineto trace");
	EXPECT_ERR("[{\"file\": \"x.json.gz\", \"batch_size\": 32}]", "byte 1: expected trace events with a \"ph\"",
		     NULL);
	EXPECT_ERR("{\"traceEvents\": [\n{\"ph\": \"X\" \"ts\": 1}]}", "byte 29 (line 2): expected ',' or '}' after a value in an event",
		     "got '\"'");
	EXPECT_ERR("{\"traceEvents\": [\n1, 2]}", "byte 18 (line 2): expected '{' (an event) or ']'", "got '1'");
	EXPECT_ERR("{\"traceEvents\": {}}", "byte 16 (line 1): expected '[' after \"traceEvents\"", NULL);
	/* NUL inside a string, NUL between values */
	EXPECT_ERR("[{\"ph\": \"X\", \"name\": \"a\0b\", \"ts\": 1}]", "byte 23 (line 1): expected no NUL byte inside a string",
		     "got byte 0x00");
	EXPECT_ERR("[{\"ph\": \"X\",\0 \"ts\": 1}]", "byte 12 (line 1): expected a key string", NULL);
	EXPECT_ERR("[{\"ph\": \"X\", \"args\": {\"a\": [1, \0]}, \"ts\": 1}]", "byte 31", "no NUL byte");
	/* invalid UTF-8 in a decoded string (names are decoded), with its offset */
	EXPECT_ERR("[{\"ph\": \"X\",\n \"name\": \"ab\xff\", \"ts\": 1}]", "byte 25 (line 2): expected valid UTF-8",
		     "got byte 0xff");
	EXPECT_ERR("[{\"ph\": \"X\", \"name\": \"\xc0\xaf\", \"ts\": 1}]", "expected valid UTF-8", NULL);
	EXPECT_ERR("[{\"ph\": \"X\", \"name\": \"\\x\", \"ts\": 1}]", "byte 22 (line 1): expected a valid escape", NULL);
	EXPECT_ERR("[{\"ph\": \"X\", \"name\": \"\\u12g4\", \"ts\": 1}]", "four hex digits", NULL);
	/* raw control character in a string */
	EXPECT_ERR("[{\"ph\": \"X\", \"name\": \"a\tb\", \"ts\": 1}]", "raw control characters", NULL);
	/* mismatched brackets in a skipped value */
	EXPECT_ERR("[{\"ph\": \"X\", \"args\": {\"a\": [1, 2}}, \"ts\": 1}]", "byte 32 (line 1): expected ']'", NULL);
	/* garbage after the trace */
	EXPECT_ERR("[{\"ph\": \"X\", \"ts\": 1}] x", "byte 23 (line 1): expected end of data after the trace", NULL);
	/* a truncated object before traceEvents is an error, not a truncation */
	EXPECT_ERR("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\"", "expected a complete top-level value",
		     "end of data");
}

T_TEST(test_kineto__deep_nesting)
{
	struct sbuf t = SBUF_INIT;
	sbuf_addstr(&t, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": ");
	for (int i = 0; i < 100; i++)
		sbuf_addch(&t, '[');
	for (int i = 0; i < 100; i++)
		sbuf_addch(&t, ']');
	sbuf_addstr(&t, "}}]}");
	expect_error(t.buf, t.len, "expected nesting no deeper than 64 levels", "got '['");
	/* 60 levels are fine */
	sbuf_reset(&t);
	sbuf_addstr(&t, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": ");
	for (int i = 0; i < 60; i++)
		sbuf_addch(&t, '[');
	for (int i = 0; i < 60; i++)
		sbuf_addch(&t, ']');
	sbuf_addstr(&t, "}}]}");
	struct sbuf out = SBUF_INIT;
	T_EQ_I64(run_split(t.buf, t.len, 0, 0, &out), 0);
	sbuf_release(&out);
	sbuf_release(&t);
}

static const char sample[] =
	"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7, \"ts\": 1.5, \"dur\": 2},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7, \"ts\": 4, \"dur\": 2}]}\n";

static size_t gz(const void *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	size_t k = z.total_out;
	deflateEnd(&z);
	return k;
}

T_TEST(test_kineto__compressed)
{
	unsigned char buf[4096];
	struct sbuf plain = SBUF_INIT, out = SBUF_INIT;
	T_EQ_I64(run_split(sample, strlen(sample), 0, 0, &plain), 0);
	size_t n = gz(sample, strlen(sample), buf, sizeof buf);
	T_EQ_I64(run_split(buf, n, 0, 0, &out), 0);
	T_EQ_STR(out.buf, plain.buf);
	T_EQ_I64(run_split(buf, n, 3, 5, &out), 0);
	T_EQ_STR(out.buf, plain.buf);
	/* truncated gzip: error naming the compressed byte offset */
	T_EQ_I64(run_split(buf, n - 10, 0, 0, &out), -1);
	T_HAS(&out, "'t.json': byte ");
	T_HAS(&out, "truncated gzip data");
	/* multi-member gzip: the text split in two members */
	size_t half = strlen(sample) / 2;
	size_t n1 = gz(sample, half, buf, sizeof buf);
	size_t n2 = gz(sample + half, strlen(sample) - half, buf + n1, sizeof buf - n1);
	T_EQ_I64(run_split(buf, n1 + n2, 0, 0, &out), 0);
	T_EQ_STR(out.buf, plain.buf);
	/* corrupt gzip */
	n = gz(sample, strlen(sample), buf, sizeof buf);
	buf[12] ^= 0xff;
	buf[13] ^= 0xff;
	T_EQ_I64(run_split(buf, n, 0, 0, &out), -1);
	T_HAS(&out, "gzip data");
	/* zstd, then truncated zstd */
	size_t zn = ZSTD_compress(buf, sizeof buf, sample, strlen(sample), 3);
	T_TRUE(!ZSTD_isError(zn));
	T_EQ_I64(run_split(buf, zn, 0, 0, &out), 0);
	T_EQ_STR(out.buf, plain.buf);
	T_EQ_I64(run_split(buf, zn - 3, 0, 0, &out), -1);
	T_HAS(&out, "truncated zstd data");
	sbuf_release(&plain);
	sbuf_release(&out);
}

T_TEST(test_kineto__read_file)
{
	char path[] = "/tmp/test_kineto_XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	FILE *fp = fdopen(fd, "w");
	fputs(sample, fp);
	fclose(fp);
	struct rec r = { SBUF_INIT, pool_new(), 0, 0 };
	struct kineto_trace kt;
	kineto_init(&kt, r.names);
	struct sbuf err = SBUF_INIT;
	for (unsigned th = 0; th < 2; th++) {
		int rc = kineto_read(&kt, path, rec_cb, &r, &(struct kineto_opts){ .threads = th }, &err);
		T_EQ_I64(rc, 0);
	}
	T_TRUE(has(&r.out, "ts=1500 dur=2000 name=k1"));
	T_EQ_I64(kt.stats.bytes_in, 2 * strlen(sample));
	int rc = kineto_read(&kt, "/nonexistent/x.json", rec_cb, &r, NULL, &err);
	T_EQ_I64(rc, -1);
	T_TRUE(has(&err, "'/nonexistent/x.json': cannot open"));
	kineto_release(&kt);
	pool_free(r.names);
	sbuf_release(&r.out);
	sbuf_release(&err);
	unlink(path);
}

/* Records, rc, error text after the file name, and truncation of one read
 * of a file (kineto_read: files of 64 KB and more are mapped, not read in
 * chunks) or of the same bytes in memory. */
static uint32_t g_par_chunks; /* kt.stats.par_chunks of the last read_opts */

static void read_opts(const char *path, const char *text, size_t len, const struct kineto_opts *o, int stop_after,
		      struct sbuf *out)
{
	struct rec r = { SBUF_INIT, names(), stop_after, 0 };
	struct kineto_trace kt;
	kineto_init(&kt, r.names);
	struct sbuf err = SBUF_INIT;
	int rc = path ? kineto_read(&kt, path, rec_cb, &r, o, &err)
		      : kineto_read_mem(&kt, text, len, "t.json", rec_cb, &r, &err);
	sbuf_reset(out);
	sbuf_add(out, r.out.buf, r.out.len);
	const char *msg = strstr(err.buf ? err.buf : "", "': ");
	sbuf_addf(out, "rc=%d err=%s truncated=%d at=%llu events=%llu bytes=%llu ntracks=%u\n", rc,
		  rc && msg ? msg : "", kt.stats.truncated, (unsigned long long)kt.stats.truncated_at,
		  (unsigned long long)kt.stats.events, (unsigned long long)kt.stats.bytes_in, kt.ntracks);
	for (uint32_t i = 0; i < kt.ntracks; i++) {
		const struct ktrack *t = &kt.tracks[i];
		sbuf_addf(out, "track %u pid=%lld tid=%lld thread=", i, (long long)t->pid, (long long)t->tid);
		add_id(out, r.names, t->thread_name);
		sbuf_addch(out, '\n');
	}
	g_par_chunks = kt.stats.par_chunks;
	sbuf_addf(out, "gen=%d ncats=%u nocat=%llu kernels=%llu\n", kt.meta.ts_gen, kt.stats.ncats,
		  (unsigned long long)kt.stats.no_cat, (unsigned long long)kt.stats.by_kc[KC_KERNEL]);
	kineto_release(&kt);
	sbuf_release(&r.out);
	sbuf_release(&err);
}

static void read_one(const char *path, const char *text, size_t len, struct sbuf *out)
{
	read_opts(path, text, len, NULL, 0, out);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "wb");
	T_TRUE(fp != NULL);
	if (!fp)
		return;
	T_EQ_I64((int64_t)fwrite(text, 1, len, fp), (int64_t)len);
	fclose(fp);
}

/* A big plain file is mapped: same records, truncation and errors (with the
 * same byte offsets and lines) as the chunked reader; the end of the file on
 * a page boundary reads as the end of data. */
T_TEST(test_kineto__mapped_file)
{
	struct sbuf text = SBUF_INIT, a = SBUF_INIT, b = SBUF_INIT;
	sbuf_addstr(&text, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
	for (int i = 0; i < 1500; i++) {
		sbuf_addf(&text, "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op_%d\\u00e9\", \"pid\": %d, \"tid\": \"%s\",\n"
			  "   \"ts\": %d.%03d, \"dur\": %d, \"args\": {\"External id\": %d, \"Input Dims\": [[%d, 2], []],"
			  " \"correlation\": %d}},\n",
			  i % 3 ? "cpu_op" : "kernel", i % 17, 100 + i % 2, i % 5 ? "7" : "stream 7", 1000 + i, i % 1000,
			  i % 50, i, i, 40000 + i);
	}
	sbuf_addstr(&text, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": 7, \"args\": {\"name\": \"main\"}}\n]}");
	T_TRUE(text.len > 65536);
	char path[] = "/tmp/test_kineto_map_XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	/* whole; ending on a page boundary (blanks appended) */
	for (int pad = 0; pad < 2; pad++) {
		size_t len = text.len;
		if (pad) {
			while (text.len % 4096)
				sbuf_addch(&text, ' ');
			len = text.len;
		}
		write_file(path, text.buf, len);
		read_one(path, NULL, 0, &a);
		read_one(NULL, text.buf, len, &b);
		T_EQ_STR(a.buf, b.buf);
		T_HAS(&a, "rc=0 err= truncated=0");
		T_HAS(&a, "events=1501");
	}
	/* truncated in the middle of an event, and cut right after a number */
	size_t cuts[] = { text.len * 2 / 3, (size_t)(strstr(text.buf + 70000, "\"dur\": ") - text.buf) + 8 };
	for (size_t i = 0; i < 2; i++) {
		write_file(path, text.buf, cuts[i]);
		read_one(path, NULL, 0, &a);
		read_one(NULL, text.buf, cuts[i], &b);
		T_EQ_STR(a.buf, b.buf);
		T_HAS(&a, "truncated=1");
	}
	/* an error near the end: same offset and line */
	char *colon = strstr(text.buf + text.len - 3000, "\"ts\":") + 4;
	*colon = '#';
	write_file(path, text.buf, text.len);
	read_one(path, NULL, 0, &a);
	read_one(NULL, text.buf, text.len, &b);
	T_EQ_STR(a.buf, b.buf);
	T_HAS(&a, "rc=-1 err=': byte ");
	T_HAS(&a, "expected ':' after a key, got '#'");
	unlink(path);
	sbuf_release(&text);
	sbuf_release(&a);
	sbuf_release(&b);
}

/* A mapped file read on two cores, in chunks small enough that every few
 * events start a new one (and some starts fall on '}, {' inside strings and
 * inside args): the same records, pool strings, tracks, statistics,
 * truncation, errors and callback stops as one thread over the same bytes. */
T_TEST(test_kineto__two_cores)
{
	struct sbuf text = SBUF_INIT, a = SBUF_INIT, b = SBUF_INIT;
	sbuf_addstr(&text, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
	for (int i = 0; i < 2000; i++) {
		if (i % 7 == 3)
			sbuf_addf(&text, "  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f%d\\\"}, {\\\" \\u4e2d\","
				  " \"pid\": 100, \"tid\": \"Spans %d\", \"ts\": %d, \"dur\": 3,"
				  " \"args\": {\"Python id\": %d, \"shapes\": [{\"a\": 1}, {\"b\": [2]}]}},\n",
				  i % 23, i % 3, 5000 + i, i);
		else
			sbuf_addf(&text, "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"op_%d\", \"pid\": %d, \"tid\": %d,\n"
				  "   \"ts\": %d.%03d, \"dur\": %d, \"args\": {\"External id\": %d, \"correlation\": %d}}%s\n",
				  i % 3 ? "cpu_op" : "kernel", i % 31, 100 + i % 2, 7 + i % 3, 1000 + i, i % 1000, i % 50,
				  i, 40000 + i, ",");
		if (i % 500 == 250)
			sbuf_addf(&text, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 100, \"tid\": 7,"
				  " \"args\": {\"name\": \"main %d\"}},\n", i);
	}
	sbuf_addstr(&text, "  {\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 7, \"ts\": 1}\n],"
		    " \"baseTimeNanoseconds\": 1000}");
	T_TRUE(text.len > 65536);
	char path[] = "/tmp/test_kineto_par_XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	const size_t chunks[] = { 200, 1000, 4093, 65536 };
	struct kineto_opts one = { .threads = 1 };
	for (int variant = 0; variant < 4; variant++) {
		size_t len = text.len;
		int stop = 0;
		if (variant == 1)
			len = text.len * 3 / 5; /* truncated */
		if (variant == 3)
			stop = 777;          /* the callback stops */
		write_file(path, text.buf, len);
		read_opts(path, NULL, 0, &one, stop, &b);
		T_HAS(&b, variant == 1 ? "truncated=1" : variant == 2 ? "rc=-1" : variant == 3 ? "rc=7" : "rc=0 err= ");
		for (size_t k = 0; k < GF_ARRAY_LEN(chunks); k++) {
			struct kineto_opts two = { .par_chunk = chunks[k] };
			read_opts(path, NULL, 0, &two, stop, &a);
			/* the two-core reader ran (on a machine with two cores) */
			T_TRUE(g_par_chunks > 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2);
			if (strcmp(a.buf, b.buf))
				fprintf(stderr, "---- two cores (chunk %zu, variant %d):\n%.2000s\n---- one:\n%.2000s\n", chunks[k],
					variant, a.buf, b.buf);
			T_EQ_STR(a.buf, b.buf);
		}
		if (variant == 1) { /* an error two thirds in, for variant 2 */
			char *colon = strstr(text.buf + text.len * 2 / 3, "\"dur\":") + 5;
			*colon = '#';
		}
	}
	unlink(path);
	sbuf_release(&text);
	sbuf_release(&a);
	sbuf_release(&b);
}

/* Truncates the file named by ctx at the first event (another process
 * cutting the trace while we map it). */
static const char *g_cut_path;
static int cut_cb(void *ctx, const struct kev *e)
{
	(void)e;
	int *n = ctx;
	if ((*n)++ == 0)
		T_TRUE(truncate(g_cut_path, 65536) == 0); /* a page boundary: the next page faults */
	return 0;
}

/* A mapped file cut short while it is read (SIGBUS on its pages) is an
 * error naming the file, not a crash — on one core and on two. */
T_TEST(test_kineto__file_cut_while_read)
{
	struct sbuf text = SBUF_INIT;
	sbuf_addstr(&text, "{\"traceEvents\": [\n");
	for (int i = 0; i < 12000; i++)
		sbuf_addf(&text, "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op_%d\", \"pid\": 1, \"tid\": 2,"
			  " \"ts\": %d, \"dur\": 1, \"args\": {\"External id\": %d}},\n", i % 50, i, i);
	sbuf_addstr(&text, "  {\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 2, \"ts\": 1}\n]}");
	char path[] = "/tmp/test_kineto_cut_XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	g_cut_path = path;
	for (int cores = 1; cores <= 2; cores++) {
		write_file(path, text.buf, text.len);
		struct kineto_trace kt;
		kineto_init(&kt, names());
		struct sbuf err = SBUF_INIT;
		struct kineto_opts o = { .threads = (unsigned)cores, .par_chunk = 16384 };
		int n = 0;
		int rc = kineto_read(&kt, path, cut_cb, &n, &o, &err);
		T_EQ_I64(rc, GF_EINPUT);
		T_TRUE(err.buf && strstr(err.buf, "cut short while being read") != NULL);
		T_TRUE(err.buf && strstr(err.buf, path) != NULL);
		T_TRUE(n > 0 && n < 12001);
		kineto_release(&kt);
		sbuf_release(&err);
	}
	unlink(path);
	sbuf_release(&text);
}

int main(void)
{
	T_RUN(test_kineto__int_epoch_us);
	T_RUN_SLOW(test_kineto__sixteen_digit_edges);
	T_RUN(test_kineto__abs_19_digits);
	T_RUN(test_kineto__relative_base_after_events);
	T_RUN(test_kineto__resaved_exp_quoted);
	T_RUN(test_kineto__strings_escapes);
	T_RUN_SLOW(test_kineto__long_name);
	T_RUN_SLOW(test_kineto__huge_values);
	T_RUN(test_kineto__pid_tid_forms);
	T_RUN(test_kineto__legacy_autograd);
	T_RUN(test_kineto__metadata_and_args);
	T_RUN(test_kineto__truncated_array);
	T_RUN(test_kineto__callback_stop);
	T_RUN_SLOW(test_kineto__errors);
	T_RUN_SLOW(test_kineto__deep_nesting);
	T_RUN(test_kineto__compressed);
	T_RUN(test_kineto__read_file);
	T_RUN(test_kineto__mapped_file);
	T_RUN_SLOW(test_kineto__two_cores);
	T_RUN(test_kineto__file_cut_while_read);
	/* the inputs above are small, but the 16-byte chunks still split many of them */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !g_whole_par) {
		fprintf(stderr, "FAIL: no whole-text read ran on two cores\n");
		return 1;
	}
	if (g_names)
		pool_free(g_names);
	return t_done();
}
