// Target ids from ELF header flags.
#include "codeobj/TargetId.h"

#include <gtest/gtest.h>

using namespace asmevo;

TEST(TargetId, DecodesProcessorAndFeatures) {
  auto T = decodeTargetId(3, 0x54c);
  ASSERT_TRUE(bool(T));
  EXPECT_EQ(T->Processor, "gfx942");
  EXPECT_EQ(T->CodeObjectVersion, 5u);
  EXPECT_EQ(T->str(), "amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(T->mattr(), "");
  EXPECT_TRUE(T->hasArchitectedFlatScratch());
  EXPECT_TRUE(T->hasXnackReserved());

  auto U = decodeTargetId(2, 0xf3f); // v4, gfx90a, sramecc on, xnack on
  ASSERT_TRUE(bool(U));
  EXPECT_EQ(U->str(), "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+");
  EXPECT_EQ(U->mattr(), "+xnack,+sramecc");
  EXPECT_EQ(U->CodeObjectVersion, 4u);
  EXPECT_FALSE(U->hasArchitectedFlatScratch());
  EXPECT_EQ(U->vgprEncodingGranule(), 8u);

  auto V = decodeTargetId(4, 0x64f); // v6 gfx950 xnack off
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(V->str(), "amdgcn-amd-amdhsa--gfx950:xnack-");
  EXPECT_FALSE(V->hasXnackReserved());

  auto W = decodeTargetId(2, 0x130);
  ASSERT_TRUE(bool(W));
  EXPECT_EQ(W->Processor, "gfx908");
  EXPECT_EQ(W->vgprEncodingGranule(), 4u);
}

TEST(TargetId, RejectsWhatRecoveryCannotHandle) {
  auto A = decodeTargetId(0, 0x54c);
  ASSERT_FALSE(bool(A));
  EXPECT_EQ(llvm::toString(A.takeError()),
            "unsupported code object version (ELF ABI version 0); supported: v4, v5, v6");
  auto B = decodeTargetId(3, 0x036);
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(llvm::toString(B.takeError()),
            "unsupported target gfx1030: recovery supports gfx9 (GCN/CDNA) processors");
  auto C = decodeTargetId(3, 0x0ff);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()), "unknown AMDGPU processor (e_flags mach 0xFF)");
}
