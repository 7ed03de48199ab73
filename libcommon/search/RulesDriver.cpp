// The `rules` driver: deterministic rewrites of a node's hot windows, each one an edit that the
// gates then judge. Per node it lists every rewrite once, in order (waits first, then load
// hoisting, s_nop trimming, dead moves), hottest window first, and hands them out one per
// proposal. The rewrites reason only inside one basic block, from the
// registers each instruction reads and writes (asm/SchedInfo.h):
//   - relax an s_waitcnt vmcnt(N) to the count its next uses need (loads complete in order);
//   - sink an s_waitcnt past the instructions after it that touch none of the registers of the
//     loads it waits for, only where the block shows every load it can wait for (counts raised
//     for each vector-memory operation it passes, so it waits for exactly what it did);
//   - drop an s_waitcnt that an earlier one in the block already implies; merge adjacent ones;
//   - hoist a load above the independent non-memory instructions before it, unless it would
//     then join a soft clause whose XNACK replay reads what the clause wrote;
//   - drop a move whose register is written again before any read.
// A rewrite whose code would break a wait state (an s_waitcnt is one wait state too, and a hoist
// moves a producer) is dropped before it is proposed (search/WaitStateFilter.h).
// Not built: merging narrow loads into wide ones, list scheduling a window with the model's
// latencies, and trimming s_nop (the gate refuses fewer wait states than K0 has: GatedEval.h).
// Not proposed: toggling a load's cache-policy bits (nt, sc0, sc1; glc, slc, scc on gfx90a).
// The model prices only what a source says they do to the L1 (timing/Model.h); what nt does in
// L2 and the Infinity Cache has no published cost, so the model's verdict on such an edit
// would be half of its effect, and the scope bits change coherence, which the emulator cannot
// check (search/Edit.h refuses an edit that only changes these bits, whoever proposes it).
#include "asm/DepGraph.h"
#include "search/Driver.h"
#include "search/WaitStateFilter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <set>

namespace asmevo::search {

namespace {

constexpr int kMaxVm = 63, kMaxLgkm = 15, kMaxExp = 7;

struct Ins {
  size_t Line;
  const InstCost *C;
  unsigned Block;
};

bool isWait(const InstCost &C) { return C.Mnemonic == "s_waitcnt"; }
bool isMem(const InstCost &C) { return C.Vm || C.Lgkm || C.Exp; }
bool ends(const InstCost &C) {
  return C.Unit == InstUnit::Branch || C.EndPgm || C.Barrier ||
         llvm::StringRef(C.Mnemonic).starts_with("s_setpc") ||
         llvm::StringRef(C.Mnemonic).starts_with("s_swappc") ||
         llvm::StringRef(C.Mnemonic).starts_with("s_cbranch");
}
bool touches(const std::vector<std::string> &Regs, const std::set<std::string> &S) {
  return std::any_of(Regs.begin(), Regs.end(), [&](const std::string &R) { return S.count(R); });
}

std::string waitText(int Vm, int Lgkm, int Exp) {
  std::string T = "\ts_waitcnt";
  if (Vm >= 0)
    T += " vmcnt(" + std::to_string(Vm) + ")";
  if (Exp >= 0)
    T += " expcnt(" + std::to_string(Exp) + ")";
  if (Lgkm >= 0)
    T += " lgkmcnt(" + std::to_string(Lgkm) + ")";
  return T;
}

class RulesDriver : public EditListDriver {
public:
  std::string name() const override { return "rules"; }

  nlohmann::json usage() const override { return Hazards.usage(); }

protected:
  std::vector<Edit> edits(const NodeView &N) override { return rewrites(N); }
  bool keep(const NodeView &N, const std::vector<Edit> &Es) override {
    return Hazards.keeps(N, Es);
  }

private:
  WaitStateFilter Hazards;
  const NodeView *V = nullptr;
  std::vector<Ins> I;

  void index(const NodeView &N) {
    V = &N;
    I.clear();
    unsigned Block = 0;
    size_t Prev = N.Map.Label;
    for (const CodeLine &L : N.Map.Code) {
      for (size_t K = Prev + 1; K < L.Line; ++K)
        if (llvm::StringRef(N.Map.Lines[K]).trim().ends_with(":"))
          ++Block;
      Prev = L.Line;
      if (!L.Cost || L.Line < N.Map.FirstEditable) { // raw words, the preload prologue: opaque
        ++Block;
        continue;
      }
      I.push_back(Ins{L.Line, L.Cost, Block});
      if (ends(*L.Cost))
        ++Block;
    }
  }

