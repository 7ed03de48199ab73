// The serving stacks' Triton families the paper measures (issue 41) on the emulator, against CPU
// references computed here in double precision from the same inputs:
// - w8a8_block_fp8_matmul_kernel: fp8 A [M, K] (per-token, per-128-column scales) times fp8
//   B [N, K] (per 128x128 block scales), bf16 C; gfx942 (e4m3fnuz, fp8 MFMAs) and gfx950
//   (OCP e4m3fn). Codes are decoded through PyTorch's own tables (TorchTables.h).
// - awq_gemm_kernel: fp16 A times AWQ-packed int4 weights (zeros and fp16 scales per group of
//   128 rows of K, AWQ's nibble order), split K: every one of the 8 slices is checked against
//   the K blocks it owns.
// - moe_lora_shrink_kernel: routed (token, k) pairs times their adapter's LoRA A matrix of
//   their expert, with an empty adapter slot and skipped padding blocks.
// Output buffers are poisoned (0xff) first, so an element the kernel fails to write fails.
#include "EmuHarness.h"
#include "support/TorchTables.h"

#include <cmath>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

constexpr std::array<uint32_t, 3> kBlock{256, 1, 1};

double ulp16(double X) {
  double A = std::fabs(X);
  if (A < 6.103515625e-05)
    return 5.960464477539063e-08;
  return std::ldexp(1.0, std::ilogb(A) - 10);
}

// ---- W8A8 block-scale fp8 GEMM ------------------------------------------------------------

struct W8a8Case {
  const char *Arch, *Name, *Fmt;
};
void PrintTo(const W8a8Case &C, std::ostream *OS) { *OS << C.Arch << " " << C.Name; }

class TritonW8a8 : public ::testing::TestWithParam<W8a8Case> {};

