// The `waits` driver: s_waitcnt placed by a dataflow over the whole kernel (asm/WaitFlow.h), not
// by patterns inside one block. Per node, hottest first, it proposes for each s_waitcnt:
//   - relax: the weakest counts this wait can have with every instruction on every path after it
//     still waiting for what it needs (loops and branches included);
//   - sink: this wait taken out and, instead, right before each instruction that then needs
//     one, the weakest wait that instruction needs (on every path: one wait may become several);
// and, per hot window, every wait of the window placed again that way; and, per hot window, its
// runs of adjacent independent VMEM loads into registers issued in the order their data is first
// used, with the window's waits placed again for that order (vmcnt counts in issue order: a load
// needed first but issued last makes its use wait for every load issued before it). That
// placement is judged on the reordered code itself, with no reference to the node's waits (every
// pending operation a use or a drain point needs is waited for). Each proposal is one edit
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
  enum class Kind { Relax, Sink, Window, Reorder };
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
    // Loads reordered in each hot window first: the one proposal that can turn a full wait
    // into a partial one where no placement of the node's own order can.
    for (const HotLines &H : N.Hot) {
      size_t First = S.LineOf.size(), Last = 0;
      for (size_t K = S.FirstEditable; K < S.LineOf.size(); ++K)
        if (S.LineOf[K] >= H.First && S.LineOf[K] <= H.Last) {
          First = std::min(First, K);
          Last = std::max(Last, K);
        }
      if (First <= Last)
        S.Tasks.push_back(Task{Kind::Reorder, First, Last});
    }
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

  // A VMEM load into registers that may trade places with another (not FLAT, not into LDS, no
  // store or atomic side).
  static bool plainLoad(const InstCost &C) {
    return C.Vm && !C.Lgkm && !C.Store && !C.Atomic && !C.LdsDirect && !C.Writes.empty() &&
           C.Unit != InstUnit::Internal;
  }
  static bool overlaps(const std::vector<std::string> &A, const std::vector<std::string> &B) {
    for (const std::string &X : A)
      if (std::find(B.begin(), B.end(), X) != B.end())
        return true;
    return false;
  }

  // The window [T.First, T.Last] with each run of adjacent independent plain loads sorted by
  // the index of the first later instruction of the window that reads or writes what it loads,
  // and the window's waits placed again for that order. None when no run changes order.
  std::optional<Edit> reorder(const NodeView &N, PerNode &S, const Task &T) const {
    const WaitFlow &F = *S.Flow;
    std::vector<size_t> Perm(F.size()), RunFirst(F.size());
    for (size_t K = 0; K < F.size(); ++K)
      Perm[K] = RunFirst[K] = K;
    bool Changed = false;
    for (size_t K = T.First; K <= T.Last;) {
      size_t E = K;
      while (E <= T.Last && plainLoad(*F.inst(E).C) &&
             (E == K || S.LineOf[E] == S.LineOf[E - 1] + 1)) {
        bool Independent = true;
        for (size_t J = K; J < E && Independent; ++J) {
          const InstCost &A = *F.inst(J).C, &B = *F.inst(E).C;
          Independent = !overlaps(A.Writes, B.Reads) && !overlaps(A.Writes, B.Writes) &&
                        !overlaps(B.Writes, A.Reads);
        }
        if (!Independent)
          break;
        ++E;
      }
      if (E - K >= 2) {
        std::vector<std::pair<size_t, size_t>> Use; // (first use, index)
        for (size_t J = K; J < E; ++J) {
          size_t U = T.Last + 1 + J; // not used in the window: after every used one, in order
          for (size_t X = E; X <= T.Last; ++X) {
            const InstCost &C = *F.inst(X).C;
            if (overlaps(F.inst(J).C->Writes, C.Reads) || overlaps(F.inst(J).C->Writes, C.Writes)) {
              U = X;
              break;
            }
          }
          Use.push_back({U, J});
        }
        std::stable_sort(Use.begin(), Use.end());
        for (size_t J = K; J < E; ++J) {
          Perm[J] = Use[J - K].second;
          RunFirst[J] = K;
          Changed |= Perm[J] != J;
        }
      }
      K = std::max(E, K + 1);
    }
    if (!Changed)
      return std::nullopt;
    // The reordered code: instruction K of it is F's instruction Perm[K], at offsets laid out
    // again in the new order (a run has no label inside it, so branch targets stay).
    std::vector<FlowInst> Code;
    for (size_t K = 0; K < F.size(); ++K) {
      FlowInst I = F.inst(Perm[K]);
      I.Offset =
          RunFirst[K] == K ? F.inst(K).Offset : Code.back().Offset + N.Map.Code[Perm[K - 1]].Size;
      Code.push_back(I);
    }
    WaitFlowOptions O = waitFlowOptionsOf(N);
    O.OwnReference = false;
    const KernelInfo *KI = N.Obj ? N.Obj->C.kernel(N.Kernel) : nullptr;
    if (!KI)
      return std::nullopt;
    auto G = WaitFlow::create(std::move(Code), KI->EntryAddr, O);
    if (!G) {
      llvm::consumeError(G.takeError());
      return std::nullopt;
    }
    WaitPlan P = (*G)->place((*G)->original(), T.First, T.Last);
    std::vector<std::string> Lines = N.Map.Lines;
    for (size_t K = T.First; K <= T.Last; ++K)
      if (Perm[K] != K)
        Lines[S.LineOf[K]] = N.Map.Lines[S.LineOf[Perm[K]]];
    size_t MinLine = SIZE_MAX, MaxLine = 0;
    for (size_t K = T.First; K <= T.Last; ++K)
      if (Perm[K] != K) {
        MinLine = std::min(MinLine, S.LineOf[K]);
        MaxLine = std::max(MaxLine, S.LineOf[K]);
      }
    return planEdit(N, S, **G, P, Lines, MinLine, MaxLine,
                    "issue the loads of lines " + std::to_string(MinLine + 1) + "-" +
                        std::to_string(MaxLine + 1) +
                        " in the order their data is first used, and place the waits of lines " +
                        std::to_string(S.LineOf[T.First] + 1) + "-" +
                        std::to_string(S.LineOf[T.Last] + 1) +
                        " again for that order: a use waits only for the loads issued before "
                        "its own");
  }

  std::optional<Edit> attempt(const NodeView &N, PerNode &S, const Task &T) const {
    if (T.K == Kind::Reorder)
      return reorder(N, S, T);
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
    case Kind::Reorder:
      return std::nullopt;
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
    return planEdit(N, S, F, P, N.Map.Lines, SIZE_MAX, 0, What);
  }

  // The edit that turns the node's text into Lines (the node's, or with instructions reordered:
  // F is then the analysis of that order, and the lines [MinLine, MaxLine] differ) with F's waits
  // P: one window from the first changed line to the last. None when it changes nothing, or
  // touches the prologue, or spans too many lines.
  static std::optional<Edit> planEdit(const NodeView &N, const PerNode &S, const WaitFlow &F,
                                      const WaitPlan &P, const std::vector<std::string> &Lines,
                                      size_t MinLine, size_t MaxLine,
                                      const std::string &Rationale) {
    const WaitPlan &O = F.original();
    size_t First = MinLine, Last = MaxLine;
    if (MinLine != SIZE_MAX && MinLine < S.LineOf[S.FirstEditable])
      return std::nullopt;
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
        Out.push_back(Lines[L]);
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
      Out.push_back(Lines[L]);
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
