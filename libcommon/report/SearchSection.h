// The HTML of one search run: its identity and result, the lineage tree, the speedup plots, the
// gate statistics per stage, the failure signatures, every commit's evidence (assembly diff,
// diffcheck verdict, timing) and the table of all nodes. Every figure names the backend that
// produced it ("modeled" on emu, "measured" on hip).
#pragma once

#include "report/SearchRun.h"

#include <string>

namespace asmevo::report {

// The run's sections; Anchor prefixes every element id (several runs share one page).
std::string searchSection(const SearchRun &R, const std::string &Anchor);

// The "Missing" section: one <li> per line, or a line that says nothing is.
std::string missingSection(const std::vector<std::string> &Missing, const std::string &Anchor);

// The best committed node (the root when nothing else was committed; null without nodes).
const NodeRecord *bestNode(const SearchRun &R);

} // namespace asmevo::report
