// kernel-diffcheck's library: input generation, metrics, guards, spec errors (exact messages),
// launch inference on the Triton corpus (sizes and roles for given shapes), and the check.
#include "check/Compare.h"
#include "check/DiffCheck.h"
#include "check/K0RunCache.h"
#include "check/LaunchInference.h"
#include "codeobj/Input.h"
#include "launch/InputGen.h"
#include "launch/LaunchSpec.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Float.h"
#include "support/TorchTables.h"

#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"

#include <algorithm>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

using namespace asmevo;
using namespace asmevo::check;
using namespace asmevo::launch;

namespace {

std::string src(const std::string &P) { return std::string(ASMEVO_SOURCE_DIR) + "/" + P; }
std::string triton(const std::string &Arch, const std::string &Name) {
  return src("test/corpus/triton/" + Arch + "/" + Name + ".hsaco");
}

ArgSpec bufArg(ElemType T, unsigned Index = 0) {
  ArgSpec A;
  A.Buffer = true;
  A.Type = T;
  A.Index = Index;
  return A;
}

std::string errText(llvm::Error E) {
  std::string S;
  llvm::handleAllErrors(std::move(E), [&](const ToolError &T) { S = formatError(T); });
  return S;
}

// ---- input generation ----

TEST(InputGen, DeterministicPerSeedAndArgument) {
  ArgSpec A = bufArg(ElemType::F32, 2);
  auto X = generateValues(A, 1000, 7, 2), Y = generateValues(A, 1000, 7, 2);
  EXPECT_EQ(X, Y);
  EXPECT_NE(X, generateValues(A, 1000, 8, 2));
  ArgSpec B = bufArg(ElemType::F32, 3);
  EXPECT_NE(X, generateValues(B, 1000, 7, 2));
  // A fixed value: the generator is platform-independent.
  EXPECT_EQ(Rng(1).next(), 0x910a2dec89025cc1ull);
}

TEST(InputGen, FloatBoundaryValuesBySeed) {
  ArgSpec A = bufArg(ElemType::F32);
  auto count = [&](uint64_t Seed) {
    auto V = generateValues(A, 200000, Seed, boundaryLevel(Seed));
    unsigned Nan = 0, Inf = 0, Den = 0, Out = 0, NegZero = 0;
    for (size_t I = 0; I < 200000; ++I) {
      float F;
      std::memcpy(&F, &V[I * 4], 4);
      Nan += std::isnan(F);
      Inf += std::isinf(F);
      Den += std::fpclassify(F) == FP_SUBNORMAL;
      NegZero += F == 0 && std::signbit(F);
      Out += std::isfinite(F) && std::fabs(F) > 1;
    }
    return std::array<unsigned, 5>{Nan, Inf, Den, Out, NegZero};
  };
  auto S1 = count(1), S2 = count(2), S3 = count(3);
  EXPECT_EQ(S1, (std::array<unsigned, 5>{0, 0, 0, 0, 0})); // plain values in [-1, 1)
  EXPECT_EQ(S2[0] + S2[1], 0u);
  EXPECT_GT(S2[2], 100u); // denormals
  EXPECT_GT(S2[3], 100u); // +-1024
  EXPECT_GT(S2[4], 50u);  // -0.0
  EXPECT_GT(S3[0], 30u);  // NaN from seed 3
  EXPECT_GT(S3[1], 60u);  // +-Inf
  EXPECT_LT(S3[0] + S3[1], 400u);
}

// The fp8 / MX types, decoded with PyTorch's tables (an encoder independent of SmallFloat's):
// seed 1 gives finite values in [-1, 1], seed 2 adds subnormals and +-1024 (saturated to the
// format's largest finite value where 1024 is past it), seed 3 NaN and infinities. E8M0 scales stay
// within 2^-4 .. 2^4 (or the range given); f4e2m1x2 bytes take every value.
TEST(InputGen, NarrowFloatTypes) {
  struct Fmt {
    ElemType T;
    const char *Torch;
    float Max;
  };
  for (Fmt F :
       {Fmt{ElemType::F8E4M3FN, "e4m3fn", 448}, Fmt{ElemType::F8E5M2, "e5m2", 57344},
        Fmt{ElemType::F8E4M3FNUZ, "e4m3fnuz", 240}, Fmt{ElemType::F8E5M2FNUZ, "e5m2fnuz", 57344}}) {
    SCOPED_TRACE(F.Torch);
    auto Dec = emu::test::torchDecode(F.Torch);
    ArgSpec A = bufArg(F.T);
    auto count = [&](uint64_t Seed) {
      auto V = generateValues(A, 50000, Seed, boundaryLevel(Seed));
      unsigned Nan = 0, Sub = 0, Big = 0, Inf = 0, AtMax = 0;
      for (uint8_t C : V) {
        float X = Dec[C];
        Nan += std::isnan(X);
        Sub += (C & 0x7f) == 1; // the smallest subnormal, a boundary value
        Big += std::isfinite(X) && std::fabs(X) > 1;
        Inf += std::isinf(X);
        AtMax += std::fabs(X) == F.Max;
      }
      return std::array<unsigned, 5>{Nan, Sub, Big, Inf, AtMax};
    };
    auto S1 = count(1), S2 = count(2), S3 = count(3);
    EXPECT_EQ(S1[0] + S1[2] + S1[3], 0u);
    EXPECT_EQ(S2[0] + S2[3], 0u);
    EXPECT_GT(S2[1], S1[1] + 10u);
    EXPECT_GT(S2[2], 10u);
    if (F.Max < 1024) { // +-1024 saturates to the largest finite value
      EXPECT_EQ(S2[4], S2[2]);
    }
    EXPECT_GT(S3[0], 5u);
    // Seed 3's infinities stay infinite where the format has them (e5m2), else become NaN.
    if (F.T == ElemType::F8E5M2) {
      EXPECT_GT(S3[3], 5u);
    } else {
      EXPECT_EQ(S3[3], 0u);
    }
  }
  // Poison: each format's NaN (0xff is a finite -240 / -57344 in the FNUZ formats).
  for (ElemType T : {ElemType::F8E4M3FNUZ, ElemType::F8E5M2FNUZ, ElemType::F8E4M3FN}) {
    uint8_t P[4];
    fillPoison(T, P, 4);
    EXPECT_TRUE(std::isnan(elementValue(T, P))) << elemTypeName(T);
  }
  ArgSpec S = bufArg(ElemType::E8M0);
  std::set<uint8_t> Codes;
  for (uint8_t C : generateValues(S, 10000, 3, 2))
    Codes.insert(C);
  EXPECT_EQ(*Codes.begin(), 127 - 4);
  EXPECT_EQ(*Codes.rbegin(), 127 + 4);
  EXPECT_EQ(Codes.size(), 9u);
  S.Range = std::pair{0.25, 8.0};
  Codes.clear();
  for (uint8_t C : generateValues(S, 10000, 3, 2))
    Codes.insert(C);
  EXPECT_EQ(*Codes.begin(), 125);
  EXPECT_EQ(*Codes.rbegin(), 130);
  EXPECT_EQ(elementValue(ElemType::E8M0, &*Codes.begin()), 0.25);
  std::set<uint8_t> Packed;
  for (uint8_t C : generateValues(bufArg(ElemType::F4E2M1X2), 10000, 1, 0))
    Packed.insert(C);
  EXPECT_EQ(Packed.size(), 256u);
}

TEST(InputGen, RangesAreRespectedAndIntsStaySmall) {
  ArgSpec A = bufArg(ElemType::I32);
  A.Range = std::pair{3.0, 9.0};
  auto V = generateValues(A, 10000, 3, 2);
  std::set<int32_t> Seen;
  for (size_t I = 0; I < 10000; ++I) {
    int32_t X;
    std::memcpy(&X, &V[I * 4], 4);
    Seen.insert(X);
  }
  EXPECT_EQ(*Seen.begin(), 3);
  EXPECT_EQ(*Seen.rbegin(), 9);
  EXPECT_EQ(Seen.size(), 7u);
  ArgSpec H = bufArg(ElemType::F16);
  H.Range = std::pair{0.5, 1.5};
  auto W = generateValues(H, 10000, 3, 2);
  for (size_t I = 0; I < 10000; ++I) {
    uint16_t X;
    std::memcpy(&X, &W[I * 2], 2);
    float F = f16ToF32(X);
    ASSERT_TRUE(F >= 0.5f && F <= 1.5f) << F;
  }
  ArgSpec U = bufArg(ElemType::U8);
  auto B = generateValues(U, 10000, 2, 1);
  unsigned Max = 0;
  for (uint8_t X : B)
    Max += X == 255;
  EXPECT_GT(Max, 0u); // the maximum appears as a boundary value
}

TEST(InputGen, PoisonAndCanary) {
  ArgSpec A = bufArg(ElemType::F32);
  A.Elements = 4;
  A.R = Role::Out;
  auto P = initialContents(A, 1);
  ASSERT_TRUE(bool(P));
  uint32_t W;
  std::memcpy(&W, P->data() + 12, 4);
  EXPECT_EQ(W, 0x7fc0deadu);
  A.Type = ElemType::I16;
  auto Q = initialContents(A, 1);
  EXPECT_EQ(*Q, std::vector<uint8_t>(8, 0xff));
  A.Fill = "zero";
  EXPECT_EQ(*initialContents(A, 1), std::vector<uint8_t>(8, 0));
  std::vector<uint8_t> G(100);
  fillCanary(G.data(), G.size());
  EXPECT_EQ(firstCanaryDiff(G.data(), G.size()), -1);
  G[37] ^= 1;
  EXPECT_EQ(firstCanaryDiff(G.data(), G.size()), 37);
}

// ---- comparison ----

std::vector<uint8_t> f32s(std::initializer_list<float> V) {
  std::vector<uint8_t> B(V.size() * 4);
  std::memcpy(B.data(), V.begin(), B.size());
  return B;
}

TEST(Compare, CosineAndMaxDiff) {
  auto A = f32s({1, 2, 3, 4}), B = f32s({1, 2, 3, 4.0005f});
  auto M = compareBuffers(ElemType::F32, A.data(), B.data(), 4, 0.9999, 1e-3);
  EXPECT_TRUE(M.ok()) << M.Failure;
  EXPECT_NEAR(M.MaxAbsDiff, 0.0005, 1e-6);
  EXPECT_EQ(M.FirstDiff, 3);
  auto C = f32s({1, 2, 3, 4.01f});
  M = compareBuffers(ElemType::F32, A.data(), C.data(), 4, 0.9999, 1e-3);
  EXPECT_EQ(M.Failure.rfind("max_abs_diff 0.01", 0), 0u) << M.Failure;
  EXPECT_EQ(M.FirstDiff, 3);
  EXPECT_EQ(M.K0Value, "4");
  EXPECT_EQ(M.K1Value, "4.01000023");
  // Small values: within tau but the direction differs -> cosine fails.
  auto D = f32s({1e-4f, 0, 0, 0}), E = f32s({0, 1e-4f, 0, 0});
  M = compareBuffers(ElemType::F32, D.data(), E.data(), 4, 0.9999, 1e-3);
  EXPECT_EQ(M.Cosine, 0.0);
  EXPECT_EQ(M.Failure, "cosine 0 < theta 0.9999");
  EXPECT_EQ(M.FirstDiff, 0);
  // -0 and 0 are equal; all-zero buffers have cosine 1.
  auto Z = f32s({0, 0}), NZ = f32s({-0.0f, 0});
  M = compareBuffers(ElemType::F32, Z.data(), NZ.data(), 2, 0.9999, 1e-3);
  EXPECT_TRUE(M.ok());
  EXPECT_EQ(M.Cosine, 1.0);
  EXPECT_EQ(M.Mismatches, 0u);
}

TEST(Compare, NanAndInfPositions) {
  float N = NAN, I = INFINITY;
  auto A = f32s({1, N, I, 2}), B = f32s({1, N, I, 2});
  EXPECT_TRUE(compareBuffers(ElemType::F32, A.data(), B.data(), 4, 0.9999, 1e-3).ok());
  auto C = f32s({1, 3, I, 2});
  auto M = compareBuffers(ElemType::F32, A.data(), C.data(), 4, 0.9999, 1e-3);
  EXPECT_EQ(M.Failure, "nan_mismatches 1");
  EXPECT_EQ(M.FirstDiff, 1);
  EXPECT_EQ(M.K0Value, "nan");
  EXPECT_EQ(M.K1Value, "3");
  auto D = f32s({1, N, -I, 2});
  M = compareBuffers(ElemType::F32, A.data(), D.data(), 4, 0.9999, 1e-3);
  EXPECT_EQ(M.Failure, "inf_mismatches 1");
  EXPECT_EQ(M.FirstDiff, 2);
  EXPECT_EQ(M.K1Value, "-inf");
  // f16: a NaN poison that stays in both is fine.
  std::vector<uint8_t> H0 = {0xea, 0x7d, 0x00, 0x3c}, H1 = {0xea, 0x7d, 0x00, 0x3c};
  EXPECT_TRUE(compareBuffers(ElemType::F16, H0.data(), H1.data(), 2, 0.9999, 1e-3).ok());
}

TEST(Compare, IntegersAndBytesAreByteExact) {
  std::vector<uint8_t> A = {1, 0, 0, 0, 2, 0, 0, 0}, B = {1, 0, 0, 0, 2, 0, 0, 1};
  auto M = compareBuffers(ElemType::I32, A.data(), B.data(), 2, 0.9999, 1e-3);
  EXPECT_EQ(M.Failure, "mismatches 1 (byte-exact)");
  EXPECT_EQ(M.FirstDiff, 1);
  EXPECT_EQ(M.K0Value, "2");
  EXPECT_EQ(M.K1Value, "16777218");
  M = compareBuffers(ElemType::Bytes, A.data(), B.data(), 8, 0.9999, 1e-3);
  EXPECT_EQ(M.FirstDiff, 7);
  EXPECT_EQ(M.K1Value, "0x01");
}

TEST(Compare, GuardWritesAreFoundOnEitherSide) {
  std::vector<uint8_t> Alloc(2 * kGuardBytes + 64);
  fillCanary(Alloc.data(), kGuardBytes);
  fillCanary(Alloc.data() + kGuardBytes + 64, kGuardBytes);
  EXPECT_FALSE(checkGuards(Alloc.data(), 64));
  auto After = Alloc;
  After[kGuardBytes + 64 + 3] ^= 0xff;
  auto H = checkGuards(After.data(), 64);
  ASSERT_TRUE(H);
  EXPECT_FALSE(H->Before);
  EXPECT_EQ(H->Offset, 67);
  auto Before = Alloc;
  Before[kGuardBytes - 4] = 0;
  H = checkGuards(Before.data(), 64);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->text(), "guard before the buffer written at byte offset -4 (value 0x00)");
}

