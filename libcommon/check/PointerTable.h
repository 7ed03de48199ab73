// K0 faulting at an address it loaded from a buffer's contents (a pointer table the spec gives
// as an ordinary buffer, so its words are random values): launch inference and the differential
// check name the buffer and the word, and point to the spec's "table" form (LaunchSpec.h) and to
// a captured dispatch (dispatch-capture, kernel-diffcheck --capture) instead of a bare memory
// fault.
#pragma once

#include "launch/LaunchSpec.h"
#include "support/Error.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace asmevo::check {

// The 8-byte word of Data (a buffer's initial contents) nearest below Address, at most 1 MiB
// below it (a pointer plus an offset) and at least MinWord: (distance, byte offset).
std::optional<std::pair<uint64_t, uint64_t>> wordBelow(const std::vector<uint8_t> &Data,
                                                       uint64_t Address, uint64_t MinWord);

// Whether a second run of K0 with other contents in the suspected buffer, which ended with E,
// moved the fault at Address: it ended (success), or faulted elsewhere. A run stopped at its
// bound (other values may loop) or by another error tells nothing (false). Consumes E.
bool faultMoved(llvm::Error E, uint64_t Address);

// The input error (naming SpecPath, after Lead: "launch inference: ") for K0 faulting (Fault)
// at an address it loaded from A's contents: the word found by wordBelow, Whence saying where
// the word came from ("that inference wrote at byte 0 of it"). It says to describe the buffer
// as a pointer table in the spec, or to capture a real dispatch (dispatch-capture) and check it
// with --capture.
llvm::Error pointerTableError(const std::string &Lead, const launch::ArgSpec &A,
                              const MemoryFaultError &Fault, const std::vector<uint8_t> &Data,
                              std::pair<uint64_t, uint64_t> Word, const std::string &Whence,
                              const std::string &SpecPath);

} // namespace asmevo::check
