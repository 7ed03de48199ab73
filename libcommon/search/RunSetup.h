// What a search run starts from, resolved and checked before its run directory is touched: K0,
// the launches (the spec, a timing spec, captured dispatches), the run's identity, and on
// --resume the run directory's record checked against them. The controller (search/Agent.cpp)
// goes on from here: the driver, K0's assembly and time, the lineage.
#pragma once

#include "codeobj/Input.h"
#include "search/Agent.h"
#include "search/Lineage.h"
#include "support/Report.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace asmevo::search {

struct RunStart {
  std::unique_ptr<OpenCodeObject> K0;
  std::string K0Sha256;
  std::string Kernel; // the spec's kernel, or the captures'
  RunIdentity Id;     // K0, kernel and the hash of every launch the run checks and times on
  nlohmann::json EdgeShapes = nlohmann::json::array(); // the spec's: {"name", "change"}
  std::vector<std::string> Changed;                    // a resume's notes: the options that changed
};

// Resolve O's inputs. Inputs gets one entry per input read (k0, spec, time_spec, capture), for
// the report, also when a later one is refused. On --resume, O takes the run's fixed options it
// left out (search/RunOptions.h). Errors name the file: an unreadable or incomplete spec, a
// timing spec or capture of another kernel, a capture of another K0, --time-spec with
// --capture, --types without --capture, a team or run directory of another run.
llvm::Expected<RunStart> startRun(AgentOptions &O, std::vector<ReportInput> &Inputs);

} // namespace asmevo::search
