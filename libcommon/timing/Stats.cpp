// Sample statistics and the paired bootstrap of a ratio of medians (Stats.h gives the
// definitions).
#include "timing/Stats.h"

#include "launch/InputGen.h"
#include "support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace asmevo::timing {

namespace {

std::string number(double V) {
  char B[32];
  std::snprintf(B, sizeof B, "%g", V);
  return B;
}

} // namespace

double percentileSorted(const std::vector<double> &Sorted, double Q) {
  if (Sorted.empty())
    return 0;
  Q = std::clamp(Q, 0.0, 1.0);
  double H = double(Sorted.size() - 1) * Q;
  size_t Lo = size_t(std::floor(H));
  if (Lo + 1 >= Sorted.size())
    return Sorted.back();
  return Sorted[Lo] + (H - double(Lo)) * (Sorted[Lo + 1] - Sorted[Lo]);
}

double percentile(std::vector<double> Values, double Q) {
  std::sort(Values.begin(), Values.end());
  return percentileSorted(Values, Q);
}

// The two middle values are found with nth_element: the bootstrap takes thousands of medians.
double median(std::vector<double> Values) {
  size_t N = Values.size();
  if (N == 0)
    return 0;
  auto Mid = Values.begin() + N / 2;
  std::nth_element(Values.begin(), Mid, Values.end());
  if (N % 2)
    return *Mid;
  double Below = *std::max_element(Values.begin(), Mid);
  return Below + (*Mid - Below) / 2;
}

SampleStats summarize(const std::vector<double> &Values) {
  SampleStats S;
  S.Count = Values.size();
  if (Values.empty())
    return S;
  std::vector<double> Sorted = Values;
  std::sort(Sorted.begin(), Sorted.end());
  S.Min = Sorted.front();
  S.Max = Sorted.back();
  S.Median = percentileSorted(Sorted, 0.5);
  S.P10 = percentileSorted(Sorted, 0.1);
  S.P90 = percentileSorted(Sorted, 0.9);
  double Sum = 0;
  for (double V : Values)
    Sum += V;
  S.Mean = Sum / double(S.Count);
  if (S.Count > 1) {
    double Sq = 0;
    for (double V : Values)
      Sq += (V - S.Mean) * (V - S.Mean);
    S.StdDev = std::sqrt(Sq / double(S.Count - 1));
  }
  S.Cv = S.Mean != 0 ? S.StdDev / S.Mean : 0;
  return S;
}

llvm::Expected<RatioInterval> bootstrapRatioOfMedians(const std::vector<double> &A,
                                                      const std::vector<double> &B,
                                                      const BootstrapOptions &O) {
  if (A.empty() || A.size() != B.size())
    return makeError("a ratio of medians needs paired samples of one length (" +
                     std::to_string(A.size()) + " and " + std::to_string(B.size()) + " values)");
  for (const std::vector<double> *X : {&A, &B})
    for (double V : *X)
      if (!(V > 0) || !std::isfinite(V))
        return makeError("a ratio of medians needs positive times (got " + number(V) + ")");
  if (O.Resamples == 0)
    return makeError("the bootstrap needs at least one resample");
  if (!(O.Level > 0 && O.Level < 1))
    return makeError("a confidence level is between 0 and 1 (got " + number(O.Level) + ")");
  RatioInterval R;
  R.Ratio = median(B) / median(A);
  R.Level = O.Level;
  R.Resamples = O.Resamples;
  size_t N = A.size();
  launch::Rng G(O.Seed);
  std::vector<double> Ratios(O.Resamples), DrawA(N), DrawB(N);
  for (double &Ratio : Ratios) {
    for (size_t J = 0; J < N; ++J) {
      // An index in [0, N): the high word of the 64 x 64-bit product (biased by at most
      // N / 2^64, and the same on every platform).
      size_t I = size_t((unsigned __int128)G.next() * N >> 64);
      DrawA[J] = A[I];
      DrawB[J] = B[I];
    }
    Ratio = median(DrawB) / median(DrawA);
  }
  std::sort(Ratios.begin(), Ratios.end());
  R.Lo = percentileSorted(Ratios, (1 - O.Level) / 2);
  R.Hi = percentileSorted(Ratios, (1 + O.Level) / 2);
  return R;
}

} // namespace asmevo::timing
