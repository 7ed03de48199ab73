// The executors' memory helpers declared in Exec.h: global, LDS, private (scratch) and flat
// addresses to host bytes, or a memory fault naming the pc, lane and address.
#include "emu/Exec.h"

#include "emu/EmuError.h"

namespace asmevo::emu {

uint8_t *globalAccessSlow(ExecCtx &c, uint64_t addr, unsigned size, int lane, const char *what) {
  const Allocation *a = c.Mem.find(addr);
  uint8_t *p =
      a && size <= a->Size - (addr - a->Base) ? a->Bytes.get() + (addr - a->Base) : nullptr;
  if (p) {
    c.LastAlloc = a;
    if (c.Track)
      a->touch(addr - a->Base, size);
  } else
    throwMemoryFault(what, addr, size, lane, c.InstPc,
                     c.Mem.find(addr) ? "runs past the end of its allocation"
                                      : "outside every allocation");
  return p;
}

uint8_t *ldsAccess(ExecCtx &c, uint64_t addr, unsigned size, int lane, const char *what) {
  if (addr + size > c.Wg.Lds.size() || addr + size < addr)
    throwMemoryFault(what, addr, size, lane, c.InstPc,
                     "outside the workgroup's " + std::to_string(c.Wg.Lds.size()) +
                         "-byte LDS allocation");
  if (c.Strict)
    strictLdsTouch(c, addr, size);
  if (c.Trace)
    traceAccess(c, addr, size, lane, TraceSpace::Lds);
  return c.Wg.Lds.data() + addr;
}

// Private memory is laid out lane-contiguously: lane L's segment is scratchPerLane bytes at
// FLAT_SCRATCH + L * scratchPerLane. The private segment buffer descriptor the launch builds
// (add_tid_enable, stride = scratchPerLane, no swizzle) addresses the same bytes, so buffer and
// flat scratch accesses agree as they do on hardware.
uint8_t *privateAccess(ExecCtx &c, uint64_t addr, unsigned size, int lane, const char *what) {
  if (c.ScratchPerLane == 0)
    throwMemoryFault(what, addr, size, lane, c.InstPc,
                     "private access in a dispatch with no private segment");
  if (addr + size > c.ScratchPerLane || addr + size < addr)
    throwMemoryFault(what, addr, size, lane, c.InstPc,
                     "outside the lane's " + std::to_string(c.ScratchPerLane) +
                         "-byte private segment");
  uint64_t base = c.W.S[kFlatScratchLo] | (uint64_t(c.W.S[kFlatScratchHi]) << 32);
  return globalAccessUnchecked(c, base + uint64_t(lane) * c.ScratchPerLane + addr, size, lane,
                               what);
}

uint8_t *flatAccess(ExecCtx &c, uint64_t addr, unsigned size, int lane, const char *what) {
  if (addr >= kSharedApertureBase && addr < kSharedApertureBase + kApertureSize)
    return ldsAccess(c, addr - kSharedApertureBase, size, lane, what);
  if (addr >= kPrivateApertureBase && addr < kPrivateApertureBase + kApertureSize)
    return privateAccess(c, addr - kPrivateApertureBase, size, lane, what);
  return globalAccess(c, addr, size, lane, what);
}

} // namespace asmevo::emu
