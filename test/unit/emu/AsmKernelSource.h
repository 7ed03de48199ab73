// Test and benchmark support: the assembly text of a one-kernel gfx9 code object around a
// hand-written body (AsmKernel.h assembles and runs it on the emulator; bench/emu_inst_bench
// times it). The kernel `k` takes one buffer argument, whose address the prologue loads into
// s[2:3]; v0 is the work-item id and the prologue sets v1 = 4 * v0. No GoogleTest here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::emu::test {

struct AsmKernel {
  std::string Target = "gfx942";
  unsigned LdsBytes = 1024;
  unsigned BlockItems = 64;
  unsigned BufferDwords = 1024;
  bool Strict = false;
  unsigned Vgprs = 32;      // next_free_vgpr
  unsigned KernargSize = 8; // the metadata's .kernarg_segment_size (the buffer pointer is 8)
  // The buffer's contents (BufferDwords dwords) when not empty, instead of dword i = i.
  std::vector<uint32_t> Init;
  // More .amdhsa_* directives for the kernel descriptor ("\t.amdhsa_float_denorm_mode_32 3\n").
  std::string Directives;
};

inline std::string asmKernelSource(const std::string &Body, const AsmKernel &K) {
  const std::string Lds = std::to_string(K.LdsBytes), V = std::to_string(K.Vgprs);
  return R"(
	.amdgcn_target "amdgcn-amd-amdhsa--)" +
         K.Target + R"("
	.amdhsa_code_object_version 5
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	s_waitcnt lgkmcnt(0)
)" + Body +
         R"(
	s_endpgm
	.rodata
	.p2align 6
	.amdhsa_kernel k
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_group_segment_fixed_size )" +
         Lds + R"(
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr )" +
         V + R"(
	.amdhsa_next_free_sgpr 32
	.amdhsa_accum_offset )" +
         V + "\n" + K.Directives + R"(
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
    .group_segment_fixed_size: )" +
         Lds + R"(
    .kernarg_segment_align: 8
    .kernarg_segment_size: )" +
         std::to_string(K.KernargSize) + R"(
    .max_flat_workgroup_size: 256
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 32
    .symbol: k.kd
    .vgpr_count: )" +
         V + R"(
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--)" +
         K.Target + R"(
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
)";
}

} // namespace asmevo::emu::test
