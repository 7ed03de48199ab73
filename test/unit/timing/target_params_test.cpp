// The timing parameter files: the three shipped ones read and carry known figures, each with a
// source; broken files are refused with messages that name the file and the figure.
#include "timing/TargetParams.h"

#include "TestHelpers.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>
#include <set>
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
            "'" + P +
                "': figure 'l2_bytes' is \"4 MiB\"; it must be a whole number from 65536 to "
                "1073741824 (bytes)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"]["value"] = nullptr; }),
            "'" + P +
                "': figure 'l2_bytes' is null; it must be a whole number from 65536 to "
                "1073741824 (bytes)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"].erase("value"); }),
            "'" + P + "': figure 'l2_bytes' has no value");
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
            "'" + P +
                "': figure 'l2_bytes' is 0; it must be a whole number from 65536 to 1073741824 "
                "(bytes)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["compute_units"]["value"] = 0; }),
            "'" + P +
                "': figure 'compute_units' is 0; it must be a whole number from 1 to 1024 "
                "(count)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["hbm_latency_clk"]["value"] = -1; }),
            "'" + P +
                "': figure 'hbm_latency_clk' is -1; it must be a number from 0 to 20000 "
                "(clk)");
  // A latency may be 0; an Infinity Cache with no bandwidth may not.
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["branch_taken_clk"]["value"] = 0;
              J["figures"]["branch_taken_clk"]["range"] = {0, 40};
            }),
            "(read)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["mall_bytes_per_clk"]["value"] = 0; }),
            "'" + P + "': figure 'mall_bytes_per_clk' must be more than 0 (mall_bytes is not 0)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              for (const char *F : {"mall_bytes", "mall_bytes_per_clk"}) {
                J["figures"][F]["value"] = 0;
                J["figures"][F]["range"] = {0, 0};
              }
            }),
            "(read)");
}

TEST_F(TargetParamsTest, AbsurdFiguresNameTheValueAndTheRange) {
  const std::string P = edited();
  auto Set = [&](const char *Name, nlohmann::json V) {
    return readEdited([&](nlohmann::json &J) {
      J["figures"][Name]["value"] = V;
      J["figures"][Name]["range"] = {V, V};
    });
  };
  EXPECT_EQ(Set("compute_units", 1e12),
            "'" + P +
                "': figure 'compute_units' is 1000000000000; it must be a whole number from 1 to "
                "1024 (count)");
  EXPECT_EQ(Set("clock_mhz", 1e308),
            "'" + P +
                "': figure 'clock_mhz' is 1e+308; it must be a number from 100 to 5000 (MHz)");
  EXPECT_EQ(Set("l1_line_bytes", 3),
            "'" + P +
                "': figure 'l1_line_bytes' is 3; it must be a power of two from 16 to 1024 "
                "(bytes)");
  EXPECT_EQ(Set("l2_line_bytes", 96),
            "'" + P +
                "': figure 'l2_line_bytes' is 96; it must be a power of two from 16 to "
                "1024 (bytes)");
  // A fraction where a count is meant.
  EXPECT_EQ(Set("simds_per_cu", 3.5),
            "'" + P +
                "': figure 'simds_per_cu' is 3.5; it must be a whole number from 1 to 8 "
                "(count)");
  EXPECT_EQ(Set("hbm_efficiency", 77.5),
            "'" + P +
                "': figure 'hbm_efficiency' is 77.5; it must be a number from 0.01 to 1 "
                "(fraction)");
  // The edges of a range are in it.
  EXPECT_EQ(Set("compute_units", 1024), "(read)");
  EXPECT_EQ(Set("hbm_efficiency", 0.01), "(read)");
}

TEST_F(TargetParamsTest, WrongUnitOrUnknownKey) {
  const std::string P = edited();
  // 2.1 GHz is the right clock in the wrong unit: the unit is what the message names.
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["clock_mhz"]["value"] = 2.1;
              J["figures"]["clock_mhz"]["unit"] = "GHz";
            }),
            "'" + P + "': figure 'clock_mhz' is in \"GHz\"; it must be in \"MHz\"");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["clock_mhz"].erase("unit"); }),
            "'" + P + "': figure 'clock_mhz' has no unit (it is in \"MHz\")");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_bytes"]["low"] = 1; }),
            "'" + P +
                "': figure 'l2_bytes' has an unknown key 'low' (value, unit, source, range, "
                "range_source)");
}

