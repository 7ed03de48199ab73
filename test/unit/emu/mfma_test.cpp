// MFMA executor tests. Instructions are built by hand (no decoder); A, B and C are written into
// registers from matrices with the operand layouts AMD documents (the matrix instruction
// calculator's --detail-instruction formulas for CDNA2/CDNA3, github.com/ROCm/
// amd_matrix_instruction_calculator; the gfx950 shapes extend the same K-contiguous rule), the
// instruction runs, and D is read back with the documented layout and compared with a plain
// triple-loop matmul in double (floats within a tolerance, integers exactly).
#include "emu/DeviceMemory.h"
#include "emu/Exec.h"
#include "support/Float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

using namespace asmevo;
using namespace asmevo::emu;

namespace {

enum class T { F32, F16, BF16, I8, FP8, BF8, F64 };

struct Shape {
  Op Operation;
  int M, K, B; // M = N, blocks
  T TypeA, TypeB;
  Gfx Target;
  const char *Name;
};

int bitsOf(T t) {
  switch (t) {
  case T::F32:
    return 32;
  case T::F16:
  case T::BF16:
    return 16;
  case T::F64:
    return 64;
  default:
    return 8;
  }
}

// 8-bit float decoding straight from the format definitions.
// FNUZ (gfx940): bias 8 / 16, 0x80 is NaN, no infinities. OCP (gfx950): E4M3FN bias 7 with
// S.1111.111 NaN; E5M2 bias 15 with IEEE infinities/NaNs.
double decodeF8(uint8_t v, int ebits, int mbits, int bias) {
  int sign = v >> 7, e = (v >> mbits) & ((1 << ebits) - 1), m = v & ((1 << mbits) - 1);
  double mag = e == 0 ? std::ldexp(double(m) / (1 << mbits), 1 - bias)
                      : std::ldexp(1.0 + double(m) / (1 << mbits), e - bias);
  return sign ? -mag : mag;
}
bool f8Valid(uint8_t v, bool isE4M3, bool ocp) {
  if (!ocp)
    return v != 0x80;
  if (isE4M3)
    return (v & 0x7f) != 0x7f;
  return ((v >> 2) & 0x1f) != 0x1f;
}

struct Env {
  std::unique_ptr<WaveState> W = std::make_unique<WaveState>();
  Workgroup Wg;
  DeviceMemory Mem;
  ExecCtx C;
  explicit Env(Gfx g) : C{*W, Wg, Mem, g} { W->setExec(~0ull); }
};

// Position of A[i][k] (B[k][j]: pass j for i) of block blk: lane and element index within the
// lane (element e occupies bits e*bits .. of the lane's registers, consecutive registers).
// Documented formulas (CDNA2/3 calculator):
//   4x4x4_4b f64: lane 4*block + 16*k + i
//   multi-block:  lane M*block + i, GPR floor(k*bits/32) bit (k*bits)%32
//   single block: lane M*floor(k/kpl) + i, element k%kpl, kpl = K*M/64
void inPos(const Shape &s, int i, int k, int blk, int &lane, int &e) {
  if (s.TypeA == T::F64 && s.M == 4) {
    lane = 4 * blk + 16 * k + i;
    e = 0;
    return;
  }
  if (s.B > 1) {
    lane = s.M * blk + i;
    e = k;
    return;
  }
  int kpl = s.K * s.M / 64;
  lane = s.M * (k / kpl) + i;
  e = k % kpl;
}
// Register offset and lane of C/D[i][j] of block blk (documented formulas).
void outPos(const Shape &s, int i, int j, int blk, int &gpr, int &lane) {
  if (s.TypeA == T::F64) {
    if (s.M == 16) {
      gpr = 2 * (i / 4);
      lane = 16 * (i % 4) + j;
    } else {
      gpr = 0;
      lane = 16 * (i % 4) + 4 * blk + j;
    }
    return;
  }
  if (s.M == 32) {
    gpr = 16 * blk + 4 * (i / 8) + (i % 4);
    lane = (32 * (i / 4)) % 64 + j;
  } else if (s.M == 16) {
    gpr = 4 * blk + (i % 4);
    lane = 16 * (i / 4) + j;
  } else {
    gpr = i;
    lane = 4 * blk + j;
  }
}

void putBits(WaveState &w, unsigned base, int lane, int e, int bits, uint64_t v) {
  if (bits == 64) {
    w.vrow(base)[lane] = uint32_t(v);
    w.vrow(base + 1)[lane] = uint32_t(v >> 32);
    return;
  }
  int bit = e * bits;
  uint32_t &r = w.vrow(base + bit / 32)[lane];
  uint32_t mask = bits == 32 ? ~0u : ((1u << bits) - 1) << (bit % 32);
  r = (r & ~mask) | ((uint32_t(v) << (bit % 32)) & mask);
}

// A random element of type t: its encoding and exact value.
std::pair<uint64_t, double> randomElem(std::mt19937_64 &R, T t, bool ocp) {
  std::uniform_int_distribution<int> small(-32, 32);
  switch (t) {
  case T::F32: {
    float f = std::uniform_real_distribution<float>(-2, 2)(R);
    return {f32ToBits(f), f};
  }
  case T::F16: {
    float f = small(R) / 8.0f;
    return {f32ToF16(f), f};
  }
  case T::BF16: {
    float f = small(R) / 8.0f;
    return {f32ToBf16(f), f};
  }
  case T::I8: {
    int v = std::uniform_int_distribution<int>(-128, 127)(R);
    return {uint8_t(int8_t(v)), double(v)};
  }
  case T::FP8:
  case T::BF8: {
    bool e4 = t == T::FP8;
    for (;;) {
      uint8_t v = uint8_t(R());
      if (!f8Valid(v, e4, ocp))
        continue;
      double d = e4 ? decodeF8(v, 4, 3, ocp ? 7 : 8) : decodeF8(v, 5, 2, ocp ? 15 : 16);
      if (std::fabs(d) > 64)
        continue; // keep sums moderate
      return {v, d};
    }
  }
  case T::F64: {
    double d = std::uniform_real_distribution<double>(-2, 2)(R);
    return {f64ToBits(d), d};
  }
  }
  return {0, 0};
}

struct Mods {
  unsigned Cbsz = 0, Abid = 0, Blgp = 0;
  bool CInVgpr = false, DInVgpr = false, AbInAgpr = false;
};

unsigned blgpSrcLane(unsigned blgp, unsigned L) {
  // Documented: 1: lanes 0-31 broadcast into 32-63; 2: 32-63 into 0-31; 3: rotate down by 16
  // (lane 16's data is used by lane 0); 4..7: lanes 16*(p-4)..+15 broadcast to all groups.
  switch (blgp) {
  case 0:
    return L;
  case 1:
    return L < 32 ? L : L - 32;
  case 2:
    return L < 32 ? L + 32 : L;
  case 3:
    return (L + 16) & 63;
  default:
    return 16 * (blgp - 4) + (L & 15);
  }
}

void runShape(const Shape &s, uint64_t seed, const Mods &m = {}) {
  SCOPED_TRACE(s.Name);
  Env env(s.Target);
  WaveState &w = *env.W;
  std::mt19937_64 R(seed);
  const bool ocp = s.Target == Gfx::Gfx950;
  const bool isInt = s.TypeA == T::I8, isF64 = s.TypeA == T::F64;
  const int M = s.M, K = s.K, NB = s.B;
  // Logical matrices.
  std::vector<double> A(NB * M * K), B(NB * K * M), C(NB * M * M);
  // Register contents per (lane, element) for BLGP's lane swizzle: value stored there.
  std::map<std::pair<int, int>, double> bAt;
  const unsigned aBase = m.AbInAgpr ? 256 + 100 : 0, bBase = m.AbInAgpr ? 256 + 110 : 10;
  const unsigned cBase = m.CInVgpr ? 40 : 256;
  const unsigned dBase = m.DInVgpr ? 80 : 256; // D over C in AGPRs (the usual in-place form)
  for (int blk = 0; blk < NB; ++blk)
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        int lane, e;
        auto [ea, va] = randomElem(R, s.TypeA, ocp);
        A[(blk * M + i) * K + k] = va;
        inPos(s, i, k, blk, lane, e);
        putBits(w, aBase, lane, e, bitsOf(s.TypeA), ea);
        auto [eb, vb] = randomElem(R, s.TypeB, ocp);
        B[(blk * K + k) * M + i] = vb; // B[k][j = i]
        putBits(w, bBase, lane, e, bitsOf(s.TypeB), eb);
        bAt[{lane, e}] = vb;
      }
  for (int blk = 0; blk < NB; ++blk)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) {
        int gpr, lane;
        outPos(s, i, j, blk, gpr, lane);
        double v;
        uint64_t enc;
        if (isInt) {
          int32_t x = int32_t(R() % 200001) - 100000;
          v = x;
          enc = uint32_t(x);
        } else if (isF64) {
          v = std::uniform_real_distribution<double>(-4, 4)(R);
          enc = f64ToBits(v);
        } else {
          float f = std::uniform_real_distribution<float>(-4, 4)(R);
          v = f;
          enc = f32ToBits(f);
        }
        C[(blk * M + i) * M + j] = v;
        putBits(w, cBase + gpr, lane, 0, isF64 ? 64 : 32, enc);
      }

  Inst in;
  in.Operation = s.Operation;
  in.Encoding = Enc::VOP3P;
  in.Src[0] = uint16_t(kVgprBase + aBase);
  in.Src[1] = uint16_t(kVgprBase + bBase);
  in.Src[2] = uint16_t(kVgprBase + cBase);
  in.Dst = uint16_t(kVgprBase + dBase);
  in.Cbsz = uint8_t(m.Cbsz);
  in.Abid = uint8_t(m.Abid);
  in.Blgp = uint8_t(m.Blgp);
  ASSERT_TRUE(execMfma(env.C, in));

  const bool f64Neg = isF64 && m.Blgp;
  for (int blk = 0; blk < NB; ++blk)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) {
        double ref = C[(blk * M + i) * M + j], mag = std::fabs(ref);
        if (f64Neg && (m.Blgp & 4))
          ref = -ref;
        // The emulator's documented f32 order: acc = C, then acc = fma(A[i][k], B[k][j], acc)
        // for k = 0, 1, ... in binary32 (the inputs are exact binary32 values).
        float acc32 = float(ref);
        int aBlk = blk;
        if (m.Cbsz) {
          int g = 1 << m.Cbsz;
          aBlk = (blk / g) * g + int(m.Abid);
        }
        for (int k = 0; k < K; ++k) {
          double a = A[(aBlk * M + i) * K + k];
          double b = B[(blk * K + k) * M + j];
          if (m.Blgp && !isF64) {
            int lane, e;
            inPos(s, j, k, blk, lane, e);
            b = bAt.at({int(blgpSrcLane(m.Blgp, unsigned(lane))), e});
          }
          if (f64Neg && (m.Blgp & 1))
            a = -a;
          if (f64Neg && (m.Blgp & 2))
            b = -b;
          ref += a * b;
          mag += std::fabs(a * b);
          acc32 = std::fma(float(a), float(b), acc32);
        }
        int gpr, lane;
        outPos(s, i, j, blk, gpr, lane);
        const uint32_t *lo = w.vrow(dBase + gpr);
        if (isInt) {
          ASSERT_EQ(int32_t(lo[lane]), int32_t(int64_t(ref))) << blk << " " << i << " " << j;
        } else if (isF64) {
          double got = bitsToF64(lo[lane] | (uint64_t(w.vrow(dBase + gpr + 1)[lane]) << 32));
          ASSERT_NEAR(got, ref, 1e-13 * (mag + 1)) << blk << " " << i << " " << j;
        } else {
          double got = bitsToF32(lo[lane]);
          ASSERT_NEAR(got, ref, 4e-7 * (mag + 1) * K) << blk << " " << i << " " << j;
          ASSERT_EQ(lo[lane], f32ToBits(acc32))
              << "bits of D[" << i << "][" << j << "] block " << blk;
        }
      }
}

