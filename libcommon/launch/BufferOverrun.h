// K0 touching bytes beside a buffer of the launch spec (a memory fault, or an access the device
// recorded in the buffer's guards): the spec gives that buffer too few elements. That is a
// launch K0 cannot take (input_error, exit 2: "K0 reads past '#0' (10 f32 elements): ..."), not
// a failure of K0 or of the emulator. Used by the differential check, by launch inference and
// by kernel-time, which place buffers differently but know where each one's data lies.
#pragma once

#include "launch/LaunchSpec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace asmevo::launch {

// Where one buffer's data lay in device memory during a run.
struct BufferExtent {
  const ArgSpec *Arg = nullptr;
  uint64_t Begin = 0, End = 0; // the data, [Begin, End)
};

// "10 f32 elements".
std::string elementsText(const ArgSpec &A);

// If E is a memory fault (support/Error.h MemoryFaultError) within 1 GiB past the end (or before
// the start) of one of Buffers, the input error naming the nearest such buffer; otherwise E.
llvm::Error blameBufferOverrun(llvm::Error E, const std::vector<BufferExtent> &Buffers);

// The input error for K0 having touched bytes [Lo, Hi) of A's Bytes of data (offsets from the
// data's start, so negative below it) when that is not inside them: "K0 reads past '#0' (10 f32
// elements): it touches bytes 0 to 44 of a buffer of 40 bytes<Where>: the spec gives it too few
// elements". Success when it is.
llvm::Error checkTouchedBytes(const ArgSpec &A, int64_t Lo, int64_t Hi, uint64_t Bytes,
                              const std::string &Where);

} // namespace asmevo::launch
