// The `hip` backend of the device interface, without a GPU: against a fake HIP runtime
// (fake_hip_runtime.cpp, loaded through ASMEVO_HIP_LIBRARY) that records every call and its
// arguments and fails chosen calls on request, and against Debian's real libamdhip64 when it is
// installed (no GPU here: it must fail cleanly). None of this runs a kernel on hardware.
#include "emu/EmuHarness.h"

#include "TestHelpers.h"
#include "codeobj/KernelArgs.h"
#include "device/Device.h"
#include "device/FakeHip.h"
#include "support/Error.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>

using namespace asmevo;
using namespace asmevo::device;
using namespace asmevo::test;

namespace {

std::string hex(uint64_t V) {
  char B[32];
  std::snprintf(B, sizeof B, "0x%llx", (unsigned long long)V);
  return B;
}

Fake &fake6() {
  static Fake F(ASMEVO_FAKE_HIP);
  return F;
}
Fake &fake5() {
  static Fake F(ASMEVO_FAKE_HIP5);
  return F;
}

class HipFake : public ::testing::Test {
protected:
  void SetUp() override {
    F.Reset();
    auto O = openCodeObject(emu::test::tritonObject("gfx942", "vector_add_fp32"));
    ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
    Obj = std::move(*O);
  }
  void TearDown() override { F.Reset(); }

  std::unique_ptr<Device> open() {
    auto D = openDevice("hip", "gfx942");
    if (!D) {
      ADD_FAILURE() << llvm::toString(D.takeError());
      return nullptr;
    }
    return std::move(*D);
  }
  // The kernarg segment of add_kernel(x, y, out, n) as kernel-run lays it out: the whole
  // segment, explicit arguments set, hidden ones zero.
  LaunchParams params(uint64_t X, uint64_t Y, uint64_t Out, int32_t N) {
    auto Sig = llvm::cantFail(kernelSignature(Obj->C, Obj->C.Kernels[0]));
    LaunchParams P;
    P.Kernel = "add_kernel";
    P.Block = {256, 1, 1};
    P.GridItems = {512, 1, 1};
    P.Kernarg.assign(Sig.KernargSize, 0);
    auto put = [&](unsigned I, auto V) {
      std::memcpy(&P.Kernarg[Sig.explicitArgs()[I]->Offset], &V, sizeof(V));
    };
    put(0, X);
    put(1, Y);
    put(2, Out);
    put(3, N);
    return P;
  }

