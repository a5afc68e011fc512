/*
 * test_folded_hostile.c — the folded text format under hostile input:
 *  - round trip: for trees with odd frame names (empty frames, only
 *    separators, blanks, TAB, CR, NUL, LF, '#', numbers, invalid UTF-8,
 *    escape sequences, very long names) and odd weights (zero, decimals,
 *    near INT64_MAX), folded_write and merge_write_sorted (merge, norm, diff)
 *    write text that the folded reader and merge_inputs read back to the same
 *    tree (names as the writer maps them, folded_out.h);
 *  - the bounded line reader: a line longer than gf_limits.token is exit 4
 *    and the buffer never grows past the bound; more than gf_limits.input
 *    bytes is exit 4;
 *  - read errors are errors, never end of file: a directory (EISDIR) exit 1,
 *    a stream failing with ENOMEM exit 4, in folded_read and merge_inputs.
 */
#include "t.h"

#include "stacks/ops/merge.h"
#include "base/limits.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

#include "roundtrip.h"
#include "merge_paths.h"

#include <errno.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const pieces[] = {
	"", " ", "\t", "\r", ";", ";;", "\n", "#", "# ", "#\t", "12", "3.5", " 7", "7 ", "a", "b c",
	"\xff", "\xc3", "\xe2\x82", "\x1b[31m", "\x1b]0;title\x07", "\xc2\x9b", "\xc3\xa9", "%",
	"=", ",", "aten::mm", "0x7f", "\x7f", "-", "1.", " 1 2",
};
#define NPIECES (sizeof pieces / sizeof pieces[0])

static void odd_name(struct sbuf *b)
{
	sbuf_reset(b);
	if (rnd() % 40 == 0) { /* a very long frame */
		size_t n = 3000 + rnd() % 5000;
		for (size_t i = 0; i < n; i++)
			sbuf_addch(b, (char)('a' + i % 26));
	}
	unsigned k = (unsigned)(rnd() % 4);
	for (unsigned i = 0; i < k; i++)
		sbuf_addstr(b, pieces[rnd() % NPIECES]);
	if (rnd() % 16 == 0)
		sbuf_addch(b, 0); /* a NUL inside a name */
}

static int64_t odd_weight(unsigned scale, unsigned nstacks)
{
	int64_t cap = INT64_MAX / (int64_t)(nstacks + 1) / 2;
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return 1;
	case 2: return cap;
	case 3: return (int64_t)(rnd() % 1000);
	default: return (int64_t)(rnd() % (uint64_t)(scale ? 1000000000 : 100));
	}
}

/* Builds t (raw names) and want (names as the writer maps them). */
static void gen_tree(struct ftree *t, struct ftree *want, int ncols, unsigned scale, unsigned nstacks)
{
	struct sbuf name = SBUF_INIT, mapped = SBUF_INIT, e = SBUF_INIT;
	if (ncols == 2) {
		ftree_make_diff(t);
		ftree_make_diff(want);
	}
	ftree_set_scale(t, scale, &e);
	ftree_set_scale(want, scale, &e);
	for (unsigned s = 0; s < nstacks; s++) {
		uint32_t fr[6], fw[6];
		unsigned depth = 1 + (unsigned)(rnd() % 5);
		for (unsigned d = 0; d < depth; d++) {
			odd_name(&name);
			sbuf_reset(&mapped);
			rt_map_name(&mapped, name.buf, name.len, d == 0);
			fr[d] = pool_intern(t->names, name.buf, name.len);
			fw[d] = pool_intern(want->names, mapped.buf, mapped.len);
		}
		int64_t w[2] = { odd_weight(scale, nstacks), ncols == 2 ? odd_weight(scale, nstacks) : 0 };
		ftree_add(t, fr, depth, w, &e);
		ftree_add(want, fw, depth, w, &e);
	}
	sbuf_release(&name);
	sbuf_release(&mapped);
	sbuf_release(&e);
}

static char *write_mem(int (*wr)(FILE *, const struct ftree *), struct ftree *t, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	wr(fp, t);
	fclose(fp);
	return buf;
}

