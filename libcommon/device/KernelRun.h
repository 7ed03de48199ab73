// What `kernel-run` does, as a library: run one kernel of a code object on a device backend
// (the emulator today) with kernarg values and input buffers given as text specs, and write the
// buffers' final contents to files. Also the argument-spec parser that other launchers share.
#pragma once

#include "codeobj/KernelArgs.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::device {

// One kernel argument's value, parsed from "[NAME=]VALUE":
//   pointers:  @FILE (a buffer holding the file), zeros:BYTES, null, or an address 0x...
//              with "addr:" prefix (an existing allocation, for replays)
//   by value:  [TYPE:]NUMBER, TYPE one of i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64
//              (untyped: an integer of the argument's size, or a float if it has '.', 'e',
//              "inf" or "nan"), or hex:BYTES for raw little-endian bytes.
struct ArgSpec {
  std::string Name; // metadata name, "#N" (N-th explicit argument) or "" (next in order)
  std::string Value;
};
llvm::Expected<ArgSpec> parseArgSpec(const std::string &Text);

struct RunRequest {
  std::string CodeObject;                // path or URI
  std::string Kernel;                    // symbol (may be empty when the object has one kernel)
  std::array<uint32_t, 3> Grid{0, 0, 0}; // workgroups (0 = unset)
  std::array<uint32_t, 3> GridItems{0, 0, 0}; // work-items (0 = unset)
  std::array<uint32_t, 3> Block{0, 0, 0};
  std::vector<ArgSpec> Args;
  std::vector<std::pair<std::string, std::string>> Outputs; // argument -> file
  uint32_t DynamicLds = 0;
  unsigned Threads = 0;
  uint64_t Seed = 1;
  uint64_t MaxInstructions = 0; // the whole dispatch, in wave-instructions (0: no limit)
  double TimeoutSeconds = 0;    // host seconds of emulation (0: no limit)
  bool Strict = false;          // the strict checks; findings make the run fail (exit 1)
  bool VarySchedule = false;    // seeded, varied wave interleaving
  std::string SyncProfile;      // write what each s_waitcnt saw here (implies Strict)
  std::string Backend = "emu";
  bool Json = false, Quiet = false;
};

// Parse "X[,Y[,Z]]" into three positive numbers.
llvm::Expected<std::array<uint32_t, 3>> parseDims(const std::string &Text, const char *What);

// `kernel-run --coverage`: which instructions the inputs use and which the emulator implements,
// per instance. Exit 0 when every instance is implemented, 1 when some are not (or an object was
// skipped as a target the emulator does not run, or words do not decode), 2 on bad input.
int runCoverageReport(const std::vector<std::string> &Inputs, bool Json, bool Quiet);

// Returns the exit code (0 ran, 2 bad input, 3 runtime error: unsupported instruction, memory
// fault, trap, timeout).
int runKernelRun(const RunRequest &Req);

} // namespace asmevo::device
