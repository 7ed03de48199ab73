// The target of a code object, from the ELF header: processor (EF_AMDGPU_MACH), xnack and
// sramecc settings, code object version; and the processor facts that recovery needs
// (register granules, which kernel-descriptor fields exist).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace asmevo {

enum class TargetFeature { Unsupported, Any, Off, On };

struct TargetId {
  std::string Processor; // "gfx942"
  unsigned Mach = 0;     // EF_AMDGPU_MACH value
  unsigned Major = 0, Minor = 0, Stepping = 0;
  TargetFeature Xnack = TargetFeature::Unsupported;
  TargetFeature Sramecc = TargetFeature::Unsupported;
  unsigned CodeObjectVersion = 0; // 4, 5 or 6
  uint32_t EFlags = 0;
  uint8_t AbiVersion = 0; // e_ident[EI_ABIVERSION]

  // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" as LLVM writes it.
  std::string str() const;
  // Subtarget features for LLVM MC ("+xnack,-sramecc"); empty for "any".
  std::string mattr() const;

  // Processor facts.
  bool hasGfx90aInsts() const;            // gfx90a, gfx940+, gfx950: unified VGPR/AGPR file
  bool hasArchitectedFlatScratch() const; // gfx940+
  bool hasKernargPreload() const;         // gfx90a, gfx940+
  bool hasXnackReserved() const {         // the assembler reserves the XNACK mask SGPRs
    return Xnack == TargetFeature::Any || Xnack == TargetFeature::On;
  }
  unsigned vgprEncodingGranule() const { return hasGfx90aInsts() ? 8 : 4; }
  unsigned sgprEncodingGranule() const { return 8; }
  unsigned addressableSgprs() const { return 102; }
};

// Decode e_ident[EI_ABIVERSION] and e_flags. Fails for code object versions before 4 and for
// processors that are not gfx9 CDNA/GCN (the only ones recovery supports), unless AnyProcessor
// (a known processor of another family is then accepted, for listing).
llvm::Expected<TargetId> decodeTargetId(uint8_t AbiVersion, uint32_t EFlags,
                                        bool AnyProcessor = false);

// Parse a target id as written by `.amdgcn_target` ("amdgcn-amd-amdhsa--gfx942:xnack-") for a
// code object version; e_flags are derived as LLVM sets them.
llvm::Expected<TargetId> parseTargetId(llvm::StringRef Id, unsigned CodeObjectVersion);

// Processor name for an EF_AMDGPU_MACH value, or "" if unknown.
std::string processorForMach(unsigned Mach);

// Whether Name is an AMDGPU processor of the ELF e_flags table ("gfx942", "gfx9-4-generic").
bool isKnownProcessor(llvm::StringRef Name);
// Every known processor name, space-separated, in order.
std::string knownProcessors();
// An error for a processor name given by the user in Option ("--arch") that is not known.
llvm::Error checkProcessorName(llvm::StringRef Name, llvm::StringRef Option);

} // namespace asmevo
