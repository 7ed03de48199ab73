// gfx950's F8F6F4 MFMAs (v_mfma_f32_16x16x128_f8f6f4 and v_mfma_scale_f32_16x16x128_f8f6f4)
// on hand-written kernels, against a scalar model written here from the operand layout tables
// (not from the emulator's code): A (16 x 128), B (128 x 16) and the E8M0 scales are packed
// into the lanes' registers as the layout says, and D is compared with the products summed in
// double (the hardware's summation order is not documented, so the check allows the f32
// rounding of a 128-term sum).
//   FP8 / BF8: lane 16 * g + i holds k = 16g .. 16g+15 in bytes 0..15 and 64+16g .. 64+16g+15 in
//              bytes 16..31 of its 8 registers (g = 0..3);
//   FP4:       lane 16 * (k / 32) + i holds k % 32 as nibble k % 32 of its 4 registers;
//   scales:    A's row i, block b (k / 32) from lane 16b + i of scale_src0, byte
//              op_sel[0] + 2 * op_sel_hi[0]; B's column j likewise from scale_src1;
//   D:         D[i][j] in register i % 4 of lane 16 * (i / 4) + j.
#include "AsmKernel.h"

#include "support/SmallFloat.h"

#include <cmath>
#include <random>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

constexpr unsigned kDim = 16, kK = 128;

struct Operands {
  std::vector<uint32_t> Buffer = std::vector<uint32_t>(4096, 0);
  double Want[kDim][kDim] = {};
  double AbsSum[kDim][kDim] = {}; // sum of |products|: the bound on f32 rounding error
};

// Fmt: 0 fp8 e4m3, 4 fp4 e2m1. Codes[i][k] (A) or Codes[j][k] (B, transposed).
void pack(std::vector<uint32_t> &Buf, unsigned Base, unsigned Fmt,
          const std::vector<std::vector<uint8_t>> &Codes) {
  for (unsigned X = 0; X < kDim; ++X)
    for (unsigned K = 0; K < kK; ++K) {
      unsigned Lane, Bit;
      if (Fmt == 0) {
        const unsigned G = (K / 16) % 4;
        Lane = 16 * G + X;
        Bit = 8 * (K < 64 ? K % 16 : 16 + K % 16);
      } else {
        Lane = 16 * (K / 32) + X;
        Bit = 4 * (K % 32);
      }
      const unsigned Width = Fmt == 0 ? 8 : 4;
      Buf[Base + 8 * Lane + Bit / 32] |= uint32_t(Codes[X][K] & ((1u << Width) - 1)) << (Bit % 32);
    }
}

double decode(unsigned Fmt, uint8_t Code) {
  return double(smallToF32(Code, Fmt == 0 ? SmallFormat::E4M3 : SmallFormat::E2M1));
}

// Buffer: A lanes' registers at dword 8 * lane, B at 512 + 8 * lane, scale words at 1024 + lane
// (A) and 1088 + lane (B); D comes back at 2048 + 4 * lane.
Operands make(unsigned FmtA, unsigned FmtB, bool Scaled, unsigned ByteA, unsigned ByteB,
              uint64_t Seed) {
  std::mt19937_64 R(Seed);
  Operands O;
  auto codes = [&](unsigned Fmt) {
    std::vector<std::vector<uint8_t>> C(kDim, std::vector<uint8_t>(kK));
    for (auto &Row : C)
      for (uint8_t &V : Row) {
        V = uint8_t(R() & (Fmt == 0 ? 0xff : 0xf));
        if (Fmt == 0 && (V & 0x7f) == 0x7f)
          V ^= 1; // no NaN codes
      }
    return C;
  };
  auto A = codes(FmtA), B = codes(FmtB);
  pack(O.Buffer, 0, FmtA, A);
  pack(O.Buffer, 512, FmtB, B);
  uint8_t SA[kDim][4], SB[kDim][4];
  for (unsigned X = 0; X < kDim; ++X)
    for (unsigned Blk = 0; Blk < 4; ++Blk) {
      SA[X][Blk] = Scaled ? uint8_t(120 + R() % 15) : 127;
      SB[X][Blk] = Scaled ? uint8_t(120 + R() % 15) : 127;
      // The other bytes of the scale words hold values that must not be picked.
      uint32_t WA = 0x7e7e7e7eu, WB = 0x81818181u;
      WA = (WA & ~(0xffu << 8 * ByteA)) | uint32_t(SA[X][Blk]) << 8 * ByteA;
      WB = (WB & ~(0xffu << 8 * ByteB)) | uint32_t(SB[X][Blk]) << 8 * ByteB;
      O.Buffer[1024 + 16 * Blk + X] = WA;
      O.Buffer[1088 + 16 * Blk + X] = WB;
    }
  for (unsigned I = 0; I < kDim; ++I)
    for (unsigned J = 0; J < kDim; ++J) {
      double S = 0, Abs = 0;
      for (unsigned K = 0; K < kK; ++K) {
        const double P = decode(FmtA, A[I][K]) * std::ldexp(1.0, SA[I][K / 32] - 127) *
                         decode(FmtB, B[J][K]) * std::ldexp(1.0, SB[J][K / 32] - 127);
        S += P;
        Abs += std::fabs(P);
      }
      O.Want[I][J] = S;
      O.AbsSum[I][J] = Abs;
    }
  return O;
}

