// The dependency graph and list scheduling (asm/DepGraph.h) on hand-written gfx942 code,
// assembled here: which pairs depend and why, and that the scheduler moves an independent load
// ahead of a long dependency chain without breaking any edge.
#include "AsmFixture.h"

#include "asm/DepGraph.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace asmevo;
using namespace asmevo::test;

namespace {

struct Code : MappedKernel {
  std::vector<const InstCost *> Run; // every instruction but the final s_endpgm
};

Code code(const std::string &Body) {
  Code C;
  if (!mapKernel(C, kernelSource("gfx942", Body, 64, 32, true, 1024), "dep.s"))
    return C;
  for (const CodeLine &L : C.Map.Code)
    if (L.Cost && !L.Cost->EndPgm)
      C.Run.push_back(L.Cost);
  return C;
}

bool dependsOn(const DepGraph &G, unsigned J, unsigned I) {
  return std::find(G.Preds[J].begin(), G.Preds[J].end(), I) != G.Preds[J].end();
}

TEST(DepGraph, LoadOrderFreeDropsOnlyTheOrderOfTwoLoads) {
  Code C = code("\tglobal_load_dword v4, v5, s[2:3]\n"            // 0
                "\tglobal_load_dwordx2 v[6:7], v5, s[2:3]\n"      // 1: independent load
                "\tglobal_load_dword v8, v4, s[2:3]\n"            // 2: address from 0
                "\tglobal_store_dword v5, v9, s[2:3]\n"           // 3: a store
                "\tbuffer_load_dword v10, v5, s[4:7], 0 offen\n"  // 4: a load after it
                "\tbuffer_load_dword v5, s[4:7], 0 offen lds\n"); // 5: into LDS
  ASSERT_EQ(C.Run.size(), 6u);
  EXPECT_TRUE(isPlainVmemLoad(*C.Run[0]));
  EXPECT_FALSE(isPlainVmemLoad(*C.Run[3]));
  DepGraph Kept = buildDepGraph(C.Run), Free = buildDepGraph(C.Run, true);
  EXPECT_TRUE(dependsOn(Kept, 1, 0)); // vmcnt issue order
  EXPECT_FALSE(dependsOn(Free, 1, 0));
  EXPECT_TRUE(dependsOn(Free, 2, 0)); // its address (RAW) stays
  EXPECT_FALSE(dependsOn(Free, 2, 1));
  EXPECT_TRUE(dependsOn(Free, 3, 0)); // a store keeps its place among the loads
  EXPECT_TRUE(dependsOn(Free, 4, 3));
  EXPECT_TRUE(dependsOn(Free, 5, 4)); // so does a load into LDS
}

TEST(DepGraph, RegistersCountersMemoryAndFences) {
  Code C = code("\tv_add_f32_e32 v2, v0, v1\n"          // 0
                "\tv_mul_f32_e32 v3, v2, v2\n"          // 1: reads v2 (RAW 0)
                "\tv_mov_b32_e32 v0, 0\n"               // 2: writes v0 (WAR 0)
                "\tglobal_load_dword v4, v5, s[2:3]\n"  // 3
                "\tglobal_store_dword v5, v3, s[2:3]\n" // 4: vmcnt order, RAW 1
                "\tds_read_b32 v6, v7\n"                // 5: independent of 3, 4
                "\ts_load_dword s8, s[0:1], 0x0\n"      // 6: lgkm order (5), store 4
                "\ts_nop 0\n"                           // 7: fence
                "\tv_add_u32_e32 v9, v8, v8\n"          // 8: after the fence
                "\ts_getpc_b64 s[10:11]\n");            // 9: fence
  ASSERT_EQ(C.Run.size(), 10u);
  DepGraph G = buildDepGraph(C.Run);
  EXPECT_TRUE(dependsOn(G, 1, 0));
  EXPECT_TRUE(dependsOn(G, 2, 0));
  EXPECT_FALSE(dependsOn(G, 2, 1));
  EXPECT_FALSE(dependsOn(G, 3, 0));
  EXPECT_FALSE(dependsOn(G, 3, 2)); // v0 is not what the load reads (v5)
  EXPECT_TRUE(dependsOn(G, 4, 3));  // both vmcnt: issue order kept
  EXPECT_TRUE(dependsOn(G, 4, 1));  // the store's data
  EXPECT_FALSE(dependsOn(G, 5, 3));
  EXPECT_FALSE(dependsOn(G, 5, 4));
  EXPECT_TRUE(dependsOn(G, 6, 5)); // both lgkmcnt
  EXPECT_TRUE(dependsOn(G, 6, 4)); // a scalar load after a vector store
  for (unsigned I = 0; I < 7; ++I) {
    EXPECT_TRUE(dependsOn(G, 7, I)) << I;
    EXPECT_TRUE(dependsOn(G, 9, I)) << I;
  }
  EXPECT_TRUE(dependsOn(G, 8, 7));
  EXPECT_TRUE(isSchedFence(*C.Run[7]));
  EXPECT_TRUE(isSchedFence(*C.Run[9]));
  EXPECT_FALSE(isSchedFence(*C.Run[3]));
  // The RAW edge waits for the producer's latency (LLVM's model), the others one cycle.
  auto delay = [&](unsigned J, unsigned I) {
    for (size_t P = 0; P < G.Preds[J].size(); ++P)
      if (G.Preds[J][P] == I)
        return G.Delay[J][P];
    return 0u;
  };
  EXPECT_EQ(delay(1, 0), 4 * C.Run[0]->LatencyQuads);
  EXPECT_EQ(delay(2, 0), 1u);
}

TEST(DepGraph, ListSchedulingHoistsAnIndependentLoadAboveAChain) {
  // A dependent chain of four VALU ops, then a load nothing before it feeds: the load goes
  // first (its latency is the longest path), the chain keeps its order.
  Code C = code("\tv_add_f32_e32 v2, v0, v1\n"
                "\tv_mul_f32_e32 v3, v2, v2\n"
                "\tv_add_f32_e32 v4, v3, v2\n"
                "\tv_mul_f32_e32 v5, v4, v3\n"
                "\tglobal_load_dword v6, v7, s[2:3]\n"
                "\tv_add_f32_e32 v8, v5, v0\n");
  ASSERT_EQ(C.Run.size(), 6u);
  DepGraph G = buildDepGraph(C.Run);
  for (SchedGoal Goal : {SchedGoal::CriticalPath, SchedGoal::LoadsEarly}) {
    std::vector<unsigned> O = listSchedule(G, C.Run, Goal);
    EXPECT_TRUE(respects(G, O));
    ASSERT_EQ(O.size(), 6u);
    EXPECT_EQ(O.front(), 4u);
    std::vector<unsigned> Rest(O.begin() + 1, O.end());
    EXPECT_EQ(Rest, (std::vector<unsigned>{0, 1, 2, 3, 5}));
  }
  // respects() refuses an order that breaks an edge, or is not a permutation.
  EXPECT_FALSE(respects(G, {1, 0, 2, 3, 4, 5}));
  EXPECT_FALSE(respects(G, {0, 0, 2, 3, 4, 5}));
  EXPECT_TRUE(respects(G, {0, 1, 2, 3, 4, 5}));
}

} // namespace
