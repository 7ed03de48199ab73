// Triton's FP8 and microscaling (MX) GEMMs on the emulator, against CPU references.
//
// The kernels are test/corpus/triton's matmul_fp8* and mx_* objects, compiled by Triton 3.6:
// - gfx942, OCP fp8 (e4m3fn, e5m2): Triton converts to f16 in software, then f16 MFMAs;
// - gfx942, FNUZ fp8: v_mfma_f32_32x32x16_fp8_fp8 / _bf8_bf8;
// - gfx950, OCP fp8: v_mfma_f32_32x32x64_f8f6f4;
// - gfx950, tl.dot_scaled (MXFP4, MXFP8, MXFP8 x MXFP4 with e8m0 scales):
//   v_mfma_ld_scale_b32 + v_mfma_f32_32x32x64_f8f6f4, the scaled MFMA.
// Inputs are decoded for the references without the emulator's code: fp8 and e8m0 through
// PyTorch's own tables (TorchTables.h), fp4 (e2m1) by the OCP MX formula written out below.
// Two kinds of input per shape and seed:
// - random codes over every finite value of the format: checked within an fp32 summation bound
//   (bf16 outputs: also one bf16 rounding);
// - one-hot: B (or A) is a permutation-like 0/1 matrix, so every output is one input element
//   times its scales, exactly, and is checked bit for bit. Between them every code of A and B
//   is decoded by the kernel and compared exactly.
#include "EmuHarness.h"
#include "support/TorchTables.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

constexpr std::array<uint32_t, 3> kBlock{256, 1, 1};

// An element format and how the reference decodes its codes.
struct Format {
  std::string Name; // "e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz" (a torch table) or "e2m1"
  std::array<float, 256> Value{};
  std::vector<uint8_t> Finite; // the codes with a finite value
  uint8_t One = 0;             // the code of 1.0
  uint8_t Zero = 0;
  bool Fp4() const { return Name == "e2m1"; }

  explicit Format(std::string N) : Name(std::move(N)) {
    if (Fp4()) {
      // OCP MX e2m1: sign bit 3, exponent bits 2..1 (bias 1), mantissa bit 0; no NaN or Inf.
      static const float Mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
      for (unsigned C = 0; C < 16; ++C)
        Value[C] = (C & 8) ? -Mag[C & 7] : Mag[C & 7];
      for (unsigned C = 0; C < 16; ++C)
        Finite.push_back(uint8_t(C));
    } else {
      Value = torchDecode(Name);
      for (unsigned C = 0; C < 256; ++C)
        if (std::isfinite(Value[C]))
          Finite.push_back(uint8_t(C));
    }
    for (uint8_t C : Finite) {
      if (Value[C] == 1.0f)
        One = C;
      if (Value[C] == 0.0f && !std::signbit(Value[C]))
        Zero = C;
    }
  }
};

// A logical [Rows, K] matrix of codes along K, stored as bytes: one code per byte, or for fp4
// two per byte (element 2j in the low nibble of byte j, 2j + 1 in the high nibble).
struct Packed {
  uint32_t Rows, K;
  bool Fp4;
  std::vector<uint8_t> Codes; // [Rows][K], one code each
  uint32_t rowBytes() const { return Fp4 ? K / 2 : K; }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> B(size_t(Rows) * rowBytes(), 0);
    for (uint32_t R = 0; R < Rows; ++R)
      for (uint32_t Kk = 0; Kk < K; ++Kk) {
        uint8_t C = Codes[size_t(R) * K + Kk];
        if (Fp4)
          B[size_t(R) * rowBytes() + Kk / 2] |= uint8_t(C << (4 * (Kk % 2)));
        else
          B[size_t(R) * rowBytes() + Kk] = C;
      }
    return B;
  }
};

enum class Fill { Random, OneHotA, OneHotB };

const char *fillName(Fill F) {
  return F == Fill::Random ? "random" : F == Fill::OneHotA ? "one-hot A" : "one-hot B";
}

