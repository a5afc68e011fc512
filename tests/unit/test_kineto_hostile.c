/*
 * test_kineto_hostile.c — the trace reader against hostile or broken input
 * (issue 16): duplicate keys, invalid UTF-8 anywhere, unusable ts/dur
 * values (null, not a number, out of int64 ns), baseTimeNanoseconds that
 * carries times out of int64, strings and events past gf_limits.token, deep
 * nesting. Every input is read whole, split at every byte, in 1-byte
 * chunks, and whole as a mapped file is on one core and on two (16-byte
 * chunks): the records, flags, counts and errors must be identical.
 */
#include "t.h"

#include "base/limits.h"
#include "base/pool.h"
#include "base/sbuf.h"
#include "trace/read/kineto.h"

#include <string.h>
#include <unistd.h>

struct rec {
	struct sbuf out;
	struct pool *names;
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
	sbuf_addf(b, "%c ts=%lld dur=%lld fl=%u name=", e->ph, (long long)e->ts, (long long)e->dur, e->flags);
	add_id(b, r->names, e->name);
	sbuf_addf(b, " corr=%lld arg=", (long long)e->correlation);
	add_id(b, r->names, e->arg_name);
	sbuf_addch(b, '\n');
	return 0;
}

static struct pool *g_names;
static uint64_t g_par;

/* how = 0: split (first, chunk); 1: whole, one core; 2: whole, two cores. */
static int run_read(const char *text, size_t len, int how, size_t first, size_t chunk, struct sbuf *out)
{
	if (!g_names)
		g_names = pool_new();
	struct rec r = { SBUF_INIT, g_names };
	struct kineto_trace kt;
	kineto_init(&kt, r.names);
	struct sbuf err = SBUF_INIT;
	struct kineto_opts o = { .threads = how == 1 ? 1 : 2, .par_chunk = 16 };
	int rc = how ? kineto_read_mem_whole(&kt, text, len, "t.json", rec_cb, &r, &o, &err)
		     : kineto_read_mem_split(&kt, text, len, "t.json", first, chunk, rec_cb, &r, &err);
	g_par += kt.stats.par_chunks;
	sbuf_reset(out);
	if (rc) {
		/* records before an error may differ between the ways (a split
		 * read has delivered the events before the bad one): not compared */
		sbuf_addf(out, "ERROR %d %s\n", rc, err.buf);
	} else {
		sbuf_add(out, r.out.buf, r.out.len);
		const struct kstats *st = &kt.stats;
		sbuf_addf(out, "stats events=%llu skipped=%llu neg=%llu dnull=%llu dinv=%llu dover=%llu "
			  "tnull=%llu tinv=%llu tover=%llu base=%lld has=%d ndev=%u rank=%lld\n",
			  (unsigned long long)st->events, (unsigned long long)st->skipped,
			  (unsigned long long)st->dur_negative, (unsigned long long)st->dur_null,
			  (unsigned long long)st->dur_invalid, (unsigned long long)st->dur_overflow,
			  (unsigned long long)st->ts_null, (unsigned long long)st->ts_invalid,
			  (unsigned long long)st->ts_overflow, (long long)kt.meta.base_time_ns, kt.meta.has_base_time,
			  kt.meta.ndevices, (long long)kt.meta.rank);
	}
	kineto_release(&kt);
	sbuf_release(&r.out);
	sbuf_release(&err);
	return rc;
}

/* Every way of reading: all identical. @return rc; the result in out. */
static int read_all_ways(const char *text, size_t len, struct sbuf *out)
{
	int rc = run_read(text, len, 0, 0, 0, out);
	struct sbuf o2 = SBUF_INIT;
	for (size_t k = 1; k <= len; k++) {
		int rc2 = k < len ? run_read(text, len, 0, k, 0, &o2) : run_read(text, len, 0, 1, 1, &o2);
		if (rc2 != rc || strcmp(o2.buf, out->buf)) {
			fprintf(stderr, "---- split %zu:\n%s---- whole:\n%s----\n", k, o2.buf, out->buf);
			T_FAIL_(k < len ? "split at byte %zu differs (outputs on stderr)" : "1-byte chunks differ (%zu)", k);
			break;
		}
	}
	for (int w = 1; w <= 2; w++) {
		int rc4 = run_read(text, len, w, 0, 0, &o2);
		if (rc4 != rc || strcmp(o2.buf, out->buf)) {
			fprintf(stderr, "---- whole, %d core(s):\n%s---- streamed:\n%s----\n", w, o2.buf, out->buf);
			T_FAIL_("the whole-text read on %d core(s) differs (outputs on stderr)", w);
		}
	}
	sbuf_release(&o2);
	return rc;
}

