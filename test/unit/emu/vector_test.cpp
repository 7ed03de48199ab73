// Unit tests of the vector ALU executor (execVector): hand-built Inst values, results checked
// against hand-computed constants or host formulas independent of the implementation.
#include "MakeInst.h"
#include "emu/Exec.h"
#include "emu/ExecVectorCore.h"
#include "support/Float.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

using namespace asmevo;
using namespace asmevo::emu;
using asmevo::emu::test::mk;

namespace {

constexpr uint16_t V(unsigned r) { return uint16_t(kVgprBase + r); }
constexpr uint16_t S(unsigned r) { return uint16_t(r); }
constexpr uint16_t kConst(int v) { return uint16_t(v >= 0 ? 128 + v : 192 - v); }
constexpr uint16_t kOne = 242, kHalf = 240, kTwo = 244;

uint32_t fb(float f) { return f32ToBits(f); }
float bf(uint32_t b) { return bitsToF32(b); }

struct Vec : ::testing::Test {
  std::unique_ptr<WaveState> W = std::make_unique<WaveState>();
  Workgroup Wg;
  DeviceMemory Mem;
  ExecCtx C{*W, Wg, Mem, Gfx::Gfx942};

  void SetUp() override {
    W->setExec(~0ull);
    W->Mode = 0x3f0; // what compiled kernels' descriptors set: RNE, denormals kept, DX10, IEEE
  }
  uint32_t *row(unsigned r) { return W->vrow(r); }
  void fill(unsigned r, uint32_t (*f)(unsigned)) {
    for (unsigned l = 0; l < 64; ++l)
      row(r)[l] = f(l);
  }
  void run(const Inst &in) { ASSERT_TRUE(execVector(C, in)) << opName(in.Operation); }
  // Run a one-lane-varying f32 op: sources in v1, v2, v3, result in v0.
  float f32op(Op op, Enc enc, float a, float b = 0, float cc = 0, unsigned nsrc = 2) {
    for (unsigned l = 0; l < 64; ++l) {
      row(1)[l] = fb(a);
      row(2)[l] = fb(b);
      row(3)[l] = fb(cc);
    }
    Inst in = mk(op, enc, V(0), V(1), nsrc > 1 ? V(2) : kNoOperand, nsrc > 2 ? V(3) : kNoOperand);
    EXPECT_TRUE(execVector(C, in));
    return bf(row(0)[5]);
  }
};

// ---- integer ------------------------------------------------------------------------------------

TEST_F(Vec, AddU32ExecMasked) {
  fill(1, [](unsigned l) { return l * 3u; });
  fill(0, [](unsigned) { return 0xdeadu; });
  W->setExec(0x00000000ffff0000ull);
  run(mk(Op::V_ADD_U32_E32, Enc::VOP2, V(0), kConst(7), V(1)));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], (l >= 16 && l < 32) ? l * 3 + 7 : 0xdeadu) << l;
}

TEST_F(Vec, AddU32ClampSaturates) {
  fill(1, [](unsigned l) { return 0xfffffff0u + (l & 7); });
  Inst in = mk(Op::V_ADD_U32_E64, Enc::VOP3, V(0), V(1), kConst(16));
  in.Clamp = true;
  run(in);
  EXPECT_EQ(row(0)[0], 0xffffffffu);
  EXPECT_EQ(row(0)[63], 0xffffffffu);
  in.Clamp = false;
  run(in);
  EXPECT_EQ(row(0)[0], 0u);
  EXPECT_EQ(row(0)[1], 1u);
}

TEST_F(Vec, SubrevAndLiteral) {
  fill(1, [](unsigned l) { return l; });
  Inst in = mk(Op::V_SUBREV_U32_E32, Enc::VOP2, V(0), V(1), V(1));
  in.Src[0] = kLiteralCode;
  in.Literal = 1000;
  in.HasLiteral = true;
  run(in);
  EXPECT_EQ(row(0)[10], uint32_t(10 - 1000));
}

TEST_F(Vec, CarryChain64BitAdd) {
  // (v1:v2) + (v3:v4) with v_add_co_u32 / v_addc_co_u32 through VCC.
  std::mt19937_64 rng(1);
  uint64_t a[64], b[64];
  for (unsigned l = 0; l < 64; ++l) {
    a[l] = rng(), b[l] = (l & 1) ? ~a[l] + (l & 2) : rng();
    row(1)[l] = uint32_t(a[l]), row(2)[l] = uint32_t(a[l] >> 32);
    row(3)[l] = uint32_t(b[l]), row(4)[l] = uint32_t(b[l] >> 32);
  }
  Inst lo = mk(Op::V_ADD_CO_U32_E32, Enc::VOP2, V(5), V(1), V(3));
  lo.Sdst = kVccLo;
  run(lo);
  Inst hi = mk(Op::V_ADDC_CO_U32_E32, Enc::VOP2, V(6), V(2), V(4), kVccLo);
  hi.Sdst = kVccLo;
  run(hi);
  uint64_t carry = 0;
  for (unsigned l = 0; l < 64; ++l) {
    uint64_t s = a[l] + b[l];
    EXPECT_EQ(row(5)[l] | (uint64_t(row(6)[l]) << 32), s) << l;
    unsigned __int128 full = (unsigned __int128)a[l] + b[l];
    carry |= uint64_t(full >> 64) << l;
  }
  EXPECT_EQ(W->vcc(), carry);
}

TEST_F(Vec, SubCoVop3SgprCarryAndInactiveZero) {
  fill(1, [](unsigned l) { return l; });
  W->setExec(0xffull);
  W->S[20] = 0xffffffff;
  W->S[21] = 0xffffffff;
  Inst in = mk(Op::V_SUB_CO_U32, Enc::VOP3, V(0), V(1), kConst(4));
  in.Sdst = S(20);
  run(in);
  EXPECT_EQ(W->S[20], 0x0fu); // lanes 0..3 borrow; lanes >= 8 inactive -> 0
  EXPECT_EQ(W->S[21], 0u);
  EXPECT_EQ(row(0)[2], uint32_t(-2));
  // subb with carry-in from s[20:21]
  Inst b = mk(Op::V_SUBB_CO_U32, Enc::VOP3, V(2), V(1), kConst(0), S(20));
  b.Sdst = S(22);
  run(b);
  EXPECT_EQ(row(2)[0], 0xffffffffu);
  EXPECT_EQ(row(2)[4], 4u);
  EXPECT_EQ(W->S[22], 0x1u);
}

TEST_F(Vec, MadU64U32) {
  fill(1, [](unsigned l) { return 0xffffffffu - l; });
  fill(2, [](unsigned l) { return 0x80000000u + l; });
  fill(3, [](unsigned l) { return l * 7u; });
  fill(4, [](unsigned l) { return l == 3 ? 0xffffffffu : 0u; });
  Inst in = mk(Op::V_MAD_U64_U32, Enc::VOP3, V(6), V(1), V(2), V(3));
  in.Sdst = S(10);
  run(in);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned __int128 r = (unsigned __int128)(uint64_t(0xffffffffu - l) * (0x80000000u + l)) +
                          ((uint64_t(row(4)[l]) << 32) | l * 7u);
    EXPECT_EQ(row(6)[l] | (uint64_t(row(7)[l]) << 32), uint64_t(r)) << l;
  }
  EXPECT_EQ(W->S[10], 0x8u);
}

