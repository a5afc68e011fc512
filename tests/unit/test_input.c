/*
 * test_input.c — the one input layer (input/input.h): the sniffer on crafted
 * prefixes (byte order mark, blanks, truncated, empty, binary, the formats
 * to come, folded text that looks like JSON), the opener (the peek window is
 * served again, so the bytes read equal the file's; gzip in memory; a file
 * re-opened; the whole-file view), and the wrong-kind hints word for word.
 */
#include "t.h"

#include "input/input.h"
#include "input/source.h"
#include "stacks/folded.h"
#include "base/limits.h"

#include <unistd.h>
#include <zlib.h>

static int sniff(const char *s)
{
	return input_sniff(s, strlen(s));
}

T_TEST(test_input__sniff_traces)
{
	T_EQ_I64(sniff("{\"traceEvents\": []}"), INPUT_TRACE);
	T_EQ_I64(sniff("{\"schemaVersion\": 1, \"traceEvents\": []}"), INPUT_TRACE);
	T_EQ_I64(sniff("\xef\xbb\xbf{\"traceEvents\": []}"), INPUT_TRACE);  /* a byte order mark */
	T_EQ_I64(sniff(" \t\r\n\n  {\n  \"traceEvents\": []}"), INPUT_TRACE); /* blanks first */
	T_EQ_I64(sniff("\xef\xbb\xbf \n[{\"ph\": \"X\"}]"), INPUT_TRACE);     /* an array of events */
	T_EQ_I64(sniff("[]"), INPUT_TRACE);
	T_EQ_I64(sniff("{}"), INPUT_TRACE);
	/* truncated: the window ends where a trace may go on */
	T_EQ_I64(sniff("{"), INPUT_TRACE);
	T_EQ_I64(sniff("  [  "), INPUT_TRACE);
	T_EQ_I64(sniff("\xef\xbb\xbf{"), INPUT_TRACE);
}

T_TEST(test_input__sniff_folded)
{
	T_EQ_I64(input_sniff("", 0), INPUT_FOLDED); /* empty: the folded reader's errors */
	T_EQ_I64(sniff("   \n\n"), INPUT_FOLDED);
	T_EQ_I64(sniff("main;work 12\n"), INPUT_FOLDED);
	T_EQ_I64(sniff("# gpuflame: weight=gpu;\nmain 1\n"), INPUT_FOLDED);
	/* frames that start like JSON are still stacks */
	T_EQ_I64(sniff("[unknown];foo 3\n"), INPUT_FOLDED);
	T_EQ_I64(sniff("{lambda}#1;x 2\n"), INPUT_FOLDED);
	T_EQ_I64(sniff("{ 1\n"), INPUT_FOLDED);
	T_EQ_I64(sniff("[x] 1\n"), INPUT_FOLDED);
	/* a byte order mark, then a stack */
	T_EQ_I64(sniff("\xef\xbb\xbfmain 1\n"), INPUT_FOLDED);
	/* a lone BOM byte, truncated marks */
	T_EQ_I64(sniff("\xef"), INPUT_FOLDED);
	T_EQ_I64(sniff("\xef\xbb"), INPUT_FOLDED);
	/* binary */
	static const unsigned char bin[] = { 0x00, 0x01, 0xff, 0x7f, 0x0a, 0x80, 0x08 };
	T_EQ_I64(input_sniff(bin, sizeof bin), INPUT_FOLDED);
	T_EQ_I64(input_sniff("\0\0\0\0", 4), INPUT_FOLDED);
	/* compressed bytes are not decided here (the source inflates them first) */
	T_EQ_I64(sniff("\x1f\x8b\x08"), INPUT_FOLDED);
}

