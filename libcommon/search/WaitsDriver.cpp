// The `waits` driver: s_waitcnt placed by a dataflow over the whole kernel (asm/WaitFlow.h), not
// by patterns inside one block. Per node, hottest first, it proposes for each s_waitcnt:
//   - relax: the weakest counts this wait can have with every instruction on every path after it
//     still waiting for what it needs (loops and branches included);
//   - sink: this wait taken out and, instead, right before each instruction that then needs
//     one, the weakest wait that instruction needs (on every path: one wait may become several);
// and, per hot window, every wait of the window placed again that way. Each proposal is one edit
// of one window of lines; one that would touch the kernarg-preload prologue, or span more lines
// than an edit may, is not proposed. Where memory order could matter (barriers, atomics, scoped
// stores, cache operations, LDS reads behind loads into LDS) a proposal never leaves more
// outstanding than the node's own code did, so it is proposed only from what the node itself
// guarantees. An s_waitcnt taken out entirely becomes an s_nop 0: the instruction also counts
// as a wait state between its neighbours (a DPP or MFMA reader after a VALU write needs some)
// and ends a soft clause of memory instructions (an XNACK replay must not see a clause that
// writes what it reads), and the driver does not check either. The gates (the strict checks)
// judge every proposal on the launches.
#include "asm/WaitFlow.h"
#include "search/Driver.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>
#include <set>

namespace asmevo::search {

namespace {

class WaitsDriver : public Driver {
public:
  std::string name() const override { return "waits"; }

  std::optional<Proposal> propose(const NodeView &N, const nlohmann::json &) override {
    auto It = Nodes.find(N.Id);
    if (It == Nodes.end())
      It = Nodes.emplace(N.Id, start(N)).first;
    PerNode &S = It->second;
    // The analysis points into this NodeView's instruction costs, and the controller may hand
    // the same node over again as another NodeView: analyse this one (a node's text never
    // changes, so the tasks' instruction indices still hold).
    if (S.Flow && S.Next < S.Tasks.size())
      S.Flow = waitFlowOf(N);
    while (S.Flow && S.Next < S.Tasks.size()) {
      Task T = S.Tasks[S.Next++];
      if (auto E = attempt(N, S, T))
        return Proposal{std::move(*E), std::nullopt};
    }
    S.Flow.reset();
    return std::nullopt;
  }

private:
  enum class Kind { Relax, Sink, Window };
  struct Task {
    Kind K;
    size_t First, Last; // instruction indices (Relax/Sink: the wait)
  };
  struct PerNode {
    std::unique_ptr<WaitFlow> Flow; // of the NodeView last seen; reset when nothing is left
    std::vector<size_t> LineOf;     // instruction index -> 0-based text line
    size_t FirstEditable = 0;       // first instruction index an edit may touch
    std::vector<Task> Tasks;
    size_t Next = 0;
    std::set<std::string> Seen; // placements already proposed from this node
  };
  std::map<std::string, PerNode> Nodes;

  static PerNode start(const NodeView &N) {
    PerNode S;
    S.Flow = waitFlowOf(N);
    if (!S.Flow)
      return S;
    for (const CodeLine &L : N.Map.Code)
      S.LineOf.push_back(L.Line);
    while (S.FirstEditable < S.LineOf.size() && S.LineOf[S.FirstEditable] < N.Map.FirstEditable)
      ++S.FirstEditable;
    // The waits, those in hot windows first (hottest first), then in text order.
    std::vector<size_t> Order;
    std::vector<bool> Taken(S.LineOf.size(), false);
    auto isWait = [&](size_t K) { return S.Flow->inst(K).C->Mnemonic == "s_waitcnt"; };
    for (const HotLines &H : N.Hot)
      for (size_t K = S.FirstEditable; K < S.LineOf.size(); ++K)
        if (!Taken[K] && isWait(K) && S.LineOf[K] >= H.First && S.LineOf[K] <= H.Last) {
          Order.push_back(K);
          Taken[K] = true;
        }
    for (size_t K = S.FirstEditable; K < S.LineOf.size(); ++K)
      if (!Taken[K] && isWait(K))
        Order.push_back(K);
    for (size_t K : Order) {
      S.Tasks.push_back(Task{Kind::Relax, K, K});
      S.Tasks.push_back(Task{Kind::Sink, K, K});
    }
    for (const HotLines &H : N.Hot) {
      size_t First = S.LineOf.size(), Last = 0;
      for (size_t K = S.FirstEditable; K < S.LineOf.size(); ++K)
        if (S.LineOf[K] >= H.First && S.LineOf[K] <= H.Last) {
          First = std::min(First, K);
          Last = std::max(Last, K);
        }
      if (First <= Last)
        S.Tasks.push_back(Task{Kind::Window, First, Last});
    }
    return S;
  }

