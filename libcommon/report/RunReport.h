// The report over a run directory as one self-contained HTML page (asmevo-report's library):
// a search run directory (asmevo-agent --run-dir) or a whole workflow run (Makefile.workflow's
// RUN/: an overview of its kernels, each linked to its own section of the same page). A run
// that is empty, half-written or still running renders too, with what is missing listed.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::report {

struct RunReport {
  std::string Html;
  std::string Kind; // "search" or "workflow"
  uint64_t Kernels = 0, Nodes = 0, Commits = 0;
  std::vector<std::string> Missing;
};

// Fails only when Dir does not exist or is not a directory ("'DIR': <reason>").
llvm::Expected<RunReport> buildRunReport(const std::string &Dir);

} // namespace asmevo::report
