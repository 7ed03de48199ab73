// In-place patching (asm/Patch.h) of a hand-written gfx942 code object assembled and linked
// in-process: window syntax; a patch with the same instructions gives the same bytes, also from
// an extracted window; a shorter replacement is padded with s_nop 0; and each refusal (larger
// replacement, a branch into the window, a split s_getpc_b64 computation, more registers, a
// relocation) and input error (window not on instruction boundaries, past the end, unknown
// function, bad snippet) with its exact message and offset.
#include "asm/AsmFixture.h"
#include "asm/Patch.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace asmevo;

namespace {

using asmevo::test::build;
using asmevo::test::Built;
using asmevo::test::kFixture;

std::string hex(uint64_t V) { return "0x" + llvm::utohexstr(V); }

// A failed result split by kind: a PatchRefusal, a ToolError, or neither.
struct Failure {
  std::string Kind; // "refusal", "error", "other"
  std::string Message, File;
  std::optional<uint64_t> Offset;
  std::optional<unsigned> Line;
};

Failure failure(llvm::Error E) {
  Failure F;
  llvm::handleAllErrors(
      std::move(E),
      [&](const PatchRefusal &P) { F = {"refusal", P.Message, P.File, P.Offset, std::nullopt}; },
      [&](const ToolError &T) { F = {"error", T.Message, T.File, T.Offset, T.Line}; },
      [&](const llvm::ErrorInfoBase &B) { F = {"other", B.message(), "", {}, {}}; });
  return F;
}

PatchWindow window(llvm::StringRef Spec) {
  auto W = parsePatchWindow(Spec);
  if (!W) {
    ADD_FAILURE() << llvm::toString(W.takeError());
    return {};
  }
  return *W;
}

// File offset of k + Off.
uint64_t fileOffset(const CodeObject &C, uint64_t Off) {
  uint64_t A = C.Kernels.at(0).EntryAddr + Off;
  const ElfSection *S = C.sectionAt(A);
  return S ? S->Offset + (A - S->Addr) : 0;
}

TEST(ParsePatchWindow, StartEndAndStartLength) {
  PatchWindow W = window("k:0x30-0x34");
  EXPECT_EQ(W.Function, "k");
  EXPECT_EQ(W.Start, 0x30u);
  EXPECT_EQ(W.End, 0x34u);
  W = window("k:48+4");
  EXPECT_EQ(W.Function, "k");
  EXPECT_EQ(W.Start, 48u);
  EXPECT_EQ(W.End, 52u);
  W = window("k:0X10+0x8");
  EXPECT_EQ(W.Start, 16u);
  EXPECT_EQ(W.End, 24u);
  // The last colon separates the name, which may contain colons.
  W = window("ns::f:0-8");
  EXPECT_EQ(W.Function, "ns::f");
  EXPECT_EQ(W.Start, 0u);
  EXPECT_EQ(W.End, 8u);
}

TEST(ParsePatchWindow, BadSyntaxIsAnError) {
  for (const char *Spec : {"k", ":0-4", "k:4", "k:-4", "k:4-", "k:0x-4", "k:1-2+3", "k:a-4",
                           "k:0x10-0xZZ", "k:1+18446744073709551615", ""}) {
    auto W = parsePatchWindow(Spec);
    ASSERT_FALSE(bool(W)) << Spec;
    EXPECT_EQ(llvm::toString(W.takeError()),
              std::string("bad window '") + Spec +
                  "': expected KERNEL:START-END or KERNEL:START+LENGTH (byte offsets from the "
                  "symbol, 0x... or decimal)");
  }
}

TEST(ParsePatchWindow, EmptyWindowIsAnError) {
  for (const char *Spec : {"k:8-8", "k:8-4", "k:0+0"}) {
    auto W = parsePatchWindow(Spec);
    ASSERT_FALSE(bool(W)) << Spec;
    EXPECT_EQ(llvm::toString(W.takeError()),
              std::string("empty window '") + Spec + "': the end must lie after the start");
  }
}

TEST(PatchWindow, IdentityPatchGivesTheSameBytes) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x30+4"), "v_add_u32_e32 v2, 1, v2", "snippet.s");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Bytes == A->Bytes);
  EXPECT_EQ(R->Addr, A->C.Kernels[0].EntryAddr + 0x30);
  EXPECT_EQ(R->FileOffset, fileOffset(A->C, 0x30));
  EXPECT_EQ(R->WindowSize, 4u);
  EXPECT_EQ(R->ReplacementSize, 4u);
  EXPECT_EQ(R->Nops, 0u);
  // In a device function too.
  auto F = patchWindow(A->C, window("f:0+4"), "v_mov_b32_e32 v40, 0", "snippet.s");
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_TRUE(F->Bytes == A->Bytes);
}