T_TEST(test_input__sniff_formats_to_come)
{
	T_EQ_I64(sniff("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\", \"profiles\": []}"),
		 INPUT_SPEEDSCOPE);
	T_EQ_I64(sniff("\xef\xbb\xbf {\"exporter\": \"py-spy\", \"$schema\": \"https://www.speedscope.app/x\"}"),
		 INPUT_SPEEDSCOPE);
	T_EQ_I64(sniff("{\"$schema\": \"https://example.com/other\"}"), INPUT_TRACE);
	T_EQ_I64(sniff("python 1234 [001] 12345.678901:     250000 cpu-clock:\n"
		       "\t    7f0123456789 func+0x10 (/usr/lib/libx.so)\n"),
		 INPUT_PERF_SCRIPT);
	T_EQ_I64(sniff("# ========\n# captured on: x\n\nswapper     0 [000]  1.5: cycles:\n  ffffffff81 a (k)\n"),
		 INPUT_PERF_SCRIPT);
	/* a header line but no frame line: not perf script */
	T_EQ_I64(sniff("python 1234 [001] 12345.678901: 250000 cpu-clock:\n"), INPUT_FOLDED);
	/* a stack whose frame holds "1.5:" stays a stack */
	T_EQ_I64(sniff("main;t 1.5: 3\nmain 1\n"), INPUT_FOLDED);
	static const unsigned char pprof[] = { 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x12, 0x00 };
	T_EQ_I64(input_sniff(pprof, sizeof pprof), INPUT_PPROF);
	T_EQ_I64(input_sniff("SQLite format 3\0rest", 20), INPUT_NSYS_SQLITE);
	T_EQ_I64(input_sniff("SQLite format 3", 15), INPUT_FOLDED); /* cut before its NUL */
}

/* input_sniff on every prefix of s never reads past it (ASan) and decides
 * a trace only when s is one. */
T_TEST(test_input__sniff_prefixes)
{
	static const char *const texts[] = {
		"\xef\xbb\xbf  {\"traceEvents\": [{\"ph\": \"X\"}]}",
		"{\"$schema\": \"speedscope\"}",
		"a 1\n",
		"python 1 [0] 1.2:\n\t ff x\n",
		"SQLite format 3",
	};
	for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
		size_t n = strlen(texts[k]);
		for (size_t i = 0; i <= n; i++) {
			char *copy = malloc(i ? i : 1);
			memcpy(copy, texts[k], i);
			int f = input_sniff(copy, i);
			T_TRUE(f >= INPUT_FOLDED && f < INPUT_NFORMATS);
			if (k == 2)
				T_EQ_I64(f, INPUT_FOLDED);
			free(copy);
		}
	}
}

static void gz(struct sbuf *b, const char *text)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
	sbuf_grow(b, strlen(text) + 256);
	z.next_in = (unsigned char *)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = (unsigned char *)b->buf + b->len;
	z.avail_out = (uInt)(strlen(text) + 256);
	deflate(&z, Z_FINISH);
	sbuf_setlen(b, b->len + z.total_out);
	deflateEnd(&z);
}

/* Reads all of an input in reads of `step` bytes. */
static int read_all(struct input *in, size_t step, struct sbuf *out, struct sbuf *err)
{
	char buf[9000];
	for (;;) {
		size_t n;
		int rc = input_read(in, buf, step, &n, err);
		if (rc || !n)
			return rc;
		sbuf_add(out, buf, n);
	}
}

