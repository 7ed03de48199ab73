// The round-trip gate (asm/RoundTrip.h) on a hand-written gfx942 code object assembled and
// linked in-process: the unchanged object passes item by item; objects rebuilt from recovered
// text with one edit (an instruction of the kernel or of its device function, the code size, a
// descriptor directive, a metadata value, the target) fail on exactly that item, naming the
// kernel or function, the offset and the instructions. Also every Triton object of the corpus.
#include "asm/AsmFixture.h"
#include "asm/Recover.h"
#include "asm/RoundTrip.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "codeobj/TargetId.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace asmevo;

namespace {

using asmevo::test::build;
using asmevo::test::Built;
using asmevo::test::kFixture;

// The fixture recovered, with From replaced by To (which must occur once).
std::string editedRecovery(const CodeObject &C, const std::string &From, const std::string &To) {
  auto R = recoverAssembly(C, C.Path, "0123abcd");
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return "";
  }
  std::string S = R->Asm;
  size_t At = S.find(From);
  if (At == std::string::npos || S.find(From, At + 1) != std::string::npos) {
    ADD_FAILURE() << "'" << From << "' does not occur exactly once in\n" << S;
    return "";
  }
  return S.replace(At, From.size(), To);
}

const GateItem *item(const GateReport &R, llvm::StringRef Kind, llvm::StringRef Name) {
  for (const auto &I : R.Items)
    if (I.Kind == Kind && I.Name == Name)
      return &I;
  return nullptr;
}

std::vector<std::string> failing(const GateReport &R) {
  std::vector<std::string> F;
  for (const auto &I : R.Items)
    if (!I.Pass)
      F.push_back(I.Kind + " " + I.Name);
  return F;
}

TEST(RoundTrip, UnchangedObjectPassesTheGate) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  auto R = runRoundTripGate(A->C, "0123abcd");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->pass()) << R->text();
  EXPECT_EQ(R->Source, "fixture.hsaco");
  EXPECT_EQ(R->Target, "amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(R->Kernels, 1u);
  EXPECT_EQ(R->KernelsPassed, 1u);
  EXPECT_EQ(R->RawInstructions, 0u);
  EXPECT_TRUE(R->Notes.empty());
  std::vector<std::string> Kinds;
  for (const auto &I : R->Items)
    Kinds.push_back(I.Kind + " " + I.Name);
  EXPECT_EQ(Kinds, (std::vector<std::string>{"target amdgcn-amd-amdhsa--gfx942", "kernel k",
                                             "function f", "data .rodata", "section .text",
                                             "symbols dynamic", "metadata note"}));
  const GateItem *K = item(*R, "kernel", "k");
  ASSERT_TRUE(K);
  EXPECT_EQ(K->Bytes, 116u);
  EXPECT_TRUE(K->Masked.empty()); // laid out at the same addresses: nothing to mask
  const GateItem *F = item(*R, "function", "f");
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Bytes, 8u);
  std::string Text = R->text();
  EXPECT_NE(Text.find("PASS kernel k (116 bytes)\n"), std::string::npos) << Text;
  EXPECT_NE(Text.find("PASS function f (8 bytes)\n"), std::string::npos) << Text;
  EXPECT_EQ(Text.substr(Text.rfind('\n', Text.size() - 2) + 1),
            "fixture.hsaco: 1/1 kernels pass\n");
  nlohmann::json J = R->json();
  EXPECT_EQ(J["pass"], true);
  EXPECT_EQ(J["kernels"], 1);
  EXPECT_EQ(J["kernels_passed"], 1);
  EXPECT_EQ(J["items"].size(), 7u);
}

TEST(RoundTrip, ObjectComparedWithItselfPasses) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  GateReport R = compareCodeObjects(A->C, A->C);
  EXPECT_TRUE(R.pass()) << R.text();
  EXPECT_EQ(R.KernelsPassed, 1u);
  for (const auto &I : R.Items)
    EXPECT_TRUE(I.Masked.empty()) << I.Kind << " " << I.Name;
}

