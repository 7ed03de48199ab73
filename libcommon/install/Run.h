// A workflow run as the installer reads it: RUN/summary.json (format asmevo-workflow-summary,
// Makefile.workflow) names the kernels and their speedups; RUN/<name>/k0.hsaco is K0 and
// RUN/<name>/search/best.hsaco is K*.
#pragma once

#include "codeobj/TargetId.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace asmevo::install {

struct RunKernel {
  std::string Name;                  // the run's kernel name ("gfx942-vector_add_fp32")
  std::string K0Path, KStarPath;     // RUN/<name>/k0.hsaco, RUN/<name>/search/best.hsaco
  std::string K0, KStar;             // their bytes (KStar empty when the search wrote none)
  std::string K0Sha256, KStarSha256; // hex SHA-256 (KStarSha256 empty with KStar)
  double Speedup = 0;                // the summary's speedup of K* over K0
  std::string Kind;                  // "modeled" or "measured"
  std::vector<std::string> Symbols;  // K0's kernel symbols (for the HIP note)
  std::string Processor;             // K0's processor ("gfx942")
  // K*'s target id as its ELF header says, without the triple ("gfx942", "gfx90a:xnack-"): the
  // GPUs it runs on (K0's processor too: readRun checks it).
  std::string Target;
  // The launches K* was verified on (verifiedLaunches): an array, or null for a run whose search
  // summary does not record them.
  nlohmann::json VerifiedOn;

  // Why this kernel has nothing to install ("" when it has): no K*, K* is K0, or a speedup of
  // at most 1. With All, only the first two count.
  std::string skipReason(bool All) const;
};

struct Run {
  std::string Dir;                // as given
  std::string AbsDir;             // absolute, as the manifest records it
  std::vector<RunKernel> Kernels; // in the summary's order
};

// A target id without its triple: "gfx942:sramecc+:xnack-".
std::string shortTargetId(const TargetId &T);

// The launches the search of kernel Name in RunDir checked every committed node on, from
// RUN/<name>/summary.json's "launches" and the run's spec files: {"spec": "<name>/spec.json",
// "grid", "block", "seeds"} for the correctness spec, the same with "when" for a timing spec
// (checked on its first seed before a commit), {"capture", "sha256"} per captured dispatch.
// Null when the summary has no "launches" (a run from before they were recorded).
nlohmann::json verifiedLaunches(const std::string &RunDir, const std::string &Name);

// Read a workflow run directory. Errors name the file: a missing or foreign summary, a kernel
// without k0.hsaco, a K* that is not a code object with K0's target and kernel symbols.
llvm::Expected<Run> readRun(llvm::StringRef Dir);

} // namespace asmevo::install
