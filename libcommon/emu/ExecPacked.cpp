// VOP3P executor (non-MFMA): packed 16-bit math, packed f32 math (gfx90a+), mixed-precision
// FMA (v_fma_mix* / v_mad_mix*), dot products, and the AccVGPR moves (v_accvgpr_mov_b32 is
// VOP1-encoded: whoever executes VOP1 may forward it here). MFMA/SMFMAC ops are execMfma's.
//
// Operand semantics (CDNA3/CDNA4 ISA, VOP3P):
//  - 16-bit packed sources: the low result half reads half op_sel[i] of source i (0 = [15:0],
//    1 = [31:16]), the high result half reads half op_sel_hi[i]. neg_lo[i] negates the value
//    feeding the low half, neg_hi[i] the one feeding the high half (float ops only).
//  - Packed f32 sources (v_pk_fma/mul/add_f32) are 64-bit: op_sel / op_sel_hi pick a dword.
//    v_pk_mov_b32: D[31:0] = src0 dword op_sel[0], D[63:32] = src1 dword op_sel[1].
//  - Inline constants as packed sources are 32-bit values with the constant in the low half:
//    integer constants are the sign-extended 32-bit integer, float constants the 16-bit pattern
//    (f16, or bf16 for bf16 operands) zero-extended; compilers write op_sel_hi:[..,0] to splat
//    a constant into both halves. For 64-bit packed f32 sources the low dword is the f32
//    constant and the high dword is 0 (or all ones for a negative integer constant).
//  - v_fma_mix*/v_mad_mix*: op_sel_hi[i] = 0 reads source i as f32, else as f16 from the half
//    op_sel[i] picks; neg_lo[i] negates and neg_hi[i] takes the absolute value (abs first).
//    The mix ops are fused on gfx90a+ (v_fma_mix*): one rounding. mixlo/mixhi write one half
//    of D and keep the other.
//  - clamp: float results clamp to [0, 1] (NaN -> 0 when MODE.DX10_CLAMP is set); integer
//    add/sub/mad/dot results saturate to the destination type's range.
// Arithmetic uses the host's IEEE round-to-nearest-even; f16 results are computed exactly in
// double (sums and products of two f16 values are exact there) and rounded once to f16; the fma
// forms that give f16 results sum the exact product in double rounded to odd, then round once
// to f16 (no double-rounding error). MODE (FpMode.h): the default round/denormal fields run
// the plain code; any other setting runs the Moded instantiation, which flushes denormal
// inputs and results as the field of each operand's precision says (f32: single; f16: double/
// half; bf16 has none), and rounds in the result's field (host rounding for f32 results,
// f64ToF16Rm for f16 ones). IEEE and DX10_CLAMP are read per instruction in both.
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/FpMode.h"
#include "support/Float.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

