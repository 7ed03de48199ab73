#include "emu/DeviceMemory.h"

#include "emu/EmuError.h"
#include "support/Error.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace asmevo::emu {

// Generations are unique across all DeviceMemory objects, so a cached translation can never
// be mistaken for one of a newer object that happens to live at the same address.
static std::atomic<uint64_t> NextGeneration{1};

DeviceMemory::DeviceMemory() : Generation(NextGeneration++) {}

static bool overlapsAperture(uint64_t Base, uint64_t Size) {
  auto Hit = [&](uint64_t A) { return Base < A + kApertureSize && A < Base + Size; };
  return Hit(kSharedApertureBase) || Hit(kPrivateApertureBase);
}

llvm::Error DeviceMemory::map(uint64_t Base, uint64_t Size, const std::string &Name) {
  if (Size == 0)
    return makeError("device allocation '" + Name + "' has size 0");
  if (Base + Size < Base || Base + Size > (1ull << 57))
    return makeError("device allocation '" + Name + "' at " + hexText(Base) + " of " +
                     std::to_string(Size) + " bytes leaves the 57-bit address space");
  if (Base < 0x1000)
    return makeError("device allocation '" + Name + "' at " + hexText(Base) +
                     " would map the null page");
  if (overlapsAperture(Base, Size))
    return makeError("device allocation '" + Name + "' at " + hexText(Base) +
                     " overlaps the LDS or private aperture");
  auto It = std::lower_bound(
      Allocs.begin(), Allocs.end(), Base,
      [](const std::unique_ptr<Allocation> &A, uint64_t B) { return A->Base < B; });
  if (It != Allocs.end() && (*It)->Base < Base + Size)
    return makeError("device allocation '" + Name + "' at " + hexText(Base) + " overlaps '" +
                     (*It)->Name + "' at " + hexText((*It)->Base));
  if (It != Allocs.begin()) {
    const Allocation &P = **std::prev(It);
    if (P.Base + P.Size > Base)
      return makeError("device allocation '" + Name + "' at " + hexText(Base) + " overlaps '" +
                       P.Name + "' at " + hexText(P.Base));
  }
  auto A = std::make_unique<Allocation>();
  A->Base = Base;
  A->Size = Size;
  A->Name = Name;
  A->Bytes.reset(static_cast<uint8_t *>(std::calloc(Size, 1)));
  if (!A->Bytes)
    return makeError("device allocation '" + Name + "' of " + std::to_string(Size) +
                     " bytes: out of host memory");
  Allocs.insert(It, std::move(A));
  Generation = NextGeneration++;
  if (Base + Size > NextHeap && Base >= kDefaultHeapBase)
    NextHeap = Base + Size;
  return llvm::Error::success();
}

uint64_t DeviceMemory::allocate(uint64_t Size, uint64_t Align, const std::string &Name) {
  if (Align < 256)
    Align = 256;
  // Leave a 64 KiB unmapped gap after the previous allocation so that overruns fault.
  uint64_t Base = (NextHeap + 0x10000 + Align - 1) & ~(Align - 1);
  if (llvm::Error E = map(Base, Size ? Size : 1, Name)) {
    llvm::consumeError(std::move(E));
    return 0;
  }
  return Base;
}

llvm::Error DeviceMemory::unmap(uint64_t Base) {
  for (auto It = Allocs.begin(); It != Allocs.end(); ++It)
    if ((*It)->Base == Base) {
      Allocs.erase(It);
      Generation = NextGeneration++;
      return llvm::Error::success();
    }
  return makeError("no device allocation starts at " + hexText(Base));
}

const Allocation *DeviceMemory::find(uint64_t Addr) const {
  auto It = std::upper_bound(
      Allocs.begin(), Allocs.end(), Addr,
      [](uint64_t A, const std::unique_ptr<Allocation> &X) { return A < X->Base; });
  if (It == Allocs.begin())
    return nullptr;
  const Allocation *A = std::prev(It)->get();
  return Addr - A->Base < A->Size ? A : nullptr;
}

uint8_t *DeviceMemory::translate(uint64_t Addr, uint64_t Size) {
  // One-entry cache per thread: consecutive accesses mostly hit the same allocation.
  struct Cache {
    const DeviceMemory *Owner = nullptr;
    uint64_t Gen = 0;
    const Allocation *A = nullptr;
  };
  static thread_local Cache C;
  if (C.Owner == this && C.Gen == Generation && C.A && Addr - C.A->Base < C.A->Size &&
      Size <= C.A->Size - (Addr - C.A->Base))
    return C.A->Bytes.get() + (Addr - C.A->Base);
  const Allocation *A = find(Addr);
  if (A) {
    C.Owner = this;
    C.Gen = Generation;
    C.A = A;
  }
  if (!A || Size > A->Size - (Addr - A->Base))
    return nullptr;
  return A->Bytes.get() + (Addr - A->Base);
}

void DeviceMemory::resetTouched() {
  for (auto &A : Allocs) {
    A->TouchLo = ~0ull;
    A->TouchHi = 0;
  }
}

llvm::Error DeviceMemory::write(uint64_t Addr, const void *Src, uint64_t Size) {
  uint8_t *P = translate(Addr, Size);
  if (!P)
    return makeError("device write of " + std::to_string(Size) + " bytes at " + hexText(Addr) +
                     " is outside every allocation");
  std::memcpy(P, Src, Size);
  return llvm::Error::success();
}

llvm::Error DeviceMemory::read(uint64_t Addr, void *Dst, uint64_t Size) const {
  uint8_t *P = const_cast<DeviceMemory *>(this)->translate(Addr, Size);
  if (!P)
    return makeError("device read of " + std::to_string(Size) + " bytes at " + hexText(Addr) +
                     " is outside every allocation");
  std::memcpy(Dst, P, Size);
  return llvm::Error::success();
}

} // namespace asmevo::emu
