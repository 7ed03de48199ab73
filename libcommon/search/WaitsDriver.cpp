// The `waits` driver: s_waitcnt placed by a dataflow over the whole kernel (asm/WaitFlow.h), not
// by patterns inside one block. Per node, hottest first, it proposes for each s_waitcnt:
//   - relax: the weakest counts this wait can have with every instruction on every path after it
//     still waiting for what it needs (loops and branches included);
//   - sink: this wait taken out and, instead, right before each instruction that then needs
//     one, the weakest wait that instruction needs (on every path: one wait may become several);
// and, per hot window, every wait of the window placed again that way; and first, per hot window,
// its VMEM loads into registers issued in the order their data is first used, as far as each
// run's dependencies allow (vmcnt counts in issue order: a load needed first but issued last
// makes its use wait for every load issued before it), the node's waits kept where the new order
// needs nothing more, and each wait between the moved loads and their last first use sunk to what
// needs it. That placement is judged on the reordered code itself, with no reference to the
// node's waits (every pending operation a use or a drain point needs is waited for). Each
// proposal is one edit of one window of lines; one that would touch the kernarg-preload prologue,
// or span more lines than an edit may, is not proposed. Where memory order could matter
// (barriers, atomics, scoped stores, cache operations, LDS reads behind loads into LDS) a
// proposal never leaves more outstanding than the node's own code did (or, for the reordered
// code, than nothing), so it is proposed only from what the node itself guarantees; the one
// exception is WaitFlow's: on gfx90a and later outside threadgroup-split mode, loads into
// registers may stay in flight across s_barrier. An s_waitcnt taken out entirely becomes an s_nop
// 0: the instruction also counts as a wait state between its neighbours (a DPP or MFMA reader after
// a VALU write needs some) and ends a soft clause of memory instructions (an XNACK replay must not
// see a clause that writes what it reads), and the driver does not check either. The gates (the
// strict checks) judge every proposal on the launches.
#include "asm/DepGraph.h"
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
    // The editable instructions of each hot window, as [first, last] indices.
    std::vector<std::pair<size_t, size_t>> Windows;
    for (const HotLines &H : N.Hot) {
      size_t First = S.LineOf.size(), Last = 0;
      for (size_t K = S.FirstEditable; K < S.LineOf.size(); ++K)
        if (S.LineOf[K] >= H.First && S.LineOf[K] <= H.Last) {
          First = std::min(First, K);
          Last = std::max(Last, K);
        }
      if (First <= Last)
        Windows.push_back({First, Last});
    }
    // Loads reordered in each hot window first: the one proposal that can turn a full wait into
    // a partial one where no placement of the node's own order can.
    for (auto [First, Last] : Windows)
      S.Tasks.push_back(Task{Kind::Reorder, First, Last});
    for (size_t K : Order) {
      S.Tasks.push_back(Task{Kind::Relax, K, K});
      S.Tasks.push_back(Task{Kind::Sink, K, K});
    }
    for (auto [First, Last] : Windows)
      S.Tasks.push_back(Task{Kind::Window, First, Last});
    return S;
  }

  // The window [T.First, T.Last] with, in each run of it between fences (asm/DepGraph.h's, and
  // lines that are not adjacent: a label), every plain VMEM load issued after the loads whose
  // data the window uses before its own (their issue order is then the order of first use, as
  // far as the run's dependencies allow), and the window's waits placed again for that order.
  // None when no load changes order.
  std::optional<Edit> reorder(const NodeView &N, PerNode &S, const Task &T) const {
    const WaitFlow &F = *S.Flow;
    std::vector<size_t> Perm(F.size()), RunFirst(F.size()), MovedUse(F.size(), 0);
    for (size_t K = 0; K < F.size(); ++K)
      Perm[K] = RunFirst[K] = K;
    auto touches = [](const InstCost &A, const InstCost &B) { // B reads or writes A's results
      return intersects(A.Writes, B.Reads) || intersects(A.Writes, B.Writes);
    };
    bool Changed = false;
    for (size_t K = T.First; K <= T.Last;) {
      size_t E = K;
      while (E <= T.Last && !isSchedFence(*F.inst(E).C) &&
             (E == K || S.LineOf[E] == S.LineOf[E - 1] + 1))
        ++E;
      if (E - K >= 2) {
        std::vector<const InstCost *> Run;
        for (size_t J = K; J < E; ++J)
          Run.push_back(F.inst(J).C);
        DepGraph G = buildDepGraph(Run, /*LoadOrderFree=*/true);
        // First use of each load: the first later instruction of the window that reads or
        // writes what it loads (past the window: after every used one, in issue order).
        size_t R = Run.size();
        std::vector<size_t> Use(R, SIZE_MAX);
        std::vector<bool> Load(R, false);
        for (size_t J = 0; J < R; ++J) {
          if (!isPlainVmemLoad(*Run[J]))
            continue;
          Load[J] = true;
          Use[J] = T.Last + 1 + J;
          for (size_t X = K + J + 1; X <= T.Last; ++X)
            if (touches(*Run[J], *F.inst(X).C)) {
              Use[J] = X;
              break;
            }
        }
        // Each load's place: after every load of the run whose data is used before its own.
        std::vector<size_t> Key(R);
        for (size_t J = 0; J < R; ++J) {
          Key[J] = J;
          if (Load[J])
            for (size_t L = J + 1; L < R; ++L)
              if (Load[L] && Use[L] < Use[J])
                Key[J] = std::max(Key[J], L);
        }
        // A topological order of the run, the ready instruction of least (key, load after the
        // others of that key, first use, place) first.
        std::vector<unsigned> Left(R), Order;
        for (size_t J = 0; J < R; ++J)
          Left[J] = unsigned(G.Preds[J].size());
        std::vector<bool> Done(R, false);
        while (Order.size() < R) {
          size_t Best = SIZE_MAX;
          auto rank = [&](size_t J) { return std::make_tuple(Key[J], Key[J] != J, Use[J], J); };
          for (size_t J = 0; J < R; ++J)
            if (!Done[J] && !Left[J] && (Best == SIZE_MAX || rank(J) < rank(Best)))
              Best = J;
          Done[Best] = true;
          Order.push_back(unsigned(Best));
          for (unsigned Sx : G.Succs[Best])
            --Left[Sx];
        }
        // A new neighbour may join a soft clause (consecutive memory instructions of one kind)
        // that an XNACK replay would get wrong; the run then keeps its order.
        std::vector<const InstCost *> Seq;
        if (K > 0)
          Seq.push_back(F.inst(K - 1).C);
        for (unsigned J : Order)
          Seq.push_back(Run[J]);
        if (E < F.size())
          Seq.push_back(F.inst(E).C);
        if (softClauseHazard(Seq))
          for (size_t J = 0; J < R; ++J)
            Order[J] = unsigned(J);
        for (size_t J = 0; J < R; ++J) {
          Perm[K + J] = K + Order[J];
          RunFirst[K + J] = K;
          MovedUse[K + J] = Load[J] && Use[J] <= T.Last ? Use[J] : 0;
          Changed |= Order[J] != J;
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
    // The node's waits kept, any need the new order opens met right where it appears (the
    // runs hold no wait), then each wait between the first moved load and the last first use of
    // a moved load sunk to what needs it: the waits the new order can weaken.
    const WaitFlow &GF = **G;
    size_t FirstMoved = SIZE_MAX, LastMoved = 0, LastUse = 0;
    for (size_t K = T.First; K <= T.Last; ++K)
      if (Perm[K] != K) {
        FirstMoved = std::min(FirstMoved, K);
        LastMoved = std::max(LastMoved, K);
        LastUse = std::max(LastUse, MovedUse[Perm[K]]);
      }
    WaitPlan P = GF.place(GF.original(), FirstMoved, LastMoved);
    for (size_t W = LastMoved + 1; W <= std::min(LastUse, T.Last); ++W)
      if (GF.inst(W).C->Mnemonic == "s_waitcnt")
        P = GF.place(P, W, W);
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
