// The timing model against cycle counts worked out by hand for small hand-written gfx942
// kernels, with a parameter file of round figures (no launch overhead, 200-cycle scalar misses,
// 500-cycle HBM, 64 B/clk L1, 2 clocks per 128-byte line). Each case's timeline is in its
// comment: a wave on SIMD 0 is offered an issue slot at clocks 0, 4, 8, ...; the second wave of
// a workgroup sits on SIMD 1 (slots 1, 5, 9, ...); a wave ends one slot (4 clocks) after it
// issues s_endpgm.
#include "asm/AsmFixture.h"
#include "device/Device.h"
#include "timing/HotWindows.h"
#include "timing/Model.h"
#include "timing/TargetParams.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace asmevo;
using namespace asmevo::timing;

namespace {

// A gfx942 kernel `k` with one pointer argument (s[0:1] = kernarg pointer) and Body.
std::string kernel(const std::string &Body, unsigned Vgprs = 8, unsigned Accum = 8,
                   unsigned Lds = 0) {
  return test::kernelSource("gfx942", Body, Vgprs, Accum, /*Buffer=*/true, Lds);
}

// The shipped gfx942 figures with the ones the hand counts use replaced.
TargetParams params() {
  auto P = readTargetParams(std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing/gfx942.json");
  EXPECT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::map<std::string, double> Round = {{"launch_overhead_clk", 0},
                                         {"scalar_cache_latency_clk", 20},
                                         {"scalar_miss_latency_clk", 200},
                                         {"l1_line_bytes", 128},
                                         {"l1_bytes_per_clk", 64},
                                         {"l1_latency_clk", 100},
                                         {"l2_bytes_per_clk", 128},
                                         {"l2_latency_clk", 250},
                                         {"mall_bytes", 0},
                                         {"hbm_latency_clk", 500},
                                         {"hbm_bytes_per_clk", 64},
                                         {"hbm_efficiency", 1},
                                         {"lds_bytes_per_clk", 128},
                                         {"lds_latency_clk", 50},
                                         {"lds_banks", 32},
                                         {"barrier_latency_clk", 20},
                                         {"branch_taken_clk", 32}};
  for (auto &[Name, V] : Round)
    P->Figures[Name].Value = V;
  return std::move(*P);
}

struct Modeled {
  ModelResult R;
  bool Ok = false;
};

// Model one workgroup of Block work-items of kernel(Body) with a 64 KiB buffer argument.
Modeled model(const std::string &Body, unsigned Block = 64, bool Profile = false,
              unsigned Vgprs = 8, unsigned Accum = 8) {
  Modeled Out;
  auto B = test::build(kernel(Body, Vgprs, Accum), "k.s");
  if (!B)
    return Out;
  auto Dev = device::createEmuDevice("gfx942");
  auto M = Dev->load(B->C);
  EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
  if (!M)
    return Out;
  auto Buf = Dev->alloc(65536, "buf");
  EXPECT_TRUE(bool(Buf));
  std::vector<uint8_t> Zero(65536, 0);
  EXPECT_FALSE(bool(Dev->write(*Buf, Zero.data(), Zero.size())));
  device::LaunchParams P;
  P.Kernel = "k";
  P.GridItems = {Block, 1, 1};
  P.Block = {Block, 1, 1};
  P.Kernarg.resize(8);
  std::memcpy(P.Kernarg.data(), &*Buf, 8);
  ModelOptions O;
  O.Profile = Profile;
  auto R = modelLaunch(*Dev, **M, P, params(), O);
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  if (!R)
    return Out;
  Out.R = std::move(*R);
  Out.Ok = true;
  return Out;
}

TEST(Model, SNopHoldsTheWave) {
  // 0: s_nop 7 (8 wait states = 8 slots: ready at 32); 32: s_endpgm; ends at 36.
  Modeled X = model("\ts_nop 7\n");
  ASSERT_TRUE(X.Ok);
  EXPECT_EQ(X.R.Cycles, 36);
  EXPECT_EQ(X.R.Total.Issue, 8);       // two issue slots
  EXPECT_EQ(X.R.Total.Dependency, 28); // 4..32
  EXPECT_EQ(totalCycles(X.R.Total), 36);
}

TEST(Model, FullRateValu) {
  // 0, 4, 8: v_add_f32; 12: s_endpgm; ends at 16. Dependent or not: CDNA's 4-clock cadence.
  Modeled X = model("\tv_add_f32_e32 v1, v1, v1\n\tv_add_f32_e32 v1, v1, v1\n"
                    "\tv_add_f32_e32 v1, v1, v1\n");
  ASSERT_TRUE(X.Ok);
  EXPECT_EQ(X.R.Cycles, 16);
  EXPECT_EQ(X.R.Total.Issue, 16);
}

TEST(Model, TwoWavesOnTwoSimds) {
  // Wave 0 (SIMD 0): slots 0..12, ends at 16; wave 1 (SIMD 1): slots 1..13, ends at 17.
  Modeled X = model("\tv_add_f32_e32 v1, v1, v1\n\tv_add_f32_e32 v1, v1, v1\n"
                    "\tv_add_f32_e32 v1, v1, v1\n",
                    128);
  ASSERT_TRUE(X.Ok);
  EXPECT_EQ(X.R.Cycles, 17);
  EXPECT_EQ(X.R.WavesPerGroup, 2u);
}

TEST(Model, MfmaOccupiesTheMatrixCore) {
  // v_mfma_f32_32x32x8_f16 is 8 passes on gfx942 (LLVM): the matrix core is busy 0..32.
  // 0: mfma; 4: the second waits (unit busy) until 32; 36: s_endpgm; ends at 40.
  Modeled X = model("\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], 0\n"
                    "\tv_mfma_f32_32x32x8_f16 a[16:31], v[0:1], v[2:3], 0\n",
                    64, false, 40, 8);
  ASSERT_TRUE(X.Ok);
  EXPECT_EQ(X.R.Cycles, 40);
  EXPECT_EQ(X.R.Total.UnitBusy, 28);
}

TEST(Model, LoadsWaitForTheirLines) {
  // 0: v_lshlrev (byte offsets, 256 B = 2 lines); 4: s_load (scalar miss: done 204);
  // 8: s_waitcnt lgkmcnt(0) waits until 204; 208: global_load_dword: lines at 208 and 210
  // (2 clk per line), both miss L1 and L2; HBM at 64 B/clk serves line 0 at 208 (done 708)
  // and line 1 at 210 (done 710); 212: s_waitcnt vmcnt(0) waits until 710; the next slot is
  // 712; 716: s_endpgm; ends at 720.
  Modeled X = model("\tv_lshlrev_b32_e32 v0, 2, v0\n"
                    "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\tglobal_load_dword v1, v0, s[2:3]\n"
                    "\ts_waitcnt vmcnt(0)\n",
                    64, true);
  ASSERT_TRUE(X.Ok);
  EXPECT_EQ(X.R.Cycles, 720);
  EXPECT_EQ(X.R.Total.WaitLgkm, 196); // 8..204
  EXPECT_EQ(X.R.Total.WaitVm, 500);   // 212..712
  ASSERT_EQ(X.R.Insts.size(), 6u);
  EXPECT_EQ(X.R.Insts[4].Text, "s_waitcnt vmcnt(0)");
  EXPECT_EQ(totalCycles(X.R.Insts[4].Cycles), 504); // waiting, then its issue slot
  auto W = hotWindows(X.R.Insts, 3);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0].Instructions, 6u);
  EXPECT_EQ(W[0].WaitsOn, (std::vector<std::string>{"vmcnt", "lgkmcnt"}));
}