TEST_F(Vec, MulHiAndMul24) {
  fill(1, [](unsigned l) { return 0x12345678u * (l + 1); });
  fill(2, [](unsigned l) { return 0x9abcdef1u + l; });
  run(mk(Op::V_MUL_HI_U32, Enc::VOP3, V(0), V(1), V(2)));
  run(mk(Op::V_MUL_HI_I32, Enc::VOP3, V(3), V(1), V(2)));
  run(mk(Op::V_MUL_I32_I24_E32, Enc::VOP2, V(4), V(1), V(2)));
  run(mk(Op::V_MUL_LO_U32, Enc::VOP3, V(5), V(1), V(2)));
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t a = row(1)[l], b = row(2)[l];
    EXPECT_EQ(row(0)[l], uint32_t((uint64_t(a) * b) >> 32));
    EXPECT_EQ(row(3)[l], uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32));
    int64_t a24 = (a & 0x800000) ? int64_t(a & 0xffffff) - 0x1000000 : (a & 0xffffff);
    int64_t b24 = (b & 0x800000) ? int64_t(b & 0xffffff) - 0x1000000 : (b & 0xffffff);
    EXPECT_EQ(row(4)[l], uint32_t(a24 * b24));
    EXPECT_EQ(row(5)[l], a * b);
  }
}

TEST_F(Vec, BitOps) {
  fill(1, [](unsigned l) { return 0xf0f0a5a5u ^ (l << 7); });
  fill(2, [](unsigned l) { return l; });
  run(mk(Op::V_BFE_U32_E64, Enc::VOP3, V(0), V(1), kConst(4), kConst(8)));
  run(mk(Op::V_BFE_I32_E64, Enc::VOP3, V(3), V(1), kConst(4), kConst(8)));
  run(mk(Op::V_LSHLREV_B32_E32, Enc::VOP2, V(4), V(2), V(1)));
  run(mk(Op::V_ASHRREV_I32_E32, Enc::VOP2, V(5), V(2), V(1)));
  run(mk(Op::V_BFREV_B32_E32, Enc::VOP1, V(6), V(1)));
  run(mk(Op::V_FFBH_U32_E32, Enc::VOP1, V(7), V(2)));
  run(mk(Op::V_ALIGNBIT_B32_E64, Enc::VOP3, V(8), V(1), V(2), V(2)));
  for (unsigned l = 0; l < 64; ++l) {
    uint32_t a = row(1)[l];
    EXPECT_EQ(row(0)[l], (a >> 4) & 0xff);
    EXPECT_EQ(row(3)[l], uint32_t(int32_t(int8_t((a >> 4) & 0xff))));
    EXPECT_EQ(row(4)[l], a << (l & 31));
    EXPECT_EQ(row(5)[l], uint32_t(int32_t(a) >> (l & 31)));
    uint32_t rev = 0;
    for (int i = 0; i < 32; ++i)
      rev |= ((a >> i) & 1) << (31 - i);
    EXPECT_EQ(row(6)[l], rev);
    EXPECT_EQ(row(7)[l], l == 0 ? 0xffffffffu : uint32_t(31 - std::floor(std::log2(double(l)))));
    EXPECT_EQ(row(8)[l], uint32_t(((uint64_t(a) << 32) | l) >> (l & 31)));
  }
}

TEST_F(Vec, PermB32) {
  fill(1, [](unsigned) { return 0x8899aabbu; });
  fill(2, [](unsigned) { return 0x11223344u; });
  Inst in = mk(Op::V_PERM_B32_E64, Enc::VOP3, V(0), V(1), V(2), kLiteralCode);
  in.Literal = 0x0c070400; // byte 0: in[0]=0x44, byte1: in[4]=0xbb, byte2: in[7]=0x88, byte3: 0
  run(in);
  EXPECT_EQ(row(0)[0], 0x0088bb44u);
  in.Literal = 0x0d0b0908; // 0xff, sign(in[7])=ff, sign(in[3])=00 (0x11), sign(in[1])=00 (0x33)
  run(in);
  EXPECT_EQ(row(0)[0], 0xffff0000u);
  // Every selector value in every byte position, on varied data, against the ISA's table:
  // 0-7 byte of {src0, src1} (src1 low), 8-11 sign of byte 1, 3, 5, 7, 12 zero, else 0xff.
  std::mt19937 rng(3);
  for (unsigned l = 0; l < 64; ++l)
    row(1)[l] = uint32_t(rng()), row(2)[l] = uint32_t(rng());
  auto ref = [](uint64_t data, unsigned sel) -> uint32_t {
    if (sel >= 13)
      return 0xff;
    if (sel == 12)
      return 0;
    if (sel >= 8)
      return (data >> (8 * (2 * (sel - 8) + 1) + 7)) & 1 ? 0xff : 0;
    return uint32_t(data >> (8 * sel)) & 0xff;
  };
  for (unsigned sel = 0; sel < 256; ++sel) {
    for (unsigned l = 0; l < 64; ++l)
      row(3)[l] =
          ((sel + l) & 0xff) | ((sel * 7 + l) & 0xff) << 8 | (sel ^ l) << 16 | (255 - sel) << 24;
    run(mk(Op::V_PERM_B32_E64, Enc::VOP3, V(0), V(1), V(2), V(3)));
    for (unsigned l = 0; l < 64; ++l) {
      const uint64_t data = uint64_t(row(1)[l]) << 32 | row(2)[l];
      uint32_t want = 0;
      for (unsigned p = 0; p < 4; ++p)
        want |= ref(data, (row(3)[l] >> (8 * p)) & 0xff) << (8 * p);
      ASSERT_EQ(row(0)[l], want) << "selectors " << std::hex << row(3)[l];
    }
  }
  // The same selectors the same on every lane (an SGPR, as compilers emit it, and a VGPR holding
  // one value): the executor's uniform-selector path, and (the last two) the packings of two
  // 16-bit halves that it runs as plain shifts.
  for (unsigned sel = 0; sel < 258; ++sel) {
    const uint32_t c =
        sel == 256   ? 0x05040100u
        : sel == 257 ? 0x07060302u
                     : sel | ((sel * 7 + 3) & 0xff) << 8 | (sel ^ 0x5a) << 16 | (255 - sel) << 24;
    W->S[20] = c;
    for (unsigned l = 0; l < 64; ++l)
      row(3)[l] = c;
    for (bool sgpr : {true, false}) {
      run(mk(Op::V_PERM_B32_E64, Enc::VOP3, V(0), V(1), V(2), sgpr ? S(20) : V(3)));
      for (unsigned l = 0; l < 64; ++l) {
        const uint64_t data = uint64_t(row(1)[l]) << 32 | row(2)[l];
        uint32_t want = 0;
        for (unsigned p = 0; p < 4; ++p)
          want |= ref(data, (c >> (8 * p)) & 0xff) << (8 * p);
        ASSERT_EQ(row(0)[l], want) << "selectors " << std::hex << c << (sgpr ? " (SGPR)" : "");
      }
    }
  }
}

TEST_F(Vec, MbcntAndLanes) {
  Inst lo = mk(Op::V_MBCNT_LO_U32_B32, Enc::VOP3, V(0), kConst(-1), kConst(0));
  run(lo);
  Inst hi = mk(Op::V_MBCNT_HI_U32_B32, Enc::VOP3, V(0), kConst(-1), V(0));
  run(hi);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], l);
  // readlane / writelane / readfirstlane
  W->S[5] = 37;
  run(mk(Op::V_READLANE_B32, Enc::VOP3, S(6), V(0), S(5)));
  EXPECT_EQ(W->S[6], 37u);
  W->setExec(0xf000ull);
  run(mk(Op::V_READFIRSTLANE_B32_E32, Enc::VOP1, S(7), V(0)));
  EXPECT_EQ(W->S[7], 12u);
  run(mk(Op::V_WRITELANE_B32, Enc::VOP3, V(0), kConst(55), kConst(3)));
  EXPECT_EQ(row(0)[3], 55u); // written although lane 3 is inactive
}

