// Proposals that break a wait state, dropped before they are proposed: each edit, when its turn
// comes, is applied to the node's text, rebuilt, and put to the differential check's static
// wait-state check (check::checkCandidateWaitStates) against the node's code. An edit that check
// would refuse is dropped by the driver that reorders instructions without knowing wait states
// (rules' hoists and wait moves, sched's orders) instead of being spent as a candidate.
#pragma once

#include "search/Driver.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::search {

// Why the differential check's static wait-state check would refuse the code of Es (one proposal's
// edits, applied together) (its message); "" when it would not, or when Es do not apply or
// rebuild (the gate judges those).
std::string waitStateRefusal(const NodeView &N, const std::vector<Edit> &Es);
// The same for a whole candidate text of N's kernel.
std::string waitStateRefusalOfText(const NodeView &N, const std::string &Text);

class WaitStateFilter {
public:
  // Whether proposal Es keeps every wait state: check::checkCandidateWaitStates, the
  // differential check's own predicate, accepts its code against N's. True when Es do not apply
  // or rebuild (the gate judges then). Each proposal refused is counted.
  bool keeps(const NodeView &N, const std::vector<Edit> &Es);
  // {"dropped_for_wait_states": N, "first_dropped": "<rationale>: <hazard>"}.
  nlohmann::json usage() const;

private:
  uint64_t Dropped = 0;
  std::string FirstDropped;
};

} // namespace asmevo::search
