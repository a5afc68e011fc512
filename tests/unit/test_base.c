/* test_base.c — unit tests of src/base: sbuf, pool, num, ofile, the large
 * blocks of gf.c. */
#include "t.h"

#include "base/mapguard.h"
#include "base/num.h"
#include "base/ofile.h"
#include "base/pool.h"
#include "base/sbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void sane(const struct sbuf *b)
{
	T_TRUE(b->buf != NULL);
	T_TRUE(b->buf[b->len] == 0);
	T_TRUE(b->alloc == 0 || b->len < b->alloc);
}

T_TEST(test_sbuf__invariants)
{
	struct sbuf b = SBUF_INIT;
	sane(&b);
	sbuf_addstr(&b, "abc");
	sane(&b);
	sbuf_addf(&b, "%d-%s", 42, "x");
	sane(&b);
	T_EQ_STR(b.buf, "abc42-x");
	for (int i = 0; i < 1000; i++)
		sbuf_addch(&b, 'z');
	sane(&b);
	T_EQ_I64(b.len, 1007);
	sbuf_reset(&b);
	sane(&b);
	T_EQ_I64(b.len, 0);
	sbuf_add(&b, "a\0b", 3);
	sane(&b);
	T_EQ_I64(b.len, 3);
	size_t n;
	char *d = sbuf_detach(&b, &n);
	T_EQ_I64(n, 3);
	sane(&b);
	free(d);
	/* a whole file appended, NUL bytes and all, across several reads */
	FILE *fp = tmpfile();
	T_TRUE(fp != NULL);
	if (fp) {
		for (int i = 0; i < 100000; i++)
			fputc(i % 7 ? 'a' + i % 26 : 0, fp);
		rewind(fp);
		sbuf_addstr(&b, "head:");
		T_TRUE(sbuf_add_file(&b, fp));
		sane(&b);
		T_EQ_I64(b.len, 100005);
		T_EQ_I64(b.buf[5], 0);
		T_EQ_I64(b.buf[5 + 99999], 'a' + 99999 % 26);
		fclose(fp);
	}
	sbuf_release(&b);
}

T_TEST(test_pool__intern)
{
	struct pool *p = pool_new();
	uint32_t a = pool_intern_str(p, "aten::mm");
	uint32_t b = pool_intern_str(p, "aten::add");
	T_EQ_I64(a, 0);
	T_EQ_I64(b, 1);
	T_EQ_I64(pool_intern_str(p, "aten::mm"), a);
	T_EQ_I64(pool_intern(p, "x\0y", 3), 2);
	T_EQ_I64(pool_intern(p, "x\0z", 3), 3);
	T_EQ_I64(pool_len(p, 2), 3);
	char name[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof name, "f%d", i);
		pool_intern_str(p, name);
	}
	T_EQ_I64(pool_count(p), 100004);
	T_EQ_STR(pool_str(p, pool_find(p, "f99999", 6)), "f99999");
	T_EQ_I64(pool_find(p, "nope", 4), UINT32_MAX);
	/* compacted: the table is gone (bytes drop), ids and strings stay,
	 * find still finds, and interning again rebuilds it */
	size_t before = pool_bytes(p);
	pool_compact(p);
	T_TRUE(pool_bytes(p) + 100004 * 4 <= before);
	T_EQ_STR(pool_str(p, 2), "x");
	T_EQ_I64(pool_find(p, "f77", 3), pool_find(p, "f77", 3));
	T_EQ_STR(pool_str(p, pool_find(p, "f77", 3)), "f77");
	T_EQ_I64(pool_find(p, "nope", 4), UINT32_MAX);
	T_EQ_I64(pool_intern_str(p, "aten::add"), b);
	T_EQ_I64(pool_intern_str(p, "new"), 100004);
	T_EQ_I64(pool_find(p, "new", 3), 100004);
	T_EQ_I64(pool_count(p), 100005);
	pool_free(p);
}

