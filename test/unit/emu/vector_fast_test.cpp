// The short path of plain VALU instructions (ExecVectorFast.h) against the general executor
// (executeInst): every op it takes, in each encoding, with VGPR, SGPR, inline-constant and literal
// sources, full and partial EXEC, IEEE mode on and off, and lane values that include the float
// special cases (signalling and quiet NaNs with payloads, infinities, signed zeros, denormals).
// Both run on copies of one wave state; every register of the copies must then be equal, bit for
// bit. And the instructions the short path must leave to the general executor.
#include "MakeInst.h"
#include "emu/Dispatch.h"
#include "emu/ExecVectorCore.h"
#include "emu/ExecVectorFast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace asmevo::emu;
using asmevo::emu::test::mk;

namespace {

constexpr uint16_t V(unsigned r) { return uint16_t(kVgprBase + r); }
constexpr uint16_t kOne = 242; // inline constant 1.0

// Lane values: random bits, and float special cases in every lane position.
uint32_t laneValue(std::mt19937 &rng, unsigned l) {
  static const uint32_t special[] = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, // +-0, +-inf
      0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u, // quiet and signalling NaNs, payloads
      0x00000001u, 0x807fffffu, 0x00400000u,              // denormals
      0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0x00800000u, // +-1, max, min normal
      0x0000001fu, 0x00000020u, 0xffffffffu, 0x80000001u  // shift counts past 31, -1
  };
  const unsigned n = sizeof(special) / sizeof(special[0]);
  switch (rng() % 3) {
  case 0:
    return special[(l + rng()) % n];
  case 1:
    return uint32_t(rng()) % 100u; // small integers
  default:
    return uint32_t(rng());
  }
}

struct Case {
  Op Operation;
  Enc Encoding;
  unsigned Nsrc;
};

// Every op of the short path, in each encoding the decoder gives it.
const Case kCases[] = {
    {Op::V_MOV_B32_E32, Enc::VOP1, 1},      {Op::V_MOV_B32_E64, Enc::VOP3, 1},
    {Op::V_NOT_B32_E32, Enc::VOP1, 1},      {Op::V_NOT_B32_E64, Enc::VOP3, 1},
    {Op::V_BFREV_B32_E32, Enc::VOP1, 1},    {Op::V_BFREV_B32_E64, Enc::VOP3, 1},
    {Op::V_ADD_U32_E32, Enc::VOP2, 2},      {Op::V_ADD_U32_E64, Enc::VOP3, 2},
    {Op::V_SUB_U32_E32, Enc::VOP2, 2},      {Op::V_SUB_U32_E64, Enc::VOP3, 2},
    {Op::V_SUBREV_U32_E32, Enc::VOP2, 2},   {Op::V_SUBREV_U32_E64, Enc::VOP3, 2},
    {Op::V_AND_B32_E32, Enc::VOP2, 2},      {Op::V_AND_B32_E64, Enc::VOP3, 2},
    {Op::V_OR_B32_E32, Enc::VOP2, 2},       {Op::V_OR_B32_E64, Enc::VOP3, 2},
    {Op::V_XOR_B32_E32, Enc::VOP2, 2},      {Op::V_XOR_B32_E64, Enc::VOP3, 2},
    {Op::V_LSHLREV_B32_E32, Enc::VOP2, 2},  {Op::V_LSHLREV_B32_E64, Enc::VOP3, 2},
    {Op::V_LSHRREV_B32_E32, Enc::VOP2, 2},  {Op::V_LSHRREV_B32_E64, Enc::VOP3, 2},
    {Op::V_ASHRREV_I32_E32, Enc::VOP2, 2},  {Op::V_ASHRREV_I32_E64, Enc::VOP3, 2},
    {Op::V_ADD3_U32_E64, Enc::VOP3, 3},     {Op::V_LSHL_ADD_U32_E64, Enc::VOP3, 3},
    {Op::V_ADD_LSHL_U32_E64, Enc::VOP3, 3}, {Op::V_LSHL_OR_B32, Enc::VOP3, 3},
    {Op::V_AND_OR_B32, Enc::VOP3, 3},       {Op::V_OR3_B32, Enc::VOP3, 3},
    {Op::V_CNDMASK_B32_E32, Enc::VOP2, 3},  {Op::V_CNDMASK_B32_E64, Enc::VOP3, 3},
    {Op::V_ADD_F32_E32, Enc::VOP2, 2},      {Op::V_ADD_F32_E64, Enc::VOP3, 2},
    {Op::V_SUB_F32_E32, Enc::VOP2, 2},      {Op::V_SUB_F32_E64, Enc::VOP3, 2},
    {Op::V_SUBREV_F32_E32, Enc::VOP2, 2},   {Op::V_SUBREV_F32_E64, Enc::VOP3, 2},
    {Op::V_MUL_F32_E32, Enc::VOP2, 2},      {Op::V_MUL_F32_E64, Enc::VOP3, 2},
    {Op::V_FMA_F32_E64, Enc::VOP3, 3},      {Op::V_FMAC_F32_E32, Enc::VOP2, 3},
    {Op::V_FMAC_F32_E64, Enc::VOP3, 3},     {Op::V_MAX_F32_E32, Enc::VOP2, 2},
    {Op::V_MAX_F32_E64, Enc::VOP3, 2},      {Op::V_MIN_F32_E32, Enc::VOP2, 2},
    {Op::V_MIN_F32_E64, Enc::VOP3, 2},      {Op::V_CMP_LT_I32_E32, Enc::VOPC, 2},
    {Op::V_CMP_EQ_I32_E64, Enc::VOP3, 2},   {Op::V_CMP_LE_I32_E32, Enc::VOPC, 2},
    {Op::V_CMP_GT_I32_E32, Enc::VOPC, 2},   {Op::V_CMP_NE_I32_E64, Enc::VOP3, 2},
    {Op::V_CMP_GE_I32_E32, Enc::VOPC, 2},   {Op::V_CMP_F_I32_E32, Enc::VOPC, 2},
    {Op::V_CMP_T_I32_E64, Enc::VOP3, 2},    {Op::V_CMP_LT_U32_E32, Enc::VOPC, 2},
    {Op::V_CMP_GT_U32_E64, Enc::VOP3, 2},   {Op::V_CMP_NE_U32_E32, Enc::VOPC, 2},
    {Op::V_CMP_LT_F32_E32, Enc::VOPC, 2},   {Op::V_CMP_EQ_F32_E64, Enc::VOP3, 2},
    {Op::V_CMP_LE_F32_E32, Enc::VOPC, 2},   {Op::V_CMP_GT_F32_E32, Enc::VOPC, 2},
    {Op::V_CMP_LG_F32_E64, Enc::VOP3, 2},   {Op::V_CMP_GE_F32_E32, Enc::VOPC, 2},
    {Op::V_CMP_O_F32_E32, Enc::VOPC, 2},    {Op::V_CMP_U_F32_E64, Enc::VOP3, 2},
    {Op::V_CMP_NGE_F32_E32, Enc::VOPC, 2},  {Op::V_CMP_NEQ_F32_E64, Enc::VOP3, 2},
    {Op::V_CMP_NLT_F32_E32, Enc::VOPC, 2},  {Op::V_CMP_TRU_F32_E64, Enc::VOP3, 2},
};