// Codes for an operand [Rows][K]: random finite codes, or one-hot rows (row R has 1.0 at
// column (R + Shift) % K and zeros elsewhere).
std::vector<uint8_t> makeCodes(std::mt19937_64 &R, const Format &F, uint32_t Rows, uint32_t K,
                               bool OneHot, uint32_t Shift) {
  std::vector<uint8_t> C(size_t(Rows) * K);
  std::uniform_int_distribution<size_t> D(0, F.Finite.size() - 1);
  for (uint32_t I = 0; I < Rows; ++I)
    for (uint32_t Kk = 0; Kk < K; ++Kk)
      C[size_t(I) * K + Kk] = OneHot ? ((I + Shift) % K == Kk ? F.One : F.Zero) : F.Finite[D(R)];
  return C;
}

// Reads C (f32 or bf16, row stride N) and compares it with Ref: bit-exact where Exact, else
// within fp32 summation error over K terms of absolute sum Abs (plus one bf16 rounding).
void compare(const std::vector<double> &Ref, const std::vector<double> &Abs,
             const std::vector<uint32_t> &Got, uint32_t M, uint32_t N, uint32_t K, bool Bf16,
             bool Exact) {
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      double R = Ref[size_t(I) * N + J];
      double G = bitsToF32(Got[size_t(I) * N + J]);
      if (Exact) {
        ASSERT_EQ(G, R) << "C[" << I << "][" << J << "]";
        continue;
      }
      double Tol = double(K) * std::ldexp(1.0, -24) * Abs[size_t(I) * N + J];
      if (Bf16)
        Tol += std::ldexp(std::fabs(R), -8); // half an ulp of bf16, relative
      ASSERT_NEAR(G, R, Tol) << "C[" << I << "][" << J << "]";
    }
}

// ---- FP8 GEMM: matmul_kernel with fp8 A [M, K] and B [K, N], both row-major. --------------

struct Fp8Case {
  const char *Arch, *Name, *Fmt;
  bool Bf16Out;
};

class TritonFp8 : public ::testing::TestWithParam<Fp8Case> {};

TEST_P(TritonFp8, MatchesReference) {
  const Fp8Case &P = GetParam();
  Format F(P.Fmt);
  ASSERT_EQ(F.Value[F.One], 1.0f);
  for (uint64_t Seed : testSeeds())
    for (Fill Mode : {Fill::Random, Fill::OneHotA, Fill::OneHotB})
      for (auto [M, N, K] : {std::array<uint32_t, 3>{64, 64, 64}, {80, 48, 96}, {128, 64, 128}}) {
        SCOPED_TRACE("seed " + std::to_string(Seed) + " " + fillName(Mode) + " M,N,K " +
                     std::to_string(M) + "," + std::to_string(N) + "," + std::to_string(K));
        Harness H(tritonObject(P.Arch, P.Name));
        ASSERT_TRUE(H.ok()) << H.Error;
        std::mt19937_64 R(Seed);
        uint32_t Shift = uint32_t(R() % K);
        auto A = makeCodes(R, F, M, K, Mode == Fill::OneHotA, Shift);
        // B is [K, N]; one-hot over columns: B[k][j] = 1 where k == (j + Shift) % K.
        auto Bt = makeCodes(R, F, N, K, Mode == Fill::OneHotB, Shift);
        std::vector<uint8_t> B(size_t(K) * N);
        for (uint32_t J = 0; J < N; ++J)
          for (uint32_t Kk = 0; Kk < K; ++Kk)
            B[size_t(Kk) * N + J] = Bt[size_t(J) * K + Kk];
        uint64_t PA = H.buffer(A), PB = H.buffer(B);
        uint64_t PC = H.buffer(nullptr, size_t(M) * N * (P.Bf16Out ? 2 : 4));
        setMatmulArgs(H, PA, PB, PC, M, N, K);
        RUN_OR_FAIL(H, {cdiv(M, 64) * cdiv(N, 64), 1, 1}, kBlock, 4096, Seed);
        std::vector<uint32_t> Got(size_t(M) * N);
        if (P.Bf16Out) {
          auto C16 = H.read<uint16_t>(PC, size_t(M) * N);
          for (size_t I = 0; I < Got.size(); ++I)
            Got[I] = uint32_t(C16[I]) << 16;
        } else {
          Got = H.read<uint32_t>(PC, size_t(M) * N);
        }
        std::vector<double> Ref(size_t(M) * N), Abs(size_t(M) * N);
        for (uint32_t I = 0; I < M; ++I)
          for (uint32_t J = 0; J < N; ++J)
            for (uint32_t Kk = 0; Kk < K; ++Kk) {
              double X = double(F.Value[A[size_t(I) * K + Kk]]) * F.Value[B[size_t(Kk) * N + J]];
              Ref[size_t(I) * N + J] += X;
              Abs[size_t(I) * N + J] += std::fabs(X);
            }
        compare(Ref, Abs, Got, M, N, K, P.Bf16Out, Mode != Fill::Random);
      }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, TritonFp8,
    ::testing::Values(Fp8Case{"gfx942", "matmul_fp8e4m3_f32", "e4m3fn", false},
                      Fp8Case{"gfx942", "matmul_fp8e5m2_bf16", "e5m2", true},
                      Fp8Case{"gfx942", "matmul_fp8e4m3fnuz_f32", "e4m3fnuz", false},
                      Fp8Case{"gfx942", "matmul_fp8e5m2fnuz_bf16", "e5m2fnuz", true},
                      Fp8Case{"gfx950", "matmul_fp8e4m3_f32", "e4m3fn", false},
                      Fp8Case{"gfx950", "matmul_fp8e5m2_bf16", "e5m2", true}),
    [](const auto &I) { return std::string(I.param.Arch) + "_" + I.param.Name; });

