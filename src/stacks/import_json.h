/*
 * import_json.h — a small JSON reader for the importers (speedscope): the
 * whole document as a tree of nodes, strings decoded, numbers kept as their
 * text (exact: the caller parses them with base/num.h).
 *
 *   struct import_json j;
 *   if (import_json_parse(&j, buf, len, "p.json", &err)) die(err.buf);
 *   uint32_t profiles = import_json_get(&j, 0, "profiles");   // 0 = root
 *   for (uint32_t c = import_json_child(&j, profiles); c; c = j.n[c].next) ...
 *   import_json_free(&j);
 *
 * Strict RFC 8259 (no comments, no trailing commas, no raw control bytes in
 * strings; a UTF-8 byte order mark is skipped); \u escapes decode to UTF-8,
 * a lone surrogate to U+FFFD. Nesting deeper than IMPORT_JSON_DEPTH is an
 * error. Node 0 is the root value; index 0 also means "none" as a link.
 *
 * Layer: stacks (base only). Errors: "'name': byte N: expected ...".
 */
#ifndef GF_IMPORT_JSON_H
#define GF_IMPORT_JSON_H

#include "base/gf.h"
#include "base/sbuf.h"

#define IMPORT_JSON_DEPTH 64

enum import_json_type {
	IMPORT_JSON_NULL,
	IMPORT_JSON_BOOL,
	IMPORT_JSON_NUM,
	IMPORT_JSON_STR,
	IMPORT_JSON_ARR,
	IMPORT_JSON_OBJ,
};

struct import_json_node {
	uint8_t type;
	uint32_t first;     /* first child (arrays, objects), 0 = none */
	uint32_t next;      /* next sibling, 0 = none */
	uint32_t key;       /* member of an object: its key in str (offset + 1; 0 = none) */
	uint32_t key_len;
	uint64_t off;       /* NUM: text in src; STR: text in str; BOOL: 1 for true; ARR, OBJ: the
			     * offset in src just past the closing bracket */
	uint32_t len;
	uint64_t at;        /* byte offset in the input, for messages */
};

struct import_json {
	struct import_json_node *n;
	size_t nn, cap;
	const char *src;
	struct sbuf str;    /* decoded strings and keys, each followed by NUL */
};

int import_json_parse(struct import_json *j, const char *buf, size_t len, const char *name, struct sbuf *err);
void import_json_free(struct import_json *j);

/* The member key of object node obj, 0 when absent or obj is no object. */
uint32_t import_json_get(const struct import_json *j, uint32_t obj, const char *key);
/* First child of an array or object (0 = none). */
uint32_t import_json_child(const struct import_json *j, uint32_t node);
/* The text of a string or number node (NUL-terminated for strings). */
const char *import_json_text(const struct import_json *j, uint32_t node, size_t *len);
/* The JSON text of an array, object or number node as written in the input
 * (not NUL-terminated); "" for other nodes. */
const char *import_json_raw(const struct import_json *j, uint32_t node, size_t *len);

#endif
