// The strict checks (emu/StrictCheck.h) on hand-written gfx942 kernels, assembled and linked
// in-process: each unsafe sequence must be reported under its rule, and the same sequence with
// the wait, barrier or s_nop that makes it correct must run clean. Launches are one workgroup
// of two waves (128 work-items) over a 1 KiB buffer whose dword i holds i.
#include "EmuHarness.h"

#include "asm/Assembler.h"
#include "codeobj/TargetId.h"
#include "support/FileIO.h"

#include <algorithm>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

// s[2:3] = the buffer, v1 = 4 * work-item id (0..508), v4 = v1 & 0xff (the same 64 dword
// addresses in both waves), v0 = work-item id. Exec masks "wave 0 only" / "wave 1 only" are
// set by the WAVE0 / WAVE1 macros and undone by ALL.
std::string kernelSource(const std::string &Body, const std::string &Target) {
  return R"(
	.amdgcn_target "amdgcn-amd-amdhsa--)" +
         Target + R"("
	.amdhsa_code_object_version 5
	.macro WAVE0
	v_cmp_gt_u32 vcc, 64, v0
	s_and_saveexec_b64 s[8:9], vcc
	.endm
	.macro WAVE1
	v_cmp_le_u32 vcc, 64, v0
	s_and_saveexec_b64 s[8:9], vcc
	.endm
	.macro ALL
	s_or_b64 exec, exec, s[8:9]
	.endm
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_lshlrev_b32 v1, 2, v0
	v_and_b32 v4, 0xff, v1
	s_waitcnt lgkmcnt(0)
)" + Body +
         R"(
	s_endpgm
	.rodata
	.p2align 6
	.amdhsa_kernel k
	.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.amdhsa_group_segment_fixed_size 256
	.amdhsa_system_vgpr_workitem_id 0
	.amdhsa_next_free_vgpr 16
	.amdhsa_next_free_sgpr 16
	.amdhsa_accum_offset 16
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .address_space: global, .offset: 0, .size: 8, .value_kind: global_buffer }
    .group_segment_fixed_size: 256
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 128
    .name: k
    .private_segment_fixed_size: 0
    .sgpr_count: 16
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

struct StrictRun {
  std::string Error;
  RunStats Stats;
  std::vector<std::string> Rules;
  bool has(const std::string &R) const {
    return std::find(Rules.begin(), Rules.end(), R) != Rules.end();
  }
  std::string all() const {
    std::string S;
    for (const UnsafeFinding &F : Stats.Findings)
      S += F.Message + "\n";
    return S;
  }
};

StrictRun runStrict(const std::string &Body, uint64_t Seed = 1, bool Vary = false,
                    bool Strict = true, const std::string &Target = "gfx942") {
  StrictRun R;
  auto Dir = llvm::cantFail(TempDir::create("asmevo-strict"));
  auto T = parseTargetId("amdgcn-amd-amdhsa--" + Target, 5);
  auto Obj = assembleAndLink(kernelSource(Body, Target), "strict.s", *T);
  if (!Obj) {
    R.Error = llvm::toString(Obj.takeError());
    return R;
  }
  std::string Path = Dir.file("strict.hsaco");
  llvm::cantFail(writeFileAtomic(Path, *Obj));
  auto O = openCodeObject(Path);
  if (!O) {
    R.Error = llvm::toString(O.takeError());
    return R;
  }
  DeviceMemory Mem;
  auto E = Emulator::load((*O)->C, Mem);
  if (!E) {
    R.Error = llvm::toString(E.takeError());
    return R;
  }
  uint64_t Buf = Mem.allocate(1024, 256, "buffer");
  std::vector<uint32_t> Init(256);
  for (uint32_t I = 0; I < 256; ++I)
    Init[I] = I;
  llvm::cantFail(Mem.write(Buf, Init.data(), 1024));
  LaunchConfig L;
  L.Kernel = "k";
  L.GridItems = {128, 1, 1};
  L.Block = {128, 1, 1};
  L.Kernarg.resize(8);
  std::memcpy(L.Kernarg.data(), &Buf, 8);
  L.Strict = Strict;
  L.Seed = Seed;
  L.VarySchedule = Vary;
  L.Threads = 1;
  auto S = (*E)->run(L);
  if (!S) {
    R.Error = llvm::toString(S.takeError());
    return R;
  }
  R.Stats = std::move(*S);
  for (const UnsafeFinding &F : R.Stats.Findings)
    R.Rules.push_back(F.Rule);
  return R;
}

