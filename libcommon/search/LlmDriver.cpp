// The `llm` driver: plan, edit and replan through an LLM endpoint (llm/Client.h). The planner
// (share/asmevo/prompts/plan.txt, then replan.txt once there is feedback) proposes a short
// ranked plan of windows and directions; the editor (edit.txt) writes one edit at a time for
// the next step; after each gate outcome the feedback goes back and the next proposal replans
// first; a redirect from the controller's anti-stall supervision drops the plans and says so.
// Replies are JSON objects held to a schema, parsed and never run; one that is not (no object,
// a refusal, an edit outside its step's window, a replacement over the limits, a reply that is
// not UTF-8, past the size limit or misreporting its usage) is a fault the controller records
// and the next turn is told about. Only replies that were a plan, or an edit that the
// controller took, are kept in the reply cache: a rerun asks again for the others.
#include "search/Driver.h"

#include "codeobj/TargetLimits.h"
#include "llm/Client.h"
#include "llm/Prompt.h"

#include <cstdio>
#include <future>
#include <map>

namespace asmevo::search {

namespace {

nlohmann::json windowSchema() {
  return {{"type", "object"},
          {"properties",
           {{"function", {{"type", "string"}}},
            {"first_line", {{"type", "integer"}}},
            {"last_line", {{"type", "integer"}}}}},
          {"required", {"function", "first_line", "last_line"}},
          {"additionalProperties", false}};
}

nlohmann::json planSchema() {
  return {{"type", "object"},
          {"properties",
           {{"steps",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"properties",
                 {{"window", windowSchema()},
                  {"direction", {{"type", "string"}}},
                  {"why", {{"type", "string"}}}}},
                {"required", {"window", "direction", "why"}},
                {"additionalProperties", false}}}}},
            {"done", {{"type", "boolean"}}}}},
          {"required", {"steps", "done"}},
          {"additionalProperties", false}};
}

nlohmann::json editSchema() {
  return {{"type", "object"},
          {"properties",
           {{"window", windowSchema()},
            {"replacement", {{"type", "string"}}},
            {"rationale", {{"type", "string"}}},
            {"expected_effect", {{"type", "string"}}}}},
          {"required", {"window", "replacement", "rationale", "expected_effect"}},
          {"additionalProperties", false}};
}

// The assembly with 1-based line numbers, as windows name lines.
std::string numbered(const std::string &Text) {
  std::string Out;
  unsigned N = 1;
  size_t At = 0;
  while (At <= Text.size()) {
    size_t End = Text.find('\n', At);
    if (End == std::string::npos)
      End = Text.size();
    Out += std::to_string(N++) + "| " + Text.substr(At, End - At) + "\n";
    At = End + 1;
  }
  return Out;
}

// The kernel's ABI limits, as its descriptor declares them: what an edit may not exceed.
nlohmann::json kernelSummary(const NodeView &N) {
  nlohmann::json S = {{"kernel", N.Kernel}, {"target", N.Target}};
  const KernelInfo *K = N.Obj ? N.Obj->C.kernel(N.Kernel) : nullptr;
  if (!K)
    return S;
  const TargetId &T = N.Obj->C.Target;
  RegisterAllocation A = registerAllocation(K->Kd, T, true, true);
  Occupancy O = kernelOccupancy(*K, T);
  S["allocated"] = {{"arch_vgprs", A.ArchVgprs},
                    {"agprs", A.Agprs},
                    {"sgprs_for_code", A.NumberedSgprs},
                    {"lds_bytes", K->Kd.GroupSegmentFixedSize},
                    {"scratch_bytes_per_lane", K->Kd.PrivateSegmentFixedSize}};
  S["waves_per_simd"] = O.WavesPerSimd;
  // The model's occupancy: what limits it, and how many more VGPRs a wave could use before
  // fewer waves fit (register headroom).
  if (N.Profile.contains("occupancy") && !N.Profile["occupancy"].empty())
    S["occupancy"] = N.Profile["occupancy"];
  S["rule"] = "an edit may use only v0..v" + std::to_string(A.ArchVgprs ? A.ArchVgprs - 1 : 0) +
              ", s0..s" + std::to_string(A.NumberedSgprs ? A.NumberedSgprs - 1 : 0) +
              (A.Agprs ? ", a0..a" + std::to_string(A.Agprs - 1) : std::string()) +
              " and the LDS the kernel already has";
  return S;
}

