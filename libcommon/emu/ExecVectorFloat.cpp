// Vector ALU: floating-point operations (f16, f32, f64) and conversions.
//
// Precision: add/sub/mul/fma/div-steps/sqrt/ldexp/conversions are correctly rounded (host IEEE,
// round to nearest even, denormals kept). f16 arithmetic is computed in binary32/binary64 and
// rounded once to f16 (exact for +,-,*,sqrt by the double-rounding theorem; fma through a
// round-to-odd binary64 intermediate). The f32 transcendentals (rcp, rsq, exp, log, sin, cos)
// are computed in double and rounded to float: correctly rounded for rcp and nearly so for the
// others; the ISA guarantees 1 ULP, so results may differ from hardware in the last bit.
// exp/log are base 2, sin/cos take revolutions.
#include "emu/ExecVectorCore.h"
#include "emu/Exp2.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace asmevo::emu::vec {

namespace {

// ---- classification ---------------------------------------------------------------------------
inline bool nan32(u32 b) { return (b & 0x7fffffffu) > 0x7f800000u; }
inline bool nan16(u32 b) { return (b & 0x7fffu) > 0x7c00u; }
inline bool nan64(u64 b) { return (b & ~(1ull << 63)) > 0x7ff0000000000000ull; }

// Traits for the shared min/max/med3/class/div_fixup code.
struct T32 {
  using B = u32;
  static constexpr B kSign = 0x80000000u, kQuiet = 0x400000u, kMask = 0xffffffffu;
  static constexpr int kExpShift = 23, kExpMax = 255, kManBits = 23;
  static B norm(B b) { return b; }
  static double val(B b) { return F(b); }
};
struct T16 {
  using B = u32;
  static constexpr B kSign = 0x8000u, kQuiet = 0x200u, kMask = 0xffffu;
  static constexpr int kExpShift = 10, kExpMax = 31, kManBits = 10;
  static B norm(B b) { return b & 0xffffu; }
  static double val(B b) { return H(b); }
};
struct T64 {
  using B = u64;
  static constexpr B kSign = 1ull << 63, kQuiet = 1ull << 51, kMask = ~0ull;
  static constexpr int kExpShift = 52, kExpMax = 2047, kManBits = 52;
  static B norm(B b) { return b; }
  static double val(B b) { return D(b); }
};

template <class T> inline bool isNan(typename T::B b) {
  return (b & ~T::kSign & T::kMask) > (typename T::B(T::kExpMax) << T::kExpShift);
}
template <class T> inline bool isSnan(typename T::B b) { return isNan<T>(b) && !(b & T::kQuiet); }
template <class T> inline int expOf(typename T::B b) {
  return int((b >> T::kExpShift) & T::kExpMax);
}
template <class T> inline bool isZero(typename T::B b) { return (b & ~T::kSign & T::kMask) == 0; }

// IEEE-mode max/min: a signalling NaN operand is returned quieted, a quiet NaN operand is
// ignored, -0 < +0.
// With MODE.IEEE clear (Ieee = false) a NaN operand of either kind is ignored and nothing is
// quieted: max(sNaN, x) = x, max(NaN, NaN) = the second operand as it is.
template <class T, bool Ieee = true> inline typename T::B fmaxT(typename T::B a, typename T::B b) {
  a = T::norm(a), b = T::norm(b);
  if (Ieee && isSnan<T>(a))
    return a | T::kQuiet;
  if (Ieee && isSnan<T>(b))
    return b | T::kQuiet;
  if (isNan<T>(a))
    return b;
  if (isNan<T>(b))
    return a;
  if (isZero<T>(a) && isZero<T>(b))
    return a & b;
  return T::val(a) >= T::val(b) ? a : b;
}
template <class T, bool Ieee = true> inline typename T::B fminT(typename T::B a, typename T::B b) {
  a = T::norm(a), b = T::norm(b);
  if (Ieee && isSnan<T>(a))
    return a | T::kQuiet;
  if (Ieee && isSnan<T>(b))
    return b | T::kQuiet;
  if (isNan<T>(a))
    return b;
  if (isNan<T>(b))
    return a;
  if (isZero<T>(a) && isZero<T>(b))
    return a | b;
  return T::val(a) <= T::val(b) ? a : b;
}
// v_max_f32 / v_min_f32 over a wave. When no lane of either source is a NaN (checked for the
// whole wave at once) fmaxT/fminT reduce to a compare and the signed-zero rule, which the lane
// loop vectorizes; otherwise every lane takes fmaxT/fminT. The same result either way.
template <bool Max, bool Ieee> void minMaxF32Lanes(const u32 *a, const u32 *b, u32 *r) {
  u32 AnyNan = 0;
  for (unsigned l = 0; l < kWaveSize; ++l)
    AnyNan |= u32(nan32(a[l])) | u32(nan32(b[l]));
  if (AnyNan) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      r[l] = Max ? fmaxT<T32, Ieee>(a[l], b[l]) : fminT<T32, Ieee>(a[l], b[l]);
  } else {
    for (unsigned l = 0; l < kWaveSize; ++l) {
      const u32 p = a[l], q = b[l];
      const bool Zeros = ((p | q) & 0x7fffffffu) == 0;
      const u32 Pick = Max ? (F(p) >= F(q) ? p : q) : (F(p) <= F(q) ? p : q);
      r[l] = Zeros ? (Max ? (p & q) : (p | q)) : Pick;
    }
  }
}
template <bool Max, bool Ieee> bool minMaxF32(VX &x) {
  const u32 *a = fetch32(x, 0, Ty::F32), *b = fetch32(x, 1, Ty::F32);
  minMaxF32Lanes<Max, Ieee>(a, b, x.R);
  finish32(x, R::F32);
  return true;
}
template <class T, bool Ieee = true>
inline typename T::B fmed3T(typename T::B a, typename T::B b, typename T::B c) {
  a = T::norm(a), b = T::norm(b), c = T::norm(c);
  if (isNan<T>(a) || isNan<T>(b) || isNan<T>(c))
    return fminT<T, Ieee>(fminT<T, Ieee>(a, b), c);
  double Mx = T::val(fmaxT<T>(fmaxT<T>(a, b), c));
  if (Mx == T::val(a))
    return fmaxT<T>(b, c);
  if (Mx == T::val(b))
    return fmaxT<T>(a, c);
  return fmaxT<T>(a, b);
}
template <class T, bool Ieee>
inline typename T::B fmax3T(typename T::B a, typename T::B b, typename T::B c) {
  return fmaxT<T, Ieee>(fmaxT<T, Ieee>(a, b), c);
}
template <class T, bool Ieee>
inline typename T::B fmin3T(typename T::B a, typename T::B b, typename T::B c) {
  return fminT<T, Ieee>(fminT<T, Ieee>(a, b), c);
}
// NaN-propagating maximum/minimum (gfx950 v_maximum3/v_minimum3).
template <class T> inline typename T::B fmaximumT(typename T::B a, typename T::B b) {
  if (isNan<T>(a))
    return a | T::kQuiet;
  if (isNan<T>(b))
    return b | T::kQuiet;
  if (isZero<T>(a) && isZero<T>(b))
    return a & b;
  return T::val(a) >= T::val(b) ? a : b;
}
template <class T> inline typename T::B fminimumT(typename T::B a, typename T::B b) {
  if (isNan<T>(a))
    return a | T::kQuiet;
  if (isNan<T>(b))
    return b | T::kQuiet;
  if (isZero<T>(a) && isZero<T>(b))
    return a | b;
  return T::val(a) <= T::val(b) ? a : b;
}