// The instruction of case c with source kind k: 0 all VGPRs; 1 src0 an SGPR; 2 src0 an
// inline integer; 3 src0 the inline constant 1.0; 4 src0 a literal. The destination is v0
// (a compare's: VCC for VOPC, s[20:21] for VOP3); FMAC's addend is its destination.
Inst build(const Case &c, unsigned k) {
  const bool cmp =
      c.Encoding == Enc::VOPC || std::string(opName(c.Operation)).rfind("V_CMP", 0) == 0;
  Inst in = mk(c.Operation, c.Encoding, cmp ? kNoOperand : V(0), V(1),
               c.Nsrc > 1 ? V(2) : kNoOperand, c.Nsrc > 2 ? V(3) : kNoOperand);
  if (cmp)
    in.Sdst = c.Encoding == Enc::VOPC ? uint16_t(kVccLo) : uint16_t(20);
  if (c.Operation == Op::V_FMAC_F32_E32 || c.Operation == Op::V_FMAC_F32_E64)
    in.Src[2] = V(0);
  if (c.Operation == Op::V_CNDMASK_B32_E32)
    in.Src[2] = kVccLo;
  if (c.Operation == Op::V_CNDMASK_B32_E64)
    in.Src[2] = 10; // s[10:11]
  switch (k) {
  case 1:
    in.Src[0] = 4;
    break;
  case 2:
    in.Src[0] = uint16_t(128 + 17);
    break;
  case 3:
    in.Src[0] = kOne;
    break;
  case 4:
    in.Src[0] = kLiteralCode;
    in.Literal = 0xc0490fdbu; // -pi
    in.HasLiteral = true;
    break;
  default:
    break;
  }
  return in;
}

struct VecFast : ::testing::Test {
  std::unique_ptr<WaveState> Gen = std::make_unique<WaveState>();
  std::unique_ptr<WaveState> Fast = std::make_unique<WaveState>();
  Workgroup Wg;
  DeviceMemory Mem;

