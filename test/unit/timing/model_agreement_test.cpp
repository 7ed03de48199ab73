// The model's agreement with published whole-kernel times (ModelAgreement.h): the shipped file
// was measured with the shipped parameter files, and a modeled report says, per GPU, how well
// the model agrees there, whether that meets the target, and nothing of the kind for a
// parameter file the agreement was not measured with.
#include "timing/ModelAgreement.h"

#include "TestHelpers.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

using namespace asmevo;
using namespace asmevo::timing;
using namespace asmevo::test;

namespace {

const std::string kShipped = std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing";

// Two GPUs of one target: one inside the target (1.01, 7/7), one outside (0.71, 19/76).
nlohmann::json sample() {
  auto Fig = [](const char *Key, const char *Name, unsigned Rows, unsigned Within, double G,
                double Min, double Max) {
    return nlohmann::json{{Key, Name},
                          {"rows", Rows},
                          {"within", Within},
                          {"geomean", G},
                          {"min", Min},
                          {"max", Max},
                          {"share_within", double(Within) / Rows}};
  };
  nlohmann::json A = Fig("gpu", "MI300X", 7, 7, 1.0054, 0.85, 1.15);
  A["families"] = {Fig("family", "fmha_fwd", 7, 7, 1.0054, 0.85, 1.15)};
  nlohmann::json B = Fig("gpu", "MI355X", 76, 19, 0.7144, 0.45, 1.18);
  B["families"] = {Fig("family", "fmha_fwd", 7, 7, 1.003, 0.91, 1.06),
                   Fig("family", "bf16gemm", 60, 9, 0.698, 0.55, 1.18)};
  return {{"format", "asmevo-model-agreement"},
          {"format_version", 1},
          {"source", "test"},
          {"command", "bench/validate_published.py AITER --agreement A"},
          {"date", "2026-12-07 16:31 UTC"},
          {"within", 0.25},
          {"target", {{"geomean_low", 0.85}, {"geomean_high", 1.15}, {"share_within", 0.7}}},
          {"targets", {{"gfx942", {{"params_sha256", "aa11"}, {"gpus", {A, B}}}}}}};
}

TargetParams params(const std::string &Target, const std::string &Sha) {
  TargetParams P;
  P.Target = Target;
  P.Path = "/p/" + Target + ".json";
  P.Sha256 = Sha;
  return P;
}

class ModelAgreementTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto D = TempDir::create("model-agreement-test");
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dir.emplace(std::move(*D));
  }
  std::string write(const std::string &Text) {
    std::string P = Dir->file("agreement.json");
    EXPECT_FALSE(bool(writeFileAtomic(P, Text)));
    return P;
  }
  std::string errorOf(const std::string &Text) {
    auto R = agreementFor(params("gfx942", "aa11"), write(Text));
    return R ? std::string("(read)") : llvm::toString(R.takeError());
  }
  std::optional<TempDir> Dir;
};

TEST_F(ModelAgreementTest, MeasuredFileSaysPerGpuWhetherTheTargetIsMet) {
  auto R = agreementFor(params("gfx942", "aa11"), write(sample().dump(1)));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Status, "measured");
  ASSERT_EQ(R->Notes.size(), 2u);
  EXPECT_EQ(R->Notes[0],
            "model agreement on MI300X: modeled/published geometric mean 1.01 over 7 published "
            "whole-kernel times, 7 (100%) within +-25% (bench/validate_published.py, 2026-12-07 "
            "16:31 UTC; by family: fmha_fwd 1.01 (7/7)); within the target (0.85 to 1.15, 70% "
            "within)");
  EXPECT_EQ(R->Notes[1],
            "model agreement on MI355X: modeled/published geometric mean 0.71 over 76 published "
            "whole-kernel times, 19 (25%) within +-25% (bench/validate_published.py, 2026-12-07 "
            "16:31 UTC; by family: fmha_fwd 1.00 (7/7), bf16gemm 0.70 (9/60)); the target (0.85 "
            "to 1.15, 70% within) is NOT met: a modeled speedup on this GPU is weak evidence");
  ASSERT_EQ(R->Json["gpus"].size(), 2u);
  EXPECT_EQ(R->Json["gpus"][0]["target_met"], true);
  EXPECT_EQ(R->Json["gpus"][1]["target_met"], false);
  EXPECT_EQ(R->Json["gpus"][1]["families"][1]["family"], "bf16gemm");
  EXPECT_DOUBLE_EQ(R->Json["gpus"][1]["share_within"].get<double>(), 0.25);
}

