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
  std::string Kernel; // "" for the object as a whole
  std::string Field;  // ".kernarg_segment_size", "compute_pgm_rsrc2.user_sgpr_count", ...
  std::string Detail; // "20 in K0, 24 here"
  std::string text() const;
};

// Fields that must not change between K0 and K1.
std::vector<AbiViolation> checkFrozenAbi(const CodeObject &K0, const CodeObject &K1);

// Descriptor and metadata resource fields of C against what its code uses.
std::vector<AbiViolation> checkResources(const CodeObject &C,
                                         const std::vector<KernelResources> &Scan);

nlohmann::json violationsJson(const std::vector<AbiViolation> &V);

} // namespace asmevo