const Shape kShapes[] = {
    // f32
    {Op::V_MFMA_F32_32X32X1_2B_F32, 32, 1, 2, T::F32, T::F32, Gfx::Gfx90a, "32x32x1_2b_f32"},
    {Op::V_MFMA_F32_16X16X1_4B_F32, 16, 1, 4, T::F32, T::F32, Gfx::Gfx90a, "16x16x1_4b_f32"},
    {Op::V_MFMA_F32_4X4X1_16B_F32, 4, 1, 16, T::F32, T::F32, Gfx::Gfx942, "4x4x1_16b_f32"},
    {Op::V_MFMA_F32_32X32X2_F32, 32, 2, 1, T::F32, T::F32, Gfx::Gfx942, "32x32x2_f32"},
    {Op::V_MFMA_F32_16X16X4_F32, 16, 4, 1, T::F32, T::F32, Gfx::Gfx90a, "16x16x4_f32"},
    {Op::V_MFMA_F32_32X32X4_XF32, 32, 4, 1, T::F32, T::F32, Gfx::Gfx942, "32x32x4_xf32"},
    {Op::V_MFMA_F32_16X16X8_XF32, 16, 8, 1, T::F32, T::F32, Gfx::Gfx942, "16x16x8_xf32"},
    // f16
    {Op::V_MFMA_F32_32X32X4_2B_F16, 32, 4, 2, T::F16, T::F16, Gfx::Gfx90a, "32x32x4_2b_f16"},
    {Op::V_MFMA_F32_16X16X4_4B_F16, 16, 4, 4, T::F16, T::F16, Gfx::Gfx942, "16x16x4_4b_f16"},
    {Op::V_MFMA_F32_4X4X4_16B_F16, 4, 4, 16, T::F16, T::F16, Gfx::Gfx90a, "4x4x4_16b_f16"},
    {Op::V_MFMA_F32_32X32X8_F16, 32, 8, 1, T::F16, T::F16, Gfx::Gfx942, "32x32x8_f16"},
    {Op::V_MFMA_F32_16X16X16_F16, 16, 16, 1, T::F16, T::F16, Gfx::Gfx90a, "16x16x16_f16"},
    {Op::V_MFMA_F32_32X32X16_F16, 32, 16, 1, T::F16, T::F16, Gfx::Gfx950, "32x32x16_f16"},
    {Op::V_MFMA_F32_16X16X32_F16, 16, 32, 1, T::F16, T::F16, Gfx::Gfx950, "16x16x32_f16"},
    // bf16
    {Op::V_MFMA_F32_32X32X4_2B_BF16, 32, 4, 2, T::BF16, T::BF16, Gfx::Gfx942, "32x32x4_2b_bf16"},
    {Op::V_MFMA_F32_16X16X4_4B_BF16, 16, 4, 4, T::BF16, T::BF16, Gfx::Gfx90a, "16x16x4_4b_bf16"},
    {Op::V_MFMA_F32_4X4X4_16B_BF16, 4, 4, 16, T::BF16, T::BF16, Gfx::Gfx942, "4x4x4_16b_bf16"},
    {Op::V_MFMA_F32_32X32X8_BF16, 32, 8, 1, T::BF16, T::BF16, Gfx::Gfx90a, "32x32x8_bf16"},
    {Op::V_MFMA_F32_16X16X16_BF16, 16, 16, 1, T::BF16, T::BF16, Gfx::Gfx942, "16x16x16_bf16"},
    {Op::V_MFMA_F32_32X32X16_BF16, 32, 16, 1, T::BF16, T::BF16, Gfx::Gfx950, "32x32x16_bf16"},
    {Op::V_MFMA_F32_16X16X32_BF16, 16, 32, 1, T::BF16, T::BF16, Gfx::Gfx950, "16x16x32_bf16"},
    // gfx90a's original bf16
    {Op::V_MFMA_F32_32X32X2BF16, 32, 2, 2, T::BF16, T::BF16, Gfx::Gfx90a, "32x32x2bf16"},
    {Op::V_MFMA_F32_16X16X2BF16, 16, 2, 4, T::BF16, T::BF16, Gfx::Gfx90a, "16x16x2bf16"},
    {Op::V_MFMA_F32_4X4X2BF16, 4, 2, 16, T::BF16, T::BF16, Gfx::Gfx90a, "4x4x2bf16"},
    {Op::V_MFMA_F32_32X32X4BF16, 32, 4, 1, T::BF16, T::BF16, Gfx::Gfx90a, "32x32x4bf16"},
    {Op::V_MFMA_F32_16X16X8BF16, 16, 8, 1, T::BF16, T::BF16, Gfx::Gfx90a, "16x16x8bf16"},
    // i8
    {Op::V_MFMA_I32_32X32X4_2B_I8, 32, 4, 2, T::I8, T::I8, Gfx::Gfx90a, "32x32x4_2b_i8"},
    {Op::V_MFMA_I32_16X16X4_4B_I8, 16, 4, 4, T::I8, T::I8, Gfx::Gfx942, "16x16x4_4b_i8"},
    {Op::V_MFMA_I32_4X4X4_16B_I8, 4, 4, 16, T::I8, T::I8, Gfx::Gfx90a, "4x4x4_16b_i8"},
    {Op::V_MFMA_I32_32X32X8I8, 32, 8, 1, T::I8, T::I8, Gfx::Gfx90a, "32x32x8i8"},
    {Op::V_MFMA_I32_16X16X16I8, 16, 16, 1, T::I8, T::I8, Gfx::Gfx90a, "16x16x16i8"},
    {Op::V_MFMA_I32_32X32X16_I8, 32, 16, 1, T::I8, T::I8, Gfx::Gfx942, "32x32x16_i8"},
    {Op::V_MFMA_I32_16X16X32_I8, 16, 32, 1, T::I8, T::I8, Gfx::Gfx942, "16x16x32_i8"},
    {Op::V_MFMA_I32_32X32X32_I8, 32, 32, 1, T::I8, T::I8, Gfx::Gfx950, "32x32x32_i8"},
    {Op::V_MFMA_I32_16X16X64_I8, 16, 64, 1, T::I8, T::I8, Gfx::Gfx950, "16x16x64_i8"},
    // f64
    {Op::V_MFMA_F64_16X16X4_F64, 16, 4, 1, T::F64, T::F64, Gfx::Gfx90a, "16x16x4_f64"},
    {Op::V_MFMA_F64_4X4X4_4B_F64, 4, 4, 4, T::F64, T::F64, Gfx::Gfx942, "4x4x4_4b_f64"},
    // fp8 / bf8: FNUZ on gfx942, OCP on gfx950
    {Op::V_MFMA_F32_16X16X32_FP8_FP8, 16, 32, 1, T::FP8, T::FP8, Gfx::Gfx942, "16x16x32_fp8_fp8"},
    {Op::V_MFMA_F32_16X16X32_FP8_BF8, 16, 32, 1, T::FP8, T::BF8, Gfx::Gfx942, "16x16x32_fp8_bf8"},
    {Op::V_MFMA_F32_16X16X32_BF8_FP8, 16, 32, 1, T::BF8, T::FP8, Gfx::Gfx950, "16x16x32_bf8_fp8"},
    {Op::V_MFMA_F32_16X16X32_BF8_BF8, 16, 32, 1, T::BF8, T::BF8, Gfx::Gfx950, "16x16x32_bf8_bf8"},
    {Op::V_MFMA_F32_32X32X16_FP8_FP8, 32, 16, 1, T::FP8, T::FP8, Gfx::Gfx950, "32x32x16_fp8_fp8"},
    {Op::V_MFMA_F32_32X32X16_FP8_BF8, 32, 16, 1, T::FP8, T::BF8, Gfx::Gfx950, "32x32x16_fp8_bf8"},
    {Op::V_MFMA_F32_32X32X16_BF8_FP8, 32, 16, 1, T::BF8, T::FP8, Gfx::Gfx942, "32x32x16_bf8_fp8"},
    {Op::V_MFMA_F32_32X32X16_BF8_BF8, 32, 16, 1, T::BF8, T::BF8, Gfx::Gfx942, "32x32x16_bf8_bf8"},
};

