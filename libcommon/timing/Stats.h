// The statistics of measured kernel times (Measure.h): a sample's summary, and the bootstrap
// confidence interval of a ratio of medians over paired samples (K1's time over K0's, each pair
// timed in the same round). Pure arithmetic on doubles, deterministic given the seed.
//
// Definitions (kernel-time(1) repeats them):
//   percentile q (0..1) of n sorted values x[0..n-1]: linear interpolation between the closest
//     ranks, h = (n - 1) q, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]) (Hyndman
//     and Fan's type 7: R's default, numpy's "linear", Excel's PERCENTILE.INC). The median is
//     q = 0.5 (the mean of the two middle values of an even count), P10 q = 0.1, P90 q = 0.9.
//   standard deviation: the sample one, with n - 1 in the denominator (0 for one value).
//   CV: standard deviation / mean (0 when the mean is 0).
//   bootstrap: Resamples times, draw n pair indices uniformly with replacement (SplitMix64,
//     launch::Rng, from Seed), and take median(B') / median(A') over the drawn pairs; the
//     interval is the percentile interval of those ratios, at (1 - Level) / 2 and
//     (1 + Level) / 2, with the percentile above.
#pragma once

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace asmevo::timing {

struct SampleStats {
  size_t Count = 0;
  double Median = 0, Mean = 0, Min = 0, Max = 0, P10 = 0, P90 = 0;
  double StdDev = 0, Cv = 0;
};

// The percentile Q (0..1) of values already sorted ascending (0 when empty).
double percentileSorted(const std::vector<double> &Sorted, double Q);
// The same of values in any order.
double percentile(std::vector<double> Values, double Q);
double median(std::vector<double> Values);
// Every figure of SampleStats (all 0 when Values is empty).
SampleStats summarize(const std::vector<double> &Values);

struct BootstrapOptions {
  unsigned Resamples = 2000;
  double Level = 0.95; // of the two-sided interval
  uint64_t Seed = 1;
};

struct RatioInterval {
  double Ratio = 0; // median(B) / median(A) of the samples as measured
  double Lo = 0;    // the interval's bounds
  double Hi = 0;
  double Level = 0; // as asked
  unsigned Resamples = 0;
};

// The ratio of medians median(B) / median(A) of paired samples (A[i] and B[i] are one pair) and
// its bootstrap percentile interval. Input errors: samples of different or zero length, a value
// that is not positive and finite, Resamples 0, Level outside (0, 1).
llvm::Expected<RatioInterval> bootstrapRatioOfMedians(const std::vector<double> &A,
                                                      const std::vector<double> &B,
                                                      const BootstrapOptions &O = {});

} // namespace asmevo::timing