#define T_HAS(b, s) do { if (!strstr((b)->buf, s)) { fprintf(stderr, "---- output:\n%s----\n", (b)->buf); \
		T_FAIL_("missing \"%.300s\" (output on stderr)", s); } } while (0)

/* Expects rc and, in the output, each needle. */
static void expect(const char *text, int want_rc, const char *n1, const char *n2)
{
	struct sbuf out = SBUF_INIT;
	int rc = read_all_ways(text, strlen(text), &out);
	if (rc != want_rc) {
		fprintf(stderr, "---- input:\n%s\n---- output:\n%s----\n", text, out.buf);
		T_FAIL_("rc %d, expected %d (output on stderr)", rc, want_rc);
	}
	if (n1)
		T_HAS(&out, n1);
	if (n2)
		T_HAS(&out, n2);
	sbuf_release(&out);
}

#define EV "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2}"
#define DUP "got a second one (duplicate keys are refused)"

T_TEST(test_kineto_hostile__duplicate_top_level_keys)
{
	/* before: both arrays were read (GPU time doubled) */
	expect("{\"traceEvents\": [" EV "], \"traceEvents\": [" EV "]}", -1,
	       "byte 100 (line 1): expected one \"traceEvents\" key in the top-level object, " DUP, NULL);
	expect("{\"baseTimeNanoseconds\": 5, \"traceEvents\": [" EV "],\n\"baseTimeNanoseconds\": 7}", -1,
	       "byte 126 (line 2): expected one \"baseTimeNanoseconds\" key in the top-level object", DUP);
	expect("{\"deviceProperties\": [{\"name\": \"A\"}], \"deviceProperties\": [], \"traceEvents\": []}", -1,
	       "byte 38 (line 1): expected one \"deviceProperties\" key", NULL);
	expect("{\"distributedInfo\": {\"rank\": 1}, \"traceEvents\": [], \"distributedInfo\": {\"rank\": 2}}", -1,
	       "byte 52 (line 1): expected one \"distributedInfo\" key", NULL);
	expect("{\"schemaVersion\": 1, \"schemaVersion\": 1, \"traceEvents\": []}", -1,
	       "byte 21 (line 1): expected one \"schemaVersion\" key", NULL);
	expect("{\"traceName\": \"a\", \"traceEvents\": [], \"traceName\": \"b\"}", -1,
	       "byte 38 (line 1): expected one \"traceName\" key", NULL);
	expect("{\"displayTimeUnit\": \"ms\", \"displayTimeUnit\": \"ns\", \"traceEvents\": []}", -1,
	       "expected one \"displayTimeUnit\" key", NULL);
	/* an escaped spelling is the same key */
	expect("{\"traceEvents\": [], \"trace\\u0045vents\": []}", -1, "byte 20 (line 1): expected one \"traceEvents\"",
	       NULL);
	/* keys the reader does not read may repeat (their values are skipped) */
	expect("{\"metadata\": 1, \"metadata\": 2, \"traceEvents\": [" EV "]}", 0, "events=1 ", NULL);
	/* nested: distributedInfo, a device */
	expect("{\"distributedInfo\": {\"rank\": 1, \"rank\": 2}, \"traceEvents\": []}", -1,
	       "byte 32 (line 1): expected one \"rank\" key in \"distributedInfo\"", DUP);
	expect("{\"deviceProperties\": [{\"name\": \"A\", \"id\": 0, \"name\": \"B\"}], \"traceEvents\": []}", -1,
	       "byte 45 (line 1): expected one \"name\" key in a device", DUP);
	expect("{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2, \"backend\": \"nccl\"}, \"traceEvents\": []}", 0,
	       "rank=1", NULL);
}

