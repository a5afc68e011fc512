/*
 * palette.h — frame colours for the SVG renderer: flamegraph.pl's palettes
 * (same formulas and the same per-name default hash, so colours match its
 * output), our `gpu` palette that classifies LLM/GPU profile frames, and the
 * consistent palette map (palette.map, "name->rgb(r,g,b)" lines).
 *
 * Colours are written as "rgb(r,g,b)" into a char[24].
 *
 * Layer: stacks/render.
 */
#ifndef GF_PALETTE_H
#define GF_PALETTE_H

#include "base/gf.h"
#include "base/sbuf.h"

#include <stdio.h>

enum pal_id {
	PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS, PAL_PERL,
	PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
	PAL_PYTHON, /* inferno's: site-packages aqua, the standard library yellow, the rest red */
	PAL_GPU,
	PAL_COUNT
};

/* Palette names in enum order, NULL-terminated (for cli_choice). */
extern const char *const palette_names[];
/* The named backgrounds (--bgcolors; "#rrggbb" is accepted too), NULL-terminated. */
extern const char *const palette_bgcolors[];

/* @return the palette id of name, or -1 when unknown. */
int palette_find(const char *name);

/* flamegraph.pl's namehash (--hash): a value in [0, 1] from the first three
 * characters (code points) after a "module`" prefix. reverse: hash of the
 * name reversed by characters. */
double palette_namehash(const char *s, size_t n, bool reverse);
/* flamegraph.pl's default per-name value: perl's srand(sum of code points
 * mod 2^32) followed by rand(1) (drand48), bit-exact with perl >= 5.20. */
double palette_random_namehash(const char *s, size_t n);

/* inferno's --deterministic values: FNV-1a 64 over the name's bytes, then
 * two more rounds with a zero byte, each divided by 2^64 - 1 and rounded to
 * a float (the same colour for a name in every graph, on every machine). */
void palette_fnv(const char *s, size_t n, double *v1, double *v2, double *v3);

/* inferno's --colordiffusion: the wider a frame (frac of the total, 0..1),
 * the redder: rgb(255, c, c) with c = 100 + 150 * (2000 - v) / 2000, v =
 * sqrt(frac) * 2000 truncated. */
void palette_diffusion(double frac, char out[24]);

/*
 * Colour of frame `name` (raw, with any "_[k]" annotation) in palette pal
 * from the three values in [0, 1) (v1, v2, v3 as in flamegraph.pl).
 */
void palette_rgb(int pal, const char *name, size_t n, double v1, double v2, double v3,
		 char out[24]);

/*
 * Background gradient stops for bgcolors (NULL or "" = palette default;
 * yellow, blue, green, grey or "#rrggbb", which is flat).
 * @return 0, or -1 for an unknown value.
 */
int palette_bg(int pal, const char *bgcolors, char c1[8], char c2[8]);

/* ---- the gpu palette ---- */

enum gpu_class {
	GPU_OTHER = 0,   /* native / unknown frames */
	GPU_PYTHON,      /* "file.py(12): fn", "fn (file.py:12)" */
	GPU_MODULE,      /* "nn.Module: X_0" */
	GPU_ATEN,        /* "aten::..." (not syncing) */
	GPU_RUNTIME,     /* CUDA/HIP runtime and driver calls, cuBLAS/cuDNN/NCCL host API */
	GPU_K_GEMM,      /* kernels: GEMM / matmul / cutlass */
	GPU_K_ATTN,      /* kernels: flash / attention / fmha */
	GPU_K_COMM,      /* kernels: NCCL collectives */
	GPU_K_TRITON,    /* kernels: triton_* */
	GPU_K_COPY,      /* memcpy / memset / copy kernels and GPU copies */
	GPU_K_OTHER,     /* other kernels: elementwise, reduce, "...kernel..." */
	GPU_SYNC,        /* host-device synchronisation: stands out */
	GPU_MARKER,      /* "[unattributed]", "[idle]", "[untraced]"... */
	GPU_NCLASS
};

/* @return the class of a frame name (see docs/svg.md for the rules); a
 * name with a kind suffix (palette_kind_suffix) has the suffix's class. */
enum gpu_class palette_gpu_class(const char *s, size_t n);
/* The frame-kind suffix `gpuflame fold --kinds` appends (trace/analysis/
 * fold.h: _[an] _[py] _[mo] _[op] _[la] _[sy] _[ke]): @return its length (5)
 * and, when c is not NULL, the class it stands for (a kernel's family by its
 * name, always a kernel class; an op that syncs, GPU_SYNC); 0 when s[0..n)
 * ends in none. */
size_t palette_kind_suffix(const char *s, size_t n, enum gpu_class *c);
/* Short legend label of a class ("Python", "sync"...). */
const char *palette_gpu_label(enum gpu_class c);
/* Colour of a class at variation v in [0, 1). */
void palette_gpu_rgb(enum gpu_class c, double v, char out[24]);

/* ---- consistent palette (--cp) ---- */

struct palmap;

struct palmap *palmap_new(void);
void palmap_free(struct palmap *m);
/* Parses "name->colour" lines (flamegraph.pl's palette.map); lines without
 * "->" are ignored. @return the number of entries read. */
size_t palmap_parse(struct palmap *m, const char *buf, size_t len);
/* @return the colour of name or NULL. */
const char *palmap_get(const struct palmap *m, const char *name, size_t n);
/* Adds or replaces (colour at most 23 bytes of plain colour syntax: the
 * characters of "rgb(r,g,b)" and "#rrggbb" and blanks; anything else is
 * ignored, since the colour is written into an SVG attribute). */
void palmap_set(struct palmap *m, const char *name, size_t n, const char *rgb);
/* Writes every entry sorted by name bytes, "name->colour\n". @return 0 or -1
 * on a write error. */
int palmap_write(const struct palmap *m, FILE *fp);
size_t palmap_count(const struct palmap *m);

#endif
