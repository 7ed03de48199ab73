// Kernel descriptor decoding/encoding and the directive model.
#include "codeobj/KernelDescriptor.h"

#include <gtest/gtest.h>

using namespace asmevo;

namespace {
TargetId target(const char *Proc, uint32_t EFlags) {
  auto T = decodeTargetId(3, EFlags);
  EXPECT_TRUE(bool(T)) << Proc;
  return T ? *T : TargetId();
}

KernelDescriptor typical() {
  KernelDescriptor K;
  K.KernargSize = 20;
  K.KernelCodeEntryByteOffset = 0x1140;
  K.ComputePgmRsrc1 = 0x00af0100; // vgpr granule 0, sgpr granule 4, float modes, dx10, ieee
  K.ComputePgmRsrc2 = 0x00000084; // user sgprs 2, workgroup id x
  K.ComputePgmRsrc3 = 1;          // accum_offset 8
  K.KernelCodeProperties = 0x8;   // kernarg segment ptr
  return K;
}
} // namespace

TEST(KernelDescriptor, EncodeDecodeRoundTrip) {
  KernelDescriptor K = typical();
  K.GroupSegmentFixedSize = 0x1234;
  K.PrivateSegmentFixedSize = 400;
  K.KernargPreload = (3u << 7) | 14;
  auto B = K.encode();
  EXPECT_EQ(B[0], 0x34);
  EXPECT_EQ(B[4], 0x90);
  EXPECT_EQ(B[16], 0x40);
  EXPECT_EQ(B[17], 0x11);
  EXPECT_EQ(B[48], 0x00);
  EXPECT_EQ(B[49], 0x01);
  EXPECT_EQ(B[50], 0xaf);
  KernelDescriptor D = KernelDescriptor::decode(B);
  EXPECT_EQ(D.encode(), B);
  EXPECT_EQ(D.kernargPreloadLength(), 14u);
  EXPECT_EQ(D.kernargPreloadOffset(), 3u);
  EXPECT_EQ(D.granulatedSgprCount(), 4u);
  EXPECT_EQ(D.accumOffset(), 8u);
}

TEST(KernelDescriptor, ExtraSgprsFollowTheAssembler) {
  TargetId G942 = target("gfx942", 0x54c), G90a = target("gfx90a", 0x53f);
  // gfx940+ always reserves flat scratch (architected): 6.
  EXPECT_EQ(kdExtraSgprs(G942, false, false, false), 6u);
  EXPECT_EQ(kdExtraSgprs(G90a, true, false, false), 2u);
  EXPECT_EQ(kdExtraSgprs(G90a, true, false, true), 4u);
  EXPECT_EQ(kdExtraSgprs(G90a, false, true, false), 6u);
}

TEST(KernelDescriptor, DirectivesReproduceXnackAnyDescriptor) {
  // xnack "any" reserves the XNACK mask; the printed next_free_sgpr must leave room for it.
  for (uint32_t EFlags : {0x54cu, 0x64cu, 0x53fu, 0x73fu, 0x54fu}) {
    TargetId T = target("", EFlags);
    for (unsigned G = 0; G <= 12; ++G) {
      KernelDescriptor K = typical();
      K.ComputePgmRsrc1 = (K.ComputePgmRsrc1 & ~0x3ffu) | (G << 6) | 5;
      KdDirectiveSet S = kdToDirectives(K, T);
      ASSERT_EQ(S.Inexpressible, "") << std::hex << EFlags << " granule " << G;
      auto Back = kdFromDirectives(S.Directives, T);
      ASSERT_TRUE(bool(Back));
      auto A = Back->encode(), B = K.encode();
      for (unsigned I = 0; I < 64; ++I) {
        if (I < KdEntryOffsetBegin || I >= KdEntryOffsetEnd) {
          EXPECT_EQ(A[I], B[I]) << "byte " << I << " granule " << G;
        }
      }
    }
  }
}

TEST(KernelDescriptor, InexpressibleBitsAreNamed) {
  TargetId T = target("gfx942", 0x54c);
  KernelDescriptor K = typical();
  K.ComputePgmRsrc1 |= 1u << 20; // PRIV: no directive
  EXPECT_NE(kdToDirectives(K, T).Inexpressible.find("compute_pgm_rsrc1 bits 0x100000"),
            std::string::npos);
  K = typical();
  K.ComputePgmRsrc1 = (K.ComputePgmRsrc1 & ~0x3c0u) | (15u << 6); // 128 SGPRs: out of range
  EXPECT_NE(kdToDirectives(K, T).Inexpressible.find("SGPR granule 15"), std::string::npos);
  K = typical();
  K.Reserved1[3] = 1;
  EXPECT_EQ(kdToDirectives(K, T).Inexpressible, "reserved descriptor bytes are not zero");
}

TEST(KernelDescriptor, AssemblerModelRejectsWhatLlvmRejects) {
  TargetId T = target("gfx942", 0x54c);
  auto R = kdFromDirectives(
      {{".amdhsa_next_free_vgpr", 8}, {".amdhsa_next_free_sgpr", 104}, {".amdhsa_accum_offset", 8}},
      T);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()), ".amdhsa_next_free_sgpr 104 is out of range");
  auto R2 = kdFromDirectives({{".amdhsa_next_free_vgpr", 8}, {".amdhsa_next_free_sgpr", 8}}, T);
  ASSERT_FALSE(bool(R2));
  EXPECT_EQ(llvm::toString(R2.takeError()), ".amdhsa_accum_offset directive is required");
  auto R3 = kdFromDirectives({{".amdhsa_next_free_vgpr", 8},
                              {".amdhsa_next_free_sgpr", 8},
                              {".amdhsa_accum_offset", 8},
                              {".amdhsa_user_sgpr_flat_scratch_init", 1}},
                             T);
  ASSERT_FALSE(bool(R3)); // no such directive on gfx940+
  EXPECT_EQ(llvm::toString(R3.takeError()),
            "directive .amdhsa_user_sgpr_flat_scratch_init is not known for gfx942");
}