namespace asmevo::emu {
namespace {

constexpr uint32_t kModeDx10Clamp = fpmode::kDx10Clamp;
constexpr uint32_t kModeIeee = fpmode::kIeee;

// The one place float results go through (default mode).
inline uint16_t f16Result(double x) { return f64ToF16(x); }
inline uint32_t f32Result(float x) { return f32ToBits(x); }

// MODE handling of one packed instruction (the Moded instantiations).
struct PkMode {
  bool Ftz32In = false, Ftz32Out = false, Ftz16In = false, Ftz16Out = false;
  unsigned Round16 = 0; // f16 result round (MODE.FP_ROUND double/half field)
  explicit PkMode(uint32_t Mode)
      : Ftz32In(!(Mode & fpmode::kDenormSpIn)), Ftz32Out(!(Mode & fpmode::kDenormSpOut)),
        Ftz16In(!(Mode & fpmode::kDenormDpIn)), Ftz16Out(!(Mode & fpmode::kDenormDpOut)),
        Round16(fpmode::roundDp(Mode)) {}
  uint16_t in16(uint16_t h) const { return Ftz16In ? uint16_t(fpmode::flush16(h)) : h; }
  float in32(float f) const { return Ftz32In ? bitsToF32(fpmode::flush32(f32ToBits(f))) : f; }
  uint16_t out16(double x) const {
    uint16_t h = f64ToF16Rm(x, Round16);
    return Ftz16Out ? uint16_t(fpmode::flush16(h)) : h;
  }
  uint32_t out32(float x) const {
    uint32_t b = f32ToBits(x);
    return Ftz32Out ? fpmode::flush32(b) : b;
  }
};

// a * b + c for f16 operands in double (the product is exact), rounded once to f16 later:
// to odd in nearest-even mode; in a directed mode the host sum already rounds that way.
inline double fmaSum(double a, double b, double c, unsigned Round) {
  return Round ? a * b + c : addRoundOdd(a * b, c);
}

inline double clampUnit(double x, uint32_t Mode) {
  if (std::isnan(x))
    return (Mode & kModeDx10Clamp) ? 0.0 : x;
  return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

inline bool f16IsNan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
inline bool f16IsSnan(uint16_t h) { return f16IsNan(h) && !(h & 0x200); }
inline uint16_t f16Quiet(uint16_t h) { return h | 0x200; }

// IEEE-754 maxNum/minNum as the VALU does them: a quiet NaN operand yields the other operand;
// in IEEE mode a signalling NaN operand yields a quiet NaN; -0 < +0.
uint16_t f16MinMax(uint16_t a, uint16_t b, bool IsMax, uint32_t Mode) {
  bool An = f16IsNan(a), Bn = f16IsNan(b);
  if ((Mode & kModeIeee) && (f16IsSnan(a) || f16IsSnan(b)))
    return f16Quiet(f16IsSnan(a) ? a : b);
  if (An && Bn)
    return f16Quiet(a);
  if (An)
    return b;
  if (Bn)
    return a;
  float Fa = f16ToF32(a), Fb = f16ToF32(b);
  if (Fa == Fb) { // equal values, possibly +0 / -0
    bool ANeg = a & 0x8000;
    if (IsMax)
      return ANeg ? b : a;
    return ANeg ? a : b;
  }
  return (IsMax ? Fa > Fb : Fa < Fb) ? a : b;
}

// IEEE-754-2019 maximum/minimum: NaN-propagating, -0 < +0.
uint16_t f16MaximumMinimum(uint16_t a, uint16_t b, bool IsMax) {
  if (f16IsNan(a))
    return f16Quiet(a);
  if (f16IsNan(b))
    return f16Quiet(b);
  return f16MinMax(a, b, IsMax, 0);
}

bool isIntInlineCode(uint16_t Code) { return Code >= 128 && Code <= 208; }

// The 32-bit value of a packed 16-bit (or 32-bit mixed) VOP3P source for all lanes.
const uint32_t *packedSrc32(const WaveState &w, const Inst &In, uint16_t Code, OpType Half,
                            uint32_t *Tmp) {
  if (Code >= kVgprBase)
    return w.vrowOf(Code);
  uint32_t v;
  if (isIntInlineCode(Code))
    v = uint32_t(inlineConstant(Code, OpType::B32));
  else if (isInlineConstantCode(Code))
    v = uint32_t(inlineConstant(Code, Half)); // 16-bit pattern, high half 0
  else
    v = readScalar32(w, In, Code, OpType::B32);
  for (unsigned i = 0; i < kWaveSize; ++i)
    Tmp[i] = v;
  return Tmp;
}

// One lane of a 64-bit packed-f32 source.
uint64_t packedSrc64(const WaveState &w, const Inst &In, uint16_t Code, unsigned Lane) {
  if (Code >= kVgprBase) {
    if (vectorIndex(Code) + 1 >= kNumVectorRegs)
      throw EmuError(EmuErrorKind::IllegalInst, "VOP3P 64-bit source out of range");
    return readVector64(w, Code, Lane);
  }
  if (Code < 127)
    return w.S[Code] | (uint64_t(w.S[Code + 1]) << 32);
  if (isIntInlineCode(Code))
    return inlineConstant(Code, OpType::B64); // sign-extended
  if (isInlineConstantCode(Code))
    return inlineConstant(Code, OpType::F32);
  return readScalar32(w, In, Code, OpType::B32);
}

inline uint16_t half(uint32_t v, bool Hi) { return uint16_t(Hi ? v >> 16 : v); }
inline bool bit(uint8_t m, unsigned i) { return (m >> i) & 1; }

// Which VOP3P op families this file implements.
enum class Kind { F16x2, I16x2, F32x2, PkMov, Mix, Dot, AccRead, AccWrite, AccMov, None };

Kind kindOf(Op Op) {
  switch (Op) {
  case Op::V_PK_ADD_F16:
  case Op::V_PK_MUL_F16:
  case Op::V_PK_FMA_F16:
  case Op::V_PK_MAX_F16:
  case Op::V_PK_MIN_F16:
  case Op::V_PK_MAXIMUM3_F16:
  case Op::V_PK_MINIMUM3_F16:
    return Kind::F16x2;
  case Op::V_PK_ADD_U16:
  case Op::V_PK_ADD_I16:
  case Op::V_PK_SUB_U16:
  case Op::V_PK_SUB_I16:
  case Op::V_PK_MUL_LO_U16:
  case Op::V_PK_LSHLREV_B16:
  case Op::V_PK_LSHRREV_B16:
  case Op::V_PK_ASHRREV_I16:
  case Op::V_PK_MAX_I16:
  case Op::V_PK_MAX_U16:
  case Op::V_PK_MIN_I16:
  case Op::V_PK_MIN_U16:
  case Op::V_PK_MAD_I16:
  case Op::V_PK_MAD_U16:
    return Kind::I16x2;
  case Op::V_PK_FMA_F32:
  case Op::V_PK_MUL_F32:
  case Op::V_PK_ADD_F32:
    return Kind::F32x2;
  case Op::V_PK_MOV_B32:
    return Kind::PkMov;
  case Op::V_MAD_MIX_F32:
  case Op::V_MAD_MIXLO_F16:
  case Op::V_MAD_MIXHI_F16:
    return Kind::Mix;
  case Op::V_DOT2_F32_F16:
  case Op::V_DOT2_F32_BF16:
  case Op::V_DOT2_I32_I16:
  case Op::V_DOT2_U32_U16:
  case Op::V_DOT4_I32_I8:
  case Op::V_DOT4_U32_U8:
  case Op::V_DOT8_I32_I4:
  case Op::V_DOT8_U32_U4:
    return Kind::Dot;
  case Op::V_ACCVGPR_READ:
    return Kind::AccRead;
  case Op::V_ACCVGPR_WRITE:
    return Kind::AccWrite;
  default:
    // v_accvgpr_mov_b32 (VOP1; the op table may list it with or without _E32/_E64).
    if (std::strncmp(opName(Op), "V_ACCVGPR_MOV_B32", 17) == 0)
      return Kind::AccMov;
    return Kind::None;
  }
}

uint32_t *dstRow(WaveState &w, const Inst &In, unsigned Regs = 1) {
  if (In.Dst < kVgprBase || In.Dst >= kAgprBase + 256 ||
      vectorIndex(In.Dst) + Regs > kNumVectorRegs)
    throw EmuError(EmuErrorKind::IllegalInst,
                   std::string(opName(In.Operation)) + ": destination is not a vector register");
  return w.vrowOf(In.Dst);
}

// ---- packed f16 -------------------------------------------------------------------------
template <bool Moded> void execF16x2(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  const PkMode Pm(w.Mode);
  fpmode::HostRounding Guard(Moded ? fpmode::roundDp(w.Mode) : fpmode::kNearestEven);
  const unsigned Ns = (In.Operation == Op::V_PK_FMA_F16 || In.Operation == Op::V_PK_MAXIMUM3_F16 ||
                       In.Operation == Op::V_PK_MINIMUM3_F16)
                          ? 3
                          : 2;
  uint32_t Tmp[3][kWaveSize];
  const uint32_t *s[3] = {nullptr, nullptr, nullptr}; // s[2] only for the three-source ops
  for (unsigned i = 0; i < Ns; ++i)
    s[i] = packedSrc32(w, In, In.Src[i], OpType::F16, Tmp[i]);
  uint32_t *d = dstRow(w, In);
  const uint32_t Mode = w.Mode;
  // Decided once per instruction: which half of each source each result half reads (op_sel,
  // op_sel_hi) and whether its sign flips (neg, neg_hi); then one lane loop per operation.
  unsigned Shift[2][3];
  uint16_t Flip[2][3];
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned i = 0; i < 3; ++i) {
      Shift[h][i] = bit(h ? In.OpselHi : In.Opsel, i) ? 16 : 0;
      Flip[h][i] = bit(h ? In.NegHi : In.Neg, i) ? 0x8000 : 0;
    }
  auto X16 = [&](unsigned Lane, unsigned h, unsigned i) -> uint16_t {
    uint16_t x = uint16_t(uint16_t(s[i][Lane] >> Shift[h][i]) ^ Flip[h][i]);
    return Moded ? Pm.in16(x) : x;
  };
  auto Val = [&](unsigned Lane, unsigned h, unsigned i) -> double {
    return f16ToF32(X16(Lane, h, i));
  };
  auto Res = [&](double v) -> uint16_t { return Moded ? Pm.out16(v) : f16Result(v); };
  auto Post = [&](uint16_t r) -> uint16_t {
    if (In.Clamp)
      r = f16Result(clampUnit(f16ToF32(r), Mode));
    if (Moded && Pm.Ftz16Out)
      r = uint16_t(fpmode::flush16(r));
    return r;
  };
  auto Each = [&](auto f) { // f(lane, half): the result half before clamp and flushing
    forEachLane(w.exec(), [&](unsigned Lane) {
      d[Lane] = Post(f(Lane, 0)) | (uint32_t(Post(f(Lane, 1))) << 16);
    });
  };
  // v_pk_add_f16 / v_pk_mul_f16 in the default MODE without clamp and with no NaN among the
  // sources: both halves in binary32, in a loop that vectorizes, then rounded to binary16.
  // The same result as the double path below: a product of two binary16 values is exact in
  // binary32, and a sum rounded first to binary32 (24 bits >= 2 * 11 + 2) and then to binary16
  // is the sum rounded once (the double-rounding theorem for +, -, *; packed_test checks it on
  // random bit patterns). NaNs take the path below, so which NaN a result carries does not
  // change with the host code's operand order.
  auto AnyNan = [&]() {
    uint32_t Nan = 0;
    for (unsigned i = 0; i < 2; ++i)
      for (unsigned l = 0; l < kWaveSize; ++l)
        Nan |= uint32_t((s[i][l] & 0x7fffu) > 0x7c00u) |
               uint32_t((s[i][l] & 0x7fff0000u) > 0x7c000000u);
    return Nan != 0;
  };
  if (!Moded && !In.Clamp &&
      (In.Operation == Op::V_PK_ADD_F16 || In.Operation == Op::V_PK_MUL_F16) && !AnyNan()) {
    alignas(64) float r[2][kWaveSize], b[kWaveSize];
    for (unsigned h = 0; h < 2; ++h) {
      for (unsigned l = 0; l < kWaveSize; ++l) {
        r[h][l] = f16ToF32(uint16_t(uint16_t(s[0][l] >> Shift[h][0]) ^ Flip[h][0]));
        b[l] = f16ToF32(uint16_t(uint16_t(s[1][l] >> Shift[h][1]) ^ Flip[h][1]));
      }
      if (In.Operation == Op::V_PK_ADD_F16) {
        for (unsigned l = 0; l < kWaveSize; ++l)
          r[h][l] += b[l];
      } else {
        for (unsigned l = 0; l < kWaveSize; ++l)
          r[h][l] *= b[l];
      }
    }
    forEachLane(w.exec(), [&](unsigned Lane) {
      d[Lane] = f32ToF16(r[0][Lane]) | (uint32_t(f32ToF16(r[1][Lane])) << 16);
    });
    return;
  }
  switch (In.Operation) {
  case Op::V_PK_ADD_F16: // exact in double, rounded once
    return Each([&](unsigned l, unsigned h) { return Res(Val(l, h, 0) + Val(l, h, 1)); });
  case Op::V_PK_MUL_F16: // exact in double, rounded once
    return Each([&](unsigned l, unsigned h) { return Res(Val(l, h, 0) * Val(l, h, 1)); });
  case Op::V_PK_FMA_F16:
    return Each([&](unsigned l, unsigned h) {
      return Res(fmaSum(Val(l, h, 0), Val(l, h, 1), Val(l, h, 2), Moded ? Pm.Round16 : 0));
    });
  case Op::V_PK_MAX_F16:
    return Each(
        [&](unsigned l, unsigned h) { return f16MinMax(X16(l, h, 0), X16(l, h, 1), true, Mode); });
  case Op::V_PK_MIN_F16:
    return Each(
        [&](unsigned l, unsigned h) { return f16MinMax(X16(l, h, 0), X16(l, h, 1), false, Mode); });
  case Op::V_PK_MAXIMUM3_F16:
    return Each([&](unsigned l, unsigned h) {
      return f16MaximumMinimum(f16MaximumMinimum(X16(l, h, 0), X16(l, h, 1), true), X16(l, h, 2),
                               true);
    });
  default: // V_PK_MINIMUM3_F16
    return Each([&](unsigned l, unsigned h) {
      return f16MaximumMinimum(f16MaximumMinimum(X16(l, h, 0), X16(l, h, 1), false), X16(l, h, 2),
                               false);
    });
  }
}

// ---- packed 16-bit integer --------------------------------------------------------------
void execI16x2(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  const unsigned Ns =
      (In.Operation == Op::V_PK_MAD_I16 || In.Operation == Op::V_PK_MAD_U16) ? 3 : 2;
  uint32_t Tmp[3][kWaveSize];
  const uint32_t *s[3] = {nullptr, nullptr, nullptr};
  for (unsigned i = 0; i < Ns; ++i)
    s[i] = packedSrc32(w, In, In.Src[i], OpType::B16, Tmp[i]);
  uint32_t *d = dstRow(w, In);
  auto SatU = [&](int64_t v) -> uint16_t {
    if (!In.Clamp)
      return uint16_t(v);
    return uint16_t(std::clamp<int64_t>(v, 0, 0xffff));
  };
  auto SatI = [&](int64_t v) -> uint16_t {
    if (!In.Clamp)
      return uint16_t(v);
    return uint16_t(std::clamp<int64_t>(v, -32768, 32767));
  };
  auto One = [&](unsigned Lane, bool HiHalf) -> uint16_t {
    uint16_t x[3] = {0, 0, 0};
    for (unsigned i = 0; i < Ns; ++i)
      x[i] = half(s[i][Lane], bit(HiHalf ? In.OpselHi : In.Opsel, i));
    int64_t Ua = x[0], Ub = x[1], Uc = x[2];
    int64_t Ia = int16_t(x[0]), Ib = int16_t(x[1]), Ic = int16_t(x[2]);
    switch (In.Operation) {
    case Op::V_PK_ADD_U16:
      return SatU(Ua + Ub);
    case Op::V_PK_SUB_U16:
      return SatU(Ua - Ub);
    case Op::V_PK_ADD_I16:
      return SatI(Ia + Ib);
    case Op::V_PK_SUB_I16:
      return SatI(Ia - Ib);
    case Op::V_PK_MUL_LO_U16:
      return uint16_t(Ua * Ub);
    case Op::V_PK_LSHLREV_B16:
      return uint16_t(x[1] << (x[0] & 15));
    case Op::V_PK_LSHRREV_B16:
      return uint16_t(x[1] >> (x[0] & 15));
    case Op::V_PK_ASHRREV_I16:
      return uint16_t(int16_t(x[1]) >> (x[0] & 15));
    case Op::V_PK_MAX_I16:
      return uint16_t(std::max(Ia, Ib));
    case Op::V_PK_MIN_I16:
      return uint16_t(std::min(Ia, Ib));
    case Op::V_PK_MAX_U16:
      return uint16_t(std::max(Ua, Ub));
    case Op::V_PK_MIN_U16:
      return uint16_t(std::min(Ua, Ub));
    case Op::V_PK_MAD_U16:
      return SatU(Ua * Ub + Uc);
    default: /* V_PK_MAD_I16 */
      return SatI(Ia * Ib + Ic);
    }
  };
  forEachLane(w.exec(), [&](unsigned Lane) {
    uint16_t Lo = One(Lane, false), Hi = One(Lane, true);
    d[Lane] = Lo | (uint32_t(Hi) << 16);
  });
}

// ---- packed f32 (64-bit register pairs) --------------------------------------------------
// The common case in the default MODE, without clamp, every source a VGPR pair: which register of
// each pair op_sel picks and whether neg flips its sign are decided once per half and source,
// and the lane loops vectorize. They compute what execF32x2 computes lane by lane, with the same
// host operations in the same order; false for any other form (execF32x2 takes it).
bool execF32x2Rows(ExecCtx &c, const Inst &In) {
  if (In.Clamp || In.Operation == Op::V_PK_MOV_B32)
    return false;
  WaveState &w = c.W;
  const unsigned Ns = In.Operation == Op::V_PK_FMA_F32 ? 3 : 2;
  const uint32_t *Src[2][3] = {};
  uint32_t Flip[2][3] = {};
  for (unsigned i = 0; i < Ns; ++i) {
    const uint16_t Code = In.Src[i];
    if (Code < kVgprBase || vectorIndex(Code) + 1 >= kNumVectorRegs)
      return false;
    for (unsigned h = 0; h < 2; ++h) {
      Src[h][i] = w.vrow(vectorIndex(Code) + (bit(h ? In.OpselHi : In.Opsel, i) ? 1 : 0));
      Flip[h][i] = bit(h ? In.NegHi : In.Neg, i) ? 0x80000000u : 0u;
    }
  }
  uint32_t *d0 = dstRow(w, In, 2);
  uint32_t *d1 = d0 + kWaveSize;
  alignas(32) uint32_t Out[2][kWaveSize];
  for (unsigned h = 0; h < 2; ++h) {
    const uint32_t *a = Src[h][0], *b = Src[h][1], *Cc = Src[h][2];
    const uint32_t Fa = Flip[h][0], Fb = Flip[h][1], Fc = Flip[h][2];
    uint32_t *r = Out[h];
    switch (In.Operation) {
    case Op::V_PK_FMA_F32:
      for (unsigned l = 0; l < kWaveSize; ++l)
        r[l] =
            f32Result(std::fma(bitsToF32(a[l] ^ Fa), bitsToF32(b[l] ^ Fb), bitsToF32(Cc[l] ^ Fc)));
      break;
    case Op::V_PK_MUL_F32:
      for (unsigned l = 0; l < kWaveSize; ++l)
        r[l] = f32Result(bitsToF32(a[l] ^ Fa) * bitsToF32(b[l] ^ Fb));
      break;
    default: // V_PK_ADD_F32
      for (unsigned l = 0; l < kWaveSize; ++l)
        r[l] = f32Result(bitsToF32(a[l] ^ Fa) + bitsToF32(b[l] ^ Fb));
      break;
    }
  }
  const uint64_t Exec = w.exec();
  if (Exec == ~0ull) {
    std::memcpy(d0, Out[0], sizeof Out[0]);
    std::memcpy(d1, Out[1], sizeof Out[1]);
  } else {
    forEachLane(Exec, [&](unsigned Lane) {
      d0[Lane] = Out[0][Lane];
      d1[Lane] = Out[1][Lane];
    });
  }
  return true;
}

template <bool Moded> void execF32x2(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  const PkMode Pm(w.Mode);
  fpmode::HostRounding Guard(Moded && In.Operation != Op::V_PK_MOV_B32 ? fpmode::roundSp(w.Mode)
                                                                       : fpmode::kNearestEven);
  const bool IsMov = In.Operation == Op::V_PK_MOV_B32;
  const unsigned Ns = In.Operation == Op::V_PK_FMA_F32 ? 3 : 2;
  uint32_t *d0 = dstRow(w, In, 2);
  uint32_t *d1 = d0 + kWaveSize;
  const uint32_t Mode = w.Mode;
  forEachLane(w.exec(), [&](unsigned Lane) {
    uint64_t v[3] = {0, 0, 0};
    for (unsigned i = 0; i < Ns; ++i)
      v[i] = packedSrc64(w, In, In.Src[i], Lane);
    if (IsMov) {
      uint32_t Lo = uint32_t(v[0] >> (bit(In.Opsel, 0) ? 32 : 0));
      uint32_t Hi = uint32_t(v[1] >> (bit(In.Opsel, 1) ? 32 : 0));
      d0[Lane] = Lo;
      d1[Lane] = Hi;
      return;
    }
    uint32_t Out[2];
    for (unsigned h = 0; h < 2; ++h) {
      float x[3] = {0, 0, 0};
      for (unsigned i = 0; i < Ns; ++i) {
        uint32_t Bits = uint32_t(v[i] >> (bit(h ? In.OpselHi : In.Opsel, i) ? 32 : 0));
        if (bit(h ? In.NegHi : In.Neg, i))
          Bits ^= 0x80000000u;
        x[i] = Moded ? Pm.in32(bitsToF32(Bits)) : bitsToF32(Bits);
      }
      float r;
      switch (In.Operation) {
      case Op::V_PK_FMA_F32:
        r = std::fma(x[0], x[1], x[2]);
        break;
      case Op::V_PK_MUL_F32:
        r = x[0] * x[1];
        break;
      default:
        r = x[0] + x[1];
        break; // V_PK_ADD_F32
      }
      if (In.Clamp)
        r = float(clampUnit(r, Mode));
      Out[h] = Moded ? Pm.out32(r) : f32Result(r);
    }
    d0[Lane] = Out[0];
    d1[Lane] = Out[1];
  });
}

// ---- mixed precision fma ----------------------------------------------------------------
template <bool Moded> void execMix(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  const PkMode Pm(w.Mode);
  const bool F32res = In.Operation == Op::V_MAD_MIX_F32;
  // Rounds in the field of the result: single for mix_f32, double/half for mixlo/mixhi.
  const fpmode::Round Round =
      Moded ? (F32res ? fpmode::roundSp(w.Mode) : fpmode::roundDp(w.Mode)) : fpmode::kNearestEven;
  fpmode::HostRounding Guard(Round);
  uint32_t Tmp[3][kWaveSize];
  const uint32_t *s[3];
  for (unsigned i = 0; i < 3; ++i) {
    // An inline constant reads as f32 where the source is f32 (op_sel_hi = 0), else as f16.
    s[i] = packedSrc32(w, In, In.Src[i], OpType::F16, Tmp[i]);
    if (!bit(In.OpselHi, i) && In.Src[i] < kVgprBase)
      s[i] = readVectorSrc32(w, In, In.Src[i], OpType::F32, Tmp[i]);
  }
  uint32_t *d = dstRow(w, In);
  const uint32_t Mode = w.Mode;
  forEachLane(w.exec(), [&](unsigned Lane) {
    float x[3];
    for (unsigned i = 0; i < 3; ++i) {
      uint32_t v = s[i][Lane];
      float f = !bit(In.OpselHi, i) ? (Moded ? Pm.in32(bitsToF32(v)) : bitsToF32(v))
                                    : f16ToF32(Moded ? Pm.in16(half(v, bit(In.Opsel, i)))
                                                     : half(v, bit(In.Opsel, i)));
      if (bit(In.NegHi, i))
        f = std::fabs(f);
      if (bit(In.Neg, i))
        f = -f;
      x[i] = f;
    }
    if (F32res) {
      float r = std::fma(x[0], x[1], x[2]);
      if (In.Clamp)
        r = float(clampUnit(r, Mode));
      d[Lane] = Moded ? Pm.out32(r) : f32Result(r);
      return;
    }
    // f16 result: the product of two floats is exact in double; one rounding to f16 through a
    // round-to-odd sum (a float fma rounded again to f16 could be off by one ulp).
    double r = fmaSum(double(x[0]), double(x[1]), double(x[2]), Round);
    if (In.Clamp)
      r = clampUnit(r, Mode);
    uint16_t h = Moded ? Pm.out16(r) : f16Result(r);
    if (In.Operation == Op::V_MAD_MIXLO_F16)
      d[Lane] = (d[Lane] & 0xffff0000u) | h;
    else
      d[Lane] = (d[Lane] & 0xffffu) | (uint32_t(h) << 16);
  });
}

// ---- dot products -----------------------------------------------------------------------
template <bool Moded> bool execDot(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  const bool Bf16 = In.Operation == Op::V_DOT2_F32_BF16;
  const bool IsFloat = In.Operation == Op::V_DOT2_F32_F16 || Bf16;
  const PkMode Pm(w.Mode);
  fpmode::HostRounding Guard(Moded && IsFloat ? fpmode::roundSp(w.Mode) : fpmode::kNearestEven);
  uint32_t Tmp[3][kWaveSize];
  const uint32_t *s0 = packedSrc32(w, In, In.Src[0], Bf16 ? OpType::BF16 : OpType::F16, Tmp[0]);
  const uint32_t *s1 = packedSrc32(w, In, In.Src[1], Bf16 ? OpType::BF16 : OpType::F16, Tmp[1]);
  const uint32_t *s2 =
      readVectorSrc32(w, In, In.Src[2], IsFloat ? OpType::F32 : OpType::B32, Tmp[2]);
  uint32_t *d = dstRow(w, In);
  const uint32_t Mode = w.Mode;
  auto Sel = [&](const uint32_t *s, unsigned i, unsigned Lane, bool HiElem) {
    return half(s[Lane], bit(HiElem ? In.OpselHi : In.Opsel, i));
  };
  forEachLane(w.exec(), [&](unsigned Lane) {
    if (IsFloat) {
      float p[2][2];
      for (unsigned e = 0; e < 2; ++e) {
        uint16_t a = Sel(s0, 0, Lane, e), b = Sel(s1, 1, Lane, e);
        uint8_t Nm = e ? In.NegHi : In.Neg;
        if (bit(Nm, 0))
          a ^= 0x8000;
        if (bit(Nm, 1))
          b ^= 0x8000;
        if (Moded && !Bf16) {
          a = Pm.in16(a);
          b = Pm.in16(b);
        }
        p[e][0] = Bf16 ? bf16ToF32(a) : f16ToF32(a);
        p[e][1] = Bf16 ? bf16ToF32(b) : f16ToF32(b);
      }
      float Acc = Moded ? Pm.in32(bitsToF32(s2[Lane])) : bitsToF32(s2[Lane]);
      if (bit(In.NegHi, 2))
        Acc = std::fabs(Acc);
      if (bit(In.Neg, 2))
        Acc = -Acc;
      float r;
      // Products of two f16/bf16 values are exact in f32; each addition rounds (pseudocode
      // order: f16 adds to S2 first; bf16 sums the products first).
      if (Bf16) {
        float t = p[0][0] * p[0][1];
        t = t + p[1][0] * p[1][1];
        r = t + Acc;
      } else {
        float t = Acc + p[0][0] * p[0][1];
        r = t + p[1][0] * p[1][1];
      }
      if (In.Clamp)
        r = float(clampUnit(r, Mode));
      d[Lane] = Moded ? Pm.out32(r) : f32Result(r);
      return;
    }
    uint32_t a = s0[Lane], b = s1[Lane];
    int64_t Sum;
    bool IsSigned;
    switch (In.Operation) {
    case Op::V_DOT2_I32_I16:
    case Op::V_DOT2_U32_U16: {
      IsSigned = In.Operation == Op::V_DOT2_I32_I16;
      Sum = IsSigned ? int64_t(int32_t(s2[Lane])) : int64_t(s2[Lane]);
      for (unsigned e = 0; e < 2; ++e) {
        uint16_t x = Sel(s0, 0, Lane, e), y = Sel(s1, 1, Lane, e);
        Sum += IsSigned ? int64_t(int16_t(x)) * int16_t(y) : int64_t(x) * y;
      }
      break;
    }
    case Op::V_DOT4_I32_I8:
    case Op::V_DOT4_U32_U8:
      IsSigned = In.Operation == Op::V_DOT4_I32_I8;
      Sum = IsSigned ? int64_t(int32_t(s2[Lane])) : int64_t(s2[Lane]);
      for (unsigned e = 0; e < 4; ++e) {
        uint8_t x = uint8_t(a >> (8 * e)), y = uint8_t(b >> (8 * e));
        Sum += IsSigned ? int64_t(int8_t(x)) * int8_t(y) : int64_t(x) * y;
      }
      break;
    default: // V_DOT8_I32_I4 / V_DOT8_U32_U4
      IsSigned = In.Operation == Op::V_DOT8_I32_I4;
      Sum = IsSigned ? int64_t(int32_t(s2[Lane])) : int64_t(s2[Lane]);
      for (unsigned e = 0; e < 8; ++e) {
        int64_t x = (a >> (4 * e)) & 15, y = (b >> (4 * e)) & 15;
        if (IsSigned) {
          x = x >= 8 ? x - 16 : x;
          y = y >= 8 ? y - 16 : y;
        }
        Sum += x * y;
      }
      break;
    }
    if (In.Clamp)
      Sum = IsSigned ? std::clamp<int64_t>(Sum, INT32_MIN, INT32_MAX)
                     : std::clamp<int64_t>(Sum, 0, UINT32_MAX);
    d[Lane] = uint32_t(Sum);
  });
  return true;
}

// ---- AccVGPR moves ----------------------------------------------------------------------
void execAcc(ExecCtx &c, const Inst &In, Kind k) {
  WaveState &w = c.W;
  uint32_t Tmp[kWaveSize];
  const uint32_t *s = readVectorSrc32(w, In, In.Src[0], OpType::B32, Tmp);
  uint32_t *d = dstRow(w, In);
  (void)k;
  forEachLane(w.exec(), [&](unsigned Lane) { d[Lane] = s[Lane]; });
}

} // namespace

bool execPacked(ExecCtx &c, const Inst &In) {
  Kind k = kindOf(In.Operation);
  switch (k) {
  case Kind::F16x2:
    fpmode::isDefault(c.W.Mode) ? execF16x2<false>(c, In) : execF16x2<true>(c, In);
    return true;
  case Kind::I16x2:
    execI16x2(c, In);
    return true;
  case Kind::F32x2:
  case Kind::PkMov:
    if (!fpmode::isDefault(c.W.Mode))
      execF32x2<true>(c, In);
    else if (!execF32x2Rows(c, In))
      execF32x2<false>(c, In);
    return true;
  case Kind::Mix:
    fpmode::isDefault(c.W.Mode) ? execMix<false>(c, In) : execMix<true>(c, In);
    return true;
  case Kind::Dot:
    return fpmode::isDefault(c.W.Mode) ? execDot<false>(c, In) : execDot<true>(c, In);
  case Kind::AccRead:
  case Kind::AccWrite:
  case Kind::AccMov:
    execAcc(c, In, k);
    return true;
  case Kind::None:
    break;
  }
  return false; // MFMA/SMFMAC ops are execMfma's (the VOP3P dispatch tries both)
}

} // namespace asmevo::emu
