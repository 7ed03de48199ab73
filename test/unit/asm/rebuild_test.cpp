// The rebuild (asm/Rebuild.h) of hand-written gfx942 kernels assembled and linked in-process:
// unchanged recovered text rebuilds to the same kernel bytes and descriptor; declared registers
// are kept, raised only where an edit needs more (descriptor directives, then the metadata's
// counts) and lowered only on request; an ABI change against K0 is a violation, and what K0
// already does is inherited rather than refused.
#include "asm/Assembler.h"
#include "asm/Rebuild.h"
#include "asm/Recover.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace asmevo;

namespace {

// Kernel k in the style of a hand-written kernel: out[i] = in[i] + 1 for i < n. The code uses
// v0-v3, s0-s12 and VCC; the descriptor declares more (64 VGPRs, 32 SGPRs).
const char *kSource = R"(
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dword s12, s[0:1], 0x10
	v_lshl_add_u32 v3, s2, 6, v0
	v_lshlrev_b32_e32 v1, 2, v3
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_i32_e32 vcc, s12, v3
	s_and_saveexec_b64 s[10:11], vcc
	s_cbranch_execz .Ldone
	global_load_dword v2, v1, s[6:7]
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v2, 1.0, v2
	global_store_dword v1, v2, s[4:5]
.Ldone:
	s_endpgm

	.rodata
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_kernarg_size 24
		.amdhsa_next_free_vgpr 64
		.amdhsa_next_free_sgpr 32
		.amdhsa_accum_offset 64
		.amdhsa_reserve_vcc 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .name: out, .offset: 0, .size: 8, .value_kind: global_buffer }
      - { .address_space: global, .name: in, .offset: 8, .size: 8, .value_kind: global_buffer }
      - { .name: n, .offset: 16, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 256
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 38
    .symbol: k.kd
    .vgpr_count: 64
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
)";

struct Built {
  std::string Bytes;
  CodeObject C;
};

std::unique_ptr<Built> read(std::string Bytes, llvm::StringRef Name) {
  auto B = std::make_unique<Built>();
  B->Bytes = std::move(Bytes);
  auto C = CodeObject::read(B->Bytes, Name);
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return nullptr;
  }
  B->C = std::move(*C);
  return B;
}

std::unique_ptr<Built> build(llvm::StringRef Source) {
  auto T = parseTargetId("amdgcn-amd-amdhsa--gfx942", 5);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return nullptr;
  }
  auto Obj = assembleAndLink(Source, "k0.s", *T);
  if (!Obj) {
    ADD_FAILURE() << llvm::toString(Obj.takeError());
    return nullptr;
  }
  return read(std::move(*Obj), "k0.hsaco");
}

// Text with From replaced by To (From must occur once).
std::string edit(std::string S, const std::string &From, const std::string &To) {
  size_t At = S.find(From);
  if (At == std::string::npos || S.find(From, At + 1) != std::string::npos) {
    ADD_FAILURE() << "'" << From << "' does not occur exactly once in\n" << S;
    return S;
  }
  return S.replace(At, From.size(), To);
}

std::string recovered(const CodeObject &C) {
  auto R = recoverAssembly(C, C.Path, "0123abcd");
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return "";
  }
  return R->Asm;
}

std::vector<std::string> changes(const RebuildResult &R) {
  std::vector<std::string> C;
  for (const auto &X : R.Changes)
    C.push_back(X.Kernel + " " + X.Field + " " + std::to_string(X.Old) + " -> " +
                std::to_string(X.New));
  return C;
}

std::vector<std::string> whats(const std::vector<AbiViolation> &V) {
  std::vector<std::string> W;
  for (const auto &X : V)
    W.push_back(X.what());
  return W;
}