T_TEST(test_kineto_hostile__duplicate_event_keys)
{
	/* after Kineto's own key order (the fast path), and in any order */
	expect("[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2, "
	       "\"args\": {}, \"ts\": 5}]", -1,
	       "byte 94 (line 1): expected one \"ts\" key in an event, " DUP, NULL);
	expect("[{\"ts\": 1, \"dur\": 2, \"ph\": \"X\", \"dur\": 3}]", -1, "byte 32 (line 1): expected one \"dur\" key", NULL);
	expect("[{\"ph\": \"X\", \"ts\": 1, \"ph\": \"i\"}]", -1, "byte 22 (line 1): expected one \"ph\" key", NULL);
	expect("[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"name\": \"b\"}]", -1, "expected one \"name\" key in an event",
	       NULL);
	expect("[{\"ph\": \"f\", \"id\": 1, \"pid\": 1, \"tid\": 1, \"ts\": 1, \"cat\": \"ac2g\", \"name\": \"x\", \"id\": 2}]",
	       -1, "expected one \"id\" key in an event", NULL);
	expect("[{\"ph\": \"X\", \"ts\": 1, \"pid\": 1, \"pid\": 2}]", -1, "expected one \"pid\" key", NULL);
	expect("[{\"ph\": \"X\", \"ts\": 1, \"tid\": 1, \"tid\": 2}]", -1, "expected one \"tid\" key", NULL);
	expect("[{\"ph\": \"X\", \"ts\": 1, \"cat\": \"a\", \"cat\": \"b\"}]", -1, "expected one \"cat\" key", NULL);
	expect("[{\"ph\": \"X\", \"ts\": 1, \"args\": {}, \"args\": {}}]", -1, "expected one \"args\" key", NULL);
	/* other spellings: still the same key */
	expect("[{\"ph\":\"X\",\"ts\":1,\"t\\u0073\":2}]", -1, "byte 18 (line 1): expected one \"ts\" key", NULL);
	/* args keys the reader reads */
	expect("[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"correlation\": 1, \"External id\": 2, \"correlation\": 1}}]", -1,
	       "byte 67 (line 1): expected one \"correlation\" key in \"args\"", DUP);
	expect("[{\"ph\": \"M\", \"name\": \"thread_name\", \"args\": {\"name\": \"a\", \"labels\": \"b\"}}]", -1,
	       "expected one \"name\" or \"labels\" key in \"args\"", NULL);
	/* keys it skips may repeat */
	expect("[{\"ph\": \"X\", \"ts\": 1, \"bp\": \"e\", \"bp\": \"e\", \"args\": {\"a\": 1, \"a\": 2}}]", 0,
	       "X ts=1000 dur=-9223372036854775808 fl=0", NULL);
}

T_TEST(test_kineto_hostile__utf8_everywhere)
{
	/* before: strings that were skipped were not checked */
	expect("{\"traceEvents\": [" EV "], \"metadata\": {\"\xff\": 1}}", -1,
	       "byte 114 (line 1): expected valid UTF-8 in a string, got byte 0xff", NULL);
	expect("{\"traceEvents\": [" EV "], \"metadata\": \"ab\xc0\xaf\"}", -1,
	       "byte 115 (line 1): expected valid UTF-8 in a string, got byte 0xc0", NULL);
	expect("[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"Input Dims\": [\"\xed\xa0\x80\"]}}]", -1,
	       "byte 47 (line 1): expected valid UTF-8", "got byte 0xed");
	expect("[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"x\xf5\": 1}}]", -1, "byte 33 (line 1): expected valid UTF-8",
	       NULL);
	expect("[{\"ph\": \"X\xff\", \"ts\": 1}]", -1, "byte 10 (line 1): expected valid UTF-8", NULL);
	expect("[{\"ph\": \"X\", \"ts\": \"1\xff\"}]", -1, "byte 21 (line 1): expected valid UTF-8", NULL);
	/* a string of 40 bytes (the general scanner) with a truncated sequence at its end */
	expect("[{\"ph\": \"X\", \"ts\": 1, \"zz\": \"0123456789012345678901234567890123456789\xe2\x82\"}]", -1,
	       "byte 69 (line 1): expected valid UTF-8", NULL);
	/* valid UTF-8 everywhere is fine, kept as written */
	expect("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"name\": \"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\", "
	       "\"args\": {\"\xe4\xb8\xad\": \"\xe6\x96\x87\"}}], \"\xc3\xa9\": [\"\xc3\xa9\"]}", 0,
	       "name=\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 ", NULL);
}

