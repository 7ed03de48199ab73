// SchedInfo: instruction costs from LLVM's AMDGPU scheduling model (figures checked with
// llvm-mca / MCSchedModel, LLVM 22: /work/shared notes "LLVM's own AMDGPU performance model"),
// the gfx950 FP8 patch, and the facts read from the instructions themselves.
#include "asm/AsmFixture.h"
#include "asm/SchedInfo.h"

#include <gtest/gtest.h>

using namespace asmevo;

namespace {

std::string kernel(const std::string &Target, const std::string &Body) {
  return test::kernelSource(Target, Body);
}

// The costs of Body's instructions (s_endpgm last), in order.
std::vector<InstCost> costs(const std::string &Target, const std::string &Body) {
  std::vector<InstCost> Out;
  auto B = test::build(kernel(Target, Body), "k.s", Target);
  if (!B)
    return Out;
  auto S = SchedInfo::create(B->C);
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
  if (!S)
    return Out;
  uint64_t A = B->C.Kernels[0].EntryAddr;
  for (;;) {
    auto C = (*S)->cost(A);
    EXPECT_TRUE(bool(C)) << llvm::toString(C.takeError());
    if (!C)
      break;
    Out.push_back(**C);
    A += (*C)->Size;
    if ((*C)->EndPgm)
      break;
  }
  return Out;
}

TEST(SchedInfo, MfmaPassesPerTarget) {
  auto A = costs("gfx90a", "\tv_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], 0\n");
  auto B = costs("gfx942", "\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], 0\n");
  ASSERT_EQ(A.size(), 2u);
  ASSERT_EQ(B.size(), 2u);
  EXPECT_EQ(A[0].Unit, InstUnit::Mfma);
  EXPECT_TRUE(A[0].FromLlvm);
  EXPECT_EQ(A[0].BusyQuads, 16u); // CDNA2: 64 clocks
  EXPECT_EQ(A[0].LatencyQuads, 16u);
  EXPECT_EQ(B[0].BusyQuads, 8u); // CDNA3: 32 clocks
  EXPECT_EQ(B[0].LatencyQuads, 8u);
}

TEST(SchedInfo, Gfx950Fp8MfmaTakesTwiceThePasses) {
  auto C = costs("gfx950", "\tv_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]\n"
                           "\tv_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:3], v[8:11], a[0:3] "
                           "cbsz:4 blgp:4\n");
  ASSERT_EQ(C.size(), 3u);
  EXPECT_TRUE(C[0].Fp8Patched); // FP8 x FP8 (the default formats): LLVM's 4 doubled
  EXPECT_EQ(C[0].BusyQuads, 8u);
  EXPECT_FALSE(C[1].Fp8Patched); // FP4 x FP4: LLVM's figure
  EXPECT_EQ(C[1].BusyQuads, 4u);
}

// The emulator traces gfx950's 128-bit scaled MFMA as two steps (+0, +8): both have a cost,
// and only the first charges the MFMA.
TEST(SchedInfo, Gfx950ScaledMfmaHasACostAtBothTraceSteps) {
  auto B = test::build(kernel("gfx950", "\tv_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:3], "
                                        "v[8:11], a[0:3], v20, v21 cbsz:4 blgp:4\n"),
                       "k.s", "gfx950");
  ASSERT_TRUE(bool(B));
  auto S = SchedInfo::create(B->C);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  uint64_t A = B->C.Kernels[0].EntryAddr;
  auto Whole = (*S)->cost(A);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
  EXPECT_EQ((*Whole)->Size, 16u);
  EXPECT_EQ((*Whole)->Unit, InstUnit::Mfma);
  EXPECT_EQ((*Whole)->Mnemonic, "v_mfma_scale_f32_16x16x128_f8f6f4");
  auto Second = (*S)->cost(A + 8);
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  EXPECT_EQ((*Second)->Unit, InstUnit::Internal);
  EXPECT_EQ((*Second)->Size, 8u);
  auto End = (*S)->cost(A + 16);
  ASSERT_TRUE(bool(End)) << llvm::toString(End.takeError());
  EXPECT_TRUE((*End)->EndPgm);
}

TEST(SchedInfo, UnitsCountersAndWaits) {
  auto C = costs("gfx942", "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                           "\tglobal_load_dword v1, v0, s[2:3]\n"
                           "\tglobal_store_dword v0, v1, s[2:3]\n"
                           "\tds_read_b32 v2, v0\n"
                           "\tds_write_b32 v0, v2\n"
                           "\tflat_load_dword v3, v[4:5]\n"
                           "\ts_waitcnt vmcnt(3) lgkmcnt(0)\n"
                           "\ts_nop 7\n"
                           "\ts_barrier\n"
                           "\tv_add_f32_e32 v1, v1, v1\n"
                           "\ts_add_u32 s4, s4, 1\n"
                           "\ts_cbranch_scc0 .Lx\n"
                           ".Lx:\n");
  ASSERT_EQ(C.size(), 13u);
  EXPECT_EQ(C[0].Unit, InstUnit::Smem);
  EXPECT_TRUE(C[0].Lgkm);
  EXPECT_EQ(C[1].Unit, InstUnit::Vmem);
  EXPECT_TRUE(C[1].Vm && !C[1].Store && !C[1].Lgkm);
  EXPECT_TRUE(C[2].Vm && C[2].Store);
  EXPECT_EQ(C[3].Unit, InstUnit::Lds);
  EXPECT_TRUE(C[3].Lgkm && !C[3].Store);
  EXPECT_TRUE(C[4].Store);
  EXPECT_TRUE(C[5].Vm && C[5].Lgkm); // FLAT counts on both
  EXPECT_EQ(C[6].WaitVm, 3);
  EXPECT_EQ(C[6].WaitLgkm, 0);
  EXPECT_EQ(C[6].WaitExp, -1);
  EXPECT_EQ(C[7].NopStates, 8u);
  EXPECT_TRUE(C[8].Barrier);
  EXPECT_EQ(C[9].Unit, InstUnit::Valu);
  EXPECT_EQ(C[9].BusyQuads, 1u); // full rate
  EXPECT_EQ(C[10].Unit, InstUnit::Salu);
  EXPECT_EQ(C[11].Unit, InstUnit::Branch);
  EXPECT_TRUE(C[12].EndPgm);
  EXPECT_EQ(C[9].Text, "v_add_f32_e32 v1, v1, v1");
  using V = std::vector<std::string>;
  EXPECT_EQ(C[0].Writes, (V{"s2", "s3"}));
  EXPECT_EQ(C[0].Reads, (V{"s0", "s1"}));
  EXPECT_EQ(C[1].Writes, V{"v1"});
  EXPECT_EQ(C[1].Reads, (V{"exec", "s2", "s3", "v0"}));
  EXPECT_EQ(C[2].Writes, V{});
  EXPECT_EQ(C[2].Reads, (V{"exec", "s2", "s3", "v0", "v1"}));
  EXPECT_EQ(C[9].Writes, V{"v1"});
  EXPECT_EQ(C[10].Writes, (V{"s4", "scc"}));
}

TEST(SchedInfo, VopcWritesTheVccItPrints) {
  // An e32 compare prints VCC, its implicit def, as an operand: written, not read. A select
  // reads it; a carry add reads and writes it.
  auto C = costs("gfx942", "\tv_cmp_gt_i32_e32 vcc, s10, v5\n"
                           "\tv_cndmask_b32_e32 v17, v8, v0, vcc\n"
                           "\tv_addc_co_u32_e32 v1, vcc, v2, v3, vcc\n");
  ASSERT_EQ(C.size(), 4u);
  using V = std::vector<std::string>;
  EXPECT_EQ(C[0].Writes, V{"vcc"});
  EXPECT_EQ(C[0].Reads, (V{"exec", "s10", "v5"}));
  EXPECT_EQ(C[1].Reads, (V{"exec", "v0", "v8", "vcc"}));
  EXPECT_EQ(C[2].Writes, (V{"v1", "vcc"}));
  EXPECT_EQ(C[2].Reads, (V{"exec", "v2", "v3", "vcc"}));
}

TEST(SchedInfo, ATiedDestinationIsReadToo) {
  // LLVM prints a def tied to a use once, as the destination: v_fmac's accumulator, the old
  // value a DPP move keeps in lanes it does not write, the low half a d16_hi load keeps. Each is
  // read as well as written; a plain move's destination is not read.
  auto C = costs("gfx942", "\tv_fmac_f32_e32 v3, 0.5, v4\n"
                           "\tv_mov_b32_dpp v5, v6 row_shr:1 row_mask:0xf bank_mask:0xf\n"
                           "\tbuffer_load_short_d16_hi v7, v8, s[0:3], 0 offen\n"
                           "\tv_mov_b32_e32 v9, v10\n");
  ASSERT_EQ(C.size(), 5u);
  using V = std::vector<std::string>;
  EXPECT_EQ(C[0].Writes, V{"v3"});
  EXPECT_EQ(C[0].Reads, (V{"exec", "v3", "v4"}));
  EXPECT_EQ(C[1].Reads, (V{"exec", "v5", "v6"}));
  EXPECT_EQ(C[2].Reads, (V{"exec", "s0", "s1", "s2", "s3", "v7", "v8"}));
  EXPECT_EQ(C[3].Reads, (V{"exec", "v10"}));
  EXPECT_EQ(C[0].TiedReads, V{"v3"});
  EXPECT_EQ(C[1].TiedReads, V{"v5"});
  EXPECT_EQ(C[2].TiedReads, V{"v7"});
  EXPECT_TRUE(C[3].TiedReads.empty());
}

TEST(SchedInfo, TranscendentalAndF64Rates) {
  auto C = costs("gfx942", "\tv_exp_f32_e32 v1, v2\n\tv_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]\n");
  ASSERT_EQ(C.size(), 3u);
  // Transcendentals are quarter rate (LLVM: latency 4 quads); they hold the VALU that long.
  EXPECT_EQ(C[0].LatencyQuads, 4u);
  EXPECT_EQ(C[0].BusyQuads, 4u);
  // FP64 FMA is full rate on CDNA3 (LLVM's SIDPGFX940FullSpeedModel).
  EXPECT_EQ(C[1].LatencyQuads, 1u);
  EXPECT_EQ(C[1].BusyQuads, 1u);
}

TEST(SchedInfo, NoInstructionThere) {
  auto B = test::build(kernel("gfx942", "\ts_nop 0\n"), "k.s");
  ASSERT_TRUE(B);
  auto S = SchedInfo::create(B->C);
  ASSERT_TRUE(bool(S));
  auto C = (*S)->cost(0x10);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()), "k.s: no code at address 0x10");
}

} // namespace
