// The controller of the gated loop (search/Agent.h): setup, rounds of proposals, the gates,
// commits, redirects and the stop.
#include "search/Agent.h"

#include "asm/Recover.h"
#include "codeobj/Input.h"
#include "search/Commit.h"
#include "search/Driver.h"
#include "search/Lineage.h"
#include "search/Memory.h"
#include "search/NodeView.h"
#include "search/RunOptions.h"
#include "search/RunSetup.h"
#include "search/Team.h"
#include "search/Worker.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"
#include "support/Interrupt.h"
#include "timing/ModelAgreement.h"
#include "timing/TargetParams.h"
#include "timing/TimeRun.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace asmevo::search {

namespace {

using Clock = std::chrono::steady_clock;

// A driver that proposes candidates already evaluated is told so each time, redirected after
// this many in a row (the manual's 25) and stopped after as many again: each repeat may have
// cost a request to a paid endpoint, and a driver that only repeats would otherwise spend
// until a budget ran out.
constexpr uint64_t kRepeatRedirect = 25;

// Text for the journal, the report and the driver's next context, all JSON, which must be
// UTF-8: a driver's message may quote bytes it was given that are not.
std::string utf8(const std::string &S) {
  return llvm::json::isUTF8(S) ? S : llvm::json::fixUTF8(S);
}

// Workers that live for the whole run (each thread keeps its own LLVM MC objects, which are
// costly to set up): run() hands them a batch and returns when all of it is done.
class WorkerPool {
public:
  explicit WorkerPool(unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      Threads.emplace_back([this] { work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> G(M);
      Quit = true;
    }
    Wake.notify_all();
    for (auto &T : Threads)
      T.join();
  }
  void run(std::vector<std::function<void()>> Batch) {
    std::unique_lock<std::mutex> G(M);
    Pending += Batch.size();
    for (auto &F : Batch)
      Queue.push_back(std::move(F));
    Wake.notify_all();
    Done.wait(G, [this] { return Pending == 0; });
  }

private:
  void work() {
    std::unique_lock<std::mutex> G(M);
    for (;;) {
      Wake.wait(G, [this] { return Quit || !Queue.empty(); });
      if (Queue.empty())
        return;
      auto F = std::move(Queue.front());
      Queue.pop_front();
      G.unlock();
      F();
      G.lock();
      if (--Pending == 0)
        Done.notify_all();
    }
  }
  std::vector<std::thread> Threads;
  std::mutex M;
  std::condition_variable Wake, Done;
  std::deque<std::function<void()>> Queue;
  size_t Pending = 0;
  bool Quit = false;
};

// An edit's identity apart from its node: the window's text as the driver saw it and the
// replacement ("" when the driver gave no "original").
std::string editKey(const std::vector<Edit> &Es) {
  if (Es.size() != 1 || Es[0].Original.empty())
    return "";
  return sha256Hex(Es[0].Original + '\0' + Es[0].Replacement);
}

// A candidate on its way through the gates: its text and, once evaluated, the gates' result.
struct Job : Candidate {
  std::string Text;
  EvalResult R;
};

class Controller {
public:
  explicit Controller(const AgentOptions &O) : O(O) {}

  Report run() {
    R.Tool = O.Tool;
    Start = Clock::now();
    if (!setup())
      return std::move(R);
    loop();
    finish();
    return std::move(R);
  }

private:
  AgentOptions O; // a resume takes the run's fixed options (search/RunOptions.h)
  Report R;
  Clock::time_point Start;
  std::unique_ptr<OpenCodeObject> K0;
  EvalOptions E;
  std::optional<Lineage> L;
  RunMemory Mem;
  std::unique_ptr<Driver> D;
  std::map<std::string, std::unique_ptr<NodeView>> Views;
  std::list<std::string> ViewOrder;
  std::set<std::string> Exhausted;
  std::unique_ptr<WorkerPool> Pool;
  std::map<std::string, std::vector<std::string>> Improving; // parent -> faster verified nodes
  std::set<std::pair<std::string, std::string>> Composed;
  unsigned Level = 0; // 0 best, 1 backtrack, 2 multi-start
  // The spec's edge shapes (launch/EdgeShape.h), checked after its seeds: name and change.
  nlohmann::json EdgeShapes = nlohmann::json::array();
  uint64_t SinceCommit = 0, Repeats = 0, Faults = 0, InfraFails = 0, Evaluated = 0, Commits = 0,
           Backtracks = 0, Redirects = 0, Escalations = 0, Compositions = 0;
  size_t Rotate = 0;
  std::string StopReason;
  bool Stopped = false;

  bool fail(llvm::Error Err) {
    R.fail(std::move(Err));
    return false;
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - Start).count(); }

