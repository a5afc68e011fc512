/*
 * test_jfast.c — the JSON fast paths beside jscan (src/trace/read/jfast.h):
 * every number of jfast_cases.h (expected values from tests/gen/jfast_cases.py,
 * exact Decimal arithmetic) read by the full readers, and by the one-pass
 * paths alone, which must either give the same value or leave the cursor
 * where it was; a number at the very end of the text asks for more; the
 * member separators and known-key words.
 */
#include "t.h"

#include "base/num.h"
#include "trace/read/jfast.h"

#include <string.h>

#include "jfast_cases.h"

/* text + tail in a buffer with jscan's padding; c over all of it. */
struct padded {
	char b[256];
	struct jcur c;
};

static void pad_set(struct padded *x, const char *text, const char *tail)
{
	memset(x->b, 0, sizeof x->b);
	size_t n = strlen(text), m = strlen(tail);
	memcpy(x->b, text, n);
	memcpy(x->b + n, tail, m);
	struct jcur c = { x->b, x->b + n + m, JS_OK, NULL, NULL, NULL, 0 };
	x->c = c;
}

T_TEST(test_jfast__times)
{
	for (size_t i = 0; i < GF_ARRAY_LEN(us_cases); i++) {
		const struct us_case *k = &us_cases[i];
		struct padded x;
		pad_set(&x, k->text, ",");
		int64_t v;
		int dec = -2, st = -9;
		if (!jfast_read_us(&x.c, (unsigned char)x.b[0], &v, &dec, &st)) {
			T_FAIL_("%s: read failed", k->text);
			return;
		}
		if (st != k->st || v != k->ns || ((st == NUM_OK || st == NUM_ROUNDED) && dec != k->dec))
			T_FAIL_("%s: st %d ns %lld dec %d, expected st %d ns %lld dec %d", k->text, st, (long long)v, dec,
				k->st, (long long)k->ns, k->dec);
		T_EQ_I64(x.c.p - x.b, strlen(k->text)); /* the whole token, not the ',' */
		/* the one-pass path alone: the same answer, or the cursor untouched */
		pad_set(&x, k->text, ",");
		dec = -2;
		if (jfast_us(&x.c, &v, &dec)) {
			if (k->st != NUM_OK || v != k->ns || dec != k->dec)
				T_FAIL_("%s: one-pass %lld dec %d", k->text, (long long)v, dec);
		} else {
			T_EQ_I64(x.c.p - x.b, 0);
		}
	}
}

T_TEST(test_jfast__integers)
{
	for (size_t i = 0; i < GF_ARRAY_LEN(int_cases); i++) {
		const struct int_case *k = &int_cases[i];
		struct padded x;
		pad_set(&x, k->text, "}");
		int64_t v = 5;
		if (!jfast_read_int(&x.c, (unsigned char)x.b[0], &v)) {
			T_FAIL_("%s: read failed", k->text);
			return;
		}
		if (v != k->v)
			T_FAIL_("%s: %lld, expected %lld", k->text, (long long)v, (long long)k->v);
		T_EQ_I64(x.c.p - x.b, strlen(k->text));
		pad_set(&x, k->text, "}");
		if (jfast_int(&x.c, &v)) {
			if (v != k->v)
				T_FAIL_("%s: one-pass %lld", k->text, (long long)v);
		} else {
			T_EQ_I64(x.c.p - x.b, 0);
		}
		/* skipping it moves past the same token */
		pad_set(&x, k->text, "}");
		T_TRUE(jfast_skip(&x.c, (unsigned char)x.b[0], 1));
		T_EQ_I64(x.c.p - x.b, strlen(k->text));
	}
}

/* A number that ends the text may go on in the next chunk: JS_MORE, and the
 * one-pass paths leave it alone. */
