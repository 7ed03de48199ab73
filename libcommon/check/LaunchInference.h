// Launch inference: complete a launch spec's buffers (element counts and roles) by running K0
// on a device that records footprints (DeviceInfo::TracksFootprint: the emu backend; hip says
// it cannot).
//
// Elements: each buffer without "elements" is placed 1 MiB into a large allocation (64 MiB of
// data after it by default), filled with random values of its type; after the run its touched
// range gives elements = ceil(highest touched byte / element size). A touch below the pointer
// (a negative offset) is an error.
// Roles: each buffer without "role" is compared before and after two runs with different fills:
// unchanged -> "in"; changed -> "inout" if K0's outputs change when only that buffer's initial
// contents change (one more run per written buffer with other random values, then, while
// nothing changed, one with every element the type's highest and one with its lowest value:
// max/min/or accumulators ignore small random initial values), else "out". A written buffer
// whose initial contents the spec fixes ("file", "fill": "zero") is "inout".
// Every run starts from K0's module image as loaded (globals a kernel writes are reset).
// Roles assume K0 is deterministic for a fixed seed: work-items of different workgroups that
// race (through memory or atomics) can make a buffer look "inout".
#pragma once

#include "device/Device.h"
#include "launch/LaunchSpec.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace asmevo::check {

using launch::LaunchSpec;

struct InferOptions {
  uint64_t ProbeBytes = 64ull << 20;
  unsigned Threads = 0;
  double TimeoutSeconds = 0; // each run of K0 (0: no limit)
};

struct InferenceReport {
  std::vector<std::string>
      Lines;           // "'x_ptr' (#0): 3000 f32 elements (inferred), role in (inferred)"
  nlohmann::json Json; // [{"arg", "elements", "role", "inferred": [...]}]
  unsigned Runs = 0;
};

// Completes S (resolved against K0) in place. Errors: input kind for what the spec must fix
// (negative offsets, K0 writing outside a given buffer), runtime kind when K0 stops.
llvm::Expected<InferenceReport> inferLaunch(LaunchSpec &S, const CodeObject &K0,
                                            device::Device &Dev, const InferOptions &O = {});
// The same on a fresh emu device for K0's processor.
llvm::Expected<InferenceReport> inferLaunch(LaunchSpec &S, const CodeObject &K0,
                                            const InferOptions &O = {});

} // namespace asmevo::check
