/*
 * test_names.c — the one classifier (base/names.h): a table of names and the
 * classes each must get, written out by hand from the rules (not from the
 * code), and the consumers that must agree with it (the trace model's flags,
 * info's counts, the gpu palette).
 */
#include "t.h"

#include "base/names.h"
#include "stacks/render/palette.h"
#include "stacks/render/pysync_out.h"

#define S(lit) lit, sizeof(lit) - 1

enum { MOD = 1, COMM = 2 };

/* name -> NAMES_API_* bits, module/comm, copy direction, pageable */
static const struct {
	const char *name;
	unsigned api;
	unsigned cls;
	int dir;
	bool pageable;
} rows[] = {
	{ "cudaStreamSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "cudaDeviceSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "cudaEventSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "cudaThreadSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "cuStreamSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "cuCtxSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "hipDeviceSynchronize", NAMES_API_SYNC, 0, 0, false },
	{ "cudaStreamSynchronize_ptsz", NAMES_API_SYNC, 0, 0, false },
	{ "cudaMemcpy", NAMES_API_SYNC | NAMES_API_MEMCPY, 0, 0, false },
	{ "cudaMemcpy2D", NAMES_API_SYNC | NAMES_API_MEMCPY, 0, 0, false },
	{ "hipMemcpyWithStream", NAMES_API_SYNC | NAMES_API_MEMCPY, 0, 0, false },
	{ "cuMemcpyDtoH_v2", NAMES_API_SYNC | NAMES_API_MEMCPY, 0, NAMES_COPY_DTOH, false },
	{ "cudaMemcpyAsync", NAMES_API_MEMCPY, 0, 0, false },
	{ "cuMemcpyHtoDAsync_v2", NAMES_API_MEMCPY, 0, NAMES_COPY_HTOD, false },
	{ "cudaGraphLaunch", NAMES_API_GRAPH, 0, 0, false },
	{ "hipGraphLaunch", NAMES_API_GRAPH, 0, 0, false },
	{ "cuGraphLaunch", NAMES_API_GRAPH, 0, 0, false },
	{ "cudaGraphLaunch_v10000", NAMES_API_GRAPH, 0, 0, false },
	{ "cudaGraphLaunchKernel", 0, 0, 0, false },
	{ "cudaLaunchKernel", 0, 0, 0, false },
	{ "cudaStreamWaitEvent", NAMES_API_WAIT, 0, 0, false },
	{ "hipStreamWaitEvent", NAMES_API_WAIT, 0, 0, false },
	{ "cuStreamWaitEvent_ptsz", NAMES_API_WAIT, 0, 0, false },
	{ "cudaStreamWaitEventX", 0, 0, 0, false },
	{ "cudaEventQuery", 0, 0, 0, false },
	{ "aten::item", 0, 0, 0, false },
	{ "Synchronize", 0, 0, 0, false },
	{ "nn.Module: Linear_0", 0, MOD, 0, false },
	{ "nn.Module:Linear", 0, 0, 0, false },
	{ "x nn.Module: Linear", 0, 0, 0, false },
	{ "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 0, COMM, 0, false },
	{ "NCCL_kernel", 0, COMM, 0, false },
	{ "rccl_AllReduce", 0, COMM, 0, false },
	{ "void RcCl::x", 0, COMM, 0, false },
	{ "ncc_l", 0, 0, 0, false },
	{ "Memcpy DtoH (Device -> Pageable)", 0, 0, NAMES_COPY_DTOH, true },
	{ "Memcpy HtoD (Pinned -> Device)", 0, 0, NAMES_COPY_HTOD, false },
	{ "Memcpy DtoD (Device -> Device)", 0, 0, NAMES_COPY_DTOD, false },
	{ "Memcpy PtoP (Device -> Device)", 0, 0, NAMES_COPY_DTOD, false },
	{ "Memcpy HtoD DtoH", 0, 0, NAMES_COPY_DTOH, false },
	{ "Memset (Device)", 0, 0, 0, false },
};

T_TEST(test_names__table)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const char *s = rows[i].name;
		size_t n = strlen(s);
		if (names_api(s, n) != rows[i].api)
			T_FAIL_("names_api(%s) == %u, expected %u", s, names_api(s, n), rows[i].api);
		if (names_is_module(s, n) != !!(rows[i].cls & MOD))
			T_FAIL_("names_is_module(%s)", s);
		if (names_is_comm(s, n) != !!(rows[i].cls & COMM))
			T_FAIL_("names_is_comm(%s)", s);
		if ((int)names_copy_dir(s, n) != rows[i].dir)
			T_FAIL_("names_copy_dir(%s) == %d, expected %d", s, (int)names_copy_dir(s, n), rows[i].dir);
		if (names_copy_pageable(s, n) != rows[i].pageable)
			T_FAIL_("names_copy_pageable(%s)", s);
	}
	/* a length, not a NUL, ends the name */
	T_EQ_I64(names_api("cudaMemcpyAsync", 10), NAMES_API_SYNC | NAMES_API_MEMCPY);
	T_TRUE(!names_is_comm("nccl", 3));
}

