/*
 * num.h — exact decimal numbers as scaled int64 ("fixed point").
 *
 * A value v with scale s means v / 10^s. Trace times are microseconds in text
 * and become nanoseconds with scale 3; folded counts keep as many decimals as
 * the input has (up to NUM_MAX_SCALE). No double is ever involved, so sums are
 * exact and a 19-digit timestamp keeps its last nanosecond.
 *
 * Layer: base.
 */
#ifndef GF_NUM_H
#define GF_NUM_H

#include "base/gf.h"
#include "base/sbuf.h"

#define NUM_MAX_SCALE 9

enum num_status {
	NUM_OK = 0,
	NUM_ROUNDED = 1,   /* more decimals than the scale: rounded half away from zero */
	NUM_INVALID = -1,  /* not a number of the accepted form */
	NUM_OVERFLOW = -2, /* does not fit in int64 at that scale */
};

/* Flags for num_parse. */
#define NUM_ALLOW_SIGN 1u  /* leading '-' or '+' */
#define NUM_ALLOW_EXP 2u   /* exponent part: 1e3, 1.5E-2 */

/*
 * Parses the decimal text s[0..n) into *out = round(value * 10^scale).
 * Accepted: digits, optional '.' and fraction ("12", "12.", "12.5", ".5" only
 * with NUM_ALLOW_EXP, which accepts JSON-number forms), optional sign and
 * exponent as allowed by flags. No surrounding blanks.
 * @return NUM_OK, NUM_ROUNDED (value was rounded to the scale), NUM_INVALID or
 * NUM_OVERFLOW; *out is set only for NUM_OK and NUM_ROUNDED.
 */
int num_parse(const char *s, size_t n, unsigned scale, unsigned flags, int64_t *out);

/* Number of significant decimals in s (fraction digits after trimming trailing
 * zeros, adjusted by an exponent); 0 for integers. Used to pick a scale. */
unsigned num_decimals(const char *s, size_t n);

/* 10^k for k <= 18. */
int64_t num_pow10(unsigned k);

/* *v *= 10^k, @return false on overflow (then *v is unchanged). */
bool num_rescale(int64_t *v, unsigned k);

/* Checked add: @return false on overflow. */
static inline bool num_add(int64_t *acc, int64_t x)
{
	return !__builtin_add_overflow(*acc, x, acc);
}

/*
 * Appends v / 10^scale in plain decimal: no exponent, no grouping, trailing
 * fraction zeros (and a bare '.') removed. num_fmt(b, 1500, 3) gives "1.5".
 */
void num_fmt(struct sbuf *b, int64_t v, unsigned scale);
/* Same with exactly `decimals` fraction digits (rounded half away from zero
 * when decimals < scale); thousands separators when `group` is true. */
void num_fmt_fixed(struct sbuf *b, int64_t v, unsigned scale, unsigned decimals, bool group);

/*
 * The one percentage formatter: 100 * part / whole with `decimals` fraction
 * digits (0..9), exactly rounded (128-bit, no double): NUM_HALF_UP (.5 up:
 * the report's shares), NUM_HALF_EVEN (fold's shares, as num_muldiv),
 * NUM_HALF_AWAY (top's shares; a negative part keeps its '-' even when it
 * rounds to zero). No '%' appended. @return false, appending nothing, when
 * whole <= 0 or the result does not fit in int64 (callers print "-" or "?").
 */
enum num_round { NUM_HALF_UP = 0, NUM_HALF_EVEN, NUM_HALF_AWAY };
bool num_fmt_pct(struct sbuf *b, int64_t part, int64_t whole, unsigned decimals, enum num_round r);

/*
 * Exact v * num / den rounded half to even, for normalisation (v per step).
 * @return false on overflow.
 */
bool num_muldiv(int64_t v, int64_t num, int64_t den, int64_t *out);

#endif
