// The rebuild: edited assembly -> a drop-in code object. Assemble and link in-process, rescan
// the code of every kernel (with its callees), set the descriptor's register directives and the
// metadata's register counts to what LLVM computes for that code, assemble again if anything
// changed, and check the result: resources consistent with the code, and (against K0) the
// frozen ABI.
#pragma once

#include "asm/AbiCheck.h"
#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace asmevo {

struct ResourceChange {
  std::string Kernel, Field;
  uint64_t Old = 0, New = 0;
};

struct RebuildResult {
  std::string Object; // the code object's bytes
  std::vector<ResourceChange> Changes;
  std::vector<AbiViolation> Violations; // non-empty: abi_invalid, do not use Object
  unsigned Assemblies = 0;              // 1, or 2 when the resources were recomputed
  std::vector<KernelResources> Resources;
};

// K0 (may be null) is the original whose ABI must be kept.
llvm::Expected<RebuildResult> rebuildFromAssembly(llvm::StringRef Text, llvm::StringRef Name,
                                                  const CodeObject *K0);

} // namespace asmevo