TEST(Rebuild, UnchangedRecoveredTextGivesTheSameKernel) {
  auto K0 = build(kSource);
  ASSERT_TRUE(K0);
  auto R = rebuildFromAssembly(recovered(K0->C), "k.s", &K0->C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Violations.empty()) << R->Violations.front().text();
  EXPECT_TRUE(R->Inherited.empty());
  EXPECT_TRUE(R->Changes.empty());
  EXPECT_TRUE(R->NotShrunk.empty());
  EXPECT_EQ(R->Assemblies, 1u);
  auto K1 = read(R->Object, "k1.hsaco");
  ASSERT_TRUE(K1);
  ASSERT_EQ(K1->C.Kernels.size(), 1u);
  const KernelInfo &A = K0->C.Kernels[0], &B = K1->C.Kernels[0];
  EXPECT_EQ(B.EntryAddr, A.EntryAddr);
  EXPECT_EQ(K1->C.code(*K1->C.kernelCode(B)), K0->C.code(*K0->C.kernelCode(A)));
  EXPECT_EQ(K1->C.code(*K1->C.kernelCode(B)).size(), 72u);
  EXPECT_EQ(B.Kd.encode(), A.Kd.encode());
  ASSERT_EQ(R->Resources.size(), 1u);
  EXPECT_EQ(R->Resources[0].NumVgprs, 4u);
  EXPECT_EQ(R->Resources[0].NumSgprs, 13u);
  ASSERT_EQ(R->Occupancies.size(), 1u);
  EXPECT_FALSE(R->Occupancies[0].Resized);
  ASSERT_TRUE(R->Occupancies[0].Before.has_value());
  EXPECT_EQ(R->Occupancies[0].Now.WavesPerSimd, R->Occupancies[0].Before->WavesPerSimd);
}

TEST(Rebuild, DeclaredResourcesAreKept) {
  auto R = rebuildFromAssembly(kSource, "k.s", nullptr);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Changes.empty());
  EXPECT_EQ(R->Assemblies, 1u);
  EXPECT_TRUE(R->Violations.empty());
  auto K1 = read(R->Object, "k1.hsaco");
  ASSERT_TRUE(K1);
  const KernelDescriptor &Kd = K1->C.Kernels.at(0).Kd;
  EXPECT_EQ(Kd.granulatedVgprCount(), 7u); // 64 VGPRs in granules of 8
  EXPECT_EQ(Kd.accumOffset(), 64u);
  EXPECT_EQ(Kd.granulatedSgprCount(), 4u); // 32 + 6 reserved in granules of 8
  EXPECT_EQ(Kd.KernargSize, 24u);
  EXPECT_EQ(Metadata::getUInt(*K1->C.Kernels[0].Meta, ".vgpr_count"), 64u);
  EXPECT_EQ(Metadata::getUInt(*K1->C.Kernels[0].Meta, ".sgpr_count"), 38u);
}

