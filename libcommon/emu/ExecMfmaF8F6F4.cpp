// gfx950's F8F6F4 MFMAs: v_mfma_f32_16x16x128_f8f6f4 and v_mfma_f32_32x32x64_f8f6f4, plain and
// scaled. The scaled form (v_mfma_scale_f32_*_f8f6f4) is one 128-bit instruction (VOP3PX2)
// that LLVM, and this emulator's decoder, read as two: the prefix v_mfma_ld_scale_b32 (the
// scale operands) and the MFMA. The prefix records its operands in the wave; the MFMA right
// after it consumes them, so the pair runs as the one instruction the hardware sees. A prefix
// followed by anything else is an illegal instruction.
//
// Formats (cbsz for A, blgp for B): 0 FP8 E4M3, 1 BF8 E5M2 (OCP), 2 FP6 E2M3, 3 BF6 E3M2,
// 4 FP4 E2M1, taking 8, 8, 6, 6 and 4 VGPRs; 5..7 are invalid (LLVM's verifier rejects them).
// Operand layout (A row i, B column j; dim = 16 or 32; K = 128 or 64), per lane l and
// element position p in the lane's packed operand (element p at bit p * width):
//   FP8/BF8, 16x16x128: l = 16 * ((k / 16) % 4) + i,  p = 16 * (k / 64) + k % 16
//   FP8/BF8, 32x32x64:  l = 32 * ((k / 16) % 2) + i,  p = 16 * (k / 32) + k % 16
//   FP6/FP4:            l = dim * (k / 32) + i,         p = k % 32 (FP6 values cross dwords)
//   C/D:                as every 16x16 / 32x32 f32 MFMA (ExecMfma.cpp).
// Scales (the prefix): E8M0, 2^(e - 127), 0xff is NaN; one per 32 consecutive K (block
// b = k / 32); the scale of A's row i in block b is byte (op_sel[0] + 2 * op_sel_hi[0]) of
// lane dim * b + i of scale_src0, B's column j likewise from scale_src1 with op_sel[1] and
// op_sel_hi[1]. A scale operand that is an SGPR or a constant gives its bits [30:23] on every
// lane (LLVM's VOP3PInstructions.td records this for the hardware). Every product is scaled:
// D[i][j] = C[i][j] + sum_k A[i][k] * 2^(sa - 127) * B[k][j] * 2^(sb - 127).
// Sources: LLVM (the verifier's format table, VOP3PInstructions.td), AMD's rocjitsu emulator
// (ROCm/rocm-systems) for the lane layout, OCP MX for the formats. The Triton gfx950 GEMMs of
// test/corpus/triton check the layout end to end (test/unit/emu/triton_kernels_test.cpp).
//
// Numerics, as ExecMfma.cpp: acc = C, then acc += a * b for k in order, one f32 rounding per
// step (products of these formats and power-of-two scales are exact in f32 unless they leave
// its range). The hardware's summation order and internal precision are not documented.
// Not emulated, with the reason: abid on these ops except the 1 of a scaled MFMA's MFMA half
// (not documented), format codes 5..7 (invalid).
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/MfmaOperand.h"
#include "support/Float.h"
#include "support/SmallFloat.h"

#include <cmath>
#include <string>

namespace asmevo::emu {

namespace {

struct Format {
  unsigned Bits = 0, Regs = 0;
  SmallFormat F = SmallFormat::E4M3;
};

bool formatOf(unsigned Code, Format &Out) {
  switch (Code) {
  case 0:
    Out = {8, 8, SmallFormat::E4M3};
    return true;
  case 1:
    Out = {8, 8, SmallFormat::E5M2};
    return true;
  case 2:
    Out = {6, 6, SmallFormat::E2M3};
    return true;
  case 3:
    Out = {6, 6, SmallFormat::E3M2};
    return true;
  case 4:
    Out = {4, 4, SmallFormat::E2M1};
    return true;
  default:
    return false;
  }
}

[[noreturn]] void refuse(const ExecCtx &c, const Inst &In, const std::string &Why) {
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + std::string(opNameLower(In.Operation)) + " at pc " +
                     hexText(c.InstPc) + ": " + Why,
                 c.InstPc);
}

// Element p (width bits) of a lane's operand packed over consecutive registers from base.
inline uint32_t element(const WaveState &w, unsigned Base, unsigned Lane, unsigned p,
                        unsigned Bits) {
  const unsigned Bit = p * Bits, r = Bit / 32, Sh = Bit % 32;
  uint64_t v = w.vrow(Base + r)[Lane];
  if (Sh + Bits > 32)
    v |= uint64_t(w.vrow(Base + r + 1)[Lane]) << 32;
  return uint32_t(v >> Sh) & ((1u << Bits) - 1);
}

// Lane and element position of A[i][k] (B[k][j] with i := j).
inline void position(unsigned Dim, const Format &f, unsigned i, unsigned k, unsigned &Lane,
                     unsigned &p) {
  if (f.Bits == 8) {
    const unsigned Groups = 64 / Dim; // 4 (16x16x128) or 2 (32x32x64)
    Lane = Dim * ((k / 16) % Groups) + i;
    p = 16 * (k / (16 * Groups)) + k % 16;
  } else {
    Lane = Dim * (k / 32) + i;
    p = k % 32;
  }
}

// The E8M0 scale of row/column x in block b from one scale operand.
uint8_t scaleByte(const ExecCtx &c, const Inst &Prefix, unsigned Which, unsigned Dim, unsigned b,
                  unsigned x) {
  const uint16_t Code = Prefix.Src[Which];
  if (isVgprCode(Code)) {
    const unsigned Byte = ((Prefix.Opsel >> Which) & 1) + 2 * ((Prefix.OpselHi >> Which) & 1);
    return uint8_t(c.W.vrowOf(Code)[Dim * b + x] >> (8 * Byte));
  }
  // An SGPR or a constant: its bits [30:23], whatever op_sel says.
  return uint8_t(readScalar32(c.W, Prefix, Code, OpType::B32) >> 23);
}

} // namespace