T_TEST(test_kineto_hostile__unusable_dur)
{
	/* before: dur = KEV_NONE with nothing to tell a null from a missing dur */
	expect("[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": null},\n"
	       "{\"ph\": \"X\", \"name\": \"b\", \"ts\": 1, \"dur\": 1e400},\n"
	       "{\"ph\": \"X\", \"name\": \"c\", \"ts\": 1, \"dur\": -1e400},\n"
	       "{\"ph\": \"X\", \"name\": \"d\", \"ts\": 1, \"dur\": \"abc\"},\n"
	       "{\"ph\": \"X\", \"name\": \"e\", \"ts\": 1, \"dur\": true},\n"
	       "{\"ph\": \"X\", \"name\": \"f\", \"ts\": 1, \"dur\": [1]},\n"
	       "{\"ph\": \"X\", \"name\": \"g\", \"ts\": 1, \"dur\": \"1e400\"},\n"
	       "{\"ph\": \"X\", \"name\": \"h\", \"ts\": 1, \"dur\": -5},\n"
	       "{\"ph\": \"X\", \"name\": \"i\", \"ts\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"j\", \"ts\": 9223372036854775, \"dur\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"k\", \"ts\": 9223372036854774, \"dur\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"l\", \"ts\": 1, \"dur\": -9223372036854775.808}]",
	       0, "stats events=12 skipped=0 neg=1 dnull=1 dinv=3 dover=5 ", NULL);
	struct sbuf out = SBUF_INIT;
	const char *t = "[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": null},\n"
			"{\"ph\": \"X\", \"name\": \"b\", \"ts\": 1, \"dur\": 1e400},\n"
			"{\"ph\": \"X\", \"name\": \"h\", \"ts\": 1, \"dur\": -5},\n"
			"{\"ph\": \"X\", \"name\": \"i\", \"ts\": 1},\n"
			"{\"ph\": \"X\", \"name\": \"j\", \"ts\": 9223372036854775, \"dur\": 1},\n"
			"{\"ph\": \"X\", \"name\": \"k\", \"ts\": 9223372036854774, \"dur\": 1}]";
	T_EQ_I64(read_all_ways(t, strlen(t), &out), 0);
	T_HAS(&out, "X ts=1000 dur=-9223372036854775808 fl=1 name=a ");
	T_HAS(&out, "X ts=1000 dur=-9223372036854775808 fl=1 name=b ");
	T_HAS(&out, "X ts=1000 dur=0 fl=2 name=h ");
	T_HAS(&out, "X ts=1000 dur=-9223372036854775808 fl=0 name=i "); /* no dur key: not flagged */
	/* ts + dur past int64 ns: dur out of range */
	T_HAS(&out, "X ts=9223372036854775000 dur=-9223372036854775808 fl=1 name=j ");
	T_HAS(&out, "X ts=9223372036854774000 dur=1000 fl=0 name=k ");
	T_HAS(&out, "dnull=1 dinv=0 dover=2 ");
	sbuf_release(&out);
}

T_TEST(test_kineto_hostile__unusable_ts)
{
	/* before: skipped like a missing ts, with no count of why */
	expect("[{\"ph\": \"X\", \"name\": \"a\", \"ts\": null, \"dur\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"b\", \"ts\": 1e400, \"dur\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"c\", \"ts\": -9223372036854775.808, \"dur\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"d\", \"ts\": \"x\", \"dur\": 1},\n"
	       "{\"ph\": \"X\", \"name\": \"e\", \"dur\": 1},\n"
	       "{\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": 1e999, \"args\": {\"name\": \"t\"}},\n"
	       "{\"ph\": \"X\", \"name\": \"f\", \"ts\": -9223372036854775.807, \"dur\": 1}]",
	       0, "stats events=7 skipped=5 neg=0 dnull=0 dinv=0 dover=0 tnull=1 tinv=1 tover=3 ", NULL);
	expect("[{\"ph\": \"X\", \"name\": \"f\", \"ts\": -9223372036854775.807, \"dur\": 1}]", 0,
	       "X ts=-9223372036854775807 dur=1000 fl=0 name=f", NULL);
}

