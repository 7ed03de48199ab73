// Proposals that break a wait state, dropped before they are proposed: each edit is applied to
// the node's text, rebuilt, and scanned with the ISA's wait-state rules as the differential
// check scans a candidate (device/StaticHazards.h); an edit whose code has a hazard of a kind the
// node's code does not have would be refused by that check, so a driver that reorders
// instructions without knowing wait states (rules' hoists, sched's orders) drops it instead.
#pragma once

#include "search/Driver.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::search {

class WaitStateFilter {
public:
  // Es without the edits whose code has a new kind of hazard. An edit that does not apply or
  // rebuild is kept (the gate says why), and so is every edit when N's code cannot be scanned.
  std::vector<Edit> apply(const NodeView &N, std::vector<Edit> Es);
  // {"dropped_for_wait_states": N, "first_dropped": "<rationale>: <hazard>"}.
  nlohmann::json usage() const;

private:
  uint64_t Dropped = 0;
  std::string FirstDropped;
};

} // namespace asmevo::search