  bool setup() {
    auto Started = startRun(O, R.Inputs);
    if (!Started)
      return fail(Started.takeError());
    K0 = std::move(Started->K0);
    const std::string &K0Sha = Started->K0Sha256;
    const std::string &Kernel = Started->Kernel;
    const RunIdentity &Id = Started->Id;
    EdgeShapes = std::move(Started->EdgeShapes);
    std::vector<std::string> Changed = std::move(Started->Changed);
    // The driver too (an unknown name, the llm driver's endpoint options): before the run
    // directory is touched.
    DriverOptions DO;
    DO.Seed = O.Seed + O.TeamMember;
    DO.ExecTimeoutSeconds = O.ExecTimeoutSeconds;
    DO.WorkDir = O.RunDir + "/tmp";
    DO.Llm = O.Llm;
    auto Dr = makeDriver(O.Driver, DO);
    if (!Dr)
      return fail(Dr.takeError());
    D = std::move(*Dr);
    E = O.Eval;
    // K0's check runs, once for the run: kept in RUN_DIR/k0-runs too, for a --resume and for
    // workers in other processes.
    if (!E.K0Runs && O.ReuseK0Runs)
      E.K0Runs = check::makeK0RunCache(O.RunDir + "/k0-runs");
    E.K0 = O.K0;
    E.Spec = O.Spec;
    E.Kernel = Kernel;
    R.Backend = E.Backend;
    R.Seeds = E.Seeds;
    std::string Text;
    if (!O.Asm.empty()) {
      auto T = readFile(O.Asm);
      if (!T)
        return fail(T.takeError());
      Text = (*T)->getBuffer().str();
      R.Inputs.push_back(reportInput("assembly", O.Asm, Text));
    } else {
      auto Rec = recoverAssembly(K0->C, O.K0, K0Sha, "k0.s");
      if (!Rec)
        return fail(Rec.takeError());
      Text = Rec->Asm;
    }
    E.K0NopStates = nopWaitStates(Text);
    double BaselineUs = 0;
    if (!O.Baseline.empty() && !readBaseline(K0Sha, BaselineUs))
      return false;
    // The model: K0 under the run's parameter sets, once, for every candidate's timing (and the
    // root's time, unless a baseline gives it).
    if (E.Backend == "emu") {
      double Us = 0;
      for (size_t I = 0; I < timingLaunches(E); ++I) {
        timing::TimeResult TR = timing::timeKernels(timeOptions(E, "", I));
        if (TR.Result != Outcome::Ok) {
          R.Result = TR.Result;
          // A capture's input error names the bundle already.
          R.Message =
              !E.Captures.empty() && TR.Result == Outcome::InputError
                  ? TR.Message
                  : "timing K0" +
                        (E.Captures.empty() ? std::string() : " on '" + E.Captures[I] + "'") +
                        ": " + TR.Message;
          return false;
        }
        if (E.Captures.empty())
          E.K0Reference = timing::modeledReference(TR.Rep);
        else
          E.K0Reference.push_back(timing::modeledReference(TR.Rep));
        Us += timingWeight(E, I) * (TR.Kernels.empty() ? 0.0 : TR.Kernels[0].Us);
      }
      if (BaselineUs == 0)
        BaselineUs = Us;
    }
    auto Lin = Lineage::open(O.RunDir, Id, O.Resume, runOptionsJson(O));
    if (!Lin)
      return fail(Lin.takeError());
    L.emplace(std::move(*Lin));
    // What the resume repaired, and found and left alone, is said at once (a search may run for
    // hours) and kept in the report's notes.
    for (const std::string &X : L->repairs())
      warn("repaired: " + X);
    for (const std::string &X : L->warnings())
      warn("warning: " + X);
    for (const std::string &X : Changed)
      R.Notes.push_back(X);
    if (O.Spec.empty())
      warn("warning: correctness is checked on the captured dispatch" +
           std::string(E.Captures.size() > 1 ? "es" : "") +
           " only: a candidate is verified for exactly the captured inputs and launch geometry (no "
           "synthetic seeds, no other shapes); give --spec too for launches of other sizes");
    if (llvm::Error Err = llvm::sys::fs::create_directories(O.RunDir + "/tmp")
                              ? makeError("'" + O.RunDir + "/tmp': cannot create")
                              : llvm::Error::success())
      return fail(std::move(Err));
    if (L->nodes().empty() && !root(Text, BaselineUs))
      return false;
    if (!O.TeamFrom.empty() && L->nodes().size() == 1) {
      auto T = teamStart(O.TeamFrom, O.TeamMember, Id);
      if (!T)
        return fail(T.takeError());
      if (*T) {
        (*T)->N.Kind = (*T)->N.Kind.empty() ? L->best()->Kind : (*T)->N.Kind;
        auto NId = L->import((*T)->N, (*T)->Dir);
        if (!NId)
          return fail(NId.takeError());
        if (llvm::Error Err = L->journal(
                {{"event", "team-start"}, {"member", O.TeamMember}, {"origin", (*T)->N.Origin}}))
          return fail(std::move(Err));
      }
    }
    if (!O.WorkerLaunch.empty()) {
      // Workers read the evaluation options from the run directory, with absolute paths (a
      // job step may start elsewhere).
      EvalOptions W = E;
      auto Absolute = [](std::string &P) {
        if (P.empty())
          return;
        llvm::SmallString<256> A(P);
        llvm::sys::fs::make_absolute(A);
        P = A.str().str();
      };
      Absolute(W.K0);
      Absolute(W.Spec);
      Absolute(W.TimeSpec);
      for (std::string &C : W.Captures)
        Absolute(C);
      if (llvm::Error Err =
              writeFileAtomic(O.RunDir + "/worker.json", evalOptionsJson(W).dump(2) + "\n"))
        return fail(std::move(Err));
      // K0's runs on the spec's launches, made here once and kept in RUN_DIR/k0-runs, where the
      // workers (which write nothing outside their node) find them.
      if (!E.Spec.empty() && E.K0Runs) {
        check::DiffResult K = checkK0Itself(E);
        if (K.Result != Outcome::Ok)
          warn("warning: K0 against itself on the spec: " + K.Message +
               " (each worker runs K0 itself)");
      }
    }
    if (!L->best())
      return fail(makeError("run directory '" + O.RunDir + "' has no committed node"));
    for (const auto &[NId, N] : L->nodes()) {
      Mem.firstTime(N.CandidateHash);
      if (NId != "n000000") {
        Mem.outcome(N.Stage, N.Outcome);
        Mem.failure(N.Signature);
      }
      if (N.Committed && !N.Edits.empty())
        Mem.insight(N.Edits.front().Rationale);
    }
    if (O.Resume)
      if (llvm::Error Err = L->journal({{"event", "resume"},
                                        {"nodes", L->nodes().size()},
                                        {"recovered", L->recovered()},
                                        {"removed_incomplete", L->removedIncomplete()},
                                        {"repairs", L->repairs()},
                                        {"warnings", L->warnings()},
                                        {"options_changed", Changed},
                                        {"best", L->best()->Id}}))
        return fail(std::move(Err));
    return true;
  }

