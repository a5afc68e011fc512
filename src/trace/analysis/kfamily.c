/* kfamily.c — kernel family rules (see kfamily.h). */
#include "trace/analysis/kfamily.h"

#include "base/names.h"
#include "base/pool.h"
#include "trace/analysis/actx.h"
#include "base/rx.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct krule {
	struct rx *re; /* a REGEX rule (regcomp judges its syntax; rx matches it, linearly) */
	char *sub;     /* lower-case substring of a =SUBSTRING rule */
	char *family;
};

struct kfamily {
	struct krule *r;
	size_t n, cap;
	bool nodefaults;
	bool has_re;
	struct actx_cmap *cut; /* the distinct names cut to KFAMILY_MATCH_MAX for the regex rules, by
	                        * their 64-bit hash (a collision undercounts a warning by one) */
};

struct kfamily *kfamily_new(void)
{
	struct kfamily *k = gf_xcalloc(1, sizeof(struct kfamily));
	k->cut = gf_xcalloc(1, sizeof *k->cut);
	return k;
}

uint64_t kfamily_truncated(const struct kfamily *k)
{
	return k ? k->cut->n : 0;
}

void kfamily_free(struct kfamily *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		rx_free(k->r[i].re);
		free(k->r[i].sub);
		free(k->r[i].family);
	}
	free(k->r);
	actx_cmap_free(k->cut);
	free(k->cut);
	free(k);
}

int kfamily_parse(struct kfamily *k, const char *text, size_t n, const char *fname, struct sbuf *err)
{
	size_t line = 0, pos = 0;
	struct sbuf pat = SBUF_INIT;
	int rc = GF_OK;
	while (pos < n) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - s) : n - pos;
		pos += len + (nl ? 1 : 0);
		line++;
		if (len && s[len - 1] == '\r')
			len--;
		if (!len || s[0] == '#')
			continue;
		if (len == 11 && !memcmp(s, "!nodefaults", 11)) {
			k->nodefaults = true;
			continue;
		}
		const char *tab = memchr(s, '\t', len);
		if (!tab || tab == s || tab + 1 == s + len) {
			sbuf_setf(err, "'%s': line %zu: expected 'PATTERN<TAB>FAMILY'", fname, line);
			rc = GF_EINPUT;
			break;
		}
		struct krule r;
		memset(&r, 0, sizeof r);
		r.family = gf_xstrndup(tab + 1, (size_t)(s + len - tab - 1));
		for (char *p = r.family; *p; p++)
			if (*p == ';' || (unsigned char)*p < ' ')
				*p = ':';
		if (s[0] == '=') {
			r.sub = gf_xstrndup(s + 1, (size_t)(tab - s - 1));
			for (char *p = r.sub; *p; p++)
				if (*p >= 'A' && *p <= 'Z')
					*p = (char)(*p - 'A' + 'a');
		} else {
			sbuf_reset(&pat);
			sbuf_add(&pat, s, (size_t)(tab - s));
			const char *why = rx_too_costly(pat.buf, pat.len);
			if (why) {
				sbuf_setf(err, "'%s': line %zu: expected a regular expression without %s "
					  "(POSIX regex would need too much memory or time)", fname, line, why);
				free(r.family);
				rc = GF_EINPUT;
				break;
			}
			/* regcomp judges the syntax and words the errors; rx matches in linear time */
			regex_t re;
			int e = regcomp(&re, pat.buf, REG_EXTENDED | REG_ICASE | REG_NOSUB);
			if (e) {
				char msg[128];
				regerror(e, &re, msg, sizeof msg);
				sbuf_setf(err, "'%s': line %zu: expected a regular expression: %s", fname, line, msg);
				free(r.family);
				rc = GF_EINPUT;
				break;
			}
			regfree(&re);
			struct sbuf why2 = SBUF_INIT;
			r.re = rx_compile(pat.buf, pat.len, true, &why2);
			if (!r.re) {
				sbuf_setf(err, "'%s': line %zu: expected a regular expression gpuflame can match: %s", fname,
					  line, why2.buf);
				sbuf_release(&why2);
				free(r.family);
				rc = GF_EINPUT;
				break;
			}
			sbuf_release(&why2);
			k->has_re = true;
		}
		if (k->n == k->cap) {
			k->cap = k->cap ? k->cap * 2 : 8;
			k->r = gf_xreallocarray(k->r, k->cap, sizeof *k->r);
		}
		k->r[k->n++] = r;
	}
	sbuf_release(&pat);
	return rc;
}

int kfamily_load(struct kfamily *k, const char *path, struct sbuf *err)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		sbuf_setf(err, "'%s': %s", path, strerror(errno));
		return GF_EINPUT;
	}
	struct sbuf b = SBUF_INIT;
	bool bad = !sbuf_add_file(&b, fp);
	fclose(fp);
	if (bad) {
		sbuf_setf(err, "'%s': read error", path);
		sbuf_release(&b);
		return GF_EINPUT;
	}
	int rc = kfamily_parse(k, b.buf, b.len, path, err);
	sbuf_release(&b);
	return rc;
}

