// The measured backend of kernel-time: repeated, event-timed launches of one kernel (K0) or a
// pair (K0, K1) on a GPU, from a resolved launch spec, and their statistics (Stats.h). Only a
// device whose times are GPU times (DeviceInfo::Hardware: the hip backend) is measured; the emu
// backend's launch times are host times of the emulation, and kernel-time's figures there come
// from the model (Model.h).
//
// Protocol:
//   1. Inputs: Rotate input sets. Set s (1..Rotate) holds every buffer's
//      launch::initialContents(arg, Seed + s - 1), and is placed (launch::placeLaunch) once per
//      kernel, so K0 and K1 see the same values in different buffers and never share one.
//      Buffers are written once: a kernel that writes its inputs (inout) sees its own earlier
//      results in later launches, as it would in a loop of its application.
//   2. Warm-up: Warmup rounds, untimed, each launching every kernel once in the given order;
//      warm-up round w (1..Warmup) uses set (w - 1) % Rotate + 1. This loads the code, warms the
//      instruction caches and lets the clocks ramp up.
//   3. Timed: Reps rounds; round r (1..Reps) launches each kernel once on set (r - 1) % Rotate
//      + 1, a pair in alternating order (odd rounds K0 then K1, even rounds K1 then K0) so that
//      a bias of going first or second cancels. With FlushBytes, Device::flushCaches runs
//      before every timed launch. A sample is the launch's LaunchResult::Seconds (on hip the
//      GPU time between two events around the launch).
//   Why rotate (default 4 sets): consecutive launches of a kernel read other buffers than the
//   previous launch left in L2 and the Infinity Cache, so a working set larger than a quarter
//   of them is timed cold, as most real launches are; FlushBytes (more than L2 + Infinity
//   Cache: 512 MiB for MI300X's 256 MiB Infinity Cache and 8 x 4 MiB L2) makes every timed
//   launch cold.
//   4. Statistics: per kernel, SampleStats of its samples; for a pair, the ratio of medians
//      t(K1) / t(K0) with its bootstrap interval over the rounds' pairs (Resamples, Level, and
//      Seed as the bootstrap's seed).
// Every buffer is freed at the end and on every error path (the device's own flush buffer stays
// with the device).
#pragma once

#include "device/Device.h"
#include "launch/LaunchSpec.h"
#include "timing/Stats.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::timing {

struct MeasuredKernel {
  std::string Role;              // "K0", "K1": how results and messages name it
  device::Module *Mod = nullptr; // loaded on the measured device; runs the spec's kernel
};

struct MeasureOptions {
  unsigned Warmup = 10;      // untimed rounds first
  unsigned Reps = 100;       // timed rounds (one launch of each kernel per round)
  unsigned Rotate = 4;       // input sets per kernel, used in turn
  uint64_t FlushBytes = 0;   // Device::flushCaches(FlushBytes) before every timed launch (0: none)
  uint64_t Seed = 1;         // the input sets' first seed, and the bootstrap's seed
  unsigned Resamples = 2000; // bootstrap resamples of the ratio
  double Level = 0.95;       // of the ratio's interval
};

struct KernelTiming {
  std::string Role;
  std::vector<double> Seconds; // one per timed round, in round order
  SampleStats Stats;           // of Seconds
};

struct MeasureResult {
  std::string Backend, Device, Arch;  // DeviceInfo's Backend, Name and Arch
  double ClockMHz = 0;                // DeviceInfo's (0: unknown)
  MeasureOptions Options;             // as used
  std::vector<KernelTiming> Kernels;  // in the order given
  std::optional<RatioInterval> Ratio; // a pair: t(Kernels[1]) / t(Kernels[0]), paired by round
};

// Measure Kernels (one or two) on Dev with S's launch (resolved against K0's code object).
// Input errors (exit 2): a device that is not hardware ("measured timing needs a GPU (...)"),
// no kernel or more than two, zero Reps or Rotate, for a pair zero Resamples or a Level outside
// (0, 1), input files that cannot be read. A pair whose times are not all positive has no
// ratio (a runtime error, exit 3). Launch errors keep their kind and name the role and the
// launch ("K1's timed launch 37: ...", "K0's warm-up launch 2: ...", "flushing the caches
// before K0's timed launch 1: ..."); allocation errors name the buffer ("K1 input set 2
// buffer #0").
llvm::Expected<MeasureResult> measureLaunches(device::Device &Dev,
                                              const std::vector<MeasuredKernel> &Kernels,
                                              const launch::LaunchSpec &S,
                                              const MeasureOptions &O = {});

// The same protocol with launches that Prepare makes: before each launch (warm-up and timed,
// rounds counted from 0 in each), Prepare(K, Round) readies the device for Kernels[K] and
// returns its launch; what it does is not timed. A captured dispatch is measured so: every
// launch from the recorded pre-state, written again (O.Rotate is not used). Prepare's errors
// keep their kind and are prefixed like the launch's ("K1's timed launch 3: ...").
using PrepareLaunch =
    std::function<llvm::Expected<device::LaunchParams>(size_t Kernel, unsigned Round)>;
llvm::Expected<MeasureResult> measurePrepared(device::Device &Dev,
                                              const std::vector<MeasuredKernel> &Kernels,
                                              const PrepareLaunch &Prepare,
                                              const MeasureOptions &O = {});

} // namespace asmevo::timing
