// The timing model against cycle counts worked out by hand for small hand-written gfx942
// kernels, with a parameter file of round figures (no launch overhead, 200-cycle scalar misses,
// 500-cycle HBM, 64 B/clk L1, 2 clocks per 128-byte line). Each case's timeline is in its
// comment: a wave on SIMD 0 is offered an issue slot at clocks 0, 4, 8, ...; the second wave of
// a workgroup sits on SIMD 1 (slots 1, 5, 9, ...); a wave ends one slot (4 clocks) after it
// issues s_endpgm. Then the known-direction tests (issue 38): edits whose effect on hardware is
// known in direction, on hand-written kernels with the instruction patterns of AITer's attention
// (loads into LDS prefetching the next tile while ds_reads and MFMAs use this one), a vector
// add, an MFMA loop on more or fewer CUs and loads with cache-policy bits.
#include "asm/AsmFixture.h"
#include "device/Device.h"
#include "timing/HotWindows.h"
#include "timing/Model.h"
#include "timing/TargetParams.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>

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
  std::map<std::string, double> Round = {{"launch_overhead_us", 0},
                                         {"kernel_fixed_us", 0},
                                         {"scalar_cache_latency_clk", 20},
                                         {"scalar_miss_latency_clk", 200},
                                         {"l1_line_bytes", 128},
                                         {"l1_bytes_per_clk", 64},
                                         {"vmem_issue_clk", 4},
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
              unsigned Vgprs = 8, unsigned Accum = 8, double VmemIssueClk = 4) {
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
  TargetParams Tp = params();
  Tp.Figures["vmem_issue_clk"].Value = VmemIssueClk;
  auto R = modelLaunch(*Dev, **M, P, Tp, O);
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

TEST(Model, VectorMemoryInstructionsIssueAtTheCusRate) {
  // Eight loads of eight lines each (all misses, 2 lines each) after the same prologue as
  // LoadsWaitForTheirLines: at one issue cycle per instruction they issue 4 clocks apart (the
  // wave's own cadence); with the texture addresser taking 16 clocks each, 16 apart. The last
  // one decides when vmcnt(0) is met: 7 x 12 = 84 clocks later.
  std::string Body = "\tv_lshlrev_b32_e32 v0, 2, v0\n"
                     "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                     "\ts_waitcnt lgkmcnt(0)\n";
  for (unsigned K = 0; K < 8; ++K)
    Body += "\tglobal_load_dword v" + std::to_string(1 + K) +
            ", v0, s[2:3] offset:" + std::to_string(256 * K) + "\n";
  Body += "\ts_waitcnt vmcnt(0)\n";
  Modeled Fast = model(Body, 64, false, 16, 8, 4);
  Modeled Slow = model(Body, 64, false, 16, 8, 16);
  ASSERT_TRUE(Fast.Ok && Slow.Ok);
  EXPECT_EQ(Slow.R.Cycles - Fast.R.Cycles, 84);
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

// ---------------------------------------------------------------------------------------------
// Known-direction tests (issue 38).

// The fixture's kernel with room for a block of 512 work-items and 32 SGPRs.
std::string bigKernel(const std::string &Target, const std::string &Body, unsigned Vgprs,
                      unsigned Accum, unsigned Lds = 0) {
  std::string S = test::kernelSource(Target, Body, Vgprs, Accum, /*Buffer=*/true, Lds);
  for (auto [From, To] : {std::pair<std::string, std::string>{".amdhsa_next_free_sgpr 16",
                                                              ".amdhsa_next_free_sgpr 32"},
                          {".sgpr_count: 16", ".sgpr_count: 32"},
                          {".max_flat_workgroup_size: 256", ".max_flat_workgroup_size: 512"}}) {
    size_t At = S.find(From);
    EXPECT_NE(At, std::string::npos) << From;
    if (At != std::string::npos)
      S.replace(At, From.size(), To);
  }
  return S;
}

// Model Groups workgroups of Block work-items of Source on T, its argument a zeroed buffer of
// Bytes; only the sampled workgroups (at most MaxSimulated) run.
ModelResult modelGrid(const std::string &Target, const std::string &Source, uint32_t Groups,
                      uint32_t Block, uint64_t Bytes, const TargetParams &T,
                      uint64_t MaxSimulated = 256) {
  ModelResult Out;
  auto B = test::build(Source, "k.s", Target);
  EXPECT_TRUE(bool(B));
  if (!B)
    return Out;
  auto Dev = device::createEmuDevice(Target);
  auto M = Dev->load(B->C);
  EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
  if (!M)
    return Out;
  auto Buf = Dev->alloc(Bytes, "buf");
  EXPECT_TRUE(bool(Buf));
  std::vector<uint8_t> Zero(Bytes, 0);
  EXPECT_FALSE(bool(Dev->write(*Buf, Zero.data(), Zero.size())));
  device::LaunchParams P;
  P.Kernel = "k";
  P.GridItems = {Groups * Block, 1, 1};
  P.Block = {Block, 1, 1};
  P.Kernarg.resize(8);
  std::memcpy(P.Kernarg.data(), &*Buf, 8);
  ModelOptions O;
  O.MaxSimulatedGroups = MaxSimulated;
  O.RunSampleOnly = true;
  auto R = modelLaunch(*Dev, **M, P, T, O);
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  if (R)
    Out = std::move(*R);
  return Out;
}

// AITer's attention forward pattern in miniature (hsa/gfx942/fmha_v3_fwd/MI300/
// fwd_hd128_bf16_rtne.co's main loop): 8 waves; each iteration every wave reads this tile of LDS
// with 16 ds_read_b64 and runs 24 MFMAs, while its 4 `buffer_load_dword ... lds` (each after an
// `s_add_u32 m0`, as in AITer) fetch its KiB of the tile after next into a third LDS buffer
// (prefetch distance 2); before each barrier s_waitcnt vmcnt(Wait): 4 waits for the next tile
// only, leaving this iteration's loads in flight. As in AITer's kernel, the LDS reads are not
// the loop's critical path: waves 4-7 run their MFMAs before their reads, waves 0-3 after, so
// one group reads while the other keeps the matrix cores busy. Order: where the loads go among
// the ds_reads (AITer: one after every 4).
enum class Order { Interleaved, LoadsFirst, LoadsLast };
std::string prefetchLoop(Order O, int Wait, unsigned Iterations) {
  auto Loads = [](const std::string &Buffer) {
    std::string L = "\ts_add_u32 m0, " + Buffer + ", s21\n\ts_nop 0\n";
    for (int J = 0; J < 4; ++J)
      L += "\tbuffer_load_dword v" + std::to_string(4 + J) +
           ", s[8:11], s12 offen lds\n\ts_add_u32 m0, 0x100, m0\n\ts_nop 0\n";
    return L + "\ts_add_u32 s12, s12, 0x2000\n\ts_and_b32 s12, s12, 0xffff\n";
  };
  std::string B = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                  "\tv_lshrrev_b32_e32 v8, 6, v0\n"
                  "\tv_readfirstlane_b32 s20, v8\n"
                  "\tv_and_b32_e32 v9, 63, v0\n"
                  "\tv_lshlrev_b32_e32 v2, 3, v9\n"
                  "\tv_lshlrev_b32_e32 v4, 2, v9\n"
                  "\tv_add_u32_e32 v5, 0x100, v4\n"
                  "\tv_add_u32_e32 v6, 0x200, v4\n"
                  "\tv_add_u32_e32 v7, 0x300, v4\n"
                  "\ts_lshl_b32 s21, s20, 10\n"
                  "\ts_mov_b32 s12, s21\n"
                  "\ts_mov_b32 s14, 0\n\ts_mov_b32 s15, 0x2000\n\ts_mov_b32 s16, 0x4000\n"
                  "\ts_mov_b32 s13, " +
                  std::to_string(Iterations) +
                  "\n\ts_waitcnt lgkmcnt(0)\n"
                  "\ts_mov_b32 s8, s2\n\ts_and_b32 s9, s3, 0xffff\n"
                  "\ts_mov_b32 s10, 0x10000\n\ts_mov_b32 s11, 0x20000\n" +
                  Loads("s14") + Loads("s15") + "\ts_waitcnt vmcnt(4)\n\ts_barrier\n.Lloop:\n";
  std::string Reads[4], Prefetch[4], Mfma;
  for (int G = 0; G < 4; ++G) {
    for (int I = 4 * G; I < 4 * G + 4; ++I)
      Reads[G] += "\tds_read_b64 v[" + std::to_string(20 + 2 * I) + ":" +
                  std::to_string(21 + 2 * I) + "], v3 offset:" + std::to_string(256 * I) + "\n";
    Prefetch[G] = "\tbuffer_load_dword v" + std::to_string(4 + G) +
                  ", s[8:11], s12 offen lds\n\ts_add_u32 m0, 0x100, m0\n";
  }
  for (unsigned K = 0; K < 24; ++K) {
    std::string A =
        "a[" + std::to_string(16 * (K % 4)) + ":" + std::to_string(16 * (K % 4) + 15) + "]";
    unsigned V = 20 + 4 * (K % 8);
    Mfma += "\tv_mfma_f32_32x32x8_f16 " + A + ", v[" + std::to_string(V) + ":" +
            std::to_string(V + 1) + "], v[" + std::to_string(V + 2) + ":" + std::to_string(V + 3) +
            "], " + A + "\n";
  }
  B += "\ts_cmp_lt_u32 s20, 4\n\ts_cbranch_scc1 .Lreads\n" + Mfma + ".Lreads:\n";
  B += "\ts_add_u32 m0, s16, s21\n\tv_add_u32_e32 v3, s14, v2\n";
  for (int G = 0; G < 4; ++G)
    B += O == Order::Interleaved  ? Reads[G] + Prefetch[G]
         : O == Order::LoadsFirst ? Prefetch[G]
                                  : Reads[G];
  for (int G = 0; G < 4 && O != Order::Interleaved; ++G)
    B += O == Order::LoadsFirst ? Reads[G] : Prefetch[G];
  B += "\ts_waitcnt lgkmcnt(0)\n\ts_cmp_lt_u32 s20, 4\n\ts_cbranch_scc0 .Ldone\n" + Mfma +
       ".Ldone:\n"
       "\ts_add_u32 s12, s12, 0x2000\n\ts_and_b32 s12, s12, 0xffff\n"
       "\ts_waitcnt vmcnt(" +
       std::to_string(Wait) +
       ")\n\ts_barrier\n"
       "\ts_mov_b32 s17, s14\n\ts_mov_b32 s14, s15\n\ts_mov_b32 s15, s16\n\ts_mov_b32 s16, s17\n"
       "\ts_sub_u32 s13, s13, 1\n\ts_cmp_lg_u32 s13, 0\n\ts_cbranch_scc1 .Lloop\n";
  return bigKernel("gfx942", B, 160, 96, 3 * 8192);
}

ModelResult modelPrefetch(Order O, int Wait) {
  return modelGrid("gfx942", prefetchLoop(O, Wait, 8), 1, 512, 65536, params());
}

TEST(ModelDirection, RegroupingLoadsIntoLdsAroundDsReadsChangesLittle) {
  // Moving the 4 loads into LDS before (or after) the 16 ds_reads should change little on
  // hardware: the loads' data is written into LDS when it returns, a few clocks of the port
  // each. A model that holds the LDS port from a load's issue to its return makes every
  // ds_read behind an in-flight load wait for memory, and the regroupings look 1.3-1.8x faster
  // (AITer's attention forward, issue 38).
  // What is left is the order's own cost: moved first, the loads and their m0 updates take
  // 8 issue slots of each wave before its first ds_read.
  ModelResult K0 = modelPrefetch(Order::Interleaved, 4);
  ModelResult First = modelPrefetch(Order::LoadsFirst, 4);
  ModelResult Last = modelPrefetch(Order::LoadsLast, 4);
  ASSERT_GT(K0.Cycles, 0);
  RecordProperty("loads_first_over_k0", std::to_string(First.Cycles / K0.Cycles));
  RecordProperty("loads_last_over_k0", std::to_string(Last.Cycles / K0.Cycles));
  EXPECT_NEAR(First.Cycles / K0.Cycles, 1, 0.04) << K0.Cycles << " " << First.Cycles;
  EXPECT_NEAR(Last.Cycles / K0.Cycles, 1, 0.04) << K0.Cycles << " " << Last.Cycles;
}

TEST(ModelDirection, ForcingThePrefetchToLandBeforeEachBarrierIsSlower) {
  // vmcnt(4) -> vmcnt(0): each iteration now waits for the loads it just issued, a memory
  // latency (250 clocks for an L2 hit here, 500 from HBM) that the prefetch distance hid.
  ModelResult K0 = modelPrefetch(Order::Interleaved, 4);
  ModelResult Sync = modelPrefetch(Order::Interleaved, 0);
  ASSERT_GT(K0.Cycles, 0);
  RecordProperty("sync_over_k0", std::to_string(Sync.Cycles / K0.Cycles));
  EXPECT_GT(Sync.Cycles / K0.Cycles, 1.1) << K0.Cycles << " " << Sync.Cycles;
}

// A vector add c = a + b over Groups workgroups of 256 (a, b and c in one buffer); WaitEach
// adds s_waitcnt vmcnt(0) after the first load, so the second waits for it.
std::string vectorAdd(uint32_t Groups, bool WaitEach) {
  std::string N4 = std::to_string(uint64_t(Groups) * 256 * 4);
  std::string B = "\ts_load_dwordx2 s[4:5], s[0:1], 0x0\n"
                  "\ts_lshl_b32 s3, s2, 8\n"
                  "\tv_add_u32_e32 v1, s3, v0\n"
                  "\tv_lshlrev_b32_e32 v1, 2, v1\n"
                  "\ts_waitcnt lgkmcnt(0)\n"
                  "\ts_add_u32 s6, s4, " +
                  N4 + "\n\ts_addc_u32 s7, s5, 0\n\ts_add_u32 s8, s6, " + N4 +
                  "\n\ts_addc_u32 s9, s7, 0\n"
                  "\tglobal_load_dword v2, v1, s[4:5]\n" +
                  (WaitEach ? "\ts_waitcnt vmcnt(0)\n" : "") +
                  "\tglobal_load_dword v3, v1, s[6:7]\n"
                  "\ts_waitcnt vmcnt(0)\n"
                  "\tv_add_f32_e32 v2, v2, v3\n"
                  "\tglobal_store_dword v1, v2, s[8:9]\n";
  return bigKernel("gfx942", B, 8, 8);
}

TEST(ModelDirection, WaitingForEachLoadOfAVectorAddCostsOnlyWhenLatencyBound) {
  // On the shipped MI300X figures. A full launch (8 workgroups of 256 per CU on every CU) is
  // bound by HBM bandwidth: the serialised loads hide behind the other waves' traffic. One
  // workgroup per CU is bound by latency: two memory latencies instead of one.
  auto T = readTargetParams(std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing/gfx942.json");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  // The simulated time: the kernel's fixed GPU-side time (kernel_fixed_us) is the same for both.
  auto Run = [&](uint32_t Groups, bool WaitEach) {
    ModelResult R = modelGrid("gfx942", vectorAdd(Groups, WaitEach), Groups, 256,
                              uint64_t(Groups) * 256 * 12, *T);
    return R.KernelMicroseconds - R.KernelFixedMicroseconds;
  };
  double Full = Run(304 * 8, false), FullWait = Run(304 * 8, true);
  double One = Run(304, false), OneWait = Run(304, true);
  ASSERT_GT(Full, 0);
  ASSERT_GT(One, 0);
  RecordProperty("full_wait_over_full", std::to_string(FullWait / Full));
  RecordProperty("one_wait_over_one", std::to_string(OneWait / One));
  EXPECT_NEAR(FullWait / Full, 1, 0.05) << Full << " " << FullWait;
  EXPECT_GT(OneWait / One, 1.2) << One << " " << OneWait;
}

// Every wave of a 4-wave workgroup (one per SIMD) runs 16 MFMAs, or 64 full-rate VALU
// instructions.
std::string busyLoop(bool Mfma) {
  std::string B;
  for (int K = 0; K < (Mfma ? 16 : 64); ++K) {
    std::string A =
        "a[" + std::to_string(16 * (K % 4)) + ":" + std::to_string(16 * (K % 4) + 15) + "]";
    B += Mfma ? "\tv_mfma_f32_32x32x8_f16 " + A + ", v[0:1], v[2:3], " + A + "\n"
              : "\tv_add_f32_e32 v1, v1, v1\n";
  }
  return bigKernel("gfx942", B, 72, 8);
}

TEST(ModelDirection, DenseMfmaOnTwiceTheCusLowersTheClock) {
  // On MI300X, doubling the CUs busy with dense MFMA work made AITer's attention forward 1.62x
  // slower (128 to 256 workgroups, each CU doing the same work): the clock is power-limited.
  // The modeled clock falls with the device's MFMA load (Model.h), so twice the CUs take
  // longer; a kernel without MFMA work runs at the boost clock on any number of CUs.
  auto T = readTargetParams(std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing/gfx942.json");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  auto Run = [&](bool Mfma, uint32_t Groups) {
    return modelGrid("gfx942", busyLoop(Mfma), Groups, 256, 4096, *T, 32);
  };
  ModelResult Half = Run(true, 152), Full = Run(true, 304);
  ASSERT_GT(Half.KernelMicroseconds, 0);
  // The simulated times (the fixed GPU-side time, kernel_fixed_us, is the same for both).
  auto Simulated = [](const ModelResult &R) {
    return R.KernelMicroseconds - R.KernelFixedMicroseconds;
  };
  RecordProperty("full_over_half", std::to_string(Simulated(Full) / Simulated(Half)));
  EXPECT_EQ(Half.Cycles, Full.Cycles); // the same work per CU
  EXPECT_GT(Full.MfmaLoad, 0.8);
  EXPECT_NEAR(Half.MfmaLoad, Full.MfmaLoad / 2, 1e-9);
  EXPECT_LT(Full.ClockMHz, Half.ClockMHz);
  EXPECT_GT(Simulated(Full) / Simulated(Half), 1.15) << Half.ClockMHz << " " << Full.ClockMHz;
  EXPECT_EQ(Full.KernelFixedMicroseconds, 3.01);
  // At full load the clock is near the sustained MFMA clock (1207 MHz at load 1).
  EXPECT_NEAR(Full.ClockMHz, engineClock(*T, Full.MfmaLoad), 1e-9);
  EXPECT_LT(Full.ClockMHz, 1300);
  ModelResult VHalf = Run(false, 152), VFull = Run(false, 304);
  EXPECT_EQ(VHalf.MfmaLoad, 0);
  EXPECT_EQ(VFull.ClockMHz, 2100);
  EXPECT_EQ(VFull.KernelMicroseconds, VHalf.KernelMicroseconds);
}

TEST(ModelDirection, TheClockModel) {
  auto T = readTargetParams(std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing/gfx942.json");
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(engineClock(*T, 0), 2100);
  EXPECT_EQ(engineClock(*T, 1), 1207);
  // Below (1207 / 2100)^3 = 0.19 the power the load draws at boost is within the budget.
  EXPECT_EQ(engineClock(*T, 0.18), 2100);
  EXPECT_NEAR(engineClock(*T, 0.5), 1207 * std::cbrt(2.0), 1e-9);
}

// Two loads of the same 256 bytes, the second with cache-policy Bits; its latency is the L1's
// (100 clocks) or, bypassing the L1, the L2's (250).
double secondLoad(const std::string &Target, const std::string &Bits) {
  std::string Body = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                     "\tv_lshlrev_b32_e32 v0, 2, v0\n"
                     "\ts_waitcnt lgkmcnt(0)\n"
                     "\tglobal_load_dword v1, v0, s[2:3]\n"
                     "\ts_waitcnt vmcnt(0)\n"
                     "\tglobal_load_dword v1, v0, s[2:3]" +
                     Bits + "\n\ts_waitcnt vmcnt(0)\n";
  TargetParams T = params();
  if (Target != "gfx942") {
    auto P = readTargetParams(std::string(ASMEVO_SOURCE_DIR) + "/share/asmevo/timing/" + Target +
                              ".json");
    EXPECT_TRUE(bool(P));
    if (!P)
      return 0;
    for (auto &[Name, F] : T.Figures)
      if (P->Figures.count(Name) && Name.rfind("l1_", 0) != 0 && Name.rfind("l2_", 0) != 0 &&
          Name.rfind("hbm", 0) != 0 && Name.rfind("mall", 0) != 0 && Name.rfind("scalar", 0) != 0)
        F = P->Figures[Name]; // the target's compute figures, the round memory figures
    T.Target = P->Target;
    T.Device = P->Device;
  }
  return modelGrid(Target, bigKernel(Target, Body, 8, 8), 1, 64, 65536, T).Cycles;
}

TEST(ModelDirection, LoadsThatBypassTheL1MissIt) {
  // The second load of a line the L1 holds takes the L1's 100 clocks, or the L2's 250 when its
  // cache-policy bits bypass the L1 (completion times fall on issue slots, 4 clocks apart).
  double Plain = secondLoad("gfx942", "");
  ASSERT_GT(Plain, 0);
  EXPECT_EQ(secondLoad("gfx942", " sc0"), Plain); // workgroup scope: the L1 as usual
  EXPECT_NEAR(secondLoad("gfx942", " sc1"), Plain + 150, 4);
  EXPECT_NEAR(secondLoad("gfx942", " sc0 sc1"), Plain + 150, 4);
  EXPECT_NEAR(secondLoad("gfx942", " nt"), Plain + 150, 4);
  double Plain90a = secondLoad("gfx90a", "");
  ASSERT_GT(Plain90a, 0);
  EXPECT_NEAR(secondLoad("gfx90a", " glc"), Plain90a + 150, 4);
  EXPECT_EQ(secondLoad("gfx90a", " slc"), Plain90a); // no published L1 effect
}

TEST(Model, ReplayingTheTracesGivesModelLaunchsFigures) {
  // One launch traced once (traceLaunch) and simulated under several parameter sets
  // (simulateLaunch): under the nominal set it is modelLaunch figure for figure, a second replay
  // gives the same again, and a set with another uncertain figure moves the time the way that
  // figure should. 600 workgroups of loads: more than the 256 simulated, so it is sampled.
  auto B = test::build(kernel("\tv_lshlrev_b32_e32 v0, 2, v0\n"
                              "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                              "\ts_waitcnt lgkmcnt(0)\n"
                              "\tglobal_load_dword v1, v0, s[2:3]\n"
                              "\ts_waitcnt vmcnt(0)\n"),
                       "k.s");
  ASSERT_TRUE(B);
  auto Launch = [&](device::Device &Dev) {
    auto Buf = Dev.alloc(65536, "buf");
    EXPECT_TRUE(bool(Buf));
    std::vector<uint8_t> Zero(65536, 0);
    std::memcpy(Zero.data(), &*Buf, 8);
    EXPECT_FALSE(bool(Dev.write(*Buf, Zero.data(), Zero.size())));
    device::LaunchParams P;
    P.Kernel = "k";
    P.GridItems = {64 * 600, 1, 1};
    P.Block = {64, 1, 1};
    P.Kernarg.resize(8);
    std::memcpy(P.Kernarg.data(), &*Buf, 8);
    return P;
  };
  ModelOptions O;
  O.Profile = true;
  O.RunSampleOnly = true;
  auto Dev0 = device::createEmuDevice("gfx942");
  auto M0 = Dev0->load(B->C);
  ASSERT_TRUE(bool(M0));
  auto Whole = modelLaunch(*Dev0, **M0, Launch(*Dev0), params(), O);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());

  auto Dev = device::createEmuDevice("gfx942");
  auto M = Dev->load(B->C);
  ASSERT_TRUE(bool(M));
  auto TL = traceLaunch(*Dev, **M, Launch(*Dev), params(), O);
  ASSERT_TRUE(bool(TL)) << llvm::toString(TL.takeError());
  EXPECT_EQ(TL->Shape.Cycles, 0); // nothing simulated yet
  for (int Replay = 0; Replay < 2; ++Replay) {
    auto R = simulateLaunch(*TL, params(), true);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ(R->Cycles, Whole->Cycles);
    EXPECT_EQ(R->Microseconds, Whole->Microseconds);
    EXPECT_EQ(R->SimulatedGroups, Whole->SimulatedGroups);
    EXPECT_LT(R->SimulatedGroups, 600u);
    EXPECT_EQ(R->EmulatedGroups, Whole->EmulatedGroups);
    EXPECT_EQ(R->GroupsPerCu, Whole->GroupsPerCu);
    EXPECT_EQ(totalCycles(R->Total), totalCycles(Whole->Total));
    EXPECT_EQ(R->Total.WaitVm, Whole->Total.WaitVm);
    ASSERT_EQ(R->Insts.size(), Whole->Insts.size());
    for (size_t I = 0; I < R->Insts.size(); ++I)
      EXPECT_EQ(totalCycles(R->Insts[I].Cycles), totalCycles(Whole->Insts[I].Cycles)) << I;
  }
  // A slower memory: every load waits longer.
  TargetParams Slow = params();
  Slow.Figures["hbm_latency_clk"].Value = 1000;
  auto S = simulateLaunch(*TL, Slow);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_GT(S->Cycles, Whole->Cycles + 400);
  EXPECT_TRUE(S->Insts.empty()); // no profile asked for
  // The plan was made for 304 CUs: a set with another count cannot reuse it.
  TargetParams Other = params();
  Other.Figures["compute_units"].Value = 256;
  auto E = simulateLaunch(*TL, Other);
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(llvm::toString(E.takeError()),
            "the timing parameters '" + std::string(ASMEVO_SOURCE_DIR) +
                "/share/asmevo/timing/gfx942.json' give compute_units 256, the launch was traced "
                "with 304 (an exact figure: a parameter set may vary only the others)");
}

TEST(Model, ReplayingUnderOtherLdsFiguresRecomputesTheBankConflicts) {
  // traceLaunch computes each DS instruction's LDS port clocks under the traced set's LDS
  // figures; a set with another port width (gfx950's lds_bytes_per_clk is ranged) recomputes
  // them, and gives what modelLaunch under that set gives. ds_read_b32 with a 128-byte lane
  // stride: every lane in bank 0. At 128 B/clk (16 lanes a clock) 4 chunks of 16 clocks: 60
  // conflict clocks; at 256 B/clk (32 a clock) 2 chunks of 32: 62. Both take the port 64 clocks.
  // Two threads replay at once.
  auto B = test::build(kernel("\tv_lshlrev_b32_e32 v0, 7, v0\n\tds_read_b32 v1, v0\n"
                              "\ts_waitcnt lgkmcnt(0)\n",
                              8, 8, 8192),
                       "k.s");
  ASSERT_TRUE(B);
  device::LaunchParams P;
  P.Kernel = "k";
  P.GridItems = {64, 1, 1};
  P.Block = {64, 1, 1};
  P.Kernarg.resize(8);
  TargetParams Wide = params();
  Wide.Figures["lds_bytes_per_clk"].Value = 256;
  auto Dev = device::createEmuDevice("gfx942");
  auto M = Dev->load(B->C);
  ASSERT_TRUE(bool(M));
  auto Direct = modelLaunch(*Dev, **M, P, Wide);
  ASSERT_TRUE(bool(Direct)) << llvm::toString(Direct.takeError());
  EXPECT_EQ(Direct->Total.LdsConflict, 62);
  auto TL = traceLaunch(*Dev, **M, P, params());
  ASSERT_TRUE(bool(TL)) << llvm::toString(TL.takeError());
  std::optional<llvm::Expected<ModelResult>> Narrow, Replayed;
  std::thread Other([&] { Narrow.emplace(simulateLaunch(*TL, params())); });
  Replayed.emplace(simulateLaunch(*TL, Wide));
  Other.join();
  ASSERT_TRUE(bool(*Narrow)) << llvm::toString(Narrow->takeError());
  ASSERT_TRUE(bool(*Replayed)) << llvm::toString(Replayed->takeError());
  EXPECT_EQ((*Narrow)->Total.LdsConflict, 60);
  EXPECT_EQ((*Replayed)->Total.LdsConflict, 62);
  EXPECT_EQ((*Replayed)->Cycles, Direct->Cycles);
  EXPECT_EQ((*Replayed)->Cycles, (*Narrow)->Cycles);
}

} // namespace
