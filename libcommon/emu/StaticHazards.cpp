#include "emu/StaticHazards.h"

#include "emu/Decoder.h"
#include "emu/Hazards.h"
#include "emu/RegUse.h"
#include "support/Error.h"

#include <set>

namespace asmevo::emu {

std::vector<LineInst> straightLines(const uint8_t *Code, size_t Size, uint64_t Base, Gfx Target) {
  // Pass 1: decode, collect the direct branches' targets.
  std::vector<LineInst> Is;
  std::set<uint64_t> Targets;
  for (uint64_t Off = 0; Off < Size;) {
    LineInst L;
    std::string Why;
    if (!decodeInst(Code + Off, Size - Off, Target, L.In, &Why)) {
      Off += 4; // data or padding: the next instruction starts a new straight line
      Targets.insert(Base + Off);
      continue;
    }
    L.Pc = Base + Off;
    Off += L.In.Size;
    if (L.In.Encoding == Enc::SOPP) {
      std::string M = mnemonic(L.In, Target);
      if (M.rfind("s_branch", 0) == 0 || M.rfind("s_cbranch", 0) == 0)
        Targets.insert(L.Pc + 4 + int64_t(int16_t(L.In.Simm16)) * 4);
    }
    Is.push_back(L);
  }
  // Pass 2: where a straight line starts. A branch target reached by falling through keeps its
  // history (that path is real); only an instruction no fall-through reaches starts afresh.
  bool FellThrough = true, InDead = false;
  uint64_t Next = Base;
  for (LineInst &L : Is) {
    if (L.Pc != Next) // words that did not decode before it
      FellThrough = false;
    L.Start = !FellThrough;
    InDead = Targets.count(L.Pc) ? false : (InDead || !FellThrough);
    L.Dead = InDead; // padding after a jump (kernarg preload prologue, alignment)
    std::string M =
        L.In.Encoding == Enc::SOPP || L.In.Encoding == Enc::SOP1 ? mnemonic(L.In, Target) : "";
    FellThrough =
        !(M == "s_branch" || M == "s_setpc_b64" || M == "s_trap" || M.rfind("s_endpgm", 0) == 0);
    Next = L.Pc + L.In.Size;
  }
  return Is;
}

std::vector<StaticHazard> scanHazards(const std::vector<LineInst> &Is, Gfx Target, size_t From,
                                      size_t To, size_t Skip, bool FirstOnly,
                                      const std::string &Function, uint64_t Base) {
  std::vector<StaticHazard> Out;
  HazardTracker T(Target);
  for (size_t I = From; I < To && I < Is.size(); ++I) {
    if (I == Skip)
      continue;
    const LineInst &L = Is[I];
    if (L.Start)
      T.reset();
    RegUses U = regUses(L.In, Target);
    std::string Why, Producer;
    const char *Rule = nullptr;
    if (!T.check(L.In, U, L.Pc, Why, &Rule, &Producer)) {
      Out.push_back(StaticHazard{Function, L.Pc - Base, Rule ? Rule : "",
                                 opNameLower(L.In.Operation), Producer, Why});
      if (FirstOnly)
        return Out;
    }
    T.issued(L.In, U, L.Pc);
  }
  return Out;
}

llvm::Expected<std::vector<StaticHazard>> staticHazards(const CodeObject &C) {
  Gfx G;
  if (!parseGfx(C.Target.Processor.c_str(), G))
    return makeError(C.Path + ": " + C.Target.Processor +
                     " is not a processor the emulator knows, so its wait-state rules are not "
                     "known");
  std::vector<StaticHazard> Out;
  for (const FunctionExtent &F : C.Functions) {
    llvm::StringRef Code = C.code(F);
    if (Code.empty())
      continue;
    std::vector<LineInst> Is =
        straightLines(reinterpret_cast<const uint8_t *>(Code.data()), Code.size(), F.Begin, G);
    std::vector<StaticHazard> H =
        scanHazards(Is, G, 0, Is.size(), SIZE_MAX, false, F.Name, F.Begin);
    Out.insert(Out.end(), H.begin(), H.end());
  }
  return Out;
}

} // namespace asmevo::emu