TEST(RoundTrip, EditedKernelInstructionFailsAtItsOffset) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  std::string Text =
      editedRecovery(A->C, "\tv_add_u32_e32 v2, 1, v2\n", "\tv_add_u32_e32 v2, 2, v2\n");
  auto B = build(Text, "edited.hsaco");
  ASSERT_TRUE(B);
  GateReport R = compareCodeObjects(A->C, B->C);
  EXPECT_FALSE(R.pass());
  EXPECT_EQ(R.Kernels, 1u);
  EXPECT_EQ(R.KernelsPassed, 0u);
  EXPECT_EQ(failing(R), std::vector<std::string>{"kernel k"});
  const GateItem *K = item(R, "kernel", "k");
  ASSERT_TRUE(K);
  // src0 of the VOP2 word is its first byte: inline constant 1 is 0x81, 2 is 0x82.
  EXPECT_EQ(K->Offset, 0x30u);
  EXPECT_EQ(K->Address, A->C.Kernels[0].EntryAddr + 0x30);
  EXPECT_EQ(K->Reason, "instruction bytes differ (0x81 vs 0x82)");
  EXPECT_EQ(K->Instruction, "v_add_u32_e32 v2, 1, v2 vs v_add_u32_e32 v2, 2, v2");
  std::string T = R.text();
  EXPECT_NE(T.find("FAIL kernel k (116 bytes): instruction bytes differ (0x81 vs 0x82) at +0x30 "
                   "(0x" +
                   llvm::utohexstr(K->Address) +
                   "): v_add_u32_e32 v2, 1, v2 vs v_add_u32_e32 v2, 2, v2\n"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("fixture.hsaco: 0/1 kernels pass, round trip FAILED\n"), std::string::npos) << T;
  nlohmann::json J = R.json();
  EXPECT_EQ(J["pass"], false);
  EXPECT_EQ(J["items"][1]["name"], "k");
  EXPECT_EQ(J["items"][1]["offset"], 0x30);
  EXPECT_EQ(J["items"][1]["reason"], "instruction bytes differ (0x81 vs 0x82)");
}

TEST(RoundTrip, EditedDeviceFunctionFailsAsThatFunction) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  std::string Text = editedRecovery(A->C, "\tv_mov_b32_e32 v40, 0\n", "\tv_mov_b32_e32 v40, 1\n");
  auto B = build(Text, "edited.hsaco");
  ASSERT_TRUE(B);
  GateReport R = compareCodeObjects(A->C, B->C);
  EXPECT_FALSE(R.pass());
  EXPECT_EQ(R.KernelsPassed, 1u); // the kernel's own bytes are the same
  EXPECT_EQ(failing(R), std::vector<std::string>{"function f"});
  const GateItem *F = item(R, "function", "f");
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Offset, 0u);
  EXPECT_EQ(F->Reason, "instruction bytes differ (0x80 vs 0x81)");
  EXPECT_EQ(F->Instruction, "v_mov_b32_e32 v40, 0 vs v_mov_b32_e32 v40, 1");
}

TEST(RoundTrip, LongerKernelFailsOnItsSize) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  std::string Text =
      editedRecovery(A->C, "\tv_add_u32_e32 v2, 1, v2\n", "\tv_add_u32_e32 v2, 1, v2\n\ts_nop 0\n");
  auto B = build(Text, "edited.hsaco");
  ASSERT_TRUE(B);
  GateReport R = compareCodeObjects(A->C, B->C);
  EXPECT_FALSE(R.pass());
  const GateItem *K = item(R, "kernel", "k");
  ASSERT_TRUE(K);
  EXPECT_FALSE(K->Pass);
  EXPECT_EQ(K->Reason, "code size 120 bytes, original 116");
  EXPECT_EQ(K->Address, A->C.Kernels[0].EntryAddr);
  EXPECT_EQ(K->Offset, 0u);
}

