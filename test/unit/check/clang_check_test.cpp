// kernel-diffcheck on the compiled (clang) corpus: the launch specs of test/specs/clang
// (one per kernel: <source>-<kernel>.json, the same spec for gfx942 and gfx90a).
//  - Launch inference gives, for every spec, the element counts and roles the kernel really
//    uses for that shape: the expectations below are worked out from the sources
//    (test/corpus/clang/src), not from the tool.
//  - K0 against itself is ok on both architectures.
//  - One-instruction mutants (hsaco-recover, test/mutants/mutate.py, hsaco-rebuild --abi-of K0)
//    are divergent.
// The objects are built by the corpus.build-clang test (fixture clang_corpus).
#include "check/DiffCheck.h"
#include "check/LaunchInference.h"
#include "codeobj/Input.h"
#include "launch/LaunchSpec.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace asmevo;
using namespace asmevo::check;
using namespace asmevo::launch;
namespace fs = std::filesystem;

namespace {

const std::string kSrc = ASMEVO_SOURCE_DIR;
const std::string kCorpus = std::string(ASMEVO_CORPUS_DIR) + "/clang";

std::string object(const std::string &Arch, const std::string &Source) {
  return kCorpus + "/" + Arch + "/" + Source + ".hsaco";
}
std::string specPath(const std::string &Name) {
  return kSrc + "/test/specs/clang/" + Name + ".json";
}

std::string errText(llvm::Error E) {
  std::string S;
  llvm::handleAllErrors(
      std::move(E), [&](const ToolError &T) { S = formatError(T); },
      [&](const llvm::ErrorInfoBase &B) { S = B.message(); });
  return S;
}

using Buffers = std::vector<std::pair<uint64_t, Role>>; // elements, role of each non-null buffer
constexpr Role In = Role::In, Out = Role::Out, InOut = Role::InOut;

uint64_t ceilDiv(uint64_t A, uint64_t B) { return (A + B - 1) / B; }

struct Case {
  std::string Spec; // <source>-<kernel>
  Buffers Expect;
};

// The shapes are those of the spec files; each count follows the kernel's indexing.
std::vector<Case> cases() {
  std::vector<Case> C;
  // fill: out[i] = value for i < n (n 1000, 1024 work-items).
  C.push_back({"multi_kernel-fill", {{1000, Out}}});
  // saxpy: y[i] = a*x[i] + y[i] for i < n.
  C.push_back({"multi_kernel-saxpy", {{1000, In}, {1000, InOut}}});
  // copy3d: i = (z*ny + y)*nx + x for x < nx, y < ny, z < nz (20 x 13 x 7).
  C.push_back({"multi_kernel-copy3d", {{20 * 13 * 7, In}, {20 * 13 * 7, Out}}});
  // reverse_dynamic_lds: no bound, one element per work-item (3 x 128).
  C.push_back({"multi_kernel-reverse_dynamic_lds", {{3 * 128, In}, {3 * 128, Out}}});
  // dp_kernel: x, y read and out written for i < n (1000).
  C.push_back({"fp64-dp_kernel", {{1000, In}, {1000, In}, {1000, Out}}});
  {
    // preload_axpy: i = gid*stride + offset < n, gid < 512 work-items; flags & 1: y += ...
    uint64_t N = 1001, Stride = 2, Offset = 1, Items = 2 * 256, Hi = 0;
    for (uint64_t G = 0; G < Items; ++G)
      if (G * Stride + Offset < N)
        Hi = G * Stride + Offset;
    C.push_back({"kernarg_preload-preload_axpy", {{Hi + 1, InOut}, {Hi + 1, In}}});
  }
  // preload_small: out[gid] = v, no bound (3 x 64).
  C.push_back({"kernarg_preload-preload_small", {{3 * 64, Out}}});
  // collatz: in[i], out[i] for every work-item (2 x 96).
  C.push_back({"loop_branch-collatz", {{2 * 96, In}, {2 * 96, Out}}});
  // block_sum: in[i] for i < n (1000); one sum per block (ceil(1000 / 256)).
  C.push_back({"lds_reduce-block_sum", {{1000, In}, {ceilDiv(1000, 256), Out}}});
  // transpose: in is w*h, out is h*w (w 70, h 45).
  C.push_back({"lds_reduce-transpose", {{70 * 45, In}, {70 * 45, Out}}});
  // wave_sum_dpp: one input per work-item, one output per wave64 (2 x 128 work-items).
  C.push_back({"dpp_reduce-wave_sum_dpp", {{256, In}, {256 / 64, Out}}});
  // swizzle_sum: one output per work-item.
  C.push_back({"dpp_reduce-swizzle_sum", {{256, In}, {256, Out}}});
  // half2_ops: x[i], y[i] half2 for i < n (300): 2n f16; out[2i], out[2i+1]: 4n f16.
  C.push_back({"packed_math-half2_ops", {{2 * 300, In}, {2 * 300, In}, {4 * 300, Out}}});
  // float2_fma: the same with float2: 2n f32 in, 4n f32 out.
  C.push_back({"packed_math-float2_fma", {{2 * 300, In}, {2 * 300, In}, {4 * 300, Out}}});
  // apply_table: out[i] = f(in[i], module globals) for i < n; out is only written (the
  // globals it also writes belong to the module, not to a buffer).
  C.push_back({"globals-apply_table", {{1000, In}, {1000, Out}}});
  // direct_call / indirect_call: one element per work-item, no bound.
  C.push_back({"calls-direct_call", {{2 * 128, In}, {2 * 128, Out}}});
  C.push_back({"calls-indirect_call", {{2 * 96, In}, {2 * 96, Out}}});
  // ocl_vadd4: float4 a, b, c for i < n (300): 4n f32 each.
  C.push_back({"ocl_kernels-ocl_vadd4", {{4 * 300, In}, {4 * 300, In}, {4 * 300, Out}}});
  // ocl_reduce: in[get_global_id] (3 x 128), one sum per group; buf is LDS, not a buffer.
  C.push_back({"ocl_kernels-ocl_reduce", {{3 * 128, In}, {3, Out}}});
  // private_histogram: keys[i] for i < n (1000); out[threadIdx.x] read, then
  // out[gid] written (one workgroup of 256).
  C.push_back({"scratch-private_histogram", {{1000, In}, {256, InOut}}});
  // global_int_atomics: in (one per work-item, 256); sum, mx (max and min: 2), bits, sum64
  // are read-modify-write accumulators (their initial value counts); last is only exchanged.
  C.push_back({"atomics-global_int_atomics",
               {{256, In}, {1, InOut}, {2, InOut}, {1, InOut}, {1, Out}, {1, InOut}}});
  return C;
}

std::string sourceOf(const std::string &Spec) { return Spec.substr(0, Spec.find('-')); }

class ClangCheck : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    ASSERT_TRUE(fs::is_directory(kCorpus + "/" + GetParam()))
        << "the compiled corpus " << kCorpus << "/" << GetParam()
        << " is missing: run the corpus.build-clang test first (ctest -R corpus.build-clang, or "
           "bash test/corpus/clang/build.sh "
        << kCorpus << ")";
  }
  std::string arch() const { return GetParam(); }
};

