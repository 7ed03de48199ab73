#include "timing/HotWindows.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace asmevo::timing {

double totalCycles(const Breakdown &B) {
  return B.Issue + B.Dependency + B.UnitBusy + B.WaitVm + B.WaitLgkm + B.WaitExp + B.Barrier +
         B.Arbitration;
}

static void addInto(Breakdown &A, const Breakdown &B) {
  A.Issue += B.Issue;
  A.Dependency += B.Dependency;
  A.UnitBusy += B.UnitBusy;
  A.WaitVm += B.WaitVm;
  A.WaitLgkm += B.WaitLgkm;
  A.WaitExp += B.WaitExp;
  A.LdsConflict += B.LdsConflict;
  A.Barrier += B.Barrier;
  A.Arbitration += B.Arbitration;
}

// Registers in the order a person reads them: s, v, a by number, then the special ones.
static std::vector<std::string> sortedRegisters(const std::set<std::string> &Set) {
  std::vector<std::string> V(Set.begin(), Set.end());
  auto Key = [](const std::string &R) {
    int Kind = R[0] == 's' && std::isdigit(static_cast<unsigned char>(R[1]))   ? 0
               : R[0] == 'v' && std::isdigit(static_cast<unsigned char>(R[1])) ? 1
               : R[0] == 'a' && std::isdigit(static_cast<unsigned char>(R[1])) ? 2
                                                                               : 3;
    long N = Kind < 3 ? std::stol(R.substr(1)) : 0;
    return std::make_tuple(Kind, N, R);
  };
  std::sort(V.begin(), V.end(), [&](auto &A, auto &B) { return Key(A) < Key(B); });
  return V;
}

std::vector<Loop> loopNest(const std::vector<InstProfile> &Insts) {
  std::map<int64_t, int64_t> HeadToEnd; // a head, and the end of its last latch
  for (const InstProfile &I : Insts)
    if (I.Target && *I.Target <= I.Offset) {
      int64_t &E = HeadToEnd[*I.Target];
      E = std::max(E, I.Offset + int64_t(I.Size));
    }
  std::vector<Loop> L;
  double All = 0;
  for (const InstProfile &I : Insts)
    All += totalCycles(I.Cycles);
  for (auto &[B, E] : HeadToEnd) {
    Loop X;
    X.Begin = B;
    X.End = E;
    for (const InstProfile &I : Insts) {
      if (I.Offset == B)
        X.Iterations = I.Executions;
      if (I.Offset >= B && I.Offset < E)
        X.Cycles += totalCycles(I.Cycles);
    }
    X.Share = All > 0 ? X.Cycles / All : 0;
    L.push_back(X);
  }
  // Outermost first: by begin, the longer first; a loop's depth counts the loops holding it.
  std::sort(L.begin(), L.end(), [](const Loop &A, const Loop &B) {
    return A.Begin != B.Begin ? A.Begin < B.Begin : A.End > B.End;
  });
  for (Loop &X : L) {
    X.Depth = 1;
    for (const Loop &Y : L)
      if (&Y != &X && Y.Begin <= X.Begin && X.End <= Y.End && (Y.End - Y.Begin) > (X.End - X.Begin))
        ++X.Depth;
  }
  return L;
}

nlohmann::json loopJson(const Loop &L) {
  return {{"begin", L.Begin},           {"end", L.End},       {"depth", L.Depth},
          {"iterations", L.Iterations}, {"cycles", L.Cycles}, {"share", L.Share}};
}

nlohmann::json profileJson(const std::vector<InstProfile> &Insts, unsigned MaxWindows,
                           unsigned VgprHeadroom) {
  nlohmann::json Is = nlohmann::json::array(), Ws = nlohmann::json::array(),
                 Ls = nlohmann::json::array();
  for (const InstProfile &I : Insts)
    Is.push_back({{"offset", I.Offset},
                  {"text", I.Text},
                  {"executions", I.Executions},
                  {"cycles", breakdownJson(I.Cycles)}});
  for (const HotWindow &W : hotWindows(Insts, MaxWindows))
    Ws.push_back(hotWindowJson(W, Insts, VgprHeadroom));
  for (const Loop &L : loopNest(Insts))
    Ls.push_back(loopJson(L));
  return {{"instructions", Is}, {"hot_windows", Ws}, {"loops", Ls}};
}

// Whether an instruction waits (a counter wait or a barrier): a window may end after it.
static bool waits(const std::string &Text) {
  llvm::StringRef T = llvm::StringRef(Text).ltrim();
  return T.starts_with("s_waitcnt") || T.starts_with("s_barrier");
}

