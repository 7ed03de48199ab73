// The wait-counter dataflow (WaitFlow.h): the CFG, the pending-operation states and their
// fixed point, the needs of each instruction against the original's, and placement.
#include "asm/WaitFlow.h"

#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace asmevo {

namespace {

constexpr unsigned kVm = 0, kLgkm = 1;
// An operation with this many younger ones of its in-order queue is complete (GFX9: vmcnt holds
// 63, lgkmcnt 15).
constexpr uint8_t kCap[2] = {63, 15};

// Token keys; registers follow.
enum : uint16_t { kStoreToken, kLdsDirectToken, kDsToken, kScalarToken, kFirstRegister };

struct Pend {
  uint8_t Min = 0, Max = 0; // least and most younger in-order operations since issue
  bool Ooo = false;         // issued out of order: complete only at count 0
};
using Entry = std::pair<uint16_t, Pend>;
using Queue = std::vector<Entry>; // sorted by key

struct State {
  Queue Q[2];
};

Pend *find(Queue &Q, uint16_t Key) {
  auto It = std::lower_bound(Q.begin(), Q.end(), Key,
                             [](const Entry &E, uint16_t K) { return E.first < K; });
  return It != Q.end() && It->first == Key ? &It->second : nullptr;
}

void add(Queue &Q, uint16_t Key, bool Ooo) {
  auto It = std::lower_bound(Q.begin(), Q.end(), Key,
                             [](const Entry &E, uint16_t K) { return E.first < K; });
  if (It != Q.end() && It->first == Key) {
    It->second.Min = 0;
    It->second.Ooo |= Ooo;
    return;
  }
  Q.insert(It, Entry{Key, Pend{0, 0, Ooo}});
}

// s_waitcnt with count N on this queue.
void clear(Queue &Q, int N) {
  if (N < 0)
    return;
  Q.erase(std::remove_if(Q.begin(), Q.end(),
                         [&](Entry &E) {
                           Pend &P = E.second;
                           if (P.Ooo)
                             return N == 0;
                           if (P.Min >= N)
                             return true;
                           P.Max = std::min<uint8_t>(P.Max, uint8_t(N - 1));
                           return false;
                         }),
          Q.end());
}

// One more operation in this queue's in-order stream.
void age(Queue &Q, uint8_t Cap) {
  Q.erase(std::remove_if(Q.begin(), Q.end(),
                         [&](Entry &E) {
                           Pend &P = E.second;
                           if (P.Ooo)
                             return false;
                           ++P.Min;
                           P.Max = std::min<uint8_t>(uint8_t(P.Max + 1), uint8_t(Cap - 1));
                           return P.Min >= Cap;
                         }),
          Q.end());
}

// Into |= From; whether Into changed.
bool join(Queue &Into, const Queue &From) {
  Queue Out;
  Out.reserve(Into.size() + From.size());
  bool Changed = false;
  size_t A = 0, B = 0;
  while (A < Into.size() || B < From.size()) {
    if (B == From.size() || (A < Into.size() && Into[A].first < From[B].first)) {
      Out.push_back(Into[A++]);
    } else if (A == Into.size() || From[B].first < Into[A].first) {
      Out.push_back(From[B++]);
      Changed = true;
    } else {
      Pend P = Into[A].second;
      const Pend &Q = From[B].second;
      Pend N{std::min(P.Min, Q.Min), std::max(P.Max, Q.Max), bool(P.Ooo || Q.Ooo)};
      Changed |= N.Min != P.Min || N.Max != P.Max || N.Ooo != P.Ooo;
      Out.push_back(Entry{Into[A].first, N});
      ++A;
      ++B;
    }
  }
  Into = std::move(Out);
  return Changed;
}

bool startsWith(llvm::StringRef S, std::initializer_list<const char *> Prefixes) {
  for (const char *P : Prefixes)
    if (S.starts_with(P))
      return true;
  return false;
}

// What one instruction does to and asks of the state, decided once.
struct Step {
  bool Wait = false;    // s_waitcnt
  bool Drain = false;   // a drain point (WaitFlow.h)
  bool Barrier = false; // s_barrier and nothing else that drains
  bool VmOp = false, DsOp = false, SmemOp = false, FlatOp = false, MsgOp = false;
  std::vector<uint16_t> Reads, Writes; // register keys
  std::vector<uint16_t> Tokens[2];     // tokens it makes pending, per queue
};

// A reference entry: what the original left pending of a key an instruction checks.
struct RefEntry {
  unsigned Queue;
  uint16_t Key;
  Pend P;
};

} // namespace

