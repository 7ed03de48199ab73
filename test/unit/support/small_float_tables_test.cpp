// support/SmallFloat against PyTorch's own conversion tables (test/corpus/fp8-tables, written by
// gen_tables.py with torch 2.11 on the CPU; see its README). PyTorch is an independent
// implementation of the OCP and FNUZ fp8 formats, so agreement here checks SmallFloat's decoding
// of every code and its round-to-nearest-even encoding over 2,348 f32 values (ties, subnormals,
// the overflow threshold, infinities, NaN) without reusing any of its arithmetic.
#include "TorchTables.h"

#include "support/SmallFloat.h"

#include <cmath>
#include <cstdint>
#include <map>

using namespace asmevo;
using namespace asmevo::emu::test;

namespace {

const std::map<std::string, SmallFormat> kFormats = {{"e4m3fn", SmallFormat::E4M3},
                                                     {"e5m2", SmallFormat::E5M2},
                                                     {"e4m3fnuz", SmallFormat::E4M3Fnuz},
                                                     {"e5m2fnuz", SmallFormat::E5M2Fnuz}};

TEST(SmallFloatTables, DecodesEveryCodeAsPyTorchDoes) {
  for (const auto &[Name, F] : kFormats) {
    auto Rows = readTorchTable("decode_" + Name + ".tsv");
    ASSERT_EQ(Rows.size(), 256u) << Name;
    unsigned NaNs = 0;
    for (const auto &R : Rows) {
      uint32_t Code = parseHex(R[0]), Torch = parseHex(R[1]);
      float Ours = smallToF32(Code, F);
      SCOPED_TRACE(Name + " code " + R[0]);
      if (std::isnan(bitsToF32(Torch))) {
        // Which NaN payload comes out is not part of either format; NaN-ness and sign are.
        ++NaNs;
        EXPECT_TRUE(std::isnan(Ours));
        EXPECT_EQ(std::signbit(Ours), std::signbit(bitsToF32(Torch)));
      } else {
        EXPECT_EQ(f32ToBits(Ours), Torch) << "ours " << Ours << " torch " << bitsToF32(Torch);
      }
    }
    // E4M3: S.1111.111 (2); E5M2: S.11111.mm, mm != 0 (6); FNUZ: 0x80 alone.
    unsigned Expected = F == SmallFormat::E4M3 ? 2 : F == SmallFormat::E5M2 ? 6 : 1;
    EXPECT_EQ(NaNs, Expected) << Name;
  }
}

TEST(SmallFloatTables, DecodesEveryE8M0ScaleAsPyTorchDoes) {
  auto Rows = readTorchTable("decode_e8m0fnu.tsv");
  ASSERT_EQ(Rows.size(), 256u);
  for (const auto &R : Rows) {
    uint32_t Code = parseHex(R[0]), Torch = parseHex(R[1]);
    float Ours = e8m0ToF32(uint8_t(Code));
    if (std::isnan(bitsToF32(Torch)))
      EXPECT_TRUE(std::isnan(Ours)) << "code " << R[0];
    else
      EXPECT_EQ(f32ToBits(Ours), Torch) << "code " << R[0];
  }
}

// x.to(float8 dtype) in PyTorch rounds to nearest even and does not saturate: past the largest
// finite value it gives NaN (E4M3, FNUZ) or infinity (E5M2). That is SmallFloat's
// Saturate = false, the conversion instructions without clamp and with MODE.FP16_OVFL clear.
TEST(SmallFloatTables, EncodesEveryTestValueAsPyTorchDoes) {
  auto Rows = readTorchTable("encode.tsv");
  ASSERT_GT(Rows.size(), 2000u);
  // Columns: f32_bits, e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu.
  const std::vector<std::pair<std::string, int>> Cols = {
      {"e4m3fn", 1}, {"e5m2", 2}, {"e4m3fnuz", 3}, {"e5m2fnuz", 4}};
  std::map<std::string, unsigned> Checked;
  for (const auto &R : Rows) {
    float X = bitsToF32(parseHex(R[0]));
    for (const auto &[Name, Col] : Cols) {
      SmallFormat F = kFormats.at(Name);
      uint32_t Torch = parseHex(R[Col]), Ours = 0xdead;
      ASSERT_TRUE(f32ToSmall(X, F, /*Saturate=*/false, Ours)) << Name << " " << R[0];
      // NaN inputs: the OCP formats have several NaN codes, and which one comes out is not
      // specified; it must be a NaN of the input's sign.
      if (std::isnan(X) && (F == SmallFormat::E4M3 || F == SmallFormat::E5M2)) {
        EXPECT_TRUE(std::isnan(smallToF32(Ours, F))) << Name << " " << R[0];
        EXPECT_EQ(Ours & 0x80, Torch & 0x80) << Name << " " << R[0];
      } else {
        EXPECT_EQ(Ours, Torch) << Name << " f32 " << R[0] << " (" << X << ")";
      }
      ++Checked[Name];
    }
  }
  for (const auto &[Name, N] : Checked)
    EXPECT_EQ(N, Rows.size()) << Name;
}

} // namespace