T_TEST(test_input__memory_gzip_peek_served_again)
{
	struct sbuf text = SBUF_INIT, z = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	sbuf_addstr(&text, "{\"traceEvents\": [");
	for (int i = 0; i < 2000; i++) /* past the peek window */
		sbuf_addf(&text, "{\"ph\": \"X\", \"ts\": %d},", i);
	sbuf_addstr(&text, "{}]}");
	gz(&z, text.buf);
	static const size_t steps[] = { 1, 7, 4096, 4097, 9000 };
	for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
		struct input *in;
		T_EQ_I64(input_open_mem(&in, z.buf, z.len, "t.json.gz", &err), GF_OK);
		if (!in)
			break;
		T_EQ_I64(input_format(in), INPUT_TRACE);
		T_EQ_I64(input_compression(in), SOURCE_GZIP);
		size_t np;
		input_peek(in, &np);
		T_EQ_I64(np, INPUT_PEEK);
		sbuf_reset(&out);
		T_EQ_I64(read_all(in, steps[k], &out, &err), GF_OK);
		T_EQ_I64(out.len, text.len);
		T_TRUE(out.len == text.len && !memcmp(out.buf, text.buf, text.len));
		const char *v;
		size_t vl;
		T_TRUE(!input_map(in, &v, &vl)); /* memory and compressed: no view */
		T_TRUE(!input_can_reopen(in));
		input_close(in);
	}
	sbuf_release(&text);
	sbuf_release(&z);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_input__file_view_and_reopen)
{
	char path[] = "/tmp/gf-test-input-XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	struct sbuf text = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	for (int i = 0; i < 1000; i++)
		sbuf_addf(&text, "main;f%d %d\n", i, i + 1);
	T_TRUE(write(fd, text.buf, text.len) == (ssize_t)text.len);
	close(fd);
	struct input *in;
	T_EQ_I64(input_open(&in, path, 1, &err), GF_OK);
	if (!in)
		return;
	T_EQ_I64(input_format(in), INPUT_FOLDED);
	T_TRUE(input_can_reopen(in));
	T_EQ_STR(input_name(in), path);
	const char *v;
	size_t vl;
	T_TRUE(input_map(in, &v, &vl));
	T_EQ_I64(vl, text.len);
	T_TRUE(vl == text.len && !memcmp(v, text.buf, vl) && v[vl] == 0);
	/* a second pass reads it all again */
	T_EQ_I64(input_reopen(in, &err), GF_OK);
	T_EQ_I64(read_all(in, 100, &out, &err), GF_OK);
	T_TRUE(out.len == text.len && !memcmp(out.buf, text.buf, text.len));
	T_TRUE(!input_map(in, &v, &vl)); /* bytes were read: no view */
	T_EQ_I64(input_reopen(in, &err), GF_OK);
	sbuf_reset(&out);
	T_EQ_I64(read_all(in, 9000, &out, &err), GF_OK);
	T_EQ_I64(out.len, text.len);
	input_close(in);
	/* the hint for folded stacks given to a trace command, and back: the
	 * peek window of the opened input is the evidence */
	T_EQ_I64(input_open(&in, path, 1, &err), GF_OK);
	T_TRUE(input_plainly_other(in, INPUT_TRACE));
	T_TRUE(!input_plainly_other(in, INPUT_FOLDED));
	T_TRUE(!input_trace_likely(in));
	T_EQ_I64(input_hint(&err, in, INPUT_TRACE, NULL), GF_EINPUT);
	struct sbuf want = SBUF_INIT;
	sbuf_addf(&want, "'%s' is folded stacks, not a PyTorch profiler trace: run 'gpuflame svg %s' (or top, merge, "
		  "norm, diff)", path, path);
	T_EQ_STR(err.buf, want.buf);
	sbuf_reset(&err);
	input_close(in);
	unlink(path);
	/* trace or folded for diff and syncs: what is not plainly folded stacks
	 * and opens like JSON, or is named .json, goes to the trace reader */
	static const struct { const char *name, *text; bool trace; } likely[] = {
		{ "a.txt", "{\"traceEvents\": []}", true },
		{ "a.txt", "\xef\xbb\xbf  [{\"ph\": \"X\"}]", true },
		{ "a.txt", "{broken", true },        /* opens like JSON: the reader names the fault */
		{ "a.json.gz", "garbage", true },    /* named like a trace */
		{ "a.json", "main;f 3\n", false },  /* plainly folded, whatever the name */
		{ "a.txt", "[unknown];main;f 3\n", false },
		{ "a.txt", "garbage", false },
	};
	for (size_t i = 0; i < sizeof likely / sizeof likely[0]; i++) {
		T_EQ_I64(input_open_mem(&in, likely[i].text, strlen(likely[i].text), likely[i].name, &err), GF_OK);
		T_EQ_I64(input_trace_likely(in), likely[i].trace);
		input_close(in);
	}
	/* opening errors name the file */
	T_EQ_I64(input_open(&in, "/nonexistent/x", 1, &err), GF_EINPUT);
	T_EQ_STR(err.buf, "'/nonexistent/x': cannot open: No such file or directory");
	T_EQ_I64(input_open(&in, "/tmp", 1, &err), GF_EINPUT);
	T_EQ_STR(err.buf, "'/tmp': is a directory");
	sbuf_release(&want);
	sbuf_release(&text);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_input__hints_word_for_word)
{
	struct sbuf e = SBUF_INIT;
	T_EQ_I64(input_hint_for(&e, "trace.json.gz", INPUT_TRACE, INPUT_FOLDED, "svg"), GF_EINPUT);
	T_EQ_STR(e.buf, "'trace.json.gz' is a PyTorch profiler trace, not folded stacks: run 'gpuflame fold "
		 "trace.json.gz | gpuflame svg'");
	input_hint_for(&e, "-", INPUT_TRACE, INPUT_FOLDED, "top");
	T_EQ_STR(e.buf, "'<stdin>' is a PyTorch profiler trace, not folded stacks: run 'gpuflame fold | gpuflame top'");
	input_hint_for(&e, "a b's.json", INPUT_TRACE, INPUT_FOLDED, "merge");
	T_EQ_STR(e.buf, "'a b's.json' is a PyTorch profiler trace, not folded stacks: run 'gpuflame fold "
		 "'a b'\\''s.json' | gpuflame merge'");
	input_hint_for(&e, "x.folded", INPUT_FOLDED, INPUT_TRACE, NULL);
	T_EQ_STR(e.buf, "'x.folded' is folded stacks, not a PyTorch profiler trace: run 'gpuflame svg x.folded' (or "
		 "top, merge, norm, diff)");
	input_hint_for(&e, "p.json", INPUT_SPEEDSCOPE, INPUT_FOLDED, "svg");
	T_EQ_STR(e.buf, "'p.json' is a speedscope profile, not folded stacks; gpuflame cannot read it yet: convert it "
		 "to folded stacks");
	input_hint_for(&e, "r.sqlite", INPUT_NSYS_SQLITE, INPUT_TRACE, NULL);
	T_EQ_STR(e.buf, "'r.sqlite' is an SQLite database (an Nsight Systems export?), not a PyTorch profiler trace: "
		 "a gpuflame store? run 'gpuflame store list --db r.sqlite' (an Nsight Systems export cannot be read yet)");
	input_hint_for(&e, "-", INPUT_NSYS_SQLITE, INPUT_FOLDED, "svg");
	T_EQ_STR(e.buf, "'<stdin>' is an SQLite database (an Nsight Systems export?), not folded stacks; gpuflame "
		 "cannot read it yet: convert it to folded stacks");
	sbuf_release(&e);
}

