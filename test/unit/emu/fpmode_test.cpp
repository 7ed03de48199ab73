// Floating-point modes (MODE register: FP_ROUND, FP_DENORM, IEEE, DX10_CLAMP) in the vector
// executors. Expected bits are worked out by hand from IEEE 754 (see each comment), not from
// the implementation. One test runs a real instruction sequence (llvm-mc-22 encodings for
// gfx942) through the decoder and executeInst, with s_setreg changing the mode between ops.
#include "MakeInst.h"
#include "emu/Decoder.h"
#include "emu/Dispatch.h"
#include "emu/EmuError.h"
#include "support/Float.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace asmevo::emu;
using asmevo::emu::test::mk;
using asmevo::emu::test::vop3p;

namespace {

constexpr uint16_t V(unsigned r) { return uint16_t(kVgprBase + r); }

// MODE values: round fields [3:0], denormal fields [7:4], DX10_CLAMP 8, IEEE 9.
constexpr uint32_t kDx10 = 1u << 8, kIeee = 1u << 9;
constexpr uint32_t kDefault = 0xf0 | kDx10 | kIeee;
constexpr uint32_t rnd(unsigned sp, unsigned dp) { return sp | (dp << 2); }
// Denormal fields: bit 0 allow input denormals, bit 1 allow output denormals.
constexpr uint32_t den(unsigned sp, unsigned dp) { return (sp << 4) | (dp << 6); }
constexpr uint32_t mode(uint32_t round, uint32_t denorm) { return round | denorm | kDx10 | kIeee; }
constexpr unsigned kUp = 1, kDown = 2, kZero = 3;

struct FpMode : ::testing::Test {
  std::unique_ptr<WaveState> W = std::make_unique<WaveState>();
  Workgroup Wg;
  DeviceMemory Mem;
  ExecCtx C{*W, Wg, Mem, Gfx::Gfx942};

