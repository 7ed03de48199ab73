// The wait-counter dataflow (asm/WaitFlow.h) on hand-written gfx942 kernels, assembled here:
// loops whose back edge and entry edge leave different loads pending, branches where only one
// arm needs a load, LDS/VMEM/SMEM mixes (SMEM returns out of order), loads into LDS before a
// barrier, atomics after stores, and code it must refuse to analyse. Each expected wait is
// worked out by hand in the test's comment from the ISA's counter rules.
#include "AsmFixture.h"

#include "asm/WaitFlow.h"
#include "support/Error.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::test;

namespace {

struct Analysed : MappedKernel {
  std::unique_ptr<WaitFlow> Flow;
  // The index of the instruction whose text line (trimmed) is Text; the Nth such when it repeats.
  size_t at(const std::string &Text, unsigned Nth = 0) const {
    for (size_t K = 0; K < Map.Code.size(); ++K)
      if (llvm::StringRef(Map.Lines[Map.Code[K].Line]).trim() == Text && Nth-- == 0)
        return K;
    ADD_FAILURE() << "no line '" << Text << "'";
    return 0;
  }
};

llvm::Expected<std::unique_ptr<WaitFlow>> flowOf(Analysed &A, const std::string &Body,
                                                 WaitFlowOptions O = {}) {
  if (!mapKernel(A, kernelSource("gfx942", Body, 64, 32, true, 1024), "wait.s"))
    return makeError("the kernel did not build");
  std::vector<FlowInst> Code;
  for (const CodeLine &L : A.Map.Code)
    Code.push_back(FlowInst{L.Cost, L.Offset});
  return WaitFlow::create(std::move(Code), A.B->C.kernel("k")->EntryAddr, O);
}

Analysed analyse(const std::string &Body, WaitFlowOptions O = {}) {
  Analysed A;
  auto F = flowOf(A, Body, O);
  EXPECT_TRUE(bool(F)) << (F ? "" : llvm::toString(F.takeError()));
  if (F)
    A.Flow = std::move(*F);
  return A;
}

WaitFields fields(int Vm, int Lgkm) { return WaitFields{Vm, Lgkm}; }

TEST(WaitFlow, StraightLineRelaxesToTheLoadsItsUsesNeed) {
  // Two loads; the add reads only the older one: one younger load may stay outstanding.
  Analysed A = analyse("\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\tglobal_load_dword v2, v1, s[2:3]\n"
                       "\tglobal_load_dword v3, v1, s[2:3] offset:4\n"
                       "\ts_waitcnt vmcnt(0)\n"
                       "\tv_add_u32_e32 v4, v2, v0\n"
                       "\tglobal_store_dword v1, v4, s[2:3]\n"
                       "\ts_waitcnt vmcnt(1)\n"
                       "\tv_add_u32_e32 v5, v3, v0\n"
                       "\tglobal_store_dword v1, v5, s[2:3] offset:8\n");
  ASSERT_TRUE(A.Flow);
  const WaitFlow &F = *A.Flow;
  EXPECT_TRUE(F.deficits(F.original()).empty());
  size_t W = A.at("s_waitcnt vmcnt(0)");
  EXPECT_EQ(F.relax(F.original(), W), fields(1, -1));
  // The SMEM wait guards s[2:3], read by the next load: it stays.
  EXPECT_EQ(F.relax(F.original(), A.at("s_waitcnt lgkmcnt(0)")), fields(-1, 0));
  // The second vmcnt wait is implied by the first (vmcnt(0) completed v3's load too).
  EXPECT_EQ(F.relax(F.original(), A.at("s_waitcnt vmcnt(1)")), fields(-1, -1));
  // With the first wait gone, the add needs the one younger load left: vmcnt(1) right before it.
  WaitPlan P = F.original();
  P.Own[W] = WaitFields{};
  std::vector<WaitDeficit> D = F.deficits(P);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Index, A.at("v_add_u32_e32 v4, v2, v0"));
  EXPECT_EQ(D[0].Need, fields(1, -1));
}

