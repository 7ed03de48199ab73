// The waits driver (search/WaitsDriver.cpp): on a hand-written kernel, exactly the edits the
// dataflow calls for, in order, and none that changes nothing; on every Triton gfx942 corpus
// kernel, proposals that all apply and each change only s_waitcnt lines.
#include "DriverFixture.h"

#include <gtest/gtest.h>

#include <set>

using namespace asmevo;
using namespace asmevo::search;
using namespace asmevo::test;

namespace {

// The lines of Text that are not s_waitcnt, in order.
std::vector<std::string> nonWaitLines(const std::string &Text) {
  std::vector<std::string> Out;
  if (Text.empty())
    return Out;
  llvm::SmallVector<llvm::StringRef> L;
  llvm::StringRef(Text).split(L, '\n');
  for (llvm::StringRef X : L)
    if (!X.trim().starts_with("s_waitcnt"))
      Out.push_back(X.str());
  return Out;
}

// Loads, adds, stores and a branch, with four waits (see ProposesWhatTheDataflowCallsForInOrder).
const char *kBody = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\tglobal_load_dword v2, v1, s[2:3]\n"
                    "\tglobal_load_dword v3, v1, s[2:3] offset:4\n"
                    "\ts_waitcnt vmcnt(0)\n"
                    "\tv_add_u32_e32 v4, v2, v0\n"
                    "\tglobal_store_dword v1, v4, s[2:3]\n"
                    "\ts_waitcnt vmcnt(0)\n"
                    "\tv_add_u32_e32 v5, v3, v0\n"
                    "\tglobal_store_dword v1, v5, s[2:3] offset:8\n"
                    "\ts_cmp_eq_u32 s2, 0\n"
                    "\tglobal_load_dword v6, v1, s[2:3] offset:12\n"
                    "\ts_waitcnt vmcnt(0)\n"
                    "\ts_cbranch_scc1 .Lskip\n"
                    "\tv_add_u32_e32 v7, v6, v0\n"
                    "\tglobal_store_dword v1, v7, s[2:3] offset:16\n"
                    ".Lskip:\n";

TEST(WaitsDriver, ProposesWhatTheDataflowCallsForInOrder) {
  std::unique_ptr<NodeView> N = handNode(kBody, "waits_driver_k.hsaco");
  ASSERT_TRUE(N);
  auto D = makeWaitsDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  auto lineOf = [&](const std::string &T, unsigned Nth = 0) {
    for (size_t K = 0; K < N->Map.Lines.size(); ++K)
      if (N->Map.Lines[K] == T && Nth-- == 0)
        return unsigned(K + 1);
    ADD_FAILURE() << "no line " << T;
    return 0u;
  };
  unsigned W1 = lineOf("\ts_waitcnt vmcnt(0)"), W2 = lineOf("\ts_waitcnt vmcnt(0)", 1),
           W3 = lineOf("\ts_waitcnt vmcnt(0)", 2);
  // The lgkmcnt wait guards s[2:3] for the very next load: nothing to relax, and sunk it is the
  // same text, which is not proposed. W1: the first add needs only the older load (vmcnt(1));
  // sunk, it is the same placement. W2: W1 already completed v3's load, and a store needs no
  // wait before another store: it goes, an s_nop 0 keeping its wait state. W3: only the
  // fall-through arm reads v6, so sunk it moves into that arm; relaxed in place it cannot be (that
  // arm needs vmcnt(0)).
  std::string All;
  for (const Edit &X : E)
    All += std::to_string(X.W.FirstLine) + "-" + std::to_string(X.W.LastLine) + ": " + X.Rationale +
           "\n" + X.Replacement + "\n";
  ASSERT_EQ(E.size(), 3u) << All;
  EXPECT_EQ(E[0].W.FirstLine, W1);
  EXPECT_EQ(E[0].W.LastLine, W1);
  EXPECT_EQ(E[0].Replacement, "\ts_waitcnt vmcnt(1)");
  EXPECT_EQ(E[1].W.FirstLine, W2);
  EXPECT_EQ(E[1].W.LastLine, W2);
  EXPECT_EQ(E[1].Replacement, "\ts_nop 0"); // the wait state it held stays
  EXPECT_EQ(E[2].W.FirstLine, W3);
  EXPECT_EQ(E[2].W.LastLine, W3 + 2);
  EXPECT_EQ(E[2].Replacement, "\ts_nop 0\n\ts_cbranch_scc1 .Lskip\n\ts_waitcnt vmcnt(0)\n"
                              "\tv_add_u32_e32 v7, v6, v0");
  for (const Edit &X : E)
    EXPECT_EQ(X.Direction, "latency hiding");
}

// The controller may hand a node over again as a new NodeView (the old one destroyed): the
// driver goes on where it was, from the new view (agent_bench crashed in the old view's freed
// instruction costs).
TEST(WaitsDriver, GoesOnFromANewViewOfTheSameNode) {
  std::unique_ptr<NodeView> N = handNode(kBody, "waits_driver_k.hsaco");
  ASSERT_TRUE(N);
  auto Ref = makeWaitsDriver();
  std::vector<Edit> All = allProposals(*Ref, *N);
  ASSERT_EQ(All.size(), 3u);
  auto D = makeWaitsDriver();
  std::vector<Edit> Got;
  for (size_t K = 0; K < All.size() + 1; ++K) {
    std::unique_ptr<NodeView> View = handNode(kBody, "waits_driver_k.hsaco"); // then destroyed
    ASSERT_TRUE(View);
    std::optional<Proposal> P = D->propose(*View, nlohmann::json::object());
    if (!P)
      break;
    ASSERT_TRUE(P->E);
    Got.push_back(*P->E);
  }
  ASSERT_EQ(Got.size(), All.size());
  for (size_t K = 0; K < All.size(); ++K)
    EXPECT_EQ(Got[K].Replacement, All[K].Replacement) << K;
}

// A list of drivers proposes in turn: one from each while both have proposals, then the rest.
TEST(WaitsDriver, InAListTheDriversProposeInTurn) {
  std::unique_ptr<NodeView> N = handNode(kBody, "waits_driver_k.hsaco");
  ASSERT_TRUE(N);
  auto W = makeWaitsDriver();
  auto R = makeRulesDriver();
  std::vector<Edit> EW = allProposals(*W, *N), ER = allProposals(*R, *N);
  ASSERT_GT(EW.size(), 0u);
  ASSERT_GT(ER.size(), 0u);
  DriverOptions O;
  auto C = makeDriver("waits,rules", O);
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  std::vector<Edit> EC = allProposals(**C, *N);
  ASSERT_EQ(EC.size(), EW.size() + ER.size());
  std::vector<const Edit *> Expect;
  for (size_t K = 0; K < std::max(EW.size(), ER.size()); ++K) {
    if (K < EW.size())
      Expect.push_back(&EW[K]);
    if (K < ER.size())
      Expect.push_back(&ER[K]);
  }
  for (size_t K = 0; K < EC.size(); ++K) {
    EXPECT_EQ(EC[K].W.FirstLine, Expect[K]->W.FirstLine) << K;
    EXPECT_EQ(EC[K].Replacement, Expect[K]->Replacement) << K;
    EXPECT_EQ(EC[K].Rationale, Expect[K]->Rationale) << K;
  }
}

// A K loop as Triton's single-stage fused MoE has it: two loads, the one whose data is written
// to LDS first issued last (after its address), so its vmcnt(0) waits for both.
const char *kLoop = "\ts_load_dwordx2 s[2:3], s[0:1], 0x0\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\ts_mov_b32 s4, 4\n"
                    ".Lloop:\n"
                    "\tglobal_load_dwordx4 v[10:13], v1, s[2:3]\n"
                    "\tv_add_u32_e32 v2, 64, v1\n"
                    "\tglobal_load_dwordx2 v[20:21], v2, s[2:3]\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\ts_barrier\n"
                    "\ts_waitcnt vmcnt(0)\n"
                    "\tds_write_b64 v0, v[20:21]\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\ts_barrier\n"
                    "\tds_write_b64 v0, v[10:11] offset:256\n"
                    "\ts_sub_u32 s4, s4, 1\n"
                    "\ts_cmp_lg_u32 s4, 0\n"
                    "\ts_cbranch_scc1 .Lloop\n";

TEST(WaitsDriver, IssuesLoadsInTheOrderTheirDataIsUsed) {
  std::unique_ptr<NodeView> N = handNode(kLoop, "waits_driver_loop.hsaco");
  ASSERT_TRUE(N);
  // The loop is the node's hot window (the fixture has no profile).
  size_t First = 0, Last = 0;
  for (size_t K = 0; K < N->Map.Lines.size(); ++K) {
    if (N->Map.Lines[K] == "\tglobal_load_dwordx4 v[10:13], v1, s[2:3]")
      First = K;
    if (N->Map.Lines[K] == "\ts_cbranch_scc1 .Lloop")
      Last = K;
  }
  ASSERT_LT(First, Last);
  N->Hot.push_back(HotLines{First, Last, 1.0, nlohmann::json::object()});
  auto D = makeWaitsDriver();
  std::vector<Edit> E = allProposals(*D, *N);
  ASSERT_FALSE(E.empty());
  // First: the first-needed load (and the address it needs) issued first, the write of v[20:21]
  // waiting for its load only (vmcnt(1)), the
  // barrier passed with the other load in flight (gfx942, not threadgroup-split), and a vmcnt(0)
  // before the write that reads it.
  EXPECT_EQ(E[0].W.FirstLine, First + 1);
  EXPECT_EQ(E[0].Replacement, "\tv_add_u32_e32 v2, 64, v1\n"
                              "\tglobal_load_dwordx2 v[20:21], v2, s[2:3]\n"
                              "\tglobal_load_dwordx4 v[10:13], v1, s[2:3]\n"
                              "\ts_waitcnt lgkmcnt(0)\n"
                              "\ts_barrier\n"
                              "\ts_waitcnt vmcnt(1)\n"
                              "\tds_write_b64 v0, v[20:21]\n"
                              "\ts_waitcnt lgkmcnt(0)\n"
                              "\ts_barrier\n"
                              "\ts_waitcnt vmcnt(0)\n"
                              "\tds_write_b64 v0, v[10:11] offset:256")
      << E[0].Rationale;
  EXPECT_NE(E[0].Rationale.find("in the order their data is first used"), std::string::npos);
  // In the order they are, no placement can relax the vmcnt(0): the later-issued load is the one
  // the first write needs; no other proposal reorders.
  for (size_t K = 1; K < E.size(); ++K)
    EXPECT_EQ(E[K].Rationale.find("in the order their data"), std::string::npos) << K;
}

// The same loop where the first-needed load overwrites its own address: issued right before the
// other load, the two would form a soft clause an XNACK replay gets wrong (the strict checks'
// xnack-soft-clause, seen on the AWQ GEMM): no reordering is proposed.
TEST(WaitsDriver, NoReorderingThatMakesABadSoftClause) {
  std::string Body = kLoop;
  auto Replace = [&](const std::string &From, const std::string &To) {
    size_t At = Body.find(From);
    ASSERT_NE(At, std::string::npos) << From;
    Body.replace(At, From.size(), To);
  };
  Replace("global_load_dwordx2 v[20:21], v2, s[2:3]", "global_load_dwordx2 v[2:3], v2, s[2:3]");
  Replace("ds_write_b64 v0, v[20:21]", "ds_write_b64 v0, v[2:3]");
  std::unique_ptr<NodeView> N = handNode(Body, "waits_driver_clause.hsaco");
  ASSERT_TRUE(N);
  N->Hot.push_back(HotLines{N->Map.FirstEditable, N->Map.End - 1, 1.0, nlohmann::json::object()});
  auto D = makeWaitsDriver();
  for (const Edit &X : allProposals(*D, *N))
    EXPECT_EQ(X.Rationale.find("in the order their data is first used"), std::string::npos)
        << X.Replacement;
}

// With the whole body as one hot window, the reordering proposals on the corpus kernels only
// permute instructions (and move waits): the same non-wait lines, in another order.
TEST(WaitsDriver, CorpusReorderingsPermuteTheLines) {
  const std::vector<std::pair<std::string, std::string>> Kernels = {
      {"matmul_fp16.hsaco", "matmul_kernel"},
      {"fused_moe_fp16.hsaco", "fused_moe_kernel"},
      {"awq_gemm_fp16.hsaco", "awq_gemm_kernel"},
      {"w8a8_block_fp8e4m3fnuz_bf16.hsaco", "w8a8_block_fp8_matmul_kernel"}};
  size_t Reorders = 0;
  for (const auto &[Name, Kernel] : Kernels) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    N->Hot.push_back(HotLines{N->Map.FirstEditable, N->Map.End - 1, 1.0, nlohmann::json::object()});
    auto D = makeWaitsDriver();
    for (const Edit &X : allProposals(*D, *N)) {
      if (X.Rationale.find("in the order their data is first used") == std::string::npos)
        continue;
      ++Reorders;
      auto sorted = [](std::vector<std::string> V) {
        V.erase(std::remove(V.begin(), V.end(), "\ts_nop 0"), V.end());
        std::sort(V.begin(), V.end());
        return V;
      };
      EXPECT_EQ(sorted(nonWaitLines(X.Original)), sorted(nonWaitLines(X.Replacement)))
          << Name << ": " << X.Rationale;
      EXPECT_NE(nonWaitLines(X.Original), nonWaitLines(X.Replacement)) << Name;
    }
  }
  EXPECT_GE(Reorders, 2u); // the fused MoE's and the W8A8 GEMM's K loops at least
}

