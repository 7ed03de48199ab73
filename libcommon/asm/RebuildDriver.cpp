// hsaco-rebuild's work: assembly -> code object with recomputed resources and ABI checks.
#include "asm/RebuildDriver.h"
#include "asm/AbiCheck.h"
#include "asm/Rebuild.h"
#include "asm/ResourceScan.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "support/Cli.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

static const char *Tool = "hsaco-rebuild";

namespace {
nlohmann::json occupancyJson(const Occupancy &O) {
  return {{"waves_per_simd", O.WavesPerSimd},
          {"limited_by", O.Limiter},
          {"detail", O.Detail},
          {"by_vgprs", O.ByVgprs},
          {"by_sgprs", O.BySgprs},
          {"by_lds", O.ByLds},
          {"by_workgroups", O.ByWorkgroups}};
}

int report(const RebuildConfig &Cfg, const std::vector<AbiViolation> &V, const RebuildResult *R) {
  if (Cfg.Json) {
    nlohmann::json J{{"tool", Tool},
                     {"version", versionString(Tool)},
                     {"outcome", V.empty() ? "ok" : "abi_invalid"},
                     {"violations", violationsJson(V)}};
    if (R) {
      J["assemblies"] = R->Assemblies;
      J["changes"] = nlohmann::json::array();
      for (const auto &C : R->Changes)
        J["changes"].push_back(
            {{"kernel", C.Kernel}, {"field", C.Field}, {"old", C.Old}, {"new", C.New}});
      J["not_shrunk"] = R->NotShrunk;
      J["k0_itself"] = violationsJson(R->Inherited);
      J["occupancy"] = nlohmann::json::array();
      for (const auto &O : R->Occupancies) {
        nlohmann::json E{{"kernel", O.Kernel}, {"now", occupancyJson(O.Now)}};
        if (O.Before)
          E["before"] = occupancyJson(*O.Before);
        E["resized"] = O.Resized;
        J["occupancy"].push_back(E);
      }
    }
    llvm::outs() << J.dump(1) << "\n";
  } else {
    for (const auto &X : V)
      llvm::errs() << Tool << ": " << X.text() << "\n";
    if (R && !Cfg.Quiet) {
      for (const auto &C : R->Changes)
        llvm::errs() << Tool << ": kernel " << C.Kernel << ": " << C.Field << " " << C.Old << " -> "
                     << C.New << "\n";
      for (const auto &X : R->Inherited)
        llvm::errs() << Tool << ": note: K0 does this too (not refused): " << X.what() << "\n";
      for (const auto &N : R->NotShrunk)
        llvm::errs() << Tool << ": kernel " << N << ": resources not shrunk\n";
      for (const auto &O : R->Occupancies) {
        if (!V.empty() || (!O.Resized && !Cfg.Verbose))
          continue;
        llvm::errs() << Tool << ": kernel " << O.Kernel << ": occupancy " << O.Now.text();
        if (O.Before && O.Before->WavesPerSimd != O.Now.WavesPerSimd)
          llvm::errs() << ", was " << O.Before->text();
        llvm::errs() << "\n";
      }
    }
  }
  return V.empty() ? ExitOk : ExitNegative;
}
} // namespace

