// Team mode (the paper's parallel workers on separate GPUs, across nodes): after a first search
// has built the team's lineage TEAM, M members search at once, each in its own run directory
// (and, under Slurm, as its own job step): member I starts from TEAM's I-th verified node, best
// first (imported as its node n000001, committed, with its origin), with the seed raised by I,
// so that the members explore from different verified nodes. Then their lineages are merged
// back into TEAM: every node of every member becomes a node of TEAM (files copied, ids
// renumbered, parents and sources mapped; a node whose candidate TEAM already holds maps onto
// that one, so merging twice adds nothing), commits stay commits, and TEAM's best is the
// fastest commit. Nothing of a member is lost, and a member still running (its lock held) is
// refused rather than read half-way.
#pragma once

#include "search/Lineage.h"
#include "support/Report.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace asmevo::search {

// Before a member's run directory is made: refused when Team is missing, not a search run,
// another K0's, kernel's or spec's, or RunDir itself.
llvm::Error checkTeamFrom(const std::string &Team, const std::string &RunDir,
                          const RunIdentity &Id);

// Member's start point in Team (refused when Team is another K0's, kernel's or spec's): the
// node to import and its directory; none when Team has no verified node but its root.
struct TeamStart {
  Node N;
  std::string Dir;
};
llvm::Expected<std::optional<TeamStart>> teamStart(const std::string &Team, unsigned Member,
                                                   const RunIdentity &Id);

// Merge the member run directories into Team (refused, before Team is changed, when a member is
// missing, given twice, is Team itself or another K0's search); the report's body is a search
// summary of Team (the same keys as asmevo-agent's) with the members and what each brought.
// Tool names the caller in the report and in Team/summary.json.
Report mergeTeam(const std::string &Team, const std::vector<std::string> &Members,
                 const std::string &Tool);

} // namespace asmevo::search
