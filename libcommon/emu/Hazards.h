// The wait-state hazard rules of gfx90a (CDNA2), gfx940/941/942 (CDNA3) and gfx950 (CDNA4): the
// "manually inserted wait states (NOPs)" that software must put between a producer and a
// consumer because the hardware does not interlock on them, and the MAI (MFMA) dependency
// tables. One table (hazardRules) names every rule; HazardTracker checks a wave's dynamic
// instruction stream against it.
//
// Counting: every issued instruction is one wait state, `s_nop N` is N+1. A rule requiring W
// wait states is met when the instructions issued strictly between the producer and the
// consumer count at least W. Registers are those of RegUse.h (operand-code space).
//
// Sources: the CDNA2/CDNA3/CDNA4 ISA guides ("Manually Inserted Wait States (NOPs)", the MAI
// dependency tables) and, for the exact per-target numbers and pass counts, what LLVM's AMDGPU
// back end inserts (GCNHazardRecognizer, the SISchedule pass counts). Where the two differ we
// never require more than LLVM emits for its own code.
#pragma once

#include "emu/Gfx.h"
#include "emu/Inst.h"
#include "emu/RegUse.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::emu {

// Targets a rule applies to (bit set).
enum : uint8_t {
  kHzGfx90a = 1,
  kHzGfx94x = 2, // gfx940, gfx941, gfx942
  kHzGfx950 = 4,
  kHzAll = kHzGfx90a | kHzGfx94x | kHzGfx950,
  kHzGfx94Plus = kHzGfx94x | kHzGfx950,
};

// One wait-state rule.
struct HazardRule {
  const char *Name;   // stable, kebab-case ("valu-sgpr-then-vmem")
  const char *Text;   // the ISA sentence it implements
  uint8_t Targets;    // kHz* bits
  const char *Waits;  // required wait states: a number, or how it depends on the MFMA
  const char *Source; // where the number comes from
};

// Every rule of the table (for docs and tests), in a fixed order.
const std::vector<HazardRule> &hazardRules();

class HazardTracker {
public:
  explicit HazardTracker(Gfx Target);
  void reset(); // a wave starts

  // Check In (about to issue at Pc, uses U) against the wave's recent history. Returns false
  // and sets Why when a rule is violated: "wait-state hazard <rule-name>: <producer mnemonic> at
  // pc 0x... writes v3; <consumer mnemonic> at pc 0x... reads it after 1 wait state, needs 2".
  // Rule, when given, receives the violated rule's name (hazardRules()[i].Name); Producer the
  // producer's mnemonic.
  bool check(const Inst &In, const RegUses &U, uint64_t Pc, std::string &Why,
             const char **Rule = nullptr, std::string *Producer = nullptr) const;

  // Record In as issued (s_nop N = N+1 wait states, every other instruction 1).
  void issued(const Inst &In, const RegUses &U, uint64_t Pc);

  // The most wait states any rule of this target can require (how far back check() looks).
  unsigned horizon() const { return Horizon; }

  // One issued instruction, as the rules see it.
  struct Entry {
    Inst In;
    uint64_t Pc = 0;
    RegRange Writes[RegUses::kMaxWrites];
    RegRange SrcC;       // MFMA: the C matrix it reads
    RegRange StoreData;  // a VMEM store of more than 64 bits: its data registers
    uint32_t Kind = 0;   // EntryKind bits (Hazards.cpp)
    uint32_t HwMask = 0; // s_setreg: the bits of the hardware register it writes
    IssueClass Cls = IssueClass::Sopp;
    uint8_t NumWrites = 0, Waits = 1, Passes = 0, HwReg = 0;
  };
  static constexpr unsigned kRing = 24;

private:
  Gfx Target;
  uint8_t TargetBit;
  unsigned Horizon;
  unsigned Head = 0;  // the slot the next issued instruction goes to
  unsigned Count = 0; // valid entries
  Entry Ring[kRing];
  const Entry &at(unsigned Back) const { return Ring[(Head + kRing - 1 - Back) % kRing]; }
};

} // namespace asmevo::emu
