// The commit gate (the paper's Eq. 2) and the hazard-padding count the gate keeps.
#include "search/Gate.h"
#include "search/GatedEval.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;

TEST(Gate, TheModelsZeroCvNeedsEpsilonOverTheBest) {
  GateParams P; // eps 0.002, k 0.85, floor 1.0
  GateDecision D = commitGate(1.0019, 1.0, 0.0, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_DOUBLE_EQ(D.Threshold, 1.002);
  EXPECT_EQ(D.Reason, "not faster enough: 1.0019x < 1.0020x (best 1.0000x, cv 0.0000)");
  D = commitGate(1.002, 1.0, 0.0, P);
  EXPECT_TRUE(D.Commit);
  EXPECT_EQ(D.Reason, "committed: 1.0020x >= 1.0020x (best 1.0000x, cv 0.0000)");
  // Against a best of 1.25: 1.25 * 1.002 = 1.2525.
  EXPECT_FALSE(commitGate(1.2524, 1.25, 0.0, P).Commit);
  EXPECT_TRUE(commitGate(1.2526, 1.25, 0.0, P).Commit);
}

TEST(Gate, MeasurementNoiseRaisesTheBar) {
  GateParams P;
  // cv 0.02: max(0.002, 0.85 * 0.02) = 0.017.
  GateDecision D = commitGate(1.016, 1.0, 0.02, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_NEAR(D.Threshold, 1.017, 1e-12);
  EXPECT_TRUE(commitGate(1.0171, 1.0, 0.02, P).Commit);
}

TEST(Gate, TheFloorRejectsAnythingNotFasterThanK0) {
  GateParams P;
  P.Epsilon = 0;
  P.K = 0;
  EXPECT_TRUE(commitGate(1.0, 1.0, 0.0, P).Commit);
  EXPECT_FALSE(commitGate(0.999, 0.9, 0.0, P).Commit); // faster than a best of 0.9, not than K0
  P.Floor = 1.05;
  EXPECT_FALSE(commitGate(1.04, 1.0, 0.0, P).Commit);
}

TEST(Gate, NopWaitStatesCountEveryNop) {
  EXPECT_EQ(nopWaitStates("\ts_nop 0\n\tv_mov_b32 v0, v1\n\ts_nop 7 ; pad\n  s_nop 0x2\n"),
            1u + 8u + 3u);
  EXPECT_EQ(nopWaitStates("\ts_nopx 3\n; s_nop 4\n"), 0u);
}

TEST(Gate, FailureSignaturesGeneraliseNumbersAndNames) {
  EXPECT_EQ(failureSignature(Outcome::Divergent,
                             "divergent: buffer '#1' (f16) on seed 3: nan_mismatches 30 at "
                             "index 7 (K0 1.5, K1 nan)"),
            failureSignature(Outcome::Divergent,
                             "divergent: buffer 'out' (f16) on seed 1: nan_mismatches 3000 at "
                             "index 0 (K0 1.86035156, K1 nan)"));
}
