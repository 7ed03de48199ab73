// The rules driver on a real recovered kernel (Triton's gfx942 vector add): every rewrite it
// proposes is one the timing model can price, so none only sets or clears a load's
// cache-policy bits (issue 38: such candidates all timed at exactly 1.0000, and the driver spent
// its budget on them); and every proposal goes through the edit checks.
#include "asm/LineMap.h"
#include "asm/Recover.h"
#include "codeobj/Input.h"
#include "search/Driver.h"
#include "search/Edit.h"
#include "search/NodeView.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

using namespace asmevo;
using namespace asmevo::search;

namespace {

// The rules driver's proposals for the corpus kernel Name's function Kernel (no hot windows:
// every instruction in text order). Each proposal must apply.
std::vector<Edit> proposals(const std::string &Name, const std::string &Kernel, unsigned &Loads) {
  std::string Path = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/gfx942/" + Name;
  std::vector<Edit> Out;
  NodeView N;
  N.Id = "n0";
  N.Kernel = Kernel;
  N.Target = "gfx942";
  auto O = openCodeObject(Path);
  EXPECT_TRUE(bool(O));
  if (!O)
    return Out;
  N.Obj = std::move(*O);
  auto R = recoverAssembly(N.Obj->C, Path, sha256Hex(N.Obj->C.Bytes), "k.s");
  EXPECT_TRUE(bool(R));
  if (!R)
    return Out;
  N.Text = R->Asm;
  auto S = SchedInfo::create(N.Obj->C);
  EXPECT_TRUE(bool(S));
  if (!S)
    return Out;
  N.Sched = std::move(*S);
  auto M = mapKernelLines(N.Obj->C, *N.Sched, N.Text, N.Kernel);
  EXPECT_TRUE(bool(M)) << (M ? "" : llvm::toString(M.takeError()));
  if (!M)
    return Out;
  N.Map = std::move(*M);
  Loads = 0;
  for (const CodeLine &L : N.Map.Code)
    Loads += L.Cost && L.Cost->Unit == InstUnit::Vmem && !L.Cost->Store;
  auto D = makeRulesDriver();
  while (auto P = D->propose(N, nlohmann::json::object())) {
    EXPECT_TRUE(P->E.has_value());
    if (!P->E || Out.size() > 1000)
      break;
    EditError Err;
    auto Text = applyEdits(N.Map, {*P->E}, EditLimits(), Err);
    EXPECT_TRUE(Text.has_value()) << P->E->Rationale << ": " << Err.Message;
    Out.push_back(*P->E);
  }
  return Out;
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

} // namespace
