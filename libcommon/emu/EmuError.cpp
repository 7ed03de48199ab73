#include "emu/EmuError.h"

#include <cctype>
#include <cstdio>

namespace asmevo::emu {

void throwUnsupported(const std::string &Mnemonic, uint64_t Pc) {
  std::string m = Mnemonic;
  for (char &Ch : m)
    Ch = char(std::tolower(static_cast<unsigned char>(Ch)));
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + m + " at pc " + hexText(Pc));
}

void throwUnsupported(const char *Mnemonic, uint64_t Pc) {
  throwUnsupported(std::string(Mnemonic), Pc);
}

void throwRegisterFault(char Kind, unsigned Index, unsigned Allocated, uint64_t Pc) {
  std::string K(1, Kind);
  std::string Range = Allocated ? K + "0-" + K + std::to_string(Allocated - 1) : "none";
  throw EmuError(EmuErrorKind::RegisterFault,
                 "register " + K + std::to_string(Index) +
                     " is beyond the registers the kernel's descriptor allocates (" + Range +
                     ") at pc " + hexText(Pc),
                 Pc);
}

void throwMemoryFault(const char *What, uint64_t Addr, unsigned Size, int Lane, uint64_t Pc,
                      const std::string &Why) {
  std::string m = std::string("memory fault: ") + What + " of " + std::to_string(Size) +
                  " bytes at " + hexText(Addr);
  if (Lane >= 0)
    m += " (lane " + std::to_string(Lane) + ")";
  m += " at pc " + hexText(Pc) + ": " + Why;
  EmuError E(EmuErrorKind::MemoryFault, m, Pc);
  E.FaultAddr = Addr;
  E.FaultInstruction = What;
  throw E;
}

} // namespace asmevo::emu
