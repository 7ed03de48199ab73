// The commit gate (the paper's Eq. 2): a verified candidate c is committed only if
//   m* = (1 + max(eps, k * cv)) * s(K*)   and   s(c) >= max(m*, s_floor),
// where s(K) = T(K0) / T(K) is the speedup over the original, K* the current best and cv the
// timing's coefficient of variation. Correctness is decided before: only a candidate
// kernel-diffcheck called ok reaches the gate.
//
// On the model (kernel-time --ensemble N), a speedup is N paired speedups s_i, one per parameter
// set drawn from the parameter files' ranges (the same sets for every candidate of a run), and
// Eq. 2 must hold under every one of them (commitGateEnsemble): cv is the coefficient of
// variation of the paired gains g_i = s_i(c) / s_i(K*) over the members, and c is committed only
// if s_i(c) >= max((1 + max(eps, k * cv)) * s_i(K*), s_floor) for every i. A gain that only one
// corner of the model's uncertainty believes is not a gain. With one member it is Eq. 2 with
// cv 0.
#pragma once

#include <string>
#include <vector>

namespace asmevo::search {

struct GateParams {
  double Epsilon = 0.002, K = 0.85, Floor = 1.0;
};

struct GateDecision {
  bool Commit = false;
  double Threshold = 0; // max(m*, s_floor) for the point estimate (member 0)
  std::string Reason;   // "committed: 1.0420x >= 1.0020x" / "not faster enough: ..."
  // The ensemble's view (commitGateEnsemble; one member for commitGate).
  double Cv = 0;                      // of the paired gains over the best
  double GainLow = 0, GainHigh = 0;   // the least and most of s_i(c) / s_i(K*)
  unsigned Members = 1, Clearing = 0; // members, and those where the inequality holds
  bool PointCommit = false;           // what Eq. 2 says of member 0 alone
};

GateDecision commitGate(double Speedup, double BestSpeedup, double Cv, const GateParams &P);

// S[i], Best[i]: the candidate's and the best's speedups over K0 under parameter set i (member 0:
// the nominal figures). A Best of another length than S (a best recorded without an ensemble,
// or the root, whose speedup is 1 under every set) counts as BestPoint under every member. An
// empty S is never committed.
GateDecision commitGateEnsemble(const std::vector<double> &S, const std::vector<double> &Best,
                                double BestPoint, const GateParams &P);

} // namespace asmevo::search