// v_div_fixup: special cases of a quotient S2/S1 and the sign of the approximation S0.
// `under`/`over` are the pseudocode's UNDERFLOW/OVERFLOW values (zero and infinity);
// `nanDefault` the 0/0 and inf/inf result; `underExp` the exponent-difference threshold.
template <class T>
inline typename T::B divFixupT(typename T::B s0, typename T::B s1, typename T::B s2,
                               typename T::B NanDefault, int UnderExp) {
  using B = typename T::B;
  s0 = T::norm(s0), s1 = T::norm(s1), s2 = T::norm(s2);
  B Sign = (s1 ^ s2) & T::kSign;
  B Inf = B(T::kExpMax) << T::kExpShift;
  bool S1inf = (s1 & ~T::kSign) == Inf, S2inf = (s2 & ~T::kSign) == Inf;
  if (isNan<T>(s2))
    return s2 | T::kQuiet;
  if (isNan<T>(s1))
    return s1 | T::kQuiet;
  if (isZero<T>(s1) && isZero<T>(s2))
    return NanDefault;
  if (S1inf && S2inf)
    return NanDefault;
  if (isZero<T>(s1) || S2inf)
    return Sign | Inf;
  if (S1inf || isZero<T>(s2))
    return Sign;
  if (UnderExp && expOf<T>(s2) - expOf<T>(s1) < UnderExp)
    return Sign; // underflow
  if (expOf<T>(s1) == T::kExpMax)
    return Sign | Inf; // overflow
  return Sign | (s0 & ~T::kSign);
}

// v_div_fixup_f32 over the 64 lanes: divFixupT for each lane, computed as its last case (the
// quotient's magnitude with the sign of S1 * S2) in a loop that vectorizes when no lane has a
// NaN, infinity or zero divisor or dividend or an exponent difference past the underflow bound.
bool divFixupF32(VX &x) {
  const u32 *a = fetch32(x, 0, Ty::F32), *b = fetch32(x, 1, Ty::F32), *c = fetch32(x, 2, Ty::F32);
  u32 Special = 0;
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const int e1 = int((b[l] >> 23) & 0xffu), e2 = int((c[l] >> 23) & 0xffu);
    Special |= u32(e1 == 0xff) | u32(e2 == 0xff) | u32((b[l] & 0x7fffffffu) == 0) |
               u32((c[l] & 0x7fffffffu) == 0) | u32(e2 - e1 < -150);
  }
  if (Special) {
    for (unsigned l = 0; l < kWaveSize; ++l)
      x.R[l] = divFixupT<T32>(a[l], b[l], c[l], 0xffc00000u, -150);
  } else {
    for (unsigned l = 0; l < kWaveSize; ++l)
      x.R[l] = ((b[l] ^ c[l]) & 0x80000000u) | (a[l] & 0x7fffffffu);
  }
  finish32(x, R::F32);
  return true;
}

// v_cmp_class: S1 bit for the class of S0.
template <class T> inline u32 classBit(typename T::B a) {
  a = T::norm(a);
  bool Neg = (a & T::kSign) != 0;
  if (isNan<T>(a))
    return isSnan<T>(a) ? 0 : 1;
  int e = expOf<T>(a);
  if (e == T::kExpMax)
    return Neg ? 2 : 9;
  if (e > 0)
    return Neg ? 3 : 8;
  if (!isZero<T>(a))
    return Neg ? 4 : 7;
  return Neg ? 5 : 6;
}

// ---- conversions ------------------------------------------------------------------------------
inline u32 toI32(double v) {
  if (v != v)
    return 0;
  if (v >= 2147483647.0)
    return 0x7fffffffu;
  if (v <= -2147483648.0)
    return 0x80000000u;
  return u32(i32(v));
}
inline u32 toU32(double v) {
  if (!(v > 0))
    return 0;
  if (v >= 4294967295.0)
    return 0xffffffffu;
  return u32(v);
}
inline u32 toI16(double v) {
  if (v != v)
    return 0;
  if (v >= 32767.0)
    return 0x7fff;
  if (v <= -32768.0)
    return 0x8000;
  return u32(u16(i16(v)));
}
inline u32 toU16(double v) {
  if (!(v > 0))
    return 0;
  if (v >= 65535.0)
    return 0xffff;
  return u32(v);
}
inline u32 toU8(double v) {
  if (!(v > 0))
    return 0;
  if (v >= 255.0)
    return 0xff;
  return u32(v);
}
inline u32 snorm16(double v) {
  if (v != v)
    return 0;
  v = std::min(1.0, std::max(-1.0, v));
  return u32(u16(i16(std::nearbyint(v * 32767.0))));
}
inline u32 unorm16(double v) {
  if (v != v)
    return 0;
  v = std::min(1.0, std::max(0.0, v));
  return u32(std::nearbyint(v * 65535.0));
}

// Fraction with the result kept below 1.0 (v_fract: fract(-tiny) is 0x1.fffffep-1, not 1.0).
inline double fractD(double v, double AlmostOne) {
  if (std::isinf(v))
    return std::numeric_limits<double>::quiet_NaN();
  double f = v - std::floor(v);
  return f != f ? f : std::min(f, AlmostOne);
}

// sin/cos of an angle in revolutions.
inline double sinRev(double v) {
  if (std::isinf(v))
    return std::numeric_limits<double>::quiet_NaN();
  double r = v - std::nearbyint(v);
  return std::sin(r * 6.283185307179586476925286766559);
}
inline double cosRev(double v) {
  if (std::isinf(v))
    return std::numeric_limits<double>::quiet_NaN();
  double r = v - std::nearbyint(v);
  return std::cos(r * 6.283185307179586476925286766559);
}

inline float frexpMantF(float v) {
  if (std::isinf(v) || v != v)
    return v;
  int e;
  return std::frexp(v, &e);
}
inline u32 frexpExpF(double v) {
  if (std::isinf(v) || v != v)
    return 0;
  int e;
  std::frexp(v, &e);
  return u32(e);
}

// Result policies. FastM: the default mode (nearest even, denormals kept). ModedM: the moded
// path, where the host rounding mode is already the instruction's (fpmode::HostRounding) and
// f16 results round by tRound. A round-to-odd sum (innocuous double rounding) needs the host in
// nearest-even; in a directed mode the host sum already rounds in that direction, and two
// roundings in the same direction (53 bits, then 24 or 11) equal one.
thread_local unsigned TRound = 0;      // MODE round of the instruction being run (moded path)
thread_local bool TFlush16Out = false; // f16 results flushed (packed-result conversions)
struct FastM {
  static u32 outF16(float v) { return f32ToF16(v); }
  static u32 outF16d(double v) { return f64ToF16(v); }
  static double sumOdd(double p, double c) { return addRoundOdd(p, c); }
  static u32 pk16(u32 h) { return h; }
};
struct ModedM {
  static u32 outF16(float v) { return f64ToF16Rm(double(v), TRound); }
  static u32 outF16d(double v) { return f64ToF16Rm(v, TRound); }
  static double sumOdd(double p, double c) { return TRound ? p + c : addRoundOdd(p, c); }
  static u32 pk16(u32 h) { return TFlush16Out ? fpmode::flush16(h) : h; }
};