// What LLVM's scheduling model says of each instruction in the hot windows (asm/SchedInfo.h):
// its unit, latency and issue cycles, the wait counters it increments.
nlohmann::json isaFacts(const NodeView &N) {
  std::map<std::string, nlohmann::json> Facts;
  for (const HotLines &H : N.Hot)
    for (const CodeLine &C : N.Map.Code) {
      if (C.Line < H.First || C.Line > H.Last || !C.Cost || Facts.count(C.Cost->Mnemonic))
        continue;
      const InstCost &I = *C.Cost;
      nlohmann::json Counters = nlohmann::json::array();
      if (I.Vm)
        Counters.push_back("vmcnt");
      if (I.Lgkm)
        Counters.push_back("lgkmcnt");
      if (I.Exp)
        Counters.push_back("expcnt");
      Facts[I.Mnemonic] = {{"unit", instUnitName(I.Unit)},
                           {"latency_cycles", 4 * I.LatencyQuads},
                           {"issue_cycles", 4 * I.BusyQuads},
                           {"increments", Counters},
                           {"from", I.FromLlvm ? "LLVM's scheduling model" : "a default"}};
    }
  nlohmann::json Out = nlohmann::json::object();
  for (auto &[M, F] : Facts)
    Out[M] = F;
  return Out;
}

struct PlanState {
  nlohmann::json Steps = nlohmann::json::array();
  size_t Next = 0;
};

class LlmDriver : public Driver {
public:
  LlmDriver(std::unique_ptr<llm::Client> C, std::map<std::string, std::string> Prompts)
      : C(std::move(C)), Prompts(std::move(Prompts)) {}
  std::string name() const override { return "llm"; }

  ~LlmDriver() override { settle(); }

  std::optional<Proposal> propose(const NodeView &Node, const nlohmann::json &Ctx) override {
    settle();
    // What prefetch asked for this node ahead, concurrently with the other workers' requests.
    if (auto It = Decided.find(Node.Id); It != Decided.end()) {
      std::optional<Proposal> P = std::move(It->second);
      Decided.erase(It);
      return P;
    }
    if (auto It = Ready.find(Node.Id); It != Ready.end() && !It->second.empty()) {
      Pending X = std::move(It->second.front());
      It->second.erase(It->second.begin());
      return finish(X);
    }
    nlohmann::json Vars = nodeVars(Node, Ctx);
    if (auto Stop = plan(Node.Id, Vars))
      return *Stop;
    Pending X;
    X.Step = nextStep(Node.Id);
    Vars["step"] = X.Step;
    X.A = ask("edit", Vars, "asmevo_edit", editSchema());
    return finish(X);
  }

  // The start points of a round with more than one worker: plan once per node (the nodes'
  // plans concurrently), then every worker's edit request at once, each for its own step.
  bool prefetches() const override { return true; }
  void prefetch(const std::vector<std::pair<const NodeView *, nlohmann::json>> &Starts) override {
    settle();
    Ready.clear();
    Decided.clear();
    if (Starts.size() < 2)
      return;
    std::vector<nlohmann::json> Vars;
    std::map<std::string, size_t> FirstOf;
    for (const auto &[V, Ctx] : Starts) {
      Vars.push_back(nodeVars(*V, Ctx));
      FirstOf.emplace(V->Id, Vars.size() - 1);
    }
    // Plans: one request per node that needs one, all at once.
    std::map<std::string, std::future<Answer>> Asked;
    std::string Which = History.empty() ? "plan" : "replan";
    for (const auto &[Id, I] : FirstOf)
      if (Replan || Plans[Id].Steps.empty()) {
        nlohmann::json PV = Vars[I];
        PV["plan"] = Plans[Id].Steps;
        Asked[Id] = std::async(std::launch::async, [this, Which, PV] {
          return ask(Which, PV, "asmevo_plan", planSchema());
        });
      }
    // A node whose planner answered no plan (a fault, or nothing more to try) gets that
    // answer from its next propose().
    for (auto &[Id, F] : Asked)
      if (auto Instead = takePlan(Id, F.get()))
        Decided[Id] = std::move(*Instead);
    if (!Asked.empty() && Decided.empty())
      Replan = false;
    // Edits: one request per start point, all at once.
    std::vector<std::pair<std::string, Pending>> Edits;
    std::vector<std::future<Answer>> Futures;
    for (size_t I = 0; I < Starts.size(); ++I) {
      const std::string &Id = Starts[I].first->Id;
      if (Decided.count(Id) || Plans[Id].Steps.empty())
        continue;
      Pending X;
      X.Step = nextStep(Id);
      nlohmann::json EV = Vars[I];
      EV["step"] = X.Step;
      Edits.push_back({Id, std::move(X)});
      Futures.push_back(std::async(
          std::launch::async, [this, EV] { return ask("edit", EV, "asmevo_edit", editSchema()); }));
    }
    for (size_t I = 0; I < Edits.size(); ++I) {
      Edits[I].second.A = Futures[I].get();
      Ready[Edits[I].first].push_back(std::move(Edits[I].second));
    }
  }