TEST_F(Vec, CndmaskVccAndSgpr) {
  fill(1, [](unsigned l) { return l; });
  W->setVcc(0xaaaaaaaaaaaaaaaaull);
  run(mk(Op::V_CNDMASK_B32_E32, Enc::VOP2, V(0), kConst(-1), V(1), kVccLo));
  W->S[40] = 0x1, W->S[41] = 0x80000000;
  Inst e = mk(Op::V_CNDMASK_B32_E64, Enc::VOP3, V(2), V(1), kOne, S(40));
  e.Neg = 1; // -src0
  run(e);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(row(0)[l], (l & 1) ? l : 0xffffffffu);
    EXPECT_EQ(row(2)[l], (l == 0 || l == 63) ? 0x3f800000u : (l ^ 0x80000000u));
  }
}

TEST_F(Vec, Int16OpselAndZeroHigh) {
  fill(1, [](unsigned l) { return 0x00050000u | (0xfff0u + l); });
  fill(0, [](unsigned) { return 0xabcd1234u; });
  run(mk(Op::V_ADD_U16_E32, Enc::VOP2, V(0), kConst(1), V(1)));
  EXPECT_EQ(row(0)[0], 0xfff1u); // high half zeroed
  EXPECT_EQ(row(0)[15], 0x0000u);
  // VOP3 v_add_i16: opsel selects src0 high half (5) and writes the high half of dst.
  fill(2, [](unsigned) { return 0xabcd1234u; });
  Inst in = mk(Op::V_ADD_I16, Enc::VOP3, V(2), V(1), kConst(3));
  in.Opsel = 1 | 8;
  run(in);
  EXPECT_EQ(row(2)[0], 0x00081234u);
  // clamp saturates signed
  fill(3, [](unsigned) { return 0x7ffeu; });
  Inst s = mk(Op::V_ADD_I16, Enc::VOP3, V(4), V(3), kConst(5));
  s.Clamp = true;
  run(s);
  EXPECT_EQ(row(4)[0] & 0xffff, 0x7fffu);
  // 16-bit shifts and min
  fill(5, [](unsigned) { return 0x8001u; });
  run(mk(Op::V_ASHRREV_I16_E32, Enc::VOP2, V(6), kConst(1), V(5)));
  EXPECT_EQ(row(6)[0], 0xc000u);
  run(mk(Op::V_MIN_I16_E32, Enc::VOP2, V(6), kConst(1), V(5)));
  EXPECT_EQ(row(6)[0], 0x8001u);
}

TEST_F(Vec, Med3MinMax3) {
  fill(1, [](unsigned l) { return l; });
  run(mk(Op::V_MED3_I32_E64, Enc::VOP3, V(0), V(1), kConst(10), kConst(20)));
  run(mk(Op::V_MAX3_U32_E64, Enc::VOP3, V(2), V(1), kConst(10), kConst(-1)));
  run(mk(Op::V_MIN3_I32_E64, Enc::VOP3, V(3), V(1), kConst(10), kConst(-1)));
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(row(0)[l], std::min(20u, std::max(10u, l)));
    EXPECT_EQ(row(2)[l], 0xffffffffu);
    EXPECT_EQ(row(3)[l], 0xffffffffu);
  }
}

// ---- float
// ---------------------------------------------------------------------------------------

TEST_F(Vec, F32BasicAndModifiers) {
  EXPECT_EQ(f32op(Op::V_ADD_F32_E32, Enc::VOP2, 1.5f, 2.25f), 3.75f);
  EXPECT_EQ(f32op(Op::V_SUBREV_F32_E32, Enc::VOP2, 1.5f, 2.25f), 0.75f);
  EXPECT_EQ(f32op(Op::V_MUL_F32_E32, Enc::VOP2, 3.0f, -0.5f), -1.5f);
  // VOP3 abs/neg, omod, clamp
  fill(1, [](unsigned) { return fb(-3.0f); });
  fill(2, [](unsigned) { return fb(0.25f); });
  Inst in = mk(Op::V_MUL_F32_E64, Enc::VOP3, V(0), V(1), V(2));
  in.Abs = 1;
  in.Omod = 1; // *2
  run(in);
  EXPECT_EQ(bf(row(0)[0]), 1.5f);
  in.Omod = 0;
  in.Abs = 0;
  in.Neg = 2;
  in.Clamp = true; // -3 * -0.25 = 0.75
  run(in);
  EXPECT_EQ(bf(row(0)[0]), 0.75f);
  in.Neg = 0; // -0.75 clamps to 0
  run(in);
  EXPECT_EQ(row(0)[0], 0u);
  in.Clamp = false;
  in.Omod = 3;
  run(in);
  EXPECT_EQ(bf(row(0)[0]), -0.375f);
}

TEST_F(Vec, FmaNotContractedAndFused) {
  // fma: a*b+c with one rounding; mul then add: two roundings.
  // (1+2^-12)^2 = 1 + 2^-11 + 2^-24: the product rounds (tie, to even) to 1 + 2^-11.
  float a = 1.0f + 0x1p-12f, b = a, cc = -(1.0f + 0x1p-11f);
  float fused = f32op(Op::V_FMA_F32_E64, Enc::VOP3, a, b, cc, 3);
  EXPECT_EQ(fused, 0x1p-24f);
  float m = f32op(Op::V_MUL_F32_E32, Enc::VOP2, a, b);
  EXPECT_EQ(m, 1.0f + 0x1p-11f);
  // v_fmac: src2 = dst
  for (unsigned l = 0; l < 64; ++l)
    row(1)[l] = fb(a), row(2)[l] = fb(b), row(0)[l] = fb(cc);
  run(mk(Op::V_FMAC_F32_E32, Enc::VOP2, V(0), V(1), V(2), V(0)));
  EXPECT_EQ(bf(row(0)[9]), 0x1p-24f);
}

TEST_F(Vec, MinMaxIeee) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  uint32_t snan = 0x7f800001u;
  EXPECT_EQ(f32op(Op::V_MAX_F32_E32, Enc::VOP2, qnan, 2.0f), 2.0f);
  EXPECT_EQ(f32op(Op::V_MIN_F32_E32, Enc::VOP2, 3.0f, qnan), 3.0f);
  EXPECT_EQ(f32op(Op::V_MAX_F32_E32, Enc::VOP2, -0.0f, 0.0f), 0.0f);
  EXPECT_FALSE(std::signbit(f32op(Op::V_MAX_F32_E32, Enc::VOP2, -0.0f, 0.0f)));
  EXPECT_TRUE(std::signbit(f32op(Op::V_MIN_F32_E32, Enc::VOP2, 0.0f, -0.0f)));
  for (unsigned l = 0; l < 64; ++l)
    row(1)[l] = snan, row(2)[l] = fb(1.0f);
  run(mk(Op::V_MAX_F32_E32, Enc::VOP2, V(0), V(1), V(2)));
  EXPECT_EQ(row(0)[0], 0x7fc00001u);
  // med3 / max3
  EXPECT_EQ(f32op(Op::V_MED3_F32_E64, Enc::VOP3, 5.0f, -1.0f, 2.0f, 3), 2.0f);
  EXPECT_EQ(f32op(Op::V_MED3_F32_E64, Enc::VOP3, qnan, -1.0f, 2.0f, 3), -1.0f);
  EXPECT_EQ(f32op(Op::V_MAX3_F32_E64, Enc::VOP3, 1.0f, qnan, 7.0f, 3), 7.0f);
}

