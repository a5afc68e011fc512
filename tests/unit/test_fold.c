/*
 * test_fold.c — the folders (src/trace/analysis/fold.h) and kernel families
 * (src/trace/analysis/kfamily.h) on small hand-built trace models: every weight, the
 * stack levels, max depth, per-step frames, step selection, normalisation
 * rounding, name normalisation, family rules and their file format.
 */
#include "t.h"
#include "tkev.h"

#include "trace/analysis/fold.h"
#include "stacks/folded_out.h"

static struct ktrack tracks[2];

static struct kev ev(struct trace *t, int kc, const char *name, int64_t ts, int64_t dur, uint32_t track,
		     int64_t corr)
{
	struct kev e = tkev(t->names, kc, name, ts, dur, track);
	e.correlation = corr;
	return e;
}

#define ADD(kc, name, ts, dur, track, corr) do { \
		struct kev e_ = ev(&t, kc, name, ts, dur, track, corr); \
		trace_add_event(&t, &e_, &tracks[track]); } while (0)

/*
 * Two steps on one thread (ns):
 *   ProfilerStep#1 [0,1000)  python "m.py(3): f at 0x7f00ab" [100,900)
 *     aten::mm [200,400) > cudaLaunchKernel [250,300) corr 1 -> gemm kernel [300,700)
 *     aten::item [500,800) > cudaStreamSynchronize [550,750)
 *   ProfilerStep#2 [1000,2000)  ## a;b ## [1100,1900)
 *     aten::add [1200,1300) > cudaLaunchKernel [1210,1250) corr 2 -> elementwise [1260,1500)
 *   unattributed kernel corr 0 [50,80)
 */
static void build(struct trace *t_)
{
#define t (*t_)
	memset(tracks, 0, sizeof tracks);
	tracks[0] = (struct ktrack){ 1, 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, false, false };
	tracks[1] = (struct ktrack){ 0, 7, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, true, true };
	trace_init(&t, NULL);
	ADD(KC_USER_ANNOTATION, "ProfilerStep#1", 0, 1000, 0, KEV_NONE);
	ADD(KC_PYTHON_FUNCTION, "m.py(3): f at 0x7f00ab", 100, 800, 0, KEV_NONE);
	ADD(KC_CPU_OP, "aten::mm", 200, 200, 0, KEV_NONE);
	ADD(KC_CUDA_RUNTIME, "cudaLaunchKernel", 250, 50, 0, 1);
	ADD(KC_KERNEL, "sm90_xmma_gemm_bf16", 300, 400, 1, 1);
	ADD(KC_CPU_OP, "aten::item", 500, 300, 0, KEV_NONE);
	ADD(KC_CUDA_RUNTIME, "cudaStreamSynchronize", 550, 200, 0, 9);
	ADD(KC_USER_ANNOTATION, "ProfilerStep#2", 1000, 1000, 0, KEV_NONE);
	ADD(KC_USER_ANNOTATION, "## a;b ##", 1100, 800, 0, KEV_NONE);
	ADD(KC_CPU_OP, "aten::add", 1200, 100, 0, KEV_NONE);
	ADD(KC_CUDA_RUNTIME, "cudaLaunchKernel", 1210, 40, 0, 2);
	ADD(KC_KERNEL, "void at::native::vectorized_elementwise_kernel<4>(int)", 1260, 240, 1, 2);
	ADD(KC_KERNEL, "void early_kernel<float>(float*)", 50, 30, 1, 0);
	struct sbuf err = SBUF_INIT;
	trace_finish(&t, NULL, &err);
	sbuf_release(&err);
#undef t
}

/* folds and returns the folded text without the header (static buffer) */
static const char *fold(struct trace *t, const struct fold_opts *o, int *rc)
{
	static char out[8192];
	struct ftree tree;
	struct sbuf err = SBUF_INIT;
	*rc = fold_trace(t, o, &tree, NULL, &err);
	out[0] = 0;
	if (*rc) {
		snprintf(out, sizeof out, "ERR %s", err.buf);
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		folded_write(fp, &tree, false);
		fclose(fp);
		const char *body = strchr(buf, '\n');
		snprintf(out, sizeof out, "%s", body ? body + 1 : buf);
		free(buf);
	}
	ftree_release(&tree);
	sbuf_release(&err);
	return out;
}