  void SetUp() override {
    W->setExec(~0ull);
    W->Mode = kDefault;
  }
  void set(unsigned r, uint32_t v) {
    for (unsigned l = 0; l < 64; ++l)
      W->vrow(r)[l] = v;
  }
  void set64(unsigned r, uint64_t v) {
    set(r, uint32_t(v));
    set(r + 1, uint32_t(v >> 32));
  }
  uint32_t get(unsigned r, unsigned lane = 7) const { return W->vrow(r)[lane]; }
  uint64_t get64(unsigned r) const { return get(r) | (uint64_t(get(r + 1)) << 32); }
  // v0 = op(v1, v2, v3) (32-bit) in MODE m.
  uint32_t run32(uint32_t m, Op op, Enc enc, uint32_t a, uint32_t b = 0, uint32_t cc = 0,
                 unsigned nsrc = 2, bool clamp = false) {
    W->Mode = m;
    set(1, a), set(2, b), set(3, cc), set(0, 0xdeadbeef);
    Inst in = mk(op, enc, V(0), V(1), nsrc > 1 ? V(2) : kNoOperand, nsrc > 2 ? V(3) : kNoOperand);
    in.Clamp = clamp;
    EXPECT_TRUE(execVector(C, in)) << opName(op);
    return get(0);
  }
  // v[0:1] = op(v[2:3], v[4:5], v[6:7]) in MODE m.
  uint64_t run64(uint32_t m, Op op, uint64_t a, uint64_t b = 0, uint64_t cc = 0,
                 unsigned nsrc = 2) {
    W->Mode = m;
    set64(2, a), set64(4, b), set64(6, cc), set64(0, 0);
    Inst in =
        mk(op, Enc::VOP3, V(0), V(2), nsrc > 1 ? V(4) : kNoOperand, nsrc > 2 ? V(6) : kNoOperand);
    EXPECT_TRUE(execVector(C, in)) << opName(op);
    return get64(0);
  }
};

// f32 constants.
constexpr uint32_t kOneF = 0x3f800000, kNegOneF = 0xbf800000;
constexpr uint32_t kTwoM24 = 0x33800000;   // 2^-24: half an ulp of 1.0
constexpr uint32_t kMinNormF = 0x00800000; // 2^-126
constexpr uint32_t kHalfF = 0x3f000000;
constexpr uint32_t kDenF = 0x00400000; // 2^-127, a denormal
// f16 constants.
constexpr uint32_t kOneH = 0x3c00, kTwoM11H = 0x1000, kMaxH = 0x7bff, kSixteenH = 0x4c00;
// f64 constants.
constexpr uint64_t kOneD = 0x3ff0000000000000ull, kTwoM53D = 0x3ca0000000000000ull;

// ---- rounding -----------------------------------------------------------------------------

// 1 + 2^-24 is a tie between 1.0 and 1.0 + 2^-23: nearest even keeps 1.0, toward +inf goes
// up, toward -inf and toward zero stay. Negated: toward -inf goes down to -(1 + 2^-23).
TEST_F(FpMode, AddF32AllRoundModes) {
  EXPECT_EQ(run32(mode(rnd(0, 0), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kOneF, kTwoM24), kOneF);
  EXPECT_EQ(run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kOneF, kTwoM24),
            0x3f800001u);
  EXPECT_EQ(run32(mode(rnd(kDown, 0), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kOneF, kTwoM24),
            kOneF);
  EXPECT_EQ(run32(mode(rnd(kZero, 0), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kOneF, kTwoM24),
            kOneF);
  EXPECT_EQ(
      run32(mode(rnd(kDown, 0), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kNegOneF, 0xb3800000u),
      0xbf800001u);
  EXPECT_EQ(
      run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kNegOneF, 0xb3800000u),
      kNegOneF);
  // The double/half field does not touch f32 ops.
  EXPECT_EQ(run32(mode(rnd(0, kUp), den(3, 3)), Op::V_ADD_F32_E32, Enc::VOP2, kOneF, kTwoM24),
            kOneF);
}

// fma(1, 1, 2^-24) = 1 + 2^-24 exactly, then rounded once; mul (1 + 2^-23)^2 = 1 + 2^-22 +
// 2^-46 rounds down to 1 + 2^-22 except toward +inf. Overflow toward zero gives the largest
// finite value, toward +inf infinity.
TEST_F(FpMode, FmaMulF32Directed) {
  EXPECT_EQ(
      run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_FMA_F32_E64, Enc::VOP3, kOneF, kOneF, kTwoM24, 3),
      0x3f800001u);
  EXPECT_EQ(
      run32(mode(rnd(0, 0), den(3, 3)), Op::V_FMA_F32_E64, Enc::VOP3, kOneF, kOneF, kTwoM24, 3),
      kOneF);
  EXPECT_EQ(
      run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_MUL_F32_E32, Enc::VOP2, 0x3f800001u, 0x3f800001u),
      0x3f800003u);
  EXPECT_EQ(
      run32(mode(rnd(kZero, 0), den(3, 3)), Op::V_MUL_F32_E32, Enc::VOP2, 0x3f800001u, 0x3f800001u),
      0x3f800002u);
  EXPECT_EQ(
      run32(mode(rnd(kZero, 0), den(3, 3)), Op::V_MUL_F32_E32, Enc::VOP2, 0x7f7fffffu, 0x40000000u),
      0x7f7fffffu);
  EXPECT_EQ(
      run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_MUL_F32_E32, Enc::VOP2, 0x7f7fffffu, 0x40000000u),
      0x7f800000u);
}

// Conversions that round: 2^24 + 1 to f32 (a tie: nearest even 2^24, toward +inf 2^24 + 2);
// f64 1 + 2^-30 to f32 (below half an ulp: nearest 1.0, toward +inf 1 + 2^-23).
TEST_F(FpMode, ConversionsF32Directed) {
  EXPECT_EQ(run32(mode(rnd(0, 0), den(3, 3)), Op::V_CVT_F32_I32_E32, Enc::VOP1, 16777217u, 0, 0, 1),
            0x4b800000u);
  EXPECT_EQ(
      run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_CVT_F32_I32_E32, Enc::VOP1, 16777217u, 0, 0, 1),
      0x4b800001u);
  W->Mode = mode(rnd(kUp, 0), den(3, 3));
  set64(2, 0x3ff0000000400000ull); // 1 + 2^-30
  ASSERT_TRUE(execVector(C, mk(Op::V_CVT_F32_F64_E32, Enc::VOP1, V(0), V(2))));
  EXPECT_EQ(get(0), 0x3f800001u);
  W->Mode = mode(rnd(0, kUp), den(3, 3)); // only the double/half field: f32 result stays nearest
  ASSERT_TRUE(execVector(C, mk(Op::V_CVT_F32_F64_E32, Enc::VOP1, V(0), V(2))));
  EXPECT_EQ(get(0), kOneF);
}

