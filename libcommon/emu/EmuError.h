// Why an emulated dispatch stopped early. Executors throw EmuError; the run boundary
// (Emulator::run) turns it into an llvm::Error whose message names the pc and, for memory
// faults, the lane and address. Exceptions never cross into tool code.
#pragma once

#include "support/Error.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace asmevo::emu {

enum class EmuErrorKind {
  Unsupported,   // "unsupported instruction <mnemonic> at pc 0x..."
  MemoryFault,   // access outside every allocation
  IllegalInst,   // words that decode to no instruction
  InvalidLaunch, // a launch the code object cannot run with
  Timeout,       // instruction budget exhausted
  Deadlock,      // waves wait at a barrier that can never be satisfied
  Trap,          // the kernel executed s_trap
  RegisterFault, // a register beyond what the kernel's descriptor allocates
};

class EmuError : public std::runtime_error {
public:
  EmuError(EmuErrorKind Kind, const std::string &Message, uint64_t Pc = 0)
      : std::runtime_error(Message), Kind(Kind), Pc(Pc) {}
  EmuErrorKind Kind;
  uint64_t Pc; // the instruction's address when the message does not name its function (0: none)
  // MemoryFault: the faulting address and the instruction's mnemonic.
  uint64_t FaultAddr = 0;
  std::string FaultInstruction;
};

// "unsupported instruction v_foo at pc 0x1234" (mnemonic in lower case, as the assembler writes
// it).
[[noreturn]] void throwUnsupported(const char *Mnemonic, uint64_t Pc);
[[noreturn]] void throwUnsupported(const std::string &Mnemonic, uint64_t Pc);
// "register v200 is beyond the kernel's allocation (v0-v127) at pc 0x..."; Kind is 's', 'v' or 'a'.
[[noreturn]] void throwRegisterFault(char Kind, unsigned Index, unsigned Allocated, uint64_t Pc);
// "memory fault: <what> of <n> bytes at 0x... (lane L) at pc 0x...: <why>"
[[noreturn]] void throwMemoryFault(const char *What, uint64_t Addr, unsigned Size, int Lane,
                                   uint64_t Pc, const std::string &Why);

} // namespace asmevo::emu