  void feedback(const Feedback &F) override {
    // The controller refused the edit just proposed (its replacement over the limits, a window
    // that does not exist): not kept. Anything else about it means it was taken.
    if (F.Node.empty() && F.Stage == "propose" && F.Outcome != "repeat")
      Unsettled.reset();
    settle();
    History.push_back({{"node", F.Node},
                       {"parent", F.Parent},
                       {"stage", F.Stage},
                       {"outcome", F.Outcome},
                       {"signature", F.Signature},
                       {"message", F.Message},
                       {"speedup", F.Speedup},
                       {"verified", F.Verified},
                       {"committed", F.Committed}});
    if (History.size() > 8)
      History.erase(History.begin());
    Replan = true;
  }

  void redirect(const std::string &Why) override {
    Redirect = "The search has stalled (" + Why +
               "): switch to another window or another strategy than the plan's.";
    Plans.clear();
    Replan = true;
  }

  std::string spent() const override { return Spent; }

  nlohmann::json usage() const override {
    nlohmann::json U = C->usage().json();
    U["max_requests"] = C->options().MaxRequests;
    U["max_tokens"] = C->options().MaxTokens;
    U["plan_calls"] = PlanCalls;
    U["edit_calls"] = EditCalls;
    U["faults"] = Faults;
    U["dialect"] = llm::dialectName(C->options().Dial);
    U["model"] = C->options().Model;
    return U;
  }

private:
  // One call's outcome, made on any thread: the object, or why not (turned into a fault, and
  // counted, on the controller's thread).
  struct Answer {
    std::optional<nlohmann::json> Object;
    std::optional<EditError> Err;
    bool Infra = false;
    bool Stop = false; // the budget is spent: nothing more from this driver
    std::string StopWhy;
    llm::ChatReply Kept; // where the reply goes in the cache, once it proved usable
  };
  // An edit request and the step it was for.
  struct Pending {
    nlohmann::json Step;
    Answer A;
  };

  Proposal fault(EditFault F, const std::string &Message, bool Infra = false) {
    ++Faults;
    Proposal P;
    P.Fault = EditError{F, C->scrub(Message)};
    P.Infrastructure = Infra;
    return P;
  }

  nlohmann::json nodeVars(const NodeView &Node, const nlohmann::json &Ctx) const {
    nlohmann::json Vars = vars(Ctx);
    Vars["abi"] = kernelSummary(Node);
    Vars["isa_facts"] = isaFacts(Node);
    return Vars;
  }

  // Plan for node Id when it needs one: nothing when it has a plan now, else what propose()
  // returns instead (nullopt: nothing more from this node; a fault).
  std::optional<std::optional<Proposal>> plan(const std::string &Id, nlohmann::json Vars) {
    if (!Replan && !Plans[Id].Steps.empty())
      return std::nullopt;
    Vars["plan"] = Plans[Id].Steps;
    auto R =
        takePlan(Id, ask(History.empty() ? "plan" : "replan", Vars, "asmevo_plan", planSchema()));
    if (!R)
      Replan = false;
    return R;
  }