#define EXPECT_CLEAN(Run)                                                                          \
  do {                                                                                             \
    auto R_ = (Run);                                                                               \
    ASSERT_EQ(R_.Error, "");                                                                       \
    EXPECT_TRUE(R_.Stats.Findings.empty()) << R_.all();                                            \
    EXPECT_EQ(R_.Stats.FindingsTotal, 0u);                                                         \
  } while (0)
#define EXPECT_RULE(Run, Rule)                                                                     \
  do {                                                                                             \
    auto R_ = (Run);                                                                               \
    ASSERT_EQ(R_.Error, "");                                                                       \
    EXPECT_TRUE(R_.has(Rule)) << "expected " << (Rule) << ", got:\n" << R_.all();                  \
  } while (0)

// ---- wait counters ---------------------------------------------------------------------------

TEST(Strict, LoadResultReadBeforeWaitIsPendingRead) {
  auto R = runStrict("\tglobal_load_dword v2, v1, s[2:3]\n\tv_add_u32 v3, v2, v2\n");
  ASSERT_EQ(R.Error, "");
  ASSERT_EQ(R.Stats.Findings.size(), 1u) << R.all();
  const UnsafeFinding &F = R.Stats.Findings[0];
  EXPECT_EQ(F.Rule, "pending-read");
  // Both waves read it; the report keeps one finding per rule and pc, and counts both.
  EXPECT_EQ(R.Stats.FindingsTotal, 2u);
  EXPECT_NE(F.Message.find("pending-read: v_add_u32_e32 at pc 0x"), std::string::npos) << F.Message;
  EXPECT_NE(F.Message.find(" reads v2 before global_load_dword at pc 0x"), std::string::npos)
      << F.Message;
  EXPECT_NE(F.Message.find("(needs s_waitcnt vmcnt(0) first)"), std::string::npos) << F.Message;
  EXPECT_CLEAN(runStrict("\tglobal_load_dword v2, v1, s[2:3]\n\ts_waitcnt vmcnt(0)\n"
                         "\tv_add_u32 v3, v2, v2\n"));
}

TEST(Strict, VmcntRetiresInIssueOrder) {
  const std::string Loads = "\tglobal_load_dword v2, v1, s[2:3]\n"
                            "\tglobal_load_dword v3, v1, s[2:3] offset:4\n"
                            "\ts_waitcnt vmcnt(1)\n";
  EXPECT_CLEAN(runStrict(Loads + "\tv_add_u32 v5, v2, v2\n"));
  auto R = runStrict(Loads + "\tv_add_u32 v5, v3, v3\n");
  EXPECT_RULE(R, "pending-read");
  EXPECT_NE(R.all().find("needs s_waitcnt vmcnt(0)"), std::string::npos) << R.all();
}

TEST(Strict, SmemReturnsOutOfOrder) {
  const std::string Loads = "\ts_load_dword s4, s[2:3], 0x0\n\ts_load_dword s5, s[2:3], 0x4\n";
  // lgkmcnt(1) proves one of the two complete, not which: only lgkmcnt(0) covers s4.
  auto R = runStrict(Loads + "\ts_waitcnt lgkmcnt(1)\n\ts_add_u32 s6, s4, 1\n");
  EXPECT_RULE(R, "pending-read");
  EXPECT_NE(R.all().find("needs s_waitcnt lgkmcnt(0)"), std::string::npos) << R.all();
  EXPECT_CLEAN(runStrict(Loads + "\ts_waitcnt lgkmcnt(0)\n\ts_add_u32 s6, s4, 1\n"));
}

TEST(Strict, LdsReadsRetireInOrderUnderLgkmcnt) {
  const std::string Reads = "\tds_read_b32 v2, v4\n\tds_read_b32 v3, v4\n"
                            "\ts_waitcnt lgkmcnt(1)\n";
  EXPECT_CLEAN(runStrict(Reads + "\tv_add_u32 v5, v2, v2\n"));
  EXPECT_RULE(runStrict(Reads + "\tv_add_u32 v5, v3, v3\n"), "pending-read");
}

TEST(Strict, WritingAPendingDestinationIsPendingOverwrite) {
  EXPECT_RULE(runStrict("\tglobal_load_dword v2, v1, s[2:3]\n\tv_mov_b32 v2, 0\n"
                        "\ts_waitcnt vmcnt(0)\n"),
              "pending-overwrite");
  // A later load of the same in-order counter returns after the first: no hazard.
  EXPECT_CLEAN(runStrict("\tglobal_load_dword v2, v1, s[2:3]\n"
                         "\tglobal_load_dword v2, v1, s[2:3] offset:4\n\ts_waitcnt vmcnt(0)\n"));
}