/* The folded reader over an input (gzip in memory) builds the tree the
 * memory reader builds from the plain text: same stacks, stats, messages. */
T_TEST(test_input__folded_reader_over_gzip)
{
	struct sbuf text = SBUF_INIT, z = SBUF_INIT, err = SBUF_INIT;
	sbuf_addstr(&text, "# gpuflame: unit=us;\n");
	for (int i = 0; i < 3000; i++) /* past the peek window and the first buffer */
		sbuf_addf(&text, "main;f%d;g 1.5\nbad line %dx\n", i % 97, i);
	gz(&z, text.buf);
	struct ftree a, b;
	ftree_init(&a, NULL, 0);
	ftree_init(&b, NULL, 0);
	struct folded_stats sa, sb;
	memset(&sa, 0, sizeof sa);
	memset(&sb, 0, sizeof sb);
	T_EQ_I64(folded_read_mem(&a, text.buf, text.len, "x.gz", NULL, &sa, &err), GF_OK);
	struct input *in;
	T_EQ_I64(input_open_mem(&in, z.buf, z.len, "x.gz", &err), GF_OK);
	if (in) {
		T_EQ_I64(folded_read_in(&b, in, NULL, &sb, &err), GF_OK);
		input_close(in);
	}
	T_EQ_I64(sb.stacks, sa.stacks);
	T_EQ_I64(sb.invalid, sa.invalid);
	T_EQ_I64(sb.first_invalid_line, 3);
	T_EQ_I64(b.n, a.n);
	T_EQ_I64(b.total[0], a.total[0]);
	T_EQ_I64(b.scale, 1);
	T_EQ_STR(ftree_meta_get(&b.meta, "unit") ? ftree_meta_get(&b.meta, "unit") : "", "us");
	/* truncated gzip: the input layer's error, never a silent end */
	struct ftree c;
	ftree_init(&c, NULL, 0);
	T_EQ_I64(input_open_mem(&in, z.buf, z.len - 9, "cut.gz", &err), GF_OK);
	if (in) {
		memset(&sb, 0, sizeof sb);
		T_EQ_I64(folded_read_in(&c, in, NULL, &sb, &err), GF_EINPUT);
		T_TRUE(strstr(err.buf, "'cut.gz': byte ") && strstr(err.buf, "truncated gzip data"));
		input_close(in);
	}
	ftree_release(&a);
	ftree_release(&b);
	ftree_release(&c);
	sbuf_release(&text);
	sbuf_release(&z);
	sbuf_release(&err);
}