struct WaitFlow::Impl {
  WaitFlowOptions Opt;
  std::vector<FlowInst> Code;
  std::vector<Step> Steps;
  std::vector<size_t> BlockOf, BlockStart, BlockEnd; // BlockEnd exclusive
  std::vector<std::vector<size_t>> Succ;
  std::vector<size_t> Order; // blocks in reverse postorder from the entry
  WaitPlan Original;
  std::vector<std::vector<RefEntry>> Ref; // per instruction, sorted by (Queue, Key)

  // Apply the plan's waits at I, then (Check) the needs of I against the reference (Fix: meet
  // them by strengthening P.Pre[I]), then I's effects.
  void transfer(size_t I, State &S, WaitPlan &P, bool Check, bool Fix,
                std::vector<WaitDeficit> *Out, std::vector<RefEntry> *Record) const;
  std::vector<State> fixedPoint(WaitPlan &P) const;
  // Walk every reached block from its fixed-point state with checks; Fix meets each need in
  // place (weakest at the first instruction of a block that needs it) and stops after the first
  // block (in reverse postorder) that had one.
  // FixAll: fix every block in one walk, against states computed before any of the fixes (they
  // only hold more than the fixed plan's, so every need is met, some with stronger waits).
  std::vector<WaitDeficit> walk(WaitPlan &P, bool Fix, bool RecordRef, bool FixAll = false);
  std::vector<WaitDeficit> walk(WaitPlan &P, bool Fix, bool FixAll = false) const {
    return const_cast<Impl *>(this)->walk(P, Fix, false, FixAll);
  }
};