TEST(Strict, EndOfProgramCompletesEverything) {
  EXPECT_CLEAN(runStrict("\tglobal_load_dword v2, v1, s[2:3]\n\tds_read_b32 v3, v4\n"));
}

TEST(Strict, WaitProfileRecordsOutstandingCounts) {
  auto R = runStrict("\tglobal_load_dword v2, v1, s[2:3]\n"
                     "\tglobal_load_dword v3, v1, s[2:3] offset:4\n"
                     "\tds_read_b32 v5, v4\n"
                     "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
                     "\ts_waitcnt vmcnt(0)\n");
  ASSERT_EQ(R.Error, "");
  ASSERT_EQ(R.Stats.Waits.size(), 3u); // the prologue's lgkmcnt(0) and the two here
  auto It = R.Stats.Waits.begin();
  EXPECT_EQ(It->second.MaxLgkm, 1u); // the kernarg s_load
  ++It;
  EXPECT_EQ(It->second.Executions, 2u);
  EXPECT_EQ(It->second.MaxVm, 2u);
  EXPECT_EQ(It->second.MaxLgkm, 1u);
  ++It;
  EXPECT_EQ(It->second.MaxVm, 0u); // nothing left to wait for
}

// ---- memory ordering between waves -----------------------------------------------------------

const std::string kWave0WritesLds = "\tWAVE0\n\tds_write_b32 v4, v0\n\tALL\n";
const std::string kWave1ReadsLds = "\tWAVE1\n\tds_read_b32 v5, v4\n\ts_waitcnt lgkmcnt(0)\n\tALL\n";

TEST(Strict, LdsWriteThenBarrierThenReadIsOrdered) {
  EXPECT_CLEAN(
      runStrict(kWave0WritesLds + "\ts_waitcnt lgkmcnt(0)\n\ts_barrier\n" + kWave1ReadsLds));
}

TEST(Strict, LdsReadWithoutBarrierIsARace) {
  for (uint64_t Seed : {1, 2, 3}) {
    auto R = runStrict(kWave0WritesLds + "\ts_waitcnt lgkmcnt(0)\n" + kWave1ReadsLds, Seed);
    EXPECT_RULE(R, "lds-race");
    EXPECT_NE(R.all().find("lds-race: ds_"), std::string::npos) << R.all();
  }
}

TEST(Strict, LdsWriteNotCompleteAtTheBarrierIsARace) {
  EXPECT_RULE(runStrict(kWave0WritesLds + "\ts_barrier\n" + kWave1ReadsLds), "lds-race");
}

TEST(Strict, LdsWriteOverAnotherWavesUnorderedReadIsARace) {
  EXPECT_RULE(runStrict(kWave1ReadsLds + kWave0WritesLds), "lds-race");
  EXPECT_CLEAN(runStrict(kWave1ReadsLds + "\ts_barrier\n" + kWave0WritesLds));
}

TEST(Strict, TwoWavesWritingDifferentValuesRace) {
  EXPECT_RULE(runStrict("\tds_write_b32 v4, v0\n"), "lds-race");
}

TEST(Strict, TwoWavesWritingTheSameValueDoNotRace) {
  EXPECT_CLEAN(runStrict("\tds_write_b32 v4, v4\n"));
}

TEST(Strict, LdsAtomicsDoNotRaceWithEachOther) {
  EXPECT_CLEAN(runStrict("\tv_mov_b32 v6, 1\n\tds_add_u32 v4, v6\n"));
}

const std::string kWave0StoresGlobal = "\tWAVE0\n\tglobal_store_dword v4, v0, s[2:3]\n\tALL\n";
const std::string kWave1LoadsGlobal =
    "\tWAVE1\n\tglobal_load_dword v5, v4, s[2:3]\n\ts_waitcnt vmcnt(0)\n\tALL\n";

