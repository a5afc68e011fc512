/*
 * test_http.c — push's HTTP client pieces (store/http.h, store/push.h) and
 * the store's password redaction (store/store_eng.h): the reply parser on
 * valid and hostile replies, fed whole and split at every byte (the same
 * verdict either way), Retry-After in its three date forms, the capped
 * backoff, URL checks and redaction.
 */
#include "store/http.h"
#include "store/push.h"
#include "store/store_eng.h"
#include "t.h"

#include <time.h>

/* The verdict on a reply fed whole, then split at every byte: they agree.
 * @return the status (0 on error); *body the decoded body. */
static int parse(const char *s, size_t n, struct sbuf *body)
{
	struct http_reply r;
	struct sbuf err = SBUF_INIT;
	sbuf_init(&r.body, 0);
	int rc = http_parse_reply(s, n, &r, &err);
	int st = rc ? 0 : r.status;
	sbuf_reset(body);
	if (!rc)
		sbuf_add(body, r.body.buf ? r.body.buf : "", r.body.len);
	for (size_t cut = 0; cut <= n; cut++) {
		struct http_reply r2;
		struct http_rx x;
		sbuf_init(&r2.body, 0);
		http_rx_init(&x, &r2, 0);
		size_t used = 0, used2 = 0;
		int k = http_rx_feed(&x, s, cut, &used, &err);
		if (k == HTTP_RX_MORE)
			k = http_rx_feed(&x, s + cut, n - cut, &used2, &err);
		if (k == HTTP_RX_MORE)
			k = http_rx_eof(&x, &err);
		int st2 = k == HTTP_RX_DONE ? r2.status : 0;
		if (st2 != st || (st && (r2.body.len != body->len || memcmp(r2.body.buf ? r2.body.buf : "", body->buf ? body->buf : "", body->len)))) {
			T_FAIL_("split at %zu: status %d, whole %d", cut, st2, st);
			cut = n;
		}
		http_rx_release(&x);
		http_reply_release(&r2);
	}
	http_reply_release(&r);
	sbuf_release(&err);
	return st;
}

#define P(lit, body) parse(lit, sizeof lit - 1, body)

T_TEST(test_http__valid_replies)
{
	struct sbuf b = SBUF_INIT;
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", &b), 200);
	T_EQ_STR(b.buf, "ok");
	T_EQ_I64(P("HTTP/1.0 204 No Content\r\n\r\n", &b), 204);
	T_EQ_I64(P("HTTP/1.1 400 \r\ncontent-length:  5 \r\n\r\nerror", &b), 400);
	T_EQ_STR(b.buf, "error");
	T_EQ_I64(P("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", &b), 200); /* no reason */
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n", &b), 200);
	T_EQ_STR(b.buf, "abcde");
	T_EQ_I64(P("HTTP/1.1 200 OK\r\n\r\nto the close", &b), 200); /* close-delimited */
	T_EQ_STR(b.buf, "to the close");
	T_EQ_I64(P("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", &b), 201);
	T_EQ_I64(P("HTTP/1.1 200 OK\nContent-Length: 1\n\nz", &b), 200); /* bare LF lines */
	T_EQ_STR(b.buf, "z");
	sbuf_release(&b);
}

T_TEST(test_http__hostile_replies)
{
	struct sbuf b = SBUF_INIT;
	T_EQ_I64(P("HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200\0OK\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200OK\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 O\x01K\r\nContent-Length: 0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n12345", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\n folded: x\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789", &b), 0); /* cut body */
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabc", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n", &b), 0);
	T_EQ_I64(P("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n", &b), 0); /* head never ends */
	T_EQ_I64(P("HTTP/1.1 101 Switching\r\n\r\n", &b), 0);
	T_EQ_I64(P("", &b), 0);
	/* endless headers: refused past 64 KiB, without waiting for the end */
	struct sbuf h = SBUF_INIT;
	sbuf_addstr(&h, "HTTP/1.1 200 OK\r\n");
	while (h.len < HTTP_HEAD_MAX + 100)
		sbuf_addstr(&h, "X-Endless: hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh\r\n");
	struct http_reply r;
	struct http_rx x;
	struct sbuf err = SBUF_INIT;
	sbuf_init(&r.body, 0);
	http_rx_init(&x, &r, 0);
	size_t used;
	T_TRUE(http_rx_feed(&x, h.buf, h.len, &used, &err) < 0);
	T_TRUE(strstr(err.buf, "longer than 64 KiB") != NULL);
	http_rx_release(&x);
	http_reply_release(&r);
	sbuf_release(&h);
	sbuf_release(&err);
	sbuf_release(&b);
}

