/*
 * jsonw.h — a tiny JSON writer into an sbuf, for the report/syncs outputs.
 *
 *   struct jsonw j; jsonw_init(&j, &out);
 *   jsonw_obj(&j); jsonw_key(&j, "wall_us"); jsonw_ns_us(&j, 1234567);
 *   jsonw_end(&j); ... // '}' or ']'
 *
 * Commas, indentation (2 blanks) and string escaping (esc_json) are handled
 * here. Times are written as exact decimal microseconds from integer
 * nanoseconds (num_fmt at scale 3: 1234567 ns -> 1234.567), never as floats.
 *
 * Layer: base.
 */
#ifndef GF_JSONW_H
#define GF_JSONW_H

#include "base/gf.h"
#include "base/sbuf.h"

#define JSONW_MAX_DEPTH 32

struct jsonw {
	struct sbuf *out;
	int depth;
	bool first[JSONW_MAX_DEPTH];
	bool after_key;
};

void jsonw_init(struct jsonw *j, struct sbuf *out);
void jsonw_obj(struct jsonw *j);
void jsonw_arr(struct jsonw *j);
/* Closes the innermost object or array. */
void jsonw_end(struct jsonw *j, char close);
void jsonw_key(struct jsonw *j, const char *k);
void jsonw_str(struct jsonw *j, const char *s);
void jsonw_strn(struct jsonw *j, const char *s, size_t n);
void jsonw_int(struct jsonw *j, int64_t v);
void jsonw_bool(struct jsonw *j, bool v);
void jsonw_null(struct jsonw *j);
/* v / 10^scale exactly (num_fmt). */
void jsonw_dec(struct jsonw *j, int64_t v, unsigned scale);
/* Nanoseconds as microseconds: jsonw_dec(v, 3). */
void jsonw_ns_us(struct jsonw *j, int64_t ns);
/* Raw text as a value (a number the caller formatted exactly). */
void jsonw_raw(struct jsonw *j, const char *s);
/* A double with `decimals` fraction digits (shares, intervals: not sums). */
void jsonw_double(struct jsonw *j, double v, int decimals);

#endif