// f16 fma: the product is exact in double; the sum is rounded to odd, then once to f16.
template <class M> inline u32 fma16(u32 a, u32 b, u32 c) {
  return M::outF16d(M::sumOdd(double(H(a)) * double(H(b)), double(H(c))));
}
// Unfused f16 multiply-add: the product rounded to f16, then the sum.
template <class M> inline u32 mad16(u32 a, u32 b, u32 c) {
  return M::outF16(H(M::outF16(H(a) * H(b))) + H(c));
}

// v_div_scale_{f32,f64}: returns the result in the low bits, the VCC bit in bit 64 (via a flag).
template <class T, class FT>
inline typename T::B divScaleT(typename T::B s0, typename T::B s1, typename T::B s2, bool &Vcc,
                               int Big, int TinyExp, int Scale) {
  using B = typename T::B;
  auto ToF = [](B b) {
    FT f;
    std::memcpy(&f, &b, sizeof f);
    return f;
  };
  auto ToB = [](FT f) {
    B b;
    std::memcpy(&b, &f, sizeof b);
    return b;
  };
  auto IsDenF = [](FT f) { return f != 0 && std::fpclassify(f) == FP_SUBNORMAL; };
  auto IsDenD = [](double d) { return d != 0 && std::fpclassify(d) == FP_SUBNORMAL; };
  FT f0 = ToF(s0), f1 = ToF(s1), f2 = ToF(s2);
  Vcc = false;
  B d = s0;
  int e1 = expOf<T>(s1), e2 = expOf<T>(s2);
  if (f2 == 0 || f1 == 0) {
    d = ToB(std::numeric_limits<FT>::quiet_NaN());
  } else if (e2 - e1 >= Big) {
    Vcc = true;
    if (f0 == f1)
      d = ToB(std::ldexp(f0, Scale));
  } else if (IsDenF(f1)) {
    d = ToB(std::ldexp(f0, Scale));
  } else if (IsDenD(1.0 / double(f1)) && IsDenF(FT(f2 / f1))) {
    Vcc = true;
    if (f0 == f1)
      d = ToB(std::ldexp(f0, Scale));
  } else if (IsDenD(1.0 / double(f1))) {
    d = ToB(std::ldexp(f0, -Scale));
  } else if (IsDenF(FT(f2 / f1))) {
    Vcc = true;
    if (f0 == f2)
      d = ToB(std::ldexp(f0, Scale));
  } else if (e2 <= TinyExp) {
    d = ToB(std::ldexp(f0, Scale));
  }
  return d;
}

constexpr double kAlmostOneF = 0.99999994039535522; // 0x1.fffffep-1
constexpr double kAlmostOneH = 0.99951171875;       // 0x1.ffcp-1
constexpr double kAlmostOneD = 0.99999999999999989; // 0x1.fffffffffffffp-1

// v_exp_f32: float(exp2(double(a))), from exp2F32Fast where it is sure of the rounding (nearly
// every lane) and from std::exp2 for the lanes it is not (Exp2.h).
bool exp2F32(VX &x) {
  const u32 *a = fetch32(x, 0, Ty::F32);
  u32 *r = x.R;
  alignas(64) u8 Slow[kWaveSize];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    r[l] = exp2F32Fast(a[l]);
    Slow[l] = r[l] == kExp2Slow;
  }
  forEachLane(packLaneBits(Slow),
              [&](unsigned l) { r[l] = outF32(float(std::exp2(double(F(a[l]))))); });
  finish32(x, R::F32);
  return true;
}

} // namespace

