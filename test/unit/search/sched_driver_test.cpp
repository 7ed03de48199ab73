// The sched driver (search/SchedDriver.cpp): on every Triton gfx942 corpus kernel its proposals
// apply and only permute instruction lines between fences (the same lines, waits, nops, labels
// and branches where they were); on a hand-written kernel, the exact reordering.
#include "DriverFixture.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace asmevo;
using namespace asmevo::search;
using namespace asmevo::test;

namespace {

std::vector<std::string> lines(const std::string &Text) {
  std::vector<std::string> Out;
  llvm::SmallVector<llvm::StringRef> L;
  llvm::StringRef(Text).split(L, '\n');
  for (llvm::StringRef X : L)
    Out.push_back(X.str());
  return Out;
}

bool fenceLine(const std::string &L) {
  llvm::StringRef T = llvm::StringRef(L).trim();
  return T.empty() || T.ends_with(":") || T.starts_with(";") || T.starts_with("s_waitcnt") ||
         T.starts_with("s_nop") || T.starts_with("s_barrier") || T.starts_with("s_cbranch") ||
         T.starts_with("s_branch") || T.starts_with("s_getpc");
}

TEST(SchedDriver, CorpusProposalsOnlyPermuteLinesBetweenFences) {
  const std::vector<std::pair<std::string, std::string>> Kernels = {
      {"vector_add_fp32.hsaco", "add_kernel"},
      {"layernorm_fwd_fp16.hsaco", "layer_norm_fwd_kernel"},
      {"matmul_fp16.hsaco", "matmul_kernel"},
      {"flash_attn_fwd_fp16.hsaco", "attn_fwd_kernel"}};
  size_t Total = 0;
  for (const auto &[Name, Kernel] : Kernels) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    auto D = makeSchedDriver();
    std::vector<Edit> E = allProposals(*D, *N);
    for (const Edit &X : E) {
      std::vector<std::string> O = lines(X.Original), R = lines(X.Replacement);
      ASSERT_EQ(O.size(), R.size()) << Name << ": " << X.Rationale;
      for (size_t K = 0; K < O.size(); ++K) {
        if (fenceLine(O[K])) {
          EXPECT_EQ(R[K], O[K]) << Name << ": a fence moved: " << X.Rationale;
        }
      }
      std::vector<std::string> SO = O, SR = R;
      std::sort(SO.begin(), SO.end());
      std::sort(SR.begin(), SR.end());
      EXPECT_EQ(SO, SR) << Name << ": not a permutation: " << X.Rationale;
      EXPECT_NE(O, R) << Name;
    }
    Total += E.size();
  }
  EXPECT_GT(Total, 0u);
}

TEST(SchedDriver, HoistsAnIndependentLoadAboveAChain) {
  std::unique_ptr<NodeView> N = handNode("\tv_add_f32_e32 v2, v0, v1\n"
                                         "\tv_mul_f32_e32 v3, v2, v2\n"
                                         "\tglobal_load_dword v6, v7, s[2:3]\n"
                                         "\ts_waitcnt vmcnt(0)\n"
                                         "\tv_add_f32_e32 v8, v3, v6\n",
                                         "sched_driver_k.hsaco");
  ASSERT_TRUE(N);
  auto D = makeSchedDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  // One run (the three lines before the wait); both goals give the same order, so one edit for
  // the whole function; the run alone is the same edit again and is not repeated.
  ASSERT_EQ(E.size(), 1u);
  EXPECT_EQ(E[0].Replacement, "\tglobal_load_dword v6, v7, s[2:3]\n\tv_add_f32_e32 v2, v0, v1\n"
                              "\tv_mul_f32_e32 v3, v2, v2");
}

} // namespace

// No proposed order breaks a wait state (DriverFixture.h's proposalsKeepWaitStates); the softmax
// and the layer norm have orders that would (a v_cndmask moved next to the v_cmp writing its
// mask, a DPP read next to the VALU writing its source), dropped and counted.
TEST(SchedDriver, NoProposedOrderBreaksAWaitState) {
  uint64_t Dropped = 0, Proposed = 0;
  for (auto [Name, Kernel] : {std::pair{"softmax_fp32.hsaco", "softmax_kernel"},
                              std::pair{"layernorm_fwd_fp16.hsaco", "layer_norm_fwd_kernel"}}) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    auto D = makeSchedDriver();
    Proposed += proposalsKeepWaitStates(*D, *N);
    Dropped += D->usage()["dropped_for_wait_states"].get<uint64_t>();
  }
  EXPECT_GT(Proposed, 0u);
  EXPECT_GT(Dropped, 0u);
}
