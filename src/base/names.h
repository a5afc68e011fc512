/*
 * names.h — the one classifier of frame, range and kernel names: every rule
 * that reads meaning into a name (a step marker, an nn.Module frame, a graph
 * launch, a communication kernel, a blocking or memcpy runtime call, a
 * memcpy's direction or pageable host memory, a Python source frame and
 * whether its file is inside torch) is written here
 * once, and the trace model, info, fold, the step/site analyses and the
 * flame-graph palettes all ask it (the kernel classes and families, Python
 * frames and API calls below too). docs/classes.md is the table of classes
 * and what each output does with them; tests/cli/one_class.sh checks that
 * every output agrees.
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
 * The collective a communication name stands for: a kernel
 * (ncclKernel_AllReduce_RING_LL_Sum_float, ncclDevKernel_ReduceScatter_...),
 * PyTorch's annotation (nccl:all_reduce, nccl:_all_gather_base) or c10d op
 * (c10d::allreduce_, c10d::_reduce_scatter_base_), or, with bare set, a
 * value of the "Collective name" arg ("allreduce", "_allgather_base").
 * Without bare the name must be a communication name: names_is_comm, or a
 * "c10d::" op. The letters are read in any case, '_' ignored, first rule
 * wins: reducescatter, allgather, allreduce, alltoall, broadcast, sendrecv
 * (and a "send"/"recv" name: nccl:send, c10d::recv_), barrier, gather,
 * scatter, reduce. NAMES_COLL_UNKNOWN for none (ncclDevKernel_Generic,
 * record_param_comms). names_coll_key: the kind's key, torch.distributed's
 * name ("all_reduce"; "unknown").
 */
enum names_coll {
	NAMES_COLL_UNKNOWN = 0,
	NAMES_COLL_ALL_REDUCE,
	NAMES_COLL_ALL_GATHER,
	NAMES_COLL_REDUCE_SCATTER,
	NAMES_COLL_ALL_TO_ALL,
	NAMES_COLL_BROADCAST,
	NAMES_COLL_REDUCE,
	NAMES_COLL_SEND_RECV,
	NAMES_COLL_GATHER,
	NAMES_COLL_SCATTER,
	NAMES_COLL_BARRIER,
	NAMES_COLL_N
};
enum names_coll names_coll_kind(const char *name, size_t n, bool bare);
const char *names_coll_key(int kind);

/* needle (lower case, NUL-terminated) anywhere in name[0..n), ASCII letters
 * compared case-insensitively; an empty needle is found everywhere. The one
 * substring test of the classifier and of kernel-family rules. */
bool names_contains_ci(const char *name, size_t n, const char *needle);

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
 *   NAMES_API_FREE   frees device or pinned memory, which synchronises the
 *                    device first: cudaFree, cudaFreeHost, cudaFreeArray,
 *                    cuMemFree, cuMemFreeHost, hipFree, hipHostFree (not the
 *                    stream-ordered *FreeAsync); NAMES_API_SYNC is set too:
 *                    a blocking call everywhere, of the allocator's class
 */
#define NAMES_API_SYNC 0x1u
#define NAMES_API_GRAPH 0x2u
#define NAMES_API_MEMCPY 0x4u
#define NAMES_API_WAIT 0x8u
#define NAMES_API_FREE 0x10u
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
 * "nn.Module: X", not a thread root "thread (12): python3". */
bool names_py_source(const char *name, size_t n, size_t *path_len);

/* A thread root frame as py-spy --threads and fold (cpu, wall) write it:
 * "thread (TID)" or "thread (TID): NAME", TID starting with a digit
 * (decimal, or py-spy's 0x... on macOS) or '?' ("thread (12, pid 3)"
 * too). Never a Python source frame. */
bool names_is_thread(const char *name, size_t n);
/* A process root frame of py-spy (--subprocesses: one per ancestor) and of
 * austin's import: "process " and a digit ("process 12:\"python x.py\""). */
bool names_is_process(const char *name, size_t n);

/* A CPython 3.12+ perf trampoline frame (python -X perf, as perf script
 * prints it): "py::QUALNAME:FILE". *fn_len gets the length of QUALNAME (at
 * name + 4), *file and *file_len FILE (when file is not NULL). */
bool names_py_perf(const char *name, size_t n, size_t *fn_len, const char **file, size_t *file_len);

