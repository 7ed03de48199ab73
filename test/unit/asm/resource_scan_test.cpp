// The resource scan (asm/ResourceScan.h) on small hand-written kernels assembled and linked
// in-process: the registers each uses, and the counts and descriptor granules that follow,
// checked against figures worked out by hand from the code and LLVM's rules (accum_offset
// aligned to 4, AGPRs after it on gfx90a+; VCC, XNACK mask and flat scratch SGPRs on top);
// callees reached through s_getpc-relative calls, indirect calls and indirect indexing; and
// registerFit against the descriptor's allocation.
#include "asm/Assembler.h"
#include "asm/ResourceScan.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace asmevo;

namespace {

// An assembled and linked code object with the bytes it was read from.
struct Built {
  std::string Bytes;
  CodeObject C;
};

std::unique_ptr<Built> build(const std::string &Target, const std::string &Source) {
  auto T = parseTargetId("amdgcn-amd-amdhsa--" + Target, 5);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return nullptr;
  }
  auto Obj = assembleAndLink(Source, "scan.s", *T);
  if (!Obj) {
    ADD_FAILURE() << llvm::toString(Obj.takeError());
    return nullptr;
  }
  auto B = std::make_unique<Built>();
  B->Bytes = std::move(*Obj);
  auto C = CodeObject::read(B->Bytes, "scan.hsaco");
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return nullptr;
  }
  B->C = std::move(*C);
  return B;
}

// One kernel `k` (one 8-byte argument) whose code is Code, with the descriptor lines Kd, on
// Target; Extra goes after the kernel in .text (device functions).
std::string kernelSource(const std::string &Target, const std::string &Code, const std::string &Kd,
                         const std::string &Extra = "") {
  return "\t.amdgcn_target \"amdgcn-amd-amdhsa--" + Target + R"("
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
)" + Code +
         R"(
.Lk_end:
	.size k, .Lk_end-k
)" + Extra +
         R"(
	.rodata
	.p2align 6
	.amdhsa_kernel k
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 8
)" + Kd + R"(
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 32
    .symbol: k.kd
    .vgpr_count: 16
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--)" +
         Target + R"(
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
)";
}

// Highest registers: v5, a3, s21; VCC written by the compare. Nothing else (EXEC is not
// counted, FLAT_SCR implied by global_load is not counted).
const char *kSmallBody = R"(
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_dword v5, v1, s[2:3]
	s_waitcnt vmcnt(0)
	v_accvgpr_write_b32 a3, v5
	v_cmp_gt_u32 vcc, 64, v0
	s_mov_b32 s21, 0
	s_endpgm)";

const char *kUnifiedKd = R"(
	.amdhsa_next_free_vgpr 16
	.amdhsa_next_free_sgpr 24
	.amdhsa_accum_offset 8)";

const char *kSplitKd = R"(
	.amdhsa_next_free_vgpr 8
	.amdhsa_next_free_sgpr 24)";

std::vector<KernelResources> scan(const CodeObject &C) {
  auto S = scanKernelResources(C);
  if (!S) {
    ADD_FAILURE() << llvm::toString(S.takeError());
    return {};
  }
  return std::move(*S);
}

