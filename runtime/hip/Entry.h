// What every C entry point of the emulated runtime starts with: the runtime, under its lock.
#pragma once

#include "Runtime.h"

#define HIPRT_ENTRY                                                                                \
  ::asmevo::hiprt::Runtime &R = ::asmevo::hiprt::Runtime::get();                                   \
  std::lock_guard<std::mutex> RuntimeLockGuard(R.Lock)

namespace asmevo::hiprt {

inline uint64_t addr(const void *P) { return reinterpret_cast<uint64_t>(P); }
std::string hexAddr(const void *P);

// Copy Size bytes between host and device memory (Kind as hipMemcpy takes it; hipMemcpyDefault
// tells device pointers by the allocations). The caller holds the lock.
hipError_t copyMemory(Runtime &R, const char *Call, void *Dst, const void *Src, size_t Size,
                      hipMemcpyKind Kind);
// The device address of a registered host shadow variable (__hipRegisterVar).
hipError_t symbolAddress(Runtime &R, const char *Call, const void *Symbol, uint64_t &Addr,
                         size_t &Size);

} // namespace asmevo::hiprt
