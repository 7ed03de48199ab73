// Drawing an ensemble's parameter sets (a Latin hypercube over the ranged figures) and summing
// up its values (Ensemble.h). The random stream is launch::Rng (SplitMix64) turned into numbers
// by hand: std::uniform_real_distribution and std::shuffle may differ between standard
// libraries, and a verdict must not depend on which one built the tool.
#include "timing/Ensemble.h"

#include "launch/InputGen.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace asmevo::timing {

const char *const kEnsembleMethod =
    "member 0: the nominal figures; members 1..N-1: a Latin hypercube over the ranged figures "
    "(uniform within each range, independent across figures)";

std::vector<std::string> rangedFigures(const TargetParams &P) {
  std::vector<std::string> Names;
  for (const FigureDef &D : kFigures)
    if (auto It = P.Figures.find(D.Name); It != P.Figures.end() && !It->second.exact())
      Names.push_back(D.Name);
  return Names;
}

std::vector<TargetParams> drawParameterSets(const TargetParams &P, unsigned N, uint64_t Seed) {
  N = std::clamp(N, 1u, kMaxEnsemble);
  std::vector<TargetParams> Sets(N, P);
  unsigned M = N - 1; // the drawn members
  if (M == 0)
    return Sets;
  std::vector<unsigned> Perm(M);
  for (const std::string &Name : rangedFigures(P)) {
    const Figure &F = P.Figures.at(Name);
    // A stream per figure, from the seed and the figure's name: a figure added to the files
    // later leaves every other figure's draws as they were.
    uint64_t H = 0xcbf29ce484222325ull; // FNV-1a
    for (char C : Name)
      H = (H ^ uint8_t(C)) * 0x100000001b3ull;
    launch::Rng R(Seed ^ H);
    std::iota(Perm.begin(), Perm.end(), 0u);
    for (unsigned I = M - 1; I > 0; --I)            // Fisher-Yates
      std::swap(Perm[I], Perm[R.next() % (I + 1)]); // bias < 2^-50 for I < 2^10
    for (unsigned K = 0; K < M; ++K) {
      double U = (double(Perm[K]) + R.unit()) / double(M);
      double V = F.Low + (F.High - F.Low) * U;
      Sets[K + 1].Figures[Name].Value = std::clamp(V, F.Low, F.High);
    }
  }
  return Sets;
}

Interval summarizeEnsemble(const std::vector<double> &Values) {
  Interval I;
  I.Members = unsigned(Values.size());
  if (Values.empty())
    return I;
  I.Value = Values[0];
  std::vector<double> S = Values;
  std::sort(S.begin(), S.end());
  I.Min = S.front();
  I.Max = S.back();
  size_t H = S.size() / 2;
  I.Median = S.size() % 2 ? S[H] : (S[H - 1] + S[H]) / 2;
  double Mean = std::accumulate(S.begin(), S.end(), 0.0) / double(S.size());
  double Var = 0;
  for (double X : S)
    Var += (X - Mean) * (X - Mean);
  Var /= double(S.size());
  I.Cv = Mean != 0 ? std::sqrt(Var) / std::fabs(Mean) : 0;
  return I;
}

SpeedupInterval pairedSpeedups(const std::vector<double> &T0, const std::vector<double> &T1) {
  SpeedupInterval S;
  size_t N = std::min(T0.size(), T1.size());
  for (size_t I = 0; I < N; ++I) {
    double X = T1[I] > 0 ? T0[I] / T1[I] : 0;
    S.Speedups.push_back(X);
    S.Faster += X > 1;
  }
  static_cast<Interval &>(S) = summarizeEnsemble(S.Speedups);
  return S;
}

} // namespace asmevo::timing