TEST(ResourceScan, SmallKernelOnGfx942) {
  auto B = build("gfx942", kernelSource("gfx942", kSmallBody, kUnifiedKd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  const KernelResources &R = S[0];
  EXPECT_EQ(R.Kernel, "k");
  EXPECT_EQ(R.Use.MaxVgpr, 5);
  EXPECT_EQ(R.Use.MaxAgpr, 3);
  EXPECT_EQ(R.Use.MaxSgpr, 21);
  EXPECT_TRUE(R.Use.Vcc);
  EXPECT_FALSE(R.Use.FlatScratch);
  EXPECT_FALSE(R.Use.XnackMask);
  EXPECT_TRUE(R.Use.complete());
  EXPECT_TRUE(R.Callees.empty());
  EXPECT_EQ(R.NumVgprs, 6u);
  EXPECT_EQ(R.NumAgprs, 4u);
  EXPECT_EQ(R.AccumOffset, 8u); // alignTo(6, 4)
  EXPECT_EQ(R.TotalVgprs, 12u); // 8 + 4 AGPRs
  EXPECT_EQ(R.NumSgprs, 22u);
  EXPECT_EQ(R.TotalSgprs, 28u); // + 6: flat scratch is architected on gfx942
  EXPECT_EQ(R.VgprBlocks, 1u);  // 12 in granules of 8
  EXPECT_EQ(R.SgprBlocks, 3u);  // 28 in granules of 8
}

TEST(ResourceScan, SmallKernelOnGfx90aWithoutXnack) {
  auto B = build("gfx90a:xnack-", kernelSource("gfx90a:xnack-", kSmallBody, kUnifiedKd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].TotalVgprs, 12u);
  EXPECT_EQ(S[0].AccumOffset, 8u);
  EXPECT_EQ(S[0].TotalSgprs, 24u); // + 2 for VCC only
  EXPECT_EQ(S[0].VgprBlocks, 1u);
  EXPECT_EQ(S[0].SgprBlocks, 2u);
}

TEST(ResourceScan, SmallKernelOnGfx908HasSeparateAgprFile) {
  auto B = build("gfx908", kernelSource("gfx908", kSmallBody, kSplitKd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].NumVgprs, 6u);
  EXPECT_EQ(S[0].NumAgprs, 4u);
  EXPECT_EQ(S[0].AccumOffset, 0u);
  EXPECT_EQ(S[0].TotalVgprs, 6u);  // max(6, 4): AGPRs are a file of their own
  EXPECT_EQ(S[0].TotalSgprs, 26u); // + 4: VCC and the XNACK mask (xnack "any")
  EXPECT_EQ(S[0].VgprBlocks, 1u);  // 6 in granules of 4
  EXPECT_EQ(S[0].SgprBlocks, 3u);
}

TEST(ResourceScan, KernelWithoutVectorRegisters) {
  auto B = build("gfx942", kernelSource("gfx942", "\ts_mov_b32 s3, 0\n\ts_endpgm", kUnifiedKd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_EQ(S[0].Use.MaxVgpr, -1);
  EXPECT_EQ(S[0].Use.MaxAgpr, -1);
  EXPECT_FALSE(S[0].Use.Vcc);
  EXPECT_EQ(S[0].NumVgprs, 0u);
  EXPECT_EQ(S[0].NumAgprs, 0u);
  EXPECT_EQ(S[0].AccumOffset, 4u); // alignTo(max(1, 0), 4)
  EXPECT_EQ(S[0].TotalVgprs, 0u);
  EXPECT_EQ(S[0].NumSgprs, 4u);
  EXPECT_EQ(S[0].TotalSgprs, 10u);
  EXPECT_EQ(S[0].VgprBlocks, 0u);
  EXPECT_EQ(S[0].SgprBlocks, 1u);
}

// A device function `f` (local, sized) that uses v40 and s50, called through an
// s_getpc-relative address as LLVM emits calls.
const char *kCallee = R"(
	.p2align 2
	.type f,@function
f:
	v_mov_b32 v40, 0
	s_mov_b32 s50, 0
	s_setpc_b64 s[30:31]
.Lf_end:
	.size f, .Lf_end-f
)";

TEST(ResourceScan, DirectCallAddsTheCalleesRegisters) {
  const char *Code = R"(
	v_mov_b32 v1, 0
	s_getpc_b64 s[4:5]
	s_add_u32 s4, s4, f@rel32@lo+4
	s_addc_u32 s5, s5, f@rel32@hi+12
	s_swappc_b64 s[30:31], s[4:5]
	s_endpgm)";
  auto B = build("gfx942", kernelSource("gfx942", Code, kUnifiedKd, kCallee));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u); // f is no kernel
  const KernelResources &R = S[0];
  ASSERT_EQ(R.Callees.size(), 1u);
  EXPECT_EQ(R.Callees[0], "f");
  EXPECT_FALSE(R.Use.IndirectCall);
  EXPECT_TRUE(R.Use.complete());
  EXPECT_EQ(R.Use.MaxVgpr, 40);
  EXPECT_EQ(R.Use.MaxSgpr, 50);
  EXPECT_EQ(R.NumVgprs, 41u);
  EXPECT_EQ(R.NumSgprs, 51u);
  EXPECT_FALSE(R.Use.Vcc); // neither function touches VCC
  EXPECT_EQ(R.TotalSgprs, 57u);
}

TEST(ResourceScan, IndirectCallTakesEveryFunctionAndVccAndFlatScratch) {
  // The callee address comes from the kernarg segment: the scan cannot follow it.
  const char *Code = R"(
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	s_swappc_b64 s[30:31], s[4:5]
	s_endpgm)";
  auto B = build("gfx942", kernelSource("gfx942", Code, kUnifiedKd, kCallee));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  const KernelResources &R = S[0];
  EXPECT_TRUE(R.Use.IndirectCall);
  EXPECT_FALSE(R.Use.IndirectIndexing);
  EXPECT_FALSE(R.Use.complete());
  EXPECT_TRUE(R.Callees.empty());
  EXPECT_EQ(R.NumVgprs, 41u); // f's v40, as LLVM assumes for a call it cannot see
  EXPECT_EQ(R.NumSgprs, 51u);
  EXPECT_TRUE(R.Use.Vcc);
  EXPECT_TRUE(R.Use.FlatScratch);
}