TEST_F(Vec, F32Unary) {
  EXPECT_EQ(f32op(Op::V_RCP_F32_E32, Enc::VOP1, 4.0f, 0, 0, 1), 0.25f);
  EXPECT_EQ(f32op(Op::V_RCP_F32_E32, Enc::VOP1, 3.0f, 0, 0, 1), 1.0f / 3.0f);
  EXPECT_EQ(f32op(Op::V_EXP_F32_E32, Enc::VOP1, 10.0f, 0, 0, 1), 1024.0f);
  EXPECT_EQ(f32op(Op::V_LOG_F32_E32, Enc::VOP1, 0.125f, 0, 0, 1), -3.0f);
  EXPECT_TRUE(std::isinf(f32op(Op::V_LOG_F32_E32, Enc::VOP1, 0.0f, 0, 0, 1)));
  EXPECT_EQ(f32op(Op::V_SQRT_F32_E32, Enc::VOP1, 2.0f, 0, 0, 1), std::sqrt(2.0f));
  EXPECT_EQ(f32op(Op::V_RSQ_F32_E32, Enc::VOP1, 16.0f, 0, 0, 1), 0.25f);
  EXPECT_NEAR(f32op(Op::V_SIN_F32_E32, Enc::VOP1, 0.25f, 0, 0, 1), 1.0f, 1e-7);
  EXPECT_NEAR(f32op(Op::V_COS_F32_E32, Enc::VOP1, 0.5f, 0, 0, 1), -1.0f, 1e-7);
  EXPECT_NEAR(f32op(Op::V_SIN_F32_E32, Enc::VOP1, 10.125f, 0, 0, 1), std::sqrt(0.5f), 1e-6);
  EXPECT_EQ(f32op(Op::V_FRACT_F32_E32, Enc::VOP1, -1e-10f, 0, 0, 1), 0x1.fffffep-1f);
  EXPECT_EQ(f32op(Op::V_FRACT_F32_E32, Enc::VOP1, -2.25f, 0, 0, 1), 0.75f);
  EXPECT_EQ(f32op(Op::V_RNDNE_F32_E32, Enc::VOP1, 2.5f, 0, 0, 1), 2.0f);
  EXPECT_EQ(f32op(Op::V_RNDNE_F32_E32, Enc::VOP1, -3.5f, 0, 0, 1), -4.0f);
  EXPECT_EQ(f32op(Op::V_FLOOR_F32_E32, Enc::VOP1, -3.5f, 0, 0, 1), -4.0f);
  EXPECT_EQ(f32op(Op::V_FREXP_MANT_F32_E32, Enc::VOP1, 12.0f, 0, 0, 1), 0.75f);
  EXPECT_EQ(f32op(Op::V_FREXP_MANT_F32_E32, Enc::VOP1, 0x1p-140f, 0, 0, 1), 0.5f);
  f32op(Op::V_FREXP_EXP_I32_F32_E32, Enc::VOP1, 0x1p-140f, 0, 0, 1);
  EXPECT_EQ(int32_t(row(0)[0]), -139);
  // ldexp: denormal result, correctly rounded
  for (unsigned l = 0; l < 64; ++l)
    row(1)[l] = fb(1.5f), row(2)[l] = uint32_t(-149);
  run(mk(Op::V_LDEXP_F32, Enc::VOP3, V(0), V(1), V(2)));
  EXPECT_EQ(row(0)[0], 2u); // 1.5 * 2^-149 -> ties to even -> 2 * 2^-149
  // ldexp moves a normal number's exponent field when the result stays normal, and calls the
  // library otherwise: both sides of every boundary, against std::ldexp per lane.
  const float Xs[] = {1.0f,      -1.5f, 0x1.fffffep127f, 0x1p-126f, -0x1.8p-120f,
                      0x1p-149f, 0.0f,  -0.0f,           INFINITY};
  const int Ns[] = {0, 1, -1, 126, 127, 128, -125, -126, -127, -149, -150, 253, 254, -1000, 1000};
  for (float X : Xs) {
    for (unsigned l = 0; l < 64; ++l)
      row(1)[l] = fb(X), row(2)[l] = uint32_t(Ns[l % (sizeof(Ns) / sizeof(Ns[0]))]);
    run(mk(Op::V_LDEXP_F32, Enc::VOP3, V(0), V(1), V(2)));
    for (unsigned l = 0; l < 64; ++l) {
      const int N = Ns[l % (sizeof(Ns) / sizeof(Ns[0]))];
      ASSERT_EQ(row(0)[l], fb(std::ldexp(X, N))) << X << " * 2^" << N;
    }
  }
}

TEST_F(Vec, Conversions) {
  auto cvt = [&](Op op, uint32_t in) {
    fill(1, [](unsigned) { return 0u; });
    for (unsigned l = 0; l < 64; ++l)
      row(1)[l] = in;
    run(mk(op, Enc::VOP1, V(0), V(1)));
    return row(0)[0];
  };
  EXPECT_EQ(cvt(Op::V_CVT_I32_F32_E32, fb(-3.7f)), uint32_t(-3));
  EXPECT_EQ(cvt(Op::V_CVT_I32_F32_E32, fb(3e9f)), 0x7fffffffu);
  EXPECT_EQ(cvt(Op::V_CVT_I32_F32_E32, 0x7fc00000u), 0u);
  EXPECT_EQ(cvt(Op::V_CVT_U32_F32_E32, fb(-1.0f)), 0u);
  EXPECT_EQ(cvt(Op::V_CVT_U32_F32_E32, fb(5e9f)), 0xffffffffu);
  EXPECT_EQ(cvt(Op::V_CVT_F32_U32_E32, 0xffffffffu), fb(4294967296.0f));
  EXPECT_EQ(cvt(Op::V_CVT_F32_I32_E32, uint32_t(-16777217)), fb(-16777216.0f));
  EXPECT_EQ(cvt(Op::V_CVT_F16_F32_E32, fb(1.0f + 0x1p-11f)), 0x3c00u); // tie to even
  EXPECT_EQ(cvt(Op::V_CVT_F16_F32_E32, fb(65520.0f)), 0x7c00u);
  EXPECT_EQ(cvt(Op::V_CVT_F32_F16_E32, 0xffff0001u), fb(0x1p-24f));
  EXPECT_EQ(cvt(Op::V_CVT_F32_UBYTE2_E32, 0x00ab0000u), fb(171.0f));
  EXPECT_EQ(cvt(Op::V_CVT_FLR_I32_F32_E32, fb(-0.5f)), uint32_t(-1));
  EXPECT_EQ(cvt(Op::V_CVT_RPI_I32_F32_E32, fb(-0.5f)), 0u);
  EXPECT_EQ(cvt(Op::V_CVT_OFF_F32_I4_E32, 0x9u), fb(-0.4375f));
  // pkrtz and pack
  fill(1, [](unsigned) { return fb(1.0f + 0x1p-11f + 0x1p-13f); });
  fill(2, [](unsigned) { return fb(-70000.0f); });
  run(mk(Op::V_CVT_PKRTZ_F16_F32, Enc::VOP3, V(0), V(1), V(2)));
  EXPECT_EQ(row(0)[0], 0xfbff3c00u);
  fill(3, [](unsigned) { return 0x11112222u; });
  Inst p = mk(Op::V_PACK_B32_F16, Enc::VOP3, V(0), V(3), V(3));
  p.Opsel = 1;
  run(p);
  EXPECT_EQ(row(0)[0], 0x22221111u);
  // f64 conversions through the wide path
  fill(1, [](unsigned l) { return fb(float(l) + 0.5f); });
  run(mk(Op::V_CVT_F64_F32_E32, Enc::VOP1, V(4), V(1)));
  run(mk(Op::V_CVT_I32_F64_E32, Enc::VOP1, V(6), V(4)));
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(readVector64(*W, V(4), l), f64ToBits(double(l) + 0.5));
    EXPECT_EQ(row(6)[l], l);
  }
}