TEST_F(TargetParamsTest, FiguresThatDisagree) {
  const std::string P = edited();
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["compute_units"]["value"] = 4; }),
            "'" + P + "': figure 'l2_instances' is 8, more than compute_units (4)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["l1_bytes"]["value"] = 1024;
              J["figures"]["l1_ways"]["value"] = 16;
            }),
            "'" + P +
                "': figure 'l1_bytes' is 1024, less than one line per way (l1_line_bytes 128 x "
                "l1_ways 16 = 2048)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["scalar_cache_bytes"]["value"] = 256;
              J["figures"]["scalar_cache_line_bytes"]["value"] = 128;
            }),
            "'" + P +
                "': figure 'scalar_cache_bytes' is 256, less than one line per way "
                "(scalar_cache_line_bytes 128 x 4 ways (the model's) = 512)");
}

TEST_F(TargetParamsTest, ByteOrderMarkIsSkipped) {
  auto B = readFile(shipped("gfx942"));
  ASSERT_TRUE(bool(B));
  std::string P = write("bom.json", "\xEF\xBB\xBF" + (*B)->getBuffer().str());
  auto T = readTargetParams(P);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(T->computeUnits(), 304);
  // Only a whole mark: two of its bytes are not one.
  std::string Q = write("half.json", "\xEF\xBB" + (*B)->getBuffer().str());
  EXPECT_EQ(errorText(readTargetParams(Q)),
            "'" + Q +
                "'@0x2: not valid JSON: parse error at line 1, column 3: syntax error while "
                "parsing value - invalid BOM; must be 0xEF 0xBB 0xBF if given; last read: "
                "'\\xEF\\xBB{'");
}

TEST(FigureTable, EveryFigureHasAUnitAndARange) {
  std::set<std::string> Names;
  for (const FigureDef &D : kFigures) {
    EXPECT_TRUE(Names.insert(D.Name).second) << D.Name;
    EXPECT_NE(std::string(D.Unit), "") << D.Name;
    EXPECT_LE(D.Min, D.Max) << D.Name;
    EXPECT_GE(D.Min, 0) << D.Name;
  }
  EXPECT_EQ(kFigureNames.size(), kFigures.size());
}

TEST_F(TargetParamsTest, NotATimingParameterFile) {
  const std::string P = edited();
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["format"] = "asmevo-launch-spec"; }),
            "'" + P + "': not a timing parameter file (format is not asmevo-timing-params)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J = nlohmann::json::array(); }),
            "'" + P + "': not a timing parameter file (format is not asmevo-timing-params)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["format_version"] = 3; }),
            "'" + P + "': \"format_version\" is 3; this tool reads 2");
  // Version 1 files have no ranges: the message says what to add.
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["format_version"] = 1; }),
            "'" + P +
                "': \"format_version\" is 1; this tool reads 2 (version 1 gives no ranges: add "
                "\"range\" and \"range_source\" to every figure, as "
                "share/asmevo/timing/README.md says)");
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

TEST_F(TargetParamsTest, ShippedRangesHoldTheValueAndAreLabelled) {
  for (const char *T : {"gfx90a", "gfx942", "gfx950"}) {
    auto P = readTargetParams(shipped(T));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    unsigned Ranged = 0;
    for (const FigureDef &D : kFigures) {
      const Figure &F = P->Figures.at(D.Name);
      EXPECT_LE(F.Low, F.Value) << T << " " << D.Name;
      EXPECT_GE(F.High, F.Value) << T << " " << D.Name;
      EXPECT_FALSE(F.RangeSource.empty()) << T << " " << D.Name;
      if (mustBeExact(D)) {
        EXPECT_TRUE(F.exact()) << T << " " << D.Name;
      }
      Ranged += !F.exact();
      llvm::StringRef S(F.RangeSource);
      EXPECT_TRUE(S.starts_with(F.exact() ? "exact:" : "sources:") || S.starts_with("assumed:"))
          << T << " " << D.Name << ": " << F.RangeSource;
    }
    EXPECT_GE(Ranged, 10u) << T; // latencies, bandwidths, efficiency, clock, launch overhead
  }
  // Documented facts are exact; the clock under load and the L2 latency have source spreads.
  auto P = readTargetParams(shipped("gfx942"));
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE(P->Figures.at("compute_units").exact());
  EXPECT_TRUE(P->Figures.at("l2_line_bytes").exact());
  // The boost clock is exact; the clock under MFMA load carries the spread of its sources.
  EXPECT_TRUE(P->Figures.at("clock_mhz").exact());
  EXPECT_EQ(P->Figures.at("mfma_clock_mhz").Low, 1067);
  EXPECT_EQ(P->Figures.at("mfma_clock_mhz").High, 1230);
  EXPECT_EQ(P->Figures.at("l2_latency_clk").Low, 213);
  EXPECT_EQ(P->Figures.at("l2_latency_clk").High, 254);
}

