// Wait-state hazards (Hazards.h) found without running a kernel: each function of a code object
// is decoded in address order and fed through HazardTracker along its straight lines. The
// fall-through path is a real path, so the history carries across branch targets; the tracker is
// reset only after an instruction that does not fall through (s_branch, s_setpc, s_trap,
// s_endpgm) and after words that do not decode, where the next instruction is reached by jumps
// only, whose history the scan does not follow. So a finding is a hazard on a path of the code
// (whether a launch takes it or not), and a hazard whose producer sits on the far side of a taken
// branch is not found here (the strict checks of a run find it where the run goes there).
//
// The strict differential check (check/DiffCheck.h) refuses a candidate whose code has a hazard
// of a kind its K0 does not have: on paths its launches never take too, and on the hip backend,
// where no strict check runs. hazard_test holds the scan to LLVM's compiled corpora (no finding).
#pragma once

#include "codeobj/CodeObject.h"
#include "emu/Gfx.h"
#include "emu/Inst.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::emu {

// One decoded instruction of a function, in address order.
struct LineInst {
  Inst In;
  uint64_t Pc = 0;    // its address in the code object
  bool Start = false; // no fall-through reaches it: the scan starts a fresh history here
  bool Dead = false;  // nor does a direct branch target it or anything after it (padding)
};

// Function Code (Size bytes at address Base) decoded for Target, as straight lines. Words that
// do not decode are skipped (the next instruction starts a fresh line).
std::vector<LineInst> straightLines(const uint8_t *Code, size_t Size, uint64_t Base, Gfx Target);

struct StaticHazard {
  std::string Function;
  uint64_t Offset = 0; // the consumer's, from the function's start
  std::string Rule;    // hazardRules()'s name
  // The consumer's and the producer's mnemonics, as a run's strict finding names them.
  std::string Consumer, Producer;
  std::string Why; // HazardTracker::check's sentence (pcs are code-object addresses)
  // The kind, as the differential check compares findings: "<rule> <consumer> <producer>".
  std::string kind() const { return Rule + " " + Consumer + " " + Producer; }
};

// The hazards along Is[From, To), leaving instruction Skip out (none: SIZE_MAX); with FirstOnly,
// the first one only. Function names the findings.
std::vector<StaticHazard> scanHazards(const std::vector<LineInst> &Is, Gfx Target, size_t From,
                                      size_t To, size_t Skip, bool FirstOnly,
                                      const std::string &Function, uint64_t Base);

// Every hazard of every function of C. An error for a processor the emulator does not know.
llvm::Expected<std::vector<StaticHazard>> staticHazards(const CodeObject &C);

} // namespace asmevo::emu
