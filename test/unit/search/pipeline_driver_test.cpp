// The pipeline driver (search/PipelineDriver.cpp): on a hand-written loop, the exact prologue,
// prefetch and waits; the loops it must leave alone; on Triton's matmul (num_stages=1), both K-loop
// loads issued one iteration ahead, and every proposal on the corpus's looping kernels keeps
// every wait state.
#include "DriverFixture.h"
#include "codeobj/TargetLimits.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;
using namespace asmevo::test;

namespace {

// A loop of 8 iterations that loads a dword at v1 + 4 and adds it to v4; v1 advances by 4.
const char *kLoop = "\ts_mov_b32 s4, 8\n"
                    "\tv_mov_b32_e32 v1, 0\n"
                    "\tv_mov_b32_e32 v4, 0\n"
                    ".Lloop:\n"
                    "\tv_add_u32_e32 v2, 4, v1\n"
                    "\ts_add_i32 s4, s4, -1\n"
                    "\tbuffer_load_dword v3, v2, s[8:11], 0 offen\n"
                    "\ts_cmp_lg_u32 s4, 0\n"
                    "\ts_waitcnt vmcnt(0)\n"
                    "\tv_add_f32_e32 v4, v4, v3\n"
                    "\tv_mov_b32_e32 v1, v2\n"
                    "\ts_cbranch_scc1 .Lloop\n";

TEST(PipelineDriver, HandLoopLoadIssuedOneIterationAhead) {
  std::unique_ptr<NodeView> N = handNode(kLoop, "pipeline_driver_k.hsaco");
  ASSERT_TRUE(N);
  auto D = makePipelineDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  ASSERT_EQ(E.size(), 2u);
  // The data goes to v0 (the loop never names it, nothing after it reads it: the kernel's VGPR
  // count stays); the first iteration's load before the loop, its address from the slice in a
  // fresh v6; the original load gone; the use reading v0; the next iteration's load after v1's
  // last write and the compare, under EXEC = SCC ? EXEC : 0. First with the slice's wait state
  // before the load (the s_add between them), then with none: a VALU write of a VMEM address
  // needs none, and the static scan asks for none.
  const std::string Nop = "\ts_nop 0\n";
  const std::string Head = "\tv_add_u32_e32 v6, 4, v1\n",
                    Load0 = "\tbuffer_load_dword v0, v6, s[8:11], 0 offen\n",
                    Body = ".Lloop:\n"
                           "\tv_add_u32_e32 v2, 4, v1\n"
                           "\ts_add_i32 s4, s4, -1\n"
                           "\ts_cmp_lg_u32 s4, 0\n"
                           "\ts_waitcnt vmcnt(0)\n"
                           "\tv_add_f32_e32 v4, v4, v0\n"
                           "\tv_mov_b32_e32 v1, v2\n"
                           "\ts_mov_b64 s[12:13], exec\n"
                           "\ts_cselect_b64 exec, exec, 0\n"
                           "\tv_add_u32_e32 v5, 4, v1\n",
                    Tail = "\tbuffer_load_dword v0, v5, s[8:11], 0 offen\n"
                           "\ts_mov_b64 exec, s[12:13]";
  EXPECT_EQ(E[0].Replacement, Head + Nop + Load0 + Body + Nop + Tail);
  EXPECT_EQ(E[1].Replacement, Head + Load0 + Body + Tail);
}

// The pipeline driver's proposals for kLoop with the use of the loaded v3 (the add) replaced by
// Use.
std::vector<Edit> proposalsWithUse(const std::string &Use, const std::string &File) {
  std::string Body = kLoop;
  Body.replace(Body.find("\tv_add_f32_e32 v4, v4, v3\n"), 26, Use);
  std::unique_ptr<NodeView> N = handNode(Body, File);
  EXPECT_TRUE(N) << Body;
  if (!N)
    return {};
  auto D = makePipelineDriver();
  return allProposals(*D, *N);
}

TEST(PipelineDriver, AUserThatOverwritesItsDataReadsThePrefetchedCopy) {
  // AWQ's scales: `v_mul_f16 v76, v94, v76` scales the loaded value in place. Only its sources
  // are renamed: it reads the prefetched copy (v0) and writes v3 as before, which the add reads.
  std::vector<Edit> E = proposalsWithUse(
      "\tv_mul_f32_e32 v3, 0.5, v3\n\tv_add_f32_e32 v4, v4, v3\n", "pipeline_driver_k3.hsaco");
  ASSERT_EQ(E.size(), 2u);
  for (const Edit &X : E) {
    EXPECT_NE(X.Replacement.find("\tbuffer_load_dword v0, v6, s[8:11], 0 offen\n"),
              std::string::npos)
        << X.Replacement;
    EXPECT_NE(X.Replacement.find("\tv_mul_f32_e32 v3, 0.5, v0\n\tv_add_f32_e32 v4, v4, v3\n"),
              std::string::npos)
        << X.Replacement;
  }
  // v_fmac reads its accumulator through its destination: renaming the sources would leave
  // that read of the loaded value behind, so the load stays as it is.
  EXPECT_TRUE(proposalsWithUse("\tv_fmac_f32_e32 v3, 0.5, v4\n\tv_add_f32_e32 v4, v4, v3\n",
                               "pipeline_driver_k4.hsaco")
                  .empty());
  // A DPP move names the data among its sources but also keeps the destination's old value in
  // the lanes its row mask leaves: that read is through the destination too.
  EXPECT_TRUE(proposalsWithUse("\tv_mov_b32_dpp v3, v3 row_shr:1 row_mask:0x5 bank_mask:0xf\n"
                               "\tv_add_f32_e32 v4, v4, v3\n",
                               "pipeline_driver_k5.hsaco")
                  .empty());
}

TEST(PipelineDriver, ASliceTwoLoadsShareGoesWithThem) {
  // Two loads from one address computation (AWQ's scale addresses all start from one s_mul):
  // pipelined together, nothing reads the original computation any more, and it goes; each load
  // alone leaves it to the other.
  const std::string Body = "\ts_mov_b32 s4, 8\n"
                           "\tv_mov_b32_e32 v1, 0\n"
                           "\tv_mov_b32_e32 v4, 0\n"
                           ".Lloop:\n"
                           "\ts_add_i32 s4, s4, -1\n"
                           "\tv_lshlrev_b32_e32 v2, 2, v1\n"
                           "\tbuffer_load_dword v3, v2, s[8:11], 0 offen\n"
                           "\tbuffer_load_dword v5, v2, s[8:11], 0 offen offset:4\n"
                           "\ts_cmp_lg_u32 s4, 0\n"
                           "\ts_waitcnt vmcnt(0)\n"
                           "\tv_add_f32_e32 v4, v4, v3\n"
                           "\tv_add_f32_e32 v4, v4, v5\n"
                           "\tv_add_u32_e32 v1, 1, v1\n"
                           "\ts_cbranch_scc1 .Lloop\n";
  std::unique_ptr<NodeView> N = handNode(Body, "pipeline_driver_k6.hsaco");
  ASSERT_TRUE(N);
  auto D = makePipelineDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  ASSERT_FALSE(E.empty());
  auto InLoop = [](const std::string &R, const std::string &What) {
    size_t Top = R.find(".Lloop:");
    return Top != std::string::npos && R.find(What, Top) != std::string::npos;
  };
  size_t Both = 0, One = 0;
  for (const Edit &X : E) {
    const bool Together = X.Rationale.find("buffer loads of lines") != std::string::npos;
    (Together ? Both : One) += 1;
    EXPECT_EQ(InLoop(X.Replacement, "v_lshlrev_b32_e32 v2, 2, v1"), !Together) << X.Replacement;
  }
  EXPECT_GT(Both, 0u);
  EXPECT_GT(One, 0u);
}

TEST(PipelineDriver, LeavesLoopsItCannotPipeline) {
  // The data read at the top, before the load: a value the previous iteration loaded.
  std::string Carried = kLoop;
  Carried.replace(Carried.find("\tv_add_f32_e32 v4, v4, v3\n"), 26, "");
  Carried.replace(Carried.find(".Lloop:\n") + 8, 0, "\tv_add_f32_e32 v4, v4, v3\n");
  // The branch on VCC, not SCC: no EXEC from SCC for the last iteration's load.
  std::string OnVcc = kLoop;
  OnVcc.replace(OnVcc.find("\ts_cmp_lg_u32 s4, 0\n"), 20, "\tv_cmp_ne_u32_e32 vcc, 0, v1\n");
  OnVcc.replace(OnVcc.find("s_cbranch_scc1"), 14, "s_cbranch_vccnz");
  // The address from an SGPR the top of the loop writes before the slice reads it.
  std::string TopWrite = kLoop;
  TopWrite.replace(TopWrite.find("\tv_add_u32_e32 v2, 4, v1\n"), 25,
                   "\ts_add_i32 s5, s5, 4\n\tv_add_u32_e32 v2, s5, v1\n");
  for (const std::string &Body : {Carried, OnVcc, TopWrite}) {
    std::unique_ptr<NodeView> N = handNode(Body, "pipeline_driver_k2.hsaco");
    ASSERT_TRUE(N);
    auto D = makePipelineDriver();
    EXPECT_TRUE(allProposals(*D, *N).empty()) << Body;
  }
}

TEST(PipelineDriver, MatmulKLoopLoadsIssuedOneIterationAhead) {
  std::unique_ptr<NodeView> N = corpusNode("matmul_fp16.hsaco", "matmul_kernel");
  ASSERT_TRUE(N);
  auto D = makePipelineDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  // Both loads together, then each alone; each with its copies' s_nops, then trimmed.
  ASSERT_EQ(E.size(), 6u);
  const std::string &R = E[0].Replacement;
  auto count = [&](const std::string &S) {
    size_t C = 0;
    for (size_t P = R.find(S); P != std::string::npos; P = R.find(S, P + 1))
      ++C;
    return C;
  };
  // The kernel's VGPRs end at v38: the tiles go to v[40:43] and v[44:47], loaded once before
  // the loop and once in it; the original loads into v[24:27] and v[18:21] are gone.
  EXPECT_EQ(count("buffer_load_dwordx4 v[40:43]"), 2u) << R;
  EXPECT_EQ(count("buffer_load_dwordx4 v[44:47]"), 2u) << R;
  EXPECT_EQ(count("buffer_load_dwordx4 v[24:27]"), 0u) << R;
  EXPECT_EQ(count("ds_write_b64 v9, v[40:41]"), 1u) << R;
  EXPECT_EQ(count("ds_write_b128 v15, v[44:47]"), 1u) << R;
  EXPECT_EQ(count("s_cselect_b64 exec, exec, 0"), 2u) << R;
  // The B tile's write waits for one load less than before: the A tile's next load is younger.
  EXPECT_NE(R.find("\ts_waitcnt vmcnt(1)\n\tds_write_b128 v15, v[44:47]"), std::string::npos) << R;
  EXPECT_LT(R.find("buffer_load_dwordx4 v[40:43]"), R.find(".LBB")) << R;
}

TEST(PipelineDriver, FusedMoeScalarMaskKeepsTheLoopCondition) {
  // The expert-weight load's mask is a SALU s_and_b64 of two compares, which writes SCC: its
  // copy runs with SCC kept in s34 and set again before EXEC takes it. The prologue issues the
  // loads in the body's order (the weights first), so the first tile's write waits for one load
  // less, as every iteration's does. The weight tile reuses v[36:39], which only the epilogue
  // names (written there first).
  std::unique_ptr<NodeView> N = corpusNode("fused_moe_fp16.hsaco", "fused_moe_kernel");
  ASSERT_TRUE(N);
  auto D = makePipelineDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  ASSERT_EQ(E.size(), 5u); // for one of the three sets, trimming leaves the same text
  const std::string &R = E[0].Replacement;
  EXPECT_NE(R.find("\ts_cselect_b32 s34, 1, 0\n\tv_cmp_gt_i32_e64 s[2:3], s16, v3\n"
                   "\ts_nop 0\n\ts_and_b64 s[2:3], vcc, s[2:3]\n"),
            std::string::npos)
      << R;
  EXPECT_NE(R.find("\ts_mov_b64 s[32:33], exec\n\ts_cmp_lg_u32 s34, 0\n"
                   "\ts_cselect_b64 exec, exec, 0\n"
                   "\tbuffer_load_dwordx2 v[42:43], v23, s[24:27], 0 offen\n"),
            std::string::npos)
      << R;
  EXPECT_LT(R.find("buffer_load_dwordx2 v[42:43]"), R.find("buffer_load_dwordx4 v[36:39]")) << R;
  EXPECT_NE(R.find("\ts_waitcnt vmcnt(1)\n\tds_write_b64 v8, v[42:43]"), std::string::npos) << R;
}

TEST(PipelineDriver, NoProposalBreaksAWaitState) {
  const std::vector<std::pair<std::string, std::string>> Kernels = {
      {"matmul_fp16.hsaco", "matmul_kernel"},
      {"matmul_bf16.hsaco", "matmul_kernel"},
      {"flash_attn_fwd_fp16.hsaco", "attn_fwd_kernel"},
      {"fused_moe_fp16.hsaco", "fused_moe_kernel"}};
  uint64_t Total = 0;
  for (const auto &[Name, Kernel] : Kernels) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    auto D = makePipelineDriver();
    Total += proposalsKeepWaitStates(*D, *N);
  }
  EXPECT_GE(Total, 3u);
}

} // namespace

