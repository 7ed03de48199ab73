// The `pipeline` driver: a loop's buffer loads software-pipelined by one stage (issue 41, item
// 3). In a loop of one basic block (a label, straight-line code, a conditional branch on SCC back
// to the label), a buffer load whose data the same iteration consumes makes that iteration wait
// for memory. The driver issues the load one iteration ahead instead:
//   - the load's data goes to VGPRs the loop never names and nothing after it reads (the
//     kernel's VGPR count, so its occupancy, stays), else to fresh ones above every VGPR the
//     kernel uses (hsaco-rebuild grows the descriptor) while the kernel keeps its waves per
//     SIMD; the instructions that read it in the iteration read those instead (one that
//     overwrites the data it reads, AWQ's `v_mul_f16 v76, v94, v76`, has only its sources
//     renamed);
//   - before the loop, the load for the first iteration: its address computed as the loop's top
//     computes it (the load's slice: the VALU instructions of the body that its address and
//     resource registers depend on), from the values the loop starts with;
//   - in the body, right after the last instruction that reads the prefetched data (and after the
//     last write of any register the slice reads, and the last write of SCC), the slice again
//     and the load for the next iteration: the slice's inputs then hold the next iteration's
//     values, because no instruction from there to the loop's top writes them (the driver
//     checks it), nor does the top before the slice reads them;
//   - that load runs only when the loop goes on: EXEC is saved to a free SGPR pair and set by
//     s_cselect from SCC, which the branch reads (no instruction from there to the branch writes
//     SCC), so the last iteration loads nothing past what the original read;
//   - a slice with a SALU instruction that writes SCC (Triton's masks: s_and_b64 of two
//     compares) runs before EXEC is set, with SCC kept in a free SGPR and set again from it;
//   - the original load is removed, and its slice too when nothing else reads what it computes
//     (on every path, out of the loop too, through the kernel's branches); the slice's results
//     in the copies go to VGPRs that are dead there (or fresh ones), and the SGPRs and VCC it
//     writes must be dead there;
//   - the prologue issues the loads in the order the body's copies do (vmcnt counts in order);
//   - every s_waitcnt from the new prologue to the branch is placed again by the wait-counter
//     dataflow (asm/WaitFlow.h), judged on the new code with no reference to the old waits (loads
//     into registers may cross s_barrier where the target's memory model allows it): each use of
//     prefetched data waits only for what it needs, one iteration later.
// Each copy of the slice keeps the wait states its instructions had between them (an s_nop for
// the instructions left out), and each instruction taken out (the original load and slice)
// leaves an s_nop 0, so no wait state shrinks; then each of those s_nop 0s is taken out again
// where the static scan (search/WaitStateFilter.h: the differential check's own, on the rebuilt
// code) still finds no hazard of a kind the node's code does not have. Per loop it proposes all
// its loads pipelined together, then each alone; each first with its copies' s_nops, then with
// only those the scan asks for (the timing model prices the two differently). Refused: a load
// whose data an earlier iteration's code reads (loop-carried), inputs written at the loop's top
// before the slice reads them or after the copy's place, a branch on anything but SCC, any store
// or atomic to global memory from the kernel's start to the loop's end (a load issued earlier
// must read what it read before). A change whose lines span more than one edit window may hold
// (EditLimits) is proposed as one edit per run of changed lines (EditHunks.h), applied together.
// The gates judge each proposal on the launches, as every driver's.
#include "asm/Rebuild.h"
#include "asm/WaitFlow.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetLimits.h"
#include "search/Driver.h"
#include "search/EditHunks.h"
#include "search/WaitStateFilter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>

