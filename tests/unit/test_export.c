/*
 * test_export.c — the exporters' pieces: protobuf varints and fields of
 * export_pprof (encodings from the protobuf wire-format spec: 1 -> 01,
 * 150 -> 96 01, 300 -> ac 02, 2^63 -> 10 bytes), the frame split of
 * export_stacks (Kineto's and py-spy's Python frames, look-alikes that are
 * not), exact unit conversion, and ozip's gzip and zstd streams read back by
 * zlib and libzstd.
 */
#include "t.h"

#include "base/ozip.h"
#include "stacks/export/export_pprof.h"
#include "stacks/export/export_stacks.h"
#include "stacks/folded.h"

#include <zlib.h>
#include <zstd.h>

static void hex(const struct sbuf *b, char *out)
{
	out[0] = 0;
	for (size_t i = 0; i < b->len; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)b->buf[i]);
}

T_TEST(test_export__varint)
{
	static const struct { uint64_t v; const char *h; } c[] = {
		{ 0, "00" }, { 1, "01" }, { 127, "7f" }, { 128, "8001" }, { 150, "9601" }, { 300, "ac02" },
		{ UINT64_C(1) << 63, "80808080808080808001" }, { UINT64_MAX, "ffffffffffffffffff01" },
	};
	char h[64];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct sbuf b = SBUF_INIT;
		export_pprof_varint(&b, c[i].v);
		hex(&b, h);
		T_EQ_STR(h, c[i].h);
		sbuf_release(&b);
	}
	struct sbuf b = SBUF_INIT;
	export_pprof_uint(&b, 1, 150);          /* the spec's example: 08 96 01 */
	export_pprof_bytes(&b, 2, "testing", 7); /* 12 07 74 65 73 74 69 6e 67 */
	hex(&b, h);
	T_EQ_STR(h, "08960112077465737469" "6e67");
	sbuf_release(&b);
}

static void split(const char *s, const char *name, const char *file, long long line)
{
	struct export_stacks_frame f;
	export_stacks_split(s, strlen(s), &f);
	char n[128], p[128];
	snprintf(n, sizeof n, "%.*s", (int)f.name_len, f.name);
	snprintf(p, sizeof p, "%.*s", (int)f.file_len, f.file ? f.file : "");
	T_EQ_STR(n, name);
	T_EQ_STR(p, file);
	T_EQ_I64(f.line, line);
}

T_TEST(test_export__split)
{
	split("model.py(12): forward", "forward", "model.py", 12);
	split("a/b c.py(7):  run (x)", "run (x)", "a/b c.py", 7);
	split("forward (x/y.py:7)", "forward", "x/y.py", 7);
	split("<built-in method mm>", "<built-in method mm>", "", 0);
	split("aten::mm", "aten::mm", "", 0);
	split("f (x.py:)", "f (x.py:)", "", 0);
	split("f(12)", "f(12)", "", 0);
	split("(x.py:3)", "(x.py:3)", "", 0);
	/* roots are not Python frames (issue 26: pprof showed "python3 thread :25286") */
	split("thread (25286): python3", "thread (25286): python3", "", 0);
	split("thread (12)", "thread (12)", "", 0);
	split("thread (12, pid 3): x (a.py:1)", "thread (12, pid 3): x (a.py:1)", "", 0);
	split("process 7:\"python t.py (a.py:1)\"", "process 7:\"python t.py (a.py:1)\"", "", 0);
	/* CPython 3.12 -X perf */
	split("py::forward:/w/model.py", "forward", "/w/model.py", 0);
	split("py::Model.forward:model.py", "Model.forward", "model.py", 0);
	split("py:::x.py", "py:::x.py", "", 0);
}

T_TEST(test_export__units)
{
	struct ftree t;
	struct sbuf err = SBUF_INIT, b = SBUF_INIT;
	struct folded_opts fo = { 0 };
	struct folded_stats st = { 0 };
	const char *in = "# gpuflame: weight=gpu; unit=us;\na 1.5\nb 0.0001\n";
	ftree_init(&t, NULL, 0);
	T_EQ_I64(folded_read_mem(&t, in, strlen(in), "x", &fo, &st, &err), 0);
	int64_t v = 0;
	T_TRUE(export_stacks_int(&t, 15000, &v)); /* 1.5 us at scale 4 */
	T_EQ_I64(v, 1500);
	T_TRUE(!export_stacks_int(&t, 1, &v));    /* 0.0001 us = 0.1 ns */
	export_stacks_num(&b, &t, 1);
	T_EQ_STR(b.buf, "0.1");
	ftree_release(&t);
	sbuf_release(&b);
	sbuf_release(&err);
}

static void roundtrip(int kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct ozip z;
	T_EQ_I64(ozip_open(&z, fp, kind), 0);
	static char data[300000];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (char)(i * 7 % 251);
	ozip_write(&z, data, 100);
	ozip_write(&z, data + 100, sizeof data - 100);
	T_EQ_I64(ozip_close(&z), 0);
	fclose(fp);
	static char back[300001];
	size_t n = 0;
	if (kind == OZIP_GZIP) {
		T_TRUE(len > 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b);
		z_stream s;
		memset(&s, 0, sizeof s);
		T_EQ_I64(inflateInit2(&s, 15 + 16), Z_OK);
		s.next_in = (Bytef *)buf;
		s.avail_in = (uInt)len;
		s.next_out = (Bytef *)back;
		s.avail_out = sizeof back;
		T_EQ_I64(inflate(&s, Z_FINISH), Z_STREAM_END);
		n = s.total_out;
		inflateEnd(&s);
	} else {
		n = ZSTD_decompress(back, sizeof back, buf, len);
		T_TRUE(!ZSTD_isError(n));
	}
	T_EQ_I64(n, sizeof data);
	T_TRUE(!memcmp(back, data, sizeof data));
	free(buf);
}

T_TEST(test_export__ozip_gzip) { roundtrip(OZIP_GZIP); }
T_TEST(test_export__ozip_zstd) { roundtrip(OZIP_ZSTD); }

T_TEST(test_export__ozip_by_name)
{
	T_EQ_I64(ozip_by_name("a.json.gz"), OZIP_GZIP);
	T_EQ_I64(ozip_by_name("a.json.zst"), OZIP_ZSTD);
	T_EQ_I64(ozip_by_name("a.json"), OZIP_PLAIN);
	T_EQ_I64(ozip_by_name(NULL), OZIP_PLAIN);
	T_EQ_I64(ozip_by_name("gz"), OZIP_PLAIN);
}

int main(void)
{
	T_RUN(test_export__varint);
	T_RUN(test_export__split);
	T_RUN(test_export__units);
	T_RUN(test_export__ozip_gzip);
	T_RUN(test_export__ozip_zstd);
	T_RUN(test_export__ozip_by_name);
	return t_done();
}