T_TEST(test_names__steps)
{
	int64_t n;
	T_EQ_STR(names_marker(NULL), "ProfilerStep");
	T_EQ_STR(names_marker(""), "ProfilerStep");
	T_EQ_STR(names_marker("decode"), "decode");
	T_TRUE(names_step(S("ProfilerStep#12"), "ProfilerStep", &n));
	T_EQ_I64(n, 12);
	T_TRUE(names_step(S("ProfilerStep"), "ProfilerStep", &n));
	T_EQ_I64(n, -1);
	T_TRUE(names_step(S("ProfilerStep#000000000000000007"), "ProfilerStep", &n)); /* 18 digits */
	T_EQ_I64(n, 7);
	T_TRUE(!names_step(S("ProfilerStep#0000000000000000007"), "ProfilerStep", &n)); /* 19 */
	T_TRUE(!names_step(S("ProfilerStep#"), "ProfilerStep", &n));
	T_TRUE(!names_step(S("ProfilerStep#1a"), "ProfilerStep", &n));
	T_TRUE(!names_step(S("ProfilerStep#12abc"), "ProfilerStep", &n));
	T_TRUE(!names_step(S("ProfilerStep# 3"), "ProfilerStep", &n));
	T_TRUE(!names_step(S("ProfilerStep#-5"), "ProfilerStep", &n));
	T_TRUE(!names_step(S("ProfilerStepX"), "ProfilerStep", &n));
	T_TRUE(!names_step(S("xProfilerStep#1"), "ProfilerStep", &n));
	T_TRUE(names_step(S("decode#3"), "decode", &n));
	T_EQ_I64(n, 3);
	T_TRUE(!names_step(S("ProfilerStep#3"), "decode", &n));
}

T_TEST(test_names__python)
{
	size_t pl = 0;
	T_TRUE(names_py_source(S("engine.py(251): check_eos"), &pl));
	T_EQ_I64(pl, 9);
	T_TRUE(names_py_source(S("/x/torch/nn/m.py(1): f"), &pl));
	T_EQ_I64(pl, 16);
	T_TRUE(!names_py_source(S("<built-in method item of Tensor object at 0x7f>"), &pl));
	T_TRUE(!names_py_source(S("nn.Module: Linear_0"), &pl));
	T_TRUE(!names_py_source(S("(12): f"), &pl));
	T_TRUE(!names_py_source(S("a.py(12)"), &pl));
	T_TRUE(!names_py_source(S("a.py(12) f"), &pl));
	T_TRUE(!names_py_source(S("a.py(): f"), &pl));
	T_TRUE(!names_py_source("a.py(12): f", 8, &pl)); /* cut before the ':' */
	/* thread roots (fold cpu/wall, py-spy --threads) are not source frames */
	T_TRUE(!names_py_source(S("thread (25286): python3"), &pl));
	T_TRUE(names_is_thread(S("thread (25286): python3")));
	T_TRUE(names_is_thread(S("thread (25286)")));
	T_TRUE(names_is_thread(S("thread (0x7F00AB): MainThread")));
	T_TRUE(names_is_thread(S("thread (?, pid 3)")));
	T_TRUE(!names_is_thread(S("thread (x)")));
	T_TRUE(!names_is_thread(S("thread (12) x")));
	T_TRUE(!names_is_thread(S("thread (12")));
	T_TRUE(names_is_process(S("process 12:\"python x.py\"")));
	T_TRUE(!names_is_process(S("process x")));
	size_t fl = 0, ml = 0;
	const char *file = NULL;
	T_TRUE(names_py_perf(S("py::train:/w/t.py"), &fl, &file, &ml));
	T_EQ_I64(fl, 5);
	T_EQ_I64(ml, 7);
	T_TRUE(!names_py_perf(S("py::train"), &fl, &file, &ml));
	T_TRUE(!names_py_perf(S("py:::t.py"), &fl, &file, &ml));
	T_TRUE(names_in_torch(S("torch/cuda/__init__.py")));
	T_TRUE(names_in_torch(S("/x/site-packages/torch/nn/m.py")));
	T_TRUE(names_in_torch(S("C:\\py\\torch\\nn\\m.py")));
	T_TRUE(!names_in_torch(S("torchvision/x.py")));
	T_TRUE(!names_in_torch(S("mytorch/x.py")));
	T_TRUE(!names_in_torch(S("torch_xla/x.py")));
	T_TRUE(!names_in_torch(S("torch")));
}

