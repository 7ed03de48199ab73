// Recovery (asm/Recover.h) of code objects assembled and linked in-process from hand-written
// gfx942 text: the self-describing header, the `.amdhsa_kernel` block rebuilt from the
// descriptor, branches and s_getpc-relative references written symbolically, data and metadata
// kept, the counts it reports, a descriptor it cannot express written as bytes; and that the
// recovered text assembles back to the same code and descriptor bytes. Also one real Triton
// object of the corpus.
#include "asm/AsmFixture.h"
#include "asm/Recover.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "codeobj/TargetId.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace asmevo;

namespace {

using asmevo::test::build;
using asmevo::test::Built;
using asmevo::test::kFixture;

RecoverResult recover(const CodeObject &C) {
  auto R = recoverAssembly(C, "fixture.hsaco", "0123abcd");
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return {};
  }
  return std::move(*R);
}

bool hasLine(const std::string &Text, const std::string &Line) {
  return ("\n" + Text).find("\n" + Line + "\n") != std::string::npos;
}

TEST(Recover, HeaderNamesFormatSourceHashAndTarget) {
  auto B = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(B);
  RecoverResult R = recover(B->C);
  // gfx942 is EF_AMDGPU_MACH 0x4c; xnack "any" 0x100, sramecc "any" 0x400.
  EXPECT_EQ(R.Asm.rfind("; asmevo-recovered-asm v1\n"
                        "; source: fixture.hsaco\n"
                        "; sha256: 0123abcd\n"
                        "; target: amdgcn-amd-amdhsa--gfx942 (code object v5, e_flags 0x54C)\n"
                        "; reassemble: " +
                            stockLlvmBinDir() +
                            "/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 "
                            "-filetype=obj K.s -o K.rebuilt.hsaco.o && " +
                            stockLlvmBinDir() +
                            "/ld.lld -shared K.rebuilt.hsaco.o -o K.rebuilt.hsaco\n"
                            "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n"
                            "\t.amdhsa_code_object_version 5\n",
                        0),
            0u)
      << R.Asm;
}

TEST(Recover, CountsFunctionsInstructionsBranchesAndReferences) {
  auto B = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(B);
  RecoverResult R = recover(B->C);
  EXPECT_EQ(R.Functions, 2u);
  EXPECT_EQ(R.Instructions, 22u); // 20 in k, 2 in f
  EXPECT_EQ(R.Branches, 1u);
  EXPECT_EQ(R.PcRelRefs, 2u);
  EXPECT_EQ(R.RawDescriptors, 0u);
  EXPECT_EQ(R.RawInstructions, 0u);
  EXPECT_TRUE(R.Notes.empty()) << R.Notes.front();
}

TEST(Recover, BranchesAndPcRelativeReferencesAreSymbolic) {
  auto B = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(B);
  RecoverResult R = recover(B->C);
  EXPECT_TRUE(hasLine(R.Asm, "\ts_cbranch_execz .LBB0")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, ".LBB0:")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\ts_getpc_b64 s[4:5]")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, ".Lpc0:")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\ts_add_u32 s4, s4, f@rel32@lo+(.+4-.Lpc0)")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\ts_addc_u32 s5, s5, f@rel32@hi+(.+4-.Lpc0)")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\ts_add_u32 s6, s6, table@rel32@lo+(.+4-.Lpc1)")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\ts_addc_u32 s7, s7, table@rel32@hi+(.+4-.Lpc1)")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\tv_add_u32_e32 v2, 1, v2")) << R.Asm;
}

TEST(Recover, SymbolsDataAndMetadataAreKept) {
  auto B = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(B);
  RecoverResult R = recover(B->C);
  EXPECT_TRUE(hasLine(R.Asm, "\t.globl\tk")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.type\tk,@function")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.type\tf,@function")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.size\tf, .Lfunc_end1-f")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.type\ttable,@object")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.size\ttable, 16")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.byte\t0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, "
                             "0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00"))
      << R.Asm;
  EXPECT_EQ(R.Asm.find("\t.globl\tf"), std::string::npos); // f and table stay local
  EXPECT_EQ(R.Asm.find("\t.globl\ttable"), std::string::npos);
  EXPECT_TRUE(hasLine(R.Asm, "\t.amdgpu_metadata")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.end_amdgpu_metadata")) << R.Asm;
  // The note as YAML (keys and strings quoted so that the assembler reads them back as such).
  EXPECT_TRUE(hasLine(R.Asm, "    '.kernarg_segment_size': 16")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "    '.symbol': 'k.kd'")) << R.Asm;
}

