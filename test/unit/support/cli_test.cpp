// support/Cli: the command-line layer every tool shares: parsing with the suite's own usage
// messages, the shared option groups and their checks, the dimension and seed lists, and the
// rendering of errors (text on stderr, the envelope on stdout with --json) with their exit codes.
#include "support/Cli.h"

#include "support/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace asmevo;

namespace {

// What one parse (and an optional step after it) printed and returned.
struct Printed {
  int Code = 0;
  std::string Out, Err;
};

template <typename F> Printed capture(F &&Step) {
  Printed R;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  R.Code = Step();
  llvm::outs().flush();
  llvm::errs().flush();
  R.Out = testing::internal::GetCapturedStdout();
  R.Err = testing::internal::GetCapturedStderr();
  return R;
}

// A tool with the JSON option, the device group and the launch group with geometry.
Cli tool() {
  Cli C("demo-tool", "do a demonstration", "IN");
  C.addJsonOption();
  C.addDeviceOptions("emu or hip", "Stop after SECONDS");
  C.addLaunchOptions(/*Geometry=*/true);
  C.options().add_options("positional")("input", "", cxxopts::value<std::vector<std::string>>());
  C.options().parse_positional({"input"});
  C.options().add_options()("count", "A count", cxxopts::value<unsigned>(), "N")("flag", "A flag");
  return C;
}

int parse(Cli &C, std::vector<const char *> Args) {
  Args.insert(Args.begin(), "demo-tool");
  return C.parse(int(Args.size()), Args.data());
}

const char *const kHint = "Try 'demo-tool --help' for more information.\n";

TEST(Cli, UsageErrorsAreInTheSuitesWords) {
  struct Case {
    std::vector<const char *> Args;
    std::string Message;
  } Cases[] = {
      {{"--foo"}, "unknown option '--foo'"},
      {{"--count"}, "option '--count' needs a value"},
      {{"--flag=maybe"}, "option '--flag': 'maybe' is not a valid value"},
      {{"--count", "x"}, "option '--count': 'x' is not a valid value"},
      {{"--count=x"}, "option '--count': 'x' is not a valid value"},
  };
  for (const Case &K : Cases) {
    Cli C = tool();
    Printed R = capture([&] { return parse(C, K.Args); });
    EXPECT_EQ(R.Code, 2) << K.Message;
    EXPECT_EQ(R.Err, "demo-tool: error: " + K.Message + "\n" + kHint);
    EXPECT_EQ(R.Out, "");
  }
}

TEST(Cli, AUsageErrorWithJsonIsAlsoAnEnvelope) {
  Cli C = tool();
  Printed R = capture([&] { return parse(C, {"--json", "--foo"}); });
  EXPECT_EQ(R.Code, 2);
  EXPECT_EQ(R.Err, std::string("demo-tool: error: unknown option '--foo'\n") + kHint);
  auto J = nlohmann::json::parse(R.Out);
  EXPECT_EQ(J["tool"], "demo-tool");
  EXPECT_EQ(J["outcome"], "input_error");
  EXPECT_EQ(J["exit_code"], 2);
  EXPECT_EQ(J["message"], "unknown option '--foo'");
}

TEST(Cli, HelpAndVersionEndTheRunWithZero) {
  Cli C = tool();
  Printed H = capture([&] { return parse(C, {"--help"}); });
  EXPECT_EQ(H.Code, 0);
  EXPECT_EQ(H.Out.rfind("demo-tool - do a demonstration\nUsage:\n  demo-tool [OPTION...] IN\n", 0),
            0u)
      << H.Out;
  for (const char *Opt : {"--json", "--backend NAME", "--threads N", "--timeout SECONDS",
                          "--kernel NAME", "--grid X[,Y[,Z]]", "--dynamic-lds BYTES"})
    EXPECT_NE(H.Out.find(Opt), std::string::npos) << Opt;
  Cli V = tool();
  Printed R = capture([&] { return parse(V, {"--version"}); });
  EXPECT_EQ(R.Code, 0);
  EXPECT_EQ(R.Out, versionString("demo-tool") + "\n");
  EXPECT_EQ(R.Out.rfind("demo-tool (AsmEvo) ", 0), 0u);
}

TEST(Cli, TheCommonOptionsAreRead) {
  Cli C = tool();
  EXPECT_EQ(parse(C, {"-q", "--json", "in.hsaco"}), -1);
  EXPECT_TRUE(C.common().Quiet);
  EXPECT_TRUE(C.common().Json);
  EXPECT_FALSE(C.common().Verbose);
  EXPECT_EQ(C.common().Output, "-");
}

TEST(Cli, TheDeviceGroupChecksItsTimeout) {
  Cli C = tool();
  ASSERT_EQ(parse(C, {"--backend", "hip", "--threads", "3", "--timeout", "2.5"}), -1);
  DeviceOptions D;
  EXPECT_EQ(C.deviceOptions(D), -1);
  EXPECT_EQ(D.Backend, "hip");
  EXPECT_EQ(D.Threads, 3u);
  EXPECT_EQ(D.TimeoutSeconds, 2.5);

  Cli Z = tool();
  ASSERT_EQ(parse(Z, {"--timeout", "0"}), -1);
  DeviceOptions DZ;
  Printed R = capture([&] { return Z.deviceOptions(DZ); });
  EXPECT_EQ(R.Code, 2);
  EXPECT_EQ(R.Err, std::string("demo-tool: error: --timeout must be a positive number of "
                               "seconds\n") +
                       kHint);
}

TEST(Cli, TheLaunchGroupReadsDimensionsAndRefusesBothGrids) {
  Cli C = tool();
  ASSERT_EQ(parse(C, {"--kernel", "k", "--grid", "4,2", "--block", "64", "--dynamic-lds", "512"}),
            -1);
  LaunchOptions L;
  EXPECT_EQ(C.launchOptions(L), -1);
  EXPECT_EQ(L.Kernel, "k");
  EXPECT_EQ(L.Grid, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(L.Block, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(L.GridItems, (std::array<uint32_t, 3>{0, 0, 0}));
  EXPECT_EQ(L.DynamicLds, 512u);

  Cli B = tool();
  ASSERT_EQ(parse(B, {"--grid", "4", "--grid-items", "256"}), -1);
  LaunchOptions LB;
  Printed R = capture([&] { return B.launchOptions(LB); });
  EXPECT_EQ(R.Code, 2);
  EXPECT_EQ(R.Err,
            std::string("demo-tool: error: give --grid or --grid-items, not both\n") + kHint);

  Cli Bad = tool();
  ASSERT_EQ(parse(Bad, {"--block", "0,4"}), -1);
  LaunchOptions LBad;
  Printed RB = capture([&] { return Bad.launchOptions(LBad); });
  EXPECT_EQ(RB.Code, 2);
  EXPECT_EQ(RB.Err, "demo-tool: error: --block '0,4': expected X[,Y[,Z]] with positive numbers\n");
}

TEST(Cli, DimensionLists) {
  auto D = parseDims("7,0x10,3", "--grid");
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ(*D, (std::array<uint32_t, 3>{7, 16, 3}));
  struct Bad {
    const char *Text, *Message;
  } Cases[] = {
      {"", "--grid '': expected X[,Y[,Z]] with positive numbers"},
      {"4,", "--grid '4,': expected X[,Y[,Z]] with positive numbers"},
      {"-1", "--grid '-1': expected X[,Y[,Z]] with positive numbers"},
      {"4294967296", "--grid '4294967296': expected X[,Y[,Z]] with positive numbers"},
      {"1,2,3,4", "--grid '1,2,3,4': more than three dimensions"},
  };
  for (const Bad &B : Cases) {
    auto E = parseDims(B.Text, "--grid");
    ASSERT_FALSE(bool(E)) << B.Text;
    EXPECT_EQ(llvm::toString(E.takeError()), B.Message);
  }
  auto Max = parseDims("4294967295", "--grid");
  ASSERT_TRUE(bool(Max));
  EXPECT_EQ((*Max)[0], 4294967295u);
}

TEST(Cli, SeedLists) {
  auto S = parseSeedList("3,0,18446744073709551615", "--seeds");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(*S, (std::vector<uint64_t>{3, 0, 18446744073709551615ull}));
  for (const char *Bad : {"", "1,,2", "-1", "0x10", "1 ", "18446744073709551616"}) {
    auto E = parseSeedList(Bad, "--seeds");
    ASSERT_FALSE(bool(E)) << Bad;
    EXPECT_EQ(llvm::toString(E.takeError()),
              std::string("--seeds '") + Bad + "': expected comma-separated non-negative integers");
  }
}

TEST(Cli, FailWritesTheErrorOnStderrAndTheEnvelopeWithJson) {
  Cli C = tool();
  ASSERT_EQ(parse(C, {}), -1);
  Report Rep = C.report();
  EXPECT_EQ(Rep.Tool, "demo-tool");
  Printed R = capture([&] { return C.fail(Rep, runtimeError("the device fell over")); });
  EXPECT_EQ(R.Code, 3);
  EXPECT_EQ(R.Err, "demo-tool: error: the device fell over\n");
  EXPECT_EQ(R.Out, "");
  EXPECT_EQ(Rep.Result, Outcome::RuntimeError);

  Cli J = tool();
  ASSERT_EQ(parse(J, {"--json"}), -1);
  Report RJ = J.report();
  Printed RI = capture([&] { return J.fail(RJ, Outcome::Interrupted, "stopped after 3 of 9"); });
  EXPECT_EQ(RI.Code, 130);
  EXPECT_EQ(RI.Err, "demo-tool: interrupted: stopped after 3 of 9\n");
  auto Env = nlohmann::json::parse(RI.Out);
  EXPECT_EQ(Env["outcome"], "interrupted");
  EXPECT_EQ(Env["exit_code"], 130);
  EXPECT_EQ(Env["message"], "stopped after 3 of 9");
}

TEST(Cli, AnAnswerIsTheMessageAndItsNotesOrTheEnvelope) {
  auto answer = [](std::vector<const char *> Args, bool ToStderr) {
    Cli C = tool();
    EXPECT_EQ(parse(C, Args), -1);
    Report R = C.report();
    R.Result = Outcome::Divergent;
    R.Message = "divergent: '#0' differs";
    R.Notes = {"seed 1: 3 elements"};
    return capture([&] { return C.printAnswer(R, ToStderr); });
  };
  Printed T = answer({}, false);
  EXPECT_EQ(T.Code, 1);
  EXPECT_EQ(T.Out, "demo-tool: divergent: '#0' differs\n  seed 1: 3 elements\n");
  EXPECT_EQ(T.Err, "");
  Printed Q = answer({"-q"}, true);
  EXPECT_EQ(Q.Out, "");
  EXPECT_EQ(Q.Err, "demo-tool: divergent: '#0' differs\n");
  Printed J = answer({"--json"}, true);
  EXPECT_EQ(J.Err, "");
  EXPECT_EQ(nlohmann::json::parse(J.Out)["outcome"], "divergent");
}

TEST(Cli, ErrorExitSendsWhatIsNotAnAnswerToStderr) {
  auto end = [](Outcome O, std::initializer_list<Outcome> Answers,
                std::vector<const char *> Args = {}) {
    Cli C = tool();
    EXPECT_EQ(parse(C, Args), -1);
    Report R; // a library's report, not yet the tool's
    R.Result = O;
    R.Message = "what happened";
    return capture([&] { return C.errorExit(R, Answers); });
  };
  // An input error is never an answer.
  Printed I = end(Outcome::InputError, {Outcome::RuntimeError, Outcome::Interrupted});
  EXPECT_EQ(I.Code, 2);
  EXPECT_EQ(I.Err, "demo-tool: error: what happened\n");
  EXPECT_EQ(I.Out, "");
  // A runtime error or an interrupt is one only where the tool says so.
  Printed E = end(Outcome::RuntimeError, {});
  EXPECT_EQ(E.Code, 3);
  EXPECT_EQ(E.Err, "demo-tool: error: what happened\n");
  Printed N = end(Outcome::Interrupted, {}, {"--json"});
  EXPECT_EQ(N.Code, 130);
  EXPECT_EQ(N.Err, "demo-tool: interrupted: what happened\n");
  EXPECT_EQ(nlohmann::json::parse(N.Out)["tool"], "demo-tool");
  for (Outcome O : {Outcome::RuntimeError, Outcome::Interrupted}) {
    Printed A = end(O, {Outcome::RuntimeError, Outcome::Interrupted});
    EXPECT_EQ(A.Code, -1) << outcomeName(O);
    EXPECT_EQ(A.Err, "");
    EXPECT_EQ(A.Out, "");
  }
  // Verdicts go on.
  for (Outcome O : {Outcome::Ok, Outcome::Divergent, Outcome::Unsafe}) {
    Printed V = end(O, {});
    EXPECT_EQ(V.Code, -1) << outcomeName(O);
    EXPECT_EQ(V.Err, "");
  }
}

TEST(Cli, ReportErrorSaysTheErrorAndGivesItsExitCode) {
  Printed R = capture([] { return reportError("demo-tool", makeError("'x.json': cannot read")); });
  EXPECT_EQ(R.Code, 2);
  EXPECT_EQ(R.Err, "demo-tool: error: 'x.json': cannot read\n");
}

TEST(Cli, NotesAndProgressFollowQuietAndVerbose) {
  Cli Q = tool();
  ASSERT_EQ(parse(Q, {"-q"}), -1);
  Printed RQ = capture([&] {
    Q.note("ignored");
    return 0;
  });
  EXPECT_EQ(RQ.Err, "");
  EXPECT_FALSE(bool(Q.progress()));

  Cli V = tool();
  ASSERT_EQ(parse(V, {"-v"}), -1);
  Printed RV = capture([&] {
    V.note("a note");
    V.progress()("a step");
    return 0;
  });
  EXPECT_EQ(RV.Err, "demo-tool: note: a note\ndemo-tool: a step\n");
}

} // namespace
