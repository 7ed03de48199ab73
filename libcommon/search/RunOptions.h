// The options a search records in run.json, and what --resume does with them. Some decide what
// the lineage's verdicts mean, so they are fixed for the whole run: the backend (modeled or
// measured times), the differential check's seeds, the commit gate (epsilon, k, s_floor), the
// timing model's sample (max_groups) and parameter sets (ensemble, ensemble_seed: the nodes'
// per-set speedups pair by index only under the same sets) and the team start (team_from,
// team_member). A resume that
// gives one of them with another value is refused, naming the option and both values; one it
// leaves out is taken from run.json. The others (driver, workers, stall, the budgets, the
// driver's own options) may change: this invocation's values hold, and the notes say which
// differ from the run's start.
#pragma once

#include "search/Agent.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace asmevo::search {

// run.json's "options" for O.
nlohmann::json runOptionsJson(const AgentOptions &O);

// Check O against the options run.json recorded (RunJson names the file in messages): an
// error naming every fixed option given with another value; else O with the fixed options it
// left out taken from run.json, and one note per option that changed ("--driver stochastic
// (the run started with rules)").
llvm::Expected<std::vector<std::string>> resumeOptions(const nlohmann::json &Recorded,
                                                       const std::string &RunJson, AgentOptions &O);

} // namespace asmevo::search
