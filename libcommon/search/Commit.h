// The commit decision for one evaluated candidate, written once: the gates' result
// (search/GatedEval.h) becomes the lineage's node (search/Lineage.h) with Eq. 2's verdict
// (search/Gate.h), and the node becomes what its driver is told (search/Driver.h). The
// controller (Agent.cpp) records the node, updates the run's memory and journals the commit.
#pragma once

#include "search/Driver.h"
#include "search/Edit.h"
#include "search/Gate.h"
#include "search/GatedEval.h"
#include "search/Lineage.h"

#include <string>
#include <vector>

namespace asmevo::search {

// What the controller knows of a candidate before the gates judge it.
struct Candidate {
  std::string Id, Parent, Driver;
  std::vector<std::string> Sources; // a composition: the nodes whose edits it combines
  std::vector<Edit> Edits;
  std::vector<LineRange> Ranges;
  std::string Hash;   // the candidate text's SHA-256
  double Seconds = 0; // evaluation wall time
};

// The node of C as the gates left it (R). A verified candidate (R.Result ok) is gated against
// Best (null: K0 is the best) by Eq. 2, under every parameter set when R has an ensemble, else
// with R's cv; a composition must also beat MustBeat (the better parent's speedup). Committed
// nodes have outcome "ok"; verified ones the gate kept out "slower", with the reason and a
// signature naming which part of the rule failed; the others their gate outcome.
Node judgeCandidate(const Candidate &C, const EvalResult &R, const Node *Best, double MustBeat,
                    const GateParams &Gate);

// What N's driver is told of it.
Feedback feedbackOf(const Node &N);

} // namespace asmevo::search
