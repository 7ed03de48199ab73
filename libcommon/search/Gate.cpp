#include "search/Gate.h"

#include <algorithm>
#include <cstdio>

namespace asmevo::search {

GateDecision commitGate(double Speedup, double BestSpeedup, double Cv, const GateParams &P) {
  GateDecision D;
  double MStar = (1 + std::max(P.Epsilon, P.K * Cv)) * BestSpeedup;
  D.Threshold = std::max(MStar, P.Floor);
  D.Commit = Speedup >= D.Threshold;
  char B[160];
  std::snprintf(B, sizeof B, "%s: %.4fx %s %.4fx (best %.4fx, cv %.4f)",
                D.Commit ? "committed" : "not faster enough", Speedup, D.Commit ? ">=" : "<",
                D.Threshold, BestSpeedup, Cv);
  D.Reason = B;
  return D;
}

} // namespace asmevo::search
