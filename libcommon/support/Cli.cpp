// Shared command-line handling for the AsmEvo tools.
#include "support/Cli.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo {

Cli::Cli(std::string Tool, std::string Purpose, std::string PositionalHelp)
    : Tool(Tool), Opts(Tool, Tool + " - " + Purpose) {
  Opts.positional_help(PositionalHelp).show_positional_help();
  Opts.set_width(100);
  Opts.add_options()("h,help", "Print this help and exit")("version", "Print the version and exit")(
      "v,verbose", "Print progress on stderr")("q,quiet", "Print nothing but errors on stderr");
}

void Cli::addJsonOption() {
  HasJson = true;
  Opts.add_options()("json", "Write the report as JSON");
}

void Cli::addOutputOption(const std::string &Help) {
  HasOutput = true;
  Opts.add_options()("o,output", Help, cxxopts::value<std::string>()->default_value("-"), "FILE");
}

int Cli::usageError(const std::string &Msg) const {
  llvm::errs() << Tool << ": error: " << Msg << "\n"
               << "Try '" << Tool << " --help' for more information.\n";
  return ExitInput;
}

int Cli::parse(int Argc, const char *const *Argv) {
  try {
    Result = Opts.parse(Argc, Argv);
  } catch (const cxxopts::exceptions::exception &E) {
    return usageError(E.what());
  }
  if (Result.count("help")) {
    llvm::outs() << Opts.help({""}) << "\n";
    return ExitOk;
  }
  if (Result.count("version")) {
    llvm::outs() << versionString(Tool) << "\n";
    return ExitOk;
  }
  Common.Verbose = Result.count("verbose") > 0;
  Common.Quiet = Result.count("quiet") > 0;
  if (HasJson)
    Common.Json = Result.count("json") > 0;
  if (HasOutput)
    Common.Output = Result["output"].as<std::string>();
  return -1;
}

std::string versionString(const std::string &Tool) {
  return Tool + " (AsmEvo) 0.1.0, LLVM " LLVM_VERSION_STRING;
}

} // namespace asmevo