// ---- The same fp8 GEMM as PyTorch on the device machine's H200 ------------------------------
// test/corpus/fp8-tables/scaled_mm_e4m3fn_e4m3fn.txt: A [16, 128] and B [128, 16] float8_e4m3fn,
// torch._scaled_mm's fp32 result on the GPU and the exact sums (Fraction, then float64). The
// emulated kernels must give the exact sums within fp32 summation error. The H200's result is
// further off (a median relative error near 1e-4, up to 1.3%: Hopper's fp8 tensor cores keep
// about 14 bits while accumulating), so against it the bound is 2^-10 of the absolute sum.
struct ScaledMm {
  uint32_t M = 0, K = 0, N = 0;
  std::vector<uint8_t> A, B;
  std::vector<float> Torch;
  std::vector<double> Exact;
};

ScaledMm readScaledMm(const std::string &Name) {
  ScaledMm S;
  std::ifstream In(torchTablePath(Name));
  EXPECT_TRUE(In.good()) << torchTablePath(Name);
  std::string Line, Section;
  auto bytes = [](const std::string &L, std::vector<uint8_t> &Out) {
    for (size_t I = 0; I + 1 < L.size(); I += 2)
      Out.push_back(uint8_t(std::stoul(L.substr(I, 2), nullptr, 16)));
  };
  while (std::getline(In, Line)) {
    if (Line.empty() || Line[0] == '#')
      continue;
    if (Line[0] == '[') {
      Section = Line.substr(0, Line.find(']') + 1);
      continue;
    }
    std::stringstream W(Line);
    std::string X;
    if (Section == "[A]") {
      bytes(Line, S.A);
      S.K = uint32_t(Line.size() / 2);
      ++S.M;
    } else if (Section == "[B]") {
      bytes(Line, S.B);
      S.N = uint32_t(Line.size() / 2);
    } else if (Section.rfind("[C out_dtype=float32 use_fast_accum=False]", 0) == 0) {
      while (W >> X)
        S.Torch.push_back(bitsToF32(parseHex(X)));
    } else if (Section == "[C_ref64]") {
      while (W >> X)
        S.Exact.push_back(std::stod(X));
    }
  }
  return S;
}

