// The timing parameter files: the three shipped ones read and carry known figures, each with a
// source; broken files are refused with messages that name the file and the figure.
#include "timing/TargetParams.h"

#include "TestHelpers.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>
#include <string>

using namespace asmevo;
using namespace asmevo::timing;
using namespace asmevo::test;

namespace {

const std::string kShipped = std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing";

std::string shipped(const std::string &Target) { return kShipped + "/" + Target + ".json"; }

std::string errorText(llvm::Expected<TargetParams> P) {
  return P ? std::string("(read)") : llvm::toString(P.takeError());
}

nlohmann::json shippedJson(const std::string &Target) {
  auto B = readFile(shipped(Target));
  EXPECT_TRUE(bool(B));
  return B ? nlohmann::json::parse((*B)->getBuffer().str()) : nlohmann::json();
}

class TargetParamsTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto D = TempDir::create("target-params-test");
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dir.emplace(std::move(*D));
  }

  // Writes Text as Name in the temporary directory and returns its path.
  std::string write(const std::string &Name, const std::string &Text) {
    std::string P = Dir->file(Name);
    EXPECT_FALSE(bool(writeFileAtomic(P, Text)));
    return P;
  }

  // Reads a copy of the gfx942 file changed by Edit (written as edited()) and returns the error
  // text.
  template <typename F> std::string readEdited(F Edit) {
    nlohmann::json J = shippedJson("gfx942");
    Edit(J);
    return errorText(readTargetParams(write("edited.json", J.dump(2))));
  }
  std::string edited() const { return Dir->file("edited.json"); }

  std::optional<TempDir> Dir;
};

TEST_F(TargetParamsTest, ShippedFilesReadWithEveryFigureSourced) {
  for (const char *T : {"gfx90a", "gfx942", "gfx950"}) {
    auto P = readTargetParams(shipped(T));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(P->Target, T);
    EXPECT_FALSE(P->Device.empty());
    EXPECT_EQ(P->Path, shipped(T));
    EXPECT_EQ(P->Figures.size(), kFigureNames.size());
    for (const std::string &N : kFigureNames) {
      ASSERT_TRUE(P->Figures.count(N)) << T << " " << N;
      EXPECT_FALSE(P->Figures.at(N).Source.empty()) << T << " " << N;
      EXPECT_FALSE(P->Figures.at(N).Unit.empty()) << T << " " << N;
    }
  }
}

TEST_F(TargetParamsTest, ShippedFiguresMatchPublishedOnes) {
  auto A = readTargetParams(shipped("gfx90a"));
  auto C = readTargetParams(shipped("gfx942"));
  auto D = readTargetParams(shipped("gfx950"));
  ASSERT_TRUE(A && C && D);
  // One MI250X GCD: 110 CUs, one 8 MiB L2, no Infinity Cache.
  EXPECT_EQ(A->computeUnits(), 110);
  EXPECT_EQ(A->clockMHz(), 1700);
  EXPECT_EQ((*A)["l2_instances"], 1);
  EXPECT_EQ((*A)["l2_bytes"], 8 << 20);
  EXPECT_EQ((*A)["mall_bytes"], 0);
  EXPECT_EQ((*A)["lds_bytes_per_cu"], 65536);
  // MI300X: 304 CUs over 8 XCDs, 4 MiB L2 each, 256 MiB Infinity Cache, 5.3 TB/s at 2.1 GHz.
  EXPECT_EQ(C->computeUnits(), 304);
  EXPECT_EQ(C->clockMHz(), 2100);
  EXPECT_EQ((*C)["l2_instances"], 8);
  EXPECT_EQ((*C)["l2_bytes"], 4 << 20);
  EXPECT_EQ((*C)["mall_bytes"], 256 << 20);
  EXPECT_EQ((*C)["l1_line_bytes"], 128);
  EXPECT_NEAR((*C)["hbm_bytes_per_clk"], 5.3e12 / 2.1e9, 1);
  // MI355X: 256 CUs and a 160 KiB LDS.
  EXPECT_EQ(D->computeUnits(), 256);
  EXPECT_EQ((*D)["lds_bytes_per_cu"], 163840);
  // The register files are the same on all three.
  for (const TargetParams *P : {&*A, &*C, &*D}) {
    EXPECT_EQ((*P)["vgprs_per_simd_lane"], 512);
    EXPECT_EQ((*P)["sgprs_per_simd"], 800);
    EXPECT_EQ((*P)["wave_slots_per_simd"], 8);
    EXPECT_EQ((*P)["simds_per_cu"], 4);
  }
}

TEST_F(TargetParamsTest, MissingFigure) {
  const std::string P = edited();
  std::string E = readEdited([](nlohmann::json &J) { J["figures"].erase("l2_bytes"); });
  EXPECT_EQ(E, "'" + P + "': figure 'l2_bytes' is missing");
}

