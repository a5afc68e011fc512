/* palette.c — frame colours: flamegraph.pl palettes, the gpu palette, palette.map (see palette.h). */
#include "stacks/render/palette.h"

#include "base/names.h"
#include "base/pool.h"
#include "base/escape.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

const char *const palette_names[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange",
	"python", "gpu", NULL,
};
_Static_assert(GF_ARRAY_LEN(palette_names) == PAL_COUNT + 1, "a name per palette");

/* The named backgrounds: gradient stops, in the order of palette_bgcolors. */
enum { BG_YELLOW, BG_BLUE, BG_GREEN, BG_GREY, BG_N };
const char *const palette_bgcolors[] = {
	[BG_YELLOW] = "yellow", [BG_BLUE] = "blue", [BG_GREEN] = "green", [BG_GREY] = "grey", [BG_N] = NULL,
};
static const char *const bg_stops[BG_N][2] = {
	[BG_YELLOW] = { "#eeeeee", "#eeeeb0" },
	[BG_BLUE] = { "#eeeeee", "#e0e0ff" },
	[BG_GREEN] = { "#eef2ee", "#e0ffe0" },
	[BG_GREY] = { "#f8f8f8", "#e8e8e8" },
};
_Static_assert(GF_ARRAY_LEN(palette_bgcolors) == BG_N + 1, "a name per background");

int palette_find(const char *name)
{
	for (int i = 0; palette_names[i]; i++)
		if (!strcmp(palette_names[i], name))
			return i;
	return -1;
}

/* Code point at s[*i] (invalid bytes give their byte value, as a Latin-1
 * reading would); advances *i. */
static long next_cp(const char *s, size_t n, size_t *i)
{
	long cp;
	int k = esc_utf8_next((const unsigned char *)s + *i, n - *i, &cp);
	if (cp < 0)
		cp = (unsigned char)s[*i];
	*i += (size_t)k;
	return cp;
}

double palette_namehash(const char *s, size_t n, bool reverse)
{
	/* Decode into code points (names are short; cap what we keep). */
	long cps_buf[256], *cps = cps_buf;
	size_t m = 0, cap = GF_ARRAY_LEN(cps_buf);
	for (size_t i = 0; i < n;) {
		if (m == cap) {
			long *nc = gf_xreallocarray(cps == cps_buf ? NULL : cps, cap * 2, sizeof *nc);
			if (cps == cps_buf)
				memcpy(nc, cps_buf, sizeof cps_buf);
			cps = nc;
			cap *= 2;
		}
		cps[m++] = next_cp(s, n, &i);
	}
	if (reverse)
		for (size_t a = 0, b = m; a + 1 < b; a++, b--) {
			long t = cps[a];
			cps[a] = cps[b - 1];
			cps[b - 1] = t;
		}
	/* perl: s/.(.*?)`// — drop through the first backtick at index >= 1 */
	size_t start = 0;
	for (size_t i = 1; i < m; i++)
		if (cps[i] == '`') {
			start = i + 1;
			break;
		}
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	for (size_t i = start; i < m; i++) {
		long c = cps[i] % mod;
		vector += ((double)c / (mod - 1)) * weight;
		mod++;
		max += 1 * weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	if (cps != cps_buf)
		free(cps);
	return 1 - vector / max;
}

double palette_random_namehash(const char *s, size_t n)
{
	uint32_t sum = 0;
	for (size_t i = 0; i < n;)
		sum += (uint32_t)next_cp(s, n, &i);
	uint64_t x = ((uint64_t)sum << 16) | 0x330E;
	x = (0x5DEECE66DULL * x + 0xB) & ((1ULL << 48) - 1);
	return (double)x / (double)(1ULL << 48);
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && !memcmp(s, p, k);
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && !memcmp(s + n - k, suf, k);
}

static bool contains(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k > n)
		return false;
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && !memcmp(s + i, needle, k))
			return true;
	return false;
}

static bool starts_with(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);
	return n >= k && !memcmp(s, pre, k);
}