TEST(TritonFp8VsTorch, MatchesScaledMmOnTheDeviceMachine) {
  ScaledMm S = readScaledMm("scaled_mm_e4m3fn_e4m3fn.txt");
  ASSERT_EQ(S.M, 16u);
  ASSERT_EQ(S.K, 128u);
  ASSERT_EQ(S.N, 16u);
  ASSERT_EQ(S.B.size(), size_t(S.K) * S.N);
  ASSERT_EQ(S.Torch.size(), size_t(S.M) * S.N);
  ASSERT_EQ(S.Exact.size(), size_t(S.M) * S.N);
  Format F("e4m3fn");
  std::vector<double> Abs(size_t(S.M) * S.N);
  for (uint32_t I = 0; I < S.M; ++I)
    for (uint32_t J = 0; J < S.N; ++J) {
      double Sum = 0;
      for (uint32_t Kk = 0; Kk < S.K; ++Kk) {
        double X = double(F.Value[S.A[size_t(I) * S.K + Kk]]) * F.Value[S.B[size_t(Kk) * S.N + J]];
        Sum += X;
        Abs[size_t(I) * S.N + J] += std::fabs(X);
      }
      // The table decodes the inputs as torch does; the exact sums must agree with them.
      ASSERT_EQ(Sum, S.Exact[size_t(I) * S.N + J]) << "C_ref64[" << I << "][" << J << "]";
    }
  for (const char *Arch : {"gfx942", "gfx950"}) {
    SCOPED_TRACE(Arch);
    Harness H(tritonObject(Arch, "matmul_fp8e4m3_f32"));
    ASSERT_TRUE(H.ok()) << H.Error;
    uint64_t PA = H.buffer(S.A), PB = H.buffer(S.B), PC = H.buffer(nullptr, size_t(S.M) * S.N * 4);
    setMatmulArgs(H, PA, PB, PC, S.M, S.N, S.K);
    RUN_OR_FAIL(H, {1, 1, 1}, kBlock, 4096, 1);
    auto C = H.read<uint32_t>(PC, size_t(S.M) * S.N);
    double WorstVsTorch = 0;
    for (size_t E = 0; E < C.size(); ++E) {
      double G = bitsToF32(C[E]);
      EXPECT_NEAR(G, S.Exact[E], double(S.K) * std::ldexp(1.0, -24) * Abs[E]) << "element " << E;
      EXPECT_NEAR(G, S.Torch[E], std::ldexp(Abs[E], -10)) << "element " << E;
      WorstVsTorch = std::max(WorstVsTorch, std::fabs(G - S.Torch[E]) / Abs[E]);
    }
    std::printf("%s: largest |emulated - torch(H200)| / sum|A*B| = %.3g\n", Arch, WorstVsTorch);
  }
}

// ---- MX GEMM: tl.dot_scaled with e8m0 scales per 32 elements of K. --------------------------
// A [M, K] and B stored as [N, K] (K contiguous, fp4 packed two per byte), scales [M, K/32] and
// [N, K/32]; C [M, N] f32 = sum_k A[i,k] 2^(sa[i,k/32]-127) B[j,k] 2^(sb[j,k/32]-127).

struct MxCase {
  const char *Name, *AFmt, *BFmt;
  bool Tile;    // mx_dot_tile_kernel: one 64x64x128 tile, out row stride 64, no M/N/K arguments
  uint32_t Lds; // Triton's shared-memory size (MANIFEST.tsv), passed as dynamic LDS
};

class TritonMx : public ::testing::TestWithParam<MxCase> {};

