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

TEST(Gate, AnEnsembleCommitsOnlyWhatClearsTheMarginUnderEverySet) {
  GateParams P; // eps 0.002, k 0.85, floor 1.0
  // Faster under every set by 4-6% over the root (speedup 1 under every set): committed. The
  // gains' cv is 0.0067, so the margin is 1 + 0.85 * 0.0067 = 1.0057.
  std::vector<double> S = {1.05, 1.04, 1.06, 1.05};
  GateDecision D = commitGateEnsemble(S, {}, 1.0, P);
  EXPECT_TRUE(D.Commit);
  EXPECT_TRUE(D.PointCommit);
  EXPECT_EQ(D.Members, 4u);
  EXPECT_EQ(D.Clearing, 4u);
  EXPECT_NEAR(D.Cv, 0.00673, 1e-5);
  EXPECT_DOUBLE_EQ(D.GainLow, 1.04);
  EXPECT_DOUBLE_EQ(D.GainHigh, 1.06);
  EXPECT_EQ(D.Reason, "committed: 1.0500x >= 1.0057x (best 1.0000x, cv 0.0067 over 4 parameter "
                      "sets); the gain over the best is 1.0400x to 1.0600x, and clears the "
                      "margin under 4 of 4 sets");
  // The point estimate (member 0) is 8% faster, one corner of the ranges has it 1% slower: the
  // interval straddles the threshold, and nothing is committed.
  S = {1.08, 1.05, 0.99, 1.10};
  D = commitGateEnsemble(S, {}, 1.0, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_TRUE(D.PointCommit);
  EXPECT_EQ(D.Clearing, 3u);
  EXPECT_DOUBLE_EQ(D.GainLow, 0.99);
  EXPECT_EQ(D.Reason.substr(0, 46), "not faster under every parameter set: 1.0800x ");
  // The same as one set: Eq. 2 alone commits it.
  EXPECT_TRUE(commitGate(1.08, 1.0, 0.0, P).Commit);
}

TEST(Gate, AnEnsemblePairsTheCandidateWithTheBestSetBySet) {
  GateParams P;
  P.K = 0; // the margin is epsilon alone here
  // The best is 1.20 / 1.10 / 1.30 under three sets; the candidate 1.21 / 1.11 / 1.31 beats
  // it by ~0.8% under each (> 0.2%), though its least speedup (1.11) is below the best's
  // point estimate (1.20): paired, not against the point.
  std::vector<double> Best = {1.20, 1.10, 1.30}, S = {1.21, 1.11, 1.31};
  GateDecision D = commitGateEnsemble(S, Best, 1.20, P);
  EXPECT_TRUE(D.Commit);
  EXPECT_NEAR(D.GainLow, 1.31 / 1.30, 1e-12);
  // Under the second set it is no better than the best: refused.
  S = {1.21, 1.10, 1.31};
  D = commitGateEnsemble(S, Best, 1.20, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_EQ(D.Clearing, 2u);
  // A best recorded without sets counts as its point speedup under every set.
  D = commitGateEnsemble({1.21, 1.21, 1.21}, {}, 1.20, P);
  EXPECT_TRUE(D.Commit);
  // The floor holds under every set too: faster than a slow best, not than K0 under one set.
  D = commitGateEnsemble({1.01, 0.999}, {0.9, 0.9}, 0.9, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_EQ(D.Clearing, 1u);
  // Not faster under the point estimate either: said as before.
  D = commitGateEnsemble({1.0, 1.1}, {}, 1.0, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_FALSE(D.PointCommit);
  EXPECT_EQ(D.Reason.substr(0, 18), "not faster enough:");
  // Nothing to gate.
  EXPECT_FALSE(commitGateEnsemble({}, {}, 1.0, P).Commit);
}

TEST(Gate, AWideSpreadRaisesTheMarginUnderEverySet) {
  GateParams P; // k 0.85
  // Gains of 1.03 and 1.13: cv 0.0463, margin 1 + 0.85 * 0.0463 = 1.0394; the 1.03 set does not
  // clear it, though every set is faster.
  GateDecision D = commitGateEnsemble({1.13, 1.03}, {}, 1.0, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_NEAR(D.Cv, 0.0463, 1e-4);
  EXPECT_NEAR(D.Threshold, 1.0394, 1e-4);
  EXPECT_EQ(D.Clearing, 1u);
  // One set: Eq. 2 with cv 0, as commitGate.
  D = commitGateEnsemble({1.0019}, {}, 1.0, P);
  EXPECT_FALSE(D.Commit);
  EXPECT_EQ(D.Reason, commitGate(1.0019, 1.0, 0.0, P).Reason);
}