TEST_F(Vec, F16Arith) {
  fill(1, [](unsigned) { return 0x3c00u; });                 // 1.0
  fill(2, [](unsigned) { return 0x1400u | 0x5555u << 16; }); // 2^-10 in low half
  run(mk(Op::V_ADD_F16_E32, Enc::VOP2, V(0), V(1), V(2)));
  EXPECT_EQ(row(0)[0], 0x3c01u);
  // v_fma_f16 preserves the high half (gfx9 op_sel op)
  fill(3, [](unsigned) { return 0xdead0000u; });
  Inst f = mk(Op::V_FMA_F16, Enc::VOP3, V(3), V(1), V(1), V(1));
  run(f);
  EXPECT_EQ(row(3)[0], 0xdead4000u);
  f.Opsel = 8;
  run(f);
  EXPECT_EQ(row(3)[0], 0x40004000u);
  // f16 fma single rounding: (1+2^-10)*(1-2^-10) - 1 = -2^-20
  fill(4, [](unsigned) { return 0x3c01u; });
  fill(5, [](unsigned) { return 0x3bffu | (0x3bfeu << 16); }); // low: 1-2^-11
  fill(6, [](unsigned) { return 0xbc00u; });
  run(mk(Op::V_FMA_F16, Enc::VOP3, V(7), V(4), V(5), V(6)));
  // (1+2^-10)(1-2^-11) - 1 = 2^-10 - 2^-11 - 2^-21 = 2^-11 - 2^-21
  EXPECT_EQ(f16ToF32(uint16_t(row(7)[0])), float(0x1p-11 - 0x1p-21));
  EXPECT_EQ(row(7)[0] >> 16, 0u); // v7 was zero
}

TEST_F(Vec, F64Ops) {
  for (unsigned l = 0; l < 64; ++l) {
    writeVector64(*W, V(2), l, f64ToBits(1.0 + l));
    writeVector64(*W, V(4), l, f64ToBits(0.1));
  }
  Inst in = mk(Op::V_ADD_F64, Enc::VOP3, V(0), V(2), V(4));
  in.Neg = 2;
  run(in);
  Inst m = mk(Op::V_FMA_F64_E64, Enc::VOP3, V(6), V(2), V(4), kOne);
  run(m);
  Inst mx = mk(Op::V_MAX_F64, Enc::VOP3, V(8), V(2), kTwo);
  run(mx);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(bitsToF64(readVector64(*W, V(0), l)), (1.0 + l) - 0.1);
    EXPECT_EQ(bitsToF64(readVector64(*W, V(6), l)), std::fma(1.0 + l, 0.1, 1.0));
    EXPECT_EQ(bitsToF64(readVector64(*W, V(8), l)), std::max(2.0, 1.0 + l));
  }
  // shifts
  for (unsigned l = 0; l < 64; ++l)
    writeVector64(*W, V(2), l, 0x8000000000000001ull);
  fill(1, [](unsigned l) { return l; });
  run(mk(Op::V_LSHLREV_B64, Enc::VOP3, V(10), V(1), V(2)));
  run(mk(Op::V_ASHRREV_I64, Enc::VOP3, V(12), V(1), V(2)));
  Inst la = mk(Op::V_LSHL_ADD_U64, Enc::VOP3, V(14), V(2), kConst(3), kConst(5));
  run(la);
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(readVector64(*W, V(10), l), 0x8000000000000001ull << l);
    EXPECT_EQ(readVector64(*W, V(12), l), uint64_t(int64_t(0x8000000000000001ull) >> l));
    EXPECT_EQ(readVector64(*W, V(14), l), (0x8000000000000001ull << 3) + 5);
  }
}

// The compiler's f32 division sequence: div_scale x2, rcp, fma refinement, div_fmas,
// div_fixup. For ordinary values the result must equal the correctly rounded quotient.
TEST_F(Vec, F32DivisionSequence) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  float num[64], den[64];
  for (unsigned l = 0; l < 64; ++l) {
    num[l] = u(rng), den[l] = u(rng);
    if (l == 0)
      num[l] = 1.0f, den[l] = 3.0f;
    if (l == 1)
      num[l] = 0.0f, den[l] = 5.0f;
    if (l == 2)
      num[l] = 7.0f, den[l] = 0.0f;
    if (l == 3)
      num[l] = 1e-30f, den[l] = 1e8f; // denormal quotient (VCC path)
    if (l == 4)
      num[l] = 3e38f, den[l] = 2.0f; // exponent difference >= 96 (VCC path)
    if (l == 5)
      num[l] = 1e-40f, den[l] = 3.0f; // denormal numerator
    if (l == 6)
      num[l] = 3e38f, den[l] = 0.5f; // overflow
    if (l == 7)
      num[l] = 1.0f, den[l] = 1e-40f; // denormal denominator
    if (l == 8)
      num[l] = 0x1.8p-140f, den[l] = 0x1.1p3f;
    if (l == 9)
      num[l] = -INFINITY, den[l] = 2.0f;
    row(0)[l] = fb(num[l]), row(1)[l] = fb(den[l]);
  }
  auto op3 = [&](Op op, unsigned d, uint16_t a, uint16_t b, uint16_t cc, uint8_t neg = 0) {
    Inst in = mk(op, Enc::VOP3, V(d), a, b, cc);
    in.Neg = neg;
    in.Sdst = kVccLo;
    run(in);
  };
  // v2 = scale(den), v3 = scale(num), vcc
  op3(Op::V_DIV_SCALE_F32, 2, V(1), V(1), V(0));
  op3(Op::V_DIV_SCALE_F32, 3, V(0), V(1), V(0));
  run(mk(Op::V_RCP_F32_E32, Enc::VOP1, V(4), V(2)));
  op3(Op::V_FMA_F32_E64, 5, V(2), V(4), kOne, 1);    // e = -d*r + 1
  op3(Op::V_FMA_F32_E64, 4, V(5), V(4), V(4));       // r = e*r + r
  op3(Op::V_MUL_F32_E64, 6, V(3), V(4), kNoOperand); // q = n*r
  op3(Op::V_FMA_F32_E64, 7, V(2), V(6), V(3), 1);    // rem = -d*q + n
  op3(Op::V_FMA_F32_E64, 6, V(7), V(4), V(6));       // q = rem*r + q
  op3(Op::V_FMA_F32_E64, 7, V(2), V(6), V(3), 1);    // rem = -d*q + n
  op3(Op::V_DIV_FMAS_F32_E64, 8, V(7), V(4), V(6));
  op3(Op::V_DIV_FIXUP_F32_E64, 9, V(8), V(1), V(0));
  for (unsigned l = 0; l < 64; ++l) {
    float want = num[l] / den[l];
    EXPECT_EQ(row(9)[l], fb(want)) << l << ": " << num[l] << "/" << den[l];
  }
}