/* Reads text back and compares with want; @return false with why. */
static bool reads_back(const char *text, size_t len, const struct ftree *want, char *why, size_t wn)
{
	struct ftree r;
	ftree_init(&r, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct folded_opts fo = { .strict = true, .reverse = false };
	struct sbuf err = SBUF_INIT;
	bool ok = folded_read_mem(&r, text, len, "rt", &fo, &st, &err) == GF_OK;
	if (!ok)
		snprintf(why, wn, "read error: %s", err.buf);
	else
		ok = rt_same(want, &r, why, wn);
	sbuf_release(&err);
	ftree_release(&r);
	return ok;
}

static int plain_writer(FILE *fp, const struct ftree *t)
{
	return folded_write(fp, t, false);
}

static int sorted_writer(FILE *fp, const struct ftree *t)
{
	return merge_write_sorted(fp, t, false);
}

/* The writers as a terminal gets them (the cli passes cli_out_terminal()). */
static int plain_term(FILE *fp, const struct ftree *t)
{
	return folded_write(fp, t, true);
}

static int sorted_term(FILE *fp, const struct ftree *t)
{
	return merge_write_sorted(fp, t, true);
}

T_TEST(test_folded_hostile__roundtrip_generated_trees)
{
	char why[128] = "";
	for (int it = 0; it < 400 && !t_case_failed; it++) {
		int ncols = it % 3 == 2 ? 2 : 1;
		unsigned scale = (unsigned)(rnd() % 10);
		unsigned nstacks = 1 + (unsigned)(rnd() % 12);
		struct ftree t, want;
		ftree_init(&t, NULL, 0);
		ftree_init(&want, NULL, 0);
		gen_tree(&t, &want, ncols, scale, nstacks);
		for (int wr = 0; wr < 2 && !t_case_failed; wr++) {
			size_t len;
			char *text = write_mem(wr ? sorted_writer : plain_writer, &t, &len);
			if (!reads_back(text, len, &want, why, sizeof why))
				T_FAIL_("iteration %d, %s: %.100s; text: %.100s", it, wr ? "merge_write_sorted" : "folded_write",
					why, text);
			/* whatever is written is written again the same way */
			struct ftree r;
			ftree_init(&r, NULL, 0);
			struct folded_stats st;
			memset(&st, 0, sizeof st);
			struct sbuf err = SBUF_INIT;
			if (folded_read_mem(&r, text, len, "rt", NULL, &st, &err) == GF_OK) {
				size_t len2;
				char *again = write_mem(sorted_writer, &r, &len2);
				size_t len3;
				char *first = write_mem(sorted_writer, &t, &len3);
				if (len2 != len3 || memcmp(again, first, len2))
					T_FAIL_("iteration %d: write(read(write(t))) != write(t)", it);
				free(again);
				free(first);
			}
			sbuf_release(&err);
			ftree_release(&r);
			free(text);
		}
		ftree_release(&t);
		ftree_release(&want);
	}
}

/* The cases of the issue, one by one: "merge writes ' 3' for ';'". */
T_TEST(test_folded_hostile__odd_stacks_read_back)
{
	static const char *const lines[] = {
		"; 3\n", ";; 3\n", ";;; 3\n", "a;; 2\n", "a;;b 2\n", ";a 1\n", "#; 1\n", "x 12; 3\n",
		"b ; 4\n", "c\t; 4\n", "a\rb 5\n", "\xff\xfe;\xc3 6\n", "big 9223372036854775807\n",
		"dec 0.000000001\n", "zero 0\n", " lead 1\n", "\x1b[31m;x 2\n",
	};
	char why[128];
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct ftree t;
		ftree_init(&t, NULL, 0);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		struct folded_opts fo = { .strict = true, .reverse = false };
		struct sbuf err = SBUF_INIT;
		T_EQ_I64(folded_read_mem(&t, lines[i], strlen(lines[i]), "in", &fo, &st, &err), GF_OK);
		T_EQ_I64(st.stacks, 1);
		for (int wr = 0; wr < 2; wr++) {
			size_t len;
			char *text = write_mem(wr ? sorted_writer : plain_writer, &t, &len);
			if (!reads_back(text, len, &t, why, sizeof why))
				T_FAIL_("'%s' written as '%.100s': %.100s", lines[i], text, why);
			free(text);
		}
		sbuf_release(&err);
		ftree_release(&t);
	}
	/* the tree of one empty frame is written "; 3", never " 3" */
	struct ftree t;
	ftree_init(&t, NULL, 0);
	uint32_t fr[2] = { pool_intern(t.names, "", 0), pool_intern(t.names, "", 0) };
	int64_t w[2] = { 3, 0 };
	struct sbuf err = SBUF_INIT;
	ftree_add(&t, fr, 1, w, &err);
	size_t len;
	char *text = write_mem(plain_writer, &t, &len);
	T_EQ_STR(text, "; 3\n");
	free(text);
	ftree_add(&t, fr, 2, w, &err);
	text = write_mem(sorted_writer, &t, &len);
	T_EQ_STR(text, "; 3\n;; 3\n");
	free(text);
	ftree_release(&t);
	sbuf_release(&err);
}