/*
 * ROCm composable kernels wrap every kernel in one entry template,
 * ck_tile::kentry<N, Kernel<...>>: its family is the wrapped kernel's name
 * ("ck_tile::Rmsnorm2dFwd"), not "ck_tile::kentry" for all of them. Mangled:
 * "_ZN7ck_tile6kentryI" then literals "L...E" then "N" and the kernel's
 * nested name ("S_" is ck_tile again); demangled: the template argument
 * after the first ", ". @return whether out got the family.
 */
static bool ck_tile_entry(const char *name, size_t n, struct sbuf *out)
{
	static const char mpre[] = "_ZN7ck_tile6kentryI";
	size_t mk = sizeof mpre - 1;
	if (n > mk && !memcmp(name, mpre, mk)) {
		size_t i = mk;
		while (i < n && name[i] == 'L') { /* template literals: L <type> <value> E */
			const char *e = memchr(name + i, 'E', n - i);
			if (!e)
				return false;
			i = (size_t)(e - name) + 1;
		}
		if (i + 1 >= n || name[i] != 'N')
			return false;
		i++;
		size_t start = out->len;
		while (i < n) {
			if (i + 1 < n && name[i] == 'S' && name[i + 1] == '_') {
				sbuf_addstr(out, out->len > start ? "::ck_tile" : "ck_tile");
				i += 2;
				continue;
			}
			if (name[i] < '1' || name[i] > '9')
				break;
			size_t len = 0;
			while (i < n && name[i] >= '0' && name[i] <= '9' && len < 100000)
				len = len * 10 + (size_t)(name[i++] - '0');
			if (len > n - i)
				break;
			if (out->len > start)
				sbuf_addstr(out, "::");
			sbuf_add(out, name + i, len);
			i += len;
		}
		if (out->len > start && memchr(out->buf + start, ':', out->len - start))
			return true;
		sbuf_setlen(out, start);
		return false;
	}
	const char *s = name, *e = name + n;
	if (n > 5 && !memcmp(s, "void ", 5))
		s += 5;
	static const char dpre[] = "ck_tile::kentry<";
	size_t dk = sizeof dpre - 1;
	if ((size_t)(e - s) <= dk || memcmp(s, dpre, dk))
		return false;
	const char *c = memchr(s + dk, ',', (size_t)(e - s - dk));
	if (!c)
		return false;
	c++;
	while (c < e && *c == ' ')
		c++;
	const char *f = c;
	while (f < e && *f != '<' && *f != '(' && *f != ',' && *f != '>')
		f++;
	if (f == c)
		return false;
	sbuf_add(out, c, (size_t)(f - c));
	return true;
}

void kfamily_of(const struct kfamily *k, const char *name, size_t n, struct sbuf *out)
{
	sbuf_reset(out);
	if (k) {
		char *z = NULL;
		for (size_t i = 0; i < k->n; i++) {
			const struct krule *r = &k->r[i];
			bool hit;
			if (r->re) {
				if (!z) {
					/* the regex rules see at most KFAMILY_MATCH_MAX bytes,
					 * cut at a UTF-8 boundary, up to a NUL (as regexec did) */
					size_t m = n;
					if (m > KFAMILY_MATCH_MAX) {
						m = KFAMILY_MATCH_MAX;
						while (m > KFAMILY_MATCH_MAX - 3 && ((unsigned char)name[m] & 0xc0) == 0x80)
							m--;
						if (memchr(name, '\0', m) == NULL)
							actx_cmap_get(k->cut, gf_hash(name, n));
					}
					z = gf_xstrndup(name, m);
				}
				hit = rx_search(r->re, z, strlen(z));
			} else {
				hit = names_contains_ci(name, n, r->sub);
			}
			if (hit) {
				free(z);
				sbuf_addstr(out, r->family);
				return;
			}
		}
		free(z);
	}
	if (!k || !k->nodefaults) {
		const char *fam = names_kernel_family(name, n, NULL); /* the one kernel classifier */
		if (fam) {
			sbuf_addstr(out, fam);
			return;
		}
	}
	if (ck_tile_entry(name, n, out))
		return;
	/* a mangled name (ROCm traces): its qualified identifier */
	if (n > 3 && name[0] == '_' && name[1] == 'Z') {
		size_t i = 2, start = out->len;
		bool nested = name[i] == 'N';
		if (nested)
			i++;
		while (i < n && name[i] >= '1' && name[i] <= '9') {
			size_t len = 0;
			while (i < n && name[i] >= '0' && name[i] <= '9' && len < 100000)
				len = len * 10 + (size_t)(name[i++] - '0');
			if (len > n - i)
				break;
			if (out->len > start)
				sbuf_addstr(out, "::");
			sbuf_add(out, name + i, len);
			i += len;
			if (!nested)
				break;
		}
		if (out->len > start)
			return;
	}
	/* demangled name cut at its template arguments */
	const char *s = name, *e = name + n;
	if (n > 5 && !memcmp(s, "void ", 5))
		s += 5;
	const char *c = s;
	static const char anon[] = "(anonymous namespace)"; /* part of the qualified name */
	size_t an = sizeof anon - 1;
	while (c < e && *c != '<' && (*c != '(' || ((size_t)(e - c) >= an && !memcmp(c, anon, an)))) {
		if (*c == '(')
			c += an;
		else
			c++;
	}
	while (c > s && c[-1] == ' ')
		c--;
	if (c == s) {
		s = name;
		c = e;
	}
	sbuf_add(out, s, (size_t)(c - s));
}
