// A sparse 64-bit device address space: allocations at chosen virtual addresses (so that a
// captured dispatch can be replayed at its original pointers), each backed by host memory.
// Every access is bounds-checked against one allocation; an access that is not wholly inside
// one is a fault (the caller reports pc, lane and address), never silently served.
//
// Thread safety: map/allocate happen before a dispatch; during a dispatch many threads read
// and write concurrently (plain accesses, like hardware, are unsynchronised); atomics take the
// lock that atomicLock() returns for their address.
#pragma once

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace asmevo::emu {

// Host memory of an allocation: zero-filled by calloc, so that a large allocation costs only
// the pages a dispatch touches (the kernel commits untouched zero pages lazily).
struct HostBytesDeleter {
  void operator()(uint8_t *P) const { std::free(P); }
};

struct Allocation {
  uint64_t Base = 0;
  uint64_t Size = 0;
  std::string Name;
  std::unique_ptr<uint8_t[], HostBytesDeleter> Bytes;
  // Footprint recording (DeviceMemory::setTracking): the lowest and one past the highest
  // offset any access of a dispatch touched. Lo > Hi means untouched.
  mutable std::atomic<uint64_t> TouchLo{~0ull}, TouchHi{0};
  void touch(uint64_t Off, uint64_t Size) const {
    uint64_t L = TouchLo.load(std::memory_order_relaxed);
    while (Off < L && !TouchLo.compare_exchange_weak(L, Off, std::memory_order_relaxed))
      ;
    uint64_t H = TouchHi.load(std::memory_order_relaxed);
    while (Off + Size > H &&
           !TouchHi.compare_exchange_weak(H, Off + Size, std::memory_order_relaxed))
      ;
  }
};

// Apertures of the flat address space (values the emulated SH_MEM_BASES reports through
// src_shared_base / src_private_base: the high 32 bits of each aperture).
constexpr uint64_t kSharedApertureBase = 0x0001000000000000ull;
constexpr uint64_t kPrivateApertureBase = 0x0002000000000000ull;
constexpr uint64_t kApertureSize = 0x0000000100000000ull;
// Where allocate() places buffers when the caller does not choose an address.
constexpr uint64_t kDefaultHeapBase = 0x00007f0000000000ull;

class DeviceMemory {
public:
  DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  // Map Size bytes (zero-filled) at Base. Fails when the range overlaps an allocation, wraps,
  // or touches the flat apertures.
  llvm::Error map(uint64_t Base, uint64_t Size, const std::string &Name);
  // Allocate Size bytes at an address the space chooses (aligned to Align, a power of two,
  // with an unmapped gap after each allocation so that overruns fault).
  uint64_t allocate(uint64_t Size, uint64_t Align, const std::string &Name);
  // Remove the allocation that starts at Base.
  llvm::Error unmap(uint64_t Base);

  // Host pointer for [Addr, Addr+Size) when it lies wholly inside one allocation, else null.
  uint8_t *translate(uint64_t Addr, uint64_t Size);
  const Allocation *find(uint64_t Addr) const;
  const std::vector<std::unique_ptr<Allocation>> &allocations() const { return Allocs; }

  // Host-side copies (for set-up and result read-back); fail with a clear message.
  llvm::Error write(uint64_t Addr, const void *Src, uint64_t Size);
  llvm::Error read(uint64_t Addr, void *Dst, uint64_t Size) const;

  // Footprint recording: when on, every global access made by a dispatch records the range it
  // touched in its allocation (Allocation::TouchLo/TouchHi). Off by default (it costs time).
  void setTracking(bool On) { Tracking = On; }
  bool tracking() const { return Tracking; }
  void resetTouched();

  // The lock an atomic read-modify-write at Addr holds.
  std::mutex &atomicLock(uint64_t Addr) { return AtomicLocks[(Addr >> 3) % kAtomicLocks]; }

private:
  static constexpr unsigned kAtomicLocks = 64;
  std::vector<std::unique_ptr<Allocation>> Allocs; // sorted by Base
  uint64_t Generation = 0; // changes on every map/unmap (invalidates translate's cache)
  uint64_t NextHeap = kDefaultHeapBase;
  bool Tracking = false;
  std::mutex AtomicLocks[kAtomicLocks];
};

} // namespace asmevo::emu
