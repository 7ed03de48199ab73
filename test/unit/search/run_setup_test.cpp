// What a search run starts from (search/RunSetup.h): K0 and the launches resolved into the run's
// identity, and the refusals made before a run directory is touched, on a corpus kernel.
#include "search/RunSetup.h"

#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;

namespace {

const std::string kSource = ASMEVO_SOURCE_DIR;
const std::string kK0 = kSource + "/test/corpus/triton/gfx942/vector_add_fp32.hsaco";

// A complete spec of the corpus vector add (sizes and roles given: nothing left to infer).
std::string writeSpec(const std::string &Name, unsigned Groups) {
  std::string N = std::to_string(Groups * 1024);
  std::string Path = testing::TempDir() + "/" + Name;
  std::string Text = "{\"kernel\": \"add_kernel\", \"grid\": [" + std::to_string(Groups) +
                     ", 1, 1], \"block\": [256, 1, 1], \"dynamic_lds\": 0, \"args\": ["
                     "{\"arg\": \"#0\", \"type\": \"f32\", \"elements\": " +
                     N +
                     ", \"role\": \"in\"}, {\"arg\": \"#1\", \"type\": \"f32\", "
                     "\"elements\": " +
                     N +
                     ", \"role\": \"in\"}, {\"arg\": \"#2\", "
                     "\"type\": \"f32\", \"elements\": " +
                     N +
                     ", \"role\": \"out\"}, "
                     "{\"arg\": \"#3\", \"value\": " +
                     N +
                     "}, {\"arg\": \"#4\", "
                     "\"value\": \"null\"}, {\"arg\": \"#5\", \"value\": \"null\"}]}\n";
  if (llvm::Error E = writeFileAtomic(Path, Text))
    ADD_FAILURE() << llvm::toString(std::move(E));
  return Path;
}

std::string fileSha(const std::string &Path) {
  auto B = readFile(Path);
  EXPECT_TRUE(bool(B)) << Path;
  return B ? sha256Hex((*B)->getBuffer()) : "";
}

AgentOptions options() {
  AgentOptions O;
  O.K0 = kK0;
  O.Spec = writeSpec("run_setup_spec.json", 2);
  O.RunDir = testing::TempDir() + "/run_setup_never_made";
  return O;
}

} // namespace

TEST(RunSetup, K0AndTheSpecMakeTheRunsIdentity) {
  AgentOptions O = options();
  std::vector<ReportInput> Inputs;
  auto Run = startRun(O, Inputs);
  ASSERT_TRUE(bool(Run)) << llvm::toString(Run.takeError());
  EXPECT_EQ(Run->K0Sha256, fileSha(kK0));
  EXPECT_EQ(Run->Id.K0Sha256, Run->K0Sha256);
  EXPECT_EQ(Run->Id.K0Path, kK0);
  EXPECT_EQ(Run->Id.Target, "gfx942");
  EXPECT_EQ(Run->Kernel, "add_kernel");
  EXPECT_EQ(Run->Id.Kernel, "add_kernel");
  EXPECT_EQ(Run->Id.SpecSha256.size(), 64u);
  EXPECT_TRUE(Run->Changed.empty());
  ASSERT_EQ(Inputs.size(), 2u);
  EXPECT_EQ(Inputs[0].Role, "k0");
  EXPECT_EQ(Inputs[0].Sha256, Run->K0Sha256);
  EXPECT_EQ(Inputs[1].Role, "spec");
  EXPECT_EQ(Inputs[1].Path, O.Spec);
  // A timing spec changes the launch set, so the identity: a run timed elsewhere is another run.
  AgentOptions T = options();
  T.Eval.TimeSpec = writeSpec("run_setup_time_spec.json", 8);
  std::vector<ReportInput> TInputs;
  auto Timed = startRun(T, TInputs);
  ASSERT_TRUE(bool(Timed)) << llvm::toString(Timed.takeError());
  EXPECT_NE(Timed->Id.SpecSha256, Run->Id.SpecSha256);
  ASSERT_EQ(TInputs.size(), 3u);
  EXPECT_EQ(TInputs[2].Role, "time_spec");
  // Nothing was written: the run directory is not made here.
  EXPECT_FALSE(llvm::sys::fs::exists(O.RunDir));
}

TEST(RunSetup, RefusalsComeBeforeTheRunDirectory) {
  std::vector<ReportInput> Inputs;
  AgentOptions O = options();
  O.Eval.TimeSpec = writeSpec("run_setup_time_spec.json", 8);
  O.Eval.Captures = {"/nonexistent/capture.msgpack"};
  auto Run = startRun(O, Inputs);
  ASSERT_FALSE(bool(Run));
  EXPECT_EQ(llvm::toString(Run.takeError()),
            "--time-spec and --capture: the captures are the timing launch; give one or the other");
  // The inputs read before the refusal are kept for the report.
  ASSERT_EQ(Inputs.size(), 2u);
  EXPECT_EQ(Inputs[1].Role, "spec");

  Inputs.clear();
  O = options();
  O.Eval.Types = "0:f32";
  Run = startRun(O, Inputs);
  ASSERT_FALSE(bool(Run));
  EXPECT_EQ(llvm::toString(Run.takeError()),
            "--types is for --capture (a spec types its arguments itself)");

  Inputs.clear();
  O = options();
  O.K0 = kSource + "/test/corpus/triton/gfx942/no_such_kernel.hsaco";
  Run = startRun(O, Inputs);
  ASSERT_FALSE(bool(Run));
  EXPECT_NE(llvm::toString(Run.takeError()).find("no_such_kernel.hsaco"), std::string::npos);
  EXPECT_TRUE(Inputs.empty());

  // --resume of a directory that holds no run.
  O = options();
  O.Resume = true;
  O.RunDir = testing::TempDir() + "/run_setup_empty";
  ASSERT_FALSE(llvm::sys::fs::create_directories(O.RunDir));
  Run = startRun(O, Inputs);
  ASSERT_FALSE(bool(Run));
  EXPECT_NE(llvm::toString(Run.takeError()).find("run_setup_empty"), std::string::npos);
}
