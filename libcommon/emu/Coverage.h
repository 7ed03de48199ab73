// Which operations a set of code objects uses, and which of them the emulator implements,
// counted per instruction instance: every instruction of every function is decoded and probed
// against its executor on a scratch wave with no active lanes (an executor that does not know
// the op or the variant says so; anything else, even a fault on the dummy state, means
// implemented). Probes are cached by encoding, so each distinct instruction word is probed once.
// Variants with other semantics under one mnemonic are kept apart: "buffer_load_dword lds",
// "ds_add_u32 gds" (SDWA and DPP forms have their own mnemonics).
#pragma once

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

// Scan code objects (files or URIs; containers are expanded). Objects for targets the emulator
// does not run are skipped and listed in Skipped. An object that has kernels but no decodable
// instruction is an error (input kind), as is an unreadable one.
llvm::Expected<CoverageReport> scanCoverage(const std::vector<std::string> &Inputs);

} // namespace asmevo::emu
