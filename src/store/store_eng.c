/*
 * store_eng.c — the engine interface's dispatch (store_eng.h): which engine
 * a URL names, and the statement calls through the engine's table.
 */
#include "store/store_eng.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- passwords out of messages ---- */

/* The userinfo's password: [*b, *e) between "://user:" and the last '@'
 * before the query. @return false when there is none. */
static bool userinfo_pw(const char *url, const char **b, const char **e)
{
	const char *s = strstr(url, "://");
	if (!s)
		return false;
	s += 3;
	const char *end = s + strcspn(s, "?#"), *at = NULL;
	for (const char *p = s; p < end; p++)
		if (*p == '@')
			at = p;
	const char *colon = at ? memchr(s, ':', (size_t)(at - s)) : NULL;
	if (!colon)
		return false;
	*b = colon + 1;
	*e = at;
	return true;
}

/* The next password=VALUE keyword at or after p (after the start, '?',
 * '&' or a blank; blanks around '=' allowed; VALUE up to '&', '#' or a
 * blank, or 'quoted' with \' escapes): [*b, *e). @return false at the end. */
static bool keyword_pw(const char *url, const char *p, const char **b, const char **e)
{
	for (; (p = strcasestr(p, "password")); p += 8) {
		if (p > url && !strchr("?& \t", p[-1]))
			continue;
		const char *v = p + 8;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		const char *x = v;
		if (*x == '\'') {
			for (x++; *x && *x != '\''; x++)
				if (*x == '\\' && x[1])
					x++;
			if (*x)
				x++;
		} else {
			x += strcspn(x, "&# \t");
		}
		*b = v;
		*e = x;
		return true;
	}
	return false;
}

char *store_eng_redact(const char *url)
{
	struct sbuf o = SBUF_INIT;
	const char *p = url, *b, *e;
	if (userinfo_pw(url, &b, &e)) {
		sbuf_add(&o, p, (size_t)(b - p));
		sbuf_addstr(&o, "***");
		p = e;
	}
	while (keyword_pw(url, p, &b, &e)) {
		sbuf_add(&o, p, (size_t)(b - p));
		sbuf_addstr(&o, "***");
		p = e;
	}
	sbuf_addstr(&o, p);
	return sbuf_detach(&o, NULL);
}

static int hexd(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

/* Adds s[0..n) and its percent-decoded form to the secrets. */
static void add_secret(struct sbuf *sec, size_t *nsec, const char *s, size_t n)
{
	if (!n || *nsec >= 14)
		return;
	sbuf_add(&sec[(*nsec)++], s, n);
	struct sbuf d = SBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && n - i >= 3 && hexd(s[i + 1]) >= 0 && hexd(s[i + 2]) >= 0) {
			sbuf_addch(&d, hexd(s[i + 1]) * 16 + hexd(s[i + 2]));
			i += 2;
		} else {
			sbuf_addch(&d, s[i]);
		}
	}
	if (d.len != n)
		sbuf_add(&sec[(*nsec)++], d.buf, d.len);
	sbuf_release(&d);
}

void store_eng_scrub(const char *url, struct sbuf *msg)
{
	struct sbuf sec[16];
	size_t nsec = 0;
	for (int i = 0; i < 16; i++)
		sbuf_init(&sec[i], 0);
	const char *p = url, *b, *e;
	if (userinfo_pw(url, &b, &e))
		add_secret(sec, &nsec, b, (size_t)(e - b));
	for (; keyword_pw(url, p, &b, &e); p = e) {
		if (e - b >= 2 && *b == '\'')
			add_secret(sec, &nsec, b + 1, (size_t)(e - b - 2));
		add_secret(sec, &nsec, b, (size_t)(e - b));
	}
	for (size_t k = 0; k < nsec && msg->len; k++) {
		const char *w = sec[k].buf;
		size_t wn = sec[k].len;
		if (!memmem(msg->buf, msg->len, w, wn))
			continue;
		const char *q = memmem(msg->buf, msg->len, "': ", 3);
		if (wn < 4) { /* too short to replace alone: withhold the engine's words */
			sbuf_setlen(msg, q ? (size_t)(q - msg->buf) + 3 : 0);
			sbuf_addstr(msg, "(the database's message is withheld: it holds the password)");
			break;
		}
		struct sbuf o = SBUF_INIT;
		const char *m = msg->buf, *end = m + msg->len, *hit;
		while ((hit = memmem(m, (size_t)(end - m), w, wn))) {
			sbuf_add(&o, m, (size_t)(hit - m));
			sbuf_addstr(&o, "***");
			m = hit + wn;
		}
		sbuf_add(&o, m, (size_t)(end - m));
		sbuf_release(msg);
		*msg = o;
	}
	for (int i = 0; i < 16; i++)
		sbuf_release(&sec[i]);
}

int store_eng_open(struct store_eng **e, const char *url, unsigned flags, struct sbuf *err)
{
	*e = NULL;
	int rc;
	if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)) {
		rc = store_eng_pg_open(e, url, flags, err);
	} else {
		const char *path = !strncmp(url, "sqlite:", 7) ? url + 7 : url;
		if (!*path) {
			sbuf_setf(err, "empty database path");
			return GF_EUSAGE;
		}
		rc = store_eng_sqlite_open(e, path, flags, err);
	}
	if (rc)
		store_eng_scrub(url, err);
	return rc;
}

void store_eng_close(struct store_eng *e)
{
	if (e)
		e->ops->close(e);
}

void store_eng_dialect(const struct store_eng *e, const char *sql, struct sbuf *out)
{
	bool pg = !strcmp(e->ops->kind, "postgresql");
	sbuf_reset(out);
	for (const char *p = sql; *p;) {
		if (!strncmp(p, "WITHOUT_ROWID", 13)) { /* SQLite: the table is its primary key's b-tree */
			sbuf_addstr(out, pg ? "" : "WITHOUT ROWID");
			p += 13;
		} else if (!strncmp(p, "BLOB", 4)) {
			sbuf_addstr(out, pg ? "BYTEA" : "BLOB");
			p += 4;
		} else {
			sbuf_addch(out, *p++);
		}
	}
}

int store_eng_step(struct store_stmt *st, struct sbuf *err) { return st->ops->step(st, err); }
void store_eng_bind_i64(struct store_stmt *st, int i, int64_t v) { st->ops->bind_i64(st, i, v); }
void store_eng_bind_text(struct store_stmt *st, int i, const char *s, size_t n) { st->ops->bind_text(st, i, s, n, false); }
void store_eng_bind_blob(struct store_stmt *st, int i, const char *s, size_t n) { st->ops->bind_text(st, i, s, n, true); }
int64_t store_eng_col_i64(struct store_stmt *st, int i) { return st->ops->col_i64(st, i); }
const char *store_eng_col_text(struct store_stmt *st, int i, size_t *n) { return st->ops->col_text(st, i, n); }
bool store_eng_col_null(struct store_stmt *st, int i) { return st->ops->col_null(st, i); }
void store_eng_reset(struct store_stmt *st) { st->ops->reset(st); }
void store_eng_free(struct store_stmt *st)
{
	if (st)
		st->ops->free(st);
}