/* The gpu palette colours by the same rules: a blocking call the model
 * counts is a sync frame, a communication kernel in any case is COMM, an
 * nn.Module frame is MODULE. */
T_TEST(test_names__palette_agrees)
{
	T_EQ_I64(palette_gpu_class(S("cuMemcpyDtoH_v2")), GPU_SYNC);
	T_EQ_I64(palette_gpu_class(S("hipMemcpyWithStream")), GPU_SYNC);
	T_EQ_I64(palette_gpu_class(S("cudaStreamSynchronize")), GPU_SYNC);
	T_EQ_I64(palette_gpu_class(S("Rccl_AllReduce_kernel")), GPU_K_COMM);
	T_EQ_I64(palette_gpu_class(S("void NcCl_x_kernel")), GPU_K_COMM);
	T_EQ_I64(palette_gpu_class(S("nn.Module: Linear_0")), GPU_MODULE);
	T_EQ_I64(palette_gpu_class(S("cudaMemcpyAsync")), GPU_RUNTIME);
}

/* Kernel classes and default families, written out from the table in
 * names.h / docs/classes.md; each family name is its own family, so a
 * fold's family leaf has the class of its kernels. */
T_TEST(test_names__kernels)
{
	static const struct {
		const char *name, *family;
		enum names_kclass cls;
		enum gpu_class pal;
	} cases[] = {
		{ "rcclAllReduceKernel", "nccl", NAMES_K_COMM, GPU_K_COMM },
		{ "rccl_AllReduce_kernel", "nccl", NAMES_K_COMM, GPU_K_COMM },
		{ "ncclDevKernel_ReduceScatter_Sum", "nccl", NAMES_K_COMM, GPU_K_COMM },
		{ "_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelI", "attn", NAMES_K_ATTN, GPU_K_ATTN },
		{ "kernel_unified_attention_2d", "attn", NAMES_K_ATTN, GPU_K_ATTN },
		{ "fmha_cutlassF_f16_aligned_64x64_rf_sm80", "attn", NAMES_K_ATTN, GPU_K_ATTN },
		{ "flash_fwd_kernel", "flash", NAMES_K_ATTN, GPU_K_ATTN },
		{ "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", "gemm", NAMES_K_GEMM, GPU_K_GEMM },
		{ "std::enable_if<!(false), void>::type internal::gemvx::kernel<int>", "gemm", NAMES_K_GEMM, GPU_K_GEMM },
		{ "Cijk_Alik_Bljk_BBS_BH_MT64x16", "gemm", NAMES_K_GEMM, GPU_K_GEMM },
		{ "triton_poi_fused_add_0", "triton", NAMES_K_TRITON, GPU_K_TRITON },
		{ "void at::native::reduce_kernel<512>", "reduce", NAMES_K_OTHER, GPU_K_OTHER },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float>", "copy", NAMES_K_COPY, GPU_K_COPY },
		{ "Memcpy DtoH (Device -> Pinned)", "memcpy", NAMES_K_COPY, GPU_K_COPY },
		{ "Memset (Device)", "memset", NAMES_K_COPY, GPU_K_COPY },
		{ "_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm", NULL, NAMES_K_NONE, GPU_K_OTHER },
		{ "ck_tile::Rmsnorm2dFwd", NULL, NAMES_K_NONE, GPU_K_OTHER },
		{ "void paged_kv_kernel<4>", NULL, NAMES_K_NONE, GPU_K_OTHER },
	};
	for (size_t i = 0; i < GF_ARRAY_LEN(cases); i++) {
		enum names_kclass c;
		const char *f = names_kernel_family(cases[i].name, strlen(cases[i].name), &c);
		T_EQ_STR(f ? f : "(none)", cases[i].family ? cases[i].family : "(none)");
		T_EQ_I64(c, cases[i].cls);
		T_EQ_I64(palette_gpu_class(cases[i].name, strlen(cases[i].name)), cases[i].pal);
		if (f) { /* the family leaf: same family, same class, same colour class */
			enum names_kclass c2;
			T_EQ_STR(names_kernel_family(f, strlen(f), &c2), f);
			T_EQ_I64(c2, c);
			T_EQ_I64(palette_gpu_class(f, strlen(f)), cases[i].pal);
		}
	}
}