bool execMfmaF8F6F4(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  if (In.Operation == Op::V_MFMA_LD_SCALE_B32) {
    if (In.Src[0] == kNoOperand || In.Src[1] == kNoOperand)
      return false;
    w.MfmaScale = In;
    w.MfmaScalePc = c.InstPc;
    w.MfmaScalePending = true;
    return true;
  }
  const bool Is16 = In.Operation == Op::V_MFMA_F32_16X16X128_F8F6F4;
  if (!Is16 && In.Operation != Op::V_MFMA_F32_32X32X64_F8F6F4)
    return false;
  const bool Scaled = w.MfmaScalePending && w.MfmaScalePc + 8 == c.InstPc;
  w.MfmaScalePending = false;
  Format Fa, Fb;
  if (!formatOf(In.Cbsz, Fa) || !formatOf(In.Blgp, Fb))
    throw EmuError(EmuErrorKind::IllegalInst,
                   std::string(opNameLower(In.Operation)) + " at pc " + hexText(c.InstPc) +
                       ": format code " +
                       std::to_string(formatOf(In.Cbsz, Fa) ? In.Blgp : In.Cbsz) +
                       " (cbsz selects A's format, blgp B's: 0..4) is invalid");
  // The MFMA half of a scaled MFMA carries abid = 1 (LLVM's encoder sets bit 11 there: it is
  // how the pair is encoded, not a broadcast); any other abid is not documented.
  if (In.Abid != (Scaled ? 1u : 0u))
    refuse(c, In,
           Scaled ? "abid other than 1 in the MFMA half of a scaled F8F6F4 MFMA is not documented"
                  : "abid on an F8F6F4 MFMA without the v_mfma_ld_scale_b32 prefix is not "
                    "documented");
  const unsigned Dim = Is16 ? 16 : 32, K = Is16 ? 128 : 64, Blocks = K / 32;
  const unsigned DRegs = Is16 ? 4 : 16;
  const unsigned ABase = mfmaOperandBase(c, In, In.Src[0], Fa.Regs, "A");
  const unsigned BBase = mfmaOperandBase(c, In, In.Src[1], Fb.Regs, "B");
  const unsigned DBase = mfmaOperandBase(c, In, In.Dst, DRegs, "D");
  const bool CIsVec = In.Src[2] >= kVgprBase;
  const unsigned CBase = CIsVec ? mfmaOperandBase(c, In, In.Src[2], DRegs, "C") : 0;

  // Inputs, scaled: A as [i][k], B transposed as [j][k]; C as [i][j]. Everything is read
  // before D is written (D may overlap A, B or C).
  static thread_local float A[32 * 128], B[32 * 128];
  static thread_local uint32_t C[32 * 32];
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned k = 0; k < K; ++k) {
      unsigned Lane, p;
      position(Dim, Fa, i, k, Lane, p);
      float a = smallToF32(element(w, ABase, Lane, p, Fa.Bits), Fa.F);
      position(Dim, Fb, i, k, Lane, p);
      float b = smallToF32(element(w, BBase, Lane, p, Fb.Bits), Fb.F);
      if (Scaled) {
        a *= e8m0ToF32(scaleByte(c, w.MfmaScale, 0, Dim, k / 32, i));
        b *= e8m0ToF32(scaleByte(c, w.MfmaScale, 1, Dim, k / 32, i));
      }
      A[i * K + k] = a;
      B[i * K + k] = b;
    }
  (void)Blocks;
  auto Dpos = [&](unsigned i, unsigned j, unsigned &Reg, unsigned &Lane) {
    if (Is16) {
      Reg = i % 4;
      Lane = 16 * (i / 4) + j;
    } else {
      Reg = 4 * (i / 8) + i % 4;
      Lane = 32 * ((i / 4) % 2) + j;
    }
  };
  const uint32_t CConst = CIsVec ? 0 : readScalar32(w, In, In.Src[2], OpType::F32);
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned j = 0; j < Dim; ++j) {
      unsigned Reg, Lane;
      Dpos(i, j, Reg, Lane);
      C[i * Dim + j] = CIsVec ? w.vrow(CBase + Reg)[Lane] : CConst;
    }
  for (unsigned i = 0; i < Dim; ++i)
    for (unsigned j = 0; j < Dim; ++j) {
      float Acc = bitsToF32(C[i * Dim + j]);
      const float *Ar = &A[i * K], *Br = &B[j * K];
      for (unsigned k = 0; k < K; ++k)
        Acc = std::fma(Ar[k], Br[k], Acc);
      unsigned Reg, Lane;
      Dpos(i, j, Reg, Lane);
      w.vrow(DBase + Reg)[Lane] = f32ToBits(Acc);
    }
  return true;
}

} // namespace asmevo::emu
