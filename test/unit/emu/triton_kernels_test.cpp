// The Triton corpus on the emulator: every kernel, on gfx90a, gfx942 and gfx950, over several
// shapes (partial tiles and masked tails included) and seeds, against CPU references computed
// here in double precision from the same (rounded) inputs. Output buffers are poisoned first,
// so an element the kernel fails to write fails the test, and elements it must not write are
// checked to keep the poison.
#include "EmuHarness.h"

#include <cmath>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

class Triton : public ::testing::TestWithParam<const char *> {
protected:
  std::string arch() const { return GetParam(); }
};

constexpr std::array<uint32_t, 3> kBlock{256, 1, 1};

uint32_t roundUp(uint32_t A, uint32_t B) { return cdiv(A, B) * B; }

// One unit in the last place of an fp16 / bf16 value near X.
double ulp16(double X) {
  double A = std::fabs(X);
  if (A < 6.103515625e-05)
    return 5.960464477539063e-08;
  return std::ldexp(1.0, std::ilogb(A) - 10);
}
double ulpBf16(double X) {
  double A = std::fabs(X);
  if (A < 1.1754943508222875e-38)
    return 1e-40;
  return std::ldexp(1.0, std::ilogb(A) - 7);
}

TEST_P(Triton, VectorAdd) {
  for (uint64_t Seed : testSeeds())
    for (uint32_t N : {1u, 1000u, 4096u, 5000u}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " n " + std::to_string(N));
      Harness H(tritonObject(arch(), "vector_add_fp32"));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      auto X = randomFloats(R, N, -100, 100), Y = randomFloats(R, N, -100, 100);
      uint32_t Padded = roundUp(N, 1024);
      uint64_t PX = H.buffer(X), PY = H.buffer(Y), PO = H.buffer(nullptr, Padded * 4);
      H.arg(0, PX);
      H.arg(1, PY);
      H.arg(2, PO);
      H.arg(3, int32_t(N));
      H.arg(4, uint64_t(0));
      H.arg(5, uint64_t(0));
      RUN_OR_FAIL(H, {cdiv(N, 1024), 1, 1}, kBlock, 0, Seed);
      auto Out = H.read<uint32_t>(PO, Padded);
      for (uint32_t I = 0; I < N; ++I)
        ASSERT_EQ(bitsToF32(Out[I]), X[I] + Y[I]) << "element " << I;
      for (uint32_t I = N; I < Padded; ++I)
        ASSERT_EQ(Out[I], 0xffffffffu) << "masked element " << I << " was written";
    }
}

TEST_P(Triton, Softmax) {
  for (uint64_t Seed : testSeeds())
    for (auto [Rows, Cols] : {std::pair{1u, 1u}, {3u, 100u}, {2u, 1000u}, {2u, 1024u}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " " + std::to_string(Rows) + "x" +
                   std::to_string(Cols));
      Harness H(tritonObject(arch(), "softmax_fp32"));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      uint32_t InStride = roundUp(Cols + 5, 16), OutStride = roundUp(Cols, 16);
      auto In = randomFloats(R, Rows * InStride, -8, 8);
      uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, Rows * OutStride * 4);
      H.arg(0, PO);
      H.arg(1, PI);
      H.arg(2, int32_t(InStride));
      H.arg(3, int32_t(OutStride));
      H.arg(4, int32_t(Cols));
      H.arg(5, uint64_t(0));
      H.arg(6, uint64_t(0));
      RUN_OR_FAIL(H, {Rows, 1, 1}, kBlock, 16, Seed);
      auto Out = H.read<uint32_t>(PO, Rows * OutStride);
      for (uint32_t Rw = 0; Rw < Rows; ++Rw) {
        double Mx = -INFINITY, Sum = 0;
        for (uint32_t C = 0; C < Cols; ++C)
          Mx = std::max(Mx, double(In[Rw * InStride + C]));
        for (uint32_t C = 0; C < Cols; ++C)
          Sum += std::exp(double(In[Rw * InStride + C]) - Mx);
        for (uint32_t C = 0; C < OutStride; ++C) {
          uint32_t Got = Out[Rw * OutStride + C];
          if (C >= Cols) {
            ASSERT_EQ(Got, 0xffffffffu) << "row " << Rw << " col " << C << " was written";
            continue;
          }
          double Ref = std::exp(double(In[Rw * InStride + C]) - Mx) / Sum;
          ASSERT_NEAR(bitsToF32(Got), Ref, 1e-6 + 1e-5 * Ref) << "row " << Rw << " col " << C;
        }
      }
    }
}

