/*
 * names.h — the one classifier of frame, range and kernel names: every rule
 * that reads meaning into a name (a step marker, an nn.Module frame, a graph
 * launch, a communication kernel, a blocking or memcpy runtime call, a
 * memcpy's direction or pageable host memory, a Python source frame and
 * whether its file is inside torch) is written here
 * once, and the trace model, info, fold, the step/site analyses and the
 * flame-graph palettes all ask it.
 *
 *   int64_t num;
 *   if (names_step(s, n, names_marker(opt_marker), &num)) ... a step ...
 *   if (names_api(s, n) & NAMES_API_SYNC) ... a blocking call ...
 *
 * Names are untrusted bytes with a length (no NUL needed); nothing here
 * allocates, prints or fails.
 *
 * Layer: base (no project dependencies, so both pipelines can use it).
 */
#ifndef GF_NAMES_H
#define GF_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The default step marker of the PyTorch profiler (ProfilerStep#N). */
#define NAMES_STEP_MARKER "ProfilerStep"

/* marker, or NAMES_STEP_MARKER when marker is NULL or empty. */
const char *names_marker(const char *marker);

/*
 * A step marker range: the name is marker itself, or marker '#' and 1 to 18
 * decimal digits. *num gets the digits' value, or -1 for the bare marker.
 */
bool names_step(const char *name, size_t n, const char *marker, int64_t *num);

/* An nn.Module frame: "nn.Module: " and the class. */
bool names_is_module(const char *name, size_t n);

/* A communication (collective) kernel or call: "nccl" or "rccl" anywhere,
 * in any case. */
bool names_is_comm(const char *name, size_t n);

/*
 * A CUDA/HIP runtime or driver API name (cuda*, hip*, cu*; a "_suffix" such
 * as _v2 or _ptsz is ignored):
 *   NAMES_API_SYNC   blocks the host: {Stream,Device,Event,Ctx,Thread}Synchronize,
 *                    and Memcpy* without "Async" (cudaMemcpy, cuMemcpyDtoH,
 *                    hipMemcpyWithStream ...)
 *   NAMES_API_GRAPH  a graph launch: cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch
 *   NAMES_API_MEMCPY any Memcpy* call
 *   NAMES_API_WAIT   a stream waits for an event on the device, the host does
 *                    not block: cudaStreamWaitEvent, cuStreamWaitEvent,
 *                    hipStreamWaitEvent (the gap model's queued-wait label)
 */
#define NAMES_API_SYNC 0x1u
#define NAMES_API_GRAPH 0x2u
#define NAMES_API_MEMCPY 0x4u
#define NAMES_API_WAIT 0x8u
unsigned names_api(const char *name, size_t n);

/* A memcpy activity's direction from its name: "DtoH", else "HtoD", else
 * "DtoD" or "PtoP"; NAMES_COPY_NONE when none appears. */
enum names_copy { NAMES_COPY_NONE = 0, NAMES_COPY_DTOH, NAMES_COPY_HTOD, NAMES_COPY_DTOD };
enum names_copy names_copy_dir(const char *name, size_t n);

/* A pageable (host memory not pinned) memcpy activity: "Pageable" in its
 * name ("Memcpy DtoH (Device -> Pageable)"); such a copy blocks the host. */
bool names_copy_pageable(const char *name, size_t n);

/* A Kineto python_function source frame, "path(123): func": *path_len gets
 * the length of path (before the '('). Not "<built-in ...>", not
 * "nn.Module: X". */
bool names_py_source(const char *name, size_t n, size_t *path_len);

/* A Python source path inside torch: a directory component named exactly
 * "torch" ("torch/cuda/__init__.py", ".../site-packages/torch/nn/x.py"; not
 * "torch_xla/", "mytorch/" nor "torchvision/"). path is the file path only
 * (py-spy frames: inside the parentheses; trace frames: before the '('). */
bool names_in_torch(const char *path, size_t n);

#endif
