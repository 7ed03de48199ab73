// The drivers by name: one table that makes them and describes them (--driver's help).
#include "search/Driver.h"

#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

namespace asmevo::search {

namespace {

llvm::Expected<std::unique_ptr<Driver>> rules(const std::string &, const DriverOptions &) {
  return makeRulesDriver();
}
llvm::Expected<std::unique_ptr<Driver>> waits(const std::string &, const DriverOptions &) {
  return makeWaitsDriver();
}
llvm::Expected<std::unique_ptr<Driver>> sched(const std::string &, const DriverOptions &) {
  return makeSchedDriver();
}
llvm::Expected<std::unique_ptr<Driver>> pipeline(const std::string &, const DriverOptions &) {
  return makePipelineDriver();
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
      {"waits", nullptr,
       "s_waitcnt relaxed, sunk or placed again by a dataflow over the whole kernel's CFG, "
       "loads issued in the order their data is used",
       waits},
      {"sched", nullptr,
       "list scheduling of the hot windows' runs under the dependency graph (LLVM's latencies)",
       sched},
      {"pipeline", nullptr,
       "a single-block loop's buffer loads issued one iteration ahead into fresh VGPRs, waits "
       "placed again",
       pipeline},
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
  std::string S = "Who proposes edits: " + driverNames() +
                  ", or several, comma-separated (rules,waits), proposing in turn. ";
  const auto &K = driverKinds();
  for (size_t I = 0; I < K.size(); ++I)
    S += spelling(K[I]) + ": " + K[I].Help + (I + 1 == K.size() ? "" : "; ");
  return S;
}

namespace {

llvm::Expected<std::unique_ptr<Driver>> makeOne(const std::string &Spec, const DriverOptions &O) {
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

} // namespace

std::vector<std::vector<Edit>> EditListDriver::editSets(const NodeView &N) {
  std::vector<std::vector<Edit>> Sets;
  for (Edit &E : edits(N))
    Sets.push_back({std::move(E)});
  return Sets;
}

std::optional<Proposal> EditListDriver::propose(const NodeView &N, const nlohmann::json &) {
  auto It = Lists.find(N.Id);
  if (It == Lists.end())
    It = Lists.emplace(N.Id, std::make_pair(editSets(N), size_t(0))).first;
  auto &[Sets, Next] = It->second;
  while (Next < Sets.size()) {
    const std::vector<Edit> &Es = Sets[Next++];
    if (!Es.empty() && keep(N, Es)) {
      Proposal P{Es.front(), std::nullopt};
      P.More.assign(Es.begin() + 1, Es.end());
      return P;
    }
  }
  return std::nullopt;
}

std::vector<std::string> driverList(const std::string &Spec) {
  std::vector<std::string> Parts;
  llvm::StringRef Rest(Spec);
  while (true) {
    bool Takes = false;
    for (const DriverKind &K : driverKinds())
      Takes |= K.Argument && Rest.starts_with(K.Name);
    size_t Comma = Takes ? llvm::StringRef::npos : Rest.find(',');
    Parts.push_back(Rest.substr(0, Comma).str());
    if (Comma == llvm::StringRef::npos)
      break;
    Rest = Rest.substr(Comma + 1);
  }
  return Parts;
}

bool listsDriver(const std::string &Spec, llvm::StringRef Name) {
  for (const std::string &P : driverList(Spec))
    if (Name.ends_with(":") ? llvm::StringRef(P).starts_with(Name) : P == Name)
      return true;
  return false;
}

llvm::Expected<std::unique_ptr<Driver>> makeDriver(const std::string &Spec,
                                                   const DriverOptions &O) {
  std::vector<std::string> Parts = driverList(Spec);
  if (Parts.size() == 1)
    return makeOne(Spec, O);
  std::vector<std::unique_ptr<Driver>> Ds;
  for (const std::string &P : Parts) {
    for (const auto &D : Ds)
      if (D->name() == P)
        return makeError("--driver '" + Spec + "': '" + P + "' is listed twice");
    auto D = makeOne(P, O);
    if (!D)
      return D.takeError();
    Ds.push_back(std::move(*D));
  }
  return makeChainDriver(std::move(Ds));
}

} // namespace asmevo::search
