// Which operations a set of code objects uses, and which of them the emulator implements,
// counted per instruction instance: every instruction of every function is decoded, checked
// against the same form predicate the emulator applies (Refusal.h), and probed against its
// executor on a scratch wave with no active lanes (an executor that does not know the op or the
// variant, or calls the encoding illegal, says so; anything else, even a fault on the dummy
// state, means implemented). Probes are cached by encoding, so each distinct instruction word is
// probed once. Variants with other semantics under one mnemonic are kept apart: "buffer_load_dword
// lds", "ds_add_u32 gds" (SDWA and DPP forms have their own mnemonics).
#pragma once

#include "emu/Gfx.h"
#include "emu/Inst.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace asmevo::emu {

struct OpCoverage {
  uint64_t Count = 0;       // instances
  uint64_t Implemented = 0; // instances the emulator runs
  uint64_t Objects = 0;     // code objects that use it
  std::string FirstSeen;    // "<object>: <function>+0xOFF"
  std::string FirstMissing; // the first instance not implemented, with its text
  bool implemented() const { return Implemented == Count; }
};

struct CoverageReport {
  uint64_t Objects = 0, Functions = 0, Instructions = 0, Undecodable = 0;
  uint64_t ObjectsFullyCovered = 0;      // every instance of every function implemented
  std::map<std::string, OpCoverage> Ops; // by mnemonic as LLVM writes it, plus " lds"/" gds"
  std::vector<std::string> Skipped;      // "<object> (<processor>)": not a target the emulator runs
  uint64_t implementedOps() const;
  uint64_t implementedInstructions() const;
};

// One distinct instruction encoding the probe called implemented.
struct ProbedInst {
  Inst In;
  Gfx Target;
  bool AfterScalePrefix; // it follows a v_mfma_ld_scale_b32
  std::string Where;     // "<object>: <function>" of its first instance
};

// Scan code objects (files or URIs; containers are expanded). Objects for targets the emulator
// does not run are skipped and listed in Skipped. An object that has kernels but no decodable
// instruction is an error (input kind), as is an unreadable one. With Accepted, every distinct
// encoding the probe called implemented is appended there (the agreement test runs them).
llvm::Expected<CoverageReport> scanCoverage(const std::vector<std::string> &Inputs,
                                            std::vector<ProbedInst> *Accepted = nullptr);

} // namespace asmevo::emu
