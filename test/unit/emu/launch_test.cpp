// The launch ABI the emulator sets up, observed from inside a kernel: hand-written kernels
// (assembled and linked in-process at test time) store their user and system SGPRs, fields
// of the AQL packet read through the dispatch pointer, hidden kernargs and the packed
// work-item ids to memory; the test checks each against the documented layout (AMDGPUUsage
// "Initial Kernel Execution State", the AQL packet, code object v5 hidden arguments).
// Also: partial workgroups, kernarg preload (execution starts at entry + 256, so the
// compatibility prologue, here an s_trap, never runs), scratch through architected flat
// scratch, chosen buffer addresses, determinism across host thread counts, and faults.
#include "AsmKernel.h"
#include "EmuHarness.h"

#include "asm/Assembler.h"
#include "support/FileIO.h"

#include <fstream>
#include <regex>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

const char *kMetadata = R"(
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
      - { .offset: 8, .size: 4, .value_kind: hidden_block_count_x }
      - { .offset: 12, .size: 4, .value_kind: hidden_block_count_y }
      - { .offset: 16, .size: 4, .value_kind: hidden_block_count_z }
      - { .offset: 20, .size: 2, .value_kind: hidden_group_size_x }
      - { .offset: 22, .size: 2, .value_kind: hidden_group_size_y }
      - { .offset: 24, .size: 2, .value_kind: hidden_group_size_z }
      - { .offset: 26, .size: 2, .value_kind: hidden_remainder_x }
      - { .offset: 28, .size: 2, .value_kind: hidden_remainder_y }
      - { .offset: 30, .size: 2, .value_kind: hidden_remainder_z }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 32
    .max_flat_workgroup_size: 64
    .name: dump
    .private_segment_fixed_size: 32
    .sgpr_count: 48
    .symbol: dump.kd
    .vgpr_count: 8
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--%TARGET%
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
)";

// Common body: lane-uniform stores of the registers listed in REGS at out + wg * 256 + 4 * i,
// then every lane's v0 at out + 0x4000 + wg * 256 + 4 * lane. Expects: s[20:21] = out,
// s22 = linear workgroup id (computed by the prologue of each variant).
std::string body(const std::string &Regs) {
  return R"(
	s_lshl_b32 s23, s22, 8
	v_mov_b32 v1, s23
	.irp r, )" +
         Regs + R"(
	v_mov_b32 v2, s\r
	global_store_dword v1, v2, s[20:21] offset:4*\r
	.endr
	v_mbcnt_lo_u32_b32 v3, -1, 0
	v_mbcnt_hi_u32_b32 v3, -1, v3
	v_lshlrev_b32 v3, 2, v3
	v_add_u32 v3, v1, v3
	v_add_u32 v3, 0x4000, v3
	global_store_dword v3, v0, s[20:21]
	s_endpgm
)";
}

std::string gfx90aSource() {
  std::string S = R"(
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.text
	.globl dump
	.p2align 8
	.type dump,@function
dump:
	; s[0:3] private segment buffer, s[4:5] dispatch ptr, s[6:7] queue ptr, s[8:9] kernarg
	; ptr, s[10:11] dispatch id, s[12:13] flat scratch init, s14 private segment size;
	; system: s15..s17 workgroup id x/y/z, s18 workgroup info, s19 scratch wave offset.
	s_load_dwordx2 s[20:21], s[8:9], 0x0
	s_load_dwordx4 s[24:27], s[4:5], 0x0
	s_load_dwordx4 s[28:31], s[4:5], 0x10
	s_load_dwordx4 s[32:35], s[8:9], 0x8
	s_load_dwordx2 s[36:37], s[8:9], 0x18
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s22, s17, 3
	s_add_u32 s22, s22, s16
	s_lshl_b32 s22, s22, 1
	s_add_u32 s22, s22, s15
)" +
                  body("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,24,25,26,27,28,29,30,31,"
                       "32,33,34,35,36,37") +
                  R"(
	.rodata
	.p2align 6
	.amdhsa_kernel dump
	.amdhsa_user_sgpr_private_segment_buffer 1
	.amdhsa_user_sgpr_dispatch_ptr 1
	.amdhsa_user_sgpr_queue_ptr 1
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_user_sgpr_dispatch_id 1
	.amdhsa_user_sgpr_flat_scratch_init 1
	.amdhsa_user_sgpr_private_segment_size 1
	.amdhsa_system_sgpr_private_segment_wavefront_offset 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_sgpr_workgroup_id_y 1
	.amdhsa_system_sgpr_workgroup_id_z 1
	.amdhsa_system_sgpr_workgroup_info 1
	.amdhsa_system_vgpr_workitem_id 2
	.amdhsa_private_segment_fixed_size 32
	.amdhsa_next_free_vgpr 8
	.amdhsa_next_free_sgpr 40
	.amdhsa_accum_offset 8
	.end_amdhsa_kernel
)";
  std::string M = kMetadata;
  M.replace(M.find("%TARGET%"), 8, "gfx90a");
  return S + M;
}

