// Hot windows: where a kernel's modeled time goes, as ranges of instructions the search can
// edit. A window is a run of consecutive instructions executed equally often (a basic block as
// it ran: a branch target or a branch ends one), ranked by the wave-cycles spent in it. A block
// of 8 or more instructions outside every loop is split further after each instruction that waits
// (s_waitcnt, s_barrier) and after each that costs a fifth of the block or more, every piece at
// least two instructions, so that a straight-line kernel gives several ranked targets, not one.
#pragma once

#include "timing/Model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::timing {

struct HotWindow {
  int64_t Begin = 0, End = 0; // offsets from the kernel's entry: [Begin, End)
  unsigned Instructions = 0;
  uint64_t Executions = 0;          // of each of its instructions, summed over the simulated waves
  Breakdown Cycles;                 // summed over its instructions
  double Share = 0;                 // of all wave-cycles
  std::vector<std::string> WaitsOn; // "vmcnt", "lgkmcnt", "expcnt", "barrier": what it waits on
  // Registers it reads before writing them (live in), and registers it writes that an executed
  // instruction outside it reads (live out: conservative, as any path may reach that read).
  std::vector<std::string> LiveIn, LiveOut;
  unsigned LoopDepth = 0;             // loops (of loopNest) that contain it; 0: straight-line code
  int64_t LoopBegin = 0, LoopEnd = 0; // the innermost one, when LoopDepth > 0
};

// A loop of the kernel as it ran: the body [Begin, End) of a backward branch (the latch at
// End - its size jumps back to Begin), latches to one head merged; Depth 1 outermost.
struct Loop {
  int64_t Begin = 0, End = 0;
  unsigned Depth = 1;
  uint64_t Iterations = 0; // executions of its head
  double Cycles = 0;       // wave-cycles of its body (nested loops included)
  double Share = 0;        // of all wave-cycles
};

// The loop nest from the backward branches of a profile (by offset), outermost first.
std::vector<Loop> loopNest(const std::vector<InstProfile> &Insts);
nlohmann::json loopJson(const Loop &L);

// A profile's report: {"instructions", "hot_windows" (at most MaxWindows), "loops"}.
nlohmann::json profileJson(const std::vector<InstProfile> &Insts, unsigned MaxWindows,
                           unsigned VgprHeadroom);

double totalCycles(const Breakdown &B);

// The windows of a profile (ModelResult::Insts, by offset), hottest first, at most Max.
std::vector<HotWindow> hotWindows(const std::vector<InstProfile> &Insts, unsigned Max);

nlohmann::json breakdownJson(const Breakdown &B);
// VgprHeadroom: the kernel's (ModelResult::VgprHeadroom), which every window shares.
nlohmann::json hotWindowJson(const HotWindow &W, const std::vector<InstProfile> &Insts,
                             unsigned VgprHeadroom);

} // namespace asmevo::timing