void WaitFlow::Impl::transfer(size_t I, State &S, WaitPlan &P, bool Check, bool Fix,
                              std::vector<WaitDeficit> *Out, std::vector<RefEntry> *Record) const {
  const Step &T = Steps[I];
  clear(S.Q[kVm], P.Pre[I].Vm);
  clear(S.Q[kLgkm], P.Pre[I].Lgkm);
  if (T.Wait) {
    clear(S.Q[kVm], P.Own[I].Vm);
    clear(S.Q[kLgkm], P.Own[I].Lgkm);
  }
  if (Check || Record) {
    // The (queue, key) pairs I checks.
    std::vector<std::pair<unsigned, uint16_t>> Keys;
    if (T.Drain) {
      for (unsigned Qn : {kVm, kLgkm})
        for (const Entry &E : S.Q[Qn]) {
          bool LoadIntoRegister = Qn == kVm && E.first >= kFirstRegister && !E.second.Ooo;
          if (T.Barrier && Opt.LoadsCrossBarriers && LoadIntoRegister)
            continue;
          Keys.push_back({Qn, E.first});
        }
    } else {
      for (uint16_t R : T.Reads)
        for (unsigned Qn : {kVm, kLgkm})
          Keys.push_back({Qn, R});
      for (uint16_t R : T.Writes)
        for (unsigned Qn : {kVm, kLgkm}) {
          // A later load of the same in-order queue returns after the earlier one.
          const Pend *E = find(S.Q[Qn], R);
          bool InOrderAfter =
              E && !E->Ooo && ((Qn == kVm && T.VmOp && !T.FlatOp) || (Qn == kLgkm && T.DsOp));
          if (!InOrderAfter)
            Keys.push_back({Qn, R});
        }
      if (T.DsOp)
        Keys.push_back({kVm, kLdsDirectToken});
    }
    WaitFields Need;
    for (auto [Qn, Key] : Keys) {
      const Pend *E = find(S.Q[Qn], Key);
      if (!E)
        continue;
      if (Record) {
        Record->push_back(RefEntry{Qn, Key, *E});
        continue;
      }
      const RefEntry *R = nullptr;
      const std::vector<RefEntry> &Rs = Ref[I];
      auto It = std::lower_bound(Rs.begin(), Rs.end(), std::make_pair(Qn, Key),
                                 [](const RefEntry &A, std::pair<unsigned, uint16_t> B) {
                                   return std::make_pair(A.Queue, A.Key) < B;
                                 });
      if (It != Rs.end() && It->Queue == Qn && It->Key == Key)
        R = &*It;
      int N = -1;
      if (!R)
        N = E->Ooo ? 0 : E->Min;
      else if (R->P.Ooo || (!E->Ooo && E->Max <= R->P.Max))
        N = -1; // no more pending than the original left
      else if (E->Ooo)
        N = 0;
      else
        N = R->P.Max + 1;
      if (N < 0)
        continue;
      int &F = Qn == kVm ? Need.Vm : Need.Lgkm;
      F = F < 0 ? N : std::min(F, N);
    }
    if (Record) {
      std::sort(Record->begin(), Record->end(), [](const RefEntry &A, const RefEntry &B) {
        return std::make_pair(A.Queue, A.Key) < std::make_pair(B.Queue, B.Key);
      });
      Record->erase(std::unique(Record->begin(), Record->end(),
                                [](const RefEntry &A, const RefEntry &B) {
                                  return A.Queue == B.Queue && A.Key == B.Key;
                                }),
                    Record->end());
    }
    if (Need.any()) {
      if (Out)
        Out->push_back(WaitDeficit{I, Need});
      if (Fix) {
        WaitFields &Pre = P.Pre[I];
        if (Need.Vm >= 0)
          Pre.Vm = Pre.Vm < 0 ? Need.Vm : std::min(Pre.Vm, Need.Vm);
        if (Need.Lgkm >= 0)
          Pre.Lgkm = Pre.Lgkm < 0 ? Need.Lgkm : std::min(Pre.Lgkm, Need.Lgkm);
        clear(S.Q[kVm], Need.Vm);
        clear(S.Q[kLgkm], Need.Lgkm);
      }
    }
  }
  // Effects.
  if (T.VmOp) {
    age(S.Q[kVm], kCap[kVm]);
    for (uint16_t R : T.Writes)
      add(S.Q[kVm], R, T.FlatOp);
    for (uint16_t K : T.Tokens[kVm])
      add(S.Q[kVm], K, T.FlatOp);
  }
  if (T.DsOp)
    age(S.Q[kLgkm], kCap[kLgkm]);
  if (T.DsOp || T.SmemOp || T.FlatOp) {
    for (uint16_t R : T.Writes)
      add(S.Q[kLgkm], R, !T.DsOp);
  }
  for (uint16_t K : T.Tokens[kLgkm])
    add(S.Q[kLgkm], K, !T.DsOp);
}

std::vector<State> WaitFlow::Impl::fixedPoint(WaitPlan &P) const {
  size_t NB = BlockStart.size();
  std::vector<State> In(NB);
  std::vector<bool> Reached(NB, false);
  if (!NB)
    return In;
  Reached[0] = true;
  // Sweep the blocks in reverse postorder until nothing changes.
  std::vector<bool> Dirty(NB, false);
  Dirty[0] = true;
  bool Any = true;
  while (Any) {
    Any = false;
    for (size_t B : Order) {
      if (!Dirty[B])
        continue;
      Dirty[B] = false;
      State S = In[B];
      for (size_t K = BlockStart[B]; K < BlockEnd[B]; ++K)
        transfer(K, S, P, false, false, nullptr, nullptr);
      for (size_t Nx : Succ[B]) {
        bool Changed = !Reached[Nx];
        Reached[Nx] = true;
        Changed |= join(In[Nx].Q[kVm], S.Q[kVm]);
        Changed |= join(In[Nx].Q[kLgkm], S.Q[kLgkm]);
        if (Changed) {
          Dirty[Nx] = true;
          Any = true;
        }
      }
    }
  }
  return In; // blocks the entry cannot reach are not in Order: walk() never enters them
}

