// What a search run starts from (search/RunSetup.h).
#include "search/RunSetup.h"

#include "launch/CaptureBundle.h"
#include "launch/CaptureLaunch.h"
#include "launch/EdgeShape.h"
#include "launch/LaunchSpec.h"
#include "search/RunOptions.h"
#include "search/Team.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"

namespace asmevo::search {

namespace {

// A complete launch spec of K0 (kernel Kernel, or the one it names), ready to launch.
llvm::Expected<launch::LaunchSpec> completeSpec(const CodeObject &K0, const std::string &Path,
                                                const std::string &Kernel) {
  auto S = launch::readLaunchSpec(Path);
  if (!S)
    return S.takeError();
  if (llvm::Error Err = launch::resolveLaunchSpec(*S, K0, Kernel))
    return std::move(Err);
  if (S->needsInference())
    return makeError("'" + Path +
                     "' leaves buffer sizes or roles open; complete it first with "
                     "kernel-diffcheck --infer K0 --spec " +
                     Path + " -o FULL.json");
  return S;
}

} // namespace

llvm::Expected<RunStart> startRun(AgentOptions &O, std::vector<ReportInput> &Inputs) {
  RunStart Run;
  auto K = openCodeObject(O.K0);
  if (!K)
    return K.takeError();
  Run.K0 = std::move(*K);
  const CodeObject &K0 = Run.K0->C;
  Run.K0Sha256 = sha256Hex(K0.Bytes);
  Inputs.push_back(reportInput("k0", O.K0, K0.Bytes));
  // The launches: the spec's (correctness on synthetic inputs, and the timing launch unless
  // captures are given) and the captured dispatches' (correctness on recorded state, and
  // together the timing launch).
  std::string Kernel = O.Kernel, LaunchText;
  if (!O.Spec.empty()) {
    auto S = completeSpec(K0, O.Spec, O.Kernel);
    if (!S)
      return S.takeError();
    Inputs.push_back(reportInput("spec", O.Spec, S->Text));
    Kernel = S->Kernel;
    LaunchText = S->Text;
    for (const launch::EdgeShape &Sh : launch::edgeShapes(*S))
      Run.EdgeShapes.push_back({{"name", Sh.Name}, {"change", Sh.Change}});
  }
  // A representative launch to time on (--time-spec): a complete spec of the same kernel.
  std::string TimeText;
  if (!O.Eval.TimeSpec.empty()) {
    if (!O.Eval.Captures.empty())
      return makeError("--time-spec and --capture: the captures are the timing launch; "
                       "give one or the other");
    auto T = completeSpec(K0, O.Eval.TimeSpec, Kernel);
    if (!T)
      return T.takeError();
    if (T->Kernel != Kernel)
      return makeError("'" + O.Eval.TimeSpec + "' launches kernel '" + T->Kernel + "', the spec '" +
                       Kernel + "'");
    Inputs.push_back(reportInput("time_spec", O.Eval.TimeSpec, T->Text));
    TimeText = T->Text;
  }
  std::string CaptureShas;
  for (const std::string &Bundle : O.Eval.Captures) {
    auto Bytes = readFile(Bundle);
    if (!Bytes)
      return Bytes.takeError();
    llvm::StringRef BT = (*Bytes)->getBuffer();
    auto B = launch::decodeCaptureBundle(BT, Bundle);
    if (!B)
      return B.takeError();
    if (llvm::Error Err = launch::checkCapturedK0(*B, K0.Bytes, O.K0, Bundle))
      return std::move(Err);
    if (!Kernel.empty() && B->Kernel != Kernel)
      return makeError("'" + Bundle + "' captured kernel '" + B->Kernel + "', not '" + Kernel +
                       "'" + (O.Spec.empty() ? "" : " (the spec's)"));
    Kernel = B->Kernel;
    Inputs.push_back(reportInput("capture", Bundle, BT));
    CaptureShas += "capture " + sha256Hex(BT) + "\n";
  }
  if (!O.Eval.Types.empty() && O.Eval.Captures.empty())
    return makeError("--types is for --capture (a spec types its arguments itself)");
  // Everything a run can be refused for is checked before its directory is touched. A run on
  // captures is one launch set: the spec's text and the bundles', hashed together.
  std::string Launches = LaunchText;
  if (!CaptureShas.empty())
    Launches += "\n" + CaptureShas + "types " + O.Eval.Types + "\n";
  if (!TimeText.empty())
    Launches += "\ntime spec\n" + TimeText;
  Run.Kernel = Kernel;
  Run.Id = RunIdentity{O.K0, Run.K0Sha256, Kernel, sha256Hex(Launches), K0.Target.Processor};
  if (!O.TeamFrom.empty())
    if (llvm::Error Err = checkTeamFrom(O.TeamFrom, O.RunDir, Run.Id))
      return std::move(Err);
  if (O.Resume) {
    if (llvm::Error Err = Lineage::resumable(O.RunDir))
      return std::move(Err);
    auto Recorded = Lineage::readRun(O.RunDir);
    if (!Recorded)
      return Recorded.takeError();
    if (llvm::Error Err = Lineage::sameRun(*Recorded, O.RunDir, Run.Id))
      return std::move(Err);
    auto C = resumeOptions(Recorded->Options, O.RunDir + "/run.json", O);
    if (!C)
      return C.takeError();
    Run.Changed = std::move(*C);
  }
  return Run;
}

} // namespace asmevo::search
