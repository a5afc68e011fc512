/*
 * gen_trace.c — fast, seeded generator of realistic PyTorch 2.x (Kineto)
 * Chrome traces, for benchmarks.
 *
 * USAGE: gen_trace SIZE_MB [SEED] [--rank R --world W] [--pg 0|1|2] [--steps N]
 *                  [--delay-us D] [--no-seq] > trace.json
 *   SIZE_MB  approximate size of the JSON text in MB (10^6 bytes); the trace
 *            ends after the first step that reaches it
 *   SEED     random seed (default 1); same arguments => same bytes
 *   --rank R --world W  rank R of a job of W ranks (default rank 3 of 8): in
 *            distributedInfo, and the rank's own random stream (SEED + R)
 *   --pg P   process groups of the collectives: 0 (default) none named (as
 *            before 2024), 1 one group "0" of every rank, 2 two groups "1"
 *            (ranks 0..W/2-1, "group_a") and "2" (the others, "group_b") with
 *            one all-reduce each per step; pg_config lists them
 *   --steps N  exactly N steps (SIZE_MB is then only a cap)
 *   --delay-us D  the straggler of each group (the member at a third of its
 *            rank list: rank W/3 for P 0 and 1; ranks W/6 and W/2 + W/6 for
 *            P 2) computes D us more before each collective (default 420);
 *            every other member waits for it inside the NCCL kernel, so with
 *            base = the step's collective time, the same on every rank, the
 *            straggler's kernel lasts base and the others' base + D: each
 *            other member waits exactly D per collective (known answers)
 *   --no-seq no "Seq" arg (the collectives then match by their order)
 *
 * Build: cc -O2 -o /tmp/gen_trace bench/gen_trace.c   (bench/bench_read.sh does it)
 * Example: gen_trace 1000 > /tmp/t1g.json   (~1 GB, ~3.5 M events, ~3 s)
 *
 * Shape (torch >= 2.4, Kineto >= 2024-05, the way output_json.cpp writes it):
 * schemaVersion, deviceProperties (8 GPUs), with_stack/record_shapes,
 * distributedInfo {backend, rank 3, world_size 8, ...}, displayTimeUnit,
 * baseTimeNanoseconds, then traceEvents, then traceName. Events: process and
 * thread metadata (M), per step a `ProfilerStep#N` user_annotation, python_function
 * frames (Python id / Python parent id, nn.Module: X_N frames with Python
 * module id), cpu_op (aten::linear > aten::mm, with Input Dims/types),
 * cuda_runtime cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync with
 * correlation and External id, GPU kernels with long demangled names (and an
 * NCCL all-reduce per step) on stream 7, gpu_memcpy / gpu_memset with bytes,
 * ac2g s/f flows, cpu_instant_event [memory] events. ts/dur are relative
 * microseconds with 3 decimals; CPU events of a step come before its GPU events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GF_MAXI(a, b) ((a) > (b) ? (a) : (b))

static uint64_t rng = 1;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static unsigned rndn(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static uint64_t written;
static char obuf[1 << 20];
static size_t olen;

static void flush(void)
{
	fwrite(obuf, 1, olen, stdout);
	written += olen;
	olen = 0;
}
static void out(const char *s, size_t n)
{
	if (olen + n > sizeof obuf)
		flush();
	memcpy(obuf + olen, s, n);
	olen += n;
}
static void outs(const char *s)
{
	out(s, strlen(s));
}
static void outf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void outf(const char *fmt, ...)
{
	char t[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof t, fmt, ap);
	va_end(ap);
	out(t, (size_t)(n < (int)sizeof t ? n : (int)sizeof t - 1));
}
/* relative us with 3 decimals */
static void out_us(int64_t ns)
{
	char t[32];
	int n = snprintf(t, sizeof t, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
	out(t, (size_t)n);
}

static const int PID = 2718;
static const int TID = 2718;
static int64_t corr = 100000, ext = 5000, pyid = 1000, evidx;

static void x_begin(const char *cat, const char *name, int pid, int tid, int64_t ts, int64_t dur)
{
	outs("  {\n    \"ph\": \"X\", \"cat\": \"");
	outs(cat);
	outs("\", \"name\": \"");
	outs(name);
	outf("\", \"pid\": %d, \"tid\": %d,\n    \"ts\": ", pid, tid);
	out_us(ts);
	outs(", \"dur\": ");
	out_us(dur);
}

static const char *kernels[] = {
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})",
	"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(flash::Flash_fwd_params)",
	"triton_poi_fused__to_copy_add_mean_mul_pow_rsqrt_0",
	"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
};
static const char *ops[][2] = {
	{ "aten::linear", "aten::mm" },
	{ "aten::to", "aten::copy_" },
	{ "aten::_flash_attention_forward", "aten::empty" },
	{ "aten::add", "aten::add" },
	{ "aten::softmax", "aten::_softmax" },
};
static const char *modules[] = { "Linear", "LlamaAttention", "LlamaMLP", "LlamaRMSNorm", "Dropout" };