TEST_P(Triton, LayerNorm) {
  for (uint64_t Seed : testSeeds())
    for (auto [Rows, N] : {std::pair{2u, 64u}, {3u, 1000u}, {2u, 1536u}, {1u, 2048u}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " " + std::to_string(Rows) + "x" +
                   std::to_string(N));
      Harness H(tritonObject(arch(), "layernorm_fwd_fp16"));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      uint32_t Stride = roundUp(N + 7, 16);
      auto X = toF16(randomFloats(R, Rows * Stride, -3, 5));
      auto W = toF16(randomFloats(R, N, 0.5f, 1.5f)), B = toF16(randomFloats(R, N, -1, 1));
      float Eps = 1e-5f;
      uint64_t PX = H.buffer(X), PY = H.buffer(nullptr, Rows * Stride * 2), PW = H.buffer(W),
               PB = H.buffer(B), PM = H.buffer(nullptr, Rows * 4), PR = H.buffer(nullptr, Rows * 4);
      H.arg(0, PX);
      H.arg(1, PY);
      H.arg(2, PW);
      H.arg(3, PB);
      H.arg(4, PM);
      H.arg(5, PR);
      H.arg(6, int32_t(Stride));
      H.arg(7, int32_t(N));
      H.arg(8, Eps);
      H.arg(9, uint64_t(0));
      H.arg(10, uint64_t(0));
      RUN_OR_FAIL(H, {Rows, 1, 1}, kBlock, 16, Seed);
      auto Y = H.read<uint16_t>(PY, Rows * Stride);
      auto Mean = H.read<float>(PM, Rows), Rstd = H.read<float>(PR, Rows);
      for (uint32_t Rw = 0; Rw < Rows; ++Rw) {
        double M = 0, V = 0;
        for (uint32_t C = 0; C < N; ++C)
          M += f16ToF32(X[Rw * Stride + C]);
        M /= N;
        for (uint32_t C = 0; C < N; ++C) {
          double D = f16ToF32(X[Rw * Stride + C]) - M;
          V += D * D;
        }
        V /= N;
        double Rs = 1.0 / std::sqrt(V + Eps);
        ASSERT_NEAR(Mean[Rw], M, 1e-5 + 1e-5 * std::fabs(M)) << "mean of row " << Rw;
        ASSERT_NEAR(Rstd[Rw], Rs, 1e-5 * Rs) << "rstd of row " << Rw;
        for (uint32_t C = 0; C < Stride; ++C) {
          uint16_t Got = Y[Rw * Stride + C];
          if (C >= N) {
            ASSERT_EQ(Got, 0xffff) << "row " << Rw << " col " << C << " was written";
            continue;
          }
          double Ref = (f16ToF32(X[Rw * Stride + C]) - M) * Rs * f16ToF32(W[C]) + f16ToF32(B[C]);
          ASSERT_NEAR(f16ToF32(Got), Ref, 1.01 * ulp16(Ref) + 1e-4) << "row " << Rw << " col " << C;
        }
      }
    }
}

void checkMatmul(const std::string &Arch, const std::string &Name, bool Bf16, uint32_t Lds) {
  for (uint64_t Seed : testSeeds())
    for (auto [M, N, K] :
         {std::array<uint32_t, 3>{64, 64, 32}, {80, 48, 48}, {128, 192, 96}, {16, 16, 16}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " M,N,K " + std::to_string(M) + "," +
                   std::to_string(N) + "," + std::to_string(K));
      Harness H(tritonObject(Arch, Name));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      auto Af = randomFloats(R, M * K, -1, 1), Bf = randomFloats(R, K * N, -1, 1);
      auto A = Bf16 ? toBf16(Af) : toF16(Af), B = Bf16 ? toBf16(Bf) : toF16(Bf);
      auto val = [&](uint16_t X) { return double(Bf16 ? bf16ToF32(X) : f16ToF32(X)); };
      uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = H.buffer(nullptr, M * N * 2);
      setMatmulArgs(H, PA, PB, PC, M, N, K);
      RUN_OR_FAIL(H, {cdiv(M, 64) * cdiv(N, 64), 1, 1}, kBlock, Lds, Seed);
      auto C = H.read<uint16_t>(PC, M * N);
      for (uint32_t I = 0; I < M; ++I)
        for (uint32_t J = 0; J < N; ++J) {
          double Ref = 0, Abs = 0;
          for (uint32_t Kk = 0; Kk < K; ++Kk) {
            double P = val(A[I * K + Kk]) * val(B[Kk * N + J]);
            Ref += P;
            Abs += std::fabs(P);
          }
          double Tol = 1.01 * (Bf16 ? ulpBf16(Ref) : ulp16(Ref)) + 1e-6 * Abs;
          ASSERT_NEAR(val(C[I * N + J]), Ref, Tol) << "C[" << I << "][" << J << "]";
        }
    }
}

