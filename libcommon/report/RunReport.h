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

// Fails when Dir does not exist or is not a directory ("'DIR': <reason>"), or when a file in it
// is damaged (report/RunFiles.h).
llvm::Expected<RunReport> buildRunReport(const std::string &Dir);

// Refuses an output (not "-") that would be written over one of the run's own files: the report
// goes into the run directory Dir only as an .html file directly in it (its default is
// Dir/report.html); any other path inside Dir is refused, and so is a path elsewhere that is the
// same file as one inside it (a symbolic link, in the path or at its end, or a hard link).
llvm::Error checkReportOutput(const std::string &Output, const std::string &Dir);

} // namespace asmevo::report
