#include "search/WaitStateFilter.h"

#include "asm/Rebuild.h"
#include "device/StaticHazards.h"

#include <set>

namespace asmevo::search {

namespace {

// The first hazard of E's code whose kind is not in Kinds; "" when there is none, or when E does
// not apply, rebuild or scan (the gate judges those).
std::string newHazard(const NodeView &N, const Edit &E, const std::set<std::string> &Kinds) {
  EditError Err;
  std::optional<std::string> Text = applyEdits(N.Map, {E}, EditLimits(), Err);
  if (!Text)
    return "";
  auto RB = rebuildFromAssembly(*Text, "edit.s", &N.Obj->C);
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
  auto H = device::staticHazards(*C);
  if (!H) {
    llvm::consumeError(H.takeError());
    return "";
  }
  for (const device::StaticHazard &X : *H)
    if (!Kinds.count(X.kind()))
      return X.Why;
  return "";
}

} // namespace

bool WaitStateFilter::keeps(const NodeView &N, const Edit &E) {
  if (!N.Obj)
    return true;
  auto It = NodeKinds.find(N.Id);
  if (It == NodeKinds.end()) {
    std::optional<std::set<std::string>> Kinds;
    if (auto H0 = device::staticHazards(N.Obj->C)) {
      Kinds.emplace();
      for (const device::StaticHazard &H : *H0)
        Kinds->insert(H.kind());
    } else {
      llvm::consumeError(H0.takeError());
    }
    It = NodeKinds.emplace(N.Id, std::move(Kinds)).first;
  }
  if (!It->second)
    return true;
  std::string Why = newHazard(N, E, *It->second);
  if (Why.empty())
    return true;
  if (Dropped++ == 0)
    FirstDropped = E.Rationale + ": " + Why;
  return false;
}

nlohmann::json WaitStateFilter::usage() const {
  return {{"dropped_for_wait_states", Dropped}, {"first_dropped", FirstDropped}};
}

} // namespace asmevo::search
