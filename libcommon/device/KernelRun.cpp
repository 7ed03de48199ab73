#include "device/KernelRun.h"

#include "codeobj/Input.h"
#include "device/Device.h"
#include "device/LaunchGeometry.h"
#include "emu/Coverage.h"
#include "emu/Exec.h"
#include "emu/Float.h"
#include "support/Cli.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>

namespace asmevo::device {

using emu::f32ToBf16;
using emu::f32ToF16;
using emu::OpCoverage;
using emu::scanCoverage;

namespace {

const char *const Tool = "kernel-run";

bool parseU64(const std::string &S, uint64_t &V) {
  if (S.empty())
    return false;
  errno = 0;
  char *End = nullptr;
  V = std::strtoull(S.c_str(), &End, 0);
  return errno == 0 && End && *End == 0 && S[0] != '-';
}

bool parseI64(const std::string &S, int64_t &V) {
  if (S.empty())
    return false;
  errno = 0;
  char *End = nullptr;
  V = std::strtoll(S.c_str(), &End, 0);
  return errno == 0 && End && *End == 0;
}

bool parseDouble(const std::string &S, double &V) {
  if (S.empty())
    return false;
  char *End = nullptr;
  V = std::strtod(S.c_str(), &End);
  return End && *End == 0;
}

// Encode a by-value argument of Size bytes from its text.
llvm::Expected<std::vector<uint8_t>> encodeScalar(const std::string &Text, uint32_t Size,
                                                  const std::string &ArgName) {
  std::string Type, Num = Text;
  auto Colon = Text.find(':');
  if (Colon != std::string::npos) {
    Type = Text.substr(0, Colon);
    Num = Text.substr(Colon + 1);
  }
  auto bad = [&](const std::string &Why) {
    return makeError("argument '" + ArgName + "': '" + Text + "': " + Why);
  };
  std::vector<uint8_t> B(Size, 0);
  auto put = [&](const void *P, unsigned N) -> llvm::Error {
    if (N != Size)
      return bad("a " + std::to_string(N) + "-byte value for a " + std::to_string(Size) +
                 "-byte argument");
    std::memcpy(B.data(), P, N);
    return llvm::Error::success();
  };
  if (Type == "hex") {
    if (Num.size() != 2 * size_t(Size))
      return bad("hex: needs exactly " + std::to_string(2 * Size) + " hex digits");
    for (uint32_t I = 0; I < Size; ++I) {
      uint64_t V;
      if (!parseU64("0x" + Num.substr(2 * I, 2), V))
        return bad("not hex digits");
      B[I] = uint8_t(V);
    }
    return B;
  }
  if (Type.empty()) {
    bool Floaty = Num.find_first_of(".eEn") != std::string::npos && Num.rfind("0x", 0) != 0;
    if (Floaty)
      Type = Size == 8 ? "f64" : Size == 2 ? "f16" : "f32";
    else
      Type = (Size == 1 ? "i8" : Size == 2 ? "i16" : Size == 8 ? "i64" : "i32");
  }
  if (Type[0] == 'i' || Type[0] == 'u') {
    unsigned Bits = unsigned(std::atoi(Type.c_str() + 1));
    if (Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64)
      return bad("unknown type '" + Type + "'");
    uint64_t U = 0;
    int64_t I = 0;
    if (Type[0] == 'u' ? !parseU64(Num, U) : !parseI64(Num, I))
      return bad("not an integer");
    if (Type[0] == 'i')
      U = uint64_t(I);
    if (Bits < 64) {
      bool Fits = Type[0] == 'u'
                      ? U >> Bits == 0
                      : (I >= -(int64_t(1) << (Bits - 1)) && I < (int64_t(1) << (Bits - 1))) ||
                            (I >= 0 && uint64_t(I) >> Bits == 0);
      if (!Fits)
        return bad("does not fit in " + Type);
    }
    if (llvm::Error E = put(&U, Bits / 8))
      return std::move(E);
    return B;
  }
  double D;
  if (!parseDouble(Num, D))
    return bad("not a number");
  if (Type == "f32") {
    float F = float(D);
    if (llvm::Error E = put(&F, 4))
      return std::move(E);
  } else if (Type == "f64") {
    if (llvm::Error E = put(&D, 8))
      return std::move(E);
  } else if (Type == "f16" || Type == "bf16") {
    uint16_t H = Type == "f16" ? f32ToF16(float(D)) : f32ToBf16(float(D));
    if (llvm::Error E = put(&H, 2))
      return std::move(E);
  } else {
    return bad("unknown type '" + Type + "'");
  }
  return B;
}

std::string dims(const std::array<uint32_t, 3> &D) {
  return std::to_string(D[0]) + "x" + std::to_string(D[1]) + "x" + std::to_string(D[2]);
}

} // namespace

llvm::Expected<ArgSpec> parseArgSpec(const std::string &Text) {
  ArgSpec A;
  auto Eq = Text.find('=');
  if (Eq == std::string::npos) {
    A.Value = Text;
  } else {
    A.Name = Text.substr(0, Eq);
    A.Value = Text.substr(Eq + 1);
  }
  if (A.Value.empty())
    return makeError("--arg '" + Text + "': empty value");
  return A;
}

llvm::Expected<std::array<uint32_t, 3>> parseDims(const std::string &Text, const char *What) {
  std::array<uint32_t, 3> R{1, 1, 1};
  size_t Pos = 0;
  for (unsigned I = 0; I < 3; ++I) {
    size_t Comma = Text.find(',', Pos);
    std::string Part =
        Text.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    uint64_t V;
    if (!parseU64(Part, V) || V == 0 || V > 0xffffffffull)
      return makeError(std::string(What) + " '" + Text +
                       "': expected X[,Y[,Z]] with positive numbers");
    R[I] = uint32_t(V);
    if (Comma == std::string::npos)
      return R;
    Pos = Comma + 1;
  }
  return makeError(std::string(What) + " '" + Text + "': more than three dimensions");
}

int runCoverageReport(const std::vector<std::string> &Inputs, bool Json, bool Quiet) {
  auto R = scanCoverage(Inputs);
  if (!R)
    return reportError(Tool, R.takeError());
  std::vector<std::pair<std::string, OpCoverage>> Ops(R->Ops.begin(), R->Ops.end());
  std::stable_sort(Ops.begin(), Ops.end(), [](const auto &A, const auto &B) {
    return A.second.implemented() != B.second.implemented() ? !A.second.implemented()
                                                            : A.second.Count > B.second.Count;
  });
  if (Json) {
    nlohmann::json J;
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
    llvm::outs() << J.dump(2) << "\n";
  } else {
    for (const auto &[M, C] : Ops) {
      if (Quiet && C.implemented())
        continue;
      llvm::outs() << (C.implemented() ? "implemented  "
                       : C.Implemented ? "PARTIAL      "
                                       : "MISSING      ")
                   << llvm::format("%8llu  ", (unsigned long long)C.Count) << M;
      if (!C.implemented())
        llvm::outs() << "   (" << (C.Count - C.Implemented) << " not implemented in " << C.Objects
                     << " objects; first: " << C.FirstMissing << ")";
      llvm::outs() << "\n";
    }
    llvm::outs() << Tool << ": " << R->Objects << " code objects (" << R->ObjectsFullyCovered
                 << " fully covered), " << R->Functions << " functions, " << R->Instructions
                 << " instructions (" << R->Undecodable << " undecodable words); "
                 << R->implementedOps() << "/" << R->Ops.size() << " mnemonics and "
                 << R->implementedInstructions() << "/" << R->Instructions
                 << " instructions implemented\n";
    for (const std::string &S : R->Skipped)
      llvm::errs() << Tool << ": skipped " << S << ": the emulator runs gfx90a, gfx940-gfx942 "
                   << "and gfx950\n";
  }
  bool All = R->implementedOps() == R->Ops.size() && R->Skipped.empty();
  return All ? ExitOk : ExitNegative;
}

int runKernelRun(const RunRequest &Req) {
  auto Open = openCodeObject(Req.CodeObject);
  if (!Open)
    return reportError(Tool, Open.takeError());
  const CodeObject &CO = (*Open)->C;
  const KernelInfo *K = nullptr;
  if (Req.Kernel.empty()) {
    if (CO.Kernels.size() != 1)
      return reportError(Tool,
                         makeError("'" + CO.Path + "' has " + std::to_string(CO.Kernels.size()) +
                                   " kernels; choose one with --kernel"));
    K = &CO.Kernels[0];
  } else if (!(K = CO.kernel(Req.Kernel))) {
    return reportError(Tool, makeError("'" + CO.Path + "': no kernel named '" + Req.Kernel + "'"));
  }
  auto Sig = kernelSignature(CO, *K);
  if (!Sig)
    return reportError(Tool, Sig.takeError());

  // Open the device first: with auto, whether the emulator's targets matter depends on which
  // backend was picked (a GPU may run what the emulator does not).
  auto DevOr = openDevice(Req.Backend, CO.Target.Processor);
  if (!DevOr)
    return reportError(Tool, DevOr.takeError());
  Device &Dev = **DevOr;
  emu::Gfx G;
  if (Dev.info().Backend == "emu" && !emu::parseGfx(CO.Target.Processor.c_str(), G))
    return reportError(Tool, makeError("'" + CO.Path +
                                       "': the emulator runs gfx90a, gfx940, "
                                       "gfx941, gfx942 and gfx950 code objects, not " +
                                       CO.Target.Processor));
  auto Mod = Dev.load(CO);
  if (!Mod)
    return reportError(Tool, Mod.takeError());

  // Kernarg segment and buffers.
  LaunchParams L;
  L.Kernel = K->Name;
  L.Kernarg.assign(Sig->KernargSize, 0);
  std::map<const KernelArg *, uint64_t> BufferAddr;
  std::map<const KernelArg *, uint64_t> BufferSize;
  std::map<const KernelArg *, std::string> ArgLabel;
  auto Explicit = Sig->explicitArgs();
  for (size_t I = 0; I < Explicit.size(); ++I)
    ArgLabel[Explicit[I]] = Explicit[I]->Name.empty() ? "#" + std::to_string(I) : Explicit[I]->Name;
  std::map<const KernelArg *, bool> Assigned;
  size_t NextPositional = 0;
  for (const ArgSpec &S : Req.Args) {
    const KernelArg *A = nullptr;
    if (S.Name.empty()) {
      while (NextPositional < Explicit.size() && Assigned[Explicit[NextPositional]])
        ++NextPositional;
      if (NextPositional >= Explicit.size())
        return reportError(Tool, makeError("more --arg values than kernel '" + K->Name +
                                           "' has explicit arguments (" +
                                           std::to_string(Explicit.size()) + ")"));
      A = Explicit[NextPositional];
    } else if (!(A = Sig->find(S.Name))) {
      return reportError(Tool,
                         makeError("kernel '" + K->Name + "' has no argument '" + S.Name + "'"));
    }
    if (Assigned[A])
      return reportError(Tool, makeError("argument '" + ArgLabel[A] + "' is given twice"));
    Assigned[A] = true;
    const std::string &Label = ArgLabel.count(A) ? ArgLabel[A] : A->ValueKind;
    if (A->ValueKind == "global_buffer") {
      uint64_t Addr = 0;
      if (S.Value == "null") {
        Addr = 0;
      } else if (S.Value[0] == '@' || S.Value.rfind("zeros:", 0) == 0) {
        std::string Data;
        uint64_t Size;
        if (S.Value[0] == '@') {
          auto F = readFile(S.Value.substr(1));
          if (!F)
            return reportError(Tool, F.takeError());
          Data = (*F)->getBuffer().str();
          Size = Data.size();
        } else if (!parseU64(S.Value.substr(6), Size) || Size == 0) {
          return reportError(Tool, makeError("argument '" + Label + "': '" + S.Value +
                                             "': zeros: needs a positive byte count"));
        }
        if (Size == 0)
          return reportError(Tool, makeError("argument '" + Label + "': file '" +
                                             S.Value.substr(1) + "' is empty"));
        auto A2 = Dev.alloc(Size, "argument " + Label);
        if (!A2)
          return reportError(Tool, A2.takeError());
        Addr = *A2;
        if (!Data.empty())
          if (llvm::Error E = Dev.write(Addr, Data.data(), Data.size()))
            return reportError(Tool, std::move(E));
        BufferAddr[A] = Addr;
        BufferSize[A] = Size;
      } else if (S.Value.rfind("addr:", 0) == 0 && parseU64(S.Value.substr(5), Addr)) {
      } else {
        return reportError(Tool, makeError("argument '" + Label +
                                           "' is a pointer: give @FILE, "
                                           "zeros:BYTES, null or addr:ADDRESS, not '" +
                                           S.Value + "'"));
      }
      for (unsigned I = 0; I < 8 && I < A->Size; ++I)
        L.Kernarg[A->Offset + I] = uint8_t(Addr >> (8 * I));
    } else {
      auto B = encodeScalar(S.Value, A->Size, Label);
      if (!B)
        return reportError(Tool, B.takeError());
      std::memcpy(&L.Kernarg[A->Offset], B->data(), B->size());
    }
  }
  for (const KernelArg *A : Explicit)
    if (!Assigned[A])
      return reportError(Tool, makeError("argument '" + ArgLabel[A] + "' (" + A->ValueKind +
                                         ", offset " + std::to_string(A->Offset) +
                                         ") has no value: add --arg " + ArgLabel[A] + "=..."));
  std::vector<std::pair<const KernelArg *, std::string>> Outs;
  for (const auto &[Name, File] : Req.Outputs) {
    const KernelArg *A = Sig->find(Name);
    if (!A)
      return reportError(
          Tool, makeError("--out: kernel '" + K->Name + "' has no argument '" + Name + "'"));
    if (!BufferAddr.count(A))
      return reportError(Tool, makeError("--out: argument '" + Name +
                                         "' is not a buffer this run allocated (@FILE or zeros:)"));
    Outs.push_back({A, File});
  }

  // Launch geometry.
  if (Req.Block[0] == 0)
    return reportError(Tool, makeError("no workgroup size: give --block X[,Y[,Z]]"));
  L.Block = Req.Block;
  if (!Req.GridItems[0] && !Req.Grid[0])
    return reportError(Tool, makeError("no grid: give --grid (workgroups) or --grid-items"));
  bool InGroups = !Req.GridItems[0];
  const auto &Dims = InGroups ? Req.Grid : Req.GridItems;
  auto Items = launchGridItems({Dims[0], Dims[1], Dims[2]}, InGroups, Req.Block);
  if (!Items)
    return reportError(Tool, Items.takeError());
  L.GridItems = *Items;
  L.DynamicLds = Req.DynamicLds;
  L.Threads = Req.Threads;
  L.Seed = Req.Seed;
  L.MaxInstructions = Req.MaxInstructions;
  L.TimeoutSeconds = Req.TimeoutSeconds;
  L.Strict = Req.Strict;
  L.VarySchedule = Req.VarySchedule;
  if ((Req.MaxInstructions || Req.TimeoutSeconds > 0) && Dev.info().Hardware)
    return reportError(Tool, makeError("--max-instructions and --timeout need the emu backend"));
  if (Req.Strict && Dev.info().Hardware)
    return reportError(Tool, makeError("--strict and --sync-profile need the emu backend (a GPU "
                                       "cannot report what its timing hid)"));
  auto Stats = Dev.launch(**Mod, L);
  if (!Stats)
    return reportError(Tool, Stats.takeError());
  if (!Req.SyncProfile.empty()) {
    nlohmann::json P;
    P["kernel"] = K->Name;
    P["waits"] = nlohmann::json::array();
    for (const WaitStat &W : Stats->Waits)
      P["waits"].push_back({{"offset", W.Offset},
                            {"executions", W.Executions},
                            {"max_outstanding", {{"vm", W.MaxVm}, {"lgkm", W.MaxLgkm}}}});
    if (llvm::Error E = writeFileAtomic(Req.SyncProfile, P.dump(2) + "\n"))
      return reportError(Tool, std::move(E));
  }
  for (const auto &[A, File] : Outs) {
    std::string Data(BufferSize[A], '\0');
    if (llvm::Error E = Dev.read(BufferAddr[A], Data.data(), Data.size()))
      return reportError(Tool, std::move(E));
    if (llvm::Error E = writeFileAtomic(File, Data))
      return reportError(Tool, std::move(E));
  }
  const DeviceInfo &DI = Dev.info();
  if (Req.Json) {
    nlohmann::json J;
    J["backend"] = DI.Backend;
    J["device"] = DI.Name;
    J["kernel"] = K->Name;
    J["grid_items"] = L.GridItems;
    J["block"] = L.Block;
    J["seed"] = L.Seed;
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
      for (const SyncFinding &F : Stats->Findings)
        J["unsafe"].push_back({{"rule", F.Rule}, {"offset", F.Offset}, {"message", F.Message}});
    }
    llvm::outs() << J.dump(2) << "\n";
  } else if (!Req.Quiet) {
    llvm::errs() << Tool << ": backend " << DI.Backend << ", " << DI.Name << ", kernel " << K->Name
                 << ", grid " << dims(L.GridItems) << " work-items, block " << dims(L.Block)
                 << ", seed " << L.Seed << "\n"
                 << Tool << ": " << Stats->Workgroups << " workgroups, " << Stats->Waves
                 << " waves, ";
    if (DI.Hardware)
      llvm::errs() << llvm::format("%.6f", Stats->Seconds) << " s GPU time (HIP events)\n";
    else
      llvm::errs() << Stats->WaveInstructions << " wave instructions, " << Stats->LaneInstructions
                   << " lane instructions, " << llvm::format("%.3f", Stats->Seconds)
                   << " s host time on " << Stats->HostThreads
                   << " threads (emulated, not GPU time)\n";
  }
  if (Stats->Checked && !Stats->Findings.empty()) {
    if (!Req.Json)
      for (const SyncFinding &F : Stats->Findings)
        llvm::errs() << Tool << ": unsafe: " << F.Message << "\n";
    llvm::errs() << Tool << ": the strict checks found " << Stats->FindingsTotal
                 << " unsafe operation(s) in kernel " << K->Name << "\n";
    return 1;
  }
  return ExitOk;
}

} // namespace asmevo::device