TEST_P(TritonW8a8, MatchesBlockScaledReference) {
  const W8a8Case &P = GetParam();
  std::array<float, 256> Val = torchDecode(P.Fmt);
  std::vector<uint8_t> Finite;
  for (unsigned C = 0; C < 256; ++C)
    if (std::isfinite(Val[C]))
      Finite.push_back(uint8_t(C));
  for (uint64_t Seed : testSeeds())
    for (auto [M, N, K] : {std::array<uint32_t, 3>{80, 160, 384}, {64, 128, 128}, {16, 256, 256}}) {
      SCOPED_TRACE(std::string(P.Arch) + " seed " + std::to_string(Seed) + " M,N,K " +
                   std::to_string(M) + "," + std::to_string(N) + "," + std::to_string(K));
      Harness H(tritonObject(P.Arch, P.Name));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      std::uniform_int_distribution<size_t> D(0, Finite.size() - 1);
      uint32_t KB = cdiv(K, 128), NB = cdiv(N, 128);
      std::vector<uint8_t> A(size_t(M) * K), B(size_t(N) * K);
      for (auto &C : A)
        C = Finite[D(R)];
      for (auto &C : B)
        C = Finite[D(R)];
      auto As = randomFloats(R, size_t(M) * KB, 0.001f, 0.01f);
      auto Bs = randomFloats(R, size_t(NB) * KB, 0.001f, 0.01f);
      uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = H.buffer(nullptr, size_t(M) * N * 2),
               PAs = H.buffer(As), PBs = H.buffer(Bs);
      H.arg(0, PA);
      H.arg(1, PB);
      H.arg(2, PC);
      H.arg(3, PAs);
      H.arg(4, PBs);
      H.arg(5, int32_t(M));
      H.arg(6, int32_t(N));
      H.arg(7, int32_t(K));
      H.arg(8, int32_t(K)); // stride_am
      H.arg(9, int32_t(K)); // stride_bn
      H.arg(10, int32_t(N));
      H.arg(11, int32_t(KB)); // stride_as_m
      H.arg(12, int32_t(KB)); // stride_bs_n
      H.arg(13, uint64_t(0));
      H.arg(14, uint64_t(0));
      RUN_OR_FAIL(H, {cdiv(M, 64) * cdiv(N, 128), 1, 1}, kBlock, 24576, Seed);
      auto C = H.read<uint16_t>(PC, size_t(M) * N);
      for (uint32_t I = 0; I < M; ++I)
        for (uint32_t J = 0; J < N; ++J) {
          double Ref = 0, Abs = 0;
          for (uint32_t Kb = 0; Kb < KB; ++Kb) {
            double Dot = 0, DotAbs = 0;
            for (uint32_t Kk = Kb * 128; Kk < std::min(K, Kb * 128 + 128); ++Kk) {
              double X = double(Val[A[size_t(I) * K + Kk]]) * Val[B[size_t(J) * K + Kk]];
              Dot += X;
              DotAbs += std::fabs(X);
            }
            double S = double(As[size_t(I) * KB + Kb]) * Bs[size_t(J / 128) * KB + Kb];
            Ref += Dot * S;
            Abs += DotAbs * S;
          }
          // fp32 sums of 128 products per block, two fp32 scalings, fp32 sum over blocks, one
          // bf16 rounding of the result
          double Tol =
              double(K + 4 * KB) * std::ldexp(1.0, -24) * Abs + std::ldexp(std::fabs(Ref), -8);
          ASSERT_NEAR(bf16ToF32(C[size_t(I) * N + J]), Ref, Tol) << "C[" << I << "][" << J << "]";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, TritonW8a8,
                         ::testing::Values(W8a8Case{"gfx942", "w8a8_block_fp8e4m3fnuz_bf16",
                                                    "e4m3fnuz"},
                                           W8a8Case{"gfx950", "w8a8_block_fp8e4m3_bf16", "e4m3fn"}),
                         [](const auto &I) { return std::string(I.param.Arch); });

// ---- AWQ int4 GEMM, split K -----------------------------------------------------------------

class TritonSplit : public ::testing::TestWithParam<const char *> {
protected:
  std::string arch() const { return GetParam(); }
};

// AWQ's packing: logical column 8c + j sits in nibble j / 2 + (j % 2) * 4 of word c.
uint32_t awqNibble(const std::vector<uint32_t> &Words, uint32_t Row, uint32_t Col, uint32_t N) {
  uint32_t J = Col % 8, P = J / 2 + (J % 2) * 4;
  return (Words[size_t(Row) * (N / 8) + Col / 8] >> (4 * P)) & 0xF;
}

TEST_P(TritonSplit, AwqGemm) {
  const uint32_t G = 128, SplitK = 8, BK = 32;
  for (uint64_t Seed : testSeeds())
    for (auto [M, N, K] : {std::array<uint32_t, 3>{40, 128, 512}, {1, 64, 256}, {33, 192, 256}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " M,N,K " + std::to_string(M) + "," +
                   std::to_string(N) + "," + std::to_string(K));
      Harness H(tritonObject(arch(), "awq_gemm_fp16"));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      auto A = toF16(randomFloats(R, size_t(M) * K, -1, 1));
      std::vector<uint32_t> Q(size_t(K) * N / 8), Z(size_t(K / G) * N / 8);
      for (auto &W : Q)
        W = uint32_t(R());
      for (auto &W : Z)
        W = uint32_t(R());
      auto S = toF16(randomFloats(R, size_t(K / G) * N, 0.001f, 0.02f));
      uint64_t PA = H.buffer(A), PQ = H.buffer(Q), PZ = H.buffer(Z), PS = H.buffer(S),
               PC = H.buffer(nullptr, size_t(SplitK) * M * N * 2);
      H.arg(0, PA);
      H.arg(1, PQ);
      H.arg(2, PZ);
      H.arg(3, PS);
      H.arg(4, PC);
      H.arg(5, int32_t(M));
      H.arg(6, int32_t(N));
      H.arg(7, int32_t(K));
      H.arg(8, int32_t(K)); // stride_am
      H.arg(9, uint64_t(0));
      H.arg(10, uint64_t(0));
      RUN_OR_FAIL(H, {cdiv(M, 32) * cdiv(N, 64), SplitK, 1}, kBlock, 6144, Seed);
      auto C = H.read<uint16_t>(PC, size_t(SplitK) * M * N);
      // The dequantised weight, one fp16 rounding of (q - z) * s.
      std::vector<double> W(size_t(K) * N);
      for (uint32_t Kk = 0; Kk < K; ++Kk)
        for (uint32_t J = 0; J < N; ++J) {
          int D = int(awqNibble(Q, Kk, J, N)) - int(awqNibble(Z, Kk / G, J, N));
          W[size_t(Kk) * N + J] = f16ToF32(f32ToF16(float(D) * f16ToF32(S[(Kk / G) * N + J])));
        }
      for (uint32_t Zs = 0; Zs < SplitK; ++Zs)
        for (uint32_t I = 0; I < M; ++I)
          for (uint32_t J = 0; J < N; ++J) {
            double Ref = 0, Abs = 0;
            for (uint32_t Kb = Zs * BK; Kb < K; Kb += SplitK * BK)
              for (uint32_t Kk = Kb; Kk < Kb + BK; ++Kk) {
                double X = double(f16ToF32(A[size_t(I) * K + Kk])) * W[size_t(Kk) * N + J];
                Ref += X;
                Abs += std::fabs(X);
              }
            double Tol = 1.01 * ulp16(Ref) + double(K) * std::ldexp(1.0, -24) * Abs;
            ASSERT_NEAR(f16ToF32(C[(size_t(Zs) * M + I) * N + J]), Ref, Tol)
                << "C[" << Zs << "][" << I << "][" << J << "]";
          }
    }
}

// ---- MoE-LoRA shrink ------------------------------------------------------------------------

TEST_P(TritonSplit, MoeLoraShrink) {
  const uint32_t TopK = 2, BlockM = 32, Rank = 16, Slots = 3;
  for (uint64_t Seed : testSeeds())
    for (auto [Tokens, E, K] : {std::array<uint32_t, 3>{12, 3, 128}, {5, 2, 96}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " tokens " + std::to_string(Tokens) +
                   " experts " + std::to_string(E) + " K " + std::to_string(K));
      Harness H(tritonObject(arch(), "moe_lora_shrink_fp16"));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      uint32_t Valid = Tokens * TopK;
      auto X = toF16(randomFloats(R, size_t(Tokens) * K, -1, 1));
      // Slots 0 and 1 hold adapters 1 and 0; slot 2 is empty (adapter -1).
      std::vector<int32_t> LoraOfSlot = {1, 0, -1};
      auto La = toF16(randomFloats(R, size_t(2) * E * Rank * K, -1, 1));
      std::vector<uint32_t> SlotOf(Tokens), ExpertOf(Valid);
      for (uint32_t T = 0; T < Tokens; ++T) {
        SlotOf[T] = uint32_t(R() % 2);
        uint32_t E0 = uint32_t(R() % E), E1 = (E0 + 1 + uint32_t(R() % (E - 1))) % E;
        ExpertOf[T * TopK] = E0;
        ExpertOf[T * TopK + 1] = E1;
      }
      // Per slot: its pairs sorted by expert, each group padded to BlockM; then every slot
      // padded to one EM with blocks of expert -1.
      std::vector<std::vector<int32_t>> Ids(Slots), Blocks(Slots);
      for (uint32_t S = 0; S < Slots; ++S)
        for (uint32_t Ex = 0; Ex < E; ++Ex) {
          std::vector<int32_t> G;
          for (uint32_t P = 0; P < Valid; ++P)
            if (SlotOf[P / TopK] == S && LoraOfSlot[S] >= 0 && ExpertOf[P] == Ex)
              G.push_back(int32_t(P));
          if (G.empty())
            continue;
          while (G.size() % BlockM)
            G.push_back(int32_t(Valid));
          Ids[S].insert(Ids[S].end(), G.begin(), G.end());
          Blocks[S].insert(Blocks[S].end(), G.size() / BlockM, int32_t(Ex));
        }
      size_t EM = BlockM;
      for (auto &V : Ids)
        EM = std::max(EM, V.size());
      std::vector<int32_t> Sorted, BlockExpert, PostPadded;
      for (uint32_t S = 0; S < Slots; ++S) {
        PostPadded.push_back(int32_t(Ids[S].size()));
        Ids[S].resize(EM, int32_t(Valid));
        Blocks[S].resize(EM / BlockM, -1);
        Sorted.insert(Sorted.end(), Ids[S].begin(), Ids[S].end());
        BlockExpert.insert(BlockExpert.end(), Blocks[S].begin(), Blocks[S].end());
      }
      uint64_t PX = H.buffer(X), PL = H.buffer(La),
               PO = H.buffer(nullptr, size_t(Valid) * Rank * 2), PS = H.buffer(Sorted),
               PE = H.buffer(BlockExpert), PP = H.buffer(PostPadded), PI = H.buffer(LoraOfSlot);
      H.arg(0, PX);
      H.arg(1, PL);
      H.arg(2, PO);
      H.arg(3, PS);
      H.arg(4, PE);
      H.arg(5, PP);
      H.arg(6, PI);
      H.arg(7, int32_t(Rank));
      H.arg(8, int32_t(K));
      H.arg(9, int32_t(EM));
      H.arg(10, int32_t(Valid));
      H.arg(11, int32_t(K));            // stride_xm
      H.arg(12, int32_t(E * Rank * K)); // stride_al
      H.arg(13, int32_t(Rank * K));     // stride_ae
      H.arg(14, int32_t(K));            // stride_ar
      H.arg(15, int32_t(Rank));         // stride_om
      H.arg(16, uint64_t(0));
      H.arg(17, uint64_t(0));
      RUN_OR_FAIL(H, {uint32_t(EM / BlockM) * cdiv(Rank, 16), Slots, 1}, kBlock, 6144, Seed);
      auto O = H.read<uint16_t>(PO, size_t(Valid) * Rank);
      for (uint32_t P = 0; P < Valid; ++P)
        for (uint32_t Rr = 0; Rr < Rank; ++Rr) {
          int32_t L = LoraOfSlot[SlotOf[P / TopK]];
          double Ref = 0, Abs = 0;
          for (uint32_t Kk = 0; Kk < K; ++Kk) {
            double V = double(f16ToF32(X[size_t(P / TopK) * K + Kk])) *
                       f16ToF32(La[((size_t(L) * E + ExpertOf[P]) * Rank + Rr) * K + Kk]);
            Ref += V;
            Abs += std::fabs(V);
          }
          double Tol = 1.01 * ulp16(Ref) + double(K) * std::ldexp(1.0, -24) * Abs;
          ASSERT_NEAR(f16ToF32(O[size_t(P) * Rank + Rr]), Ref, Tol)
              << "out[" << P << "][" << Rr << "]";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, TritonSplit, ::testing::Values("gfx90a", "gfx942", "gfx950"),
                         [](const auto &I) { return std::string(I.param); });

} // namespace