T_TEST(test_fold__gpu)
{
	struct trace t;
	build(&t);
	struct fold_opts o;
	fold_opts_init(&o);
	o.unit = FU_NS;
	int rc;
	T_EQ_STR(fold(&t, &o, &rc),
		 "## a:b ##;aten::add;elementwise 240\n"
		 "[unattributed];early_kernel 30\n"
		 "m.py(3): f at 0x...;aten::mm;gemm 400\n");
	o.levels = FL_STEP | FL_OP | FL_RUNTIME;
	o.kernel_full = true;
	o.unit = FU_US;
	T_EQ_STR(fold(&t, &o, &rc),
		 "ProfilerStep;aten::add;cudaLaunchKernel;void at::native::vectorized_elementwise_kernel<4>(int) 0.24\n"
		 "ProfilerStep;aten::mm;cudaLaunchKernel;sm90_xmma_gemm_bf16 0.4\n"
		 "[unattributed];void early_kernel<float>(float*) 0.03\n");
	fold_opts_init(&o);
	o.per_step = true;
	o.levels = FL_OP;
	o.unit = FU_NS;
	T_EQ_STR(fold(&t, &o, &rc),
		 "ProfilerStep#1;aten::mm;gemm 400\n"
		 "ProfilerStep#2;aten::add;elementwise 240\n"
		 "[unattributed];early_kernel 30\n");
	/* selection: step 2 only; the unattributed kernel ran in step 1 */
	fold_opts_init(&o);
	o.unit = FU_NS;
	o.steps.first = 2;
	T_EQ_STR(fold(&t, &o, &rc), "## a:b ##;aten::add;elementwise 240\n");
	o.steps.first = INT64_MIN;
	o.steps.skip = 1;
	T_EQ_STR(fold(&t, &o, &rc), "## a:b ##;aten::add;elementwise 240\n");
	o.steps.skip = 0;
	o.steps.skip = 2;
	T_EQ_STR(fold(&t, &o, &rc), "ERR no step left by the step selection (the trace has 2 steps, numbered 1..2)");
	T_EQ_I64(rc, GF_EUSAGE);
	/* max depth keeps the innermost frames */
	fold_opts_init(&o);
	o.unit = FU_NS;
	o.max_depth = 1;
	T_EQ_STR(fold(&t, &o, &rc),
		 "[unattributed];early_kernel 30\n"
		 "aten::add;elementwise 240\n"
		 "aten::mm;gemm 400\n");
	trace_release(&t);
}

T_TEST(test_fold__cpu_wall)
{
	struct trace t;
	build(&t);
	struct fold_opts o;
	fold_opts_init(&o);
	o.unit = FU_NS;
	o.weight = FW_CPU;
	int rc;
	/* self times: step1 200 ([untraced]), python 300, mm 150, launch 50 (under mm),
	 * item 100 (sync 200 excluded); step2 200, ann 700, add 60, launch 40; the one
	 * (step) thread, tid 1 without a name, roots every stack */
	T_EQ_STR(fold(&t, &o, &rc),
		 "thread (1);## a:b ## 700\n"
		 "thread (1);## a:b ##;aten::add 100\n"
		 "thread (1);[untraced] 400\n"
		 "thread (1);m.py(3): f at 0x... 300\n"
		 "thread (1);m.py(3): f at 0x...;aten::item 100\n"
		 "thread (1);m.py(3): f at 0x...;aten::mm 200\n");
	/* the same weights without the thread frame */
	o.no_thread_frames = true;
	T_EQ_STR(fold(&t, &o, &rc),
		 "## a:b ## 700\n"
		 "## a:b ##;aten::add 100\n"
		 "[untraced] 400\n"
		 "m.py(3): f at 0x... 300\n"
		 "m.py(3): f at 0x...;aten::item 100\n"
		 "m.py(3): f at 0x...;aten::mm 200\n");
	o.weight = FW_WALL;
	T_EQ_STR(fold(&t, &o, &rc),
		 "## a:b ## 700\n"
		 "## a:b ##;aten::add 100\n"
		 "[untraced] 400\n"
		 "m.py(3): f at 0x... 300\n"
		 "m.py(3): f at 0x...;aten::item 100\n"
		 "m.py(3): f at 0x...;aten::item;cudaStreamSynchronize 200\n"
		 "m.py(3): f at 0x...;aten::mm 200\n");
	o.levels = FL_STEP;
	T_EQ_STR(fold(&t, &o, &rc),
		 "ProfilerStep 1400\n"
		 "ProfilerStep;[untraced] 400\n"
		 "ProfilerStep;cudaStreamSynchronize 200\n");
	o.levels = FL_RUNTIME;
	T_EQ_STR(fold(&t, &o, &rc),
		 "[other] 1310\n"
		 "[untraced] 400\n"
		 "cudaLaunchKernel 90\n"
		 "cudaStreamSynchronize 200\n");
	trace_release(&t);
}