TEST_F(ModelAgreementTest, OtherParameterFileOrTargetHasNone) {
  std::string F = write(sample().dump(1));
  auto Other = agreementFor(params("gfx942", "bb22"), F);
  ASSERT_TRUE(bool(Other));
  EXPECT_EQ(Other->Status, "other_params");
  ASSERT_EQ(Other->Notes.size(), 1u);
  EXPECT_EQ(Other->Notes[0], "model agreement: none known for this parameter file "
                             "(/p/gfx942.json, sha256 bb22): the published-kernel validation in " +
                                 F + " was measured with another file (sha256 aa11)");
  auto None = agreementFor(params("gfx90a", "aa11"), F);
  ASSERT_TRUE(bool(None));
  EXPECT_EQ(None->Status, "none");
  EXPECT_EQ(None->Notes.at(0),
            "model agreement: none known for gfx90a (" + F +
                " has no entry; bench/validate_published.py has no published whole-kernel time "
                "for it): this modeled figure has not been held to real measurements");
  auto NoFile = agreementFor(params("gfx942", "aa11"), Dir->file("missing.json"));
  ASSERT_TRUE(bool(NoFile));
  EXPECT_EQ(NoFile->Status, "none");
}

TEST_F(ModelAgreementTest, BrokenFilesAreRefusedNamingTheFile) {
  const std::string F = Dir->file("agreement.json");
  EXPECT_EQ(errorOf("{\"format\": "), "'" + F + "':1: not valid JSON (at column 12)");
  EXPECT_EQ(errorOf("{\"format\": \"asmevo-timing-params\"}"),
            "'" + F + "': not a model agreement file (format is not asmevo-model-agreement)");
  nlohmann::json J = sample();
  J["format_version"] = 2;
  EXPECT_EQ(errorOf(J.dump()), "'" + F + "': format_version is not 1");
  J = sample();
  J["targets"]["gfx942"]["gpus"][1]["within"] = 77; // more than its 76 rows
  EXPECT_EQ(errorOf(J.dump()), "'" + F +
                                   "': target 'gfx942': 'MI355X' has inconsistent figures (rows "
                                   "76, within 77, geomean 0.71)");
  J = sample();
  J["targets"]["gfx942"].erase("params_sha256");
  EXPECT_NE(errorOf(J.dump()).find("'" + F + "': target 'gfx942': "), std::string::npos);
}

// The shipped agreement was measured with the shipped parameter files: a change to one of them
// needs bench/validate_published.py run again (--agreement share/asmevo/timing/agreement.json).
TEST(ShippedModelAgreement, MeasuredWithTheShippedParameterFiles) {
  for (const char *T : {"gfx942", "gfx950"}) {
    auto P = readTargetParams(kShipped + "/" + T + ".json");
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    auto R = agreementFor(*P, kShipped + "/agreement.json");
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(R->Status, "measured")
        << T << ".json changed since the published-kernel validation: run "
        << "bench/validate_published.py AITER_GIT_DIR --agreement "
           "share/asmevo/timing/agreement.json";
    EXPECT_FALSE(R->Notes.empty());
  }
  // gfx90a has no published whole-kernel time in the table.
  auto P = readTargetParams(kShipped + "/gfx90a.json");
  ASSERT_TRUE(bool(P));
  auto R = agreementFor(*P, kShipped + "/agreement.json");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->Status, "none");
}

} // namespace
