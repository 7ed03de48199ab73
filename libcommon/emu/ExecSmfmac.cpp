// gfx950's FP8/BF8 sparse MFMAs (SMFMAC, 2:4 structured sparsity in A):
// v_smfmac_f32_16x16x128_{fp8,bf8}_{fp8,bf8} and v_smfmac_f32_32x32x64_{fp8,bf8}_{fp8,bf8}.
// A holds only the two non-zero values of every group of four K (A compressed: dim x K/2), B is
// dense (K x dim); the index VGPR (src2) says, per row and group, at which two of the group's
// four K positions the two values sit: D[i][j] = C[i][j] + sum over groups q and s = 0, 1 of
// A_comp[i][2q + s] * B[4q + p_s][j], where the row's 4-bit field holds p_0 in bits [1:0] and
// p_1 in bits [3:2]. D is also C (vdst), as on every SMFMAC.
//
// Operand layout, per lane and byte (byte b of a lane's operand is byte b % 4 of register
// b / 4), for row i, column j, compressed column c, K position k and group q:
//   16x16x128: A_comp[i][c] at lane 16 * (2 * c[5] + c[3]) + i, byte 4 * (2 * c[2] + c[4]) +
//              c % 4 (c[n]: bit n of c);
//              B[k][j] at lane 16 * ((k / 8) % 4) + j, byte 8 * (k / 32) + k % 8;
//              D/C as every 16x16 f32 MFMA: register i % 4 of lane 16 * (i / 4) + j;
//              the field of (i, q) is nibble 2 * q[3] + 4 * q[1] + q[0] of the index in lane
//              16 * (2 * q[4] + q[2]) + i.
//   32x32x64:  A_comp[i][c] at lane 32 * c[4] + i, byte 4 * (2 * c[2] + c[3]) + c % 4;
//              B[k][j] at lane 32 * ((k / 8) % 2) + j, byte 8 * (k / 16) + k % 8;
//              D/C as every 32x32 f32 MFMA: register 4 * (i / 8) + i % 4 of lane
//              32 * ((i / 4) % 2) + j;
//              the field of (i, q) is nibble q[0] + 2 * q[2] + 4 * q[1] of the index in lane
//              32 * q[3] + i.
// Source: AMD's CDNA4 ISA guide says what these compute (../shared/isa: "D = A (sparse 16x128) *
// B (128x16) + D (16x16)") but not their lane layout, nor does LLVM (it only checks operand
// sizes); the layout above is the one ROCm/hip-fpsan (include/fpsan/amdgcn_smfmac.hpp,
// commit b83eb3eb) reverse-engineered with single-hot probes and verified against MI350
// hardware on random inputs (its tests/ compare the builtin with that dataflow bit for bit).
// It is a third party's measurement, not AMD's specification: say so where it matters.
// Formats: gfx950's FP8 E4M3 and BF8 E5M2 (OCP).
//
// Numerics, as the dense MFMAs here (ExecMfma.cpp): acc = C, then acc += a * b in compressed
// column order (q, then s), one f32 rounding per step (an FP8/BF8 product is exact in f32).
// The hardware's summation order and internal precision are not documented.
// Not emulated, with the reason: cbsz, abid and blgp other than 0 (on the 16-bit-index SMFMACs
// they select the index half; on these, whose index uses all 32 bits, nothing documents them).
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/MfmaOperand.h"
#include "support/Float.h"
#include "support/SmallFloat.h"

#include <cmath>
#include <string>

