#include "emu/EmuError.h"

#include <cctype>
#include <cstdio>

namespace asmevo::emu {

std::string hexAddr(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof(b), "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

void throwUnsupported(const std::string &Mnemonic, uint64_t Pc) {
  std::string m = Mnemonic;
  for (char &ch : m)
    ch = char(std::tolower(static_cast<unsigned char>(ch)));
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + m + " at pc " + hexAddr(Pc));
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
                     ") at pc " + hexAddr(Pc),
                 Pc);
}

void throwMemoryFault(const char *What, uint64_t Addr, unsigned Size, int Lane, uint64_t Pc,
                      const std::string &Why) {
  std::string m = std::string("memory fault: ") + What + " of " + std::to_string(Size) +
                  " bytes at " + hexAddr(Addr);
  if (Lane >= 0)
    m += " (lane " + std::to_string(Lane) + ")";
  m += " at pc " + hexAddr(Pc) + ": " + Why;
  EmuError E(EmuErrorKind::MemoryFault, m, Pc);
  E.FaultAddr = Addr;
  E.FaultInstruction = What;
  throw E;
}

} // namespace asmevo::emu
