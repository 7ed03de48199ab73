// The device interface every execution tool uses (kernel-run today; kernel-diffcheck,
// kernel-time and dispatch-capture replay later): device memory, code-object modules and
// kernel launches with a raw kernarg segment. Two backends implement it: `emu` (the CPU
// emulator, EmuDevice.cpp) and `hip` (the HIP runtime loaded at run time, HipDevice.cpp).
// Every result says which backend and device produced it.
#pragma once

#include "codeobj/CodeObject.h"
#include "device/Trace.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace asmevo::device {

class TraceSink;

struct DeviceInfo {
  std::string Backend;   // "emu" or "hip"
  std::string Name;      // "CPU emulator (gfx942, wave64)", or the GPU's name
  bool Hardware = false; // false: times are emulation (host) times, never GPU times
  // The in-process emulator (emu): it runs the strict checks and honours LaunchParams' emu-only
  // fields (instruction and time limits, schedules, register fill). The hip backend on AsmEvo's
  // emulated runtime is neither this nor Hardware.
  bool Emulator = false;
  // The backend can record which bytes a launch touched (LaunchParams::TrackFootprint): emu.
  bool TracksFootprint = false;
  // The backend can record each wave's executed instructions and memory addresses
  // (LaunchParams::Trace, Trace.h): emu. This is how a timing model sees a launch.
  bool Traces = false;
  // Where readable (hip): the GPU's processor ("gfx942") and its peak shader clock (0 unknown).
  std::string Arch;
  double ClockMHz = 0;
};

struct LaunchParams {
  std::string Kernel;                         // kernel symbol
  std::array<uint32_t, 3> GridItems{1, 1, 1}; // grid size in work-items (AQL semantics)
  std::array<uint32_t, 3> Block{64, 1, 1};    // workgroup size
  uint32_t DynamicLds = 0;
  std::vector<uint8_t> Kernarg;              // explicit arguments; hidden ones are filled
  uint64_t Seed = 1;                         // emu: wave interleaving order
  unsigned Threads = 0;                      // emu: host threads (0: all cores)
  uint64_t MaxWaveInstructions = 1ull << 31; // emu: per-wave instruction limit
  uint64_t MaxInstructions = 0;              // emu: whole-dispatch wave-instructions (0: none)
  double TimeoutSeconds = 0;                 // emu: host seconds (0: none); past either limit
                                             // the launch fails with a LimitError
  bool VarySchedule = false;                 // emu: seeded, varied wave interleaving
  bool Strict = false;                       // emu: the strict checks (emu/StrictCheck.h)
  uint32_t RegisterFill = 0;   // emu: every VGPR/AGPR's value at wave start (hardware: undefined)
  bool TrackFootprint = false; // record every allocation's touched bytes (DeviceInfo says who can)
  // emu: called after each workgroup with (done, total), from the emulator's threads (a
  // progress line); hip ignores it.
  std::function<void(uint64_t, uint64_t)> OnWorkgroupDone;
  // emu: record the workgroups the sink wants, wave by wave (Trace.h); hip: refused.
  TraceSink *Trace = nullptr;
  // emu: run only these workgroups (Trace.h), a timing model's sample; the rest of the grid is
  // not run, so the buffers then hold only part of the kernel's result. hip: refused.
  GroupSubset Only;
};

// The bytes one launch touched (read or wrote) in one allocation made with alloc.
struct Footprint {
  uint64_t Base = 0;       // the allocation, as alloc returned it
  bool Touched = false;    // any byte
  uint64_t Lo = 0, Hi = 0; // offsets from Base: the lowest touched byte, one past the highest
};

// A strict-check finding: code that is correct only by luck of hardware timing. Its kind is
// (Rule, Instructions); where it is, (kernel, Offset). Nothing compares Message.
struct UnsafeFinding {
  std::string Rule;    // "pending-read", "lds-race", "global-race", a wait-state rule, ...
  uint64_t Offset = 0; // of the instruction, from the kernel's entry
  std::vector<std::string> Instructions; // mnemonics: the one at Offset, then the earlier one
  std::string Message;
};

// What one s_waitcnt saw in a dispatch with strict checks.
struct WaitStat {
  uint64_t Offset = 0; // from the kernel's entry
  uint64_t Executions = 0;
  unsigned MaxVm = 0, MaxLgkm = 0; // most operations outstanding when it executed
};

