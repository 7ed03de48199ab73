// asmevo-agent's work, once main has read the options: the search (search/Agent.h), a worker
// (one candidate, for --worker-launch) and the merge of team members (search/Team.h). Each
// renders its report and returns the exit code.
#pragma once

#include "search/Agent.h"
#include "support/Cli.h"

#include <string>
#include <vector>

// A usage error (its exit code) when an option other than Allowed, -q, -v and --json is given
// with Mode, which ignores the others; -1 when none is.
int onlyOptions(asmevo::Cli &C, const std::string &Mode, const std::vector<std::string> &Allowed);
// The search. Progress on stderr: every event (commits, redirects, refused proposals);
// candidates one line per candidate with -v, else at most one every two seconds; nothing with
// -q, but what a resume repaired in the run directory.
int agentSearch(asmevo::Cli &C, asmevo::search::AgentOptions &O);
int agentWorker(asmevo::Cli &C, const std::string &NodeDir);
int agentMerge(asmevo::Cli &C, const std::string &Team, const std::vector<std::string> &Members);