// gfx942: architected flat scratch, kernarg preload of the out pointer into s[6:7]. The
// 256-byte compatibility prologue is an s_trap: firmware that preloads starts past it.
std::string gfx942Source() {
  std::string S = R"(
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl dump
	.p2align 8
	.type dump,@function
dump:
	s_trap 2
	.fill 63, 4, 0xbf800000
	; s[0:1] dispatch ptr, s[2:3] queue ptr, s[4:5] kernarg ptr, s[6:7] preloaded out;
	; system: s8..s10 workgroup id x/y/z, s11 workgroup info.
	s_mov_b64 s[20:21], s[6:7]
	s_load_dwordx4 s[24:27], s[0:1], 0x0
	s_load_dwordx4 s[28:31], s[0:1], 0x10
	s_load_dwordx4 s[32:35], s[4:5], 0x8
	s_load_dwordx2 s[36:37], s[4:5], 0x18
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s12, flat_scratch_lo
	s_mov_b32 s13, flat_scratch_hi
	v_mov_b32 v4, 0x1234
	scratch_store_dword off, v4, off offset:28
	s_waitcnt vmcnt(0)
	scratch_load_dword v5, off, off offset:28
	s_waitcnt vmcnt(0)
	v_readfirstlane_b32 s14, v5
	s_mul_i32 s22, s10, 3
	s_add_u32 s22, s22, s9
	s_lshl_b32 s22, s22, 1
	s_add_u32 s22, s22, s8
)" + body("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,24,25,26,27,28,29,30,31,32,33,34,35,36,37") +
                  R"(
	.rodata
	.p2align 6
	.amdhsa_kernel dump
	.amdhsa_user_sgpr_dispatch_ptr 1
	.amdhsa_user_sgpr_queue_ptr 1
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_user_sgpr_kernarg_preload_length 2
	.amdhsa_user_sgpr_kernarg_preload_offset 0
	.amdhsa_enable_private_segment 1
	.amdhsa_system_sgpr_workgroup_id_x 1
	.amdhsa_system_sgpr_workgroup_id_y 1
	.amdhsa_system_sgpr_workgroup_id_z 1
	.amdhsa_system_sgpr_workgroup_info 1
	.amdhsa_system_vgpr_workitem_id 2
	.amdhsa_private_segment_fixed_size 32
	.amdhsa_next_free_vgpr 8
	.amdhsa_next_free_sgpr 40
	.amdhsa_accum_offset 8
	.end_amdhsa_kernel
)";
  std::string M = kMetadata;
  M.replace(M.find("%TARGET%"), 8, "gfx942");
  return S + M;
}

// Assemble and link Source into a code object file in Dir; returns its path.
std::string build(const TempDir &Dir, const std::string &Source, const char *Target,
                  const char *Name) {
  auto T = parseTargetId(std::string("amdgcn-amd-amdhsa--") + Target, 5);
  EXPECT_TRUE(bool(T));
  if (!T)
    return "";
  auto Obj = assembleAndLink(Source, Name, *T);
  EXPECT_TRUE(bool(Obj)) << (Obj ? "" : llvm::toString(Obj.takeError()));
  if (!Obj)
    return "";
  std::string Path = Dir.file(Name);
  llvm::cantFail(writeFileAtomic(Path, *Obj));
  return Path;
}

