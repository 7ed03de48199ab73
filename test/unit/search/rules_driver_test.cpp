// The rules driver on a real recovered kernel (Triton's gfx942 vector add): every rewrite it
// proposes is one the timing model can price, so none only sets or clears a load's
// cache-policy bits (issue 38: such candidates all timed at exactly 1.0000, and the driver spent
// its budget on them); and every proposal goes through the edit checks.
#include "DriverFixture.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;
using namespace asmevo::test;

namespace {

// The rules driver's proposals for the corpus kernel Name's function Kernel; Loads counts its
// vector-memory loads.
std::vector<Edit> proposals(const std::string &Name, const std::string &Kernel, unsigned &Loads) {
  std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
  if (!N)
    return {};
  Loads = 0;
  for (const CodeLine &L : N->Map.Code)
    Loads += L.Cost && L.Cost->Unit == InstUnit::Vmem && !L.Cost->Store;
  auto D = makeRulesDriver();
  return allProposals(*D, *N);
}

TEST(RulesDriver, ProposesNoCachePolicyToggles) {
  // The vector add's 8 loads were all the driver found to do there: toggling nt on each.
  unsigned Loads = 0;
  EXPECT_EQ(proposals("vector_add_fp32.hsaco", "add_kernel", Loads).size(), 0u);
  EXPECT_EQ(Loads, 8u);
  // The matmul has waits to relax and loads to hoist: those are still proposed, and none is a
  // cache-policy toggle.
  std::vector<Edit> E = proposals("matmul_fp16.hsaco", "matmul_kernel", Loads);
  EXPECT_GT(Loads, 0u);
  EXPECT_GT(E.size(), 0u);
  for (const Edit &X : E)
    EXPECT_EQ(X.Rationale.find("cache-policy"), std::string::npos) << X.Rationale;
}

// No rewrite breaks a wait state (an s_waitcnt is one too, and a hoist moves a producer): on the
// layer norm, the softmax and the matmul every proposal keeps them (DriverFixture.h), and the
// layer norm's relaxation of the lgkmcnt(0) between two DPP adds is dropped.
TEST(RulesDriver, NoRewriteBreaksAWaitState) {
  uint64_t Dropped = 0, Proposed = 0;
  for (auto [Name, Kernel] : {std::pair{"layernorm_fwd_fp16.hsaco", "layer_norm_fwd_kernel"},
                              std::pair{"softmax_fp32.hsaco", "softmax_kernel"},
                              std::pair{"matmul_fp16.hsaco", "matmul_kernel"}}) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    auto D = makeRulesDriver();
    Proposed += proposalsKeepWaitStates(*D, *N);
    Dropped += D->usage()["dropped_for_wait_states"].get<uint64_t>();
  }
  EXPECT_GT(Proposed, 0u);
  EXPECT_GT(Dropped, 0u);
}

} // namespace

namespace {

TEST(RulesDriver, HoistsNoLoadIntoASoftClauseItBreaks) {
  // Fused MoE's hoist: s_load_dword s2, s[2:3] moved next to the s_load before it forms a soft
  // clause in which it writes s2, which it reads itself (an XNACK replay would read the new
  // value): not proposed. With an independent destination the same hoist is.
  auto hoists = [](const std::string &Second) {
    std::unique_ptr<NodeView> N = handNode("\ts_load_dword s6, s[4:5], 0x0\n"
                                           "\tv_add_u32_e32 v1, v1, v2\n" +
                                               Second + "\ts_waitcnt lgkmcnt(0)\n",
                                           "rules_clause_k.hsaco");
    EXPECT_TRUE(N);
    size_t H = 0;
    if (!N)
      return H;
    auto D = makeRulesDriver();
    for (const Edit &E : allProposals(*D, *N))
      H += E.Rationale.rfind("hoist", 0) == 0;
    return H;
  };
  EXPECT_EQ(hoists("\ts_load_dword s2, s[2:3], 0x0\n"), 0u);
  EXPECT_EQ(hoists("\ts_load_dword s8, s[2:3], 0x0\n"), 1u);
}

} // namespace
