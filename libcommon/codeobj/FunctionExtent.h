// Where each function's code begins and ends: the one notion of a function's extent every tool
// uses (recovery, the round-trip gate, the resource scan, the ABI check, coverage, patching).
// A symbol's st_size is not always there: hand-written kernels (AITer's) are assembled without
// `.size`, so their FUNC symbols have size 0. Such a function extends to the next function start
// (a FUNC symbol or a kernel descriptor's entry) or the end of its section. Kernels are found from
// their descriptors' entries too, so a kernel whose code symbol is not typed FUNC still has code.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo {

class CodeObject;

struct FunctionExtent {
  std::string Name;     // the first symbol at Begin
  unsigned Symbol = 0;  // its index in CodeObject::Symbols
  unsigned Section = 0; // section index
  uint64_t Begin = 0, End = 0;
  bool IsKernel = false;       // a kernel descriptor's entry is Begin
  bool SizeFromSymbol = false; // End is Begin + st_size; else the next start or the section end
  uint64_t size() const { return End - Begin; }
  bool contains(uint64_t A) const { return A >= Begin && A < End; }
};

// Every function of C in address order (aliases at one address give one extent). Errors, with
// the symbol's file offset: a function that extends past its section or overlaps the one before.
llvm::Expected<std::vector<FunctionExtent>> findFunctionExtents(const CodeObject &C);

} // namespace asmevo
