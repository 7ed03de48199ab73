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
  explicit PkMode(uint32_t mode)
      : Ftz32In(!(mode & fpmode::kDenormSpIn)), Ftz32Out(!(mode & fpmode::kDenormSpOut)),
        Ftz16In(!(mode & fpmode::kDenormDpIn)), Ftz16Out(!(mode & fpmode::kDenormDpOut)),
        Round16(fpmode::roundDp(mode)) {}
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
inline double fmaSum(double a, double b, double c, unsigned round) {
  return round ? a * b + c : addRoundOdd(a * b, c);
}

inline double clampUnit(double x, uint32_t mode) {
  if (std::isnan(x))
    return (mode & kModeDx10Clamp) ? 0.0 : x;
  return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

inline bool f16IsNan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
inline bool f16IsSnan(uint16_t h) { return f16IsNan(h) && !(h & 0x200); }
inline uint16_t f16Quiet(uint16_t h) { return h | 0x200; }

// IEEE-754 maxNum/minNum as the VALU does them: a quiet NaN operand yields the other operand;
// in IEEE mode a signalling NaN operand yields a quiet NaN; -0 < +0.
uint16_t f16MinMax(uint16_t a, uint16_t b, bool isMax, uint32_t mode) {
  bool an = f16IsNan(a), bn = f16IsNan(b);
  if ((mode & kModeIeee) && (f16IsSnan(a) || f16IsSnan(b)))
    return f16Quiet(f16IsSnan(a) ? a : b);
  if (an && bn)
    return f16Quiet(a);
  if (an)
    return b;
  if (bn)
    return a;
  float fa = f16ToF32(a), fb = f16ToF32(b);
  if (fa == fb) { // equal values, possibly +0 / -0
    bool aNeg = a & 0x8000;
    if (isMax)
      return aNeg ? b : a;
    return aNeg ? a : b;
  }
  return (isMax ? fa > fb : fa < fb) ? a : b;
}

// IEEE-754-2019 maximum/minimum: NaN-propagating, -0 < +0.
uint16_t f16MaximumMinimum(uint16_t a, uint16_t b, bool isMax) {
  if (f16IsNan(a))
    return f16Quiet(a);
  if (f16IsNan(b))
    return f16Quiet(b);
  return f16MinMax(a, b, isMax, 0);
}

bool isIntInlineCode(uint16_t code) { return code >= 128 && code <= 208; }

// The 32-bit value of a packed 16-bit (or 32-bit mixed) VOP3P source for all lanes.
const uint32_t *packedSrc32(const WaveState &w, const Inst &in, uint16_t code, OpType half,
                            uint32_t *tmp) {
  if (code >= kVgprBase)
    return w.vrowOf(code);
  uint32_t v;
  if (isIntInlineCode(code))
    v = uint32_t(inlineConstant(code, OpType::B32));
  else if (isInlineConstantCode(code))
    v = uint32_t(inlineConstant(code, half)); // 16-bit pattern, high half 0
  else
    v = readScalar32(w, in, code, OpType::B32);
  for (unsigned i = 0; i < kWaveSize; ++i)
    tmp[i] = v;
  return tmp;
}

// One lane of a 64-bit packed-f32 source.
uint64_t packedSrc64(const WaveState &w, const Inst &in, uint16_t code, unsigned lane) {
  if (code >= kVgprBase) {
    if (vectorIndex(code) + 1 >= kNumVectorRegs)
      throw EmuError(EmuErrorKind::IllegalInst, "VOP3P 64-bit source out of range");
    return readVector64(w, code, lane);
  }
  if (code < 127)
    return w.S[code] | (uint64_t(w.S[code + 1]) << 32);
  if (isIntInlineCode(code))
    return inlineConstant(code, OpType::B64); // sign-extended
  if (isInlineConstantCode(code))
    return inlineConstant(code, OpType::F32);
  return readScalar32(w, in, code, OpType::B32);
}

inline uint16_t half(uint32_t v, bool hi) { return uint16_t(hi ? v >> 16 : v); }
inline bool bit(uint8_t m, unsigned i) { return (m >> i) & 1; }

// Which VOP3P op families this file implements.
enum class Kind { F16x2, I16x2, F32x2, PkMov, Mix, Dot, AccRead, AccWrite, AccMov, None };

Kind kindOf(Op op) {
  switch (op) {
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
    if (std::strncmp(opName(op), "V_ACCVGPR_MOV_B32", 17) == 0)
      return Kind::AccMov;
    return Kind::None;
  }
}

uint32_t *dstRow(WaveState &w, const Inst &in, unsigned regs = 1) {
  if (in.Dst < kVgprBase || in.Dst >= kAgprBase + 256 ||
      vectorIndex(in.Dst) + regs > kNumVectorRegs)
    throw EmuError(EmuErrorKind::IllegalInst,
                   std::string(opName(in.Operation)) + ": destination is not a vector register");
  return w.vrowOf(in.Dst);
}

// ---- packed f16 -------------------------------------------------------------------------
template <bool Moded> void execF16x2(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  const PkMode pm(w.Mode);
  fpmode::HostRounding guard(Moded ? fpmode::roundDp(w.Mode) : fpmode::kNearestEven);
  const unsigned ns = (in.Operation == Op::V_PK_FMA_F16 || in.Operation == Op::V_PK_MAXIMUM3_F16 ||
                       in.Operation == Op::V_PK_MINIMUM3_F16)
                          ? 3
                          : 2;
  uint32_t tmp[3][kWaveSize];
  const uint32_t *s[3] = {nullptr, nullptr, nullptr}; // s[2] only for the three-source ops
  for (unsigned i = 0; i < ns; ++i)
    s[i] = packedSrc32(w, in, in.Src[i], OpType::F16, tmp[i]);
  uint32_t *d = dstRow(w, in);
  const uint32_t mode = w.Mode;
  // Decided once per instruction: which half of each source each result half reads (op_sel,
  // op_sel_hi) and whether its sign flips (neg, neg_hi); then one lane loop per operation.
  unsigned shift[2][3];
  uint16_t flip[2][3];
  for (unsigned h = 0; h < 2; ++h)
    for (unsigned i = 0; i < 3; ++i) {
      shift[h][i] = bit(h ? in.OpselHi : in.Opsel, i) ? 16 : 0;
      flip[h][i] = bit(h ? in.NegHi : in.Neg, i) ? 0x8000 : 0;
    }
  auto x16 = [&](unsigned lane, unsigned h, unsigned i) -> uint16_t {
    uint16_t x = uint16_t(uint16_t(s[i][lane] >> shift[h][i]) ^ flip[h][i]);
    return Moded ? pm.in16(x) : x;
  };
  auto val = [&](unsigned lane, unsigned h, unsigned i) -> double {
    return f16ToF32(x16(lane, h, i));
  };
  auto res = [&](double v) -> uint16_t { return Moded ? pm.out16(v) : f16Result(v); };
  auto post = [&](uint16_t r) -> uint16_t {
    if (in.Clamp)
      r = f16Result(clampUnit(f16ToF32(r), mode));
    if (Moded && pm.Ftz16Out)
      r = uint16_t(fpmode::flush16(r));
    return r;
  };
  auto each = [&](auto f) { // f(lane, half): the result half before clamp and flushing
    forEachLane(w.exec(), [&](unsigned lane) {
      d[lane] = post(f(lane, 0)) | (uint32_t(post(f(lane, 1))) << 16);
    });
  };
  // v_pk_add_f16 / v_pk_mul_f16 in the default MODE without clamp and with no NaN among the
  // sources: both halves in binary32, in a loop that vectorizes, then rounded to binary16.
  // The same result as the double path below: a product of two binary16 values is exact in
  // binary32, and a sum rounded first to binary32 (24 bits >= 2 * 11 + 2) and then to binary16
  // is the sum rounded once (the double-rounding theorem for +, -, *; packed_test checks it on
  // random bit patterns). NaNs take the path below, so which NaN a result carries does not
  // change with the host code's operand order.
  auto anyNan = [&]() {
    uint32_t nan = 0;
    for (unsigned i = 0; i < 2; ++i)
      for (unsigned l = 0; l < kWaveSize; ++l)
        nan |= uint32_t((s[i][l] & 0x7fffu) > 0x7c00u) |
               uint32_t((s[i][l] & 0x7fff0000u) > 0x7c000000u);
    return nan != 0;
  };
  if (!Moded && !in.Clamp &&
      (in.Operation == Op::V_PK_ADD_F16 || in.Operation == Op::V_PK_MUL_F16) && !anyNan()) {
    alignas(64) float r[2][kWaveSize], b[kWaveSize];
    for (unsigned h = 0; h < 2; ++h) {
      for (unsigned l = 0; l < kWaveSize; ++l) {
        r[h][l] = f16ToF32(uint16_t(uint16_t(s[0][l] >> shift[h][0]) ^ flip[h][0]));
        b[l] = f16ToF32(uint16_t(uint16_t(s[1][l] >> shift[h][1]) ^ flip[h][1]));
      }
      if (in.Operation == Op::V_PK_ADD_F16) {
        for (unsigned l = 0; l < kWaveSize; ++l)
          r[h][l] += b[l];
      } else {
        for (unsigned l = 0; l < kWaveSize; ++l)
          r[h][l] *= b[l];
      }
    }
    forEachLane(w.exec(), [&](unsigned lane) {
      d[lane] = f32ToF16(r[0][lane]) | (uint32_t(f32ToF16(r[1][lane])) << 16);
    });
    return;
  }
  switch (in.Operation) {
  case Op::V_PK_ADD_F16: // exact in double, rounded once
    return each([&](unsigned l, unsigned h) { return res(val(l, h, 0) + val(l, h, 1)); });
  case Op::V_PK_MUL_F16: // exact in double, rounded once
    return each([&](unsigned l, unsigned h) { return res(val(l, h, 0) * val(l, h, 1)); });
  case Op::V_PK_FMA_F16:
    return each([&](unsigned l, unsigned h) {
      return res(fmaSum(val(l, h, 0), val(l, h, 1), val(l, h, 2), Moded ? pm.Round16 : 0));
    });
  case Op::V_PK_MAX_F16:
    return each(
        [&](unsigned l, unsigned h) { return f16MinMax(x16(l, h, 0), x16(l, h, 1), true, mode); });
  case Op::V_PK_MIN_F16:
    return each(
        [&](unsigned l, unsigned h) { return f16MinMax(x16(l, h, 0), x16(l, h, 1), false, mode); });
  case Op::V_PK_MAXIMUM3_F16:
    return each([&](unsigned l, unsigned h) {
      return f16MaximumMinimum(f16MaximumMinimum(x16(l, h, 0), x16(l, h, 1), true), x16(l, h, 2),
                               true);
    });
  default: // V_PK_MINIMUM3_F16
    return each([&](unsigned l, unsigned h) {
      return f16MaximumMinimum(f16MaximumMinimum(x16(l, h, 0), x16(l, h, 1), false), x16(l, h, 2),
                               false);
    });
  }
}

// ---- packed 16-bit integer --------------------------------------------------------------
void execI16x2(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  const unsigned ns =
      (in.Operation == Op::V_PK_MAD_I16 || in.Operation == Op::V_PK_MAD_U16) ? 3 : 2;
  uint32_t tmp[3][kWaveSize];
  const uint32_t *s[3] = {nullptr, nullptr, nullptr};
  for (unsigned i = 0; i < ns; ++i)
    s[i] = packedSrc32(w, in, in.Src[i], OpType::B16, tmp[i]);
  uint32_t *d = dstRow(w, in);
  auto satU = [&](int64_t v) -> uint16_t {
    if (!in.Clamp)
      return uint16_t(v);
    return uint16_t(std::clamp<int64_t>(v, 0, 0xffff));
  };
  auto satI = [&](int64_t v) -> uint16_t {
    if (!in.Clamp)
      return uint16_t(v);
    return uint16_t(std::clamp<int64_t>(v, -32768, 32767));
  };
  auto one = [&](unsigned lane, bool hiHalf) -> uint16_t {
    uint16_t x[3] = {0, 0, 0};
    for (unsigned i = 0; i < ns; ++i)
      x[i] = half(s[i][lane], bit(hiHalf ? in.OpselHi : in.Opsel, i));
    int64_t ua = x[0], ub = x[1], uc = x[2];
    int64_t ia = int16_t(x[0]), ib = int16_t(x[1]), ic = int16_t(x[2]);
    switch (in.Operation) {
    case Op::V_PK_ADD_U16:
      return satU(ua + ub);
    case Op::V_PK_SUB_U16:
      return satU(ua - ub);
    case Op::V_PK_ADD_I16:
      return satI(ia + ib);
    case Op::V_PK_SUB_I16:
      return satI(ia - ib);
    case Op::V_PK_MUL_LO_U16:
      return uint16_t(ua * ub);
    case Op::V_PK_LSHLREV_B16:
      return uint16_t(x[1] << (x[0] & 15));
    case Op::V_PK_LSHRREV_B16:
      return uint16_t(x[1] >> (x[0] & 15));
    case Op::V_PK_ASHRREV_I16:
      return uint16_t(int16_t(x[1]) >> (x[0] & 15));
    case Op::V_PK_MAX_I16:
      return uint16_t(std::max(ia, ib));
    case Op::V_PK_MIN_I16:
      return uint16_t(std::min(ia, ib));
    case Op::V_PK_MAX_U16:
      return uint16_t(std::max(ua, ub));
    case Op::V_PK_MIN_U16:
      return uint16_t(std::min(ua, ub));
    case Op::V_PK_MAD_U16:
      return satU(ua * ub + uc);
    default: /* V_PK_MAD_I16 */
      return satI(ia * ib + ic);
    }
  };
  forEachLane(w.exec(), [&](unsigned lane) {
    uint16_t lo = one(lane, false), hi = one(lane, true);
    d[lane] = lo | (uint32_t(hi) << 16);
  });
}

// ---- packed f32 (64-bit register pairs) --------------------------------------------------
// The common case in the default MODE, without clamp, every source a VGPR pair: which register of
// each pair op_sel picks and whether neg flips its sign are decided once per half and source,
// and the lane loops vectorize. They compute what execF32x2 computes lane by lane, with the same
// host operations in the same order; false for any other form (execF32x2 takes it).
bool execF32x2Rows(ExecCtx &c, const Inst &in) {
  if (in.Clamp || in.Operation == Op::V_PK_MOV_B32)
    return false;
  WaveState &w = c.W;
  const unsigned ns = in.Operation == Op::V_PK_FMA_F32 ? 3 : 2;
  const uint32_t *src[2][3] = {};
  uint32_t flip[2][3] = {};
  for (unsigned i = 0; i < ns; ++i) {
    const uint16_t code = in.Src[i];
    if (code < kVgprBase || vectorIndex(code) + 1 >= kNumVectorRegs)
      return false;
    for (unsigned h = 0; h < 2; ++h) {
      src[h][i] = w.vrow(vectorIndex(code) + (bit(h ? in.OpselHi : in.Opsel, i) ? 1 : 0));
      flip[h][i] = bit(h ? in.NegHi : in.Neg, i) ? 0x80000000u : 0u;
    }
  }
  uint32_t *d0 = dstRow(w, in, 2);
  uint32_t *d1 = d0 + kWaveSize;
  alignas(32) uint32_t out[2][kWaveSize];
  for (unsigned h = 0; h < 2; ++h) {
    const uint32_t *a = src[h][0], *b = src[h][1], *cc = src[h][2];
    const uint32_t fa = flip[h][0], fb = flip[h][1], fc = flip[h][2];
    uint32_t *r = out[h];
    switch (in.Operation) {
    case Op::V_PK_FMA_F32:
      for (unsigned l = 0; l < kWaveSize; ++l)
        r[l] =
            f32Result(std::fma(bitsToF32(a[l] ^ fa), bitsToF32(b[l] ^ fb), bitsToF32(cc[l] ^ fc)));
      break;
    case Op::V_PK_MUL_F32:
      for (unsigned l = 0; l < kWaveSize; ++l)
        r[l] = f32Result(bitsToF32(a[l] ^ fa) * bitsToF32(b[l] ^ fb));
      break;
    default: // V_PK_ADD_F32
      for (unsigned l = 0; l < kWaveSize; ++l)
        r[l] = f32Result(bitsToF32(a[l] ^ fa) + bitsToF32(b[l] ^ fb));
      break;
    }
  }
  const uint64_t exec = w.exec();
  if (exec == ~0ull) {
    std::memcpy(d0, out[0], sizeof out[0]);
    std::memcpy(d1, out[1], sizeof out[1]);
  } else {
    forEachLane(exec, [&](unsigned lane) {
      d0[lane] = out[0][lane];
      d1[lane] = out[1][lane];
    });
  }
  return true;
}

template <bool Moded> void execF32x2(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  const PkMode pm(w.Mode);
  fpmode::HostRounding guard(Moded && in.Operation != Op::V_PK_MOV_B32 ? fpmode::roundSp(w.Mode)
                                                                       : fpmode::kNearestEven);
  const bool isMov = in.Operation == Op::V_PK_MOV_B32;
  const unsigned ns = in.Operation == Op::V_PK_FMA_F32 ? 3 : 2;
  uint32_t *d0 = dstRow(w, in, 2);
  uint32_t *d1 = d0 + kWaveSize;
  const uint32_t mode = w.Mode;
  forEachLane(w.exec(), [&](unsigned lane) {
    uint64_t v[3] = {0, 0, 0};
    for (unsigned i = 0; i < ns; ++i)
      v[i] = packedSrc64(w, in, in.Src[i], lane);
    if (isMov) {
      uint32_t lo = uint32_t(v[0] >> (bit(in.Opsel, 0) ? 32 : 0));
      uint32_t hi = uint32_t(v[1] >> (bit(in.Opsel, 1) ? 32 : 0));
      d0[lane] = lo;
      d1[lane] = hi;
      return;
    }
    uint32_t out[2];
    for (unsigned h = 0; h < 2; ++h) {
      float x[3] = {0, 0, 0};
      for (unsigned i = 0; i < ns; ++i) {
        uint32_t bits = uint32_t(v[i] >> (bit(h ? in.OpselHi : in.Opsel, i) ? 32 : 0));
        if (bit(h ? in.NegHi : in.Neg, i))
          bits ^= 0x80000000u;
        x[i] = Moded ? pm.in32(bitsToF32(bits)) : bitsToF32(bits);
      }
      float r;
      switch (in.Operation) {
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
      if (in.Clamp)
        r = float(clampUnit(r, mode));
      out[h] = Moded ? pm.out32(r) : f32Result(r);
    }
    d0[lane] = out[0];
    d1[lane] = out[1];
  });
}

// ---- mixed precision fma ----------------------------------------------------------------
template <bool Moded> void execMix(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  const PkMode pm(w.Mode);
  const bool f32res = in.Operation == Op::V_MAD_MIX_F32;
  // Rounds in the field of the result: single for mix_f32, double/half for mixlo/mixhi.
  const fpmode::Round round =
      Moded ? (f32res ? fpmode::roundSp(w.Mode) : fpmode::roundDp(w.Mode)) : fpmode::kNearestEven;
  fpmode::HostRounding guard(round);
  uint32_t tmp[3][kWaveSize];
  const uint32_t *s[3];
  for (unsigned i = 0; i < 3; ++i) {
    // An inline constant reads as f32 where the source is f32 (op_sel_hi = 0), else as f16.
    s[i] = packedSrc32(w, in, in.Src[i], OpType::F16, tmp[i]);
    if (!bit(in.OpselHi, i) && in.Src[i] < kVgprBase)
      s[i] = readVectorSrc32(w, in, in.Src[i], OpType::F32, tmp[i]);
  }
  uint32_t *d = dstRow(w, in);
  const uint32_t mode = w.Mode;
  forEachLane(w.exec(), [&](unsigned lane) {
    float x[3];
    for (unsigned i = 0; i < 3; ++i) {
      uint32_t v = s[i][lane];
      float f = !bit(in.OpselHi, i) ? (Moded ? pm.in32(bitsToF32(v)) : bitsToF32(v))
                                    : f16ToF32(Moded ? pm.in16(half(v, bit(in.Opsel, i)))
                                                     : half(v, bit(in.Opsel, i)));
      if (bit(in.NegHi, i))
        f = std::fabs(f);
      if (bit(in.Neg, i))
        f = -f;
      x[i] = f;
    }
    if (f32res) {
      float r = std::fma(x[0], x[1], x[2]);
      if (in.Clamp)
        r = float(clampUnit(r, mode));
      d[lane] = Moded ? pm.out32(r) : f32Result(r);
      return;
    }
    // f16 result: the product of two floats is exact in double; one rounding to f16 through a
    // round-to-odd sum (a float fma rounded again to f16 could be off by one ulp).
    double r = fmaSum(double(x[0]), double(x[1]), double(x[2]), round);
    if (in.Clamp)
      r = clampUnit(r, mode);
    uint16_t h = Moded ? pm.out16(r) : f16Result(r);
    if (in.Operation == Op::V_MAD_MIXLO_F16)
      d[lane] = (d[lane] & 0xffff0000u) | h;
    else
      d[lane] = (d[lane] & 0xffffu) | (uint32_t(h) << 16);
  });
}

// ---- dot products -----------------------------------------------------------------------
template <bool Moded> bool execDot(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  const bool bf16 = in.Operation == Op::V_DOT2_F32_BF16;
  const bool isFloat = in.Operation == Op::V_DOT2_F32_F16 || bf16;
  const PkMode pm(w.Mode);
  fpmode::HostRounding guard(Moded && isFloat ? fpmode::roundSp(w.Mode) : fpmode::kNearestEven);
  uint32_t tmp[3][kWaveSize];
  const uint32_t *s0 = packedSrc32(w, in, in.Src[0], bf16 ? OpType::BF16 : OpType::F16, tmp[0]);
  const uint32_t *s1 = packedSrc32(w, in, in.Src[1], bf16 ? OpType::BF16 : OpType::F16, tmp[1]);
  const uint32_t *s2 =
      readVectorSrc32(w, in, in.Src[2], isFloat ? OpType::F32 : OpType::B32, tmp[2]);
  uint32_t *d = dstRow(w, in);
  const uint32_t mode = w.Mode;
  auto sel = [&](const uint32_t *s, unsigned i, unsigned lane, bool hiElem) {
    return half(s[lane], bit(hiElem ? in.OpselHi : in.Opsel, i));
  };
  forEachLane(w.exec(), [&](unsigned lane) {
    if (isFloat) {
      float p[2][2];
      for (unsigned e = 0; e < 2; ++e) {
        uint16_t a = sel(s0, 0, lane, e), b = sel(s1, 1, lane, e);
        uint8_t nm = e ? in.NegHi : in.Neg;
        if (bit(nm, 0))
          a ^= 0x8000;
        if (bit(nm, 1))
          b ^= 0x8000;
        if (Moded && !bf16) {
          a = pm.in16(a);
          b = pm.in16(b);
        }
        p[e][0] = bf16 ? bf16ToF32(a) : f16ToF32(a);
        p[e][1] = bf16 ? bf16ToF32(b) : f16ToF32(b);
      }
      float acc = Moded ? pm.in32(bitsToF32(s2[lane])) : bitsToF32(s2[lane]);
      if (bit(in.NegHi, 2))
        acc = std::fabs(acc);
      if (bit(in.Neg, 2))
        acc = -acc;
      float r;
      // Products of two f16/bf16 values are exact in f32; each addition rounds (pseudocode
      // order: f16 adds to S2 first; bf16 sums the products first).
      if (bf16) {
        float t = p[0][0] * p[0][1];
        t = t + p[1][0] * p[1][1];
        r = t + acc;
      } else {
        float t = acc + p[0][0] * p[0][1];
        r = t + p[1][0] * p[1][1];
      }
      if (in.Clamp)
        r = float(clampUnit(r, mode));
      d[lane] = Moded ? pm.out32(r) : f32Result(r);
      return;
    }
    uint32_t a = s0[lane], b = s1[lane];
    int64_t sum;
    bool isSigned;
    switch (in.Operation) {
    case Op::V_DOT2_I32_I16:
    case Op::V_DOT2_U32_U16: {
      isSigned = in.Operation == Op::V_DOT2_I32_I16;
      sum = isSigned ? int64_t(int32_t(s2[lane])) : int64_t(s2[lane]);
      for (unsigned e = 0; e < 2; ++e) {
        uint16_t x = sel(s0, 0, lane, e), y = sel(s1, 1, lane, e);
        sum += isSigned ? int64_t(int16_t(x)) * int16_t(y) : int64_t(x) * y;
      }
      break;
    }
    case Op::V_DOT4_I32_I8:
    case Op::V_DOT4_U32_U8:
      isSigned = in.Operation == Op::V_DOT4_I32_I8;
      sum = isSigned ? int64_t(int32_t(s2[lane])) : int64_t(s2[lane]);
      for (unsigned e = 0; e < 4; ++e) {
        uint8_t x = uint8_t(a >> (8 * e)), y = uint8_t(b >> (8 * e));
        sum += isSigned ? int64_t(int8_t(x)) * int8_t(y) : int64_t(x) * y;
      }
      break;
    default: // V_DOT8_I32_I4 / V_DOT8_U32_U4
      isSigned = in.Operation == Op::V_DOT8_I32_I4;
      sum = isSigned ? int64_t(int32_t(s2[lane])) : int64_t(s2[lane]);
      for (unsigned e = 0; e < 8; ++e) {
        int64_t x = (a >> (4 * e)) & 15, y = (b >> (4 * e)) & 15;
        if (isSigned) {
          x = x >= 8 ? x - 16 : x;
          y = y >= 8 ? y - 16 : y;
        }
        sum += x * y;
      }
      break;
    }
    if (in.Clamp)
      sum = isSigned ? std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)
                     : std::clamp<int64_t>(sum, 0, UINT32_MAX);
    d[lane] = uint32_t(sum);
  });
  return true;
}

// ---- AccVGPR moves ----------------------------------------------------------------------
void execAcc(ExecCtx &c, const Inst &in, Kind k) {
  WaveState &w = c.W;
  uint32_t tmp[kWaveSize];
  const uint32_t *s = readVectorSrc32(w, in, in.Src[0], OpType::B32, tmp);
  uint32_t *d = dstRow(w, in);
  (void)k;
  forEachLane(w.exec(), [&](unsigned lane) { d[lane] = s[lane]; });
}

} // namespace

bool execPacked(ExecCtx &c, const Inst &in) {
  Kind k = kindOf(in.Operation);
  switch (k) {
  case Kind::F16x2:
    fpmode::isDefault(c.W.Mode) ? execF16x2<false>(c, in) : execF16x2<true>(c, in);
    return true;
  case Kind::I16x2:
    execI16x2(c, in);
    return true;
  case Kind::F32x2:
  case Kind::PkMov:
    if (!fpmode::isDefault(c.W.Mode))
      execF32x2<true>(c, in);
    else if (!execF32x2Rows(c, in))
      execF32x2<false>(c, in);
    return true;
  case Kind::Mix:
    fpmode::isDefault(c.W.Mode) ? execMix<false>(c, in) : execMix<true>(c, in);
    return true;
  case Kind::Dot:
    return fpmode::isDefault(c.W.Mode) ? execDot<false>(c, in) : execDot<true>(c, in);
  case Kind::AccRead:
  case Kind::AccWrite:
  case Kind::AccMov:
    execAcc(c, in, k);
    return true;
  case Kind::None:
    break;
  }
  return false; // MFMA/SMFMAC ops are execMfma's (the VOP3P dispatch tries both)
}

} // namespace asmevo::emu