// f16: 1 + 2^-11 is a tie (nearest even 1.0, toward +inf 1 + 2^-10 = 0x3c01); 65504 + 16 =
// 65520 is the overflow tie (nearest even: infinity; toward zero: 65504).
TEST_F(FpMode, F16ArithmeticDirected) {
  EXPECT_EQ(run32(mode(0, den(3, 3)), Op::V_ADD_F16_E32, Enc::VOP2, kOneH, kTwoM11H) & 0xffff,
            kOneH);
  EXPECT_EQ(run32(mode(rnd(0, kUp), den(3, 3)), Op::V_ADD_F16_E32, Enc::VOP2, kOneH, kTwoM11H) &
                0xffff,
            0x3c01u);
  EXPECT_EQ(run32(mode(rnd(kUp, 0), den(3, 3)), Op::V_ADD_F16_E32, Enc::VOP2, kOneH, kTwoM11H) &
                0xffff,
            kOneH); // the single field does not touch f16
  EXPECT_EQ(run32(mode(rnd(0, kDown), den(3, 3)), Op::V_SUB_F16_E32, Enc::VOP2, 0xbc00u, kTwoM11H) &
                0xffff,
            0xbc01u);
  EXPECT_EQ(run32(mode(0, den(3, 3)), Op::V_ADD_F16_E32, Enc::VOP2, kMaxH, kSixteenH) & 0xffff,
            0x7c00u);
  EXPECT_EQ(run32(mode(rnd(0, kZero), den(3, 3)), Op::V_ADD_F16_E32, Enc::VOP2, kMaxH, kSixteenH) &
                0xffff,
            kMaxH);
  // fma(1, 1, 2^-11) under toward +inf; v_cvt_f16_f32 of 1 + 2^-20 under toward +inf.
  EXPECT_EQ(
      run32(mode(rnd(0, kUp), den(3, 3)), Op::V_FMA_F16, Enc::VOP3, kOneH, kOneH, kTwoM11H, 3) &
          0xffff,
      0x3c01u);
  EXPECT_EQ(
      run32(mode(rnd(0, kUp), den(3, 3)), Op::V_CVT_F16_F32_E32, Enc::VOP1, 0x3f800008u, 0, 0, 1) &
          0xffff,
      0x3c01u);
  EXPECT_EQ(run32(mode(0, den(3, 3)), Op::V_CVT_F16_F32_E32, Enc::VOP1, 0x3f800008u, 0, 0, 1) &
                0xffff,
            kOneH);
}

// f64: 1 + 2^-53 is a tie (nearest even 1.0; toward +inf 1 + 2^-52).
TEST_F(FpMode, F64Directed) {
  EXPECT_EQ(run64(mode(0, den(3, 3)), Op::V_ADD_F64, kOneD, kTwoM53D), kOneD);
  EXPECT_EQ(run64(mode(rnd(0, kUp), den(3, 3)), Op::V_ADD_F64, kOneD, kTwoM53D), kOneD + 1);
  EXPECT_EQ(run64(mode(rnd(kUp, 0), den(3, 3)), Op::V_ADD_F64, kOneD, kTwoM53D), kOneD);
  EXPECT_EQ(run64(mode(rnd(0, kUp), den(3, 3)), Op::V_FMA_F64_E64, kOneD, kOneD, kTwoM53D, 3),
            kOneD + 1);
  // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: toward -inf 1 + 2^-51, toward +inf one ulp more.
  EXPECT_EQ(run64(mode(rnd(0, kDown), den(3, 3)), Op::V_MUL_F64, kOneD + 1, kOneD + 1), kOneD + 2);
  EXPECT_EQ(run64(mode(rnd(0, kUp), den(3, 3)), Op::V_MUL_F64, kOneD + 1, kOneD + 1), kOneD + 3);
}

