// The outcome vocabulary (support/Outcome.h), errors turned into outcomes, and the report
// envelope (support/Report.h), checked against the tables the headers and README.md document,
// written out here.
#include "support/Error.h"
#include "support/Outcome.h"
#include "support/Report.h"

#include <gtest/gtest.h>

#include <string>

using namespace asmevo;

namespace {

struct Row {
  Outcome O;
  const char *Name;
  int Exit;
};
// Outcome.h's table (interrupted: 128 + SIGINT when no signal was received).
const Row kTable[] = {
    {Outcome::Ok, "ok", 0},
    {Outcome::RoundTripDiffers, "roundtrip_differs", 1},
    {Outcome::AsmInvalid, "asm_invalid", 1},
    {Outcome::AbiInvalid, "abi_invalid", 1},
    {Outcome::Divergent, "divergent", 1},
    {Outcome::Unsafe, "unsafe", 1},
    {Outcome::Refused, "refused", 1},
    {Outcome::NotCovered, "not_covered", 1},
    {Outcome::InputError, "input_error", 2},
    {Outcome::RuntimeError, "runtime_error", 3},
    {Outcome::Interrupted, "interrupted", 130},
};

} // namespace

TEST(Outcome, NamesExitCodesAndParsingFollowTheTable) {
  for (const Row &R : kTable) {
    EXPECT_STREQ(outcomeName(R.O), R.Name);
    EXPECT_EQ(exitCode(R.O), R.Exit) << R.Name;
    ASSERT_TRUE(parseOutcome(R.Name).has_value()) << R.Name;
    EXPECT_EQ(*parseOutcome(R.Name), R.O) << R.Name;
    EXPECT_EQ(isCheckFailure(R.O), R.Exit == 1) << R.Name;
  }
  EXPECT_FALSE(parseOutcome("OK").has_value());
  EXPECT_FALSE(parseOutcome("").has_value());
  EXPECT_FALSE(parseOutcome("faster").has_value());
}

TEST(Outcome, ErrorsBecomeInputRuntimeOrInterruptedWithTheirPlace) {
  ErrorOutcome A = errorOutcome(fileError("k.hsaco", 0x1c, "bad ELF header"));
  EXPECT_EQ(A.O, Outcome::InputError);
  EXPECT_EQ(A.Message, "'k.hsaco'@0x1c: bad ELF header");
  ErrorOutcome B = errorOutcome(lineError("spec.json", 3, "not valid JSON"));
  EXPECT_EQ(B.O, Outcome::InputError);
  EXPECT_EQ(B.Message, "'spec.json':3: not valid JSON");
  ErrorOutcome C = errorOutcome(runtimeError("memory fault at 0x10"));
  EXPECT_EQ(C.O, Outcome::RuntimeError);
  EXPECT_EQ(C.Message, "memory fault at 0x10");
  ErrorOutcome D = errorOutcome(interruptedError("stopped by SIGINT"));
  EXPECT_EQ(D.O, Outcome::Interrupted);
  ErrorOutcome E = errorOutcome(withFile(makeError("no kernel named 'add'"), "k.hsaco"));
  EXPECT_EQ(E.O, Outcome::InputError);
  EXPECT_EQ(E.Message, "'k.hsaco': no kernel named 'add'");
  // An error from elsewhere (LLVM's) is an input error with its own message.
  ErrorOutcome F = errorOutcome(
      llvm::make_error<llvm::StringError>("truncated", llvm::inconvertibleErrorCode()));
  EXPECT_EQ(F.O, Outcome::InputError);
  EXPECT_EQ(F.Message, "truncated");
}

TEST(Report, TheEnvelopeHasEveryKeyOfTheSchema) {
  Report R;
  R.Tool = "kernel-run";
  R.Message = "ran";
  R.Notes = {"one"};
  R.Inputs = {reportInput("input", "k.hsaco", "abc")};
  R.Seeds = {1, 2};
  R.Body = {{"kernels", 1}};
  const nlohmann::json J = R.json();
  EXPECT_EQ(J["format"], "asmevo-report");
  EXPECT_EQ(J["format_version"], 1);
  EXPECT_EQ(J["tool"], "kernel-run");
  EXPECT_TRUE(J["tool_version"].is_string());
  EXPECT_TRUE(J["llvm_version"].is_string());
  EXPECT_TRUE(J["backend"].is_null()); // no code ran
  EXPECT_EQ(J["seeds"], nlohmann::json({1, 2}));
  ASSERT_EQ(J["inputs"].size(), 1u);
  EXPECT_EQ(J["inputs"][0]["role"], "input");
  EXPECT_EQ(J["inputs"][0]["path"], "k.hsaco");
  // SHA-256("abc"), FIPS 180-2's example.
  EXPECT_EQ(J["inputs"][0]["sha256"],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(J["outcome"], "ok");
  EXPECT_EQ(J["exit_code"], 0);
  EXPECT_EQ(J["message"], "ran");
  EXPECT_EQ(J["notes"], nlohmann::json({"one"}));
  EXPECT_EQ(J["body"]["kernels"], 1);
  EXPECT_EQ(J.size(), 13u) << J.dump();
  R.Backend = "emu";
  EXPECT_EQ(R.json()["backend"], "emu");
}

TEST(Report, FailSetsTheOutcomeTheExitCodeAndTheMessage) {
  Report R;
  R.Tool = "kernel-time";
  R.fail(runtimeError("unsupported instruction v_foo at pc 0x100"));
  EXPECT_EQ(R.Result, Outcome::RuntimeError);
  EXPECT_EQ(R.exitCode(), 3);
  EXPECT_EQ(R.json()["outcome"], "runtime_error");
  EXPECT_EQ(R.json()["exit_code"], 3);
  EXPECT_EQ(R.Message, "unsupported instruction v_foo at pc 0x100");
  R.fail(fileError("spec.json", 0, "empty"));
  EXPECT_EQ(R.exitCode(), 2);
  EXPECT_EQ(R.Message, "'spec.json'@0x0: empty");
}
