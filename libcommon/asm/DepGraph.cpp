// The dependency graph of a straight-line run and list scheduling under it (DepGraph.h).
#include "asm/DepGraph.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <set>

namespace asmevo {

bool intersects(const std::vector<std::string> &A, const std::vector<std::string> &B) {
  for (const std::string &X : A)
    if (std::find(B.begin(), B.end(), X) != B.end())
      return true;
  return false;
}

namespace {

bool isLoad(const InstCost &C) {
  return (C.Vm || C.Unit == InstUnit::Smem || C.Unit == InstUnit::Lds) && !C.Store &&
         !C.Writes.empty();
}

unsigned latencyCycles(const InstCost &C) { return 4 * std::max(1u, C.LatencyQuads); }

} // namespace

bool softClauseHazard(const std::vector<const InstCost *> &Seq) {
  auto kind = [](const InstCost &C) { return C.Vm ? 1 : C.Unit == InstUnit::Smem ? 2 : 0; };
  for (size_t A = 0; A < Seq.size();) {
    size_t B = A + 1;
    while (B < Seq.size() && kind(*Seq[B]) && kind(*Seq[B]) == kind(*Seq[A]))
      ++B;
    if (kind(*Seq[A]) && B - A >= 2) {
      bool Defs = false, Store = false;
      for (size_t X = A; X < B; ++X) {
        Defs |= !Seq[X]->Writes.empty();
        Store |= Seq[X]->Store && !Seq[X]->Atomic;
        for (const std::string &W : Seq[X]->Writes)
          for (size_t Y = A; Y < B; ++Y)
            if (W.rfind("exec", 0) != 0 &&
                std::find(Seq[Y]->Reads.begin(), Seq[Y]->Reads.end(), W) != Seq[Y]->Reads.end())
              return true;
      }
      if (Store && Defs)
        return true;
    }
    A = B;
  }
  return false;
}

bool isSchedFence(const InstCost &C) {
  llvm::StringRef M(C.Mnemonic);
  return C.Unit == InstUnit::Internal || C.Unit == InstUnit::Branch || C.Unit == InstUnit::Export ||
         C.Barrier || C.EndPgm || M.starts_with("s_getpc") || M.starts_with("s_setreg") ||
         M.starts_with("s_set_gpr_idx") || M.contains("movrel") ||
         llvm::StringRef(C.Text).contains('@');
}

bool isPlainVmemLoad(const InstCost &C) {
  return C.Vm && !C.Lgkm && !C.Store && !C.Atomic && !C.LdsDirect && !C.Writes.empty() &&
         C.Unit != InstUnit::Internal;
}

DepGraph buildDepGraph(const std::vector<const InstCost *> &Run, bool LoadOrderFree) {
  size_t N = Run.size();
  DepGraph G;
  G.Preds.assign(N, {});
  G.Succs.assign(N, {});
  G.Delay.assign(N, {});
  for (size_t J = 0; J < N; ++J) {
    const InstCost &B = *Run[J];
    for (size_t I = 0; I < J; ++I) {
      const InstCost &A = *Run[I];
      bool Raw = intersects(A.Writes, B.Reads);
      bool Dep = Raw || intersects(A.Reads, B.Writes) || intersects(A.Writes, B.Writes) ||
                 isSchedFence(A) || isSchedFence(B) ||
                 (A.Vm && B.Vm && !(LoadOrderFree && isPlainVmemLoad(A) && isPlainVmemLoad(B))) ||
                 (A.Lgkm && B.Lgkm) || (A.LdsDirect && B.Unit == InstUnit::Lds) ||
                 (A.Unit == InstUnit::Lds && B.LdsDirect) ||
                 (A.Unit == InstUnit::Smem && B.Vm && B.Store) ||
                 (A.Vm && A.Store && B.Unit == InstUnit::Smem);
      if (!Dep)
        continue;
      G.Preds[J].push_back(unsigned(I));
      G.Delay[J].push_back(Raw ? latencyCycles(A) : 1);
      G.Succs[I].push_back(unsigned(J));
    }
  }
  return G;
}

std::vector<unsigned> listSchedule(const DepGraph &G, const std::vector<const InstCost *> &Run,
                                   SchedGoal Goal) {
  size_t N = Run.size();
  // The longest latency path from each instruction to the run's end.
  std::vector<uint64_t> Height(N, 0);
  for (size_t K = N; K-- > 0;) {
    Height[K] = latencyCycles(*Run[K]);
    for (size_t S : G.Succs[K])
      for (size_t P = 0; P < G.Preds[S].size(); ++P)
        if (G.Preds[S][P] == K)
          Height[K] = std::max(Height[K], G.Delay[S][P] + Height[S]);
  }
  std::vector<unsigned> Order;
  std::vector<uint64_t> Issue(N, 0);
  std::vector<unsigned> Left(N);
  for (size_t K = 0; K < N; ++K)
    Left[K] = unsigned(G.Preds[K].size());
  std::set<unsigned> Ready;
  for (size_t K = 0; K < N; ++K)
    if (!Left[K])
      Ready.insert(unsigned(K));
  uint64_t Cycle = 0;
  while (!Ready.empty()) {
    // When each ready instruction's operands are ready.
    auto readyAt = [&](unsigned K) {
      uint64_t T = 0;
      for (size_t P = 0; P < G.Preds[K].size(); ++P)
        T = std::max(T, Issue[G.Preds[K][P]] + G.Delay[K][P]);
      return T;
    };
    unsigned Best = *Ready.begin();
    auto key = [&](unsigned K) {
      uint64_t At = std::max(readyAt(K), Cycle);
      bool Load = Goal == SchedGoal::LoadsEarly && isLoad(*Run[K]);
      // Smaller is better: earliest start, then (LoadsEarly) loads, then height, then order.
      return std::make_tuple(At, Load ? 0 : 1, ~Height[K], K);
    };
    for (unsigned K : Ready)
      if (key(K) < key(Best))
        Best = K;
    Cycle = std::max(readyAt(Best), Cycle);
    Issue[Best] = Cycle++;
    Order.push_back(Best);
    Ready.erase(Best);
    for (unsigned S : G.Succs[Best])
      if (--Left[S] == 0)
        Ready.insert(S);
  }
  return Order;
}

bool respects(const DepGraph &G, const std::vector<unsigned> &Order) {
  std::vector<size_t> Pos(Order.size(), SIZE_MAX);
  for (size_t K = 0; K < Order.size(); ++K) {
    if (Order[K] >= Order.size() || Pos[Order[K]] != SIZE_MAX)
      return false;
    Pos[Order[K]] = K;
  }
  for (size_t J = 0; J < G.Preds.size(); ++J)
    for (unsigned I : G.Preds[J])
      if (Pos[I] > Pos[J])
        return false;
  return true;
}

} // namespace asmevo
