// A recovered Triton corpus kernel as a driver sees it (search/NodeView.h: no hot windows, so
// every instruction in text order), and every proposal a driver makes from it, each checked to
// apply (search/Edit.h).
#pragma once

#include "asm/LineMap.h"
#include "asm/Recover.h"
#include "codeobj/Input.h"
#include "search/Driver.h"
#include "search/Edit.h"
#include "search/NodeView.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace asmevo::test {

// The node of the gfx942 corpus kernel Name's function Kernel; null (with a failure) if it
// cannot be recovered and mapped.
inline std::unique_ptr<search::NodeView> corpusNode(const std::string &Name,
                                                    const std::string &Kernel) {
  std::string Path = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/gfx942/" + Name;
  auto N = std::make_unique<search::NodeView>();
  N->Id = "n0";
  N->Kernel = Kernel;
  N->Target = "gfx942";
  auto O = openCodeObject(Path);
  EXPECT_TRUE(bool(O));
  if (!O)
    return nullptr;
  N->Obj = std::move(*O);
  auto R = recoverAssembly(N->Obj->C, Path, sha256Hex(N->Obj->C.Bytes), "k.s");
  EXPECT_TRUE(bool(R));
  if (!R)
    return nullptr;
  N->Text = R->Asm;
  auto S = SchedInfo::create(N->Obj->C);
  EXPECT_TRUE(bool(S));
  if (!S)
    return nullptr;
  N->Sched = std::move(*S);
  auto M = mapKernelLines(N->Obj->C, *N->Sched, N->Text, N->Kernel);
  EXPECT_TRUE(bool(M)) << (M ? "" : llvm::toString(M.takeError()));
  if (!M)
    return nullptr;
  N->Map = std::move(*M);
  return N;
}

// Every proposal D makes from node N (at most 1000), each checked to apply.
inline std::vector<search::Edit> allProposals(search::Driver &D, const search::NodeView &N) {
  std::vector<search::Edit> Out;
  while (auto P = D.propose(N, nlohmann::json::object())) {
    EXPECT_TRUE(P->E.has_value());
    if (!P->E || Out.size() > 1000)
      break;
    search::EditError Err;
    auto Text = search::applyEdits(N.Map, {*P->E}, search::EditLimits(), Err);
    EXPECT_TRUE(Text.has_value()) << P->E->Rationale << ": " << Err.Message;
    Out.push_back(*P->E);
  }
  return Out;
}

} // namespace asmevo::test
