// The static ABI check (asm/AbiCheck.h) on hand-written gfx942 kernels assembled and linked
// in-process: what the original launcher relies on (symbols, kernarg layout, descriptor launch
// bits, target) must not change from K0 to K1 while register counts may; registers the code
// uses beyond its descriptor's allocation, launch limits and a kernarg size the metadata
// contradicts are found in one object; and findings K0 has too are told apart.
#include "asm/AbiCheck.h"
#include "asm/Assembler.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace asmevo;

namespace {

// Kernel k: out[i] = in[i] in place (v0-v2, s0-s3), 16 VGPRs with accum_offset 8, 16 SGPRs.
const char *kBase = R"(
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_dword v2, v1, s[2:3]
	s_waitcnt vmcnt(0)
	global_store_dword v1, v2, s[2:3]
	s_endpgm
.Lk_end:
	.size k, .Lk_end-k

	.rodata
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 8
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .name: buf, .offset: 0, .size: 8, .value_kind: global_buffer }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 22
    .symbol: k.kd
    .vgpr_count: 3
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

std::unique_ptr<Built> build(llvm::StringRef Source, llvm::StringRef Target = "gfx942") {
  auto T = parseTargetId(("amdgcn-amd-amdhsa--" + Target).str(), 5);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return nullptr;
  }
  auto Obj = assembleAndLink(Source, "abi.s", *T);
  if (!Obj) {
    ADD_FAILURE() << llvm::toString(Obj.takeError());
    return nullptr;
  }
  auto B = std::make_unique<Built>();
  B->Bytes = std::move(*Obj);
  auto C = CodeObject::read(B->Bytes, "abi.hsaco");
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return nullptr;
  }
  B->C = std::move(*C);
  return B;
}

// kBase with each From replaced by To (every From must occur).
std::string edit(std::vector<std::pair<std::string, std::string>> Edits) {
  std::string S = kBase;
  for (const auto &[From, To] : Edits) {
    size_t At = S.find(From);
    if (At == std::string::npos) {
      ADD_FAILURE() << "'" << From << "' not in the base source";
      continue;
    }
    for (; At != std::string::npos; At = S.find(From, At + To.size()))
      S.replace(At, From.size(), To);
  }
  return S;
}

std::vector<std::string> whats(const std::vector<AbiViolation> &V) {
  std::vector<std::string> W;
  for (const auto &X : V)
    W.push_back(X.what());
  return W;
}

std::vector<std::string> staticWhats(const CodeObject &C) {
  auto V = staticViolations(C);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return {};
  }
  return whats(*V);
}

using Strings = std::vector<std::string>;

TEST(FrozenAbi, SameSourceHasNoViolations) {
  auto K0 = build(kBase), K1 = build(kBase);
  ASSERT_TRUE(K0 && K1);
  EXPECT_TRUE(checkFrozenAbi(K0->C, K0->C).empty());
  EXPECT_TRUE(checkFrozenAbi(K0->C, K1->C).empty());
}

TEST(FrozenAbi, RegisterCountsAndCodeMayChange) {
  auto K0 = build(kBase);
  auto K1 = build(edit({{".amdhsa_next_free_vgpr 16", ".amdhsa_next_free_vgpr 64"},
                        {".amdhsa_next_free_sgpr 16", ".amdhsa_next_free_sgpr 40"},
                        {"\ts_endpgm\n", "\ts_nop 0\n\ts_endpgm\n"},
                        {".vgpr_count: 3", ".vgpr_count: 64"}}));
  ASSERT_TRUE(K0 && K1);
  EXPECT_EQ(whats(checkFrozenAbi(K0->C, K1->C)), Strings{});
}

