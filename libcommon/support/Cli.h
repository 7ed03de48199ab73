// The command-line layer every tool shares: common options (-o, -v, -q, --json, --help,
// --version), parsing with cxxopts, and the exit-code convention of STYLE.md.
#pragma once

#include <cxxopts.hpp>

#include <string>

namespace asmevo {

// Exit codes, the same in every tool.
enum ExitCode : int {
  ExitOk = 0,       // success
  ExitNegative = 1, // a check said no (round trip differs, divergent, slower)
  ExitInput = 2,    // usage, input or I/O error
  ExitRuntime = 3,  // device/runtime error
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
  // Adds -o/--output with a tool-specific description.
  void addOutputOption(const std::string &Help);

  // Parse argv. Returns -1 when the tool should continue, otherwise the exit code to return
  // (after --help, --version or a usage error, which is reported on stderr).
  int parse(int Argc, const char *const *Argv);

  const cxxopts::ParseResult &result() const { return Result; }
  const CommonOptions &common() const { return Common; }
  const std::string &tool() const { return Tool; }

  // Report a usage error ("<tool>: error: <msg>" + hint) and return ExitInput.
  int usageError(const std::string &Msg) const;

private:
  std::string Tool;
  cxxopts::Options Opts;
  cxxopts::ParseResult Result;
  CommonOptions Common;
  bool HasJson = false;
  bool HasOutput = false;
};

// "<tool> (AsmEvo) 0.1.0, LLVM 22.1.8"
std::string versionString(const std::string &Tool);

} // namespace asmevo
