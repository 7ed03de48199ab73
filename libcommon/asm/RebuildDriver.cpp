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
int report(const RebuildConfig &Cfg, const std::vector<AbiViolation> &V,
           const std::vector<ResourceChange> *Changes, unsigned Assemblies) {
  if (Cfg.Json) {
    nlohmann::json J{{"tool", Tool},
                     {"version", versionString(Tool)},
                     {"outcome", V.empty() ? "ok" : "abi_invalid"},
                     {"violations", violationsJson(V)}};
    if (Changes) {
      J["assemblies"] = Assemblies;
      J["changes"] = nlohmann::json::array();
      for (const auto &C : *Changes)
        J["changes"].push_back(
            {{"kernel", C.Kernel}, {"field", C.Field}, {"old", C.Old}, {"new", C.New}});
    }
    llvm::outs() << J.dump(1) << "\n";
  } else {
    for (const auto &X : V)
      llvm::errs() << Tool << ": " << X.text() << "\n";
    if (Changes && (Cfg.Verbose || !Cfg.Quiet))
      for (const auto &C : *Changes)
        llvm::errs() << Tool << ": kernel " << C.Kernel << ": " << C.Field << " " << C.Old
                     << " -> " << C.New << "\n";
  }
  return V.empty() ? ExitOk : ExitNegative;
}
} // namespace

// Scanned register use against what the descriptor and metadata declare, kernel by kernel.
static int printResources(const RebuildConfig &Cfg) {
  unsigned Kernels = 0, Agree = 0;
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
        auto Meta = [&](const char *Key) -> int64_t {
          auto V = K && K->Meta ? Metadata::getUInt(*K->Meta, Key) : std::nullopt;
          return V ? int64_t(*V) : -1;
        };
        int64_t MV = Meta(".vgpr_count"), MA = Meta(".agpr_count"), MS = Meta(".sgpr_count");
        bool Ok = K && MV == R.TotalVgprs && (MA < 0 || MA == R.NumAgprs) &&
                  MS == R.TotalSgprs && K->Kd.granulatedVgprCount() == R.VgprBlocks &&
                  K->Kd.granulatedSgprCount() == R.SgprBlocks &&
                  (!C->Target.hasGfx90aInsts() || K->Kd.accumOffset() == R.AccumOffset);
        ++Kernels;
        Agree += Ok;
        std::string Line = (Ok ? "agree " : "DIFFER ") + O.Name + " " + R.Kernel +
                           ": vgpr " + std::to_string(R.TotalVgprs) + "/" + std::to_string(MV) +
                           " agpr " + std::to_string(R.NumAgprs) + "/" + std::to_string(MA) +
                           " sgpr " + std::to_string(R.TotalSgprs) + "/" + std::to_string(MS);
        if (K)
          Line += " granules v" + std::to_string(R.VgprBlocks) + "/" +
                  std::to_string(K->Kd.granulatedVgprCount()) + " s" +
                  std::to_string(R.SgprBlocks) + "/" + std::to_string(K->Kd.granulatedSgprCount());
        if (!Cfg.Quiet || !Ok)
          Text += Line + "\n";
        J.push_back({{"object", O.Name}, {"kernel", R.Kernel}, {"agree", Ok},
                     {"scanned", {{"vgpr", R.TotalVgprs}, {"agpr", R.NumAgprs},
                                  {"sgpr", R.TotalSgprs}, {"accum_offset", R.AccumOffset},
                                  {"vgpr_blocks", R.VgprBlocks}, {"sgpr_blocks", R.SgprBlocks}}},
                     {"declared", {{"vgpr", MV}, {"agpr", MA}, {"sgpr", MS}}}});
      }
    }
  }
  if (Cfg.Json)
    llvm::outs() << nlohmann::json{{"kernels", Kernels}, {"agree", Agree}, {"results", J}}.dump(1)
                 << "\n";
  else
    llvm::outs() << Text << "resources: " << Agree << "/" << Kernels
                 << " kernels agree with their descriptor and metadata\n";
  return Agree == Kernels ? ExitOk : ExitNegative;
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
    auto Scan = scanKernelResources((*K1)->C);
    if (!Scan)
      return reportError(Tool, withFile(Scan.takeError(), Cfg.Input));
    auto V = checkFrozenAbi(K0->C, (*K1)->C);
    auto R = checkResources((*K1)->C, *Scan);
    V.insert(V.end(), R.begin(), R.end());
    int Code = report(Cfg, V, nullptr, 0);
    if (Code == ExitOk && !Cfg.Json && !Cfg.Quiet)
      llvm::outs() << Cfg.Input << ": ABI of " << Cfg.AbiOf << " kept, resources consistent\n";
    return Code;
  }
  auto Text = readFile(Cfg.Input);
  if (!Text)
    return reportError(Tool, Text.takeError());
  auto R = rebuildFromAssembly((*Text)->getBuffer(), Cfg.Input, K0 ? &K0->C : nullptr);
  if (!R)
    return reportError(Tool, withFile(R.takeError(), Cfg.Input));
  int Code = report(Cfg, R->Violations, &R->Changes, R->Assemblies);
  if (Code != ExitOk)
    return Code; // abi_invalid: nothing is written
  if (auto E = writeFileAtomic(Cfg.Output, R->Object))
    return reportError(Tool, std::move(E));
  return ExitOk;
}

} // namespace asmevo
