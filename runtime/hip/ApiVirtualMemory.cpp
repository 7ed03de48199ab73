// Virtual memory management: hipMemAddressReserve and hipMemAddressFree, hipMemCreate and
// hipMemRelease, hipMemMap and hipMemUnmap, hipMemSetAccess, hipMemGetAllocationGranularity.
// A reservation is an address range; a mapping in it becomes emulator memory at that address
// once hipMemSetAccess makes it accessible (read-write; read-only cannot be emulated and is
// refused). The requested address of hipMemAddressReserve is granted when the range is free,
// as ROCm's runtime does, unless $ASMEVO_HIP_IGNORE_ADDRESS_HINT is set: then, as a runtime
// may, it reserves elsewhere (for testing what callers do when the hint is not taken).
#include "Entry.h"

#include "support/AddressRanges.h"
#include "support/Error.h"

#include <cstdlib>

using namespace asmevo::hiprt;

namespace {

constexpr uint64_t kGranularity = 4096;

// The one device, pinned: what every call taking a hipMemAllocationProp accepts.
hipError_t checkProp(Runtime &R, const char *Call, const hipMemAllocationProp *Prop) {
  if (!Prop)
    return R.fail(hipErrorInvalidValue, Call, "prop is null");
  if (Prop->location.type != hipMemLocationTypeDevice || Prop->location.id != 0)
    return R.fail(hipErrorInvalidValue, Call,
                  "prop.location must be device 0 (type " + std::to_string(Prop->location.type) +
                      ", id " + std::to_string(Prop->location.id) + ")");
  return hipSuccess;
}

// [Base, Base+Size) overlaps no reservation and no emulator memory (code objects included).
bool rangeFree(Runtime &R, uint64_t Base, uint64_t Size) {
  auto It = R.Reserved.upper_bound(Base);
  if (It != R.Reserved.end() && It->first < Base + Size)
    return false;
  if (It != R.Reserved.begin() && std::prev(It)->first + std::prev(It)->second > Base)
    return false;
  // The emulator's own check: map it, and take it back.
  if (llvm::Error E = R.dev().allocAt(Base, Size, "hipMemAddressReserve probe")) {
    llvm::consumeError(std::move(E));
    return false;
  }
  llvm::consumeError(R.dev().free(Base));
  return true;
}

} // namespace

extern "C" {

hipError_t hipMemGetAllocationGranularity(size_t *Granularity, const hipMemAllocationProp *Prop,
                                          hipMemAllocationGranularity_flags Option) {
  HIPRT_ENTRY;
  if (!Granularity)
    return R.fail(hipErrorInvalidValue, "hipMemGetAllocationGranularity", "granularity is null");
  if (hipError_t E = checkProp(R, "hipMemGetAllocationGranularity", Prop))
    return E;
  *Granularity = kGranularity;
  return hipSuccess;
}

hipError_t hipMemAddressReserve(void **Ptr, size_t Size, size_t Alignment, void *Addr,
                                unsigned long long Flags) {
  HIPRT_ENTRY;
  const char *Call = "hipMemAddressReserve";
  if (!Ptr)
    return R.fail(hipErrorInvalidValue, Call, "ptr is null");
  *Ptr = nullptr;
  if (Size == 0 || Size % kGranularity)
    return R.fail(hipErrorInvalidValue, Call,
                  "size " + std::to_string(Size) + " is not a positive multiple of the " +
                      std::to_string(kGranularity) + "-byte granularity");
  if (Alignment & (Alignment - 1))
    return R.fail(hipErrorInvalidValue, Call,
                  "alignment " + std::to_string(Alignment) + " is not a power of two");
  if (Flags)
    return R.fail(hipErrorInvalidValue, Call, "flags must be 0");
  uint64_t Align = std::max<uint64_t>(kGranularity, Alignment);
  const char *Ignore = std::getenv("ASMEVO_HIP_IGNORE_ADDRESS_HINT");
  uint64_t Base = 0;
  if (Addr && !(Ignore && *Ignore) && addr(Addr) % Align == 0 && rangeFree(R, addr(Addr), Size))
    Base = addr(Addr);
  while (!Base) {
    uint64_t B = (R.NextReservation + Align - 1) & ~(Align - 1);
    R.NextReservation = B + Size + 0x10000; // an unmapped gap between reservations
    if (rangeFree(R, B, Size))
      Base = B;
  }
  R.Reserved[Base] = Size;
  *Ptr = reinterpret_cast<void *>(Base);
  return hipSuccess;
}

hipError_t hipMemAddressFree(void *Ptr, size_t Size) {
  HIPRT_ENTRY;
  auto It = R.Reserved.find(addr(Ptr));
  if (It == R.Reserved.end() || It->second != Size)
    return R.fail(hipErrorInvalidValue, "hipMemAddressFree",
                  hexAddr(Ptr) + " and " + std::to_string(Size) +
                      " bytes are not a reservation of hipMemAddressReserve");
  auto M = R.Mappings.lower_bound(It->first);
  if (M != R.Mappings.end() && M->first < It->first + It->second)
    return R.fail(hipErrorInvalidValue, "hipMemAddressFree",
                  "the reservation at " + hexAddr(Ptr) + " still has a mapping at " +
                      asmevo::hexText(M->first) + " (hipMemUnmap it first)");
  R.Reserved.erase(It);
  return hipSuccess;
}

hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *Handle, size_t Size,
                        const hipMemAllocationProp *Prop, unsigned long long Flags) {
  HIPRT_ENTRY;
  const char *Call = "hipMemCreate";
  if (!Handle)
    return R.fail(hipErrorInvalidValue, Call, "handle is null");
  if (hipError_t E = checkProp(R, Call, Prop))
    return E;
  if (Prop->type != hipMemAllocationTypePinned)
    return R.fail(hipErrorInvalidValue, Call,
                  "prop.type must be hipMemAllocationTypePinned (is " +
                      std::to_string(int(Prop->type)) + ")");
  if (Size == 0 || Size % kGranularity || Flags)
    return R.fail(hipErrorInvalidValue, Call,
                  "size " + std::to_string(Size) + " is not a positive multiple of the " +
                      std::to_string(kGranularity) + "-byte granularity, or flags are not 0");
  // The handle is an address of the runtime's own that nothing dereferences.
  auto *H = reinterpret_cast<hipMemGenericAllocationHandle_t>(new char);
  R.PhysicalAllocations[H] = Size;
  *Handle = H;
  return hipSuccess;
}