T_TEST(test_fold__idle_calls)
{
	struct trace t;
	build(&t);
	struct fold_opts o;
	fold_opts_init(&o);
	o.unit = FU_NS;
	o.weight = FW_IDLE;
	int rc;
	/* busy [50,80) [300,700) [1260,1500); window = steps [0,2000); the gap
	 * model's charges rooted in [cause];[class] (gaps.h):
	 *   [0,50): the next work (early_kernel) has no launch: edge 50
	 *   [80,300): step only: untraced 20; f 100, mm 50 (python); inside the
	 *     launch call [250,300): launch 50
	 *   [700,1260): inside the sync until 750: sync 50; item 50, f 100;
	 *     step only [900,1100): untraced 200; ann 100, add 10; inside the
	 *     launch call [1210,1250): launch 40; issued, started 10 us later:
	 *     queued "launch latency (stream 7)" 10
	 *   [1500,2000): the step thread in ann: host 400; [1900,2000) nothing
	 *     traced after the last activity: edge 100 */
	T_EQ_STR(fold(&t, &o, &rc),
		 "[edge] 150\n"
		 "[host];[python];## a:b ## 500\n"
		 "[host];[python];## a:b ##;aten::add 10\n"
		 "[host];[python];m.py(3): f at 0x... 200\n"
		 "[host];[python];m.py(3): f at 0x...;aten::item 50\n"
		 "[host];[python];m.py(3): f at 0x...;aten::mm 50\n"
		 "[launch];[launch];## a:b ##;aten::add;cudaLaunchKernel 40\n"
		 "[launch];[launch];m.py(3): f at 0x...;aten::mm;cudaLaunchKernel 50\n"
		 "[queued];launch latency (stream 7) 10\n"
		 "[sync];[sync];m.py(3): f at 0x...;aten::item;cudaStreamSynchronize 50\n"
		 "[untraced] 220\n");
	/* per-step normalise: 2 steps, ns unit -> scale 3, half-even */
	o.normalise = true;
	T_EQ_STR(fold(&t, &o, &rc),
		 "[edge] 75\n"
		 "[host];[python];## a:b ## 250\n"
		 "[host];[python];## a:b ##;aten::add 5\n"
		 "[host];[python];m.py(3): f at 0x... 100\n"
		 "[host];[python];m.py(3): f at 0x...;aten::item 25\n"
		 "[host];[python];m.py(3): f at 0x...;aten::mm 25\n"
		 "[launch];[launch];## a:b ##;aten::add;cudaLaunchKernel 20\n"
		 "[launch];[launch];m.py(3): f at 0x...;aten::mm;cudaLaunchKernel 25\n"
		 "[queued];launch latency (stream 7) 5\n"
		 "[sync];[sync];m.py(3): f at 0x...;aten::item;cudaStreamSynchronize 25\n"
		 "[untraced] 110\n");
	fold_opts_init(&o);
	o.weight = FW_CALLS;
	T_EQ_STR(fold(&t, &o, &rc),
		 "## a:b ##;aten::add;cudaLaunchKernel 1\n"
		 "[unattributed];early_kernel 1\n"
		 "m.py(3): f at 0x...;aten::mm;cudaLaunchKernel 1\n");
	o.normalise = true;
	o.steps.skip = 1;
	/* 1 / 1 step at scale 3 */
	T_EQ_STR(fold(&t, &o, &rc), "## a:b ##;aten::add;cudaLaunchKernel 1\n");
	trace_release(&t);
}