TEST(FrozenAbi, KernargSizeAndArgumentsAreFrozen) {
  auto K0 = build(kBase);
  auto K1 = build(
      edit({{".amdhsa_kernarg_size 8", ".amdhsa_kernarg_size 16"},
            {".kernarg_segment_size: 8", ".kernarg_segment_size: 16"},
            {".value_kind: global_buffer }",
             ".value_kind: global_buffer }\n      - { .name: n, .offset: 8, .size: 4, .value_kind: "
             "by_value }"}}));
  ASSERT_TRUE(K0 && K1);
  auto V = checkFrozenAbi(K0->C, K1->C);
  ASSERT_EQ(V.size(), 3u) << llvm::join(whats(V), "\n");
  EXPECT_EQ(V[0].what(), "kernel k: kernarg_size: 8 in K0, 16 here");
  EXPECT_EQ(V[1].Kernel, "k");
  EXPECT_EQ(V[1].Field, ".args");
  // (The detail's path is relative to the key; only its end is pinned here.)
  EXPECT_TRUE(llvm::StringRef(V[1].Detail).ends_with(": 1 vs 2 elements")) << V[1].Detail;
  EXPECT_EQ(V[2].Kernel, "k");
  EXPECT_EQ(V[2].Field, ".kernarg_segment_size");
  EXPECT_TRUE(llvm::StringRef(V[2].Detail).ends_with(": 8 vs 16")) << V[2].Detail;
}

TEST(FrozenAbi, LaunchBitsAreFrozen) {
  auto K0 = build(kBase);
  auto K1 = build(
      edit({{".amdhsa_user_sgpr_kernarg_segment_ptr 1", ".amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
                                                        "\t\t.amdhsa_user_sgpr_dispatch_ptr 1\n"
                                                        "\t\t.amdhsa_system_sgpr_workgroup_id_y 1\n"
                                                        "\t\t.amdhsa_system_vgpr_workitem_id 1"}}));
  ASSERT_TRUE(K0 && K1);
  // The dispatch pointer takes two user SGPRs before the kernarg pointer.
  EXPECT_EQ(whats(checkFrozenAbi(K0->C, K1->C)),
            (Strings{"kernel k: kernel_code_properties.enable_sgpr_dispatch_ptr: 0 in K0, 1 here",
                     "kernel k: compute_pgm_rsrc2.user_sgpr_count: 2 in K0, 4 here",
                     "kernel k: compute_pgm_rsrc2.enable_sgpr_workgroup_id_y: 0 in K0, 1 here",
                     "kernel k: compute_pgm_rsrc2.enable_vgpr_workitem_id: 0 in K0, 1 here"}));
}

TEST(FrozenAbi, RenamedKernelIsMissingAndNew) {
  auto K0 = build(kBase);
  auto K1 = build(edit({{"k:", "k2:"},
                        {"globl k\n", "globl k2\n"},
                        {"type k,", "type k2,"},
                        {".size k, .Lk_end-k", ".size k2, .Lk_end-k2"},
                        {".amdhsa_kernel k\n", ".amdhsa_kernel k2\n"},
                        {".name: k\n", ".name: k2\n"},
                        {".symbol: k.kd", ".symbol: k2.kd"}}));
  ASSERT_TRUE(K0 && K1);
  EXPECT_EQ(
      whats(checkFrozenAbi(K0->C, K1->C)),
      (Strings{"symbol k: exported by K0, missing here",
               "symbol k.kd: exported by K0, missing here", "symbol k2: exported here, not by K0",
               "symbol k2.kd: exported here, not by K0", "kernel k: kernel: missing",
               "kernel k2: kernel: not in K0"}));
}

TEST(FrozenAbi, TargetIsFrozen) {
  auto K0 = build(kBase);
  std::string Src = kBase;
  for (size_t At; (At = Src.find("gfx942")) != std::string::npos;)
    Src.replace(At, 6, "gfx90a");
  auto K1 = build(Src, "gfx90a");
  ASSERT_TRUE(K0 && K1);
  auto V = checkFrozenAbi(K0->C, K1->C);
  ASSERT_FALSE(V.empty());
  EXPECT_EQ(V[0].what(), "e_flags: 0x54C in K0, 0x53F here (amdgcn-amd-amdhsa--gfx942 vs "
                         "amdgcn-amd-amdhsa--gfx90a)");
}

