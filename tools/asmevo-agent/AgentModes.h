// asmevo-agent's two other modes: a worker (one candidate, for --worker-launch) and the merge of
// team members (search/Team.h). Each renders its report and returns the exit code.
#pragma once

#include "support/Cli.h"

#include <string>
#include <vector>

int agentWorker(asmevo::Cli &C, const std::string &NodeDir);
int agentMerge(asmevo::Cli &C, const std::string &Team, const std::vector<std::string> &Members);
