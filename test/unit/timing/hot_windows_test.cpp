// Hot windows and the loop nest, on a profile written by hand: an outer loop [4, 20) run twice
// around an inner loop [8, 16) run six times.
#include "timing/HotWindows.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace asmevo::timing;

namespace {

InstProfile inst(int64_t Off, uint64_t Execs, std::vector<std::string> Reads = {},
                 std::vector<std::string> Writes = {}, std::optional<int64_t> Target = {}) {
  InstProfile I;
  I.Offset = Off;
  I.Executions = Execs;
  I.Cycles.Issue = 4.0 * double(Execs);
  I.Reads = std::move(Reads);
  I.Writes = std::move(Writes);
  I.Target = Target;
  return I;
}

std::vector<InstProfile> profile() {
  std::vector<InstProfile> P = {
      inst(0, 1, {}, {"v1"}),                        // v_mov v1
      inst(4, 2),                                    // outer head
      inst(8, 6, {"v1"}, {"v2"}),                    // inner head: v2 = f(v1)
      inst(12, 6, {"s0", "v2"}, {"s0"}, int64_t(8)), // inner latch: s0 counts, back to 8
      inst(16, 2, {"v2"}, {}, int64_t(4)),           // outer latch: reads v2, back to 4
      inst(20, 1),                                   // s_endpgm
  };
  P[3].Cycles.WaitVm = 600; // the inner loop waits on memory
  return P;
}

TEST(HotWindows, LoopNestFromBackwardBranches) {
  auto L = loopNest(profile());
  ASSERT_EQ(L.size(), 2u);
  EXPECT_EQ(L[0].Begin, 4);
  EXPECT_EQ(L[0].End, 20);
  EXPECT_EQ(L[0].Depth, 1u);
  EXPECT_EQ(L[0].Iterations, 2u);
  EXPECT_EQ(L[1].Begin, 8);
  EXPECT_EQ(L[1].End, 16);
  EXPECT_EQ(L[1].Depth, 2u);
  EXPECT_EQ(L[1].Iterations, 6u);
  EXPECT_EQ(L[1].Cycles, 24 + 24 + 600); // the inner body: two instructions, six times, + wait
}

TEST(HotWindows, WindowsAreBlocksAsTheyRanHottestFirst) {
  auto P = profile();
  auto W = hotWindows(P, 10);
  ASSERT_EQ(W.size(), 5u);
  const HotWindow &H = W[0];
  EXPECT_EQ(H.Begin, 8);
  EXPECT_EQ(H.End, 16);
  EXPECT_EQ(H.Instructions, 2u);
  EXPECT_EQ(H.Executions, 6u);
  EXPECT_EQ(H.LoopDepth, 2u);
  EXPECT_EQ(H.LoopBegin, 8);
  EXPECT_EQ(H.LoopEnd, 16);
  EXPECT_EQ(H.WaitsOn, std::vector<std::string>{"vmcnt"});
  EXPECT_NEAR(H.Share, 648.0 / (4 + 8 + 24 + 24 + 600 + 8 + 4), 1e-12);
  // v1 and s0 are read before the window writes them; v2 is read after it (the outer latch)
  // and s0 by the window's next iteration.
  EXPECT_EQ(H.LiveIn, (std::vector<std::string>{"s0", "v1"}));
  EXPECT_EQ(H.LiveOut, (std::vector<std::string>{"s0", "v2"}));
  // The outer head starts its own window though it runs as often as the outer latch.
  EXPECT_EQ(W[1].Begin, 4);
  EXPECT_EQ(W[1].End, 8);
  EXPECT_EQ(W[1].LoopDepth, 1u);
  EXPECT_EQ(hotWindows(P, 2).size(), 2u);
}

// A straight-line block of ten instructions, run once: split after its s_waitcnt (index 4) and
// after the instruction that costs more than a fifth of the block (index 7); never into a piece
// of one instruction (the s_barrier at index 8 would leave one).
TEST(HotWindows, LongBlocksSplitAfterWaitsAndCostlyInstructions) {
  std::vector<InstProfile> P;
  for (int K = 0; K < 10; ++K) {
    P.push_back(inst(4 * K, 1));
    P.back().Size = 4;
    P.back().Text = "v_add_f32 v0, v0, v1";
  }
  P[4].Text = "s_waitcnt vmcnt(0)";
  P[4].Cycles.WaitVm = 10;
  P[7].Cycles.Dependency = 40; // 44 of 90
  P[8].Text = "s_barrier";
  auto W = hotWindows(P, 10);
  ASSERT_EQ(W.size(), 3u);
  std::sort(W.begin(), W.end(), [](auto &A, auto &B) { return A.Begin < B.Begin; });
  EXPECT_EQ(std::make_pair(W[0].Begin, W[0].End), std::make_pair(int64_t(0), int64_t(20)));
  EXPECT_EQ(std::make_pair(W[1].Begin, W[1].End), std::make_pair(int64_t(20), int64_t(32)));
  EXPECT_EQ(std::make_pair(W[2].Begin, W[2].End), std::make_pair(int64_t(32), int64_t(40)));
  EXPECT_EQ(W[0].Instructions + W[1].Instructions + W[2].Instructions, 10u);
  EXPECT_EQ(W[0].WaitsOn, std::vector<std::string>{"vmcnt"});
  // Inside a loop (a latch at the end branching back to the start) the block stays whole.
  auto Q = P;
  Q.back().Target = int64_t(0);
  EXPECT_EQ(hotWindows(Q, 10).size(), 1u);
  // A block under eight instructions stays whole.
  P.resize(7);
  EXPECT_EQ(hotWindows(P, 10).size(), 1u);
}

} // namespace
