// What several unit tests share: an error as the tools print it with its exit code, and an
// environment variable set for one scope.
#pragma once

#include "support/Error.h"

#include "llvm/Support/Error.h"

#include <cstdlib>
#include <string>

namespace asmevo::test {

// An error's message (as the tools print it after "tool: error: ") and exit code (2 or 3).
struct Failure {
  std::string Message;
  int Exit = 0;
};
Failure failure(llvm::Error E) {
  Failure F;
  llvm::handleAllErrors(
      std::move(E),
      [&](const ToolError &T) {
        F.Message = formatError(T);
        F.Exit = T.Kind == ErrorKind::Runtime ? 3 : 2;
      },
      [&](const llvm::ErrorInfoBase &B) {
        F.Message = B.message();
        F.Exit = -1;
      });
  return F;
}
template <typename T> Failure failure(llvm::Expected<T> &V) {
  if (V)
    return {"(succeeded)", 0};
  return failure(V.takeError());
}

// Sets an environment variable for a scope, restoring it after.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    Had = std::getenv(Name) != nullptr;
    if (Value)
      setenv(Name, Value, 1);
    else
      unsetenv(Name);
  }
  ~ScopedEnv() {
    if (Had)
      setenv(Name, Saved.c_str(), 1);
    else
      unsetenv(Name);
  }

private:
  const char *Name;
  std::string Saved;
  bool Had = false;
};

} // namespace asmevo::test
