// Memory entry points: hipMalloc, hipFree, the copies, the sets, pointer attributes, symbols.
#include "Entry.h"

#include "support/Error.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

using namespace asmevo::hiprt;

namespace asmevo::hiprt {

std::string hexAddr(const void *P) { return hexText(addr(P)); }

hipError_t copyMemory(Runtime &R, const char *Call, void *Dst, const void *Src, size_t Size,
                      hipMemcpyKind Kind) {
  if (Size == 0)
    return hipSuccess;
  if (!Dst || !Src)
    return R.fail(hipErrorInvalidValue, Call, std::string(Dst ? "src" : "dst") + " is null");
  bool DstDev = R.isDevice(addr(Dst), Size), SrcDev = R.isDevice(addr(Src), Size);
  bool WantDst = DstDev, WantSrc = SrcDev;
  switch (Kind) {
  case hipMemcpyHostToHost:
    WantDst = WantSrc = false;
    break;
  case hipMemcpyHostToDevice:
    WantDst = true, WantSrc = false;
    break;
  case hipMemcpyDeviceToHost:
    WantDst = false, WantSrc = true;
    break;
  case hipMemcpyDeviceToDevice:
    WantDst = WantSrc = true;
    break;
  case hipMemcpyDefault:
    break;
  default:
    return R.fail(hipErrorInvalidMemcpyDirection, Call, "copy kind " + std::to_string(int(Kind)));
  }
  if (WantDst && !DstDev)
    return R.fail(hipErrorInvalidValue, Call,
                  "dst " + hexAddr(Dst) + " is not inside a device allocation of at least " +
                      std::to_string(Size) + " bytes");
  if (WantSrc && !SrcDev)
    return R.fail(hipErrorInvalidValue, Call,
                  "src " + hexAddr(Src) + " is not inside a device allocation of at least " +
                      std::to_string(Size) + " bytes");
  llvm::Error E = llvm::Error::success();
  if (!WantDst && !WantSrc) {
    std::memmove(Dst, Src, Size);
  } else if (WantDst && !WantSrc) {
    E = R.dev().write(addr(Dst), Src, Size);
  } else if (!WantDst && WantSrc) {
    E = R.dev().read(addr(Src), Dst, Size);
  } else {
    std::vector<uint8_t> Tmp(Size);
    E = R.dev().read(addr(Src), Tmp.data(), Size);
    if (!E)
      E = R.dev().write(addr(Dst), Tmp.data(), Size);
  }
  if (E)
    return R.fail(hipErrorInvalidValue, Call, llvm::toString(std::move(E)));
  return hipSuccess;
}

// The device range [Offset, Offset+Size) of a registered variable, for the symbol copies.
hipError_t symbolRange(Runtime &R, const char *Call, const void *Symbol, size_t Size, size_t Offset,
                       uint64_t &Addr) {
  size_t S = 0;
  if (hipError_t E = symbolAddress(R, Call, Symbol, Addr, S))
    return E;
  if (Offset > S || Size > S - Offset)
    return R.fail(hipErrorInvalidValue, Call,
                  std::to_string(Size) + " bytes at offset " + std::to_string(Offset) + " of a " +
                      std::to_string(S) + "-byte variable");
  Addr += Offset;
  return hipSuccess;
}

hipError_t symbolAddress(Runtime &R, const char *Call, const void *Symbol, uint64_t &Addr,
                         size_t &Size) {
  auto It = R.HostVars.find(Symbol);
  if (It == R.HostVars.end())
    return R.fail(hipErrorInvalidSymbol, Call,
                  hexAddr(Symbol) + " is not a registered device variable");
  std::string Message;
  if (hipError_t E = R.loadFatBinary(*It->second.Binary, Message))
    return R.fail(E, Call, Message);
  auto G = It->second.Binary->Module->Loaded->global(It->second.Name);
  if (!G)
    return R.fail(hipErrorInvalidSymbol, Call, llvm::toString(G.takeError()));
  R.Globals[G->Addr] = G->Size;
  Addr = G->Addr;
  Size = G->Size;
  return hipSuccess;
}

} // namespace asmevo::hiprt