TEST(StaticViolations, FittingKernelHasNone) {
  auto C = build(kBase);
  ASSERT_TRUE(C);
  EXPECT_EQ(staticWhats(C->C), Strings{});
}

TEST(StaticViolations, ArchVgprBeyondTheAllocation) {
  auto C = build(edit({{"global_store_dword v1, v2,", "global_store_dword v1, v40,"}}));
  ASSERT_TRUE(C);
  auto V = staticViolations(C->C);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  ASSERT_EQ(V->size(), 1u);
  EXPECT_EQ((*V)[0].Kernel, "k");
  EXPECT_EQ((*V)[0].Field, "compute_pgm_rsrc1.granulated_workitem_vgpr_count");
  EXPECT_EQ((*V)[0].Detail,
            "the code uses v40; the descriptor allocates 16 VGPRs with accum_offset 8: v0-v15");
}

TEST(StaticViolations, AgprBeyondTheAllocation) {
  auto C = build(edit({{"\ts_endpgm\n", "\tv_accvgpr_write_b32 a9, v2\n\ts_endpgm\n"}}));
  ASSERT_TRUE(C);
  EXPECT_EQ(staticWhats(C->C),
            Strings{"kernel k: compute_pgm_rsrc1.granulated_workitem_vgpr_count: the code uses "
                    "a9; the descriptor allocates 16 VGPRs with accum_offset 8: a0-a7"});
  auto NoAgprs = build(edit({{"\ts_endpgm\n", "\tv_accvgpr_write_b32 a0, v2\n\ts_endpgm\n"},
                             {".amdhsa_next_free_vgpr 16", ".amdhsa_next_free_vgpr 8"}}));
  ASSERT_TRUE(NoAgprs);
  EXPECT_EQ(staticWhats(NoAgprs->C),
            Strings{"kernel k: compute_pgm_rsrc1.granulated_workitem_vgpr_count: the code uses "
                    "a0; the descriptor allocates 8 VGPRs with accum_offset 8: no AGPRs"});
}

TEST(StaticViolations, ArchVgprsSharingRegistersWithAgprs) {
  auto C = build(edit({{"\ts_endpgm\n", "\tv_mov_b32 v10, 0\n\tv_accvgpr_write_b32 a0, v10\n"
                                        "\ts_endpgm\n"}}));
  ASSERT_TRUE(C);
  EXPECT_EQ(staticWhats(C->C),
            Strings{"kernel k: compute_pgm_rsrc3.accum_offset: the code uses v10 and a0-a0; with "
                    "accum_offset 8 they share registers"});
}

TEST(StaticViolations, SgprBeyondTheAllocation) {
  auto C = build(edit({{"\ts_endpgm\n", "\ts_mov_b32 s40, 0\n\ts_endpgm\n"}}));
  ASSERT_TRUE(C);
  // next_free_sgpr 16 + 6 = 22 -> 24 SGPRs, the top 6 reserved (VCC, XNACK, flat scratch).
  EXPECT_EQ(staticWhats(C->C),
            Strings{"kernel k: compute_pgm_rsrc1.granulated_wavefront_sgpr_count: the code uses "
                    "s40; the descriptor allocates 24 SGPRs, 6 of them for VCC/flat "
                    "scratch/XNACK: s0-s17"});
}