// ---- spec parsing ----

const char *kVaddSpec = R"({"kernel": "add_kernel", "grid": [3], "block": [256],
  "args": [{"arg": "#0", "type": "f32"}, {"arg": "#1", "type": "f32"},
    {"arg": "#2", "type": "f32"}, {"arg": "#3", "value": 3000}, {"arg": "#4", "value": "null"},
    {"arg": "#5", "value": "null"}]})";

std::string specError(const std::string &Text, const std::string &Obj = "") {
  auto S = parseLaunchSpec(Text, "s.json");
  if (!S)
    return errText(S.takeError());
  if (Obj.empty())
    return "(parsed)";
  auto K = openCodeObject(Obj);
  if (!K)
    return errText(K.takeError());
  if (llvm::Error E = resolveLaunchSpec(*S, (*K)->C))
    return errText(std::move(E));
  return "(resolved)";
}

TEST(Spec, ParseErrorsAreExact) {
  EXPECT_EQ(specError("[1]"), "'s.json': a launch spec is a JSON object");
  EXPECT_EQ(specError(R"({"grid": [1], "grid_items": [1], "block": [1], "args": []})"),
            "'s.json': give \"grid\" or \"grid_items\", not both");
  EXPECT_EQ(specError(R"({"grid": [0], "block": [1], "args": []})"),
            "'s.json': \"grid\": expected an array of 1 to 3 positive integers");
  EXPECT_EQ(specError(R"({"grid": [1], "args": []})"),
            "'s.json': no \"block\": give the workgroup size, e.g. [256, 1, 1]");
  EXPECT_EQ(specError(R"({"grid": [1], "block": [1], "args": [], "blok": 1})"),
            "'s.json': unknown key 'blok' (format, format_version, k0_sha256, kernel, grid, "
            "grid_items, block, dynamic_lds, args, comment)");
  EXPECT_EQ(specError(R"({"grid": [1], "block": [1], "args": [{"arg": "#0", "role": "output"}]})"),
            "'s.json': args[0]: \"role\" must be \"in\", \"out\" or \"inout\"");
  EXPECT_EQ(specError(R"({"grid": [1], "block": [1], "args": [{"arg": "#0", "range": [2, 1]}]})"),
            "'s.json': args[0]: \"range\" must be [lo, hi] with lo <= hi");
  EXPECT_EQ(specError(R"({"grid": [1], "block": [1], "args": [{"type": "f32"}]})"),
            "'s.json': args[0]: \"arg\" is missing (a metadata name or #N)");
}

TEST(Spec, TextIsUtf8AByteOrderMarkIsSkipped) {
  const std::string Ok = R"({"grid": [1], "block": [1], "args": []})";
  EXPECT_EQ(specError("\xEF\xBB\xBF" + Ok), "(parsed)");
  EXPECT_EQ(
      specError("\xFF\xFE" + Ok),
      "'s.json': begins with a UTF-16 or UTF-32 byte order mark: a launch spec is UTF-8 JSON");
  EXPECT_EQ(specError("{\"grid\": [1],\n \"comment\": \"a\xC3\"}"),
            "'s.json':2: not valid UTF-8: byte 0xc3 at column 15 (a launch spec is UTF-8 JSON)");
  // An overlong encoding of '/' and a lone continuation byte are not UTF-8 either.
  EXPECT_EQ(specError("{\"comment\": \"\xC0\xAF\"}"),
            "'s.json':1: not valid UTF-8: byte 0xc0 at column 14 (a launch spec is UTF-8 JSON)");
  // UTF-16 without a byte order mark: NUL bytes, which JSON text never has.
  EXPECT_EQ(specError(std::string("{\0\"\0", 4)),
            "'s.json':1: a NUL byte at column 2 (a launch spec is UTF-8 JSON)");
  EXPECT_EQ(specError("\xEF\xBB\xBF{\"comment\": \"\x80\"}"),
            "'s.json':1: not valid UTF-8: byte 0x80 at column 14 (a launch spec is UTF-8 JSON)");
}

TEST(Spec, ResolveErrorsAreExact) {
  std::string K = triton("gfx942", "vector_add_fp32");
  EXPECT_EQ(specError(kVaddSpec, K), "(resolved)");
  auto with = [&](const std::string &From, const std::string &To) {
    std::string S = kVaddSpec;
    S.replace(S.find(From), From.size(), To);
    return specError(S, K);
  };
  EXPECT_EQ(with(R"({"arg": "#3", "value": 3000}, )", ""),
            "'s.json': argument #3 (by_value, offset 24, 4 bytes) is not in the spec: add "
            "{\"arg\": \"#3\", ...}");
  EXPECT_EQ(with(R"("value": 3000)", R"("value": 3000000000)"),
            "'s.json': args[3]: \"value\" 3000000000 does not fit in i32");
  EXPECT_EQ(with(R"("value": 3000)", R"("type": "i32", "value": 1.5)"),
            "'s.json': args[3]: \"value\" 1.5 is not an integer (type i32)");
  EXPECT_EQ(with(R"({"arg": "#0", "type": "f32"})", R"({"arg": "#0"})"),
            "'s.json': args[0]: buffer argument '#0' needs \"type\" (f16 bf16 f32 f64 i8 i16 i32 "
            "i64 u8 u16 u32 u64 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz e8m0 f4e2m1x2 bytes)");
  EXPECT_EQ(with(R"({"arg": "#1", "type": "f32"})", R"({"arg": "#0", "type": "f32"})"),
            "'s.json': args[1]: argument '#0' is already given by args[0]");
  EXPECT_EQ(with(R"({"arg": "#4", "value": "null"})", R"({"arg": "#4", "value": 5})"),
            "'s.json': args[4]: '#4' is a buffer: its \"value\" can only be \"null\"");
  EXPECT_EQ(
      with(R"({"arg": "#3", "value": 3000})", R"({"arg": "#3", "elements": 3})"),
      "'s.json': args[3]: '#3' is passed by value (by_value): give only \"value\" (and \"type\")");
  EXPECT_EQ(with(R"("kernel": "add_kernel")", R"("kernel": "sub_kernel")"),
            "'s.json': '" + K + "' has no kernel named 'sub_kernel' (kernels: add_kernel)");
}

TEST(Spec, ValuesAreEncodedAndTheSpecRoundTrips) {
  auto S = parseLaunchSpec(kVaddSpec, "s.json");
  ASSERT_TRUE(bool(S));
  auto K = openCodeObject(triton("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(bool(K));
  ASSERT_FALSE(bool(resolveLaunchSpec(*S, (*K)->C)));
  EXPECT_EQ(S->gridItems(), (std::array<uint32_t, 3>{768, 1, 1}));
  auto KA = S->kernarg({0x1000, 0x2000, 0x3000, 0, 0, 0});
  ASSERT_EQ(KA.size(), 48u);
  int32_t N;
  std::memcpy(&N, &KA[24], 4);
  EXPECT_EQ(N, 3000);
  uint64_t P;
  std::memcpy(&P, &KA[16], 8);
  EXPECT_EQ(P, 0x3000u);
  EXPECT_TRUE(S->needsInference());
  auto Again = parseLaunchSpec(S->toJson().dump(), "t.json");
  ASSERT_TRUE(bool(Again));
  ASSERT_FALSE(bool(resolveLaunchSpec(*Again, (*K)->C)));
  EXPECT_EQ(Again->toJson(), S->toJson());
}

// ---- launch inference on the Triton corpus ----

struct Expect {
  std::string Name;
  std::vector<std::pair<uint64_t, Role>> Buffers; // elements, role of each non-null buffer
};

class Inference : public ::testing::TestWithParam<const char *> {};

TEST_P(Inference, SizesAndRolesOfTheCorpusKernels) {
  const std::vector<Expect> Cases = {
      {"vector_add_fp32", {{3000, Role::In}, {3000, Role::In}, {3000, Role::Out}}},
      // rows 3, cols 100, strides 112: (3-1)*112+100
      {"softmax_fp32", {{324, Role::Out}, {324, Role::In}}},
      // rows 3, N 1000, stride 1008
      {"layernorm_fwd_fp16",
       {{3016, Role::In},
        {3016, Role::Out},
        {1000, Role::In},
        {1000, Role::In},
        {3, Role::Out},
        {3, Role::Out}}},
      // M 80, N 48, K 48: A M*K, B K*N, C M*N
      {"matmul_fp16", {{3840, Role::In}, {2304, Role::In}, {3840, Role::Out}}},
      {"matmul_fp16_ns2", {{3840, Role::In}, {2304, Role::In}, {3840, Role::Out}}},
      {"matmul_bf16", {{3840, Role::In}, {2304, Role::In}, {3840, Role::Out}}},
      // Z 1, H 2, N_CTX 100: stride_h 7168 + 99 rows * 64 + 64; Lse Z*H*N_CTX
      {"flash_attn_fwd_fp16",
       {{13568, Role::In},
        {13568, Role::In},
        {13568, Role::In},
        {13568, Role::Out},
        {200, Role::Out}}},
      {"flash_attn_fwd_causal_fp16",
       {{13568, Role::In},
        {13568, Role::In},
        {13568, Role::In},
        {13568, Role::Out},
        {200, Role::Out}}},
  };
  for (const Expect &E : Cases) {
    SCOPED_TRACE(E.Name);
    auto S = readLaunchSpec(src("test/specs/" + E.Name + ".json"));
    ASSERT_TRUE(bool(S)) << errText(S.takeError());
    auto K = openCodeObject(triton(GetParam(), E.Name));
    ASSERT_TRUE(bool(K));
    ASSERT_FALSE(bool(resolveLaunchSpec(*S, (*K)->C)));
    auto R = inferLaunch(*S, (*K)->C);
    ASSERT_TRUE(bool(R)) << errText(R.takeError());
    std::vector<std::pair<uint64_t, Role>> Got;
    for (const ArgSpec &A : S->Args)
      if (A.Buffer && !A.Null)
        Got.push_back({*A.Elements, A.R});
    EXPECT_EQ(Got, E.Buffers);
  }
}

// MoE: index buffers given as files (sorted token ids padded per expert, expert of each block,
// the padded count); the rest inferred. 5 tokens, top_k 2, 2 experts, N 128, K 48.
TEST_P(Inference, FusedMoeWithIndexFiles) {
  auto T = TempDir::create("diffcheck-moe");
  ASSERT_TRUE(bool(T));
  const int Tokens = 5, TopK = 2, E = 2, N = 128, K = 48, Valid = Tokens * TopK;
  std::vector<int32_t> Sorted, BlockExpert;
  for (int Ex = 0; Ex < E; ++Ex) {
    std::vector<int32_t> Ids;
    for (int Tk = 0; Tk < Valid; ++Tk)
      if (Tk % E == Ex)
        Ids.push_back(Tk);
    while (Ids.size() % 32)
      Ids.push_back(Valid);
    Sorted.insert(Sorted.end(), Ids.begin(), Ids.end());
    BlockExpert.push_back(Ex);
  }
  int EM = int(Sorted.size());
  std::vector<int32_t> Post = {EM};
  auto put = [&](const std::string &Name, const std::vector<int32_t> &V) {
    std::ofstream(T->file(Name), std::ios::binary)
        .write(reinterpret_cast<const char *>(V.data()), V.size() * 4);
  };
  put("sorted.bin", Sorted);
  put("experts.bin", BlockExpert);
  put("post.bin", Post);
  std::string Spec =
      R"({"kernel": "fused_moe_kernel", "grid": [)" + std::to_string((EM / 32) * (N / 64)) +
      R"(], "block": [256], "dynamic_lds": 4096,
    "args": [{"arg": "#0", "type": "f16"}, {"arg": "#1", "type": "f16"},
      {"arg": "#2", "type": "f16"},
      {"arg": "#3", "type": "f32", "range": [0, 1]},
      {"arg": "#4", "type": "i32", "file": "sorted.bin"},
      {"arg": "#5", "type": "i32", "file": "experts.bin"},
      {"arg": "#6", "type": "i32", "file": "post.bin"},
      {"arg": "#7", "value": )" +
      std::to_string(N) + R"(}, {"arg": "#8", "value": )" + std::to_string(K) +
      R"(}, {"arg": "#9", "value": )" + std::to_string(EM) + R"(}, {"arg": "#10", "value": )" +
      std::to_string(Valid) + R"(}, {"arg": "#11", "value": )" + std::to_string(K) +
      R"(}, {"arg": "#12", "value": )" + std::to_string(N * K) + R"(}, {"arg": "#13", "value": )" +
      std::to_string(K) + R"(}, {"arg": "#14", "value": )" + std::to_string(N) +
      R"(}, {"arg": "#15", "value": "null"}, {"arg": "#16", "value": "null"}]})";
  {
    std::ofstream(T->file("moe.json")) << Spec;
  }
  auto S = readLaunchSpec(T->file("moe.json"));
  ASSERT_TRUE(bool(S)) << errText(S.takeError());
  auto KO = openCodeObject(triton(GetParam(), "fused_moe_fp16"));
  ASSERT_TRUE(bool(KO));
  ASSERT_FALSE(bool(resolveLaunchSpec(*S, (*KO)->C)));
  auto R = inferLaunch(*S, (*KO)->C);
  ASSERT_TRUE(bool(R)) << errText(R.takeError());
  EXPECT_EQ(*S->Args[0].Elements, uint64_t(Tokens * K)); // A [tokens, K]
  EXPECT_EQ(*S->Args[1].Elements, uint64_t(E * N * K));  // B [E, N, K]
  EXPECT_EQ(*S->Args[2].Elements, uint64_t(Valid * N));  // C [tokens*top_k, N]
  EXPECT_EQ(*S->Args[3].Elements, uint64_t(Valid));      // topk_weights
  EXPECT_EQ(S->Args[2].R, Role::Out);
  for (int I : {0, 1, 3, 4, 5, 6})
    EXPECT_EQ(S->Args[I].R, Role::In) << I;
  // And the whole check of K0 against itself is ok.
  DiffOptions O;
  O.K0 = O.K1 = triton(GetParam(), "fused_moe_fp16");
  O.Spec = T->file("moe.json");
  Report D = runDiffCheck(O);
  EXPECT_EQ(D.exitCode(), 0) << D.Message;
  EXPECT_STREQ(outcomeName(D.Result), "ok");
}

INSTANTIATE_TEST_SUITE_P(Corpus, Inference, ::testing::Values("gfx942", "gfx90a"),
                         [](const auto &I) { return std::string(I.param); });

// ---- the check itself ----

TEST(DiffCheck, IdenticalKernelsAreOkAndReportMetrics) {
  DiffOptions O;
  O.K0 = O.K1 = triton("gfx942", "vector_add_fp32");
  O.Spec = src("test/specs/vector_add_fp32.json");
  O.Seeds = {1, 2, 3};
  Report R = runDiffCheck(O);
  ASSERT_EQ(R.exitCode(), 0) << R.Message;
  EXPECT_EQ(R.Message, "ok: add_kernel, 1 output buffer equal on seeds 1,2,3 and on edge shapes "
                       "tail-1, tail-2, tail-3, one-workgroup (seed 3), strict checks clean "
                       "(backend emu, CPU emulator (gfx942, wave64))");
  const auto &B = R.Body["buffers"][2];
  EXPECT_EQ(B["role"], "out");
  ASSERT_EQ(B["seeds"].size(), 7u); // three seeds, then four edge shapes on seed 3
  EXPECT_EQ(B["seeds"][3]["shape"], "tail-1");
  EXPECT_EQ(B["seeds"][6]["shape"], "one-workgroup");
  EXPECT_EQ(
      R.Body["edge_shapes"][1],
      (nlohmann::json{
          {"name", "tail-2"}, {"change", "'#3' 3000 -> 2998"}, {"seed", 3}, {"checked", true}}));
  EXPECT_EQ(B["seeds"][2]["cosine"], 1.0);
  EXPECT_EQ(B["seeds"][2]["max_abs_diff"], 0.0);
  EXPECT_EQ(B["seeds"][2]["nan_mismatches"], 0);
  EXPECT_EQ(R.Body["spec"]["args"][0]["elements"], 3000);
}

// What a search's gate reads of a check (DiffResult): its outcome, its message and whose failure
// it is, from the same run as the report the tool writes.
TEST(DiffCheck, TheVerdictSaysWhoseFailureItIs) {
  DiffOptions O;
  O.K0 = O.K1 = triton("gfx942", "vector_add_fp32");
  O.Spec = src("test/specs/vector_add_fp32.json");
  O.Seeds = {1};
  O.EdgeShapes = false;
  DiffResult Ok = diffCheck(O);
  EXPECT_EQ(Ok.Result, Outcome::Ok) << Ok.Message;
  EXPECT_EQ(Ok.Failed, Blame::None);
  EXPECT_EQ(Ok.Message, Ok.Rep.Message);
  // K0 itself stopped (a bound on every run, K0's included): K0's failure.
  DiffOptions Slow = O;
  Slow.TimeoutSeconds = 1e-9;
  DiffResult K0 = diffCheck(Slow);
  EXPECT_EQ(K0.Result, Outcome::RuntimeError) << K0.Message;
  EXPECT_EQ(K0.Failed, Blame::K0) << K0.Message;
  EXPECT_EQ(K0.Rep.Body.value("failed", ""), "K0");
  // A spec that is not there: the inputs'.
  DiffOptions Missing = O;
  Missing.Spec = src("test/specs/no-such-spec.json");
  DiffResult In = diffCheck(Missing);
  EXPECT_EQ(In.Result, Outcome::InputError);
  EXPECT_EQ(In.Failed, Blame::Inputs);
  // Any other failure is the candidate's; an interruption nobody's.
  Report D;
  D.Result = Outcome::Divergent;
  D.Message = "divergent: buffer 'out' ...";
  EXPECT_EQ(diffResultOf(D).Failed, Blame::Candidate);
  EXPECT_EQ(diffResultOf(D).Message, D.Message);
  D.Result = Outcome::Interrupted;
  EXPECT_EQ(diffResultOf(D).Failed, Blame::None);
}

// K0's runs kept across checks (a search): the second check of the same K0, spec and seeds runs
// K0 on none of them (the seeds and the four edge shapes), and says what the first said; another
// seed is run and kept.
TEST(DiffCheck, K0RunCacheRunsK0OncePerSeed) {
  DiffOptions O;
  O.K0 = O.K1 = triton("gfx942", "vector_add_fp32");
  O.Spec = src("test/specs/vector_add_fp32.json");
  O.Seeds = {1, 2, 3};
  O.K0Cache = makeK0RunCache();
  std::vector<std::string> Lines;
  O.Progress = [&](const std::string &L) { Lines.push_back(L); };
  Report A = runDiffCheck(O);
  ASSERT_EQ(A.exitCode(), 0) << A.Message;
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(0), uint64_t(7)));
  Lines.clear();
  Report B = runDiffCheck(O);
  EXPECT_EQ(B.Message, A.Message);
  EXPECT_EQ(B.Body["buffers"], A.Body["buffers"]);
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(7), uint64_t(7)));
  EXPECT_EQ(std::count_if(Lines.begin(), Lines.end(),
                          [](const std::string &L) {
                            return L.find("K0 ran") != std::string::npos &&
                                   L.find("(an earlier check's run, reused)") != std::string::npos;
                          }),
            7);
  O.Seeds = {4};
  O.EdgeShapes = false;
  Report C = runDiffCheck(O);
  ASSERT_EQ(C.exitCode(), 0) << C.Message;
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(7), uint64_t(8)));
}

// K0's runs on disk (a search's RUN_DIR/k0-runs): another process's cache on the same folder
// answers every run from the files and says what the first check said; a read-only one writes
// nothing; a damaged file is a miss (K0 runs again), never a wrong reference.
TEST(DiffCheck, K0RunsOnDiskServeAnotherProcess) {
  auto T = TempDir::create("k0-runs");
  ASSERT_TRUE(bool(T));
  std::string Dir = T->file("k0-runs");
  DiffOptions O;
  O.K0 = O.K1 = triton("gfx942", "vector_add_fp32");
  O.Spec = src("test/specs/vector_add_fp32.json");
  O.K0Cache = makeK0RunCache(Dir);
  Report A = runDiffCheck(O);
  ASSERT_EQ(A.exitCode(), 0) << A.Message;
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(0), uint64_t(7)));
  auto files = [&] {
    std::vector<std::string> F;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator I(Dir, EC), E; !EC && I != E; I.increment(EC))
      F.push_back(I->path());
    std::sort(F.begin(), F.end());
    return F;
  };
  std::vector<std::string> Files = files();
  ASSERT_EQ(Files.size(), 7u); // seeds 1-3, four edge shapes
  O.K0Cache = makeK0RunCache(Dir, /*ReadOnly=*/true);
  Report B = runDiffCheck(O);
  EXPECT_EQ(B.Message, A.Message);
  EXPECT_EQ(B.Body["buffers"], A.Body["buffers"]);
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(7), uint64_t(0)));
  // Half a file: not a run; K0 runs again, and the read-only cache leaves the file as it is.
  auto Bytes = readFile(Files[0]);
  ASSERT_TRUE(bool(Bytes));
  std::string Half = (*Bytes)->getBuffer().substr(0, (*Bytes)->getBufferSize() / 2).str();
  ASSERT_FALSE(bool(writeFileAtomic(Files[0], Half)));
  O.K0Cache = makeK0RunCache(Dir, true);
  Report C = runDiffCheck(O);
  EXPECT_EQ(C.Message, A.Message);
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(6), uint64_t(1)));
  EXPECT_EQ(files(), Files);
  auto Again = readFile(Files[0]);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ((*Again)->getBuffer().str(), Half);
  // A run read back is the run written (encodeK0Run/decodeK0Run), and only under its own key.
  RunOut R;
  R.Alloc = {{}, {1, 2, 3}};
  R.WaveInstructions = 42;
  R.Seconds = 0.25;
  R.Checked = true;
  R.Findings = {{"pending-read", 0x1c, {"v_add_f32", "global_load_dword"}, "m"}};
  R.FindingsTotal = 3;
  R.Touched = {std::nullopt, std::pair(uint64_t(4096), uint64_t(4099))};
  auto D = decodeK0Run(encodeK0Run("k", R), "k");
  ASSERT_TRUE(D.has_value());
  EXPECT_EQ(D->Alloc, R.Alloc);
  EXPECT_EQ(D->WaveInstructions, 42u);
  EXPECT_EQ(D->Seconds, 0.25);
  EXPECT_TRUE(D->Checked);
  ASSERT_EQ(D->Findings.size(), 1u);
  EXPECT_EQ(D->Findings[0].Instructions, R.Findings[0].Instructions);
  EXPECT_EQ(D->FindingsTotal, 3u);
  EXPECT_EQ(D->Touched, R.Touched);
  EXPECT_FALSE(decodeK0Run(encodeK0Run("k", R), "other").has_value());
}