std::vector<WaitDeficit> WaitFlow::Impl::walk(WaitPlan &P, bool Fix, bool RecordRef, bool FixAll) {
  std::vector<WaitDeficit> Out;
  std::vector<State> In = fixedPoint(P);
  if (RecordRef)
    Ref.assign(Code.size(), {});
  for (size_t B : Order) {
    State S = In[B];
    for (size_t K = BlockStart[B]; K < BlockEnd[B]; ++K)
      transfer(K, S, P, !RecordRef, Fix, &Out, RecordRef ? &Ref[K] : nullptr);
    // A fix shrinks what reaches the blocks after this one, whose states were computed without
    // it: stop here, and let the caller walk again from the new fixed point.
    if (Fix && !FixAll && !Out.empty())
      break;
  }
  std::sort(Out.begin(), Out.end(),
            [](const WaitDeficit &A, const WaitDeficit &B) { return A.Index < B.Index; });
  return Out;
}

WaitFlow::WaitFlow() : I(std::make_unique<Impl>()) {}
WaitFlow::~WaitFlow() = default;

bool loadsMayCrossBarriers(uint32_t ComputePgmRsrc3, bool Gfx90aInsts) {
  return Gfx90aInsts && !((ComputePgmRsrc3 >> 16) & 1);
}

