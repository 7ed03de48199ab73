// asmevo-agent as a library: the controller of the paper's gated loop (Algorithm 2) over one
// kernel of K0. It owns the budgets, the lineage (search/Lineage.h), the start points, the
// gates (search/GatedEval.h, search/Gate.h), the run's memory, composition and the anti-stall
// supervision; a driver (search/Driver.h) only proposes edits.
//
// One round: each worker takes a start point (the best; after a stall an earlier verified node;
// escalated, a distinct verified node per worker; or the node the driver asks for), asks the
// driver for an edit, applies it to that node's text, and the candidates are evaluated in
// parallel. Then, in order: the commit gate against the current best (never regress: the best
// moves only to a verified node that passes Eq. 2), the node is recorded, the driver told. A
// verified candidate faster than its parent joins its parent's pool; it is composed with the
// fastest pool member whose edited lines are disjoint from its own, and the composition is
// committed only if it passes the gates and is faster than both.
#pragma once

#include "llm/Client.h"
#include "search/Edit.h"
#include "search/Gate.h"
#include "search/GatedEval.h"
#include "support/Report.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>

namespace asmevo::search {

struct AgentOptions {
  std::string Tool; // the report's tool (the caller's name: "asmevo-agent"), in summary.json too
  std::string K0, Asm, Spec, Kernel, RunDir;
  std::string Baseline; // kernel-time's report on K0 (optional; checked to be K0's)
  std::string Driver = "rules";
  EvalOptions Eval;
  GateParams Gate;
  EditLimits Limits;
  double BudgetSeconds = 300; // wall clock of this invocation
  uint64_t MaxCandidates = 0; // candidates in the whole run (0: no limit)
  unsigned Workers = 1;
  unsigned Stall = 40;    // candidates without a commit before a redirect (x2 escalate, x4 stop)
  unsigned MaxFaults = 3; // consecutive driver faults before the run stops
  unsigned MaxInfraFailures = 3;
  bool Resume = false;
  // The options given on the command line, by name ("seeds", "epsilon"): a resume takes the
  // run's own values for the fixed ones left out (search/RunOptions.h).
  std::set<std::string> Given;
  bool KeepRejected = false; // keep cand.s/cand.hsaco of rejected candidates
  // K0's differential-check runs made once per seed and launch for the run (false: with every
  // candidate, as before issue 39; for benchmarks that compare the two).
  bool ReuseK0Runs = true;
  uint64_t Seed = 1;
  // Workers in other processes (search/Worker.h): each candidate's evaluation runs as
  // `WorkerLaunch WorkerCommand --worker NODE_DIR`; empty: in this process.
  std::string WorkerLaunch, WorkerCommand;
  // Team mode (search/Team.h): a fresh run starts from TeamFrom's TeamMember-th verified node,
  // with the seed raised by TeamMember.
  std::string TeamFrom;
  unsigned TeamMember = 0;
  double ExecTimeoutSeconds = 60;
  llm::ClientOptions Llm; // --driver llm: the endpoint, its budgets and cache
  // Progress lines: events (refused proposals, redirects, escalations), and one status line per
  // evaluated candidate, saying whether it was committed; warnings: what a resume repaired or
  // found and left as it was (printed even where progress is not).
  enum class ProgressKind { Event, Candidate, Commit, Warning };
  std::function<void(ProgressKind, const std::string &)> Progress;
};

// Outcome ok (the search ran to a budget or converged; the body says which, and whether K*
// is faster), input_error (bad inputs, a run directory of another K0, a driver whose replies
// are not edits, a full disk), runtime_error (K0 itself fails, repeated infrastructure
// failures), interrupted.
Report runAgent(const AgentOptions &O);

} // namespace asmevo::search
