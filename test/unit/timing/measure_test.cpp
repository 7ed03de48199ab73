// The measured backend of kernel-time (timing/Measure.h) on the hip backend over the fake HIP
// runtime (test/unit/device/fake_hip_runtime.cpp, loaded through ASMEVO_HIP_LIBRARY): the exact
// order of flushes, launches and event reads; the interleaving of a pair; that every launch of a
// round has its own buffers and that the rounds rotate the input sets; that the samples are the
// runtime's elapsed times; the ratio; every error path with its message; and the refusal of the
// emulator. No GPU: this checks the protocol, not a time.
#include "TestHelpers.h"
#include "codeobj/Input.h"
#include "codeobj/KernelArgs.h"
#include "device/Device.h"
#include "device/FakeHip.h"
#include "launch/CaptureBundle.h"
#include "launch/InputGen.h"
#include "launch/LaunchSpec.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "timing/Measure.h"
#include "timing/TimeRun.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

using namespace asmevo;
using namespace asmevo::timing;
using namespace asmevo::test;

namespace {

Fake &fake() {
  static Fake F(ASMEVO_FAKE_HIP);
  return F;
}

// out = x + y over 512 floats: two workgroups of 256.
const char *kSpec = R"({"kernel": "add_kernel", "grid": [2], "block": [256],
  "args": [{"arg": "#0", "type": "f32", "elements": 512, "role": "in"},
    {"arg": "#1", "type": "f32", "elements": 512, "role": "in"},
    {"arg": "#2", "type": "f32", "elements": 512, "role": "out"},
    {"arg": "#3", "value": 512}, {"arg": "#4", "value": "null"},
    {"arg": "#5", "value": "null"}]})";
// Each buffer's allocation: its data and a guard either side.
const uint64_t kAllocBytes = 512 * 4 + 2 * launch::kGuardBytes;

class Measure : public ::testing::Test {
protected:
  void SetUp() override {
    F.Reset();
    auto O = openCodeObject(std::string(ASMEVO_SOURCE_DIR) +
                            "/test/corpus/triton/gfx942/vector_add_fp32.hsaco");
    ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
    Obj = std::move(*O);
    auto S = launch::parseLaunchSpec(kSpec, "s.json");
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    Spec = std::move(*S);
    ASSERT_FALSE(bool(launch::resolveLaunchSpec(Spec, Obj->C)));
    auto D = device::openHipDevice("gfx942");
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
    for (int I = 0; I < 2; ++I) {
      auto M = Dev->load(Obj->C);
      ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
      Mods.push_back(std::move(*M));
    }
  }
  void TearDown() override {
    Mods.clear();
    Dev.reset();
    F.Reset();
  }

  std::vector<MeasuredKernel> pair() { return {{"K0", Mods[0].get()}, {"K1", Mods[1].get()}}; }
  std::vector<MeasuredKernel> single() { return {{"K0", Mods[0].get()}}; }

  // The placement's buffers in allocation order (a hipMalloc of kAllocBytes, then the zeroing
  // hipMemcpy that names its base), as "K0 set 1 #0" by base address.
  std::map<uint64_t, std::string> buffers(const std::vector<std::string> &Calls, size_t Kernels,
                                          unsigned Sets) {
    std::map<uint64_t, std::string> Names;
    std::string Malloc = "hipMalloc(" + std::to_string(kAllocBytes) + ")";
    unsigned N = 0;
    for (size_t I = 0; I + 1 < Calls.size(); ++I) {
      if (Calls[I] != Malloc)
        continue;
      const std::string &Copy = Calls[I + 1];
      EXPECT_EQ(Copy.rfind("hipMemcpy(", 0), 0u) << Copy;
      uint64_t Base = std::strtoull(Copy.c_str() + 10, nullptr, 16);
      unsigned Set = N / unsigned(3 * Kernels), K = N / 3 % unsigned(Kernels), Arg = N % 3;
      Names[Base] =
          "K" + std::to_string(K) + " set " + std::to_string(Set + 1) + " #" + std::to_string(Arg);
      ++N;
    }
    EXPECT_EQ(N, 3 * Kernels * Sets);
    return Names;
  }
  // Which kernel and input set a launch's kernarg points at ("K1 set 2"), after checking that
  // its three buffers are one placement's.
  std::string placementOf(const std::vector<uint8_t> &Kernarg,
                          const std::map<uint64_t, std::string> &Names) {
    std::string Which;
    for (unsigned Arg = 0; Arg < 3; ++Arg) {
      uint64_t Addr = 0;
      std::memcpy(&Addr, &Kernarg[Spec.Args[Arg].Offset], 8);
      auto It = Names.find(Addr - launch::kGuardBytes);
      if (It == Names.end())
        return "(unknown buffer)";
      std::string Name = It->second;
      EXPECT_EQ(Name.substr(Name.size() - 2), "#" + std::to_string(Arg));
      std::string Placement = Name.substr(0, Name.size() - 3);
      if (Arg && Placement != Which)
        return "(mixed placements)";
      Which = Placement;
    }
    return Which;
  }

