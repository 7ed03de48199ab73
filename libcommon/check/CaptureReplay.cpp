// Replaying a captured dispatch: K0 against the recording, K1 against K0 (check/CaptureReplay.h).
#include "check/CaptureReplay.h"

#include "check/CaptureCompare.h"
#include "check/DiffCheck.h"
#include "codeobj/Input.h"
#include "device/Device.h"
#include "launch/CaptureBundle.h"
#include "launch/CaptureLaunch.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"
#include "support/Plural.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <set>

namespace asmevo::check {

namespace {

// What one replay left, and what it ran where.
struct ReplayState : launch::CaptureState {
  uint64_t WaveInstructions = 0;
  std::set<std::pair<std::string, uint64_t>> Findings; // (rule, offset)
  std::vector<device::UnsafeFinding> FindingList;
  std::string Backend, DeviceName;
  bool Emulator = true;
  unsigned Moved = 0; // regions the runtime placed away from their recorded address
};

// Run K from the bundle's pre-state on a fresh device of Backend.
llvm::Expected<ReplayState> replay(const launch::CaptureBundle &B, const CodeObject &K,
                                   const ReplayOptions &O, uint64_t MaxInstructions) {
  auto D = device::openDevice(O.Backend, K.Target.Processor);
  if (!D)
    return D.takeError();
  device::Device &Dev = **D;
  // The regions before the code object, so that its load cannot take their addresses.
  auto Placed = launch::placeCaptureRegions(Dev, B);
  if (!Placed)
    return Placed.takeError();
  auto M = Dev.load(K);
  if (!M)
    return M.takeError();
  if (llvm::Error E = launch::writeCapturePreState(Dev, **M, B, *Placed))
    return std::move(E);
  auto P = launch::captureLaunchParams(B, *Placed);
  if (!P)
    return P.takeError();
  bool Emu = Dev.info().Emulator;
  P->Threads = O.Threads;
  P->Strict = O.Strict && Emu;
  P->MaxInstructions = Emu ? MaxInstructions : 0;
  P->TimeoutSeconds = Emu ? O.TimeoutSeconds : 0;
  auto Run = Dev.launch(**M, *P);
  if (!Run)
    return Run.takeError();
  auto After = launch::readCaptureState(Dev, **M, B, *Placed);
  if (!After)
    return After.takeError();
  ReplayState S;
  static_cast<launch::CaptureState &>(S) = std::move(*After);
  S.WaveInstructions = Run->WaveInstructions;
  for (const device::UnsafeFinding &F : Run->Findings)
    if (S.Findings.insert({F.Rule, F.Offset}).second)
      S.FindingList.push_back(F);
  S.Backend = Dev.info().Backend;
  S.DeviceName = Dev.info().Name;
  S.Emulator = Emu;
  S.Moved = Placed->Moved;
  return S;
}

} // namespace

Report runCaptureReplay(const ReplayOptions &O) {
  Report R;
  R.Backend = "emu";
  auto Bytes = readFile(O.Bundle);
  if (!Bytes)
    return R.fail(Bytes.takeError()), R;
  auto B = launch::decodeCaptureBundle((*Bytes)->getBuffer(), O.Bundle);
  if (!B)
    return R.fail(B.takeError()), R;
  auto K0 = openCodeObject(O.K0);
  if (!K0)
    return R.fail(K0.takeError()), R;
  auto K1 = openCodeObject(O.K1);
  if (!K1)
    return R.fail(K1.takeError()), R;
  R.Inputs = {reportInput("k0", O.K0, (*K0)->C.Bytes), reportInput("k1", O.K1, (*K1)->C.Bytes)};
  R.Inputs.push_back(reportInput("capture", O.Bundle, (*Bytes)->getBuffer()));
  R.Body["kernel"] = B->Kernel;
  R.Body["capture"] = {{"runtime", B->Runtime},
                       {"device", B->Device},
                       {"regions", B->Regions.size()},
                       {"globals", B->Globals.size()}};
  if (llvm::Error E = launch::checkCapturedK0(*B, (*K0)->C.Bytes, O.K0, O.Bundle))
    return R.fail(std::move(E)), R;
  // K0 is the bundle's own code object: what it lacks for the recorded kernel is the bundle's
  // fault.
  const KernelInfo *KI = (*K0)->C.kernel(B->Kernel);
  if (!KI)
    return R.fail(withFile(
               makeError("the capture's kernel '" + B->Kernel + "' is not in its code object"),
               O.Bundle)),
           R;
  auto Sig = kernelSignature((*K0)->C, *KI);
  if (!Sig)
    return R.fail(Sig.takeError()), R;
  if (llvm::Error E = launch::checkCaptureKernarg(*B, *Sig, O.Bundle))
    return R.fail(std::move(E)), R;
  if (!checkCandidateAbi((*K0)->C, (*K1)->C, R))
    return R;
  if (O.Strict && !checkCandidateWaitStates((*K0)->C, (*K1)->C, R))
    return R;
  std::vector<TypedSpan> Spans;
  if (!O.Types.empty()) {
    auto S = captureTypedSpans(*B, *Sig, O.Types);
    if (!S)
      return R.fail(S.takeError()), R;
    Spans = std::move(*S);
    R.Body["types"] = O.Types;
    R.Body["theta"] = O.Theta;
    R.Body["tau"] = O.Tau;
  }
  if (O.Progress)
    O.Progress("replaying K0 from the capture");
  auto S0 = replay(*B, (*K0)->C, O, 0);
  if (!S0) {
    R.fail(launch::blameCaptureFault(S0.takeError(), *B, *Sig, O.Bundle));
    if (R.Result == Outcome::RuntimeError)
      R.Message = "runtime_error: K0: " + R.Message;
    R.Body["failed"] = "K0"; // K0's failure, not the candidate's
    return R;
  }
  R.Backend = S0->Backend;
  R.Body["device"] = S0->DeviceName;
  if (S0->Moved)
    R.Notes.push_back(countOf(S0->Moved, "region") +
                      " could not be placed at their recorded addresses (the runtime's "
                      "hipMemAddressReserve granted another): the kernarg pointers into " +
                      (S0->Moved == 1 ? "it were" : "them were") +
                      " rewritten, and no pointer in device memory reaches " +
                      (S0->Moved == 1 ? "it" : "them"));
  // The recording itself, in the replay's terms.
  launch::CaptureState Rec;
  for (const launch::CapturedRegion &G : B->Regions)
    Rec.Regions.push_back(G.Post);
  for (const launch::CapturedGlobal &G : B->Globals)
    Rec.Globals.push_back(G.Post);
  if (std::string D =
          firstCaptureDifference(*B, Spans, Rec, *S0, "the recording", "K0", O.Theta, O.Tau);
      !D.empty())
    return R.Result = Outcome::InputError,
           R.Message = "'" + O.Bundle +
                       "': K0's replay does not reproduce the recorded post-state, so the "
                       "capture is no oracle for it: " +
                       D,
           R;
  std::string Rule = Spans.empty() ? std::string("byte for byte")
                                   : countOf(Spans.size(), "typed span") + " by Eq. 1 (theta " +
                                         general(O.Theta) + ", tau " + general(O.Tau) +
                                         "), every other byte exactly";
  R.Notes.push_back(
      "K0's replay reproduces the recorded post-state: " + countOf(B->Regions.size(), "region") +
      ", " + countOf(B->Globals.size(), "global variable") + " (" + Rule + ")");
  // Only the emulator counts instructions; a GPU runs K1 unbounded.
  uint64_t Limit = !S0->Emulator ? 0
                   : O.MaxInstructions
                       ? O.MaxInstructions
                       : std::max<uint64_t>(1, S0->WaveInstructions) * O.InstructionFactor;
  if (O.Progress)
    O.Progress(Limit ? "replaying K1 (at most " + std::to_string(Limit) + " wave-instructions)"
                     : std::string("replaying K1"));
  auto S1 = replay(*B, (*K1)->C, O, Limit);
  if (!S1) {
    std::string Msg;
    llvm::handleAllErrors(
        S1.takeError(),
        [&](const LimitError &L) {
          Msg = L.Which == LimitError::Instructions && !O.MaxInstructions
                    ? "K1 ran " + std::to_string(O.InstructionFactor) +
                          "x K0's instructions: endless loop? (stopped past " +
                          std::to_string(Limit) + " wave-instructions; K0 ran " +
                          std::to_string(S0->WaveInstructions) + ")"
                    : L.Message;
        },
        [&](const ToolError &T) { Msg = formatError(T); },
        [&](const llvm::ErrorInfoBase &E) { Msg = E.message(); });
    R.Result = Outcome::RuntimeError;
    R.Message = "runtime_error: K1: " + Msg;
    return R;
  }
  R.Body["wave_instructions"] = {{"k0", S0->WaveInstructions}, {"k1", S1->WaveInstructions}};
  nlohmann::json Metrics;
  std::string D = firstCaptureDifference(*B, Spans, *S0, *S1, "K0", "K1", O.Theta, O.Tau, &Metrics);
  if (!Spans.empty())
    R.Body["typed"] = Metrics;
  if (!D.empty()) {
    R.Result = Outcome::Divergent;
    R.Message = "divergent: " + B->Kernel + " on the captured dispatch: " + D;
    return R;
  }
  for (const device::UnsafeFinding &F : S1->FindingList)
    if (!S0->Findings.count({F.Rule, F.Offset})) {
      R.Result = Outcome::Unsafe;
      R.Message = "unsafe: " + B->Kernel + ": " + F.Message;
      return R;
    }
  R.Message = "ok: " + B->Kernel + ", " + (Spans.empty() ? "every byte of " : "") +
              countOf(B->Regions.size(), "region") + " and " +
              countOf(B->Globals.size(), "global variable") +
              (Spans.empty() ? " equal to K0's" : " as K0's (" + Rule + ")") +
              " on the captured dispatch" +
              (O.Strict && S0->Emulator ? ", strict checks clean" : ", no strict checks") +
              " (backend " + S0->Backend + (S0->Emulator ? "" : ", " + S0->DeviceName) + ")";
  return R;
}

DiffResult replayCheck(const ReplayOptions &O) { return diffResultOf(runCaptureReplay(O)); }

} // namespace asmevo::check
