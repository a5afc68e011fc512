/* test_limits.c — the overridable input bounds (base/limits). */
#include "t.h"

#include "base/limits.h"

T_TEST(test_limits__parse)
{
	uint64_t v = 0;
	T_TRUE(!gf_limits_parse("1048576", &v));
	T_EQ_I64(v, 1048576);
	T_TRUE(!gf_limits_parse("64K", &v));
	T_EQ_I64(v, 65536);
	T_TRUE(!gf_limits_parse("256M", &v));
	T_EQ_I64(v, 256ll << 20);
	T_TRUE(!gf_limits_parse("2GB", &v));
	T_EQ_I64(v, 2ll << 30);
	T_TRUE(!gf_limits_parse("1t", &v));
	T_EQ_I64(v, 1ll << 40);
	T_TRUE(!gf_limits_parse("18446744073709551615", &v));
	T_TRUE(gf_limits_parse("18446744073709551616", &v) < 0);
	T_TRUE(gf_limits_parse("16777216T", &v) < 0); /* 2^64: overflows */
	T_TRUE(gf_limits_parse("0", &v) < 0);
	T_TRUE(gf_limits_parse("", &v) < 0);
	T_TRUE(gf_limits_parse("-1", &v) < 0);
	T_TRUE(gf_limits_parse("12X", &v) < 0);
	T_TRUE(gf_limits_parse("1.5G", &v) < 0);
	T_TRUE(gf_limits_parse(NULL, &v) < 0);
}

T_TEST(test_limits__environment)
{
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(gf_limits.token, GF_LIMIT_TOKEN_DEFAULT);
	T_EQ_I64(gf_limits.input, GF_LIMIT_INPUT_DEFAULT);
	setenv("GPUFLAME_MAX_TOKEN", "1M", 1);
	setenv("GPUFLAME_MAX_INPUT", "3G", 1);
	T_EQ_I64(gf_limits_init(&err), GF_OK);
	T_EQ_I64(gf_limits.token, 1 << 20);
	T_EQ_I64(gf_limits.input, 3ll << 30);
	setenv("GPUFLAME_MAX_INPUT", "lots", 1);
	T_EQ_I64(gf_limits_init(&err), GF_EUSAGE);
	T_TRUE(strstr(err.buf, "GPUFLAME_MAX_INPUT='lots'") != NULL);
	unsetenv("GPUFLAME_MAX_TOKEN");
	unsetenv("GPUFLAME_MAX_INPUT");
	sbuf_release(&err);
}

T_TEST(test_limits__messages)
{
	struct sbuf err = SBUF_INIT;
	uint64_t saved = gf_limits.token, saved_in = gf_limits.input;
	gf_limits.token = 1000;
	gf_limits.input = 50;
	T_EQ_I64(gf_limit_line(&err, "x", 3, 1005), GF_EINTERNAL);
	T_EQ_STR(err.buf, "'x': line 3 (byte 2005): a line longer than 1000 bytes (GPUFLAME_MAX_TOKEN)");
	T_EQ_I64(gf_limit_input(&err, "y"), GF_EINTERNAL);
	T_EQ_STR(err.buf, "'y': byte 50: an input larger than 50 bytes (GPUFLAME_MAX_INPUT)");
	gf_limits.token = saved;
	gf_limits.input = saved_in;
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_limits__parse);
	T_RUN(test_limits__environment);
	T_RUN(test_limits__messages);
	return t_done();
}
