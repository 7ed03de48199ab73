// The device interface with the emu backend: memory, module loading, a launch, and the
// backend-choice errors.
#include "emu/EmuHarness.h"

#include "device/Device.h"

using namespace asmevo;
using namespace asmevo::device;

namespace {

TEST(Device, BackendChoice) {
  const char *Old = std::getenv("ASMEVO_HIP_LIBRARY");
  std::string Saved = Old ? Old : "";
  // Deterministic: a HIP runtime that is not there.
  setenv("ASMEVO_HIP_LIBRARY", "/nonexistent/libamdhip64.so", 1);
  auto Hip = openDevice("hip", "gfx942");
  ASSERT_FALSE(bool(Hip));
  EXPECT_EQ(llvm::toString(Hip.takeError()),
            "no ROCm runtime found: /nonexistent/libamdhip64.so: cannot open shared object "
            "file: No such file or directory");
  auto Bad = openDevice("cuda", "gfx942");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()), "unknown backend 'cuda' (emu, hip or auto)");
  auto Auto = openDevice("auto", "gfx942");
  ASSERT_TRUE(bool(Auto));
  EXPECT_EQ((*Auto)->info().Backend, "emu");
  EXPECT_EQ((*Auto)->info().Name, "CPU emulator (gfx942, wave64)");
  EXPECT_FALSE((*Auto)->info().Hardware);
  // Deterministic: the fake runtime of hip_device_test (one gfx942 GPU).
  setenv("ASMEVO_HIP_LIBRARY", ASMEVO_FAKE_HIP, 1);
  auto Fake = openDevice("hip", "gfx942");
  ASSERT_TRUE(bool(Fake)) << llvm::toString(Fake.takeError());
  EXPECT_EQ((*Fake)->info().Backend, "hip");
  EXPECT_TRUE((*Fake)->info().Hardware);
  auto AutoFake = openDevice("auto", "gfx942");
  ASSERT_TRUE(bool(AutoFake));
  EXPECT_EQ((*AutoFake)->info().Backend, "hip");
  // Whatever this machine has: the default library names. Without an AMD GPU (CI, and here with
  // Debian's libamdhip64 installed) hip is refused with one of the two input errors, and auto
  // is the emulator.
  unsetenv("ASMEVO_HIP_LIBRARY");
  auto Here = openDevice("hip", "gfx942");
  if (!Here) {
    std::string M = llvm::toString(Here.takeError());
    EXPECT_TRUE(M.rfind("no AMD GPU found: hipGetDeviceCount returned ", 0) == 0 ||
                M.rfind("no ROCm runtime found: ", 0) == 0 || M.rfind("the GPU", 0) == 0)
        << M;
    auto AutoHere = openDevice("auto", "gfx942");
    ASSERT_TRUE(bool(AutoHere));
    EXPECT_EQ((*AutoHere)->info().Backend, "emu");
  }
  if (Old)
    setenv("ASMEVO_HIP_LIBRARY", Saved.c_str(), 1);
}

TEST(Device, MemoryAndLaunch) {
  auto O = openCodeObject(emu::test::tritonObject("gfx90a", "vector_add_fp32"));
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  auto D = llvm::cantFail(openDevice("emu", "gfx90a"));
  auto M = D->load((*O)->C);
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  std::vector<float> X(2000), Y(2000);
  for (unsigned I = 0; I < 2000; ++I) {
    X[I] = float(I);
    Y[I] = 0.5f * float(I);
  }
  uint64_t PX = llvm::cantFail(D->alloc(8000, "x")), PY = llvm::cantFail(D->alloc(8000, "y"));
  const uint64_t PO = 0x7ffe40000000ull;
  ASSERT_FALSE(bool(D->allocAt(PO, 8192, "out")));
  auto Again = D->allocAt(PO + 4096, 16, "again");
  ASSERT_TRUE(bool(Again));
  llvm::consumeError(std::move(Again));
  ASSERT_FALSE(bool(D->write(PX, X.data(), 8000)));
  ASSERT_FALSE(bool(D->write(PY, Y.data(), 8000)));
  auto Sig = llvm::cantFail(kernelSignature((*O)->C, (*O)->C.Kernels[0]));
  LaunchParams P;
  P.Kernel = "add_kernel";
  P.Block = {256, 1, 1};
  P.GridItems = {512, 1, 1};
  P.Kernarg.assign(Sig.KernargSize, 0);
  auto put = [&](unsigned I, auto V) {
    std::memcpy(&P.Kernarg[Sig.explicitArgs()[I]->Offset], &V, sizeof(V));
  };
  put(0, PX);
  put(1, PY);
  put(2, PO);
  put(3, int32_t(2000));
  auto R = D->launch(**M, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Workgroups, 2u);
  EXPECT_EQ(R->Waves, 8u);
  std::vector<float> Out(2048);
  ASSERT_FALSE(bool(D->read(PO, Out.data(), 8192)));
  for (unsigned I = 0; I < 2000; ++I)
    ASSERT_EQ(Out[I], 1.5f * float(I)) << I;
  for (unsigned I = 2000; I < 2048; ++I)
    ASSERT_EQ(Out[I], 0.0f) << I;
  ASSERT_FALSE(bool(D->free(PO)));
  auto Gone = D->read(PO, Out.data(), 4);
  ASSERT_TRUE(bool(Gone));
  EXPECT_EQ(llvm::toString(std::move(Gone)),
            "device read of 4 bytes at 0x7ffe40000000 is outside every allocation");
}

} // namespace

