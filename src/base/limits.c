/* limits.c — bounds on one input's cost, from the environment (see limits.h). */
#include "base/limits.h"

#include <stdlib.h>
#include <string.h>

struct gf_limits gf_limits = { GF_LIMIT_TOKEN_DEFAULT, GF_LIMIT_INPUT_DEFAULT };

int gf_limits_parse(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	uint64_t v = 0;
	while (*s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	unsigned shift = 0;
	switch (*s) {
	case 'k': case 'K': shift = 10; s++; break;
	case 'm': case 'M': shift = 20; s++; break;
	case 'g': case 'G': shift = 30; s++; break;
	case 't': case 'T': shift = 40; s++; break;
	default: break;
	}
	if (*s == 'B' || *s == 'b')
		s++;
	if (*s || !v || v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static int one(const char *var, uint64_t *dst, struct sbuf *err)
{
	const char *s = getenv(var);
	if (!s)
		return GF_OK;
	uint64_t v;
	if (gf_limits_parse(s, &v)) {
		sbuf_setf(err, "invalid %s='%s' (expected a byte count such as 1048576, 64M or 2G)", var, s);
		return GF_EUSAGE;
	}
	*dst = v;
	return GF_OK;
}

int gf_limits_init(struct sbuf *err)
{
	int e = one("GPUFLAME_MAX_TOKEN", &gf_limits.token, err);
	if (!e)
		e = one("GPUFLAME_MAX_INPUT", &gf_limits.input, err);
	return e;
}

int gf_limit_line(struct sbuf *err, const char *name, uint64_t lineno, uint64_t start)
{
	sbuf_setf(err, "'%s': line %llu (byte %llu): a line longer than %llu bytes (GPUFLAME_MAX_TOKEN)", name,
		  (unsigned long long)lineno, (unsigned long long)(start + gf_limits.token),
		  (unsigned long long)gf_limits.token);
	return GF_EINTERNAL;
}

int gf_limit_input(struct sbuf *err, const char *name)
{
	sbuf_setf(err, "'%s': byte %llu: an input larger than %llu bytes (GPUFLAME_MAX_INPUT)", name,
		  (unsigned long long)gf_limits.input, (unsigned long long)gf_limits.input);
	return GF_EINTERNAL;
}