// ---- denormals ----------------------------------------------------------------------------

TEST_F(FpMode, DenormalsF32) {
  // Input flush: 2^-127 * 1.0 reads the denormal as +0; -2^-127 as -0.
  EXPECT_EQ(run32(mode(0, den(0, 3)), Op::V_MUL_F32_E32, Enc::VOP2, kDenF, kOneF), 0u);
  EXPECT_EQ(run32(mode(0, den(0, 3)), Op::V_MUL_F32_E32, Enc::VOP2, 0x80400000u, kOneF),
            0x80000000u);
  EXPECT_EQ(run32(mode(0, den(3, 3)), Op::V_MUL_F32_E32, Enc::VOP2, kDenF, kOneF), kDenF);
  // Output flush only (inputs allowed): 2^-126 * 0.5 = 2^-127 is flushed; 2^-127 * 2 read
  // as a denormal gives 2^-126.
  EXPECT_EQ(run32(mode(0, den(1, 3)), Op::V_MUL_F32_E32, Enc::VOP2, kMinNormF, kHalfF), 0u);
  EXPECT_EQ(run32(mode(0, den(1, 3)), Op::V_MUL_F32_E32, Enc::VOP2, kDenF, 0x40000000u), kMinNormF);
  // Input flush only (outputs allowed): the same product reads +0; the first one is kept.
  EXPECT_EQ(run32(mode(0, den(2, 3)), Op::V_MUL_F32_E32, Enc::VOP2, kDenF, 0x40000000u), 0u);
  EXPECT_EQ(run32(mode(0, den(2, 3)), Op::V_MUL_F32_E32, Enc::VOP2, kMinNormF, kHalfF), kDenF);
  // f32 flush leaves f16 and f64 alone.
  EXPECT_EQ(run32(mode(0, den(0, 3)), Op::V_ADD_F16_E32, Enc::VOP2, 0x0001u, 0) & 0xffff, 0x0001u);
  // Compares see flushed inputs (denormal == 0); v_cmp_class sees the denormal.
  W->Mode = mode(0, den(0, 3));
  set(1, kDenF), set(2, 0);
  ASSERT_TRUE(execVector(C, mk(Op::V_CMP_EQ_F32_E32, Enc::VOPC, kNoOperand, V(1), V(2))));
  EXPECT_EQ(W->vcc(), ~0ull);
  set(2, 1u << 7); // class bit 7: positive denormal
  ASSERT_TRUE(execVector(C, mk(Op::V_CMP_CLASS_F32_E32, Enc::VOPC, kNoOperand, V(1), V(2))));
  EXPECT_EQ(W->vcc(), ~0ull);
  // Moves are bit copies.
  set(1, kDenF);
  ASSERT_TRUE(execVector(C, mk(Op::V_MOV_B32_E32, Enc::VOP1, V(0), V(1))));
  EXPECT_EQ(get(0), kDenF);
}

TEST_F(FpMode, DenormalsF16F64) {
  // f16 smallest denormal 2^-24 (0x0001): flushed as an input, or as a result of 2^-14 * 2^-10.
  EXPECT_EQ(run32(mode(0, den(3, 0)), Op::V_ADD_F16_E32, Enc::VOP2, 0x0001u, 0) & 0xffff, 0u);
  EXPECT_EQ(run32(mode(0, den(3, 1)), Op::V_MUL_F16_E32, Enc::VOP2, 0x0400u, 0x1400u) & 0xffff, 0u);
  EXPECT_EQ(run32(mode(0, den(3, 3)), Op::V_MUL_F16_E32, Enc::VOP2, 0x0400u, 0x1400u) & 0xffff,
            0x0001u);
  EXPECT_EQ(run32(mode(0, den(3, 0)), Op::V_ADD_F32_E32, Enc::VOP2, kDenF, 0), kDenF);
  // f64 smallest denormal: flushed to +0 as an input.
  EXPECT_EQ(run64(mode(0, den(3, 0)), Op::V_ADD_F64, 1, 0), 0u);
  EXPECT_EQ(run64(mode(0, den(3, 3)), Op::V_ADD_F64, 1, 0), 1u);
  // 2^-1022 * 0.5 = 2^-1023 (denormal): flushed as a result.
  EXPECT_EQ(run64(mode(0, den(3, 1)), Op::V_MUL_F64, 0x0010000000000000ull, 0x3fe0000000000000ull),
            0u);
  EXPECT_EQ(run64(mode(0, den(3, 3)), Op::V_MUL_F64, 0x0010000000000000ull, 0x3fe0000000000000ull),
            0x0008000000000000ull);
}