  // Take a planner's answer for node Id (on the controller's thread).
  std::optional<std::optional<Proposal>> takePlan(const std::string &Id, const Answer &A) {
    if (!A.Object)
      return A.Stop ? stopped(A) : std::optional<Proposal>(failed(A));
    ++PlanCalls;
    C->keep(A.Kept);
    Redirect.clear();
    const nlohmann::json &Steps = (*A.Object)["steps"];
    if (!Steps.is_array() || Steps.empty())
      return std::optional<Proposal>(); // the planner sees nothing more from this node
    // At most 5 steps, as the prompt asks (not a schema keyword: strict structured outputs
    // do not take maxItems everywhere).
    PlanState &P = Plans[Id];
    P.Steps = nlohmann::json::array();
    for (size_t I = 0; I < Steps.size() && I < 5; ++I)
      P.Steps.push_back(Steps[I]);
    P.Next = 0;
    return std::nullopt;
  }

  nlohmann::json nextStep(const std::string &Id) {
    PlanState &P = Plans[Id];
    return P.Steps[P.Next++ % P.Steps.size()];
  }

  Proposal failed(const Answer &A) { return fault(A.Err->Fault, A.Err->Message, A.Infra); }

  // The budget is spent: nothing more from any node, and the run says why.
  std::optional<Proposal> stopped(const Answer &A) {
    Spent = A.StopWhy;
    return std::nullopt;
  }

  // The edit proposed last was taken (the controller said nothing against it before the next
  // call): keep its reply.
  void settle() {
    if (Unsettled)
      C->keep(*Unsettled);
    Unsettled.reset();
  }

  // An editor's answer as a proposal (on the controller's thread).
  std::optional<Proposal> finish(const Pending &X) {
    if (!X.A.Object)
      return X.A.Stop ? stopped(X.A) : std::optional<Proposal>(failed(X.A));
    ++EditCalls;
    EditError Err;
    auto E = parseEdit(*X.A.Object, "llm reply", Err);
    if (!E)
      return fault(Err.Fault, Err.Message);
    // The editor must stay inside its step's window.
    const nlohmann::json &W = X.Step["window"];
    if (W.is_object() && W.value("first_line", 0) > 0 && E->W.FirstLine &&
        (E->W.FirstLine < W.value("first_line", 0u) || E->W.LastLine > W.value("last_line", 0u)))
      return fault(EditFault::OffWindow,
                   "llm reply: the edit's lines " + std::to_string(E->W.FirstLine) + "-" +
                       std::to_string(E->W.LastLine) + " are outside its step's window " +
                       std::to_string(W.value("first_line", 0u)) + "-" +
                       std::to_string(W.value("last_line", 0u)));
    E->Direction = X.Step.value("direction", "");
    Unsettled = X.A.Kept;
    return Proposal{std::move(*E), std::nullopt};
  }

  nlohmann::json vars(const nlohmann::json &Ctx) const {
    nlohmann::json V;
    V["kernel"] = Ctx.value("kernel", "");
    V["target"] = Ctx.value("target", "");
    V["node"] = Ctx.value("node", "");
    auto times = [](double X) {
      char B[32];
      std::snprintf(B, sizeof B, "%.4fx", X);
      return std::string(B);
    };
    V["speedup"] = times(Ctx.value("speedup", 1.0));
    nlohmann::json Best = Ctx.value("best", nlohmann::json::object());
    V["best"] = Best.value("node", std::string("?")) + " at " + times(Best.value("speedup", 1.0));
    V["assembly"] = numbered(Ctx.value("assembly", ""));
    V["hot_windows"] = Ctx.value("hot_windows", nlohmann::json::array());
    V["loops"] = Ctx.value("loops", nlohmann::json::array());
    V["memory"] = Ctx.value("memory", nlohmann::json::object());
    V["gate"] = Ctx.value("gate", nlohmann::json::object());
    V["feedback"] = History;
    std::string R = Ctx.value("redirect", "");
    V["redirect"] = !Redirect.empty() ? Redirect : R.empty() ? "" : "Note: " + R + ".";
    V["plan"] = nlohmann::json::array();
    V["step"] = nlohmann::json::object();
    return V;
  }

