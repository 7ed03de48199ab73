// A search driver: context in, structured edits (and optionally a plan) out, structured
// feedback back. The controller (search/Agent.h) owns everything else: which verified node a
// proposal starts from, the gates, the lineage and the budgets. Drivers are looked up by name
// (--driver): `rules` (deterministic rewrites, RulesDriver.cpp), `waits` (s_waitcnt placed by a
// dataflow over the whole CFG, WaitsDriver.cpp), `sched` (list scheduling of hot windows under the
// dependency graph, SchedDriver.cpp), `pipeline` (a loop's loads issued one iteration ahead,
// PipelineDriver.cpp), `stochastic` (random local
// moves, StochasticDriver.cpp), `exec:CMD` (an external proposer, ExecDriver.cpp) and `llm`
// (plan, edit and replan through an LLM endpoint, LlmDriver.cpp).
#pragma once

#include "llm/Client.h"
#include "search/Edit.h"
#include "search/NodeView.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace asmevo::search {

// What a driver proposes: an edit, or a fault (a reply that is not one).
struct Proposal {
  std::optional<Edit> E;
  std::optional<EditError> Fault;
  bool Infrastructure = false; // the proposer itself failed (an exec: command that crashed)
  // A change too long for one window (EditLimits): the rest of its edits, on windows disjoint
  // from E's and from each other's, applied together with E as one candidate.
  std::vector<Edit> More;
};

// The gate's answer about one proposal.
struct Feedback {
  std::string Node, Parent; // Node "" when the proposal never became a node
  std::string Stage, Outcome, Signature, Message;
  double Speedup = 0;
  bool Verified = false, Committed = false;
};

struct DriverOptions {
  uint64_t Seed = 1;
  double ExecTimeoutSeconds = 60;
  std::string WorkDir;    // scratch files (the run directory's tmp/)
  llm::ClientOptions Llm; // the llm driver's endpoint
};

class Driver {
public:
  virtual ~Driver() = default;
  virtual std::string name() const = 0;
  // Directions over the node's windows, ranked (empty: the driver has no planner).
  virtual std::vector<std::string> plan(const NodeView &, const nlohmann::json &) { return {}; }
  // The next proposal from this node; nullopt: nothing more from here.
  virtual std::optional<Proposal> propose(const NodeView &Node, const nlohmann::json &Context) = 0;
  // Before a round with several workers, for a driver that prefetches(): every start point's
  // node and context, in the order propose() will be called for them. The driver may ask for
  // all of them at once here (the llm driver's concurrent requests) and answer propose() from
  // what it got.
  virtual bool prefetches() const { return false; }
  virtual void prefetch(const std::vector<std::pair<const NodeView *, nlohmann::json>> &) {}
  virtual void feedback(const Feedback &) {}
  // The controller saw a stall: change direction (Why says what was exhausted).
  virtual void redirect(const std::string &) {}
  // Why the driver can propose nothing more anywhere (the llm driver's spent budget), when
  // propose() answered nullopt for that reason; "" otherwise. The run stops with it.
  virtual std::string spent() const { return ""; }
  // A verified node the driver wants to continue from ("" : the controller chooses).
  virtual std::string preferredStart() { return ""; }
  // What the driver spent (the llm driver: requests and tokens), for the journal and the
  // report; null when it has nothing to account.
  virtual nlohmann::json usage() const { return nullptr; }
};

// A driver whose proposals from a node are one list, made the first time it sees the node (rules,
// sched, pipeline): propose() hands them out in order, skipping those keep() refuses, then
// nullopt.
class EditListDriver : public Driver {
public:
  std::optional<Proposal> propose(const NodeView &N, const nlohmann::json &Context) final;

protected:
  // The node's proposals, each one edit.
  virtual std::vector<Edit> edits(const NodeView &N) {
    (void)N;
    return {};
  }
  // The same where a proposal may need several windows: each entry is one proposal, its edits on
  // disjoint windows (Proposal::More). The default is edits(N), one edit a proposal.
  virtual std::vector<std::vector<Edit>> editSets(const NodeView &N);
  // Whether proposal Es of N's list is handed out; asked only when it is Es's turn.
  virtual bool keep(const NodeView &N, const std::vector<Edit> &Es) {
    (void)N;
    (void)Es;
    return true;
  }

private:
  // Node -> its proposals, and the next one to hand out.
  std::map<std::string, std::pair<std::vector<std::vector<Edit>>, size_t>> Lists;
};

// One kind of driver, as --driver names it: Name ("rules"; with an argument, "exec:" and
// Argument "CMD"), a one-line Help, and Make, given what follows the name ("" for a driver
// without an argument).
struct DriverKind {
  const char *Name;
  const char *Argument; // nullptr: the name is the whole spec
  const char *Help;
  llvm::Expected<std::unique_ptr<Driver>> (*Make)(const std::string &Argument,
                                                  const DriverOptions &O);
};
// Every driver, the default first; makeDriver, --driver's help and its error come from it.
const std::vector<DriverKind> &driverKinds();
// "rules (default), stochastic, exec:CMD or llm".
std::string driverNames();
// --driver's help: who proposes edits, each driver with its line.
std::string driverHelp();

// A driver by its spec (driverKinds()); a comma-separated list ("rules,waits") makes one
// driver of several (ChainDriver.cpp), a driver with an argument (exec:CMD) taking the rest.
// Errors: an unknown name, a name listed twice.
llvm::Expected<std::unique_ptr<Driver>> makeDriver(const std::string &Spec, const DriverOptions &O);
// The drivers a spec lists, in order ("rules,exec:a,b" is "rules" and "exec:a,b").
std::vector<std::string> driverList(const std::string &Spec);
// Whether Spec lists driver Name ("llm"), or, for a Name ending in ':' ("exec:"), one that takes
// an argument.
bool listsDriver(const std::string &Spec, llvm::StringRef Name);
// Several drivers as one: from each node they propose in turn (ChainDriver.cpp).
std::unique_ptr<Driver> makeChainDriver(std::vector<std::unique_ptr<Driver>> Drivers);
std::unique_ptr<Driver> makeRulesDriver();
std::unique_ptr<Driver> makeWaitsDriver();
std::unique_ptr<Driver> makeSchedDriver();
std::unique_ptr<Driver> makePipelineDriver();
std::unique_ptr<Driver> makeStochasticDriver(uint64_t Seed);
std::unique_ptr<Driver> makeExecDriver(const std::string &Command, const DriverOptions &O);
// Errors: the endpoint's options (llm/Client.h), a prompt file that cannot be read.
llvm::Expected<std::unique_ptr<Driver>> makeLlmDriver(const DriverOptions &O);

} // namespace asmevo::search
