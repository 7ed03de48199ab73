#include "AgentModes.h"

#include "search/Team.h"
#include "search/Worker.h"
#include "support/Interrupt.h"

#include "llvm/Support/raw_ostream.h"

using namespace asmevo;

namespace {

int render(Cli &C, Report &Rep) {
  Rep.Tool = C.tool();
  if (Rep.Result == Outcome::InputError || Rep.Result == Outcome::RuntimeError)
    return C.fail(Rep, Rep.Result, Rep.Message);
  if (C.common().Json)
    return C.printJson(Rep);
  if (!C.common().Quiet)
    llvm::outs() << C.tool() << ": " << Rep.Message << "\n";
  return Rep.exitCode();
}

} // namespace

int agentWorker(Cli &C, const std::string &NodeDir) {
  catchInterrupts();
  Report Rep = search::runWorker(NodeDir);
  return render(C, Rep);
}

int agentMerge(Cli &C, const std::string &Team, const std::vector<std::string> &Members) {
  Report Rep = search::mergeTeam(Team, Members);
  return render(C, Rep);
}
