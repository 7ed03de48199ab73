// Recording one dispatch into a capture bundle, as dispatch-capture's interposer does around
// the runtime's launch call: before the launch, the kernarg bytes (packed from the call's
// kernelParams or `extra` by the kernel's metadata) and the pre-state of every allocation they
// reach; after it completed, the post-state of the same regions. The runtime-specific parts
// (which allocations are live, reading device memory) are the caller's.
#pragma once

#include "codeobj/CodeObject.h"
#include "launch/CaptureBundle.h"
#include "launch/CaptureReach.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace asmevo::launch {

struct DispatchCall {
  llvm::StringRef CodeObject; // the code object holding the kernel (one ELF, not a bundle)
  std::string Origin;         // where it came from, for messages ("hipModuleLoadData image")
  std::string Kernel;
  std::array<uint32_t, 3> GridWorkgroups{1, 1, 1}, Block{1, 1, 1};
  uint32_t DynamicLds = 0;
  uint64_t Stream = 0;
  void *const *KernelParams = nullptr; // exactly one of these two
  void *const *Extra = nullptr;
  // Where the runtime placed the code object's global variable Name ({address, size}), or
  // nothing when it cannot tell.
  std::function<std::optional<std::pair<uint64_t, uint64_t>>(const std::string &Name)> FindGlobal;
};

// The global variables a capture records: the exported OBJECT symbols with a size, other than
// kernel descriptors (*.kd) and clang's compilation-unit ids (__hip_cuid_*).
std::vector<std::string> capturedGlobalNames(const CodeObject &CO);

// The bundle with everything but the post-state (Post is empty in every region and global).
// Errors: the code object does not read or has no such kernel, the arguments do not pack
// (launch/KernargPack.h), the reached bytes exceed MaxBytes (launch/CaptureReach.h), a global
// variable cannot be located, or device memory cannot be read.
llvm::Expected<CaptureBundle> capturePreState(const DispatchCall &D,
                                              llvm::ArrayRef<DeviceAllocation> Allocations,
                                              ReadDeviceMemory Read, uint64_t MaxBytes);

// Fills every region's and global's post-state once the launch completed (FindGlobal as for
// capturePreState).
llvm::Error capturePostState(CaptureBundle &B, const DispatchCall &D, ReadDeviceMemory Read);

} // namespace asmevo::launch
