// Floating-point formats the ISA uses besides float and double: IEEE half, bfloat16, and the
// conversions between them, bit-exact (round to nearest even unless a mode says otherwise).
#pragma once

#include <cstdint>
#include <cstring>

namespace asmevo {

inline float bitsToF32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline uint32_t f32ToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline double bitsToF64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t f64ToBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// IEEE binary16 -> binary32, exact (denormals, infinities and NaN payloads kept). Inline and
// branch-free: the emulator's f16 lane loops and MFMA operand gathers vectorize it. The three
// candidates are computed for every input and picked with integer masks (a select between them
// would let GCC branch around the float multiply, and a loop with a branch does not vectorize).
inline float f16ToF32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, em = h & 0x7fffu;
  // infinity, NaN (payload kept, a signalling NaN stays signalling)
  const uint32_t special = sign | 0x7f800000u | ((em & 0x3ffu) << 13);
  // normal: rebias the exponent (15 -> 127)
  const uint32_t normal = sign | ((em << 13) + (112u << 23));
  // zero and denormals: em * 2^-24, exact in binary32 (and a normal binary32 unless zero)
  const uint32_t denormal = sign | f32ToBits(float(em) * 0x1p-24f);
  const uint32_t isSpecial = 0u - uint32_t(em >= 0x7c00u), isNormal = 0u - uint32_t(em >= 0x400u);
  return bitsToF32((special & isSpecial) | (normal & isNormal & ~isSpecial) |
                   (denormal & ~isNormal));
}
// binary32 -> binary16, round to nearest even; NaN stays NaN (quiet), overflow gives infinity.
uint16_t f32ToF16(float f);
// bfloat16 <-> binary32 (round to nearest even; NaN stays a quiet NaN).
inline float bf16ToF32(uint16_t h) { return bitsToF32(uint32_t(h) << 16); }
uint16_t f32ToBf16(float f);
// binary64 -> binary16, round to nearest even (one rounding, no double-rounding error). Inline:
// every f16 result of the emulator passes through it.
inline uint16_t f64ToF16(double d) {
  uint64_t x = f64ToBits(d);
  uint16_t sign = uint16_t((x >> 48) & 0x8000);
  uint32_t exp = uint32_t((x >> 52) & 0x7ff);
  uint64_t man = x & 0xfffffffffffffull;
  if (exp == 0x7ff) {
    if (man == 0)
      return uint16_t(sign | 0x7c00);
    return uint16_t(sign | 0x7e00 | (man >> 42));
  }
  int e = int(exp) - 1023 + 15;
  if (e >= 0x1f)
    return uint16_t(sign | 0x7c00);
  uint64_t m = man | (exp ? (1ull << 52) : 0);
  unsigned shift;
  if (e <= 0) {
    if (e < -11)
      return sign; // below half the smallest denormal
    shift = unsigned(42 + 1 - e);
  } else {
    shift = 42;
    m &= ~(1ull << 52);
  }
  uint64_t q = m >> shift;
  uint64_t rem = m & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    ++q;
  if (e > 0)
    q += uint64_t(e) << 10; // carries into the exponent (up to infinity) are correct
  return uint16_t(sign | q);
}
// binary64 -> binary16 in rounding mode `rm` (MODE.FP_ROUND encoding: 0 nearest even,
// 1 toward +inf, 2 toward -inf, 3 toward zero); overflow gives infinity or the largest finite
// value as the mode says.
uint16_t f64ToF16Rm(double d, unsigned rm);
// binary32 -> binary16, round toward zero (V_CVT_PKRTZ_F16_F32).
uint16_t f32ToF16Rtz(float f);
// binary64 -> binary32 of a+b rounded to odd (a helper for exactly rounded narrowing:
// double rounding through a round-to-odd intermediate of >= p+2 bits is innocuous).
double addRoundOdd(double a, double b);

} // namespace asmevo
