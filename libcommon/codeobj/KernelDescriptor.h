// The 64-byte AMDHSA kernel descriptor, decoded field by field and re-encoded, and its
// expression as `.amdhsa_kernel` assembler directives: which directive values make LLVM's
// assembler produce exactly these 64 bytes for a given target (see LLVM AMDGPUUsage, "Kernel
// Descriptor", and the assembler's `.amdhsa_` directives).
#pragma once

#include "codeobj/TargetId.h"

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace asmevo {

constexpr unsigned KernelDescriptorSize = 64;

struct KernelDescriptor {
  uint32_t GroupSegmentFixedSize = 0;    // bytes 0-3
  uint32_t PrivateSegmentFixedSize = 0;  // bytes 4-7
  uint32_t KernargSize = 0;              // bytes 8-11
  std::array<uint8_t, 4> Reserved0{};    // bytes 12-15
  int64_t KernelCodeEntryByteOffset = 0; // bytes 16-23, relative to the descriptor
  std::array<uint8_t, 20> Reserved1{};   // bytes 24-43
  uint32_t ComputePgmRsrc3 = 0;          // bytes 44-47
  uint32_t ComputePgmRsrc1 = 0;          // bytes 48-51
  uint32_t ComputePgmRsrc2 = 0;          // bytes 52-55
  uint16_t KernelCodeProperties = 0;     // bytes 56-57
  uint16_t KernargPreload = 0;           // bytes 58-59
  std::array<uint8_t, 4> Reserved2{};    // bytes 60-63

  static KernelDescriptor decode(llvm::ArrayRef<uint8_t> Bytes); // Bytes.size() >= 64
  std::array<uint8_t, KernelDescriptorSize> encode() const;

  // Selected fields (gfx9 meanings).
  unsigned granulatedVgprCount() const { return ComputePgmRsrc1 & 0x3f; }
  unsigned granulatedSgprCount() const { return (ComputePgmRsrc1 >> 6) & 0xf; }
  unsigned userSgprCount() const { return (ComputePgmRsrc2 >> 1) & 0x1f; }
  unsigned accumOffset() const { return ((ComputePgmRsrc3 & 0x3f) + 1) * 4; } // gfx90a+
  unsigned kernargPreloadLength() const { return KernargPreload & 0x7f; }
  unsigned kernargPreloadOffset() const { return KernargPreload >> 7; }
};

// Byte range of the code entry offset, the one field the linker decides.
constexpr unsigned KdEntryOffsetBegin = 16, KdEntryOffsetEnd = 24;

// One `.amdhsa_*` directive with its value, in the order they are printed.
using KdDirective = std::pair<std::string, uint64_t>;

struct KdDirectiveSet {
  std::vector<KdDirective> Directives;
  // Set when the descriptor uses bits no directive can express (or values the assembler
  // refuses); the descriptor must then be emitted as raw bytes. Says which bits.
  std::string Inexpressible;
};

// Choose directive values that reproduce Kd on Target with LLVM's assembler (register counts
// are the largest values inside the descriptor's granules).
KdDirectiveSet kdToDirectives(const KernelDescriptor &Kd, const TargetId &Target);

// What LLVM's assembler makes of a directive set (the model used to check kdToDirectives and,
// later, to recompute descriptors). Unknown directives are an error.
llvm::Expected<KernelDescriptor> kdFromDirectives(const std::vector<KdDirective> &Directives,
                                                  const TargetId &Target);

// Extra SGPRs the assembler adds to .amdhsa_next_free_sgpr (VCC, XNACK mask, flat scratch).
unsigned kdExtraSgprs(const TargetId &Target, bool ReserveVcc, bool ReserveFlatScratch,
                      bool ReserveXnack);

} // namespace asmevo
