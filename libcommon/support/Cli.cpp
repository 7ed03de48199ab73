// Shared command-line handling for the AsmEvo tools.
#include "support/Cli.h"

#include "support/Error.h"
#include "support/Interrupt.h"
#include "support/OutputPath.h"
#include "support/ParseNumber.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace asmevo {

namespace {

// The name between cxxopts' quotes (‘name’), or "" if there is none.
std::string betweenQuotes(const std::string &Msg, size_t From = 0) {
  const std::string L = "\xe2\x80\x98", R = "\xe2\x80\x99"; // U+2018, U+2019
  size_t A = Msg.find(L, From);
  if (A == std::string::npos)
    return "";
  size_t B = Msg.find(R, A + L.size());
  return B == std::string::npos ? "" : Msg.substr(A + L.size(), B - A - L.size());
}

std::string dashed(const std::string &Name) {
  if (!Name.empty() && Name[0] == '-')
    return Name;
  return (Name.size() == 1 ? "-" : "--") + Name;
}

// The option whose value Arg was on the command line ("--threads x" or "--threads=x").
std::string optionOfValue(int Argc, const char *const *Argv, const std::string &Arg) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    size_t Eq = A.find('=');
    if (A.rfind("--", 0) == 0 && Eq != std::string::npos && A.substr(Eq + 1) == Arg)
      return A.substr(0, Eq);
    if (A == Arg && I > 1 && Argv[I - 1][0] == '-')
      return Argv[I - 1];
  }
  return "";
}

} // namespace

// cxxopts' messages in the suite's own words and quotes ("unknown option '--foo'").
std::string usageMessage(const cxxopts::exceptions::exception &E, int Argc,
                         const char *const *Argv) {
  std::string Msg = E.what(), Name = betweenQuotes(Msg);
  if (dynamic_cast<const cxxopts::exceptions::no_such_option *>(&E))
    return "unknown option '" + dashed(Name) + "'";
  if (dynamic_cast<const cxxopts::exceptions::missing_argument *>(&E) ||
      dynamic_cast<const cxxopts::exceptions::option_requires_argument *>(&E))
    return "option '" + dashed(Name) + "' needs a value";
  if (dynamic_cast<const cxxopts::exceptions::gratuitous_argument_for_option *>(&E))
    return "option '" + dashed(Name) + "' takes no value (got '" +
           betweenQuotes(Msg, Msg.find(Name) + Name.size()) + "')";
  if (dynamic_cast<const cxxopts::exceptions::incorrect_argument_type *>(&E)) {
    std::string Opt = optionOfValue(Argc, Argv, Name);
    return (Opt.empty() ? "" : "option '" + Opt + "': ") + "'" + Name + "' is not a valid value";
  }
  if (dynamic_cast<const cxxopts::exceptions::invalid_option_syntax *>(&E))
    return "'" + Name + "' is not a valid option";
  // Anything else: the same words with plain quotes and a lower-case start.
  std::string Out;
  for (size_t I = 0; I < Msg.size();) {
    if (Msg.compare(I, 3, "\xe2\x80\x98") == 0 || Msg.compare(I, 3, "\xe2\x80\x99") == 0) {
      Out += '\'';
      I += 3;
    } else {
      Out += Msg[I++];
    }
  }
  if (!Out.empty() && Out[0] >= 'A' && Out[0] <= 'Z')
    Out[0] = char(Out[0] - 'A' + 'a');
  return Out;
}

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

void Cli::addOutputOption(const std::string &Help, bool DefaultStdout) {
  HasOutput = true;
  if (DefaultStdout)
    Opts.add_options()("o,output", Help, cxxopts::value<std::string>()->default_value("-"), "FILE");
  else
    Opts.add_options()("o,output", Help, cxxopts::value<std::string>(), "FILE");
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

int Cli::errorExit(Report &R, std::initializer_list<Outcome> Answers) const {
  R.Tool = Tool;
  bool Error = R.Result == Outcome::InputError ||
               ((R.Result == Outcome::RuntimeError || R.Result == Outcome::Interrupted) &&
                std::find(Answers.begin(), Answers.end(), R.Result) == Answers.end());
  return Error ? fail(R, R.Result, R.Message) : -1;
}

int Cli::printJson(const Report &R) const {
  // A path, a name from a code object or a message quoting an option's value may hold bytes
  // that are not UTF-8: they are written as U+FFFD rather than let dump() throw.
  llvm::outs() << R.json().dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  llvm::outs().flush();
  return R.exitCode();
}

int Cli::printAnswer(const Report &R, bool ToStderr) const {
  if (Common.Json)
    return printJson(R);
  llvm::raw_ostream &OS = ToStderr ? llvm::errs() : llvm::outs();
  OS << Tool << ": " << R.Message << "\n";
  if (!Common.Quiet)
    for (const std::string &N : R.Notes)
      OS << "  " << N << "\n";
  return R.exitCode();
}

int Cli::fail(Report &R, llvm::Error E) const {
  R.fail(std::move(E));
  return fail(R, R.Result, R.Message);
}

int Cli::fail(Report &R, Outcome O, const std::string &Message) const {
  R.Result = O;
  R.Message = Message;
  llvm::errs() << Tool << (O == Outcome::Interrupted ? ": interrupted: " : ": error: ") << Message
               << "\n";
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

bool Cli::progressLineWanted() const { return !Common.Quiet && ::isatty(2); }

int Cli::checkOutput(const std::string &Output, const std::vector<std::string> &Inputs) const {
  if (llvm::Error E = asmevo::checkOutput(Output, Inputs)) {
    Report R = report();
    return fail(R, std::move(E));
  }
  return -1;
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
    return usageError(usageMessage(E, Argc, Argv));
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
  if (HasOutput && Result.count("output"))
    Common.Output = Result["output"].as<std::string>();
  catchInterrupts();
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