TEST_F(TargetParamsTest, BadRangesNameTheFigureAndTheValues) {
  const std::string P = edited();
  auto Range = [&](const char *Name, nlohmann::json R) {
    return readEdited([&](nlohmann::json &J) { J["figures"][Name]["range"] = R; });
  };
  EXPECT_EQ(Range("l2_latency_clk", {254, 213}),
            "'" + P +
                "': figure 'l2_latency_clk' has range [254, 213]: its low is more than its high");
  EXPECT_EQ(Range("l2_latency_clk", {100, 20000}),
            "'" + P +
                "': figure 'l2_latency_clk' has range [100, 20000]; it must lie within 0 to 10000 "
                "(clk)");
  EXPECT_EQ(Range("hbm_efficiency", {0.5, 1.5}),
            "'" + P +
                "': figure 'hbm_efficiency' has range [0.5, 1.5]; it must lie within 0.01 to 1 "
                "(fraction)");
  EXPECT_EQ(Range("l2_latency_clk", {240, 300}),
            "'" + P + "': figure 'l2_latency_clk' is 230, outside its range [240, 300]");
  EXPECT_EQ(Range("compute_units", {300, 310}),
            "'" + P +
                "': figure 'compute_units' has range [300, 310]; it must be exact ([304, 304]): a "
                "count or size is held fixed, since the model's occupancy, sampling and cache "
                "shapes depend on it");
  EXPECT_EQ(Range("l2_latency_clk", {213}),
            "'" + P +
                "': figure 'l2_latency_clk' has range [213]; it must be [low, high], two "
                "numbers");
  EXPECT_EQ(Range("l2_latency_clk", "213-254"),
            "'" + P +
                "': figure 'l2_latency_clk' has range \"213-254\"; it must be [low, high], "
                "two numbers");
  EXPECT_EQ(Range("mall_bytes_per_clk", {0, 8192}),
            "'" + P +
                "': figure 'mall_bytes_per_clk' has range [0, 8192]: its low must be more "
                "than 0 (mall_bytes is not 0)");
  EXPECT_EQ(readEdited([](nlohmann::json &J) { J["figures"]["l2_latency_clk"].erase("range"); }),
            "'" + P + "': figure 'l2_latency_clk' has no range (\"range\": [low, high])");
  EXPECT_EQ(
      readEdited([](nlohmann::json &J) { J["figures"]["l2_latency_clk"].erase("range_source"); }),
      "'" + P + "': figure 'l2_latency_clk' has no range_source");
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["l2_latency_clk"]["range_source"] = "a guess";
            }),
            "'" + P +
                "': figure 'l2_latency_clk' has range_source \"a guess\"; it must start with "
                "\"exact:\", \"sources:\" or \"assumed:\"");
  EXPECT_EQ(readEdited([](nlohmann::json &J) {
              J["figures"]["l2_latency_clk"]["range_source"] = "exact: trust me";
            }),
            "'" + P +
                "': figure 'l2_latency_clk' has range [213, 254], but its range_source says it "
                "is exact");
  // A point range on an uncertain figure is allowed (sources that agree); the edges hold.
  EXPECT_EQ(Range("l2_latency_clk", {230, 230}), "(read)");
  EXPECT_EQ(Range("l2_latency_clk", {0, 10000}), "(read)");
  auto T = readTargetParams(edited());
  ASSERT_TRUE(bool(T));
  EXPECT_EQ(T->Figures.at("l2_latency_clk").Low, 0);
  EXPECT_EQ(T->Figures.at("l2_latency_clk").High, 10000);
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
  write("agreement.json", "{}"); // the model agreement file (ModelAgreement.h): not a target
  ScopedEnv E("ASMEVO_TIMING_PARAMS_DIR", Dir->path().c_str());
  EXPECT_EQ(targetParamsDir(), Dir->path());
  auto P = loadTargetParams("gfx950");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Path, Dir->file("gfx950.json"));
  EXPECT_EQ(errorText(loadTargetParams("gfx1100")),
            "no timing parameters for gfx1100 (there are: gfx90a, gfx942, gfx950)");
  EXPECT_EQ(errorText(loadTargetParams("../gfx942")),
            "no timing parameters for ../gfx942 (there are: gfx90a, gfx942, gfx950)");
  EXPECT_EQ(errorText(loadTargetParams("agreement")),
            "no timing parameters for agreement (there are: gfx90a, gfx942, gfx950)");
  // A file whose target is not its name is refused.
  write("gfx940.json", shippedJson("gfx942").dump(2));
  EXPECT_EQ(errorText(loadTargetParams("gfx940")),
            "'" + Dir->file("gfx940.json") + "': \"target\" is \"gfx942\", not \"gfx940\"");
  ScopedEnv Empty("ASMEVO_TIMING_PARAMS_DIR", Dir->file("nowhere").c_str());
  EXPECT_EQ(errorText(loadTargetParams("gfx942")),
            "no timing parameters for gfx942 (there are none in '" + Dir->file("nowhere") + "')");
}

} // namespace