TEST(Recover, DescriptorBecomesDirectives) {
  auto B = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(B);
  RecoverResult R = recover(B->C);
  size_t Begin = R.Asm.find("\t.amdhsa_kernel k\n");
  size_t End = R.Asm.find("\t.end_amdhsa_kernel\n");
  ASSERT_NE(Begin, std::string::npos) << R.Asm;
  ASSERT_NE(End, std::string::npos) << R.Asm;
  std::string Block = R.Asm.substr(Begin, End - Begin);
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_kernarg_size 16")) << Block;
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_user_sgpr_count 2")) << Block;
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1")) << Block;
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_user_sgpr_dispatch_ptr 0")) << Block;
  // 48 VGPRs are granule 5 of 8; 32 SGPRs + 6 (VCC, XNACK, flat scratch) are granule 4, whose
  // largest next_free_sgpr is 40 - 6.
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_next_free_vgpr 48")) << Block;
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_next_free_sgpr 34")) << Block;
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_accum_offset 48")) << Block;
  EXPECT_TRUE(hasLine(Block, "\t\t.amdhsa_reserve_vcc 1")) << Block;
  // gfx942 has architected flat scratch: no such directive.
  EXPECT_EQ(Block.find(".amdhsa_reserve_flat_scratch"), std::string::npos) << Block;
}

TEST(Recover, RecoveredTextReassemblesToTheSameCodeAndDescriptor) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  RecoverResult R = recover(A->C);
  auto B = build(R.Asm, "recovered.s");
  ASSERT_TRUE(B);
  ASSERT_EQ(B->C.Functions.size(), A->C.Functions.size());
  for (size_t I = 0; I < A->C.Functions.size(); ++I) {
    const FunctionExtent &FA = A->C.Functions[I], &FB = B->C.Functions[I];
    EXPECT_EQ(FB.Name, FA.Name);
    EXPECT_EQ(FB.Begin, FA.Begin) << FA.Name;
    EXPECT_EQ(B->C.code(FB), A->C.code(FA)) << FA.Name;
  }
  EXPECT_EQ(A->C.code(A->C.Functions[0]).size(), 116u);
  EXPECT_EQ(A->C.code(A->C.Functions[1]).size(), 8u);
  ASSERT_EQ(B->C.Kernels.size(), 1u);
  EXPECT_EQ(B->C.Kernels[0].Kd.encode(), A->C.Kernels[0].Kd.encode());
  const ElfSection *TA = A->C.section(".rodata"), *TB = B->C.section(".rodata");
  ASSERT_TRUE(TA && TB);
  EXPECT_EQ(TB->Data, TA->Data);
}

TEST(Recover, InexpressibleDescriptorIsWrittenAsBytes) {
  auto A = build(kFixture, "fixture.hsaco");
  ASSERT_TRUE(A);
  // Set a reserved byte (12) of k.kd: no directive can produce it.
  const ElfSymbol &Kd = A->C.Symbols[A->C.Kernels.at(0).DescSymbol];
  const ElfSection *S = A->C.sectionAt(Kd.Value);
  ASSERT_TRUE(S);
  std::string Bytes = A->Bytes;
  uint64_t Off = S->Offset + (Kd.Value - S->Addr) + 12;
  ASSERT_EQ(Bytes[Off], '\0');
  Bytes[Off] = '\x5a';
  auto C = CodeObject::read(Bytes, "raw.hsaco");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  RecoverResult R = recover(*C);
  EXPECT_EQ(R.RawDescriptors, 1u);
  ASSERT_EQ(R.Notes.size(), 1u);
  EXPECT_EQ(R.Notes[0], "descriptor k.kd emitted as bytes: reserved descriptor bytes are not zero");
  EXPECT_EQ(R.Asm.find(".amdhsa_kernel"), std::string::npos) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.size\tk.kd, 64")) << R.Asm;
  EXPECT_TRUE(hasLine(R.Asm, "\t.quad\tk-k.kd")) << R.Asm;
  // And the bytes come back, the reserved one included.
  auto B = build(R.Asm, "raw.s");
  ASSERT_TRUE(B);
  ASSERT_EQ(B->C.Kernels.size(), 1u);
  EXPECT_EQ(B->C.Kernels[0].Kd.Reserved0[0], 0x5a);
  EXPECT_EQ(B->C.Kernels[0].Kd.encode(), C->Kernels[0].Kd.encode());
}