TEST(ResourceScan, MovrelMakesTheScanIncomplete) {
  const char *Code = R"(
	s_mov_b32 m0, 8
	s_nop 0
	s_movrels_b32 s9, s0
	s_endpgm)";
  auto B = build("gfx942", kernelSource("gfx942", Code, kUnifiedKd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  EXPECT_TRUE(S[0].Use.IndirectIndexing);
  EXPECT_FALSE(S[0].Use.IndirectCall);
  EXPECT_FALSE(S[0].Use.complete());
  EXPECT_EQ(S[0].NumSgprs, 10u); // what the instruction names: a lower bound
}

TEST(ResourceScan, RegisterUseMergeTakesMaximaAndFlags) {
  RegisterUse A, B;
  A.MaxVgpr = 7;
  A.MaxSgpr = 3;
  A.Vcc = true;
  B.MaxVgpr = 2;
  B.MaxAgpr = 5;
  B.MaxSgpr = 9;
  B.IndirectIndexing = true;
  A.merge(B);
  EXPECT_EQ(A.MaxVgpr, 7);
  EXPECT_EQ(A.MaxAgpr, 5);
  EXPECT_EQ(A.MaxSgpr, 9);
  EXPECT_TRUE(A.Vcc);
  EXPECT_FALSE(A.FlatScratch);
  EXPECT_TRUE(A.IndirectIndexing);
  EXPECT_FALSE(A.complete());
}

TEST(ResourceScan, RegisterFitOfTheDescriptorsAllocation) {
  auto B = build("gfx942", kernelSource("gfx942", kSmallBody, kUnifiedKd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  RegisterFit F = registerFit(B->C.Kernels.at(0).Kd, B->C.Target, S[0]);
  // next_free_vgpr 16 with accum_offset 8; next_free_sgpr 24 + 6 -> 32 SGPRs.
  EXPECT_EQ(F.Alloc.UnifiedVgprs, 16u);
  EXPECT_EQ(F.Alloc.AccumOffset, 8u);
  EXPECT_EQ(F.Alloc.ArchVgprs, 16u);
  EXPECT_EQ(F.Alloc.Agprs, 8u);
  EXPECT_EQ(F.Alloc.Sgprs, 32u);
  EXPECT_EQ(F.Alloc.ExtraSgprs, 6u);
  EXPECT_EQ(F.Alloc.NumberedSgprs, 26u);
  EXPECT_EQ(F.NeedArchVgprs, 6u);
  EXPECT_EQ(F.NeedAgprs, 4u);
  EXPECT_EQ(F.NeedSgprs, 22u);
  EXPECT_TRUE(F.archFits());
  EXPECT_TRUE(F.agprsFit());
  EXPECT_FALSE(F.overlaps());
  EXPECT_TRUE(F.sgprsFit());
  EXPECT_TRUE(F.fits());
}

TEST(ResourceScan, RegisterFitFindsEachShortfall) {
  // v10 and a0 with accum_offset 8: the arch VGPRs reach into the AGPRs; s40 with 16 SGPRs.
  const char *Code = R"(
	v_mov_b32 v10, 0
	v_accvgpr_write_b32 a0, v10
	s_mov_b32 s40, 0
	s_endpgm)";
  const char *Kd = R"(
	.amdhsa_next_free_vgpr 16
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 8)";
  auto B = build("gfx942", kernelSource("gfx942", Code, Kd));
  ASSERT_TRUE(B);
  auto S = scan(B->C);
  ASSERT_EQ(S.size(), 1u);
  RegisterFit F = registerFit(B->C.Kernels.at(0).Kd, B->C.Target, S[0]);
  EXPECT_EQ(F.NeedArchVgprs, 11u);
  EXPECT_EQ(F.NeedAgprs, 1u);
  EXPECT_TRUE(F.archFits()); // v10 is inside the 16-register block
  EXPECT_TRUE(F.agprsFit());
  EXPECT_TRUE(F.overlaps()); // ... but past accum_offset 8, where a0 lives
  EXPECT_EQ(F.Alloc.Sgprs, 16u);
  EXPECT_EQ(F.Alloc.NumberedSgprs, 10u);
  EXPECT_FALSE(F.sgprsFit());
  EXPECT_FALSE(F.fits());
}

} // namespace
