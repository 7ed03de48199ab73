// The stochastic driver's moves respect the static analyses (search/StochasticDriver.cpp): over
// many draws on real Triton kernels, no swap exchanges two instructions of which one writes what
// the other reads or writes, two operations of one wait counter, or a fence; no wait is moved or
// deleted where the wait analysis finds a need left unmet; no other instruction is deleted
// whose result is read before it is written again.
#include "DriverFixture.h"

#include "asm/DepGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

using namespace asmevo;
using namespace asmevo::search;
using namespace asmevo::test;

namespace {

bool shares(const std::vector<std::string> &A, const std::vector<std::string> &B) {
  for (const std::string &X : A)
    if (std::find(B.begin(), B.end(), X) != B.end())
      return true;
  return false;
}

TEST(StochasticDriver, MovesRespectTheDependencyGraphAndTheWaitAnalysis) {
  const std::vector<std::pair<std::string, std::string>> Kernels = {
      {"matmul_fp16.hsaco", "matmul_kernel"},
      {"layernorm_fwd_fp16.hsaco", "layer_norm_fwd_kernel"},
      {"flash_attn_fwd_fp16.hsaco", "attn_fwd_kernel"}};
  std::map<std::string, unsigned> Kinds;
  for (const auto &[Name, Kernel] : Kernels) {
    std::unique_ptr<NodeView> N = corpusNode(Name, Kernel);
    ASSERT_TRUE(N) << Name;
    std::map<size_t, const InstCost *> AtLine;
    for (const CodeLine &L : N->Map.Code)
      AtLine[L.Line] = L.Cost;
    std::unique_ptr<WaitFlow> F = waitFlowOf(*N);
    ASSERT_TRUE(F) << Name;
    auto D = makeStochasticDriver(7);
    for (int K = 0; K < 300; ++K) {
      std::optional<Proposal> P = D->propose(*N, nlohmann::json::object());
      if (!P)
        break;
      ASSERT_TRUE(P->E);
      const Edit &E = *P->E;
      size_t First = E.W.FirstLine - 1, Last = E.W.LastLine - 1;
      ++Kinds[E.Rationale];
      if (E.Rationale == "swap two adjacent independent instructions") {
        const InstCost &A = *AtLine.at(First), &B = *AtLine.at(Last);
        EXPECT_FALSE(shares(A.Writes, B.Reads) || shares(A.Reads, B.Writes) ||
                     shares(A.Writes, B.Writes))
            << Name << ": " << A.Text << " / " << B.Text;
        EXPECT_FALSE((A.Vm && B.Vm) || (A.Lgkm && B.Lgkm))
            << Name << ": " << A.Text << " / " << B.Text;
        EXPECT_FALSE(isSchedFence(A) || isSchedFence(B))
            << Name << ": " << A.Text << " / " << B.Text;
      } else if (E.Rationale == "move an s_waitcnt down by one instruction" ||
                 E.Rationale == "delete an s_waitcnt every path already meets") {
        EXPECT_EQ(AtLine.at(First)->Mnemonic, "s_waitcnt");
      } else {
        ASSERT_EQ(E.Rationale,
                  "delete an instruction whose results are written again before any read");
        const InstCost &C = *AtLine.at(First);
        EXPECT_FALSE(C.Vm || C.Lgkm || isSchedFence(C)) << C.Text;
        // Independently: the next instructions of the text overwrite its results before reading.
        std::vector<std::string> Live = C.Writes;
        for (auto It = std::next(AtLine.find(First)); It != AtLine.end() && !Live.empty(); ++It) {
          ASSERT_TRUE(It->second);
          EXPECT_FALSE(shares(It->second->Reads, Live)) << Name << ": " << C.Text;
          for (const std::string &W : It->second->Writes)
            Live.erase(std::remove(Live.begin(), Live.end(), W), Live.end());
        }
      }
    }
  }
  // The draws reached every kind of move somewhere.
  EXPECT_GT(Kinds["swap two adjacent independent instructions"], 0u);
  EXPECT_GT(Kinds["move an s_waitcnt down by one instruction"], 0u);
}

} // namespace