  Edit edit(size_t First, size_t Last, std::string Replacement, std::string Direction,
            std::string Rationale) const {
    Edit E;
    E.W.Function = V->Kernel;
    E.W.FirstLine = unsigned(First + 1);
    E.W.LastLine = unsigned(Last + 1);
    for (size_t K = First; K <= Last; ++K)
      E.Original += V->Map.Lines[K] + (K < Last ? "\n" : "");
    E.Replacement = std::move(Replacement);
    E.Direction = std::move(Direction);
    E.Rationale = std::move(Rationale);
    E.ExpectedEffect = "fewer modeled wave-cycles in this window";
    return E;
  }
  std::string lines(size_t First, size_t Last) const {
    std::string S;
    for (size_t K = First; K <= Last; ++K)
      S += V->Map.Lines[K] + (K < Last ? "\n" : "");
    return S;
  }

  // Registers written by the memory operations still counted when I[W] waits. Only when the
  // block shows them all: scanning back from I[W] must meet a wait that drains each counter
  // I[W] waits on (count 0) before the block starts; otherwise operations issued before the
  // block may be pending and Known is false.
  std::set<std::string> guarded(size_t W, bool &LdsDirect, bool &Known) const {
    std::set<std::string> G;
    const InstCost &C = *I[W].C;
    bool VmDrained = C.WaitVm < 0, LgkmDrained = C.WaitLgkm < 0, ExpDrained = C.WaitExp < 0;
    for (size_t K = W; K-- > 0 && I[K].Block == I[W].Block;) {
      const InstCost &P = *I[K].C;
      if (isWait(P)) {
        VmDrained |= P.WaitVm == 0;
        LgkmDrained |= P.WaitLgkm == 0;
        ExpDrained |= P.WaitExp == 0;
        if (VmDrained && LgkmDrained && ExpDrained)
          break;
        continue;
      }
      if ((P.Vm && !VmDrained) || (P.Lgkm && !LgkmDrained) || (P.Exp && !ExpDrained)) {
        G.insert(P.Writes.begin(), P.Writes.end());
        LdsDirect |= P.LdsDirect;
      }
    }
    Known = VmDrained && LgkmDrained && ExpDrained;
    return G;
  }

  void sink(size_t W, std::vector<Edit> &Out) const {
    const InstCost &C = *I[W].C;
    bool LdsDirect = false, Known = false;
    std::set<std::string> G = guarded(W, LdsDirect, Known);
    if (!Known)
      return; // loads from before the block may be what it waits for
    int Vm = C.WaitVm, Lgkm = C.WaitLgkm, Exp = C.WaitExp;
    size_t J = W + 1;
    for (; J < I.size() && I[J].Block == I[W].Block; ++J) {
      const InstCost &X = *I[J].C;
      if (isWait(X) || ends(X) || X.Store || X.Unit == InstUnit::Export || touches(X.Reads, G) ||
          touches(X.Writes, G) || (LdsDirect && X.Unit == InstUnit::Lds))
        break;
      if (X.Lgkm && Lgkm > 0)
        break; // lgkmcnt(N > 0) cannot be kept exact past another LGKM operation
      if (X.Vm && X.Lgkm)
        break; // FLAT: counted by both, returns in order with neither
      if (X.Vm && Vm >= 0 && ++Vm > kMaxVm)
        break;
      if (X.Exp && Exp >= 0 && ++Exp > kMaxExp)
        break;
    }
    if (J == W + 1 || (J > W + 1 && I[J - 1].Line <= I[W].Line))
      return;
    // Recount what the passed instructions add.
    int NVm = C.WaitVm, NExp = C.WaitExp;
    for (size_t K = W + 1; K < J; ++K) {
      if (I[K].C->Vm && NVm >= 0)
        ++NVm;
      if (I[K].C->Exp && NExp >= 0)
        ++NExp;
    }
    size_t Last = I[J - 1].Line;
    Out.push_back(edit(
        I[W].Line, Last, lines(I[W].Line + 1, Last) + "\n" + waitText(NVm, C.WaitLgkm, NExp),
        "latency hiding",
        "sink '" + llvm::StringRef(C.Text).trim().str() + "' past " + std::to_string(J - W - 1) +
            " instructions that do not touch the registers it waits for"));
  }