TEST(PatchWindow, ExtractedWindowPatchesBackToTheSameBytes) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  // v_cmp .. global_store: 7 instructions; the branch in it targets the window's end.
  PatchWindow W = window("k:0x18-0x3c");
  auto Text = extractWindow(A->C, W, "0123abcd");
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
  uint64_t E = A->C.Kernels[0].EntryAddr;
  EXPECT_EQ(*Text, "; asmevo-patch-window v1\n"
                   "; source: fixture.hsaco\n"
                   "; sha256: 0123abcd\n"
                   "; target: amdgcn-amd-amdhsa--gfx942\n"
                   "; window: k:0x18-0x3C (" +
                       hex(E + 0x18) + "-" + hex(E + 0x3c) +
                       ", 36 bytes, 7 instructions)\n"
                       "\tv_cmp_gt_u32_e32 vcc, s8, v0\n"
                       "\ts_and_saveexec_b64 s[10:11], vcc\n"
                       "\ts_cbranch_execz .Lw0\n"
                       "\tglobal_load_dword v2, v1, s[2:3]\n"
                       "\ts_waitcnt vmcnt(0)\n"
                       "\tv_add_u32_e32 v2, 1, v2\n"
                       "\tglobal_store_dword v1, v2, s[2:3]\n"
                       ".Lw0:\n");
  auto R = patchWindow(A->C, W, *Text, "window.s");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Bytes == A->Bytes);
  EXPECT_EQ(R->WindowSize, 36u);
  EXPECT_EQ(R->ReplacementSize, 36u);
}

TEST(PatchWindow, ShorterReplacementIsPaddedWithNops) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  // s_waitcnt vmcnt(0); v_add_u32 -> s_waitcnt vmcnt(0); s_nop 0.
  auto R = patchWindow(A->C, window("k:0x2c+8"), "s_waitcnt vmcnt(0)", "snippet.s");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->WindowSize, 8u);
  EXPECT_EQ(R->ReplacementSize, 4u);
  EXPECT_EQ(R->Nops, 1u);
  uint64_t Off = fileOffset(A->C, 0x2c);
  ASSERT_EQ(R->FileOffset, Off);
  ASSERT_EQ(R->Bytes.size(), A->Bytes.size());
  EXPECT_EQ(R->Bytes.substr(0, Off + 4), A->Bytes.substr(0, Off + 4));
  EXPECT_EQ(R->Bytes.substr(Off + 4, 4), std::string("\x00\x00\x80\xbf", 4));
  EXPECT_EQ(R->Bytes.substr(Off + 8), A->Bytes.substr(Off + 8));
  EXPECT_NE(A->Bytes.substr(Off + 4, 4), std::string("\x00\x00\x80\xbf", 4));
}

TEST(PatchWindow, LargerReplacementIsRefused) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x30+4"), "v_add_u32_e32 v2, 1, v2\nv_add_u32_e32 v2, 1, v2",
                       "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  EXPECT_EQ(F.Kind, "refusal");
  EXPECT_EQ(F.Message, "replacement is 8 bytes, the window is 4 bytes");
  EXPECT_EQ(F.File, "fixture.hsaco");
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0x30));
}

TEST(PatchWindow, BranchIntoTheWindowIsRefused) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  // global_store (0x34) .. s_getpc (0x3c): the s_cbranch_execz at 0x20 targets 0x3c.
  auto R = patchWindow(A->C, window("k:0x34-0x40"), "s_nop 0", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  uint64_t E = A->C.Kernels[0].EntryAddr;
  EXPECT_EQ(F.Kind, "refusal");
  EXPECT_EQ(F.Message, "branch at " + hex(E + 0x20) + " (k+0x20) targets " + hex(E + 0x3c) +
                           " (k+0x3C), inside the window");
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0x20));
}

