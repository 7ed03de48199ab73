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
//
// Mechanisms whose sources are thin, and what the model assumes (the parameter files' README
// gives the sources):
//  - Loads into LDS (buffer_load ... lds, global_load_lds_*): no AMD document says that the LDS
//    is held while such a load is in flight. The model writes the data into LDS when it
//    returns: the write takes the SIMD pair's LDS port for its bytes at the port's rate (bank
//    conflicts counted as for a DS write), in arrival order with the DS instructions, and the
//    load counts as complete for vmcnt when its write is done (return + write time).
//  - The engine clock: the clock is power-limited under MFMA load (AMD, "Measuring
//    Max-Achievable FLOPs", part 2). The model takes the device's MFMA load L (the fraction of
//    CUs the grid uses times the sampled CUs' matrix-core busy fraction over the launch) and
//    gives the launch the clock at which L x f^k stays within the power that dense MFMA work
//    draws at mfma_clock_mhz: f = min(clock_mhz, mfma_clock_mhz x L^(-1/k)),
//    k = clock_power_exponent. A kernel that does little MFMA work runs at boost. The launch is
//    simulated in clocks with the parameter file's figures (HBM and Infinity Cache bandwidths
//    and latencies converted to clocks at the boost clock) and converted to time at f: under a
//    lowered clock a memory-bound phase is modeled slightly slow (its bytes per clock are higher
//    in truth). Other activity (VALU, LDS, memory) also draws power; only MFMA load has a
//    published clock, so only it lowers the modeled clock.
//  - Cache-policy bits of vector memory loads: a load that bypasses the per-CU L1 neither looks
//    it up nor fills it: on gfx940 and later sc1 (agent or system scope) and nt, on gfx90a glc
//    (LLVM's memory model; nt and sc1 measured at L2 latency on an MI300X), and every atomic
//    (RMW atomics bypass the L1). What nt does in L2 and the Infinity Cache (streaming, evict
//    first) has no published cost and is not modeled, nor are gfx90a's slc and scc.
//  - A kernel's fixed GPU-side time: a kernel's duration on the GPU does not go below a floor
//    (AITer's tuned tables: 3.01 us on gfx942, 2.41 us on gfx950, for kernels with almost no
//    work) that the simulation does not produce (dispatch, the first accesses' address
//    translation on cold inputs, the end-of-kernel release): the target's kernel_fixed_us, that
//    floor taken whole (an upper bound), is part of the kernel's time.
//  - Launch overhead: a modeled time is one launch of a back-to-back sequence timed with events
//    (as AITer's and kernel-time's hip backend measure): the kernel's time plus the target's
//    launch_overhead_us, TransferBench's 4.04 us for an empty kernel less kernel_fixed_us
//    (ModelResult keeps the terms apart). A profiler's kernel duration excludes the overhead:
//    compare it with KernelMicroseconds.
#pragma once

#include "device/Device.h"
#include "timing/TargetParams.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
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
  // The kernel: from its first wave's dispatch to the end of its last wave and access, in
  // clocks of the engine clock ClockMHz (the clock model: MfmaLoad, from 0 to 1).
  double Cycles = 0;
  double ClockMHz = 0, MfmaLoad = 0;
  double KernelFixedMicroseconds = 0;    // the target's kernel_fixed_us
  double KernelMicroseconds = 0;         // Cycles / ClockMHz + KernelFixedMicroseconds
  double LaunchOverheadMicroseconds = 0; // the target's launch_overhead_us
  // One launch of a back-to-back sequence: the kernel and the launch overhead.
  double Microseconds = 0;
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

// The engine clock (MHz) the model gives a launch whose device-wide MFMA load is MfmaLoad
// (0..1): the boost clock T's clock_mhz where the load is light, falling as the power law of
// the clock model (above) says to mfma_clock_mhz at full load.
double engineClock(const TargetParams &T, double MfmaLoad);

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

// modelLaunch in its two halves, so that one launch is emulated once and simulated under many
// parameter sets (an ensemble, Ensemble.h): traceLaunch runs P with the sampled workgroups
// traced and keeps the traces and the sampling plan, which depend only on T's exact figures
// (counts and sizes: TargetParams.h, mustBeExact) and on O's MaxSimulatedGroups, Threads and
// RunSampleOnly; simulateLaunch replays them under a parameter set whose exact figures are the
// traced ones (else an input-kind error naming the figure). simulateLaunch(traceLaunch(...), T,
// O.Profile) is modelLaunch(..., T, O), figure for figure. A TracedLaunch refers to M's code
// object (keep M alive while it lives); simulateLaunch only reads it, so several parameter sets
// may be simulated at once on different threads. traceLaunch also computes each traced DS
// instruction's LDS port clocks under T's LDS figures; a set with other LDS figures (gfx950's
// lds_bytes_per_clk is ranged) recomputes them as it replays.
struct TracedLaunch {
  ModelResult Shape; // occupancy, sampling and the launch's own report; no cycles yet
  struct Data;
  std::unique_ptr<Data> D;
  TracedLaunch();
  ~TracedLaunch();
  TracedLaunch(TracedLaunch &&) noexcept;
  TracedLaunch &operator=(TracedLaunch &&) noexcept;
};
llvm::Expected<TracedLaunch> traceLaunch(device::Device &Dev, device::Module &M,
                                         const device::LaunchParams &P, const TargetParams &T,
                                         const ModelOptions &O = {});
llvm::Expected<ModelResult> simulateLaunch(const TracedLaunch &L, const TargetParams &T,
                                           bool Profile = false);

} // namespace asmevo::timing
