// hsaco-rebuild's pipeline (see Rebuild.h).
#include "asm/Rebuild.h"
#include "asm/AsmSource.h"
#include "asm/Assembler.h"
#include "asm/ResourceScan.h"
#include "support/Error.h"

#include <map>
#include <set>

namespace asmevo {

llvm::Expected<RebuildResult> rebuildFromAssembly(llvm::StringRef Text, llvm::StringRef Name,
                                                  const CodeObject *K0,
                                                  const RebuildOptions &Opts) {
  auto Src = AsmSource::parse(Text, Name);
  if (!Src)
    return withFile(Src.takeError(), Name);
  RebuildResult R;
  auto First = assembleAndLink(Text, Name, Src->target());
  if (!First)
    return First.takeError();
  R.Assemblies = 1;
  auto C1 = CodeObject::read(*First, Name.str() + " (assembled)");
  if (!C1)
    return C1.takeError();
  auto Scan = scanKernelResources(*C1);
  if (!Scan)
    return Scan.takeError();

  // Keep K0's declared resources (as the source declares them): raise a count only where the
  // edited code needs more, lower one only on request and only where the scan is complete.
  const TargetId &T = Src->target();
  auto Set = [&](const std::string &Kernel, const char *Directive, uint64_t V) {
    auto Old = Src->directive(Kernel, Directive);
    if (Old && *Old == V)
      return;
    Src->setDirective(Kernel, Directive, V);
    R.Changes.push_back({Kernel, Directive, Old ? *Old : 0, V});
  };
  std::vector<std::string> Blocks = Src->kernels();
  std::set<std::string> Resized; // kernels whose descriptor counts changed
  // With K0: what K0's own code used. A kernel that needs no more than K0 did keeps its
  // declaration even where it looks too small (hand-written kernels may alias arch VGPRs and
  // AGPRs); only an edit that needs more raises it.
  std::vector<KernelResources> Scan0;
  if (K0) {
    auto S0 = scanKernelResources(*K0);
    if (!S0)
      return S0.takeError();
    Scan0 = std::move(*S0);
  }
  std::map<std::string, const KernelResources *> K0Use;
  for (const KernelResources &KR : Scan0)
    K0Use[KR.Kernel] = &KR;
  const bool Unified = targetLimits(T).UnifiedVgprFile;
  for (const auto &K : *Scan) {
    if (std::find(Blocks.begin(), Blocks.end(), K.Kernel) == Blocks.end())
      continue; // descriptor written as bytes: checked below, not recomputed
    const KernelInfo *KI = C1->kernel(K.Kernel);
    if (!KI)
      continue;
    RegisterFit F = registerFit(KI->Kd, T, K);
    const RegisterAllocation &A = F.Alloc;
    if (auto It = K0Use.find(K.Kernel); It != K0Use.end()) {
      const KernelResources &U0 = *It->second;
      if (K.NumVgprs <= U0.NumVgprs && K.NumAgprs <= U0.NumAgprs) {
        F.NeedArchVgprs = std::min(F.NeedArchVgprs, A.ArchVgprs);
        F.NeedAgprs = std::min(F.NeedAgprs, A.Agprs);
        if (F.overlaps())
          F.NeedArchVgprs = std::min(F.NeedArchVgprs, A.AccumOffset); // K0's aliasing, kept
      }
      if (K.NumSgprs <= U0.NumSgprs && K.Use.Vcc <= U0.Use.Vcc)
        F.NeedSgprs = std::min(F.NeedSgprs, A.NumberedSgprs);
    }
    bool Shrink = Opts.ShrinkResources && K.Use.complete();
    if (Opts.ShrinkResources && !K.Use.complete())
      R.NotShrunk.push_back(K.Kernel + ": " +
                            (K.Use.IndirectIndexing
                                 ? "registers are indexed indirectly (s_set_gpr_idx, movrel)"
                                 : "an indirect call the scan cannot follow"));
    size_t ChangesBefore = R.Changes.size();
    // VGPRs (and AGPRs, which follow the arch VGPRs at accum_offset on gfx90a+); accum_offset
    // is set last, as the assembler lists it.
    std::optional<unsigned> NewAccum;
    if (!F.archFits() || !F.agprsFit() || F.overlaps()) {
      if (Unified) {
        unsigned Accum = std::max(KI->Kd.accumOffset(), K.AccumOffset);
        unsigned AccBefore = std::min(KI->Kd.accumOffset(), A.UnifiedVgprs);
        unsigned Agprs = std::max(A.UnifiedVgprs - AccBefore, K.NumAgprs);
        Set(K.Kernel, ".amdhsa_next_free_vgpr", std::max(A.UnifiedVgprs, Accum + Agprs));
        NewAccum = Accum;
      } else {
        Set(K.Kernel, ".amdhsa_next_free_vgpr", std::max({A.UnifiedVgprs, K.NumVgprs, K.NumAgprs}));
      }
    } else if (Shrink && K.VgprBlocks < KI->Kd.granulatedVgprCount()) {
      unsigned Accum = Unified && K.NumAgprs ? KI->Kd.accumOffset() : K.AccumOffset;
      Set(K.Kernel, ".amdhsa_next_free_vgpr",
          Unified && K.NumAgprs ? Accum + K.NumAgprs : K.TotalVgprs);
      if (Unified && K.NumAgprs == 0)
        NewAccum = K.AccumOffset;
    }
    // SGPRs: the assembler adds VCC, flat scratch and XNACK to .amdhsa_next_free_sgpr.
    if (!F.sgprsFit() || (Shrink && K.SgprBlocks < KI->Kd.granulatedSgprCount())) {
      auto Cur = Src->directive(K.Kernel, ".amdhsa_next_free_sgpr");
      unsigned Next =
          F.sgprsFit() ? K.NumSgprs : std::max<unsigned>(K.NumSgprs, Cur ? unsigned(*Cur) : 0);
      Set(K.Kernel, ".amdhsa_next_free_sgpr", Next);
      if (K.Use.Vcc || !F.sgprsFit())
        Set(K.Kernel, ".amdhsa_reserve_vcc", K.Use.Vcc ? 1 : 0);
      if (!T.hasArchitectedFlatScratch() && K.Use.FlatScratch)
        Set(K.Kernel, ".amdhsa_reserve_flat_scratch", 1);
    }
    if (NewAccum)
      Set(K.Kernel, ".amdhsa_accum_offset", *NewAccum);
    if (R.Changes.size() != ChangesBefore)
      Resized.insert(K.Kernel);
  }
  // The metadata's counts follow a descriptor that changed (an unchanged kernel keeps them as
  // declared, even where they are not LLVM's figures).
  bool MetaChanged = false;
  for (const auto &K : *Scan) {
    const KernelInfo *KI = C1->kernel(K.Kernel);
    if (!KI || !Resized.count(K.Kernel))
      continue;
    bool Shrink = Opts.ShrinkResources && K.Use.complete();
    std::string Sym = C1->Symbols[KI->DescSymbol].Name;
    for (auto [Key, Need] : {std::pair<const char *, uint64_t>{".vgpr_count", K.TotalVgprs},
                             {".agpr_count", K.NumAgprs},
                             {".sgpr_count", K.TotalSgprs}}) {
      auto Old = KI->Meta ? Metadata::getUInt(*KI->Meta, Key) : std::nullopt;
      if (!Old || *Old == Need || (*Old > Need && !Shrink))
        continue;
      C1->Meta->setKernelUInt(Sym, Key, Need);
      R.Changes.push_back({K.Kernel, Key, *Old, Need});
      MetaChanged = true;
    }
  }
  if (MetaChanged)
    Src->setMetadataYaml(C1->Meta->toYaml());

  std::string Final = std::move(*First);
  if (!R.Changes.empty()) {
    auto Second = assembleAndLink(Src->text(), Name, T);
    if (!Second)
      return Second.takeError();
    Final = std::move(*Second);
    R.Assemblies = 2;
  }
  auto C2 = CodeObject::read(Final, Name.str() + " (rebuilt)");
  if (!C2)
    return C2.takeError();
  // Unchanged source: the first assembly is the result and its scan stands.
  auto Scan2 = R.Changes.empty() ? std::move(Scan) : scanKernelResources(*C2);
  if (!Scan2)
    return Scan2.takeError();
  R.Violations = staticViolations(*C2, *Scan2);
  if (K0) {
    R.Violations = violationsNotInK0(R.Violations, staticViolations(*K0, Scan0), &R.Inherited);
    auto Frozen = checkFrozenAbi(*K0, *C2);
    R.Violations.insert(R.Violations.begin(), Frozen.begin(), Frozen.end());
  }
  for (const KernelInfo &K : C2->Kernels) {
    KernelOccupancy O{K.Name, kernelOccupancy(K, C2->Target), std::nullopt,
                      Resized.count(K.Name) > 0};
    const CodeObject &Before = K0 ? *K0 : *C1;
    if (const KernelInfo *KB = Before.kernel(K.Name))
      O.Before = kernelOccupancy(*KB, Before.Target);
    R.Occupancies.push_back(std::move(O));
  }
  R.Resources = std::move(*Scan2);
  R.Object = std::move(Final);
  return R;
}

} // namespace asmevo