const Shape &shape(Op op) {
  for (const Shape &s : kShapes)
    if (s.Operation == op)
      return s;
  throw std::runtime_error("no shape");
}

} // namespace

TEST(Mfma, AllShapesAgprCD) {
  for (const Shape &s : kShapes)
    for (uint64_t seed : {1u, 2u})
      runShape(s, seed);
}

TEST(Mfma, AllShapesVgprOperands) {
  Mods m;
  m.CInVgpr = true;
  m.DInVgpr = true;
  for (const Shape &s : kShapes)
    runShape(s, 3, m);
}

// On a host with AVX-512 the f32 shapes run their products on it (mfmaHostAvx512); the same
// shapes again with it turned off, so the AVX2 form stays checked on such a host too.
TEST(Mfma, AllShapesWithoutAvx512) {
  allowMfmaHostAvx512(false);
  Mods m;
  m.CInVgpr = true;
  for (const Shape &s : kShapes) {
    runShape(s, 5);
    runShape(s, 6, m);
  }
  allowMfmaHostAvx512(true);
}

TEST(Mfma, AbInAgprDInVgpr) {
  Mods m;
  m.AbInAgpr = true;
  m.DInVgpr = true;
  runShape(shape(Op::V_MFMA_F32_32X32X8_F16), 4, m);
  runShape(shape(Op::V_MFMA_F32_4X4X1_16B_F32), 4, m);
}

