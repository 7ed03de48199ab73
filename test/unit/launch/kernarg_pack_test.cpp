// Packing HIP kernelParams and `extra` arrays into kernarg bytes (launch/KernargPack.h): the
// bytes land at the metadata's offsets, hidden arguments are left to the launcher, and every
// broken contract is an error that says which.
#include "launch/KernargPack.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace asmevo;
using namespace asmevo::launch;

namespace {
// (float **pages, int n, int k, float *out) then a hidden argument, as clang lays it out.
KernelSignature signature() {
  KernelSignature S;
  S.Symbol = "paged_sum";
  S.KernargSize = 280;
  S.Args = {{"pages", "", "global_buffer", "global", 0, 8},
            {"n", "", "by_value", "", 8, 4},
            {"k", "", "by_value", "", 12, 4},
            {"out", "", "global_buffer", "global", 16, 8},
            {"", "", "hidden_block_count_x", "", 24, 4}};
  return S;
}

uint64_t word64(const std::vector<uint8_t> &K, size_t Off) {
  uint64_t V;
  std::memcpy(&V, K.data() + Off, 8);
  return V;
}
uint32_t word32(const std::vector<uint8_t> &K, size_t Off) {
  uint32_t V;
  std::memcpy(&V, K.data() + Off, 4);
  return V;
}
} // namespace

TEST(KernargPack, KernelParamsLandAtTheMetadataOffsets) {
  uint64_t Pages = 0x7f0000001000, Out = 0x7f0000009000;
  int32_t N = 50, K = -7;
  void *Params[] = {&Pages, &N, &K, &Out};
  auto R = packKernelParams(signature(), Params);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->size(), 24u); // the explicit part only
  EXPECT_EQ(word64(*R, 0), Pages);
  EXPECT_EQ(word32(*R, 8), 50u);
  EXPECT_EQ(word32(*R, 12), uint32_t(-7));
  EXPECT_EQ(word64(*R, 16), Out);
}

TEST(KernargPack, NullParamIsNamed) {
  uint64_t Pages = 1;
  int32_t N = 2;
  void *Params[] = {&Pages, &N, nullptr, &Pages};
  auto R = packKernelParams(signature(), Params);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "kernelParams[2] of kernel 'paged_sum' (argument 2 ('k')) is null");
  R = packKernelParams(signature(), nullptr);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "kernel 'paged_sum' takes 4 arguments and kernelParams is null");
}

TEST(KernargPack, ExtraBufferInEitherOrder) {
  struct {
    uint64_t Pages;
    int32_t N, K;
    uint64_t Out;
  } Args = {0x1000, 3, 4, 0x2000};
  size_t Size = sizeof Args;
  void *Extra[] = {reinterpret_cast<void *>(2), &Size, reinterpret_cast<void *>(1), &Args,
                   reinterpret_cast<void *>(3)};
  auto R = packLaunchExtra(signature(), Extra);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->size(), 24u);
  EXPECT_EQ(word64(*R, 0), 0x1000u);
  EXPECT_EQ(word32(*R, 12), 4u);
  EXPECT_EQ(word64(*R, 16), 0x2000u);
}

TEST(KernargPack, ExtraContractViolationsSayWhich) {
  uint8_t Buf[512] = {};
  size_t Small = 16, Big = 281;
  void *TooSmall[] = {reinterpret_cast<void *>(1), Buf, reinterpret_cast<void *>(2), &Small,
                      reinterpret_cast<void *>(3)};
  auto R = packLaunchExtra(signature(), TooSmall);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()), "the extra buffer holds 16 bytes; kernel 'paged_sum' "
                                           "takes 24 bytes of explicit arguments");
  void *TooBig[] = {reinterpret_cast<void *>(1), Buf, reinterpret_cast<void *>(2), &Big,
                    reinterpret_cast<void *>(3)};
  R = packLaunchExtra(signature(), TooBig);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()), "the extra buffer holds 281 bytes; kernel 'paged_sum' "
                                           "has a kernarg segment of 280 bytes");
  void *NoSize[] = {reinterpret_cast<void *>(1), Buf, reinterpret_cast<void *>(3)};
  R = packLaunchExtra(signature(), NoSize);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()), "the extra array has no HIP_LAUNCH_PARAM_BUFFER_SIZE");
  void *BadKey[] = {reinterpret_cast<void *>(7), Buf, reinterpret_cast<void *>(3)};
  R = packLaunchExtra(signature(), BadKey);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "extra[0] is 7, not HIP_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE or _END");
  std::vector<void *> NoEnd(80, reinterpret_cast<void *>(1));
  for (size_t I = 1; I < NoEnd.size(); I += 2)
    NoEnd[I] = Buf;
  R = packLaunchExtra(signature(), NoEnd.data());
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "the extra array has no HIP_LAUNCH_PARAM_END in its first 64 entries");
}