template <class M> bool floatOps(VX &x) {
  const bool Ieee = (x.W.Mode & fpmode::kIeee) != 0;
  const Inst &In = x.In;
  using T = Ty;
  switch (In.Operation) {
  // ---- f32 arithmetic -----------------------------------------------------------------------
  case Op::V_ADD_F32_E32:
  case Op::V_ADD_F32_E64:
    return rows(x, T::F32, T::F32, T::N, R::F32, addF32Rows);
  case Op::V_SUB_F32_E32:
  case Op::V_SUB_F32_E64:
    return rows(x, T::F32, T::F32, T::N, R::F32, subF32Rows);
  case Op::V_SUBREV_F32_E32:
  case Op::V_SUBREV_F32_E64:
    return rows(x, T::F32, T::F32, T::N, R::F32, subrevF32Rows);
  case Op::V_MUL_F32_E32:
  case Op::V_MUL_F32_E64:
    return rows(x, T::F32, T::F32, T::N, R::F32, mulF32Rows);
  case Op::V_MUL_LEGACY_F32:
    return n2(x, T::F32, T::F32, R::F32, [](u32 a, u32 b) {
      return (a & 0x7fffffffu) == 0 || (b & 0x7fffffffu) == 0 ? 0u : outF32(F(a) * F(b));
    });
  case Op::V_FMA_F32_E64:
  case Op::V_FMAC_F32_E32:
  case Op::V_FMAC_F32_E64:
    return rows(x, T::F32, T::F32, T::F32, R::F32, fmaF32Rows);
  // gfx90a unfused multiply-add: the product is rounded, then the sum.
  case Op::V_MAC_F32_E32:
  case Op::V_MAC_F32_E64:
  case Op::V_MAD_F32_E64:
    return n3(x, T::F32, T::F32, T::F32, R::F32,
              [](u32 a, u32 b, u32 c) { return outF32(F(outF32(F(a) * F(b))) + F(c)); });
  case Op::V_MAD_LEGACY_F32_E64: // DX9 rule: 0 * anything = 0
    return n3(x, T::F32, T::F32, T::F32, R::F32, [](u32 a, u32 b, u32 c) {
      float p = (a & 0x7fffffffu) == 0 || (b & 0x7fffffffu) == 0 ? 0.0f : F(outF32(F(a) * F(b)));
      return outF32(p + F(c));
    });
  case Op::V_MADMK_F32_E32: {
    float k = F(In.Literal);
    return n2(x, T::F32, T::F32, R::F32,
              [k](u32 a, u32 b) { return outF32(F(outF32(F(a) * k)) + F(b)); });
  }
  case Op::V_MADAK_F32_E32: {
    float k = F(In.Literal);
    return n2(x, T::F32, T::F32, R::F32,
              [k](u32 a, u32 b) { return outF32(F(outF32(F(a) * F(b))) + k); });
  }
  case Op::V_FMAMK_F32_E32: {
    float k = F(In.Literal);
    return n2(x, T::F32, T::F32, R::F32,
              [k](u32 a, u32 b) { return outF32(std::fma(F(a), k, F(b))); });
  }
  case Op::V_FMAAK_F32_E32: {
    float k = F(In.Literal);
    return n2(x, T::F32, T::F32, R::F32,
              [k](u32 a, u32 b) { return outF32(std::fma(F(a), F(b), k)); });
  }
  case Op::V_MAX_F32_E32:
  case Op::V_MAX_F32_E64:
    return Ieee ? minMaxF32<true, true>(x) : minMaxF32<true, false>(x);
  case Op::V_MIN_F32_E32:
  case Op::V_MIN_F32_E64:
    return Ieee ? minMaxF32<false, true>(x) : minMaxF32<false, false>(x);
  case Op::V_MAX3_F32_E64:
    return Ieee ? n3(x, T::F32, T::F32, T::F32, R::F32, Fn<fmax3T<T32, true>>{})
                : n3(x, T::F32, T::F32, T::F32, R::F32, Fn<fmax3T<T32, false>>{});
  case Op::V_MIN3_F32_E64:
    return Ieee ? n3(x, T::F32, T::F32, T::F32, R::F32, Fn<fmin3T<T32, true>>{})
                : n3(x, T::F32, T::F32, T::F32, R::F32, Fn<fmin3T<T32, false>>{});
  case Op::V_MED3_F32_E64:
    return Ieee ? n3(x, T::F32, T::F32, T::F32, R::F32, Fn<fmed3T<T32, true>>{})
                : n3(x, T::F32, T::F32, T::F32, R::F32, Fn<fmed3T<T32, false>>{});
  case Op::V_MAXIMUM3_F32:
    return n3(x, T::F32, T::F32, T::F32, R::F32,
              [](u32 a, u32 b, u32 c) { return fmaximumT<T32>(fmaximumT<T32>(a, b), c); });
  case Op::V_MINIMUM3_F32:
    return n3(x, T::F32, T::F32, T::F32, R::F32,
              [](u32 a, u32 b, u32 c) { return fminimumT<T32>(fminimumT<T32>(a, b), c); });
  case Op::V_LDEXP_F32:
    return n2(x, T::F32, T::B32, R::F32, [](u32 a, u32 b) {
      const int n = std::max(-1000, std::min(1000, i32(b))), e = int((a >> 23) & 0xffu);
      // A normal input whose scaled exponent stays normal: the exponent field moves by n,
      // exactly, in any rounding mode. Anything else (zero, denormal, inf, NaN, a result that
      // overflows or goes denormal) takes the library's ldexp.
      if (e >= 1 && e <= 254 && e + n >= 1 && e + n <= 254)
        return a + (u32(n) << 23);
      return outF32(std::ldexp(F(a), n));
    });
  case Op::V_FREXP_MANT_F32_E32:
  case Op::V_FREXP_MANT_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(frexpMantF(F(a))); });
  case Op::V_FREXP_EXP_I32_F32_E32:
  case Op::V_FREXP_EXP_I32_F32_E64:
    return n1(x, T::F32, R::B32, [](u32 a) { return frexpExpF(F(a)); });
  case Op::V_FRACT_F32_E32:
  case Op::V_FRACT_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(float(fractD(F(a), kAlmostOneF))); });
  case Op::V_TRUNC_F32_E32:
  case Op::V_TRUNC_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(std::trunc(F(a))); });
  case Op::V_CEIL_F32_E32:
  case Op::V_CEIL_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(std::ceil(F(a))); });
  case Op::V_FLOOR_F32_E32:
  case Op::V_FLOOR_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(std::floor(F(a))); });
  case Op::V_RNDNE_F32_E32:
  case Op::V_RNDNE_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(std::nearbyint(F(a))); });
  case Op::V_RCP_F32_E32:
  case Op::V_RCP_F32_E64:
  case Op::V_RCP_IFLAG_F32_E32:
  case Op::V_RCP_IFLAG_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(float(1.0 / double(F(a)))); });
  case Op::V_RSQ_F32_E32:
  case Op::V_RSQ_F32_E64:
    return n1(x, T::F32, R::F32,
              [](u32 a) { return outF32(float(1.0 / std::sqrt(double(F(a))))); });
  case Op::V_SQRT_F32_E32:
  case Op::V_SQRT_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(std::sqrt(F(a))); });
  case Op::V_EXP_F32_E32:
  case Op::V_EXP_F32_E64:
    return exp2F32(x);
  case Op::V_LOG_F32_E32:
  case Op::V_LOG_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(float(std::log2(double(F(a))))); });
  case Op::V_SIN_F32_E32:
  case Op::V_SIN_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(float(sinRev(F(a)))); });
  case Op::V_COS_F32_E32:
  case Op::V_COS_F32_E64:
    return n1(x, T::F32, R::F32, [](u32 a) { return outF32(float(cosRev(F(a)))); });

  case Op::V_DIV_SCALE_F32: {
    const u32 *a = fetch32(x, 0, T::F32), *b = fetch32(x, 1, T::F32), *c = fetch32(x, 2, T::F32);
    // The common case, without divScaleT's two divisions: S1 and S2 normal (exponent fields
    // 1..254), S2's exponent less than 96 above S1's and at least -125 from it. Then S2/S1 is
    // no denormal (|S2/S1| > 2^(e2-e1-1) >= 2^-126), 1/S1 in double never is for a float S1,
    // and divScaleT's only remaining test is e2 <= 23, which scales S0 by 2^64: for a finite
    // S0 the float product S0 * 2^64 is ldexp's value (exact, or the same overflow in every
    // rounding mode). A lane outside that case (or an infinite or NaN S0 to scale) is left to
    // divScaleT. Written without branches, so that the loop over lanes vectorizes.
    alignas(64) u8 Slow[kWaveSize];
    for (unsigned l = 0; l < 64; ++l) {
      const int e0 = int((a[l] >> 23) & 0xff), e1 = int((b[l] >> 23) & 0xff),
                e2 = int((c[l] >> 23) & 0xff);
      const bool Common = (unsigned(e1 - 1) < 254u) & (unsigned(e2 - 1) < 254u) & (e2 - e1 < 96) &
                          (e2 - e1 >= -125) & ((e2 > 23) | (e0 != 255));
      const u32 Scaled = f32ToBits(F(a[l]) * 0x1p64f);
      const u32 UseScaled = 0u - u32(e2 <= 23); // a mask: a select would become a branch
      x.R[l] = (Scaled & UseScaled) | (a[l] & ~UseScaled);
      Slow[l] = !Common;
    }
    u64 Vcc = 0;
    forEachLane(packLaneBits(Slow), [&](unsigned l) {
      bool v;
      x.R[l] = divScaleT<T32, float>(a[l], b[l], c[l], v, 96, 23, 64);
      Vcc |= u64(v) << l;
    });
    finish32(x, R::F32);
    writeMask(x, In.Sdst, Vcc & x.Exec);
    return true;
  }
  // v_div_fmas: the ISA pseudocode scales by 2^32 (2^64 for f64) when VCC is set, which cannot
  // undo v_div_scale's 2^64 (2^128) scaling in either of its VCC cases (quotient near overflow:
  // denominator scaled up; quotient denormal: numerator scaled up). We scale by 2^+64 when the
  // quotient estimate S2 is >= 2 (exponent > bias) and by 2^-64 otherwise, which is what makes
  // the compiler's division sequence correctly rounded (tested), and what hardware must do.
  case Op::V_DIV_FMAS_F32_E64: {
    u64 Vcc = x.W.vcc();
    const u32 *a = fetch32(x, 0, T::F32), *b = fetch32(x, 1, T::F32), *c = fetch32(x, 2, T::F32);
    // Every lane as a plain fma (a loop that vectorizes), then the lanes VCC selects again.
    for (unsigned l = 0; l < 64; ++l)
      x.R[l] = outF32(std::fma(F(a[l]), F(b[l]), F(c[l])));
    forEachLane(Vcc, [&](unsigned l) {
      // Undo v_div_scale's 2^64 scaling with one rounding: the exact product in double,
      // the sum rounded to odd, the power-of-two scale exact, then one rounding to float.
      double s = M::sumOdd(double(F(a[l])) * double(F(b[l])), double(F(c[l])));
      s = std::ldexp(s, expOf<T32>(c[l]) > 127 ? 64 : -64);
      x.R[l] = outF32(float(s));
    });
    finish32(x, R::F32);
    return true;
  }
  case Op::V_DIV_FIXUP_F32_E64:
    return divFixupF32(x);

  // ---- f32 conversions ----------------------------------------------------------------------
  case Op::V_CVT_F32_I32_E32:
  case Op::V_CVT_F32_I32_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float(i32(a))); });
  case Op::V_CVT_F32_U32_E32:
  case Op::V_CVT_F32_U32_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float(a)); });
  case Op::V_CVT_I32_F32_E32:
  case Op::V_CVT_I32_F32_E64:
    return n1(x, T::F32, R::B32, [](u32 a) { return toI32(F(a)); });
  case Op::V_CVT_U32_F32_E32:
  case Op::V_CVT_U32_F32_E64:
    return n1(x, T::F32, R::B32, [](u32 a) { return toU32(F(a)); });
  case Op::V_CVT_FLR_I32_F32_E32:
  case Op::V_CVT_FLR_I32_F32_E64:
    return n1(x, T::F32, R::B32, [](u32 a) { return toI32(std::floor(F(a))); });
  case Op::V_CVT_RPI_I32_F32_E32:
  case Op::V_CVT_RPI_I32_F32_E64:
    return n1(x, T::F32, R::B32, [](u32 a) { return toI32(std::floor(F(a) + 0.5f)); });
  case Op::V_CVT_F16_F32_E32:
  case Op::V_CVT_F16_F32_E64:
    return n1(x, T::F32, R::F16, [](u32 a) { return M::outF16(F(a)); });
  case Op::V_CVT_F32_F16_E32:
  case Op::V_CVT_F32_F16_E64:
    return n1(x, T::F16, R::F32, [](u32 a) { return outF32(H(a)); });
  case Op::V_CVT_F32_BF16_E32:
  case Op::V_CVT_F32_BF16_E64:
    return n1(x, T::BF16, R::F32, [](u32 a) { return (a & 0xffffu) << 16; });
  case Op::V_CVT_F32_UBYTE0_E32:
  case Op::V_CVT_F32_UBYTE0_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float(a & 0xff)); });
  case Op::V_CVT_F32_UBYTE1_E32:
  case Op::V_CVT_F32_UBYTE1_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float((a >> 8) & 0xff)); });
  case Op::V_CVT_F32_UBYTE2_E32:
  case Op::V_CVT_F32_UBYTE2_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float((a >> 16) & 0xff)); });
  case Op::V_CVT_F32_UBYTE3_E32:
  case Op::V_CVT_F32_UBYTE3_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float(a >> 24)); });
  case Op::V_CVT_OFF_F32_I4_E32:
  case Op::V_CVT_OFF_F32_I4_E64:
    return n1(x, T::B32, R::F32, [](u32 a) { return outF32(float(i32(a << 28) >> 28) / 16.0f); });
  case Op::V_CVT_F64_F32_E32:
  case Op::V_CVT_F64_F32_E64:
    return w1(x, T::F32, R::F64, [](u64 a) { return outF64(double(F(u32(a)))); });
  case Op::V_CVT_F32_F64_E32:
  case Op::V_CVT_F32_F64_E64:
    return w1(x, T::F64, R::F32, [](u64 a) { return u64(outF32(float(D(a)))); });
  case Op::V_CVT_F64_I32_E32:
  case Op::V_CVT_F64_I32_E64:
    return w1(x, T::B32, R::F64, [](u64 a) { return outF64(double(i32(u32(a)))); });
  case Op::V_CVT_F64_U32_E32:
  case Op::V_CVT_F64_U32_E64:
    return w1(x, T::B32, R::F64, [](u64 a) { return outF64(double(u32(a))); });
  case Op::V_CVT_I32_F64_E32:
  case Op::V_CVT_I32_F64_E64:
    return w1(x, T::F64, R::B32, [](u64 a) { return u64(toI32(D(a))); });
  case Op::V_CVT_U32_F64_E32:
  case Op::V_CVT_U32_F64_E64:
    return w1(x, T::F64, R::B32, [](u64 a) { return u64(toU32(D(a))); });
  case Op::V_CVT_PKRTZ_F16_F32:
    return n2(x, T::F32, T::F32, R::B32, [](u32 a, u32 b) {
      return M::pk16(f32ToF16Rtz(F(a))) | (M::pk16(f32ToF16Rtz(F(b))) << 16);
    });
  case Op::V_CVT_PK_F16_F32:
    return n2(x, T::F32, T::F32, R::B32, [](u32 a, u32 b) {
      return M::pk16(M::outF16(F(a))) | (M::pk16(M::outF16(F(b))) << 16);
    });
  case Op::V_CVT_PK_BF16_F32:
    return n2(x, T::F32, T::F32, R::B32,
              [](u32 a, u32 b) { return u32(f32ToBf16(F(a))) | (u32(f32ToBf16(F(b))) << 16); });
  case Op::V_CVT_PKNORM_I16_F32:
    return n2(x, T::F32, T::F32, R::B32,
              [](u32 a, u32 b) { return snorm16(F(a)) | (snorm16(F(b)) << 16); });
  case Op::V_CVT_PKNORM_U16_F32:
    return n2(x, T::F32, T::F32, R::B32,
              [](u32 a, u32 b) { return unorm16(F(a)) | (unorm16(F(b)) << 16); });
  case Op::V_CVT_PKNORM_I16_F16:
    return n2(x, T::F16, T::F16, R::B32,
              [](u32 a, u32 b) { return snorm16(H(a)) | (snorm16(H(b)) << 16); });
  case Op::V_CVT_PKNORM_U16_F16:
    return n2(x, T::F16, T::F16, R::B32,
              [](u32 a, u32 b) { return unorm16(H(a)) | (unorm16(H(b)) << 16); });
  case Op::V_CVT_PK_U8_F32_E64:
    return n3(x, T::F32, T::B32, T::B32, R::B32, [](u32 a, u32 b, u32 c) {
      unsigned Sh = (b & 3) * 8;
      return (c & ~(0xffu << Sh)) | (toU8(F(a)) << Sh);
    });

  // ---- f16 ----------------------------------------------------------------------------------
  case Op::V_ADD_F16_E32:
  case Op::V_ADD_F16_E64:
    return n2(x, T::F16, T::F16, R::F16, [](u32 a, u32 b) { return M::outF16(H(a) + H(b)); });
  case Op::V_SUB_F16_E32:
  case Op::V_SUB_F16_E64:
    return n2(x, T::F16, T::F16, R::F16, [](u32 a, u32 b) { return M::outF16(H(a) - H(b)); });
  case Op::V_SUBREV_F16_E32:
  case Op::V_SUBREV_F16_E64:
    return n2(x, T::F16, T::F16, R::F16, [](u32 a, u32 b) { return M::outF16(H(b) - H(a)); });
  case Op::V_MUL_F16_E32:
  case Op::V_MUL_F16_E64:
    return n2(x, T::F16, T::F16, R::F16, [](u32 a, u32 b) { return M::outF16(H(a) * H(b)); });
  case Op::V_MAC_F16_E32:
  case Op::V_MAC_F16_E64:
  case Op::V_MAD_LEGACY_F16_E64:
    return n3(x, T::F16, T::F16, T::F16, R::F16, Fn<mad16<M>>{});
  case Op::V_MAD_F16:
    return n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<mad16<M>>{});
  case Op::V_MADMK_F16_E32: {
    u32 k = In.Literal & 0xffff;
    return n2(x, T::F16, T::F16, R::F16, [k](u32 a, u32 b) { return mad16<M>(a, k, b); });
  }
  case Op::V_MADAK_F16_E32: {
    u32 k = In.Literal & 0xffff;
    return n2(x, T::F16, T::F16, R::F16, [k](u32 a, u32 b) { return mad16<M>(a, b, k); });
  }
  case Op::V_FMA_F16:
    return n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fma16<M>>{});
  case Op::V_FMA_LEGACY_F16_E64:
    return n3(x, T::F16, T::F16, T::F16, R::F16, Fn<fma16<M>>{});
  case Op::V_MAX_F16_E32:
  case Op::V_MAX_F16_E64:
    return Ieee ? n2(x, T::F16, T::F16, R::F16, Fn<fmaxT<T16, true>>{})
                : n2(x, T::F16, T::F16, R::F16, Fn<fmaxT<T16, false>>{});
  case Op::V_MIN_F16_E32:
  case Op::V_MIN_F16_E64:
    return Ieee ? n2(x, T::F16, T::F16, R::F16, Fn<fminT<T16, true>>{})
                : n2(x, T::F16, T::F16, R::F16, Fn<fminT<T16, false>>{});
  case Op::V_MAX3_F16_E64:
    return Ieee ? n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fmax3T<T16, true>>{})
                : n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fmax3T<T16, false>>{});
  case Op::V_MIN3_F16_E64:
    return Ieee ? n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fmin3T<T16, true>>{})
                : n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fmin3T<T16, false>>{});
  case Op::V_MED3_F16_E64:
    return Ieee ? n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fmed3T<T16, true>>{})
                : n3(x, T::F16, T::F16, T::F16, R::F16P, Fn<fmed3T<T16, false>>{});
  case Op::V_LDEXP_F16_E32:
  case Op::V_LDEXP_F16_E64:
    return n2(x, T::F16, T::B16, R::F16, [](u32 a, u32 b) {
      return M::outF16(std::ldexp(H(a), std::max(-100, std::min(100, i32(i16(u16(b)))))));
    });
  case Op::V_FREXP_MANT_F16_E32:
  case Op::V_FREXP_MANT_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16(frexpMantF(H(a))); });
  case Op::V_FREXP_EXP_I16_F16_E32:
  case Op::V_FREXP_EXP_I16_F16_E64:
    return n1(x, T::F16, R::B16, [](u32 a) { return frexpExpF(H(a)) & 0xffff; });
  case Op::V_FRACT_F16_E32:
  case Op::V_FRACT_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16(float(fractD(H(a), kAlmostOneH))); });
  case Op::V_TRUNC_F16_E32:
  case Op::V_TRUNC_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16(std::trunc(H(a))); });
  case Op::V_CEIL_F16_E32:
  case Op::V_CEIL_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16(std::ceil(H(a))); });
  case Op::V_FLOOR_F16_E32:
  case Op::V_FLOOR_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16(std::floor(H(a))); });
  case Op::V_RNDNE_F16_E32:
  case Op::V_RNDNE_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16(std::nearbyint(H(a))); });
  case Op::V_RCP_F16_E32:
  case Op::V_RCP_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(1.0 / double(H(a))); });
  case Op::V_RSQ_F16_E32:
  case Op::V_RSQ_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(1.0 / std::sqrt(double(H(a)))); });
  case Op::V_SQRT_F16_E32:
  case Op::V_SQRT_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(std::sqrt(double(H(a)))); });
  case Op::V_EXP_F16_E32:
  case Op::V_EXP_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(std::exp2(double(H(a)))); });
  case Op::V_LOG_F16_E32:
  case Op::V_LOG_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(std::log2(double(H(a)))); });
  case Op::V_SIN_F16_E32:
  case Op::V_SIN_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(sinRev(H(a))); });
  case Op::V_COS_F16_E32:
  case Op::V_COS_F16_E64:
    return n1(x, T::F16, R::F16, [](u32 a) { return M::outF16d(cosRev(H(a))); });
  case Op::V_DIV_FIXUP_F16:
    return n3(x, T::F16, T::F16, T::F16, R::F16P,
              [](u32 a, u32 b, u32 c) { return divFixupT<T16>(a, b, c, 0xfe00u, 0); });
  case Op::V_DIV_FIXUP_LEGACY_F16_E64:
    return n3(x, T::F16, T::F16, T::F16, R::F16,
              [](u32 a, u32 b, u32 c) { return divFixupT<T16>(a, b, c, 0xfe00u, 0); });
  case Op::V_CVT_F16_U16_E32:
  case Op::V_CVT_F16_U16_E64:
    return n1(x, T::B16, R::F16, [](u32 a) { return M::outF16(float(a & 0xffff)); });
  case Op::V_CVT_F16_I16_E32:
  case Op::V_CVT_F16_I16_E64:
    return n1(x, T::B16, R::F16, [](u32 a) { return M::outF16(float(i16(u16(a)))); });
  case Op::V_CVT_U16_F16_E32:
  case Op::V_CVT_U16_F16_E64:
    return n1(x, T::F16, R::B16, [](u32 a) { return toU16(H(a)); });
  case Op::V_CVT_I16_F16_E32:
  case Op::V_CVT_I16_F16_E64:
    return n1(x, T::F16, R::B16, [](u32 a) { return toI16(H(a)); });
  case Op::V_CVT_NORM_I16_F16_E32:
  case Op::V_CVT_NORM_I16_F16_E64:
    return n1(x, T::F16, R::B16, [](u32 a) { return snorm16(H(a)); });
  case Op::V_CVT_NORM_U16_F16_E32:
  case Op::V_CVT_NORM_U16_F16_E64:
    return n1(x, T::F16, R::B16, [](u32 a) { return unorm16(H(a)); });

  // ---- f64 ----------------------------------------------------------------------------------
  case Op::V_ADD_F64:
    return w2(x, T::F64, T::F64, R::F64, [](u64 a, u64 b) { return outF64(D(a) + D(b)); });
  case Op::V_MUL_F64:
    return w2(x, T::F64, T::F64, R::F64, [](u64 a, u64 b) { return outF64(D(a) * D(b)); });
  case Op::V_FMA_F64_E64:
  case Op::V_FMAC_F64_E32:
  case Op::V_FMAC_F64_E64:
    return w3(x, T::F64, T::F64, T::F64, R::F64,
              [](u64 a, u64 b, u64 c) { return outF64(std::fma(D(a), D(b), D(c))); });
  case Op::V_MAX_F64:
    return Ieee ? w2(x, T::F64, T::F64, R::F64, Fn<fmaxT<T64, true>>{})
                : w2(x, T::F64, T::F64, R::F64, Fn<fmaxT<T64, false>>{});
  case Op::V_MIN_F64:
    return Ieee ? w2(x, T::F64, T::F64, R::F64, Fn<fminT<T64, true>>{})
                : w2(x, T::F64, T::F64, R::F64, Fn<fminT<T64, false>>{});
  case Op::V_LDEXP_F64:
    return w2(x, T::F64, T::B32, R::F64, [](u64 a, u64 b) {
      return outF64(std::ldexp(D(a), std::max(-5000, std::min(5000, i32(u32(b))))));
    });
  case Op::V_FREXP_MANT_F64_E32:
  case Op::V_FREXP_MANT_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) {
      double v = D(a);
      if (std::isinf(v) || v != v)
        return a;
      int e;
      return outF64(std::frexp(v, &e));
    });
  case Op::V_FREXP_EXP_I32_F64_E32:
  case Op::V_FREXP_EXP_I32_F64_E64:
    return w1(x, T::F64, R::B32, [](u64 a) { return u64(frexpExpF(D(a))); });
  case Op::V_FRACT_F64_E32:
  case Op::V_FRACT_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(fractD(D(a), kAlmostOneD)); });
  case Op::V_TRUNC_F64_E32:
  case Op::V_TRUNC_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(std::trunc(D(a))); });
  case Op::V_CEIL_F64_E32:
  case Op::V_CEIL_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(std::ceil(D(a))); });
  case Op::V_FLOOR_F64_E32:
  case Op::V_FLOOR_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(std::floor(D(a))); });
  case Op::V_RNDNE_F64_E32:
  case Op::V_RNDNE_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(std::nearbyint(D(a))); });
  case Op::V_RCP_F64_E32:
  case Op::V_RCP_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(1.0 / D(a)); });
  case Op::V_RSQ_F64_E32:
  case Op::V_RSQ_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(1.0 / std::sqrt(D(a))); });
  case Op::V_SQRT_F64_E32:
  case Op::V_SQRT_F64_E64:
    return w1(x, T::F64, R::F64, [](u64 a) { return outF64(std::sqrt(D(a))); });
  case Op::V_DIV_SCALE_F64: {
    const u64 *a = fetch64(x, 0, T::F64), *b = fetch64(x, 1, T::F64), *c = fetch64(x, 2, T::F64);
    u64 Vcc = 0;
    for (unsigned l = 0; l < 64; ++l) {
      bool v;
      x.Rq[l] = divScaleT<T64, double>(a[l], b[l], c[l], v, 768, 53, 128);
      Vcc |= u64(v) << l;
    }
    finish64(x, R::F64);
    writeMask(x, In.Sdst, Vcc & x.Exec);
    return true;
  }
  case Op::V_DIV_FMAS_F64_E64: {
    u64 Vcc = x.W.vcc();
    const u64 *a = fetch64(x, 0, T::F64), *b = fetch64(x, 1, T::F64), *c = fetch64(x, 2, T::F64);
    for (unsigned l = 0; l < 64; ++l) {
      double v = std::fma(D(a[l]), D(b[l]), D(c[l]));
      if ((Vcc >> l) & 1) // see V_DIV_FMAS_F32 (a denormal result is rounded twice here)
        v = std::ldexp(v, expOf<T64>(c[l]) > 1023 ? 128 : -128);
      x.Rq[l] = outF64(v);
    }
    finish64(x, R::F64);
    return true;
  }
  case Op::V_DIV_FIXUP_F64_E64:
    return w3(x, T::F64, T::F64, T::F64, R::F64, [](u64 a, u64 b, u64 c) {
      return divFixupT<T64>(a, b, c, 0xfff8000000000000ull, -1075);
    });
  default:
    return false;
  }
}

