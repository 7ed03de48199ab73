// The hand-written gfx942 code object the asm tests share, and build(), which assembles and
// links text in-process and reads the result.
#pragma once

#include "asm/Assembler.h"
#include "asm/LineMap.h"
#include "asm/SchedInfo.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace asmevo::test {

// Kernel k: a guarded load/add/store (one branch), a call of device function f and a load of
// `table`, both through s_getpc_b64-relative addresses. Code offsets in k: v_add_u32 at 0x30,
// the branch target (.Ldone) at 0x3c, k is 116 bytes, f 8.
inline const char *kFixture = R"(
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dword s8, s[0:1], 0x8
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, s8, v0
	s_and_saveexec_b64 s[10:11], vcc
	s_cbranch_execz .Ldone
	global_load_dword v2, v1, s[2:3]
	s_waitcnt vmcnt(0)
	v_add_u32_e32 v2, 1, v2
	global_store_dword v1, v2, s[2:3]
.Ldone:
	s_getpc_b64 s[4:5]
	s_add_u32 s4, s4, f@rel32@lo+4
	s_addc_u32 s5, s5, f@rel32@hi+12
	s_swappc_b64 s[30:31], s[4:5]
	s_getpc_b64 s[6:7]
	s_add_u32 s6, s6, table@rel32@lo+4
	s_addc_u32 s7, s7, table@rel32@hi+12
	s_load_dword s9, s[6:7], 0x0
	s_endpgm
.Lk_end:
	.size k, .Lk_end-k

	.p2align 2
	.type f,@function
f:
	v_mov_b32 v40, 0
	s_setpc_b64 s[30:31]
.Lf_end:
	.size f, .Lf_end-f

	.rodata
	.p2align 4
	.type table,@object
table:
	.long 1, 2, 3, 4
	.size table, 16

	.p2align 6
	.amdhsa_kernel k
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_kernarg_size 16
	.amdhsa_next_free_vgpr 48
	.amdhsa_next_free_sgpr 32
	.amdhsa_accum_offset 48
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .name: buf, .offset: 0, .size: 8, .value_kind: global_buffer }
      - { .name: n, .offset: 8, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 256
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 38
    .symbol: k.kd
    .vgpr_count: 41
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

// Assemble and link Source for Target and read the result (named Name).
inline std::unique_ptr<Built> build(llvm::StringRef Source, llvm::StringRef Name,
                                    llvm::StringRef Target = "gfx942") {
  auto T = parseTargetId(("amdgcn-amd-amdhsa--" + Target).str(), 5);
  if (!T) {
    ADD_FAILURE() << llvm::toString(T.takeError());
    return nullptr;
  }
  auto Obj = assembleAndLink(Source, Name, *T);
  if (!Obj) {
    ADD_FAILURE() << llvm::toString(Obj.takeError());
    return nullptr;
  }
  auto B = std::make_unique<Built>();
  B->Bytes = std::move(*Obj);
  auto C = CodeObject::read(B->Bytes, Name);
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return nullptr;
  }
  B->C = std::move(*C);
  return B;
}

// A one-kernel source: kernel `k` for Target runs Body, then s_endpgm. With Buffer it takes one
// global_buffer argument (the kernarg pointer in s[0:1]); else none. Vgprs/Accum: its
// .amdhsa_next_free_vgpr and .amdhsa_accum_offset; Lds: its group segment bytes.
inline std::string kernelSource(const std::string &Target, const std::string &Body,
                                unsigned Vgprs = 64, unsigned Accum = 32, bool Buffer = false,
                                unsigned Lds = 0) {
  std::string V = std::to_string(Vgprs), Kernarg = Buffer ? "8" : "0";
  return "\t.amdgcn_target \"amdgcn-amd-amdhsa--" + Target +
         "\"\n\t.amdhsa_code_object_version 5\n\t.text\n\t.globl k\n\t.p2align 8\n"
         "\t.type k,@function\nk:\n" +
         Body + "\ts_endpgm\n.Lk_end:\n\t.size k, .Lk_end-k\n\t.rodata\n\t.p2align 6\n" +
         "\t.amdhsa_kernel k\n" +
         (Buffer ? "\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n\t.amdhsa_kernarg_size 8\n" : "") +
         "\t.amdhsa_next_free_vgpr " + V + "\n\t.amdhsa_next_free_sgpr 16\n" +
         "\t.amdhsa_accum_offset " + std::to_string(Accum) + "\n" +
         (Lds ? "\t.amdhsa_group_segment_fixed_size " + std::to_string(Lds) + "\n" : "") +
         "\t.end_amdhsa_kernel\n\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .args:" +
         (Buffer ? "\n      - { .address_space: global, .name: buf, .offset: 0, .size: 8, "
                   ".value_kind: global_buffer }\n"
                 : " []\n") +
         "    .group_segment_fixed_size: " + std::to_string(Lds) +
         "\n    .kernarg_segment_align: 8\n    .kernarg_segment_size: " + Kernarg +
         "\n    .max_flat_workgroup_size: 256\n    .name: k\n"
         "    .private_segment_fixed_size: 0\n    .sgpr_count: 16\n    .symbol: k.kd\n"
         "    .vgpr_count: " +
         V + "\n    .wavefront_size: 64\namdhsa.target: amdgcn-amd-amdhsa--" + Target +
         "\namdhsa.version: [1, 2]\n...\n\t.end_amdgpu_metadata\n";
}

// A hand-written kernel `k` built and mapped: its object, instruction costs and text lines.
struct MappedKernel {
  std::unique_ptr<Built> B;
  std::unique_ptr<SchedInfo> Sched;
  KernelLines Map;
};

// Build Src (a kernelSource() text, named Name) and map kernel k's lines; false (with a
// failure recorded) if any step fails.
inline bool mapKernel(MappedKernel &K, const std::string &Src, llvm::StringRef Name) {
  K.B = build(Src, Name);
  if (!K.B)
    return false;
  auto S = SchedInfo::create(K.B->C);
  EXPECT_TRUE(bool(S)) << (S ? "" : llvm::toString(S.takeError()));
  if (!S)
    return false;
  K.Sched = std::move(*S);
  auto M = mapKernelLines(K.B->C, *K.Sched, Src, "k");
  EXPECT_TRUE(bool(M)) << (M ? "" : llvm::toString(M.takeError()));
  if (!M)
    return false;
  K.Map = std::move(*M);
  return true;
}

} // namespace asmevo::test