TEST(Recover, SymbolNamesAreQuotedWhenNotPlain) {
  EXPECT_EQ(asmSymbolName("k"), "k");
  EXPECT_EQ(asmSymbolName("_Z3fooPf.kd"), "_Z3fooPf.kd");
  EXPECT_EQ(asmSymbolName("$x"), "$x");
  EXPECT_EQ(asmSymbolName("1k"), "\"1k\"");
  EXPECT_EQ(asmSymbolName("a b"), "\"a b\"");
  EXPECT_EQ(asmSymbolName("q\"x\\"), "\"q\\\"x\\\\\"");
  EXPECT_EQ(asmSymbolName(""), "\"\"");
}

TEST(Recover, StockReassembleCommandCarriesTheFeatures) {
  auto Any = parseTargetId("amdgcn-amd-amdhsa--gfx942", 5);
  auto Off = parseTargetId("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", 5);
  ASSERT_TRUE(Any && Off);
  // The exact LLVM the suite was built with, not whatever llvm-mc is first on PATH (Debian 12's
  // is LLVM 14, which rejects gfx942).
  const std::string Bin = stockLlvmBinDir();
  EXPECT_TRUE(llvm::StringRef(Bin).starts_with("/usr/lib/llvm-")) << Bin;
  EXPECT_EQ(stockReassembleCommand(*Any, "in.s", "out"),
            Bin +
                "/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj in.s -o out.o && " +
                Bin + "/ld.lld -shared out.o -o out");
  EXPECT_EQ(stockReassembleCommand(*Off, "in.s", "out"),
            Bin +
                "/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -mattr=-xnack,+sramecc "
                "-filetype=obj in.s -o out.o && " +
                Bin + "/ld.lld -shared out.o -o out");
}

TEST(Recover, TheHeaderReassemblesBesideTheSourceNeverOverIt) {
  EXPECT_EQ(rebuiltObjectName("K.s"), "K.rebuilt.hsaco");
  EXPECT_EQ(rebuiltObjectName("/tmp/x/vector_add.s"), "/tmp/x/vector_add.rebuilt.hsaco");
  EXPECT_EQ(rebuiltObjectName("k.asm"), "k.asm.rebuilt.hsaco");
}

TEST(Recover, TritonObjectReassemblesToTheSameKernelCode) {
  std::string Path =
      std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/gfx942/vector_add_fp32.hsaco";
  auto O = openCodeObject(Path);
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  const CodeObject &A = (*O)->C;
  RecoverResult R = recover(A);
  EXPECT_EQ(R.Asm.rfind("; asmevo-recovered-asm v1\n; source: fixture.hsaco\n", 0), 0u);
  EXPECT_EQ(R.RawDescriptors, 0u);
  ASSERT_EQ(A.Kernels.size(), 1u);
  auto B = build(R.Asm, "triton.s");
  ASSERT_TRUE(B);
  ASSERT_EQ(B->C.Kernels.size(), 1u);
  const KernelInfo &KA = A.Kernels[0], &KB = B->C.Kernels[0];
  EXPECT_EQ(KB.Name, KA.Name);
  const FunctionExtent *CA = A.kernelCode(KA), *CB = B->C.kernelCode(KB);
  ASSERT_TRUE(CA && CB);
  EXPECT_GT(CA->size(), 0u);
  EXPECT_EQ(B->C.code(*CB), A.code(*CA));
  EXPECT_EQ(KB.Kd.encode(), KA.Kd.encode());
}

} // namespace
