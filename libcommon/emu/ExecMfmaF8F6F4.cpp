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

bool formatOf(unsigned code, Format &out) {
  switch (code) {
  case 0:
    out = {8, 8, SmallFormat::E4M3};
    return true;
  case 1:
    out = {8, 8, SmallFormat::E5M2};
    return true;
  case 2:
    out = {6, 6, SmallFormat::E2M3};
    return true;
  case 3:
    out = {6, 6, SmallFormat::E3M2};
    return true;
  case 4:
    out = {4, 4, SmallFormat::E2M1};
    return true;
  default:
    return false;
  }
}

[[noreturn]] void refuse(const ExecCtx &c, const Inst &in, const std::string &why) {
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + std::string(opNameLower(in.Operation)) + " at pc " +
                     hexText(c.InstPc) + ": " + why,
                 c.InstPc);
}

// Element p (width bits) of a lane's operand packed over consecutive registers from base.
inline uint32_t element(const WaveState &w, unsigned base, unsigned lane, unsigned p,
                        unsigned bits) {
  const unsigned bit = p * bits, r = bit / 32, sh = bit % 32;
  uint64_t v = w.vrow(base + r)[lane];
  if (sh + bits > 32)
    v |= uint64_t(w.vrow(base + r + 1)[lane]) << 32;
  return uint32_t(v >> sh) & ((1u << bits) - 1);
}

// Lane and element position of A[i][k] (B[k][j] with i := j).
inline void position(unsigned dim, const Format &f, unsigned i, unsigned k, unsigned &lane,
                     unsigned &p) {
  if (f.Bits == 8) {
    const unsigned groups = 64 / dim; // 4 (16x16x128) or 2 (32x32x64)
    lane = dim * ((k / 16) % groups) + i;
    p = 16 * (k / (16 * groups)) + k % 16;
  } else {
    lane = dim * (k / 32) + i;
    p = k % 32;
  }
}

// The E8M0 scale of row/column x in block b from one scale operand.
uint8_t scaleByte(const ExecCtx &c, const Inst &prefix, unsigned which, unsigned dim, unsigned b,
                  unsigned x) {
  const uint16_t code = prefix.Src[which];
  if (isVgprCode(code)) {
    const unsigned byte = ((prefix.Opsel >> which) & 1) + 2 * ((prefix.OpselHi >> which) & 1);
    return uint8_t(c.W.vrowOf(code)[dim * b + x] >> (8 * byte));
  }
  // An SGPR or a constant: its bits [30:23], whatever op_sel says.
  return uint8_t(readScalar32(c.W, prefix, code, OpType::B32) >> 23);
}

} // namespace

bool execMfmaF8F6F4(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  if (in.Operation == Op::V_MFMA_LD_SCALE_B32) {
    if (in.Src[0] == kNoOperand || in.Src[1] == kNoOperand)
      return false;
    w.MfmaScale = in;
    w.MfmaScalePc = c.InstPc;
    w.MfmaScalePending = true;
    return true;
  }
  const bool is16 = in.Operation == Op::V_MFMA_F32_16X16X128_F8F6F4;
  if (!is16 && in.Operation != Op::V_MFMA_F32_32X32X64_F8F6F4)
    return false;
  const bool scaled = w.MfmaScalePending && w.MfmaScalePc + 8 == c.InstPc;
  w.MfmaScalePending = false;
  Format fa, fb;
  if (!formatOf(in.Cbsz, fa) || !formatOf(in.Blgp, fb))
    throw EmuError(EmuErrorKind::IllegalInst,
                   std::string(opNameLower(in.Operation)) + " at pc " + hexText(c.InstPc) +
                       ": format code " +
                       std::to_string(formatOf(in.Cbsz, fa) ? in.Blgp : in.Cbsz) +
                       " (cbsz selects A's format, blgp B's: 0..4) is invalid");
  // The MFMA half of a scaled MFMA carries abid = 1 (LLVM's encoder sets bit 11 there: it is
  // how the pair is encoded, not a broadcast); any other abid is not documented.
  if (in.Abid != (scaled ? 1u : 0u))
    refuse(c, in,
           scaled ? "abid other than 1 in the MFMA half of a scaled F8F6F4 MFMA is not documented"
                  : "abid on an F8F6F4 MFMA without the v_mfma_ld_scale_b32 prefix is not "
                    "documented");
  const unsigned dim = is16 ? 16 : 32, K = is16 ? 128 : 64, blocks = K / 32;
  const unsigned dRegs = is16 ? 4 : 16;
  const unsigned aBase = mfmaOperandBase(c, in, in.Src[0], fa.Regs, "A");
  const unsigned bBase = mfmaOperandBase(c, in, in.Src[1], fb.Regs, "B");
  const unsigned dBase = mfmaOperandBase(c, in, in.Dst, dRegs, "D");
  const bool cIsVec = in.Src[2] >= kVgprBase;
  const unsigned cBase = cIsVec ? mfmaOperandBase(c, in, in.Src[2], dRegs, "C") : 0;

  // Inputs, scaled: A as [i][k], B transposed as [j][k]; C as [i][j]. Everything is read
  // before D is written (D may overlap A, B or C).
  static thread_local float A[32 * 128], B[32 * 128];
  static thread_local uint32_t C[32 * 32];
  for (unsigned i = 0; i < dim; ++i)
    for (unsigned k = 0; k < K; ++k) {
      unsigned lane, p;
      position(dim, fa, i, k, lane, p);
      float a = smallToF32(element(w, aBase, lane, p, fa.Bits), fa.F);
      position(dim, fb, i, k, lane, p);
      float b = smallToF32(element(w, bBase, lane, p, fb.Bits), fb.F);
      if (scaled) {
        a *= e8m0ToF32(scaleByte(c, w.MfmaScale, 0, dim, k / 32, i));
        b *= e8m0ToF32(scaleByte(c, w.MfmaScale, 1, dim, k / 32, i));
      }
      A[i * K + k] = a;
      B[i * K + k] = b;
    }
  (void)blocks;
  auto dpos = [&](unsigned i, unsigned j, unsigned &reg, unsigned &lane) {
    if (is16) {
      reg = i % 4;
      lane = 16 * (i / 4) + j;
    } else {
      reg = 4 * (i / 8) + i % 4;
      lane = 32 * ((i / 4) % 2) + j;
    }
  };
  const uint32_t cConst = cIsVec ? 0 : readScalar32(w, in, in.Src[2], OpType::F32);
  for (unsigned i = 0; i < dim; ++i)
    for (unsigned j = 0; j < dim; ++j) {
      unsigned reg, lane;
      dpos(i, j, reg, lane);
      C[i * dim + j] = cIsVec ? w.vrow(cBase + reg)[lane] : cConst;
    }
  for (unsigned i = 0; i < dim; ++i)
    for (unsigned j = 0; j < dim; ++j) {
      float acc = bitsToF32(C[i * dim + j]);
      const float *ar = &A[i * K], *br = &B[j * K];
      for (unsigned k = 0; k < K; ++k)
        acc = std::fma(ar[k], br[k], acc);
      unsigned reg, lane;
      dpos(i, j, reg, lane);
      w.vrow(dBase + reg)[lane] = f32ToBits(acc);
    }
  return true;
}

} // namespace asmevo::emu
