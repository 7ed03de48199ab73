// The round-trip gate: recover -> reassemble -> relink in-process, then compare the result with
// the original, kernel by kernel (instruction bytes, the 64 descriptor bytes, metadata), plus
// device functions, data sections and exported symbols. Only what linking decides is masked,
// and every mask is reported.
#pragma once

#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace asmevo {

struct GateItem {
  std::string Kind; // "kernel", "function", "data", "symbols", "metadata", "target"
  std::string Name;
  bool Pass = true;
  uint64_t Offset = 0;     // first differing offset (relative to the item)
  uint64_t Address = 0;    // its virtual address in the original
  std::string Instruction; // the instruction there (original), when it is code
  uint64_t Bytes = 0;      // code bytes compared (kernels and functions)
  std::string Reason;
  std::vector<std::string> Masked; // what was masked and checked some other way
};

struct GateReport {
  std::string Source;
  std::string Target;
  std::vector<GateItem> Items;
  std::vector<std::string> Notes; // from recovery
  unsigned Kernels = 0, KernelsPassed = 0;
  unsigned RawInstructions = 0; // written as original words by recovery (RecoverResult)
  double RecoverMs = 0, AssembleMs = 0, CompareMs = 0;
  bool pass() const;
  std::string text() const;
  nlohmann::json json() const;
};

// Compare a rebuilt object with the original.
GateReport compareCodeObjects(const CodeObject &Original, const CodeObject &Rebuilt);

// The whole gate on one code object.
llvm::Expected<GateReport> runRoundTripGate(const CodeObject &Original, llvm::StringRef SourceHash);

} // namespace asmevo