AsmRun runMfma(const Operands &O, const std::string &Mfma) {
  AsmKernel K;
  K.Target = "gfx950";
  K.BufferDwords = 4096;
  K.Vgprs = 64;
  std::string Body = "\tv_lshlrev_b32 v2, 5, v0\n"
                     "\tv_add_u32 v3, 0x800, v2\n"
                     "\tv_add_u32 v22, 0x1000, v1\n"
                     "\tv_add_u32 v23, 0x1100, v1\n"
                     "\tglobal_load_dwordx4 v[4:7], v2, s[2:3]\n"
                     "\tglobal_load_dwordx4 v[8:11], v2, s[2:3] offset:16\n"
                     "\tglobal_load_dwordx4 v[12:15], v3, s[2:3]\n"
                     "\tglobal_load_dwordx4 v[16:19], v3, s[2:3] offset:16\n"
                     "\tglobal_load_dword v20, v22, s[2:3]\n"
                     "\tglobal_load_dword v21, v23, s[2:3]\n"
                     "\tv_mov_b32 v24, 0\n\tv_mov_b32 v25, 0\n\tv_mov_b32 v26, 0\n"
                     "\tv_mov_b32 v27, 0\n"
                     "\ts_waitcnt vmcnt(0)\n\t" +
                     Mfma +
                     "\n\ts_nop 7\n\ts_nop 7\n\ts_nop 7\n"
                     "\tv_lshlrev_b32 v28, 4, v0\n"
                     "\tv_add_u32 v28, 0x2000, v28\n"
                     "\tglobal_store_dwordx4 v28, v[24:27], s[2:3]\n"
                     "\ts_waitcnt vmcnt(0)\n";
  K.Init = O.Buffer;
  return runAsmKernel(Body, K);
}

void check(const AsmRun &R, const Operands &O) {
  ASSERT_EQ(R.Error, "");
  for (unsigned I = 0; I < kDim; ++I)
    for (unsigned J = 0; J < kDim; ++J) {
      const unsigned Lane = 16 * (I / 4) + J, Reg = I % 4;
      const double Got = double(bitsToF32(R.Buffer[2048 + 4 * Lane + Reg]));
      // 128 f32 roundings of partial sums, each at most 2^-24 of the running magnitude.
      EXPECT_NEAR(Got, O.Want[I][J], kK * std::ldexp(O.AbsSum[I][J], -24) + 1e-30)
          << "D[" << I << "][" << J << "]";
    }
}

TEST(MfmaF8F6F4, Fp8TimesFp8Unscaled) {
  Operands O = make(0, 0, false, 0, 0, 1);
  check(runMfma(O, "v_mfma_f32_16x16x128_f8f6f4 v[24:27], v[4:11], v[12:19], v[24:27]"), O);
}

TEST(MfmaF8F6F4, Fp8TimesFp8WithPerBlockScalesAndByteSelects) {
  // op_sel:[1,0,0] op_sel_hi:[0,1,0]: A's scale is byte 1 of its word, B's byte 2.
  Operands O = make(0, 0, true, 1, 2, 2);
  check(runMfma(O, "v_mfma_scale_f32_16x16x128_f8f6f4 v[24:27], v[4:11], v[12:19], v[24:27], "
                   "v20, v21 op_sel:[1,0,0] op_sel_hi:[0,1,0]"),
        O);
}

TEST(MfmaF8F6F4, Fp4TimesFp8MixedFormatsScaled) {
  // cbsz:4 (A is FP4 in 4 registers), blgp:0 (B is FP8); scales from byte 0 of both words.
  Operands O = make(4, 0, true, 0, 0, 3);
  check(runMfma(O, "v_mfma_scale_f32_16x16x128_f8f6f4 v[24:27], v[4:7], v[12:19], v[24:27], "
                   "v20, v21 op_sel_hi:[0,0,0] cbsz:4"),
        O);
}

TEST(MfmaF8F6F4, PrefixFollowedByAnythingElseIsIllegal) {
  AsmKernel K;
  K.Target = "gfx950";
  auto R = runAsmKernel("\tv_mfma_ld_scale_b32 v2, v3\n\tv_mov_b32 v4, 0\n", K);
  EXPECT_NE(R.Error.find("v_mfma_ld_scale_b32 at pc 0x"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("is not followed by an F8F6F4 MFMA (the two form one scaled MFMA "
                         "instruction): v_mov_b32_e32 v4, 0 at pc 0x"),
            std::string::npos)
      << R.Error;
}

TEST(MfmaF8F6F4, FormatCodeTheHardwareRejectsIsAnIllegalInstruction) {
  AsmKernel K;
  K.Target = "gfx950";
  // v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3] with cbsz = 5 (the assembler
  // refuses it; these are its words).
  auto R = runAsmKernel("\t.long 0xd3ad0500, 0x04021904\n", K);
  EXPECT_NE(R.Error.find("v_mfma_f32_16x16x128_f8f6f4 at pc 0x"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find(": format code 5 (cbsz selects A's format, blgp B's: 0..4) is invalid"),
            std::string::npos)
      << R.Error;
}

} // namespace
