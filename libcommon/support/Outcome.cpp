#include "support/Outcome.h"

#include "support/Error.h"
#include "support/Interrupt.h"

namespace asmevo {

namespace {
struct OutcomeInfo {
  Outcome O;
  const char *Name;
  int Exit;
};
constexpr OutcomeInfo kOutcomes[] = {
    {Outcome::Ok, "ok", 0},
    {Outcome::RoundTripDiffers, "roundtrip_differs", 1},
    {Outcome::AsmInvalid, "asm_invalid", 1},
    {Outcome::AbiInvalid, "abi_invalid", 1},
    {Outcome::Divergent, "divergent", 1},
    {Outcome::Unsafe, "unsafe", 1},
    {Outcome::Refused, "refused", 1},
    {Outcome::NotCovered, "not_covered", 1},
    {Outcome::InputError, "input_error", 2},
    {Outcome::RuntimeError, "runtime_error", 3},
    {Outcome::Interrupted, "interrupted", 130},
};
const OutcomeInfo &info(Outcome O) { return kOutcomes[unsigned(O)]; }
} // namespace

const char *outcomeName(Outcome O) { return info(O).Name; }
int exitCode(Outcome O) { return O == Outcome::Interrupted ? interruptExitCode() : info(O).Exit; }
bool isCheckFailure(Outcome O) { return info(O).Exit == 1; }

std::optional<Outcome> parseOutcome(const std::string &N) {
  for (const OutcomeInfo &I : kOutcomes)
    if (N == I.Name)
      return I.O;
  return std::nullopt;
}

ErrorOutcome errorOutcome(llvm::Error E) {
  ErrorOutcome R;
  llvm::handleAllErrors(
      std::move(E),
      [&](const ToolError &T) {
        R.Message = formatError(T);
        R.O = T.Kind == ErrorKind::Runtime       ? Outcome::RuntimeError
              : T.Kind == ErrorKind::Interrupted ? Outcome::Interrupted
                                                 : Outcome::InputError;
      },
      [&](const llvm::ErrorInfoBase &B) { R.Message = B.message(); });
  return R;
}

} // namespace asmevo