TEST_P(Triton, MatmulFp16) { checkMatmul(arch(), "matmul_fp16", false, 4096); }
TEST_P(Triton, MatmulFp16Pipelined) { checkMatmul(arch(), "matmul_fp16_ns2", false, 16384); }
TEST_P(Triton, MatmulBf16) { checkMatmul(arch(), "matmul_bf16", true, 4096); }

TEST_P(Triton, FusedMoe) {
  const uint32_t TopK = 2, BlockM = 32;
  for (uint64_t Seed : testSeeds())
    for (auto [Tokens, E, N, K] : {std::array<uint32_t, 4>{10, 3, 64, 64}, {5, 2, 128, 48}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " tokens " + std::to_string(Tokens) +
                   " experts " + std::to_string(E) + " N " + std::to_string(N) + " K " +
                   std::to_string(K));
      Harness H(tritonObject(arch(), "fused_moe_fp16"));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      uint32_t Valid = Tokens * TopK;
      auto A = toF16(randomFloats(R, Tokens * K, -1, 1));
      auto B = toF16(randomFloats(R, E * N * K, -1, 1));
      auto Wt = randomFloats(R, Valid, 0, 1);
      // Route each (token, k) pair to an expert, sort by expert, pad each group to BLOCK_M.
      std::vector<uint32_t> Expert(Valid);
      for (uint32_t T = 0; T < Valid; ++T)
        Expert[T] = uint32_t(R() % E);
      std::vector<int32_t> Sorted, BlockExpert;
      for (uint32_t Ex = 0; Ex < E; ++Ex) {
        std::vector<int32_t> Ids;
        for (uint32_t T = 0; T < Valid; ++T)
          if (Expert[T] == Ex)
            Ids.push_back(int32_t(T));
        if (Ids.empty())
          continue;
        while (Ids.size() % BlockM)
          Ids.push_back(int32_t(Valid));
        for (size_t I = 0; I < Ids.size(); I += BlockM)
          BlockExpert.push_back(int32_t(Ex));
        Sorted.insert(Sorted.end(), Ids.begin(), Ids.end());
      }
      uint32_t EM = uint32_t(Sorted.size());
      std::vector<int32_t> PostPadded = {int32_t(EM)};
      uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = H.buffer(nullptr, Valid * N * 2),
               PW = H.buffer(Wt), PS = H.buffer(Sorted), PE = H.buffer(BlockExpert),
               PP = H.buffer(PostPadded);
      H.arg(0, PA);
      H.arg(1, PB);
      H.arg(2, PC);
      H.arg(3, PW);
      H.arg(4, PS);
      H.arg(5, PE);
      H.arg(6, PP);
      H.arg(7, int32_t(N));
      H.arg(8, int32_t(K));
      H.arg(9, int32_t(EM));
      H.arg(10, int32_t(Valid));
      H.arg(11, int32_t(K));
      H.arg(12, int32_t(N * K));
      H.arg(13, int32_t(K));
      H.arg(14, int32_t(N));
      H.arg(15, uint64_t(0));
      H.arg(16, uint64_t(0));
      RUN_OR_FAIL(H, {cdiv(EM, BlockM) * cdiv(N, 64), 1, 1}, kBlock, 4096, Seed);
      auto C = H.read<uint16_t>(PC, Valid * N);
      for (uint32_t T = 0; T < Valid; ++T)
        for (uint32_t J = 0; J < N; ++J) {
          double Ref = 0, Abs = 0;
          for (uint32_t Kk = 0; Kk < K; ++Kk) {
            double P = double(f16ToF32(A[(T / TopK) * K + Kk])) *
                       f16ToF32(B[(Expert[T] * N + J) * K + Kk]);
            Ref += P;
            Abs += std::fabs(P);
          }
          Ref *= Wt[T];
          double Tol = 1.01 * ulp16(Ref) + 1e-6 * Abs;
          ASSERT_NEAR(f16ToF32(C[T * N + J]), Ref, Tol) << "C[" << T << "][" << J << "]";
        }
    }
}