  void fill(std::mt19937 &rng, uint64_t exec, uint32_t mode) {
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned l = 0; l < kWaveSize; ++l)
        Gen->vrow(r)[l] = laneValue(rng, l);
    for (unsigned i = 0; i < 24; ++i)
      Gen->S[i] = laneValue(rng, i);
    Gen->setVcc(uint64_t(rng()) << 32 | rng());
    Gen->setExec(exec);
    Gen->Mode = mode;
    *Fast = *Gen;
  }
  // Run `in` through the general executor and the short path (f) on the two states; then they
  // must differ nowhere.
  void runBoth(const Inst &in, FastOp f, const std::string &what) {
    ExecCtx cg{*Gen, Wg, Mem, Gfx::Gfx942};
    ExecCtx cf{*Fast, Wg, Mem, Gfx::Gfx942};
    ASSERT_TRUE(executeInst(cg, in)) << what;
    ASSERT_TRUE(execVectorFast(cf, in, f)) << what;
    expectSame(what);
  }
  // The two states differ nowhere.
  void expectSame(const std::string &what) {
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned l = 0; l < kWaveSize; ++l)
        ASSERT_EQ(Fast->vrow(r)[l], Gen->vrow(r)[l]) << what << ": v" << r << " lane " << l;
    ASSERT_EQ(0, std::memcmp(Fast->S, Gen->S, sizeof Gen->S)) << what << ": SGPRs differ";
    ASSERT_EQ(Fast->Scc, Gen->Scc) << what;
  }
};

TEST_F(VecFast, EveryOpMatchesTheGeneralExecutor) {
  std::mt19937 rng(20261204);
  const uint64_t execs[] = {~0ull, 0x00ff00ff0f0f3c3cull, 0};
  const uint32_t modes[] = {0x3f0, 0x1f0}; // default round/denormals, IEEE on / off
  unsigned compared = 0;
  for (const Case &c : kCases)
    for (unsigned k = 0; k < 5; ++k)
      for (uint64_t exec : execs)
        for (uint32_t mode : modes)
          for (unsigned rep = 0; rep < 3; ++rep) {
            Inst in = build(c, k);
            const FastOp f = fastVectorOp(in);
            const std::string what = std::string(opName(c.Operation)) + " sources " +
                                     std::to_string(k) + " exec " + std::to_string(exec) +
                                     " mode " + std::to_string(mode);
            ASSERT_NE(f, FastOp::None) << what << ": the short path does not take it";
            fill(rng, exec, mode);
            runBoth(in, f, what);
            ++compared;
          }
  EXPECT_EQ(compared, sizeof(kCases) / sizeof(kCases[0]) * 5 * 3 * 2 * 3);
}

// abs and neg on float-typed sources (VOP3): the f32 ops, moves, selects and f32 compares take
// them on the short path; integer ops with them set stay general.
TEST_F(VecFast, AbsAndNegOnFloatSourcesMatchTheGeneralExecutor) {
  std::mt19937 rng(11);
  const uint8_t mods[][2] = {{1, 0}, {0, 1}, {2, 4}, {5, 3}, {7, 7}};
  unsigned compared = 0, general = 0;
  for (const Case &c : kCases) {
    if (c.Encoding != Enc::VOP3)
      continue;
    const std::string name = opName(c.Operation);
    const bool floatSources = name.find("F32") != std::string::npos ||
                              name.rfind("V_MOV_B32", 0) == 0 ||
                              name.rfind("V_CNDMASK_B32", 0) == 0;
    for (const auto &m : mods)
      for (unsigned k : {0u, 1u, 3u}) {
        Inst in = build(c, k);
        in.Abs = m[0], in.Neg = m[1];
        const FastOp f = fastVectorOp(in);
        const std::string what = name + " abs " + std::to_string(m[0]) + " neg " +
                                 std::to_string(m[1]) + " sources " + std::to_string(k);
        if (!floatSources) {
          EXPECT_EQ(f, FastOp::None) << what;
          ++general;
          continue;
        }
        ASSERT_NE(f, FastOp::None) << what;
        fill(rng, 0xf0f0ffff0000ffffull, 0x3f0);
        runBoth(in, f, what);
        ++compared;
      }
  }
  EXPECT_EQ(compared, 15u * 15); // 15 VOP3 cases with float sources, 15 variants each
  EXPECT_EQ(general, 21u * 15);  // 21 integer VOP3 cases
}