/* The hash seed is drawn at start-up; ids (what is printed) do not depend on it. */
T_TEST(test_pool__seeded_hash)
{
	T_TRUE(gf_hash_seed != 0);
	uint64_t saved = gf_hash_seed;
	uint32_t ids[2][500];
	char name[32];
	for (int r = 0; r < 2; r++) {
		gf_hash_seed = r ? saved * 3 + 1 : saved;
		struct pool *p = pool_new();
		for (int i = 0; i < 500; i++) {
			snprintf(name, sizeof name, "n%d", (i * 7919) % 300);
			ids[r][i] = pool_intern_str(p, name);
		}
		pool_free(p);
	}
	gf_hash_seed = saved;
	T_TRUE(memcmp(ids[0], ids[1], sizeof ids[0]) == 0);
	uint64_t h1 = gf_hash("abc", 3);
	gf_hash_seed = saved ^ 1;
	uint64_t h2 = gf_hash("abc", 3);
	gf_hash_seed = saved;
	T_TRUE(h1 != h2);
}

static int64_t P(const char *s, unsigned scale, unsigned flags, int *st)
{
	int64_t v = -777;
	*st = num_parse(s, strlen(s), scale, flags, &v);
	return v;
}

T_TEST(test_num__parse_exact_us_to_ns)
{
	int st;
	/* 19-digit absolute microseconds with 3 decimals: a double loses this */
	T_EQ_I64(P("1712345678901234.567", 3, 0, &st), 1712345678901234567LL);
	T_EQ_I64(st, NUM_OK);
	T_EQ_I64(P("1712345678901234", 3, 0, &st), 1712345678901234000LL);
	T_EQ_I64(P("12.5", 3, 0, &st), 12500);
	T_EQ_I64(P("12.", 3, 0, &st), 12000);
	T_EQ_I64(P("0.001", 3, 0, &st), 1);
	T_EQ_I64(P("1.5e3", 3, NUM_ALLOW_EXP, &st), 1500000);
	T_EQ_I64(st, NUM_OK);
	T_EQ_I64(P("1.7123456789012346e+15", 3, NUM_ALLOW_EXP, &st), 1712345678901234600LL);
	T_EQ_I64(P("-3.25", 3, NUM_ALLOW_SIGN, &st), -3250);
	T_EQ_I64(P("1.0005", 3, 0, &st), 1001);
	T_EQ_I64(st, NUM_ROUNDED);
	T_EQ_I64(P("123.45600000000001", 3, 0, &st), 123456);
	T_EQ_I64(st, NUM_ROUNDED);
	P("-1", 0, 0, &st);
	T_EQ_I64(st, NUM_INVALID);
	P("1e3", 0, 0, &st);
	T_EQ_I64(st, NUM_INVALID);
	P(".5", 3, NUM_ALLOW_EXP, &st);
	T_EQ_I64(st, NUM_INVALID);
	P("0x10", 0, 0, &st);
	T_EQ_I64(st, NUM_INVALID);
	P("", 0, 0, &st);
	T_EQ_I64(st, NUM_INVALID);
	P("99999999999999999999", 0, 0, &st);
	T_EQ_I64(st, NUM_OVERFLOW);
	T_EQ_I64(P("9223372036854775807", 0, 0, &st), INT64_MAX);
	T_EQ_I64(st, NUM_OK);
	T_EQ_I64(P("239807672958951499", 0, 0, &st), 239807672958951499LL);
}

T_TEST(test_num__decimals_and_format)
{
	T_EQ_I64(num_decimals("1.50", 4), 1);
	T_EQ_I64(num_decimals("12", 2), 0);
	T_EQ_I64(num_decimals("1.25e-1", 7), 3);
	struct sbuf b = SBUF_INIT;
	num_fmt(&b, 1500, 3);
	T_EQ_STR(b.buf, "1.5");
	sbuf_reset(&b);
	num_fmt(&b, -1, 3);
	T_EQ_STR(b.buf, "-0.001");
	sbuf_reset(&b);
	num_fmt(&b, 42, 0);
	T_EQ_STR(b.buf, "42");
	sbuf_reset(&b);
	num_fmt_fixed(&b, 1234567891, 3, 2, true);
	T_EQ_STR(b.buf, "1,234,567.89");
	sbuf_reset(&b);
	num_fmt_fixed(&b, 5, 0, 2, false);
	T_EQ_STR(b.buf, "5.00");
	sbuf_release(&b);
	int64_t q;
	T_TRUE(num_muldiv(10, 1, 4, &q));
	T_EQ_I64(q, 2); /* 2.5 -> 2 (half to even) */
	T_TRUE(num_muldiv(14, 1, 4, &q));
	T_EQ_I64(q, 4); /* 3.5 -> 4 */
}

