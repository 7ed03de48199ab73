// Names of the emulator's operations, from the generated list.
#include "emu/Inst.h"

#include <cctype>
#include <string>
#include <vector>

namespace asmevo::emu {

static const char *const kOpNames[] = {
#define ASMEVO_OP(name) #name,
#include "emu/IsaOps.inc"
#undef ASMEVO_OP
};

const char *opName(Op Opc) {
  auto i = static_cast<unsigned>(Opc);
  return i < static_cast<unsigned>(Op::Count) ? kOpNames[i] : "<invalid>";
}

const char *opNameLower(Op Opc) {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> V(size_t(Op::Count) + 1);
    for (unsigned I = 0; I <= unsigned(Op::Count); ++I) {
      std::string S = opName(Op(I));
      for (char &Ch : S)
        Ch = char(std::tolower(static_cast<unsigned char>(Ch)));
      V[I] = std::move(S);
    }
    return V;
  }();
  unsigned I = unsigned(Opc);
  return I <= unsigned(Op::Count) ? Names[I].c_str() : "<invalid>";
}

} // namespace asmevo::emu
