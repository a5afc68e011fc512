/* test_ftree.c — unit tests of the call tree and the folded reader/writer. */
#include "t.h"

#include "stacks/ftree.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

static char *roundtrip(const char *in, struct folded_stats *st, int *rc)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct sbuf err = SBUF_INIT;
	memset(st, 0, sizeof *st);
	*rc = folded_read_mem(&t, in, strlen(in), "mem", NULL, st, &err);
	ftree_sort(&t);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	folded_write(fp, &t, false);
	fclose(fp);
	ftree_release(&t);
	sbuf_release(&err);
	return buf;
}

T_TEST(test_tree__merge_anywhere)
{
	struct folded_stats st;
	int rc;
	char *out = roundtrip("a;b 3\nc 1\na;b 9\na 2\n", &st, &rc);
	T_EQ_I64(rc, 0);
	T_EQ_STR(out, "a 2\na;b 12\nc 1\n");
	T_EQ_I64(st.stacks, 4);
	free(out);
}

T_TEST(test_tree__decimal_exact)
{
	struct folded_stats st;
	int rc;
	/* 0.1 + 0.2 must be exactly 0.3; the scale grows mid-file */
	char *out = roundtrip("a;b 1\na;b 0.1\na;b 0.2\na;c 2.25\n", &st, &rc);
	T_EQ_STR(out, "a;b 1.3\na;c 2.25\n");
	free(out);
}

T_TEST(test_tree__rules)
{
	struct folded_stats st;
	int rc;
	char *out = roundtrip("# comment 5\n\r\na;b; 2\r\n;x 1\na;;b 1\na\tb 4\nbad\n-5\nq 1e3\n## fwd ##;k 2\n#\n", &st, &rc);
	/* trailing ';' adds no frame; leading and inner empty frames are kept;
	 * TAB separates; CRLF accepted */
	T_EQ_STR(out, ";x 1\n## fwd ##;k 2\na;;b 1\na;b 2\na\tb 4\n");
	T_EQ_I64(st.invalid, 3);
	T_EQ_I64(st.first_invalid_line, 7);
	T_EQ_I64(st.comments, 2);
	free(out);
}

T_TEST(test_tree__diff_and_meta)
{
	struct folded_stats st;
	int rc;
	char *out = roundtrip("# gpuflame: weight=gpu; unit=us; source=a%3Bb.json;\na;b 1 2\na;c 3 0\n", &st, &rc);
	T_EQ_STR(out, "# gpuflame: weight=gpu; unit=us; source=a%3Bb.json;\na;b 1 2\na;c 3 0\n");
	free(out);
}

T_TEST(test_tree__self_total_depth)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct sbuf err = SBUF_INIT;
	struct folded_stats st = { 0 };
	const char *in = "a;b;c 5\na;b 2\na 1\nd 7\n";
	T_EQ_I64(folded_read_mem(&t, in, strlen(in), "m", NULL, &st, &err), 0);
	uint32_t a = ftree_find(&t, 0, pool_find(t.names, "a", 1));
	uint32_t b = ftree_find(&t, a, pool_find(t.names, "b", 1));
	T_EQ_I64(t.total[0], 15);
	T_EQ_I64(ftree_total(&t, a, 0), 8);
	T_EQ_I64(ftree_self(&t, a, 0), 1);
	T_EQ_I64(ftree_self(&t, b, 0), 2);
	T_EQ_I64(ftree_depth(&t, b), 2);
	struct sbuf p = SBUF_INIT;
	ftree_path(&t, b, &p);
	T_EQ_STR(p.buf, "a;b");
	sbuf_release(&p);
	sbuf_release(&err);
	ftree_release(&t);
}

T_TEST(test_tree__flamechart_keeps_order)
{
	struct ftree t;
	ftree_init(&t, NULL, FT_FLAMECHART);
	struct sbuf err = SBUF_INIT;
	struct folded_stats st = { 0 };
	const char *in = "a;b 1\na;b 1\nc 1\na;b 1\n";
	folded_read_mem(&t, in, strlen(in), "m", NULL, &st, &err);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	folded_write(fp, &t, false);
	fclose(fp);
	T_EQ_STR(buf, "a;b 2\nc 1\na;b 1\n");
	free(buf);
	sbuf_release(&err);
	ftree_release(&t);
}

T_TEST(test_tree__overflow_is_an_error)
{
	struct folded_stats st;
	int rc;
	char *out = roundtrip("a 9223372036854775807\nb 1\n", &st, &rc);
	T_EQ_I64(rc, GF_EINPUT);
	free(out);
}

int main(void)
{
	T_RUN(test_tree__merge_anywhere);
	T_RUN(test_tree__decimal_exact);
	T_RUN(test_tree__rules);
	T_RUN(test_tree__diff_and_meta);
	T_RUN(test_tree__self_total_depth);
	T_RUN(test_tree__flamechart_keeps_order);
	T_RUN(test_tree__overflow_is_an_error);
	return t_done();
}
