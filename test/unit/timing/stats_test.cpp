// The statistics of measured times (timing/Stats.h), against values worked out by hand: medians
// of odd and even counts, type-7 percentiles, the sample standard deviation and CV, and the
// paired bootstrap of a ratio of medians (exact where B is a multiple of A, covering the true
// ratio on noisy pairs, reproducible from its seed).
#include "timing/Stats.h"

#include "launch/InputGen.h"
#include "support/Error.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace asmevo;
using namespace asmevo::timing;

namespace {

std::string errText(llvm::Error E) {
  std::string S;
  llvm::handleAllErrors(std::move(E), [&](const ToolError &T) { S = formatError(T); });
  return S;
}

TEST(Stats, Median) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({5}), 5);
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5); // (2 + 3) / 2
  EXPECT_EQ(median({7, 7, 1, 9, 100}), 7);
  EXPECT_EQ(median({10, 30, 20, 40, 60, 50}), 35);
}

// Type 7: h = (n - 1) q, interpolating between x[floor h] and the next.
TEST(Stats, Percentiles) {
  std::vector<double> X = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_DOUBLE_EQ(percentile(X, 0.1), 1.9); // h = 0.9: 1 + 0.9 (2 - 1)
  EXPECT_DOUBLE_EQ(percentile(X, 0.9), 9.1); // h = 8.1: 9 + 0.1 (10 - 9)
  EXPECT_DOUBLE_EQ(percentile(X, 0.5), 5.5);
  EXPECT_EQ(percentile(X, 0), 1);
  EXPECT_EQ(percentile(X, 1), 10);
  EXPECT_DOUBLE_EQ(percentile({10, 20, 30, 40}, 0.25), 17.5); // h = 0.75
  EXPECT_EQ(percentile({3}, 0.9), 3);
  EXPECT_EQ(percentile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(percentileSorted({1, 2, 4}, 0.75), 3); // h = 1.5
}

TEST(Stats, Summary) {
  // Mean 5; squared deviations 9 1 1 1 0 0 4 16 = 32; sample variance 32 / 7.
  SampleStats S = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(S.Count, 8u);
  EXPECT_DOUBLE_EQ(S.Mean, 5);
  EXPECT_DOUBLE_EQ(S.Median, 4.5);
  EXPECT_EQ(S.Min, 2);
  EXPECT_EQ(S.Max, 9);
  EXPECT_DOUBLE_EQ(S.P10, 3.4); // h = 0.7: 2 + 0.7 (4 - 2)
  EXPECT_DOUBLE_EQ(S.P90, 7.6); // h = 6.3: 7 + 0.3 (9 - 7)
  EXPECT_DOUBLE_EQ(S.StdDev, std::sqrt(32.0 / 7));
  EXPECT_DOUBLE_EQ(S.Cv, std::sqrt(32.0 / 7) / 5);
  SampleStats One = summarize({0.25});
  EXPECT_EQ(One.Median, 0.25);
  EXPECT_EQ(One.P10, 0.25);
  EXPECT_EQ(One.StdDev, 0);
  EXPECT_EQ(One.Cv, 0);
  SampleStats None = summarize({});
  EXPECT_EQ(None.Count, 0u);
  EXPECT_EQ(None.Mean, 0);
  EXPECT_EQ(summarize({0, 0}).Cv, 0); // a zero mean: no CV
}

// B = 1.5 A pair by pair: every resample's ratio of medians is 1.5, so is the interval. (Were
// the pairs not kept together, resamples would mix slow and fast halves and spread.)
TEST(Stats, BootstrapExactOnProportionalPairs) {
  std::vector<double> A, B;
  for (int I = 1; I <= 40; ++I) {
    A.push_back(I * 1e-3);
    B.push_back(1.5 * I * 1e-3);
  }
  auto R = bootstrapRatioOfMedians(A, B);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_DOUBLE_EQ(R->Ratio, 1.5);
  EXPECT_DOUBLE_EQ(R->Lo, 1.5);
  EXPECT_DOUBLE_EQ(R->Hi, 1.5);
  EXPECT_EQ(R->Resamples, 2000u);
  EXPECT_EQ(R->Level, 0.95);
}

// Two pairs (1, 2) and (3, 4): a resample is both first pairs (ratio 2, probability 1/4), both
// second (4/3, 1/4) or one of each (medians 2 and 3: 1.5, 1/2). The 95% interval's ends are
// the extremes; the 20% interval's (the 40th and 60th percentiles of about 500 draws of 4/3,
// 1000 of 1.5 and 500 of 2) are 1.5 both.
TEST(Stats, BootstrapTwoPairsByHand) {
  auto R = bootstrapRatioOfMedians({1, 3}, {2, 4});
  ASSERT_TRUE(bool(R));
  EXPECT_DOUBLE_EQ(R->Ratio, 1.5);
  EXPECT_DOUBLE_EQ(R->Lo, 4.0 / 3);
  EXPECT_DOUBLE_EQ(R->Hi, 2);
  auto H = bootstrapRatioOfMedians({1, 3}, {2, 4}, {2000, 0.2, 1});
  ASSERT_TRUE(bool(H));
  EXPECT_DOUBLE_EQ(H->Lo, 1.5);
  EXPECT_DOUBLE_EQ(H->Hi, 1.5);
}

// Noisy pairs around a true ratio of 1.25: the interval holds it, is narrow, and is the same
// for the same seed.
TEST(Stats, BootstrapCoversTheTrueRatio) {
  launch::Rng G(42);
  std::vector<double> A, B;
  for (int I = 0; I < 200; ++I) {
    double Base = 1e-3 * (1 + 0.5 * G.unit()); // a slow drift shared by the pair
    A.push_back(Base * (1 + 0.02 * (G.unit() - 0.5)));
    B.push_back(1.25 * Base * (1 + 0.02 * (G.unit() - 0.5)));
  }
  auto R = bootstrapRatioOfMedians(A, B);
  ASSERT_TRUE(bool(R));
  EXPECT_LT(R->Lo, 1.25);
  EXPECT_GT(R->Hi, 1.25);
  EXPECT_LE(R->Lo, R->Ratio);
  EXPECT_GE(R->Hi, R->Ratio);
  EXPECT_LT(R->Hi - R->Lo, 0.2);
  auto Again = bootstrapRatioOfMedians(A, B);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(Again->Lo, R->Lo);
  EXPECT_EQ(Again->Hi, R->Hi);
  auto Other = bootstrapRatioOfMedians(A, B, {2000, 0.95, 7});
  ASSERT_TRUE(bool(Other));
  EXPECT_EQ(Other->Ratio, R->Ratio);
  EXPECT_TRUE(Other->Lo != R->Lo || Other->Hi != R->Hi); // another seed, other resamples
  // A lower level: a narrower interval, inside the wider one.
  auto Narrow = bootstrapRatioOfMedians(A, B, {2000, 0.5, 1});
  ASSERT_TRUE(bool(Narrow));
  EXPECT_GE(Narrow->Lo, R->Lo);
  EXPECT_LE(Narrow->Hi, R->Hi);
  EXPECT_LT(Narrow->Hi - Narrow->Lo, R->Hi - R->Lo);
}

TEST(Stats, BootstrapErrors) {
  EXPECT_EQ(errText(bootstrapRatioOfMedians({1, 2}, {1}).takeError()),
            "a ratio of medians needs paired samples of one length (2 and 1 values)");
  EXPECT_EQ(errText(bootstrapRatioOfMedians({}, {}).takeError()),
            "a ratio of medians needs paired samples of one length (0 and 0 values)");
  EXPECT_EQ(errText(bootstrapRatioOfMedians({1, 0}, {1, 1}).takeError()),
            "a ratio of medians needs positive times (got 0)");
  EXPECT_EQ(errText(bootstrapRatioOfMedians({1}, {NAN}).takeError()),
            "a ratio of medians needs positive times (got nan)");
  EXPECT_EQ(errText(bootstrapRatioOfMedians({1}, {1}, {0, 0.95, 1}).takeError()),
            "the bootstrap needs at least one resample");
  EXPECT_EQ(errText(bootstrapRatioOfMedians({1}, {1}, {10, 1, 1}).takeError()),
            "a confidence level is between 0 and 1 (got 1)");
}

} // namespace
