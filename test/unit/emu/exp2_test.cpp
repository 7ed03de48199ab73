// v_exp_f32's libm-free path (Exp2.h) against what it stands for, float(std::exp2(double(a))):
// the two must agree bit for bit wherever the fast path gives a value. A stride through all
// 2^32 inputs by default (every float class, every binade); every input with
// ASMEVO_EXHAUSTIVE=1 (about a minute on one core). And the executor end to end: v_exp_f32 on
// inputs near the range edges and on inputs the fast path sends to libm.
#include "MakeInst.h"
#include "emu/Exec.h"
#include "emu/Exp2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

using namespace asmevo;
using namespace asmevo::emu;

namespace {

uint32_t libmExp2(uint32_t a) { return f32ToBits(float(std::exp2(double(bitsToF32(a))))); }

struct Tally {
  uint64_t Tried = 0, Slow = 0, InRangeSlow = 0;
};

// Compare over a = first, first + step, ... (mod 2^32), count inputs.
void sweep(uint64_t count, uint32_t step, Tally &t) {
  uint32_t a = 0x1234567u;
  for (uint64_t i = 0; i < count; ++i, a += step) {
    const uint32_t fast = exp2F32Fast(a);
    ++t.Tried;
    if (fast == kExp2Slow) {
      ++t.Slow;
      const float f = bitsToF32(a);
      if (f >= -126.0f && f < 128.0f)
        ++t.InRangeSlow;
      continue;
    }
    ASSERT_EQ(fast, libmExp2(a)) << "exp2 of 0x" << std::hex << a << " (" << bitsToF32(a) << ")";
  }
}

TEST(Exp2, FastPathMatchesLibmOverAStrideOfAllInputs) {
  Tally t;
  // 2^32 / 61 inputs: 61 is odd, so the stride visits every residue class evenly.
  sweep((uint64_t(1) << 32) / 61, 61, t);
  // The fast path is used: in range, at most a few in a million inputs go to libm.
  EXPECT_GT(t.Tried - t.Slow, t.Tried / 2);
  EXPECT_LT(t.InRangeSlow * 100000, t.Tried) << t.InRangeSlow << " of " << t.Tried;
}

TEST(Exp2, FastPathMatchesLibmOnEveryInputWhenAsked) {
  const char *e = std::getenv("ASMEVO_EXHAUSTIVE");
  if (!e || std::string(e) != "1")
    GTEST_SKIP() << "set ASMEVO_EXHAUSTIVE=1 to compare all 2^32 inputs";
  Tally t;
  sweep(uint64_t(1) << 32, 1, t);
  std::printf("exp2: %llu inputs, %llu to libm (%llu of them in [-126, 128))\n",
              (unsigned long long)t.Tried, (unsigned long long)t.Slow,
              (unsigned long long)t.InRangeSlow);
}

TEST(Exp2, EdgesAndSpecialValues) {
  // Exact powers of two, the range edges and their neighbours, zeros, denormals, infinities
  // and NaNs: each either matches libm or is sent to it.
  std::vector<uint32_t> in;
  for (int k = -149; k <= 128; ++k)
    in.push_back(f32ToBits(float(k)));
  for (float e : {-126.0f, 128.0f, -125.5f, 127.5f, 0.5f, -0.5f})
    for (int d = -3; d <= 3; ++d)
      in.push_back(f32ToBits(e) + uint32_t(d));
  for (uint32_t b : {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u, 0xff800000u,
                     0x7fc00000u, 0xffc00001u, 0x7f7fffffu, 0xff7fffffu})
    in.push_back(b);
  for (uint32_t a : in) {
    const uint32_t fast = exp2F32Fast(a);
    if (fast != kExp2Slow) {
      EXPECT_EQ(fast, libmExp2(a)) << std::hex << a;
    }
  }
  // Powers of two in range come out exact on the fast path.
  for (int k = -126; k < 128; ++k)
    EXPECT_EQ(exp2F32Fast(f32ToBits(float(k))), f32ToBits(std::ldexp(1.0f, k))) << k;
  // Outside the range, and NaN, go to libm.
  for (uint32_t b : {f32ToBits(-126.5f), f32ToBits(128.0f), 0x7fc00000u, 0xff800000u})
    EXPECT_EQ(exp2F32Fast(b), kExp2Slow) << std::hex << b;
}

TEST(Exp2, ExecutorMixesFastAndLibmLanes) {
  auto w = std::make_unique<WaveState>();
  Workgroup wg;
  DeviceMemory mem;
  ExecCtx c{*w, wg, mem, Gfx::Gfx942};
  w->setExec(~0ull);
  w->Mode = 0x3f0;
  // Lanes alternate between in-range inputs and ones only libm handles (NaN, infinities,
  // underflow to denormals and zero, overflow).
  const uint32_t odd[] = {0x7fc00000u,         0xff800000u,        0x7f800000u,
                          f32ToBits(-130.25f), f32ToBits(-149.5f), f32ToBits(-200.0f),
                          f32ToBits(200.0f),   f32ToBits(-127.0f)};
  uint32_t *src = w->vrow(1);
  for (unsigned l = 0; l < 64; ++l)
    src[l] = l % 2 ? odd[(l / 2) % 8] : f32ToBits(-20.0f + 0.6180339f * float(l));
  Inst in =
      test::mk(Op::V_EXP_F32_E32, Enc::VOP1, uint16_t(kVgprBase + 0), uint16_t(kVgprBase + 1));
  ASSERT_TRUE(execVector(c, in));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(w->vrow(0)[l], libmExp2(src[l])) << "lane " << l;
  // In place (destination = source), with EXEC off in some lanes.
  std::vector<uint32_t> before(src, src + 64);
  w->setExec(0x5555aaaa0f0ff0f0ull);
  ASSERT_TRUE(execVector(
      c, test::mk(Op::V_EXP_F32_E32, Enc::VOP1, uint16_t(kVgprBase + 1), uint16_t(kVgprBase + 1))));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(src[l], (0x5555aaaa0f0ff0f0ull >> l) & 1 ? libmExp2(before[l]) : before[l]) << l;
}

} // namespace
