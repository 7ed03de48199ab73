// The commit gate (the paper's Eq. 2): a verified candidate c is committed only if
//   m* = (1 + max(eps, k * cv)) * s(K*)   and   s(c) >= max(m*, s_floor),
// where s(K) = T(K0) / T(K) is the speedup over the original, K* the current best and cv the
// timing's coefficient of variation (0 for the model, which is deterministic). Correctness is
// decided before: only a candidate kernel-diffcheck called ok reaches the gate.
#pragma once

#include <string>

namespace asmevo::search {

struct GateParams {
  double Epsilon = 0.002, K = 0.85, Floor = 1.0;
};

struct GateDecision {
  bool Commit = false;
  double Threshold = 0; // max(m*, s_floor)
  std::string Reason;   // "committed: 1.0420x >= 1.0020x" / "not faster enough: ..."
};

GateDecision commitGate(double Speedup, double BestSpeedup, double Cv, const GateParams &P);

} // namespace asmevo::search