/* A Python source path inside torch: a directory component named exactly
 * "torch" ("torch/cuda/__init__.py", ".../site-packages/torch/nn/x.py"; not
 * "torch_xla/", "mytorch/" nor "torchvision/"). path is the file path only
 * (py-spy frames: inside the parentheses; trace frames: before the '('). */
bool names_in_torch(const char *path, size_t n);

/*
 * ---- kernels ----
 * The class of a GPU kernel, and its default family (the leaf of a
 * GPU-weighted fold): the first rule whose lower-case substring the name
 * holds, in any case (docs/classes.md has the table):
 *   nccl, rccl -> family nccl, NAMES_K_COMM (a collective: names_is_comm)
 *   flash -> flash; fmha, attn, attention -> attn       NAMES_K_ATTN
 *   gemm, gemv, nvjet, cijk_, xmma, cutlass, matmul -> gemm  NAMES_K_GEMM
 *   triton -> triton                                    NAMES_K_TRITON
 *   elementwise -> elementwise; reduce -> reduce        NAMES_K_OTHER
 *   copy -> copy; memcpy -> memcpy; memset -> memset    NAMES_K_COPY
 * Each family name is its own family (names_kernel_family("gemm") is
 * "gemm"), so a fold's family leaf has its kernels' class.
 */
enum names_kclass {
	NAMES_K_NONE = 0, /* no rule: the family is the kernel's cut name */
	NAMES_K_COMM,
	NAMES_K_ATTN,
	NAMES_K_GEMM,
	NAMES_K_TRITON,
	NAMES_K_COPY,
	NAMES_K_OTHER,    /* elementwise, reduce */
};

/* The default family of a kernel name and *cls (when not NULL) its class;
 * NULL and NAMES_K_NONE when no rule matches. */
const char *names_kernel_family(const char *name, size_t n, enum names_kclass *cls);

/* A name that reads as a kernel though no family rule holds it: a mangled
 * C++ name ("_Z..."; ROCm traces keep them), "void ...", a kernel library's
 * namespace ("ck_tile::", "ck::", "cudnn::", "at::native::", "at::cuda::",
 * "(anonymous namespace)::", "cutlass::", "cub::", "rocprim::"), cuDNN's
 * "cudnn_..." and "..._scudnn_...", or "kernel"/"Kernel" in it; so a
 * family cut from a kernel's name reads as a kernel too. */
bool names_kernel_like(const char *name, size_t n);

/*
 * An accelerator's device event whose category does not say what it is
 * (MTIA's mtia_ccp_events): "dma..." moves data (a copy); "event_wait" and
 * "event_record" order the device's streams (a sync record: not busy time,
 * as CUDA's cuda_sync events); anything else ("pe_exe", "merge", "remote")
 * computes (a kernel).
 */
enum names_dev { NAMES_DEV_KERNEL = 0, NAMES_DEV_COPY, NAMES_DEV_SYNC };
enum names_dev names_device_event(const char *name, size_t n);

/*
 * ---- other frames ----
 * names_is_python: a Python frame: Kineto's "path(12): fn",
 * "<built-in method ...>", "<built-in function ...>", "<module>",
 * py-spy's "fn (file.py:12)" (".pyx", ".pyi" too) and CPython's -X perf
 * "py::fn:file.py"; never a thread or process root (names_is_thread).
 * names_is_api: a CUDA/HIP runtime or driver call (cuda[A-Z_]..., hip[A-Z_]...,
 * cu[A-Z]...) or a GPU library's host call (cublasX, cudnnX, ncclX, rcclX,
 * hipblasX, rocblas_x, miopenX; never a name with "kernel"/"Kernel").
 * Whether it blocks or launches a graph is names_api's.
 * names_op_blocking: names_op_sync() == NAMES_OP_READS: the palettes draw
 * them as syncs.
 */
/* What a blocking or memcpy call waits for (names_api's SYNC and MEMCPY
 * calls; NAMES_SYNC_NONE for others): the whole device
 * ({Device,Ctx,Thread}Synchronize), a stream (StreamSynchronize), an event
 * (EventSynchronize), a synchronous copy (Memcpy* without Async) or an
 * async copy (Memcpy*Async: it blocks only with pageable host memory). */