TEST(Mfma, CbszAbidBroadcast) {
  for (unsigned cbsz = 0; cbsz <= 4; ++cbsz)
    for (unsigned abid : {0u, 1u, (1u << cbsz) - 1}) {
      if (abid >= (1u << cbsz))
        continue;
      Mods m;
      m.Cbsz = cbsz;
      m.Abid = abid;
      runShape(shape(Op::V_MFMA_F32_4X4X1_16B_F32), 10 + cbsz, m);
      runShape(shape(Op::V_MFMA_F32_4X4X4_16B_F16), 20 + cbsz, m);
      if (cbsz <= 1)
        runShape(shape(Op::V_MFMA_F32_32X32X1_2B_F32), 30 + cbsz, m);
      if (cbsz <= 2)
        runShape(shape(Op::V_MFMA_I32_16X16X4_4B_I8), 40 + cbsz, m);
    }
}

TEST(Mfma, BlgpLanePatterns) {
  for (unsigned blgp = 1; blgp < 8; ++blgp) {
    Mods m;
    m.Blgp = blgp;
    runShape(shape(Op::V_MFMA_F32_32X32X1_2B_F32), 50 + blgp, m);
    runShape(shape(Op::V_MFMA_F32_4X4X4_16B_F16), 60 + blgp, m);
    runShape(shape(Op::V_MFMA_F32_32X32X2_F32), 70 + blgp, m);  // documented on CDNA3 too
    runShape(shape(Op::V_MFMA_F32_16X16X16_F16), 80 + blgp, m); // gfx90a: documented
  }
}