/* The source handed over starts at byte 0 again (peek window put back),
 * for a plain file and for gzip in memory, whatever the read size. */
T_TEST(test_input__take_source_from_byte_0)
{
	struct sbuf text = SBUF_INIT, z = SBUF_INIT, out = SBUF_INIT, err = SBUF_INIT;
	for (int i = 0; i < 3000; i++)
		sbuf_addf(&text, "{\"ph\": \"X\", \"ts\": %d}\n", i);
	gz(&z, text.buf);
	for (int k = 0; k < 3; k++) {
		struct input *in;
		T_EQ_I64(input_open_mem(&in, z.buf, z.len, "t.gz", &err), GF_OK);
		if (!in)
			break;
		size_t first = 0;
		if (k == 2) { /* part of the window read already: the rest follows */
			char b[100];
			T_EQ_I64(input_read(in, b, sizeof b, &first, &err), GF_OK);
		}
		struct source *s = input_take_source(in);
		T_TRUE(s != NULL);
		T_TRUE(input_take_source(in) == NULL);
		sbuf_reset(&out);
		char buf[k == 1 ? 3 : 65536];
		for (;;) {
			size_t n;
			if (source_read(s, buf, sizeof buf, &n, &err) || !n)
				break;
			sbuf_add(&out, buf, n);
		}
		T_EQ_I64(out.len + first, text.len);
		T_TRUE(out.len + first == text.len && !memcmp(out.buf, text.buf + first, out.len));
		source_close(s);
		T_EQ_STR(input_name(in), "t.gz");
		input_close(in);
	}
	/* the bytes put back count against GPUFLAME_MAX_INPUT once */
	uint64_t saved = gf_limits.input;
	for (int extra = 0; extra < 2; extra++) {
		gf_limits.input = text.len - (uint64_t)extra;
		struct input *in;
		T_EQ_I64(input_open_mem(&in, z.buf, z.len, "t.gz", &err), GF_OK);
		if (!in)
			break;
		struct source *s = input_take_source(in);
		char buf[4096];
		int rc;
		for (;;) {
			size_t n;
			if ((rc = source_read(s, buf, sizeof buf, &n, &err)) || !n)
				break;
		}
		T_EQ_I64(rc, extra ? GF_EINTERNAL : GF_OK);
		source_close(s);
		input_close(in);
	}
	gf_limits.input = saved;
	sbuf_release(&text);
	sbuf_release(&z);
	sbuf_release(&out);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_input__sniff_traces);
	T_RUN(test_input__sniff_folded);
	T_RUN(test_input__sniff_formats_to_come);
	T_RUN(test_input__sniff_prefixes);
	T_RUN(test_input__memory_gzip_peek_served_again);
	T_RUN(test_input__file_view_and_reopen);
	T_RUN(test_input__hints_word_for_word);
	T_RUN(test_input__folded_reader_over_gzip);
	T_RUN(test_input__take_source_from_byte_0);
	return t_done();
}