static char *tmp_write(const char *text, size_t len)
{
	char *path = strdup("/tmp/gf_hostile_XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return path;
	if (write(fd, text, len) != (ssize_t)len)
		path[0] = 0;
	close(fd);
	return path;
}

/* merge_inputs reads its own output (and the tree writers' output) back. */
T_TEST(test_folded_hostile__merge_reads_what_it_writes)
{
	char why[128] = "";
	for (int it = 0; it < 60 && !t_case_failed; it++) {
		struct ftree t, want;
		ftree_init(&t, NULL, 0);
		ftree_init(&want, NULL, 0);
		gen_tree(&t, &want, 1, (unsigned)(rnd() % 10), 1 + (unsigned)(rnd() % 10));
		size_t len;
		char *text = write_mem(it % 2 ? sorted_writer : plain_writer, &t, &len);
		char *in = tmp_write(text, len);
		const char *paths[2] = { in, in };
		char *obuf = NULL;
		size_t olen = 0;
		FILE *out = tmpfile();
		struct merge_stats ms;
		struct merge_opts mo;
		memset(&mo, 0, sizeof mo);
		mo.strict = true;
		struct sbuf err = SBUF_INIT;
		int rc = merge_paths(paths, 1, out, &mo, &ms, &err);
		if (rc)
			T_FAIL_("iteration %d: merge: %.100s; input: %.100s", it, err.buf, text);
		rewind(out);
		FILE *mem = open_memstream(&obuf, &olen);
		int c;
		while ((c = getc(out)) != EOF)
			putc(c, mem);
		fclose(mem);
		fclose(out);
		if (!rc && !reads_back(obuf, olen, &want, why, sizeof why))
			T_FAIL_("iteration %d: merge output: %.100s; %.100s", it, why, obuf);
		/* and merge reads its own output to the same stacks */
		if (!rc) {
			char *again = tmp_write(obuf, olen);
			const char *p2[1] = { again };
			char *o2 = NULL;
			size_t l2 = 0;
			FILE *out2 = open_memstream(&o2, &l2);
			if (merge_paths(p2, 1, out2, &mo, &ms, &err))
				T_FAIL_("iteration %d: merge of merge output: %s", it, err.buf);
			fclose(out2);
			if (l2 != olen || memcmp(o2, obuf, olen))
				T_FAIL_("iteration %d: merge(merge(x)) != merge(x)", it);
			unlink(again);
			free(again);
			free(o2);
		}
		unlink(in);
		free(in);
		free(obuf);
		free(text);
		sbuf_release(&err);
		ftree_release(&t);
		ftree_release(&want);
	}
}

T_TEST(test_folded_hostile__line_longer_than_token_limit)
{
	uint64_t saved = gf_limits.token;
	gf_limits.token = 1000;
	struct sbuf in = SBUF_INIT, err = SBUF_INIT;
	sbuf_addstr(&in, "a 1\n");
	for (int i = 0; i < 998; i++)
		sbuf_addch(&in, 'x');
	sbuf_addstr(&in, " 1\n"); /* 1000 bytes: fine */
	size_t ok_len = in.len;
	for (int i = 0; i < 5000; i++)
		sbuf_addch(&in, 'y');
	sbuf_addstr(&in, " 1\n");
	/* exactly the limit reads */
	FILE *fp = fmemopen(in.buf, ok_len, "r");
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	T_EQ_I64(folded_read(&t, fp, "long.folded", NULL, &st, &err), GF_OK);
	T_EQ_I64(st.stacks, 2);
	fclose(fp);
	/* one line more than the limit: exit 4, the offset and the variable */
	fp = fmemopen(in.buf, in.len, "r");
	T_EQ_I64(folded_read(&t, fp, "long.folded", NULL, &st, &err), GF_EINTERNAL);
	T_EQ_STR(err.buf, "'long.folded': line 3 (byte 2005): a line longer than 1000 bytes (GPUFLAME_MAX_TOKEN)");
	fclose(fp);
	/* the buffer never grows past the bound */
	fp = fmemopen(in.buf, in.len, "r");
	struct folded_lines lr;
	folded_lines_init(&lr, fp, "long.folded");
	const char *s;
	size_t n;
	int k;
	while ((k = folded_lines_next(&lr, &s, &n, &err)) == 1)
		;
	T_EQ_I64(k, GF_EINTERNAL);
	T_TRUE(lr.cap <= 1001);
	folded_lines_free(&lr);
	fclose(fp);
	/* the same bound over memory */
	T_EQ_I64(folded_read_mem(&t, in.buf, in.len, "long.folded", NULL, &st, &err), GF_EINTERNAL);
	T_TRUE(strstr(err.buf, "a line longer than 1000 bytes (GPUFLAME_MAX_TOKEN)") != NULL);
	/* merge too */
	char *path = tmp_write(in.buf, in.len);
	const char *paths[1] = { path };
	FILE *out = tmpfile();
	struct merge_stats ms;
	T_EQ_I64(merge_paths(paths, 1, out, NULL, &ms, &err), GF_EINTERNAL);
	T_TRUE(strstr(err.buf, "line 3 (byte 2005): a line longer than 1000 bytes (GPUFLAME_MAX_TOKEN)") != NULL);
	fclose(out);
	unlink(path);
	free(path);
	gf_limits.token = saved;
	/* and the input bound */
	saved = gf_limits.input;
	gf_limits.input = 100;
	fp = fmemopen(in.buf, in.len, "r");
	T_EQ_I64(folded_read(&t, fp, "big.folded", NULL, &st, &err), GF_EINTERNAL);
	T_EQ_STR(err.buf, "'big.folded': byte 100: an input larger than 100 bytes (GPUFLAME_MAX_INPUT)");
	fclose(fp);
	gf_limits.input = saved;
	ftree_release(&t);
	sbuf_release(&in);
	sbuf_release(&err);
}

/* A stream that returns `good` once, then fails with errno `fail`. */
struct failing {
	const char *good;
	bool done;
	int fail;
};

static ssize_t failing_read(void *c, char *buf, size_t size)
{
	struct failing *f = c;
	if (!f->done) {
		f->done = true;
		size_t n = strlen(f->good);
		if (n > size)
			n = size;
		memcpy(buf, f->good, n);
		return (ssize_t)n;
	}
	errno = f->fail;
	return -1;
}

static FILE *failing_stream(struct failing *f)
{
	cookie_io_functions_t io = { .read = failing_read };
	return fopencookie(f, "r", io);
}

T_TEST(test_folded_hostile__read_errors_are_errors)
{
	struct sbuf err = SBUF_INIT;
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	/* a directory: fopen succeeds, read fails with EISDIR -> exit 1 */
	FILE *fp = fopen("/tmp", "r");
	T_TRUE(fp != NULL);
	if (fp) {
		T_EQ_I64(folded_read(&t, fp, "/tmp", NULL, &st, &err), GF_EINPUT);
		T_EQ_STR(err.buf, "'/tmp': read error: Is a directory");
		fclose(fp);
	}
	/* ENOMEM in the middle of the input: never end of file; exit 4 */
	struct failing f = { "a;b 1\nc 2\n", false, ENOMEM };
	fp = failing_stream(&f);
	T_EQ_I64(folded_read(&t, fp, "nomem", NULL, &st, &err), GF_EINTERNAL);
	T_EQ_STR(err.buf, "'nomem': read error: Cannot allocate memory");
	fclose(fp);
	struct failing g = { "a;b 1\nc 2\n", false, EIO };
	fp = failing_stream(&g);
	T_EQ_I64(folded_read(&t, fp, "eio", NULL, &st, &err), GF_EINPUT);
	T_EQ_STR(err.buf, "'eio': read error: Input/output error");
	fclose(fp);
	/* merge: a directory input */
	const char *paths[1] = { "/tmp" };
	FILE *out = tmpfile();
	struct merge_stats ms;
	T_EQ_I64(merge_paths(paths, 1, out, NULL, &ms, &err), GF_EINPUT);
	T_EQ_STR(err.buf, "'/tmp': is a directory"); /* the input layer refuses it at open */
	fclose(out);
	ftree_release(&t);
	sbuf_release(&err);
}

/* The terminal view: no control byte or invalid UTF-8 is written raw. */
T_TEST(test_folded_hostile__terminal_escapes_names)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct sbuf err = SBUF_INIT;
	uint32_t fr[2] = { pool_intern_str(t.names, "a\x1b[31mred"), pool_intern_str(t.names, "\xc2\x9b\xff") };
	int64_t w[2] = { 3, 0 };
	ftree_add(&t, fr, 2, w, &err);
	ftree_meta_set(&t.meta, "source", "x\xff");
	for (int wr = 0; wr < 2; wr++) {
		size_t len;
		char *text = write_mem(wr ? sorted_term : plain_term, &t, &len);
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)text[i] < 0x20 && text[i] != '\n') || (unsigned char)text[i] == 0xff ||
			    (unsigned char)text[i] == 0x9b)
				T_FAIL_("raw byte 0x%02x at %zu in '%s'", (unsigned char)text[i], i, text);
		T_TRUE(strstr(text, "a\\x1B[31mred;") != NULL || strstr(text, "a\\x1b[31mred;") != NULL);
		free(text);
		/* a file keeps the bytes */
		text = write_mem(wr ? sorted_writer : plain_writer, &t, &len);
		T_TRUE(strstr(text, "a\x1b[31mred;\xc2\x9b\xff 3\n") != NULL);
		free(text);
	}
	ftree_release(&t);
	sbuf_release(&err);
}

