// The measured backend of kernel-time: place the rotated input sets, warm up, time interleaved
// rounds, summarize (Measure.h says the protocol and why).
#include "timing/Measure.h"

#include "launch/InputGen.h"
#include "launch/PlacedLaunch.h"
#include "support/Error.h"

#include <memory>

namespace asmevo::timing {

namespace {

// Every placed input set, [kernel][set], freed however the measurement ends.
struct PlacedSets {
  device::Device &Dev;
  std::vector<std::vector<launch::PlacedLaunch>> Sets;
  explicit PlacedSets(device::Device &Dev, size_t Kernels) : Dev(Dev), Sets(Kernels) {}
  ~PlacedSets() {
    for (auto &K : Sets)
      for (launch::PlacedLaunch &P : K)
        launch::freeLaunch(Dev, P);
  }
};

// Prefix an error's message, keeping its kind (and class: a limit or fault stays one).
llvm::Error prefixed(llvm::Error E, const std::string &Prefix) {
  return llvm::handleErrors(std::move(E), [&](std::unique_ptr<ToolError> T) -> llvm::Error {
    T->Message = Prefix + T->Message;
    return llvm::Error(std::move(T));
  });
}

// Place Rotate input sets for every kernel: set s's contents once, placed once per kernel.
llvm::Error placeSets(device::Device &Dev, const std::vector<MeasuredKernel> &Kernels,
                      const launch::LaunchSpec &S, const MeasureOptions &O, PlacedSets &Placed) {
  for (unsigned Set = 0; Set < O.Rotate; ++Set) {
    std::vector<std::vector<uint8_t>> Init(S.Args.size());
    for (size_t I = 0; I < S.Args.size(); ++I) {
      const launch::ArgSpec &A = S.Args[I];
      if (!A.Buffer || A.Null)
        continue;
      auto C = launch::initialContents(A, O.Seed + Set);
      if (!C)
        return C.takeError();
      Init[I] = std::move(*C);
    }
    for (size_t K = 0; K < Kernels.size(); ++K) {
      auto P = launch::placeLaunch(Dev, S, Init,
                                   Kernels[K].Role + " input set " + std::to_string(Set + 1));
      if (!P)
        return P.takeError();
      Placed.Sets[K].push_back(std::move(*P));
    }
  }
  return llvm::Error::success();
}

} // namespace

namespace {
// The checks both entry points make.
llvm::Error checkMeasure(device::Device &Dev, const std::vector<MeasuredKernel> &Kernels,
                         const MeasureOptions &O) {
  const device::DeviceInfo &Info = Dev.info();
  if (!Info.Hardware)
    return makeError("measured timing needs a GPU (the " + Info.Backend +
                     " backend's host times are not GPU times; kernel-time's emu backend is the "
                     "model)");
  if (Kernels.empty() || Kernels.size() > 2)
    return makeError("measured timing takes one kernel or a pair (got " +
                     std::to_string(Kernels.size()) + ")");
  for (const MeasuredKernel &K : Kernels)
    if (!K.Mod)
      return makeError(K.Role + " is not loaded");
  if (O.Reps == 0)
    return makeError("measured timing needs at least one timed round");
  if (O.Rotate == 0)
    return makeError("measured timing needs at least one input set");
  if (Kernels.size() == 2 && (O.Resamples == 0 || !(O.Level > 0 && O.Level < 1)))
    return makeError("the ratio's bootstrap needs at least one resample and a confidence level "
                     "between 0 and 1");
  return llvm::Error::success();
}

// The protocol itself, on checked options: warm-up, the interleaved timed rounds, statistics.
llvm::Expected<MeasureResult> runProtocol(device::Device &Dev,
                                          const std::vector<MeasuredKernel> &Kernels,
                                          const PrepareLaunch &Prepare, const MeasureOptions &O) {
  const device::DeviceInfo &Info = Dev.info();
  auto run = [&](size_t K, unsigned Round, bool Timed) -> llvm::Expected<double> {
    const MeasuredKernel &MK = Kernels[K];
    std::string What =
        MK.Role + "'s " + (Timed ? "timed" : "warm-up") + " launch " + std::to_string(Round + 1);
    auto P = Prepare(K, Round);
    if (!P)
      return prefixed(P.takeError(), What + ": ");
    if (Timed && O.FlushBytes)
      if (llvm::Error E = Dev.flushCaches(O.FlushBytes))
        return prefixed(std::move(E), "flushing the caches before " + What + ": ");
    auto R = Dev.launch(*MK.Mod, *P);
    if (!R)
      return prefixed(R.takeError(), What + ": ");
    return R->Seconds;
  };

  for (unsigned W = 0; W < O.Warmup; ++W)
    for (size_t K = 0; K < Kernels.size(); ++K)
      if (auto T = run(K, W, false); !T)
        return T.takeError();

  MeasureResult Res;
  Res.Backend = Info.Backend;
  Res.Device = Info.Name;
  Res.Arch = Info.Arch;
  Res.ClockMHz = Info.ClockMHz;
  Res.Options = O;
  Res.Kernels.resize(Kernels.size());
  for (size_t K = 0; K < Kernels.size(); ++K) {
    Res.Kernels[K].Role = Kernels[K].Role;
    Res.Kernels[K].Seconds.reserve(O.Reps);
  }
  for (unsigned R = 0; R < O.Reps; ++R)
    for (size_t I = 0; I < Kernels.size(); ++I) {
      // Round R (0-based) even: K0 first; odd: K1 first.
      size_t K = R % 2 ? Kernels.size() - 1 - I : I;
      auto T = run(K, R, true);
      if (!T)
        return T.takeError();
      Res.Kernels[K].Seconds.push_back(*T);
    }

  for (KernelTiming &KT : Res.Kernels)
    KT.Stats = summarize(KT.Seconds);
  if (Kernels.size() == 2) {
    auto Ratio = bootstrapRatioOfMedians(Res.Kernels[0].Seconds, Res.Kernels[1].Seconds,
                                         BootstrapOptions{O.Resamples, O.Level, O.Seed});
    // The options were checked: what is left is a time that is not positive (a GPU timer that
    // did not advance), which the device, not the input, is to blame for.
    if (!Ratio)
      return runtimeError("no ratio of " + Kernels[1].Role + "'s time to " + Kernels[0].Role +
                          "'s: " + llvm::toString(Ratio.takeError()));
    Res.Ratio = *Ratio;
  }
  return Res;
}
} // namespace

llvm::Expected<MeasureResult> measureLaunches(device::Device &Dev,
                                              const std::vector<MeasuredKernel> &Kernels,
                                              const launch::LaunchSpec &S,
                                              const MeasureOptions &O) {
  if (llvm::Error E = checkMeasure(Dev, Kernels, O))
    return std::move(E);
  PlacedSets Placed(Dev, Kernels.size());
  if (llvm::Error E = placeSets(Dev, Kernels, S, O, Placed))
    return std::move(E);
  return runProtocol(
      Dev, Kernels,
      [&](size_t K, unsigned Round) -> llvm::Expected<device::LaunchParams> {
        return Placed.Sets[K][Round % O.Rotate].Params;
      },
      O);
}

llvm::Expected<MeasureResult> measurePrepared(device::Device &Dev,
                                              const std::vector<MeasuredKernel> &Kernels,
                                              const PrepareLaunch &Prepare,
                                              const MeasureOptions &O) {
  if (llvm::Error E = checkMeasure(Dev, Kernels, O))
    return std::move(E);
  return runProtocol(Dev, Kernels, Prepare, O);
}

} // namespace asmevo::timing
