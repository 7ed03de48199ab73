// The rebuild: edited assembly -> a drop-in code object. Assemble and link in-process, rescan
// the code of every kernel (with its callees), keep each kernel's declared registers and raise
// them (descriptor directives, then the metadata's counts) only where the code needs more,
// lower them only on request, assemble again if anything changed, and check the result: every
// register the code uses allocated, the target's launch limits met, and (against K0) the frozen
// ABI.
#pragma once

#include "asm/AbiCheck.h"
#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct ResourceChange {
  std::string Kernel, Field;
  uint64_t Old = 0, New = 0;
};

struct RebuildOptions {
  // Lower register counts to what the code uses (only where the scan is complete: no indirect
  // register indexing, no indirect calls; accum_offset only when no AGPR is used).
  bool ShrinkResources = false;
};

struct KernelOccupancy {
  std::string Kernel;
  Occupancy Now;
  std::optional<Occupancy> Before; // K0's (or, without K0, the source's as written)
  bool Resized = false;            // the rebuild changed this kernel's register counts
};

struct RebuildResult {
  std::string Object; // the code object's bytes
  std::vector<ResourceChange> Changes;
  std::vector<AbiViolation> Violations; // non-empty: abi_invalid, do not use Object
  std::vector<AbiViolation> Inherited;  // findings K0 has as well (reported, not refused)
  unsigned Assemblies = 0;              // 1, or 2 when the resources were recomputed
  std::vector<KernelResources> Resources;
  std::vector<std::string> NotShrunk; // --shrink-resources refused: "kernel: why"
  std::vector<KernelOccupancy> Occupancies;
};

// K0 (may be null) is the original whose ABI must be kept.
llvm::Expected<RebuildResult> rebuildFromAssembly(llvm::StringRef Text, llvm::StringRef Name,
                                                  const CodeObject *K0,
                                                  const RebuildOptions &Opts = {});

} // namespace asmevo