struct gpu_ev {
	int64_t ts, dur, corr, ext, bytes;
	int kind; /* 0 kernel, 1 memcpy, 2 memset, 3 nccl */
	int k;
};

static void python_frame(const char *name, int64_t ts, int64_t dur, int64_t id, int64_t parent, int64_t modid)
{
	x_begin("python_function", name, PID, TID, ts, dur);
	outf(",\n    \"args\": {\n      \"Python parent id\": ");
	if (parent < 0)
		outs("null");
	else
		outf("%" PRId64, parent);
	outf(", \"Python id\": %" PRId64 ", \"Ev Idx\": %" PRId64, id, evidx++);
	if (modid >= 0)
		outf(", \"Python module id\": %" PRId64, modid);
	outs("\n    }\n  },\n");
}

/* The job's shape (--rank, --world, --pg, --steps, --delay-us, --no-seq). */
static int g_rank = 3, g_world = 8, g_pg, g_steps, g_seq = 1;
static int64_t g_delay = 420000;

/* The group of rank r (its first rank and size) and its straggler. */
static void group_of(int r, int *first, int *size, int *straggler)
{
	if (g_pg == 2) {
		int h = g_world / 2;
		*first = r < h ? 0 : h;
		*size = r < h ? h : g_world - h;
	} else {
		*first = 0;
		*size = g_world;
	}
	*straggler = *first + *size / 3;
}

static int usage(void)
{
	fprintf(stderr, "usage: gen_trace SIZE_MB [SEED] [--rank R --world W] [--pg 0|1|2] [--steps N] "
			"[--delay-us D] [--no-seq] > trace.json\n"
			"  writes a ~SIZE_MB MB (10^6 bytes) torch 2.x Kineto trace of rank R of W, deterministic "
			"by its arguments\n");
	return 2;
}

/* ProfilerStep#step and the step's two outer Python frames (train_step,
 * the model); model_dur is the model frame's length. */
static void step_frames(int step, int64_t start, int64_t dur, int64_t model_dur, int64_t e, int64_t idx, int64_t root,
			int64_t model)
{
	char nm[64];
	snprintf(nm, sizeof nm, "ProfilerStep#%d", step);
	x_begin("user_annotation", nm, PID, TID, start, dur);
	outf(",\n    \"args\": {\n      \"External id\": %" PRId64 ",\"Record function id\": 0, \"Ev Idx\": %" PRId64
	     "\n    }\n  },\n", e, idx);
	python_frame("train.py(212): train_step", start + 1000, dur - 2000, root, -1, -1);
	python_frame("nn.Module: LlamaForCausalLM_0", start + 2000, model_dur, model, root, 0);
}

