/*
 * fuzz_names.c — libFuzzer target for the one classifier (base/names.h) and
 * the one step-range parser (trace/model/trace_sel.h): every names_*
 * function reads the input as a name of that length (never past it: ASan),
 * answers consistently (names_py_source's path is a prefix before a '(';
 * a step's digits give its number), and trace_sel_parse either refuses
 * with a one-line message or gives first <= last; a kernel's default
 * family is its own family with the same class, and kfamily_of's cuts
 * (ck_tile::kentry, mangled names) stay inside the name. Must never crash or trip
 * UBSan (19-digit numbers, "..", empty ends). Seeds: tests/fuzz/corpus/names/.
 */
#include "base/names.h"
#include "trace/analysis/kfamily.h"
#include "trace/model/trace_sel.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: reading past it is an ASan error */
	char *s = malloc(size ? size : 1);
	memcpy(s, data, size);
	int64_t num;
	size_t pl = 0;
	(void)names_is_module(s, size);
	(void)names_is_comm(s, size);
	(void)names_copy_dir(s, size);
	(void)names_copy_pageable(s, size);
	unsigned api = names_api(s, size);
	if (api & ~(NAMES_API_SYNC | NAMES_API_GRAPH | NAMES_API_MEMCPY | NAMES_API_WAIT | NAMES_API_FREE))
		abort();
	/* a free call synchronises (names.h); a stream's wait on an event does not block the host */
	if ((api & NAMES_API_FREE) && !(api & NAMES_API_SYNC))
		abort();
	if ((api & NAMES_API_WAIT) && (api & NAMES_API_SYNC))
		abort();
	if (names_py_source(s, size, &pl) && (pl == 0 || pl >= size || s[pl] != '('))
		abort();
	(void)names_in_torch(s, size);
	/* kernel classes: a family is its own family, of the same class */
	enum names_kclass kc, kc2;
	const char *fam = names_kernel_family(s, size, &kc);
	if (!fam != (kc == NAMES_K_NONE))
		abort();
	if (fam && (names_kernel_family(fam, strlen(fam), &kc2) != fam || kc2 != kc))
		abort();
	(void)names_kernel_like(s, size);
	(void)names_is_python(s, size);
	(void)names_is_api(s, size);
	(void)names_op_blocking(s, size);
	if ((names_sync_kind(s, size) != NAMES_SYNC_NONE) != !!(names_api(s, size) & (NAMES_API_SYNC | NAMES_API_MEMCPY)))
		abort();
	struct sbuf fb = SBUF_INIT; /* the defaults and the cuts (ck_tile::kentry, mangled names) */
	kfamily_of(NULL, s, size, &fb);
	sbuf_release(&fb);
	/* the marker is the input up to its first NUL or ';', the name the rest */
	size_t m = 0;
	while (m < size && s[m] && s[m] != ';')
		m++;
	if (m < size) {
		char *marker = malloc(m + 1);
		memcpy(marker, s, m);
		marker[m] = 0;
		const char *name = s + m + 1;
		size_t nl = size - m - 1;
		if (names_step(name, nl, names_marker(marker), &num) && num < -1)
			abort();
		free(marker);
	}
	/* the step-range parser on the NUL-terminated input */
	char *arg = malloc(size + 1);
	memcpy(arg, data, size);
	arg[size] = 0;
	struct trace_sel sel;
	struct sbuf err = SBUF_INIT;
	trace_sel_init(&sel);
	int rc = trace_sel_parse(&sel, "--steps", arg, &err);
	if (rc == GF_OK && (sel.first > sel.last || err.len))
		abort();
	if (rc != GF_OK && (rc != GF_EUSAGE || !err.len || memchr(err.buf, '\n', err.len)))
		abort();
	sbuf_release(&err);
	free(arg);
	free(s);
	return 0;
}
