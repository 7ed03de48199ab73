// Errors as values: every library function returns llvm::Expected / llvm::Error; only a tool's
// main prints, once, as "<tool>: error: '<file>'[@0xOFFSET|:line]: <reason>".
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace asmevo {

// What kind of failure this is decides the exit code (see STYLE.md): input/usage/I/O errors exit
// 2, device/runtime errors exit 3.
enum class ErrorKind { Input, Runtime, Interrupted };

class ToolError : public llvm::ErrorInfo<ToolError> {
public:
  static char ID;
  ToolError(std::string Message, std::string File = "", std::optional<uint64_t> Offset = {},
            std::optional<unsigned> Line = {}, ErrorKind Kind = ErrorKind::Input)
      : Message(std::move(Message)), File(std::move(File)), Offset(Offset), Line(Line), Kind(Kind) {
  }

  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  std::string Message;
  std::string File;
  std::optional<uint64_t> Offset;
  std::optional<unsigned> Line;
  ErrorKind Kind;
};

// A run stopped at a limit its caller set (an instruction budget or a timeout): a runtime error
// (exit 3) that says how far the run got, so that a caller can word its own verdict
// ("K1 ran 64x K0's instructions").
class LimitError : public llvm::ErrorInfo<LimitError, ToolError> {
public:
  static char ID;
  enum What { Instructions, Seconds };
  LimitError(What W, double Limit, double Reached, std::string Message)
      : llvm::ErrorInfo<LimitError, ToolError>(std::move(Message), "", std::nullopt, std::nullopt,
                                               ErrorKind::Runtime),
        Which(W), Limit(Limit), Reached(Reached) {}
  What Which;
  double Limit, Reached;
};

// A memory access outside every allocation (the emulator's "memory fault: ..."): a runtime
// error (exit 3) that keeps the address and the instruction, so that a caller that knows the
// allocations can say whose end it ran past ("K0 reads past '#0'").
class MemoryFaultError : public llvm::ErrorInfo<MemoryFaultError, ToolError> {
public:
  static char ID;
  MemoryFaultError(std::string Message, uint64_t Address, std::string Instruction)
      : llvm::ErrorInfo<MemoryFaultError, ToolError>(std::move(Message), "", std::nullopt,
                                                     std::nullopt, ErrorKind::Runtime),
        Address(Address), Instruction(std::move(Instruction)) {}
  uint64_t Address;
  std::string Instruction; // the mnemonic ("global_load_dword")
};

// An address or offset as messages write it: "0x7f0000001000".
std::string hexText(uint64_t V);

// A number of seconds as a person writes it in an option ("0.5", "30", "1e-05").
std::string secondsText(double Seconds);

// An error about the input as a whole.
llvm::Error makeError(const llvm::Twine &Message);
// An error at a byte offset of a file.
llvm::Error fileError(llvm::StringRef File, uint64_t Offset, const llvm::Twine &Message);
// An error at a line of a text file.
llvm::Error lineError(llvm::StringRef File, unsigned Line, const llvm::Twine &Message);
// A device/runtime error (exit 3).
llvm::Error runtimeError(const llvm::Twine &Message);
// A run stopped because the user asked (support/Interrupt.h; outcome interrupted).
llvm::Error interruptedError(const llvm::Twine &Message);

// Attach a file name to an error that has none (any llvm error is converted to a ToolError).
llvm::Error withFile(llvm::Error E, llvm::StringRef File);

// Format "'<file>'[@0xOFFSET|:line]: <reason>" (without the "tool: error: " prefix).
std::string formatError(const ToolError &E);

} // namespace asmevo
