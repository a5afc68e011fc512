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

static const char *const coll_keys[NAMES_COLL_N] = {
	[NAMES_COLL_UNKNOWN] = "unknown",	    [NAMES_COLL_ALL_REDUCE] = "all_reduce",
	[NAMES_COLL_ALL_GATHER] = "all_gather",	    [NAMES_COLL_REDUCE_SCATTER] = "reduce_scatter",
	[NAMES_COLL_ALL_TO_ALL] = "all_to_all",	    [NAMES_COLL_BROADCAST] = "broadcast",
	[NAMES_COLL_REDUCE] = "reduce",		    [NAMES_COLL_SEND_RECV] = "send_recv",
	[NAMES_COLL_GATHER] = "gather",		    [NAMES_COLL_SCATTER] = "scatter",
	[NAMES_COLL_BARRIER] = "barrier",
};

const char *names_coll_key(int kind)
{
	return kind > 0 && kind < NAMES_COLL_N ? coll_keys[kind] : coll_keys[0];
}

enum names_coll names_coll_kind(const char *name, size_t n, bool bare)
{
	if (!bare && !names_is_comm(name, n) && !has_prefix(name, n, "c10d::"))
		return NAMES_COLL_UNKNOWN;
	/* the letters in lower case, '_' dropped; the rest of a long name
	 * (template arguments) cannot hold the collective */
	char b[96];
	size_t m = 0;
	for (size_t i = 0; i < n && m < sizeof b - 1; i++) {
		char c = name[i];
		if (c == '_')
			continue;
		b[m++] = c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
	}
	b[m] = 0;
	static const struct {
		const char *sub;
		enum names_coll k;
	} rules[] = {
		{ "reducescatter", NAMES_COLL_REDUCE_SCATTER }, { "allgather", NAMES_COLL_ALL_GATHER },
		{ "allreduce", NAMES_COLL_ALL_REDUCE },		{ "alltoall", NAMES_COLL_ALL_TO_ALL },
		{ "broadcast", NAMES_COLL_BROADCAST },		{ "sendrecv", NAMES_COLL_SEND_RECV },
		{ "barrier", NAMES_COLL_BARRIER },		{ "gather", NAMES_COLL_GATHER },
		{ "scatter", NAMES_COLL_SCATTER },		{ "reduce", NAMES_COLL_REDUCE },
	};
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (strstr(b, rules[i].sub))
			return rules[i].k;
	/* a point-to-point name: nccl:send, nccl:recv, c10d::send, c10d::recv_ */
	const char *colon = strrchr(b, ':');
	const char *w = colon ? colon + 1 : b;
	if (!strncmp(w, "send", 4) || !strncmp(w, "recv", 4))
		return NAMES_COLL_SEND_RECV;
	return NAMES_COLL_UNKNOWN;
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
	/* freeing device or pinned memory synchronises the device first (not
	 * the stream-ordered *FreeAsync) */
	if (eq(p, pn, "Free") || eq(p, pn, "FreeHost") || eq(p, pn, "FreeArray") || eq(p, pn, "HostFree") ||
	    eq(p, pn, "MemFree") || eq(p, pn, "MemFreeHost"))
		f |= NAMES_API_SYNC | NAMES_API_FREE;
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

bool names_is_thread(const char *name, size_t n)
{
	if (!has_prefix(name, n, "thread (") || n < 10)
		return false;
	char c = name[8];
	if (!((c >= '0' && c <= '9') || c == '?'))
		return false;
	const char *close = memchr(name + 8, ')', n - 8);
	if (!close)
		return false;
	size_t k = (size_t)(close - name) + 1;
	return k == n || (k + 1 < n && name[k] == ':' && name[k + 1] == ' ');
}

bool names_is_process(const char *name, size_t n)
{
	return has_prefix(name, n, "process ") && n > 8 && name[8] >= '0' && name[8] <= '9';
}

bool names_py_source(const char *name, size_t n, size_t *path_len)
{
	const char *p = memchr(name, '(', n);
	if (!p || p == name || name[0] == '<' || p[-1] == ' ' || names_is_thread(name, n))
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

bool names_py_perf(const char *name, size_t n, size_t *fn_len, const char **file, size_t *file_len)
{
	if (!has_prefix(name, n, "py::") || n < 6)
		return false;
	const char *c = memchr(name + 4, ':', n - 4);
	if (!c || c == name + 4 || c == name + n - 1)
		return false;
	*fn_len = (size_t)(c - name) - 4;
	if (file) {
		*file = c + 1;
		*file_len = (size_t)(name + n - c - 1);
	}
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

/* ---- kernel classes and default families (names_kernel) ---- */

/* case-insensitive search of a lower-case needle */
bool names_contains_ci(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k > n)
		return false;
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;
		while (j < k) {
			char c = s[i + j];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != needle[j])
				break;
			j++;
		}
		if (j == k)
			return true;
	}
	return false;
}

