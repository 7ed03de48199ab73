// Replaying a captured dispatch: K0 against the recording, K1 against K0 (check/CaptureReplay.h).
#include "check/CaptureReplay.h"

#include "check/DiffCheck.h"
#include "codeobj/Input.h"
#include "device/Device.h"
#include "launch/CaptureBundle.h"
#include "launch/LaunchGeometry.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Plural.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

namespace asmevo::check {

namespace {

std::string hex(uint64_t V) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format_hex(V, 0);
  return S;
}

// What one replay left: every region's and global's bytes, in the bundle's order.
struct ReplayState {
  std::vector<std::vector<uint8_t>> Regions, Globals;
  uint64_t WaveInstructions = 0;
  std::set<std::pair<std::string, uint64_t>> Findings; // (rule, offset)
  std::vector<device::UnsafeFinding> FindingList;
};

// Run K from the bundle's pre-state on a fresh device of Backend.
llvm::Expected<ReplayState> replay(const launch::CaptureBundle &B, const CodeObject &K,
                                   const ReplayOptions &O, uint64_t MaxInstructions) {
  auto D = device::openDevice(O.Backend, K.Target.Processor);
  if (!D)
    return D.takeError();
  device::Device &Dev = **D;
  if (!Dev.info().Emulator)
    return makeError("replaying a capture needs the emu backend: the " + Dev.info().Backend +
                     " backend cannot place memory at the recorded addresses yet");
  for (const launch::CapturedRegion &R : B.Regions) {
    if (llvm::Error E = Dev.allocAt(R.Base, R.size(), "region " + hex(R.Base)))
      return std::move(E);
    if (llvm::Error E = Dev.write(R.Base, R.Pre.data(), R.size()))
      return std::move(E);
  }
  auto M = Dev.load(K);
  if (!M)
    return M.takeError();
  std::vector<device::GlobalSymbol> Globals;
  for (const launch::CapturedGlobal &G : B.Globals) {
    auto S = (*M)->global(G.Name);
    if (!S)
      return S.takeError();
    if (S->Size != G.Pre.size())
      return makeError("global variable '" + G.Name + "' has " + std::to_string(S->Size) +
                       " bytes in '" + K.Path + "', " + std::to_string(G.Pre.size()) +
                       " in the capture");
    if (llvm::Error E = Dev.write(S->Addr, G.Pre.data(), G.Pre.size()))
      return std::move(E);
    Globals.push_back(*S);
  }
  auto Items = launch::launchGridItems(
      {B.GridWorkgroups[0], B.GridWorkgroups[1], B.GridWorkgroups[2]}, true, B.Block);
  if (!Items)
    return Items.takeError();
  device::LaunchParams P;
  P.Kernel = B.Kernel;
  P.GridItems = *Items;
  P.Block = B.Block;
  P.DynamicLds = B.DynamicLds;
  P.Kernarg = B.Kernarg;
  P.Threads = O.Threads;
  P.Strict = O.Strict;
  P.MaxInstructions = MaxInstructions;
  P.TimeoutSeconds = O.TimeoutSeconds;
  auto Run = Dev.launch(**M, P);
  if (!Run)
    return Run.takeError();
  ReplayState S;
  S.WaveInstructions = Run->WaveInstructions;
  for (const device::UnsafeFinding &F : Run->Findings)
    if (S.Findings.insert({F.Rule, F.Offset}).second)
      S.FindingList.push_back(F);
  for (const launch::CapturedRegion &R : B.Regions) {
    S.Regions.emplace_back(R.size());
    if (llvm::Error E = Dev.read(R.Base, S.Regions.back().data(), R.size()))
      return std::move(E);
  }
  for (size_t I = 0; I < Globals.size(); ++I) {
    S.Globals.emplace_back(Globals[I].Size);
    if (llvm::Error E = Dev.read(Globals[I].Addr, S.Globals.back().data(), Globals[I].Size))
      return std::move(E);
  }
  return S;
}

// The first byte where Got differs from Want, in words: "region 0x7f..00 (reached from
// kernarg+0x10) byte 12: 0x00 where ... has 0x41", or "" when they are equal.
std::string firstDifference(const launch::CaptureBundle &B, const ReplayState &Want,
                            const ReplayState &Got, const std::string &WantName) {
  auto Byte = [](uint8_t V) { return hex(V); };
  for (size_t I = 0; I < B.Regions.size(); ++I)
    for (size_t J = 0; J < Want.Regions[I].size(); ++J)
      if (Want.Regions[I][J] != Got.Regions[I][J])
        return "region " + hex(B.Regions[I].Base) + " (reached from " + B.Regions[I].ReachedFrom +
               ") byte " + std::to_string(J) + " (address " + hex(B.Regions[I].Base + J) +
               "): " + Byte(Got.Regions[I][J]) + " where " + WantName + " has " +
               Byte(Want.Regions[I][J]);
  for (size_t I = 0; I < B.Globals.size(); ++I)
    for (size_t J = 0; J < Want.Globals[I].size(); ++J)
      if (Want.Globals[I][J] != Got.Globals[I][J])
        return "global variable '" + B.Globals[I].Name + "' byte " + std::to_string(J) + ": " +
               Byte(Got.Globals[I][J]) + " where " + WantName + " has " + Byte(Want.Globals[I][J]);
  return "";
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
  llvm::StringRef Recorded(reinterpret_cast<const char *>(B->CodeObject.data()),
                           B->CodeObject.size());
  if ((*K0)->C.Bytes != Recorded)
    return R.Result = Outcome::InputError,
           R.Message = "'" + O.K0 + "' is not the code object the capture recorded ('" + O.Bundle +
                       "' holds " + countOf(Recorded.size(), "byte") +
                       " of another; the bundle itself can be K0: kernel-diffcheck BUNDLE K1 "
                       "--capture BUNDLE)",
           R;
  if (!checkCandidateAbi((*K0)->C, (*K1)->C, R))
    return R;
  if (O.Progress)
    O.Progress("replaying K0 from the capture");
  auto S0 = replay(*B, (*K0)->C, O, 0);
  if (!S0) {
    R.fail(S0.takeError());
    if (R.Result == Outcome::RuntimeError)
      R.Message = "runtime_error: K0: " + R.Message;
    return R;
  }
  // The recording itself, in the replay's terms.
  ReplayState Rec;
  for (const launch::CapturedRegion &G : B->Regions)
    Rec.Regions.push_back(G.Post);
  for (const launch::CapturedGlobal &G : B->Globals)
    Rec.Globals.push_back(G.Post);
  if (std::string D = firstDifference(*B, Rec, *S0, "the recording"); !D.empty())
    return R.Result = Outcome::InputError,
           R.Message = "K0's replay does not reproduce the recorded post-state, so the capture "
                       "is no oracle for it: " +
                       D,
           R;
  R.Notes.push_back(
      "K0's replay reproduces the recorded post-state: " + countOf(B->Regions.size(), "region") +
      ", " + countOf(B->Globals.size(), "global variable"));
  uint64_t Limit = O.MaxInstructions
                       ? O.MaxInstructions
                       : std::max<uint64_t>(1, S0->WaveInstructions) * O.InstructionFactor;
  if (O.Progress)
    O.Progress("replaying K1 (at most " + std::to_string(Limit) + " wave-instructions)");
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
  if (std::string D = firstDifference(*B, *S0, *S1, "K0"); !D.empty()) {
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
  R.Message = "ok: " + B->Kernel + ", every byte of " + countOf(B->Regions.size(), "region") +
              " and " + countOf(B->Globals.size(), "global variable") +
              " equal to K0's on the captured dispatch" +
              (O.Strict ? ", strict checks clean" : ", no strict checks") + " (backend emu)";
  return R;
}

} // namespace asmevo::check
