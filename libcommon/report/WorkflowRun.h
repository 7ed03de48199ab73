// A workflow run directory (Makefile.workflow's RUN/) read for the report: RUN/summary.json
// (format asmevo-workflow-summary) when the run got that far, and per kernel RUN/<name>/ with
// its steps (k0.hsaco, k0.s, gate.json, spec.json, baseline.json, profile.json, summary.json)
// and its search run directory RUN/<name>/search/. Absent parts are lines of Missing, named
// from RUN ("<name>/search/journal.jsonl: missing").
#pragma once

#include "report/SearchRun.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace asmevo::report {

struct KernelRun {
  std::string Name;
  nlohmann::json Row;      // its entry in RUN/summary.json (null when absent)
  nlohmann::json Baseline; // baseline.json, kernel-time's report on K0 (null when absent)
  std::optional<SearchRun> Search;
};

struct WorkflowRun {
  std::string Dir;
  nlohmann::json Summary; // RUN/summary.json (null when absent)
  std::vector<KernelRun> Kernels;
  std::vector<std::string> Missing; // the run's and every kernel's, in order
};

// Whether Dir is a workflow run rather than one search: it has a workflow summary, or it is
// not a search run (no run.json, journal.jsonl or nodes/) and a subdirectory has a search/ or
// a k0.hsaco.
bool isWorkflowRun(const std::string &Dir);

llvm::Expected<WorkflowRun> readWorkflowRun(const std::string &Dir);

} // namespace asmevo::report