/* The default family rules, first match wins (names.h, docs/classes.md). */
static const struct names_krule {
	const char *sub; /* lower-case substring */
	const char *family;
	enum names_kclass cls;
} krules[] = {
	{ "nccl", "nccl", NAMES_K_COMM },          { "rccl", "nccl", NAMES_K_COMM },
	{ "flash", "flash", NAMES_K_ATTN },        { "fmha", "attn", NAMES_K_ATTN },
	{ "attn", "attn", NAMES_K_ATTN },          { "attention", "attn", NAMES_K_ATTN },
	{ "gemm", "gemm", NAMES_K_GEMM },          { "gemv", "gemm", NAMES_K_GEMM },
	{ "nvjet", "gemm", NAMES_K_GEMM },         { "cijk_", "gemm", NAMES_K_GEMM },
	{ "xmma", "gemm", NAMES_K_GEMM },          { "cutlass", "gemm", NAMES_K_GEMM },
	{ "matmul", "gemm", NAMES_K_GEMM },        { "triton", "triton", NAMES_K_TRITON },
	{ "elementwise", "elementwise", NAMES_K_OTHER }, { "reduce", "reduce", NAMES_K_OTHER },
	{ "copy", "copy", NAMES_K_COPY },          { "memcpy", "memcpy", NAMES_K_COPY },
	{ "memset", "memset", NAMES_K_COPY },
};

const char *names_kernel_family(const char *name, size_t n, enum names_kclass *cls)
{
	for (size_t i = 0; i < sizeof krules / sizeof krules[0]; i++)
		if (names_contains_ci(name, n, krules[i].sub)) {
			if (cls)
				*cls = krules[i].cls;
			return krules[i].family;
		}
	if (cls)
		*cls = NAMES_K_NONE;
	return NULL;
}

bool names_kernel_like(const char *name, size_t n)
{
	if (n > 3 && name[0] == '_' && name[1] == 'Z')
		return true; /* a mangled C++ name: ROCm traces keep kernels so */
	/* "void f<...>(...)" and the namespaces of kernel libraries, so that a
	 * family cut from a kernel's name ("at::native::(anonymous
	 * namespace)::max_pool_forward_nchw") reads as a kernel too */
	static const char *const ns[] = { "void ", "ck_tile::", "ck::", "cudnn_", "cudnn::", "at::native::",
					  "at::cuda::", "(anonymous namespace)::", "cutlass::", "cub::", "rocprim::" };
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		if (has_prefix(name, n, ns[i]))
			return true;
	if (contains(name, n, "_scudnn_"))
		return true; /* cuDNN's kernels: volta_scudnn_128x64_... */
	return contains(name, n, "kernel") || contains(name, n, "Kernel");
}

/* ---- frames (names_frame) ---- */

bool names_is_python(const char *name, size_t n)
{
	size_t pl;
	if (names_py_source(name, n, &pl))
		return true; /* Kineto: "path(12): fn" */
	if (has_prefix(name, n, "<built-in method ") || has_prefix(name, n, "<built-in function ") ||
	    has_prefix(name, n, "<module>"))
		return true;
	size_t fl;
	if (names_py_perf(name, n, &fl, NULL, NULL))
		return true; /* CPython 3.12+ -X perf: "py::fn:file.py" */
	if (names_is_thread(name, n) || names_is_process(name, n))
		return false;
	/* py-spy: "fn (file.py:12)"; also ".pyx"/".pyi" and "file.py(12)" forms */
	for (size_t i = 0; i + 3 < n; i++) {
		if (name[i] != '.' || name[i + 1] != 'p' || name[i + 2] != 'y')
			continue;
		size_t j = i + 3;
		if (j < n && (name[j] == 'x' || name[j] == 'i'))
			j++;
		if (j < n && (name[j] == '(' || name[j] == ':')) {
			size_t k = j + 1, d0 = k;
			while (k < n && name[k] >= '0' && name[k] <= '9')
				k++;
			if (k > d0 && k < n && (name[k] == ')' || name[k] == ':'))
				return true;
		}
	}
	return false;
}