TEST(StaticViolations, LaunchBounds) {
  // 208 VGPRs per wave and 1024-item workgroups: 16 waves, 4 per SIMD, 512 / 4 = 128 each.
  auto C =
      build(edit({{".amdhsa_next_free_vgpr 16", ".amdhsa_next_free_vgpr 208"},
                  {".amdhsa_accum_offset 8", ".amdhsa_accum_offset 204"},
                  {".max_flat_workgroup_size: 256", ".max_flat_workgroup_size: 1024"},
                  {".amdhsa_group_segment_fixed_size 0", ".amdhsa_group_segment_fixed_size 70000"},
                  {".group_segment_fixed_size: 0", ".group_segment_fixed_size: 70000"}}));
  ASSERT_TRUE(C);
  EXPECT_EQ(staticWhats(C->C),
            (Strings{"kernel k: compute_pgm_rsrc1.granulated_workitem_vgpr_count: allocates 208 "
                     "VGPRs per wave; a 1024-work-item workgroup (.max_flat_workgroup_size) puts "
                     "4 waves on each SIMD, which leaves 128 VGPRs per wave on gfx942",
                     "kernel k: group_segment_fixed_size: 70000 bytes of LDS; gfx942 has 65536 "
                     "per workgroup"}));
}

TEST(StaticViolations, KernargSizeTheMetadataContradicts) {
  auto C = build(edit({{".amdhsa_kernarg_size 8", ".amdhsa_kernarg_size 16"}}));
  ASSERT_TRUE(C);
  EXPECT_EQ(staticWhats(C->C), Strings{"kernel k: kernarg_size: 16 in the descriptor, 8 in the "
                                       "metadata (.kernarg_segment_size)"});
}

TEST(StaticViolations, GivenScanIsUsed) {
  auto C = build(kBase);
  ASSERT_TRUE(C);
  KernelResources R;
  R.Kernel = "k";
  R.NumVgprs = 17; // as if the code used v16
  EXPECT_EQ(whats(staticViolations(C->C, {R})),
            Strings{"kernel k: compute_pgm_rsrc1.granulated_workitem_vgpr_count: the code uses "
                    "v16; the descriptor allocates 16 VGPRs with accum_offset 8: v0-v15"});
  R.Kernel = "other"; // no such kernel: nothing to check it against
  EXPECT_EQ(whats(checkResources(C->C, {R})), Strings{});
}

TEST(ViolationsNotInK0, KeepsOnlyWhatK0DoesNotHave) {
  AbiViolation A{"k", "f", "1 here"}, B{"k", "g", "2 here"}, C{"", "e_flags", "x"};
  AbiViolation BOther{"k", "g", "3 here"}, BElsewhere{"j", "g", "2 here"};
  std::vector<AbiViolation> Inherited;
  auto New = violationsNotInK0({A, B, C}, {B, C}, &Inherited);
  EXPECT_EQ(whats(New), Strings{"kernel k: f: 1 here"});
  EXPECT_EQ(whats(Inherited), (Strings{"kernel k: g: 2 here", "e_flags: x"}));
  // Kernel, field and detail must all match.
  EXPECT_EQ(whats(violationsNotInK0({B}, {BOther, BElsewhere})), Strings{"kernel k: g: 2 here"});
  EXPECT_EQ(whats(violationsNotInK0({B}, {B})), Strings{});
  EXPECT_EQ(whats(violationsNotInK0({}, {A})), Strings{});
}

TEST(AbiViolation, TextAndJson) {
  AbiViolation K{"k", "kernarg_size", "8 in K0, 16 here"}, O{"", "e_flags", "0x1 in K0"};
  EXPECT_EQ(K.what(), "kernel k: kernarg_size: 8 in K0, 16 here");
  EXPECT_EQ(K.text(), "abi_invalid: kernel k: kernarg_size: 8 in K0, 16 here");
  EXPECT_EQ(O.what(), "e_flags: 0x1 in K0");
  EXPECT_EQ(O.text(), "abi_invalid: e_flags: 0x1 in K0");
  nlohmann::json J = violationsJson({K, O});
  EXPECT_EQ(J.dump(), R"([{"detail":"8 in K0, 16 here","field":"kernarg_size","kernel":"k"},)"
                      R"({"detail":"0x1 in K0","field":"e_flags","kernel":""}])");
  EXPECT_EQ(violationsJson({}).dump(), "[]");
}

} // namespace
