// Shared command-line handling for the AsmEvo tools.
#include "support/Cli.h"

#include "support/Error.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace asmevo {

namespace {
bool parseU64(const std::string &S, uint64_t &V) {
  if (S.empty() || S[0] == '-')
    return false;
  errno = 0;
  char *End = nullptr;
  V = std::strtoull(S.c_str(), &End, 0);
  return errno == 0 && End && *End == 0;
}
} // namespace

Cli::Cli(std::string Tool, std::string Purpose, std::string PositionalHelp)
    : Tool(Tool), Opts(Tool, Tool + " - " + Purpose) {
  Opts.positional_help(PositionalHelp).show_positional_help();
  Opts.set_width(100);
  Opts.add_options()("h,help", "Print this help and exit")("version", "Print the version and exit")(
      "v,verbose", "Print progress on stderr")("q,quiet", "Print nothing but errors on stderr");
}

void Cli::addJsonOption() {
  HasJson = true;
  Opts.add_options()("json", "Write the report as JSON (the envelope of "
                             "share/asmevo/report.schema.json)");
}

void Cli::addOutputOption(const std::string &Help) {
  HasOutput = true;
  Opts.add_options()("o,output", Help, cxxopts::value<std::string>()->default_value("-"), "FILE");
}

void Cli::addDeviceOptions(const std::string &BackendHelp, const std::string &TimeoutHelp) {
  HasDevice = true;
  Opts.add_options()("backend", "Execution backend: " + BackendHelp, cxxopts::value<std::string>(),
                     "NAME")("threads", "Host threads of the emulator (default: all cores)",
                             cxxopts::value<unsigned>(),
                             "N")("timeout", TimeoutHelp, cxxopts::value<double>(), "SECONDS");
}

void Cli::addLaunchOptions(bool Geometry) {
  HasLaunch = true;
  HasGeometry = Geometry;
  Opts.add_options()("kernel", "Kernel symbol (needed when the object has several)",
                     cxxopts::value<std::string>(), "NAME");
  if (!Geometry)
    return;
  Opts.add_options()("grid", "Grid size in workgroups", cxxopts::value<std::string>(), "X[,Y[,Z]]")(
      "grid-items",
      "Grid size in work-items (on emu the last workgroup may be "
      "partial; hip needs a multiple of --block)",
      cxxopts::value<std::string>(), "X[,Y[,Z]]")("block", "Workgroup size in work-items",
                                                  cxxopts::value<std::string>(), "X[,Y[,Z]]")(
      "dynamic-lds", "Bytes of dynamic LDS per workgroup", cxxopts::value<uint32_t>(), "BYTES");
}

Report Cli::report() const {
  Report R;
  R.Tool = Tool;
  return R;
}

int Cli::printJson(const Report &R) const {
  llvm::outs() << R.json().dump(1) << "\n";
  llvm::outs().flush();
  return R.exitCode();
}

int Cli::fail(Report &R, llvm::Error E) const {
  R.fail(std::move(E));
  return fail(R, R.Result, R.Message);
}

int Cli::fail(Report &R, Outcome O, const std::string &Message) const {
  R.Result = O;
  R.Message = Message;
  llvm::errs() << Tool << ": error: " << Message << "\n";
  if (Common.Json)
    printJson(R);
  return R.exitCode();
}

std::function<void(const std::string &)> Cli::progress() const {
  if (!Common.Verbose)
    return {};
  std::string T = Tool;
  return [T](const std::string &Line) {
    llvm::errs() << T << ": " << Line << "\n";
    llvm::errs().flush();
  };
}

void Cli::note(const std::string &Line) const {
  if (!Common.Quiet)
    llvm::errs() << Tool << ": note: " << Line << "\n";
}

int Cli::usageError(const std::string &Msg) const {
  llvm::errs() << Tool << ": error: " << Msg << "\n"
               << "Try '" << Tool << " --help' for more information.\n";
  if (Common.Json) {
    Report R = report();
    R.Result = Outcome::InputError;
    R.Message = Msg;
    printJson(R);
  }
  return ExitInput;
}

int Cli::parse(int Argc, const char *const *Argv) {
  if (HasJson)
    for (int I = 1; I < Argc; ++I)
      if (std::strcmp(Argv[I], "--json") == 0)
        Common.Json = true; // so that a usage error below is reported as JSON too
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

int Cli::deviceOptions(DeviceOptions &D) const {
  if (!HasDevice)
    return -1;
  if (Result.count("backend"))
    D.Backend = Result["backend"].as<std::string>();
  if (Result.count("threads"))
    D.Threads = Result["threads"].as<unsigned>();
  if (Result.count("timeout")) {
    D.TimeoutSeconds = Result["timeout"].as<double>();
    if (!(D.TimeoutSeconds > 0))
      return usageError("--timeout must be a positive number of seconds");
  }
  return -1;
}

int Cli::launchOptions(LaunchOptions &L) const {
  if (!HasLaunch)
    return -1;
  if (Result.count("kernel"))
    L.Kernel = Result["kernel"].as<std::string>();
  if (!HasGeometry)
    return -1;
  for (auto [Opt, Dst] : {std::pair{"grid", &L.Grid}, std::pair{"grid-items", &L.GridItems},
                          std::pair{"block", &L.Block}}) {
    if (!Result.count(Opt))
      continue;
    auto D = parseDims(Result[Opt].as<std::string>(), std::string("--") + Opt);
    if (!D)
      return reportError(Tool, D.takeError());
    *Dst = *D;
  }
  if (Result.count("grid") && Result.count("grid-items"))
    return usageError("give --grid or --grid-items, not both");
  if (Result.count("dynamic-lds"))
    L.DynamicLds = Result["dynamic-lds"].as<uint32_t>();
  return -1;
}

llvm::Expected<std::array<uint32_t, 3>> parseDims(const std::string &Text,
                                                  const std::string &What) {
  std::array<uint32_t, 3> R{1, 1, 1};
  size_t Pos = 0;
  for (unsigned I = 0; I < 3; ++I) {
    size_t Comma = Text.find(',', Pos);
    std::string Part =
        Text.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    uint64_t V;
    if (!parseU64(Part, V) || V == 0 || V > 0xffffffffull)
      return makeError(What + " '" + Text + "': expected X[,Y[,Z]] with positive numbers");
    R[I] = uint32_t(V);
    if (Comma == std::string::npos)
      return R;
    Pos = Comma + 1;
  }
  return makeError(What + " '" + Text + "': more than three dimensions");
}

llvm::Expected<std::vector<uint64_t>> parseSeedList(const std::string &S, const std::string &What) {
  std::vector<uint64_t> Seeds;
  size_t Pos = 0;
  while (true) {
    size_t Comma = S.find(',', Pos);
    std::string Part = S.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    char *End = nullptr;
    errno = 0;
    unsigned long long V = std::strtoull(Part.c_str(), &End, 10);
    if (Part.empty() || !End || *End || errno || Part[0] == '-')
      return makeError(What + " '" + S + "': expected comma-separated non-negative integers");
    Seeds.push_back(V);
    if (Comma == std::string::npos)
      return Seeds;
    Pos = Comma + 1;
  }
}

int reportError(llvm::StringRef Tool, llvm::Error E) {
  ErrorOutcome EO = errorOutcome(std::move(E));
  llvm::errs() << Tool << ": error: " << EO.Message << "\n";
  return exitCode(EO.O);
}

std::string versionString(const std::string &Tool) {
  return Tool + " (AsmEvo) " ASMEVO_VERSION ", LLVM " LLVM_VERSION_STRING;
}

} // namespace asmevo