bool names_is_api(const char *name, size_t n)
{
	if (n > 4 && has_prefix(name, n, "cuda") && ((name[4] >= 'A' && name[4] <= 'Z') || name[4] == '_'))
		return true;
	if (n > 3 && has_prefix(name, n, "hip") && ((name[3] >= 'A' && name[3] <= 'Z') || name[3] == '_'))
		return true;
	if (n > 2 && has_prefix(name, n, "cu") && name[2] >= 'A' && name[2] <= 'Z')
		return true;
	/* host calls of the GPU libraries: the library's prefix and a capital
	 * (cublasSgemm, cudnnConvolutionForward, ncclAllReduce) or rocblas_x;
	 * never a kernel (ncclKernel_..., ncclDevKernel_...) */
	static const char *const libs[] = { "cublas", "cudnn", "cusparse", "cufft", "curand", "cusolver",
					    "nccl", "rccl", "hipblas", "rocblas", "miopen" };
	if (contains(name, n, "Kernel") || contains(name, n, "kernel"))
		return false;
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		size_t k = strlen(libs[i]);
		if (n > k && has_prefix(name, n, libs[i]) &&
		    ((name[k] >= 'A' && name[k] <= 'Z') || (name[k] == '_' && !strcmp(libs[i], "rocblas"))))
			return true;
	}
	return false;
}

enum names_op_sync names_op_sync(const char *name, size_t n)
{
	static const char *const reads[] = {
		"aten::item", "aten::_local_scalar_dense", "aten::is_nonzero", "aten::nonzero",
		"aten::equal", "aten::allclose", "aten::tolist", "aten::numpy", "aten::masked_select",
		"aten::unique", "aten::_unique", "aten::_unique2", "aten::unique_consecutive",
		"aten::unique_dim", "aten::repeat_interleave",
	};
	static const char *const copies[] = {
		"aten::to", "aten::_to_copy", "aten::copy_", "aten::index", "aten::index_put_",
		"aten::masked_scatter_", "aten::multinomial", "aten::randperm",
	};
	if (n < 6 || memcmp(name, "aten::", 6))
		return NAMES_OP_NONE;
	for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
		if (eq(name, n, reads[i]))
			return NAMES_OP_READS;
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
		if (eq(name, n, copies[i]))
			return NAMES_OP_MAY_COPY;
	return NAMES_OP_NONE;
}

bool names_op_blocking(const char *name, size_t n)
{
	return names_op_sync(name, n) == NAMES_OP_READS;
}

enum names_sync names_sync_kind(const char *name, size_t n)
{
	unsigned api = names_api(name, n);
	if (!(api & (NAMES_API_SYNC | NAMES_API_MEMCPY)))
		return NAMES_SYNC_NONE;
	if (api & NAMES_API_MEMCPY)
		return api & NAMES_API_SYNC ? NAMES_SYNC_COPY : NAMES_SYNC_ASYNC_COPY;
	if (api & NAMES_API_FREE)
		return NAMES_SYNC_FREE;
	if (contains(name, n, "DeviceSynchronize") || contains(name, n, "CtxSynchronize") ||
	    contains(name, n, "ThreadSynchronize"))
		return NAMES_SYNC_DEVICE;
	if (contains(name, n, "EventSynchronize"))
		return NAMES_SYNC_EVENT;
	return NAMES_SYNC_STREAM;
}

/* ---- classes of host work (names_host_work) ---- */

/* How a row of the table matches: the stem of a runtime/driver call after
 * cuda/hip/cu (names_api's parse: a "_suffix" ignored) starts with pat;
 * the name starts with pat; or pat (lower case) anywhere, any case. */