TEST(WaitsDriver, CorpusProposalsApplyAndChangeOnlyWaits) {
  const std::vector<std::pair<std::string, std::string>> Kernels = {
      {"vector_add_fp32.hsaco", "add_kernel"},
      {"softmax_fp32.hsaco", "softmax_kernel"},
      {"layernorm_fwd_fp16.hsaco", "layer_norm_fwd_kernel"},
      {"matmul_fp16.hsaco", "matmul_kernel"},
      {"matmul_fp8e4m3_f32.hsaco", "matmul_kernel"},
      {"flash_attn_fwd_fp16.hsaco", "attn_fwd_kernel"},
      {"fused_moe_fp16.hsaco", "fused_moe_kernel"}};
  size_t Total = 0;
  for (const auto &[Name, Kernel] : Kernels) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    auto D = makeWaitsDriver();
    std::vector<Edit> E = allProposals(*D, *N);
    std::set<std::string> Seen;
    for (const Edit &X : E) {
      // Only waits move (a wait taken out leaves an s_nop 0): the other lines of the window are
      // kept, in order.
      std::vector<std::string> O = nonWaitLines(X.Original), R = nonWaitLines(X.Replacement);
      std::vector<std::string> Kept;
      for (size_t A = 0, B = 0; B < R.size(); ++B)
        if (A < O.size() && R[B] == O[A])
          Kept.push_back(R[B]), ++A;
        else
          EXPECT_EQ(R[B], "\ts_nop 0") << Name << ": " << X.Rationale;
      EXPECT_EQ(Kept, O) << Name << ": " << X.Rationale;
      EXPECT_NE(X.Original, X.Replacement) << Name;
      EXPECT_TRUE(Seen.insert(std::to_string(X.W.FirstLine) + ":" + X.Replacement).second)
          << Name << ": proposed twice: " << X.Rationale;
    }
    Total += E.size();
  }
  // LLVM placed these kernels' waits already; the dataflow still finds some (over loops and
  // across blocks, which LLVM's pass also sees, so few).
  EXPECT_GT(Total, 0u);
}

} // namespace
