// The `sched` driver: list scheduling of a node's hot windows under the exact dependency graph
// (asm/DepGraph.h: registers, the wait counters' issue order, memory both instructions may touch,
// fences), with LLVM's latencies. A window is cut into runs: consecutive instruction lines with
// no label, comment or fence (s_waitcnt, s_barrier, s_nop, branches, ...) between them; only
// instructions inside one run change places, so every wait still counts the same operations.
// Per hot window, hottest first, it proposes the whole window scheduled for the critical path,
// then with loads first, then each run of it alone (longest runs first) both ways; an order that
// is the original is not proposed. With no hot windows (no model profile) every block's runs are
// taken in text order. Wait states between instructions are not in the graph: each order is
// rebuilt and scanned for the ISA's wait-state rules as the differential check scans a candidate
// (search/WaitStateFilter.h), and an order with a hazard of a kind the node's code does not have
// is dropped, not proposed (counted in the driver's usage).
#include "asm/DepGraph.h"
#include "search/Driver.h"
#include "search/WaitStateFilter.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>
#include <set>

namespace asmevo::search {

namespace {

struct Run {
  size_t First, Last; // indices into the node's code lines (inclusive)
};

class SchedDriver : public EditListDriver {
public:
  std::string name() const override { return "sched"; }

  nlohmann::json usage() const override { return Hazards.usage(); }

protected:
  std::vector<Edit> edits(const NodeView &N) override { return proposals(N); }
  bool keep(const NodeView &N, const std::vector<Edit> &Es) override {
    return Hazards.keeps(N, Es);
  }

private:
  WaitStateFilter Hazards;

  // The runs of code lines [From, To] (indices into N.Map.Code).
  static std::vector<Run> runs(const NodeView &N, size_t From, size_t To) {
    std::vector<Run> Out;
    const auto &Code = N.Map.Code;
    size_t Start = SIZE_MAX;
    auto close = [&](size_t End) {
      if (Start != SIZE_MAX && End > Start + 1) // at least two instructions
        Out.push_back(Run{Start, End});
      Start = SIZE_MAX;
    };
    for (size_t K = From; K <= To && K < Code.size(); ++K) {
      const CodeLine &L = Code[K];
      bool Usable = L.Cost && L.Line >= N.Map.FirstEditable && !isSchedFence(*L.Cost);
      bool Adjacent = K > From && Code[K - 1].Line + 1 == L.Line;
      if (!Usable || !Adjacent)
        close(K - 1);
      if (Usable && Start == SIZE_MAX)
        Start = K;
    }
    close(std::min(To, Code.size() - 1));
    return Out;
  }

  // The lines of run R in a scheduled order; empty when it is the original order.
  static std::vector<size_t> order(const NodeView &N, const Run &R, SchedGoal Goal) {
    std::vector<const InstCost *> Insts;
    for (size_t K = R.First; K <= R.Last; ++K)
      Insts.push_back(N.Map.Code[K].Cost);
    DepGraph G = buildDepGraph(Insts);
    std::vector<unsigned> O = listSchedule(G, Insts, Goal);
    bool Same = true;
    for (size_t K = 0; K < O.size(); ++K)
      Same &= O[K] == K;
    if (Same || !respects(G, O))
      return {};
    std::vector<size_t> Lines;
    for (unsigned K : O)
      Lines.push_back(N.Map.Code[R.First + K].Line);
    return Lines;
  }

  // One edit: lines [First, Last] with the given runs in their new order.
  static Edit edit(const NodeView &N, size_t First, size_t Last,
                   const std::map<size_t, std::vector<size_t>> &NewOrder, std::string Rationale) {
    Edit E;
    E.W.Function = N.Kernel;
    E.W.FirstLine = unsigned(First + 1);
    E.W.LastLine = unsigned(Last + 1);
    std::vector<std::string> Out;
    for (size_t L = First; L <= Last;) {
      auto It = NewOrder.find(L);
      if (It == NewOrder.end()) {
        Out.push_back(N.Map.Lines[L++]);
        continue;
      }
      for (size_t X : It->second)
        Out.push_back(N.Map.Lines[X]);
      L += It->second.size();
    }
    for (size_t L = First; L <= Last; ++L)
      E.Original += N.Map.Lines[L] + (L < Last ? "\n" : "");
    for (size_t K = 0; K < Out.size(); ++K)
      E.Replacement += Out[K] + (K + 1 < Out.size() ? "\n" : "");
    E.Direction = "latency hiding";
    E.Rationale = std::move(Rationale);
    E.ExpectedEffect = "fewer modeled wave-cycles in this window";
    return E;
  }

  static std::vector<Edit> proposals(const NodeView &N) {
    std::vector<Edit> Out;
    std::set<std::string> Seen;
    auto add = [&](Edit E) {
      if (E.Replacement != E.Original &&
          E.W.LastLine - E.W.FirstLine + 1 <= EditLimits().MaxWindowLines &&
          Seen.insert(std::to_string(E.W.FirstLine) + ":" + E.Replacement).second)
        Out.push_back(std::move(E));
    };
    const auto &Code = N.Map.Code;
    if (Code.empty())
      return Out;
    // The windows: hot ones (code-line index ranges), or the whole function.
    std::vector<std::pair<size_t, size_t>> Windows;
    for (const HotLines &H : N.Hot) {
      size_t First = SIZE_MAX, Last = 0;
      for (size_t K = 0; K < Code.size(); ++K)
        if (Code[K].Line >= H.First && Code[K].Line <= H.Last) {
          First = std::min(First, K);
          Last = std::max(Last, K);
        }
      if (First != SIZE_MAX)
        Windows.push_back({First, Last});
    }
    if (Windows.empty())
      Windows.push_back({0, Code.size() - 1});
    const std::pair<SchedGoal, const char *> Goals[] = {
        {SchedGoal::CriticalPath, "for the critical path (LLVM's latencies)"},
        {SchedGoal::LoadsEarly, "with loads first, then the critical path"}};
    for (auto [WFirst, WLast] : Windows) {
      std::vector<Run> Rs = runs(N, WFirst, WLast);
      if (Rs.empty())
        continue;
      size_t FirstLine = Code[Rs.front().First].Line, LastLine = Code[Rs.back().Last].Line;
      for (auto [Goal, How] : Goals) {
        std::map<size_t, std::vector<size_t>> All;
        for (const Run &R : Rs)
          if (std::vector<size_t> L = order(N, R, Goal); !L.empty())
            All[Code[R.First].Line] = L;
        if (!All.empty())
          add(edit(N, FirstLine, LastLine, All,
                   "schedule the " + std::to_string(Rs.size()) + " runs of lines " +
                       std::to_string(FirstLine + 1) + "-" + std::to_string(LastLine + 1) + " " +
                       How));
      }
      std::vector<Run> Longest = Rs;
      std::stable_sort(Longest.begin(), Longest.end(), [](const Run &A, const Run &B) {
        return A.Last - A.First > B.Last - B.First;
      });
      for (const Run &R : Longest)
        for (auto [Goal, How] : Goals)
          if (std::vector<size_t> L = order(N, R, Goal); !L.empty()) {
            size_t F = Code[R.First].Line, T = Code[R.Last].Line;
            add(edit(N, F, T, {{F, L}},
                     "schedule lines " + std::to_string(F + 1) + "-" + std::to_string(T + 1) + " " +
                         How));
          }
    }
    return Out;
  }
};

} // namespace

std::unique_ptr<Driver> makeSchedDriver() { return std::make_unique<SchedDriver>(); }

} // namespace asmevo::search