T_TEST(test_fold__normalise_rounding)
{
	/* 3 steps, one 10 ns kernel: 10/3 us -> 0.003333 us (scale 6) */
	struct trace t;
	memset(tracks, 0, sizeof tracks);
	tracks[0] = (struct ktrack){ 1, 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, false, false };
	tracks[1] = (struct ktrack){ 0, 7, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, true, true };
	trace_init(&t, NULL);
	ADD(KC_USER_ANNOTATION, "ProfilerStep#1", 0, 10, 0, KEV_NONE);
	ADD(KC_USER_ANNOTATION, "ProfilerStep#2", 10, 10, 0, KEV_NONE);
	ADD(KC_USER_ANNOTATION, "ProfilerStep#3", 20, 10, 0, KEV_NONE);
	ADD(KC_KERNEL, "k", 0, 10, 1, 5);
	ADD(KC_KERNEL, "j", 10, 5, 1, 6);
	struct sbuf err = SBUF_INIT;
	trace_finish(&t, NULL, &err);
	sbuf_release(&err);
	struct fold_opts o;
	fold_opts_init(&o);
	o.normalise = true;
	int rc;
	/* the default unit, ns: 5/3 -> 1.667 (3 more decimals), 10/3 -> 3.333 */
	T_EQ_STR(fold(&t, &o, &rc), "[unattributed];j 1.667\n[unattributed];k 3.333\n");
	/* 5000/3 = 1666.67 -> 1667 (0.001667); 10000/3 -> 3333 */
	o.unit = FU_US;
	T_EQ_STR(fold(&t, &o, &rc), "[unattributed];j 0.001667\n[unattributed];k 0.003333\n");
	o.unit = FU_MS;
	T_EQ_STR(fold(&t, &o, &rc), "[unattributed];j 0.000001667\n[unattributed];k 0.000003333\n");
	trace_release(&t);
}

T_TEST(test_fold__names_and_levels)
{
	struct sbuf b = SBUF_INIT;
	const char *n1 = "<built-in method x of T at 0x7f3a2c1d5e40>;y";
	fold_frame_name(n1, strlen(n1), true, &b);
	T_EQ_STR(b.buf, "<built-in method x of T at 0x...>:y");
	sbuf_reset(&b);
	fold_frame_name("a 0x7f b\tc", 10, false, &b);
	T_EQ_STR(b.buf, "a 0x7f b c");
	sbuf_reset(&b);
	fold_frame_name("a0x12 0x 0xg", 12, true, &b);
	T_EQ_STR(b.buf, "a0x12 0x 0xg");
	sbuf_reset(&b);
	fold_frame_name("x0x12", 5, true, &b);
	T_EQ_STR(b.buf, "x0x...");
	sbuf_reset(&b);
	fold_frame_name("", 0, true, &b);
	T_EQ_STR(b.buf, "[empty]");
	sbuf_reset(&b);
	fold_frame_name("# decode", 8, false, &b);
	T_EQ_STR(b.buf, "#_decode");
	sbuf_reset(&b);
	fold_frame_name("## forward ##", 13, false, &b);
	T_EQ_STR(b.buf, "## forward ##");
	unsigned lv = 0;
	T_EQ_I64(fold_parse_levels("op,step,module", &lv, &b), GF_OK);
	T_EQ_I64(lv, FL_OP | FL_STEP | FL_MODULE);
	sbuf_reset(&b);
	fold_levels_str(lv, &b);
	T_EQ_STR(b.buf, "step,module,op");
	T_EQ_I64(fold_parse_levels("op,frames", &lv, &b), GF_EUSAGE);
	T_EQ_STR(b.buf, "invalid stack level 'frames'; valid levels are: step, annotation, python, module, op, runtime");
	sbuf_release(&b);
}