// ---- floating-point modes ---------------------------------------------------------------------
namespace {

// How an op depends on MODE.FP_ROUND. Ops not listed do not round (compares, exact results,
// min/max, conversions to integers that truncate or floor, v_cvt_pkrtz's fixed round toward
// zero) and run as in the default mode.
//   HostSp / HostDp: correctly rounded in any mode by the host arithmetic under the single
//     (f32 results) or double/half (f16, f64 results) round field;
//   UnsupSp / UnsupDp: results whose directed-mode behaviour is not modelled (approximate
//     transcendentals, normalising and bf16 conversions, v_cvt_rpi's "+0.5"): the emulator
//     stops when that field is not nearest-even.
enum RoundUse : uint8_t { kNoRound, kHostSp, kHostDp, kUnsupSp, kUnsupDp };

RoundUse roundUseOf(Op Op) {
  switch (Op) {
  case Op::V_ADD_F32_E32:
  case Op::V_ADD_F32_E64:
  case Op::V_SUB_F32_E32:
  case Op::V_SUB_F32_E64:
  case Op::V_SUBREV_F32_E32:
  case Op::V_SUBREV_F32_E64:
  case Op::V_MUL_F32_E32:
  case Op::V_MUL_F32_E64:
  case Op::V_MUL_LEGACY_F32:
  case Op::V_FMA_F32_E64:
  case Op::V_FMAC_F32_E32:
  case Op::V_FMAC_F32_E64:
  case Op::V_MAC_F32_E32:
  case Op::V_MAC_F32_E64:
  case Op::V_MAD_F32_E64:
  case Op::V_MAD_LEGACY_F32_E64:
  case Op::V_MADMK_F32_E32:
  case Op::V_MADAK_F32_E32:
  case Op::V_FMAMK_F32_E32:
  case Op::V_FMAAK_F32_E32:
  case Op::V_LDEXP_F32:
  case Op::V_FRACT_F32_E32:
  case Op::V_FRACT_F32_E64:
  case Op::V_DIV_SCALE_F32:
  case Op::V_DIV_FMAS_F32_E64:
  case Op::V_CVT_F32_I32_E32:
  case Op::V_CVT_F32_I32_E64:
  case Op::V_CVT_F32_U32_E32:
  case Op::V_CVT_F32_U32_E64:
  case Op::V_CVT_F32_F64_E32:
  case Op::V_CVT_F32_F64_E64:
    return kHostSp;
  case Op::V_ADD_F16_E32:
  case Op::V_ADD_F16_E64:
  case Op::V_SUB_F16_E32:
  case Op::V_SUB_F16_E64:
  case Op::V_SUBREV_F16_E32:
  case Op::V_SUBREV_F16_E64:
  case Op::V_MUL_F16_E32:
  case Op::V_MUL_F16_E64:
  case Op::V_MAC_F16_E32:
  case Op::V_MAC_F16_E64:
  case Op::V_MAD_LEGACY_F16_E64:
  case Op::V_MAD_F16:
  case Op::V_MADMK_F16_E32:
  case Op::V_MADAK_F16_E32:
  case Op::V_FMA_F16:
  case Op::V_FMA_LEGACY_F16_E64:
  case Op::V_LDEXP_F16_E32:
  case Op::V_LDEXP_F16_E64:
  case Op::V_FRACT_F16_E32:
  case Op::V_FRACT_F16_E64:
  case Op::V_CVT_F16_F32_E32:
  case Op::V_CVT_F16_F32_E64:
  case Op::V_CVT_F16_U16_E32:
  case Op::V_CVT_F16_U16_E64:
  case Op::V_CVT_F16_I16_E32:
  case Op::V_CVT_F16_I16_E64:
  case Op::V_CVT_PK_F16_F32:
  case Op::V_ADD_F64:
  case Op::V_MUL_F64:
  case Op::V_FMA_F64_E64:
  case Op::V_FMAC_F64_E32:
  case Op::V_FMAC_F64_E64:
  case Op::V_LDEXP_F64:
  case Op::V_FRACT_F64_E32:
  case Op::V_FRACT_F64_E64:
  case Op::V_DIV_SCALE_F64:
  case Op::V_DIV_FMAS_F64_E64:
    return kHostDp;
  case Op::V_RCP_F32_E32:
  case Op::V_RCP_F32_E64:
  case Op::V_RCP_IFLAG_F32_E32:
  case Op::V_RCP_IFLAG_F32_E64:
  case Op::V_RSQ_F32_E32:
  case Op::V_RSQ_F32_E64:
  case Op::V_SQRT_F32_E32:
  case Op::V_SQRT_F32_E64:
  case Op::V_EXP_F32_E32:
  case Op::V_EXP_F32_E64:
  case Op::V_LOG_F32_E32:
  case Op::V_LOG_F32_E64:
  case Op::V_SIN_F32_E32:
  case Op::V_SIN_F32_E64:
  case Op::V_COS_F32_E32:
  case Op::V_COS_F32_E64:
  case Op::V_CVT_RPI_I32_F32_E32:
  case Op::V_CVT_RPI_I32_F32_E64:
  case Op::V_CVT_PKNORM_I16_F32:
  case Op::V_CVT_PKNORM_U16_F32:
  case Op::V_CVT_PK_BF16_F32:
    return kUnsupSp;
  case Op::V_RCP_F16_E32:
  case Op::V_RCP_F16_E64:
  case Op::V_RSQ_F16_E32:
  case Op::V_RSQ_F16_E64:
  case Op::V_SQRT_F16_E32:
  case Op::V_SQRT_F16_E64:
  case Op::V_EXP_F16_E32:
  case Op::V_EXP_F16_E64:
  case Op::V_LOG_F16_E32:
  case Op::V_LOG_F16_E64:
  case Op::V_SIN_F16_E32:
  case Op::V_SIN_F16_E64:
  case Op::V_COS_F16_E32:
  case Op::V_COS_F16_E64:
  case Op::V_RCP_F64_E32:
  case Op::V_RCP_F64_E64:
  case Op::V_RSQ_F64_E32:
  case Op::V_RSQ_F64_E64:
  case Op::V_SQRT_F64_E32:
  case Op::V_SQRT_F64_E64:
  case Op::V_CVT_PKNORM_I16_F16:
  case Op::V_CVT_PKNORM_U16_F16:
  case Op::V_CVT_NORM_I16_F16_E32:
  case Op::V_CVT_NORM_I16_F16_E64:
  case Op::V_CVT_NORM_U16_F16_E32:
  case Op::V_CVT_NORM_U16_F16_E64:
    return kUnsupDp;
  default:
    return kNoRound;
  }
}

const uint8_t *roundUseTable() {
  static const std::vector<uint8_t> t = [] {
    std::vector<uint8_t> v(size_t(Op::Count) + 1, kNoRound);
    for (unsigned i = 0; i < unsigned(Op::Count); ++i)
      v[i] = roundUseOf(Op(i));
    return v;
  }();
  return t.data();
}

[[noreturn]] void throwRoundUnsupported(const VX &x, fpmode::Round r) {
  std::string m = opNameLower(x.In.Operation);
  for (const char *Suf : {"_e32", "_e64"})
    if (m.size() > 4 && m.compare(m.size() - 4, 4, Suf) == 0)
      m.resize(m.size() - 4);
  throw EmuError(EmuErrorKind::Unsupported, "unsupported instruction " + m + " at pc " +
                                                hexText(x.C.InstPc) + " (round mode " +
                                                fpmode::roundName(r) + " not modelled)");
}

} // namespace

