// The per-target limits and the arithmetic on them, against the figures LLVM's AMDGPU backend
// computes (AMDGPUBaseInfo.cpp getNumWavesPerEUWithNumVGPRs, getOccupancyWithNumSGPRs,
// getMaxNumVGPRs for the waves a workgroup size needs), worked out by hand here.
#include "codeobj/TargetLimits.h"

#include <gtest/gtest.h>

using namespace asmevo;

namespace {

TargetId target(const char *P) {
  TargetId T;
  T.Processor = P;
  T.Major = 9;
  if (std::string(P) == "gfx90a")
    T.Minor = 0, T.Stepping = 10;
  if (std::string(P) == "gfx942")
    T.Minor = 4, T.Stepping = 2;
  if (std::string(P) == "gfx950")
    T.Minor = 5, T.Stepping = 0;
  if (std::string(P) == "gfx906")
    T.Minor = 0, T.Stepping = 6;
  return T;
}

// A descriptor allocating Unified VGPRs (granules of 8), Sgprs (granules of 8), accum_offset.
KernelDescriptor kd(unsigned Unified, unsigned Sgprs, unsigned Accum) {
  KernelDescriptor K;
  K.ComputePgmRsrc1 = ((Unified + 7) / 8 - 1) | (((Sgprs + 7) / 8 - 1) << 6);
  K.ComputePgmRsrc3 = Accum / 4 - 1;
  return K;
}

TEST(TargetLimits, PerTarget) {
  EXPECT_EQ(targetLimits(target("gfx942")).LdsBytes, 65536u);
  EXPECT_EQ(targetLimits(target("gfx90a")).LdsBytes, 65536u);
  EXPECT_EQ(targetLimits(target("gfx950")).LdsBytes, 163840u);
  EXPECT_EQ(targetLimits(target("gfx942")).VgprsPerSimdLane, 512u);
  EXPECT_EQ(targetLimits(target("gfx942")).MaxWavesPerSimd, 8u);
  EXPECT_EQ(targetLimits(target("gfx906")).VgprsPerSimdLane, 256u);
  EXPECT_EQ(targetLimits(target("gfx906")).MaxWavesPerSimd, 10u);
  EXPECT_EQ(targetLimits(target("gfx942")).MaxScratchPerLane, 131056u); // 8191 KiB / 64
}

TEST(TargetLimits, OccupancyByVgprs) {
  const TargetLimits &L = targetLimits(target("gfx942"));
  // total VGPRs -> waves per SIMD (512 / alignTo(n, 8), at most 8)
  const std::pair<unsigned, unsigned> Table[] = {{1, 8},   {64, 8},  {65, 7},  {72, 7},  {80, 6},
                                                 {96, 5},  {97, 4},  {128, 4}, {168, 3}, {169, 2},
                                                 {256, 2}, {257, 1}, {512, 1}};
  for (auto [V, W] : Table) {
    Occupancy O = occupancy(L, V, 16, 0, 64);
    EXPECT_EQ(O.WavesPerSimd, W) << V << " VGPRs";
    EXPECT_EQ(O.Limiter, W < 8 ? "VGPRs" : "wave slots") << V << " VGPRs";
  }
}

TEST(TargetLimits, OccupancyBySgprsAndLds) {
  const TargetLimits &L = targetLimits(target("gfx942"));
  EXPECT_EQ(occupancy(L, 32, 100, 0, 64).WavesPerSimd, 8u);
  Occupancy S = occupancy(L, 32, 104, 0, 64);
  EXPECT_EQ(S.WavesPerSimd, 7u);
  EXPECT_EQ(S.Limiter, "SGPRs");
  // 40 KiB of LDS per workgroup of 256: one workgroup per CU, 4 waves over 4 SIMDs.
  Occupancy D = occupancy(L, 32, 16, 40960, 256);
  EXPECT_EQ(D.WavesPerSimd, 1u);
  EXPECT_EQ(D.Limiter, "LDS");
  EXPECT_EQ(D.text(), "1 wave/SIMD, limited by LDS (40960 bytes per workgroup of 65536)");
  // gfx950 has 160 KiB: four such workgroups.
  EXPECT_EQ(occupancy(targetLimits(target("gfx950")), 32, 16, 40960, 256).WavesPerSimd, 4u);
}

TEST(TargetLimits, RegisterAllocation) {
  // gfx942: 352 unified VGPRs with accum_offset 160: v0-v255 and a0-a191.
  RegisterAllocation A = registerAllocation(kd(352, 96, 160), target("gfx942"), true, false);
  EXPECT_EQ(A.UnifiedVgprs, 352u);
  EXPECT_EQ(A.ArchVgprs, 256u);
  EXPECT_EQ(A.Agprs, 192u);
  EXPECT_EQ(A.AccumOffset, 160u);
  // 96 SGPRs; gfx942 always reserves 6 for VCC, flat scratch and XNACK (architected flat scratch).
  EXPECT_EQ(A.Sgprs, 96u);
  EXPECT_EQ(A.ExtraSgprs, 6u);
  EXPECT_EQ(A.NumberedSgprs, 90u);
  // gfx90a without VCC or flat scratch use and without XNACK: every SGPR is numbered.
  TargetId T = target("gfx90a");
  T.Xnack = TargetFeature::Off;
  EXPECT_EQ(registerAllocation(kd(8, 16, 8), T, false, false).NumberedSgprs, 16u);
  EXPECT_EQ(registerAllocation(kd(8, 16, 8), T, true, false).NumberedSgprs, 14u);
}

TEST(TargetLimits, LaunchLimits) {
  TargetId T = target("gfx942");
  // Registers against the workgroup size: 1024 work-items leave 128 VGPRs per wave, 768 leave
  // 168, 512 leave 256, 256 leave all 512.
  EXPECT_TRUE(checkLaunchLimits(kd(128, 16, 128), T, 1024).empty());
  auto V = checkLaunchLimits(kd(136, 16, 136), T, 1024);
  ASSERT_EQ(V.size(), 1u);
  EXPECT_EQ(V[0].Field, "compute_pgm_rsrc1.granulated_workitem_vgpr_count");
  EXPECT_EQ(V[0].Detail, "allocates 136 VGPRs per wave; a 1024-work-item workgroup "
                         "(.max_flat_workgroup_size) puts 4 waves on each SIMD, which leaves "
                         "128 VGPRs per wave on gfx942");
  EXPECT_TRUE(checkLaunchLimits(kd(168, 16, 168), T, 768).empty());
  EXPECT_FALSE(checkLaunchLimits(kd(176, 16, 176), T, 768).empty());
  EXPECT_TRUE(checkLaunchLimits(kd(256, 16, 256), T, 512).empty());
  EXPECT_TRUE(checkLaunchLimits(kd(512, 16, 256), T, 256).empty());
  EXPECT_TRUE(checkLaunchLimits(kd(512, 16, 256), T, std::nullopt).empty());
  // LDS and scratch.
  KernelDescriptor K = kd(64, 16, 64);
  K.GroupSegmentFixedSize = 65537;
  K.PrivateSegmentFixedSize = 131057;
  V = checkLaunchLimits(K, T, 64);
  ASSERT_EQ(V.size(), 2u);
  EXPECT_EQ(V[0].Field, "group_segment_fixed_size");
  EXPECT_EQ(V[1].Field, "private_segment_fixed_size");
  K.GroupSegmentFixedSize = 65536;
  K.PrivateSegmentFixedSize = 131056;
  EXPECT_TRUE(checkLaunchLimits(K, T, 64).empty());
  // More than 1024 work-items per workgroup.
  V = checkLaunchLimits(kd(64, 16, 64), T, 2048);
  ASSERT_EQ(V.size(), 1u);
  EXPECT_EQ(V[0].Field, ".max_flat_workgroup_size");
}

} // namespace