TEST(Mfma, F64BlgpNegatesOnGfx942) {
  for (unsigned blgp = 1; blgp < 8; ++blgp) {
    Mods m;
    m.Blgp = blgp;
    runShape(shape(Op::V_MFMA_F64_4X4X4_4B_F64), 90 + blgp, m);
    Shape s = shape(Op::V_MFMA_F64_16X16X4_F64);
    s.Target = Gfx::Gfx942;
    runShape(s, 100 + blgp, m);
  }
}

// Spot checks with layout positions read off the documentation tables directly.
TEST(Mfma, SpotLayout32x32x8F16) {
  Env env(Gfx::Gfx90a);
  WaveState &w = *env.W;
  // A[5][6]: lane 32*floor(6/4)+5 = 37, GPR floor(6/2)%2 = 1, bits [15:0] (k%2 = 0).
  w.vrow(0 + 1)[37] = 0x4000; // 2.0
  // B[6][9]: lane 32*1 + 9 = 41, GPR 1, bits [15:0].
  w.vrow(2 + 1)[41] = 0x4200; // 3.0
  Inst in;
  in.Operation = Op::V_MFMA_F32_32X32X8_F16;
  in.Encoding = Enc::VOP3P;
  in.Src[0] = kVgprBase + 0;
  in.Src[1] = kVgprBase + 2;
  in.Src[2] = 128; // inline constant 0
  in.Dst = kAgprBase + 0;
  ASSERT_TRUE(execMfma(env.C, in));
  // D[5][9]: GPR 4*floor(5/8) + 5%4 = 1, lane (32*floor(5/4))%64 + 9 = 41.
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned l = 0; l < 64; ++l) {
      float v = bitsToF32(w.vrow(256 + r)[l]);
      EXPECT_EQ(v, (r == 1 && l == 41) ? 6.0f : 0.0f) << r << " " << l;
    }
}