TEST_P(ClangCheck, EverySpecHasAnExpectation) {
  std::set<std::string> Files, Listed;
  for (const auto &E : fs::directory_iterator(kSrc + "/test/specs/clang"))
    if (E.path().extension() == ".json")
      Files.insert(E.path().stem().string());
  for (const Case &C : cases())
    Listed.insert(C.Spec);
  EXPECT_EQ(Files, Listed);
}

TEST_P(ClangCheck, InferredSizesAndRolesMatchTheSources) {
  for (const Case &C : cases()) {
    SCOPED_TRACE(C.Spec + " on " + arch());
    auto S = readLaunchSpec(specPath(C.Spec));
    ASSERT_TRUE(bool(S)) << errText(S.takeError());
    auto K = openCodeObject(object(arch(), sourceOf(C.Spec)));
    ASSERT_TRUE(bool(K)) << errText(K.takeError());
    ASSERT_FALSE(bool(resolveLaunchSpec(*S, (*K)->C)));
    auto R = inferLaunch(*S, (*K)->C);
    ASSERT_TRUE(bool(R)) << errText(R.takeError());
    Buffers Got;
    for (const ArgSpec &A : S->Args)
      if (A.Buffer && !A.Null)
        Got.push_back({*A.Elements, A.R});
    EXPECT_EQ(Got, C.Expect);
  }
}