hipError_t hipMemRelease(hipMemGenericAllocationHandle_t Handle) {
  HIPRT_ENTRY;
  auto It = R.PhysicalAllocations.find(Handle);
  if (It == R.PhysicalAllocations.end())
    return R.fail(hipErrorInvalidValue, "hipMemRelease", "not a handle of hipMemCreate");
  for (const auto &[Base, M] : R.Mappings)
    if (M.Handle == Handle)
      return R.fail(hipErrorInvalidValue, "hipMemRelease",
                    "the handle is still mapped at " + asmevo::hexText(Base) +
                        " (the emulated runtime needs hipMemUnmap first)");
  R.PhysicalAllocations.erase(It);
  delete reinterpret_cast<char *>(Handle);
  return hipSuccess;
}

hipError_t hipMemMap(void *Ptr, size_t Size, size_t Offset, hipMemGenericAllocationHandle_t Handle,
                     unsigned long long Flags) {
  HIPRT_ENTRY;
  const char *Call = "hipMemMap";
  auto H = R.PhysicalAllocations.find(Handle);
  if (H == R.PhysicalAllocations.end())
    return R.fail(hipErrorInvalidValue, Call, "not a handle of hipMemCreate");
  if (Offset || Flags || Size != H->second)
    return R.fail(hipErrorInvalidValue, Call,
                  "offset and flags must be 0 and size the handle's " + std::to_string(H->second) +
                      " bytes");
  uint64_t Base = addr(Ptr);
  if (!asmevo::withinOneRange(R.Reserved, Base, Size))
    return R.fail(hipErrorInvalidValue, Call,
                  hexAddr(Ptr) + " and " + std::to_string(Size) +
                      " bytes are not inside one reservation");
  auto M = R.Mappings.lower_bound(Base);
  if ((M != R.Mappings.end() && M->first < Base + Size) ||
      (M != R.Mappings.begin() && std::prev(M)->first + std::prev(M)->second.Size > Base))
    return R.fail(hipErrorInvalidValue, Call, hexAddr(Ptr) + " overlaps another mapping");
  R.Mappings[Base] = Runtime::Mapping{Size, Handle, false};
  return hipSuccess;
}

hipError_t hipMemSetAccess(void *Ptr, size_t Size, const hipMemAccessDesc *Desc, size_t Count) {
  HIPRT_ENTRY;
  const char *Call = "hipMemSetAccess";
  auto M = R.Mappings.find(addr(Ptr));
  if (M == R.Mappings.end() || M->second.Size != Size)
    return R.fail(hipErrorInvalidValue, Call,
                  hexAddr(Ptr) + " and " + std::to_string(Size) +
                      " bytes are not one mapping of hipMemMap (the emulated runtime sets the "
                      "access of whole mappings)");
  if (!Desc || Count == 0)
    return R.fail(hipErrorInvalidValue, Call, "no access descriptor");
  for (size_t I = 0; I < Count; ++I) {
    if (Desc[I].location.type != hipMemLocationTypeDevice || Desc[I].location.id != 0)
      return R.fail(hipErrorInvalidValue, Call, "the location must be device 0");
    if (Desc[I].flags != hipMemAccessFlagsProtReadWrite)
      return R.fail(hipErrorNotSupported, Call,
                    "the emulated runtime makes mappings read-write only (flags " +
                        std::to_string(int(Desc[I].flags)) + ")");
  }
  if (M->second.Accessible)
    return hipSuccess;
  if (llvm::Error E = R.dev().allocAt(M->first, Size, "hipMemMap at " + hexAddr(Ptr)))
    return R.fail(hipErrorOutOfMemory, Call, llvm::toString(std::move(E)));
  M->second.Accessible = true;
  return hipSuccess;
}

hipError_t hipMemUnmap(void *Ptr, size_t Size) {
  HIPRT_ENTRY;
  auto M = R.Mappings.find(addr(Ptr));
  if (M == R.Mappings.end() || M->second.Size != Size)
    return R.fail(hipErrorInvalidValue, "hipMemUnmap",
                  hexAddr(Ptr) + " and " + std::to_string(Size) +
                      " bytes are not one mapping of hipMemMap");
  if (M->second.Accessible)
    if (llvm::Error E = R.dev().free(M->first))
      return R.fail(hipErrorInvalidValue, "hipMemUnmap", llvm::toString(std::move(E)));
  R.Mappings.erase(M);
  return hipSuccess;
}

} // extern "C"
