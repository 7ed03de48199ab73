// The commit decision (search/Commit.h): an evaluated candidate becomes its node, gated by Eq. 2
// against the best, and the node becomes its driver's feedback.
#include "search/Commit.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;

namespace {

Candidate candidate() {
  Candidate C;
  C.Id = "n000004";
  C.Parent = "n000002";
  C.Driver = "rules";
  C.Hash = "abc";
  C.Seconds = 3.5;
  Edit E;
  E.Rationale = "drop a wait";
  C.Edits = {E};
  C.Ranges = {LineRange{10, 12}};
  return C;
}

EvalResult passed(double Speedup, std::vector<double> Speedups = {}) {
  EvalResult R;
  R.Result = Outcome::Ok;
  R.ObjectSha256 = "f00d";
  R.K0Us = 100;
  R.Us = 100 / Speedup;
  R.Speedup = Speedup;
  R.Speedups = std::move(Speedups);
  R.Kind = "modeled";
  R.Backend = "emu";
  return R;
}

Node best(const std::string &Id, double Speedup, std::vector<double> Speedups = {}) {
  Node B;
  B.Id = Id;
  B.Verified = B.Committed = true;
  B.Speedup = Speedup;
  B.Speedups = std::move(Speedups);
  return B;
}

} // namespace

TEST(Commit, AVerifiedCandidateClearingEq2IsCommitted) {
  GateParams P; // eps 0.002, k 0.85, floor 1.0
  Node N = judgeCandidate(candidate(), passed(1.05), nullptr, 0, P);
  // Everything the controller knew and the gates found is on the node.
  EXPECT_EQ(N.Id, "n000004");
  EXPECT_EQ(N.Parent, "n000002");
  EXPECT_EQ(N.Driver, "rules");
  EXPECT_EQ(N.CandidateHash, "abc");
  EXPECT_EQ(N.ObjectSha256, "f00d");
  ASSERT_EQ(N.Edits.size(), 1u);
  EXPECT_EQ(N.Edits[0].Rationale, "drop a wait");
  ASSERT_EQ(N.Ranges.size(), 1u);
  EXPECT_EQ(N.Ranges[0].First, 10u);
  EXPECT_DOUBLE_EQ(N.Seconds, 3.5);
  EXPECT_EQ(N.Kind, "modeled");
  EXPECT_EQ(N.Backend, "emu");
  EXPECT_EQ(N.BestBefore, ""); // K0 was the best
  // The verdict.
  EXPECT_TRUE(N.Verified);
  EXPECT_TRUE(N.Committed);
  EXPECT_EQ(N.Stage, "gate");
  EXPECT_EQ(N.Outcome, "ok");
  EXPECT_DOUBLE_EQ(N.Speedup, 1.05);
  EXPECT_DOUBLE_EQ(N.Threshold, 1.002);
  EXPECT_EQ(N.Message, "committed: 1.0500x >= 1.0020x (best 1.0000x, cv 0.0000)");
  EXPECT_EQ(N.Signature, "");
}

TEST(Commit, BelowTheMarginOverTheBestIsSlower) {
  GateParams P;
  Node B = best("n000003", 1.10);
  Node N = judgeCandidate(candidate(), passed(1.101), &B, 0, P);
  EXPECT_TRUE(N.Verified);
  EXPECT_FALSE(N.Committed);
  EXPECT_EQ(N.Outcome, "slower");
  EXPECT_EQ(N.BestBefore, "n000003");
  EXPECT_EQ(N.Signature, "slower: below threshold");
  EXPECT_EQ(N.Message.substr(0, 27), "not faster enough: 1.1010x ");
}

TEST(Commit, ACompositionMustBeatBothParents) {
  GateParams P;
  // 1.05 clears Eq. 2 over K0, but one parent reached 1.06 alone.
  Node N = judgeCandidate(candidate(), passed(1.05), nullptr, 1.06, P);
  EXPECT_FALSE(N.Committed);
  EXPECT_EQ(N.Outcome, "slower");
  EXPECT_EQ(N.Signature, "slower: composition");
  EXPECT_EQ(N.Message, "composition not faster than both parents (1.0600x)");
  EXPECT_TRUE(judgeCandidate(candidate(), passed(1.07), nullptr, 1.06, P).Committed);
}

TEST(Commit, AnEnsembleGainThatOnlySomeSetsBelieveIsNotCommitted) {
  GateParams P;
  // The point estimate (member 0) is 8% faster; under the third set it is 1% slower.
  Node N = judgeCandidate(candidate(), passed(1.08, {1.08, 1.05, 0.99, 1.10}), nullptr, 0, P);
  EXPECT_TRUE(N.Verified);
  EXPECT_FALSE(N.Committed);
  EXPECT_TRUE(N.PointCommit);
  EXPECT_EQ(N.Clearing, 3u);
  EXPECT_DOUBLE_EQ(N.GainLow, 0.99);
  EXPECT_DOUBLE_EQ(N.GainHigh, 1.10);
  EXPECT_GT(N.Cv, 0); // the ensemble's spread, not the gates' cv (0)
  EXPECT_EQ(N.Signature, "slower: not under every set");
  // Paired with a best that has sets of its own, set by set.
  Node B = best("n000001", 1.02, {1.02, 1.01, 1.03, 1.02});
  N = judgeCandidate(candidate(), passed(1.05, {1.05, 1.04, 1.06, 1.05}), &B, 0, P);
  EXPECT_TRUE(N.Committed);
  EXPECT_EQ(N.Clearing, 4u);
}

TEST(Commit, ACandidateTheGatesRejectedKeepsTheirVerdict) {
  GateParams P;
  EvalResult R;
  R.Result = Outcome::Divergent;
  R.Stage = "diffcheck";
  R.Signature = "divergent: buffer";
  R.Message = "divergent: buffer 'out' on seed 1";
  Node N = judgeCandidate(candidate(), R, nullptr, 0, P);
  EXPECT_FALSE(N.Verified);
  EXPECT_FALSE(N.Committed);
  EXPECT_EQ(N.Stage, "diffcheck");
  EXPECT_EQ(N.Outcome, "divergent");
  EXPECT_EQ(N.Signature, "divergent: buffer");
  EXPECT_EQ(N.Message, "divergent: buffer 'out' on seed 1");
  EXPECT_DOUBLE_EQ(N.Speedup, 0);
}

TEST(Commit, TheDriverIsToldWhatTheNodeSays) {
  GateParams P;
  Node B = best("n000003", 1.10);
  Node N = judgeCandidate(candidate(), passed(1.101), &B, 0, P);
  Feedback F = feedbackOf(N);
  EXPECT_EQ(F.Node, "n000004");
  EXPECT_EQ(F.Parent, "n000002");
  EXPECT_EQ(F.Stage, "gate");
  EXPECT_EQ(F.Outcome, "slower");
  EXPECT_EQ(F.Signature, "slower: below threshold");
  EXPECT_EQ(F.Message, N.Message);
  EXPECT_DOUBLE_EQ(F.Speedup, 1.101);
  EXPECT_TRUE(F.Verified);
  EXPECT_FALSE(F.Committed);
}
