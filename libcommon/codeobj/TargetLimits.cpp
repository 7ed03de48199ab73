// Per-target hardware limits with their sources, and the allocation, occupancy and launch-bound
// arithmetic built on them (see TargetLimits.h).
//
// Sources (read in ROCm/llvm-project and LLVM's AMDGPUUsage; ROCR-Runtime and clr for what the
// runtime checks):
//  [BI] llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp, namespace IsaInfo:
//       getEUsPerCU (4), getMaxWavesPerEU (8 on gfx90a+, 10 before), getTotalNumVGPRs
//       (512 on gfx90a+, 256 before), getVGPRAllocGranule (8 on gfx90a+, 4 before),
//       getAddressableNumArchVGPRs (256), getTotalNumSGPRs (800), getSGPRAllocGranule (16),
//       getAddressableNumSGPRs (102), getMaxNumSGPRs (112 with VCC/flat scratch/XNACK),
//       getNumExtraSGPRs, getOccupancyWithNumSGPRs (<=80: 10, <=88: 9, <=100: 8, else 7),
//       getNumWavesPerEUWithNumVGPRs (512 / alignTo(n, 8)), getWavesPerEUForWorkGroup
//       (ceil(ceil(WG/64)/4)), getMaxWorkGroupsPerCU (min(32 / waves per WG, 16)),
//       getMaxFlatWorkGroupSize (1024), getAddressableLocalMemorySize.
//  [TD] llvm/lib/Target/AMDGPU/AMDGPU.td: FeatureAddressableLocalMemorySize65536 (gfx90a,
//       gfx942), ...163840 (gfx950).
//  [DOC] AMDGPUUsage.rst, compute_pgm_rsrc1/2/3: VGPR granules of 8 on gfx90a+ counting
//       align(arch, 4) + acc; ACCUM_OFFSET (rsrc3 5:0) = offset / 4 - 1; SGPR granules of 8
//       including VCC, flat scratch and XNACK; LDS granules of 128 dwords (320 on gfx950).
//  [GH] llvm/lib/Target/AMDGPU/GCNSubtarget.h getMaxWaveScratchSize: COMPUTE_TMPRING_SIZE
//       WAVESIZE is 13 bits of 1 KiB before gfx11, so 8191 KiB per wave = 131056 B per lane.
//  [HSA] hsa.h hsa_kernel_dispatch_packet_t: grid_size_x/y/z are uint32 work-items; clr's
//       ihipLaunchKernel refuses gridDim * blockDim > UINT32_MAX per dimension.
#include "codeobj/TargetLimits.h"
#include "codeobj/CodeObject.h"

#include <algorithm>

