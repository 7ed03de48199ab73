// K0 faulting beside a buffer of the launch spec: the spec gives that buffer too few elements.
// That is a launch K0 cannot take (input_error, exit 2: "K0 reads past '#0' (10 f32
// elements): ..."), not a failure of K0 or of the emulator. Used by the differential check and
// by launch inference, which place buffers differently but know where each one's data lies.
#pragma once

#include "launch/LaunchSpec.h"
#include "support/Error.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace asmevo::check {

// Where one buffer's data lay in device memory during a run.
struct BufferExtent {
  const launch::ArgSpec *Arg = nullptr;
  uint64_t Begin = 0, End = 0; // the data, [Begin, End)
};

// "10 f32 elements".
std::string elementsText(const launch::ArgSpec &A);

// If E is a memory fault (support/Error.h MemoryFaultError) within 1 GiB past the end (or before
// the start) of one of Buffers, the input error naming the nearest such buffer; otherwise E.
llvm::Error blameBufferOverrun(llvm::Error E, const std::vector<BufferExtent> &Buffers);

// K0 loading the address it faults at from a buffer's contents (a pointer table): the 8-byte
// word of Data (the buffer's initial contents) nearest below Address, at most 1 MiB below it
// (a pointer plus an offset) and at least MinWord: (distance, byte offset).
std::optional<std::pair<uint64_t, uint64_t>> wordBelow(const std::vector<uint8_t> &Data,
                                                       uint64_t Address, uint64_t MinWord);

// The input error (naming SpecPath, after Lead: "launch inference: ") for K0 faulting (Fault)
// at an address it loaded from A's contents: the word found by wordBelow, Whence saying where
// the word came from ("that inference wrote at byte 0 of it"). It says that no launch spec
// describes such a kernel, and to capture a real dispatch (dispatch-capture) and check it with
// --capture.
llvm::Error pointerTableError(const std::string &Lead, const launch::ArgSpec &A,
                              const MemoryFaultError &Fault, const std::vector<uint8_t> &Data,
                              std::pair<uint64_t, uint64_t> Word, const std::string &Whence,
                              const std::string &SpecPath);

} // namespace asmevo::check
