// Names of the emulator's operations, from the generated list: upper case as the ISA writes
// them, and lower case made at compile time (the executors name an instruction in their error
// messages, and some take the name before they know whether they will need it).
#include "emu/Inst.h"

#include <cstddef>
#include <cstdint>

namespace asmevo::emu {

namespace {

constexpr const char *kOpNames[] = {
#define ASMEVO_OP(name) #name,
#include "emu/IsaOps.inc"
#undef ASMEVO_OP
};
constexpr size_t kNumNames = sizeof(kOpNames) / sizeof(kOpNames[0]);
static_assert(kNumNames == size_t(Op::Count), "one name per operation");

// Every name with its terminating NUL, end to end.
constexpr size_t kNameChars = 0
#define ASMEVO_OP(name) +sizeof(#name)
#include "emu/IsaOps.inc"
#undef ASMEVO_OP
    ;

struct LowerNames {
  char Text[kNameChars];
  uint32_t Start[kNumNames]; // where operation I's name begins in Text
};

constexpr LowerNames makeLowerNames() {
  LowerNames L{};
  size_t At = 0;
  for (size_t I = 0; I < kNumNames; ++I) {
    L.Start[I] = uint32_t(At);
    for (const char *P = kOpNames[I]; *P; ++P)
      L.Text[At++] = *P >= 'A' && *P <= 'Z' ? char(*P - 'A' + 'a') : *P;
    L.Text[At++] = '\0';
  }
  return L;
}

constexpr LowerNames kLowerNames = makeLowerNames();

} // namespace

const char *opName(Op Opc) {
  auto I = static_cast<size_t>(Opc);
  return I < kNumNames ? kOpNames[I] : "<invalid>";
}

const char *opNameLower(Op Opc) {
  auto I = static_cast<size_t>(Opc);
  return I < kNumNames ? kLowerNames.Text + kLowerNames.Start[I] : "<invalid>";
}

} // namespace asmevo::emu
