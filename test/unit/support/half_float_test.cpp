// support/Float.h's binary16 -> binary32 conversion (inline, used by every f16 lane loop and MFMA
// operand gather) over all 65,536 codes, against a reference written here from the IEEE 754
// binary16 definition with std::ldexp in double: value = (-1)^s * m * 2^(e - 25) with the hidden
// bit for normal numbers, m * 2^-24 for denormals, and the NaN payload moved to the top of the
// binary32 mantissa.
#include "support/Float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace asmevo;

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

// binary32 -> binary16 (f32ToF16, which uses F16C's vcvtps2ph when the emulator is built for
// x86-64-v3) against the portable f64ToF16 (round to nearest even, written from the format):
// every 61st bit pattern by default, all 2^32 with ASMEVO_EXHAUSTIVE=1.
void compareF32ToF16(uint32_t Step) {
  uint32_t A = 0x0badf00du;
  for (uint64_t I = 0; I < (uint64_t(1) << 32) / Step; ++I, A += Step)
    ASSERT_EQ(f32ToF16(bitsToF32(A)), f64ToF16(double(bitsToF32(A))))
        << "binary32 0x" << std::hex << A;
}

TEST(HalfFloat, F32ToF16MatchesThePortableRounding) {
  compareF32ToF16(61);
  // The edges: halfway cases, the largest finite, overflow, denormal results, NaNs.
  for (uint32_t A : {0x477fefffu, 0x477ff000u, 0x477ff001u, 0x33000000u, 0x33000001u, 0x387fc000u,
                     0x387fe000u, 0x7fa00001u, 0xffc12345u, 0x7f800000u, 0x80000001u})
    EXPECT_EQ(f32ToF16(bitsToF32(A)), f64ToF16(double(bitsToF32(A)))) << std::hex << A;
}

TEST(HalfFloat, F32ToF16MatchesOnEveryInputWhenAsked) {
  const char *E = std::getenv("ASMEVO_EXHAUSTIVE");
  if (!E || std::string(E) != "1")
    GTEST_SKIP() << "set ASMEVO_EXHAUSTIVE=1 to compare all 2^32 inputs";
  compareF32ToF16(1);
}

} // namespace