namespace {

TEST(PipelineDriver, ThePipelinedNodesProposalsAreScannedToo) {
  // A node's text keeps the descriptor directives it was recovered with; its object, rebuilt by
  // the gate, has the VGPRs the pipelined loop needs (accum_offset 40 -> 48). The drivers' wait-
  // state scan rebuilds each proposal from that text: with the node's object as the ABI
  // reference the rebuild reported the stale accum_offset as an ABI violation and the scan let
  // every proposal through (sched's hazardous orders reached the gate as unsafe candidates).
  std::unique_ptr<NodeView> N0 = corpusNode("matmul_fp16.hsaco", "matmul_kernel");
  ASSERT_TRUE(N0);
  auto P = makePipelineDriver();
  std::vector<Edit> E = allProposals(*P, *N0);
  ASSERT_FALSE(E.empty());
  EditError Err;
  auto Text = applyEdits(N0->Map, {E[0]}, EditLimits(), Err);
  ASSERT_TRUE(Text) << Err.Message;
  auto RB = rebuildFromAssembly(*Text, "p.s", &N0->Obj->C);
  ASSERT_TRUE(bool(RB)) << llvm::toString(RB.takeError());
  ASSERT_TRUE(RB->Violations.empty());
  std::string Path = ::testing::TempDir() + "pipelined_matmul.hsaco";
  ASSERT_FALSE(bool(writeFileAtomic(Path, RB->Object)));
  std::unique_ptr<NodeView> N1 = nodeOf(Path, "matmul_kernel", *Text);
  ASSERT_TRUE(N1);
  auto S = makeSchedDriver();
  EXPECT_GT(proposalsKeepWaitStates(*S, *N1), 0u);
  EXPECT_GT(S->usage()["dropped_for_wait_states"].get<uint64_t>(), 0u) << S->usage().dump();
}

} // namespace

