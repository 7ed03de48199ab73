#include "HsacoRebuild.h"

#include "asm/AbiCheck.h"
#include "asm/Rebuild.h"
#include "asm/ResourceScan.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Plural.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

namespace {

const char *const Tool = "hsaco-rebuild";

nlohmann::json occupancyJson(const Occupancy &O) {
  return {{"waves_per_simd", O.WavesPerSimd},
          {"limited_by", O.Limiter},
          {"detail", O.Detail},
          {"by_vgprs", O.ByVgprs},
          {"by_sgprs", O.BySgprs},
          {"by_lds", O.ByLds},
          {"by_workgroups", O.ByWorkgroups}};
}

// The verdict of a rebuild or an ABI check: text on stderr, or the envelope.
int report(const Cli &C, Report &Rep, const std::vector<AbiViolation> &V, const RebuildResult *R) {
  bool Quiet = C.common().Quiet, Verbose = C.common().Verbose;
  Rep.Result = V.empty() ? Outcome::Ok : Outcome::AbiInvalid;
  if (!V.empty())
    Rep.Message = V[0].text();
  for (size_t I = 1; I < V.size(); ++I)
    Rep.Notes.push_back("also " + V[I].text());
  if (C.common().Json) {
    nlohmann::json &J = Rep.Body;
    J["violations"] = violationsJson(V);
    if (R) {
      J["assemblies"] = R->Assemblies;
      J["changes"] = nlohmann::json::array();
      for (const auto &Ch : R->Changes)
        J["changes"].push_back(
            {{"kernel", Ch.Kernel}, {"field", Ch.Field}, {"old", Ch.Old}, {"new", Ch.New}});
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
    return C.printJson(Rep);
  }
  for (const auto &X : V)
    llvm::errs() << Tool << ": " << X.text() << "\n";
  if (R && !Quiet) {
    for (const auto &Ch : R->Changes)
      llvm::errs() << Tool << ": kernel " << Ch.Kernel << ": " << Ch.Field << " " << Ch.Old
                   << " -> " << Ch.New << "\n";
    for (const auto &X : R->Inherited)
      llvm::errs() << Tool << ": note: K0 does this too (not refused): " << X.what() << "\n";
    for (const auto &N : R->NotShrunk)
      llvm::errs() << Tool << ": kernel " << N << ": resources not shrunk\n";
    for (const auto &O : R->Occupancies) {
      if (!V.empty() || (!O.Resized && !Verbose))
        continue;
      llvm::errs() << Tool << ": kernel " << O.Kernel << ": occupancy " << O.Now.text();
      if (O.Before && O.Before->WavesPerSimd != O.Now.WavesPerSimd)
        llvm::errs() << ", was " << O.Before->text();
      llvm::errs() << "\n";
    }
  }
  return Rep.exitCode();
}
} // namespace

namespace {

// Scanned register use against what the descriptor and metadata declare, kernel by kernel:
// "exact" where the declared counts are LLVM's for this code, "fits" where they are larger (hand-
// written kernels often declare more), "EXCEEDS" where the code uses registers the descriptor
// does not allocate (the hardware would not give them to the wave).
int printResources(const Cli &C, const RebuildConfig &Cfg) {
  Report Rep = C.report();
  bool Quiet = C.common().Quiet;
  unsigned Kernels = 0, Exact = 0, Exceed = 0;
  nlohmann::json J = nlohmann::json::array();
  std::string Text;
  for (const auto &In : Cfg.ResourcesOf) {
    auto Objs = loadCodeObjects(In, "");
    if (!Objs)
      return C.fail(Rep, Objs.takeError());
    for (const auto &O : *Objs) {
      auto CO = CodeObject::read(O.Bytes, O.Name);
      if (!CO)
        return C.fail(Rep, CO.takeError());
      Rep.Inputs.push_back(reportInput("object", O.Name, O.Bytes));
      auto Scan = scanKernelResources(*CO);
      if (!Scan)
        return C.fail(Rep, withFile(Scan.takeError(), O.Name));
      for (const auto &R : *Scan) {
        const KernelInfo *K = CO->kernel(R.Kernel);
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
                       (!CO->Target.hasGfx90aInsts() || K->Kd.accumOffset() == R.AccumOffset);
        bool Fits = registerFit(K->Kd, CO->Target, R).fits();
        Occupancy Occ = kernelOccupancy(*K, CO->Target);
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
        if (!Quiet || !IsExact)
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
  Rep.Result = Exceed == 0 ? Outcome::Ok : Outcome::AbiInvalid;
  Rep.Message = countOf(Kernels, "kernel") + ", " + std::to_string(Exact) +
                " declared exactly as LLVM counts their code, " + std::to_string(Exceed) +
                " using registers their descriptor does not allocate";
  if (C.common().Json) {
    Rep.Body = {{"kernels", Kernels}, {"exact", Exact}, {"exceed", Exceed}, {"results", J}};
    return C.printJson(Rep);
  }
  llvm::outs() << Text << "resources: " << Rep.Message << "\n";
  return Rep.exitCode();
}

} // namespace

int runHsacoRebuild(const Cli &C, const RebuildConfig &Cfg) {
  if (!Cfg.ResourcesOf.empty())
    return printResources(C, Cfg);
  Report Rep = C.report();
  std::unique_ptr<OpenCodeObject> K0;
  if (!Cfg.AbiOf.empty()) {
    auto L = openCodeObject(Cfg.AbiOf);
    if (!L)
      return C.fail(Rep, L.takeError());
    K0 = std::move(*L);
    Rep.Inputs.push_back(reportInput("k0", Cfg.AbiOf, K0->C.Bytes));
  }
  if (Cfg.CheckAbi) {
    auto K1 = openCodeObject(Cfg.Input);
    if (!K1)
      return C.fail(Rep, K1.takeError());
    Rep.Inputs.push_back(reportInput("k1", Cfg.Input, (*K1)->C.Bytes));
    auto S1 = staticViolations((*K1)->C);
    if (!S1)
      return C.fail(Rep, withFile(S1.takeError(), Cfg.Input));
    auto S0 = staticViolations(K0->C);
    if (!S0)
      return C.fail(Rep, withFile(S0.takeError(), Cfg.AbiOf));
    std::vector<AbiViolation> Inherited;
    auto V = checkFrozenAbi(K0->C, (*K1)->C);
    auto New = violationsNotInK0(*S1, *S0, &Inherited);
    V.insert(V.end(), New.begin(), New.end());
    if (!C.common().Json)
      for (const auto &X : Inherited)
        C.note("K0 does this too (not refused): " + X.what());
    if (V.empty())
      Rep.Message = Cfg.Input + ": ABI of " + Cfg.AbiOf + " kept, resources consistent";
    if (C.common().Json)
      Rep.Body["k0_itself"] = violationsJson(Inherited);
    int Code = report(C, Rep, V, nullptr);
    if (Code == ExitOk && !C.common().Json && !C.common().Quiet)
      llvm::outs() << Rep.Message << "\n";
    return Code;
  }
  auto Text = readFile(Cfg.Input);
  if (!Text)
    return C.fail(Rep, Text.takeError());
  Rep.Inputs.push_back(reportInput("assembly", Cfg.Input, (*Text)->getBuffer()));
  RebuildOptions Opts;
  Opts.ShrinkResources = Cfg.ShrinkResources;
  auto Progress = C.progress();
  if (Progress)
    Progress("assembling and linking " + Cfg.Input + " (" +
             countOf((*Text)->getBufferSize(), "byte") + ") in-process" +
             (K0 ? "; ABI of " + Cfg.AbiOf + " (" + countOf(K0->C.Kernels.size(), "kernel") + ")"
                 : std::string()));
  auto R = rebuildFromAssembly((*Text)->getBuffer(), Cfg.Input, K0 ? &K0->C : nullptr, Opts);
  if (!R)
    return C.fail(Rep, withFile(R.takeError(), Cfg.Input));
  if (Progress)
    Progress(Cfg.Input + ": " + countOf(R->Occupancies.size(), "kernel") + ", object of " +
             countOf(R->Object.size(), "byte") + ", assembled " +
             (R->Assemblies == 1 ? std::string("once") : std::to_string(R->Assemblies) + " times") +
             " (" + countOf(R->Changes.size(), "register count change") + "), " +
             countOf(R->Violations.size(), "ABI violation"));
  if (R->Violations.empty()) {
    // Written before the report, so that an ok report means the object is there.
    if (auto E = writeFileAtomic(Cfg.Output, R->Object))
      return C.fail(Rep, std::move(E));
    Rep.Message = "rebuilt " + Cfg.Input + " to " + Cfg.Output;
    if (C.common().Json)
      Rep.Body["output"] = Cfg.Output;
  }
  return report(C, Rep, R->Violations, &*R); // abi_invalid: nothing is written
}

} // namespace asmevo