enum { HM_API, HM_PREFIX, HM_SUB };

static const struct names_hrule {
	const char *pat;
	unsigned char how, cls;
} hrules[] = {
	/* the allocator: device, pinned and virtual memory */
	{ "Malloc", HM_API, NAMES_HW_ALLOCATOR },          { "Free", HM_API, NAMES_HW_ALLOCATOR },
	{ "MemAlloc", HM_API, NAMES_HW_ALLOCATOR },        { "MemFree", HM_API, NAMES_HW_ALLOCATOR },
	{ "HostAlloc", HM_API, NAMES_HW_ALLOCATOR },       { "HostMalloc", HM_API, NAMES_HW_ALLOCATOR },
	{ "HostFree", HM_API, NAMES_HW_ALLOCATOR },        { "HostRegister", HM_API, NAMES_HW_ALLOCATOR },
	{ "HostUnregister", HM_API, NAMES_HW_ALLOCATOR },  { "MemCreate", HM_API, NAMES_HW_ALLOCATOR },
	{ "MemMap", HM_API, NAMES_HW_ALLOCATOR },          { "MemUnmap", HM_API, NAMES_HW_ALLOCATOR },
	{ "MemRelease", HM_API, NAMES_HW_ALLOCATOR },      { "MemAddressReserve", HM_API, NAMES_HW_ALLOCATOR },
	{ "MemAddressFree", HM_API, NAMES_HW_ALLOCATOR },  { "ExtMallocWithFlags", HM_API, NAMES_HW_ALLOCATOR },
	{ "emptycache", HM_SUB, NAMES_HW_ALLOCATOR },      { "empty_cache", HM_SUB, NAMES_HW_ALLOCATOR },
	{ "cachingallocator", HM_SUB, NAMES_HW_ALLOCATOR },
	/* one-time work: streams, events, modules (first launch), handles,
	 * graph capture, compilation, autotuning */
	{ "StreamCreate", HM_API, NAMES_HW_WARMUP },       { "EventCreate", HM_API, NAMES_HW_WARMUP },
	{ "ModuleLoad", HM_API, NAMES_HW_WARMUP },         { "ModuleGetFunction", HM_API, NAMES_HW_WARMUP },
	{ "LibraryLoad", HM_API, NAMES_HW_WARMUP },        { "LibraryGetKernel", HM_API, NAMES_HW_WARMUP },
	{ "GetFuncBySymbol", HM_API, NAMES_HW_WARMUP },    { "FuncGetAttributes", HM_API, NAMES_HW_WARMUP },
	{ "StreamBeginCapture", HM_API, NAMES_HW_WARMUP }, { "StreamEndCapture", HM_API, NAMES_HW_WARMUP },
	{ "GraphInstantiate", HM_API, NAMES_HW_WARMUP },   { "GetDeviceProperties", HM_API, NAMES_HW_WARMUP },
	{ "cudnnCreate", HM_PREFIX, NAMES_HW_WARMUP },     { "cublasCreate", HM_PREFIX, NAMES_HW_WARMUP },
	{ "cublasLtCreate", HM_PREFIX, NAMES_HW_WARMUP },  { "hipblasCreate", HM_PREFIX, NAMES_HW_WARMUP },
	{ "hipblasLtCreate", HM_PREFIX, NAMES_HW_WARMUP }, { "miopenCreate", HM_PREFIX, NAMES_HW_WARMUP },
	{ "rocblas_create_handle", HM_PREFIX, NAMES_HW_WARMUP },
	{ "cudnnfind", HM_SUB, NAMES_HW_WARMUP },          { "autotun", HM_SUB, NAMES_HW_WARMUP },
	{ "benchmark_all_configs", HM_SUB, NAMES_HW_WARMUP }, { "precompile", HM_SUB, NAMES_HW_WARMUP },
	{ "cubin", HM_SUB, NAMES_HW_WARMUP }, /* loading a kernel image (flashinfer's cubin_loader) */
	{ "_capture_cudagraph", HM_SUB, NAMES_HW_WARMUP }, /* vLLM's graph capture: replay runs none of it */
	{ "capture_model", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/_dynamo/convert_frame.py", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/_dynamo/symbolic_convert.py", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/_dynamo/output_graph.py", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/_inductor/compile_fx.py", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/_inductor/graph.py", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/_inductor/async_compile.py", HM_SUB, NAMES_HW_WARMUP },
	{ "triton/compiler/", HM_SUB, NAMES_HW_WARMUP },
	{ "capture_begin", HM_SUB, NAMES_HW_WARMUP },      { "capture_end", HM_SUB, NAMES_HW_WARMUP },
	{ "make_graphed_callables", HM_SUB, NAMES_HW_WARMUP },
	{ "torch/cuda/graphs.py", HM_SUB, NAMES_HW_WARMUP }, /* capture; replay is excluded below */
	/* data loading and pre-processing */
	{ "dataloader", HM_SUB, NAMES_HW_DATA },           { "data_load", HM_SUB, NAMES_HW_DATA },
	{ "torch/utils/data/", HM_SUB, NAMES_HW_DATA },    { "collate", HM_SUB, NAMES_HW_DATA },
	{ "pin_memory", HM_SUB, NAMES_HW_DATA },           { "pil/", HM_SUB, NAMES_HW_DATA },
	{ "torchvision/transforms", HM_SUB, NAMES_HW_DATA }, { "torchvision/io", HM_SUB, NAMES_HW_DATA },
	{ "scipy/ndimage", HM_SUB, NAMES_HW_DATA },        { "cv2/", HM_SUB, NAMES_HW_DATA },
	{ "albumentations/", HM_SUB, NAMES_HW_DATA },      { "image_processing", HM_SUB, NAMES_HW_DATA },
	{ "image_transforms", HM_SUB, NAMES_HW_DATA },     { "video_processing", HM_SUB, NAMES_HW_DATA },
	{ "feature_extraction", HM_SUB, NAMES_HW_DATA },   { "read_video", HM_SUB, NAMES_HW_DATA },
	{ "preprocess", HM_SUB, NAMES_HW_DATA },           { "tokenization", HM_SUB, NAMES_HW_DATA },
	{ "tokenizers/", HM_SUB, NAMES_HW_DATA },
};