  // One call (any thread: it reads only the prompts and the client, which is thread-safe).
  Answer ask(const std::string &Which, const nlohmann::json &Vars, const std::string &Schema,
             const nlohmann::json &S) const {
    Answer A;
    auto no = [&](EditFault F, const std::string &M, bool Infra = false) {
      A.Err = EditError{F, M};
      A.Infra = Infra;
      return A;
    };
    auto Prompt = llm::fillPrompt(Prompts.at(Which), Vars, Which + ".txt");
    if (!Prompt)
      return no(EditFault::Malformed, llvm::toString(Prompt.takeError()), true);
    llm::ChatRequest Req;
    Req.Model = C->options().Model;
    Req.System = Prompts.at("system");
    Req.Prompt = *Prompt;
    Req.MaxTokens = C->options().ReplyTokens;
    Req.SchemaName = Schema;
    Req.Schema = S;
    auto R = C->call(Req);
    if (!R) {
      llvm::handleAllErrors(R.takeError(), [&](const llm::CallError &E) {
        A.Stop = E.Kind == llm::CallFailure::Budget;
        A.StopWhy = E.Message;
        // A reply that came but cannot be used is the reply's fault, fed back; no reply at
        // all is the endpoint's (infrastructure).
        bool Reply = E.Kind == llm::CallFailure::Shape || E.Kind == llm::CallFailure::TooLarge;
        no(E.Kind == llm::CallFailure::TooLarge ? EditFault::TooLarge : EditFault::Malformed,
           "llm " + Which + " call: " + E.Message, !Reply);
      });
      return A;
    }
    if (R->Refused)
      return no(EditFault::Refused,
                "llm " + Which + " call: the model refused" +
                    (R->RefusalText.empty() ? std::string()
                                            : ": '" + llm::excerpt(R->RefusalText, 200) + "'"));
    if (R->Object.is_null())
      return no(EditFault::Malformed, "llm " + Which + " call: the reply is not a JSON object: '" +
                                          llm::excerpt(R->Text, 120) + "'");
    if (Which != "edit" && (!R->Object.contains("steps") || !R->Object["steps"].is_array()))
      return no(EditFault::Malformed, "llm " + Which + " call: the plan has no \"steps\" array: '" +
                                          llm::excerpt(R->Object.dump(), 120) + "'");
    A.Object = R->Object;
    A.Kept.CacheFile = std::move(R->CacheFile);
    A.Kept.CacheEntry = std::move(R->CacheEntry);
    return A;
  }

  std::unique_ptr<llm::Client> C;
  std::map<std::string, std::string> Prompts;
  std::map<std::string, PlanState> Plans;
  std::map<std::string, std::vector<Pending>> Ready;      // prefetched edits by node
  std::map<std::string, std::optional<Proposal>> Decided; // prefetched plans that were not
  std::vector<nlohmann::json> History;
  bool Replan = false;
  std::string Redirect;
  std::string Spent;                       // why the budget stopped the driver
  std::optional<llm::ChatReply> Unsettled; // the last edit's reply, until it proves taken
  uint64_t PlanCalls = 0, EditCalls = 0, Faults = 0;
};

} // namespace

llvm::Expected<std::unique_ptr<Driver>> makeLlmDriver(const DriverOptions &O) {
  auto C = llm::Client::create(O.Llm);
  if (!C)
    return C.takeError();
  // Every placeholder a template may use: what vars() and nodeVars() fill. The system prompt
  // is sent as it is.
  std::vector<std::string> Names = {
      "kernel", "target", "node",     "speedup",  "best", "assembly", "hot_windows", "loops",
      "memory", "gate",   "feedback", "redirect", "plan", "step",     "abi",         "isa_facts"};
  std::map<std::string, std::string> Prompts;
  for (const char *Name : {"system", "plan", "replan", "edit"}) {
    auto P = llm::loadPrompt(Name);
    if (!P)
      return P.takeError();
    if (llvm::Error E =
            llm::checkPrompt(*P, llm::promptsDir() + "/" + Name + ".txt",
                             std::string(Name) == "system" ? std::vector<std::string>() : Names))
      return std::move(E);
    Prompts[Name] = std::move(*P);
  }
  return std::make_unique<LlmDriver>(std::move(*C), std::move(Prompts));
}

} // namespace asmevo::search
