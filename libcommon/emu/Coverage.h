// Which operations a set of code objects uses, and which of them the emulator implements:
// every instruction of every function symbol is decoded, and each distinct mnemonic is probed
// against its executor on a scratch wave with no active lanes (an executor that does not
// know the op says so; anything else, even a fault on the dummy state, means implemented).
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace asmevo::emu {

struct OpCoverage {
  uint64_t Count = 0;        // static occurrences
  bool Implemented = false;
  std::string FirstSeen;     // "<object>: <kernel>+0xOFF"
};

struct CoverageReport {
  uint64_t Objects = 0, Functions = 0, Instructions = 0, Undecodable = 0;
  std::map<std::string, OpCoverage> Ops; // by mnemonic as LLVM writes it
  uint64_t implementedOps() const;
  uint64_t implementedInstructions() const;
};

// Scan code objects (files or URIs; containers are expanded). Objects for targets the emulator
// does not run are skipped and counted in Skipped.
llvm::Expected<CoverageReport> scanCoverage(const std::vector<std::string> &Inputs,
                                            std::vector<std::string> *Skipped = nullptr);

} // namespace asmevo::emu
