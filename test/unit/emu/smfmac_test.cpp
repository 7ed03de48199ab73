// gfx950's FP8/BF8 sparse MFMAs (v_smfmac_f32_16x16x128_* and v_smfmac_f32_32x32x64_*) on
// hand-written kernels, against a scalar model written here, not from the emulator's code: a
// 2:4 sparse A (two non-zeros in every group of four K, at random positions p0 < p1), a dense B
// and C, packed into the lanes' registers as the layout ROCm/hip-fpsan measured on MI350
// describes it (libcommon/emu/ExecSmfmac.cpp cites it), and D compared with C + A_dense * B
// summed in double (the hardware's summation order is not documented, so the check allows the
// f32 rounding of each partial sum). The layout, as this test packs it (c: A's compressed
// column, 0 .. K/2-1; q: group, 0 .. K/4-1; "x[n]": bit n of x):
//   16x16x128: A_comp[i][c] in byte 4 * (2 c[2] + c[4]) + c % 4 of lane 16 (2 c[5] + c[3]) + i;
//              B[k][j] in byte e of lane 16 g + j where k = 32 (e / 8) + 8 g + e % 8;
//              the index of (i, q) in nibble 2 q[3] + 4 q[1] + q[0] of lane 16 (2 q[4] + q[2]) + i;
//              D[i][j] in register i % 4 of lane 16 (i / 4) + j.
//   32x32x64:  A_comp[i][c] in byte 4 * (2 c[2] + c[3]) + c % 4 of lane 32 c[4] + i;
//              B[k][j] in byte e of lane 32 g + j where k = 16 (e / 8) + 8 g + e % 8;
//              the index of (i, q) in nibble q[0] + 2 q[2] + 4 q[1] of lane 32 q[3] + i;
//              D[i][j] in register 4 (i / 8) + i % 4 of lane 32 ((i / 4) % 2) + j.
// A group's nibble holds p0 in bits [1:0] and p1 in bits [3:2]; A_comp[i][2q + s] sits at dense
// K position 4q + p_s.
#include "AsmKernel.h"

#include "support/SmallFloat.h"

#include <cmath>
#include <random>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

unsigned bit(unsigned X, unsigned N) { return (X >> N) & 1; }

// Buffer (dwords): A at 4 * lane (4 registers), B at 256 + 8 * lane (8 registers), the index
// at 768 + lane, C at 1024 + 16 * lane and D comes back at 2048 + 16 * lane (4 or 16 registers).
struct Case {
  unsigned Dim = 16, K = 128;
  SmallFormat FA = SmallFormat::E4M3, FB = SmallFormat::E4M3;
  std::vector<uint32_t> Buffer = std::vector<uint32_t>(3072, 0);
  std::vector<double> Want, AbsSum; // [i * Dim + j]
  unsigned regs() const { return Dim == 16 ? 4 : 16; }
  void dpos(unsigned I, unsigned J, unsigned &Reg, unsigned &Lane) const {
    if (Dim == 16) {
      Reg = I % 4;
      Lane = 16 * (I / 4) + J;
    } else {
      Reg = 4 * (I / 8) + I % 4;
      Lane = 32 * ((I / 4) % 2) + J;
    }
  }
};

void putByte(std::vector<uint32_t> &Buf, unsigned Dword, unsigned Byte, uint8_t V) {
  Buf[Dword + Byte / 4] |= uint32_t(V) << (8 * (Byte % 4));
}

uint8_t code(std::mt19937_64 &R) {
  uint8_t V = uint8_t(R());
  if ((V & 0x7f) >= 0x7c)
    V &= 0xbf; // no NaN or infinity codes (E4M3: S.1111.111; E5M2: S.11111.xx)
  return V;
}

