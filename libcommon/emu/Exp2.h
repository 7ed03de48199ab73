// v_exp_f32's value, float(exp2(double(a))), without a libm call for most inputs.
//
// The emulator defines v_exp_f32 as 2^a computed in double and rounded once to float
// (ExecVectorFloat.cpp). Calling std::exp2 per lane costs about 50 host instructions and keeps
// the lane loop from vectorizing. exp2F32Fast computes 2^a in double with straight-line code
// that vectorizes, and gives the float only when rounding it cannot differ from rounding
// libm's value; otherwise it returns kExp2Slow and the caller asks std::exp2.
//
// Why the result is the same: for a in [-126, 128) let k = nearest integer to a, f = a - k
// (exact, |f| <= 1/2), and 2^a = 2^k * 2^f with 2^f = sum (f ln2)^n / n!. The series to n = 13
// leaves out less than 0.35^14 / 14! < 5e-18 relative; the Horner steps and the coefficients add a
// few units in the last place of a double (2^-52 relative each). A correct libm is within an
// ulp of the true value too. The float rounding of a normal result drops the low 29 bits of the
// double's mantissa; unless those bits are within kExp2Guard ulps of the halfway point
// 0x10000000, both values lie on the same side of the same float rounding boundary and round to
// the same float. kExp2Guard = 1024 ulps is two orders of magnitude above the error; it sends
// about 4 in a million inputs to libm. Results are normal floats (2^-126 <= 2^a < 2^128, no
// overflow: 2^(128 - 2^-17) is below FLT_MAX), and 2^a is never exactly halfway between floats
// (for an integer a it is a power of two; otherwise it is irrational). test/unit/emu/exp2_test
// compares exp2F32Fast with float(std::exp2(double(a))) over a stride of all 2^32 inputs, and
// over all of them with ASMEVO_EXHAUSTIVE=1.
#pragma once

#include "support/Float.h"

#include <cstdint>

namespace asmevo::emu {

// Not a value exp2F32Fast can return for a result (a negative NaN): "ask std::exp2".
inline constexpr uint32_t kExp2Slow = 0xffffffffu;
inline constexpr uint32_t kExp2Guard = 1024;

namespace exp2detail {
// (ln 2)^n / n!, n = 0..13, from ln 2 rounded to double.
struct Coeffs {
  double C[14];
  constexpr Coeffs() : C() {
    const double Ln2 = 0.6931471805599453;
    double t = 1.0;
    for (int n = 0; n < 14; ++n) {
      C[n] = t;
      t = t * Ln2 / double(n + 1);
    }
  }
};
inline constexpr Coeffs kCoeffs{};
} // namespace exp2detail

// float(exp2(double(a))) as bits, or kExp2Slow. Host rounding must be to nearest even (the
// default; the moded path runs v_exp_f32 only in that rounding mode).
inline uint32_t exp2F32Fast(uint32_t ABits) {
  // a in [-126, 128), from the bits: positive below 128.0f (0x43000000), or negative up to
  // -126.0f (0xc2fc0000); NaNs are outside both. Integer tests and masks rather than float
  // compares and selects: with those GCC branches around the arithmetic and the loop does not
  // vectorize (a float operation that could trap is not executed speculatively).
  const bool InRange = (ABits < 0x43000000u) | ((ABits >= 0x80000000u) & (ABits <= 0xc2fc0000u));
  const uint32_t InMask = 0u - uint32_t(InRange);
  const double Ar = double(bitsToF32(ABits & InMask)); // 0 when out of range
  // k = ar rounded to the nearest integer (adding and removing 1.5 * 2^52 rounds in the host's
  // rounding mode, nearest even here), f = ar - k exactly.
  const double k = (Ar + 6755399441055744.0) - 6755399441055744.0;
  const double f = Ar - k;
  const double *c = exp2detail::kCoeffs.C;
  double p = c[13];
  for (int n = 12; n >= 0; --n)
    p = p * f + c[n];
  // 2^k as a double, k in [-126, 128]: k + 1023 + 2^52 is exact and its low mantissa bits are
  // the biased exponent (an integer conversion that vectorizes without AVX-512). Scaling by a
  // power of two is exact.
  const uint64_t Biased = f64ToBits(k + (1023.0 + 4503599627370496.0)) & 0x7ffu;
  const double y = p * bitsToF64(Biased << 52);
  const uint32_t Low = uint32_t(f64ToBits(y)) & 0x1fffffffu;
  const uint32_t Dist = Low > 0x10000000u ? Low - 0x10000000u : 0x10000000u - Low;
  const uint32_t Bits = f32ToBits(float(y));
  const uint32_t Ok = InMask & (0u - uint32_t(Dist > kExp2Guard));
  return (Bits & Ok) | (kExp2Slow & ~Ok);
}

} // namespace asmevo::emu