bool execVectorFloat(VX &x) { return floatOps<FastM>(x); }

// One out-of-line loop per op, which both executors call: which NaN an operation on two NaNs
// returns is the host's choice (x86 returns its first operand's, and the compiler may swap the
// operands of a commutative operation), and one compiled loop makes the same choice for both.
// The ISA guides say only that the result is a quiet NaN.
[[gnu::noinline]] void addF32Rows(const u32 *a, const u32 *b, const u32 *, u32 *r) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    r[l] = outF32(F(a[l]) + F(b[l]));
}
[[gnu::noinline]] void subF32Rows(const u32 *a, const u32 *b, const u32 *, u32 *r) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    r[l] = outF32(F(a[l]) - F(b[l]));
}
[[gnu::noinline]] void subrevF32Rows(const u32 *a, const u32 *b, const u32 *, u32 *r) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    r[l] = outF32(F(b[l]) - F(a[l]));
}
[[gnu::noinline]] void mulF32Rows(const u32 *a, const u32 *b, const u32 *, u32 *r) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    r[l] = outF32(F(a[l]) * F(b[l]));
}
[[gnu::noinline]] void fmaF32Rows(const u32 *a, const u32 *b, const u32 *c, u32 *r) {
  for (unsigned l = 0; l < kWaveSize; ++l)
    r[l] = outF32(std::fma(F(a[l]), F(b[l]), F(c[l])));
}