// ---- IEEE and DX10_CLAMP ------------------------------------------------------------------

TEST_F(FpMode, IeeeMinMaxMed3) {
  const uint32_t sNaN = 0x7f800001u, qNaN = 0x7fc00000u;
  // IEEE=1: a signalling NaN is returned quieted; IEEE=0: it is ignored like a quiet NaN.
  EXPECT_EQ(run32(kDefault, Op::V_MAX_F32_E32, Enc::VOP2, sNaN, kOneF), 0x7fc00001u);
  EXPECT_EQ(run32(kDefault & ~kIeee, Op::V_MAX_F32_E32, Enc::VOP2, sNaN, kOneF), kOneF);
  EXPECT_EQ(run32(kDefault, Op::V_MIN_F32_E32, Enc::VOP2, kOneF, sNaN), 0x7fc00001u);
  EXPECT_EQ(run32(kDefault & ~kIeee, Op::V_MIN_F32_E32, Enc::VOP2, kOneF, sNaN), kOneF);
  EXPECT_EQ(run32(kDefault, Op::V_MAX_F32_E32, Enc::VOP2, qNaN, kOneF), kOneF);
  // med3 with a NaN is min3: IEEE=1 min(min(sNaN, 1), 2) = min(qNaN, 2) = 2; IEEE=0 gives 1.
  EXPECT_EQ(run32(kDefault, Op::V_MED3_F32_E64, Enc::VOP3, sNaN, kOneF, 0x40000000u, 3),
            0x40000000u);
  EXPECT_EQ(run32(kDefault & ~kIeee, Op::V_MED3_F32_E64, Enc::VOP3, sNaN, kOneF, 0x40000000u, 3),
            kOneF);
  // f16 and f64.
  EXPECT_EQ(run32(kDefault, Op::V_MAX_F16_E32, Enc::VOP2, 0x7c01u, kOneH) & 0xffff, 0x7e01u);
  EXPECT_EQ(run32(kDefault & ~kIeee, Op::V_MAX_F16_E32, Enc::VOP2, 0x7c01u, kOneH) & 0xffff, kOneH);
  EXPECT_EQ(run64(kDefault, Op::V_MAX_F64, 0x7ff0000000000001ull, kOneD), 0x7ff8000000000001ull);
  EXPECT_EQ(run64(kDefault & ~kIeee, Op::V_MAX_F64, 0x7ff0000000000001ull, kOneD), kOneD);
  // Under a flush mode min/max flush denormal inputs (the canonicalising v_max x, x).
  EXPECT_EQ(run32(mode(0, den(0, 3)), Op::V_MAX_F32_E64, Enc::VOP3, kDenF, kDenF), 0u);
}

TEST_F(FpMode, ClampDx10) {
  // NaN + 1 is NaN; clamp gives +0 with DX10_CLAMP, the NaN without.
  EXPECT_EQ(run32(kDefault, Op::V_ADD_F32_E64, Enc::VOP3, 0x7fc00000u, kOneF, 0, 2, true), 0u);
  EXPECT_EQ(run32(kDefault & ~kDx10, Op::V_ADD_F32_E64, Enc::VOP3, 0x7fc00000u, kOneF, 0, 2, true),
            0x7fc00000u);
  EXPECT_EQ(run32(kDefault, Op::V_ADD_F32_E64, Enc::VOP3, 0x40000000u, kOneF, 0, 2, true), kOneF);
}

// ---- unsupported --------------------------------------------------------------------------