  void relax(size_t W, std::vector<Edit> &Out) const {
    const InstCost &C = *I[W].C;
    if (C.WaitVm < 0)
      return;
    // The vector-memory operations outstanding before I[W] (in issue order), at most what the
    // block shows; a wait earlier in the block retires all but its count.
    std::vector<size_t> P;
    for (size_t K = 0; K < W; ++K) {
      if (I[K].Block != I[W].Block)
        continue;
      const InstCost &X = *I[K].C;
      if (X.Vm)
        P.push_back(K);
      if (isWait(X) && X.WaitVm >= 0 && P.size() > size_t(X.WaitVm))
        P.erase(P.begin(), P.end() - X.WaitVm);
    }
    if (P.size() <= size_t(C.WaitVm))
      return;
    // A pending store or load into LDS orders memory, not registers, and a FLAT operation may
    // return through the LDS path out of order: keep the wait.
    for (size_t K : P)
      if (I[K].C->Store || I[K].C->LdsDirect || I[K].C->Lgkm)
        return;
    // Which of them the code up to the next vmcnt wait needs.
    size_t Newest = 0;
    bool Any = false, Closed = false;
    for (size_t J = W + 1; J < I.size() && I[J].Block == I[W].Block; ++J) {
      const InstCost &X = *I[J].C;
      if (isWait(X) && X.WaitVm >= 0) {
        Closed = true;
        break;
      }
      if (ends(X) || X.Store || X.Unit == InstUnit::Lds)
        break;
      for (size_t K = 0; K < P.size(); ++K) {
        const InstCost &L = *I[P[K]].C;
        std::set<std::string> Wr(L.Writes.begin(), L.Writes.end());
        if (touches(X.Reads, Wr) || touches(X.Writes, Wr)) {
          Newest = std::max(Newest, K);
          Any = true;
        }
      }
    }
    if (!Closed)
      return; // the block ends while loads may be needed later: keep the wait
    int Count = Any ? int(P.size() - 1 - Newest) : int(P.size());
    Count = std::min(Count, kMaxVm);
    if (Count <= C.WaitVm)
      return;
    Out.push_back(edit(
        I[W].Line, I[W].Line, waitText(Count, C.WaitLgkm, C.WaitExp), "latency hiding",
        "relax '" + llvm::StringRef(C.Text).trim().str() + "' to vmcnt(" + std::to_string(Count) +
            "): the code before the next vmcnt wait uses only older loads"));
  }

  void redundant(std::vector<Edit> &Out) const {
    const int Inf = 1 << 20;
    int Vm = Inf, Lgkm = Inf, Exp = Inf;
    for (size_t K = 0; K < I.size(); ++K) {
      if (K == 0 || I[K].Block != I[K - 1].Block)
        Vm = Lgkm = Exp = Inf;
      const InstCost &X = *I[K].C;
      if (isWait(X)) {
        bool Implied = (X.WaitVm < 0 || Vm <= X.WaitVm) && (X.WaitLgkm < 0 || Lgkm <= X.WaitLgkm) &&
                       (X.WaitExp < 0 || Exp <= X.WaitExp);
        if (Implied)
          Out.push_back(edit(I[K].Line, I[K].Line, "", "instruction simplification",
                             "drop '" + llvm::StringRef(X.Text).trim().str() +
                                 "': an earlier wait in the block already ensures it"));
        else if (K + 1 < I.size() && I[K + 1].Block == I[K].Block && isWait(*I[K + 1].C)) {
          const InstCost &Y = *I[K + 1].C;
          auto Min = [](int A, int B) { return A < 0 ? B : B < 0 ? A : std::min(A, B); };
          Out.push_back(edit(I[K].Line, I[K + 1].Line,
                             waitText(Min(X.WaitVm, Y.WaitVm), Min(X.WaitLgkm, Y.WaitLgkm),
                                      Min(X.WaitExp, Y.WaitExp)),
                             "instruction simplification", "merge two adjacent s_waitcnt"));
        }
        if (X.WaitVm >= 0)
          Vm = std::min(Vm, X.WaitVm);
        if (X.WaitLgkm >= 0)
          Lgkm = std::min(Lgkm, X.WaitLgkm);
        if (X.WaitExp >= 0)
          Exp = std::min(Exp, X.WaitExp);
        continue;
      }
      if (X.Vm && Vm < Inf)
        ++Vm;
      if (X.Lgkm && Lgkm < Inf)
        ++Lgkm;
      if (X.Exp && Exp < Inf)
        ++Exp;
    }
  }