TEST(WaitFlow, LoopJoinsTheEntryAndTheBackEdge) {
  // v2 is loaded before the loop (nothing younger on the entry edge) and again in the body,
  // followed by v5's load (one younger on the back edge): the wait at the top must be vmcnt(0)
  // for the entry edge, although the body alone would allow vmcnt(1).
  const std::string Loop = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                           "\ts_waitcnt lgkmcnt(0)\n"
                           "\tglobal_load_dword v2, v1, s[2:3]\n"
                           "%s"
                           "\ts_mov_b32 s4, 0\n"
                           ".Lloop:\n"
                           "\ts_waitcnt vmcnt(0)\n"
                           "\tv_add_f32_e32 v3, v2, v3\n"
                           "\tglobal_load_dword v2, v1, s[2:3] offset:4\n"
                           "\tglobal_load_dword v5, v1, s[2:3] offset:8\n"
                           "\ts_add_u32 s4, s4, 1\n"
                           "\ts_cmp_lt_u32 s4, 8\n"
                           "\ts_cbranch_scc1 .Lloop\n"
                           "\ts_waitcnt vmcnt(0)\n"
                           "\tv_add_f32_e32 v3, v5, v3\n"
                           "\tglobal_store_dword v1, v3, s[2:3]\n";
  auto Body = [&](const std::string &Extra) {
    std::string S = Loop;
    return S.replace(S.find("%s"), 2, Extra);
  };
  Analysed A = analyse(Body(""));
  ASSERT_TRUE(A.Flow);
  size_t Top = A.at("s_waitcnt vmcnt(0)", 0);
  EXPECT_TRUE(A.Flow->deficits(A.Flow->original()).empty());
  EXPECT_EQ(A.Flow->relax(A.Flow->original(), Top), fields(0, -1));
  // One more load on the entry edge after v2's (v6, read only after the loop): now both edges
  // leave one younger load behind v2, and vmcnt(1) is enough at the top.
  Analysed B = analyse(Body("\tglobal_load_dword v6, v1, s[2:3] offset:12\n"));
  ASSERT_TRUE(B.Flow);
  size_t Top2 = B.at("s_waitcnt vmcnt(0)", 0);
  EXPECT_EQ(B.Flow->relax(B.Flow->original(), Top2), fields(1, -1));
  // The exit wait: v5 is the youngest load on the only path there.
  EXPECT_EQ(B.Flow->relax(B.Flow->original(), B.at("s_waitcnt vmcnt(0)", 1)), fields(0, -1));
  // Relaxing the top wait to vmcnt(1) is safe for the loop, and the plan has no deficit.
  WaitPlan P = B.Flow->original();
  P.Own[Top2] = fields(1, -1);
  EXPECT_TRUE(B.Flow->deficits(P).empty());
  P.Own[Top2] = fields(2, -1);
  ASSERT_EQ(B.Flow->deficits(P).size(), 1u);
  EXPECT_EQ(B.Flow->deficits(P)[0].Index, B.at("v_add_f32_e32 v3, v2, v3"));
}

TEST(WaitFlow, SinkMovesAWaitIntoTheOneArmThatNeedsIt) {
  // Only the fall-through arm reads v2; the taken arm goes straight to the store of v3.
  Analysed A = analyse("\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\tglobal_load_dword v2, v1, s[2:3]\n"
                       "\ts_waitcnt vmcnt(0)\n"
                       "\ts_cmp_eq_u32 s2, 0\n"
                       "\ts_cbranch_scc1 .Lskip\n"
                       "\tv_add_u32_e32 v3, v2, v3\n"
                       ".Lskip:\n"
                       "\tglobal_store_dword v1, v3, s[2:3]\n");
  ASSERT_TRUE(A.Flow);
  const WaitFlow &F = *A.Flow;
  size_t W = A.at("s_waitcnt vmcnt(0)"), Use = A.at("v_add_u32_e32 v3, v2, v3");
  WaitPlan P = F.place(F.original(), W, W);
  EXPECT_EQ(P.Own[W], fields(-1, -1));
  EXPECT_EQ(P.Pre[Use], fields(0, -1));
  for (size_t K = 0; K < F.size(); ++K) {
    if (K != Use) {
      EXPECT_FALSE(P.Pre[K].any()) << "a wait before instruction " << K;
    }
  }
  EXPECT_TRUE(F.deficits(P).empty());
  // The store after the join reads v3, which no load writes: nothing is placed there, although
  // v2's load may still be outstanding on the taken arm.
  EXPECT_FALSE(P.Pre[A.at("global_store_dword v1, v3, s[2:3]")].any());
}

