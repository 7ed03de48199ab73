// A kernel's argument list as its metadata declares it (.args: name, offset, size, value kind,
// address space, type name) plus the kernarg segment size and alignment. Launchers (the
// emulator, kernel-run, kernel-diffcheck) lay the kernarg segment out from this.
#pragma once

#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct KernelArg {
  std::string Name;         // ".name" (may be empty)
  std::string TypeName;     // ".type_name" (may be empty)
  std::string ValueKind;    // "global_buffer", "by_value", "hidden_block_count_x", ...
  std::string AddressSpace; // ".address_space" for pointers (may be empty)
  uint32_t Offset = 0;
  uint32_t Size = 0;
  bool isHidden() const { return ValueKind.rfind("hidden_", 0) == 0; }
  // A pointer to global memory that a launch passes a buffer for.
  bool isGlobalBuffer() const { return ValueKind == "global_buffer"; }
};

struct KernelSignature {
  std::string Symbol;
  uint32_t KernargSize = 0;  // .kernarg_segment_size
  uint32_t KernargAlign = 0; // .kernarg_segment_align
  std::vector<KernelArg> Args;
  // Triton compiled it (its DWARF producer is "triton"): its metadata names no argument, and
  // its compiler appends pointer arguments of its own (producedByTriton).
  bool Triton = false;
  // The explicit (non-hidden) arguments, in order.
  std::vector<const KernelArg *> explicitArgs() const;
  const KernelArg *find(const std::string &NameOrIndex) const;
};

// When the descriptor's kernarg_size and the metadata's .kernarg_segment_size disagree (a
// descriptor value of 0 means "unspecified", AMDGPUUsage): "N in the descriptor, M in the
// metadata (.kernarg_segment_size)". ROCr uses the descriptor's, HIP the metadata's, so which
// runtime launches the kernel would decide what it reads.
std::optional<std::string> kernargSizeConflict(const KernelInfo &Kernel);

// Whether CO's DWARF names Triton as its producer (DW_AT_producer "triton", kept in
// .debug_str or inline in .debug_info). Triton writes line tables unless
// TRITON_DISABLE_LINE_INFO is set, so a Triton object without them answers false.
bool producedByTriton(const CodeObject &CO);

// Read the signature of Kernel from its metadata entry. Fails, naming the file, when the kernel
// has no metadata or an argument lies outside the kernarg segment.
llvm::Expected<KernelSignature> kernelSignature(const CodeObject &CO, const KernelInfo &Kernel);

} // namespace asmevo