  void warn(const std::string &Line) {
    R.Notes.push_back(Line);
    if (O.Progress)
      O.Progress(AgentOptions::ProgressKind::Warning, Line);
  }

  bool readBaseline(const std::string &K0Sha, double &Us) {
    auto B = readFile(O.Baseline);
    if (!B)
      return fail(B.takeError());
    llvm::StringRef T = (*B)->getBuffer();
    nlohmann::json J = nlohmann::json::parse(T.begin(), T.end(), nullptr, false);
    if (J.is_discarded() || J.value("tool", "") != "kernel-time")
      return fail(makeError("'" + O.Baseline + "': not a kernel-time --json report"));
    bool Ours = false;
    for (const auto &In : J.value("inputs", nlohmann::json::array()))
      if (In.value("role", "") == "k0" && In.value("sha256", "") == K0Sha)
        Ours = true;
    if (!Ours)
      return fail(makeError("'" + O.Baseline + "' times another K0 than '" + O.K0 + "'"));
    // With captures the baseline times them (kernel-time --capture: one bundle).
    std::multiset<std::string> Timed, RunCaptures;
    for (const auto &In : J.value("inputs", nlohmann::json::array()))
      if (In.value("role", "") == "capture")
        Timed.insert(In.value("sha256", ""));
    for (const ReportInput &In : R.Inputs)
      if (In.Role == "capture")
        RunCaptures.insert(In.Sha256);
    // Without captures: the spec it timed must be the run's timing spec (where it names one).
    std::string TimedSpec, RunSpec;
    for (const auto &In : J.value("inputs", nlohmann::json::array()))
      if (In.value("role", "") == "spec")
        TimedSpec = In.value("sha256", "");
    for (const ReportInput &In : R.Inputs)
      if (In.Role == (O.Eval.TimeSpec.empty() ? "spec" : "time_spec"))
        RunSpec = In.Sha256;
    if (RunCaptures.empty() && !TimedSpec.empty() && TimedSpec != RunSpec)
      return fail(makeError("'" + O.Baseline + "' times another launch spec than the run's " +
                            (O.Eval.TimeSpec.empty() ? "--spec" : "--time-spec") + " ('" +
                            (O.Eval.TimeSpec.empty() ? O.Spec : O.Eval.TimeSpec) + "')"));
    if (Timed != RunCaptures)
      return fail(makeError(
          "'" + O.Baseline + "' times " +
          (Timed.empty() ? std::string("a spec's launch") : "another captured dispatch") +
          ", not the run's " +
          (RunCaptures.empty() ? std::string("spec")
           : RunCaptures.size() == 1
               ? std::string("capture")
               : std::to_string(RunCaptures.size()) + " captures (time them without --baseline)")));
    if (J.value("outcome", "") != "ok")
      return fail(makeError("'" + O.Baseline + "': the baseline timing did not succeed"));
    Us = J["body"]["kernels"][0].value("microseconds", 0.0);
    R.Inputs.push_back(reportInput("baseline", O.Baseline, T));
    return true;
  }

  // The root node: K0 as recovered (its text must map onto K0's code).
  bool root(const std::string &Text, double BaselineUs) {
    auto Id = L->newNode();
    if (!Id)
      return fail(Id.takeError());
    std::string Dir = L->nodeDir(*Id);
    if (llvm::Error Err = writeFileAtomic(Dir + "/cand.s", Text))
      return fail(std::move(Err));
    if (llvm::Error Err = writeFileAtomic(Dir + "/cand.hsaco", K0->C.Bytes))
      return fail(std::move(Err));
    auto V = loadNodeView(*Id, Dir, 1.0, true, E);
    if (!V) {
      ErrorOutcome EO = errorOutcome(V.takeError());
      R.Result = EO.O;
      R.Message = "K0: " + EO.Message;
      return false;
    }
    double Us = BaselineUs;
    std::string Kind = E.Backend == "emu" ? "modeled" : "measured";
    for (size_t I = 0; BaselineUs == 0 && I < timingLaunches(E); ++I) {
      timing::TimeOptions TO = timeOptions(E, "", I);
      TO.Ensemble = 1; // K0's speedup over itself is 1 under every parameter set
      timing::TimeResult TR = timing::timeKernels(TO);
      if (TR.Result != Outcome::Ok) {
        R.Result = TR.Result;
        R.Message = "timing K0: " + TR.Message;
        return false;
      }
      Us += TR.Kernels.empty() ? 0.0 : TR.Kernels[0].Us;
      if (!TR.Kind.empty())
        Kind = TR.Kind;
    }
    Node N;
    N.Id = *Id;
    N.Driver = "k0";
    N.CandidateHash = candidateHash(Text);
    N.ObjectSha256 = sha256Hex(K0->C.Bytes);
    N.Verified = N.Committed = true;
    N.Speedup = 1.0;
    N.K0Us = N.Us = Us;
    N.Kind = Kind;
    N.Backend = E.Backend;
    N.Message = "K0, the original";
    if (llvm::Error Err = L->journal({{"event", "start"},
                                      {"k0", O.K0},
                                      {"kernel", E.Kernel},
                                      {"driver", O.Driver},
                                      {"backend", E.Backend}}))
      return fail(std::move(Err));
    if (llvm::Error Err = L->record(N))
      return fail(std::move(Err));
    cacheView(*Id, std::move(*V));
    return true;
  }