enum names_sync {
	NAMES_SYNC_NONE = 0,
	NAMES_SYNC_DEVICE,
	NAMES_SYNC_STREAM,
	NAMES_SYNC_EVENT,
	NAMES_SYNC_COPY,
	NAMES_SYNC_ASYNC_COPY,
	NAMES_SYNC_FREE,        /* a free call (NAMES_API_FREE): waits for the whole device */
};
enum names_sync names_sync_kind(const char *name, size_t n);

bool names_is_python(const char *name, size_t n);
bool names_is_api(const char *name, size_t n);
bool names_op_blocking(const char *name, size_t n);

/*
 * The aten ops behind a host-device sync, the one list `syncs` (the op that
 * asked for the value) and the palettes (names_op_blocking) read:
 *   NAMES_OP_READS      read a device value on the host whenever they run
 *                       on a GPU tensor: aten::item, _local_scalar_dense,
 *                       is_nonzero, nonzero, equal, allclose, tolist, numpy,
 *                       masked_select, unique, _unique, _unique2,
 *                       unique_consecutive, unique_dim, repeat_interleave
 *   NAMES_OP_MAY_COPY   sync only when they copy to or from host memory, or
 *                       need a size or a check on the host: aten::to,
 *                       _to_copy, copy_, index, index_put_, masked_scatter_,
 *                       multinomial, randperm
 */
enum names_op_sync { NAMES_OP_NONE = 0, NAMES_OP_READS, NAMES_OP_MAY_COPY };
enum names_op_sync names_op_sync(const char *name, size_t n);

/*
 * ---- classes of host work ----
 * What a frame's own name says the host was doing (the gap model's classes
 * of host work, docs/report.md; a frame without one takes its caller's):
 *   NAMES_HW_ALLOCATOR  the allocator: cuda/hip/cu Malloc*, Free*, MemAlloc*,
 *                       MemFree*, HostAlloc, HostMalloc, HostFree, Host(Un)Register,
 *                       MemCreate/Map/Unmap/Release/AddressReserve/AddressFree;
 *                       emptyCache / empty_cache, CachingAllocator frames
 *   NAMES_HW_WARMUP     one-time work: StreamCreate*, EventCreate*, ModuleLoad*,
 *                       ModuleGetFunction, LibraryLoad*, GetFuncBySymbol,
 *                       FuncGetAttributes, Stream{Begin,End}Capture,
 *                       GraphInstantiate*, GetDeviceProperties; cuDNN/cuBLAS/
 *                       hipBLAS/MIOpen/rocBLAS handle creation; cudnnFind*,
 *                       "autotun", benchmark_all_configs, precompile; kernel
 *                       images ("cubin": flashinfer's cubin_loader). Not a
 *                       caller merely named *warmup* (xDiT's _run_compile_warmup,
 *                       vLLM's compile_or_warm_up_model): the work under it is
 *                       classed by what it is (hook Python stays python);
 *                       Dynamo/Inductor/Triton compilation (convert_frame,
 *                       symbolic_convert, output_graph, compile_fx,
 *                       _inductor/graph.py, async_compile, triton/compiler/);
 *                       CUDA-graph capture (torch/cuda/graphs.py but replay,
 *                       capture_begin/end, make_graphed_callables, vLLM's
 *                       capture_model/_capture_cudagraphs)
 *   NAMES_HW_DATA       data loading and pre-processing: DataLoader,
 *                       data_load, torch/utils/data/, collate, pin_memory, PIL/,
 *                       torchvision transforms and io, scipy/ndimage, cv2/,
 *                       albumentations/, image_processing*, image_transforms,
 *                       video_processing, feature_extraction*, read_video*,
 *                       preprocess, tokenization*, tokenizers/ (tokenisers;
 *                       not a decode loop's detokenizer)
 * The runtime rows match the call's stem after cuda/hip/cu; the others a
 * substring in any case (the handle creators: a prefix). First row wins.
 */
enum names_hwork { NAMES_HW_NONE = 0, NAMES_HW_ALLOCATOR, NAMES_HW_WARMUP, NAMES_HW_DATA };
enum names_hwork names_host_work(const char *name, size_t n);

/* A frame of the profiler's own start and stop (torch/profiler/,
 * torch/autograd/profiler*.py, record_function's enter and exit): at the
 * window's edges it is not the user's work. */
bool names_profiler_frame(const char *name, size_t n);

#endif