// v_div_scale_f32 lane by lane against a model written from the ISA pseudocode (CDNA3 ISA,
// V_DIV_SCALE_F32; 1/S1 tested in double and S2/S1 in float, as the emulator documents), on
// inputs that reach every branch: random exponents from 0 to 255 for each source, S0 equal to
// S1 or S2 in some lanes, zeros, denormals, infinities and NaNs. 200 waves of 64 lanes.
TEST_F(Vec, F32DivScaleMatchesThePseudocode) {
  auto isDen = [](float f) { return f != 0 && std::fpclassify(f) == FP_SUBNORMAL; };
  auto isDenD = [](double d) { return d != 0 && std::fpclassify(d) == FP_SUBNORMAL; };
  auto expo = [](uint32_t b) { return int((b >> 23) & 0xff); };
  auto model = [&](uint32_t s0, uint32_t s1, uint32_t s2, bool &vcc) -> uint32_t {
    float f0 = bf(s0), f1 = bf(s1), f2 = bf(s2);
    vcc = false;
    if (f2 == 0 || f1 == 0)
      return 0x7fc00000u;
    if (expo(s2) - expo(s1) >= 96) {
      vcc = true;
      return f0 == f1 ? fb(std::ldexp(f0, 64)) : s0;
    }
    if (isDen(f1))
      return fb(std::ldexp(f0, 64));
    if (isDenD(1.0 / double(f1)) && isDen(f2 / f1)) {
      vcc = true;
      return f0 == f1 ? fb(std::ldexp(f0, 64)) : s0;
    }
    if (isDenD(1.0 / double(f1)))
      return fb(std::ldexp(f0, -64));
    if (isDen(f2 / f1)) {
      vcc = true;
      return f0 == f2 ? fb(std::ldexp(f0, 64)) : s0;
    }
    if (expo(s2) <= 23)
      return fb(std::ldexp(f0, 64));
    return s0;
  };
  std::mt19937 rng(11);
  auto draw = [&]() {
    uint32_t r = rng();
    switch (r % 8) {
    case 0:
      return r & 0x807fffffu; // zero or denormal
    case 1:
      return (r & 0x807fffffu) | 0x7f800000u; // infinity or NaN
    default:
      return (r & 0x807fffffu) | (((r >> 8) % 256) << 23);
    }
  };
  for (int wave = 0; wave < 200; ++wave) {
    for (unsigned l = 0; l < 64; ++l) {
      row(1)[l] = draw(), row(2)[l] = draw();
      row(0)[l] = l % 4 == 0 ? row(1)[l] : l % 4 == 1 ? row(2)[l] : draw();
    }
    Inst in = mk(Op::V_DIV_SCALE_F32, Enc::VOP3, V(3), V(0), V(1), V(2));
    in.Sdst = kVccLo;
    run(in);
    for (unsigned l = 0; l < 64; ++l) {
      bool vcc;
      uint32_t want = model(row(0)[l], row(1)[l], row(2)[l], vcc);
      ASSERT_EQ(row(3)[l], want) << std::hex << row(0)[l] << " " << row(1)[l] << " " << row(2)[l];
      ASSERT_EQ(((W->vcc() >> l) & 1) != 0, vcc) << std::hex << row(1)[l] << " " << row(2)[l];
    }
  }
}

// v_div_fmas_f32 with VCC set in some lanes: the others are a plain fma.
TEST_F(Vec, F32DivFmasMixedVcc) {
  std::mt19937 rng(5);
  // Quarters in [-4, 4) and c a quarter times 2^0..2^20: a*b + c is a multiple of 1/16 below
  // 2^25, exact in double, so the model below rounds once, as the executor does.
  auto quarter = [&] { return float(int(rng() % 32) - 16) / 4.0f; };
  for (unsigned l = 0; l < 64; ++l)
    row(0)[l] = fb(quarter()), row(1)[l] = fb(quarter()),
    row(2)[l] = fb(std::ldexp(quarter(), int(rng() % 21)));
  const uint64_t vcc = 0x8421c3a5f00f1248ull;
  W->S[kVccLo] = uint32_t(vcc), W->S[kVccLo + 1] = uint32_t(vcc >> 32);
  run(mk(Op::V_DIV_FMAS_F32_E64, Enc::VOP3, V(3), V(0), V(1), V(2)));
  for (unsigned l = 0; l < 64; ++l) {
    float a = bf(row(0)[l]), b = bf(row(1)[l]), c = bf(row(2)[l]);
    // VCC lanes: the exact a*b + c, scaled by 2^64 (|c| >= 2) or 2^-64, rounded once.
    float want =
        (vcc >> l) & 1
            ? float(std::ldexp(double(a) * double(b) + double(c), std::fabs(c) >= 2.0f ? 64 : -64))
            : std::fma(a, b, c);
    EXPECT_EQ(row(3)[l], fb(want)) << l;
  }
}

TEST_F(Vec, F64DivisionSequence) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1e100, 1e100);
  double num[64], den[64];
  for (unsigned l = 0; l < 64; ++l) {
    num[l] = u(rng), den[l] = u(rng) * 1e-50;
    if (l == 0)
      num[l] = 1.0, den[l] = 3.0;
    if (l == 1)
      num[l] = -0.0, den[l] = 5.0;
    if (l == 2)
      num[l] = 7.0, den[l] = -0.0;
    if (l == 3)
      num[l] = 1e-300, den[l] = 1e10; // denormal quotient
    if (l == 4)
      num[l] = 1e308, den[l] = 3.0;
    if (l == 5)
      num[l] = 1e308, den[l] = 0.25; // overflow
    if (l == 6)
      num[l] = 5e-320, den[l] = 7.0; // denormal numerator
    writeVector64(*W, V(0), l, f64ToBits(num[l]));
    writeVector64(*W, V(2), l, f64ToBits(den[l]));
  }
  auto op3 = [&](Op op, unsigned d, uint16_t a, uint16_t b, uint16_t cc, uint8_t neg = 0) {
    Inst in = mk(op, Enc::VOP3, V(d), a, b, cc);
    in.Neg = neg;
    in.Sdst = kVccLo;
    run(in);
  };
  op3(Op::V_DIV_SCALE_F64, 4, V(2), V(2), V(0)); // d'
  run(mk(Op::V_RCP_F64_E32, Enc::VOP1, V(6), V(4)));
  op3(Op::V_FMA_F64_E64, 8, V(4), V(6), kOne, 1); // e = 1 - d*r
  op3(Op::V_FMA_F64_E64, 6, V(6), V(8), V(6));    // r += r*e
  op3(Op::V_FMA_F64_E64, 8, V(4), V(6), kOne, 1);
  op3(Op::V_FMA_F64_E64, 6, V(6), V(8), V(6));
  op3(Op::V_DIV_SCALE_F64, 10, V(0), V(2), V(0));    // n', vcc
  op3(Op::V_MUL_F64, 12, V(10), V(6), kNoOperand);   // q
  op3(Op::V_FMA_F64_E64, 14, V(4), V(12), V(10), 1); // rem
  op3(Op::V_DIV_FMAS_F64_E64, 16, V(14), V(6), V(12));
  op3(Op::V_DIV_FIXUP_F64_E64, 18, V(16), V(2), V(0));
  for (unsigned l = 0; l < 64; ++l) {
    double want = num[l] / den[l];
    EXPECT_EQ(readVector64(*W, V(18), l), f64ToBits(want)) << l;
  }
}

TEST_F(Vec, DivFixupSpecials) {
  auto fix = [&](float q, float d, float n) {
    return f32op(Op::V_DIV_FIXUP_F32_E64, Enc::VOP3, q, d, n, 3);
  };
  EXPECT_EQ(fb(fix(1.0f, 0.0f, 0.0f)), 0xffc00000u);
  EXPECT_EQ(fix(1.0f, -0.0f, 3.0f), -INFINITY);
  EXPECT_EQ(fix(1.0f, INFINITY, 3.0f), 0.0f);
  EXPECT_EQ(fix(-2.0f, -3.0f, 6.0f), -2.0f);
  EXPECT_TRUE(std::isnan(fix(1.0f, 2.0f, NAN)));
}

// A DPP control the ISA reserves is an illegal instruction, named in hex with the pc.
TEST_F(Vec, ReservedDppControlIsIllegal) {
  Inst in = mk(Op::V_MOV_B32_E32, Enc::VOP1, V(0), V(1));
  in.Form = VForm::Dpp;
  in.DppCtrl = 0x100;
  C.InstPc = 0x1234;
  try {
    execVector(C, in);
    ADD_FAILURE() << "no error";
  } catch (const EmuError &e) {
    EXPECT_EQ(e.Kind, EmuErrorKind::IllegalInst);
    EXPECT_STREQ(e.what(), "reserved DPP control 0x100 at pc 0x1234");
  }
}