  ScopedEnv Env{"ASMEVO_HIP_LIBRARY", ASMEVO_FAKE_HIP};
  Fake &F = fake6();
  std::unique_ptr<OpenCodeObject> Obj;
};

TEST_F(HipFake, OpenAndInfo) {
  auto D = open();
  ASSERT_TRUE(D);
  EXPECT_EQ(D->info().Backend, "hip");
  EXPECT_EQ(D->info().Name, "Fake MI300X (gfx942:sramecc+:xnack-)");
  EXPECT_TRUE(D->info().Hardware);
  EXPECT_EQ(D->info().Arch, "gfx942");
  EXPECT_DOUBLE_EQ(D->info().ClockMHz, 2100); // clockRate 2100000 kHz
  EXPECT_EQ(F.callList(),
            (std::vector<std::string>{"hipGetDeviceCount()", "hipGetDevicePropertiesR0600(0)",
                                      "hipSetDevice(0)"}));
}

// The ROCm 5 layout: no hipGetDevicePropertiesR0600, gcnArchName at offset 396.
TEST_F(HipFake, OpenRocm5PropertiesLayout) {
  ScopedEnv Env5("ASMEVO_HIP_LIBRARY", ASMEVO_FAKE_HIP5);
  Fake &F5 = fake5();
  F5.Reset();
  auto D = openDevice("hip", "gfx942");
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ((*D)->info().Name, "Fake MI300X (gfx942:sramecc+:xnack-)");
  EXPECT_EQ((*D)->info().Arch, "gfx942");
  EXPECT_DOUBLE_EQ((*D)->info().ClockMHz, 2100); // clockRate at 308, not 348
  EXPECT_TRUE(F5.called("hipGetDeviceProperties(0)"));
  F5.SetArch("gfx90a:sramecc-:xnack+");
  F5.SetClockRate(1700000);
  auto D2 = openDevice("hip", "gfx90a");
  ASSERT_TRUE(bool(D2)) << llvm::toString(D2.takeError());
  EXPECT_EQ((*D2)->info().Name, "Fake MI300X (gfx90a:sramecc-:xnack+)");
  EXPECT_EQ((*D2)->info().Arch, "gfx90a");
  EXPECT_DOUBLE_EQ((*D2)->info().ClockMHz, 1700);
  F5.Reset();
}

// A clockRate that is not a clock (0, negative, above 10 GHz: another layout) reads as unknown.
TEST_F(HipFake, ClockUnknown) {
  for (int KHz : {0, -1, 1515870810, 1801000}) {
    SCOPED_TRACE(KHz);
    F.SetClockRate(KHz);
    auto D = open();
    ASSERT_TRUE(D);
    EXPECT_DOUBLE_EQ(D->info().ClockMHz, KHz == 1801000 ? 1801 : 0);
  }
}

TEST_F(HipFake, ArchMismatchRefused) {
  auto D = openDevice("hip", "gfx90a");
  Failure Fl = failure(D);
  EXPECT_EQ(Fl.Message, "the GPU is gfx942, the code object is for gfx90a");
  EXPECT_EQ(Fl.Exit, 2);
  EXPECT_FALSE(F.called("hipSetDevice"));
  // A garbled gcnArchName (a layout mismatch) is caught, not trusted.
  F.SetArch("");
  Failure G = failure(openDevice("hip", "gfx942").takeError());
  EXPECT_EQ(G.Exit, 3);
  EXPECT_NE(G.Message.find("cannot read the architecture of GPU 0 from "
                           "hipGetDevicePropertiesR0600"),
            std::string::npos)
      << G.Message;
}

TEST_F(HipFake, NoDevice) {
  F.SetDevices(0, 100);
  Failure A = failure(openDevice("hip", "gfx942").takeError());
  EXPECT_EQ(A.Message, "no AMD GPU found: hipGetDeviceCount returned no ROCm-capable device is "
                       "detected (hipErrorNoDevice, 100)");
  EXPECT_EQ(A.Exit, 2);
  F.SetDevices(0, 0);
  Failure B = failure(openDevice("hip", "gfx942").takeError());
  EXPECT_EQ(B.Message, "no AMD GPU found: hipGetDeviceCount returned 0 devices");
  EXPECT_EQ(B.Exit, 2);
}

TEST_F(HipFake, NoRuntime) {
  {
    ScopedEnv E("ASMEVO_HIP_LIBRARY", "/nonexistent/libamdhip64.so");
    Failure A = failure(openDevice("hip", "gfx942").takeError());
    EXPECT_EQ(A.Message, "no ROCm runtime found: /nonexistent/libamdhip64.so: cannot open "
                         "shared object file: No such file or directory");
    EXPECT_EQ(A.Exit, 2);
  }
  {
    // A library that is not a HIP runtime.
    ScopedEnv E("ASMEVO_HIP_LIBRARY", "libm.so.6");
    Failure A = failure(openDevice("hip", "gfx942").takeError());
    EXPECT_EQ(A.Message.rfind("no ROCm runtime found: libm.so.6 lacks hipGetDeviceCount, "
                              "hipSetDevice, hipGetDeviceProperties, hipMalloc",
                              0),
              0u)
        << A.Message;
    EXPECT_EQ(A.Exit, 2);
  }
}

TEST_F(HipFake, AutoPicksHipOrEmu) {
  auto A = openDevice("auto", "gfx942");
  ASSERT_TRUE(bool(A));
  EXPECT_EQ((*A)->info().Backend, "hip");
  EXPECT_TRUE((*A)->info().Hardware);
  // A GPU of another processor: the emulator.
  auto B = openDevice("auto", "gfx90a");
  ASSERT_TRUE(bool(B));
  EXPECT_EQ((*B)->info().Backend, "emu");
  EXPECT_EQ((*B)->info().Name, "CPU emulator (gfx90a, wave64)");
  // No runtime at all: the emulator.
  ScopedEnv E("ASMEVO_HIP_LIBRARY", "/nonexistent/libamdhip64.so");
  auto C = openDevice("auto", "gfx942");
  ASSERT_TRUE(bool(C));
  EXPECT_EQ((*C)->info().Backend, "emu");
  EXPECT_FALSE((*C)->info().Hardware);
}

TEST_F(HipFake, MemoryRoundTrip) {
  auto D = open();
  ASSERT_TRUE(D);
  uint64_t A = llvm::cantFail(D->alloc(4096, "a"));
  uint64_t B = llvm::cantFail(D->alloc(0, "empty"));
  EXPECT_NE(A, 0u);
  EXPECT_EQ(F.LiveAllocations(), 2);
  EXPECT_TRUE(F.called("hipMalloc(4096)"));
  EXPECT_TRUE(F.called("hipMalloc(1)")); // a zero-byte allocation still gets an address
  // New allocations read as zero (hipMalloc's memory does not: the backend zeroes it).
  std::vector<uint8_t> In(4096), Out(4096, 0xff);
  ASSERT_FALSE(bool(D->read(A, Out.data(), Out.size())));
  EXPECT_EQ(Out, std::vector<uint8_t>(4096, 0));
  uint8_t Z = 0xff;
  ASSERT_FALSE(bool(D->read(B, &Z, 1)));
  EXPECT_EQ(Z, 0);
  for (unsigned I = 0; I < In.size(); ++I)
    In[I] = uint8_t(I * 7 + 1);
  ASSERT_FALSE(bool(D->write(A, In.data(), In.size())));
  ASSERT_FALSE(bool(D->read(A, Out.data(), Out.size())));
  EXPECT_EQ(In, Out);
  // Within an allocation, at an offset.
  uint32_t W = 0xdeadbeef, R = 0;
  ASSERT_FALSE(bool(D->write(A + 100, &W, 4)));
  ASSERT_FALSE(bool(D->read(A + 100, &R, 4)));
  EXPECT_EQ(R, W);
  EXPECT_TRUE(F.called("hipMemcpy(" + hex(A + 100) + ", "));
  // Outside every allocation: refused before the runtime sees it.
  Failure O = failure(D->read(A + 4094, &R, 4));
  EXPECT_EQ(O.Message,
            "device read of 4 bytes at " + hex(A + 4094) + " is outside every allocation");
  EXPECT_EQ(O.Exit, 2);
  Failure OW = failure(D->write(A + 4096, &W, 4));
  EXPECT_EQ(OW.Message,
            "device write of 4 bytes at " + hex(A + 4096) + " is outside every allocation");
  // allocAt: not possible with HIP.
  Failure At = failure(D->allocAt(0x7ffe40000000ull, 8192, "out"));
  EXPECT_EQ(At.Message,
            "the hip backend cannot place an allocation at a chosen address (0x7ffe40000000)");
  EXPECT_EQ(At.Exit, 2);
  // free.
  ASSERT_FALSE(bool(D->free(A)));
  EXPECT_EQ(F.LiveAllocations(), 1);
  Failure Again = failure(D->free(A));
  EXPECT_EQ(Again.Message, "no device allocation starts at " + hex(A));
  Failure Gone = failure(D->read(A, &R, 4));
  EXPECT_EQ(Gone.Exit, 2);
  // The device frees what is left when it goes.
  D.reset();
  EXPECT_EQ(F.LiveAllocations(), 0);
}

// place(): one reservation per span of 4 KiB pages the wanted ranges touch, asked for at the
// span's start; hipMemCreate's properties in the runtime's layout; read-write access for the
// device; everything given back with the device.
void checkPlace(Fake &F, std::unique_ptr<Device> D, bool Granted) {
  // Two ranges sharing a page, and one 1 MiB further. The addresses are free in this process
  // (the fake reserves host address space).
  const uint64_t Base = 0x7e5a00000000ull;
  std::vector<Device::Placement> Ps = {{Base + 0x100000 + 0x10, 64, "c", 0},
                                       {Base + 0x100, 100, "a", 0},
                                       {Base + 0x400, 5000, "b", 0}};
  ASSERT_FALSE(bool(D->place(Ps)));
  auto Calls = F.callList();
  std::vector<std::string> Vmm;
  for (const std::string &C : Calls)
    if (C.rfind("hipMem", 0) == 0 && C.rfind("hipMemcpy", 0) != 0)
      Vmm.push_back(C);
  ASSERT_EQ(Vmm.size(), 9u) << F.Calls();
  EXPECT_EQ(Vmm[0], "hipMemGetAllocationGranularity(option 0)");
  // a and b: pages 0 and 1 (b ends at 0x400 + 5000 = 0x1788), so 8192 bytes at Base.
  EXPECT_EQ(Vmm[1], "hipMemAddressReserve(8192, 4096, " + hex(Base) + ", 0)");
  EXPECT_EQ(Vmm[2], "hipMemCreate(8192)");
  EXPECT_EQ(Vmm[5], "hipMemAddressReserve(4096, 4096, " + hex(Base + 0x100000) + ", 0)");
  EXPECT_NE(Vmm[4].find(", 8192, {1, 0, 3}, 1)"), std::string::npos) << Vmm[4]; // device 0, RW
  uint64_t A = Ps[1].Got, B = Ps[2].Got, C = Ps[0].Got;
  if (Granted) {
    EXPECT_EQ(A, Base + 0x100);
    EXPECT_EQ(B, Base + 0x400);
    EXPECT_EQ(C, Base + 0x100010);
  } else {
    EXPECT_NE(A, Base + 0x100);
    EXPECT_EQ(B - A, 0x300u); // one span moves as a whole
    EXPECT_EQ(A % 4096, 0x100u);
    EXPECT_EQ(C % 4096, 0x10u);
  }
  // Usable as device memory: a write and read back through hipMemcpy.
  std::vector<uint8_t> In(5000), Out(5000);
  for (unsigned I = 0; I < In.size(); ++I)
    In[I] = uint8_t(I * 13 + 5);
  Failure W = failure(D->write(B, In.data(), In.size()));
  ASSERT_EQ(W.Exit, 0) << W.Message;
  ASSERT_FALSE(bool(D->read(B, Out.data(), Out.size())));
  EXPECT_EQ(In, Out);
  Failure Past = failure(D->write(C + 60, In.data(), 8));
  EXPECT_EQ(Past.Message,
            "device write of 8 bytes at " + hex(C + 60) + " is outside every allocation");
  Failure Free = failure(D->free(A));
  EXPECT_EQ(Free.Message,
            "the placed region at " + hex(A) + " is released with the device, not freed");
  EXPECT_GT(F.LiveVirtualMemory(), 0);
  D.reset();
  EXPECT_EQ(F.LiveVirtualMemory(), 0);
  EXPECT_TRUE(F.called("hipMemUnmap(" + hex(A & ~0xfffull) + ", 8192)"));
  EXPECT_TRUE(F.called("hipMemAddressFree(" + hex(C & ~0xfffull) + ", 4096)"));
}

TEST_F(HipFake, PlaceAtRecordedAddresses) {
  checkPlace(F, open(), true);
  F.Reset();
  F.IgnoreAddressHint(1);
  checkPlace(F, open(), false);
}

TEST_F(HipFake, PlaceWithTheRocm5PropertiesLayout) {
  // The fake of ROCm 5 refuses a hipMemAllocationProp in ROCm 6's layout, and the other way.
  ScopedEnv Env5("ASMEVO_HIP_LIBRARY", ASMEVO_FAKE_HIP5);
  Fake &F5 = fake5();
  F5.Reset();
  auto D = openDevice("hip", "gfx942");
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  checkPlace(F5, std::move(*D), true);
  F5.Reset();
}

TEST_F(HipFake, PlaceFailuresUndoWhatWasDone) {
  const uint64_t Want = 0x7e5b00000000ull;
  F.Fail("hipMemMap", 2);
  auto D = open();
  std::vector<Device::Placement> Ps = {{Want, 4096, "region 0x7e5b00000000", 0}};
  Failure M = failure(D->place(Ps));
  EXPECT_EQ(M.Message, "hipMemMap failed for 4096 bytes at 0x7e5b00000000 (region "
                       "0x7e5b00000000): out of memory (hipErrorOutOfMemory, 2)");
  EXPECT_EQ(F.LiveVirtualMemory(), 0);
  EXPECT_TRUE(F.called("hipMemRelease"));
  EXPECT_TRUE(F.called("hipMemAddressFree(" + hex(Want) + ", 4096)"));
  F.Fail("hipMemMap", 0);
  F.Fail("hipMemAddressReserve", 2);
  Failure R = failure(D->place(Ps));
  EXPECT_EQ(R.Message, "hipMemAddressReserve failed for 4096 bytes at 0x7e5b00000000 (region "
                       "0x7e5b00000000): out of memory (hipErrorOutOfMemory, 2)");
  F.Fail("hipMemAddressReserve", 0);
  std::vector<Device::Placement> Empty = {{Want, 0, "empty", 0}};
  Failure Z = failure(D->place(Empty));
  EXPECT_EQ(Z.Message, "cannot place 0 bytes at 0x7e5b00000000");
  D.reset();
  EXPECT_EQ(F.LiveVirtualMemory(), 0);
}

TEST_F(HipFake, LoadPassesTheExactCodeObject) {
  auto D = open();
  ASSERT_TRUE(D);
  auto M = D->load(Obj->C);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ(&(*M)->codeObject(), &Obj->C);
  const void *Ptr = nullptr;
  std::vector<uint8_t> Got(Obj->C.Bytes.size() + 64);
  size_t N = F.LastImage(&Ptr, Got.data(), Got.size());
  EXPECT_EQ(Ptr, static_cast<const void *>(Obj->C.Bytes.data()));
  ASSERT_EQ(N, Obj->C.Bytes.size());
  EXPECT_EQ(std::memcmp(Got.data(), Obj->C.Bytes.data(), N), 0);
  EXPECT_EQ(F.LiveModules(), 1);
  M->reset();
  EXPECT_EQ(F.LiveModules(), 0); // the module is unloaded with hipModuleUnload
  EXPECT_TRUE(F.called("hipModuleUnload("));
}

TEST_F(HipFake, LaunchPassesGeometryLdsAndKernarg) {
  auto D = open();
  ASSERT_TRUE(D);
  auto M = llvm::cantFail(D->load(Obj->C));
  uint64_t X = llvm::cantFail(D->alloc(2048, "x")), Y = llvm::cantFail(D->alloc(2048, "y")),
           O = llvm::cantFail(D->alloc(2048, "out"));
  LaunchParams P = params(X, Y, O, 512);
  P.DynamicLds = 1024;
  F.SetElapsedMs(2.5f);
  auto Before = F.callList().size();
  auto R = D->launch(*M, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_DOUBLE_EQ(R->Seconds, 0.0025);
  EXPECT_EQ(R->Workgroups, 2u);
  EXPECT_EQ(R->Waves, 8u);
  EXPECT_EQ(R->WaveInstructions, 0u);
  EXPECT_EQ(R->LaneInstructions, 0u);
  // The kernarg segment exactly as given, its size through `extra`.
  std::vector<uint8_t> K(P.Kernarg.size() + 64, 0xcc);
  EXPECT_EQ(F.LastKernarg(K.data(), K.size()), P.Kernarg.size());
  K.resize(P.Kernarg.size());
  EXPECT_EQ(K, P.Kernarg);
  // The calls, in order: events around the launch, then the waits.
  std::vector<std::string> Calls = F.callList();
  std::vector<std::string> Launch(Calls.begin() + Before, Calls.end());
  std::string Size = std::to_string(P.Kernarg.size());
  EXPECT_EQ(Launch,
            (std::vector<std::string>{
                "hipGetLastError()", "hipModuleGetFunction(add_kernel)", "hipEventCreate()",
                "hipEventCreate()", "hipEventRecord(event 1, stream (nil))",
                "hipModuleLaunchKernel(add_kernel, grid 2,1,1, block 256,1,1, shared 1024, "
                "stream (nil), params (nil), extra {0x1, buf, 0x2, &" +
                    Size + ", 0x3})",
                "hipEventRecord(event 2, stream (nil))", "hipEventSynchronize(event 2)",
                "hipEventElapsedTime(event 1, event 2)", "hipDeviceSynchronize()",
                "hipGetLastError()", "hipEventDestroy(event 1)", "hipEventDestroy(event 2)"}));
  EXPECT_EQ(F.LiveEvents(), 0);
}

TEST_F(HipFake, LaunchGridIn3D) {
  auto D = open();
  ASSERT_TRUE(D);
  auto M = llvm::cantFail(D->load(Obj->C));
  LaunchParams P = params(0, 0, 0, 0);
  P.GridItems = {128, 6, 4};
  P.Block = {64, 2, 1};
  auto R = D->launch(*M, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(F.called("hipModuleLaunchKernel(add_kernel, grid 2,3,4, block 64,2,1, shared 0,"))
      << F.Calls();
  EXPECT_EQ(R->Workgroups, 24u);
  EXPECT_EQ(R->Waves, 48u); // 128 work-items: two wave64 waves per workgroup
}

// A short kernarg buffer is zero-padded to the kernel's segment; a long one is refused.
TEST_F(HipFake, KernargPaddedToTheSegment) {
  auto D = open();
  ASSERT_TRUE(D);
  auto M = llvm::cantFail(D->load(Obj->C));
  LaunchParams Full = params(0x1111, 0x2222, 0x3333, 7);
  LaunchParams P = Full;
  P.Kernarg.resize(8);
  ASSERT_TRUE(bool(D->launch(*M, P)));
  std::vector<uint8_t> K(Full.Kernarg.size());
  ASSERT_EQ(F.LastKernarg(K.data(), K.size()), Full.Kernarg.size());
  std::vector<uint8_t> Want(Full.Kernarg.size(), 0);
  std::memcpy(Want.data(), Full.Kernarg.data(), 8);
  EXPECT_EQ(K, Want);
  P.Kernarg.assign(Full.Kernarg.size() + 1, 0);
  Failure L = failure(D->launch(*M, P).takeError());
  EXPECT_EQ(L.Message, "the kernarg data is " + std::to_string(Full.Kernarg.size() + 1) +
                           " bytes; kernel 'add_kernel' takes " +
                           std::to_string(Full.Kernarg.size()));
  EXPECT_EQ(L.Exit, 2);
}

TEST_F(HipFake, BadLaunchesRefused) {
  auto D = open();
  ASSERT_TRUE(D);
  auto M = llvm::cantFail(D->load(Obj->C));
  LaunchParams P = params(0, 0, 0, 0);
  P.GridItems = {500, 1, 1};
  Failure A = failure(D->launch(*M, P).takeError());
  EXPECT_EQ(A.Message, "the hip backend launches whole workgroups only: grid size 500 "
                       "work-items in dimension x is not a multiple of the workgroup size 256 "
                       "(HIP cannot launch a partial workgroup)");
  EXPECT_EQ(A.Exit, 2);
  P.GridItems = {512, 3, 1};
  P.Block = {256, 2, 1};
  Failure Y = failure(D->launch(*M, P).takeError());
  EXPECT_NE(Y.Message.find("grid size 3 work-items in dimension y"), std::string::npos)
      << Y.Message;
  EXPECT_FALSE(F.called("hipModuleLaunchKernel"));
  P = params(0, 0, 0, 0);
  P.Block = {1024, 2, 1};
  P.GridItems = {1024, 2, 1};
  EXPECT_EQ(failure(D->launch(*M, P).takeError()).Message,
            "workgroup of 2048 work-items exceeds 1024");
  P = params(0, 0, 0, 0);
  P.Kernel = "no_such_kernel";
  Failure K = failure(D->launch(*M, P).takeError());
  EXPECT_EQ(K.Message, "'" + Obj->C.Path +
                           "': no kernel named 'no_such_kernel' (kernels: "
                           "add_kernel)");
  EXPECT_EQ(K.Exit, 2);
  EXPECT_FALSE(F.called("hipModuleLaunchKernel"));
}

// The pointer a "hipMemset(PTR, VALUE, SIZE)" line names.
std::string memsetTarget(const std::string &Line) { return Line.substr(10, Line.find(',') - 10); }

// flushCaches: one buffer, allocated on the first flush and reused, a new value written each
// time, then a device-wide wait; a larger flush replaces the buffer; the device frees it.
TEST_F(HipFake, FlushCaches) {
  auto D = open();
  ASSERT_TRUE(D);
  auto Before = F.callList().size();
  ASSERT_FALSE(bool(D->flushCaches(0))); // nothing to do
  EXPECT_EQ(F.callList().size(), Before);
  ASSERT_FALSE(bool(D->flushCaches(4096)));
  ASSERT_FALSE(bool(D->flushCaches(4096)));
  ASSERT_FALSE(bool(D->flushCaches(1000))); // a smaller flush reuses the buffer
  std::vector<std::string> Calls = F.callList();
  std::vector<std::string> Got(Calls.begin() + Before, Calls.end());
  ASSERT_EQ(Got.size(), 7u);
  std::string P = memsetTarget(Got[1]);
  EXPECT_EQ(Got, (std::vector<std::string>{
                     "hipMalloc(4096)", "hipMemset(" + P + ", 1, 4096)", "hipDeviceSynchronize()",
                     "hipMemset(" + P + ", 2, 4096)", "hipDeviceSynchronize()",
                     "hipMemset(" + P + ", 3, 1000)", "hipDeviceSynchronize()"}));
  EXPECT_EQ(F.LiveAllocations(), 1);
  // Not one of the caller's allocations.
  uint64_t A = std::strtoull(P.c_str(), nullptr, 16);
  EXPECT_EQ(failure(D->free(A)).Message, "no device allocation starts at " + P);
  uint8_t B = 0;
  EXPECT_EQ(failure(D->read(A, &B, 1)).Exit, 2);
  // Larger: the buffer is replaced.
  Before = F.callList().size();
  ASSERT_FALSE(bool(D->flushCaches(8192)));
  Calls = F.callList();
  Got.assign(Calls.begin() + Before, Calls.end());
  ASSERT_EQ(Got.size(), 4u);
  std::string Q = memsetTarget(Got[2]);
  EXPECT_EQ(Got,
            (std::vector<std::string>{"hipFree(" + P + ")", "hipMalloc(8192)",
                                      "hipMemset(" + Q + ", 4, 8192)", "hipDeviceSynchronize()"}));
  EXPECT_EQ(F.LiveAllocations(), 1);
  D.reset();
  EXPECT_EQ(F.LiveAllocations(), 0);
  EXPECT_TRUE(F.called("hipFree(" + Q + ")"));
}

TEST_F(HipFake, FlushCachesFailures) {
  auto D = open();
  ASSERT_TRUE(D);
  F.Fail("hipMalloc", 2);
  Failure M = failure(D->flushCaches(4096));
  EXPECT_EQ(M.Message, "hipMalloc failed for the cache-flush buffer of 4096 bytes: out of memory "
                       "(hipErrorOutOfMemory, 2)");
  EXPECT_EQ(M.Exit, 3);
  EXPECT_FALSE(F.called("hipMemset"));
  F.Fail("hipMalloc", 0);
  F.Fail("hipMemset", 1);
  Failure S = failure(D->flushCaches(4096));
  EXPECT_EQ(S.Message, "hipMemset failed flushing the caches (4096 bytes): invalid argument "
                       "(hipErrorInvalidValue, 1)");
  EXPECT_EQ(S.Exit, 3);
  EXPECT_EQ(F.LiveAllocations(), 1); // allocated (after the failed hipMalloc) and kept
  F.Fail("hipMemset", 0);
  F.Fail("hipDeviceSynchronize", 719);
  Failure W = failure(D->flushCaches(4096));
  EXPECT_EQ(W.Message, "hipDeviceSynchronize failed after flushing the caches: unspecified "
                       "launch failure (hipErrorLaunchFailure, 719)");
  EXPECT_EQ(W.Exit, 3);
  F.Fail("hipDeviceSynchronize", 0);
  ASSERT_FALSE(bool(D->flushCaches(4096)));
  // One buffer for all of it.
  int Mallocs = 0;
  for (const std::string &C : F.callList())
    Mallocs += C.rfind("hipMalloc(", 0) == 0;
  EXPECT_EQ(Mallocs, 2); // the failed one and the one kept
  F.Fail("hipFree", 17);
  Failure R = failure(D->flushCaches(8192));
  EXPECT_EQ(R.Message, "hipFree failed releasing the cache-flush buffer: unknown error "
                       "(hipErrorInvalidDevicePointer, 17)");
  F.Fail("hipFree", 0);
  // The emulator has no caches to flush.
  auto Emu = createEmuDevice("gfx942");
  Failure E = failure(Emu->flushCaches(4096));
  EXPECT_EQ(E.Message, "the emu backend has no caches to flush (--flush-cache needs a GPU: "
                       "--backend hip)");
  EXPECT_EQ(E.Exit, 2);
}

// The fake's elapsed-time sequence, its Nth-call failures and its record of every kernarg.
TEST_F(HipFake, ElapsedSequenceAndKernargs) {
  auto D = open();
  ASSERT_TRUE(D);
  auto M = llvm::cantFail(D->load(Obj->C));
  const float Ms[] = {1.5f, 3.0f};
  F.SetElapsedSequence(Ms, 2);
  std::vector<double> Secs;
  for (int32_t N = 1; N <= 3; ++N) {
    auto R = D->launch(*M, params(0x1000, 0x2000, 0x3000, N));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    Secs.push_back(R->Seconds);
  }
  EXPECT_EQ(Secs, (std::vector<double>{1.5 / 1000, 3.0 / 1000, double(1.25f) / 1000}));
  ASSERT_EQ(F.KernargCount(), 3);
  for (int I = 0; I < 3; ++I) {
    LaunchParams P = params(0x1000, 0x2000, 0x3000, I + 1);
    std::vector<uint8_t> K(P.Kernarg.size());
    EXPECT_EQ(F.Kernarg(I, K.data(), K.size()), P.Kernarg.size());
    EXPECT_EQ(K, P.Kernarg);
  }
  F.FailAfter("hipModuleLaunchKernel", 2, 1); // the second launch from now fails
  EXPECT_TRUE(bool(D->launch(*M, params(0, 0, 0, 1))));
  EXPECT_EQ(failure(D->launch(*M, params(0, 0, 0, 1)).takeError()).Exit, 3);
  EXPECT_EQ(failure(D->launch(*M, params(0, 0, 0, 1)).takeError()).Exit, 3);
}

// Every HIP call's failure: its message and its exit code.
TEST_F(HipFake, InjectedFailures) {
  struct Case {
    const char *Call;
    int Err;
    const char *Step; // open, alloc, write, read, free, flush, load, launch
    std::string Message;
    int Exit;
  };
  const std::string After = " after launching kernel 'add_kernel': ";
  const std::string Path = Obj->C.Path;
  std::vector<Case> Cases = {
      {"hipGetDeviceCount", 3, "open",
       "no AMD GPU found: hipGetDeviceCount returned initialization error "
       "(hipErrorNotInitialized, 3)",
       2},
      {"hipGetDevicePropertiesR0600", 1, "open",
       "hipGetDevicePropertiesR0600 failed: invalid argument (hipErrorInvalidValue, 1)", 3},
      {"hipSetDevice", 101, "open",
       "hipSetDevice failed: invalid device ordinal (hipErrorInvalidDevice, 101)", 3},
      {"hipMalloc", 2, "alloc",
       "hipMalloc failed for device allocation 'buf' of 64 bytes: out of memory "
       "(hipErrorOutOfMemory, 2)",
       3},
      {"hipMemset", 1, "flush",
       "hipMemset failed flushing the caches (64 bytes): invalid argument "
       "(hipErrorInvalidValue, 1)",
       3},
      {"hipMemcpy", 2, "alloc",
       "hipMemcpy failed zeroing device allocation 'buf' of 64 bytes: out of memory "
       "(hipErrorOutOfMemory, 2)",
       3},
      {"hipMemcpy", 1, "write",
       "hipMemcpy failed copying 64 bytes host to device at @: invalid "
       "argument (hipErrorInvalidValue, 1)",
       3},
      {"hipMemcpy", 700, "read",
       "hipMemcpy failed copying 64 bytes device to host from @: an "
       "illegal memory access was encountered (hipErrorIllegalAddress, 700)",
       3},
      {"hipFree", 17, "free", "hipFree failed: unknown error (hipErrorInvalidDevicePointer, 17)",
       3},
      {"hipModuleLoadData", 200, "load",
       "'" + Path +
           "': hipModuleLoadData failed: invalid device image "
           "(hipErrorInvalidImage, 200)",
       3},
      {"hipModuleLoadData", 209, "load",
       "'" + Path + "': hipModuleLoadData failed: unknown error (hipErrorNoBinaryForGpu, 209)", 3},
      {"hipModuleGetFunction", 500, "launch",
       "hipModuleGetFunction failed for kernel 'add_kernel': named symbol not found "
       "(hipErrorNotFound, 500)",
       2},
      {"hipEventCreate", 2, "launch",
       "hipEventCreate failed: out of memory (hipErrorOutOfMemory, 2)", 3},
      {"hipEventRecord", 400, "launch",
       "hipEventRecord failed: unknown error (hipErrorInvalidHandle, 400)", 3},
      {"hipModuleLaunchKernel", 1, "launch",
       "hipModuleLaunchKernel failed for kernel 'add_kernel': invalid argument "
       "(hipErrorInvalidValue, 1)",
       2},
      {"hipModuleLaunchKernel", 701, "launch",
       "hipModuleLaunchKernel failed for kernel 'add_kernel': unknown error "
       "(hipErrorLaunchOutOfResources, 701)",
       2},
      {"hipModuleLaunchKernel", 2, "launch",
       "hipModuleLaunchKernel failed for kernel 'add_kernel': out of memory "
       "(hipErrorOutOfMemory, 2)",
       3},
      {"hipEventSynchronize", 700, "launch",
       "hipEventSynchronize failed" + After +
           "an illegal memory access was encountered (hipErrorIllegalAddress, 700)",
       3},
      {"hipEventElapsedTime", 1, "launch",
       "hipEventElapsedTime failed" + After + "invalid argument (hipErrorInvalidValue, 1)", 3},
      {"hipDeviceSynchronize", 719, "launch",
       "hipDeviceSynchronize failed" + After +
           "unspecified launch failure (hipErrorLaunchFailure, 719)",
       3},
      {"hipGetLastError", 719, "launch",
       "hipGetLastError failed" + After + "unspecified launch failure (hipErrorLaunchFailure, 719)",
       3},
      // A code HIP's headers name but this backend does not: the number alone.
      {"hipModuleLoadData", 999, "load",
       "'" + Path + "': hipModuleLoadData failed: unknown error (999)", 3},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(std::string(C.Call) + " " + std::to_string(C.Err) + " in " + C.Step);
    F.Reset();
    std::string Step = C.Step;
    if (Step == "open")
      F.Fail(C.Call, C.Err);
    auto DOr = openDevice("hip", "gfx942");
    if (Step == "open") {
      Failure Fl = failure(DOr);
      EXPECT_EQ(Fl.Message, C.Message);
      EXPECT_EQ(Fl.Exit, C.Exit);
      continue;
    }
    ASSERT_TRUE(bool(DOr)) << llvm::toString(DOr.takeError());
    std::unique_ptr<Device> D = std::move(*DOr);
    uint64_t Buf = 0;
    if (Step != "alloc")
      Buf = llvm::cantFail(D->alloc(64, "buf"));
    std::unique_ptr<Module> M;
    if (Step == "launch")
      M = llvm::cantFail(D->load(Obj->C));
    F.Fail(C.Call, C.Err);
    uint8_t Bytes[64] = {};
    llvm::Error E = llvm::Error::success();
    if (Step == "alloc") {
      auto A = D->alloc(64, "buf");
      E = A ? llvm::Error::success() : A.takeError();
    } else if (Step == "write") {
      E = D->write(Buf, Bytes, 64);
    } else if (Step == "read") {
      E = D->read(Buf, Bytes, 64);
    } else if (Step == "free") {
      E = D->free(Buf);
    } else if (Step == "flush") {
      E = D->flushCaches(64);
    } else if (Step == "load") {
      auto L = D->load(Obj->C);
      E = L ? llvm::Error::success() : L.takeError();
    } else {
      auto R = D->launch(*M, params(Buf, Buf, Buf, 16));
      E = R ? llvm::Error::success() : R.takeError();
    }
    Failure Fl = failure(std::move(E));
    std::string Want = C.Message;
    if (auto At = Want.find('@'); At != std::string::npos)
      Want.replace(At, 1, hex(Buf));
    EXPECT_EQ(Fl.Message, Want);
    EXPECT_EQ(Fl.Exit, C.Exit);
    EXPECT_EQ(F.LiveEvents(), 0); // events are destroyed on every path
    if (Step == "alloc") {
      EXPECT_EQ(F.LiveAllocations(), 0); // nothing is left behind by a failed alloc
    }
    F.Fail(C.Call, 0);
  }
}

// Debian's libamdhip64 (ROCm 5.2) on a machine without an AMD GPU: a clean error, no crash.
TEST(HipReal, DebianRuntimeWithoutGpu) {
  const char *Lib = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5";
  struct stat S;
  if (stat(Lib, &S) != 0)
    GTEST_SKIP() << Lib << " is not installed";
  ScopedEnv Env("ASMEVO_HIP_LIBRARY", Lib);
  auto D = openDevice("hip", "gfx942");
  if (D)
    GTEST_SKIP() << "an AMD GPU is usable here: " << (*D)->info().Name;
  Failure Fl = failure(D.takeError());
  if (Fl.Message.rfind("the GPU", 0) == 0)
    GTEST_SKIP() << "an AMD GPU of another processor is here: " << Fl.Message;
  EXPECT_EQ(Fl.Message.rfind("no AMD GPU found: hipGetDeviceCount returned ", 0), 0u) << Fl.Message;
  EXPECT_EQ(Fl.Exit, 2);
  // auto falls back to the emulator.
  auto A = openDevice("auto", "gfx942");
  ASSERT_TRUE(bool(A));
  EXPECT_EQ((*A)->info().Backend, "emu");
}

} // namespace