TEST(Model, LdsBankConflictsSerialise) {
  // ds_read_b32 of 64 lanes: 4 chunks of 16 lanes (a 64 B/clk port). Lane stride 4 B: one
  // dword per bank, 1 clock a chunk. Lane stride 128 B: all 16 in bank 0, 16 clocks a chunk:
  // 64 clocks, 60 more, all of them waited for by s_waitcnt lgkmcnt(0).
  // The LDS comes from the descriptor: a kernel with an 8 KiB group segment.
  auto Build = [](const char *Shift) {
    return kernel(std::string("\tv_lshlrev_b32_e32 v0, ") + Shift +
                      ", v0\n\tds_read_b32 v1, v0\n\ts_waitcnt lgkmcnt(0)\n",
                  8, 8, 8192);
  };
  double Cycles[2] = {0, 0}, Conflict[2] = {0, 0};
  const char *Shifts[2] = {"2", "7"};
  for (int I = 0; I < 2; ++I) {
    auto B = test::build(Build(Shifts[I]), "k.s");
    ASSERT_TRUE(B);
    auto Dev = device::createEmuDevice("gfx942");
    auto M = Dev->load(B->C);
    ASSERT_TRUE(bool(M));
    device::LaunchParams P;
    P.Kernel = "k";
    P.GridItems = {64, 1, 1};
    P.Block = {64, 1, 1};
    P.Kernarg.resize(8);
    auto R = modelLaunch(*Dev, **M, P, params());
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    Cycles[I] = R->Cycles;
    Conflict[I] = R->Total.LdsConflict;
  }
  EXPECT_EQ(Conflict[0], 0);
  EXPECT_EQ(Conflict[1], 60);
  EXPECT_EQ(Cycles[1] - Cycles[0], 60);
  // Stride 4: ds_read at 4 takes the port 4..8, returns at 8 + 50 = 58; the wait issues at 60;
  // s_endpgm at 64; ends at 68.
  EXPECT_EQ(Cycles[0], 68);
}

