#include "KernelRun.h"

#include "codeobj/Input.h"
#include "device/Device.h"
#include "emu/Coverage.h"
#include "emu/Exec.h"
#include "launch/ArgBinding.h"
#include "launch/ArgText.h"
#include "launch/LaunchGeometry.h"
#include "launch/LaunchSpec.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Plural.h"
#include "support/ProgressLine.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>

namespace asmevo {

using namespace device;
using emu::OpCoverage;
using emu::scanCoverage;

namespace {

const char *const Tool = "kernel-run";

std::string dims(const std::array<uint32_t, 3> &D) {
  return std::to_string(D[0]) + "x" + std::to_string(D[1]) + "x" + std::to_string(D[2]);
}

} // namespace

int runCoverage(const Cli &C, const std::vector<std::string> &Inputs) {
  Report Rep = C.report();
  bool Json = C.common().Json, Quiet = C.common().Quiet;
  auto R = scanCoverage(Inputs);
  if (!R)
    return C.fail(Rep, R.takeError());
  std::vector<std::pair<std::string, OpCoverage>> Ops(R->Ops.begin(), R->Ops.end());
  std::stable_sort(Ops.begin(), Ops.end(), [](const auto &A, const auto &B) {
    return A.second.implemented() != B.second.implemented() ? !A.second.implemented()
                                                            : A.second.Count > B.second.Count;
  });
  bool All = R->implementedOps() == R->Ops.size() && R->Skipped.empty();
  Rep.Result = All ? Outcome::Ok : Outcome::NotCovered;
  Rep.Backend = "emu";
  if (Json) {
    nlohmann::json &J = Rep.Body;
    J["objects"] = R->Objects;
    J["objects_fully_covered"] = R->ObjectsFullyCovered;
    J["functions"] = R->Functions;
    J["instructions"] = R->Instructions;
    J["undecodable_words"] = R->Undecodable;
    J["mnemonics"] = R->Ops.size();
    J["implemented_mnemonics"] = R->implementedOps();
    J["implemented_instructions"] = R->implementedInstructions();
    J["skipped"] = R->Skipped;
    J["ops"] = nlohmann::json::array();
    for (const auto &[M, C] : Ops) {
      nlohmann::json E{{"mnemonic", M},
                       {"count", C.Count},
                       {"implemented", C.Implemented},
                       {"objects", C.Objects},
                       {"first_seen", C.FirstSeen}};
      if (!C.implemented())
        E["first_missing"] = C.FirstMissing;
      J["ops"].push_back(E);
    }
    for (const std::string &In : Inputs) {
      auto F = readFile(In); // a file:// URI's container is not hashed: it is not one object
      if (F)
        Rep.Inputs.push_back(reportInput("input", In, (*F)->getBuffer()));
      else
        llvm::consumeError(F.takeError());
    }
    Rep.Message = std::to_string(R->implementedInstructions()) + "/" +
                  std::to_string(R->Instructions) + " instructions implemented";
    return C.printJson(Rep);
  } else {
    for (const auto &[M, C] : Ops) {
      if (Quiet && C.implemented())
        continue;
      llvm::outs() << (C.implemented() ? "implemented  "
                       : C.Implemented ? "PARTIAL      "
                                       : "MISSING      ")
                   << llvm::format("%8llu  ", (unsigned long long)C.Count) << M;
      if (!C.implemented())
        llvm::outs() << "   (" << (C.Count - C.Implemented) << " not implemented in "
                     << countOf(C.Objects, "object") << "; first: " << C.FirstMissing << ")";
      llvm::outs() << "\n";
    }
    llvm::outs() << Tool << ": " << countOf(R->Objects, "code object") << " ("
                 << R->ObjectsFullyCovered << " fully covered), "
                 << countOf(R->Functions, "function") << ", "
                 << countOf(R->Instructions, "instruction") << " ("
                 << countOf(R->Undecodable, "undecodable word") << "); " << R->implementedOps()
                 << "/" << R->Ops.size() << " mnemonics and " << R->implementedInstructions() << "/"
                 << R->Instructions << " instructions implemented\n";
    for (const std::string &S : R->Skipped)
      llvm::errs() << Tool << ": skipped " << S << ": the emulator runs gfx90a, gfx940-gfx942 "
                   << "and gfx950\n";
  }
  return Rep.exitCode();
}

int runKernelRun(const Cli &C, const KernelRunConfig &Cfg) {
  Report Rep = C.report();
  Rep.Seeds = {Cfg.Seed};
  auto Open = openCodeObject(Cfg.CodeObject);
  if (!Open)
    return C.fail(Rep, Open.takeError());
  const CodeObject &CO = (*Open)->C;
  Rep.Inputs.push_back(reportInput("input", Cfg.CodeObject, CO.Bytes));
  auto KOr = launch::chooseKernel(CO, Cfg.Launch.Kernel, "--kernel");
  if (!KOr)
    return C.fail(Rep, KOr.takeError());
  const KernelInfo *K = *KOr;
  auto Sig = kernelSignature(CO, *K);
  if (!Sig)
    return C.fail(Rep, Sig.takeError());
  std::vector<launch::ArgText> Texts;
  for (const std::string &S : Cfg.Args) {
    auto A = launch::parseArgText(S);
    if (!A)
      return C.fail(Rep, A.takeError());
    Texts.push_back(*A);
  }
  auto Bound = launch::bindArgTexts(*Sig, K->Name, Texts);
  if (!Bound)
    return C.fail(Rep, Bound.takeError());
  std::vector<std::pair<const launch::BufferArg *, std::string>> Outs;
  for (const auto &[Name, File] : Cfg.Outputs) {
    std::string Base = launch::splitTableEntryName(Name).first;
    if (!Sig->find(Base))
      return C.fail(Rep, makeError("--out: " + launch::noSuchArgument(*Sig, Base)));
    const launch::BufferArg *B = Bound->buffer(*Sig, Name);
    if (!B)
      return C.fail(Rep, makeError("--out: argument '" + Name +
                                   "' is not a buffer this run allocated (@FILE, zeros: or an "
                                   "entry NAME[I] of a table:)"));
    Outs.push_back({B, File});
  }

  // Launch geometry.
  const LaunchOptions &G = Cfg.Launch;
  if (G.Block[0] == 0)
    return C.fail(Rep, makeError("no workgroup size: give --block X[,Y[,Z]]"));
  if (!G.GridItems[0] && !G.Grid[0])
    return C.fail(Rep, makeError("no grid: give --grid (workgroups) or --grid-items"));
  bool InGroups = !G.GridItems[0];
  const auto &Dims = InGroups ? G.Grid : G.GridItems;
  auto Items = launch::launchGridItems({Dims[0], Dims[1], Dims[2]}, InGroups, G.Block);
  if (!Items)
    return C.fail(Rep, Items.takeError());

  // Open the device first: with auto, whether the emulator's targets matter depends on which
  // backend was picked (a GPU may run what the emulator does not).
  auto DevOr = openDevice(Cfg.Device.Backend, CO.Target.Processor);
  if (!DevOr)
    return C.fail(Rep, DevOr.takeError());
  Device &Dev = **DevOr;
  const DeviceInfo &DI = Dev.info();
  Rep.Backend = DI.Backend;
  emu::Gfx Gfx;
  if (DI.Backend == "emu" && !emu::parseGfx(CO.Target.Processor.c_str(), Gfx))
    return C.fail(Rep, makeError("'" + CO.Path +
                                 "': the emulator runs gfx90a, gfx940, gfx941, gfx942 and "
                                 "gfx950 code objects, not " +
                                 CO.Target.Processor));
  if ((Cfg.MaxInstructions || Cfg.Device.TimeoutSeconds > 0) && !DI.Emulator)
    return C.fail(Rep, makeError("--max-instructions and --timeout need the emu backend"));
  if (Cfg.Strict && !DI.Emulator)
    return C.fail(Rep, makeError("--strict and --sync-profile need the emu backend (a GPU "
                                 "cannot report what its timing hid)"));
  auto Mod = Dev.load(CO);
  if (!Mod)
    return C.fail(Rep, Mod.takeError());
  if (llvm::Error E = launch::placeBuffers(Dev, *Bound))
    return C.fail(Rep, std::move(E));

  LaunchParams L;
  L.Kernel = K->Name;
  L.Kernarg = Bound->Kernarg;
  L.Block = G.Block;
  L.GridItems = *Items;
  L.DynamicLds = G.DynamicLds;
  L.Threads = Cfg.Device.Threads;
  L.Seed = Cfg.Seed;
  L.MaxInstructions = Cfg.MaxInstructions;
  L.TimeoutSeconds = Cfg.Device.TimeoutSeconds;
  L.Strict = Cfg.Strict;
  L.VarySchedule = Cfg.VarySchedule;
  auto Progress = C.progress();
  if (Progress)
    Progress("launching " + K->Name + " on " + DI.Backend + " (" + DI.Name + "), grid " +
             dims(L.GridItems) + " work-items, block " + dims(L.Block));
  // A long emulated grid shows signs of life: a progress line on a terminal, and with -v a line
  // at every tenth of the workgroups once the run has taken a second.
  ProgressLine Line(Tool, C.progressLineWanted() && DI.Emulator);
  std::atomic<unsigned> TenthsShown{0};
  auto Start = std::chrono::steady_clock::now();
  if (DI.Emulator && (Line.enabled() || Progress))
    L.OnWorkgroupDone = [&](uint64_t Done, uint64_t Total) {
      Line.update(progressCount(Done, Total, "workgroups"));
      if (!Progress || Total < 10)
        return;
      unsigned Tenth = unsigned(Done * 10 / Total), Shown = TenthsShown.load();
      if (Tenth > Shown && Tenth < 10 &&
          std::chrono::steady_clock::now() - Start > std::chrono::seconds(1) &&
          TenthsShown.compare_exchange_strong(Shown, Tenth)) {
        Line.clear();
        Progress(progressCount(Done, Total, "workgroups") + " done");
      }
    };
  auto Stats = Dev.launch(**Mod, L);
  Line.clear();
  if (!Stats)
    return C.fail(Rep, Stats.takeError());
  if (!Cfg.SyncProfile.empty()) {
    nlohmann::json P;
    P["kernel"] = K->Name;
    P["waits"] = nlohmann::json::array();
    for (const WaitStat &W : Stats->Waits)
      P["waits"].push_back({{"offset", W.Offset},
                            {"executions", W.Executions},
                            {"max_outstanding", {{"vm", W.MaxVm}, {"lgkm", W.MaxLgkm}}}});
    // The kernel's name may be any bytes: what is not UTF-8 is replaced, not fatal.
    std::string Text = P.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (llvm::Error E = writeFileAtomic(Cfg.SyncProfile, Text))
      return C.fail(Rep, std::move(E));
  }
  for (const auto &[B, File] : Outs) {
    std::string Data(B->Size, '\0');
    if (llvm::Error E = Dev.read(B->Address, Data.data(), Data.size()))
      return C.fail(Rep, std::move(E));
    if (llvm::Error E = writeFileAtomic(File, Data))
      return C.fail(Rep, std::move(E));
  }
  bool Unsafe = Stats->Checked && !Stats->Findings.empty();
  Rep.Result = Unsafe ? Outcome::Unsafe : Outcome::Ok;
  if (Unsafe)
    Rep.Message = "the strict checks found " + std::to_string(Stats->FindingsTotal) +
                  " unsafe operation(s) in kernel " + K->Name;
  else
    Rep.Message = "ran " + K->Name;
  if (C.common().Json) {
    nlohmann::json &J = Rep.Body;
    J["device"] = DI.Name;
    J["kernel"] = K->Name;
    J["grid_items"] = L.GridItems;
    J["block"] = L.Block;
    J["workgroups"] = Stats->Workgroups;
    J["waves"] = Stats->Waves;
    J["wave_instructions"] = Stats->WaveInstructions;
    J["lane_instructions"] = Stats->LaneInstructions;
    if (DI.Hardware) {
      J["gpu_seconds"] = Stats->Seconds;
    } else {
      J["host_seconds"] = Stats->Seconds;
      J["host_threads"] = Stats->HostThreads;
    }
    J["timing"] = DI.Hardware ? "GPU time" : "emulated: host time, not GPU time";
    if (Stats->Checked) {
      J["unsafe_total"] = Stats->FindingsTotal;
      J["unsafe"] = nlohmann::json::array();
      for (const UnsafeFinding &F : Stats->Findings)
        J["unsafe"].push_back({{"rule", F.Rule},
                               {"kernel", K->Name},
                               {"offset", F.Offset},
                               {"instructions", F.Instructions},
                               {"message", F.Message}});
    }
    if (Unsafe)
      llvm::errs() << Tool << ": " << Rep.Message << "\n";
    return C.printJson(Rep);
  }
  if (!C.common().Quiet) {
    llvm::errs() << Tool << ": backend " << DI.Backend << ", " << DI.Name << ", kernel " << K->Name
                 << ", grid " << dims(L.GridItems) << " work-items, block " << dims(L.Block)
                 << ", seed " << L.Seed << "\n"
                 << Tool << ": " << countOf(Stats->Workgroups, "workgroup") << ", "
                 << countOf(Stats->Waves, "wave") << ", ";
    if (DI.Hardware)
      llvm::errs() << llvm::format("%.6f", Stats->Seconds) << " s GPU time (HIP events)\n";
    else
      llvm::errs() << countOf(Stats->WaveInstructions, "wave instruction") << ", "
                   << countOf(Stats->LaneInstructions, "lane instruction") << ", "
                   << llvm::format("%.3f", Stats->Seconds) << " s host time on "
                   << countOf(Stats->HostThreads, "thread") << " (emulated, not GPU time)\n";
  }
  if (Unsafe) {
    for (const UnsafeFinding &F : Stats->Findings)
      llvm::errs() << Tool << ": unsafe: " << F.Message << "\n";
    llvm::errs() << Tool << ": " << Rep.Message << "\n";
  }
  return Rep.exitCode();
}

} // namespace asmevo