  std::optional<Edit> attempt(const NodeView &N, PerNode &S, const Task &T) const {
    const WaitFlow &F = *S.Flow;
    WaitPlan P = F.original();
    std::string What;
    std::string Wait = llvm::StringRef(F.inst(T.First).C->Text).trim().str();
    switch (T.K) {
    case Kind::Relax: {
      WaitFields R = F.relax(P, T.First);
      if (R == P.Own[T.First])
        return std::nullopt;
      P.Own[T.First] = R;
      What = "relax '" + Wait +
             "': on every path after it, what each instruction needs stays "
             "waited for";
      break;
    }
    case Kind::Sink:
      P = F.place(P, T.First, T.First);
      What = "sink '" + Wait + "' to the instructions that need what it waits for, on every path";
      break;
    case Kind::Window:
      P = F.place(P, T.First, T.Last);
      What = "place the waits of lines " + std::to_string(S.LineOf[T.First] + 1) + "-" +
             std::to_string(S.LineOf[T.Last] + 1) +
             " again, each right before the first instruction that needs it";
      break;
    }
    // One proposal per placement (a wait relaxed and the same wait sunk onto the line after it
    // are one candidate).
    std::string Key;
    for (size_t K = 0; K < F.size(); ++K)
      if (P.Pre[K] != F.original().Pre[K] || P.Own[K] != F.original().Own[K])
        Key += std::to_string(K) + ":" + std::to_string(P.Pre[K].Vm) + "," +
               std::to_string(P.Pre[K].Lgkm) + "," + std::to_string(P.Own[K].Vm) + "," +
               std::to_string(P.Own[K].Lgkm) + ";";
    if (Key.empty() || !S.Seen.insert(Key).second)
      return std::nullopt;
    std::optional<Edit> E = planEdit(N, S, P, What);
    return E;
  }

  // The edit that turns the node's waits into P's: one window from the first changed line to
  // the last. None when P changes nothing, or touches the prologue, or spans too many lines.
  static std::optional<Edit> planEdit(const NodeView &N, const PerNode &S, const WaitPlan &P,
                                      const std::string &Rationale) {
    const WaitFlow &F = *S.Flow;
    const WaitPlan &O = F.original();
    size_t First = SIZE_MAX, Last = 0;
    for (size_t K = 0; K < F.size(); ++K)
      if (P.Pre[K] != O.Pre[K] || P.Own[K] != O.Own[K]) {
        if (K < S.FirstEditable)
          return std::nullopt;
        First = std::min(First, S.LineOf[K]);
        Last = std::max(Last, S.LineOf[K]);
      }
    if (First == SIZE_MAX || Last - First + 1 > EditLimits().MaxWindowLines)
      return std::nullopt;
    std::map<size_t, size_t> AtLine;
    for (size_t K = 0; K < F.size(); ++K)
      AtLine[S.LineOf[K]] = K;
    std::vector<std::string> Out;
    for (size_t L = First; L <= Last; ++L) {
      auto It = AtLine.find(L);
      if (It == AtLine.end()) {
        Out.push_back(N.Map.Lines[L]);
        continue;
      }
      size_t K = It->second;
      if (P.Pre[K].any())
        Out.push_back(waitcntText(P.Pre[K]));
      if (P.Own[K] != O.Own[K]) {
        std::string W = waitcntText(P.Own[K], F.inst(K).C->WaitExp);
        Out.push_back(W.empty() ? "\ts_nop 0" : W); // a wait taken out keeps its wait state
        continue;
      }
      Out.push_back(N.Map.Lines[L]);
    }
    Edit E;
    E.W.Function = N.Kernel;
    E.W.FirstLine = unsigned(First + 1);
    E.W.LastLine = unsigned(Last + 1);
    for (size_t L = First; L <= Last; ++L)
      E.Original += N.Map.Lines[L] + (L < Last ? "\n" : "");
    for (size_t K = 0; K < Out.size(); ++K)
      E.Replacement += Out[K] + (K + 1 < Out.size() ? "\n" : "");
    if (E.Replacement == E.Original)
      return std::nullopt; // the same text (a wait sunk onto the line it was on)
    E.Direction = "latency hiding";
    E.Rationale = Rationale;
    E.ExpectedEffect = "fewer modeled wave-cycles waiting on memory counters";
    return E;
  }
};

} // namespace

std::unique_ptr<Driver> makeWaitsDriver() { return std::make_unique<WaitsDriver>(); }

} // namespace asmevo::search
