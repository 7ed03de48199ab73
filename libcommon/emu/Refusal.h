// What the executors refuse to run of an instruction, decided from the decoded instruction
// alone: reserved DPP controls and the controls a 64-bit DPP operand does not take, DPP and
// SDWA forms of ops whose executor does not read src0 per lane, reserved SDWA selects, invalid
// F8F6F4 format codes. One predicate for the emulator, which marks every instruction it decodes
// (Inst::refused) and stops a wave at a marked one, and for kernel-run --coverage, which counts
// a marked instance as not implemented: the two cannot disagree.
//
// What depends on the data (an fp4 result past +-6, a transposing LDS read with some lanes
// off, a VGPR-indexing mode) is the executor's to refuse when it happens; the coverage probe
// runs the executor on a scratch wave and counts those it refuses there.
#pragma once

#include "emu/EmuError.h"
#include "emu/Gfx.h"
#include "emu/Inst.h"

#include <optional>
#include <string>

namespace asmevo::emu {

struct Refusal {
  EmuErrorKind Kind; // IllegalInst: an encoding the ISA reserves; Unsupported: one it defines
                     // that the emulator does not run
  std::string Why;   // "reserved DPP control 0x144", "the DPP form of v_swap_b32 ..."
};

std::optional<Refusal> formRefusal(const Inst &In, Gfx G);

// Set In.refused from formRefusal (the emulator does so for every instruction it decodes).
void markRefusal(Inst &In, Gfx G);

} // namespace asmevo::emu