// Scanned register use against what the descriptor and metadata declare, kernel by kernel:
// "exact" where the declared counts are LLVM's for this code, "fits" where they are larger (hand-
// written kernels often declare more), "EXCEEDS" where the code uses registers the descriptor
// does not allocate (the hardware would not give them to the wave).
static int printResources(const RebuildConfig &Cfg) {
  unsigned Kernels = 0, Exact = 0, Exceed = 0;
  nlohmann::json J = nlohmann::json::array();
  std::string Text;
  for (const auto &In : Cfg.ResourcesOf) {
    auto Objs = loadCodeObjects(In, "");
    if (!Objs)
      return reportError(Tool, Objs.takeError());
    for (const auto &O : *Objs) {
      auto C = CodeObject::read(O.Bytes, O.Name);
      if (!C)
        return reportError(Tool, C.takeError());
      auto Scan = scanKernelResources(*C);
      if (!Scan)
        return reportError(Tool, withFile(Scan.takeError(), O.Name));
      for (const auto &R : *Scan) {
        const KernelInfo *K = C->kernel(R.Kernel);
        if (!K)
          continue;
        auto Meta = [&](const char *Key) -> int64_t {
          auto V = K->Meta ? Metadata::getUInt(*K->Meta, Key) : std::nullopt;
          return V ? int64_t(*V) : -1;
        };
        int64_t MV = Meta(".vgpr_count"), MA = Meta(".agpr_count"), MS = Meta(".sgpr_count");
        bool IsExact = MV == R.TotalVgprs && (MA < 0 || MA == R.NumAgprs) && MS == R.TotalSgprs &&
                       K->Kd.granulatedVgprCount() == R.VgprBlocks &&
                       K->Kd.granulatedSgprCount() == R.SgprBlocks &&
                       (!C->Target.hasGfx90aInsts() || K->Kd.accumOffset() == R.AccumOffset);
        bool Fits = registerFit(K->Kd, C->Target, R).fits();
        Occupancy Occ = kernelOccupancy(*K, C->Target);
        ++Kernels;
        Exact += IsExact;
        Exceed += !Fits;
        std::string Status = !Fits ? "EXCEEDS" : IsExact ? "exact" : "fits";
        std::string Line =
            Status + " " + O.Name + " " + R.Kernel + ": vgpr " + std::to_string(R.TotalVgprs) +
            "/" + std::to_string(MV) + " agpr " + std::to_string(R.NumAgprs) + "/" +
            std::to_string(MA) + " sgpr " + std::to_string(R.TotalSgprs) + "/" +
            std::to_string(MS) + " granules v" + std::to_string(R.VgprBlocks) + "/" +
            std::to_string(K->Kd.granulatedVgprCount()) + " s" + std::to_string(R.SgprBlocks) +
            "/" + std::to_string(K->Kd.granulatedSgprCount()) +
            (R.Use.complete() ? "" : " (scan incomplete: indirect indexing or calls)") +
            "; occupancy " + Occ.text();
        if (!Cfg.Quiet || !IsExact)
          Text += Line + "\n";
        J.push_back({{"object", O.Name},
                     {"kernel", R.Kernel},
                     {"status", Status},
                     {"scan_complete", R.Use.complete()},
                     {"scanned",
                      {{"vgpr", R.TotalVgprs},
                       {"agpr", R.NumAgprs},
                       {"sgpr", R.TotalSgprs},
                       {"accum_offset", R.AccumOffset},
                       {"vgpr_blocks", R.VgprBlocks},
                       {"sgpr_blocks", R.SgprBlocks}}},
                     {"declared",
                      {{"vgpr", MV},
                       {"agpr", MA},
                       {"sgpr", MS},
                       {"accum_offset", K->Kd.accumOffset()},
                       {"vgpr_blocks", K->Kd.granulatedVgprCount()},
                       {"sgpr_blocks", K->Kd.granulatedSgprCount()}}},
                     {"occupancy", occupancyJson(Occ)}});
      }
    }
  }
  if (Cfg.Json)
    llvm::outs() << nlohmann::json{{"kernels", Kernels},
                                   {"exact", Exact},
                                   {"exceed", Exceed},
                                   {"results", J}}
                        .dump(1)
                 << "\n";
  else
    llvm::outs() << Text << "resources: " << Kernels << " kernels, " << Exact
                 << " declared exactly as LLVM counts their code, " << Exceed
                 << " using registers their descriptor does not allocate\n";
  return Exceed == 0 ? ExitOk : ExitNegative;
}

int runHsacoRebuild(const RebuildConfig &Cfg) {
  if (!Cfg.ResourcesOf.empty())
    return printResources(Cfg);
  std::unique_ptr<OpenCodeObject> K0;
  if (!Cfg.AbiOf.empty()) {
    auto L = openCodeObject(Cfg.AbiOf);
    if (!L)
      return reportError(Tool, L.takeError());
    K0 = std::move(*L);
  }
  if (Cfg.CheckAbi) {
    auto K1 = openCodeObject(Cfg.Input);
    if (!K1)
      return reportError(Tool, K1.takeError());
    auto S1 = staticViolations((*K1)->C);
    if (!S1)
      return reportError(Tool, withFile(S1.takeError(), Cfg.Input));
    auto S0 = staticViolations(K0->C);
    if (!S0)
      return reportError(Tool, withFile(S0.takeError(), Cfg.AbiOf));
    std::vector<AbiViolation> Inherited;
    auto V = checkFrozenAbi(K0->C, (*K1)->C);
    auto New = violationsNotInK0(*S1, *S0, &Inherited);
    V.insert(V.end(), New.begin(), New.end());
    if (!Cfg.Quiet && !Cfg.Json)
      for (const auto &X : Inherited)
        llvm::errs() << Tool << ": note: K0 does this too (not refused): " << X.what() << "\n";
    int Code = report(Cfg, V, nullptr);
    if (Code == ExitOk && !Cfg.Json && !Cfg.Quiet)
      llvm::outs() << Cfg.Input << ": ABI of " << Cfg.AbiOf << " kept, resources consistent\n";
    return Code;
  }
  auto Text = readFile(Cfg.Input);
  if (!Text)
    return reportError(Tool, Text.takeError());
  RebuildOptions Opts;
  Opts.ShrinkResources = Cfg.ShrinkResources;
  auto R = rebuildFromAssembly((*Text)->getBuffer(), Cfg.Input, K0 ? &K0->C : nullptr, Opts);
  if (!R)
    return reportError(Tool, withFile(R.takeError(), Cfg.Input));
  int Code = report(Cfg, R->Violations, &*R);
  if (Code != ExitOk)
    return Code; // abi_invalid: nothing is written
  if (auto E = writeFileAtomic(Cfg.Output, R->Object))
    return reportError(Tool, std::move(E));
  return ExitOk;
}

} // namespace asmevo
