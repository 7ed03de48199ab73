// What a traced dispatch records, for a timing model: per wave, every instruction it executed
// (its offset from the kernel's entry, in execution order) and every memory access each one
// made (lane, address, bytes, and whether LDS, vector memory or scalar memory). Plain data;
// the device interface passes it on unchanged (device/Trace.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace asmevo::emu {

// The workgroups a sampled launch runs, by linear id: First[i] + k * Stride for every i and
// k < Count (ids past the grid's end skipped), in the order of k, then of First. A timing model
// that samples CUs of a round-robin dispatch names them so (Stride: the CUs, First: the sampled
// ones). Empty First: every workgroup.
struct GroupSubset {
  std::vector<uint64_t> First;
  uint64_t Stride = 1, Count = 0;
  bool all() const { return First.empty(); }
};

enum class TraceSpace : uint8_t {
  Vector, // global, flat-global or scratch memory through the vector memory path
  Lds,    // the workgroup's LDS (DS instructions, flat addresses in the shared aperture)
  Scalar, // s_load / s_buffer_load / s_store
};

struct TraceAccess {
  uint64_t Addr = 0; // device address (Vector, Scalar) or LDS byte offset (Lds)
  uint16_t Size = 0; // bytes
  uint8_t Lane = 0;  // 0..63 (0 for Scalar)
  TraceSpace Space = TraceSpace::Vector;
};

struct TraceStep {
  int64_t Offset = 0;            // of the instruction, from the kernel's entry
  uint32_t First = 0, Count = 0; // its accesses: WaveTrace::Accesses[First, First + Count)
};

struct WaveTrace {
  unsigned Wave = 0;    // index in its workgroup
  uint64_t EntryPc = 0; // the kernel's entry address (Offsets are relative to it)
  std::vector<TraceStep> Steps;
  std::vector<TraceAccess> Accesses;
};

struct WorkgroupTrace {
  uint64_t Group = 0; // linear workgroup id (x fastest)
  std::array<uint32_t, 3> Id{0, 0, 0};
  std::vector<WaveTrace> Waves; // by wave index
};

} // namespace asmevo::emu
