// The emu backend's engine: load a code object into a device address space and run a kernel
// dispatch the way the hardware and firmware set it up (AQL packet, user and system SGPRs in
// the documented order, packed work-item ids, code object v5 hidden kernargs, kernarg preload,
// scratch and LDS), workgroups in parallel on host threads, the waves of a workgroup
// interleaved in a seeded order with barriers honoured.
#pragma once

#include "codeobj/CodeObject.h"
#include "codeobj/KernelArgs.h"
#include "emu/DeviceMemory.h"
#include "emu/Exec.h"
#include "emu/Inst.h"
#include "emu/RegUse.h"
#include "emu/StrictCheck.h"
#include "emu/Trace.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace asmevo::emu {

struct LaunchConfig {
  std::string Kernel;                         // kernel symbol
  std::array<uint32_t, 3> GridItems{1, 1, 1}; // grid size in work-items (AQL semantics)
  std::array<uint32_t, 3> Block{64, 1, 1};    // workgroup size in work-items
  // The kernarg segment: explicit arguments laid out as the metadata says. It is extended to
  // the metadata's segment size; hidden arguments are filled by the launch (FillHidden).
  std::vector<uint8_t> Kernarg;
  bool FillHidden = true;
  uint32_t DynamicLds = 0;          // bytes of dynamic LDS per workgroup
  uint32_t ExtraPrivatePerLane = 0; // extra scratch per lane (dynamic stack)
  unsigned Threads = 0;             // host threads (0: all cores)
  uint64_t Seed = 1;                // wave interleaving order
  // Vary how many instructions a wave runs before the next one is scheduled (seeded by Seed)
  // instead of a fixed quantum: more interleavings of the waves of a workgroup.
  bool VarySchedule = false;
  // The strict checks (StrictCheck.h): pending loads, wait states, races between waves.
  bool Strict = false;
  // What every allocated VGPR and AGPR holds when a wave starts, before the dispatch writes the
  // work-item ids: hardware leaves them undefined. 0 by default; the differential check runs K0
  // and K1 with the same non-zero fill, so that a candidate that reads a register it never wrote
  // (a dropped "v_mov_b32 v4, 0") computes something else than K0.
  uint32_t RegisterFill = 0;
  uint64_t MaxWaveInstructions = 1ull << 31; // per wave: beyond this, the run stops
  // The whole dispatch: wave-instructions (0: no limit) and host seconds (0: none). Past either
  // the run stops with a LimitError (support/Error.h) saying how far it got.
  uint64_t MaxInstructions = 0;
  double TimeoutSeconds = 0;
  // Called from the worker threads after each workgroup with (done, total): for a progress
  // line. It must be cheap and thread-safe.
  std::function<void(uint64_t, uint64_t)> OnWorkgroupDone;
  // Tracing (Trace.h): TraceWanted(linear group id) says which workgroups to record; each
  // recorded one goes to TraceDone when its waves have ended. Both are called from the worker
  // threads and must be thread-safe. Tracing does not change what the dispatch computes.
  std::function<bool(uint64_t)> TraceWanted;
  std::function<void(WorkgroupTrace &&)> TraceDone;
  // Run only some workgroups (a timing model's sample, GroupSubset): the rest of the grid is not
  // run, so memory holds only part of the kernel's result. Empty: every workgroup.
  GroupSubset Only;
};

// Counts of what ran. Emulated work is a model: no timing here is hardware time.
struct RunStats {
  uint64_t Workgroups = 0;
  uint64_t Waves = 0;
  uint64_t WaveInstructions = 0; // instructions issued, counted once per wave
  uint64_t LaneInstructions = 0; // vector instructions x active lanes (EXEC popcount)
  double Seconds = 0;            // host wall-clock time of the run
  unsigned Threads = 0;
  // Strict checks (when on): the first findings, their total count, and what each s_waitcnt
  // saw (by pc).
  std::vector<UnsafeFinding> Findings;
  uint64_t FindingsTotal = 0;
  std::map<uint64_t, WaitProfile> Waits;
  uint64_t EntryPc = 0; // the kernel's entry (its descriptor's code address)
};

class Emulator {
public:
  // Load Code (which must outlive the emulator) into Mem at an address Mem chooses: every
  // allocated section at its virtual address + base, dynamic relocations applied, code
  // pre-decoded.
  static llvm::Expected<std::unique_ptr<Emulator>> load(const CodeObject &Code, DeviceMemory &Mem);

  Gfx gfx() const { return Target; }
  uint64_t loadBase() const { return Base; }
  const CodeObject &codeObject() const { return Code; }
  DeviceMemory &memory() { return Mem; }

  // Run one dispatch. Errors: unknown kernel or bad launch (exit-2 kind), and emulation stops
  // (unsupported instruction, memory fault, trap, timeout: runtime kind) with the pc.
  llvm::Expected<RunStats> run(const LaunchConfig &L);

  // "kernel+0x1c": the function of the code object holding Pc, or "" outside its code.
  std::string where(uint64_t Pc) const;

  // The decoded instruction at a device address (decoding on first use outside .text).
  const Inst &fetch(uint64_t Pc);
  // The same with its register uses (RegUse.h); the pre-decoded .text inline, the rest
  // out of line.
  const Inst &fetch(uint64_t Pc, const RegUses *&Uses) {
    const uint64_t Off = Pc - TextBegin;
    if (Off < TextEnd - TextBegin && (Pc & 3) == 0 && SlotValid[size_t(Off >> 2)]) {
      Uses = &SlotUses[size_t(Off >> 2)];
      return Slots[size_t(Off >> 2)];
    }
    return fetchSlow(Pc, Uses);
  }

private:
  Emulator(const CodeObject &Code, DeviceMemory &Mem, Gfx Target)
      : Code(Code), Mem(Mem), Target(Target) {}
  llvm::Error loadImage();
  const Inst &fetchSlow(uint64_t Pc, const RegUses *&Uses);
  // The steps of run(): check the launch and plan the dispatch; place its objects in device
  // memory; set up one wave's registers (Emulator.cpp).
  struct Dispatch;
  llvm::Error planDispatch(Dispatch &D) const;
  llvm::Error placeDispatch(Dispatch &D, unsigned Threads);
  void initWave(const Dispatch &D, WaveState &W, unsigned Wv, unsigned T, const uint32_t Id[3],
                const uint32_t Size[3], uint32_t Items) const;
  struct DispatchLimits;
  void scheduleGroup(const LaunchConfig &L, uint64_t G,
                     std::vector<std::unique_ptr<WaveState>> &Waves, std::vector<ExecCtx> &Ctx,
                     unsigned NW, DispatchLimits &Lim, uint64_t &LaneInsts);

  const CodeObject &Code;
  DeviceMemory &Mem;
  Gfx Target;
  uint64_t Base = 0;
  // Pre-decoded code: slot i holds the instruction starting at TextBegin + 4*i.
  uint64_t TextBegin = 0, TextEnd = 0;
  std::vector<Inst> Slots;
  std::vector<RegUses> SlotUses;
  std::vector<uint8_t> SlotValid;
  // Whether any code of the object uses VCC / FLAT_SCRATCH (they then take SGPRs of each
  // kernel's allocation, as the scan of hsaco-rebuild counts them).
  bool CodeUsesVcc = false, CodeUsesFlatScratch = false;
  std::mutex ExtraLock;
  std::unordered_map<uint64_t, std::unique_ptr<Inst>> Extra;
  std::unordered_map<uint64_t, std::unique_ptr<RegUses>> ExtraUses;
};

} // namespace asmevo::emu
