// Which device allocations a dispatch can reach: every allocation that a pointer-sized kernarg
// word points into, and transitively every allocation that a pointer word inside a reached one
// points into (pointer tables, a paged-attention block table's page pointers). This is what
// dispatch-capture records; the runtime-specific part (tracking allocations, reading device
// memory) is the caller's.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::launch {

// A live device allocation, as the runtime's allocation calls reported it.
struct DeviceAllocation {
  uint64_t Base = 0, Size = 0;
};

// An allocation the dispatch reaches, with its bytes when it was read.
struct ReachedAllocation {
  uint64_t Base = 0;
  std::string From; // the first pointer found to it: "kernarg+0x8", "0x7f0000001000+0x40"
  std::vector<uint8_t> Bytes;
};

// Reads Size bytes of device memory at Base into Out (a runtime error if it cannot).
using ReadDeviceMemory =
    llvm::function_ref<llvm::Error(uint64_t Base, uint64_t Size, std::vector<uint8_t> &Out)>;

// The allocations reached from Kernarg, sorted by base. Pointer words are the 8-byte-aligned
// little-endian words of the kernargs and of each reached allocation whose value lies inside a
// live allocation (an interior pointer reaches the whole allocation; one past the end reaches
// nothing). Allocations must be disjoint (an input error otherwise). Fails (input error) when
// the reached bytes would exceed MaxBytes, naming the allocation that did it.
llvm::Expected<std::vector<ReachedAllocation>>
reachableAllocations(llvm::ArrayRef<uint8_t> Kernarg, llvm::ArrayRef<DeviceAllocation> Allocations,
                     ReadDeviceMemory Read, uint64_t MaxBytes);

} // namespace asmevo::launch
