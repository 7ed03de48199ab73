// What a driver sees of a node (search/NodeView.h), and its context JSON ("asmevo-context").
#include "search/NodeView.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Report.h"
#include "timing/TimeRun.h"

#include "llvm/ADT/StringExtras.h"

namespace asmevo::search {

std::optional<size_t> lineOfOffset(const KernelLines &M, uint64_t Offset) {
  for (const CodeLine &C : M.Code)
    if (C.Offset == Offset)
      return C.Line;
  return std::nullopt;
}

llvm::Expected<std::unique_ptr<NodeView>> loadNodeView(const std::string &Id,
                                                       const std::string &Dir, double Speedup,
                                                       bool IsRoot, const EvalOptions &O) {
  auto V = std::make_unique<NodeView>();
  V->Id = Id;
  V->Speedup = Speedup;
  auto T = readFile(Dir + "/cand.s");
  if (!T)
    return T.takeError();
  V->Text = (*T)->getBuffer().str();
  auto Obj = openCodeObject(Dir + "/cand.hsaco");
  if (!Obj)
    return Obj.takeError();
  V->Obj = std::move(*Obj);
  auto S = SchedInfo::create(V->Obj->C);
  if (!S)
    return S.takeError();
  V->Sched = std::move(*S);
  V->Kernel = O.Kernel;
  V->Target = V->Obj->C.Target.Processor;
  auto M = mapKernelLines(V->Obj->C, *V->Sched, V->Text, O.Kernel);
  if (!M)
    return M.takeError();
  V->Map = std::move(*M);
  if (O.Backend != "emu")
    return V;
  timing::TimeOptions TO = timeOptions(O, IsRoot ? "" : Dir + "/cand.hsaco");
  TO.Profile = true;
  TO.MaxWindows = 16;
  TO.Ensemble = 1; // a profile is the nominal figures' (the gate has the interval)
  Report R = timing::runKernelTime(TO);
  if (R.Result == Outcome::RuntimeError)
    return runtimeError("profiling node " + Id + ": " + R.Message);
  if (R.Result != Outcome::Ok)
    return makeError("profiling node " + Id + ": " + R.Message);
  const nlohmann::json &K = R.Body["kernels"].back();
  V->Profile = {{"instructions", K.value("instructions", nlohmann::json::array())},
                {"loops", K.value("loops", nlohmann::json::array())},
                {"occupancy", K.value("occupancy", nlohmann::json::object())}};
  for (const nlohmann::json &W : K.value("hot_windows", nlohmann::json::array())) {
    auto F = lineOfOffset(V->Map, W.value("begin", uint64_t(0)));
    std::optional<size_t> L;
    for (const CodeLine &C : V->Map.Code)
      if (C.Offset + C.Size == W.value("end", uint64_t(0)))
        L = C.Line;
    if (!F || !L || *L < *F)
      continue;
    V->Hot.push_back(HotLines{*F, *L, W.value("share", 0.0), W});
  }
  return V;
}

WaitFlowOptions waitFlowOptionsOf(const NodeView &N) {
  WaitFlowOptions O;
  const KernelInfo *KI = N.Obj ? N.Obj->C.kernel(N.Kernel) : nullptr;
  if (KI)
    O.LoadsCrossBarriers =
        loadsMayCrossBarriers(KI->Kd.ComputePgmRsrc3, N.Obj->C.Target.hasGfx90aInsts());
  return O;
}

std::unique_ptr<WaitFlow> waitFlowOf(const NodeView &N) {
  const KernelInfo *KI = N.Obj ? N.Obj->C.kernel(N.Kernel) : nullptr;
  if (!KI)
    return nullptr;
  std::vector<FlowInst> Code;
  for (const CodeLine &L : N.Map.Code)
    Code.push_back(FlowInst{L.Cost, L.Offset});
  auto F = WaitFlow::create(std::move(Code), KI->EntryAddr, waitFlowOptionsOf(N));
  if (!F) {
    llvm::consumeError(F.takeError());
    return nullptr;
  }
  return std::move(*F);
}

} // namespace asmevo::search
