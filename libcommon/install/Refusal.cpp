// The installer's refusal as an llvm error.
#include "install/Refusal.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo::install {

char InstallRefusal::ID = 0;

void InstallRefusal::log(llvm::raw_ostream &OS) const { OS << "'" << File << "': " << Message; }

std::error_code InstallRefusal::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

} // namespace asmevo::install
