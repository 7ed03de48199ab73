// The ensemble's parameter sets (Ensemble.h): set 0 is the nominal file, the others a Latin
// hypercube over the ranged figures only, the same for the same seed and inside every range;
// and the summaries of an ensemble's values and paired speedups; a gate candidate's timing that
// reuses K0's figures (TimeOptions::K0Reference) gets what the full pair gets.
#include "timing/Ensemble.h"

#include "support/FileIO.h"
#include "timing/TimeRun.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

using namespace asmevo::timing;

namespace {

TargetParams shipped(const char *Target = "gfx942") {
  auto P =
      readTargetParams(std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing/" + Target + ".json");
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  return P ? std::move(*P) : TargetParams();
}

TEST(Ensemble, MemberZeroIsTheNominalSetAndExactFiguresNeverMove) {
  TargetParams P = shipped();
  std::vector<TargetParams> Sets = drawParameterSets(P, 16, 7);
  ASSERT_EQ(Sets.size(), 16u);
  for (const FigureDef &D : kFigures)
    EXPECT_EQ(Sets[0][D.Name], P[D.Name]) << D.Name;
  for (const TargetParams &S : Sets) {
    EXPECT_EQ(S.Path, P.Path);
    EXPECT_EQ(S.Sha256, P.Sha256);
    for (const FigureDef &D : kFigures) {
      const Figure &F = P.Figures.at(D.Name);
      if (F.exact()) {
        EXPECT_EQ(S[D.Name], F.Value) << D.Name;
      }
      EXPECT_GE(S[D.Name], F.Low) << D.Name;
      EXPECT_LE(S[D.Name], F.High) << D.Name;
    }
  }
  // One set is the file itself.
  std::vector<TargetParams> One = drawParameterSets(P, 1, 7);
  ASSERT_EQ(One.size(), 1u);
  for (const FigureDef &D : kFigures)
    EXPECT_EQ(One[0][D.Name], P[D.Name]) << D.Name;
}

TEST(Ensemble, TheSameSeedGivesTheSameSetsAnotherSeedOthers) {
  TargetParams P = shipped();
  auto A = drawParameterSets(P, 9, 1), B = drawParameterSets(P, 9, 1),
       C = drawParameterSets(P, 9, 2);
  bool Differ = false;
  for (size_t I = 0; I < A.size(); ++I)
    for (const FigureDef &D : kFigures) {
      EXPECT_EQ(A[I][D.Name], B[I][D.Name]) << I << " " << D.Name;
      Differ |= A[I][D.Name] != C[I][D.Name];
    }
  EXPECT_TRUE(Differ);
  // Fixed values of the streams: a change to how sets are drawn shows up here, as it would in
  // every recorded verdict (a run's node records compare members by index).
  EXPECT_NEAR(A[1]["l2_latency_clk"], 236.790268927, 1e-6);
  EXPECT_NEAR(A[8]["hbm_latency_clk"], 698.023654567, 1e-6);
}

TEST(Ensemble, LatinHypercubeUsesEveryStratumOfEveryRangedFigureOnce) {
  TargetParams P = shipped();
  const unsigned N = 13, M = N - 1;
  auto Sets = drawParameterSets(P, N, 3);
  std::vector<std::string> Ranged = rangedFigures(P);
  EXPECT_GE(Ranged.size(), 10u);
  EXPECT_EQ(std::count(Ranged.begin(), Ranged.end(), "compute_units"), 0);
  EXPECT_EQ(std::count(Ranged.begin(), Ranged.end(), "l2_latency_clk"), 1);
  for (const std::string &Name : Ranged) {
    const Figure &F = P.Figures.at(Name);
    std::set<unsigned> Strata;
    for (unsigned K = 1; K < N; ++K) {
      double U = (Sets[K][Name] - F.Low) / (F.High - F.Low);
      Strata.insert(std::min(M - 1, unsigned(U * M)));
    }
    EXPECT_EQ(Strata.size(), M) << Name;
  }
}

TEST(Ensemble, SummariesOfValuesAndPairedSpeedups) {
  Interval I = summarizeEnsemble({4, 1, 3, 2});
  EXPECT_EQ(I.Value, 4);
  EXPECT_EQ(I.Min, 1);
  EXPECT_EQ(I.Max, 4);
  EXPECT_EQ(I.Median, 2.5);
  EXPECT_EQ(I.Members, 4u);
  EXPECT_NEAR(I.Cv, 0.4472136, 1e-6); // sd 1.118 / mean 2.5
  Interval One = summarizeEnsemble({7});
  EXPECT_EQ(One.Median, 7);
  EXPECT_EQ(One.Cv, 0);
  // K1 faster under two members of three; member 0 is the point estimate.
  SpeedupInterval S = pairedSpeedups({100, 100, 100}, {80, 125, 50});
  EXPECT_EQ(S.Value, 1.25);
  EXPECT_EQ(S.Min, 0.8);
  EXPECT_EQ(S.Max, 2);
  EXPECT_EQ(S.Median, 1.25);
  EXPECT_EQ(S.Faster, 2u);
  EXPECT_NEAR(S.fasterFraction(), 2.0 / 3, 1e-12);
  EXPECT_EQ(S.Speedups, (std::vector<double>{1.25, 0.8, 2}));
}

// The Triton vector add (n = 3000) and its complete spec, as kernel-diffcheck --infer writes it.
struct VaddPair {
  asmevo::TempDir Dir;
  TimeOptions O;
};
std::optional<VaddPair> vaddPair(unsigned Ensemble) {
  auto D = asmevo::TempDir::create("ensemble-test");
  if (!D) {
    ADD_FAILURE() << llvm::toString(D.takeError());
    return std::nullopt;
  }
  std::string Spec = D->file("va.json");
  EXPECT_FALSE(bool(asmevo::writeFileAtomic(
      Spec, R"({"format": "asmevo-launch-spec", "format_version": 1, "kernel": "add_kernel",
        "grid": [3, 1, 1], "block": [256, 1, 1], "dynamic_lds": 0, "args": [
        {"arg": "#0", "elements": 3000, "role": "in", "type": "f32"},
        {"arg": "#1", "elements": 3000, "role": "in", "type": "f32"},
        {"arg": "#2", "elements": 3000, "role": "out", "type": "f32"},
        {"arg": "#3", "value": 3000}, {"arg": "#4", "value": "null"},
        {"arg": "#5", "value": "null"}]})")));
  VaddPair P{std::move(*D), {}};
  P.O.K0 = P.O.K1 =
      std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/gfx942/vector_add_fp32.hsaco";
  P.O.Spec = Spec;
  P.O.Ensemble = Ensemble;
  P.O.EnsembleSeed = 5;
  P.O.Threads = 1;
  return P;
}

TEST(Ensemble, AGateCandidateReusesK0sFiguresAndGetsWhatTheFullPairGets) {
  auto P = vaddPair(4);
  ASSERT_TRUE(P);
  asmevo::Report Full = runKernelTime(P->O);
  ASSERT_EQ(Full.Result, asmevo::Outcome::Ok) << Full.Message;
  TimeOptions K0Only = P->O;
  K0Only.K1.clear();
  nlohmann::json Ref = modeledReference(runKernelTime(K0Only));
  ASSERT_TRUE(Ref.is_object());
  TimeOptions C = P->O;
  C.K0Reference = Ref;
  asmevo::Report Cand = runKernelTime(C);
  ASSERT_EQ(Cand.Result, asmevo::Outcome::Ok) << Cand.Message;
  EXPECT_EQ(Cand.Body["kernels"][0].value("reused", false), true);
  EXPECT_FALSE(Full.Body["kernels"][0].contains("reused"));
  EXPECT_EQ(Cand.Body["kernels"][1]["ensemble"], Full.Body["kernels"][1]["ensemble"]);
  EXPECT_EQ(Cand.Body["speedup"], Full.Body["speedup"]);
  EXPECT_EQ(Cand.Message, Full.Message);
  EXPECT_EQ(Cand.Notes, Full.Notes);
  EXPECT_EQ(Full.Body["speedup"]["per_member"], nlohmann::json({1.0, 1.0, 1.0, 1.0}));

  // Figures made under other options, or damaged ones, are not used: K0 is modeled again.
  std::vector<nlohmann::json> Unusable = {"a string", nlohmann::json::array(), nullptr};
  auto Edited = [&](auto F) {
    nlohmann::json X = Ref;
    F(X);
    Unusable.push_back(X);
  };
  Edited([](nlohmann::json &X) { X["key"]["ensemble_seed"] = 6; });
  Edited([](nlohmann::json &X) { X["key"]["spec_sha256"] = "0"; });
  Edited([](nlohmann::json &X) { X["kernel"] = 3; });
  Edited([](nlohmann::json &X) { X.erase("kernel"); });
  Edited([](nlohmann::json &X) { X["kernel"]["ensemble"] = "x"; });
  Edited([](nlohmann::json &X) { X["kernel"]["ensemble"]["cycles_per_member"] = {1, 2}; });
  Edited([](nlohmann::json &X) {
    X["kernel"]["ensemble"]["microseconds_per_member"] = {"1", "2", "3", "4"};
  });
  Edited([](nlohmann::json &X) { X["kernel"]["ensemble"]["cycles_per_member"][2] = -1; });
  Edited([](nlohmann::json &X) { X["notes"] = 7; });
  for (size_t I = 0; I < Unusable.size(); ++I) {
    TimeOptions U = P->O;
    U.K0Reference = Unusable[I];
    asmevo::Report R = runKernelTime(U);
    ASSERT_EQ(R.Result, asmevo::Outcome::Ok) << I << ": " << R.Message;
    bool Reused = R.Body["kernels"][0].value("reused", false);
    // The last one has good figures and notes of the wrong type, which are left out.
    EXPECT_EQ(Reused, I + 1 == Unusable.size()) << I;
    EXPECT_EQ(R.Body["speedup"], Full.Body["speedup"]) << I;
  }
  // Under another number of sets, a reference of 4 is not used either.
  TimeOptions Five = P->O;
  Five.Ensemble = 5;
  Five.K0Reference = Ref;
  asmevo::Report R5 = runKernelTime(Five);
  ASSERT_EQ(R5.Result, asmevo::Outcome::Ok) << R5.Message;
  EXPECT_FALSE(R5.Body["kernels"][0].contains("reused"));
  EXPECT_EQ(R5.Body["speedup"]["members"], 5);
}

TEST(Ensemble, TheTimeResultsFieldsAreTheReportsFigures) {
  // What the search's gate reads (timeKernels: fields) is what kernel-time writes (the report),
  // for a pair on 4 parameter sets, with K0's figures reused and not; an error has no figures.
  auto P = vaddPair(4);
  ASSERT_TRUE(P);
  TimeResult T = timeKernels(P->O);
  ASSERT_EQ(T.Result, asmevo::Outcome::Ok) << T.Message;
  const nlohmann::json &B = T.Rep.Body;
  EXPECT_EQ(T.Message, T.Rep.Message);
  EXPECT_EQ(T.Kind, "modeled");
  EXPECT_EQ(T.Backend, "emu");
  ASSERT_EQ(T.Kernels.size(), 2u);
  for (size_t K = 0; K < 2; ++K) {
    EXPECT_EQ(T.Kernels[K].Role, B["kernels"][K]["role"]);
    EXPECT_EQ(T.Kernels[K].Us, B["kernels"][K]["microseconds"].get<double>());
    EXPECT_EQ(T.Kernels[K].Cv, 0);
    EXPECT_EQ(nlohmann::json(T.Kernels[K].UsPerMember),
              B["kernels"][K]["ensemble"]["microseconds_per_member"]);
  }
  EXPECT_EQ(T.Ratio, B["ratio"]["value"].get<double>());
  EXPECT_EQ(nlohmann::json(T.SpeedupPerMember), B["speedup"]["per_member"]);
  EXPECT_EQ(T.SpeedupPerMember.size(), 4u);

  TimeOptions K0Only = P->O;
  K0Only.K1.clear();
  TimeResult Alone = timeKernels(K0Only);
  ASSERT_EQ(Alone.Result, asmevo::Outcome::Ok) << Alone.Message;
  EXPECT_EQ(Alone.Kernels.size(), 1u);
  EXPECT_EQ(Alone.Ratio, 0);
  EXPECT_TRUE(Alone.SpeedupPerMember.empty());
  TimeOptions C = P->O;
  C.K0Reference = modeledReference(Alone.Rep);
  TimeResult Reused = timeKernels(C);
  ASSERT_EQ(Reused.Result, asmevo::Outcome::Ok) << Reused.Message;
  EXPECT_EQ(Reused.Rep.Body["kernels"][0].value("reused", false), true);
  EXPECT_EQ(Reused.Kernels[0].UsPerMember, T.Kernels[0].UsPerMember);
  EXPECT_EQ(Reused.SpeedupPerMember, T.SpeedupPerMember);

  TimeOptions Bad = P->O;
  Bad.Spec = P->O.Spec + ".missing";
  TimeResult E = timeKernels(Bad);
  EXPECT_EQ(E.Result, asmevo::Outcome::InputError);
  EXPECT_EQ(E.Message, E.Rep.Message);
  EXPECT_TRUE(E.Kernels.empty());
  EXPECT_EQ(E.Ratio, 0);
}

} // namespace