// Ordinary operands take the quotient's magnitude with the sign of S1 * S2 (the ISA's last
// case), the same whether or not another lane of the wave is special (a NaN divisor in lane 63
// sends the whole wave through the case-by-case code).
TEST_F(Vec, DivFixupOrdinaryLanesWhateverTheOtherLanes) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> mag(0.5f, 4.0f);
  for (unsigned l = 0; l < 64; ++l) {
    row(1)[l] = fb(l & 1 ? -mag(rng) : mag(rng));
    row(2)[l] = fb(l & 2 ? -mag(rng) : mag(rng));
    row(3)[l] = fb(l & 4 ? -mag(rng) * 1e6f : mag(rng) * 1e-6f);
  }
  Inst in = mk(Op::V_DIV_FIXUP_F32_E64, Enc::VOP3, V(0), V(1), V(2), V(3));
  run(in);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], ((row(2)[l] ^ row(3)[l]) & 0x80000000u) | (row(1)[l] & 0x7fffffffu)) << l;
  uint32_t all[64];
  std::memcpy(all, row(0), sizeof all);
  row(2)[63] = 0x7fa00000u; // a signalling NaN divisor
  run(in);
  for (unsigned l = 0; l < 63; ++l)
    EXPECT_EQ(row(0)[l], all[l]) << l;
  EXPECT_EQ(row(0)[63], 0x7fe00000u); // the NaN, quieted
}

// ---- VOPC
// ----------------------------------------------------------------------------------------

TEST_F(Vec, CompareAndCmpx) {
  fill(1, [](unsigned l) { return l; });
  W->setExec(0x0000ffffffffffffull);
  Inst in = mk(Op::V_CMP_GT_I32_E32, Enc::VOPC, kNoOperand, V(1), V(1));
  in.Src[0] = kConst(10);
  in.Sdst = kVccLo;
  run(in); // 10 > l
  EXPECT_EQ(W->vcc(), 0x3ffull);
  Inst e = mk(Op::V_CMP_NE_U32_E64, Enc::VOP3, kNoOperand, V(1), kConst(3));
  e.Sdst = S(30);
  run(e);
  EXPECT_EQ(W->S[30] | (uint64_t(W->S[31]) << 32), 0x0000fffffffffff7ull);
  Inst x = mk(Op::V_CMPX_LE_U32_E32, Enc::VOPC, kNoOperand, kConst(40), V(1));
  x.Sdst = kVccLo;
  run(x);
  EXPECT_EQ(W->exec(), 0x0000ff0000000000ull);
  EXPECT_EQ(W->vcc(), 0x0000ff0000000000ull);
}

TEST_F(Vec, CompareFloatUnordered) {
  const float vals[4] = {1.0f, NAN, -0.0f, 2.0f};
  for (unsigned l = 0; l < 64; ++l) {
    row(1)[l] = fb(vals[l & 3]);
    row(2)[l] = fb(vals[(l >> 2) & 3]);
  }
  auto cmp = [&](Op op) {
    Inst in = mk(op, Enc::VOPC, kNoOperand, V(1), V(2));
    in.Sdst = kVccLo;
    run(in);
    return W->vcc();
  };
  uint64_t lt = cmp(Op::V_CMP_LT_F32_E32), nge = cmp(Op::V_CMP_NGE_F32_E32),
           u = cmp(Op::V_CMP_U_F32_E32), o = cmp(Op::V_CMP_O_F32_E32),
           neq = cmp(Op::V_CMP_NEQ_F32_E32), lg = cmp(Op::V_CMP_LG_F32_E32);
  for (unsigned l = 0; l < 64; ++l) {
    float a = vals[l & 3], b = vals[(l >> 2) & 3];
    EXPECT_EQ((lt >> l) & 1, uint64_t(a < b)) << l;
    EXPECT_EQ((nge >> l) & 1, uint64_t(!(a >= b))) << l;
    EXPECT_EQ((u >> l) & 1, uint64_t(a != a || b != b)) << l;
    EXPECT_EQ((o >> l) & 1, uint64_t(a == a && b == b)) << l;
    EXPECT_EQ((neq >> l) & 1, uint64_t(!(a == b))) << l;
    EXPECT_EQ((lg >> l) & 1, uint64_t(a < b || a > b)) << l;
  }
}

TEST_F(Vec, CmpClass) {
  const uint32_t vals[10] = {0x7f800001u, 0x7fc00000u, 0xff800000u, 0xbf800000u, 0x80000001u,
                             0x80000000u, 0x00000000u, 0x00000001u, 0x3f800000u, 0x7f800000u};
  for (unsigned l = 0; l < 64; ++l)
    row(1)[l] = vals[l % 10];
  for (unsigned bit = 0; bit < 10; ++bit) {
    Inst in = mk(Op::V_CMP_CLASS_F32_E64, Enc::VOP3, kNoOperand, V(1), kLiteralCode);
    in.Literal = 1u << bit;
    in.Sdst = S(50);
    run(in);
    uint64_t m = W->S[50] | (uint64_t(W->S[51]) << 32);
    for (unsigned l = 0; l < 64; ++l)
      EXPECT_EQ((m >> l) & 1, uint64_t(l % 10 == bit)) << bit << " " << l;
  }
}

TEST_F(Vec, Compare64) {
  for (unsigned l = 0; l < 64; ++l)
    writeVector64(*W, V(2), l, uint64_t(l) << 33);
  W->S[4] = 0, W->S[5] = 20;
  Inst in = mk(Op::V_CMP_LT_U64_E64, Enc::VOP3, kNoOperand, V(2), S(4));
  in.Sdst = S(8);
  run(in);
  EXPECT_EQ(W->S[8] | (uint64_t(W->S[9]) << 32), 0x3ffull);
}

// ---- DPP / SDWA
// ----------------------------------------------------------------------------------

TEST_F(Vec, DppPatterns) {
  fill(1, [](unsigned l) { return 100 + l; });
  auto dpp = [&](uint16_t ctrl, bool bound, uint8_t rowMask = 0xf, uint8_t bankMask = 0xf) {
    fill(0, [](unsigned) { return 0xeeeeu; });
    Inst in = mk(Op::V_MOV_B32_E32, Enc::VOP1, V(0), V(1));
    in.Form = VForm::Dpp;
    in.DppCtrl = ctrl;
    in.BoundCtrl = bound;
    in.RowMask = rowMask;
    in.BankMask = bankMask;
    run(in);
  };
  dpp(0x1b, false); // quad_perm [3,2,1,0]
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], 100 + ((l & ~3u) | (3 - (l & 3))));
  dpp(0x101, false); // row_shl:1: lane 15 of each row out of range -> not written
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], (l & 15) == 15 ? 0xeeeeu : 101 + l);
  dpp(0x112, true); // row_shr:2 with bound_ctrl: lanes 0,1 of each row read 0
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], (l & 15) < 2 ? 0u : 98 + l);
  dpp(0x121, false); // row_ror:1
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], 100 + ((l & ~15u) | ((l + 15) & 15)));
  dpp(0x138, false); // wave_shr:1
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], l == 0 ? 0xeeeeu : 99 + l);
  dpp(0x134, false); // wave_rol:1
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], 100 + ((l + 1) & 63));
  dpp(0x140, false); // row_mirror
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], 100 + ((l & ~15u) | (15 - (l & 15))));
  dpp(0x141, false); // row_half_mirror
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], 100 + ((l & ~7u) | (7 - (l & 7))));
  dpp(0x142, false, 0xa); // row_bcast:15, row_mask 0xa
  for (unsigned l = 0; l < 64; ++l) {
    unsigned r = l >> 4;
    EXPECT_EQ(row(0)[l], (r == 1 || r == 3) ? 100 + r * 16 - 1 : 0xeeeeu) << l;
  }
  dpp(0x143, false, 0xc); // row_bcast:31
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], l >= 32 ? 131u : 0xeeeeu);
  dpp(0xe4, false, 0xf, 0x5); // identity, banks 0 and 2 only
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(row(0)[l], ((l >> 2) & 1) ? 0xeeeeu : 100 + l);
  // inactive source lane: not written without bound_ctrl, reads 0 with it
  W->setExec(~0ull & ~(1ull << 5));
  dpp(0x101, false);
  EXPECT_EQ(row(0)[4], 0xeeeeu);
  EXPECT_EQ(row(0)[5], 0xeeeeu);
  EXPECT_EQ(row(0)[6], 107u);
  dpp(0x101, true);
  EXPECT_EQ(row(0)[4], 0u);
}