TEST(RoundTrip, EditedDescriptorFailsAtItsByte) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  std::string Text =
      editedRecovery(A->C, "\t\t.amdhsa_next_free_vgpr 48\n", "\t\t.amdhsa_next_free_vgpr 64\n");
  auto B = build(Text, "edited.hsaco");
  ASSERT_TRUE(B);
  GateReport R = compareCodeObjects(A->C, B->C);
  EXPECT_FALSE(R.pass());
  const GateItem *K = item(R, "kernel", "k");
  ASSERT_TRUE(K);
  // compute_pgm_rsrc1 starts at byte 48; its low 6 bits are the VGPR granule (48 / 8 - 1 = 5,
  // 64 / 8 - 1 = 7), bits 6-7 the low bits of the SGPR granule (4).
  EXPECT_EQ(K->Offset, 48u);
  EXPECT_EQ(K->Address, A->C.Symbols[A->C.Kernels[0].DescSymbol].Value + 48);
  EXPECT_EQ(K->Reason, "descriptor byte 48 differs (0x05 vs 0x07)");
  EXPECT_TRUE(K->Instruction.empty());
  // The descriptor's bytes are .rodata's too.
  const GateItem *D = item(R, "data", ".rodata");
  ASSERT_TRUE(D);
  EXPECT_FALSE(D->Pass);
  EXPECT_EQ(D->Reason, "data bytes differ");
}

TEST(RoundTrip, EditedMetadataFailsTheKernelAndTheNote) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  std::string Text =
      editedRecovery(A->C, "'.max_flat_workgroup_size': 256", "'.max_flat_workgroup_size': 128");
  auto B = build(Text, "edited.hsaco");
  ASSERT_TRUE(B);
  GateReport R = compareCodeObjects(A->C, B->C);
  EXPECT_EQ(failing(R), (std::vector<std::string>{"kernel k", "metadata note"}));
  const GateItem *K = item(R, "kernel", "k");
  ASSERT_TRUE(K);
  EXPECT_EQ(K->Reason, "metadata differs: .max_flat_workgroup_size: 256 vs 128");
  const GateItem *M = item(R, "metadata", "note");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Reason, "amdhsa.kernels[0].max_flat_workgroup_size: 256 vs 128");
}

TEST(RoundTrip, OtherTargetFailsTheTargetItem) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  std::string Src = kFixture;
  for (size_t At; (At = Src.find("gfx942")) != std::string::npos;)
    Src.replace(At, 6, "gfx90a");
  auto B = build(Src, "gfx90a.hsaco", "gfx90a");
  ASSERT_TRUE(B);
  GateReport R = compareCodeObjects(A->C, B->C);
  const GateItem *T = item(R, "target", "amdgcn-amd-amdhsa--gfx942");
  ASSERT_TRUE(T);
  EXPECT_FALSE(T->Pass);
  // gfx942 is mach 0x4c, gfx90a 0x3f (both xnack and sramecc "any"); ABI version 3 is v5.
  EXPECT_EQ(T->Reason, "e_flags 0x53F ABI version 3, original e_flags 0x54C ABI version 3");
}

TEST(RoundTrip, TritonCorpusPassesTheGate) {
  for (const char *Name :
       {"vector_add_fp32", "softmax_fp32", "layernorm_fwd_fp16", "matmul_fp16", "matmul_fp16_ns2",
        "matmul_bf16", "fused_moe_fp16", "flash_attn_fwd_fp16", "flash_attn_fwd_causal_fp16"}) {
    SCOPED_TRACE(Name);
    std::string Path =
        std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/gfx942/" + Name + ".hsaco";
    auto O = openCodeObject(Path);
    ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
    auto R = runRoundTripGate((*O)->C, "corpus");
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_TRUE(R->pass()) << R->text();
    EXPECT_EQ(R->Kernels, (*O)->C.Kernels.size());
    EXPECT_EQ(R->KernelsPassed, R->Kernels);
    EXPECT_GE(R->Kernels, 1u);
  }
}

} // namespace
