// The `stochastic` driver: STOKE-style random moves on a node's hot windows: swap two adjacent
// instructions of a block, delete one, move an s_waitcnt one instruction down. Lines are drawn
// in proportion to their window's share of the modeled time. Moves respect what the static
// analyses prove, so that the oracle is not the only thing that rejects a broken one: a swap only
// of two instructions with no edge between them in the dependency graph (asm/DepGraph.h: no
// load swapped with its address computation, no MFMA moved above its operand's ds_read or past
// a wait); a wait moved down only where the wait analysis (asm/WaitFlow.h) finds every need
// still met; a deletion only of an s_waitcnt that analysis finds redundant, or of an instruction
// without memory or control effect whose every result is written again in its block before any
// read (never an s_nop: the gate refuses fewer wait states than K0 has). The chain (Metropolis over
// modeled speedup) walks verified nodes only: a verified candidate that is slower than the chain's
// current node is still accepted as the next start with probability exp(-Beta * (s_cur / s - 1)),
// so the search can leave a local optimum without ever editing an unverified text. Cheap tests
// first: the gates run in increasing cost (rebuild, then the differential check, which stops at the
// first failing seed, then timing), so most broken moves cost one rebuild.
#include "asm/DepGraph.h"
#include "search/Driver.h"

#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <random>
#include <set>

namespace asmevo::search {

namespace {

class StochasticDriver : public Driver {
public:
  explicit StochasticDriver(uint64_t Seed) : Rng(Seed) {}
  std::string name() const override { return "stochastic"; }

  std::optional<Proposal> propose(const NodeView &N, const nlohmann::json &) override {
    std::vector<std::pair<size_t, double>> Pool; // index into N.Map.Code, weight
    for (size_t K = 0; K < N.Map.Code.size(); ++K) {
      const CodeLine &L = N.Map.Code[K];
      if (!L.Cost || L.Line < N.Map.FirstEditable || L.Cost->Unit == InstUnit::Branch ||
          L.Cost->EndPgm)
        continue;
      double W = 0.05;
      for (const HotLines &H : N.Hot)
        if (L.Line >= H.First && L.Line <= H.Last)
          W = std::max(W, H.Share);
      Pool.push_back({K, W});
    }
    if (Pool.empty())
      return std::nullopt;
    std::vector<double> Ws;
    for (auto &P : Pool)
      Ws.push_back(P.second);
    std::discrete_distribution<size_t> Pick(Ws.begin(), Ws.end());
    std::unique_ptr<WaitFlow> Flow = waitFlowOf(N);
    for (int Try = 0; Try < 64; ++Try) {
      size_t K = Pool[Pick(Rng)].first;
      const CodeLine &L = N.Map.Code[K];
      bool HasNext = K + 1 < N.Map.Code.size() && N.Map.Code[K + 1].Cost &&
                     adjacent(N, L.Line, N.Map.Code[K + 1].Line);
      std::optional<Edit> E;
      switch (std::uniform_int_distribution<int>(0, 2)(Rng)) {
      case 0: // swap with the next instruction of the block
        if (HasNext && independent(*L.Cost, *N.Map.Code[K + 1].Cost))
          E = edit(N, L.Line, N.Map.Code[K + 1].Line,
                   N.Map.Lines[N.Map.Code[K + 1].Line] + "\n" + N.Map.Lines[L.Line],
                   "swap two adjacent independent instructions");
        break;
      case 1: // delete
        if (deletable(N, Flow.get(), K))
          E = edit(N, L.Line, L.Line, "",
                   L.Cost->Mnemonic == "s_waitcnt"
                       ? "delete an s_waitcnt every path already meets"
                       : "delete an instruction whose results are written again before any read");
        break;
      default: // move a wait down by one
        if (L.Cost->Mnemonic == "s_waitcnt" && HasNext && waitMovable(N, Flow.get(), K))
          E = edit(N, L.Line, N.Map.Code[K + 1].Line,
                   N.Map.Lines[N.Map.Code[K + 1].Line] + "\n" + N.Map.Lines[L.Line],
                   "move an s_waitcnt down by one instruction");
        break;
      }
      if (!E)
        continue;
      std::string Key = N.Id + ":" + std::to_string(E->W.FirstLine) + ":" + E->Replacement;
      if (!Proposed.insert(Key).second)
        continue;
      return Proposal{std::move(*E), std::nullopt};
    }
    return std::nullopt; // 64 draws gave nothing new: this node looks exhausted
  }

