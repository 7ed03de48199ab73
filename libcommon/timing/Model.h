// The modeled backend of kernel-time: a cycle-approximate model of a CDNA GPU (gfx90a, gfx942,
// gfx950) driven by what a launch really did. The device (emu) runs the launch and traces the
// sampled workgroups wave by wave (device/Trace.h); the model replays those traces through an
// issue model per CU (4 SIMDs, one instruction per wave and per type each issue cycle, VALU,
// MFMA and memory unit occupancy, s_nop, s_waitcnt on modeled completion times, barriers),
// caches fed by the real lane addresses (scalar cache, L1 per CU, L2 per XCD, Infinity Cache,
// HBM bandwidth) and LDS bank conflicts, with the occupancy the descriptor allows. Instruction
// costs come from LLVM's scheduling model (asm/SchedInfo.h), device figures from the target's
// parameter file (TargetParams.h). Every figure it returns is modeled, not measured; the same
// inputs give the same figures.
#pragma once

#include "device/Device.h"
#include "timing/TargetParams.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::timing {

struct ModelOptions {
  // Trace and simulate at most this many workgroups: all of them when the grid is smaller,
  // else the workgroups of a sample of CUs (every CU's share of a round-robin dispatch), and
  // the kernel's time is the slowest sampled CU's (ModelResult says how many were sampled).
  uint64_t MaxSimulatedGroups = 256;
  bool Profile = false; // per-instruction figures (ModelResult::Insts)
  unsigned Threads = 0; // the emulator's host threads (0: all cores)
  // Run only the sampled workgroups (LaunchParams::Only): the rest of the grid is not emulated
  // and the launch's buffers hold only part of its result. The figures are the same: the model
  // reads nothing but the sampled workgroups' traces (see modelLaunch). A caller that needs the
  // results (an emulated HIP runtime) leaves it off.
  bool RunSampleOnly = false;
};

// Where the waves' cycles went, summed over every simulated wave: each cycle a wave is resident
// is counted once, under the first reason that holds.
struct Breakdown {
  double Issue = 0;       // issuing its instructions
  double Dependency = 0;  // s_nop and s_sleep, and the instruction's own latency before the next
  double UnitBusy = 0;    // the VALU, MFMA, memory or LDS unit it needs was busy
  double WaitVm = 0;      // s_waitcnt vmcnt
  double WaitLgkm = 0;    // s_waitcnt lgkmcnt
  double WaitExp = 0;     // s_waitcnt expcnt
  double LdsConflict = 0; // extra cycles of LDS bank conflicts (inside UnitBusy/WaitLgkm time)
  double Barrier = 0;     // s_barrier
  double Arbitration = 0; // ready, but another wave of its SIMD took the issue slot
};

// One instruction of the kernel, with Profile.
struct InstProfile {
  int64_t Offset = 0;      // from the kernel's entry
  unsigned Size = 4;       // bytes
  std::string Text;        // its assembly, as LLVM prints it
  uint64_t Executions = 0; // summed over the simulated waves
  Breakdown Cycles;        // the cycles waves spent before issuing it, and issuing it
  std::vector<std::string> Reads, Writes; // its 32-bit registers (asm/SchedInfo.h)
  std::optional<int64_t> Target;          // a direct branch: its target, from the entry
};

struct ModelResult {
  std::string Target, Device; // from the parameter file
  double Cycles = 0;          // of the whole launch, on the device's clock
  double Microseconds = 0;    // Cycles / clock
  // Occupancy: what the descriptor and the workgroup size allow on one CU.
  unsigned WavesPerGroup = 0, GroupsPerCu = 0, WavesPerSimd = 0;
  std::string OccupancyLimit; // "VGPRs", "SGPRs", "LDS", "wave slots", "workgroups per CU"
  // VGPRs (arch + acc) a wave has, and how many more it could use before its waves per SIMD
  // drop (the VGPR file per SIMD lane shared by WavesPerSimd waves, in allocation granules).
  unsigned Vgprs = 0, VgprHeadroom = 0;
  uint64_t Groups = 0, SimulatedGroups = 0;
  uint64_t EmulatedGroups = 0;            // the workgroups the launch ran (all, or the sample)
  unsigned SimulatedCus = 0, UsedCus = 0; // CUs simulated, CUs the grid occupies
  Breakdown Total;
  std::vector<InstProfile> Insts; // with Profile: by offset
  device::LaunchResult Launch;    // what the emulated launch itself reported
};

// Run P on Dev (which must trace: the emu backend) and model its time on the target of T.
// The figures depend only on the traces of the sampled workgroups (their instructions and lane
// addresses), the grid's size, the descriptor and T: caches start empty and see only the sampled
// CUs' addresses, the unsampled CUs' traffic is accounted for by scaling the device-wide
// bandwidths. An unsampled workgroup changes a sampled one's trace only through memory both use
// in the same launch (an atomic counter, a flag another workgroup sets): for such a kernel the
// traces differ with O.RunSampleOnly, as they already differ with the order the emulator runs
// workgroups in. Errors: the launch's own (input or runtime kind, e.g. an unsupported
// instruction with its kernel+offset), and "the <backend> backend cannot trace a launch" (input
// kind); a grid of more than 2^64 workgroups (input kind).
llvm::Expected<ModelResult> modelLaunch(device::Device &Dev, device::Module &M,
                                        const device::LaunchParams &P, const TargetParams &T,
                                        const ModelOptions &O = {});

} // namespace asmevo::timing