std::vector<HotWindow> hotWindows(const std::vector<InstProfile> &Insts, unsigned Max) {
  double All = 0;
  for (const InstProfile &I : Insts)
    All += totalCycles(I.Cycles);
  std::vector<Loop> Nest = loopNest(Insts);
  // 1. Blocks as they ran: [first, last] instruction indices.
  std::vector<std::pair<size_t, size_t>> Blocks;
  for (size_t K = 0; K < Insts.size(); ++K) {
    const InstProfile &I = Insts[K];
    // A loop's head starts a window even when its code before ran as often.
    bool Head =
        std::any_of(Nest.begin(), Nest.end(), [&](const Loop &L) { return L.Begin == I.Offset; });
    bool Continues =
        !Head && !Blocks.empty() &&
        Insts[Blocks.back().second].Offset + int64_t(Insts[Blocks.back().second].Size) ==
            I.Offset &&
        Insts[Blocks.back().second].Executions == I.Executions;
    if (Continues)
      Blocks.back().second = K;
    else
      Blocks.push_back({K, K});
  }
  // 2. A long block outside loops (a straight-line kernel is one) split into several targets: after
  // each instruction that waits and after each that costs at least a fifth of its block, so that
  // the code leading up to a wait, and the wait itself, can be aimed at apart from the rest.
  // Every piece keeps at least kMinPiece instructions.
  constexpr size_t kMinSplit = 8, kMinPiece = 2;
  std::vector<std::pair<size_t, size_t>> Pieces;
  for (auto [F, L] : Blocks) {
    // A loop's body stays whole: it is the target, and its pieces would rank below code that
    // runs once.
    bool InLoop = std::any_of(Nest.begin(), Nest.end(), [&](const Loop &Lp) {
      return Lp.Begin <= Insts[F].Offset && Insts[L].Offset < Lp.End;
    });
    if (InLoop || L - F + 1 < kMinSplit) {
      Pieces.push_back({F, L});
      continue;
    }
    double BlockCycles = 0;
    for (size_t K = F; K <= L; ++K)
      BlockCycles += totalCycles(Insts[K].Cycles);
    size_t Start = F;
    for (size_t K = F; K < L; ++K) {
      bool Cut = waits(Insts[K].Text) ||
                 (BlockCycles > 0 && totalCycles(Insts[K].Cycles) >= 0.2 * BlockCycles);
      if (Cut && K + 1 - Start >= kMinPiece && L - K >= kMinPiece) {
        Pieces.push_back({Start, K});
        Start = K + 1;
      }
    }
    Pieces.push_back({Start, L});
  }
  std::vector<HotWindow> W;
  for (auto [F, L] : Pieces) {
    HotWindow H;
    H.Begin = Insts[F].Offset;
    H.End = Insts[L].Offset + int64_t(Insts[L].Size);
    for (size_t K = F; K <= L; ++K) {
      ++H.Instructions;
      H.Executions += Insts[K].Executions;
      addInto(H.Cycles, Insts[K].Cycles);
    }
    W.push_back(std::move(H));
  }
  for (HotWindow &H : W) {
    std::set<std::string> Written, In, Out, ReadOutside;
    for (const InstProfile &I : Insts) {
      bool Inside = I.Offset >= H.Begin && I.Offset < H.End;
      if (!Inside) {
        ReadOutside.insert(I.Reads.begin(), I.Reads.end());
        continue;
      }
      for (const std::string &R : I.Reads)
        if (!Written.count(R))
          In.insert(R);
      Written.insert(I.Writes.begin(), I.Writes.end());
    }
    for (const std::string &R : Written)
      if (ReadOutside.count(R) || In.count(R)) // read elsewhere, or by its next iteration
        Out.insert(R);
    for (const Loop &L : Nest)
      if (L.Begin <= H.Begin && H.End <= L.End) {
        ++H.LoopDepth;
        H.LoopBegin = L.Begin; // outermost first: the last one holding it is the innermost
        H.LoopEnd = L.End;
      }
    H.LiveIn = sortedRegisters(In);
    H.LiveOut = sortedRegisters(Out);
    H.Executions /= std::max(1u, H.Instructions);
    double T = totalCycles(H.Cycles);
    H.Share = All > 0 ? T / All : 0;
    // What it waits on: every counter that holds it for at least a tenth of its time.
    std::vector<std::pair<double, std::string>> Waits = {{H.Cycles.WaitVm, "vmcnt"},
                                                         {H.Cycles.WaitLgkm, "lgkmcnt"},
                                                         {H.Cycles.WaitExp, "expcnt"},
                                                         {H.Cycles.Barrier, "barrier"}};
    std::sort(Waits.begin(), Waits.end(), [](auto &A, auto &B) { return A.first > B.first; });
    for (auto &[C, Name] : Waits)
      if (T > 0 && C >= 0.1 * T)
        H.WaitsOn.push_back(Name);
  }
  std::stable_sort(W.begin(), W.end(), [](const HotWindow &A, const HotWindow &B) {
    return totalCycles(A.Cycles) > totalCycles(B.Cycles);
  });
  if (W.size() > Max)
    W.resize(Max);
  return W;
}

nlohmann::json breakdownJson(const Breakdown &B) {
  return {{"issue", B.Issue},       {"dependency", B.Dependency},   {"unit_busy", B.UnitBusy},
          {"wait_vmcnt", B.WaitVm}, {"wait_lgkmcnt", B.WaitLgkm},   {"wait_expcnt", B.WaitExp},
          {"barrier", B.Barrier},   {"arbitration", B.Arbitration}, {"lds_conflict", B.LdsConflict},
          {"total", totalCycles(B)}};
}

nlohmann::json hotWindowJson(const HotWindow &W, const std::vector<InstProfile> &Insts,
                             unsigned VgprHeadroom) {
  nlohmann::json Code = nlohmann::json::array();
  for (const InstProfile &I : Insts)
    if (I.Offset >= W.Begin && I.Offset < W.End)
      Code.push_back({{"offset", I.Offset},
                      {"text", I.Text},
                      {"executions", I.Executions},
                      {"cycles", totalCycles(I.Cycles)}});
  return {{"begin", W.Begin},
          {"end", W.End},
          {"instructions", W.Instructions},
          {"executions", W.Executions},
          {"share", W.Share},
          {"waits_on", W.WaitsOn},
          {"live_in", W.LiveIn},
          {"live_out", W.LiveOut},
          {"loop_depth", W.LoopDepth},
          {"loop", W.LoopDepth ? nlohmann::json{{"begin", W.LoopBegin}, {"end", W.LoopEnd}}
                               : nlohmann::json()},
          {"vgpr_headroom", VgprHeadroom},
          {"cycles", breakdownJson(W.Cycles)},
          {"code", Code}};
}

} // namespace asmevo::timing