namespace {

// Footprint recording: the vector add touches exactly n elements of each buffer.
TEST(DeviceMemory, FootprintTracking) {
  emu::test::Harness H(emu::test::tritonObject("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(H.ok()) << H.Error;
  uint64_t X = H.buffer(nullptr, 1 << 16), Y = H.buffer(nullptr, 1 << 16),
           O = H.buffer(nullptr, 1 << 16);
  H.arg(0, X);
  H.arg(1, Y);
  H.arg(2, O);
  H.arg(3, int32_t(3000));
  H.arg(4, uint64_t(0));
  H.arg(5, uint64_t(0));
  H.Mem.setTracking(true);
  ASSERT_TRUE(bool(H.run({3, 1, 1}, {256, 1, 1}, 0)));
  for (uint64_t B : {X, Y, O}) {
    const emu::Allocation *A = H.Mem.find(B);
    ASSERT_NE(A, nullptr);
    EXPECT_EQ(A->TouchLo.load(), 0u);
    EXPECT_EQ(A->TouchHi.load(), 3000u * 4);
  }
  H.Mem.resetTouched();
  H.Mem.setTracking(false);
  ASSERT_TRUE(bool(H.run({3, 1, 1}, {256, 1, 1}, 0)));
  EXPECT_GT(H.Mem.find(X)->TouchLo.load(), H.Mem.find(X)->TouchHi.load());
}

} // namespace

namespace {

// The same through the Device interface (what launch inference uses): a launch with
// TrackFootprint reports, per allocation made with alloc, exactly the bytes the kernel touched;
// one without reports none. The hip backend says it cannot.
TEST(Device, FootprintThroughTheInterface) {
  auto O = openCodeObject(emu::test::tritonObject("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  auto D = llvm::cantFail(openDevice("emu", "gfx942"));
  EXPECT_TRUE(D->info().TracksFootprint);
  auto M = llvm::cantFail(D->load((*O)->C));
  uint64_t PX = llvm::cantFail(D->alloc(1 << 16, "x")), PY = llvm::cantFail(D->alloc(1 << 16, "y"));
  uint64_t PO = llvm::cantFail(D->alloc(1 << 16, "out")),
           Unused = llvm::cantFail(D->alloc(64, "unused"));
  auto Sig = llvm::cantFail(kernelSignature((*O)->C, (*O)->C.Kernels[0]));
  LaunchParams P;
  P.Kernel = "add_kernel";
  P.Block = {256, 1, 1};
  P.GridItems = {768, 1, 1};
  P.Kernarg.assign(Sig.KernargSize, 0);
  auto put = [&](unsigned I, auto V) {
    std::memcpy(&P.Kernarg[Sig.explicitArgs()[I]->Offset], &V, sizeof(V));
  };
  put(0, PX);
  put(1, PY);
  put(2, PO);
  put(3, int32_t(700));
  P.TrackFootprint = true;
  auto R = D->launch(*M, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Footprints.size(), 4u);
  for (const Footprint &F : R->Footprints) {
    if (F.Base == Unused) {
      EXPECT_FALSE(F.Touched);
      continue;
    }
    EXPECT_TRUE(F.Base == PX || F.Base == PY || F.Base == PO);
    EXPECT_TRUE(F.Touched);
    EXPECT_EQ(F.Lo, 0u);
    EXPECT_EQ(F.Hi, 700u * 4);
  }
  ASSERT_FALSE(bool(D->free(Unused)));
  P.TrackFootprint = false;
  auto R2 = D->launch(*M, P);
  ASSERT_TRUE(bool(R2)) << llvm::toString(R2.takeError());
  EXPECT_TRUE(R2->Footprints.empty());

  const char *Old = std::getenv("ASMEVO_HIP_LIBRARY");
  std::string Saved = Old ? Old : "";
  setenv("ASMEVO_HIP_LIBRARY", ASMEVO_FAKE_HIP, 1);
  auto Hip = openDevice("hip", "gfx942");
  ASSERT_TRUE(bool(Hip)) << llvm::toString(Hip.takeError());
  EXPECT_FALSE((*Hip)->info().TracksFootprint);
  auto HM = (*Hip)->load((*O)->C);
  ASSERT_TRUE(bool(HM)) << llvm::toString(HM.takeError());
  P.TrackFootprint = true;
  auto HR = (*Hip)->launch(**HM, P);
  ASSERT_FALSE(bool(HR));
  EXPECT_EQ(llvm::toString(HR.takeError()),
            "the hip backend cannot record which bytes a kernel touches (launch inference runs "
            "on the emu backend)");
  if (Old)
    setenv("ASMEVO_HIP_LIBRARY", Saved.c_str(), 1);
  else
    unsetenv("ASMEVO_HIP_LIBRARY");
}

} // namespace