TEST(WaitFlow, ScalarLoadsReturnOutOfOrderAndLdsReadsInOrder) {
  // s8 (SMEM) and two ds_reads share lgkmcnt. v2 has one younger DS read, so lgkmcnt(1) makes
  // it complete even with the SMEM load outstanding; s8 needs lgkmcnt(0) whatever came after it.
  Analysed A = analyse("\ts_load_dword s8, s[0:1], 0x8\n"
                       "\tds_read_b32 v2, v1\n"
                       "\tds_read_b32 v3, v1 offset:4\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\tv_add_u32_e32 v4, v2, v0\n"
                       "\tv_add_u32_e32 v5, s8, v3\n");
  ASSERT_TRUE(A.Flow);
  const WaitFlow &F = *A.Flow;
  size_t W = A.at("s_waitcnt lgkmcnt(0)");
  EXPECT_EQ(F.relax(F.original(), W), fields(-1, 0));
  // Sunk: v4's add needs lgkmcnt(1), placed right after the wait's line, so the wait itself
  // becomes lgkmcnt(1) (a wait placed right after an s_waitcnt joins it); s8's add needs 0.
  WaitPlan P = F.place(F.original(), W, W);
  EXPECT_EQ(P.Own[W], fields(-1, 1));
  EXPECT_FALSE(P.Pre[A.at("v_add_u32_e32 v4, v2, v0")].any());
  EXPECT_EQ(P.Pre[A.at("v_add_u32_e32 v5, s8, v3")], fields(-1, 0));
  EXPECT_TRUE(F.deficits(P).empty());
  // A DS read may overwrite the destination of an older DS read without waiting (in order);
  // a VALU write to it may not.
  Analysed B = analyse("\tds_read_b32 v2, v1\n"
                       "\tds_read_b32 v2, v1 offset:4\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\tv_mov_b32_e32 v2, 0\n");
  ASSERT_TRUE(B.Flow);
  WaitPlan Q = B.Flow->original();
  Q.Own[B.at("s_waitcnt lgkmcnt(0)")] = WaitFields{};
  std::vector<WaitDeficit> D = B.Flow->deficits(Q);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Index, B.at("v_mov_b32_e32 v2, 0"));
  EXPECT_EQ(D[0].Need, fields(-1, 0));
}

TEST(WaitFlow, MemoryOrderKeepsWhatTheOriginalCompleted) {
  // A load into LDS, completed before the barrier by the original: the other waves read those
  // bytes after it, so the wait cannot be relaxed although no register depends on it.
  Analysed A = analyse("\ts_load_dwordx4 s[4:7], s[0:1], 0x0\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\ts_mov_b32 m0, 0\n"
                       "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n"
                       "\tglobal_load_dword v2, v1, s[4:5]\n"
                       "\ts_waitcnt vmcnt(0)\n"
                       "\ts_barrier\n"
                       "\tds_read_b32 v3, v0\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\tv_add_u32_e32 v4, v3, v2\n");
  ASSERT_TRUE(A.Flow);
  const WaitFlow &F = *A.Flow;
  EXPECT_TRUE(F.deficits(F.original()).empty());
  EXPECT_EQ(F.relax(F.original(), A.at("s_waitcnt vmcnt(0)")), fields(0, -1));
  // Here the original waits only for the global load (vmcnt(1): the younger operation, the
  // load into LDS, stays outstanding across the barrier and under the DS read, as AITer's
  // prefetch does). That is no deficit: the candidate may leave outstanding what the original
  // did, never more; a barrier is a drain point, so the global load it completed stays
  // completed there.
  Analysed B = analyse("\ts_load_dwordx4 s[4:7], s[0:1], 0x0\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\ts_mov_b32 m0, 0\n"
                       "\tglobal_load_dword v2, v1, s[4:5]\n"
                       "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n"
                       "\ts_waitcnt vmcnt(1)\n"
                       "\ts_barrier\n"
                       "\tds_read_b32 v3, v0\n"
                       "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
                       "\tv_add_u32_e32 v4, v3, v2\n");
  ASSERT_TRUE(B.Flow);
  EXPECT_TRUE(B.Flow->deficits(B.Flow->original()).empty());
  EXPECT_EQ(B.Flow->relax(B.Flow->original(), B.at("s_waitcnt vmcnt(1)")), fields(1, -1));
  // Without the barrier's wait, the barrier sees the global load outstanding.
  WaitPlan P = B.Flow->original();
  P.Own[B.at("s_waitcnt vmcnt(1)")] = WaitFields{};
  std::vector<WaitDeficit> D = B.Flow->deficits(P);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Index, B.at("s_barrier"));
  EXPECT_EQ(D[0].Need, fields(1, -1));
  // Stores before an atomic: the original completed them first; so must the candidate.
  Analysed C = analyse("\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                       "\ts_waitcnt lgkmcnt(0)\n"
                       "\tglobal_store_dword v1, v2, s[2:3]\n"
                       "\ts_waitcnt vmcnt(0)\n"
                       "\tglobal_atomic_add v1, v3, s[2:3] offset:64\n");
  ASSERT_TRUE(C.Flow);
  EXPECT_EQ(C.Flow->relax(C.Flow->original(), C.at("s_waitcnt vmcnt(0)")), fields(0, -1));
}

