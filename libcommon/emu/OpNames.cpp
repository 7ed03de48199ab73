// Names of the emulator's operations, from the generated list.
#include "emu/Inst.h"

namespace asmevo::emu {

static const char *const kOpNames[] = {
#define ASMEVO_OP(name) #name,
#include "emu/IsaOps.inc"
#undef ASMEVO_OP
};

const char *opName(Op op) {
  auto i = static_cast<unsigned>(op);
  return i < static_cast<unsigned>(Op::Count) ? kOpNames[i] : "<invalid>";
}

} // namespace asmevo::emu
