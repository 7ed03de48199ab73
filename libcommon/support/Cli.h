// The command-line layer every tool shares: common options (-o, -v, -q, --json, --help,
// --version), the option groups several tools share (device, launch), parsing with cxxopts,
// and rendering: errors on stderr, the report envelope (support/Report.h) on stdout. This is the
// one part of libcommon that prints; it is what a tool's main calls.
#pragma once

#include "support/Outcome.h"
#include "support/Report.h"

#include "llvm/Support/Error.h"

#include <cxxopts.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace asmevo {

// Exit codes, the same in every tool (support/Outcome.h maps every outcome to one).
enum ExitCode : int {
  ExitOk = 0,       // success
  ExitNegative = 1, // a check said no (round trip differs, divergent, slower)
  ExitInput = 2,    // usage, input or I/O error
  ExitRuntime = 3,  // device/runtime error
};

// The device group: --backend, --threads, --timeout.
struct DeviceOptions {
  std::string Backend = "emu";
  unsigned Threads = 0;      // host threads of the emulator (0: all cores)
  double TimeoutSeconds = 0; // host seconds of emulation per run (0: none)
};

// The launch group: --kernel, and with geometry --grid/--grid-items/--block/--dynamic-lds.
struct LaunchOptions {
  std::string Kernel;
  std::array<uint32_t, 3> Grid{0, 0, 0};      // workgroups (0: not given)
  std::array<uint32_t, 3> GridItems{0, 0, 0}; // work-items (0: not given)
  std::array<uint32_t, 3> Block{0, 0, 0};     // (0: not given)
  uint32_t DynamicLds = 0;
};

struct CommonOptions {
  std::string Output = "-";
  bool Verbose = false;
  bool Quiet = false;
  bool Json = false;
};

class Cli {
public:
  // Tool name, one-line purpose, positional help ("K.hsaco").
  Cli(std::string Tool, std::string Purpose, std::string PositionalHelp);

  cxxopts::Options &options() { return Opts; }
  // Adds --json (only for tools that report).
  void addJsonOption();
  // Adds -o/--output with a tool-specific description; DefaultStdout: without -o the output
  // goes to stdout (and --help says "default: -"), else -o is the tool's to require.
  void addOutputOption(const std::string &Help, bool DefaultStdout = true);

  // The shared option groups. BackendHelp completes "Execution backend: ...".
  void addDeviceOptions(const std::string &BackendHelp, const std::string &TimeoutHelp);
  void addLaunchOptions(bool Geometry);

  // Parse argv. Returns -1 when the tool should continue, otherwise the exit code to return
  // (after --help, --version or a usage error, which is reported on stderr).
  int parse(int Argc, const char *const *Argv);

  // The groups' values, after parse (usage errors are reported; -1 means go on).
  int deviceOptions(DeviceOptions &D) const;
  int launchOptions(LaunchOptions &L) const;

  const cxxopts::ParseResult &result() const { return Result; }
  const CommonOptions &common() const { return Common; }
  const std::string &tool() const { return Tool; }

  // Report a usage error ("<tool>: error: <msg>" + hint; with --json also the envelope with
  // outcome input_error on stdout) and return ExitInput.
  int usageError(const std::string &Msg) const;

  // A report for this tool, to fill in.
  Report report() const;
  // Report an error: "<tool>: error: <message>" on stderr and, with --json, R's envelope with
  // the error's outcome on stdout. Returns the exit code (2 or 3).
  int fail(Report &R, llvm::Error E) const;
  // The same for an error that is already a message.
  int fail(Report &R, Outcome O, const std::string &Message) const;
  // The one rule for where a tool's outcome goes. An outcome that is not an answer is an error:
  // input_error always; runtime_error and interrupted unless the tool lists them in Answers
  // because its answer can be one (kernel-diffcheck: a kernel that faults is its verdict;
  // asmevo-agent: an interrupted search still answers with its best). An error is reported as
  // fail() does ("<tool>: error: ..." or "<tool>: interrupted: ..." on stderr, with --json the
  // envelope on stdout) and its exit code returned; -1 for an answer, which the tool then gives
  // on stdout (printAnswer, printJson, or its own lines).
  int errorExit(Report &R, std::initializer_list<Outcome> Answers = {}) const;
  // Print R's envelope as JSON on stdout and return R's exit code.
  int printJson(const Report &R) const;
  // The tool's answer: with --json R's envelope on stdout, else "<tool>: <message>" and, unless
  // -q, each note indented, on stdout (stderr with ToStderr: kernel-diffcheck --infer, whose
  // stdout may be the spec). Returns R's exit code.
  int printAnswer(const Report &R, bool ToStderr = false) const;
  // "<tool>: <line>" on stderr, with -v; empty (no progress) without.
  std::function<void(const std::string &)> progress() const;
  // Whether a long run should show a progress line (support/ProgressLine.h): stderr is a
  // terminal and there is no -q.
  bool progressLineWanted() const;
  // Refuse Output (-o, --out, ...) before any work when it cannot be written or is one of
  // Inputs (support/OutputPath.h): reports the error and returns its exit code; -1: go on.
  int checkOutput(const std::string &Output, const std::vector<std::string> &Inputs) const;
  // "<tool>: note: <line>" on stderr, unless -q.
  void note(const std::string &Line) const;

private:
  std::string Tool;
  cxxopts::Options Opts;
  cxxopts::ParseResult Result;
  CommonOptions Common;
  bool HasJson = false;
  bool HasOutput = false;
  bool HasDevice = false, HasLaunch = false, HasGeometry = false;
};

// Parse "X[,Y[,Z]]" into three positive numbers (What names the option in the error).
llvm::Expected<std::array<uint32_t, 3>> parseDims(const std::string &Text, const std::string &What);
// Parse "N[,N...]" into non-negative integers (What names the option in the error).
llvm::Expected<std::vector<uint64_t>> parseSeedList(const std::string &Text,
                                                    const std::string &What);

// A cxxopts parse error in the suite's words: "unknown option '--foo'", "option '--grid' needs
// a value", "option '--threads': 'x' is not a valid value ...".
std::string usageMessage(const cxxopts::exceptions::exception &E, int Argc,
                         const char *const *Argv);

// Print an error as "<tool>: error: ..." on stderr and return its exit code (2 or 3).
int reportError(llvm::StringRef Tool, llvm::Error E);

// "<tool> (AsmEvo) 0.1.0, LLVM 22.1.8"
std::string versionString(const std::string &Tool);

} // namespace asmevo