// Two loads before a barrier, the older read before it, the younger after it; then a store
// before a second barrier.
const char *kAcrossBarrier = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                             "\ts_waitcnt lgkmcnt(0)\n"
                             "\tglobal_load_dword v2, v1, s[2:3]\n"
                             "\tglobal_load_dword v3, v1, s[2:3] offset:4\n"
                             "\ts_waitcnt vmcnt(0)\n"
                             "\tv_add_u32_e32 v4, v2, v0\n"
                             "\ts_barrier\n"
                             "\tv_add_u32_e32 v5, v3, v0\n"
                             "\tglobal_store_dword v1, v5, s[2:3]\n"
                             "\ts_waitcnt vmcnt(0)\n"
                             "\ts_barrier\n";

TEST(WaitFlow, LoadsStayInFlightAcrossABarrierOnlyWhenAllowed) {
  // vmcnt(1) before the first add (v2 is the older load) and vmcnt(0) right before the second:
  // v3's load is then in flight at the barrier, which the original had completed.
  for (bool Allow : {false, true}) {
    WaitFlowOptions O;
    O.LoadsCrossBarriers = Allow;
    Analysed A = analyse(kAcrossBarrier, O);
    ASSERT_TRUE(A.Flow);
    const WaitFlow &F = *A.Flow;
    WaitPlan P = F.original();
    P.Own[A.at("s_waitcnt vmcnt(0)")] = fields(1, -1);
    P.Pre[A.at("v_add_u32_e32 v5, v3, v0")] = fields(0, -1);
    std::vector<WaitDeficit> D = F.deficits(P);
    if (Allow) {
      EXPECT_TRUE(D.empty()) << D.size();
    } else {
      ASSERT_EQ(D.size(), 1u);
      EXPECT_EQ(D[0].Index, A.at("s_barrier"));
      EXPECT_EQ(D[0].Need, fields(0, -1));
    }
    // The store must still be complete at the second barrier, loads across barriers or not.
    WaitPlan Q = F.original();
    Q.Own[A.at("s_waitcnt vmcnt(0)", 1)] = WaitFields{};
    D = F.deficits(Q);
    ASSERT_EQ(D.size(), 1u) << Allow;
    EXPECT_EQ(D[0].Index, A.at("s_barrier", 1));
  }
  // Threadgroup-split kernels (compute_pgm_rsrc3 bit 16) and targets before gfx90a keep the rule.
  EXPECT_TRUE(loadsMayCrossBarriers(0, true));
  EXPECT_FALSE(loadsMayCrossBarriers(1u << 16, true));
  EXPECT_FALSE(loadsMayCrossBarriers(0, false));
}

TEST(WaitFlow, WithoutItsOwnReferenceTheCodesWaitsAreJudged) {
  // vmcnt(1) completes the older load (v2), not v3, which the add reads: a wrong wait. Judged
  // against its own waits (the default) the code is its own reference and has no deficit; with
  // no reference the add needs vmcnt(0).
  const char *Body = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                     "\ts_waitcnt lgkmcnt(0)\n"
                     "\tglobal_load_dword v2, v1, s[2:3]\n"
                     "\tglobal_load_dword v3, v1, s[2:3] offset:4\n"
                     "\ts_waitcnt vmcnt(1)\n"
                     "\tv_add_u32_e32 v5, v3, v0\n"
                     "\tglobal_store_dword v1, v5, s[2:3]\n";
  Analysed Own = analyse(Body);
  ASSERT_TRUE(Own.Flow);
  EXPECT_TRUE(Own.Flow->deficits(Own.Flow->original()).empty());
  WaitFlowOptions O;
  O.OwnReference = false;
  Analysed None = analyse(Body, O);
  ASSERT_TRUE(None.Flow);
  std::vector<WaitDeficit> D = None.Flow->deficits(None.Flow->original());
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Index, None.at("v_add_u32_e32 v5, v3, v0"));
  EXPECT_EQ(D[0].Need, fields(0, -1));
}

TEST(WaitFlow, RefusesRawWordsInTheFunction) {
  Analysed A;
  auto F = flowOf(A, "\ts_nop 0\n\t.long 0xbf800000\n");
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(llvm::toString(F.takeError()),
            "wait analysis: no instruction decodes at offset 0x4 (raw words in the function)");
}

TEST(WaitFlow, WaitcntText) {
  EXPECT_EQ(waitcntText(fields(1, -1)), "\ts_waitcnt vmcnt(1)");
  EXPECT_EQ(waitcntText(fields(-1, 0), 2), "\ts_waitcnt expcnt(2) lgkmcnt(0)");
  EXPECT_EQ(waitcntText(fields(3, 0)), "\ts_waitcnt vmcnt(3) lgkmcnt(0)");
  EXPECT_EQ(waitcntText(fields(-1, -1)), "");
}

} // namespace
