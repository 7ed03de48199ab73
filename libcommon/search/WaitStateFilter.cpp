#include "search/WaitStateFilter.h"

#include "asm/Rebuild.h"
#include "check/DiffCheck.h"

namespace asmevo::search {

std::string waitStateRefusal(const NodeView &N, const std::vector<Edit> &Es) {
  EditError Err;
  std::optional<std::string> Text = applyEdits(N.Map, Es, EditLimits(), Err);
  if (!Text)
    return "";
  return waitStateRefusalOfText(N, *Text);
}

std::string waitStateRefusalOfText(const NodeView &N, const std::string &Text) {
  // Rebuilt without an ABI reference: a node's text keeps the descriptor directives it was
  // recovered with, and its code may need more registers than they give (the pipeline driver's
  // prefetch VGPRs; the rebuild grows the descriptor). Against the node's own object the rebuild
  // reports that as an ABI change, and the scan would pass every proposal from such a node. The
  // ABI is the gate's to judge, against K0.
  auto RB = rebuildFromAssembly(Text, "edit.s", nullptr);
  if (!RB) {
    llvm::consumeError(RB.takeError());
    return "";
  }
  if (!RB->Violations.empty())
    return "";
  auto C = CodeObject::read(RB->Object, "edit.hsaco");
  if (!C) {
    llvm::consumeError(C.takeError());
    return "";
  }
  Report R;
  return check::checkCandidateWaitStates(N.Obj->C, *C, R) ? "" : R.Message;
}

bool WaitStateFilter::keeps(const NodeView &N, const std::vector<Edit> &Es) {
  if (!N.Obj || Es.empty())
    return true;
  std::string Why = waitStateRefusal(N, Es);
  if (Why.empty())
    return true;
  if (Dropped++ == 0)
    FirstDropped = Es.front().Rationale + ": " + Why;
  return false;
}

nlohmann::json WaitStateFilter::usage() const {
  return {{"dropped_for_wait_states", Dropped}, {"first_dropped", FirstDropped}};
}

} // namespace asmevo::search