T_TEST(test_fold__kfamily)
{
	struct sbuf b = SBUF_INIT, err = SBUF_INIT;
#define FAM(k, s) (kfamily_of(k, s, strlen(s), &b), b.buf)
	T_EQ_STR(FAM(NULL, "sm90_xmma_gemm_bf16"), "gemm");
	T_EQ_STR(FAM(NULL, "nvjet_tst_128x64"), "gemm");
	T_EQ_STR(FAM(NULL, "flash_fwd_kernel"), "flash");
	T_EQ_STR(FAM(NULL, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)"), "nccl");
	T_EQ_STR(FAM(NULL, "triton_red_fused_0"), "triton");
	T_EQ_STR(FAM(NULL, "void at::native::reduce_kernel<512>(x)"), "reduce");
	T_EQ_STR(FAM(NULL, "void at::native::unrolled_elementwise_kernel<x>(y)"), "elementwise");
	T_EQ_STR(FAM(NULL, "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)"),
		 "vllm::rotary_embedding_kernel");
	T_EQ_STR(FAM(NULL, "plain_kernel"), "plain_kernel");
	T_EQ_STR(FAM(NULL, "<lambda>"), "<lambda>");
	T_EQ_STR(FAM(NULL, "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bEEvPT0_"), "aiter::add_rmsnorm_quant_kernel");
	T_EQ_STR(FAM(NULL, "_Z15my_plain_kernelPfi"), "my_plain_kernel");
	T_EQ_STR(FAM(NULL, "_Z99x"), "_Z99x");
	T_EQ_STR(FAM(NULL, "Cijk_Alik_Bljk_BBS_BH_MT64x16"), "gemm");
	T_EQ_STR(FAM(NULL, "rccl_AllReduce_kernel"), "nccl"); /* not "reduce" */
	T_EQ_STR(FAM(NULL, "_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassI"),
		 "ck_tile::Rmsnorm2dFwd");
	T_EQ_STR(FAM(NULL, "void ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<ck_tile::P<float> > >(int)"),
		 "ck_tile::Rmsnorm2dFwd");
	T_EQ_STR(FAM(NULL, "_ZN7ck_tile6kentryILi1EEvv"), "ck_tile::kentry");
	T_EQ_STR(FAM(NULL, "paged_attention_ll4mi_QKV_mfma16_kernel"), "attn");
	/* "(anonymous namespace)" is part of the qualified name, not a parameter list */
	T_EQ_STR(FAM(NULL, "void (anonymous namespace)::store_kvcache<2048l, 4>((anonymous namespace)::P)"),
		 "(anonymous namespace)::store_kvcache");
	T_EQ_STR(FAM(NULL, "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, int>(x)"),
		 "at::native::(anonymous namespace)::indexSelectLargeIndex");
	T_EQ_STR(FAM(NULL, "void f(anonymous namespace)"), "f(anonymous namespace)");
	struct kfamily *k = kfamily_new();
	const char *rules = "# rules\n\n=RoTaRy\trope\n^sm90_.*gemm\tsm90 gemm\n!nodefaults\r\n";
	T_EQ_I64(kfamily_parse(k, rules, strlen(rules), "fam.txt", &err), GF_OK);
	T_EQ_STR(FAM(k, "void vllm::rotary_embedding_kernel<x>()"), "rope");
	T_EQ_STR(FAM(k, "SM90_xmma_GEMM"), "sm90 gemm");
	T_EQ_STR(FAM(k, "flash_fwd_kernel<int>"), "flash_fwd_kernel"); /* defaults dropped */
	kfamily_free(k);
	k = kfamily_new();
	T_EQ_I64(kfamily_parse(k, "a\tb\nno tab here\n", 16, "fam.txt", &err), GF_EINPUT);
	T_EQ_STR(err.buf, "'fam.txt': line 2: expected 'PATTERN<TAB>FAMILY'");
	T_EQ_I64(kfamily_parse(k, "x(\tb\n", 5, "fam.txt", &err), GF_EINPUT);
	T_TRUE(!strncmp(err.buf, "'fam.txt': line 1: expected a regular expression: ", 50));
	T_EQ_I64(kfamily_load(k, "/nonexistent/fam.txt", &err), GF_EINPUT);
	T_TRUE(!strncmp(err.buf, "'/nonexistent/fam.txt': ", 24));
	kfamily_free(k);
#undef FAM
	sbuf_release(&b);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_fold__gpu);
	T_RUN(test_fold__cpu_wall);
	T_RUN(test_fold__idle_calls);
	T_RUN(test_fold__normalise_rounding);
	T_RUN(test_fold__names_and_levels);
	T_RUN(test_fold__kfamily);
	return t_done();
}