struct Geometry {
  std::array<uint32_t, 3> Items{7, 6, 3}, Block{4, 2, 2};
  uint32_t groups(unsigned D) const { return (Items[D] + Block[D] - 1) / Block[D]; }
  uint32_t size(unsigned D, uint32_t Id) const {
    return std::min(Block[D], Items[D] - Id * Block[D]);
  }
};

// Checks both variants share: the AQL packet fields, hidden kernargs, workgroup ids, v0.
void checkCommon(const std::vector<uint32_t> &Out, const Geometry &G, unsigned WgX, unsigned WgY,
                 unsigned WgZ, unsigned XReg) {
  SCOPED_TRACE("workgroup " + std::to_string(WgX) + "," + std::to_string(WgY) + "," +
               std::to_string(WgZ));
  unsigned Lin = (WgZ * 3 + WgY) * 2 + WgX;
  const uint32_t *S = &Out[Lin * 64];
  // AQL packet: header (kernel dispatch = 2) | setup (3 dimensions) << 16, workgroup sizes,
  // grid sizes in work-items, private and group segment sizes.
  EXPECT_EQ(S[24], 2u | (3u << 16));
  EXPECT_EQ(S[25], G.Block[0] | (G.Block[1] << 16));
  EXPECT_EQ(S[26] & 0xffff, G.Block[2]);
  EXPECT_EQ(S[27], G.Items[0]);
  EXPECT_EQ(S[28], G.Items[1]);
  EXPECT_EQ(S[29], G.Items[2]);
  EXPECT_EQ(S[30], 32u);
  EXPECT_EQ(S[31], 0u);
  // Hidden kernargs: full workgroups per dimension, group sizes, remainders.
  EXPECT_EQ(S[32], G.Items[0] / G.Block[0]);
  EXPECT_EQ(S[33], G.Items[1] / G.Block[1]);
  EXPECT_EQ(S[34], G.Items[2] / G.Block[2]);
  EXPECT_EQ(S[35], G.Block[0] | (G.Block[1] << 16));
  EXPECT_EQ(S[36], G.Block[2] | ((G.Items[0] % G.Block[0]) << 16));
  EXPECT_EQ(S[37], (G.Items[1] % G.Block[1]) | ((G.Items[2] % G.Block[2]) << 16));
  // Workgroup ids, then workgroup info (reported as 0).
  EXPECT_EQ(S[XReg], WgX);
  EXPECT_EQ(S[XReg + 1], WgY);
  EXPECT_EQ(S[XReg + 2], WgZ);
  EXPECT_EQ(S[XReg + 3], 0u);
  // v0: packed x | y << 10 | z << 20 for each work-item of this (maybe partial) workgroup;
  // lanes past its work-items are inactive and store nothing.
  uint32_t Sx = G.size(0, WgX), Sy = G.size(1, WgY), Sz = G.size(2, WgZ);
  const uint32_t *V = &Out[0x1000 + Lin * 64];
  for (uint32_t L = 0; L < 64; ++L) {
    if (L >= Sx * Sy * Sz) {
      EXPECT_EQ(V[L], 0xffffffffu) << "inactive lane " << L << " stored";
      continue;
    }
    uint32_t X = L % Sx, Y = (L / Sx) % Sy, Z = L / (Sx * Sy);
    EXPECT_EQ(V[L], X | (Y << 10) | (Z << 20)) << "lane " << L;
  }
}

std::vector<uint32_t> runDump(const std::string &Path, const Geometry &G, unsigned Threads,
                              uint64_t Seed) {
  Harness H(Path);
  EXPECT_TRUE(H.ok()) << H.Error;
  if (!H.ok())
    return {};
  uint64_t Out = H.buffer(nullptr, 0x8000);
  H.arg(0, Out);
  H.Config.Threads = Threads;
  auto R = H.runItems(G.Items, G.Block, 0, Seed);
  EXPECT_TRUE(bool(R)) << (R ? "" : llvm::toString(R.takeError()));
  if (!R)
    return {};
  EXPECT_EQ(R->Workgroups, 12u);
  return H.read<uint32_t>(Out, 0x2000);
}

