// check/CaptureCompare: typed spans from --types (where they start and end, what is refused)
// and the comparison of two capture states (exact bytes outside the spans, Eq. 1 inside).
#include "check/CaptureCompare.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace asmevo;
using namespace asmevo::check;
using namespace asmevo::launch;

namespace {

void put64(std::vector<uint8_t> &V, size_t Off, uint64_t X) { std::memcpy(V.data() + Off, &X, 8); }
void putF32(std::vector<uint8_t> &V, size_t Off, float X) { std::memcpy(V.data() + Off, &X, 4); }

// kernel k(table, a, b, n): table (0x1000, 16 bytes) holds pointers to 0x2000 and 0x3000; a
// points to 0x4000 and b into the same region at 0x4000 + 64; n is by value.
struct Fixture {
  CaptureBundle B;
  KernelSignature Sig;
  Fixture() {
    B.Kernel = "k";
    B.Kernarg.assign(32, 0);
    put64(B.Kernarg, 0, 0x1000);
    put64(B.Kernarg, 8, 0x4000);
    put64(B.Kernarg, 16, 0x4000 + 64);
    auto region = [&](uint64_t Base, size_t Size) {
      CapturedRegion R;
      R.Base = Base;
      R.ReachedFrom = "kernarg+0x0";
      R.Pre.assign(Size, 0);
      R.Post = R.Pre;
      B.Regions.push_back(R);
    };
    region(0x1000, 16);
    put64(B.Regions[0].Pre, 0, 0x2000);
    put64(B.Regions[0].Pre, 8, 0x3000);
    B.Regions[0].Post = B.Regions[0].Pre;
    region(0x2000, 32);
    region(0x3000, 32);
    region(0x4000, 130); // 64 bytes of a, 66 of b (16 f32 and two spare bytes)
    Sig.Symbol = "k";
    auto arg = [&](const char *Name, const char *Kind, uint32_t Off, uint32_t Size) {
      KernelArg A;
      A.Name = Name;
      A.ValueKind = Kind;
      A.Offset = Off;
      A.Size = Size;
      Sig.Args.push_back(A);
    };
    arg("table", "global_buffer", 0, 8);
    arg("a", "global_buffer", 8, 8);
    arg("b", "global_buffer", 16, 8);
    arg("n", "by_value", 24, 4);
  }
  CaptureState post() const {
    CaptureState S;
    for (const CapturedRegion &R : B.Regions)
      S.Regions.push_back(R.Post);
    return S;
  }
};

std::string errorOf(const Fixture &F, const char *Types) {
  auto S = captureTypedSpans(F.B, F.Sig, Types);
  if (S)
    return "no error";
  return llvm::toString(S.takeError());
}

} // namespace

TEST(CaptureCompare, SpansStartAtThePointerAndEndAtTheNextSpan) {
  Fixture F;
  auto S = captureTypedSpans(F.B, F.Sig, "b=f32, a=f16 ,table[]=i32");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_EQ(S->size(), 4u);
  // In address order: the two table rows, then a (cut at b's start), then b (whole f32s only).
  EXPECT_EQ((*S)[0].Label, "table[0]");
  EXPECT_EQ((*S)[0].Region, 1u);
  EXPECT_EQ((*S)[0].Bytes, 32u);
  EXPECT_EQ((*S)[1].Label, "table[1]");
  EXPECT_EQ((*S)[1].Region, 2u);
  EXPECT_EQ((*S)[2].Label, "a");
  EXPECT_EQ((*S)[2].Offset, 0u);
  EXPECT_EQ((*S)[2].Bytes, 64u);
  EXPECT_EQ((*S)[2].Type, ElemType::F16);
  EXPECT_EQ((*S)[3].Label, "b");
  EXPECT_EQ((*S)[3].Offset, 64u);
  EXPECT_EQ((*S)[3].Bytes, 64u); // 66 bytes left: 16 f32, the last 2 bytes stay exact
  // "#1" is a.
  auto T = captureTypedSpans(F.B, F.Sig, "#1=bf16");
  ASSERT_TRUE(bool(T));
  ASSERT_EQ(T->size(), 1u);
  EXPECT_EQ((*T)[0].Bytes, 130u);
}