Case make(unsigned Dim, SmallFormat FA, SmallFormat FB, uint64_t Seed) {
  std::mt19937_64 R(Seed);
  Case C;
  C.Dim = Dim;
  C.K = Dim == 16 ? 128 : 64;
  C.FA = FA;
  C.FB = FB;
  const unsigned K = C.K, Groups = K / 4, Lanes = 64;
  // Dense A (zero outside the chosen positions), B, C.
  std::vector<double> A(Dim * K, 0.0), B(K * Dim), Cm(Dim * Dim);
  for (unsigned I = 0; I < Dim; ++I)
    for (unsigned Q = 0; Q < Groups; ++Q) {
      unsigned P0 = R() % 4, P1 = R() % 4;
      while (P1 == P0)
        P1 = R() % 4;
      if (P0 > P1)
        std::swap(P0, P1);
      unsigned Lane, Nib;
      if (Dim == 16) {
        Lane = 16 * (2 * bit(Q, 4) + bit(Q, 2)) + I;
        Nib = 2 * bit(Q, 3) + 4 * bit(Q, 1) + bit(Q, 0);
      } else {
        Lane = 32 * bit(Q, 3) + I;
        Nib = bit(Q, 0) + 2 * bit(Q, 2) + 4 * bit(Q, 1);
      }
      C.Buffer[768 + Lane] |= (P0 | P1 << 2) << (4 * Nib);
      for (unsigned S = 0; S < 2; ++S) {
        const unsigned Cc = 2 * Q + S;
        const uint8_t V = code(R);
        unsigned ALane, AByte;
        if (Dim == 16) {
          ALane = 16 * (2 * bit(Cc, 5) + bit(Cc, 3)) + I;
          AByte = 4 * (2 * bit(Cc, 2) + bit(Cc, 4)) + Cc % 4;
        } else {
          ALane = 32 * bit(Cc, 4) + I;
          AByte = 4 * (2 * bit(Cc, 2) + bit(Cc, 3)) + Cc % 4;
        }
        putByte(C.Buffer, 4 * ALane, AByte, V);
        A[I * K + 4 * Q + (S ? P1 : P0)] = double(smallToF32(V, FA));
      }
    }
  for (unsigned G = 0; G < Lanes / Dim; ++G)
    for (unsigned J = 0; J < Dim; ++J)
      for (unsigned E = 0; E < 32; ++E) {
        const unsigned Kk = Dim == 16 ? 32 * (E / 8) + 8 * G + E % 8 : 16 * (E / 8) + 8 * G + E % 8;
        const uint8_t V = code(R);
        putByte(C.Buffer, 256 + 8 * (Dim * G + J), E, V);
        B[Kk * Dim + J] = double(smallToF32(V, FB));
      }
  C.Want.assign(Dim * Dim, 0.0);
  C.AbsSum.assign(Dim * Dim, 0.0);
  for (unsigned I = 0; I < Dim; ++I)
    for (unsigned J = 0; J < Dim; ++J) {
      const float Init = float(int(R() % 201) - 100) / 8.0f;
      unsigned Reg, Lane;
      C.dpos(I, J, Reg, Lane);
      C.Buffer[1024 + 16 * Lane + Reg] = f32ToBits(Init);
      double S = Init, Abs = std::fabs(Init);
      for (unsigned Kk = 0; Kk < K; ++Kk) {
        S += A[I * K + Kk] * B[Kk * Dim + J];
        Abs += std::fabs(A[I * K + Kk] * B[Kk * Dim + J]);
      }
      C.Want[I * Dim + J] = S;
      C.AbsSum[I * Dim + J] = Abs;
    }
  return C;
}

AsmRun run(const Case &C, const std::string &Inst) {
  AsmKernel K;
  K.Target = "gfx950";
  K.BufferDwords = 3072;
  K.Vgprs = 64;
  const std::string Last = std::to_string(24 + C.regs() - 1);
  std::string Body = "\tv_lshlrev_b32 v2, 4, v0\n"    // A: 16 bytes a lane
                     "\tv_lshlrev_b32 v3, 5, v0\n"    // B: 32 bytes a lane
                     "\tv_add_u32 v3, 0x400, v3\n"    //   at dword 256
                     "\tv_add_u32 v20, 0xc00, v1\n"   // the index at dword 768
                     "\tv_lshlrev_b32 v21, 6, v0\n"   // C/D: 64 bytes a lane
                     "\tv_add_u32 v22, 0x1000, v21\n" //   C at dword 1024
                     "\tv_add_u32 v23, 0x2000, v21\n" //   D at dword 2048
                     "\tglobal_load_dwordx4 v[4:7], v2, s[2:3]\n"
                     "\tglobal_load_dwordx4 v[8:11], v3, s[2:3]\n"
                     "\tglobal_load_dwordx4 v[12:15], v3, s[2:3] offset:16\n"
                     "\tglobal_load_dword v16, v20, s[2:3]\n"
                     "\tglobal_load_dwordx4 v[24:27], v22, s[2:3]\n"
                     "\tglobal_load_dwordx4 v[28:31], v22, s[2:3] offset:16\n"
                     "\tglobal_load_dwordx4 v[32:35], v22, s[2:3] offset:32\n"
                     "\tglobal_load_dwordx4 v[36:39], v22, s[2:3] offset:48\n"
                     "\ts_waitcnt vmcnt(0)\n\t" +
                     Inst + " v[24:" + Last +
                     "], v[4:7], v[8:15], v16\n"
                     "\ts_nop 7\n\ts_nop 7\n\ts_nop 7\n"
                     "\tglobal_store_dwordx4 v23, v[24:27], s[2:3]\n"
                     "\tglobal_store_dwordx4 v23, v[28:31], s[2:3] offset:16\n"
                     "\tglobal_store_dwordx4 v23, v[32:35], s[2:3] offset:32\n"
                     "\tglobal_store_dwordx4 v23, v[36:39], s[2:3] offset:48\n"
                     "\ts_waitcnt vmcnt(0)\n";
  K.Init = C.Buffer;
  return runAsmKernel(Body, K);
}