TEST_F(Vec, DppAddReduction) {
  // v_add_f32 with DPP row_shr:1 on src0; src1 plain.
  fill(1, [](unsigned l) { return fb(float(l)); });
  Inst in = mk(Op::V_ADD_F32_E32, Enc::VOP2, V(2), V(1), V(1));
  in.Form = VForm::Dpp;
  in.DppCtrl = 0x111;
  in.BoundCtrl = true;
  in.Neg = 2; // -src1
  run(in);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(bf(row(2)[l]), (l & 15) == 0 ? -float(l) : -1.0f) << l;
}

TEST_F(Vec, SdwaSelects) {
  fill(1, [](unsigned) { return 0x80ff7f01u; });
  fill(2, [](unsigned) { return 0x00030002u; });
  fill(0, [](unsigned) { return 0xaabbccddu; });
  Inst in = mk(Op::V_ADD_U32_E32, Enc::VOP2, V(0), V(1), V(2));
  in.Form = VForm::Sdwa;
  in.SrcSel[0] = 3; // byte 3 = 0x80
  in.Sext = 1;      // sign-extended: -128
  in.SrcSel[1] = 5; // word 1 = 3
  in.DstSel = 4;    // word 0
  in.DstUnused = 2; // preserve
  run(in);
  EXPECT_EQ(row(0)[0], 0xaabbff83u); // -125 = 0xff83
  in.DstSel = 1;                     // byte 1
  in.DstUnused = 1;                  // sext
  run(in);
  EXPECT_EQ(row(0)[0], 0xffff8300u);
  in.DstUnused = 0; // pad
  run(in);
  EXPECT_EQ(row(0)[0], 0x00008300u);
  // SDWA f16 -> f32 conversion of the high word, with neg
  fill(3, [](unsigned) { return 0x40000000u; }); // hi = 2.0
  Inst cv = mk(Op::V_CVT_F32_F16_E32, Enc::VOP1, V(4), V(3));
  cv.Form = VForm::Sdwa;
  cv.SrcSel[0] = 5;
  cv.Neg = 1;
  run(cv);
  EXPECT_EQ(bf(row(4)[0]), -2.0f);
}

TEST_F(Vec, UnknownOpsReturnFalse) {
  Inst in = mk(Op::S_NOP, Enc::SOPP, kNoOperand, kNoOperand);
  EXPECT_FALSE(execVector(C, in));
  Inst t = mk(Op::V_TRIG_PREOP_F64, Enc::VOP3, V(0), V(2), kConst(0));
  EXPECT_FALSE(execVector(C, t));
}

// execVector remembers which of its executors runs each op and then calls that one directly,
// which is exact only if no op is claimed by two of them. An executor claims an op when it runs
// it or throws on it; one that does not know the op returns false untouched. Every op is tried
// on each executor alone, with three operand shapes (all VGPRs; scalar sources and an SGPR
// destination where the op has one, as v_readlane does; constants), in the default MODE where the
// float ops and the compares have executors of their own.
TEST_F(Vec, OneExecutorPerOp) {
  using Exec = bool (*)(vec::VX &);
  const Exec execs[] = {vec::integerOp, vec::execVectorFp8, vec::execVectorFloat,
                        vec::execVectorCompare};
  const char *names[] = {"integerOp", "execVectorFp8", "execVectorFloat", "execVectorCompare"};
  int claimedOps = 0;
  for (int i = 0; i < int(Op::Count); ++i) {
    std::string owners;
    int n = 0;
    for (int e = 0; e < 4; ++e) {
      bool claims = false;
      for (int shape = 0; shape < 3; ++shape) {
        Inst in = shape == 0   ? mk(Op(i), Enc::VOP3, V(10), V(2), V(4), V(6))
                  : shape == 1 ? mk(Op(i), Enc::VOP3, V(10), S(5), S(6), S(7))
                               : mk(Op(i), Enc::VOP3, V(10), kOne, kConst(3), kHalf);
        in.Sdst = S(20);
        // The decoder gives these ops an SGPR destination, and no other VALU op one.
        const char *name = opName(Op(i));
        if (shape == 1 && (std::strstr(name, "READLANE") || std::strstr(name, "READFIRSTLANE")))
          in.Dst = S(30);
        W->setExec(~0ull);
        vec::VX x(C, in);
        x.Exec = ~0ull;
        x.Vop3 = true;
        x.Dpp = x.Sdwa = false;
        try {
          claims |= execs[e](x);
        } catch (const EmuError &) {
          claims = true;
        }
      }
      if (claims)
        ++n, owners += std::string(" ") + names[e];
    }
    EXPECT_LE(n, 1) << opName(Op(i)) << " is claimed by" << owners;
    claimedOps += n > 0;
  }
  // The executors run the VALU ops (more than 400 of them): the test is not vacuous.
  EXPECT_GT(claimedOps, 400);
}

TEST_F(Vec, ThroughputSmoke) {
  // Simple elementwise code: not a benchmark, but catches pathological slowness.
  fill(1, [](unsigned l) { return fb(float(l)); });
  Inst in = mk(Op::V_FMAC_F32_E32, Enc::VOP2, V(0), V(1), V(1), V(0));
  Inst add = mk(Op::V_ADD_U32_E32, Enc::VOP2, V(2), kConst(1), V(2));
  auto t0 = std::chrono::steady_clock::now();
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    execVector(C, in);
    execVector(C, add);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double rate = 2.0 * n * 64 / s / 1e6;
  std::printf("vector ALU: %.0f M lane-instructions/s\n", rate);
  EXPECT_EQ(row(2)[0], uint32_t(n));
}

} // namespace

namespace {
// Every VALU op (VOP1/VOP2/VOPC/VOP3, not VOP3P) either runs or returns false, never throws for
// plain VGPR operands; prints what is not implemented.
TEST_F(Vec, CoverageReport) {
  int yes = 0, no = 0;
  std::string missing;
  for (int i = 0; i < int(Op::Count); ++i) {
    const char *n = opName(Op(i));
    if (std::strncmp(n, "V_", 2) || std::strstr(n, "MFMA") || std::strstr(n, "V_PK_") ||
        std::strstr(n, "DOT") || std::strstr(n, "ACCVGPR") || std::strstr(n, "MIX"))
      continue;
    W->setExec(~0ull);
    Inst in = mk(Op(i), Enc::VOP3, V(10), V(2), V(4), V(6));
    in.Sdst = S(20);
    if (std::strstr(n, "READLANE") || std::strstr(n, "READFIRSTLANE"))
      in.Dst = S(30), in.Src[1] = S(5);
    if (std::strstr(n, "WRITELANE"))
      in.Src[0] = S(5), in.Src[1] = S(6);
    if (std::strstr(n, "V_CNDMASK") || std::strstr(n, "ADDC") || std::strstr(n, "SUBB"))
      in.Src[2] = kVccLo;
    bool ok = false;
    EXPECT_NO_THROW(ok = execVector(C, in)) << n;
    if (ok)
      ++yes;
    else
      ++no, missing += std::string(n) + " ";
  }
  std::printf("vector ALU ops implemented: %d, not: %d\n%s\n", yes, no, missing.c_str());
}
} // namespace