static unsigned char clamp8(int v)
{
	return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static void rgb(char out[24], int r, int g, int b)
{
	snprintf(out, 24, "rgb(%u,%u,%u)", clamp8(r), clamp8(g), clamp8(b));
}

/* flamegraph.pl's flat palettes */
static void flat(int pal, double v1, char out[24])
{
	switch (pal) {
	case PAL_RED: {
		int x = 50 + (int)(80 * v1);
		rgb(out, 200 + (int)(55 * v1), x, x);
		return;
	}
	case PAL_GREEN: {
		int x = 50 + (int)(60 * v1);
		rgb(out, x, 200 + (int)(55 * v1), x);
		return;
	}
	case PAL_BLUE: {
		int x = 80 + (int)(60 * v1);
		rgb(out, x, x, 205 + (int)(50 * v1));
		return;
	}
	case PAL_YELLOW: {
		int x = 175 + (int)(55 * v1);
		rgb(out, x, x, 50 + (int)(20 * v1));
		return;
	}
	case PAL_PURPLE: {
		int x = 190 + (int)(65 * v1);
		rgb(out, x, 80 + (int)(60 * v1), x);
		return;
	}
	case PAL_AQUA:
		rgb(out, 50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
		return;
	case PAL_ORANGE:
		rgb(out, 190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
		return;
	}
	rgb(out, 0, 0, 0);
}

static bool java_prefix(const char *s, size_t n)
{
	/* ^L?(java|javax|jdk|net|org|com|io|sun)/ */
	static const char *const p[] = {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"};
	if (n && s[0] == 'L') {
		s++;
		n--;
	}
	for (size_t i = 0; i < GF_ARRAY_LEN(p); i++)
		if (starts_with(s, n, p[i]))
			return true;
	return false;
}

/* "/.*\.js" : a '/' followed later by ".js" */
static bool js_path(const char *s, size_t n)
{
	const char *sl = memchr(s, '/', n);
	if (!sl)
		return false;
	size_t off = (size_t)(sl - s) + 1;
	return contains(s + off, n - off, ".js");
}

/* A path component of s ('/' or '\\' separated) equal to want or, with
 * version, want followed by digits and dots only ("python3.11"). */
static bool python_part(const char *s, size_t n, const char *want, bool version)
{
	size_t k = strlen(want), i = 0;
	while (i <= n) {
		size_t e = i;
		while (e < n && s[e] != '/' && s[e] != '\\')
			e++;
		if (e - i >= k && !memcmp(s + i, want, k)) {
			size_t j = i + k;
			if (!version && j == e)
				return true;
			while (version && j < e && ((s[j] >= '0' && s[j] <= '9') || s[j] == '.'))
				j++;
			if (version && j == e)
				return true;
		}
		i = e + 1;
	}
	return false;
}

void palette_rgb(int pal, const char *s, size_t n, double v1, double v2, double v3, char out[24])
{
	switch (pal) {
	case PAL_HOT:
		rgb(out, 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
		return;
	case PAL_MEM:
		rgb(out, 0, 190 + (int)(50 * v2), (int)(210 * v1));
		return;
	case PAL_IO: {
		int r = 80 + (int)(60 * v1);
		rgb(out, r, r, 190 + (int)(55 * v2));
		return;
	}
	case PAL_JAVA:
		if (ends_with(s, n, "_[j]"))
			pal = PAL_GREEN;
		else if (ends_with(s, n, "_[i]"))
			pal = PAL_AQUA;
		else if (java_prefix(s, n))
			pal = PAL_GREEN;
		else if (contains(s, n, ":::"))
			pal = PAL_GREEN;
		else if (contains(s, n, "::"))
			pal = PAL_YELLOW;
		else if (ends_with(s, n, "_[k]"))
			pal = PAL_ORANGE;
		else
			pal = PAL_RED;
		break;
	case PAL_PERL:
		if (contains(s, n, "::"))
			pal = PAL_YELLOW;
		else if (contains(s, n, "Perl") || contains(s, n, ".pl"))
			pal = PAL_GREEN;
		else if (ends_with(s, n, "_[k]"))
			pal = PAL_ORANGE;
		else
			pal = PAL_RED;
		break;
	case PAL_JS:
		if (ends_with(s, n, "_[j]"))
			pal = memchr(s, '/', n) ? PAL_GREEN : PAL_AQUA;
		else if (contains(s, n, "::"))
			pal = PAL_YELLOW;
		else if (js_path(s, n))
			pal = PAL_GREEN;
		else if (memchr(s, ':', n))
			pal = PAL_AQUA;
		else if (n == 1 && s[0] == ' ')
			pal = PAL_GREEN;
		else if (contains(s, n, "_[k]"))
			pal = PAL_ORANGE;
		else
			pal = PAL_RED;
		break;
	case PAL_WAKEUP:
		pal = PAL_AQUA;
		break;
	case PAL_CHAIN:
		pal = contains(s, n, "_[w]") ? PAL_AQUA : PAL_BLUE;
		break;
	case PAL_PYTHON:
		pal = python_part(s, n, "site-packages", false) ? PAL_AQUA
		      : python_part(s, n, "python", true) || python_part(s, n, "Python", true) ||
				has_prefix(s, n, "<built-in") || has_prefix(s, n, "<method") || has_prefix(s, n, "<frozen")
			? PAL_YELLOW
			: PAL_RED;
		break;
	case PAL_GPU:
		palette_gpu_rgb(palette_gpu_class(s, n), v1, out);
		return;
	}
	flat(pal, v1, out);
}

void palette_fnv(const char *s, size_t n, double *v1, double *v2, double *v3)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	*v1 = (float)((double)h / (double)UINT64_MAX);
	h *= 0x100000001b3ULL; /* ^= 0, then a round */
	*v2 = (float)((double)h / (double)UINT64_MAX);
	h *= 0x100000001b3ULL;
	*v3 = (float)((double)h / (double)UINT64_MAX);
}

void palette_diffusion(double frac, char out[24])
{
	long v = (long)(sqrt(frac) * 2000.0);
	if (v > 2000)
		v = 2000;
	int c = v > 0 ? 100 + (int)(150 * (2000 - v) / 2000) : 250;
	snprintf(out, 24, "rgb(%d,%d,%d)", v > 0 ? 255 : 250, c, c);
}

int palette_bg(int pal, const char *bg, char c1[8], char c2[8])
{
	if (!bg || !*bg) {
		int k;
		switch (pal) {
		case PAL_MEM: k = BG_GREEN; break;
		case PAL_IO: case PAL_WAKEUP: case PAL_CHAIN: k = BG_BLUE; break;
		case PAL_RED: case PAL_GREEN: case PAL_BLUE: case PAL_AQUA: case PAL_YELLOW:
		case PAL_PURPLE: case PAL_ORANGE: case PAL_GPU: k = BG_GREY; break;
		default: k = BG_YELLOW; break;
		}
		bg = palette_bgcolors[k];
	}
	const char *a = NULL, *b = NULL;
	for (int k = 0; k < BG_N && !a; k++)
		if (!strcmp(bg, palette_bgcolors[k]))
			a = bg_stops[k][0], b = bg_stops[k][1];
	if (!a && bg[0] == '#' && strlen(bg) == 7 && strspn(bg + 1, "0123456789abcdefABCDEF") == 6)
		a = b = bg;
	if (!a)
		return -1;
	memcpy(c1, a, 8);
	memcpy(c2, b, 8);
	return 0;
}

/* ---- gpu palette ---- */

/*
 * Every rule that reads a class into a name is base/names' (the one
 * classifier the trace model, info, fold and report use); the palette only
 * maps those classes to colours. Names that are not trace calls or kernels
 * (py-spy stacks, legacy exports) keep three spellings of a sync of their
 * own: "...Synchronize"/"...synchronize" frames (torch.cuda.synchronize)
 * and "[sync]" annotations.
 */
static bool is_sync(const char *s, size_t n)
{
	if (names_api(s, n) & NAMES_API_SYNC) /* what the trace model counts as blocking (TRF_SYNC) */
		return true;
	if (names_op_blocking(s, n))
		return true;
	if (contains(s, n, "Synchronize") || contains(s, n, "synchronize"))
		return true;
	return contains(s, n, "[sync]");
}

static enum gpu_class kernel_class(const char *s, size_t n)
{
	enum names_kclass k;
	names_kernel_family(s, n, &k);
	switch (k) {
	case NAMES_K_COMM: return GPU_K_COMM;
	case NAMES_K_ATTN: return GPU_K_ATTN;
	case NAMES_K_GEMM: return GPU_K_GEMM;
	case NAMES_K_TRITON: return GPU_K_TRITON;
	case NAMES_K_COPY: return GPU_K_COPY;
	case NAMES_K_OTHER: return GPU_K_OTHER;
	case NAMES_K_NONE: break;
	}
	return names_kernel_like(s, n) ? GPU_K_OTHER : GPU_OTHER;
}

size_t palette_kind_suffix(const char *s, size_t n, enum gpu_class *c)
{
	static const struct { char code[3]; enum gpu_class c; } kinds[] = {
		{ "an", GPU_OTHER }, { "py", GPU_PYTHON }, { "mo", GPU_MODULE }, { "op", GPU_ATEN },
		{ "la", GPU_RUNTIME }, { "sy", GPU_SYNC }, { "ke", GPU_K_OTHER },
	};
	if (n < 5 || memcmp(s + n - 5, "_[", 2) || s[n - 1] != ']')
		return 0;
	for (size_t i = 0; i < GF_ARRAY_LEN(kinds); i++) {
		if (memcmp(s + n - 3, kinds[i].code, 2))
			continue;
		enum gpu_class k = kinds[i].c;
		if (k == GPU_K_OTHER) { /* a kernel: its family by name, a kernel class in any case */
			k = kernel_class(s, n - 5);
			if (k < GPU_K_GEMM || k > GPU_K_OTHER)
				k = GPU_K_OTHER;
		} else if (k == GPU_ATEN && is_sync(s, n - 5)) {
			k = GPU_SYNC; /* aten::item and its kin: an op that syncs */
		}
		if (c)
			*c = k;
		return 5;
	}
	return 0;
}

enum gpu_class palette_gpu_class(const char *s, size_t n)
{
	enum gpu_class kc;
	if (palette_kind_suffix(s, n, &kc))
		return kc;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		return GPU_MARKER;
	if (is_sync(s, n))
		return GPU_SYNC;
	if (starts_with(s, n, "aten::"))
		return GPU_ATEN;
	if (names_is_module(s, n))
		return GPU_MODULE;
	if (names_is_python(s, n))
		return GPU_PYTHON;
	if (names_is_api(s, n))
		return GPU_RUNTIME;
	return kernel_class(s, n);
}

static const char *const gpu_labels[GPU_NCLASS] = {
	"other", "Python", "nn.Module", "aten op", "CUDA/HIP API", "GEMM kernel",
	"attention kernel", "NCCL kernel", "Triton kernel", "memcpy/memset", "other kernel",
	"SYNC", "marker",
};

const char *palette_gpu_label(enum gpu_class c)
{
	return c < GPU_NCLASS ? gpu_labels[c] : "?";
}

void palette_gpu_rgb(enum gpu_class c, double v, char out[24])
{
	switch (c) {
	case GPU_PYTHON:  rgb(out, 90 + (int)(50 * v), 190 + (int)(45 * v), 80 + (int)(40 * v)); return;
	case GPU_MODULE:  rgb(out, 50 + (int)(50 * v), 170 + (int)(45 * v), 170 + (int)(45 * v)); return;
	case GPU_ATEN:    rgb(out, 215 + (int)(30 * v), 205 + (int)(30 * v), 60 + (int)(30 * v)); return;
	case GPU_RUNTIME: rgb(out, 235 + (int)(20 * v), 130 + (int)(40 * v), 20 + (int)(30 * v)); return;
	case GPU_K_GEMM:  rgb(out, 40 + (int)(40 * v), 80 + (int)(40 * v), 200 + (int)(45 * v)); return;
	case GPU_K_ATTN:  rgb(out, 120 + (int)(35 * v), 80 + (int)(30 * v), 210 + (int)(40 * v)); return;
	case GPU_K_COMM:  rgb(out, 150 + (int)(35 * v), 110 + (int)(30 * v), 60 + (int)(25 * v)); return;
	case GPU_K_TRITON: rgb(out, 70 + (int)(35 * v), 150 + (int)(30 * v), 230 + (int)(25 * v)); return;
	case GPU_K_COPY:  rgb(out, 130 + (int)(30 * v), 145 + (int)(30 * v), 165 + (int)(30 * v)); return;
	case GPU_K_OTHER: rgb(out, 140 + (int)(40 * v), 180 + (int)(30 * v), 240 + (int)(15 * v)); return;
	case GPU_SYNC:    rgb(out, 225 + (int)(30 * v), 0, 20 + (int)(20 * v)); return;
	case GPU_MARKER:  { int x = 195 + (int)(25 * v); rgb(out, x, x, x); return; }
	default:          rgb(out, 220 + (int)(25 * v), 205 + (int)(25 * v), 180 + (int)(25 * v)); return;
	}
}

/* ---- palette.map ---- */

struct palmap {
	struct pool *names;
	char (*rgb)[24];
	size_t cap;
};

struct palmap *palmap_new(void)
{
	struct palmap *m = gf_xcalloc(1, sizeof *m);
	m->names = pool_new();
	return m;
}

void palmap_free(struct palmap *m)
{
	if (!m)
		return;
	pool_free(m->names);
	free(m->rgb);
	free(m);
}

size_t palmap_count(const struct palmap *m)
{
	return pool_count(m->names);
}

/* Plain colour syntax only ("rgb(1,2,3)", "#a0b0c0"): the colour goes into
 * an SVG attribute, so no quote, '<', '&' or anything else can be stored. */
static bool plain_colour(const char *c)
{
	size_t n = strlen(c);
	return n && n < 24 && strspn(c, "rgb(),#0123456789abcdefABCDEF ") == n;
}

void palmap_set(struct palmap *m, const char *name, size_t n, const char *c)
{
	if (!plain_colour(c))
		return;
	uint32_t id = pool_intern(m->names, name, n);
	if (id >= m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		while (nc <= id)
			nc *= 2;
		m->rgb = gf_xreallocarray(m->rgb, nc, sizeof *m->rgb);
		m->cap = nc;
	}
	snprintf(m->rgb[id], sizeof m->rgb[id], "%s", c);
}

const char *palmap_get(const struct palmap *m, const char *name, size_t n)
{
	uint32_t id = pool_find(m->names, name, n);
	return id == UINT32_MAX ? NULL : m->rgb[id];
}

size_t palmap_parse(struct palmap *m, const char *buf, size_t len)
{
	size_t got = 0;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *ln = p;
		size_t ll = (size_t)(e - ln);
		p = nl ? nl + 1 : end;
		if (ll && ln[ll - 1] == '\r')
			ll--;
		/* split at the first "->" */
		for (size_t i = 0; i + 1 < ll; i++)
			if (ln[i] == '-' && ln[i + 1] == '>') {
				size_t cl = ll - i - 2;
				char c[24];
				if (cl == 0 || cl >= sizeof c)
					break;
				memcpy(c, ln + i + 2, cl);
				c[cl] = 0;
				/* only plain colour syntax is accepted (it goes into an attribute) */
				if (!plain_colour(c))
					break;
				palmap_set(m, ln, i, c);
				got++;
				break;
			}
	}
	return got;
}

int palmap_write(const struct palmap *m, FILE *fp)
{
	uint32_t n = pool_count(m->names);
	uint32_t *ids = gf_xmalloc((size_t)(n ? n : 1) * sizeof *ids);
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	pool_sort_ids(m->names, ids, n);
	for (uint32_t i = 0; i < n; i++) {
		fwrite(pool_str(m->names, ids[i]), 1, pool_len(m->names, ids[i]), fp);
		fprintf(fp, "->%s\n", m->rgb[ids[i]]);
	}
	free(ids);
	return ferror(fp) ? -1 : 0;
}