/* Regular files are replaced atomically (nothing on abort); a path that is
 * not a regular file (here a link to /dev/null) is written in place: the
 * link must survive, where a rename would have replaced it by a file. */
T_TEST(test_ofile__regular_and_in_place)
{
	char dir[] = "/tmp/gf_ofile_XXXXXX";
	T_TRUE(mkdtemp(dir) != NULL);
	struct sbuf p = SBUF_INIT, l = SBUF_INIT, err = SBUF_INIT;
	sbuf_addf(&p, "%s/out", dir);
	sbuf_addf(&l, "%s/null", dir);
	struct ofile o;
	struct stat sb;
	T_EQ_I64(ofile_open(&o, p.buf, &err), GF_OK);
	fputs("abc", o.fp);
	ofile_abort(&o);
	T_TRUE(stat(p.buf, &sb) != 0);
	T_EQ_I64(ofile_open(&o, p.buf, &err), GF_OK);
	fputs("abc", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!stat(p.buf, &sb) && S_ISREG(sb.st_mode) && sb.st_size == 3);
	T_TRUE(symlink("/dev/null", l.buf) == 0);
	T_EQ_I64(ofile_open(&o, l.buf, &err), GF_OK);
	fputs("abc", o.fp);
	T_EQ_I64(ofile_commit(&o, &err), GF_OK);
	T_TRUE(!lstat(l.buf, &sb) && S_ISLNK(sb.st_mode));
	T_EQ_I64(ofile_open(&o, l.buf, &err), GF_OK);
	ofile_abort(&o);
	T_TRUE(!lstat(l.buf, &sb) && S_ISLNK(sb.st_mode));
	unlink(l.buf);
	unlink(p.buf);
	T_TRUE(rmdir(dir) == 0); /* no temporary file left behind */
	sbuf_release(&p);
	sbuf_release(&l);
	sbuf_release(&err);
}

/* A registered mapping whose file was cut short: the fault on a page past
 * the new end comes back through the armed recovery point, every time. */
T_TEST(test_mapguard__shrunk_file)
{
	char path[] = "/tmp/test_mapguard_XXXXXX";
	int fd = mkstemp(path);
	T_TRUE(fd >= 0);
	if (fd < 0)
		return;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *page = malloc(pg);
	memset(page, 'x', pg);
	for (int i = 0; i < 16; i++)
		T_EQ_I64((int64_t)write(fd, page, pg), (int64_t)pg);
	free(page);
	const size_t len = 16 * pg;
	const volatile char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	T_TRUE(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	mapguard_add((const void *)m, len);
	T_EQ_I64(m[8 * pg], 'x');
	T_TRUE(ftruncate(fd, (off_t)(4 * pg)) == 0); /* 4 pages left */
	volatile int caught = 0;
	for (int round = 0; round < 2; round++) {
		sigjmp_buf jb;
		if (sigsetjmp(jb, 0)) {
			caught++;
		} else {
			mapguard_arm(&jb);
			volatile char c = m[8 * pg]; /* past the new end: SIGBUS */
			(void)c;
		}
		mapguard_disarm();
	}
	T_EQ_I64(caught, 2);
	T_EQ_I64(m[pg], 'x'); /* what is left still reads */
	mapguard_remove((const void *)m);
	munmap((void *)m, len);
	close(fd);
	unlink(path);
}

/* The one percentage formatter: each rounding on hand-worked halves. */
T_TEST(test_base__num_fmt_pct)
{
	static const struct { int64_t p, w; unsigned d; int r; const char *want; } c[] = {
		{ 1, 3, 0, NUM_HALF_UP, "33" }, { 2, 3, 0, NUM_HALF_UP, "67" }, { 1, 200, 0, NUM_HALF_UP, "1" },
		{ 1, 8, 1, NUM_HALF_UP, "12.5" }, { 1, 16, 1, NUM_HALF_UP, "6.3" },
		{ 1, 800, 2, NUM_HALF_EVEN, "0.12" }, { 3, 800, 2, NUM_HALF_EVEN, "0.38" },
		{ 1, 800, 2, NUM_HALF_AWAY, "0.13" }, { -1, 800, 2, NUM_HALF_AWAY, "-0.13" },
		{ -1, 1000000, 2, NUM_HALF_AWAY, "-0.00" }, { 5, 4, 0, NUM_HALF_UP, "125" },
		{ INT64_MAX, 1, 2, NUM_HALF_UP, NULL }, { 1, 0, 2, NUM_HALF_UP, NULL }, { 1, -5, 2, NUM_HALF_UP, NULL },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct sbuf b = SBUF_INIT;
		bool ok = num_fmt_pct(&b, c[i].p, c[i].w, c[i].d, (enum num_round)c[i].r);
		if (!c[i].want)
			T_TRUE(!ok && b.len == 0);
		else
			T_EQ_STR(ok ? b.buf : "(false)", c[i].want);
		sbuf_release(&b);
	}
}

/* THPeligible of the mapping holding P (/proc/self/smaps), -1 when unknown */
static int thp_eligible(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	int in = 0, r = -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		int v;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "THPeligible: %d", &v) == 1) {
			r = v;
			break;
		}
	}
	fclose(f);
	return r;
}

