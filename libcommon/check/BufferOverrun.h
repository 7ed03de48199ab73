// K0 faulting beside a buffer of the launch spec: the spec gives that buffer too few elements.
// That is a launch K0 cannot take (input_error, exit 2: "K0 reads past '#0' (10 f32
// elements): ..."), not a failure of K0 or of the emulator. Used by the differential check and
// by launch inference, which place buffers differently but know where each one's data lies.
#pragma once

#include "launch/LaunchSpec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
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

} // namespace asmevo::check