llvm::Expected<std::unique_ptr<WaitFlow>>
WaitFlow::create(std::vector<FlowInst> Code, uint64_t Entry, WaitFlowOptions Options) {
  std::unique_ptr<WaitFlow> F(new WaitFlow());
  Impl &M = *F->I;
  M.Opt = Options;
  M.Code = std::move(Code);
  size_t N = M.Code.size();
  std::map<uint64_t, size_t> AtOffset;
  for (size_t K = 0; K < N; ++K) {
    if (!M.Code[K].C)
      return makeError("wait analysis: no instruction decodes at offset " +
                       hexText(M.Code[K].Offset) + " (raw words in the function)");
    AtOffset[M.Code[K].Offset] = K;
  }
  std::map<std::string, uint16_t> Keys;
  auto key = [&](const std::string &R) {
    auto It = Keys.find(R);
    if (It != Keys.end())
      return It->second;
    uint16_t K = uint16_t(kFirstRegister + Keys.size());
    Keys.emplace(R, K);
    return K;
  };
  static const std::set<std::string> Harmless{
      "s_nop", "s_sleep", "s_setprio", "s_endpgm", "s_code_end", "s_waitcnt", "s_endpgm_saved"};
  M.Steps.resize(N);
  M.Original.Own.assign(N, {});
  M.Original.Pre.assign(N, {});
  std::vector<bool> Leader(N + 1, false);
  Leader[0] = true;
  std::vector<std::optional<size_t>> Target(N);
  for (size_t K = 0; K < N; ++K) {
    const InstCost &C = *M.Code[K].C;
    Step &T = M.Steps[K];
    llvm::StringRef Mn(C.Mnemonic);
    if (Mn.starts_with("s_set_gpr_idx_on"))
      return makeError("wait analysis: s_set_gpr_idx_on at offset " + hexText(M.Code[K].Offset) +
                       " indexes the registers the instructions after it read");
    T.Wait = Mn == "s_waitcnt";
    if (T.Wait)
      M.Original.Own[K] = WaitFields{C.WaitVm, C.WaitLgkm};
    T.FlatOp = C.Vm && C.Lgkm;
    T.VmOp = C.Vm;
    T.DsOp = C.Unit == InstUnit::Lds && C.Lgkm;
    T.SmemOp = C.Unit == InstUnit::Smem && C.Lgkm;
    T.MsgOp = C.Lgkm && !T.DsOp && !T.SmemOp && !T.FlatOp;
    for (const std::string &R : C.Reads)
      T.Reads.push_back(key(R));
    for (const std::string &R : C.Writes)
      T.Writes.push_back(key(R));
    if (T.VmOp && (C.Store || C.Atomic || C.Writes.empty()) && !C.LdsDirect)
      T.Tokens[kVm].push_back(kStoreToken);
    if (C.LdsDirect)
      T.Tokens[kVm].push_back(kLdsDirectToken);
    if (T.DsOp)
      T.Tokens[kLgkm].push_back(kDsToken);
    if ((T.SmemOp && C.Store) || T.MsgOp)
      T.Tokens[kLgkm].push_back(kScalarToken);
    bool KnownInternal = C.Unit != InstUnit::Internal || Harmless.count(C.Mnemonic);
    T.Drain =
        C.Barrier || C.Atomic || (C.Vm && C.Store && (C.Sc0 || C.Sc1)) ||
        (T.VmOp && C.Writes.empty() && !C.Store && !C.LdsDirect) || T.MsgOp ||
        startsWith(Mn, {"s_dcache", "s_icache", "s_trap", "s_setpc", "s_swappc", "s_rfe",
                        "s_sendmsg", "buffer_wbl2", "buffer_inv", "buffer_wbinvl1", "buffer_gl"}) ||
        Mn.contains("movrel") || !KnownInternal;
    T.Barrier = Mn == "s_barrier";
    bool Cond = Mn.starts_with("s_cbranch");
    bool Jump = Mn == "s_branch";
    bool Stop = Mn.starts_with("s_endpgm") || Mn == "s_setpc_b64" || Mn == "s_rfe_b64";
    if (Cond || Jump) {
      if (!C.BranchTarget)
        return makeError("wait analysis: the branch at offset " + hexText(M.Code[K].Offset) +
                         " has no known target");
      auto It = *C.BranchTarget < Entry ? AtOffset.end() : AtOffset.find(*C.BranchTarget - Entry);
      if (It == AtOffset.end())
        return makeError("wait analysis: the branch at offset " + hexText(M.Code[K].Offset) +
                         " targets " + hexText(*C.BranchTarget - Entry) +
                         ", not an instruction of the function");
      Target[K] = It->second;
      Leader[It->second] = true;
    }
    if (Cond || Jump || Stop || Mn == "s_swappc_b64")
      Leader[K + 1] = true;
  }
  // Blocks.
  M.BlockOf.assign(N, 0);
  for (size_t K = 0; K < N; ++K) {
    if (Leader[K]) {
      if (!M.BlockStart.empty())
        M.BlockEnd.push_back(K);
      M.BlockStart.push_back(K);
    }
    M.BlockOf[K] = M.BlockStart.size() - 1;
  }
  if (N)
    M.BlockEnd.push_back(N);
  size_t NB = M.BlockStart.size();
  M.Succ.assign(NB, {});
  for (size_t B = 0; B < NB; ++B) {
    size_t L = M.BlockEnd[B] - 1;
    llvm::StringRef Mn(M.Code[L].C->Mnemonic);
    bool Jump = Mn == "s_branch";
    bool Stop = Mn.starts_with("s_endpgm") || Mn == "s_setpc_b64" || Mn == "s_rfe_b64";
    if (Target[L])
      M.Succ[B].push_back(M.BlockOf[*Target[L]]);
    if (!Jump && !Stop && M.BlockEnd[B] < N)
      M.Succ[B].push_back(B + 1);
  }
  // Reverse postorder (iterative DFS), then any block the entry cannot reach.
  {
    std::vector<int> Mark(NB, 0);
    std::vector<size_t> Post;
    std::vector<std::pair<size_t, size_t>> Stack;
    if (NB) {
      Stack.push_back({0, 0});
      Mark[0] = 1;
    }
    while (!Stack.empty()) {
      auto &[B, Next] = Stack.back();
      if (Next < M.Succ[B].size()) {
        size_t S = M.Succ[B][Next++];
        if (!Mark[S]) {
          Mark[S] = 1;
          Stack.push_back({S, 0});
        }
        continue;
      }
      Post.push_back(B);
      Stack.pop_back();
    }
    M.Order.assign(Post.rbegin(), Post.rend());
  }
  WaitPlan P = M.Original;
  if (M.Opt.OwnReference)
    M.walk(P, false, true);
  else
    M.Ref.assign(N, {});
  return F;
}

