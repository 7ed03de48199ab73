// The narrow float formats (support/SmallFloat.h) and the fp8 / bf8 conversion instructions.
// Expected codes are worked out by hand from the formats' definitions (OCP OFP8; FNUZ: bias
// 8 / 16, 0x80 the only NaN, no negative zero), then the instructions run in hand-written
// kernels on gfx942 (FNUZ) and gfx950 (OCP).
#include "AsmKernel.h"

#include "support/SmallFloat.h"

#include <cmath>
#include <limits>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

uint32_t enc(float X, SmallFormat F, bool Sat = false) {
  uint32_t C = 0xdead;
  EXPECT_TRUE(f32ToSmall(X, F, Sat, C)) << X;
  return C;
}

TEST(SmallFloat, EncodesNormalsSubnormalsAndTiesToEven) {
  EXPECT_EQ(enc(1.0f, SmallFormat::E4M3Fnuz), 0x40u); // exponent 8 (bias 8)
  EXPECT_EQ(enc(1.0f, SmallFormat::E4M3), 0x38u);     // exponent 7 (bias 7)
  EXPECT_EQ(enc(1.0f, SmallFormat::E5M2), 0x3cu);     // exponent 15
  EXPECT_EQ(enc(1.0f, SmallFormat::E5M2Fnuz), 0x40u); // exponent 16
  EXPECT_EQ(enc(-2.5f, SmallFormat::E4M3), 0xc2u);    // 1.010b * 2^1
  // 1.0625 is halfway between 1.0 (mantissa 000) and 1.125 (001): to even, 1.0.
  EXPECT_EQ(enc(1.0625f, SmallFormat::E4M3), 0x38u);
  // 1.1875 is halfway between 1.125 (001) and 1.25 (010): to even, 1.25.
  EXPECT_EQ(enc(1.1875f, SmallFormat::E4M3), 0x3au);
  // Subnormals: E4M3 FNUZ's smallest is 2^-10; 2^-11 is a tie with 0 (to even: 0);
  // 1.5 * 2^-11 rounds up to 2^-10.
  EXPECT_EQ(enc(std::ldexp(1.0f, -10), SmallFormat::E4M3Fnuz), 0x01u);
  EXPECT_EQ(enc(std::ldexp(1.0f, -11), SmallFormat::E4M3Fnuz), 0x00u);
  EXPECT_EQ(enc(std::ldexp(1.5f, -11), SmallFormat::E4M3Fnuz), 0x01u);
  EXPECT_EQ(enc(std::ldexp(1.0f, -9), SmallFormat::E4M3), 0x01u); // OCP E4M3's smallest
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(enc(std::ldexp(7.9f, -9), SmallFormat::E4M3), 0x08u);
}

TEST(SmallFloat, ZerosNaNsAndOverflow) {
  EXPECT_EQ(enc(-0.0f, SmallFormat::E4M3Fnuz), 0x00u); // FNUZ has no negative zero
  EXPECT_EQ(enc(-0.0f, SmallFormat::E4M3), 0x80u);
  EXPECT_EQ(enc(-std::ldexp(1.0f, -12), SmallFormat::E4M3Fnuz), 0x00u);
  EXPECT_EQ(enc(std::numeric_limits<float>::quiet_NaN(), SmallFormat::E4M3Fnuz), 0x80u);
  EXPECT_EQ(enc(-std::numeric_limits<float>::quiet_NaN(), SmallFormat::E4M3), 0xffu);
  // Largest finite values, and what rounds onto them or past them.
  EXPECT_EQ(enc(240.0f, SmallFormat::E4M3Fnuz), 0x7fu);
  EXPECT_EQ(enc(247.9f, SmallFormat::E4M3Fnuz), 0x7fu);
  EXPECT_EQ(enc(248.0f, SmallFormat::E4M3Fnuz), 0x80u); // rounds to 256: NaN, not saturated
  EXPECT_EQ(enc(448.0f, SmallFormat::E4M3), 0x7eu);
  EXPECT_EQ(enc(464.0f, SmallFormat::E4M3), 0x7eu);   // tie between 448 and 480: to even
  EXPECT_EQ(enc(-480.0f, SmallFormat::E4M3), 0xffu);  // overflow: NaN
  EXPECT_EQ(enc(65536.0f, SmallFormat::E5M2), 0x7cu); // overflow: infinity
  EXPECT_EQ(enc(-std::numeric_limits<float>::infinity(), SmallFormat::E5M2), 0xfcu);
  EXPECT_EQ(enc(std::numeric_limits<float>::infinity(), SmallFormat::E5M2Fnuz), 0x80u);
  // Saturating (MODE.FP16_OVFL): the largest finite value of the sign.
  EXPECT_EQ(enc(1000.0f, SmallFormat::E4M3Fnuz, true), 0x7fu);
  EXPECT_EQ(enc(-1000.0f, SmallFormat::E4M3Fnuz, true), 0xffu);
  EXPECT_EQ(enc(-1000.0f, SmallFormat::E4M3, true), 0xfeu);
  EXPECT_EQ(enc(1e6f, SmallFormat::E5M2, true), 0x7bu);
  uint32_t C;
  EXPECT_FALSE(f32ToSmall(std::numeric_limits<float>::infinity(), SmallFormat::E4M3, true, C));
  EXPECT_FALSE(f32ToSmall(100.0f, SmallFormat::E2M1, false, C)); // FP4 has no NaN/infinity
}