namespace {
hipError_t setMemory(Runtime &R, const char *Call, void *Dst, const void *Pattern,
                     size_t PatternSize, size_t Count) {
  if (Count == 0)
    return hipSuccess;
  uint64_t Bytes = uint64_t(Count) * PatternSize;
  if (!R.isDevice(addr(Dst), Bytes))
    return R.fail(hipErrorInvalidValue, Call,
                  "dst " + hexAddr(Dst) + " is not inside a device allocation of at least " +
                      std::to_string(Bytes) + " bytes");
  constexpr uint64_t Chunk = 1 << 20; // a multiple of every pattern size
  std::vector<uint8_t> Buf(size_t(std::min(Bytes, Chunk)));
  for (size_t I = 0; I < Buf.size(); I += PatternSize)
    std::memcpy(Buf.data() + I, Pattern, PatternSize);
  for (uint64_t Off = 0; Off < Bytes; Off += Buf.size())
    if (llvm::Error E =
            R.dev().write(addr(Dst) + Off, Buf.data(), std::min<uint64_t>(Buf.size(), Bytes - Off)))
      return R.fail(hipErrorInvalidValue, Call, llvm::toString(std::move(E)));
  return hipSuccess;
}
} // namespace

extern "C" {

hipError_t hipMalloc(void **Ptr, size_t Size) {
  HIPRT_ENTRY;
  if (!Ptr)
    return R.fail(hipErrorInvalidValue, "hipMalloc", "ptr is null");
  *Ptr = nullptr;
  if (Size == 0)
    return hipSuccess;
  const std::string Name = "hipMalloc #" + std::to_string(R.Allocations.size() + 1);
  auto A = R.dev().alloc(Size, Name);
  // Never inside an address range hipMemAddressReserve handed out: the emulator's allocator
  // only moves up, so each retry lands past the last.
  auto reserved = [&](uint64_t Base) {
    auto It = R.Reserved.upper_bound(Base + Size - 1);
    return It != R.Reserved.begin() && std::prev(It)->first + std::prev(It)->second > Base;
  };
  while (A && reserved(*A)) {
    llvm::consumeError(R.dev().free(*A));
    A = R.dev().alloc(Size, Name);
  }
  if (!A)
    return R.fail(hipErrorOutOfMemory, "hipMalloc", llvm::toString(A.takeError()));
  R.Allocations[*A] = Size;
  *Ptr = reinterpret_cast<void *>(*A);
  return hipSuccess;
}

hipError_t hipExtMallocWithFlags(void **Ptr, size_t Size, unsigned Flags) {
  return hipMalloc(Ptr, Size);
}

hipError_t hipFree(void *Ptr) {
  HIPRT_ENTRY;
  if (!Ptr)
    return hipSuccess;
  auto It = R.Allocations.find(addr(Ptr));
  if (It == R.Allocations.end())
    return R.fail(hipErrorInvalidValue, "hipFree",
                  hexAddr(Ptr) + " is not the start of a device allocation");
  R.Allocations.erase(It);
  if (llvm::Error E = R.dev().free(addr(Ptr)))
    return R.fail(hipErrorInvalidValue, "hipFree", llvm::toString(std::move(E)));
  return hipSuccess;
}

hipError_t hipMemGetInfo(size_t *Free, size_t *Total) {
  HIPRT_ENTRY;
  if (!Free || !Total)
    return R.fail(hipErrorInvalidValue, "hipMemGetInfo", "free or total is null");
  // The emulated device's memory is the host's.
  uint64_t T = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE)), Used = 0;
  for (const auto &[Base, Size] : R.Allocations)
    Used += Size;
  *Total = T;
  *Free = Used < T ? T - Used : 0;
  return hipSuccess;
}

hipError_t hipMemcpy(void *Dst, const void *Src, size_t Size, hipMemcpyKind Kind) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpy", Dst, Src, Size, Kind);
}
hipError_t hipMemcpyAsync(void *Dst, const void *Src, size_t Size, hipMemcpyKind Kind,
                          hipStream_t Stream) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyAsync", Dst, Src, Size, Kind);
}
hipError_t hipMemcpyHtoD(hipDeviceptr_t Dst, void *Src, size_t Size) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyHtoD", Dst, Src, Size, hipMemcpyHostToDevice);
}
hipError_t hipMemcpyDtoH(void *Dst, hipDeviceptr_t Src, size_t Size) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyDtoH", Dst, Src, Size, hipMemcpyDeviceToHost);
}
hipError_t hipMemcpyDtoD(hipDeviceptr_t Dst, hipDeviceptr_t Src, size_t Size) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyDtoD", Dst, Src, Size, hipMemcpyDeviceToDevice);
}
hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t Dst, void *Src, size_t Size, hipStream_t Stream) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyHtoDAsync", Dst, Src, Size, hipMemcpyHostToDevice);
}
hipError_t hipMemcpyDtoHAsync(void *Dst, hipDeviceptr_t Src, size_t Size, hipStream_t Stream) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyDtoHAsync", Dst, Src, Size, hipMemcpyDeviceToHost);
}
hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t Dst, hipDeviceptr_t Src, size_t Size,
                              hipStream_t Stream) {
  HIPRT_ENTRY;
  return copyMemory(R, "hipMemcpyDtoDAsync", Dst, Src, Size, hipMemcpyDeviceToDevice);
}

