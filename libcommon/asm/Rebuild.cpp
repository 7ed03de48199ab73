// hsaco-rebuild's pipeline.
#include "asm/Rebuild.h"
#include "asm/AsmSource.h"
#include "asm/Assembler.h"
#include "asm/ResourceScan.h"
#include "support/Error.h"

namespace asmevo {

llvm::Expected<RebuildResult> rebuildFromAssembly(llvm::StringRef Text, llvm::StringRef Name,
                                                  const CodeObject *K0) {
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

  // What LLVM would write for this code.
  const TargetId &T = Src->target();
  auto Set = [&](const std::string &Kernel, const char *Directive, uint64_t V) {
    auto Old = Src->directive(Kernel, Directive);
    if (Old && *Old == V)
      return;
    Src->setDirective(Kernel, Directive, V);
    R.Changes.push_back({Kernel, Directive, Old ? *Old : 0, V});
  };
  std::vector<std::string> Blocks = Src->kernels();
  for (const auto &K : *Scan) {
    if (std::find(Blocks.begin(), Blocks.end(), K.Kernel) == Blocks.end())
      continue; // descriptor written as bytes: checked below, not recomputed
    // Directive values inside the same granules give the same descriptor: leave them as
    // written unless the descriptor LLVM would make for this code differs.
    const KernelInfo *KI = C1->kernel(K.Kernel);
    if (KI && KI->Kd.granulatedVgprCount() == K.VgprBlocks &&
        KI->Kd.granulatedSgprCount() == K.SgprBlocks &&
        (!T.hasGfx90aInsts() || KI->Kd.accumOffset() == K.AccumOffset))
      continue;
    Set(K.Kernel, ".amdhsa_next_free_vgpr", K.TotalVgprs);
    Set(K.Kernel, ".amdhsa_next_free_sgpr", K.NumSgprs);
    if (T.hasGfx90aInsts())
      Set(K.Kernel, ".amdhsa_accum_offset", K.AccumOffset);
    Set(K.Kernel, ".amdhsa_reserve_vcc", K.Use.Vcc ? 1 : 0);
    if (!T.hasArchitectedFlatScratch())
      Set(K.Kernel, ".amdhsa_reserve_flat_scratch", K.Use.FlatScratch ? 1 : 0);
  }
  // Metadata counts.
  bool MetaChanged = false;
  for (const auto &K : *Scan) {
    const KernelInfo *KI = C1->kernel(K.Kernel);
    if (!KI)
      continue;
    std::string Sym = C1->Symbols[KI->DescSymbol].Name;
    for (auto [Key, V] : {std::pair<const char *, uint64_t>{".vgpr_count", K.TotalVgprs},
                          {".agpr_count", K.NumAgprs},
                          {".sgpr_count", K.TotalSgprs}}) {
      auto Old = C1->Meta->setKernelUInt(Sym, Key, V);
      if (Old && *Old != V) {
        R.Changes.push_back({K.Kernel, Key, *Old, V});
        MetaChanged = true;
      }
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
  R.Violations = checkResources(*C2, *Scan2);
  if (K0) {
    auto Frozen = checkFrozenAbi(*K0, *C2);
    R.Violations.insert(R.Violations.begin(), Frozen.begin(), Frozen.end());
  }
  R.Resources = std::move(*Scan2);
  R.Object = std::move(Final);
  return R;
}

} // namespace asmevo