T_TEST(test_kineto_hostile__base_time_range)
{
	/* before: an unusable baseTimeNanoseconds was dropped silently (all
	 * times then read as absolute), and base + ts overflowed downstream */
	expect("{\"baseTimeNanoseconds\": 1e400, \"traceEvents\": [" EV "]}", -1,
	       "byte 24 (line 1): expected baseTimeNanoseconds as an integer number of nanoseconds within int64", NULL);
	expect("{\"baseTimeNanoseconds\": \"soon\", \"traceEvents\": [" EV "]}", -1, "byte 24 (line 1): expected "
	       "baseTimeNanoseconds", NULL);
	expect("{\"baseTimeNanoseconds\": null, \"traceEvents\": [" EV "]}", 0, "base=0 has=0", NULL);
	expect("{\"traceEvents\": [" EV "], \"baseTimeNanoseconds\": 9223372036854775807}", -1,
	       "byte 123: expected a baseTimeNanoseconds that keeps every event's absolute time", "got "
	       "9223372036854775807 with events from 1000 to 3000 ns as written");
	expect("{\"baseTimeNanoseconds\": -9223372036854775807, \"traceEvents\": [{\"ph\": \"i\", \"ts\": -1}]}", -1,
	       "byte 24: expected a baseTimeNanoseconds", NULL);
	expect("{\"baseTimeNanoseconds\": 9223372036854770000, \"traceEvents\": [" EV "]}", 0,
	       "base=9223372036854770000 has=1", NULL);
	/* metadata events (ts 0) count too */
	expect("{\"baseTimeNanoseconds\": -9223372036854775807, \"traceEvents\": [{\"ph\": \"M\", \"ts\": 1, "
	       "\"name\": \"x\"}, {\"ph\": \"M\", \"ts\": -1, \"name\": \"y\"}]}", -1, "byte 24: expected a baseTimeNanoseconds", NULL);
}

T_TEST(test_kineto_hostile__token_limit)
{
	uint64_t saved = gf_limits.token;
	gf_limits.token = 100; /* strings of at most 100 bytes, units of at most 200 */
	char t[1024];
	char s100[101], s101[102];
	memset(s100, 'a', 100);
	s100[100] = 0;
	memset(s101, 'b', 101);
	s101[101] = 0;
	/* a name of exactly the limit is fine; one more byte is refused at its quote */
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"%s\"}]", s100);
	expect(t, 0, "name=aaaa", NULL);
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"%s\"}]", s101);
	expect(t, -4, "ERROR -4 't.json': byte 30: a string longer than 100 bytes (GPUFLAME_MAX_TOKEN)", NULL);
	/* a key, a skipped value, a string with escapes, one that never ends */
	snprintf(t, sizeof t, "{\"%s\": 1, \"traceEvents\": []}", s101);
	expect(t, -4, "byte 1: a string longer than 100 bytes (GPUFLAME_MAX_TOKEN)", NULL);
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": [\"%s\"]}}]", s101);
	expect(t, -4, "byte 37: a string longer than 100 bytes", NULL);
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"\\n%s\"}]", s100);
	expect(t, -4, "byte 30: a string longer than 100 bytes", NULL);
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"%s", s101);
	expect(t, -4, "byte 30: a string longer than 100 bytes", NULL);
	/* the limit wins over what comes after the 100th byte (an invalid
	 * byte, a raw control byte): the verdict does not depend on the cut */
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"%s\xff\"}]", s100);
	expect(t, -4, "byte 30: a string longer than 100 bytes", NULL);
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"%s\t\"}]", s101);
	expect(t, -4, "byte 30: a string longer than 100 bytes", NULL);
	/* an event of many small tokens: longer than twice the limit */
	char arr[300];
	size_t k = 0;
	for (int i = 0; i < 120; i++)
		k += (size_t)snprintf(arr + k, sizeof arr - k, "%d,", i % 10);
	arr[k - 1] = 0;
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": [%s]}}, {\"ph\": \"X\", \"ts\": 2}]", arr);
	expect(t, -4, "byte 1: an event longer than 200 bytes (twice GPUFLAME_MAX_TOKEN)", NULL);
	snprintf(t, sizeof t, "[{\"ph\": \"X\", \"ts\": 1}, {\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": [%s]}}]", arr);
	expect(t, -4, "byte 23: an event longer than 200 bytes", NULL);
	snprintf(t, sizeof t, "{\"metadata\": [%s], \"traceEvents\": []}", arr);
	expect(t, -4, "byte 1: a top-level member longer than 200 bytes (twice GPUFLAME_MAX_TOKEN)", NULL);
	/* a long event array is no unit: many short events are fine */
	struct sbuf big = SBUF_INIT;
	sbuf_addstr(&big, "{\"traceEvents\": [");
	for (int i = 0; i < 40; i++)
		sbuf_addf(&big, "%s{\"ph\": \"X\", \"ts\": %d, \"dur\": 1}", i ? ", " : "", i);
	sbuf_addstr(&big, "]}");
	expect(big.buf, 0, "stats events=40 ", NULL);
	sbuf_release(&big);
	gf_limits.token = saved;
}

