// The interface between the emulator's scheduler (Emulator.cpp) and the executors, one file
// per instruction class. An executor runs one decoded instruction for one wave. When it runs,
// W.Pc already points past the instruction (branches are relative to that, as in the ISA).
// It returns false when it does not implement In.Operation; the scheduler then stops the dispatch
// with "unsupported instruction <mnemonic> at pc 0x...". It never guesses. Which executor runs
// an instruction is Dispatch.h's executeInst.
#pragma once

#include "emu/DeviceMemory.h"
#include "emu/Gfx.h"
#include "emu/Inst.h"
#include "emu/Trace.h"
#include "emu/Wave.h"

#include <cstdint>
#include <vector>

namespace asmevo::emu {

class StrictWave;

// One workgroup's shared state.
struct Workgroup {
  uint32_t Id[3] = {0, 0, 0};
  std::vector<uint8_t> Lds; // group segment (static + dynamic LDS)
  unsigned NumWaves = 0;
};

struct ExecCtx {
  WaveState &W;
  Workgroup &Wg;
  DeviceMemory &Mem;
  Gfx Target;
  uint64_t InstPc = 0; // address of the instruction being executed
  // Private (scratch) memory of this wave: a device allocation, lane-swizzled as the hardware
  // does for flat scratch (element size 4, index stride 64). 0/0 when the kernel has none.
  uint64_t ScratchBase = 0;
  uint32_t ScratchPerLane = 0;
  // The allocation the last global access hit (allocations do not change during a dispatch,
  // and a context belongs to one wave on one thread).
  const Allocation *LastAlloc = nullptr;
  bool Track = false;           // record footprints (DeviceMemory::setTracking)
  StrictWave *Strict = nullptr; // the strict checks (StrictCheck.h), when on
  // The registers the kernel's descriptor allocates to the wave (s0..s(numSgprs-1), ...): an
  // access beyond them is a register fault (RegUse.h has each instruction's maxima; indexed
  // accesses such as s_movrel check their computed register).
  uint16_t NumSgprs = 102, NumVgprs = 256, NumAgprs = 256;
  // A traced dispatch (LaunchConfig::TraceWanted): this wave's record, else null.
  WaveTrace *Trace = nullptr;
  // The host bytes the last buffer access prefetched (a cache hint, ExecVmem.cpp).
  const uint8_t *PrefetchFrom = nullptr, *PrefetchTo = nullptr;
};

// Record one memory access of the current instruction in the wave's trace.
inline void traceAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, TraceSpace Space) {
  c.Trace->Accesses.push_back(
      TraceAccess{Addr, uint16_t(Size), uint8_t(Lane < 0 ? 0 : Lane),
                  Lane < 0 && Space == TraceSpace::Vector ? TraceSpace::Scalar : Space});
}

// The strict checks' memory hooks (StrictCheck.cpp): every LDS byte range and every global
// (non-private) byte range the current instruction touches.
void strictLdsTouch(ExecCtx &c, uint64_t Addr, unsigned Size);
void strictGlobalTouch(ExecCtx &c, uint64_t Addr, unsigned Size);
// LDS bytes a load into LDS (buffer_load_* lds, global_load_lds_*) writes: pending until the
// wave's vmcnt proves the load complete.
void strictLdsDmaWrite(ExecCtx &c, uint64_t Addr, unsigned Size, const uint8_t *Data);

// Memory helpers (MemoryAccess.cpp): a host pointer for Size bytes, or an EmuError memory fault
// naming the pc, lane and address. `what` names the access ("global_load_dword read").
uint8_t *globalAccessSlow(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What);
// The same without the strict checks' hook (private memory: no other wave can reach it).
inline uint8_t *globalAccessUnchecked(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane,
                                      const char *What) {
  if (c.Trace)
    traceAccess(c, Addr, Size, Lane, TraceSpace::Vector);
  const Allocation *a = c.LastAlloc;
  if (a && Addr - a->Base < a->Size && Size <= a->Size - (Addr - a->Base)) {
    if (c.Track)
      a->touch(Addr - a->Base, Size);
    return a->Bytes.get() + (Addr - a->Base);
  }
  return globalAccessSlow(c, Addr, Size, Lane, What);
}
inline uint8_t *globalAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What) {
  if (c.Strict)
    strictGlobalTouch(c, Addr, Size);
  return globalAccessUnchecked(c, Addr, Size, Lane, What);
}
uint8_t *ldsAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What);
// A private-segment (scratch) address of one lane, as scratch_* and flat-to-private see it.
uint8_t *privateAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What);
// A flat address: shared aperture -> LDS, private aperture -> scratch, else global.
uint8_t *flatAccess(ExecCtx &c, uint64_t Addr, unsigned Size, int Lane, const char *What);

bool execScalar(ExecCtx &c, const Inst &In);     // SOP1/SOP2/SOPK/SOPC/SOPP   (ExecScalar.cpp)
bool execSmem(ExecCtx &c, const Inst &In);       // SMEM                       (ExecSmem.cpp)
bool execVector(ExecCtx &c, const Inst &In);     // VOP1/VOP2/VOPC/VOP3, DPP, SDWA (ExecVector.cpp)
bool execPacked(ExecCtx &c, const Inst &In);     // VOP3P packed math, dot     (ExecPacked.cpp)
bool execMfma(ExecCtx &c, const Inst &In);       // MFMA / SMFMAC              (ExecMfma.cpp)
bool execMfmaF8F6F4(ExecCtx &c, const Inst &In); // gfx950 F8F6F4, scaled (ExecMfmaF8F6F4.cpp)
bool execSmfmac(ExecCtx &c, const Inst &In);     // gfx950 FP8/BF8 SMFMAC     (ExecSmfmac.cpp)
bool execLds(ExecCtx &c, const Inst &In);        // DS                         (ExecLds.cpp)
bool execLdsTransposeRead(ExecCtx &c, const Inst &In); // ds_read_*_tr_* (ExecLdsTranspose.cpp)
bool execVmem(ExecCtx &c, const Inst &In); // FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF (ExecVmem.cpp)
// Land the pending loads into LDS that vmcnt(vmcnt) proves complete (ExecVmem.cpp): all but the
// vmcnt most recent vector memory instructions; vmcnt 0 at s_endpgm lands everything.
void landLdsWrites(ExecCtx &c, unsigned Vmcnt);

// Whether the f32 MFMAs run their inner products on the host's AVX-512 (ExecMfma.cpp): true on
// a host that has it unless turned off. The results are the same bit for bit either way; tests
// turn it off to compare the two forms.
bool mfmaHostAvx512();
void allowMfmaHostAvx512(bool Allow);

// The error an instruction whose form is refused (Inst::refused, Refusal.h) stops the wave
// with: "v_mov_b32_dpp at pc 0x...: reserved DPP control 0x144" (an encoding the ISA reserves)
// or "unsupported instruction <mnemonic> at pc 0x...: <why>" (Refusal.cpp).
[[noreturn]] void throwRefusal(const ExecCtx &c, const Inst &In);

} // namespace asmevo::emu