/* The header round-trips too: keys are %-encoded like values. */
T_TEST(test_folded_hostile__meta_keys_round_trip)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	ftree_meta_set(&t.meta, "label.a b;c=d%", "v;1 %");
	ftree_meta_set(&t.meta, "weight", "gpu");
	uint32_t fr[1] = { pool_intern_str(t.names, "a") };
	int64_t w[2] = { 1, 0 };
	struct sbuf err = SBUF_INIT;
	ftree_add(&t, fr, 1, w, &err);
	size_t len;
	char *text = write_mem(plain_writer, &t, &len);
	struct ftree r;
	ftree_init(&r, NULL, 0);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	T_EQ_I64(folded_read_mem(&r, text, len, "m", NULL, &st, &err), GF_OK);
	const char *v = ftree_meta_get(&r.meta, "label.a b;c=d%");
	T_TRUE(v != NULL);
	if (v)
		T_EQ_STR(v, "v;1 %");
	size_t len2;
	char *again = write_mem(plain_writer, &r, &len2);
	T_EQ_STR(again, text);
	free(text);
	free(again);
	ftree_release(&t);
	ftree_release(&r);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_folded_hostile__roundtrip_generated_trees);
	T_RUN(test_folded_hostile__odd_stacks_read_back);
	T_RUN(test_folded_hostile__merge_reads_what_it_writes);
	T_RUN(test_folded_hostile__line_longer_than_token_limit);
	T_RUN(test_folded_hostile__read_errors_are_errors);
	T_RUN(test_folded_hostile__terminal_escapes_names);
	T_RUN(test_folded_hostile__meta_keys_round_trip);
	return t_done();
}