TEST_F(TargetParamsTest, FigureWithoutSource) {
  const std::string P = edited();
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"]["source"] = ""; }),
            "'" + P + "': figure 'l2_bytes' has no source");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"].erase("source"); }),
            "'" + P + "': figure 'l2_bytes' has no source");
}

TEST_F(TargetParamsTest, FigureNotANumber) {
  const std::string P = edited();
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"]["value"] = "4 MiB"; }),
            "'" + P + "': figure 'l2_bytes' is not a number");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"].erase("value"); }),
            "'" + P + "': figure 'l2_bytes' is not a number");
}

TEST_F(TargetParamsTest, UnknownFigure) {
  const std::string P = edited();
  std::string E = readEdited([](nlohmann::json &J) {
    J["figures"]["l2_byte"] = J["figures"]["l2_bytes"];
    J["figures"].erase("l2_bytes");
  });
  EXPECT_EQ(E, "'" + P + "': unknown figure 'l2_byte'");
}

TEST_F(TargetParamsTest, ZeroOrNegativeFigures) {
  const std::string P = edited();
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"]["value"] = 0; }),
            "'" + P + "': figure 'l2_bytes' must be more than 0");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["compute_units"]["value"] = 0; }),
            "'" + P + "': figure 'compute_units' must be more than 0");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["hbm_latency_clk"]["value"] = -1; }),
            "'" + P + "': figure 'hbm_latency_clk' must not be negative");
  // A latency may be 0; an Infinity Cache with no bandwidth may not.
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["branch_taken_clk"]["value"] = 0; }),
            "(read)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["mall_bytes_per_clk"]["value"] = 0; }),
            "'" + P + "': figure 'mall_bytes_per_clk' must be more than 0 (mall_bytes is not 0)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["mall_bytes"]["value"] = 0;
              J["figures"]["mall_bytes_per_clk"]["value"] = 0;
            }),
            "(read)");
}

TEST_F(TargetParamsTest, NotATimingParameterFile) {
  const std::string P = edited();
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["format"] = "asmevo-launch-spec"; }),
            "'" + P + "': not a timing parameter file (format is not asmevo-timing-params)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J = nlohmann::json::array(); }),
            "'" + P + "': not a timing parameter file (format is not asmevo-timing-params)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["format_version"] = 2; }),
            "'" + P + "': \"format_version\" is 2; this tool reads 1");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["target"] = 942; }),
            "'" + P + "': \"target\" must be a string (the processor, e.g. \"gfx942\")");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figure"] = J["figures"]; }),
            "'" + P +
                "': unknown key 'figure' (format, format_version, target, device, figures, "
                "comment)");
}

TEST_F(TargetParamsTest, JsonSyntaxErrorNamesTheOffset) {
  std::string P = write("broken.json", "{\n  \"format\": \"asmevo-timing-params\",\n  }\n");
  EXPECT_EQ(errorText(readTargetParams(P)),
            "'" + P +
                "'@0x28: not valid JSON: parse error at line 3, column 3: syntax error while "
                "parsing object key - unexpected '}'; expected string literal");
  std::string Missing = Dir->file("absent.json");
  EXPECT_EQ(errorText(readTargetParams(Missing)),
            "'" + Missing + "': cannot read: No such file or directory");
}

TEST_F(TargetParamsTest, LoadByProcessor) {
  {
    ScopedEnv E("ASMEVO_TIMING_PARAMS_DIR", "");
    EXPECT_EQ(targetParamsDir(), std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing");
    auto P = loadTargetParams("gfx942");
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(P->computeUnits(), 304);
  }
  // The environment names another directory: only its files count.
  for (const char *T : {"gfx90a", "gfx942", "gfx950"})
    write(std::string(T) + ".json", shippedJson(T).dump(2));
  write("notes.txt", "not a target\n");
  ScopedEnv E("ASMEVO_TIMING_PARAMS_DIR", Dir->path().c_str());
  EXPECT_EQ(targetParamsDir(), Dir->path());
  auto P = loadTargetParams("gfx950");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Path, Dir->file("gfx950.json"));
  EXPECT_EQ(errorText(loadTargetParams("gfx1100")),
            "no timing parameters for gfx1100 (there are: gfx90a, gfx942, gfx950)");
  EXPECT_EQ(errorText(loadTargetParams("../gfx942")),
            "no timing parameters for ../gfx942 (there are: gfx90a, gfx942, gfx950)");
  // A file whose target is not its name is refused.
  write("gfx940.json", shippedJson("gfx942").dump(2));
  EXPECT_EQ(errorText(loadTargetParams("gfx940")),
            "'" + Dir->file("gfx940.json") + "': \"target\" is \"gfx942\", not \"gfx940\"");
  ScopedEnv Empty("ASMEVO_TIMING_PARAMS_DIR", Dir->file("nowhere").c_str());
  EXPECT_EQ(errorText(loadTargetParams("gfx942")),
            "no timing parameters for gfx942 (there are none in '" + Dir->file("nowhere") + "')");
}

} // namespace