hipError_t hipMemset(void *Dst, int Value, size_t Size) {
  HIPRT_ENTRY;
  uint8_t B = uint8_t(Value);
  return setMemory(R, "hipMemset", Dst, &B, 1, Size);
}
hipError_t hipMemsetAsync(void *Dst, int Value, size_t Size, hipStream_t Stream) {
  HIPRT_ENTRY;
  uint8_t B = uint8_t(Value);
  return setMemory(R, "hipMemsetAsync", Dst, &B, 1, Size);
}
hipError_t hipMemsetD8(hipDeviceptr_t Dst, unsigned char Value, size_t Count) {
  HIPRT_ENTRY;
  return setMemory(R, "hipMemsetD8", Dst, &Value, 1, Count);
}
hipError_t hipMemsetD16(hipDeviceptr_t Dst, unsigned short Value, size_t Count) {
  HIPRT_ENTRY;
  return setMemory(R, "hipMemsetD16", Dst, &Value, 2, Count);
}
hipError_t hipMemsetD32(hipDeviceptr_t Dst, int Value, size_t Count) {
  HIPRT_ENTRY;
  return setMemory(R, "hipMemsetD32", Dst, &Value, 4, Count);
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *Attr, const void *Ptr) {
  HIPRT_ENTRY;
  if (!Attr)
    return R.fail(hipErrorInvalidValue, "hipPointerGetAttributes", "attributes is null");
  if (!R.isDevice(addr(Ptr), 1))
    return R.fail(hipErrorInvalidValue, "hipPointerGetAttributes",
                  hexAddr(Ptr) + " is not device memory of the emulated runtime");
  std::memset(Attr, 0, sizeof *Attr);
  Attr->memoryType = hipMemoryTypeDevice;
  Attr->device = 0;
  Attr->devicePointer = const_cast<void *>(Ptr);
  return hipSuccess;
}

hipError_t hipGetSymbolAddress(void **DevPtr, const void *Symbol) {
  HIPRT_ENTRY;
  uint64_t A = 0;
  size_t S = 0;
  if (!DevPtr)
    return R.fail(hipErrorInvalidValue, "hipGetSymbolAddress", "devPtr is null");
  if (hipError_t E = symbolAddress(R, "hipGetSymbolAddress", Symbol, A, S))
    return E;
  *DevPtr = reinterpret_cast<void *>(A);
  return hipSuccess;
}

hipError_t hipGetSymbolSize(size_t *Size, const void *Symbol) {
  HIPRT_ENTRY;
  uint64_t A = 0;
  size_t S = 0;
  if (!Size)
    return R.fail(hipErrorInvalidValue, "hipGetSymbolSize", "size is null");
  if (hipError_t E = symbolAddress(R, "hipGetSymbolSize", Symbol, A, S))
    return E;
  *Size = S;
  return hipSuccess;
}

hipError_t hipMemcpyToSymbol(const void *Symbol, const void *Src, size_t Size, size_t Offset,
                             hipMemcpyKind Kind) {
  HIPRT_ENTRY;
  uint64_t A = 0;
  if (hipError_t E = symbolRange(R, "hipMemcpyToSymbol", Symbol, Size, Offset, A))
    return E;
  return copyMemory(R, "hipMemcpyToSymbol", reinterpret_cast<void *>(A), Src, Size,
                    Kind == hipMemcpyDeviceToDevice ? Kind : hipMemcpyDefault);
}

hipError_t hipMemcpyFromSymbol(void *Dst, const void *Symbol, size_t Size, size_t Offset,
                               hipMemcpyKind Kind) {
  HIPRT_ENTRY;
  uint64_t A = 0;
  if (hipError_t E = symbolRange(R, "hipMemcpyFromSymbol", Symbol, Size, Offset, A))
    return E;
  return copyMemory(R, "hipMemcpyFromSymbol", Dst, reinterpret_cast<void *>(A), Size,
                    Kind == hipMemcpyDeviceToDevice ? Kind : hipMemcpyDefault);
}

} // extern "C"