void checkAttention(const std::string &Arch, const std::string &Name, bool Causal) {
  const uint32_t D = 64;
  for (uint64_t Seed : testSeeds())
    for (auto [Z, Hh, Ctx] : {std::array<uint32_t, 3>{1, 2, 64}, {1, 1, 100}, {2, 1, 128}}) {
      SCOPED_TRACE("seed " + std::to_string(Seed) + " Z,H,N_CTX " + std::to_string(Z) + "," +
                   std::to_string(Hh) + "," + std::to_string(Ctx));
      Harness H(tritonObject(Arch, Name));
      ASSERT_TRUE(H.ok()) << H.Error;
      std::mt19937_64 R(Seed);
      uint32_t StrideM = D, StrideH = roundUp(Ctx, 16) * D, StrideZ = Hh * StrideH;
      size_t Elems = size_t(Z) * StrideZ;
      auto Q = toF16(randomFloats(R, Elems, -1, 1)), Kt = toF16(randomFloats(R, Elems, -1, 1)),
           V = toF16(randomFloats(R, Elems, -1, 1));
      float Scale = 0.125f;
      uint64_t PQ = H.buffer(Q), PK = H.buffer(Kt), PV = H.buffer(V),
               PO = H.buffer(nullptr, Elems * 2), PL = H.buffer(nullptr, Z * Hh * Ctx * 4);
      H.arg(0, PQ);
      H.arg(1, PK);
      H.arg(2, PV);
      H.arg(3, PO);
      H.arg(4, PL);
      H.arg(5, Scale);
      H.arg(6, int32_t(StrideZ));
      H.arg(7, int32_t(StrideH));
      H.arg(8, int32_t(StrideM));
      H.arg(9, int32_t(Hh));
      H.arg(10, int32_t(Ctx));
      H.arg(11, uint64_t(0));
      H.arg(12, uint64_t(0));
      RUN_OR_FAIL(H, {cdiv(Ctx, 64), Z * Hh, 1}, kBlock, 8192, Seed);
      auto Out = H.read<uint16_t>(PO, Elems);
      auto Lse = H.read<float>(PL, Z * Hh * Ctx);
      for (uint32_t Zi = 0; Zi < Z; ++Zi)
        for (uint32_t Hi = 0; Hi < Hh; ++Hi) {
          size_t Base = size_t(Zi) * StrideZ + size_t(Hi) * StrideH;
          for (uint32_t I = 0; I < Ctx; ++I) {
            std::vector<double> S(Ctx);
            double Mx = -INFINITY;
            uint32_t Last = Causal ? I + 1 : Ctx;
            for (uint32_t J = 0; J < Last; ++J) {
              double Dot = 0;
              for (uint32_t Dd = 0; Dd < D; ++Dd)
                Dot += double(f16ToF32(Q[Base + I * StrideM + Dd])) *
                       f16ToF32(Kt[Base + J * StrideM + Dd]);
              S[J] = Dot * Scale;
              Mx = std::max(Mx, S[J]);
            }
            double L = 0;
            for (uint32_t J = 0; J < Last; ++J)
              L += std::exp(S[J] - Mx);
            double LseRef = (Mx + std::log(L)) / std::log(2.0);
            ASSERT_NEAR(Lse[(Zi * Hh + Hi) * Ctx + I], LseRef, 2e-4 * (1 + std::fabs(LseRef)))
                << "Lse row " << I;
            for (uint32_t Dd = 0; Dd < D; ++Dd) {
              double Acc = 0;
              for (uint32_t J = 0; J < Last; ++J)
                Acc += std::exp(S[J] - Mx) / L * f16ToF32(V[Base + J * StrideM + Dd]);
              // P is rounded to fp16 before the P @ V product: allow that rounding.
              ASSERT_NEAR(f16ToF32(Out[Base + I * StrideM + Dd]), Acc, 2e-3)
                  << "Out[" << Zi << "][" << Hi << "][" << I << "][" << Dd << "]";
            }
          }
          for (uint32_t I = Ctx; I < roundUp(Ctx, 16); ++I)
            for (uint32_t Dd = 0; Dd < D; ++Dd)
              ASSERT_EQ(Out[Base + I * StrideM + Dd], 0xffff) << "padding row " << I << " written";
        }
    }
}

TEST_P(Triton, FlashAttention) { checkAttention(arch(), "flash_attn_fwd_fp16", false); }
TEST_P(Triton, FlashAttentionCausal) { checkAttention(arch(), "flash_attn_fwd_causal_fp16", true); }

INSTANTIATE_TEST_SUITE_P(Corpus, Triton, ::testing::Values("gfx90a", "gfx942", "gfx950"),
                         [](const auto &I) { return std::string(I.param); });

} // namespace