namespace asmevo::search {

namespace {

using RegSet = std::set<std::string>;

bool isReg(const std::string &R, char Kind) {
  return R.size() > 1 && R[0] == Kind && std::isdigit(static_cast<unsigned char>(R[1]));
}
unsigned regIndex(const std::string &R) { return unsigned(std::stoul(R.substr(1))); }
std::string vgpr(unsigned I) { return "v" + std::to_string(I); }

bool has(const std::vector<std::string> &V, const std::string &R) {
  return std::find(V.begin(), V.end(), R) != V.end();
}

// Where Line's operands start: after its mnemonic, the first word (npos when it has none).
size_t operandsStart(const std::string &Line) {
  size_t Begin = Line.find_first_not_of(" \t");
  return Begin == std::string::npos ? std::string::npos : Line.find_first_of(" \t", Begin);
}

// A VGPR operand: v7 (group 4) or v[8:11] (groups 2 and 3).
const std::regex &vgprToken() {
  static const std::regex Token("\\bv(\\[([0-9]+):([0-9]+)\\]|([0-9]+)\\b)");
  return Token;
}

// Line with its operands' VGPRs renamed by Map ("v24" -> "v40"); a range must map onto a range.
// None when it cannot be written (a range split by the map).
std::optional<std::string> renameVgprs(const std::string &Line,
                                       const std::map<std::string, std::string> &Map) {
  if (Map.empty())
    return Line;
  const size_t Ops = operandsStart(Line);
  if (Ops == std::string::npos)
    return Line;
  std::string Rest = Line.substr(Ops), Out = Line.substr(0, Ops);
  size_t Last = 0;
  for (std::sregex_iterator I(Rest.begin(), Rest.end(), vgprToken()), E; I != E; ++I) {
    const std::smatch &M = *I;
    Out += Rest.substr(Last, size_t(M.position(0)) - Last);
    Last = size_t(M.position(0) + M.length(0));
    if (M[4].matched) {
      auto It = Map.find("v" + M[4].str());
      Out += It == Map.end() ? M.str(0) : It->second;
      continue;
    }
    unsigned Lo = unsigned(std::stoul(M[2].str())), Hi = unsigned(std::stoul(M[3].str()));
    auto First = Map.find(vgpr(Lo));
    bool Any = false, All = true;
    for (unsigned R = Lo; R <= Hi; ++R) {
      auto It = Map.find(vgpr(R));
      Any |= It != Map.end();
      All &= It != Map.end() && First != Map.end() &&
             It->second == vgpr(regIndex(First->second) + (R - Lo));
    }
    if (!Any) {
      Out += M.str(0);
      continue;
    }
    if (!All)
      return std::nullopt;
    unsigned NewLo = regIndex(First->second);
    Out += "v[" + std::to_string(NewLo) + ":" + std::to_string(NewLo + (Hi - Lo)) + "]";
  }
  Out += Rest.substr(Last);
  return Out;
}

// Every VGPR Text names (v7, v[8:11]).
RegSet vgprsIn(const std::string &Text) {
  RegSet Out;
  for (std::sregex_iterator I(Text.begin(), Text.end(), vgprToken()), E; I != E; ++I) {
    const std::smatch &M = *I;
    if (M[4].matched) {
      Out.insert("v" + M[4].str());
      continue;
    }
    for (unsigned R = unsigned(std::stoul(M[2].str())); R <= unsigned(std::stoul(M[3].str())); ++R)
      Out.insert(vgpr(R));
  }
  return Out;
}

// An instruction line split after its first operand: {"\tv_mul_f16_e32 v76", ", v94, v76"}
// (the whole line and "" when it has one operand or none).
std::pair<std::string, std::string> destinationAndSources(const std::string &Line) {
  const size_t Ops = operandsStart(Line);
  const size_t Comma = Ops == std::string::npos ? std::string::npos : Line.find(',', Ops);
  if (Comma == std::string::npos)
    return {Line, ""};
  return {Line.substr(0, Comma), Line.substr(Comma)};
}

// One load pipelined: where it is, what it reads and writes, and the registers chosen.
struct LoadPlan {
  size_t P = 0;                            // the load (code index)
  std::vector<size_t> Slice;               // the ALU instructions its address needs, in code order
  std::vector<size_t> Users;               // the instructions that read its data
  size_t At = 0;                           // the code index the next iteration's copy goes before
  bool SliceWritesScc = false;             // a SALU instruction of the slice writes SCC
  std::map<std::string, std::string> Data; // its destination VGPRs -> the prefetch VGPRs
  std::map<std::string, std::string> Temps, PreTemps; // slice results in the copies
  // Users that overwrite the data they read (AWQ's `v_mul_f16 v76, v94, v76`): only their
  // sources are renamed.
  std::set<size_t> Overwriting;
};

class PipelineDriver : public EditListDriver {
public:
  std::string name() const override { return "pipeline"; }

  nlohmann::json usage() const override { return Hazards.usage(); }

protected:
  std::vector<std::vector<Edit>> editSets(const NodeView &N) override;
  bool keep(const NodeView &N, const std::vector<Edit> &Es) override {
    return Hazards.keeps(N, Es);
  }

private:
  WaitStateFilter Hazards;
};

// The analysis of one node's code (N.Map.Code, by code index).
class LoopCode {
public:
  LoopCode(const NodeView &N, uint64_t Entry) : N(N), Code(N.Map.Code), Entry(Entry) {
    for (const CodeLine &L : Code) {
      if (!L.Cost)
        continue;
      for (const auto *V : {&L.Cost->Reads, &L.Cost->Writes})
        for (const std::string &R : *V) {
          if (isReg(R, 'v'))
            MaxVgpr = std::max(MaxVgpr, int(regIndex(R)));
          if (isReg(R, 's')) {
            MaxSgpr = std::max(MaxSgpr, int(regIndex(R)));
            Sgprs.insert(regIndex(R));
          }
        }
    }
  }

  const NodeView &N;
  const std::vector<CodeLine> &Code;
  uint64_t Entry; // the kernel's address: branch targets minus Entry are code offsets
  int MaxVgpr = -1, MaxSgpr = -1;
  std::set<unsigned> Sgprs; // every SGPR the function names

  // An even-aligned run of Count SGPRs (of s0-s101) that no instruction of the function names:
  // free to hold a value for a few instructions (what the dispatch set there, nobody reads).
  // Above the highest named one where it fits, else the lowest such gap; none when there is
  // no such run.
  std::optional<unsigned> freeSgprs(unsigned Count) const {
    unsigned Above = unsigned(MaxSgpr + 2) & ~1u;
    if (Above + Count <= 102)
      return Above;
    for (unsigned S = 0; S + Count <= 102; S += 2) {
      bool Free = true;
      for (unsigned K = S; K < S + Count; ++K)
        Free &= !Sgprs.count(K);
      if (Free)
        return S;
    }
    return std::nullopt;
  }
  size_t H = 0, B = 0; // the loop: its first instruction and its branch back

  const InstCost &at(size_t K) const { return *Code[K].Cost; }
  bool reads(size_t K, const std::string &R) const { return has(at(K).Reads, R); }
  bool writes(size_t K, const std::string &R) const { return has(at(K).Writes, R); }