  void cacheView(const std::string &Id, std::unique_ptr<NodeView> V) {
    Views[Id] = std::move(V);
    ViewOrder.push_back(Id);
    while (ViewOrder.size() > 8) {
      Views.erase(ViewOrder.front());
      ViewOrder.pop_front();
    }
  }

  NodeView *view(const std::string &Id) {
    auto It = Views.find(Id);
    if (It != Views.end())
      return It->second.get();
    const Node *N = L->node(Id);
    auto V = loadNodeView(Id, L->nodeDir(Id), N ? N->Speedup : 1.0, Id == "n000000", E);
    if (!V) {
      llvm::consumeError(V.takeError());
      Exhausted.insert(Id); // cannot be viewed (files gone): never a start point
      return nullptr;
    }
    NodeView *P = V->get();
    cacheView(Id, std::move(*V));
    return P;
  }

  // Verified nodes (with their files), best first.
  std::vector<std::string> verified() const {
    std::vector<const Node *> Ns;
    for (const auto &[Id, N] : L->nodes())
      if (N.Verified && !Exhausted.count(Id))
        Ns.push_back(&N);
    std::stable_sort(Ns.begin(), Ns.end(), [](const Node *A, const Node *B) {
      return A->Committed != B->Committed ? A->Committed : A->Speedup > B->Speedup;
    });
    std::vector<std::string> Ids;
    for (const Node *N : Ns)
      Ids.push_back(N->Id);
    return Ids;
  }

  std::vector<std::string> startPoints() {
    std::vector<std::string> V = verified();
    std::vector<std::string> S;
    if (V.empty())
      return S;
    std::string Pref = D->preferredStart();
    const Node *PN = Pref.empty() ? nullptr : L->node(Pref);
    for (unsigned W = 0; W < std::max(1u, O.Workers); ++W) {
      if (W == 0 && PN && PN->Verified && !Exhausted.count(Pref)) {
        S.push_back(Pref);
        continue;
      }
      const Node *B = L->best();
      if (Level == 0 && B && !Exhausted.count(B->Id)) {
        S.push_back(B->Id);
        continue;
      }
      // Backtracking and multi-start: earlier verified nodes, a different one per worker.
      S.push_back(V[(Rotate++ + (Level == 2 ? W * 7 : 0)) % V.size()]);
    }
    return S;
  }

  nlohmann::json context(const NodeView &V, const std::string &Redirect) const {
    nlohmann::json Hot = nlohmann::json::array();
    for (const HotLines &H : V.Hot) {
      nlohmann::json W = H.Window;
      W["first_line"] = H.First + 1;
      W["last_line"] = H.Last + 1;
      std::string Code;
      for (size_t K = H.First; K <= H.Last; ++K)
        Code += V.Map.Lines[K] + "\n";
      W["text"] = Code;
      W.erase("code");
      Hot.push_back(W);
    }
    const Node *B = L->best();
    return {{"format", "asmevo-context"},
            {"format_version", 1},
            {"node", V.Id},
            {"kernel", V.Kernel},
            {"target", V.Target},
            {"speedup", V.Speedup},
            {"best", {{"node", B ? B->Id : ""}, {"speedup", B ? B->Speedup : 1.0}}},
            {"backend", E.Backend},
            {"function_lines", {V.Map.Label + 2, V.Map.End}},
            {"assembly",
             [&] {
               std::string T;
               for (size_t K = 0; K < V.Map.Lines.size(); ++K)
                 T += V.Map.Lines[K] + (K + 1 < V.Map.Lines.size() ? "\n" : "");
               return T;
             }()},
            {"hot_windows", Hot},
            {"loops", V.Profile.value("loops", nlohmann::json::array())},
            {"memory", Mem.json()},
            {"redirect", Redirect},
            {"gate",
             {{"epsilon", O.Gate.Epsilon},
              {"k", O.Gate.K},
              {"s_floor", O.Gate.Floor},
              {"parameter_sets", E.Backend == "emu" ? E.Ensemble : 1u},
              {"rule", E.Backend == "emu" && E.Ensemble > 1
                           ? "faster by the margin under every parameter set of the model"
                           : "faster by the margin"}}},
            {"edit_schema",
             "{\"window\": {\"function\": K, \"first_line\": N, \"last_line\": M} | "
             "{\"function\": K, \"offsets\": [B, E]} | {\"function\": K, \"label\": L}, "
             "\"replacement\": TEXT, \"rationale\": TEXT, \"expected_effect\": TEXT, "
             "\"original\": TEXT (optional)}; or {\"done\": true}"}};
  }

  void fault(EditError Err, bool Infra, const std::string &Start) {
    Err.Message = utf8(Err.Message);
    ++Faults;
    Mem.outcome("propose", editFaultName(Err.Fault));
    Mem.failure(std::string(editFaultName(Err.Fault)) + ": " + generalisedMessage(Err.Message));
    Feedback F;
    F.Parent = Start;
    F.Stage = "propose";
    F.Outcome = editFaultName(Err.Fault);
    F.Message = Err.Message;
    D->feedback(F);
    if (llvm::Error X = L->journal({{"event", "fault"},
                                    {"fault", editFaultName(Err.Fault)},
                                    {"message", Err.Message},
                                    {"infrastructure", Infra}}))
      stop(std::move(X));
    if (O.Progress)
      O.Progress(AgentOptions::ProgressKind::Event, "proposal refused (" +
                                                        std::string(editFaultName(Err.Fault)) +
                                                        "): " + Err.Message);
    // A proposer that failed (an endpoint that does not answer) is counted apart, as
    // infrastructure (proposal()); these are replies that were not edits.
    if (!Infra && Faults >= O.MaxFaults && !Stopped) {
      stop(makeError(std::to_string(Faults) +
                     " proposals in a row were not edits; the last: " + Err.Message));
    }
  }

