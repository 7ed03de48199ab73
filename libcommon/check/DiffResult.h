// A differential check's verdict as fields (what a search's gate reads), beside the report the
// tool renders: the outcome, its message and whose failure it is. A check against K0 can fail
// for three owners: the candidate (divergent, unsafe, abi_invalid, its own runtime error), K0
// itself (K0 faults, runs away or does not reproduce a capture: the run's problem, never the
// candidate's) and the check's inputs (a spec or bundle that cannot be used, a file that cannot
// be read).
#pragma once

#include "support/Outcome.h"
#include "support/Report.h"

#include <string>

namespace asmevo::check {

enum class Blame {
  None,      // ok, or interrupted before anything failed
  Candidate, // K1's failure
  K0,        // K0's own failure
  Inputs,    // the spec, the bundle or a file (input_error)
};

struct DiffResult {
  Outcome Result = Outcome::Ok;
  std::string Message;
  Blame Failed = Blame::None;
  Report Rep; // the report kernel-diffcheck writes
};

// The verdict of a check's report: its outcome and message, and whose failure it is (the
// body's "failed": "K0", which the check sets where K0 itself failed; else input_error is the
// inputs', interrupted nobody's, any other failure the candidate's).
DiffResult diffResultOf(Report R);

} // namespace asmevo::check
