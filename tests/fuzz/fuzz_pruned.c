/*
 * fuzz_pruned.c — libFuzzer target: the tail-compressed trie
 * (stacks/ftrie.h) against the folded reader.
 *
 * The first input byte picks options (reverse; read through a memory stream,
 * i.e. fread and copied tails, or through a memfd, i.e. a mapped regular
 * file; keep_min 0 or a share of the total), the rest is folded text.
 * Checks: no crash or sanitizer report; both readers agree on the result
 * code, the statistics and the total; with keep_min 0 the trie builds the
 * very same tree (same node count, same folded text); with keep_min > 0
 * every kept node has its exact total. Two-count input must be refused
 * (FTRIE_UNSUPPORTED) exactly when the folded reader makes a differential
 * tree. The token limit is 512 bytes, so a long line is reachable: both
 * readers must refuse it at the same line and byte, in the same words.
 */
#include "base/limits.h"
#include "stacks/ftrie.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"
#include "../unit/tree_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	gf_limits.token = 512;
	unsigned flags = data[0];
	const char *in = (const char *)data + 1;
	size_t len = size - 1;
	struct folded_opts fo = {.strict = (flags & 8) != 0, .reverse = (flags & 1) != 0};
	struct ftree a, b;
	struct folded_stats sa, sb;
	memset(&sa, 0, sizeof sa);
	memset(&sb, 0, sizeof sb);
	struct sbuf ea = SBUF_INIT, eb = SBUF_INIT;
	ftree_init(&a, NULL, 0);
	int ra = folded_read_mem(&a, in, len, "fuzz", &fo, &sa, &ea);
	FILE *fp = NULL;
	if (flags & 2) {
		int fd = memfd_create("fuzz", 0);
		if (fd < 0 || (len && write(fd, in, len) != (ssize_t)len) || lseek(fd, 0, SEEK_SET))
			abort();
		fp = fdopen(fd, "rb");
	} else {
		fp = fmemopen(len ? (void *)in : (void *)"", len, "rb");
	}
	if (!fp)
		abort();
	ftree_init(&b, NULL, 0);
	struct ftrie *tr = ftrie_new(&b);
	int rb = ftrie_read(tr, fp, "fuzz", &fo, &sb, &eb);
	fclose(fp);
	if (rb == FTRIE_UNSUPPORTED) {
		/* only for two-count input (or a later line with two counts
		 * when the folded reader stopped at an error first) */
		if (ra == GF_OK && a.ncols != 2)
			abort();
	} else {
		if (ra != rb || (ra == GF_OK && a.ncols == 2))
			abort();
		if (ra == GF_EINTERNAL && strcmp(ea.buf, eb.buf))
			abort();
		if (sa.lines != sb.lines || sa.stacks != sb.stacks || sa.invalid != sb.invalid ||
		    sa.comments != sb.comments || sa.blank != sb.blank || sa.rounded != sb.rounded)
			abort();
		if (ra == GF_OK) {
			if (ftrie_total(tr) != a.total[0] || ftrie_scale(tr) != a.scale)
				abort();
			int64_t keep = (flags & 4) ? a.total[0] / (2 + (flags >> 4)) : 0;
			ftrie_build(tr, keep);
			if (keep == 0) {
				char *fa = folded_of(&a), *fb = folded_of(&b);
				if (a.n != b.n || strcmp(fa, fb))
					abort();
				free(fa);
				free(fb);
			} else {
				for (uint32_t x = 1; x < b.n; x++) {
					uint32_t y = same_node(&a, &b, x);
					if (y == FT_NONE || a.total[y] != b.total[x])
						abort();
				}
			}
		}
	}
	ftrie_free(tr);
	ftree_release(&a);
	ftree_release(&b);
	sbuf_release(&ea);
	sbuf_release(&eb);
	return 0;
}
