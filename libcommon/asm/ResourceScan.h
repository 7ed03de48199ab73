// Resource scan: which registers a kernel's code (and every device function it calls) really
// uses, counted the way LLVM counts them for the kernel descriptor and the metadata note.
#pragma once

#include "asm/McTarget.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetLimits.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace asmevo {

struct RegisterUse {
  int MaxVgpr = -1, MaxAgpr = -1, MaxSgpr = -1; // highest index used, -1 if none
  bool Vcc = false, FlatScratch = false, XnackMask = false;
  bool IndirectCall = false; // s_swappc/s_setpc through a register we could not resolve
  // Registers indexed through M0 or the GPR index mode (s_set_gpr_idx_on, v_movrel*,
  // s_movrel*): the registers really touched are not in the instruction, so the scan's maxima
  // are lower bounds.
  bool IndirectIndexing = false;
  bool complete() const { return !IndirectCall && !IndirectIndexing; }
  void merge(const RegisterUse &O);
};

struct KernelResources {
  std::string Kernel;
  RegisterUse Use; // kernel + callees
  std::vector<std::string> Callees;
  // Counts as LLVM computes them.
  unsigned NumVgprs = 0; // arch VGPRs (max index + 1)
  unsigned NumAgprs = 0;
  unsigned TotalVgprs = 0;  // gfx90a+: unified file (arch aligned to 4 + AGPRs); else max
  unsigned AccumOffset = 0; // gfx90a+: alignTo(max(1, NumVgprs), 4)
  unsigned NumSgprs = 0;    // numbered SGPRs (max index + 1)
  unsigned TotalSgprs = 0;  // with the VCC / XNACK / flat-scratch extras
  unsigned VgprBlocks = 0, SgprBlocks = 0; // descriptor granules for these counts
};

// How a kernel's scanned register use fits what its descriptor allocates (the hardware gives a
// wave exactly the descriptor's registers; VCC, flat scratch and the XNACK mask take SGPRs at
// the top of the allocation when the code uses them).
struct RegisterFit {
  RegisterAllocation Alloc;
  unsigned NeedArchVgprs = 0, NeedAgprs = 0, NeedSgprs = 0; // highest index used + 1
  bool archFits() const { return NeedArchVgprs <= Alloc.ArchVgprs; }
  bool agprsFit() const { return NeedAgprs <= Alloc.Agprs; }
  // gfx90a+: arch VGPRs past accum_offset share registers with AGPRs the code also uses.
  bool overlaps() const {
    return Alloc.AccumOffset && NeedAgprs && NeedArchVgprs > Alloc.AccumOffset;
  }
  bool sgprsFit() const { return NeedSgprs <= Alloc.NumberedSgprs; }
  bool fits() const { return archFits() && agprsFit() && sgprsFit() && !overlaps(); }
};
RegisterFit registerFit(const KernelDescriptor &Kd, const TargetId &T, const KernelResources &R);

// Scan every kernel of a code object. Calls are followed through s_getpc-relative
// s_swappc_b64/s_setpc_b64 targets; an unresolved indirect call takes the maximum over all
// functions of the object (as LLVM does for indirect calls).
llvm::Expected<std::vector<KernelResources>> scanKernelResources(const CodeObject &C);

} // namespace asmevo
