// Resource scan: which registers a kernel's code (and every device function it calls) really
// uses, counted the way LLVM counts them for the kernel descriptor and the metadata note.
#pragma once

#include "asm/McTarget.h"
#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace asmevo {

struct RegisterUse {
  int MaxVgpr = -1, MaxAgpr = -1, MaxSgpr = -1; // highest index used, -1 if none
  bool Vcc = false, FlatScratch = false, XnackMask = false;
  bool IndirectCall = false; // s_swappc/s_setpc through a register we could not resolve
  void merge(const RegisterUse &O);
};

struct KernelResources {
  std::string Kernel;
  RegisterUse Use;               // kernel + callees
  std::vector<std::string> Callees;
  // Counts as LLVM computes them.
  unsigned NumVgprs = 0;   // arch VGPRs (max index + 1)
  unsigned NumAgprs = 0;
  unsigned TotalVgprs = 0; // gfx90a+: unified file (arch aligned to 4 + AGPRs); else max
  unsigned AccumOffset = 0; // gfx90a+: alignTo(max(1, NumVgprs), 4)
  unsigned NumSgprs = 0;   // numbered SGPRs (max index + 1)
  unsigned TotalSgprs = 0; // with the VCC / XNACK / flat-scratch extras
  unsigned VgprBlocks = 0, SgprBlocks = 0; // descriptor granules for these counts
};

// Scan every kernel of a code object. Calls are followed through s_getpc-relative
// s_swappc_b64/s_setpc_b64 targets; an unresolved indirect call takes the maximum over all
// functions of the object (as LLVM does for indirect calls).
llvm::Expected<std::vector<KernelResources>> scanKernelResources(const CodeObject &C);

} // namespace asmevo