TEST_P(ClangCheck, K0AgainstItselfIsOk) {
  for (const Case &C : cases()) {
    SCOPED_TRACE(C.Spec + " on " + arch());
    DiffOptions O;
    O.K0 = O.K1 = object(arch(), sourceOf(C.Spec));
    O.Spec = specPath(C.Spec);
    Report R = runDiffCheck(O);
    EXPECT_EQ(R.exitCode(), 0) << R.Message;
    EXPECT_STREQ(outcomeName(R.Result), "ok") << R.Message;
  }
}

// Module globals: apply_table writes lut (which it also reads) and counter. Inference runs K0
// several times; each run must start from the globals as loaded, else a later run reads the
// earlier run's lut and out looks like it depends on its own initial contents (role inout).
TEST_P(ClangCheck, InferenceRunsStartFromTheLoadedGlobals) {
  auto S = readLaunchSpec(specPath("globals-apply_table"));
  ASSERT_TRUE(bool(S));
  auto K = openCodeObject(object(arch(), "globals"));
  ASSERT_TRUE(bool(K));
  ASSERT_FALSE(bool(resolveLaunchSpec(*S, (*K)->C)));
  auto R = inferLaunch(*S, (*K)->C);
  ASSERT_TRUE(bool(R)) << errText(R.takeError());
  EXPECT_EQ(S->Args[1].R, Role::Out);
}

// Max/min/or accumulators: with small random initial values the result is the inputs' max
// (min, or) whatever the initial value was; the role probe must also try the type's extremes.
TEST_P(ClangCheck, AccumulatorsAreInOut) {
  auto S = readLaunchSpec(specPath("atomics-global_int_atomics"));
  ASSERT_TRUE(bool(S));
  auto K = openCodeObject(object(arch(), "atomics"));
  ASSERT_TRUE(bool(K));
  ASSERT_FALSE(bool(resolveLaunchSpec(*S, (*K)->C)));
  ASSERT_TRUE(bool(inferLaunch(*S, (*K)->C)));
  EXPECT_EQ(S->Args[2].R, Role::InOut); // atomicMax / atomicMin
  EXPECT_EQ(S->Args[3].R, Role::InOut); // atomicOr
  EXPECT_EQ(S->Args[4].R, Role::Out);   // atomicExch
}

// Several workgroups exchanging into one word: with one host thread the order is the
// seed's, so K0 against itself stays ok. (With several host threads the workgroups race and
// 'last' differs from run to run: see the atomics spec's comment.)
TEST_P(ClangCheck, AtomicExchangeAcrossWorkgroupsIsDeterministicOnOneThread) {
  auto T = TempDir::create("clang-check-atomics");
  ASSERT_TRUE(bool(T));
  std::ifstream In(specPath("atomics-global_int_atomics"));
  std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  auto P = Text.find("\"grid\": [1]");
  ASSERT_NE(P, std::string::npos);
  Text.replace(P, 11, "\"grid\": [8]");
  std::ofstream(T->file("at8.json")) << Text;
  DiffOptions O;
  O.K0 = O.K1 = object(arch(), "atomics");
  O.Spec = T->file("at8.json");
  O.Threads = 1;
  Report R = runDiffCheck(O);
  EXPECT_EQ(R.exitCode(), 0) << R.Message;
}