  void stop(llvm::Error Err) {
    if (Stopped) {
      llvm::consumeError(std::move(Err));
      return;
    }
    Stopped = true;
    R.fail(std::move(Err));
    StopReason = "error";
  }

  // A node's context for the driver, with the stall note when the search has stalled.
  nlohmann::json contextOf(const NodeView &V) const {
    std::string Why =
        Repeats >= kRepeatRedirect
            ? std::to_string(Repeats) + " proposals in a row were candidates already evaluated"
        : Level ? std::to_string(SinceCommit) + " candidates without a commit"
                : "";
    return context(V, Why.empty() ? "" : "stalled: " + Why + "; try another window or direction");
  }

  // Ask the driver for one new candidate from Start.
  std::optional<Job> proposal(const std::string &Start) {
    NodeView *V = view(Start);
    if (!V)
      return std::nullopt;
    nlohmann::json Ctx;
    bool CtxMade = false;
    for (int Try = 0; Try < 256 && !Stopped && StopReason.empty(); ++Try) {
      if (!CtxMade) {
        Ctx = contextOf(*V);
        CtxMade = true;
      }
      auto P = D->propose(*V, Ctx);
      if (!P) {
        Exhausted.insert(Start);
        if (std::string Why = D->spent(); !Why.empty())
          StopReason = Why; // a spent budget, not convergence
        return std::nullopt;
      }
      if (P->Fault) {
        P->Fault->Message = utf8(P->Fault->Message);
        fault(*P->Fault, P->Infrastructure, Start);
        if (P->Infrastructure && ++InfraFails >= O.MaxInfraFailures && !Stopped)
          stop(runtimeError("the driver failed " + std::to_string(InfraFails) +
                            " times in a row: " + P->Fault->Message));
        continue;
      }
      Job J;
      J.Parent = Start;
      J.Driver = D->name();
      J.Edits = {*P->E};
      J.Edits.insert(J.Edits.end(), P->More.begin(), P->More.end());
      EditError Err;
      auto T = applyEdits(V->Map, J.Edits, O.Limits, Err, &J.Ranges);
      if (!T) {
        fault(Err, false, Start);
        continue;
      }
      Faults = 0;
      if (std::string K = editKey(J.Edits); !K.empty() && Mem.isBadEdit(K)) {
        Mem.outcome("propose", "known-bad");
        if (repeated(Start,
                     "this edit was already evaluated" + failedAs(K) + "; propose a different one"))
          return std::nullopt;
        continue;
      }
      J.Text = std::move(*T);
      J.Hash = candidateHash(J.Text);
      if (!Mem.firstTime(J.Hash)) {
        Mem.outcome("propose", "repeat");
        if (repeated(Start, "this edit was already evaluated" + sameAs(J.Hash) +
                                "; propose a different one"))
          return std::nullopt;
        continue;
      }
      Repeats = 0;
      return J;
    }
    return std::nullopt;
  }

  // Where a repeated candidate was evaluated, for the driver's feedback.
  std::string sameAs(const std::string &Hash) const {
    for (const auto &[Id, N] : L->nodes())
      if (N.CandidateHash == Hash)
        return ": it gives the candidate of node " + Id + " (" +
               (Id == "n000000" ? std::string("K0 itself")
                                : (N.Stage.empty() ? "" : N.Stage + ": ") + N.Outcome) +
               ")";
    return ": it gives a candidate proposed before";
  }
  std::string failedAs(const std::string &Key) const {
    for (const auto &[Id, N] : L->nodes())
      if (!N.Verified && editKey(N.Edits) == Key)
        return " from node " + N.Parent + " as " + Id + ", and failed there (" +
               (N.Stage.empty() ? "" : N.Stage + ": ") + N.Outcome + ")";
    return " from another node, and failed there";
  }

  // One more proposal of a candidate already evaluated: fed back to the driver (the llm
  // driver's next prompt quotes it), a redirect after kRepeatRedirect in a row, the stop after
  // as many again. True when the round must end: the redirect backtracks to other start
  // points, or the run stops.
  bool repeated(const std::string &Start, const std::string &Message) {
    ++Repeats;
    Feedback F;
    F.Parent = Start;
    F.Stage = "propose";
    F.Outcome = "repeat";
    F.Message = Message;
    D->feedback(F);
    if (Repeats == kRepeatRedirect) {
      ++Redirects;
      if (Level == 0) {
        Level = 1;
        ++Backtracks;
      }
      std::string Why =
          std::to_string(Repeats) + " proposals in a row were candidates already evaluated";
      D->redirect(Why);
      event("redirect", Why + "; backtracking to earlier verified nodes");
      return true;
    }
    if (Repeats >= 2 * kRepeatRedirect) {
      StopReason = "converged: the driver only repeats candidates already evaluated (" +
                   std::to_string(Repeats) + " proposals in a row, " +
                   std::to_string(Repeats - kRepeatRedirect) + " of them after a redirect)";
      return true;
    }
    return false;
  }