TEST(SmallFloat, DecodesEveryCodeBackToItself) {
  for (SmallFormat F :
       {SmallFormat::E4M3Fnuz, SmallFormat::E5M2Fnuz, SmallFormat::E4M3, SmallFormat::E5M2}) {
    for (uint32_t Code = 0; Code < 256; ++Code) {
      float V = smallToF32(Code, F);
      if (std::isnan(V) || std::isinf(V))
        continue;
      uint32_t Back = 0;
      ASSERT_TRUE(f32ToSmall(V, F, false, Back));
      // -0 has no FNUZ code; every other finite code round-trips.
      EXPECT_EQ(Back, Code) << "format " << int(F) << " code " << Code << " value " << V;
    }
  }
  EXPECT_EQ(smallToF32(0x7f, SmallFormat::E4M3Fnuz), 240.0f);
  EXPECT_EQ(smallToF32(0x7e, SmallFormat::E4M3), 448.0f);
  EXPECT_EQ(smallToF32(0x7b, SmallFormat::E5M2), 57344.0f);
  EXPECT_TRUE(std::isnan(smallToF32(0x80, SmallFormat::E5M2Fnuz)));
  EXPECT_TRUE(std::isinf(smallToF32(0x7c, SmallFormat::E5M2)));
  EXPECT_EQ(smallToF32(0x1f, SmallFormat::E2M3), 7.5f);
  EXPECT_EQ(smallToF32(0x1f, SmallFormat::E3M2), 28.0f);
  EXPECT_EQ(smallToF32(0x7, SmallFormat::E2M1), 6.0f);
  EXPECT_EQ(smallToF32(0x1, SmallFormat::E2M1), 0.5f);
  EXPECT_EQ(e8m0ToF32(127), 1.0f);
  EXPECT_EQ(e8m0ToF32(0), std::ldexp(1.0f, -127));
  EXPECT_TRUE(std::isnan(e8m0ToF32(0xff)));
}

// v_cvt_pk_fp8_f32 writes one 16-bit half (op_sel[2] selects the high one) and keeps the other;
// the f32 -> fp8 pair then decodes back through v_cvt_pk_f32_fp8 (SDWA WORD_1) and
// v_cvt_f32_fp8 (SDWA BYTE_1).
std::string cvtBody() {
  return "\tv_mov_b32 v2, 1.0\n"
         "\tv_mov_b32 v3, -2.5\n"
         "\tv_mov_b32 v4, 0x11223344\n"
         "\tv_cvt_pk_fp8_f32 v4, v2, v3 op_sel:[0,0,1]\n" // high half = {fp8(-2.5), fp8(1.0)}
         "\tv_cvt_pk_f32_fp8_sdwa v[6:7], v4 src0_sel:WORD_1\n"
         "\tv_cvt_f32_fp8_sdwa v8, v4 src0_sel:BYTE_3\n"
         "\tv_cvt_pk_bf8_f32 v5, v2, v3\n"
         "\tv_add_u32 v9, 0x800, v1\n"
         "\tglobal_store_dword v9, v4, s[2:3]\n"
         "\tglobal_store_dword v9, v5, s[2:3] offset:256\n"
         "\tglobal_store_dword v9, v6, s[2:3] offset:512\n"
         "\tglobal_store_dword v9, v7, s[2:3] offset:768\n"
         "\tglobal_store_dword v9, v8, s[2:3] offset:1024\n"
         "\ts_waitcnt vmcnt(0)\n";
}

