// The executors' memory helpers declared in Exec.h: global, LDS, private (scratch) and flat
// addresses to host bytes, or a memory fault naming the pc, lane and address.
#include "emu/Exec.h"

#include "emu/EmuError.h"

namespace asmevo::emu {

uint8_t *globalAccessSlow(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What) {
  const Allocation *a = c.Mem.find(Addr);
  uint8_t *p =
      a && Size <= a->Size - (Addr - a->Base) ? a->Bytes.get() + (Addr - a->Base) : nullptr;
  if (p) {
    c.LastAlloc = a;
    if (c.Track)
      a->touch(Addr - a->Base, Size);
  } else
    throwMemoryFault(What, Addr, Size, Lane, c.InstPc,
                     c.Mem.find(Addr) ? "runs past the end of its allocation"
                                      : "outside every allocation");
  return p;
}

uint8_t *ldsAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What) {
  if (Addr + Size > c.Wg.Lds.size() || Addr + Size < Addr)
    throwMemoryFault(What, Addr, Size, Lane, c.InstPc,
                     "outside the workgroup's " + std::to_string(c.Wg.Lds.size()) +
                         "-byte LDS allocation");
  if (c.Strict)
    strictLdsTouch(c, Addr, Size);
  if (c.Trace)
    traceAccess(c, Addr, Size, Lane, TraceSpace::Lds);
  return c.Wg.Lds.data() + Addr;
}

// Private memory is laid out lane-contiguously: lane L's segment is scratchPerLane bytes at
// FLAT_SCRATCH + L * scratchPerLane. The private segment buffer descriptor the launch builds
// (add_tid_enable, stride = scratchPerLane, no swizzle) addresses the same bytes, so buffer and
// flat scratch accesses agree as they do on hardware.
uint8_t *privateAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What) {
  if (c.ScratchPerLane == 0)
    throwMemoryFault(What, Addr, Size, Lane, c.InstPc,
                     "private access in a dispatch with no private segment");
  if (Addr + Size > c.ScratchPerLane || Addr + Size < Addr)
    throwMemoryFault(What, Addr, Size, Lane, c.InstPc,
                     "outside the lane's " + std::to_string(c.ScratchPerLane) +
                         "-byte private segment");
  uint64_t Base = c.W.S[kFlatScratchLo] | (uint64_t(c.W.S[kFlatScratchHi]) << 32);
  return globalAccessUnchecked(c, Base + uint64_t(Lane) * c.ScratchPerLane + Addr, Size, Lane,
                               What);
}

uint8_t *flatAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What) {
  if (Addr >= kSharedApertureBase && Addr < kSharedApertureBase + kApertureSize)
    return ldsAccess(c, Addr - kSharedApertureBase, Size, Lane, What);
  if (Addr >= kPrivateApertureBase && Addr < kPrivateApertureBase + kApertureSize)
    return privateAccess(c, Addr - kPrivateApertureBase, Size, Lane, What);
  return globalAccess(c, Addr, Size, Lane, What);
}

} // namespace asmevo::emu