void minMaxF32Rows(bool Max, bool Ieee, const u32 *a, const u32 *b, u32 *r) {
  if (Max)
    return Ieee ? minMaxF32Lanes<true, true>(a, b, r) : minMaxF32Lanes<true, false>(a, b, r);
  return Ieee ? minMaxF32Lanes<false, true>(a, b, r) : minMaxF32Lanes<false, false>(a, b, r);
}

// The moded path: MODE round/denormal fields other than the default (see ExecVectorCore.h).
// The float ops only; the caller (ExecVector.cpp) tries the compares after it.
bool execVectorModed(VX &x) {
  using namespace fpmode;
  const uint32_t Mode = x.W.Mode;
  x.FtzIn = u8((Mode & kDenormSpIn ? 0 : 1) | (Mode & kDenormDpIn ? 0 : 2));
  x.FtzOut = u8((Mode & kDenormSpOut ? 0 : 1) | (Mode & kDenormDpOut ? 0 : 2));
  if (x.FtzIn)
    x.SrcMod |= 7;
  if (x.FtzOut)
    x.Post = true;
  TFlush16Out = (x.FtzOut & 2) != 0;
  const Round Rs = roundSp(Mode), Rd = roundDp(Mode);
  Round r = kNearestEven;
  if (Rs != kNearestEven || Rd != kNearestEven) {
    switch (roundUseTable()[unsigned(x.In.Operation)]) {
    case kHostSp:
      r = Rs;
      break;
    case kHostDp:
      r = Rd;
      break;
    case kUnsupSp:
      if (Rs != kNearestEven)
        throwRoundUnsupported(x, Rs);
      break;
    case kUnsupDp:
      if (Rd != kNearestEven)
        throwRoundUnsupported(x, Rd);
      break;
    default:
      break;
    }
  }
  TRound = r;
  bool Done;
  {
    HostRounding Guard(r);
    Done = floatOps<ModedM>(x);
  }
  TRound = 0;
  return Done;
}

// Exposed for the compare executor.
u32 classBit32(u32 a) { return classBit<T32>(a); }
u32 classBit16(u32 a) { return classBit<T16>(a); }
u32 classBit64(u64 a) { return classBit<T64>(a); }

} // namespace asmevo::emu::vec