  Fake &F = fake();
  ScopedEnv Env{"ASMEVO_HIP_LIBRARY", ASMEVO_FAKE_HIP};
  std::unique_ptr<OpenCodeObject> Obj;
  launch::LaunchSpec Spec;
  std::unique_ptr<device::Device> Dev;
  std::vector<std::unique_ptr<device::Module>> Mods;
};

// A pair, Warmup 1, Reps 2, Rotate 2, flush on: the runtime calls in order, each launch's
// placement, the samples, the ratio.
TEST_F(Measure, PairProtocol) {
  const float Ms[] = {9, 9, 1, 2, 4, 3}; // warm-up K0 K1, round 1 K0 K1, round 2 K1 K0
  F.SetElapsedSequence(Ms, 6);
  MeasureOptions O;
  O.Warmup = 1;
  O.Reps = 2;
  O.Rotate = 2;
  O.FlushBytes = 4096;
  size_t Before = F.callList().size();
  auto R = measureLaunches(*Dev, pair(), Spec, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  std::vector<std::string> All = F.callList();
  std::vector<std::string> Calls(All.begin() + Before, All.end());
  std::map<uint64_t, std::string> Names = buffers(Calls, 2, 2);
  ASSERT_EQ(Names.size(), 12u);

  // The calls that make the protocol, with each launch's placement and the flush buffer named.
  std::vector<std::string> Got;
  std::string FlushBuf;
  int Launch = 0;
  for (const std::string &C : Calls) {
    if (C.rfind("hipModuleLaunchKernel(", 0) == 0) {
      Got.push_back("launch " + placementOf(F.kernargOf(Launch++), Names));
    } else if (C.rfind("hipMemset(", 0) == 0) {
      std::string P = C.substr(10, C.find(',') - 10);
      if (FlushBuf.empty())
        FlushBuf = P;
      EXPECT_EQ(P, FlushBuf);
      Got.push_back("hipMemset(flush" + C.substr(C.find(',')));
    } else if (C.rfind("hipEventElapsedTime(", 0) == 0 || C.rfind("hipDeviceSync", 0) == 0 ||
               C == "hipMalloc(4096)") {
      Got.push_back(C);
    } else if (C.rfind("hipFree(", 0) == 0) {
      Got.push_back("hipFree");
    }
  }
  std::vector<std::string> Want;
  auto launch = [&](const std::string &Which, int Event) {
    Want.push_back("launch " + Which);
    Want.push_back("hipEventElapsedTime(event " + std::to_string(Event) + ", event " +
                   std::to_string(Event + 1) + ")");
    Want.push_back("hipDeviceSynchronize()");
  };
  auto flush = [&](int Value) {
    Want.push_back("hipMemset(flush, " + std::to_string(Value) + ", 4096)");
    Want.push_back("hipDeviceSynchronize()");
  };
  launch("K0 set 1", 1); // warm-up
  launch("K1 set 1", 3);
  Want.push_back("hipMalloc(4096)"); // the flush buffer, once
  flush(1);
  launch("K0 set 1", 5); // round 1: K0 first
  flush(2);
  launch("K1 set 1", 7);
  flush(3);
  launch("K1 set 2", 9); // round 2: K1 first, the second input set
  flush(4);
  launch("K0 set 2", 11);
  for (int I = 0; I < 12; ++I)
    Want.push_back("hipFree");
  EXPECT_EQ(Got, Want);

  // The samples are the runtime's elapsed times, in round order.
  ASSERT_EQ(R->Kernels.size(), 2u);
  EXPECT_EQ(R->Kernels[0].Role, "K0");
  EXPECT_EQ(R->Kernels[1].Role, "K1");
  EXPECT_EQ(R->Kernels[0].Seconds, (std::vector<double>{1.0 / 1000, 3.0 / 1000}));
  EXPECT_EQ(R->Kernels[1].Seconds, (std::vector<double>{2.0 / 1000, 4.0 / 1000}));
  EXPECT_DOUBLE_EQ(R->Kernels[0].Stats.Median, 0.002);
  EXPECT_DOUBLE_EQ(R->Kernels[1].Stats.Median, 0.003);
  EXPECT_EQ(R->Kernels[1].Stats.Count, 2u);
  ASSERT_TRUE(R->Ratio.has_value());
  EXPECT_DOUBLE_EQ(R->Ratio->Ratio, 1.5);
  EXPECT_NEAR(R->Ratio->Lo, 4.0 / 3, 1e-12); // both resampled pairs the second: 4 / 3
  EXPECT_NEAR(R->Ratio->Hi, 2.0, 1e-12);     // both the first: 2 / 1
  EXPECT_EQ(R->Ratio->Resamples, 2000u);
  EXPECT_EQ(R->Backend, "hip");
  EXPECT_EQ(R->Device, "Fake MI300X (gfx942:sramecc+:xnack-)");
  EXPECT_EQ(R->Arch, "gfx942");
  EXPECT_DOUBLE_EQ(R->ClockMHz, 2100);
  EXPECT_EQ(R->Options.Rotate, 2u);
  // Every input buffer is freed; the device keeps its flush buffer until it goes.
  EXPECT_EQ(F.LiveAllocations(), 1);
  EXPECT_EQ(F.LiveEvents(), 0);
  Mods.clear();
  Dev.reset();
  EXPECT_EQ(F.LiveAllocations(), 0);
}

// One kernel, no flush: no hipMemset; rounds cycle through the sets; no ratio.
TEST_F(Measure, SingleKernelRotates) {
  MeasureOptions O;
  O.Warmup = 2;
  O.Reps = 5;
  O.Rotate = 3;
  size_t Before = F.callList().size();
  int Launch0 = F.KernargCount();
  auto R = measureLaunches(*Dev, single(), Spec, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  std::vector<std::string> All = F.callList();
  std::vector<std::string> Calls(All.begin() + Before, All.end());
  std::map<uint64_t, std::string> Names = buffers(Calls, 1, 3);
  std::vector<std::string> Got;
  for (int I = Launch0; I < F.KernargCount(); ++I)
    Got.push_back(placementOf(F.kernargOf(I), Names));
  EXPECT_EQ(Got,
            (std::vector<std::string>{"K0 set 1", "K0 set 2", // warm-up
                                      "K0 set 1", "K0 set 2", "K0 set 3", "K0 set 1", "K0 set 2"}));
  for (const std::string &C : Calls)
    EXPECT_NE(C.rfind("hipMemset", 0), 0u) << C;
  ASSERT_EQ(R->Kernels.size(), 1u);
  EXPECT_EQ(R->Kernels[0].Seconds, std::vector<double>(5, double(1.25f) / 1000));
  EXPECT_DOUBLE_EQ(R->Kernels[0].Stats.Median, 0.00125);
  EXPECT_EQ(R->Kernels[0].Stats.StdDev, 0);
  EXPECT_FALSE(R->Ratio.has_value());
  EXPECT_EQ(F.LiveAllocations(), 0);
}

// A device that forwards to another and keeps what was written to each named allocation.
class RecordingDevice : public device::Device {
public:
  explicit RecordingDevice(device::Device &Inner) : Inner(Inner) {}
  const device::DeviceInfo &info() const override { return Inner.info(); }
  llvm::Expected<uint64_t> alloc(uint64_t Size, const std::string &Name) override {
    auto A = Inner.alloc(Size, Name);
    if (A)
      Names[*A] = Name;
    return A;
  }
  llvm::Error allocAt(uint64_t Addr, uint64_t Size, const std::string &Name) override {
    return Inner.allocAt(Addr, Size, Name);
  }
  llvm::Error free(uint64_t Addr) override { return Inner.free(Addr); }
  llvm::Error write(uint64_t Addr, const void *Src, uint64_t Size) override {
    const uint8_t *B = static_cast<const uint8_t *>(Src);
    Written[Names.at(Addr)].assign(B, B + Size);
    return Inner.write(Addr, Src, Size);
  }
  llvm::Error read(uint64_t Addr, void *Dst, uint64_t Size) override {
    return Inner.read(Addr, Dst, Size);
  }
  llvm::Expected<std::unique_ptr<device::Module>> load(const CodeObject &Code) override {
    return Inner.load(Code);
  }
  llvm::Expected<device::LaunchResult> launch(device::Module &M,
                                              const device::LaunchParams &P) override {
    return Inner.launch(M, P);
  }
  llvm::Error flushCaches(uint64_t Bytes) override { return Inner.flushCaches(Bytes); }

  device::Device &Inner;
  std::map<uint64_t, std::string> Names;
  std::map<std::string, std::vector<uint8_t>> Written; // allocation name -> its bytes
};

// Set s holds launch::initialContents(arg, Seed + s - 1): the same values in K0's and K1's
// copies of a set, other values in another set, poison in the outputs, guards around each.
TEST_F(Measure, InputSetContents) {
  RecordingDevice Rec(*Dev);
  MeasureOptions O;
  O.Warmup = 0;
  O.Reps = 1;
  O.Rotate = 2;
  O.Seed = 5;
  auto R = measureLaunches(Rec, pair(), Spec, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(Rec.Written.size(), 12u);
  for (unsigned Set = 1; Set <= 2; ++Set)
    for (unsigned Arg = 0; Arg < 3; ++Arg) {
      auto Want = launch::initialContents(Spec.Args[Arg], 5 + Set - 1);
      ASSERT_TRUE(bool(Want));
      for (const char *K : {"K0", "K1"}) {
        std::string Name = std::string(K) + " input set " + std::to_string(Set) + " buffer " +
                           Spec.Args[Arg].Label;
        SCOPED_TRACE(Name);
        ASSERT_TRUE(Rec.Written.count(Name));
        const std::vector<uint8_t> &W = Rec.Written[Name];
        ASSERT_EQ(W.size(), kAllocBytes);
        std::vector<uint8_t> Data(W.begin() + launch::kGuardBytes, W.end() - launch::kGuardBytes);
        EXPECT_EQ(Data, *Want);
        EXPECT_EQ(launch::firstCanaryDiff(W.data(), launch::kGuardBytes, Arg), -1);
      }
    }
  EXPECT_NE(Rec.Written["K0 input set 1 buffer " + Spec.Args[0].Label],
            Rec.Written["K0 input set 2 buffer " + Spec.Args[0].Label]);
}

TEST_F(Measure, Errors) {
  MeasureOptions O;
  O.Warmup = 1;
  O.Reps = 3;
  O.Rotate = 2;
  O.FlushBytes = 4096;
  struct Case {
    const char *Call;
    int Err, Skip;
    std::string Message;
    int Exit;
    int LiveAfter; // allocations the fake still holds (the device's flush buffer)
  };
  const std::string Launch =
      "hipModuleLaunchKernel failed for kernel 'add_kernel': out of memory (hipErrorOutOfMemory, "
      "2)";
  std::vector<Case> Cases = {
      // Launches: warm-up K0, K1; round 1 K0, K1; round 2 K1, ...
      {"hipModuleLaunchKernel", 2, 1, "K1's warm-up launch 1: " + Launch, 3, 0},
      {"hipModuleLaunchKernel", 2, 4, "K1's timed launch 2: " + Launch, 3, 1},
      {"hipModuleLaunchKernel", 719, 5,
       "K0's timed launch 2: hipModuleLaunchKernel failed for kernel 'add_kernel': unspecified "
       "launch failure (hipErrorLaunchFailure, 719)",
       2, 1},
      {"hipEventSynchronize", 700, 3,
       "K1's timed launch 1: hipEventSynchronize failed after launching kernel 'add_kernel': an "
       "illegal memory access was encountered (hipErrorIllegalAddress, 700)",
       3, 1},
      // Flushes: round 1 K0, K1; round 2 K1, ...
      {"hipMemset", 1, 2,
       "flushing the caches before K1's timed launch 2: hipMemset failed flushing the caches "
       "(4096 bytes): invalid argument (hipErrorInvalidValue, 1)",
       3, 1},
      // Allocations: set 1 K0 #0 #1 #2, K1 #0 #1 #2; set 2 K0 #0 #1 ...; then the flush buffer.
      {"hipMalloc", 2, 7,
       "hipMalloc failed for device allocation 'K0 input set 2 buffer " + Spec.Args[1].Label +
           "' of " + std::to_string(kAllocBytes) + " bytes: out of memory (hipErrorOutOfMemory, 2)",
       3, 0},
      {"hipMalloc", 2, 12,
       "flushing the caches before K0's timed launch 1: hipMalloc failed for the cache-flush "
       "buffer of 4096 bytes: out of memory (hipErrorOutOfMemory, 2)",
       3, 0},
      {"hipMemcpy", 2, 5,
       "hipMemcpy failed copying " + std::to_string(kAllocBytes) +
           " bytes host to device at @: out of memory (hipErrorOutOfMemory, 2)",
       3, 0},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(std::string(C.Call) + " after " + std::to_string(C.Skip));
    Mods.clear();
    Dev.reset();
    F.Reset();
    Dev = llvm::cantFail(device::openHipDevice("gfx942"));
    Mods.push_back(llvm::cantFail(Dev->load(Obj->C)));
    Mods.push_back(llvm::cantFail(Dev->load(Obj->C)));
    F.FailAfter(C.Call, C.Err, C.Skip);
    Failure Fl = failure(measureLaunches(*Dev, pair(), Spec, O).takeError());
    std::string Want = C.Message;
    if (auto At = Want.find('@'); At != std::string::npos) {
      // The third buffer's base (hipMemcpy: a zeroing copy and a write per buffer).
      std::vector<std::string> L = F.callList();
      std::string Base;
      int Copies = 0;
      for (const std::string &Call : L)
        if (Call.rfind("hipMemcpy(", 0) == 0 && ++Copies == 6)
          Base = Call.substr(10, Call.find(',') - 10);
      Want.replace(At, 1, Base);
    }
    EXPECT_EQ(Fl.Message, Want);
    EXPECT_EQ(Fl.Exit, C.Exit);
    EXPECT_EQ(F.LiveAllocations(), C.LiveAfter);
    EXPECT_EQ(F.LiveEvents(), 0);
  }
}

TEST_F(Measure, RefusedOptionsAndDevices) {
  auto Emu = device::createEmuDevice("gfx942");
  auto M = Emu->load(Obj->C);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  Failure E = failure(measureLaunches(*Emu, {{"K0", M->get()}}, Spec).takeError());
  EXPECT_EQ(E.Message, "measured timing needs a GPU (the emu backend's host times are not GPU "
                       "times; kernel-time's emu backend is the model)");
  EXPECT_EQ(E.Exit, 2);
  auto refused = [&](std::vector<MeasuredKernel> K, MeasureOptions O) {
    return failure(measureLaunches(*Dev, K, Spec, O).takeError());
  };
  EXPECT_EQ(refused({}, {}).Message, "measured timing takes one kernel or a pair (got 0)");
  std::vector<MeasuredKernel> Three = pair();
  Three.push_back({"K2", Mods[0].get()});
  EXPECT_EQ(refused(Three, {}).Message, "measured timing takes one kernel or a pair (got 3)");
  EXPECT_EQ(refused({{"K1", nullptr}}, {}).Message, "K1 is not loaded");
  MeasureOptions O;
  O.Reps = 0;
  EXPECT_EQ(refused(single(), O).Message, "measured timing needs at least one timed round");
  O = {};
  O.Rotate = 0;
  EXPECT_EQ(refused(single(), O).Message, "measured timing needs at least one input set");
  O = {};
  O.Level = 1;
  Failure L = refused(pair(), O);
  EXPECT_EQ(L.Message, "the ratio's bootstrap needs at least one resample and a confidence "
                       "level between 0 and 1");
  EXPECT_EQ(L.Exit, 2);
  O.Level = 0.95;
  O.Resamples = 0;
  EXPECT_EQ(refused(pair(), O).Exit, 2);
  EXPECT_EQ(refused(single(), O).Exit, 0); // one kernel: no ratio, no bootstrap
  // Nothing was placed for any of them.
  EXPECT_EQ(F.LiveAllocations(), 0);
}

// A GPU timer that did not advance gives no ratio: a runtime error, buffers freed.
TEST_F(Measure, ZeroTimeHasNoRatio) {
  const float Ms[] = {1, 1, 0, 1};
  F.SetElapsedSequence(Ms, 4);
  MeasureOptions O;
  O.Warmup = 1;
  O.Reps = 1;
  Failure Fl = failure(measureLaunches(*Dev, pair(), Spec, O).takeError());
  EXPECT_EQ(Fl.Message, "no ratio of K1's time to K0's: a ratio of medians needs positive times "
                        "(got 0)");
  EXPECT_EQ(Fl.Exit, 3);
  EXPECT_EQ(F.LiveAllocations(), 0);
}

// kernel-time --capture on hip: the regions reserved at the recorded addresses, every launch
// (warm-up and timed) preceded by the pre-state written again, with the recorded kernargs; where
// the runtime reserves elsewhere, the kernarg pointers are the moved ones and a note says so.
TEST_F(Measure, CaptureFromTheRecordedState) {
  auto T = TempDir::create("measure-capture");
  ASSERT_TRUE(bool(T));
  auto Sig = llvm::cantFail(kernelSignature(Obj->C, Obj->C.Kernels[0]));
  launch::CaptureBundle B;
  B.Runtime = "test";
  B.Device = "test";
  B.CodeObject.assign(Obj->C.Bytes.begin(), Obj->C.Bytes.end());
  B.Kernel = "add_kernel";
  B.GridWorkgroups = {2, 1, 1};
  B.Block = {256, 1, 1};
  B.Kernarg.assign(Sig.KernargSize, 0);
  const uint64_t Base = 0x7e5c00000000ull;
  for (unsigned I = 0; I < 3; ++I) {
    launch::CapturedRegion R;
    R.Base = Base + I * 0x10000;
    R.ReachedFrom = "kernarg+0x" + std::to_string(8 * I);
    R.Pre.assign(2048, uint8_t(I + 1));
    R.Post = R.Pre;
    B.Regions.push_back(R);
    std::memcpy(&B.Kernarg[Sig.explicitArgs()[I]->Offset], &R.Base, 8);
  }
  int32_t N = 512;
  std::memcpy(&B.Kernarg[Sig.explicitArgs()[3]->Offset], &N, 4);
  std::string Bundle = T->file("k.bundle");
  ASSERT_FALSE(bool(launch::writeCaptureBundle(B, Bundle)));
  for (bool Granted : {true, false}) {
    Mods.clear();
    Dev.reset();
    F.Reset();
    F.IgnoreAddressHint(!Granted);
    TimeOptions O;
    O.K0 = Bundle;
    O.K1 = Obj->C.Path;
    O.Capture = Bundle;
    O.Backend = "hip";
    O.Warmup = 1;
    O.Reps = 2;
    Report R = runKernelTime(O);
    ASSERT_EQ(R.Result, Outcome::Ok) << R.Message;
    EXPECT_EQ(R.Body["kind"], "measured");
    EXPECT_EQ(R.Body["protocol"]["rotate"], 1);
    // Before each of the 6 launches, the three regions' pre-state: 3 copies of 2048 bytes.
    std::vector<std::string> Calls = F.callList();
    int Launches = 0, CopiesSince = 0;
    std::set<std::string> Reserved;
    for (const std::string &C : Calls) {
      if (C.rfind("hipMemAddressReserve(", 0) == 0)
        Reserved.insert(C);
      if (C.rfind("hipMemcpy(", 0) == 0 && C.find(", 2048, kind 1)") != std::string::npos)
        ++CopiesSince;
      if (C.rfind("hipModuleLaunchKernel(", 0) == 0) {
        EXPECT_EQ(CopiesSince, 3) << "launch " << Launches;
        CopiesSince = 0;
        std::vector<uint8_t> K = F.kernargOf(Launches++);
        K.resize(B.Kernarg.size());
        uint64_t X = 0;
        std::memcpy(&X, &K[Sig.explicitArgs()[0]->Offset], 8);
        if (Granted) {
          EXPECT_EQ(K, B.Kernarg);
        } else {
          EXPECT_NE(X, Base);
          EXPECT_EQ(X % 4096, 0u);
        }
      }
    }
    EXPECT_EQ(Launches, 6);
    EXPECT_EQ(Reserved.size(), 3u);
    // Each asked for at its recorded address, granted or not.
    EXPECT_TRUE(Reserved.count("hipMemAddressReserve(4096, 4096, 0x7e5c00010000, 0)"));
    bool Note = false;
    for (const std::string &Line : R.Notes)
      Note |= Line == "3 captured region(s) could not be placed at their recorded addresses: the "
                      "kernarg pointers into them were rewritten";
    EXPECT_EQ(Note, !Granted);
  }
}

} // namespace