  void feedback(const Feedback &F) override {
    if (!F.Verified || F.Speedup <= 0)
      return;
    if (F.Committed || Current.empty() || F.Speedup >= CurrentSpeedup) {
      Current = F.Node;
      CurrentSpeedup = F.Speedup;
      return;
    }
    double P = std::exp(-Beta * (CurrentSpeedup / F.Speedup - 1));
    if (std::uniform_real_distribution<double>(0, 1)(Rng) < P) {
      Current = F.Node;
      CurrentSpeedup = F.Speedup;
    }
  }

  void redirect(const std::string &) override { Current.clear(); }
  std::string preferredStart() override { return Current; }

private:
  std::mt19937_64 Rng;
  std::set<std::string> Proposed;
  std::string Current;
  double CurrentSpeedup = 0;
  static constexpr double Beta = 50; // a 2% slower node is accepted with p = exp(-1)

  // Two instructions with no edge between them (a fence has edges to everything).
  static bool independent(const InstCost &A, const InstCost &B) {
    return buildDepGraph({&A, &B}).Preds[1].empty();
  }

  // Whether the wait at code line K can go one instruction down: the next one is no fence, the
  // instruction after it starts no block, and every need on every path is still met.
  static bool waitMovable(const NodeView &N, const WaitFlow *F, size_t K) {
    const auto &Code = N.Map.Code;
    if (!F || Code[K].Cost->WaitExp >= 0 || K + 2 >= Code.size() || !Code[K + 2].Cost ||
        isSchedFence(*Code[K + 1].Cost) || !adjacent(N, Code[K + 1].Line, Code[K + 2].Line))
      return false;
    WaitPlan P = F->original();
    P.Pre[K + 2] = P.Own[K];
    P.Own[K] = WaitFields{};
    return F->deficits(P).empty();
  }

  // Whether code line K can be deleted (see the file's comment).
  static bool deletable(const NodeView &N, const WaitFlow *F, size_t K) {
    const InstCost &C = *N.Map.Code[K].Cost;
    if (C.Mnemonic == "s_waitcnt") {
      if (!F || C.WaitExp >= 0)
        return false;
      WaitPlan P = F->original();
      P.Own[K] = WaitFields{};
      return F->deficits(P).empty();
    }
    llvm::StringRef T(C.Text);
    if (isSchedFence(C) || C.Vm || C.Lgkm || C.Exp || C.Writes.empty() || T.contains("sdwa") ||
        T.contains("dpp") || T.contains("_sel"))
      return false;
    std::set<std::string> Live(C.Writes.begin(), C.Writes.end());
    for (size_t J = K + 1; J < N.Map.Code.size() && !Live.empty(); ++J) {
      const CodeLine &L = N.Map.Code[J];
      if (!L.Cost || !adjacent(N, N.Map.Code[J - 1].Line, L.Line) || isSchedFence(*L.Cost))
        return false; // the block (or what the analysis can see of it) ends with a result live
      for (const std::string &R : L.Cost->Reads)
        if (Live.count(R))
          return false;
      llvm::StringRef XT(L.Cost->Text);
      if (XT.contains("sdwa") || XT.contains("dpp") || XT.contains("_sel"))
        continue; // a partial write: the rest of the register stays live
      for (const std::string &R : L.Cost->Writes)
        Live.erase(R);
    }
    return Live.empty();
  }

  static bool adjacent(const NodeView &N, size_t A, size_t B) {
    for (size_t K = A + 1; K < B; ++K)
      if (llvm::StringRef(N.Map.Lines[K]).trim().ends_with(":"))
        return false;
    return true;
  }
  static Edit edit(const NodeView &N, size_t First, size_t Last, std::string Rep, std::string Why) {
    Edit E;
    E.W.Function = N.Kernel;
    E.W.FirstLine = unsigned(First + 1);
    E.W.LastLine = unsigned(Last + 1);
    E.Replacement = std::move(Rep);
    E.Rationale = std::move(Why);
    E.Direction = "stochastic";
    return E;
  }
};

} // namespace

std::unique_ptr<Driver> makeStochasticDriver(uint64_t Seed) {
  return std::make_unique<StochasticDriver>(Seed);
}

} // namespace asmevo::search