TEST_F(FpMode, TranscendentalUnderDirectedRoundStops) {
  W->Mode = mode(rnd(kUp, 0), den(3, 3));
  C.InstPc = 0x1234;
  set(1, 0x40400000u);
  try {
    execVector(C, mk(Op::V_RCP_F32_E32, Enc::VOP1, V(0), V(1)));
    FAIL() << "no error";
  } catch (const EmuError &e) {
    EXPECT_EQ(e.Kind, EmuErrorKind::Unsupported);
    EXPECT_STREQ(
        e.what(),
        "unsupported instruction v_rcp_f32 at pc 0x1234 (round mode toward +inf not modelled)");
  }
  // The same op runs when only the other field is directed, and under flush modes.
  W->Mode = mode(rnd(0, kUp), den(0, 0));
  EXPECT_TRUE(execVector(C, mk(Op::V_RCP_F32_E32, Enc::VOP1, V(0), V(1))));
  W->Mode = mode(rnd(0, kZero), den(3, 3));
  EXPECT_THROW(execVector(C, mk(Op::V_SQRT_F64_E32, Enc::VOP1, V(0), V(2))), EmuError);
}

// ---- packed and mixed -----------------------------------------------------------------------

TEST_F(FpMode, PackedF16AndF32) {
  // v_pk_add_f16: both halves 1 + 2^-11 (tie): nearest even 1.0; toward +inf 0x3c01.
  set(1, kOneH | (kOneH << 16)), set(2, kTwoM11H | (kTwoM11H << 16));
  W->Mode = kDefault;
  ASSERT_TRUE(execPacked(C, vop3p(Op::V_PK_ADD_F16, V(0), V(1), V(2))));
  EXPECT_EQ(get(0), 0x3c003c00u);
  W->Mode = mode(rnd(0, kUp), den(3, 3));
  ASSERT_TRUE(execPacked(C, vop3p(Op::V_PK_ADD_F16, V(0), V(1), V(2))));
  EXPECT_EQ(get(0), 0x3c013c01u);
  // v_pk_mul_f16 with denormal 0x0001 * 1.0: kept, or flushed when f16 inputs flush.
  set(1, 0x0001u | (kOneH << 16)), set(2, kOneH | (kOneH << 16));
  W->Mode = mode(0, den(3, 0));
  ASSERT_TRUE(execPacked(C, vop3p(Op::V_PK_MUL_F16, V(0), V(1), V(2))));
  EXPECT_EQ(get(0), kOneH << 16);
  // v_pk_add_f32 (registers v[2:3] + v[4:5]): 1 + 2^-24 in both halves, toward +inf.
  set(2, kOneF), set(3, kOneF), set(4, kTwoM24), set(5, kTwoM24);
  W->Mode = mode(rnd(kUp, 0), den(3, 3));
  ASSERT_TRUE(execPacked(C, vop3p(Op::V_PK_ADD_F32, V(0), V(2), V(4))));
  EXPECT_EQ(get(0), 0x3f800001u);
  EXPECT_EQ(get(1), 0x3f800001u);
  W->Mode = kDefault;
  ASSERT_TRUE(execPacked(C, vop3p(Op::V_PK_ADD_F32, V(0), V(2), V(4))));
  EXPECT_EQ(get(0), kOneF);
}

// v_fma_mixlo_f16 (1 + 2^-10) * 1.5 - 2^-30 = 1.5 + 3*2^-11 - 2^-30: just below the f16 tie
// between 0x3e01 and 0x3e02, so nearest gives 0x3e01 (a float fma would round to the tie
// first and then to even, 0x3e02). Toward +inf: 0x3e02.
TEST_F(FpMode, FmaMixF16OneRounding) {
  set(1, 0x3c01u), set(2, 0x3e00u), set(3, 0xb0800000u); // -2^-30 as f32
  Inst in = vop3p(Op::V_MAD_MIXLO_F16, V(0), V(1), V(2), V(3));
  in.OpselHi = 3; // src0, src1 f16; src2 f32
  set(0, 0xabcd0000u);
  W->Mode = kDefault;
  ASSERT_TRUE(execPacked(C, in));
  EXPECT_EQ(get(0), 0xabcd3e01u);
  W->Mode = mode(rnd(0, kUp), den(3, 3));
  ASSERT_TRUE(execPacked(C, in));
  EXPECT_EQ(get(0), 0xabcd3e02u);
  // v_fma_mix_f32 rounds in the single field: (1 + 2^-10) * 1.5 + 2^-30 toward +inf.
  in = vop3p(Op::V_MAD_MIX_F32, V(0), V(1), V(2), V(3));
  in.OpselHi = 3;
  set(3, 0x30800000u);
  W->Mode = mode(rnd(kUp, 0), den(3, 3));
  ASSERT_TRUE(execPacked(C, in));
  EXPECT_EQ(get(0), 0x3fc03001u); // 1.5 + 3*2^-11 = 0x3fc03000, plus one ulp
  W->Mode = kDefault;
  ASSERT_TRUE(execPacked(C, in));
  EXPECT_EQ(get(0), 0x3fc03000u);
}