// The check: each seed starts from the globals as loaded too, so seed 2 gives the same K0
// results alone as after seed 1 (apply_table reads the lut entries earlier runs wrote).
TEST_P(ClangCheck, EverySeedStartsFromTheLoadedGlobals) {
  auto T = TempDir::create("clang-check-seeds");
  ASSERT_TRUE(bool(T));
  auto dumpK0 = [&](std::vector<uint64_t> Seeds, const std::string &Dir) {
    DiffOptions O;
    O.K0 = O.K1 = object(arch(), "globals");
    O.Spec = specPath("globals-apply_table");
    O.Seeds = Seeds;
    O.DumpDir = T->file(Dir);
    Report R = runDiffCheck(O);
    EXPECT_EQ(R.exitCode(), 0) << R.Message;
    std::ifstream In(T->file(Dir) + "/seed2/1__1.k0.bin", std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  };
  std::string Alone = dumpK0({2}, "alone"), After = dumpK0({1, 2}, "after");
  ASSERT_FALSE(Alone.empty());
  EXPECT_TRUE(Alone == After) << "seed 2's K0 output depends on whether seed 1 ran first";
}

INSTANTIATE_TEST_SUITE_P(Corpus, ClangCheck, ::testing::Values("gfx942", "gfx90a"),
                         [](const auto &I) { return std::string(I.param); });

// ---- mutants ----

struct Mutant {
  std::string Spec, Kernel, Edit, Why;
};

int sh(const std::string &Cmd) { return std::system(Cmd.c_str()); }

TEST(ClangMutants, OneInstructionEditsAreDivergent) {
  const std::string Arch = "gfx942";
  ASSERT_TRUE(fs::is_directory(kCorpus + "/" + Arch))
      << "the compiled corpus " << kCorpus << "/" << Arch
      << " is missing: run the corpus.build-clang test first (ctest -R corpus.build-clang)";
  const std::vector<Mutant> Ms = {
      {"multi_kernel-saxpy", "_Z5saxpyfPKfPfi", "replace:1:v_cmp_gt_i32_e32=>v_cmp_ge_i32_e32",
       "bound i < n becomes i <= n: a store past the end of y"},
      {"multi_kernel-copy3d", "_Z6copy3dPKfPfiii",
       "replace:1:v_cmp_gt_i32_e32 vcc, s10=>v_cmp_ge_i32_e32 vcc, s10",
       "one bound check off by one"},
      {"loop_branch-collatz", "_Z7collatzPKjPjii",
       R"(replace:1:(v_mad_u64_u32 v\[\d+:\d+\], s\[\d+:\d+\], v\d+), 3, 1=>\1, 3, 3)",
       "3x+1 becomes 3x+3"},
      {"dpp_reduce-wave_sum_dpp", "_Z12wave_sum_dppPKiPi", "replace:1:row_shr:4=>row_shr:3",
       "a DPP row shift changed"},
      {"atomics-global_int_atomics", "_Z18global_int_atomicsPKiPiS1_PjS1_Py",
       "replace:1:global_atomic_smax=>global_atomic_umax", "signed max becomes unsigned max"},
      {"packed_math-half2_ops", "_Z9half2_opsPKDv2_DF16_S1_PS_S_S_i",
       R"(replace:1:v_pk_fma_f16 (v\d+), (s\d+), (v\d+), (v\d+)=>v_pk_fma_f16 \1, \2, \4, \3)",
       "fma(b, p, s) becomes fma(b, s, p)"},
      {"lds_reduce-transpose", "_Z9transposePKfPfii",
       "replace:1:ds_write_b32 v0, v5 offset:1056=>ds_write_b32 v0, v5 offset:1060",
       "one LDS tile write one column off"},
  };
  auto T = TempDir::create("clang-mutants");
  ASSERT_TRUE(bool(T));
  std::set<std::string> Recovered;
  for (const Mutant &M : Ms) {
    SCOPED_TRACE(M.Spec + ": " + M.Why);
    std::string Src = sourceOf(M.Spec), K0 = object(Arch, Src), S = T->file(Src + ".s");
    if (Recovered.insert(Src).second) {
      ASSERT_EQ(sh(std::string(ASMEVO_RECOVER) + " '" + K0 + "' -o '" + S + "' -q"), 0);
    }
    std::string M1 = T->file(M.Spec + ".s"), K1 = T->file(M.Spec + ".hsaco");
    ASSERT_EQ(sh("python3 '" + kSrc + "/test/mutants/mutate.py' '" + S + "' '" + M1 + "' '" +
                 M.Kernel + "' '" + M.Edit + "'"),
              0);
    ASSERT_EQ(
        sh(std::string(ASMEVO_REBUILD) + " '" + M1 + "' -o '" + K1 + "' --abi-of '" + K0 + "' -q"),
        0);
    DiffOptions O;
    O.K0 = K0;
    O.K1 = K1;
    O.Spec = specPath(M.Spec);
    Report R = runDiffCheck(O);
    EXPECT_EQ(R.exitCode(), 1) << R.Message;
    EXPECT_STREQ(outcomeName(R.Result), "divergent") << R.Message;
    std::cout << "[ mutant   ] " << M.Spec << " (" << M.Why << "): " << R.Message << "\n";
  }
}

} // namespace
