// Hot windows: where a kernel's modeled time goes, as ranges of instructions the search can
// edit. A window is a run of consecutive instructions executed equally often (a basic block as
// it ran: a branch target or a branch ends one), ranked by the wave-cycles spent in it.
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
};

double totalCycles(const Breakdown &B);

// The windows of a profile (ModelResult::Insts, by offset), hottest first, at most Max.
std::vector<HotWindow> hotWindows(const std::vector<InstProfile> &Insts, unsigned Max);

nlohmann::json breakdownJson(const Breakdown &B);
// VgprHeadroom: the kernel's (ModelResult::VgprHeadroom), which every window shares.
nlohmann::json hotWindowJson(const HotWindow &W, const std::vector<InstProfile> &Insts,
                             unsigned VgprHeadroom);

} // namespace asmevo::timing