size_t WaitFlow::size() const { return I->Code.size(); }
const FlowInst &WaitFlow::inst(size_t K) const { return I->Code[K]; }
const WaitPlan &WaitFlow::original() const { return I->Original; }

std::vector<WaitDeficit> WaitFlow::deficits(const WaitPlan &P) const {
  WaitPlan Q = P;
  return I->walk(Q, false);
}

WaitPlan WaitFlow::place(const WaitPlan &P, size_t First, size_t Last) const {
  WaitPlan Q = P;
  for (size_t K = First; K <= Last && K < size(); ++K) {
    Q.Pre[K] = WaitFields{};
    if (I->Steps[K].Wait)
      Q.Own[K] = WaitFields{};
  }
  // Each walk meets the needs of one block, the first in reverse postorder that has any; a wait
  // placed there shrinks what reaches the blocks after it, so walk again until nothing is left
  // (at most once per block, and again for the blocks of a loop a later fix reaches).
  bool Done = false;
  for (size_t Round = 0; Round < 4 * I->BlockStart.size() + 8 && !Done; ++Round)
    Done = I->walk(Q, true).empty();
  if (!Done)
    I->walk(Q, true, true);
  // A wait placed right after an s_waitcnt, with no label between, joins it: one line.
  for (size_t K = 1; K < size(); ++K)
    if (Q.Pre[K].any() && I->Steps[K - 1].Wait && I->BlockOf[K] == I->BlockOf[K - 1]) {
      WaitFields &W = Q.Own[K - 1];
      auto Min = [](int A, int B) { return A < 0 ? B : B < 0 ? A : std::min(A, B); };
      W = WaitFields{Min(W.Vm, Q.Pre[K].Vm), Min(W.Lgkm, Q.Pre[K].Lgkm)};
      Q.Pre[K] = WaitFields{};
    }
  return Q;
}

WaitFields WaitFlow::relax(const WaitPlan &P, size_t W) const {
  WaitPlan Q = P;
  WaitFields &F = Q.Own[W];
  auto Safe = [&] { return deficits(Q).empty(); };
  for (int *Field : {&F.Vm, &F.Lgkm}) {
    if (*Field < 0)
      continue;
    int Orig = *Field;
    int Cap = Field == &F.Vm ? kCap[kVm] : kCap[kLgkm];
    *Field = -1;
    if (Safe())
      continue;
    // The weakest count that is still safe: safety only falls as the count rises.
    int Lo = Orig, Hi = Cap - 1; // Lo safe
    while (Lo < Hi) {
      int Mid = (Lo + Hi + 1) / 2;
      *Field = Mid;
      if (Safe())
        Lo = Mid;
      else
        Hi = Mid - 1;
    }
    *Field = Lo;
  }
  return F;
}

std::string waitcntText(const WaitFields &F, int Exp) {
  if (!F.any() && Exp < 0)
    return "";
  std::string T = "\ts_waitcnt";
  if (F.Vm >= 0)
    T += " vmcnt(" + std::to_string(F.Vm) + ")";
  if (Exp >= 0)
    T += " expcnt(" + std::to_string(Exp) + ")";
  if (F.Lgkm >= 0)
    T += " lgkmcnt(" + std::to_string(F.Lgkm) + ")";
  return T;
}

} // namespace asmevo
