/* names.c — the one classifier of names (see names.h). */
#include "base/names.h"

#include <string.h>

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && memcmp(s, p, k) == 0;
}

static bool contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k > n)
		return false;
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return true;
	return false;
}

static bool eq(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n == k && memcmp(s, lit, k) == 0;
}

const char *names_marker(const char *marker)
{
	return marker && *marker ? marker : NAMES_STEP_MARKER;
}

bool names_step(const char *name, size_t n, const char *marker, int64_t *num)
{
	size_t k = strlen(marker);
	*num = -1;
	if (n < k || memcmp(name, marker, k) != 0)
		return false;
	if (n == k)
		return true;
	if (name[k] != '#' || n == k + 1 || n - k - 1 > 18)
		return false;
	int64_t v = 0;
	for (size_t i = k + 1; i < n; i++) {
		if (name[i] < '0' || name[i] > '9')
			return false;
		v = v * 10 + (name[i] - '0');
	}
	*num = v;
	return true;
}

bool names_is_module(const char *name, size_t n)
{
	return has_prefix(name, n, "nn.Module: ");
}

bool names_is_comm(const char *name, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++) {
		char c0 = name[i] | 0x20;
		if ((c0 == 'n' || c0 == 'r') && (name[i + 1] | 0x20) == 'c' && (name[i + 2] | 0x20) == 'c' &&
		    (name[i + 3] | 0x20) == 'l')
			return true;
	}
	return false;
}

unsigned names_api(const char *name, size_t n)
{
	unsigned f = 0;
	/* up to the first '_': "_v2", "_ptsz", "_v3" suffixes are ignored */
	const char *us = memchr(name, '_', n);
	size_t m = us ? (size_t)(us - name) : n;
	size_t k;
	if (has_prefix(name, m, "cuda"))
		k = 4;
	else if (has_prefix(name, m, "hip"))
		k = 3;
	else if (has_prefix(name, m, "cu"))
		k = 2;
	else
		return 0;
	const char *p = name + k;
	size_t pn = m - k;
	if (eq(p, pn, "StreamSynchronize") || eq(p, pn, "DeviceSynchronize") || eq(p, pn, "EventSynchronize") ||
	    eq(p, pn, "CtxSynchronize") || eq(p, pn, "ThreadSynchronize"))
		f |= NAMES_API_SYNC;
	if (eq(p, pn, "GraphLaunch"))
		f |= NAMES_API_GRAPH;
	if (eq(p, pn, "StreamWaitEvent"))
		f |= NAMES_API_WAIT;
	if (has_prefix(p, pn, "Memcpy")) {
		f |= NAMES_API_MEMCPY;
		if (!contains(p, pn, "Async"))
			f |= NAMES_API_SYNC; /* cudaMemcpy, cudaMemcpy2D, cuMemcpyDtoH, hipMemcpyWithStream ... */
	}
	return f;
}

enum names_copy names_copy_dir(const char *name, size_t n)
{
	if (contains(name, n, "DtoH"))
		return NAMES_COPY_DTOH;
	if (contains(name, n, "HtoD"))
		return NAMES_COPY_HTOD;
	if (contains(name, n, "DtoD") || contains(name, n, "PtoP"))
		return NAMES_COPY_DTOD;
	return NAMES_COPY_NONE;
}

bool names_copy_pageable(const char *name, size_t n)
{
	return contains(name, n, "Pageable");
}

bool names_py_source(const char *name, size_t n, size_t *path_len)
{
	const char *p = memchr(name, '(', n);
	if (!p || p == name || name[0] == '<')
		return false;
	size_t i = (size_t)(p - name) + 1;
	if (i >= n || name[i] < '0' || name[i] > '9')
		return false;
	while (i < n && name[i] >= '0' && name[i] <= '9')
		i++;
	if (i + 1 >= n || name[i] != ')' || name[i + 1] != ':')
		return false;
	*path_len = (size_t)(p - name);
	return true;
}

bool names_in_torch(const char *path, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++) {
		if (memcmp(path + i, "torch", 5) || (path[i + 5] != '/' && path[i + 5] != '\\'))
			continue;
		if (i == 0 || path[i - 1] == '/' || path[i - 1] == '\\')
			return true;
	}
	return false;
}