/* Frames and calls: Python frames of every spelling, API calls orange,
 * blocking ones (and only those) red. */
T_TEST(test_names__frames)
{
	T_TRUE(names_is_python(S("<built-in function linear>")));
	T_TRUE(names_is_python(S("<built-in method item of Tensor object at 0x...>")));
	T_TRUE(names_is_python(S("forward (model/llama.py:310)")));
	T_TRUE(names_is_python(S("torch/nn/modules/module.py(1736): _call_impl")));
	T_TRUE(names_is_python(S("py::forward:/w/model.py")));  /* python -X perf */
	T_TRUE(!names_is_python(S("thread (25286): python3")));
	T_TRUE(!names_is_python(S("thread (25286): x.py:12)")));
	T_TRUE(!names_is_python(S("process 3:\"python a.py:12\"")));
	T_TRUE(!names_is_python(S("aten::linear")));
	T_EQ_I64(palette_gpu_class(S("<built-in function linear>")), GPU_PYTHON);
	T_TRUE(names_is_api(S("cudaLaunchKernel")));
	T_TRUE(names_is_api(S("hipExtModuleLaunchKernel")));
	T_TRUE(names_is_api(S("cuLaunchKernel")));
	T_TRUE(names_is_api(S("cudnnConvolutionForward")));
	T_TRUE(names_is_api(S("rocblas_sgemm")));
	T_TRUE(!names_is_api(S("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1")));
	T_TRUE(!names_is_api(S("ncclKernel_AllReduce_RING_LL_Sum_float")));
	T_TRUE(!names_is_api(S("cunn_SoftMaxForward")));
	/* hipMemset/cudaMemset return before the memset is done (asynchronous
	 * to the host for device memory): API calls, not syncs */
	T_EQ_I64(palette_gpu_class(S("hipMemset")), GPU_RUNTIME);
	T_EQ_I64(palette_gpu_class(S("cudaMemset")), GPU_RUNTIME);
	T_EQ_I64(palette_gpu_class(S("hipMemsetAsync")), GPU_RUNTIME);
	T_EQ_I64(palette_gpu_class(S("hipGraphLaunch")), GPU_RUNTIME);
	T_EQ_I64(palette_gpu_class(S("hipStreamWaitEvent")), GPU_RUNTIME);
	T_EQ_I64(palette_gpu_class(S("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1")), GPU_K_OTHER);
	T_EQ_I64(palette_gpu_class(S("volta_scudnn_128x64_relu_interior_nn_v1")), GPU_K_OTHER);
	T_EQ_I64(palette_gpu_class(S("nccl")), GPU_K_COMM); /* the family leaf, not a host call */
	T_EQ_I64(palette_gpu_class(S("copy")), GPU_K_COPY);
	T_EQ_I64(palette_gpu_class(S("hipMemcpyDtoHAsync")), GPU_RUNTIME);
	T_EQ_I64(palette_gpu_class(S("cudaMemcpy2DToArray")), GPU_SYNC);
	T_EQ_I64(names_sync_kind(S("cudaDeviceSynchronize")), NAMES_SYNC_DEVICE);
	T_EQ_I64(names_sync_kind(S("cudaThreadSynchronize")), NAMES_SYNC_DEVICE);
	T_EQ_I64(names_sync_kind(S("hipCtxSynchronize")), NAMES_SYNC_DEVICE);
	T_EQ_I64(names_sync_kind(S("cuEventSynchronize")), NAMES_SYNC_EVENT);
	T_EQ_I64(names_sync_kind(S("cudaStreamSynchronize_ptsz")), NAMES_SYNC_STREAM);
	T_EQ_I64(names_sync_kind(S("hipMemcpyWithStream")), NAMES_SYNC_COPY);
	T_EQ_I64(names_sync_kind(S("cuMemcpyDtoHAsync_v2")), NAMES_SYNC_ASYNC_COPY);
	T_EQ_I64(names_sync_kind(S("cudaLaunchKernel")), NAMES_SYNC_NONE);
	/* the py-spy sync table's advice follows the same kinds */
	T_TRUE(!strncmp(pysync_out_fix("cudaThreadSynchronize"), "explicit device-wide", 20));
	T_TRUE(!strncmp(pysync_out_fix("cuMemcpyDtoHAsync_v2"), "copy to pageable", 16));
	T_TRUE(!strncmp(pysync_out_fix("hipMemcpyWithStream"), "blocking copy", 13));
	T_TRUE(!strncmp(pysync_out_fix("cudaStreamSynchronize"), "a tensor value", 14));
	T_TRUE(names_op_blocking(S("aten::item")));
	T_TRUE(!names_op_blocking(S("aten::to")));
	/* one list of syncing ops, two tiers (syncs' op search and the palettes) */
	T_EQ_I64(names_op_sync(S("aten::allclose")), NAMES_OP_READS);
	T_EQ_I64(names_op_sync(S("aten::unique_consecutive")), NAMES_OP_READS);
	T_EQ_I64(names_op_sync(S("aten::_to_copy")), NAMES_OP_MAY_COPY);
	T_EQ_I64(names_op_sync(S("aten::randperm")), NAMES_OP_MAY_COPY);
	T_EQ_I64(names_op_sync(S("aten::mm")), NAMES_OP_NONE);
	T_EQ_I64(names_op_sync(S("aten::it")), NAMES_OP_NONE);
	T_EQ_I64(names_op_sync(S("aten:")), NAMES_OP_NONE);
}

