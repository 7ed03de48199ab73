// The static ABI check of a rebuilt code object against the original K0: what the original
// launcher relies on must not change (symbols, kernarg layout, launch semantics, target), and
// the resource fields must be consistent with the code (a kernel that uses more registers
// than its descriptor allocates would be given too few by the hardware).
#pragma once

#include "asm/ResourceScan.h"
#include "codeobj/CodeObject.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace asmevo {

struct AbiViolation {
  std::string Kernel;       // "" for the object as a whole
  std::string Field;        // ".kernarg_segment_size", "compute_pgm_rsrc2.user_sgpr_count", ...
  std::string Detail;       // "20 in K0, 24 here"
  std::string text() const; // "abi_invalid: kernel K: field: detail"
  std::string what() const; // "kernel K: field: detail"
};

// Fields that must not change between K0 and K1.
std::vector<AbiViolation> checkFrozenAbi(const CodeObject &K0, const CodeObject &K1);

// The registers each kernel's descriptor allocates against what its code uses (the scan): a
// register beyond the allocation is one the hardware does not give the wave.
std::vector<AbiViolation> checkResources(const CodeObject &C,
                                         const std::vector<KernelResources> &Scan);

// What the hardware would refuse to launch, kernel by kernel: registers per wave against the
// workgroup size the kernel declares (.max_flat_workgroup_size) and the register file, LDS,
// scratch (TargetLimits.h), and a descriptor kernarg_size the metadata contradicts.
std::vector<AbiViolation> checkLaunchBounds(const CodeObject &C);

// Everything the static check finds in one object: checkResources on its scan, and
// checkLaunchBounds (the first form scans C itself).
llvm::Expected<std::vector<AbiViolation>> staticViolations(const CodeObject &C);
std::vector<AbiViolation> staticViolations(const CodeObject &C,
                                           const std::vector<KernelResources> &Scan);

// The violations of K1 that K0 does not have too (same kernel, field and detail): what K0 already
// does is K0's behaviour, not the candidate's (a hand-written K0 may, for example, use arch VGPRs
// past accum_offset beside AGPRs). Violations K0 has are added to Inherited when not null.
std::vector<AbiViolation> violationsNotInK0(const std::vector<AbiViolation> &K1,
                                            const std::vector<AbiViolation> &K0,
                                            std::vector<AbiViolation> *Inherited = nullptr);

nlohmann::json violationsJson(const std::vector<AbiViolation> &V);

} // namespace asmevo
