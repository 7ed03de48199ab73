// Hot windows on hardware: a rocprofv3 thread trace (`rocprofv3 --att -d DIR -- app`) imported
// as a per-instruction profile of K0. rocprofv3 writes, per traced kernel, a stats CSV
// (stats_*.csv) with the columns Codeobj (the load id), Vaddr (the instruction's ELF virtual
// address), Instruction (its text), Hitcount (executions over the traced waves), Latency (total
// cycles: stall + issue on gfx9), Stall (cycles the pipe could not issue), Idle (cycles since the
// previous instruction completed: arbitration loss, dependencies, instruction cache) and Source;
// they are found by header name, in any order, and other columns are ignored. Only one CU per
// shader engine is traced, so the counts are a sample of the dispatch, as the model's are.
#pragma once

#include "codeobj/CodeObject.h"
#include "timing/Model.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace asmevo::timing {

struct AttProfile {
  std::string File;               // the stats CSV read
  std::string Sha256;             // of its bytes (for the report's inputs)
  std::string Codeobj;            // the load id whose rows are K0's kernel
  std::vector<InstProfile> Insts; // by offset from the kernel's entry; Cycles: Issue =
                                  // Latency - Stall, UnitBusy = Stall, Arbitration = Idle
  uint64_t Rows = 0;              // rows of the kernel read
};

// Read the stats CSV(s) under Dir and keep the rows of Kernel of K: those of the load id whose
// addresses fall in the kernel's code and whose instruction text starts with the mnemonic K has
// at that address (every row of the chosen id must). Every row's fields are checked: Vaddr is
// 0x and at most 16 hexadecimal digits or a decimal below 2^64; Hitcount a whole number,
// Latency, Stall and Idle numbers, each from 0 to 2^53 (no sign, NaN or infinity). A UTF-8 byte
// order mark at the start of a file is skipped. Input errors name the file and line, and the
// column and value: no stats_*.csv, a missing column, a malformed or out-of-range field, no rows
// of the kernel.
llvm::Expected<AttProfile> importAttStats(const std::string &Dir, const CodeObject &K,
                                          const std::string &Kernel);

} // namespace asmevo::timing
