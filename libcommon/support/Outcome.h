// The one outcome vocabulary of every tool: what a run concluded, its name in reports and its
// exit code. Documented once, here and in README.md ("Outcomes and exit codes").
//
//   outcome             exit  meaning
//   ok                    0   the tool did what was asked and every check passed
//   roundtrip_differs     1   hsaco-recover --check: a kernel does not rebuild to its bytes
//   asm_invalid           1   the assembly does not assemble or encode as written
//   abi_invalid           1   a candidate breaks K0's ABI or the target's limits
//   divergent             1   a candidate computes something else than K0
//   unsafe                1   a candidate is correct only by luck of hardware timing
//   refused               1   hsaco-patch: the patch could change what the rest relies on
//   not_covered           1   kernel-run --coverage: an instruction the emulator does not run
//   input_error           2   usage, input or I/O error (the input names what is wrong)
//   runtime_error         3   the device or emulator failed (fault, trap, unsupported
//                             instruction, a run past its limits)
//   interrupted         130   stopped by SIGINT (Ctrl-C) or SIGTERM (143) before it finished;
//                             the report says what was done
#pragma once

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace asmevo {

enum class Outcome {
  Ok,
  RoundTripDiffers,
  AsmInvalid,
  AbiInvalid,
  Divergent,
  Unsafe,
  Refused,
  NotCovered,
  InputError,
  RuntimeError,
  Interrupted,
};

// "ok", "divergent", ... as in the table above.
const char *outcomeName(Outcome O);
// 0, 1, 2, 3 or 128 + the signal as in the table above.
int exitCode(Outcome O);
// The outcome named N, if N is one.
std::optional<Outcome> parseOutcome(const std::string &N);
// True for the outcomes where a check said no (exit 1).
bool isCheckFailure(Outcome O);

// What an error is: input_error or runtime_error (by the ToolError's kind), with its message
// formatted as "'<file>'[@0xOFFSET|:line]: <reason>". Consumes E.
struct ErrorOutcome {
  Outcome O = Outcome::InputError;
  std::string Message;
};
ErrorOutcome errorOutcome(llvm::Error E);

} // namespace asmevo
