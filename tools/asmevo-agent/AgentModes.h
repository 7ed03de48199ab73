// asmevo-agent's two other modes: a worker (one candidate, for --worker-launch) and the merge of
// team members (search/Team.h). Each renders its report and returns the exit code.
#pragma once

#include "support/Cli.h"

#include <string>
#include <vector>

// A usage error (its exit code) when an option other than Allowed, -q, -v and --json is given
// with Mode, which ignores the others; -1 when none is.
int onlyOptions(asmevo::Cli &C, const std::string &Mode, const std::vector<std::string> &Allowed);
int agentWorker(asmevo::Cli &C, const std::string &NodeDir);
int agentMerge(asmevo::Cli &C, const std::string &Team, const std::vector<std::string> &Members);