TEST(Strict, GlobalStoreVisibleToOtherWavesOnlyOnceComplete) {
  EXPECT_CLEAN(
      runStrict(kWave0StoresGlobal + "\ts_waitcnt vmcnt(0)\n\ts_barrier\n" + kWave1LoadsGlobal));
  EXPECT_RULE(runStrict(kWave0StoresGlobal + "\ts_barrier\n" + kWave1LoadsGlobal), "global-race");
  // With no barrier at all, the race is seen when the store runs first (a load followed by
  // another wave's store is not checked on global memory): some interleavings show it, and
  // the code never counts as clean.
  unsigned Found = 0;
  for (uint64_t Seed = 1; Seed <= 8; ++Seed) {
    auto R = runStrict(kWave0StoresGlobal + kWave1LoadsGlobal, Seed, true);
    ASSERT_EQ(R.Error, "");
    Found += R.has("global-race");
  }
  EXPECT_GT(Found, 0u);
}

TEST(Strict, VariedSchedulesStillFindTheRaceAndKeepCleanCodeClean) {
  for (uint64_t Seed = 1; Seed <= 8; ++Seed) {
    EXPECT_RULE(runStrict(kWave0WritesLds + kWave1ReadsLds, Seed, true), "lds-race");
    EXPECT_CLEAN(runStrict(
        kWave0WritesLds + "\ts_waitcnt lgkmcnt(0)\n\ts_barrier\n" + kWave1ReadsLds, Seed, true));
  }
}

// ---- wait states, through the emulator -------------------------------------------------------

TEST(Strict, WaitStateHazardIsReportedUnderItsRule) {
  const std::string Produce = "\tv_mov_b32 v6, s2\n\ts_nop 0\n\tv_readfirstlane_b32 s2, v6\n";
  const std::string Use = "\tglobal_load_dword v2, v1, s[2:3]\n\ts_waitcnt vmcnt(0)\n";
  EXPECT_RULE(runStrict(Produce + Use), "valu-sgpr-then-vmem");
  EXPECT_CLEAN(runStrict(Produce + "\ts_nop 4\n" + Use));
}

TEST(Strict, AFloodOfOneRuleDoesNotHideAnother) {
  // 80 wait-state hazards at 80 pcs, then a race: the report keeps 64 of the hazards and the
  // race (an AITer attention kernel's races were hidden behind its hazards).
  std::string Flood;
  for (unsigned I = 0; I < 80; ++I)
    Flood += "\tv_readfirstlane_b32 s4, v6\n\tglobal_load_dword v2, v1, s[4:5]\n"
             "\ts_waitcnt vmcnt(0)\n";
  auto R = runStrict("\tv_mov_b32 v6, s2\n\ts_mov_b32 s5, s3\n" + Flood + kWave0WritesLds +
                     "\ts_waitcnt lgkmcnt(0)\n" + kWave1ReadsLds);
  ASSERT_EQ(R.Error, "");
  EXPECT_TRUE(R.has("lds-race")) << R.all();
  EXPECT_EQ(std::count(R.Rules.begin(), R.Rules.end(), "valu-sgpr-then-vmem"), 64);
}

// ---- soft clauses under XNACK ------------------------------------------------------------------

TEST(Strict, ALoadOverwritingAnAddressInItsClauseIsAnXnackHazard) {
  const std::string Clause = "\tglobal_load_dword v2, v1, s[2:3]\n"
                             "\tglobal_load_dword v1, v1, s[2:3] offset:4\n";
  const std::string Wait = "\ts_waitcnt vmcnt(0)\n";
  auto R = runStrict(Clause + Wait);
  EXPECT_RULE(R, "xnack-soft-clause");
  EXPECT_NE(R.all().find("global_load_dword at pc 0x"), std::string::npos) << R.all();
  EXPECT_NE(R.all().find(" writes v1 that global_load_dword at pc 0x"), std::string::npos)
      << R.all();
  // Broken by a non-memory instruction, the clauses are single loads.
  EXPECT_CLEAN(runStrict("\tglobal_load_dword v2, v1, s[2:3]\n\ts_nop 0\n"
                         "\tglobal_load_dword v1, v1, s[2:3] offset:4\n" +
                         Wait));
  // Code built for xnack off never replays.
  EXPECT_CLEAN(runStrict(Clause + Wait, 1, false, true, "gfx942:xnack-"));
}

// The checks are off unless asked for: the same unsafe kernel runs without findings.
TEST(Strict, OffByDefault) {
  EXPECT_FALSE(LaunchConfig().Strict);
  auto R =
      runStrict("\tglobal_load_dword v2, v1, s[2:3]\n\tv_add_u32 v3, v2, v2\n", 1, false, false);
  ASSERT_EQ(R.Error, "");
  EXPECT_TRUE(R.Stats.Findings.empty());
  EXPECT_TRUE(R.Stats.Waits.empty());
}

} // namespace
