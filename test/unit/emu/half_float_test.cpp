// emu/Float.h's binary16 -> binary32 conversion (inline, used by every f16 lane loop and MFMA
// operand gather) over all 65,536 codes, against a reference written here from the IEEE 754
// binary16 definition with std::ldexp in double: value = (-1)^s * m * 2^(e - 25) with the hidden
// bit for normal numbers, m * 2^-24 for denormals, and the NaN payload moved to the top of the
// binary32 mantissa.
#include "emu/Float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

using namespace asmevo::emu;

namespace {

uint32_t referenceBits(uint16_t H) {
  const bool Neg = H & 0x8000u;
  const unsigned E = (H >> 10) & 0x1fu, M = H & 0x3ffu;
  if (E == 0x1f) // infinity or NaN: all-ones exponent, payload in the top mantissa bits
    return (Neg ? 0x80000000u : 0u) | 0x7f800000u | (uint32_t(M) << 13);
  double V = E == 0 ? std::ldexp(double(M), -24) : std::ldexp(double(1024 + M), int(E) - 25);
  float F = float(Neg ? -V : V); // exact: every binary16 value is a binary32 value
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

TEST(HalfFloat, EveryBinary16CodeConvertsExactly) {
  for (uint32_t H = 0; H <= 0xffffu; ++H)
    ASSERT_EQ(f32ToBits(f16ToF32(uint16_t(H))), referenceBits(uint16_t(H)))
        << "binary16 code 0x" << std::hex << H;
}

TEST(HalfFloat, SignedZerosAndSignallingNanKeepTheirBits) {
  EXPECT_EQ(f32ToBits(f16ToF32(0x8000u)), 0x80000000u);
  EXPECT_EQ(f32ToBits(f16ToF32(0x0000u)), 0x00000000u);
  EXPECT_EQ(f32ToBits(f16ToF32(0x7c01u)), 0x7f802000u); // signalling NaN stays signalling
  EXPECT_EQ(f32ToBits(f16ToF32(0x0001u)), 0x33800000u); // smallest denormal: 2^-24
}

} // namespace