  void event(const char *Name, const std::string &Why) {
    if (llvm::Error Err = L->journal({{"event", Name}, {"why", Why}, {"level", Level}}))
      stop(std::move(Err));
    if (O.Progress)
      O.Progress(AgentOptions::ProgressKind::Event, std::string(Name) + ": " + Why);
  }

  bool budgetLeft() {
    if (interrupted()) {
      StopReason = "interrupted";
      return false;
    }
    if (elapsed() >= O.BudgetSeconds) {
      StopReason = "wall-clock budget (" + secondsText(O.BudgetSeconds) + " s)";
      return false;
    }
    if (O.MaxCandidates && L->nodes().size() - 1 >= O.MaxCandidates) {
      StopReason = "candidate budget (" + std::to_string(O.MaxCandidates) + ")";
      return false;
    }
    return true;
  }

  void evaluate(std::vector<Job> &Jobs) {
    for (Job &J : Jobs) {
      auto Id = L->newNode();
      if (!Id)
        return stop(Id.takeError());
      J.Id = *Id;
      nlohmann::json Ed = nlohmann::json::array();
      for (const Edit &X : J.Edits)
        Ed.push_back(editJson(X));
      if (llvm::Error Err = writeFileAtomic(L->nodeDir(J.Id) + "/edit.json",
                                            (J.Edits.size() == 1 ? Ed[0] : Ed).dump(2) + "\n"))
        return stop(std::move(Err));
    }
    auto One = [&](Job &J) {
      auto T0 = Clock::now();
      if (O.WorkerLaunch.empty()) {
        J.R = gatedEval(J.Text, L->nodeDir(J.Id), K0->C, E);
      } else {
        llvm::SmallString<256> Dir(L->nodeDir(J.Id));
        llvm::sys::fs::make_absolute(Dir);
        J.R = evaluateThrough(O.WorkerLaunch, O.WorkerCommand, Dir.str().str(), J.Text);
      }
      J.Seconds = std::chrono::duration<double>(Clock::now() - T0).count();
    };
    if (Jobs.size() == 1) {
      One(Jobs[0]);
      return;
    }
    if (!Pool)
      Pool = std::make_unique<WorkerPool>(std::max(1u, O.Workers));
    std::vector<std::function<void()>> Batch;
    for (Job &J : Jobs)
      Batch.push_back([&One, &J] { One(J); });
    Pool->run(std::move(Batch));
  }

  // Gate and record one evaluated job. Composition: Both = the two parents' speedups to beat.
  void decide(Job &J, double MustBeat = 0) {
    if (J.R.Stage == "io") // a full disk: stop before anything else is written
      return stop(makeError(J.R.Message));
    if (J.R.Result == Outcome::Interrupted || J.R.Stage == "worker") {
      // Not a verdict on the candidate (an interrupt, or a worker step that did not start or
      // died: search/Worker.h): forget it, so that --resume evaluates it again.
      llvm::sys::fs::remove_directories(L->nodeDir(J.Id));
      if (J.R.Stage == "worker") {
        Mem.outcome("worker", "failed");
        if (++InfraFails >= O.MaxInfraFailures)
          stop(runtimeError("the worker steps failed " + std::to_string(InfraFails) +
                            " times in a row; the last: " + J.R.Message));
      }
      return;
    }
    Node N = judgeCandidate(J, J.R, L->best(), MustBeat, O.Gate);
    ++Evaluated;
    if (!N.Verified && !O.KeepRejected) {
      llvm::sys::fs::remove(L->nodeDir(N.Id) + "/cand.s");
      llvm::sys::fs::remove(L->nodeDir(N.Id) + "/cand.hsaco");
    }
    for (auto [Name, Rep] :
         {std::pair<const char *, const nlohmann::json *>{"diffcheck", &J.R.DiffCheck},
          {"time", &J.R.Time}})
      if (!Rep->is_null())
        if (llvm::Error Err =
                writeFileAtomic(L->nodeDir(N.Id) + "/" + Name + ".json", Rep->dump(1) + "\n"))
          return stop(std::move(Err));
    if (llvm::Error Err = L->record(N))
      return stop(std::move(Err));
    Mem.outcome(N.Stage, N.Outcome);
    Mem.failure(N.Signature);
    if (!N.Verified && !J.R.Infrastructure)
      if (std::string K = editKey(N.Edits); !K.empty())
        Mem.badEdit(K);
    if (J.R.Infrastructure) {
      if (++InfraFails >= O.MaxInfraFailures)
        return stop(runtimeError(
            "the gates failed " + std::to_string(InfraFails) +
            " times in a row for reasons not the candidate's; the last: " + J.R.Message));
    } else {
      InfraFails = 0;
    }
    D->feedback(feedbackOf(N));
    if (N.Committed) {
      ++Commits;
      SinceCommit = 0;
      Level = 0;
      Exhausted.clear();
      Mem.insight(N.Edits.empty() ? "" : N.Edits.front().Rationale);
      if (llvm::Error Err = L->journal({{"event", "commit"},
                                        {"id", N.Id},
                                        {"parent", N.Parent},
                                        {"speedup", N.Speedup},
                                        {"speedup_interval", speedupIntervalJson(N)},
                                        {"kind", N.Kind},
                                        {"backend", N.Backend}}))
        return stop(std::move(Err));
    } else {
      ++SinceCommit;
    }
    const Node *P = L->node(N.Parent);
    if (N.Verified && P && N.Speedup > P->Speedup) {
      auto &Pl = Improving[N.Parent];
      Pl.push_back(N.Id);
      if (Pl.size() > 16)
        Pl.erase(Pl.begin());
    }
    progress(N);
  }

