#include "search/Driver.h"

#include "support/Error.h"

#include "llvm/ADT/StringRef.h"

namespace asmevo::search {

llvm::Expected<std::unique_ptr<Driver>> makeDriver(const std::string &Spec,
                                                   const DriverOptions &O) {
  llvm::StringRef S(Spec);
  if (S == "rules")
    return makeRulesDriver();
  if (S == "stochastic")
    return makeStochasticDriver(O.Seed);
  if (S.consume_front("exec:")) {
    if (S.trim().empty())
      return makeError("--driver exec: needs a command (exec:CMD)");
    return makeExecDriver(S.str(), O);
  }
  if (S == "llm")
    return makeLlmDriver(O);
  return makeError("--driver '" + Spec + "': unknown driver (rules, stochastic, exec:CMD, llm)");
}

} // namespace asmevo::search