TEST(Launch, Gfx90aUserAndSystemSgprs) {
  auto Dir = llvm::cantFail(TempDir::create("asmevo-launch"));
  std::string Path = build(Dir, gfx90aSource(), "gfx90a", "dump90a.hsaco");
  ASSERT_FALSE(Path.empty());
  Geometry G;
  auto Out = runDump(Path, G, 1, 1);
  ASSERT_FALSE(Out.empty());
  for (unsigned Z = 0; Z < G.groups(2); ++Z)
    for (unsigned Y = 0; Y < G.groups(1); ++Y)
      for (unsigned X = 0; X < G.groups(0); ++X) {
        checkCommon(Out, G, X, Y, Z, 15);
        const uint32_t *S = &Out[((Z * 3 + Y) * 2 + X) * 64];
        // Private segment buffer V#: stride = 32 bytes per lane, ADD_TID_ENABLE (bit 23).
        uint64_t ScratchBase = S[0] | (uint64_t(S[1] & 0xffff) << 32);
        EXPECT_NE(ScratchBase, 0u);
        EXPECT_EQ(S[1] >> 16, 32u);
        EXPECT_TRUE((S[3] >> 23) & 1);
        EXPECT_EQ((S[3] >> 15) & 0xf, 0u); // DATA_FORMAT = stride bits 17:14 with ADD_TID
        EXPECT_EQ(S[2], 0xffffffffu);
        // Dispatch, queue and kernarg pointers are distinct, non-null device addresses.
        uint64_t Disp = S[4] | (uint64_t(S[5]) << 32), Queue = S[6] | (uint64_t(S[7]) << 32),
                 Karg = S[8] | (uint64_t(S[9]) << 32);
        EXPECT_TRUE(Disp && Queue && Karg && Disp != Queue && Queue != Karg);
        EXPECT_EQ(S[10], 1u); // dispatch id
        EXPECT_EQ(S[11], 0u);
        // Flat scratch init = the scratch backing store; private segment size per lane.
        EXPECT_EQ(S[12] | (uint64_t(S[13]) << 32), ScratchBase);
        EXPECT_EQ(S[14], 32u);
        // Scratch wave offset: one host thread, one wave per workgroup -> slot 0.
        EXPECT_EQ(S[19], 0u);
      }
}

TEST(Launch, Gfx942PreloadArchitectedScratch) {
  auto Dir = llvm::cantFail(TempDir::create("asmevo-launch"));
  std::string Path = build(Dir, gfx942Source(), "gfx942", "dump942.hsaco");
  ASSERT_FALSE(Path.empty());
  Geometry G;
  auto Out = runDump(Path, G, 1, 1);
  ASSERT_FALSE(Out.empty());
  for (unsigned Z = 0; Z < G.groups(2); ++Z)
    for (unsigned Y = 0; Y < G.groups(1); ++Y)
      for (unsigned X = 0; X < G.groups(0); ++X) {
        checkCommon(Out, G, X, Y, Z, 8);
        const uint32_t *S = &Out[((Z * 3 + Y) * 2 + X) * 64];
        // The stores reached the out buffer only through the preloaded s[6:7]; the kernarg
        // pointer is still passed.
        EXPECT_NE(S[6] | (uint64_t(S[7]) << 32), 0u);
        EXPECT_NE(S[4] | (uint64_t(S[5]) << 32), 0u);
        // FLAT_SCRATCH is set up by the "hardware" (non-null), and scratch works through it.
        EXPECT_NE(S[12] | (uint64_t(S[13]) << 32), 0u);
        EXPECT_EQ(S[14], 0x1234u);
      }
}

TEST(Launch, DeterministicAcrossThreadsAndSeeds) {
  auto Dir = llvm::cantFail(TempDir::create("asmevo-launch"));
  std::string Path = build(Dir, gfx942Source(), "gfx942", "dump942.hsaco");
  ASSERT_FALSE(Path.empty());
  Geometry G;
  auto A = runDump(Path, G, 1, 1), B = runDump(Path, G, 2, 1), C = runDump(Path, G, 2, 7);
  ASSERT_FALSE(A.empty());
  // Scratch addresses (s[12:13]) depend on which host thread ran a workgroup; everything else
  // must be identical.
  for (unsigned Wg = 0; Wg < 12; ++Wg)
    for (unsigned I : {12u, 13u})
      A[Wg * 64 + I] = B[Wg * 64 + I] = C[Wg * 64 + I] = 0;
  EXPECT_EQ(A, B);
  EXPECT_EQ(A, C);
}

