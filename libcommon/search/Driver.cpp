// The drivers by name: one table that makes them and describes them (--driver's help).
#include "search/Driver.h"

#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

namespace asmevo::search {

namespace {

llvm::Expected<std::unique_ptr<Driver>> rules(const std::string &, const DriverOptions &) {
  return makeRulesDriver();
}
llvm::Expected<std::unique_ptr<Driver>> stochastic(const std::string &, const DriverOptions &O) {
  return makeStochasticDriver(O.Seed);
}
llvm::Expected<std::unique_ptr<Driver>> exec(const std::string &Command, const DriverOptions &O) {
  if (llvm::StringRef(Command).trim().empty())
    return makeError("--driver exec: needs a command (exec:CMD)");
  return makeExecDriver(Command, O);
}
llvm::Expected<std::unique_ptr<Driver>> llmDriver(const std::string &, const DriverOptions &O) {
  return makeLlmDriver(O);
}

// A kind's spelling in help and errors: "rules", "exec:CMD".
std::string spelling(const DriverKind &K) {
  return std::string(K.Name) + (K.Argument ? K.Argument : "");
}

} // namespace

const std::vector<DriverKind> &driverKinds() {
  static const std::vector<DriverKind> Kinds = {
      {"rules", nullptr, "deterministic rewrites in the hot windows (waits, hoisted loads, nops)",
       rules},
      {"stochastic", nullptr, "seeded random moves (swap, delete, move a wait), Metropolis",
       stochastic},
      {"exec:", "CMD", "runs CMD with the context JSON on stdin, reads an edit from stdout", exec},
      {"llm", nullptr, "a model over HTTP plans, edits and replans (the --llm-* options)",
       llmDriver},
  };
  return Kinds;
}

std::string driverNames() {
  const auto &K = driverKinds();
  std::string S;
  for (size_t I = 0; I < K.size(); ++I) {
    if (I)
      S += I + 1 == K.size() ? " or " : ", ";
    S += spelling(K[I]);
    if (I == 0)
      S += " (default)";
  }
  return S;
}

std::string driverHelp() {
  std::string S = "Who proposes edits: " + driverNames() + ". ";
  const auto &K = driverKinds();
  for (size_t I = 0; I < K.size(); ++I)
    S += spelling(K[I]) + ": " + K[I].Help + (I + 1 == K.size() ? "" : "; ");
  return S;
}

llvm::Expected<std::unique_ptr<Driver>> makeDriver(const std::string &Spec,
                                                   const DriverOptions &O) {
  for (const DriverKind &K : driverKinds()) {
    llvm::StringRef S(Spec);
    if (K.Argument ? S.consume_front(K.Name) : S == K.Name)
      return K.Make(S.str(), O);
  }
  std::string Names;
  for (const DriverKind &K : driverKinds())
    Names += (Names.empty() ? "" : ", ") + spelling(K);
  return makeError("--driver '" + Spec + "': unknown driver (" + Names + ")");
}

} // namespace asmevo::search