  // The single-block loops: [H, B] with B an s_cbranch_scc0/1 back to H, nothing in between that
  // branches or ends, entered only by falling into H, all of it editable.
  std::vector<std::pair<size_t, size_t>> loops() const {
    std::vector<std::pair<size_t, size_t>> Out;
    for (size_t B = 1; B < Code.size(); ++B) {
      const InstCost *X = Code[B].Cost;
      if (!X || !X->BranchTarget ||
          (X->Mnemonic != "s_cbranch_scc0" && X->Mnemonic != "s_cbranch_scc1"))
        continue;
      uint64_t Target = *X->BranchTarget - Entry;
      size_t H = SIZE_MAX;
      for (size_t K = 0; K < B; ++K)
        if (Code[K].Offset == Target)
          H = K;
      if (H == SIZE_MAX || H == 0 || Code[H - 1].Line < N.Map.FirstEditable)
        continue;
      bool Straight = true;
      for (size_t K = H; K < B && Straight; ++K) {
        const InstCost *Y = Code[K].Cost;
        Straight = Y && Y->Unit != InstUnit::Branch && !Y->EndPgm && !Y->BranchTarget &&
                   !has(Y->Writes, "exec") && !has(Y->Writes, "m0");
      }
      const InstCost *Before = Code[H - 1].Cost;
      Straight = Straight && Before && !Before->EndPgm &&
                 Before->Mnemonic.rfind("s_branch", 0) != 0 &&
                 Before->Mnemonic.rfind("s_setpc", 0) != 0;
      for (size_t K = 0; K < Code.size() && Straight; ++K)
        if (K != B && Code[K].Cost && Code[K].Cost->BranchTarget &&
            *Code[K].Cost->BranchTarget - Entry == Target)
          Straight = false; // another way into the loop would skip the prologue
      // A load issued earlier must read what it read before: no write to global memory from
      // the kernel's start to the loop's end (another wave's store before a barrier of the loop
      // included).
      for (size_t K = 0; K <= B && Straight; ++K) {
        const InstCost *Y = Code[K].Cost;
        Straight = Y && !((Y->Unit == InstUnit::Vmem || Y->Unit == InstUnit::Smem) &&
                          (Y->Store || Y->Atomic));
      }
      if (Straight)
        Out.push_back({H, B});
    }
    return Out;
  }

  // Whether register R holds nothing that is read later when control is at body index Pos
  // (before instruction Pos), instructions in Ignore left out: on the rest of the body, around
  // the back edge to Pos, and on the fall-through path out of the loop. With Renamed, the reads
  // it lists (instruction -> registers it will read under other names) do not count.
  bool deadAt(const std::string &R, size_t Pos, const std::set<size_t> &Ignore,
              const std::map<size_t, RegSet> *Renamed = nullptr) const {
    auto Scan = [&](size_t From, size_t To) -> int { // 1: written first, 0: read first, -1: none
      for (size_t K = From; K < To; ++K) {
        if (Ignore.count(K))
          continue;
        auto Rn = Renamed ? Renamed->find(K) : std::map<size_t, RegSet>::const_iterator();
        if (reads(K, R) && !(Renamed && Rn != Renamed->end() && Rn->second.count(R)))
          return 0;
        if (writes(K, R))
          return 1;
      }
      return -1;
    };
    int Rest = Scan(Pos, B + 1);
    if (Rest >= 0)
      return Rest == 1;
    if (Scan(H, Pos) == 0)
      return false;
    return deadOnExit(R);
  }

  // Whether every path out of the loop (from the instruction after its branch, through the
  // kernel's direct branches) writes R or ends before it reads it. An indirect jump, a return
  // or a word that does not decode counts as a read.
  bool deadOnExit(const std::string &R) const {
    std::vector<size_t> Work{B + 1};
    std::set<size_t> Seen;
    while (!Work.empty()) {
      size_t K = Work.back();
      Work.pop_back();
      for (; K < Code.size() && Seen.insert(K).second; ++K) {
        const InstCost *X = Code[K].Cost;
        if (!X || has(X->Reads, R))
          return false;
        if (has(X->Writes, R) || X->EndPgm)
          break;
        if (X->BranchTarget) {
          auto T = std::find_if(Code.begin(), Code.end(), [&](const CodeLine &L) {
            return L.Offset == *X->BranchTarget - Entry;
          });
          if (T == Code.end())
            return false;
          Work.push_back(size_t(T - Code.begin()));
          if (X->Mnemonic == "s_branch")
            break;
        } else if (X->Unit == InstUnit::Branch) {
          return false; // s_setpc, s_swappc, ...: where it goes is not in the text
        }
      }
      if (K == Code.size())
        return false; // ran off the function's end
    }
    return true;
  }

  // Whether user K, which writes some of Data, names what it writes of Data as its destination
  // (its first operand) and reads what it reads of Live through its sources only, so that
  // renaming only its sources makes it read the prefetched data and write what it wrote (a VALU
  // instruction; not v_fmac, whose accumulator is read through the destination, nor a DPP move,
  // which keeps the destination's old value in lanes it does not write).
  bool overwritesInPlace(size_t K, const RegSet &Data, const RegSet &Live) const {
    const InstCost &X = at(K);
    if (X.Unit != InstUnit::Valu || X.Vm || X.Lgkm)
      return false;
    auto [Dst, Srcs] = destinationAndSources(N.Map.Lines[Code[K].Line]);
    const RegSet Written = vgprsIn(Dst), Read = vgprsIn(Srcs);
    for (const std::string &D : Data)
      if ((writes(K, D) && !Written.count(D)) ||
          (Live.count(D) && reads(K, D) && (!Read.count(D) || has(X.TiedReads, D))))
        return false;
    return true;
  }

