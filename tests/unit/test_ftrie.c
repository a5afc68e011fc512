/* test_ftrie.c — the tail-compressed trie (stacks/ftrie.h) against
 * the folded reader on random unsorted inputs: same tree with keep_min 0,
 * exact totals for what it keeps with keep_min > 0; through fread (a memory
 * stream) and through a mapped file (a temporary file). */
#include "t.h"
#include "tree_util.h"

#include "stacks/ftrie.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

/* Small deterministic generator (xorshift). */
static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Names of several lengths (around the 8-byte words of the hash), sharing
 * prefixes, one empty. */
static const char *const names[] = {
	"", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnopq",
	"abcdefghijklmnopr", "x y", "fn (m.py:1)", "ns::C<T>::m", "k",
};

/* Random folded text: stacks drawn from a small branching space so lines
 * share prefixes and tails, repeated stacks, random order, some trailing
 * ';', comments, blank and invalid lines, and decimals when dec. */
static char *gen(size_t nlines, bool dec, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	for (size_t i = 0; i < nlines; i++) {
		uint64_t k = rnd(40);
		if (k == 0) { fputs("# comment\n", fp); continue; }
		if (k == 1) { fputs("\n", fp); continue; }
		if (k == 2) { fputs("no count here\n", fp); continue; }
		size_t depth = 1 + rnd(12);
		uint64_t node = rnd(3);
		for (size_t d = 0; d < depth; d++) {
			/* mostly the same few children: shared prefixes */
			node = node * 7 + (rnd(4) ? rnd(2) : rnd(12));
			fprintf(fp, "%s%s", d ? ";" : "", names[node % (sizeof names / sizeof *names)]);
		}
		if (rnd(10) == 0)
			fputc(';', fp);
		if (dec && rnd(3) == 0)
			fprintf(fp, " %llu.%02llu\n", (unsigned long long)rnd(50), (unsigned long long)rnd(100));
		else
			fprintf(fp, " %llu\n", (unsigned long long)(1 + rnd(50)));
	}
	fclose(fp);
	*len = n;
	return buf;
}

T_TEST(test_ftrie__random_same_tree)
{
	for (int round = 0; round < 40; round++) {
		size_t len;
		char *in = gen(50 + rnd(400), round % 3 == 0, &len);
		for (int how = 0; how < 4; how++) {
			bool rev = how & 1, mapped = how & 2;
			struct folded_opts fo = {.strict = false, .reverse = rev};
			struct ftree a, b;
			struct folded_stats sa, sb;
			memset(&sa, 0, sizeof sa);
			memset(&sb, 0, sizeof sb);
			struct sbuf err = SBUF_INIT;
			ftree_init(&a, NULL, 0);
			T_EQ_I64(folded_read_mem(&a, in, len, "m", &fo, &sa, &err), 0);
			FILE *fp = mapped ? tmpfile() : fmemopen(in, len, "r");
			T_TRUE(fp != NULL);
			if (!fp)
				return;
			if (mapped) {
				T_EQ_I64(fwrite(in, 1, len, fp), len);
				fflush(fp);
				rewind(fp);
			}
			/* keep_min: 0 (everything), or a fraction of the total */
			int64_t keep = round % 2 ? a.total[0] / (int64_t)(2 + rnd(20)) : 0;
			ftree_init(&b, NULL, 0);
			struct ftrie *tr = ftrie_new(&b);
			T_EQ_I64(ftrie_read(tr, fp, "m", &fo, &sb, &err), 0);
			fclose(fp);
			T_EQ_I64(ftrie_total(tr), a.total[0]);
			T_EQ_I64(ftrie_scale(tr), a.scale);
			ftrie_build(tr, keep);
			ftrie_free(tr);
			T_EQ_I64(sb.stacks, sa.stacks);
			T_EQ_I64(sb.invalid, sa.invalid);
			T_EQ_I64(sb.lines, sa.lines);
			if (keep == 0) {
				char *fa = folded_of(&a), *fb = folded_of(&b);
				T_EQ_STR(fb, fa);
				T_EQ_I64(b.n, a.n);
				free(fa);
				free(fb);
			} else {
				/* every kept node exists with its exact total; every
				 * node of the full tree at least keep wide is kept */
				uint32_t wide = 0;
				for (uint32_t x = 1; x < a.n; x++)
					wide += a.total[x] >= keep;
				uint32_t kept_wide = 0;
				for (uint32_t x = 1; x < b.n; x++) {
					uint32_t y = same_node(&a, &b, x);
					T_TRUE(y != FT_NONE);
					if (y == FT_NONE)
						break;
					T_EQ_I64(b.total[x], a.total[y]);
					kept_wide += b.total[x] >= keep;
				}
				T_EQ_I64(kept_wide, wide);
			}
			ftree_release(&a);
			ftree_release(&b);
			sbuf_release(&err);
		}
		free(in);
	}
}

/* Lines longer than the read buffer, a last line without '\n', CRLF. */
T_TEST(test_ftrie__long_lines)
{
	size_t nf = 30000;
	char *in = malloc(nf * 4 + 64), *p = in;
	for (size_t i = 0; i < nf; i++)
		p += sprintf(p, "%sf%zu", i ? ";" : "", i % 7);
	p += sprintf(p, " 3\r\nf0;f1 2\nf0;f1 1");
	size_t len = (size_t)(p - in);
	for (int mapped = 0; mapped < 2; mapped++) {
		struct ftree a, b;
		struct folded_stats sa, sb;
		memset(&sa, 0, sizeof sa);
		memset(&sb, 0, sizeof sb);
		struct sbuf err = SBUF_INIT;
		ftree_init(&a, NULL, 0);
		T_EQ_I64(folded_read_mem(&a, in, len, "m", NULL, &sa, &err), 0);
		FILE *fp = mapped ? tmpfile() : fmemopen(in, len, "r");
		if (mapped) {
			fwrite(in, 1, len, fp);
			fflush(fp);
			rewind(fp);
		}
		ftree_init(&b, NULL, 0);
		struct ftrie *tr = ftrie_new(&b);
		T_EQ_I64(ftrie_read(tr, fp, "m", NULL, &sb, &err), 0);
		fclose(fp);
		ftrie_build(tr, 0);
		ftrie_free(tr);
		T_EQ_I64(sb.stacks, 3);
		T_EQ_I64(b.total[0], 6);
		char *fa = folded_of(&a), *fb = folded_of(&b);
		T_EQ_STR(fb, fa);
		free(fa);
		free(fb);
		ftree_release(&a);
		ftree_release(&b);
		sbuf_release(&err);
	}
	free(in);
}

int main(void)
{
	T_RUN(test_ftrie__random_same_tree);
	T_RUN(test_ftrie__long_lines);
	return t_done();
}