TEST(Model, BarrierReleasesWhenAllArrive) {
  // Two waves (SIMDs 0 and 1). A: wave 0 arrives at 0, wave 1 at 1: released at 1 + 20 = 21;
  // s_endpgm at wave 0's next slot, 24, and wave 1's, 21; ends at 28. B: both first hold 16
  // slots (s_nop 15): arrivals at 64 and 65, everything 64 clocks later.
  Modeled A = model("\ts_barrier\n", 128);
  Modeled B = model("\ts_nop 15\n\ts_barrier\n", 128);
  ASSERT_TRUE(A.Ok && B.Ok);
  EXPECT_EQ(A.R.Cycles, 28);
  EXPECT_GT(A.R.Total.Barrier, 0);
  EXPECT_EQ(B.R.Cycles, 28 + 64);
}

TEST(Model, RunningOnlyTheSampleGivesTheSameFigures) {
  // 2000 workgroups, more than the 256 simulated: with RunSampleOnly only the sampled ones are
  // emulated, and the figures do not change (the model reads nothing else).
  auto B = test::build(kernel("\tv_lshlrev_b32_e32 v0, 2, v0\n"
                              "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                              "\ts_waitcnt lgkmcnt(0)\n"
                              "\tglobal_load_dword v1, v0, s[2:3]\n"
                              "\ts_waitcnt vmcnt(0)\n"),
                       "k.s");
  ASSERT_TRUE(B);
  ModelResult R[2];
  for (int Only = 0; Only < 2; ++Only) {
    auto Dev = device::createEmuDevice("gfx942");
    auto M = Dev->load(B->C);
    ASSERT_TRUE(bool(M));
    auto Buf = Dev->alloc(65536, "buf");
    ASSERT_TRUE(bool(Buf));
    std::vector<uint8_t> Zero(65536, 0);
    std::memcpy(Zero.data(), &*Buf, 8); // s_load reads the buffer's own address
    ASSERT_FALSE(bool(Dev->write(*Buf, Zero.data(), Zero.size())));
    device::LaunchParams P;
    P.Kernel = "k";
    P.GridItems = {64 * 2000, 1, 1};
    P.Block = {64, 1, 1};
    P.Kernarg.resize(8);
    std::memcpy(P.Kernarg.data(), &*Buf, 8);
    ModelOptions O;
    O.RunSampleOnly = Only;
    auto X = modelLaunch(*Dev, **M, P, params(), O);
    ASSERT_TRUE(bool(X)) << llvm::toString(X.takeError());
    R[Only] = std::move(*X);
  }
  EXPECT_EQ(R[0].Groups, 2000u);
  EXPECT_EQ(R[0].EmulatedGroups, 2000u);
  EXPECT_LE(R[1].SimulatedGroups, 256u);
  EXPECT_EQ(R[1].EmulatedGroups, R[1].SimulatedGroups);
  EXPECT_EQ(R[1].SimulatedGroups, R[0].SimulatedGroups);
  EXPECT_EQ(R[1].Cycles, R[0].Cycles);
  EXPECT_EQ(totalCycles(R[1].Total), totalCycles(R[0].Total));
  EXPECT_EQ(R[1].Total.WaitVm, R[0].Total.WaitVm);
}

} // namespace
