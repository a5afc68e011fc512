/*
 * limits.h — documented, overridable bounds on what one input may cost.
 *
 * Hostile or broken inputs (a decompression bomb, one 50 GB string, a line
 * with no newline) must stop with a clear error naming the offset instead of
 * growing memory until the machine's limit. Every reader checks:
 *
 *   token: the longest single token it buffers — a JSON string or key, a
 *          frame name, one folded or perf-script line;
 *   input: the most bytes one input may decompress to (or be, when plain).
 *
 * Defaults are GF_LIMIT_TOKEN_DEFAULT and GF_LIMIT_INPUT_DEFAULT; the
 * environment overrides them: GPUFLAME_MAX_TOKEN, GPUFLAME_MAX_INPUT, each a
 * byte count with an optional K, M, G or T suffix (powers of 1024), e.g. 256M.
 * docs/cli.md states them. Exceeding one is GF_EINTERNAL (exit 4) with a
 * message naming the file, the byte offset and the variable to raise.
 *
 * Layer: base.
 */
#ifndef GF_LIMITS_H
#define GF_LIMITS_H

#include "base/gf.h"
#include "base/sbuf.h"

#define GF_LIMIT_TOKEN_DEFAULT ((uint64_t)64 << 20) /* 64 MiB */
#define GF_LIMIT_INPUT_DEFAULT ((uint64_t)64 << 30) /* 64 GiB */

struct gf_limits {
	uint64_t token; /* bytes */
	uint64_t input; /* bytes */
};

/* The limits in force (defaults until gf_limits_init or gf_limits_set). */
extern struct gf_limits gf_limits;

/* Reads GPUFLAME_MAX_TOKEN and GPUFLAME_MAX_INPUT into gf_limits.
 * @return GF_OK, or GF_EUSAGE with a one-line message in err for a bad value. */
int gf_limits_init(struct sbuf *err);

/* Parses "1048576", "64K", "256M", "2G", "1T" (no zero, no sign, no overflow).
 * @return 0 and *out, or -1. */
int gf_limits_parse(const char *s, uint64_t *out);

/* The limit errors every reader gives, in one wording. A line (of input
 * name, number lineno, starting at byte start) longer than gf_limits.token:
 * "'x': line 3 (byte 2005): a line longer than 1000 bytes
 * (GPUFLAME_MAX_TOKEN)", naming the byte where it passes the limit. An input
 * larger than gf_limits.input: "'x': byte N: an input larger than N bytes
 * (GPUFLAME_MAX_INPUT)". Both fill err and @return GF_EINTERNAL. */
int gf_limit_line(struct sbuf *err, const char *name, uint64_t lineno, uint64_t start);
int gf_limit_input(struct sbuf *err, const char *name);

#endif
