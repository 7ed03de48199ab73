// Proposals that break a wait state, dropped before they are proposed: each edit, when its turn
// comes, is applied to the node's text, rebuilt, and scanned with the ISA's wait-state rules as the
// differential check scans a candidate (device/StaticHazards.h); an edit whose code has a hazard of
// a kind the node's code does not have would be refused by that check, so a driver that reorders
// instructions without knowing wait states (rules' hoists, sched's orders) drops it instead.
#pragma once

#include "search/Driver.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace asmevo::search {

class WaitStateFilter {
public:
  // Whether E keeps every wait state: its code has no hazard of a kind N's code does not have.
  // True when E does not apply or rebuild, or N's code cannot be scanned (the gate judges then).
  // Each edit refused is counted.
  bool keeps(const NodeView &N, const Edit &E);
  // {"dropped_for_wait_states": N, "first_dropped": "<rationale>: <hazard>"}.
  nlohmann::json usage() const;

private:
  // Per node (by id): the hazard kinds of its code; absent from the inner optional when its code
  // cannot be scanned.
  std::map<std::string, std::optional<std::set<std::string>>> NodeKinds;
  uint64_t Dropped = 0;
  std::string FirstDropped;
};

} // namespace asmevo::search