enum names_hwork names_host_work(const char *name, size_t n)
{
	/* a runtime/driver call's stem (names_api's parse) */
	const char *us = memchr(name, '_', n);
	size_t m = us ? (size_t)(us - name) : n, k = 0;
	if (has_prefix(name, m, "cuda"))
		k = 4;
	else if (has_prefix(name, m, "hip"))
		k = 3;
	else if (has_prefix(name, m, "cu") && m > 2 && name[2] >= 'A' && name[2] <= 'Z')
		k = 2;
	for (size_t i = 0; i < sizeof hrules / sizeof hrules[0]; i++) {
		const struct names_hrule *h = &hrules[i];
		bool hit;
		if (h->how == HM_API)
			hit = k && has_prefix(name + k, m - k, h->pat);
		else if (h->how == HM_PREFIX)
			hit = has_prefix(name, n, h->pat);
		else
			hit = names_contains_ci(name, n, h->pat);
		if (!hit)
			continue;
		/* a CUDA graph's replay is steady work, its capture one-time */
		if (h->cls == NAMES_HW_WARMUP && h->how == HM_SUB && !strcmp(h->pat, "torch/cuda/graphs.py") &&
		    names_contains_ci(name, n, "replay"))
			return NAMES_HW_NONE;
		return (enum names_hwork)h->cls;
	}
	return NAMES_HW_NONE;
}

bool names_profiler_frame(const char *name, size_t n)
{
	return contains(name, n, "torch/profiler/") || contains(name, n, "torch/autograd/profiler") ||
	       has_prefix(name, n, "<built-in method _record_function_exit") ||
	       has_prefix(name, n, "<built-in method _record_function_enter");
}

enum names_dev names_device_event(const char *name, size_t n)
{
	if (has_prefix(name, n, "dma"))
		return NAMES_DEV_COPY;
	if (eq(name, n, "event_wait") || eq(name, n, "event_record"))
		return NAMES_DEV_SYNC;
	return NAMES_DEV_KERNEL;
}
