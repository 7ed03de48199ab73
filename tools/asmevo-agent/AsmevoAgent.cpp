#include "AsmevoAgent.h"

#include "search/Team.h"
#include "search/Worker.h"
#include "support/Interrupt.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <mutex>

using namespace asmevo;

namespace {

int render(Cli &C, Report &Rep) {
  Rep.Tool = C.tool();
  // What the merge repaired in the team's run directory (Report::Notes), even with -q.
  for (const std::string &N : Rep.Notes)
    llvm::errs() << C.tool() << ": " << N << "\n";
  // An interrupted worker step is reported as its answer (the controller evaluates it again).
  if (int Exit = C.errorExit(Rep, {Outcome::Interrupted}); Exit >= 0)
    return Exit;
  if (C.common().Json)
    return C.printJson(Rep);
  if (!C.common().Quiet)
    llvm::outs() << C.tool() << ": " << Rep.Message << "\n";
  return Rep.exitCode();
}

} // namespace

int onlyOptions(Cli &C, const std::string &Mode, const std::vector<std::string> &Allowed) {
  std::string Others;
  for (const auto &KV : C.result().arguments()) {
    const std::string &K = KV.key();
    if (K == "quiet" || K == "verbose" || K == "json" ||
        std::find(Allowed.begin(), Allowed.end(), K) != Allowed.end() ||
        Others.find("--" + K + ",") != std::string::npos)
      continue;
    Others += "--" + K + ", ";
  }
  if (Others.empty())
    return -1;
  Others.resize(Others.size() - 2);
  return C.usageError(Mode + " ignores the search's options; it was given " + Others);
}

int agentSearch(Cli &C, search::AgentOptions &O) {
  bool Verbose = C.common().Verbose, Quiet = C.common().Quiet;
  std::mutex Lock;
  auto Last = std::chrono::steady_clock::now() - std::chrono::seconds(10);
  O.Progress = [&](search::AgentOptions::ProgressKind Kind, const std::string &Line) {
    std::lock_guard<std::mutex> G(Lock);
    // What a resume repaired in the user's run directory is said even with -q.
    if (Kind == search::AgentOptions::ProgressKind::Warning) {
      llvm::errs() << C.tool() << ": " << Line << "\n";
      return;
    }
    if (Quiet)
      return;
    bool Candidate = Kind == search::AgentOptions::ProgressKind::Candidate;
    auto Now = std::chrono::steady_clock::now();
    if (Candidate && !Verbose && Now - Last < std::chrono::seconds(2))
      return;
    if (Kind != search::AgentOptions::ProgressKind::Event)
      Last = Now;
    llvm::errs() << C.tool() << ": " << Line << "\n";
  };
  catchInterrupts();

  O.Tool = C.tool();
  Report Rep = search::runAgent(O);
  // An interrupted search still answers with its best so far.
  if (int Exit = C.errorExit(Rep, {Outcome::Interrupted}); Exit >= 0)
    return Exit;
  if (C.common().Json)
    return C.printJson(Rep);
  llvm::outs() << C.tool() << ": " << Rep.Message << "\n";
  if (!Quiet && Rep.Body.contains("kstar"))
    llvm::outs() << "  K*: " << Rep.Body["kstar"].get<std::string>() << " ("
                 << Rep.Body["kstar_asm"].get<std::string>() << "); run directory "
                 << Rep.Body["run_dir"].get<std::string>() << "\n";
  return Rep.exitCode();
}

int agentWorker(Cli &C, const std::string &NodeDir) {
  catchInterrupts();
  Report Rep = search::runWorker(NodeDir, C.tool());
  return render(C, Rep);
}

int agentMerge(Cli &C, const std::string &Team, const std::vector<std::string> &Members) {
  Report Rep = search::mergeTeam(Team, Members, C.tool());
  return render(C, Rep);
}