TEST_F(VecFast, FloatOpsLeaveAnyOtherModeToTheGeneralExecutor) {
  std::mt19937 rng(7);
  // Round toward zero, f32 denormals flushed: the f32 ops and f32 compares decline and change
  // nothing; the integer ops run, and match the general executor.
  const uint32_t moded = 0x303; // IEEE and DX10 clamp on, f32 toward zero, denormals flushed
  for (const Case &c : kCases) {
    Inst in = build(c, 0);
    const FastOp f = fastVectorOp(in);
    fill(rng, ~0ull, moded);
    const std::string name = opName(c.Operation);
    if (name.find("F32") != std::string::npos) {
      ExecCtx cf{*Fast, Wg, Mem, Gfx::Gfx942};
      EXPECT_FALSE(execVectorFast(cf, in, f)) << name;
      expectSame(name + " (declined)");
      continue;
    }
    runBoth(in, f, name);
  }
}

// The 32-bit compares' lanes (compareLanes32, which both executors run) against the ISA's
// definition: condition i of F, LT, EQ, LE, GT, LG/NE, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU
// holds when bit (relation) of i is set, the relation being less (1), equal (2), greater (4) or
// unordered (8), computed here lane by lane on the host.
TEST(Compare32, EveryTruthTableAgreesWithTheRelation) {
  std::mt19937 rng(3);
  alignas(64) uint32_t a[64], b[64];
  for (unsigned rep = 0; rep < 20; ++rep) {
    for (unsigned l = 0; l < 64; ++l) {
      a[l] = laneValue(rng, l);
      b[l] = rep % 2 ? laneValue(rng, l + 7) : a[l ^ (rep & 63)]; // some equal pairs
    }
    for (unsigned tt = 0; tt < 16; ++tt)
      for (vec::Compare32 type : {vec::Compare32::I32, vec::Compare32::U32, vec::Compare32::F32}) {
        uint64_t want = 0;
        for (unsigned l = 0; l < 64; ++l) {
          unsigned rel;
          if (type == vec::Compare32::F32) {
            float p, q;
            std::memcpy(&p, &a[l], 4), std::memcpy(&q, &b[l], 4);
            rel = std::isnan(p) || std::isnan(q) ? 8 : p < q ? 1 : p == q ? 2 : 4;
          } else if (type == vec::Compare32::I32) {
            rel = int32_t(a[l]) < int32_t(b[l]) ? 1 : a[l] == b[l] ? 2 : 4;
          } else {
            rel = a[l] < b[l] ? 1 : a[l] == b[l] ? 2 : 4;
          }
          want |= uint64_t((tt & rel) != 0) << l;
        }
        ASSERT_EQ(vec::compareLanes32(type, tt, a, b), want)
            << "truth table " << tt << " type " << int(type) << " round " << rep;
      }
  }
}

TEST(VecFastChoice, ModifiersFormsAndOtherOpsTakeTheGeneralExecutor) {
  Inst plain = mk(Op::V_ADD_F32_E64, Enc::VOP3, V(0), V(1), V(2));
  EXPECT_EQ(fastVectorOp(plain), FastOp::AddF32);
  auto none = [](Inst in) { return fastVectorOp(in) == FastOp::None; };
  Inst in = mk(Op::V_ADD_U32_E64, Enc::VOP3, V(0), V(1), V(2));
  in.Abs = 1;
  EXPECT_TRUE(none(in));
  in.Abs = 0, in.Neg = 2;
  EXPECT_TRUE(none(in));
  in = plain, in.Clamp = true;
  EXPECT_TRUE(none(in));
  in = plain, in.Omod = 1;
  EXPECT_TRUE(none(in));
  in = plain, in.Opsel = 8;
  EXPECT_TRUE(none(in));
  in = mk(Op::V_ADD_F32_E32, Enc::VOP2, V(0), V(1), V(2));
  in.Form = VForm::Dpp;
  EXPECT_TRUE(none(in));
  in.Form = VForm::Sdwa;
  EXPECT_TRUE(none(in));
  // An AGPR destination, a K-form, a carry-out add, v_cmpx (writes EXEC), a 16-bit compare.
  EXPECT_TRUE(none(mk(Op::V_MOV_B32_E64, Enc::VOP3, uint16_t(kAgprBase + 1), V(1))));
  EXPECT_TRUE(none(mk(Op::V_FMAAK_F32_E32, Enc::VOP2, V(0), V(1), V(2))));
  EXPECT_TRUE(none(mk(Op::V_ADD_CO_U32_E32, Enc::VOP2, V(0), V(1), V(2))));
  EXPECT_TRUE(none(mk(Op::V_CMPX_GT_I32_E32, Enc::VOPC, kNoOperand, V(1), V(2))));
  EXPECT_TRUE(none(mk(Op::V_CMP_GT_I16_E32, Enc::VOPC, kNoOperand, V(1), V(2))));
  // A missing source.
  EXPECT_TRUE(none(mk(Op::V_ADD_U32_E32, Enc::VOP2, V(0), V(1))));
}

} // namespace