TEST(Rebuild, ShrinkLowersToWhatTheCodeUses) {
  RebuildOptions O;
  O.ShrinkResources = true;
  auto R = rebuildFromAssembly(kSource, "k.s", nullptr, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // v0-v3: 4 VGPRs, accum_offset 4; s0-s12: 13 SGPRs (+ 6 reserved = 19 in the metadata).
  EXPECT_EQ(changes(*R), (std::vector<std::string>{
                             "k .amdhsa_next_free_vgpr 64 -> 4",
                             "k .amdhsa_next_free_sgpr 32 -> 13", "k .amdhsa_accum_offset 64 -> 4",
                             "k .vgpr_count 64 -> 4", "k .sgpr_count 38 -> 19"}));
  EXPECT_EQ(R->Assemblies, 2u);
  EXPECT_TRUE(R->Violations.empty()) << R->Violations.front().text();
  auto K1 = read(R->Object, "k1.hsaco");
  ASSERT_TRUE(K1);
  const KernelDescriptor &Kd = K1->C.Kernels.at(0).Kd;
  EXPECT_EQ(Kd.granulatedVgprCount(), 0u);
  EXPECT_EQ(Kd.accumOffset(), 4u);
  EXPECT_EQ(Kd.granulatedSgprCount(), 2u);
  EXPECT_EQ(Metadata::getUInt(*K1->C.Kernels[0].Meta, ".vgpr_count"), 4u);
  EXPECT_EQ(Metadata::getUInt(*K1->C.Kernels[0].Meta, ".sgpr_count"), 19u);
  ASSERT_EQ(R->Occupancies.size(), 1u);
  EXPECT_TRUE(R->Occupancies[0].Resized);
}

TEST(Rebuild, ShrinkIsRefusedUnderIndirectIndexing) {
  std::string Src = edit(kSource, "\ts_endpgm\n",
                         "\ts_mov_b32 m0, 8\n\ts_movrels_b32 s9, s0\n"
                         "\ts_endpgm\n");
  RebuildOptions O;
  O.ShrinkResources = true;
  auto R = rebuildFromAssembly(Src, "k.s", nullptr, O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->NotShrunk, std::vector<std::string>{
                              "k: registers are indexed indirectly (s_set_gpr_idx, movrel)"});
  EXPECT_TRUE(R->Changes.empty());
  EXPECT_EQ(R->Assemblies, 1u);
}

TEST(Rebuild, EditNeedingMoreVgprsRaisesThem) {
  auto K0 = build(kSource);
  ASSERT_TRUE(K0);
  std::string Text =
      edit(recovered(K0->C), "\tv_add_f32_e32 v2, 1.0, v2\n", "\tv_add_f32_e32 v2, 1.0, v70\n");
  auto R = rebuildFromAssembly(Text, "k.s", &K0->C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // v70: 71 arch VGPRs, accum_offset alignTo(71, 4) = 72, no AGPRs.
  EXPECT_EQ(changes(*R), (std::vector<std::string>{"k .amdhsa_next_free_vgpr 64 -> 72",
                                                   "k .amdhsa_accum_offset 64 -> 72",
                                                   "k .vgpr_count 64 -> 71"}));
  EXPECT_EQ(R->Assemblies, 2u);
  EXPECT_TRUE(R->Violations.empty()) << R->Violations.front().text();
  auto K1 = read(R->Object, "k1.hsaco");
  ASSERT_TRUE(K1);
  const KernelDescriptor &Kd = K1->C.Kernels.at(0).Kd;
  EXPECT_EQ(Kd.granulatedVgprCount(), 8u); // 72 in granules of 8
  EXPECT_EQ(Kd.accumOffset(), 72u);
  EXPECT_EQ(Kd.granulatedSgprCount(), 4u); // SGPRs as declared
  ASSERT_EQ(R->Occupancies.size(), 1u);
  EXPECT_TRUE(R->Occupancies[0].Resized);
}

TEST(Rebuild, EditNeedingMoreSgprsRaisesThem) {
  auto K0 = build(kSource);
  ASSERT_TRUE(K0);
  std::string Text = edit(recovered(K0->C), "\ts_load_dword s12, s[0:1], 0x10\n",
                          "\ts_load_dword s40, s[0:1], 0x10\n");
  Text = edit(Text, "\tv_cmp_gt_i32_e32 vcc, s12, v3\n", "\tv_cmp_gt_i32_e32 vcc, s40, v3\n");
  auto R = rebuildFromAssembly(Text, "k.s", &K0->C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // The recovered block says next_free_sgpr 34 (the granule's largest); s40 needs 41.
  EXPECT_EQ(changes(*R), (std::vector<std::string>{"k .amdhsa_next_free_sgpr 34 -> 41",
                                                   "k .sgpr_count 38 -> 47"}));
  EXPECT_TRUE(R->Violations.empty()) << R->Violations.front().text();
  auto K1 = read(R->Object, "k1.hsaco");
  ASSERT_TRUE(K1);
  EXPECT_EQ(K1->C.Kernels.at(0).Kd.granulatedSgprCount(), 5u); // 41 + 6 in granules of 8
  EXPECT_EQ(K1->C.Kernels.at(0).Kd.granulatedVgprCount(), 7u);
}

TEST(Rebuild, KernargSizeChangeAgainstK0IsAViolation) {
  auto K0 = build(kSource);
  ASSERT_TRUE(K0);
  std::string Text =
      edit(recovered(K0->C), "\t\t.amdhsa_kernarg_size 24\n", "\t\t.amdhsa_kernarg_size 32\n");
  auto R = rebuildFromAssembly(Text, "k.s", &K0->C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(
      whats(R->Violations),
      (std::vector<std::string>{"kernel k: kernarg_size: 24 in K0, 32 here",
                                "kernel k: kernarg_size: 32 in the descriptor, 24 in the metadata "
                                "(.kernarg_segment_size)"}));
  EXPECT_EQ(R->Violations[0].text(), "abi_invalid: kernel k: kernarg_size: 24 in K0, 32 here");
  EXPECT_TRUE(R->Inherited.empty());
  // Without K0 only the contradiction inside the object is found.
  auto Alone = rebuildFromAssembly(Text, "k.s", nullptr);
  ASSERT_TRUE(bool(Alone)) << llvm::toString(Alone.takeError());
  EXPECT_EQ(whats(Alone->Violations),
            std::vector<std::string>{"kernel k: kernarg_size: 32 in the descriptor, 24 in the "
                                     "metadata (.kernarg_segment_size)"});
}

TEST(Rebuild, ArgumentChangeAgainstK0IsAViolation) {
  auto K0 = build(kSource);
  ASSERT_TRUE(K0);
  std::string Text =
      edit(recovered(K0->C), "'.name': 'n'\n        '.offset': 16\n        '.size': 4",
           "'.name': 'n'\n        '.offset': 16\n        '.size': 8");
  auto R = rebuildFromAssembly(Text, "k.s", &K0->C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Violations.size(), 1u) << R->Violations.front().text();
  EXPECT_EQ(R->Violations[0].Kernel, "k");
  EXPECT_EQ(R->Violations[0].Field, ".args");
  EXPECT_EQ(R->Violations[0].Detail, "[2].size: 4 vs 8");
}

TEST(Rebuild, WhatK0AlreadyDoesIsInherited) {
  // K0 uses v40 but allocates 8 VGPRs: a finding of K0's own.
  std::string Src =
      edit(kSource, "\tv_add_f32_e32 v2, 1.0, v2\n", "\tv_add_f32_e32 v2, 1.0, v40\n");
  Src = edit(Src, ".amdhsa_next_free_vgpr 64", ".amdhsa_next_free_vgpr 8");
  Src = edit(Src, ".amdhsa_accum_offset 64", ".amdhsa_accum_offset 8");
  auto K0 = build(Src);
  ASSERT_TRUE(K0);
  const std::string Finding = "kernel k: compute_pgm_rsrc1.granulated_workitem_vgpr_count: the "
                              "code uses v40; the descriptor allocates 8 VGPRs with accum_offset "
                              "8: v0-v7";
  std::string Text = recovered(K0->C);
  auto R = rebuildFromAssembly(Text, "k.s", &K0->C);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Changes.empty()); // needs no more than K0 did: the declaration stays
  EXPECT_TRUE(R->Violations.empty()) << R->Violations.front().text();
  EXPECT_EQ(whats(R->Inherited), std::vector<std::string>{Finding});
  // Without K0 the rebuild raises the allocation to cover v40 instead.
  auto Alone = rebuildFromAssembly(Text, "k.s", nullptr);
  ASSERT_TRUE(bool(Alone)) << llvm::toString(Alone.takeError());
  EXPECT_EQ(changes(*Alone), (std::vector<std::string>{"k .amdhsa_next_free_vgpr 8 -> 44",
                                                       "k .amdhsa_accum_offset 8 -> 44"}));
  EXPECT_TRUE(Alone->Violations.empty()) << Alone->Violations.front().text();
}

TEST(Rebuild, TextWithoutTargetIsAnError) {
  auto R = rebuildFromAssembly("\t.text\n\ts_endpgm\n", "bad.s", nullptr);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "'bad.s': no .amdgcn_target directive: the target is unknown");
}

TEST(Rebuild, AssemblerErrorNamesTheLine) {
  std::string Src = edit(kSource, "\tv_add_f32_e32 v2, 1.0, v2\n", "\tv_bogus_op v2\n");
  auto R = rebuildFromAssembly(Src, "bad.s", nullptr);
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()), "'bad.s':19: invalid instruction: 'v_bogus_op v2'");
}

} // namespace
