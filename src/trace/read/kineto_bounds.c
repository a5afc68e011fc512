/*
 * kineto_bounds.c — the event boundaries: a small state machine over the
 * container (an object with "traceEvents" anywhere among its keys, or a
 * bare array; a UTF-8 byte order mark; a trailing comma) that takes the
 * text one unit at a time — one event, one top-level member, one
 * separator — each parsed whole from the buffer within r->unit_cap bytes
 * of its start, so a unit too long is found at the same place however the
 * text arrives. A unit that runs into the end of the buffer leaves
 * r->pos at its start (U_MORE) for kineto.c to retry with more text. What
 * a unit means is kineto_schema.c's; the long event array of a mapped text
 * is handed to kineto_chunks.c. Also: what ends a read (kineto_bounds_eof:
 * not a trace, truncated, the base time check) and the one-line error
 * messages with the byte offset and the line (found by reading the input
 * again, only on errors). Touches the walk state of struct rd, r->err.
 *
 * Layer: read (private).
 */
#include "trace/read/kineto_fields.h"

#include "input/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line number (1-based) of byte offset off, found by reading the input
 * again (only on errors, so the hot path never counts lines); 0 when the
 * input cannot be read twice (stdin). */
static uint64_t line_of(struct rd *r, uint64_t off)
{
	struct source *src = NULL;
	struct sbuf e2 = SBUF_INIT;
	int rc;
	if (r->mem)
		rc = source_open_mem(&src, r->mem, r->mem_len, r->fname, 1, &e2);
	else if (r->path && strcmp(r->path, "-"))
		rc = source_open(&src, r->path, 1, &e2);
	else
		rc = GF_EINPUT;
	sbuf_release(&e2);
	if (rc)
		return 0;
	uint64_t line = 1, pos = 0;
	char *b = gf_xmalloc(CHUNK);
	while (pos < off) {
		size_t n;
		if (source_read(src, b, GF_MIN((uint64_t)CHUNK, off - pos), &n, &e2) || !n)
			break;
		for (const char *p = b, *e = b + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
			line++;
		pos += n;
	}
	free(b);
	sbuf_release(&e2);
	source_close(src);
	return line;
}

static void set_err_got(struct rd *r, const char *at, const char *what, const char *got)
{
	uint64_t off = r->base_off + (uint64_t)(at - r->buf);
	uint64_t line = line_of(r, off);
	char tmp[16], lbuf[40] = "";
	int ch = at < r->buf + r->len ? (unsigned char)*at : -1;
	if (line)
		snprintf(lbuf, sizeof lbuf, " (line %llu)", (unsigned long long)line);
	sbuf_setf(r->err, "'%s': byte %llu%s: expected %s, got %s", r->fname, (unsigned long long)off, lbuf, what,
		  got ? got : jscan_byte_desc(ch, tmp));
}

static void set_err(struct rd *r, const char *at, const char *what)
{
	set_err_got(r, at, what, NULL);
}

/* A bound of gf_limits passed (no line number: finding it would read the
 * whole input again): GF_EINTERNAL, as base/limits.h says. */
static void set_limit_err(struct rd *r, const char *at, const char *thing, uint64_t bound, const char *var)
{
	sbuf_setf(r->err, "'%s': byte %llu: %s longer than %llu bytes (%s)", r->fname,
		  (unsigned long long)(r->base_off + (uint64_t)(at - r->buf)), thing, (unsigned long long)bound, var);
	r->err_rc = GF_EINTERNAL;
}

/* Each unit is parsed within r->unit_cap bytes of its start (c.end is
 * moved in), so a unit that is too long is found at the same place however
 * the text arrives. */
int kineto_bounds_units(struct rd *r)
{
	struct jcur c;
	const char *real_end = r->buf + r->len;
	for (;;) {
		c.p = r->buf + r->pos;
		c.end = real_end;
		c.st = JS_OK;
		int x = jscan_ws(&c);
		if (x < 0) {
			r->pos = (size_t)(c.p - r->buf);
			return U_MORE;
		}
		r->pos = (size_t)(c.p - r->buf); /* blanks are consumed */
		if (GF_UNLIKELY((size_t)(real_end - c.p) > r->unit_cap))
			c.end = c.p + r->unit_cap;
		int state0 = r->state;
		switch (r->state) {
		case ST_START:
			if (x == 0xef && r->base_off + r->pos == 0) { /* a UTF-8 byte order mark */
				if (c.end - c.p < 3) {
					c.st = JS_MORE;
					break;
				}
				if ((unsigned char)c.p[1] == 0xbb && (unsigned char)c.p[2] == 0xbf) {
					c.p += 3;
					break;
				}
			}
			if (x == '{') {
				r->state = ST_OBJ_FIRST;
			} else if (x == '[') {
				r->bare = true;
				r->kt->meta.is_array = true;
				r->seen_events = true;
				r->state = ST_ARR_FIRST;
			} else {
				jscan_fail(&c, c.p, "'{' or '[' at the start of a trace (a JSON object or array)");
				break;
			}
			c.p++;
			break;
		case ST_OBJ_FIRST:
		case ST_OBJ_KEY:
			if (x == '}' && r->state == ST_OBJ_FIRST) {
				c.p++;
				r->state = ST_DONE;
				break;
			}
			if (x != '"') {
				jscan_fail(&c, c.p, r->state == ST_OBJ_FIRST ? "a key string or '}'" : "a key string");
				break;
			}
			{
				const char *k, *kp = c.p;
				size_t kn;
				int ch;
				if (!kineto_fields_key(r, &c, &k, &kn, &ch))
					break;
				int tk = kineto_schema_top_code(k, kn);
				if (tk && (r->top_seen & (1u << tk))) {
					jfast_dup_key(&c, kp, kineto_schema_top_dup(tk));
					break;
				}
				if (tk == TK_EVENTS) {
					if (ch != '[') {
						jscan_fail(&c, c.p, "'[' after \"traceEvents\"");
						break;
					}
					c.p++;
					r->seen_events = true;
					r->state = ST_ARR_FIRST;
				} else {
					if (!kineto_schema_top(r, &c, tk, ch))
						break;
					r->state = ST_OBJ_NEXT;
				}
				r->top_seen |= 1u << tk; /* only once the member is read: a retried unit sees it anew */
			}
			break;
		case ST_OBJ_NEXT:
			if (x == ',') {
				r->state = ST_OBJ_KEY;
			} else if (x == '}') {
				r->state = ST_DONE;
			} else {
				jscan_fail(&c, c.p, "',' or '}' after a top-level value");
				break;
			}
			c.p++;
			break;
		case ST_ARR_FIRST:
		case ST_ARR_ITEM:
			if (x == ']') { /* also a trailing comma, which Chrome accepts */
				c.p++;
				r->state = r->bare ? ST_DONE : ST_OBJ_NEXT;
				break;
			}
			if (x != '{') {
				jscan_fail(&c, c.p, "'{' (an event) or ']'");
				break;
			}
			if (GF_UNLIKELY(r->par_ok)) {
				r->par_ok = false;
				int pr = kineto_chunks_run(r, &c);
				if (pr == PAR_STOP)
					return U_STOP;
				if (pr == PAR_RAN)
					break; /* go on from where the chunks stopped */
			}
			{
				struct evtmp t;
				const char *ev_start = c.p;
				if (!kineto_schema_event(r, &c, &t))
					break;
				if (!t.has_ph && !r->noph_seen) {
					r->noph_seen = true;
					r->noph_off = r->base_off + (uint64_t)(ev_start - r->buf);
				}
				r->pos = (size_t)(c.p - r->buf);
				r->state = ST_ARR_NEXT;
				if (GF_UNLIKELY(r->pos >= r->next_mark))
					kineto_map_step(r);
				int rc = kineto_schema_commit(r, &t);
				if (rc) {
					r->stop_rc = rc;
					return U_STOP;
				}
			}
			break;
		case ST_ARR_NEXT:
			if (x == ',') {
				r->state = ST_ARR_ITEM;
			} else if (x == ']') {
				r->state = r->bare ? ST_DONE : ST_OBJ_NEXT;
				if (r->par)
					kineto_chunks_end(r);
			} else {
				jscan_fail(&c, c.p, "',' or ']' after an event");
				break;
			}
			c.p++;
			break;
		case ST_DONE:
			jscan_fail(&c, c.p, "end of data after the trace");
			break;
		}
		if (c.st == JS_MORE) {
			if (GF_UNLIKELY(c.end != real_end)) {
				set_limit_err(r, r->buf + r->pos,
					      state0 == ST_ARR_FIRST || state0 == ST_ARR_ITEM ? "an event"
					      : "a top-level member", r->unit_cap, "twice GPUFLAME_MAX_TOKEN");
				return U_ERR;
			}
			return U_MORE;
		}
		if (c.st == JS_ERR) {
			if (c.limit)
				set_limit_err(r, c.err_at, "a string", jscan_token_max(), "GPUFLAME_MAX_TOKEN");
			else
				set_err_got(r, c.err_at, c.what, c.got);
			return U_ERR;
		}
		r->pos = (size_t)(c.p - r->buf);
	}
}


int kineto_bounds_eof(struct rd *r)
{
	struct kineto_trace *kt = r->kt;
	if (r->state == ST_START) {
		sbuf_setf(r->err, "'%s': byte %llu: expected a JSON object or array (a trace), got %s", r->fname,
			  (unsigned long long)(r->base_off + r->len), r->base_off + r->len ? "only blanks" : "an empty file");
		return GF_EINPUT;
	}
	if (r->state != ST_DONE) {
		if (!r->seen_events) {
			set_err(r, r->buf + r->len, r->state == ST_OBJ_NEXT ? "',' or '}'" : "a complete top-level value");
			return GF_EINPUT;
		}
		kt->stats.truncated = true;
		kt->stats.truncated_at = r->base_off + r->pos;
	}
	if (!r->seen_events) {
		sbuf_setf(r->err, "'%s': byte %llu: expected a \"traceEvents\" array in the top-level object, got none "
			  "(not a Chrome/Kineto trace)", r->fname, (unsigned long long)(r->base_off + r->len));
		return GF_EINPUT;
	}
	if (kt->stats.events && !r->nph) {
		sbuf_setf(r->err, "'%s': byte %llu: expected trace events with a \"ph\" field, got %llu objects "
			  "without one (not a Chrome/Kineto trace)", r->fname, (unsigned long long)r->noph_off,
			  (unsigned long long)kt->stats.events);
		return GF_EINPUT;
	}
	int64_t a, b, base = kt->meta.base_time_ns;
	if (kt->meta.has_base_time && r->ndeliv &&
	    (__builtin_add_overflow(base, r->ts_min, &a) || __builtin_add_overflow(base, r->end_max, &b))) {
		sbuf_setf(r->err, "'%s': byte %llu: expected a baseTimeNanoseconds that keeps every event's absolute "
			  "time (baseTimeNanoseconds + ts + dur) within int64 nanoseconds, got %lld with events from "
			  "%lld to %lld ns as written", r->fname, (unsigned long long)r->base_at, (long long)base,
			  (long long)r->ts_min, (long long)r->end_max);
		return GF_EINPUT;
	}
	return GF_OK;
}
