#include "support/Float.h"

#include <cmath>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace asmevo {

uint16_t f32ToF16(float f) {
#if defined(__F16C__)
  // The library is built for a host with F16C (x86-64-v3, ASMEVO_EMU_X86_LEVEL): vcvtps2ph with
  // an immediate rounding of nearest even, whatever MXCSR says. Its NaN rule (quiet bit set,
  // payload truncated) is f64ToF16's; half_float_test compares the two on 2^32/61 inputs, and
  // on all of them with ASMEVO_EXHAUSTIVE=1.
  return uint16_t(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
#else
  // Every float is exactly a double, so one rounding from the double is the same result
  // (checked for all 2^32 inputs when this replaced a separate f32 path).
  return f64ToF16(double(f));
#endif
}

uint16_t f32ToBf16(float f) {
  uint32_t x = f32ToBits(f);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffff))
    return uint16_t((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

uint16_t f64ToF16Rm(double d, unsigned rm) {
  if (rm == 0)
    return f64ToF16(d);
  uint64_t x = f64ToBits(d);
  uint16_t sign = uint16_t((x >> 48) & 0x8000);
  uint32_t exp = uint32_t((x >> 52) & 0x7ff);
  uint64_t man = x & 0xfffffffffffffull;
  if (exp == 0x7ff)
    return f64ToF16(d); // infinity or NaN: no rounding
  if (exp == 0 && man == 0)
    return sign;
  // Rounding away from zero happens for an inexact value toward +inf when positive and
  // toward -inf when negative; toward zero never rounds the magnitude up.
  bool away = (rm == 1 && !sign) || (rm == 2 && sign);
  int e = int(exp) - 1023 + 15;
  if (e >= 0x1f)
    return uint16_t(sign | (away ? 0x7c00 : 0x7bff));
  uint64_t m = man | (exp ? (1ull << 52) : 0);
  unsigned shift;
  if (e <= 0) {
    shift = unsigned(42 + 1 - e);
  } else {
    shift = 42;
    m &= ~(1ull << 52);
  }
  uint64_t q, rem;
  if (shift >= 64) {
    q = 0;
    rem = m;
  } else {
    q = m >> shift;
    rem = m & ((1ull << shift) - 1);
  }
  if (rem && away)
    ++q;
  if (e > 0)
    q += uint64_t(e) << 10; // a carry into the exponent (up to infinity) is correct
  return uint16_t(sign | q);
}

uint16_t f32ToF16Rtz(float f) {
  uint32_t x = f32ToBits(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t man = x & 0x7fffff;
  if (exp == 0xff) {
    if (man == 0)
      return uint16_t(sign | 0x7c00);
    return uint16_t(sign | 0x7e00 | (man >> 13));
  }
  int e = int(exp) - 127 + 15;
  if (e >= 0x1f)
    return uint16_t(sign | 0x7bff); // toward zero: the largest finite value
  if (e <= 0) {
    if (e < -10)
      return sign;
    uint32_t m = man | 0x800000;
    return uint16_t(sign | (m >> unsigned(14 - e)));
  }
  return uint16_t(sign | (uint32_t(e) << 10) | (man >> 13));
}

double addRoundOdd(double a, double b) {
  double s = a + b;
  if (!std::isfinite(s))
    return s;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  if (err != 0 && (f64ToBits(s) & 1) == 0)
    s = std::nextafter(s, err > 0 ? INFINITY : -INFINITY);
  return s;
}

} // namespace asmevo
