// A kernel as a driver sees it (search/NodeView.h: no hot windows, so every instruction in text
// order): a recovered Triton corpus kernel or a hand-written one; and every proposal a driver
// makes from it, each checked to apply (search/Edit.h).
#pragma once

#include "asm/AsmFixture.h"
#include "asm/LineMap.h"
#include "asm/Rebuild.h"
#include "asm/Recover.h"
#include "codeobj/Input.h"
#include "device/StaticHazards.h"
#include "search/Driver.h"
#include "search/Edit.h"
#include "search/NodeView.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asmevo::test {

// The node of code object Path's function Kernel, whose text is Text (null, with a failure
// recorded, if it cannot be read or mapped).
inline std::unique_ptr<search::NodeView> nodeOf(const std::string &Path, const std::string &Kernel,
                                                std::string Text) {
  auto N = std::make_unique<search::NodeView>();
  N->Id = "n0";
  N->Kernel = Kernel;
  N->Target = "gfx942";
  N->Text = std::move(Text);
  auto O = openCodeObject(Path);
  EXPECT_TRUE(bool(O)) << (O ? "" : llvm::toString(O.takeError()));
  if (!O)
    return nullptr;
  N->Obj = std::move(*O);
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

// The node of the gfx942 corpus kernel Name's function Kernel, its text recovered.
inline std::unique_ptr<search::NodeView> corpusNode(const std::string &Name,
                                                    const std::string &Kernel) {
  std::string Path = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/gfx942/" + Name;
  auto O = openCodeObject(Path);
  EXPECT_TRUE(bool(O));
  if (!O)
    return nullptr;
  auto R = recoverAssembly((*O)->C, Path, sha256Hex((*O)->C.Bytes), "k.s");
  EXPECT_TRUE(bool(R));
  if (!R)
    return nullptr;
  return nodeOf(Path, Kernel, R->Asm);
}

// The node of a hand-written gfx942 kernel `k` running Body (asm/AsmFixture.h's kernelSource,
// one global buffer), its object written to the test's temporary directory as File.
inline std::unique_ptr<search::NodeView> handNode(const std::string &Body,
                                                  const std::string &File) {
  std::string Src = kernelSource("gfx942", Body, 64, 32, true);
  std::unique_ptr<Built> B = build(Src, "k.s");
  if (!B)
    return nullptr;
  std::string Path = ::testing::TempDir() + File;
  if (auto Err = writeFileAtomic(Path, B->Bytes)) {
    ADD_FAILURE() << llvm::toString(std::move(Err));
    return nullptr;
  }
  return nodeOf(Path, "k", Src);
}

// Every proposal D makes from node N (at most 1000), each checked to apply.
inline std::vector<std::vector<search::Edit>> allProposalSets(search::Driver &D,
                                                              const search::NodeView &N) {
  std::vector<std::vector<search::Edit>> Out;
  while (auto P = D.propose(N, nlohmann::json::object())) {
    EXPECT_TRUE(P->E.has_value());
    if (!P->E || Out.size() > 1000)
      break;
    std::vector<search::Edit> Es = {*P->E};
    Es.insert(Es.end(), P->More.begin(), P->More.end());
    search::EditError Err;
    auto Text = search::applyEdits(N.Map, Es, search::EditLimits(), Err);
    EXPECT_TRUE(Text.has_value()) << P->E->Rationale << ": " << Err.Message;
    Out.push_back(std::move(Es));
  }
  return Out;
}

// The same for drivers whose proposals are one edit each: the first edit of each proposal.
inline std::vector<search::Edit> allProposals(search::Driver &D, const search::NodeView &N) {
  std::vector<search::Edit> Out;
  for (std::vector<search::Edit> &Es : allProposalSets(D, N)) {
    EXPECT_EQ(Es.size(), 1u) << Es.front().Rationale;
    Out.push_back(std::move(Es.front()));
  }
  return Out;
}

// Every proposal D makes from N, rebuilt, has no wait-state hazard of a kind N's code does not
// have (kernel-diffcheck's static scan); D's usage names the first one it dropped. The number of
// proposals.
inline uint64_t proposalsKeepWaitStates(search::Driver &D, const search::NodeView &N) {
  auto H0 = device::staticHazards(N.Obj->C);
  EXPECT_TRUE(bool(H0));
  if (!H0)
    return 0;
  std::set<std::string> Kinds;
  for (const device::StaticHazard &H : *H0)
    Kinds.insert(H.kind());
  std::vector<std::vector<search::Edit>> Sets = allProposalSets(D, N);
  for (const std::vector<search::Edit> &Es : Sets) {
    const search::Edit &E = Es.front();
    search::EditError Err;
    auto Text = search::applyEdits(N.Map, Es, search::EditLimits(), Err);
    auto RB = rebuildFromAssembly(*Text, "k1.s", &N.Obj->C);
    EXPECT_TRUE(bool(RB)) << (RB ? "" : llvm::toString(RB.takeError()));
    if (!RB)
      continue;
    auto C = CodeObject::read(RB->Object, "k1.hsaco");
    EXPECT_TRUE(bool(C));
    auto H1 = C ? device::staticHazards(*C)
                : llvm::Expected<std::vector<device::StaticHazard>>(C.takeError());
    EXPECT_TRUE(bool(H1));
    if (!H1)
      continue;
    for (const device::StaticHazard &H : *H1) {
      EXPECT_TRUE(Kinds.count(H.kind())) << E.Rationale << ": " << H.Why;
    }
  }
  nlohmann::json U = D.usage();
  if (U.contains("dropped_for_wait_states") && U["dropped_for_wait_states"].get<uint64_t>() > 0) {
    EXPECT_NE(U["first_dropped"].get<std::string>().find("wait-state hazard"), std::string::npos)
        << U.dump();
  }
  return Sets.size();
}

} // namespace asmevo::test
