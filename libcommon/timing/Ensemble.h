// The model's uncertainty as an ensemble: parameter sets drawn from the ranges of a parameter
// file (TargetParams.h, format version 2), under which one traced launch is simulated again and
// again (Model.h: traceLaunch, simulateLaunch), and the interval of what comes out. A modeled
// speedup is then a set of paired speedups, one per parameter set, the same sets for K0 and K1:
// a gain that only one corner of the ranges believes shows up as members where it is a loss.
#pragma once

#include "timing/TargetParams.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::timing {

// The most parameter sets an ensemble may have: each costs one simulation per kernel, and a
// number past this is more likely a typo than a wish.
constexpr unsigned kMaxEnsemble = 1024;

// The parameter sets asmevo-agent's gate uses unless told otherwise (kernel-time models one set
// unless --ensemble asks for more): what keeps a candidate within twice the cost of one modeled
// pair (bench/README.md, ensemble_bench: K1 emulated once, simulated under every set, K0's
// figures reused). The Latin hypercube puts one of the 7 drawn sets in each seventh of every
// figure's range, so a gain that one figure undoes in the last seventh of its range is caught;
// a gain that fails only in a corner of several figures at once (a fraction p of the ranges'
// volume) slips through with probability (1 - p)^7: --ensemble raises N where that matters more
// than time.
constexpr unsigned kDefaultEnsemble = 8;

// How the sets are drawn, for reports.
extern const char *const kEnsembleMethod;

// N parameter sets from P's ranges (1 <= N <= kMaxEnsemble). Set 0 is P itself (the nominal
// figures); sets 1..N-1 are a Latin hypercube over P's ranged figures (those whose range is not
// a point), in kFigures' order: each figure's range is cut into N-1 equal strata, each stratum is
// used by exactly one set, at a uniform point inside it, and the strata are matched across
// figures by one random permutation per figure. Exact figures keep their value in every set.
// Deterministic: the same P, N and Seed give the same sets on every host (a SplitMix64 stream
// per figure, seeded from Seed and the figure's name; no library distribution).
std::vector<TargetParams> drawParameterSets(const TargetParams &P, unsigned N, uint64_t Seed);

// The names of P's ranged figures, in kFigures' order.
std::vector<std::string> rangedFigures(const TargetParams &P);

// An ensemble's values of one figure (a time, a speedup): the nominal set's (member 0) and
// their spread over all members.
struct Interval {
  double Value = 0; // member 0's: the nominal figures
  double Min = 0, Max = 0, Median = 0;
  double Cv = 0; // population standard deviation / mean (0 for one member)
  unsigned Members = 0;
};
Interval summarizeEnsemble(const std::vector<double> &Values);

// Paired speedups T0[i] / T1[i]: their interval and how many members have K1 faster (> 1).
struct SpeedupInterval : Interval {
  unsigned Faster = 0;
  double fasterFraction() const { return Members ? double(Faster) / Members : 0; }
  std::vector<double> Speedups; // per member
};
SpeedupInterval pairedSpeedups(const std::vector<double> &T0, const std::vector<double> &T1);

} // namespace asmevo::timing
