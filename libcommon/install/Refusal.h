// A negative verdict of the installer: it will not overwrite (or restore over) a file it cannot
// vouch for. Outcome "refused", exit 1: "<tool>: refused: '<file>': <reason>"; nothing changed.
#pragma once

#include "llvm/Support/Error.h"

#include <string>

namespace asmevo::install {

class InstallRefusal : public llvm::ErrorInfo<InstallRefusal> {
public:
  static char ID;
  InstallRefusal(std::string Message, std::string File)
      : Message(std::move(Message)), File(std::move(File)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  std::string Message;
  std::string File;
};

} // namespace asmevo::install
