// The hardware limits a kernel's resources and a launch must fit, per target, each with its
// source (TargetLimits.cpp), and what follows from them: the registers a descriptor allocates,
// the occupancy a kernel gets and what limits it, and whether a kernel fits its own launch
// bounds. A kernel that does not fit cannot be launched by the GPU; the tools refuse it
// (abi_invalid) instead of letting the emulator run it.
#pragma once

#include "codeobj/KernelDescriptor.h"
#include "codeobj/TargetId.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct TargetLimits {
  const char *Family;        // "gfx90a/gfx94x/gfx950 (CDNA2-4)" or "gfx9 before gfx90a"
  unsigned WaveSize;         // work-items per wave
  unsigned SimdsPerCu;       // execution units per compute unit
  unsigned MaxWavesPerSimd;  // wave slots per SIMD
  unsigned VgprsPerSimdLane; // the VGPR file per SIMD lane (unified arch + acc on gfx90a+)
  unsigned VgprAllocGranule; // VGPRs are allocated in blocks of this many
  unsigned MaxArchVgprs, MaxAgprs;
  bool UnifiedVgprFile; // AGPRs follow the arch VGPRs at accum_offset
  unsigned SgprsPerSimd, SgprAllocGranule, AddressableSgprs;
  uint32_t LdsBytes; // LDS per workgroup and per CU
  uint32_t LdsAllocGranule;
  unsigned MaxWorkgroupSize;   // work-items
  unsigned MaxWorkgroupsPerCu; // barriers per CU
  uint32_t MaxScratchPerLane;  // private_segment_fixed_size, bytes per work-item
  uint64_t MaxGridItems;       // work-items per grid dimension (AQL grid_size is 32 bits)
};

// The largest kernarg segment the tools launch with: far above what a launch passes (clr, the
// HIP runtime, reports 1 KiB of kernel parameters, device info maxParameterSize_), small enough
// that a descriptor or metadata claiming gigabytes is refused instead of allocated.
constexpr uint32_t kMaxKernargBytes = 64 * 1024;

// The limits of T's processor.
const TargetLimits &targetLimits(const TargetId &T);

// The registers a kernel descriptor allocates to each wave.
// On gfx90a+ the wave's registers are one unified block: vN is register N of the block and aN
// register accum_offset + N, so arch VGPRs may reach past accum_offset (hand-written kernels
// that use no AGPRs do) and then share registers with the AGPRs.
struct RegisterAllocation {
  unsigned UnifiedVgprs = 0;  // the descriptor's VGPR granules (arch + acc on gfx90a+)
  unsigned ArchVgprs = 0;     // v0 .. v(ArchVgprs-1) are allocated
  unsigned Agprs = 0;         // a0 .. a(Agprs-1)
  unsigned AccumOffset = 0;   // gfx90a+: a0 is register AccumOffset of the block
  unsigned Sgprs = 0;         // the descriptor's SGPR granules, VCC/flat scratch/XNACK included
  unsigned NumberedSgprs = 0; // s0 .. s(NumberedSgprs-1) are free for the code
  unsigned ExtraSgprs = 0;    // VCC, flat scratch and XNACK mask, at the top of the allocation
};
// UsesVcc / UsesFlatScratch: whether the code uses them (they then take SGPRs of the
// allocation; on gfx940+ flat scratch is architected and always takes them).
RegisterAllocation registerAllocation(const KernelDescriptor &Kd, const TargetId &T, bool UsesVcc,
                                      bool UsesFlatScratch);

// Waves per SIMD a kernel can have resident, and what limits it.
struct Occupancy {
  unsigned WavesPerSimd = 0;
  unsigned ByVgprs = 0, BySgprs = 0, ByLds = 0, ByWorkgroups = 0;
  std::string Limiter;      // "VGPRs", "SGPRs", "LDS", "workgroups per CU" or "wave slots"
  std::string text() const; // "4 waves/SIMD (limited by VGPRs: 128 allocated)"
  std::string Detail;       // what the limiter's figure is
};
// UnifiedVgprs/Sgprs: allocated per wave; Lds: bytes per workgroup; WorkgroupSize: work-items
// (the kernel's .max_flat_workgroup_size).
Occupancy occupancy(const TargetLimits &L, unsigned UnifiedVgprs, unsigned Sgprs, uint64_t Lds,
                    unsigned WorkgroupSize);

// The occupancy of a kernel as its descriptor and metadata declare it (registers, static LDS,
// .max_flat_workgroup_size; 1024 when the metadata has none).
struct KernelInfo;
Occupancy kernelOccupancy(const KernelInfo &K, const TargetId &T);

// A limit a kernel does not fit: the field, and why (naming the limit and its figure).
struct LimitViolation {
  std::string Field, Detail;
};
// Whether a kernel with this descriptor fits the target when launched with workgroups of up to
// MaxWorkgroupSize work-items (its .max_flat_workgroup_size; none: only the absolute limits).
// WorkgroupSizeFrom names where the size comes from in messages.
std::vector<LimitViolation>
checkLaunchLimits(const KernelDescriptor &Kd, const TargetId &T,
                  std::optional<unsigned> MaxWorkgroupSize,
                  const char *WorkgroupSizeFrom = ".max_flat_workgroup_size");

} // namespace asmevo
