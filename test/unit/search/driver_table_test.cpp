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
  EXPECT_EQ(driverNames(), "rules (default), stochastic, exec:CMD or llm");
  std::string H = driverHelp();
  EXPECT_EQ(H.rfind("Who proposes edits: rules (default), stochastic, exec:CMD or llm. ", 0), 0u)
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
  for (const char *Spec : {"rules", "stochastic", "exec:cat"}) {
    auto D = makeDriver(Spec, O);
    ASSERT_TRUE(bool(D)) << Spec << ": " << llvm::toString(D.takeError());
    EXPECT_EQ((*D)->name(), std::string(Spec));
  }
}

TEST(DriverTable, UnknownNamesAndAnEmptyCommandAreRefused) {
  EXPECT_EQ(errorOf("gpt"), "--driver 'gpt': unknown driver (rules, stochastic, exec:CMD, llm)");
  EXPECT_EQ(errorOf("rules2"),
            "--driver 'rules2': unknown driver (rules, stochastic, exec:CMD, llm)");
  EXPECT_EQ(errorOf("exec:"), "--driver exec: needs a command (exec:CMD)");
  EXPECT_EQ(errorOf("exec:   "), "--driver exec: needs a command (exec:CMD)");
  // llm is made by its own factory: without an endpoint it fails there, not as unknown.
  std::string L = errorOf("llm");
  EXPECT_EQ(L.find("unknown driver"), std::string::npos) << L;
}

} // namespace
