// What a driver sees of a verified node: its text, its code object, each line's instruction and
// cost (asm/LineMap.h, asm/SchedInfo.h), its modeled profile and hot windows mapped to lines, and
// the context JSON an external driver reads (format "asmevo-context").
#pragma once

#include "asm/LineMap.h"
#include "asm/SchedInfo.h"
#include "asm/WaitFlow.h"
#include "codeobj/Input.h"
#include "search/GatedEval.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace asmevo::search {

struct HotLines {
  size_t First = 0, Last = 0; // 0-based text lines
  double Share = 0;
  nlohmann::json Window; // kernel-time's hot window (offsets, waits, live registers, code)
};

struct NodeView {
  std::string Id;
  double Speedup = 1;
  std::string Text;
  std::unique_ptr<OpenCodeObject> Obj;
  std::unique_ptr<SchedInfo> Sched;
  KernelLines Map;
  std::vector<HotLines> Hot; // hottest first; empty when the node could not be profiled
  nlohmann::json Profile;    // kernel-time's profile of the node ("instructions", "loops",
                             // "occupancy": waves per SIMD, its limit, VGPR headroom)
  std::string Kernel, Target;
};

// Load node Dir (cand.s, cand.hsaco) and profile it against K0 on the model (when O.Backend
// is emu; on hip there is no per-node model profile, and Hot stays empty).
llvm::Expected<std::unique_ptr<NodeView>> loadNodeView(const std::string &Id,
                                                       const std::string &Dir, double Speedup,
                                                       bool IsRoot, const EvalOptions &O);

// The wait-counter analysis of N's kernel (asm/WaitFlow.h), its instruction K being N.Map.Code[K];
// null when it cannot be analysed (raw words in the function, a branch without a known target).
// It points into N's instruction costs: it lives no longer than N.
std::unique_ptr<WaitFlow> waitFlowOf(const NodeView &N);
// The analysis options N's kernel allows (loads across barriers where its descriptor and target
// allow them, asm/WaitFlow.h).
WaitFlowOptions waitFlowOptionsOf(const NodeView &N);

// The 0-based line of the code line at Offset, if one.
std::optional<size_t> lineOfOffset(const KernelLines &M, uint64_t Offset);

} // namespace asmevo::search