void check(const Case &C, const std::string &Inst) {
  AsmRun R = run(C, Inst);
  ASSERT_EQ(R.Error, "") << Inst;
  unsigned Wrong = 0;
  for (unsigned I = 0; I < C.Dim; ++I)
    for (unsigned J = 0; J < C.Dim; ++J) {
      unsigned Reg, Lane;
      C.dpos(I, J, Reg, Lane);
      const double Got = double(bitsToF32(R.Buffer[2048 + 16 * Lane + Reg]));
      const double Tol = C.K * std::ldexp(C.AbsSum[I * C.Dim + J], -24) + 1e-30;
      if (std::fabs(Got - C.Want[I * C.Dim + J]) > Tol && ++Wrong <= 4)
        ADD_FAILURE() << Inst << ": D[" << I << "][" << J << "] = " << Got << ", want "
                      << C.Want[I * C.Dim + J];
    }
  EXPECT_EQ(Wrong, 0u) << Inst;
}

using SF = SmallFormat;

TEST(Smfmac, Fp8Bf8Sparse16x16x128AgainstTheDenseProduct) {
  check(make(16, SF::E4M3, SF::E4M3, 1), "v_smfmac_f32_16x16x128_fp8_fp8");
  check(make(16, SF::E4M3, SF::E5M2, 2), "v_smfmac_f32_16x16x128_fp8_bf8");
  check(make(16, SF::E5M2, SF::E4M3, 3), "v_smfmac_f32_16x16x128_bf8_fp8");
  check(make(16, SF::E5M2, SF::E5M2, 4), "v_smfmac_f32_16x16x128_bf8_bf8");
}

TEST(Smfmac, Fp8Bf8Sparse32x32x64AgainstTheDenseProduct) {
  check(make(32, SF::E4M3, SF::E4M3, 5), "v_smfmac_f32_32x32x64_fp8_fp8");
  check(make(32, SF::E4M3, SF::E5M2, 6), "v_smfmac_f32_32x32x64_fp8_bf8");
  check(make(32, SF::E5M2, SF::E4M3, 7), "v_smfmac_f32_32x32x64_bf8_fp8");
  check(make(32, SF::E5M2, SF::E5M2, 8), "v_smfmac_f32_32x32x64_bf8_bf8");
}

TEST(Smfmac, AnIndexOfOtherPositionsGivesAnotherProduct) {
  // The same operands with every nibble's positions swapped (p0 <-> p1) must not pass: the
  // index is read, not ignored.
  Case C = make(16, SF::E4M3, SF::E4M3, 9);
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t &W = C.Buffer[768 + L], S = 0;
    for (unsigned N = 0; N < 8; ++N) {
      const uint32_t F = (W >> (4 * N)) & 0xf;
      S |= ((F >> 2) | (F & 3) << 2) << (4 * N);
    }
    W = S;
  }
  AsmRun R = run(C, "v_smfmac_f32_16x16x128_fp8_fp8");
  ASSERT_EQ(R.Error, "");
  unsigned Differ = 0;
  for (unsigned I = 0; I < 16; ++I)
    for (unsigned J = 0; J < 16; ++J) {
      unsigned Reg, Lane;
      C.dpos(I, J, Reg, Lane);
      Differ += double(bitsToF32(R.Buffer[2048 + 16 * Lane + Reg])) != C.Want[I * 16 + J];
    }
  EXPECT_GT(Differ, 200u);
}

TEST(Smfmac, IndexHalfSelectsAreRefused) {
  AsmKernel K;
  K.Target = "gfx950";
  K.Vgprs = 64;
  auto R =
      runAsmKernel("\tv_smfmac_f32_16x16x128_fp8_fp8 v[24:27], v[4:7], v[8:15], v16 abid:1\n", K);
  EXPECT_NE(R.Error.find("unsupported instruction v_smfmac_f32_16x16x128_fp8_fp8 at pc 0x"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find(": cbsz, abid or blgp other than 0 on an SMFMAC whose index uses all 32 "
                         "bits is not documented"),
            std::string::npos)
      << R.Error;
}

} // namespace