T_TEST(test_jfast__number_at_end_asks_for_more)
{
	static const char *const texts[] = { "1683564901548726", "12.5", "7", "-3" };
	for (size_t i = 0; i < GF_ARRAY_LEN(texts); i++) {
		struct padded x;
		int64_t v;
		int dec, st;
		pad_set(&x, texts[i], "");
		T_TRUE(!jfast_us(&x.c, &v, &dec) && x.c.p == x.b);
		T_TRUE(!jfast_read_us(&x.c, (unsigned char)x.b[0], &v, &dec, &st));
		T_EQ_I64(x.c.st, JS_MORE);
		pad_set(&x, texts[i], "");
		T_TRUE(!jfast_read_int(&x.c, (unsigned char)x.b[0], &v));
		T_EQ_I64(x.c.st, JS_MORE);
	}
}

T_TEST(test_jfast__members_and_keys)
{
	struct padded x;
	pad_set(&x, ", \"k\"", "");
	T_EQ_I64(jfast_next_member(&x.c, '}', "x"), 1);
	T_EQ_I64(x.c.p - x.b, 2);
	pad_set(&x, " \n }", "");
	T_EQ_I64(jfast_next_member(&x.c, '}', "x"), 0);
	T_EQ_I64(x.c.p - x.b, 4);
	pad_set(&x, "]", "");
	T_EQ_I64(jfast_next_member(&x.c, '}', "',' or '}'"), -1);
	T_EQ_I64(x.c.st, JS_ERR);
	T_EQ_STR(x.c.what, "',' or '}'");
	pad_set(&x, ",\n  ", "");
	T_EQ_I64(jfast_next_member(&x.c, '}', "x"), -1);
	T_EQ_I64(x.c.st, JS_MORE);
	pad_set(&x, ", 5", "");
	T_EQ_I64(jfast_next_member(&x.c, '}', "x"), -1);
	T_EQ_STR(x.c.what, "a key string");

	int ch = 0;
	pad_set(&x, "\"ph\": \"X\"", "");
	T_TRUE(jfast_key_is(&x.c, JFAST_LIT6("\"ph\": "), 6, &ch));
	T_EQ_I64(ch, '"');
	T_EQ_I64(x.c.p - x.b, 6);
	pad_set(&x, "\"ph\":  \"X\"", ""); /* two blanks: not the usual spelling */
	T_TRUE(!jfast_key_is(&x.c, JFAST_LIT6("\"ph\": "), 6, &ch) && x.c.p == x.b);
	pad_set(&x, "\"pid\": 1", "");
	T_TRUE(!jfast_key_is(&x.c, JFAST_LIT6("\"ph\": "), 6, &ch) && x.c.p == x.b);
	pad_set(&x, "\"ph\": ", ""); /* the value is not in the text yet */
	T_TRUE(!jfast_key_is(&x.c, JFAST_LIT6("\"ph\": "), 6, &ch) && x.c.p == x.b);

	pad_set(&x, "{ }", "");
	T_EQ_I64(jfast_obj_enter(&x.c, "x"), 0);
	pad_set(&x, "{\"a\": 1}", "");
	T_EQ_I64(jfast_obj_enter(&x.c, "x"), 1);
	T_EQ_I64(x.c.p - x.b, 1);
	pad_set(&x, "{1}", "");
	T_EQ_I64(jfast_obj_enter(&x.c, "a key"), -1);
	T_EQ_STR(x.c.what, "a key");

	unsigned seen = 0;
	T_TRUE(!JFAST_SEEN_TWICE(seen, 3));
	T_TRUE(JFAST_SEEN_TWICE(seen, 3));
	pad_set(&x, "\"a\"", "");
	T_TRUE(!jfast_dup_key(&x.c, x.b, "one \"a\" key"));
	T_EQ_STR(x.c.got, "a second one (duplicate keys are refused)");
}

int main(void)
{
	T_RUN(test_jfast__times);
	T_RUN(test_jfast__integers);
	T_RUN(test_jfast__number_at_end_asks_for_more);
	T_RUN(test_jfast__members_and_keys);
	return t_done();
}