TEST(PatchWindow, SplitPcRelativeComputationIsRefused) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x3c+4"), "s_getpc_b64 s[4:5]", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  uint64_t E = A->C.Kernels[0].EntryAddr;
  EXPECT_EQ(F.Kind, "refusal");
  EXPECT_EQ(F.Message, "the window splits the s_getpc_b64 address computation at " + hex(E + 0x3c) +
                           " (k+0x3C): s_add_u32 at " + hex(E + 0x40) + ", s_addc_u32 at " +
                           hex(E + 0x48));
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0x3c));
}

TEST(PatchWindow, MoreRegistersAreRefused) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  // k with its callee f uses v0-v40: 41 VGPRs; v60 would need 61.
  auto R = patchWindow(A->C, window("k:0x30+4"), "v_add_u32_e32 v2, 1, v60", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  EXPECT_EQ(F.Kind, "refusal");
  EXPECT_EQ(F.Message, "kernel k would need 61 VGPRs, it has 41");
  EXPECT_EQ(F.File, "fixture.hsaco");
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0x30));
}

TEST(PatchWindow, SnippetNeedingRelocationIsRefused) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x68+8"), "s_add_u32 s4, s4, ext@rel32@lo+4", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  EXPECT_EQ(F.Kind, "refusal");
  EXPECT_EQ(F.Message,
            "the snippet refers to 'ext' outside itself (a relocation at +0x4); a patch cannot be "
            "linked");
  EXPECT_EQ(F.File, "snippet.s");
  EXPECT_FALSE(F.Offset.has_value());
}

TEST(PatchWindow, WindowOffInstructionBoundariesIsAnError) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x4+4"), "s_nop 0", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  EXPECT_EQ(F.Kind, "error");
  EXPECT_EQ(F.Message, "window start k+0x4 is not an instruction boundary (it is inside the "
                       "8-byte instruction at k+0x0)");
  EXPECT_EQ(F.File, "fixture.hsaco");
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0x4));
  auto End = patchWindow(A->C, window("k:0x24-0x28"), "s_nop 0", "snippet.s");
  ASSERT_FALSE(bool(End));
  F = failure(End.takeError());
  EXPECT_EQ(F.Kind, "error");
  EXPECT_EQ(F.Message, "window end k+0x28 is not an instruction boundary (it is inside the "
                       "8-byte instruction at k+0x24)");
}

TEST(PatchWindow, WindowPastTheEndOrOfNoFunctionIsAnError) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x70-0x78"), "s_nop 0", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  EXPECT_EQ(F.Kind, "error");
  EXPECT_EQ(F.Message, "window k:0x70-0x78 ends past the end of k (116 bytes)");
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0));
  auto N = patchWindow(A->C, window("nope:0+4"), "s_nop 0", "snippet.s");
  ASSERT_FALSE(bool(N));
  F = failure(N.takeError());
  EXPECT_EQ(F.Kind, "error");
  EXPECT_EQ(F.Message, "no kernel or function named 'nope'");
  EXPECT_EQ(F.File, "fixture.hsaco");
}

TEST(PatchWindow, SnippetAssemblerErrorNamesTheSnippetLine) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = patchWindow(A->C, window("k:0x2c+8"), "s_nop 0\nv_bogus_op v1", "snippet.s");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  EXPECT_EQ(F.Kind, "error");
  EXPECT_EQ(F.File, "snippet.s");
  EXPECT_EQ(F.Line, 2u);
  EXPECT_EQ(F.Message, "invalid instruction: 'v_bogus_op v1'");
}

TEST(ExtractWindow, BranchOutOfTheWindowIsRefused) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = extractWindow(A->C, window("k:0x20+4"), "0123abcd");
  ASSERT_FALSE(bool(R));
  Failure F = failure(R.takeError());
  uint64_t E = A->C.Kernels[0].EntryAddr;
  EXPECT_EQ(F.Kind, "refusal");
  EXPECT_EQ(F.Message, "branch at " + hex(E + 0x20) + " (k+0x20) targets " + hex(E + 0x3c) +
                           " (k+0x3C), outside the window: a snippet cannot name it");
  EXPECT_EQ(F.Offset, fileOffset(A->C, 0x20));
}

} // namespace