T_TEST(test_kineto_hostile__token_limit_streamed)
{
	/* a 6 MB name fed in 64 KiB pieces with a 1 MiB limit: refused once
	 * 1 MiB of it has been seen, whole or streamed, same message */
	uint64_t saved = gf_limits.token;
	gf_limits.token = 1 << 20;
	struct sbuf t = SBUF_INIT, o1 = SBUF_INIT, o2 = SBUF_INIT, o3 = SBUF_INIT;
	sbuf_addstr(&t, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"name\": \"");
	for (int i = 0; i < 6 << 20; i++)
		sbuf_addch(&t, 'a' + i % 26);
	sbuf_addstr(&t, "\"}]}");
	T_EQ_I64(run_read(t.buf, t.len, 0, 65536, 65536, &o1), -4);
	T_EQ_I64(run_read(t.buf, t.len, 1, 0, 0, &o2), -4);
	T_EQ_I64(run_read(t.buf, t.len, 2, 0, 0, &o3), -4);
	T_HAS(&o1, "'t.json': byte 46: a string longer than 1048576 bytes (GPUFLAME_MAX_TOKEN)");
	T_EQ_STR(o1.buf, o2.buf);
	T_EQ_STR(o1.buf, o3.buf);
	sbuf_release(&t);
	sbuf_release(&o1);
	sbuf_release(&o2);
	sbuf_release(&o3);
	gf_limits.token = saved;
}

T_TEST(test_kineto_hostile__deep_nesting)
{
	/* 64 levels at most in any value the reader skips, at any level; an
	 * error (no recursion, no stack growth) however deep the text goes */
	struct sbuf t = SBUF_INIT;
	sbuf_addstr(&t, "{\"metadata\": ");
	for (int i = 0; i < 100000; i++)
		sbuf_addch(&t, i & 1 ? '{' : '[');
	struct sbuf out = SBUF_INIT;
	T_EQ_I64(run_read(t.buf, t.len, 0, 0, 0, &out), -1);
	T_HAS(&out, "byte 76 (line 1): expected nesting no deeper than 64 levels, got '{'");
	T_EQ_I64(run_read(t.buf, t.len, 2, 0, 0, &out), -1);
	T_HAS(&out, "byte 76 (line 1): expected nesting no deeper than 64 levels");
	expect("{\"deviceProperties\": [{\"name\": \"A\", \"x\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	       "[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}], \"traceEvents\": []}", -1,
	       "expected nesting no deeper than 64 levels", NULL);
	sbuf_release(&t);
	sbuf_release(&out);
}

int main(void)
{
	T_RUN(test_kineto_hostile__duplicate_top_level_keys);
	T_RUN_SLOW(test_kineto_hostile__duplicate_event_keys);
	T_RUN_SLOW(test_kineto_hostile__utf8_everywhere);
	T_RUN_SLOW(test_kineto_hostile__unusable_dur);
	T_RUN_SLOW(test_kineto_hostile__unusable_ts);
	T_RUN_SLOW(test_kineto_hostile__base_time_range);
	T_RUN_SLOW(test_kineto_hostile__token_limit);
	T_RUN_SLOW(test_kineto_hostile__token_limit_streamed);
	T_RUN_SLOW(test_kineto_hostile__deep_nesting);
	/* the 16-byte chunks must have split some inputs on two cores */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2 && !g_par) {
		fprintf(stderr, "FAIL: no whole-text read ran on two cores\n");
		return 1;
	}
	if (g_names)
		pool_free(g_names);
	return t_done();
}