/* the collective of a communication name: kernels of NCCL and RCCL
 * generations, PyTorch's annotations and c10d ops, "Collective name" values */
T_TEST(test_names__collectives)
{
	static const struct {
		const char *name;
		bool bare;
		int kind;
	} c[] = {
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", false,
		  NAMES_COLL_ALL_REDUCE },
		{ "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", false, NAMES_COLL_ALL_GATHER },
		{ "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", false,
		  NAMES_COLL_REDUCE_SCATTER },
		{ "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", false,
		  NAMES_COLL_BROADCAST },
		{ "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", false, NAMES_COLL_SEND_RECV },
		{ "ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevComm*)", false, NAMES_COLL_REDUCE },
		{ "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", false, NAMES_COLL_UNKNOWN },
		{ "nccl:all_reduce", false, NAMES_COLL_ALL_REDUCE },
		{ "nccl:_all_gather_base", false, NAMES_COLL_ALL_GATHER },
		{ "nccl:_reduce_scatter_base", false, NAMES_COLL_REDUCE_SCATTER },
		{ "nccl:all_to_all", false, NAMES_COLL_ALL_TO_ALL },
		{ "nccl:send", false, NAMES_COLL_SEND_RECV },
		{ "nccl:recv 0<-1", false, NAMES_COLL_SEND_RECV },
		{ "c10d::allreduce_", false, NAMES_COLL_ALL_REDUCE },
		{ "c10d::_reduce_scatter_base_", false, NAMES_COLL_REDUCE_SCATTER },
		{ "c10d::barrier", false, NAMES_COLL_BARRIER },
		{ "c10d::gather_", false, NAMES_COLL_GATHER },
		{ "c10d::scatter_", false, NAMES_COLL_SCATTER },
		{ "record_param_comms", false, NAMES_COLL_UNKNOWN },
		/* not a communication name: never a collective */
		{ "aten::all_reduce_like", false, NAMES_COLL_UNKNOWN },
		{ "void at::native::reduce_kernel<512, 1>", false, NAMES_COLL_UNKNOWN },
		{ "model.py(12): send_batch", false, NAMES_COLL_UNKNOWN },
		/* "Collective name" values, read bare */
		{ "allreduce", true, NAMES_COLL_ALL_REDUCE },
		{ "_allgather_base", true, NAMES_COLL_ALL_GATHER },
		{ "reduce_scatter_tensor_coalesced", true, NAMES_COLL_REDUCE_SCATTER },
		{ "ALLTOALL_BASE", true, NAMES_COLL_ALL_TO_ALL },
		{ "wait", true, NAMES_COLL_UNKNOWN },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		int k = names_coll_kind(c[i].name, strlen(c[i].name), c[i].bare);
		if (k != c[i].kind)
			T_FAIL_("names_coll_kind(%s) == %s, expected %s", c[i].name, names_coll_key(k),
				names_coll_key(c[i].kind));
	}
	T_EQ_STR(names_coll_key(NAMES_COLL_ALL_REDUCE), "all_reduce");
	T_EQ_STR(names_coll_key(NAMES_COLL_N), "unknown");
	T_EQ_STR(names_coll_key(-1), "unknown");
	/* a length, not a NUL, ends the name: "nccl:all_re" is no all_reduce */
	T_EQ_I64(names_coll_kind("nccl:all_reduce", 11, false), NAMES_COLL_UNKNOWN);
}

int main(void)
{
	T_RUN(test_names__table);
	T_RUN(test_names__steps);
	T_RUN(test_names__python);
	T_RUN(test_names__palette_agrees);
	T_RUN(test_names__kernels);
	T_RUN(test_names__frames);
	T_RUN(test_names__collectives);
	return t_done();
}