TEST(Mfma, SpotLayout16x16x4F64) {
  Env env(Gfx::Gfx90a);
  WaveState &w = *env.W;
  // A[7][2]: lane 16*2+7 = 39. B[2][3]: lane 16*2+3 = 35.
  w.vrow(0)[39] = uint32_t(f64ToBits(1.5));
  w.vrow(1)[39] = uint32_t(f64ToBits(1.5) >> 32);
  w.vrow(2)[35] = uint32_t(f64ToBits(-2.0));
  w.vrow(3)[35] = uint32_t(f64ToBits(-2.0) >> 32);
  Inst in;
  in.Operation = Op::V_MFMA_F64_16X16X4_F64;
  in.Encoding = Enc::VOP3P;
  in.Src[0] = kVgprBase + 0;
  in.Src[1] = kVgprBase + 2;
  in.Src[2] = 242; // inline 1.0
  in.Dst = kAgprBase + 8;
  ASSERT_TRUE(execMfma(env.C, in));
  // D[7][3]: GPR pair [2*floor(7/4)+1 : 2*floor(7/4)] = [3:2], lane 16*(7%4)+3 = 51.
  for (unsigned p = 0; p < 4; ++p)
    for (unsigned l = 0; l < 64; ++l) {
      double v =
          bitsToF64(w.vrow(256 + 8 + 2 * p)[l] | (uint64_t(w.vrow(256 + 8 + 2 * p + 1)[l]) << 32));
      EXPECT_EQ(v, (p == 1 && l == 51) ? -2.0 : 1.0) << p << " " << l;
    }
}