/* the kernel's THP mode: 'a'lways, 'm'advise, 'n'ever, 0 unknown */
static char thp_mode(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	const char *b = strchr(line, '[');
	return b ? b[1] : 0;
}

/* the byte at I of the large blocks' test */
static unsigned char pat(size_t i)
{
	return (unsigned char)(i * 7 + i / 4099);
}

/* Large blocks (gf.c): advised for huge pages, grown by copying into a new
 * advised block; the content survives every growth and shrink, with huge
 * pages on and off. */
T_TEST(test_base__large_blocks)
{
	char mode = thp_mode();
	for (int on = 1; on >= 0; on--) {
		gf_alloc_hugepages(on);
		size_t n = 1 << 20;
		unsigned char *p = gf_xmalloc(n);
		for (size_t i = 0; i < n; i++)
			p[i] = pat(i);
		while (n < ((size_t)40 << 20)) {
			size_t m = n + n / 2 + 8;
			p = gf_xrealloc(p, m);
			for (size_t i = 0; i < n; i++)
				if (p[i] != pat(i)) {
					T_FAIL_("byte %zu of %zu lost growing to %zu (huge pages %s)", i, n, m, on ? "on" : "off");
					free(p);
					return;
				}
			for (size_t i = n; i < m; i++)
				p[i] = pat(i);
			n = m;
		}
		/* a grown block is advised when on; when off (and the kernel gives
		 * huge pages only where asked) it is not */
		int e = thp_eligible(p);
		if (e >= 0 && mode == 'm')
			T_EQ_I64(e, on);
		else if (e >= 0 && mode == 'a')
			T_EQ_I64(e, 1);
		p = gf_xrealloc(p, 5 << 20); /* a shrink keeps the head */
		for (size_t i = 0; i < (5u << 20); i++)
			if (p[i] != pat(i)) {
				T_FAIL_("byte %zu lost shrinking", i);
				break;
			}
		free(p);
		int *z = gf_xcalloc(3 << 20, sizeof *z), bad = 0;
		for (size_t i = 0; i < (3u << 20); i += 997)
			bad |= z[i];
		T_EQ_I64(bad, 0);
		e = thp_eligible(z);
		if (e >= 0 && mode == 'm')
			T_EQ_I64(e, on);
		free(z);
	}
	gf_alloc_hugepages(true);
}

int main(void)
{
	T_RUN(test_sbuf__invariants);
	T_RUN(test_pool__intern);
	T_RUN(test_pool__seeded_hash);
	T_RUN(test_num__parse_exact_us_to_ns);
	T_RUN(test_num__decimals_and_format);
	T_RUN(test_ofile__regular_and_in_place);
	T_RUN(test_mapguard__shrunk_file);
	T_RUN(test_base__num_fmt_pct);
	T_RUN(test_base__large_blocks);
	return t_done();
}