int main(int argc, char **argv)
{
	int pos = 0, rankmode = 0;
	double mb = 0;
	uint64_t seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-seq")) {
			g_seq = 0;
			rankmode = 1;
		} else if (a[0] == '-' && a[1] == '-' && i + 1 < argc) {
			long long v = atoll(argv[++i]);
			rankmode = 1;
			if (!strcmp(a, "--rank")) g_rank = (int)v;
			else if (!strcmp(a, "--world")) g_world = (int)v;
			else if (!strcmp(a, "--pg")) g_pg = (int)v;
			else if (!strcmp(a, "--steps")) g_steps = (int)v;
			else if (!strcmp(a, "--delay-us")) g_delay = v * 1000;
			else return usage();
		} else if (pos == 0) {
			mb = atof(a);
			pos++;
		} else if (pos == 1) {
			seed = strtoull(a, NULL, 10);
			pos++;
		} else {
			return usage();
		}
	}
	if (mb <= 0 || g_world < 1 || g_rank < 0 || g_rank >= g_world || g_pg < 0 || g_pg > 2 || g_steps < 0 ||
	    g_delay < 0)
		return usage();
	uint64_t target = (uint64_t)(mb * 1e6);
	rng = (seed + (rankmode ? (uint64_t)g_rank : 0)) * 0x9e3779b97f4a7c15ULL + 1;
	if (!rng)
		rng = 1;
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);

	outs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
	for (int d = 0; d < 8; d++)
		outf("    {\n      \"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 84929216512,\n"
		     "      \"computeMajor\": 9, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
		     "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
		     "      \"sharedMemPerBlock\": 49152, \"numSms\": 132\n    }%s\n",
		     d, d < 7 ? "," : "");
	outf("  ],\n  \"record_shapes\": 1,\n  \"with_stack\": 1,\n"
	     "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, \"pg_count\": %d, "
	     "\"pg_config\": [",
	     g_rank, g_world, g_pg == 2 ? 3 : 1);
	for (int g = 0; g < (g_pg == 2 ? 3 : 1); g++) {
		int lo = g == 2 ? g_world / 2 : 0, hi = g == 1 ? g_world / 2 : g_world;
		outf("%s{\"pg_name\": \"%d\", \"pg_desc\": \"%s\", \"backend_config\": \"cuda:nccl\", \"pg_size\": %d, "
		     "\"ranks\": [",
		     g ? ", " : "", g, g == 0 ? "default_pg" : g == 1 ? "group_a" : "group_b", hi - lo);
		for (int r = lo; r < hi; r++)
			outf("%s%d", r > lo ? ", " : "", r);
		outs("]}");
	}
	outs("], \"nccl_version\": \"2.21.5\"},\n"
	     "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1759300000000000000,\n"
	     "  \"traceEvents\": [\n");
	outf("  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n"
	     "    \"args\": {\n      \"name\": \"python3\"\n    }\n  },\n", PID);
	outf("  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n"
	     "    \"args\": {\n      \"labels\": \"CPU\"\n    }\n  },\n", PID);
	outs("  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 3, \"tid\": 0,\n"
	     "    \"args\": {\n      \"name\": \"python3\"\n    }\n  },\n");
	outs("  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 3, \"tid\": 0,\n"
	     "    \"args\": {\n      \"labels\": \"GPU 3\"\n    }\n  },\n");
	outf("  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d,\n"
	     "    \"args\": {\n      \"name\": \"thread %d (python3)\"\n    }\n  },\n", PID, TID, TID);
	outs("  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": 3, \"tid\": 7,\n"
	     "    \"args\": {\n      \"name\": \"stream 7 \"\n    }\n  },\n");

	int64_t t = 1500000000000000LL; /* ns, relative to baseTimeNanoseconds (~17 days) */
	int64_t gpu_t = t;
	size_t gcap = 1 << 16;
	struct gpu_ev *g = malloc(gcap * sizeof *g);
	if (!g)
		return 4;
	int gfirst, gsize, straggler;
	group_of(g_rank, &gfirst, &gsize, &straggler);
	for (int step = 1; written + olen < target && (!g_steps || step <= g_steps); step++) {
		size_t ng = 0;
		int layers = 24;
		int64_t step_start = t;
		/* plan durations: each layer = 5 ops, op = runtime launch inside */
		int64_t op_ns = 9000 + rndn(4000);
		int64_t layer_ns = 5 * (op_ns + 2000) + 4000;
		int64_t step_dur = layers * layer_ns + 60000;
		char nm[64];
		int64_t root = pyid++, model = pyid++, step_ext = ext++, step_idx = evidx++;
		if (!rankmode) /* in rank mode the step's range is written at its end, once its length is known */
			step_frames(step, step_start, step_dur, step_dur - 40000, step_ext, step_idx, root, model);
		t += 3000;
		for (int l = 0; l < layers; l++) {
			int64_t lay = pyid++;
			int m = rndn(5);
			snprintf(nm, sizeof nm, "nn.Module: %s_%d", modules[m], l);
			python_frame(nm, t, layer_ns - 1000, lay, model, l);
			int64_t fw = pyid++;
			python_frame("torch/nn/modules/module.py(1750): _call_impl", t + 300, layer_ns - 1600, fw, lay, -1);
			int64_t ot = t + 800;
			for (int o = 0; o < 5; o++) {
				int k = rndn(5);
				int64_t e = ext++;
				int64_t c = corr++;
				x_begin("cpu_op", ops[k][0], PID, TID, ot, op_ns);
				outf(",\n    \"args\": {\n      \"External id\": %" PRId64 ",\"Record function id\": 0, "
				     "\"Concrete Inputs\": [\"\", \"\", \"\"], \"Input type\": [\"c10::BFloat16\", "
				     "\"c10::BFloat16\", \"\"], \"Input Strides\": [[4096, 1], [1, 4096], []], "
				     "\"Input Dims\": [[%u, 4096], [4096, 4096], []], \"Ev Idx\": %" PRId64 "\n    }\n  },\n",
				     e, 16u << rndn(4), evidx++);
				x_begin("cpu_op", ops[k][1], PID, TID, ot + 500, op_ns - 1200);
				outf(",\n    \"args\": {\n      \"External id\": %" PRId64 ",\"Record function id\": 0, "
				     "\"Ev Idx\": %" PRId64 "\n    }\n  },\n", e, evidx++);
				int kind = o == 4 && l % 8 == 0 ? 1 + (int)rndn(2) : 0;
				const char *rt = kind == 1 ? "cudaMemcpyAsync" : kind == 2 ? "cudaMemsetAsync" : "cudaLaunchKernel";
				int64_t rts = ot + 1500;
				x_begin("cuda_runtime", rt, PID, TID, rts, 4000 + rndn(2000));
				outf(",\n    \"args\": {\n      \"cbid\": %d, \"correlation\": %" PRId64 ",\n"
				     "      \"External id\": %" PRId64 "\n    }\n  },\n",
				     kind == 1 ? 41 : kind == 2 ? 51 : 211, c, e);
				outf("  {\n    \"ph\": \"s\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": ", c, PID, TID);
				out_us(rts);
				outs(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n");
				if (ng == gcap) {
					gcap *= 2;
					g = realloc(g, gcap * sizeof *g);
					if (!g)
						return 4;
				}
				int64_t gts = GF_MAXI(gpu_t + 800, rts + 3000);
				int64_t gd = kind ? 1500 + rndn(800) : 6000 + rndn(9000);
				g[ng++] = (struct gpu_ev){ gts, gd, c, e, kind ? (int64_t)(1u << (10 + rndn(14))) : 0, kind, k };
				gpu_t = gts + gd;
				ot += op_ns + 2000;
			}
			t += layer_ns;
			if (rndn(4) == 0) {
				outf("  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n"
				     "    \"pid\": %d, \"tid\": %d,\n    \"ts\": ", PID, TID);
				out_us(t - 500);
				outf(",\n    \"args\": {\n      \"Total Reserved\": 2097152000, \"Total Allocated\": %u, "
				     "\"Bytes\": %d, \"Addr\": 139872%u, \"Device Id\": 3, \"Device Type\": 1, \"Ev Idx\": %" PRId64
				     "\n    }\n  },\n", 1000000u + rndn(100000000), (int)rndn(2000000) - 1000000, rndn(1000000),
				     evidx++);
			}
		}
		/* one NCCL all-reduce per step in the rank's group: the straggler
		 * computes g_delay more first, the others wait that long inside
		 * the collective; base is the same on every rank */
		{
			int64_t base = rankmode ? 180000 + (int64_t)((unsigned)step * 7919u % 40000u) : 180000 + rndn(40000);
			int64_t e = ext++, c = corr++;
			int64_t rts = t + 2000;
			int64_t gts = GF_MAXI(gpu_t + 800, rts + 3000);
			if (rankmode && g_rank == straggler && g_delay) { /* its extra compute before the collective */
				int64_t ce = ext++, cc = corr++;
				x_begin("cuda_runtime", "cudaLaunchKernel", PID, TID, rts - 1500, 400);
				outf(",\n    \"args\": {\n      \"cbid\": 211, \"correlation\": %" PRId64 ",\n"
				     "      \"External id\": %" PRId64 "\n    }\n  },\n", cc, ce);
				g[ng++] = (struct gpu_ev){ gts, g_delay, cc, ce, 0, 0, 0 };
				gts += g_delay;
			}
			/* the args of record_param_comms (the kernel has none: the
			 * reader finds them through its launch) */
			x_begin("cpu_op", "record_param_comms", PID, TID, rts - 1000, 12000);
			outf(",\n    \"args\": {\n      \"External id\": %" PRId64 ", \"Collective name\": \"allreduce\", "
			     "\"dtype\": \"BFloat16\", \"In msg nelems\": 16777216, \"Group size\": %d", e, gsize);
			if (g_pg) {
				outf(", \"Process Group Name\": \"%d\", \"Process Group Description\": \"%s\", "
				     "\"Process Group Ranks\": \"[",
				     g_pg == 2 ? 1 + (gfirst > 0) : 0, g_pg == 1 ? "default_pg" : gfirst ? "group_b" : "group_a");
				for (int r = gfirst; r < gfirst + gsize; r++)
					outf("%s%d", r > gfirst ? ", " : "", r);
				outs("]\"");
				if (g_seq)
					outf(", \"Seq\": %d", 100 + step);
			}
			outs("\n    }\n  },\n");
			x_begin("cuda_runtime", "cudaLaunchKernel", PID, TID, rts, 6000);
			outf(",\n    \"args\": {\n      \"cbid\": 211, \"correlation\": %" PRId64 ",\n"
			     "      \"External id\": %" PRId64 "\n    }\n  },\n", c, e);
			g[ng++] = (struct gpu_ev){ gts, base + (!rankmode || g_rank == straggler ? 0 : g_delay), c, e, 0, 3, 0 };
			gpu_t = gts + g[ng - 1].dur;
		}
		int64_t host_end = t + 20000; /* after the collective's launch */
		t = step_start + step_dur + 20000;
		/* GPU events of the step */
		for (size_t i = 0; i < ng; i++) {
			const struct gpu_ev *ge = &g[i];
			if (ge->kind == 0 || ge->kind == 3) {
				x_begin("kernel", ge->kind == 3 ? "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
								: kernels[ge->k], 3, 7, ge->ts, ge->dur);
				outf(",\n    \"args\": {\n      \"External id\": %" PRId64 ",\n      \"queued\": 0, \"device\": 3, "
				     "\"context\": 1,\n      \"stream\": 7, \"correlation\": %" PRId64 ",\n      \"registers per thread\": %u,\n"
				     "      \"shared memory\": 0,\n      \"blocks per SM\": 0.969697,\n      \"warps per SM\": 3.878788,\n"
				     "      \"grid\": [128, 1, 1],\n      \"block\": [128, 1, 1],\n      \"est. achieved occupancy %%\": 6\n"
				     "    }\n  },\n", ge->ext, ge->corr, 16 + rndn(100));
			} else {
				x_begin(ge->kind == 1 ? "gpu_memcpy" : "gpu_memset",
					ge->kind == 1 ? "Memcpy DtoH (Device -> Pinned)" : "Memset (Device)", 3, 7, ge->ts, ge->dur);
				outf(",\n    \"args\": {\n      \"External id\": %" PRId64 ",\n      \"device\": 3, \"context\": 1,\n"
				     "      \"stream\": 7, \"correlation\": %" PRId64 ",\n      \"bytes\": %" PRId64 ", "
				     "\"memory bandwidth (GB/s)\": 21.5\n    }\n  },\n", ge->ext, ge->corr, ge->bytes);
			}
			outf("  {\n    \"ph\": \"f\", \"id\": %" PRId64 ", \"pid\": 3, \"tid\": 7, \"ts\": ", ge->corr);
			out_us(ge->ts);
			outs(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n");
		}
		if (rankmode) {
			/* the host waits for the GPU at the step's end (loss.item()), so
			 * the step holds its collective */
			if (gpu_t > host_end) {
				x_begin("cuda_runtime", "cudaStreamSynchronize", PID, TID, host_end, gpu_t + 2000 - host_end);
				outf(",\n    \"args\": {\n      \"cbid\": 131, \"correlation\": %" PRId64 "\n    }\n  },\n", corr++);
				host_end = gpu_t + 2000;
			}
			int64_t end = host_end + 5000;
			step_frames(step, step_start, end - step_start, host_end - 1000 - (step_start + 2000), step_ext,
				    step_idx, root, model);
			t = end + 10000;
		} else if (gpu_t > t) {
			t = gpu_t + 10000;
		}
	}
	outf("  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\",\n"
	     "    \"ts\": ");
	out_us(t);
	outs("\n  }\n],\n  \"traceName\": \"/tmp/gen_trace_rank3.pt.trace.json\"\n}\n");
	flush();
	free(g);
	return 0;
}
