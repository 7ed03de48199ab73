// Implementation of the error values shared by all tools.
#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace asmevo {

char ToolError::ID = 0;
char LimitError::ID = 0;
char MemoryFaultError::ID = 0;

std::string hexText(uint64_t V) {
  char B[24];
  std::snprintf(B, sizeof B, "0x%llx", static_cast<unsigned long long>(V));
  return B;
}

std::string secondsText(double Seconds) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", Seconds);
  return Buf;
}

void ToolError::log(llvm::raw_ostream &OS) const { OS << formatError(*this); }

std::error_code ToolError::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str());
}

llvm::Error fileError(llvm::StringRef File, uint64_t Offset, const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), File.str(), Offset);
}

llvm::Error lineError(llvm::StringRef File, unsigned Line, const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), File.str(), std::nullopt, Line);
}

llvm::Error runtimeError(const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), "", std::nullopt, std::nullopt,
                                     ErrorKind::Runtime);
}

llvm::Error interruptedError(const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), "", std::nullopt, std::nullopt,
                                     ErrorKind::Interrupted);
}

llvm::Error withFile(llvm::Error E, llvm::StringRef File) {
  if (!E)
    return E;
  std::string Msg;
  std::optional<uint64_t> Offset;
  std::optional<unsigned> Line;
  std::string Existing;
  ErrorKind Kind = ErrorKind::Input;
  llvm::handleAllErrors(
      std::move(E),
      [&](const ToolError &T) {
        if (!Msg.empty())
          Msg += "; ";
        Msg += T.Message;
        Offset = T.Offset;
        Line = T.Line;
        Existing = T.File;
        Kind = T.Kind;
      },
      [&](const llvm::ErrorInfoBase &B) {
        if (!Msg.empty())
          Msg += "; ";
        Msg += B.message();
      });
  return llvm::make_error<ToolError>(Msg, Existing.empty() ? File.str() : Existing, Offset, Line,
                                     Kind);
}

std::string formatError(const ToolError &E) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (!E.File.empty()) {
    OS << "'" << E.File << "'";
    if (E.Offset)
      OS << "@" << llvm::format("0x%llx", (unsigned long long)*E.Offset);
    else if (E.Line)
      OS << ":" << *E.Line;
    OS << ": ";
  }
  OS << E.Message;
  return S;
}

} // namespace asmevo
