// The driver table (search/Driver.cpp): --driver's names, its help and makeDriver come from one
// list, so a driver cannot be made without being described, nor described without being made.
#include "search/Agent.h"
#include "search/Driver.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;

namespace {

std::string errorOf(const std::string &Spec) {
  DriverOptions O;
  auto D = makeDriver(Spec, O);
  if (D)
    return "";
  return llvm::toString(D.takeError());
}

TEST(DriverTable, NamesHelpAndDefault) {
  EXPECT_EQ(driverNames(), "rules (default), waits, sched, pipeline, stochastic, exec:CMD or llm");
  std::string H = driverHelp();
  EXPECT_EQ(
      H.rfind(
          "Who proposes edits: rules (default), waits, sched, pipeline, stochastic, exec:CMD or "
          "llm, or "
          "several, comma-separated (rules,waits), proposing in turn. ",
          0),
      0u)
      << H;
  for (const DriverKind &K : driverKinds()) {
    std::string Spelling = std::string(K.Name) + (K.Argument ? K.Argument : "");
    EXPECT_NE(H.find(Spelling + ": " + K.Help), std::string::npos) << Spelling;
  }
}

// The table's first row is the one the help calls the default: the search's own default.
TEST(DriverTable, TheFirstRowIsTheSearchsDefault) {
  EXPECT_EQ(std::string(driverKinds().front().Name), AgentOptions().Driver);
}

TEST(DriverTable, EveryDriverWithoutSetUpIsMadeUnderItsName) {
  DriverOptions O;
  for (const char *Spec : {"rules", "waits", "sched", "pipeline", "stochastic", "exec:cat"}) {
    auto D = makeDriver(Spec, O);
    ASSERT_TRUE(bool(D)) << Spec << ": " << llvm::toString(D.takeError());
    EXPECT_EQ((*D)->name(), std::string(Spec));
  }
}

TEST(DriverTable, UnknownNamesAndAnEmptyCommandAreRefused) {
  EXPECT_EQ(errorOf("gpt"),
            "--driver 'gpt': unknown driver (rules, waits, sched, pipeline, stochastic, "
            "exec:CMD, llm)");
  EXPECT_EQ(errorOf("rules2"),
            "--driver 'rules2': unknown driver (rules, waits, sched, pipeline, stochastic, "
            "exec:CMD, llm)");
  EXPECT_EQ(errorOf("exec:"), "--driver exec: needs a command (exec:CMD)");
  EXPECT_EQ(errorOf("exec:   "), "--driver exec: needs a command (exec:CMD)");
  // llm is made by its own factory: without an endpoint it fails there, not as unknown.
  std::string L = errorOf("llm");
  EXPECT_EQ(L.find("unknown driver"), std::string::npos) << L;
}

// A list is one driver: split at commas, except inside exec:'s command, which takes the rest.
TEST(DriverTable, AListOfDriversIsOneDriver) {
  EXPECT_EQ(driverList("rules,waits"), (std::vector<std::string>{"rules", "waits"}));
  EXPECT_EQ(driverList("waits,exec:cut -d, -f1"),
            (std::vector<std::string>{"waits", "exec:cut -d, -f1"}));
  EXPECT_EQ(driverList("exec:a,b"), (std::vector<std::string>{"exec:a,b"}));
  EXPECT_TRUE(listsDriver("rules,llm", "llm"));
  EXPECT_FALSE(listsDriver("rules,waits", "llm"));
  EXPECT_FALSE(listsDriver("llmx", "llm"));
  EXPECT_TRUE(listsDriver("waits,exec:cat", "exec:"));
  EXPECT_FALSE(listsDriver("rules", "exec:"));
  DriverOptions O;
  auto D = makeDriver("rules,waits,exec:cat", O);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ((*D)->name(), "rules,waits,exec:cat");
  EXPECT_EQ(errorOf("rules,rules"), "--driver 'rules,rules': 'rules' is listed twice");
  EXPECT_EQ(errorOf("rules,gpt"),
            "--driver 'gpt': unknown driver (rules, waits, sched, pipeline, stochastic, "
            "exec:CMD, llm)");
}

} // namespace