TEST(CaptureCompare, BadTypesAreRefusedByName) {
  Fixture F;
  EXPECT_EQ(errorOf(F, "n=f32"), "--types: argument 'n' of k is not a pointer (by_value, 4 bytes)");
  EXPECT_EQ(errorOf(F, "z=f32"), "--types: kernel 'k' has no argument 'z' (its explicit "
                                 "arguments: #0 'table', #1 'a', #2 'b', #3 'n')");
  EXPECT_EQ(errorOf(F, "a"), "--types: 'a' is not ARG=TYPE");
  EXPECT_EQ(errorOf(F, ""), "--types: give ARG=TYPE[,ARG=TYPE...]");
  EXPECT_EQ(errorOf(F, "a=f32,#1=i32"),
            "--types: address 0x4000 is given two types ('a' f32, '#1' i32)");
  EXPECT_EQ(errorOf(F, "a[]=f32"),
            "--types: no pointer word of the region 'a' points to reaches a captured region");
  Fixture G;
  put64(G.B.Kernarg, 8, 0x9000);
  EXPECT_EQ(errorOf(G, "a=f32"), "--types: 'a' points to 0x9000, which is in no captured region");
}

TEST(CaptureCompare, TypedSpansByEq1EverythingElseExact) {
  Fixture F;
  auto S = captureTypedSpans(F.B, F.Sig, "b=f32");
  ASSERT_TRUE(bool(S));
  CaptureState Want = F.post(), Got = F.post();
  for (int I = 0; I < 16; ++I)
    putF32(Want.Regions[3], 64 + 4 * I, float(I + 1));
  Got.Regions[3] = Want.Regions[3];
  EXPECT_EQ(firstCaptureDifference(F.B, *S, Want, Got, "K0", "K1", 0.9999, 1e-3), "");
  // Within tau: equal by Eq. 1, not by bytes.
  putF32(Got.Regions[3], 64, 1.0005f);
  nlohmann::json M;
  EXPECT_EQ(firstCaptureDifference(F.B, *S, Want, Got, "K0", "K1", 0.9999, 1e-3, &M), "");
  ASSERT_EQ(M.size(), 1u);
  EXPECT_EQ(M[0]["arg"], "b");
  EXPECT_EQ(M[0]["mismatches"], 1);
  EXPECT_EQ(M[0]["region"], "0x4000");
  EXPECT_EQ(firstCaptureDifference(F.B, {}, Want, Got, "K0", "K1", 0.9999, 1e-3),
            "region 0x4000 (reached from kernarg+0x0) byte 64 (address 0x4040): 0x62 where K0 "
            "has 0x0");
  // Past tau.
  putF32(Got.Regions[3], 64, 1.5f);
  EXPECT_EQ(firstCaptureDifference(F.B, *S, Want, Got, "K0", "K1", 0.9999, 1e-3),
            "region 0x4000 ('b', f32, from byte 64): max_abs_diff 0.5 > tau 0.001 at index 0 "
            "(K0 1, K1 1.5)");
  // A byte outside the span (a's, untyped) comes first, and the two spare bytes after b count.
  Got.Regions[3] = Want.Regions[3];
  Got.Regions[3][129] = 7;
  EXPECT_EQ(firstCaptureDifference(F.B, *S, Want, Got, "the recording", "K0", 0.9999, 1e-3),
            "region 0x4000 (reached from kernarg+0x0) byte 129 (address 0x4081): 0x7 where the "
            "recording has 0x0");
  Got.Regions[3][129] = 0;
  Got.Regions[3][3] = 1;
  EXPECT_EQ(firstCaptureDifference(F.B, *S, Want, Got, "K0", "K1", 0.9999, 1e-3),
            "region 0x4000 (reached from kernarg+0x0) byte 3 (address 0x4003): 0x1 where K0 has "
            "0x0");
}