namespace {

TEST(PipelineDriver, FlashAttentionsLoopInSeveralWindowsWithinItsOccupancy) {
  // Flash attention's K loop spans more lines than one edit window holds (EditLimits): the
  // driver proposes each change as edits of disjoint windows, applied together. The kernel runs 3
  // waves per SIMD, limited by VGPRs: every proposal keeps that (fresh VGPRs past the occupancy
  // step made the first proposal 2 waves per SIMD, and 0.86x slower, modeled).
  std::unique_ptr<NodeView> N = corpusNode("flash_attn_fwd_fp16.hsaco", "attn_fwd_kernel");
  ASSERT_TRUE(N);
  const KernelInfo *K0 = N->Obj->C.kernel("attn_fwd_kernel");
  ASSERT_TRUE(K0);
  const unsigned Waves = kernelOccupancy(*K0, N->Obj->C.Target).WavesPerSimd;
  EXPECT_EQ(Waves, 3u);
  auto D = makePipelineDriver();
  std::vector<std::vector<Edit>> Sets = allProposalSets(*D, *N);
  ASSERT_FALSE(Sets.empty());
  size_t Split = 0;
  for (const std::vector<Edit> &Es : Sets) {
    Split += Es.size() > 1;
    for (const Edit &E : Es)
      EXPECT_LE(E.W.LastLine - E.W.FirstLine + 1, EditLimits().MaxWindowLines);
    EditError Err;
    auto Text = applyEdits(N->Map, Es, EditLimits(), Err);
    ASSERT_TRUE(Text) << Err.Message;
    auto RB = rebuildFromAssembly(*Text, "fa.s", nullptr);
    ASSERT_TRUE(bool(RB)) << llvm::toString(RB.takeError());
    auto C = CodeObject::read(RB->Object, "fa.hsaco");
    ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
    const KernelInfo *K1 = C->kernel("attn_fwd_kernel");
    ASSERT_TRUE(K1);
    EXPECT_EQ(kernelOccupancy(*K1, C->Target).WavesPerSimd, Waves) << Es.front().Rationale;
  }
  EXPECT_GT(Split, 0u);
}

} // namespace
