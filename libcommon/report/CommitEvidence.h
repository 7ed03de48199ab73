// One commit's evidence in the report: what was edited and why, the assembly diff against the
// parent's text (the root's text is K0's recovered assembly), kernel-diffcheck's verdict and
// kernel-time's figures (median, CV, the interval of the ratio), each with its backend.
#pragma once

#include "report/SearchRun.h"

#include <string>

namespace asmevo::report {

std::string commitEvidence(const SearchRun &R, const CommitRecord &C, const std::string &Anchor);

// N's modeled speedup interval over the ensemble's parameter sets, as the page shows it beside
// the speedup ("" when N has none).
std::string nodeInterval(const NodeRecord &N);

} // namespace asmevo::report