// ---- a real instruction sequence with s_setreg ----------------------------------------------

struct Seq : FpMode {
  // Decode and run words (llvm-mc-22 -mcpu=gfx942 encodings) from pc 0x1000.
  void runWords(const std::vector<uint8_t> &bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      Inst in;
      std::string why;
      ASSERT_TRUE(decodeInst(bytes.data() + off, bytes.size() - off, Gfx::Gfx942, in, &why)) << why;
      C.InstPc = 0x1000 + off;
      W->Pc = C.InstPc + in.Size;
      ASSERT_TRUE(executeInst(C, in)) << opName(in.Operation);
      off += in.Size;
    }
  }
};

TEST_F(Seq, SetregChangesRoundAndDenormModes) {
  W->Mode = kDefault; // what the descriptor of compiled kernels sets
  set(1, kOneF), set(2, kTwoM24);
  set(4, kOneH), set(5, kTwoM11H);
  set64(8, kOneD), set64(10, kTwoM53D);
  set(14, kDenF), set(15, 0);
  runWords({
      0x01, 0x18, 0x00, 0xba,
      0x05, 0x00, 0x00, 0x00, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 5
      0x01, 0x05, 0x00, 0x02, // v_add_f32_e32 v0, v1, v2
      0x04, 0x0b, 0x06, 0x3e, // v_add_f16_e32 v3, v4, v5
      0x06, 0x00, 0x80, 0xd2,
      0x08, 0x15, 0x02, 0x00, // v_add_f64 v[6:7], v[8:9], v[10:11]
      0x01, 0x18, 0x00, 0xba,
      0x00, 0x00, 0x00, 0x00, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
      0x01, 0x05, 0x18, 0x02, // v_add_f32_e32 v12, v1, v2
      0x01, 0x19, 0x00, 0xba,
      0x00, 0x00, 0x00, 0x00, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0
      0x0e, 0x1f, 0x1a, 0x02, // v_add_f32_e32 v13, v14, v15
      0x01, 0x45, 0x20, 0x7e, // v_rcp_f32_e32 v16, v1
  });
  EXPECT_EQ(get(0), 0x3f800001u);      // toward +inf
  EXPECT_EQ(get(3) & 0xffff, 0x3c01u); // toward +inf (double/half field)
  EXPECT_EQ(get64(6), kOneD + 1);      // toward +inf
  EXPECT_EQ(get(12), kOneF);           // back to nearest even
  EXPECT_EQ(get(13), 0u);              // denormal input flushed
  EXPECT_EQ(get(16), kOneF);           // rcp(1) under nearest even with flushing
  EXPECT_EQ(W->Mode & 0xff, 0u);
  // Directed single round: v_rcp_f32 stops as unsupported.
  try {
    runWords({
        0x01,
        0x08,
        0x00,
        0xba,
        0x01,
        0x00,
        0x00,
        0x00, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 1
        0x01,
        0x45,
        0x22,
        0x7e, // v_rcp_f32_e32 v17, v1
    });
    FAIL() << "no error";
  } catch (const EmuError &e) {
    EXPECT_EQ(e.Kind, EmuErrorKind::Unsupported);
    EXPECT_STREQ(
        e.what(),
        "unsupported instruction v_rcp_f32 at pc 0x1008 (round mode toward +inf not modelled)");
  }
}

} // namespace