  // The plan for the load at P, or none when it does not qualify.
  std::optional<LoadPlan> plan(size_t P) const {
    const InstCost &L = at(P);
    if (L.Unit != InstUnit::Vmem || !L.Vm || L.Store || L.LdsDirect || L.Atomic ||
        L.Mnemonic.rfind("buffer_load_", 0) != 0 || L.Writes.empty())
      return std::nullopt;
    LoadPlan Pl;
    Pl.P = P;
    RegSet Data;
    for (const std::string &W : L.Writes) {
      if (!isReg(W, 'v'))
        return std::nullopt;
      Data.insert(W);
    }
    // No iteration reads the data a previous one loaded.
    for (const std::string &D : Data)
      for (size_t K = H; K < P; ++K) {
        if (reads(K, D))
          return std::nullopt;
        if (writes(K, D))
          break;
      }
    // The users: reads of the data before each register is written again, in the iteration; a
    // register not written again is read by no one after the loop.
    RegSet Live = Data;
    for (size_t K = P + 1; K <= B && !Live.empty(); ++K) {
      bool Uses = false;
      for (const std::string &D : Live)
        Uses |= reads(K, D);
      if (Uses) {
        bool Overwrites = false;
        for (const std::string &D : Data)
          Overwrites |= writes(K, D);
        if (Overwrites && !overwritesInPlace(K, Data, Live))
          return std::nullopt;
        if (Overwrites)
          Pl.Overwriting.insert(K);
        Pl.Users.push_back(K);
      }
      for (const std::string &W : at(K).Writes)
        Live.erase(W);
    }
    for (const std::string &D : Live)
      if (!deadOnExit(D))
        return std::nullopt;
    if (Pl.Users.empty())
      return std::nullopt;
    // The slice: what the address needs, computed in the body before the load.
    RegSet Need;
    for (const std::string &R : L.Reads)
      if (R != "exec")
        Need.insert(R);
    for (size_t K = P; K-- > H;) {
      const InstCost &X = at(K);
      bool Defines = false;
      for (const std::string &W : X.Writes)
        Defines |= Need.count(W) > 0;
      if (!Defines)
        continue;
      if ((X.Unit != InstUnit::Valu && X.Unit != InstUnit::Salu) || X.Vm || X.Lgkm)
        return std::nullopt;
      for (const std::string &W : X.Writes)
        if (!isReg(W, 'v') && !isReg(W, 's') && W != "vcc" && W != "scc")
          return std::nullopt;
      Pl.SliceWritesScc |= has(X.Writes, "scc");
      for (const std::string &R : X.Reads)
        if (R == "scc")
          return std::nullopt;
      Pl.Slice.insert(Pl.Slice.begin(), K);
      for (const std::string &W : X.Writes)
        Need.erase(W);
      for (const std::string &R : X.Reads)
        if (R != "exec")
          Need.insert(R);
    }
    // The slice's inputs hold the next iteration's values from the copy's place on: none is
    // written before its first reader at the top, and the copy goes after their last writes.
    size_t At = Pl.Users.back() + 1;
    for (const std::string &R : Need) {
      size_t FirstReader = P;
      for (size_t K : Pl.Slice)
        if (reads(K, R)) {
          FirstReader = K;
          break;
        }
      for (size_t K = H; K <= B; ++K)
        if (writes(K, R)) {
          if (K < FirstReader)
            return std::nullopt;
          At = std::max(At, K + 1);
        }
    }
    // SCC holds the branch's condition from the copy on (the copy's EXEC comes from it).
    bool SccSet = false;
    for (size_t K = H; K < B; ++K)
      if (writes(K, "scc")) {
        At = std::max(At, K + 1);
        SccSet = true;
      }
    if (!SccSet || At > B)
      return std::nullopt;
    Pl.At = At;
    // The copies rename every VGPR the slice writes: each read of one must then see a slice
    // instruction's result (not the value from before the slice), and the load must not read
    // its own destination.
    RegSet Written;
    for (size_t K : Pl.Slice) {
      for (const std::string &R : at(K).Reads)
        if (isReg(R, 'v') && !Written.count(R)) {
          for (size_t K2 : Pl.Slice)
            if (writes(K2, R))
              return std::nullopt;
        }
      for (const std::string &W : at(K).Writes)
        Written.insert(W);
    }
    for (const std::string &R : L.Reads)
      if (Data.count(R) && !Written.count(R))
        return std::nullopt; // the next address from this load's data
    return Pl;
  }
};

// The wait states between code indices A and B of the original (the instructions in between,
// an s_nop N counting N + 1).
unsigned waitStatesBetween(const LoopCode &C, size_t A, size_t B) {
  unsigned S = 0;
  for (size_t K = A + 1; K < B; ++K)
    S += C.at(K).NopStates ? C.at(K).NopStates : 1;
  return S;
}

// The text of one copy of a plan's slice and load (the prologue's or the body's), with the
// slice's results in Temps and the data in the prefetch registers.
struct CopyText {
  std::vector<std::string> Slice; // with the s_nop before the load
  std::vector<bool> Nop;          // Slice[i] is an s_nop of the copy's
  std::string Load;
};
std::optional<CopyText> copyText(const LoopCode &C, const LoadPlan &Pl,
                                 const std::map<std::string, std::string> &Temps) {
  std::vector<std::string> Out;
  std::vector<bool> Nop;
  std::map<std::string, std::string> Map = Temps;
  for (size_t I = 0; I < Pl.Slice.size(); ++I) {
    size_t K = Pl.Slice[I];
    if (I > 0)
      if (unsigned S = waitStatesBetween(C, Pl.Slice[I - 1], K)) {
        Out.push_back("\ts_nop " + std::to_string(std::min(S, 16u) - 1));
        Nop.push_back(true);
      }
    auto L = renameVgprs(C.N.Map.Lines[C.Code[K].Line], Map);
    if (!L)
      return std::nullopt;
    Out.push_back(*L);
    Nop.push_back(false);
  }
  if (!Pl.Slice.empty())
    if (unsigned S = waitStatesBetween(C, Pl.Slice.back(), Pl.P)) {
      Out.push_back("\ts_nop " + std::to_string(std::min(S, 16u) - 1));
      Nop.push_back(true);
    }
  // The load: its destination (the first operand) to the prefetch registers, its address to
  // the slice's results.
  const std::string &Load = C.N.Map.Lines[C.Code[Pl.P].Line];
  size_t Comma = Load.find(',');
  if (Comma == std::string::npos)
    return std::nullopt;
  auto Dst = renameVgprs(Load.substr(0, Comma), Pl.Data);
  auto Rest = renameVgprs("x" + Load.substr(Comma), Map);
  if (!Dst || !Rest)
    return std::nullopt;
  return CopyText{std::move(Out), std::move(Nop), *Dst + Rest->substr(1)};
}

// Registers for the slice's VGPR results in a copy placed at body index Pos (dead there and, for
// the prologue, at the loop's top), else fresh ones from Next on. None of Avoid.
std::map<std::string, std::string> tempsFor(const LoopCode &C, const LoadPlan &Pl, size_t Pos,
                                            const std::set<size_t> &Gone, const RegSet &Avoid,
                                            unsigned &Next) {
  std::map<std::string, std::string> Temps;
  RegSet Taken = Avoid;
  for (size_t K : Pl.Slice)
    for (const std::string &R : C.at(K).Reads)
      Taken.insert(R);
  for (size_t K : Pl.Slice)
    for (const std::string &W : C.at(K).Writes) {
      if (!isReg(W, 'v') || Temps.count(W))
        continue;
      std::string Pick;
      for (int V = 0; V <= C.MaxVgpr && Pick.empty(); ++V) {
        std::string R = vgpr(unsigned(V));
        if (!Taken.count(R) && C.deadAt(R, Pos, Gone))
          Pick = R;
      }
      if (Pick.empty())
        Pick = vgpr(Next++);
      Taken.insert(Pick);
      Temps[W] = Pick;
    }
  return Temps;
}

// The edit that pipelines the loads of Plans (LoopCode::plan's, of loop [C.H, C.B]).
// Each instruction taken out leaves an s_nop 0 and each copy keeps the wait states its slice had:
// no wait state shrinks. Then each of those s_nop 0s (with TrimCopies, also each s_nop of the
// copies) is taken out again where the static scan still finds no hazard of a kind the node's
// code does not have.
std::optional<std::vector<Edit>> pipelineEdit(const NodeView &N, const LoopCode &C,
                                              std::vector<LoadPlan> Plans, bool TrimCopies) {
  if (Plans.empty())
    return std::nullopt;
  // The original loads go, and each instruction of their slices whose results nothing reads
  // any more: on every path, out of the loop too, the users reading the prefetched copies
  // instead of the loads' registers. Later ones first, until no more go (the slices of loads
  // taken together share instructions: AWQ's scale addresses all start from one s_mul).
  std::set<size_t> Gone;
  std::map<size_t, RegSet> Renamed;
  std::set<size_t, std::greater<size_t>> Slices;
  for (const LoadPlan &Pl : Plans) {
    Gone.insert(Pl.P);
    Slices.insert(Pl.Slice.begin(), Pl.Slice.end());
    for (size_t U : Pl.Users)
      for (const std::string &D : C.at(Pl.P).Writes)
        if (C.reads(U, D))
          Renamed[U].insert(D);
  }
  for (bool More = true; More;) {
    More = false;
    for (size_t K : Slices) {
      if (Gone.count(K))
        continue;
      std::set<size_t> Without = Gone;
      Without.insert(K);
      bool Dead = true;
      for (const std::string &W : C.at(K).Writes)
        Dead = Dead && W != "exec" && C.deadAt(W, K + 1, Without, &Renamed);
      if (Dead) {
        Gone.insert(K);
        More = true;
      }
    }
  }
  // The SGPRs and VCC a slice writes (compare masks) keep their names: they must be dead where
  // the copies go.
  for (const LoadPlan &Pl : Plans)
    for (size_t K : Pl.Slice)
      for (const std::string &W : C.at(K).Writes)
        if (!isReg(W, 'v') &&
            ((W != "scc" && !C.deadAt(W, Pl.At, Gone)) || !C.deadAt(W, C.H, Gone)))
          return std::nullopt;
  // The prefetched data (even-aligned tuples): in VGPRs the loop never names and nothing after
  // it reads (the kernel's own headroom: its VGPR count, so its occupancy, stays), else fresh
  // ones above the kernel's; then the temporaries.
  unsigned Next = unsigned(C.MaxVgpr + 1);
  RegSet Avoid, InLoop;
  for (size_t K = C.H; K <= C.B; ++K)
    for (const auto *V : {&C.at(K).Reads, &C.at(K).Writes})
      InLoop.insert(V->begin(), V->end());
  for (LoadPlan &Pl : Plans) {
    std::vector<std::string> Dst = C.at(Pl.P).Writes;
    std::sort(Dst.begin(), Dst.end(),
              [](const std::string &A, const std::string &B) { return regIndex(A) < regIndex(B); });
    unsigned Align = Dst.size() > 1 ? 2 : 1, Base = Next;
    for (unsigned V = 0; V + Dst.size() <= unsigned(C.MaxVgpr + 1); V += Align) {
      bool Free = true;
      for (unsigned K = V; K < V + Dst.size() && Free; ++K)
        Free = !InLoop.count(vgpr(K)) && !Avoid.count(vgpr(K)) && C.deadOnExit(vgpr(K));
      if (Free) {
        Base = V;
        break;
      }
    }
    if (Base == Next) {
      Base = Next = (Next + Align - 1) / Align * Align;
      Next += unsigned(Dst.size());
    }
    for (size_t I = 0; I < Dst.size(); ++I) {
      Pl.Data[Dst[I]] = vgpr(Base + unsigned(I));
      Avoid.insert(Dst[I]);
      Avoid.insert(vgpr(Base + unsigned(I)));
    }
  }
  // No copy's temporaries may be what another copy reads.
  for (const LoadPlan &Pl : Plans) {
    for (size_t K : Pl.Slice)
      for (const std::string &R : C.at(K).Reads)
        Avoid.insert(R);
    for (const std::string &R : C.at(Pl.P).Reads)
      Avoid.insert(R);
  }
  for (LoadPlan &Pl : Plans) {
    Pl.Temps = tempsFor(C, Pl, Pl.At, Gone, Avoid, Next);
    Pl.PreTemps = tempsFor(C, Pl, C.H, Gone, Avoid, Next);
  }
  if (Next > 256)
    return std::nullopt;
  // An SGPR pair no instruction names keeps EXEC while a copy loads only when the loop goes on
  // (and the SGPR after it SCC, while a slice that writes SCC runs).
  std::optional<unsigned> Free = C.freeSgprs(3);
  if (!Free)
    return std::nullopt;
  unsigned Save = *Free;
  std::string SavePair = "s[" + std::to_string(Save) + ":" + std::to_string(Save + 1) + "]";
  std::string SaveScc = "s" + std::to_string(Save + 2);
  bool OnScc1 = C.at(C.B).Mnemonic == "s_cbranch_scc1";

  // The new text of the loop, from the line after the prologue's last instruction to the branch.
  const auto &Lines = N.Map.Lines;
  size_t First = C.Code[C.H - 1].Line + 1, Last = C.Code[C.B].Line;
  std::vector<std::string> Out;
  // Out[i] is an s_nop of the driver's: 1 a copy's, 2 in place of an instruction taken out.
  std::vector<int> Mine;
  auto copyNops = [&](const CopyText &T) {
    for (bool B : T.Nop)
      Mine.push_back(B ? 1 : 0);
  };
  auto append = [&](const CopyText &T) {
    Out.insert(Out.end(), T.Slice.begin(), T.Slice.end());
    copyNops(T);
    Out.push_back(T.Load);
    Mine.push_back(0);
  };
  auto line = [&](std::string L, int Nop = 0) {
    Out.push_back(std::move(L));
    Mine.push_back(Nop);
  };
  // The prologue issues the loads in the order the body's copies do, so that every iteration
  // finds them queued alike (vmcnt counts in issue order).
  std::vector<const LoadPlan *> ByAt;
  for (const LoadPlan &Pl : Plans)
    ByAt.push_back(&Pl);
  std::stable_sort(ByAt.begin(), ByAt.end(),
                   [](const LoadPlan *A, const LoadPlan *B) { return A->At < B->At; });
  for (const LoadPlan *PlP : ByAt) {
    const LoadPlan &Pl = *PlP;
    auto T = copyText(C, Pl, Pl.PreTemps);
    if (!T)
      return std::nullopt;
    append(*T);
  }
  std::map<size_t, size_t> CodeAt; // text line -> code index
  for (size_t K = C.H; K <= C.B; ++K)
    CodeAt[C.Code[K].Line] = K;
  const std::map<std::string, std::string> NoRenames;
  std::map<size_t, std::map<std::string, std::string>> UserMap;
  std::set<size_t> Overwriting;
  for (const LoadPlan &Pl : Plans) {
    for (size_t U : Pl.Users)
      for (const auto &[From, To] : Pl.Data)
        UserMap[U][From] = To;
    Overwriting.insert(Pl.Overwriting.begin(), Pl.Overwriting.end());
  }
  for (size_t L = First; L <= Last; ++L) {
    auto It = CodeAt.find(L);
    if (It == CodeAt.end()) {
      line(Lines[L]);
      continue;
    }
    size_t K = It->second;
    for (const LoadPlan &Pl : Plans)
      if (Pl.At == K) {
        auto T = copyText(C, Pl, Pl.Temps);
        if (!T)
          return std::nullopt;
        // A slice that writes SCC runs first, with SCC kept in an SGPR and set again after it.
        auto slice = [&] {
          Out.insert(Out.end(), T->Slice.begin(), T->Slice.end());
          copyNops(*T);
        };
        if (Pl.SliceWritesScc) {
          line("\ts_cselect_b32 " + SaveScc + ", 1, 0");
          slice();
          line("\ts_mov_b64 " + SavePair + ", exec");
          line("\ts_cmp_lg_u32 " + SaveScc + ", 0");
        } else {
          line("\ts_mov_b64 " + SavePair + ", exec");
        }
        line(OnScc1 ? "\ts_cselect_b64 exec, exec, 0" : "\ts_cselect_b64 exec, 0, exec");
        if (!Pl.SliceWritesScc)
          slice();
        line(T->Load);
        line("\ts_mov_b64 exec, " + SavePair);
      }
    if (Gone.count(K)) {
      line("\ts_nop 0", 2);
      continue;
    }
    auto U = UserMap.find(K);
    const std::map<std::string, std::string> &Renames = U == UserMap.end() ? NoRenames : U->second;
    if (Overwriting.count(K)) { // the sources only: it writes what it wrote
      auto [Dst, Srcs] = destinationAndSources(Lines[L]);
      auto R = renameVgprs("x" + Srcs, Renames);
      if (!R)
        return std::nullopt;
      line(Dst + R->substr(1));
      continue;
    }
    auto R = renameVgprs(Lines[L], Renames);
    if (!R)
      return std::nullopt;
    line(*R);
  }
  auto textWith = [&](const std::vector<std::string> &Body) {
    std::vector<std::string> T(Lines.begin(), Lines.begin() + long(First));
    T.insert(T.end(), Body.begin(), Body.end());
    T.insert(T.end(), Lines.begin() + long(Last + 1), Lines.end());
    return T;
  };
  // The padded text must keep every wait state; then each of the driver's s_nops goes where the
  // scan still passes without it.
  if (!waitStateRefusalOfText(N, llvm::join(textWith(Out), "\n")).empty())
    return std::nullopt;
  for (size_t I = 0; I < Out.size();) {
    if (Mine[I] == 0 || (Mine[I] == 1 && !TrimCopies)) {
      ++I;
      continue;
    }
    std::vector<std::string> Try = Out;
    Try.erase(Try.begin() + long(I));
    if (waitStateRefusalOfText(N, llvm::join(textWith(Try), "\n")).empty()) {
      Out = std::move(Try);
      Mine.erase(Mine.begin() + long(I));
    } else {
      ++I;
    }
  }
  std::vector<std::string> Text = textWith(Out);

  // The waits from the prologue's copies to the branch placed again on the new code.
  std::string Joined = llvm::join(Text, "\n");
  auto RB = rebuildFromAssembly(Joined, "pipeline.s", nullptr);
  if (!RB) {
    llvm::consumeError(RB.takeError());
    return std::nullopt;
  }
  if (!RB->Violations.empty())
    return std::nullopt;
  auto Obj = CodeObject::read(RB->Object, "pipeline.hsaco");
  if (!Obj) {
    llvm::consumeError(Obj.takeError());
    return std::nullopt;
  }
  // Only the VGPR headroom below the kernel's occupancy step: a wave per SIMD fewer hides more
  // latency than the prefetch does (flash attention fwd, 3 -> 2 waves: 0.86x modeled).
  const KernelInfo *Was = N.Obj ? N.Obj->C.kernel(N.Kernel) : nullptr;
  const KernelInfo *Is = Obj->kernel(N.Kernel);
  if (!Was || !Is ||
      kernelOccupancy(*Is, Obj->Target).WavesPerSimd <
          kernelOccupancy(*Was, N.Obj->C.Target).WavesPerSimd)
    return std::nullopt;
  auto Sched = SchedInfo::create(*Obj);
  if (!Sched) {
    llvm::consumeError(Sched.takeError());
    return std::nullopt;
  }
  auto Map = mapKernelLines(*Obj, **Sched, Joined, N.Kernel);
  if (!Map) {
    llvm::consumeError(Map.takeError());
    return std::nullopt;
  }
  std::vector<FlowInst> Flow;
  size_t WFirst = SIZE_MAX, WLast = 0;
  for (size_t K = 0; K < Map->Code.size(); ++K) {
    const CodeLine &L = Map->Code[K];
    if (!L.Cost)
      return std::nullopt;
    Flow.push_back(FlowInst{L.Cost, L.Offset});
    if (L.Line >= First && L.Line < First + Out.size()) {
      WFirst = std::min(WFirst, K);
      WLast = std::max(WLast, K);
    }
  }
  WaitFlowOptions O = waitFlowOptionsOf(N);
  O.OwnReference = false;
  auto F = WaitFlow::create(std::move(Flow), Is->EntryAddr, O);
  if (!F) {
    llvm::consumeError(F.takeError());
    return std::nullopt;
  }
  if (WFirst == SIZE_MAX)
    return std::nullopt;
  WaitPlan Plan = (*F)->place((*F)->original(), WFirst, WLast);
  std::vector<std::string> Final;
  std::map<size_t, size_t> AtLine;
  for (size_t K = 0; K < Map->Code.size(); ++K)
    AtLine[Map->Code[K].Line] = K;
  for (size_t L = 0; L < Map->Lines.size(); ++L) {
    auto It = AtLine.find(L);
    if (It == AtLine.end()) {
      Final.push_back(Map->Lines[L]);
      continue;
    }
    size_t K = It->second;
    if (Plan.Pre[K].any())
      Final.push_back(waitcntText(Plan.Pre[K]));
    if (Plan.Own[K] != (*F)->original().Own[K]) {
      std::string W = waitcntText(Plan.Own[K], (*F)->inst(K).C->WaitExp);
      Final.push_back(W.empty() ? "\ts_nop 0" : W); // a wait taken out keeps its wait state
      continue;
    }
    Final.push_back(Map->Lines[L]);
  }
  // The edit: the node's lines from the first that differs to the last that differs.
  size_t Pre = 0;
  while (Pre < Lines.size() && Pre < Final.size() && Lines[Pre] == Final[Pre])
    ++Pre;
  size_t Suf = 0;
  while (Suf + Pre < Lines.size() && Suf + Pre < Final.size() &&
         Lines[Lines.size() - 1 - Suf] == Final[Final.size() - 1 - Suf])
    ++Suf;
  if (Pre == Lines.size() || Pre < N.Map.FirstEditable)
    return std::nullopt;
  // One window from the first line that differs to the last; where that is more than a window
  // may hold, one per run of changed lines (EditHunks.h), proposed together.
  const size_t Limit = EditLimits().MaxWindowLines;
  const llvm::ArrayRef<std::string> Old(Lines.data() + Pre, Lines.size() - Suf - Pre),
      New(Final.data() + Pre, Final.size() - Suf - Pre);
  std::vector<Edit> Es;
  if (Old.size() <= Limit) {
    Edit E;
    E.W.Function = N.Kernel;
    E.W.FirstLine = unsigned(Pre + 1);
    E.W.LastLine = unsigned(Pre + Old.size());
    for (size_t L = 0; L < Old.size(); ++L)
      E.Original += Old[L] + (L + 1 < Old.size() ? "\n" : "");
    for (size_t L = 0; L < New.size(); ++L)
      E.Replacement += New[L] + (L + 1 < New.size() ? "\n" : "");
    Es.push_back(std::move(E));
  } else {
    Es = hunkEdits(N.Kernel, Old, New, unsigned(Pre + 1));
  }
  if (Es.empty())
    return std::nullopt;
  std::string Which;
  for (const LoadPlan &Pl : Plans)
    Which += (Which.empty() ? "" : ", ") + std::to_string(C.Code[Pl.P].Line + 1);
  const std::string Rationale =
      "software-pipeline the loop of lines " + std::to_string(C.Code[C.H].Line + 1) + "-" +
      std::to_string(C.Code[C.B].Line + 1) + " by one stage: the buffer load" +
      (Plans.size() > 1 ? "s" : "") + " of line" + (Plans.size() > 1 ? "s " : " ") + Which +
      " issued one iteration ahead into fresh VGPRs (the first before the loop, the last skipped "
      "when the loop ends), waits placed again";
  for (size_t K = 0; K < Es.size(); ++K) {
    Edit &E = Es[K];
    if (E.W.LastLine - E.W.FirstLine + 1 > Limit)
      return std::nullopt;
    E.Direction = "latency hiding";
    E.Rationale = Es.size() == 1 ? Rationale
                                 : Rationale + " (part " + std::to_string(K + 1) + " of " +
                                       std::to_string(Es.size()) + ")";
    E.ExpectedEffect = "the loop's uses of loaded data no longer wait for memory (vmcnt)";
  }
  return Es;
}

// A proposal's identity within one node's list: its windows and replacements.
std::string setKey(const std::vector<Edit> &Es) {
  std::string Key;
  for (const Edit &E : Es)
    Key += std::to_string(E.W.FirstLine) + ":" + E.Replacement + "\n";
  return Key;
}

std::vector<std::vector<Edit>> PipelineDriver::editSets(const NodeView &N) {
  std::vector<std::vector<Edit>> Out;
  const KernelInfo *KI = N.Obj ? N.Obj->C.kernel(N.Kernel) : nullptr;
  if (!KI || N.Map.Code.empty())
    return Out;
  LoopCode C(N, KI->EntryAddr);
  std::set<std::string> Seen;
  for (auto [H, B] : C.loops()) {
    C.H = H, C.B = B;
    std::vector<LoadPlan> Loads;
    for (size_t K = H; K < B; ++K)
      if (std::optional<LoadPlan> Pl = C.plan(K))
        Loads.push_back(std::move(*Pl));
    std::vector<std::vector<LoadPlan>> Sets;
    if (!Loads.empty())
      Sets.push_back(Loads);
    if (Loads.size() > 1)
      for (const LoadPlan &Pl : Loads)
        Sets.push_back({Pl});
    for (const auto &S : Sets) {
      // The copies with their slice's wait states, then with only those the scan asks for (the
      // model prices the two differently: s_nops delay the loads' issue).
      for (bool Trim : {false, true})
        if (std::optional<std::vector<Edit>> Es = pipelineEdit(N, C, S, Trim);
            Es && Seen.insert(setKey(*Es)).second)
          Out.push_back(std::move(*Es));
    }
  }
  return Out;
}

} // namespace

std::unique_ptr<Driver> makePipelineDriver() { return std::make_unique<PipelineDriver>(); }

} // namespace asmevo::search