  void progress(const Node &N) {
    if (!O.Progress)
      return;
    const Node *B = L->best();
    // A verified candidate the gate kept out is "slower" on disk (node.json's outcome); here it
    // is said as the gate and the report say it: faster than K0 but short of Eq. 2's margin
    // over the best is "not faster enough", not "slower".
    std::string Word = N.Outcome;
    if (N.Verified && !N.Committed)
      Word = N.PointCommit && N.Speedups.size() > 1 ? "not faster under every parameter set"
             : N.Speedup > 1.0                      ? "not faster enough"
             : N.Speedup == 1.0                     ? "not faster"
                                                    : "slower";
    std::string Rej;
    for (const auto &[K, C] : Mem.outcomes())
      if (K != "gate:ok")
        Rej += (Rej.empty() ? "" : ", ") + (K == "gate:slower" ? "gate:not committed" : K) + " " +
               std::to_string(C);
    double Secs = std::max(elapsed(), 1e-3);
    O.Progress(N.Committed ? AgentOptions::ProgressKind::Commit
                           : AgentOptions::ProgressKind::Candidate,
               N.Id + " " + Word + (N.Verified ? " " + speedupText(N) : "") + " | " +
                   std::to_string(Evaluated) + " candidates, " + fixed(Evaluated / Secs, 1) +
                   "/s, " + std::to_string(Commits) + " commits; best " + speedupText(*B) + " " +
                   B->Id + " (" + B->Kind + ", " + B->Backend + ") | " + Rej);
  }

  // Compose J's edits with the fastest disjoint pool member of the same parent.
  void compose(const std::string &Id) {
    const Node *C = L->node(Id);
    if (!C || !C->Verified)
      return;
    const Node *Best = nullptr;
    for (const std::string &M : Improving[C->Parent]) {
      const Node *X = L->node(M);
      if (!X || X->Id == Id || Composed.count({std::min(Id, M), std::max(Id, M)}))
        continue;
      bool Disjoint = true;
      for (auto [A0, A1] : C->Ranges)
        for (auto [B0, B1] : X->Ranges)
          if (!(A1 + 1 < B0 || B1 + 1 < A0))
            Disjoint = false;
      if (Disjoint && (!Best || X->Speedup > Best->Speedup))
        Best = X;
    }
    if (!Best)
      return;
    Composed.insert({std::min(Id, Best->Id), std::max(Id, Best->Id)});
    NodeView *V = view(C->Parent);
    if (!V)
      return;
    Job J;
    J.Parent = C->Parent;
    J.Driver = "compose";
    J.Sources = {C->Id, Best->Id};
    J.Edits = C->Edits;
    J.Edits.insert(J.Edits.end(), Best->Edits.begin(), Best->Edits.end());
    EditError Err;
    auto T = applyEdits(V->Map, J.Edits, O.Limits, Err, &J.Ranges);
    if (!T)
      return;
    J.Text = std::move(*T);
    J.Hash = candidateHash(J.Text);
    if (!Mem.firstTime(J.Hash))
      return;
    ++Compositions;
    std::vector<Job> Js{std::move(J)};
    evaluate(Js);
    if (!Stopped)
      decide(Js[0], std::max(C->Speedup, Best->Speedup));
  }

  // The stall supervision (repeats are repeated()'s).
  void supervise() {
    if (Level == 0 && SinceCommit >= O.Stall) {
      Level = 1;
      ++Redirects;
      ++Backtracks;
      std::string Why = std::to_string(SinceCommit) + " candidates without a commit";
      D->redirect(Why);
      event("redirect", Why + "; backtracking to earlier verified nodes");
    } else if (Level == 1 && SinceCommit >= 2 * uint64_t(O.Stall)) {
      Level = 2;
      ++Escalations;
      D->redirect("escalate");
      event("escalate", std::to_string(SinceCommit) +
                            " candidates without a commit; multi-start from distinct verified "
                            "nodes");
    } else if (Level == 2 && SinceCommit >= 4 * uint64_t(O.Stall)) {
      StopReason = "converged: " + std::to_string(SinceCommit) +
                   " candidates without a commit after escalation";
    }
  }

  void loop() {
    while (!Stopped && StopReason.empty() && budgetLeft()) {
      std::vector<Job> Jobs;
      std::set<std::string> Hashes;
      std::vector<std::string> Starts = startPoints();
      if (Starts.size() > 1 && D->prefetches()) {
        // Several workers: the driver may ask for all their proposals at once.
        std::vector<std::pair<const NodeView *, nlohmann::json>> Ahead;
        for (const std::string &S : Starts)
          if (NodeView *V = view(S))
            Ahead.push_back({V, contextOf(*V)});
        D->prefetch(Ahead);
      }
      for (const std::string &S : Starts) {
        if (O.MaxCandidates && L->nodes().size() - 1 + Jobs.size() >= O.MaxCandidates)
          break;
        auto J = proposal(S);
        if (Stopped)
          return;
        if (J && Hashes.insert(J->Hash).second)
          Jobs.push_back(std::move(*J));
        if (!StopReason.empty())
          break; // what was proposed before is still evaluated
      }
      if (Jobs.empty()) {
        // a driver's spent budget, or an interrupt during a proposal (the exec driver stops
        // its command)
        if (!StopReason.empty() || !budgetLeft())
          return;
        if (verified().empty()) {
          StopReason = "converged: the driver has nothing more to propose from any verified node";
          return;
        }
        continue;
      }
      evaluate(Jobs);
      if (Stopped)
        return;
      for (Job &J : Jobs) {
        decide(J);
        if (Stopped)
          return;
      }
      for (Job &J : Jobs)
        if (!Stopped && budgetLeft())
          compose(J.Id);
      supervise();
    }
  }