// An edge shape K0 cannot be the reference on is left out, with why, and the verdict names the
// shapes checked: the flash attention's tails shrink its strides below its head dimension (64, a
// constexpr), so K0 reads past its input. A search does not run K0 on such a shape again.
TEST(DiffCheck, EdgeShapesWhereK0FailsAreLeftOutOnce) {
  DiffOptions O;
  O.K0 = O.K1 = triton("gfx942", "flash_attn_fwd_fp16");
  O.Spec = src("test/specs/flash_attn_fwd_fp16.json");
  O.K0Cache = makeK0RunCache();
  Report A = runDiffCheck(O);
  ASSERT_EQ(A.exitCode(), 0) << A.Message;
  EXPECT_NE(A.Message.find("equal on seeds 1,2,3 and on edge shape one-workgroup (seed 3), "),
            std::string::npos)
      << A.Message;
  const auto &E = A.Body["edge_shapes"];
  ASSERT_EQ(E.size(), 4u);
  for (int I = 0; I < 3; ++I) {
    EXPECT_EQ(E[I]["checked"], false);
    EXPECT_EQ(
        E[I]["why"].get<std::string>().rfind("K0: K0 reads past '#0' (13568 f16 elements): ", 0),
        0u)
        << E[I];
  }
  EXPECT_EQ(E[3]["checked"], true);
  unsigned Notes = 0;
  for (const std::string &N : A.Notes)
    Notes += N.rfind("edge shape 'tail-", 0) == 0 && N.find(" not checked: K0: ") != N.npos;
  EXPECT_EQ(Notes, 3u);
  // seeds 1-3 and one-workgroup ran K0 (4); the tails failed (not kept as runs)
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(0), uint64_t(4)));
  Report B = runDiffCheck(O);
  EXPECT_EQ(B.Message, A.Message);
  EXPECT_EQ(B.Body["edge_shapes"], A.Body["edge_shapes"]);
  EXPECT_EQ(k0RunCacheCounts(*O.K0Cache), std::make_pair(uint64_t(7), uint64_t(4)));
}

TEST(DiffCheck, DifferentKernelsAreAbiInvalid) {
  DiffOptions O;
  O.K0 = triton("gfx942", "vector_add_fp32");
  O.K1 = triton("gfx942", "softmax_fp32");
  O.Spec = src("test/specs/vector_add_fp32.json");
  Report R = runDiffCheck(O);
  EXPECT_EQ(R.exitCode(), 1);
  EXPECT_STREQ(outcomeName(R.Result), "abi_invalid");
}

} // namespace
