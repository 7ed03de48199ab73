// The `stochastic` driver: STOKE-style random moves on a node's hot windows: swap two adjacent
// instructions of a block, delete one (not an s_nop: the gate refuses fewer wait states than
// K0 has), move an s_waitcnt one instruction down. Lines are drawn in proportion to their window's
// share of the modeled time. The chain (Metropolis over modeled speedup) walks verified nodes only:
// a verified candidate that is slower than the chain's current node is still accepted as the next
// start with probability exp(-Beta * (s_cur / s - 1)), so the search can leave a local optimum
// without ever editing an unverified text. Cheap tests first: the gates run in increasing cost
// (rebuild, then the differential check, which stops at the first failing seed, then timing), so
// most broken moves cost one rebuild.
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
    for (int Try = 0; Try < 64; ++Try) {
      size_t K = Pool[Pick(Rng)].first;
      const CodeLine &L = N.Map.Code[K];
      bool HasNext = K + 1 < N.Map.Code.size() && N.Map.Code[K + 1].Cost &&
                     adjacent(N, L.Line, N.Map.Code[K + 1].Line);
      std::optional<Edit> E;
      switch (std::uniform_int_distribution<int>(0, 2)(Rng)) {
      case 0: // swap with the next instruction of the block
        if (HasNext && N.Map.Code[K + 1].Cost->Unit != InstUnit::Branch &&
            !N.Map.Code[K + 1].Cost->EndPgm)
          E = edit(N, L.Line, N.Map.Code[K + 1].Line,
                   N.Map.Lines[N.Map.Code[K + 1].Line] + "\n" + N.Map.Lines[L.Line],
                   "swap two adjacent instructions");
        break;
      case 1:                            // delete
        if (L.Cost->Mnemonic != "s_nop") // the gate refuses fewer wait states than K0 has
          E = edit(N, L.Line, L.Line, "", "delete an instruction");
        break;
      default: // move a wait down by one
        if (L.Cost->Mnemonic == "s_waitcnt" && HasNext)
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