namespace asmevo {

namespace {

const TargetLimits Cdna2Plus = {
    "gfx90a/gfx94x/gfx950",
    64,  // WaveSize
    4,   // SimdsPerCu [BI getEUsPerCU]
    8,   // MaxWavesPerSimd [BI getMaxWavesPerEU: isGFX90A -> 8]
    512, // VgprsPerSimdLane [BI getTotalNumVGPRs: FeatureGFX90AInsts -> 512]
    8,   // VgprAllocGranule [BI getVGPRAllocGranule]
    256,
    256,  // MaxArchVgprs, MaxAgprs [BI getAddressableNumArchVGPRs; AGPR_32 class]
    true, // UnifiedVgprFile [DOC compute_pgm_rsrc3 ACCUM_OFFSET]
    800,
    16,
    102,           // SGPRs per SIMD, allocation granule, addressable [BI]
    65536,         // LdsBytes [TD FeatureAddressableLocalMemorySize65536]
    512,           // LdsAllocGranule [DOC GRANULATED_LDS_SIZE: 128 dwords]
    1024,          // MaxWorkgroupSize [BI getMaxFlatWorkGroupSize]
    16,            // MaxWorkgroupsPerCu [BI getMaxWorkGroupsPerCU: MaxBarriers]
    131056,        // MaxScratchPerLane [GH getMaxWaveScratchSize / 64]
    0xffffffffull, // MaxGridItems [HSA]
};

TargetLimits makeGfx950() {
  TargetLimits L = Cdna2Plus;
  L.LdsBytes = 163840;      // [TD FeatureAddressableLocalMemorySize163840]
  L.LdsAllocGranule = 1280; // [DOC GRANULATED_LDS_SIZE: 320 dwords on gfx950]
  return L;
}
const TargetLimits Gfx950 = makeGfx950();

TargetLimits makeGfx9() {
  TargetLimits L = Cdna2Plus;
  L.Family = "gfx9 before gfx90a";
  L.MaxWavesPerSimd = 10;   // [BI getMaxWavesPerEU: !isGFX10Plus -> 10]
  L.VgprsPerSimdLane = 256; // [BI getTotalNumVGPRs]
  L.VgprAllocGranule = 4;   // [BI getVGPRAllocGranule]
  L.UnifiedVgprFile = false;
  return L;
}
const TargetLimits Gfx9 = makeGfx9();

constexpr unsigned MaxSgprsWithExtras = 112; // [BI getMaxNumSGPRs: VI+ non-addressable]

unsigned alignUp(uint64_t X, unsigned G) { return unsigned((X + G - 1) / G * G); }
unsigned ceilDiv(uint64_t X, uint64_t Y) { return unsigned((X + Y - 1) / Y); }

unsigned maxWorkgroupsPerCu(const TargetLimits &L, unsigned WavesPerGroup) {
  unsigned MaxWaves = L.MaxWavesPerSimd * L.SimdsPerCu;
  if (WavesPerGroup <= 1)
    return MaxWaves;
  return std::min(MaxWaves / WavesPerGroup, L.MaxWorkgroupsPerCu);
}

} // namespace

const TargetLimits &targetLimits(const TargetId &T) {
  if (T.Processor == "gfx950")
    return Gfx950;
  return T.hasGfx90aInsts() ? Cdna2Plus : Gfx9;
}

RegisterAllocation registerAllocation(const KernelDescriptor &Kd, const TargetId &T, bool UsesVcc,
                                      bool UsesFlatScratch) {
  const TargetLimits &L = targetLimits(T);
  RegisterAllocation A;
  A.UnifiedVgprs = (Kd.granulatedVgprCount() + 1) * T.vgprEncodingGranule();
  if (L.UnifiedVgprFile) {
    unsigned Acc = Kd.accumOffset();
    A.AccumOffset = Acc;
    A.ArchVgprs = std::min(L.MaxArchVgprs, A.UnifiedVgprs);
    A.Agprs = A.UnifiedVgprs > Acc ? std::min(L.MaxAgprs, A.UnifiedVgprs - Acc) : 0;
  } else {
    A.ArchVgprs = std::min(L.MaxArchVgprs, A.UnifiedVgprs);
    A.Agprs = T.Processor == "gfx908" ? A.ArchVgprs : 0; // a separate file of the same size
  }
  A.Sgprs = (Kd.granulatedSgprCount() + 1) * T.sgprEncodingGranule();
  A.ExtraSgprs = kdExtraSgprs(T, UsesVcc, UsesFlatScratch, T.hasXnackReserved());
  A.NumberedSgprs =
      A.Sgprs > A.ExtraSgprs ? std::min(L.AddressableSgprs, A.Sgprs - A.ExtraSgprs) : 0;
  return A;
}

std::string Occupancy::text() const {
  std::string S = std::to_string(WavesPerSimd) + " wave" + (WavesPerSimd == 1 ? "" : "s") +
                  "/SIMD, limited by " + Limiter;
  if (!Detail.empty())
    S += " (" + Detail + ")";
  return S;
}

Occupancy occupancy(const TargetLimits &L, unsigned UnifiedVgprs, unsigned Sgprs, uint64_t Lds,
                    unsigned WorkgroupSize) {
  Occupancy O;
  unsigned Max = L.MaxWavesPerSimd;
  unsigned V = alignUp(std::max(1u, UnifiedVgprs), L.VgprAllocGranule);
  O.ByVgprs = V > L.VgprsPerSimdLane ? 0 : std::min(Max, L.VgprsPerSimdLane / V);
  O.BySgprs = std::min(Max, Sgprs <= 80 ? 10u : Sgprs <= 88 ? 9u : Sgprs <= 100 ? 8u : 7u);
  if (Sgprs > MaxSgprsWithExtras)
    O.BySgprs = 0;
  unsigned WavesPerGroup = std::max(1u, ceilDiv(std::max(1u, WorkgroupSize), L.WaveSize));
  unsigned Groups = maxWorkgroupsPerCu(L, WavesPerGroup);
  O.ByWorkgroups = std::min(Max, ceilDiv(uint64_t(Groups) * WavesPerGroup, L.SimdsPerCu));
  if (Lds == 0) {
    O.ByLds = Max;
  } else {
    uint64_t ByLdsGroups = Lds > L.LdsBytes ? 0 : L.LdsBytes / alignUp(Lds, L.LdsAllocGranule);
    uint64_t G = std::min<uint64_t>(Groups, ByLdsGroups);
    O.ByLds = std::min<uint64_t>(Max, ceilDiv(G * WavesPerGroup, L.SimdsPerCu));
  }
  O.WavesPerSimd = std::min({Max, O.ByVgprs, O.BySgprs, O.ByLds, O.ByWorkgroups});
  if (O.WavesPerSimd == O.ByVgprs && O.ByVgprs < Max) {
    O.Limiter = "VGPRs";
    O.Detail = std::to_string(V) + " per wave of " + std::to_string(L.VgprsPerSimdLane);
  } else if (O.WavesPerSimd == O.BySgprs && O.BySgprs < Max) {
    O.Limiter = "SGPRs";
    O.Detail = std::to_string(Sgprs) + " per wave";
  } else if (O.WavesPerSimd == O.ByLds && O.ByLds < Max) {
    O.Limiter = "LDS";
    O.Detail = std::to_string(Lds) + " bytes per workgroup of " + std::to_string(L.LdsBytes);
  } else if (O.WavesPerSimd == O.ByWorkgroups && O.ByWorkgroups < Max) {
    O.Limiter = "workgroups per CU";
    O.Detail = std::to_string(Groups) + " of " + std::to_string(WavesPerGroup) + " waves";
  } else {
    O.Limiter = "wave slots";
    O.Detail = std::to_string(Max) + " per SIMD";
  }
  return O;
}

Occupancy kernelOccupancy(const KernelInfo &K, const TargetId &T) {
  RegisterAllocation A = registerAllocation(K.Kd, T, false, false);
  std::optional<uint64_t> Wg;
  if (K.Meta)
    Wg = Metadata::getUInt(*K.Meta, ".max_flat_workgroup_size");
  return occupancy(targetLimits(T), A.UnifiedVgprs, A.Sgprs, K.Kd.GroupSegmentFixedSize,
                   unsigned(std::min<uint64_t>(Wg.value_or(1024), 1024)));
}

std::vector<LimitViolation> checkLaunchLimits(const KernelDescriptor &Kd, const TargetId &T,
                                              std::optional<unsigned> MaxWorkgroupSize,
                                              const char *WorkgroupSizeFrom) {
  const TargetLimits &L = targetLimits(T);
  std::vector<LimitViolation> V;
  RegisterAllocation A = registerAllocation(Kd, T, false, false);
  if (A.UnifiedVgprs > L.VgprsPerSimdLane)
    V.push_back({"compute_pgm_rsrc1.granulated_workitem_vgpr_count",
                 "allocates " + std::to_string(A.UnifiedVgprs) + " VGPRs per wave; " + T.Processor +
                     " has " + std::to_string(L.VgprsPerSimdLane) + " per SIMD lane"});
  if (A.Sgprs > MaxSgprsWithExtras)
    V.push_back({"compute_pgm_rsrc1.granulated_wavefront_sgpr_count",
                 "allocates " + std::to_string(A.Sgprs) +
                     " SGPRs per wave; a wave can have at "
                     "most " +
                     std::to_string(MaxSgprsWithExtras)});
  if (MaxWorkgroupSize && *MaxWorkgroupSize > L.MaxWorkgroupSize)
    V.push_back({WorkgroupSizeFrom, std::to_string(*MaxWorkgroupSize) + " work-items; " +
                                        T.Processor + " runs workgroups of at most " +
                                        std::to_string(L.MaxWorkgroupSize)});
  else if (MaxWorkgroupSize && *MaxWorkgroupSize > 0) {
    // Every wave of a workgroup is resident at once, spread over the CU's SIMDs.
    unsigned Waves = ceilDiv(*MaxWorkgroupSize, L.WaveSize);
    unsigned PerSimd = ceilDiv(Waves, L.SimdsPerCu);
    unsigned Budget = L.VgprsPerSimdLane / PerSimd / L.VgprAllocGranule * L.VgprAllocGranule;
    if (A.UnifiedVgprs > Budget)
      V.push_back({"compute_pgm_rsrc1.granulated_workitem_vgpr_count",
                   "allocates " + std::to_string(A.UnifiedVgprs) + " VGPRs per wave; a " +
                       std::to_string(*MaxWorkgroupSize) + "-work-item workgroup (" +
                       WorkgroupSizeFrom + ") puts " + std::to_string(PerSimd) +
                       " waves on each SIMD, which leaves " + std::to_string(Budget) +
                       " VGPRs per wave on " + T.Processor});
  }
  if (Kd.GroupSegmentFixedSize > L.LdsBytes)
    V.push_back({"group_segment_fixed_size", std::to_string(Kd.GroupSegmentFixedSize) +
                                                 " bytes of LDS; " + T.Processor + " has " +
                                                 std::to_string(L.LdsBytes) + " per workgroup"});
  if (Kd.PrivateSegmentFixedSize > L.MaxScratchPerLane)
    V.push_back({"private_segment_fixed_size",
                 std::to_string(Kd.PrivateSegmentFixedSize) + " bytes of scratch per work-item; " +
                     T.Processor + " allows at most " + std::to_string(L.MaxScratchPerLane) +
                     " (13-bit wave scratch size in KiB)"});
  return V;
}

} // namespace asmevo
