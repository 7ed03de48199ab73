// Why an emulated dispatch stopped early. Executors throw EmuError; the run boundary
// (Emulator::run) turns it into an llvm::Error whose message names the pc and, for memory
// faults, the lane and address. Exceptions never cross into tool code.
#pragma once

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
};

class EmuError : public std::runtime_error {
public:
  EmuError(EmuErrorKind Kind, const std::string &Message)
      : std::runtime_error(Message), Kind(Kind) {}
  EmuErrorKind Kind;
};

// "0x7f0000011a20": how addresses and pcs appear in every emulator message.
std::string hexAddr(uint64_t V);

// "unsupported instruction v_foo at pc 0x1234" (mnemonic in lower case, as the assembler writes it).
[[noreturn]] void throwUnsupported(const char *Mnemonic, uint64_t Pc);
[[noreturn]] void throwUnsupported(const std::string &Mnemonic, uint64_t Pc);
// "memory fault: <what> of <n> bytes at 0x... (lane L) at pc 0x...: <why>"
[[noreturn]] void throwMemoryFault(const char *What, uint64_t Addr, unsigned Size, int Lane,
                                   uint64_t Pc, const std::string &Why);

} // namespace asmevo::emu