TEST(Launch, BuffersAtChosenAddressesAndFaults) {
  Harness H(tritonObject("gfx942", "vector_add_fp32"));
  ASSERT_TRUE(H.ok()) << H.Error;
  // Replay-style placement: buffers at fixed virtual addresses.
  const uint64_t X = 0x7ffe00000000ull, Y = 0x7ffe00100000ull, O = 0x7ffe00200000ull;
  ASSERT_FALSE(bool(H.Mem.map(X, 4096, "x")));
  ASSERT_FALSE(bool(H.Mem.map(Y, 4096, "y")));
  ASSERT_FALSE(bool(H.Mem.map(O, 4096, "out")));
  auto Overlap = H.Mem.map(X + 100, 16, "overlap");
  ASSERT_TRUE(bool(Overlap));
  EXPECT_EQ(llvm::toString(std::move(Overlap)),
            "device allocation 'overlap' at 0x7ffe00000064 overlaps 'x' at 0x7ffe00000000");
  std::vector<float> Ones(1024, 1.0f), Twos(1024, 2.0f);
  llvm::cantFail(H.Mem.write(X, Ones.data(), 4096));
  llvm::cantFail(H.Mem.write(Y, Twos.data(), 4096));
  H.arg(0, X);
  H.arg(1, Y);
  H.arg(2, O);
  H.arg(3, int32_t(1024));
  H.arg(4, uint64_t(0));
  H.arg(5, uint64_t(0));
  auto R = H.run({1, 1, 1}, {256, 1, 1}, 0);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Out = H.read<float>(O, 1024);
  for (float F : Out)
    ASSERT_EQ(F, 3.0f);
  // n = 2048 reads past x: the first lane past the 4 KiB allocation faults, naming itself.
  H.arg(3, int32_t(2048));
  auto F = H.run({2, 1, 1}, {256, 1, 1}, 0);
  ASSERT_FALSE(bool(F));
  std::string Msg = llvm::toString(F.takeError());
  // Which wave of workgroup 1 faults first depends on the interleaving; each names its lane.
  EXPECT_TRUE(std::regex_match(
      Msg, std::regex("memory fault: buffer_load_dword of 4 bytes at 0x7ffe00001[0-9a-f]{3} "
                      "\\(lane [0-9]+\\) at pc 0x[0-9a-f]+: outside every allocation "
                      "\\(add_kernel\\+0x[0-9a-f]+, workgroup 1,0,0\\)")))
      << Msg;
}

} // namespace

namespace {

// A kernarg segment is handed to the kernel in whole 16-byte granules, zero-filled: clang reads
// the last 12 bytes of a 28-byte segment with s_load_dwordx4 at offset 16, which runs and reads
// zeros past byte 28; a load past the rounded segment still faults.
TEST(KernargSegment, RoundedUpToWholeSixteenByteGranules) {
  asmevo::emu::test::AsmKernel K;
  K.KernargSize = 28;
  const std::string Body = R"(
	s_load_dwordx4 s[4:7], s[0:1], 0x10
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v2, s7
	v_add_co_u32 v4, vcc, s2, v1
	v_mov_b32 v5, s3
	v_addc_co_u32 v5, vcc, v5, 0, vcc
	global_store_dword v[4:5], v2, off
)";
  auto R = asmevo::emu::test::runAsmKernel(Body, K);
  ASSERT_EQ(R.Error, "");
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(R.Buffer[l], 0u) << l;
  K.KernargSize = 12; // one granule: bytes 16..31 are past it
  R = asmevo::emu::test::runAsmKernel(Body, K);
  EXPECT_NE(R.Error.find("memory fault"), std::string::npos) << R.Error;
}

} // namespace