TEST(Mfma, SpotLayout4x4x4F64Blocks) {
  Env env(Gfx::Gfx90a);
  WaveState &w = *env.W;
  // Block 2: A[1][3] at lane 4*2 + 16*3 + 1 = 57; B[3][2] at lane 4*2 + 16*3 + 2 = 58.
  w.vrow(0)[57] = uint32_t(f64ToBits(3.0));
  w.vrow(1)[57] = uint32_t(f64ToBits(3.0) >> 32);
  w.vrow(2)[58] = uint32_t(f64ToBits(5.0));
  w.vrow(3)[58] = uint32_t(f64ToBits(5.0) >> 32);
  Inst in;
  in.Operation = Op::V_MFMA_F64_4X4X4_4B_F64;
  in.Encoding = Enc::VOP3P;
  in.Src[0] = kVgprBase + 0;
  in.Src[1] = kVgprBase + 2;
  in.Src[2] = 128;
  in.Dst = kVgprBase + 4;
  ASSERT_TRUE(execMfma(env.C, in));
  // D[1][2] of block 2: lane 16*(1%4) + 4*2 + 2 = 26.
  for (unsigned l = 0; l < 64; ++l) {
    double v = bitsToF64(w.vrow(4)[l] | (uint64_t(w.vrow(5)[l]) << 32));
    EXPECT_EQ(v, l == 26 ? 15.0 : 0.0) << l;
  }
}