T_TEST(test_http__retry_after)
{
	int64_t now = 784111777; /* Sun, 06 Nov 1994 08:49:37 GMT */
	T_EQ_I64(http_retry_after("120", 3, now), 120);
	T_EQ_I64(http_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", 29, now), 10);
	T_EQ_I64(http_retry_after("Sunday, 06-Nov-94 08:50:37 GMT", 30, now), 60);
	T_EQ_I64(http_retry_after("Sun Nov  6 08:49:38 1994", 24, now), 1);
	T_EQ_I64(http_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", 29, now), 0); /* past */
	T_EQ_I64(http_retry_after("soon", 4, now), -1);
	T_EQ_I64(http_retry_after("-5", 2, now), -1);
	T_EQ_I64(http_retry_after("", 0, now), -1);
}

T_TEST(test_http__backoff_capped)
{
	T_EQ_I64(push_backoff_ms(0, -1), 500);
	T_EQ_I64(push_backoff_ms(1, -1), 1000);
	T_EQ_I64(push_backoff_ms(5, -1), 16000);
	T_EQ_I64(push_backoff_ms(6, -1), PUSH_BACKOFF_MAX_MS);
	long long sum = 0;
	for (int k = 0; k < 20; k++) {
		T_TRUE(push_backoff_ms(k, -1) <= PUSH_BACKOFF_MAX_MS);
		sum += push_backoff_ms(k, -1);
	}
	T_TRUE(sum <= 20LL * PUSH_BACKOFF_MAX_MS); /* --retries 20: minutes, not days */
	T_EQ_I64(push_backoff_ms(0, 7), 7000);             /* the server's Retry-After */
	T_EQ_I64(push_backoff_ms(3, 0), 0);
	T_EQ_I64(push_backoff_ms(0, 100000), PUSH_RETRY_AFTER_MAX_S * 1000L);
}

T_TEST(test_http__url_checks)
{
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(http_url_check("http://127.0.0.1:4040", &err), GF_OK);
	T_EQ_I64(http_url_check("http://[::1]:4040/prefix/", &err), GF_OK);
	T_EQ_I64(http_url_check("http://u:p%40ss@h", &err), GF_OK);
	T_EQ_I64(http_url_check("http://h:4040/x\r\nX-Evil: 1", &err), GF_EUSAGE);
	T_TRUE(strstr(err.buf, "control byte") && !strstr(err.buf, "Evil"));
	T_EQ_I64(http_url_check("http://h:4040/\n", &err), GF_EUSAGE);
	T_EQ_I64(http_url_check("http://h:4040/a b", &err), GF_EUSAGE);
	T_EQ_I64(http_url_check("http://h:99999", &err), GF_EUSAGE);
	T_EQ_I64(http_url_check("http://h:4040/p?x=1", &err), GF_EUSAGE);
	T_EQ_I64(http_url_check("http://u:p%zz@h", &err), GF_EUSAGE);
	T_EQ_I64(http_url_check("http://alice:s3cretpw@h:0", &err), GF_EUSAGE);
	T_TRUE(!strstr(err.buf, "s3cret") && strstr(err.buf, "http://alice:***@h:0"));
	T_EQ_I64(http_url_check("https://alice:s3cretpw@h", &err), GF_EUSAGE);
	T_TRUE(!strstr(err.buf, "s3cret"));
	sbuf_release(&err);
}

T_TEST(test_http__redact)
{
	static const char *const c[][2] = {
		{ "postgresql://alice:s3cret@db/x", "postgresql://alice:***@db/x" },
		{ "postgresql://alice:pa/ss@db/x", "postgresql://alice:***@db/x" },
		{ "postgresql:///x?host=/tmp&password=s3cret", "postgresql:///x?host=/tmp&password=***" },
		{ "postgresql:///x?password=s3cret&host=/tmp", "postgresql:///x?password=***&host=/tmp" },
		{ "host=/tmp password=s3cret dbname=x", "host=/tmp password=*** dbname=x" },
		{ "host=/tmp password = 's3 c\\'ret' dbname=x", "host=/tmp password = *** dbname=x" },
		{ "http://alice:s3cret@h:4040", "http://alice:***@h:4040" },
		{ "http://alice@h:4040", "http://alice@h:4040" },
		{ "/tmp/my_password=x.db", "/tmp/my_password=x.db" },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *r = store_eng_redact(c[i][0]);
		T_EQ_STR(r, c[i][1]);
		free(r);
	}
	struct sbuf m = SBUF_INIT;
	sbuf_addstr(&m, "'x': cannot connect: invalid percent-encoded token: \"s3cret%zz\"");
	store_eng_scrub("postgresql://alice:s3cret%zz@db/x", &m);
	T_TRUE(!strstr(m.buf, "s3cret"));
	sbuf_setf(&m, "'x': cannot connect: bad token \"ab\"");
	store_eng_scrub("postgresql://alice:ab@db/x", &m);
	T_TRUE(!strstr(m.buf, "\"ab\"") && strstr(m.buf, "withheld"));
	sbuf_release(&m);
}

int main(void)
{
	T_RUN(test_http__valid_replies);
	T_RUN(test_http__hostile_replies);
	T_RUN(test_http__retry_after);
	T_RUN(test_http__backoff_capped);
	T_RUN(test_http__url_checks);
	T_RUN(test_http__redact);
	return t_done();
}