TEST(Fp8Convert, Gfx942UsesFnuz) {
  auto R = runAsmKernel(cvtBody());
  ASSERT_EQ(R.Error, "");
  // FNUZ E4M3: 1.0 = 0x40, -2.5 = 0xca (1.1001.010: exponent 9, mantissa 010); the low half
  // 0x3344 is kept. E5M2 FNUZ: 1.0 = 0x40, -2.5 = 0xc5 (1.10001.01: exponent 17).
  EXPECT_EQ(R.Buffer[512], 0xca403344u);
  EXPECT_EQ(R.Buffer[576] & 0xffffu, 0xc540u);
  EXPECT_EQ(R.Buffer[640], 0x3f800000u); // 1.0
  EXPECT_EQ(R.Buffer[704], 0xc0200000u); // -2.5
  EXPECT_EQ(R.Buffer[768], 0xc0200000u);
}

TEST(Fp8Convert, Gfx950UsesOcp) {
  AsmKernel K;
  K.Target = "gfx950";
  auto R = runAsmKernel(cvtBody(), K);
  ASSERT_EQ(R.Error, "");
  // OCP E4M3: 1.0 = 0x38, -2.5 = 0xc2 (1.1000.010); E5M2: 1.0 = 0x3c, -2.5 = 0xc1
  // (1.10000.01).
  EXPECT_EQ(R.Buffer[512], 0xc2383344u);
  EXPECT_EQ(R.Buffer[576] & 0xffffu, 0xc13cu);
  EXPECT_EQ(R.Buffer[640], 0x3f800000u);
  EXPECT_EQ(R.Buffer[704], 0xc0200000u);
  EXPECT_EQ(R.Buffer[768], 0xc0200000u);
}

TEST(Fp8Convert, ClampOnAConversionToFp8IsRefusedWithTheReason) {
  // The assembler does not take clamp here: the words of v_cvt_pk_fp8_f32 v4, v2, v3 with the
  // VOP3 clamp bit (15) set.
  auto R = runAsmKernel("\t.long 0xd2a28004, 0x00020702\n");
  EXPECT_NE(R.Error.find("unsupported instruction v_cvt_pk_fp8_f32 at pc 0x"), std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("clamp or an output modifier on a conversion to fp8 is not documented"),
            std::string::npos)
      << R.Error;
}

// gfx950's scaled conversions: the scale is 2^(exponent field - 127) of an f32 (3.0 acts as
// 2.0); quantizing divides, dequantizing multiplies; one rounding to nearest even.
TEST(ScaledConvert, PkFp4F32WritesTheSelectedByteAndIgnoresTheScaleMantissa) {
  AsmKernel K;
  K.Target = "gfx950";
  auto R = runAsmKernel("\tv_mov_b32 v2, 3.0\n\tv_mov_b32 v3, -0.5\n\tv_mov_b32 v4, 0x40400000\n"
                        "\tv_mov_b32 v5, 0x11223344\n"
                        "\tv_cvt_scalef32_pk_fp4_f32 v5, v2, v3, v4 op_sel:[0,0,1]\n"
                        "\tv_mov_b32 v6, 0x38c20000\n\tv_mov_b32 v7, 0.25\n"
                        "\tv_cvt_scalef32_pk_bf16_fp8 v8, v6, v7 op_sel:[1,0,0]\n"
                        "\tv_add_u32 v9, 0x800, v1\n"
                        "\tglobal_store_dword v9, v5, s[2:3]\n"
                        "\tglobal_store_dword v9, v8, s[2:3] offset:256\n"
                        "\ts_waitcnt vmcnt(0)\n",
                        K);
  ASSERT_EQ(R.Error, "");
  // 3.0 / 2 = 1.5 -> E2M1 0.01.1 = 0x3; -0.5 / 2 = -0.25, a tie between 0 and 0.5: to even,
  // -0 = 0x8. Byte 1 = {0x8, 0x3}; the other bytes are kept.
  EXPECT_EQ(R.Buffer[512], 0x11228344u);
  // Word 1 of v6 = 0x38c2: bytes 0xc2 (-2.5) and 0x38 (1.0), times 0.25: bf16 -0.625 = 0xbf20,
  // 0.25 = 0x3e80.
  EXPECT_EQ(R.Buffer[576], 0x3e80bf20u);
}

TEST(ScaledConvert, Fp4OverflowIsRefusedWithTheReason) {
  AsmKernel K;
  K.Target = "gfx950";
  auto R = runAsmKernel("\tv_mov_b32 v2, 100.0\n\tv_mov_b32 v3, 1.0\n"
                        "\tv_cvt_scalef32_pk_fp4_f32 v5, v2, v3, v3\n",
                        K);
  EXPECT_NE(R.Error.find("unsupported instruction v_cvt_scalef32_pk_fp4_f32 at pc 0x"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("a NaN or of a value past fp4's range (+-6) is not documented"),
            std::string::npos)
      << R.Error;
}

} // namespace