namespace asmevo::emu {

namespace {

struct Shape {
  bool Is16 = false;
  SmallFormat Fa = SmallFormat::E4M3, Fb = SmallFormat::E4M3;
};

bool shapeOf(Op Op, Shape &s) {
  using SF = SmallFormat;
  switch (Op) {
  case Op::V_SMFMAC_F32_16X16X128_FP8_FP8:
    s = {true, SF::E4M3, SF::E4M3};
    return true;
  case Op::V_SMFMAC_F32_16X16X128_FP8_BF8:
    s = {true, SF::E4M3, SF::E5M2};
    return true;
  case Op::V_SMFMAC_F32_16X16X128_BF8_FP8:
    s = {true, SF::E5M2, SF::E4M3};
    return true;
  case Op::V_SMFMAC_F32_16X16X128_BF8_BF8:
    s = {true, SF::E5M2, SF::E5M2};
    return true;
  case Op::V_SMFMAC_F32_32X32X64_FP8_FP8:
    s = {false, SF::E4M3, SF::E4M3};
    return true;
  case Op::V_SMFMAC_F32_32X32X64_FP8_BF8:
    s = {false, SF::E4M3, SF::E5M2};
    return true;
  case Op::V_SMFMAC_F32_32X32X64_BF8_FP8:
    s = {false, SF::E5M2, SF::E4M3};
    return true;
  case Op::V_SMFMAC_F32_32X32X64_BF8_BF8:
    s = {false, SF::E5M2, SF::E5M2};
    return true;
  default:
    return false;
  }
}

unsigned bit(unsigned x, unsigned n) { return (x >> n) & 1; }

// Byte b of a lane's operand packed over consecutive registers from base.
inline uint32_t byteAt(const WaveState &w, unsigned Base, unsigned Lane, unsigned b) {
  return (w.vrow(Base + b / 4)[Lane] >> (8 * (b % 4))) & 0xff;
}

} // namespace

bool execSmfmac(ExecCtx &c, const Inst &In) {
  Shape s;
  if (!shapeOf(In.Operation, s))
    return false;
  WaveState &w = c.W;
  if (In.Cbsz || In.Abid || In.Blgp)
    throw EmuError(EmuErrorKind::Unsupported,
                   "unsupported instruction " + std::string(opNameLower(In.Operation)) + " at pc " +
                       hexText(c.InstPc) +
                       ": cbsz, abid or blgp other than 0 on an SMFMAC whose index uses all 32 "
                       "bits is not documented",
                   c.InstPc);
  const unsigned Dim = s.Is16 ? 16 : 32, K = s.Is16 ? 128 : 64, Groups = K / 4;
  const unsigned DRegs = s.Is16 ? 4 : 16;
  const unsigned ABase = mfmaOperandBase(c, In, In.Src[0], 4, "A");
  const unsigned BBase = mfmaOperandBase(c, In, In.Src[1], 8, "B");
  const unsigned DBase = mfmaOperandBase(c, In, In.Dst, DRegs, "D");
  if (!isVgprCode(In.Src[2]))
    throw EmuError(EmuErrorKind::IllegalInst, std::string(opNameLower(In.Operation)) + " at pc " +
                                                  hexText(c.InstPc) +
                                                  ": the sparsity index is not a VGPR");
  const uint32_t *Idx = w.vrowOf(In.Src[2]);

  // Everything is read before D is written (D may overlap A, B or the index).
  static thread_local float A[32 * 32], B[32 * 64]; // A_comp as [i][c], B transposed as [j][k]
  static thread_local uint8_t P[32 * 32];           // the dense K of A_comp[i][c]
  static thread_local uint32_t C[32 * 32];
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned Cc = 0; Cc < K / 2; ++Cc) {
      unsigned Lane, Byte;
      if (s.Is16) {
        Lane = 16 * (2 * bit(Cc, 5) + bit(Cc, 3)) + i;
        Byte = 4 * (2 * bit(Cc, 2) + bit(Cc, 4)) + Cc % 4;
      } else {
        Lane = 32 * bit(Cc, 4) + i;
        Byte = 4 * (2 * bit(Cc, 2) + bit(Cc, 3)) + Cc % 4;
      }
      A[i * (K / 2) + Cc] = smallToF32(byteAt(w, ABase, Lane, Byte), s.Fa);
    }
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned q = 0; q < Groups; ++q) {
      unsigned Lane, Nib;
      if (s.Is16) {
        Lane = 16 * (2 * bit(q, 4) + bit(q, 2)) + i;
        Nib = 2 * bit(q, 3) + 4 * bit(q, 1) + bit(q, 0);
      } else {
        Lane = 32 * bit(q, 3) + i;
        Nib = bit(q, 0) + 2 * bit(q, 2) + 4 * bit(q, 1);
      }
      const unsigned Field = (Idx[Lane] >> (4 * Nib)) & 0xf;
      P[i * (K / 2) + 2 * q] = uint8_t(4 * q + (Field & 3));
      P[i * (K / 2) + 2 * q + 1] = uint8_t(4 * q + (Field >> 2));
    }
  for (unsigned j = 0; j < Dim; ++j)
    for (unsigned k = 0; k < K; ++k) {
      const unsigned Lane = s.Is16 ? 16 * ((k / 8) % 4) + j : 32 * ((k / 8) % 2) + j;
      const unsigned Byte = s.Is16 ? 8 * (k / 32) + k % 8 : 8 * (k / 16) + k % 8;
      B[j * K + k] = smallToF32(byteAt(w, BBase, Lane, Byte), s.Fb);
    }
  auto Dpos = [&](unsigned i, unsigned j, unsigned &Reg, unsigned &Lane) {
    if (s.Is16) {
      Reg = i % 4;
      Lane = 16 * (i / 4) + j;
    } else {
      Reg = 4 * (i / 8) + i % 4;
      Lane = 32 * ((i / 4) % 2) + j;
    }
  };
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned j = 0; j < Dim; ++j) {
      unsigned Reg, Lane;
      Dpos(i, j, Reg, Lane);
      C[i * Dim + j] = w.vrow(DBase + Reg)[Lane];
    }
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned j = 0; j < Dim; ++j) {
      float Acc = bitsToF32(C[i * Dim + j]);
      const float *Ar = &A[i * (K / 2)], *Br = &B[j * K];
      const uint8_t *Pr = &P[i * (K / 2)];
      for (unsigned Cc = 0; Cc < K / 2; ++Cc)
        Acc = std::fma(Ar[Cc], Br[Pr[Cc]], Acc);
      unsigned Reg, Lane;
      Dpos(i, j, Reg, Lane);
      w.vrow(DBase + Reg)[Lane] = f32ToBits(Acc);
    }
  return true;
}

} // namespace asmevo::emu