TEST(Mfma, InlineConstantC) {
  Env env(Gfx::Gfx942);
  WaveState &w = *env.W;
  Inst in;
  in.Operation = Op::V_MFMA_I32_16X16X32_I8;
  in.Encoding = Enc::VOP3P;
  in.Src[0] = kVgprBase + 0;
  in.Src[1] = kVgprBase + 2;
  in.Src[2] = 128 + 7; // inline 7
  in.Dst = kAgprBase + 0;
  for (unsigned l = 0; l < 64; ++l) {
    w.vrow(0)[l] = 0x01010101;
    w.vrow(1)[l] = 0x01010101; // A = 1
    w.vrow(2)[l] = 0xffffffff;
    w.vrow(3)[l] = 0xffffffff; // B = -1
  }
  ASSERT_TRUE(execMfma(env.C, in));
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned l = 0; l < 64; ++l)
      EXPECT_EQ(int32_t(w.vrow(256 + r)[l]), 7 - 32);
}

// An f32 MFMA with an inline-constant C (1.0): every D element is 1 + K (A = B = 1.0), with
// and without the host's AVX-512.
TEST(Mfma, InlineConstantCFloat) {
  for (bool Avx512 : {true, false})
    for (auto [Operation, K, Regs] : {std::tuple{Op::V_MFMA_F32_32X32X8_F16, 8, 16u},
                                      std::tuple{Op::V_MFMA_F32_16X16X16_F16, 16, 4u}}) {
      allowMfmaHostAvx512(Avx512);
      Env env(Gfx::Gfx942);
      WaveState &w = *env.W;
      Inst in;
      in.Operation = Operation;
      in.Encoding = Enc::VOP3P;
      in.Src[0] = kVgprBase + 0;
      in.Src[1] = kVgprBase + 2;
      in.Src[2] = 242; // inline 1.0
      in.Dst = kAgprBase + 0;
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned l = 0; l < 64; ++l)
          w.vrow(r)[l] = 0x3c003c00; // f16 1.0 pairs
      ASSERT_TRUE(execMfma(env.C, in));
      for (unsigned r = 0; r < Regs; ++r)
        for (unsigned l = 0; l < 64; ++l)
          ASSERT_EQ(bitsToF32(w.vrow(256 + r)[l]), float(1 + K)) << r << " " << l;
    }
  allowMfmaHostAvx512(true);
}

TEST(Mfma, UnsupportedIsReported) {
  Env env(Gfx::Gfx942);
  Inst in;
  in.Encoding = Enc::VOP3P;
  in.Src[0] = kVgprBase;
  in.Src[1] = kVgprBase + 4;
  in.Src[2] = kAgprBase;
  in.Dst = kAgprBase;
  in.Operation = Op::V_SMFMAC_F32_16X16X32_F16;
  EXPECT_FALSE(execMfma(env.C, in));
  in.Operation = Op::V_MFMA_F32_32X32X64_F8F6F4;
  EXPECT_FALSE(execMfma(env.C, in));
  in.Operation = Op::S_NOP;
  EXPECT_FALSE(execMfma(env.C, in));
  // Modifiers the documentation does not give the instruction.
  in.Operation = Op::V_MFMA_F32_32X32X8_F16;
  in.Cbsz = 1;
  EXPECT_FALSE(execMfma(env.C, in));
  in.Cbsz = 0;
  in.Blgp = 1; // CDNA3: no BLGP for this shape
  EXPECT_FALSE(execMfma(env.C, in));
  in.Operation = Op::V_MFMA_F32_4X4X1_16B_F32;
  in.Blgp = 0;
  in.Cbsz = 2;
  in.Abid = 4; // ABID must be < 2^CBSZ
  EXPECT_FALSE(execMfma(env.C, in));
}