  void hoist(size_t L, std::vector<Edit> &Out) const {
    const InstCost &C = *I[L].C;
    if (!(C.Vm || C.Unit == InstUnit::Smem) || C.Store || C.LdsDirect || isWait(C))
      return;
    std::set<std::string> Rd(C.Reads.begin(), C.Reads.end()), Wr(C.Writes.begin(), C.Writes.end());
    size_t P = L;
    while (P > 0 && I[P - 1].Block == I[L].Block) {
      const InstCost &X = *I[P - 1].C;
      if (isMem(X) || isWait(X) || ends(X) || X.Unit == InstUnit::Internal ||
          X.Unit == InstUnit::Smem || touches(X.Writes, Rd) || touches(X.Reads, Wr) ||
          touches(X.Writes, Wr))
        break;
      --P;
    }
    if (P == L)
      return;
    // Next to another memory instruction the load may join its soft clause: not where an XNACK
    // replay of that clause would read what the clause wrote (the strict checks refuse that).
    std::vector<const InstCost *> Seq;
    if (P > 0 && I[P - 1].Block == I[L].Block)
      Seq.push_back(I[P - 1].C);
    Seq.push_back(&C);
    for (size_t K = P; K < L; ++K)
      Seq.push_back(I[K].C);
    if (L + 1 < I.size() && I[L + 1].Block == I[L].Block)
      Seq.push_back(I[L + 1].C);
    if (softClauseHazard(Seq))
      return;
    size_t First = I[P].Line;
    Out.push_back(edit(First, I[L].Line,
                       V->Map.Lines[I[L].Line] + "\n" + lines(First, I[L].Line - 1),
                       "latency hiding",
                       "hoist '" + llvm::StringRef(C.Text).trim().str() + "' above " +
                           std::to_string(L - P) + " independent instructions"));
  }

  void deadMove(size_t K, std::vector<Edit> &Out) const {
    const InstCost &C = *I[K].C;
    static const std::set<std::string> Moves{"v_mov_b32", "s_mov_b32", "s_mov_b64", "v_mov_b64",
                                             "v_accvgpr_mov_b32"};
    llvm::StringRef T(C.Text);
    if (!Moves.count(C.Mnemonic) || T.contains("sdwa") || T.contains("dpp") || T.contains("_sel") ||
        C.Writes.empty())
      return;
    static const std::set<std::string> Special{
        "exec", "exec_lo",         "exec_hi",        "vcc", "vcc_lo", "vcc_hi", "m0",
        "scc",  "flat_scratch_lo", "flat_scratch_hi"};
    std::set<std::string> W(C.Writes.begin(), C.Writes.end());
    if (touches(C.Writes, Special))
      return;
    // A move of a register onto itself ("v_mov_b32 v4, v4"): it reads exactly what it writes.
    std::set<std::string> Src;
    for (const std::string &R : C.Reads)
      if (R != "exec")
        Src.insert(R);
    bool Self = !Src.empty() && Src == W;
    bool Dead = Self;
    for (size_t J = K + 1; !Dead && J < I.size() && I[J].Block == I[K].Block; ++J) {
      const InstCost &X = *I[J].C;
      if (touches(X.Reads, W) || touches(X.Writes, Special) || ends(X))
        break;
      llvm::StringRef XT(X.Text);
      bool Full = (X.Unit == InstUnit::Valu || X.Unit == InstUnit::Salu) && !XT.contains("sdwa") &&
                  !XT.contains("_sel") && !XT.contains("dpp");
      if (Full && std::all_of(W.begin(), W.end(), [&](const std::string &R) {
            return std::find(X.Writes.begin(), X.Writes.end(), R) != X.Writes.end();
          }))
        Dead = true;
      else if (touches(X.Writes, W))
        break;
    }
    if (Dead)
      Out.push_back(edit(I[K].Line, I[K].Line, "", "instruction simplification",
                         "drop '" + T.trim().str() + "': its result is overwritten unread"));
  }

  std::vector<Edit> rewrites(const NodeView &N) {
    index(N);
    // Instruction order: hot windows first (hottest first), then the rest in text order.
    std::vector<size_t> Order;
    std::vector<bool> Taken(I.size(), false);
    for (const HotLines &H : N.Hot)
      for (size_t K = 0; K < I.size(); ++K)
        if (!Taken[K] && I[K].Line >= H.First && I[K].Line <= H.Last) {
          Order.push_back(K);
          Taken[K] = true;
        }
    for (size_t K = 0; K < I.size(); ++K)
      if (!Taken[K])
        Order.push_back(K);
    std::vector<Edit> Out;
    for (size_t K : Order)
      if (isWait(*I[K].C)) {
        relax(K, Out);
        sink(K, Out);
      }
    redundant(Out);
    for (size_t K : Order)
      hoist(K, Out);
    for (size_t K : Order)
      deadMove(K, Out);
    V = nullptr;
    return Out;
  }
};

} // namespace

std::unique_ptr<Driver> makeRulesDriver() { return std::make_unique<RulesDriver>(); }

} // namespace asmevo::search
