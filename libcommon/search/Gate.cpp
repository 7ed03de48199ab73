// The commit gate's formula (search/Gate.h, the paper's Eq. 2) and its ensemble form.
#include "search/Gate.h"

#include "timing/Ensemble.h"

#include <algorithm>
#include <cstdio>

namespace asmevo::search {

GateDecision commitGate(double Speedup, double BestSpeedup, double Cv, const GateParams &P) {
  GateDecision D;
  double MStar = (1 + std::max(P.Epsilon, P.K * Cv)) * BestSpeedup;
  D.Threshold = std::max(MStar, P.Floor);
  D.Commit = D.PointCommit = Speedup >= D.Threshold;
  D.Cv = Cv;
  D.GainLow = D.GainHigh = BestSpeedup > 0 ? Speedup / BestSpeedup : 0;
  D.Clearing = D.Commit;
  char B[160];
  std::snprintf(B, sizeof B, "%s: %.4fx %s %.4fx (best %.4fx, cv %.4f)",
                D.Commit ? "committed" : "not faster enough", Speedup, D.Commit ? ">=" : "<",
                D.Threshold, BestSpeedup, Cv);
  D.Reason = B;
  return D;
}

GateDecision commitGateEnsemble(const std::vector<double> &S, const std::vector<double> &Best,
                                double BestPoint, const GateParams &P) {
  const size_t N = S.size();
  if (N == 0) {
    GateDecision D;
    D.Members = 0;
    D.Reason = "not faster enough: no modeled speedup to gate";
    return D;
  }
  auto BestAt = [&](size_t I) { return Best.size() == N ? Best[I] : BestPoint; };
  // The spread of the paired gains.
  std::vector<double> G(N);
  for (size_t I = 0; I < N; ++I)
    G[I] = BestAt(I) > 0 ? S[I] / BestAt(I) : 0;
  timing::Interval Gain = timing::summarizeEnsemble(G);
  double Cv = Gain.Cv;
  // Eq. 2 with that cv, member by member.
  GateDecision D = commitGate(S[0], BestAt(0), Cv, P);
  D.Members = unsigned(N);
  D.Clearing = 0;
  D.GainLow = Gain.Min;
  D.GainHigh = Gain.Max;
  double Margin = 1 + std::max(P.Epsilon, P.K * Cv);
  for (size_t I = 0; I < N; ++I)
    D.Clearing += S[I] >= std::max(Margin * BestAt(I), P.Floor);
  D.Commit = D.Clearing == N;
  if (N == 1)
    return D; // Eq. 2 itself, and its reason
  char B[240];
  std::snprintf(B, sizeof B,
                "%s: %.4fx %s %.4fx (best %.4fx, cv %.4f over %zu parameter sets); the gain over "
                "the best is %.4fx to %.4fx, and clears the margin under %u of %zu sets",
                D.Commit ? "committed" : "not faster under every parameter set", S[0],
                D.PointCommit ? ">=" : "<", D.Threshold, BestAt(0), Cv, N, D.GainLow, D.GainHigh,
                D.Clearing, N);
  D.Reason = B;
  if (!D.PointCommit && !D.Commit)
    D.Reason.replace(0, std::string("not faster under every parameter set").size(),
                     "not faster enough");
  return D;
}

} // namespace asmevo::search