  void finish() {
    if (!L || !L->best())
      return;
    const Node *B = L->best();
    const Node *Root = L->node("n000000");
    uint64_t Candidates = L->nodes().size() - 1;
    std::map<std::string, uint64_t> Outcomes;
    for (const auto &[Id, N] : L->nodes())
      if (Id != "n000000")
        ++Outcomes[N.Outcome];
    nlohmann::json Failures = Mem.json()["failures"];
    double Secs = elapsed();
    if (StopReason.empty() && !Stopped)
      StopReason = "stopped";
    std::string Kind = B->Kind.empty() ? (E.Backend == "emu" ? "modeled" : "measured") : B->Kind;
    R.Body = {
        {"k0", O.K0},
        {"kernel", E.Kernel},
        {"target", K0->C.Target.Processor},
        {"run_dir", O.RunDir},
        {"kstar", B->Id == "n000000" ? O.K0 : O.RunDir + "/best.hsaco"},
        {"kstar_asm", O.RunDir + "/best.s"},
        {"best_node", B->Id},
        {"speedup", B->Speedup},
        {"speedup_interval", speedupIntervalJson(*B)},
        {"ensemble", {{"members", E.Backend == "emu" ? E.Ensemble : 0u}, {"seed", E.EnsembleSeed}}},
        {"kind", Kind},
        {"label", Kind == "modeled" ? "modeled, not measured" : "measured"},
        {"k0_us", Root ? Root->Us : 0},
        {"kstar_us", B->Id == "n000000" ? (Root ? Root->Us : 0) : B->Us},
        {"driver", O.Driver},
        {"workers", O.Workers},
        {"candidates", Candidates},
        {"evaluated_this_run", Evaluated},
        {"commits",
         [&] {
           uint64_t C = 0;
           for (const auto &[Id, N] : L->nodes())
             C += N.Committed && Id != "n000000";
           return C;
         }()},
        {"compositions", Compositions},
        {"redirects", Redirects},
        {"escalations", Escalations},
        {"outcomes", Outcomes},
        {"stages", Mem.outcomes()},
        {"failure_signatures", Failures},
        {"seconds", Secs},
        {"candidates_per_hour", Secs > 0 ? 3600.0 * Evaluated / Secs : 0},
        {"stopped_by", StopReason},
        {"journal_events", L->journalEvents()}};
    // What K0 and K* were checked and timed on.
    R.Body["launches"] = {
        {"correctness",
         {{"spec", O.Spec.empty() ? nlohmann::json() : nlohmann::json(O.Spec)},
          {"seeds", O.Spec.empty() ? nlohmann::json::array() : nlohmann::json(E.Seeds)},
          {"edge_shapes", E.EdgeShapes ? EdgeShapes : nlohmann::json::array()},
          {"edge_shapes_seed", E.EdgeShapes && !EdgeShapes.empty() && !E.Seeds.empty()
                                   ? nlohmann::json(E.Seeds.back())
                                   : nlohmann::json()},
          {"captures", E.Captures}}},
        {"timing",
         E.Captures.empty()
             ? nlohmann::json{{"spec", E.TimeSpec.empty() ? O.Spec : E.TimeSpec},
                              {"checked",
                               E.TimeSpec.empty()
                                   ? "it is the correctness launch"
                                   : "once (seed " + std::to_string(E.Seeds.front()) +
                                         ") for every candidate faster than K0 there under "
                                         "every parameter set, before "
                                         "it can be committed"}}
             : nlohmann::json{{"captures", E.Captures}, {"basis", timingBasis(E)}}}};
    nlohmann::json Usage = D ? D->usage() : nlohmann::json();
    if (!Usage.is_null())
      R.Body["driver_usage"] = Usage;
    // A modeled best speedup says how far the model is believed on K0's GPU (ModelAgreement.h):
    // the search times with the shipped parameter file of K0's processor.
    if (Kind == "modeled") {
      auto TP = timing::loadTargetParams(K0->C.Target.Processor);
      auto A =
          TP ? timing::agreementFor(*TP) : llvm::Expected<timing::AgreementReport>(TP.takeError());
      if (A) {
        R.Body["model_agreement"] = A->Json;
        R.Notes.insert(R.Notes.end(), A->Notes.begin(), A->Notes.end());
      } else {
        R.Body["model_agreement"] = {{"status", "unknown"}};
        warn("warning: the model's agreement with published kernels is unknown: " +
             llvm::toString(A.takeError()));
      }
    }
    if (!Stopped) {
      R.Message = "best " + speedupText(*B) + " over K0 (" +
                  (Kind == "modeled" ? "modeled, not measured" : "measured") + ", " + E.Backend +
                  ") at node " + B->Id + " after " + std::to_string(Candidates) +
                  " candidates; stopped by " + StopReason;
      if (StopReason == "interrupted")
        R.Result = Outcome::Interrupted;
    }
    nlohmann::json StopEvent = {
        {"event", "stop"}, {"why", StopReason}, {"best", B->Id}, {"speedup", B->Speedup}};
    if (!Usage.is_null())
      StopEvent["driver_usage"] = Usage;
    if (llvm::Error Err = L->journal(StopEvent))
      llvm::consumeError(std::move(Err));
    nlohmann::json Summary = R.json();
    if (llvm::Error Err = writeFileAtomic(O.RunDir + "/summary.json", Summary.dump(2) + "\n"))
      if (!Stopped)
        R.fail(std::move(Err));
  }
};

} // namespace

Report runAgent(const AgentOptions &O) { return Controller(O).run(); }

} // namespace asmevo::search
