#include "AgentModes.h"

#include "search/Team.h"
#include "search/Worker.h"
#include "support/Interrupt.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace asmevo;

namespace {

int render(Cli &C, Report &Rep) {
  Rep.Tool = C.tool();
  // What the merge repaired in the team's run directory (Report::Notes), even with -q.
  for (const std::string &N : Rep.Notes)
    llvm::errs() << C.tool() << ": " << N << "\n";
  if (Rep.Result == Outcome::InputError || Rep.Result == Outcome::RuntimeError)
    return C.fail(Rep, Rep.Result, Rep.Message);
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

int agentWorker(Cli &C, const std::string &NodeDir) {
  catchInterrupts();
  Report Rep = search::runWorker(NodeDir);
  return render(C, Rep);
}

int agentMerge(Cli &C, const std::string &Team, const std::vector<std::string> &Members) {
  Report Rep = search::mergeTeam(Team, Members);
  return render(C, Rep);
}