TEST_P(TritonMx, MatchesReference) {
  const MxCase &P = GetParam();
  Format FA(P.AFmt), FB(P.BFmt);
  auto Scale = torchDecode("e8m0fnu");
  std::vector<std::array<uint32_t, 3>> Shapes = {{64, 64, 128}};
  if (!P.Tile)
    Shapes = {{64, 64, 128}, {80, 48, 256}, {128, 64, 128}};
  for (uint64_t Seed : testSeeds())
    for (Fill Mode : {Fill::Random, Fill::OneHotA, Fill::OneHotB})
      for (auto [M, N, K] : Shapes) {
        SCOPED_TRACE("seed " + std::to_string(Seed) + " " + fillName(Mode) + " M,N,K " +
                     std::to_string(M) + "," + std::to_string(N) + "," + std::to_string(K));
        Harness H(tritonObject("gfx950", P.Name));
        ASSERT_TRUE(H.ok()) << H.Error;
        std::mt19937_64 R(Seed);
        uint32_t Shift = uint32_t(R() % K);
        Packed A{M, K, FA.Fp4(), makeCodes(R, FA, M, K, Mode == Fill::OneHotA, Shift)};
        Packed B{N, K, FB.Fp4(), makeCodes(R, FB, N, K, Mode == Fill::OneHotB, Shift)};
        // Scales 2^-6 .. 2^6 (codes 121..133), so that no product leaves f32's normal range.
        uint32_t SK = K / 32;
        std::vector<uint8_t> SA(size_t(M) * SK), SB(size_t(N) * SK);
        for (auto &S : SA)
          S = uint8_t(121 + R() % 13);
        for (auto &S : SB)
          S = uint8_t(121 + R() % 13);
        uint64_t PA = H.buffer(A.bytes()), PSA = H.buffer(SA), PB = H.buffer(B.bytes()),
                 PSB = H.buffer(SB), PC = H.buffer(nullptr, size_t(M) * N * 4);
        H.arg(0, PA);
        H.arg(1, PSA);
        H.arg(2, PB);
        H.arg(3, PSB);
        H.arg(4, PC);
        if (P.Tile) {
          H.arg(5, int32_t(A.rowBytes()));
          H.arg(6, int32_t(B.rowBytes()));
          H.arg(7, uint64_t(0));
          H.arg(8, uint64_t(0));
        } else {
          H.arg(5, int32_t(M));
          H.arg(6, int32_t(N));
          H.arg(7, int32_t(K));
          H.arg(8, int32_t(A.rowBytes()));
          H.arg(9, int32_t(B.rowBytes()));
          H.arg(10, int32_t(SK));
          H.arg(11, int32_t(SK));
          H.arg(12, int32_t(N));
          H.arg(13, uint64_t(0));
          H.arg(14, uint64_t(0));
        }
        RUN_OR_FAIL(H, {cdiv(M, 64) * cdiv(N, 64), 1, 1}, kBlock, P.Lds, Seed);
        auto Got = H.read<uint32_t>(PC, size_t(M) * N);
        std::vector<double> Ref(size_t(M) * N), Abs(size_t(M) * N);
        for (uint32_t I = 0; I < M; ++I)
          for (uint32_t J = 0; J < N; ++J)
            for (uint32_t Kk = 0; Kk < K; ++Kk) {
              double X = double(FA.Value[A.Codes[size_t(I) * K + Kk]]) *
                         Scale[SA[size_t(I) * SK + Kk / 32]] *
                         FB.Value[B.Codes[size_t(J) * K + Kk]] *
                         Scale[SB[size_t(J) * SK + Kk / 32]];
              Ref[size_t(I) * N + J] += X;
              Abs[size_t(I) * N + J] += std::fabs(X);
            }
        compare(Ref, Abs, Got, M, N, K, false, Mode != Fill::Random);
      }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, TritonMx,
    ::testing::Values(MxCase{"mx_matmul_mxfp4", "e2m1", "e2m1", false, 4096},
                      MxCase{"mx_matmul_mxfp8", "e4m3fn", "e4m3fn", false, 8192},
                      MxCase{"mx_matmul_mxfp8_mxfp4", "e4m3fn", "e2m1", false, 8192},
                      MxCase{"mx_dot_tile_mxfp4", "e2m1", "e2m1", true, 4096},
                      MxCase{"mx_dot_tile_mxfp8", "e4m3fn", "e4m3fn", true, 8192}),
    [](const auto &I) { return std::string(I.param.Name); });

} // namespace