struct LaunchResult {
  double Seconds = 0; // emu: host time of the emulation; hip: event-timed GPU time
  uint64_t Workgroups = 0, Waves = 0;
  uint64_t WaveInstructions = 0, LaneInstructions = 0; // emu only (0 on hardware)
  unsigned HostThreads = 0;
  bool Checked = false;                // the strict checks ran (emu with Strict)
  std::vector<UnsafeFinding> Findings; // the first findings (one per rule and instruction)
  uint64_t FindingsTotal = 0;          // every occurrence
  std::vector<WaitStat> Waits;         // by offset
  std::vector<Footprint> Footprints;   // with TrackFootprint: one per live allocation
};

// A global variable of a loaded code object, where the load placed it.
struct GlobalSymbol {
  uint64_t Addr = 0, Size = 0;
};

// A code object loaded on a device.
class Module {
public:
  virtual ~Module();
  virtual const CodeObject &codeObject() const = 0;
  // The device address and size of the global variable (an OBJECT symbol) Name. An input error
  // names the symbol when the code object has none of that name.
  virtual llvm::Expected<GlobalSymbol> global(llvm::StringRef Name) = 0;
};

class Device {
public:
  virtual ~Device();
  virtual const DeviceInfo &info() const = 0;

  // Device memory. allocAt places an allocation at a chosen address (for replays); a backend
  // that cannot do that says so.
  virtual llvm::Expected<uint64_t> alloc(uint64_t Size, const std::string &Name) = 0;
  virtual llvm::Error allocAt(uint64_t Addr, uint64_t Size, const std::string &Name) = 0;
  // Allocations for a replay, each wanted at a recorded address: placed there where the
  // backend can, else elsewhere, and Got says where. emu: exactly there (allocAt), or an
  // error. hip: the runtime's hipMemAddressReserve takes the address as a hint only, and may
  // grant another; placed memory lives as long as the device.
  struct Placement {
    uint64_t Want = 0, Size = 0;
    std::string Name;
    uint64_t Got = 0;
  };
  virtual llvm::Error place(std::vector<Placement> &Ps);
  virtual llvm::Error free(uint64_t Addr) = 0;
  virtual llvm::Error write(uint64_t Addr, const void *Src, uint64_t Size) = 0;
  virtual llvm::Error read(uint64_t Addr, void *Dst, uint64_t Size) = 0;

  // Load a code object (Code must outlive the module). Errors name the file.
  virtual llvm::Expected<std::unique_ptr<Module>> load(const CodeObject &Code) = 0;
  // Launch and wait. Runtime failures (unsupported instruction, fault, trap) are runtime
  // errors (exit 3); a launch the kernel cannot take is an input error (exit 2).
  virtual llvm::Expected<LaunchResult> launch(Module &M, const LaunchParams &P) = 0;

  // Evict the device's caches before a timed launch, by writing Bytes (more than its L2 and
  // Infinity Cache hold) to a buffer of the device's own. Only a hardware backend has caches
  // to evict: emu returns an input error.
  virtual llvm::Error flushCaches(uint64_t Bytes);
};

// The emulator backend, for code objects of Processor ("gfx942", ...).
std::unique_ptr<Device> createEmuDevice(const std::string &Processor);

// The HIP runtime backend (HipDevice.cpp; libamdhip64 loaded at run time, $ASMEVO_HIP_LIBRARY
// overriding the library), on the first GPU whose processor is Processor. Input errors (exit
// 2): "no ROCm runtime found: ..." (no library loads), "no AMD GPU found: ..." (the runtime
// sees no device), "the GPU is gfx942, the code object is for gfx90a" (no device of that
// processor).
llvm::Expected<std::unique_ptr<Device>> openHipDevice(const std::string &Processor);

// Open a backend by name: "emu", "hip" or "auto" (hip when an AMD GPU of Processor is usable,
// else emu, also when the HIP runtime found is AsmEvo's emulated one; DeviceInfo::Backend tells
// which was picked). For emu, Processor names the emulated
// target; for hip, the GPU must be of that processor (see openHipDevice).
llvm::Expected<std::unique_ptr<Device>> openDevice(const std::string &Backend,
                                                   const std::string &Processor);

} // namespace asmevo::device
