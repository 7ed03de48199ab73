// The commit decision (search/Commit.h).
#include "search/Commit.h"

#include "support/Format.h"

namespace asmevo::search {

Node judgeCandidate(const Candidate &C, const EvalResult &R, const Node *Best, double MustBeat,
                    const GateParams &Gate) {
  Node N;
  N.Id = C.Id;
  N.Parent = C.Parent;
  N.Sources = C.Sources;
  N.Driver = C.Driver;
  N.Edits = C.Edits;
  N.Ranges = C.Ranges;
  N.CandidateHash = C.Hash;
  N.ObjectSha256 = R.ObjectSha256;
  N.Stage = R.Stage;
  N.Message = R.Message;
  N.Signature = R.Signature;
  N.Seconds = C.Seconds;
  N.Kind = R.Kind;
  N.Backend = R.Backend;
  N.K0Us = R.K0Us;
  N.Us = R.Us;
  N.Cv = R.Cv;
  N.BestBefore = Best ? Best->Id : "";
  if (R.Result != Outcome::Ok) {
    N.Outcome = outcomeName(R.Result);
    return N;
  }
  N.Verified = true;
  N.Speedup = R.Speedup;
  N.Speedups = R.Speedups;
  // Modeled: Eq. 2 under every parameter set of the ensemble, cv from their spread; measured:
  // Eq. 2 with the timing's cv.
  GateDecision G =
      !N.Speedups.empty()
          ? commitGateEnsemble(N.Speedups, Best ? Best->Speedups : std::vector<double>(),
                               Best ? Best->Speedup : 1.0, Gate)
          : commitGate(N.Speedup, Best ? Best->Speedup : 1.0, N.Cv, Gate);
  if (!N.Speedups.empty())
    N.Cv = G.Cv;
  N.GainLow = G.GainLow;
  N.GainHigh = G.GainHigh;
  N.Clearing = G.Clearing;
  N.PointCommit = G.PointCommit;
  N.Threshold = G.Threshold;
  N.Committed = G.Commit && N.Speedup > MustBeat;
  N.Stage = "gate";
  N.Outcome = N.Committed ? "ok" : "slower";
  N.Message = N.Committed ? G.Reason
              : G.Commit  ? "composition not faster than both parents (" + fixed(MustBeat, 4) + "x)"
                          : G.Reason;
  if (!N.Committed)
    N.Signature = "slower: " + std::string(G.Commit        ? "composition"
                                           : G.PointCommit ? "not under every set"
                                                           : "below threshold");
  return N;
}

Feedback feedbackOf(const Node &N) {
  Feedback F;
  F.Node = N.Id;
  F.Parent = N.Parent;
  F.Stage = N.Stage;
  F.Outcome = N.Outcome;
  F.Signature = N.Signature;
  F.Message = N.Message;
  F.Speedup = N.Speedup;
  F.Verified = N.Verified;
  F.Committed = N.Committed;
  return F;
}

} // namespace asmevo::search
