// kernel-diffcheck --capture: the tier-2 check. K0 and a candidate K1 run from the exact state a
// dispatch-capture bundle recorded (launch/CaptureBundle.h): every region mapped at its original
// address with its pre-state, the code object's global variables set, the recorded kernargs and
// geometry. K0's replay must reproduce the recorded post-state byte for byte (else the bundle is
// no oracle for it); K1's post-state must then equal K0's, byte for byte, in every region and
// global. Bytes, unless the user types the memory some pointer arguments reach (Types,
// check/CaptureCompare.h): those spans are compared by Eq. 1 with Theta and Tau, both K0's replay
// against the recording and K1's against K0's.
#pragma once

#include "check/DiffResult.h"
#include "support/Report.h"

#include <cstdint>
#include <functional>
#include <string>

namespace asmevo::check {

struct ReplayOptions {
  std::string K0, K1, Bundle;
  std::string Backend = "emu";
  std::string Types; // "ARG=TYPE[,...]" (captureTypedSpans); empty: every byte exact
  double Theta = 0.9999, Tau = 1e-3;
  unsigned Threads = 0;
  bool Strict = true;
  unsigned InstructionFactor = 64;
  uint64_t MaxInstructions = 0;
  double TimeoutSeconds = 0;
  std::function<void(const std::string &)> Progress;
};

// Outcome ok, abi_invalid (K1's ABI is not K0's), divergent (a byte of K1's post-state differs,
// named by region and offset), unsafe (a strict-check finding in K1 that K0 does not have),
// input_error (an unreadable bundle, a K0 that is not the bundle's code object, a K0 replay
// that does not reproduce the recording) or runtime_error (K1 faults, with the address, or
// runs away). The body's "failed" is "K0" when K0's replay failed (never the candidate's).
Report runCaptureReplay(const ReplayOptions &O);
// The same, with its verdict as fields (DiffResult.h).
DiffResult replayCheck(const ReplayOptions &O);

} // namespace asmevo::check
