// Loads straight into LDS (LDS DMA): buffer_load_* ... lds and gfx950's global_load_lds_*, on
// hand-written kernels. Expected values follow the CDNA3/CDNA4 ISA guides (section 9.1.9: LDS
// address = M0 offset + instruction offset + lane * 4, or lane * 16 for 3 and 4 dwords, where
// dwordx3 skips the 4th dword; section 10.3 for the global form, M0[17:2] * 4) and are
// computed here independently: the buffer's dword i holds i.
#include "AsmKernel.h"

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

// s[4:7] = a raw V# over the buffer (num_records = NumRecords bytes, stride 0).
std::string rsrc(unsigned NumRecords) {
  return "\ts_mov_b32 s4, s2\n\ts_and_b32 s5, s3, 0xffff\n\ts_mov_b32 s6, " +
         std::to_string(NumRecords) + "\n\ts_mov_b32 s7, 0x20000\n";
}
// Store v3 of every lane to buffer dword Dword + lane.
std::string storeV3At(unsigned Dword) {
  return "\tv_add_u32 v9, " + std::to_string(Dword * 4) +
         ", v1\n\tglobal_store_dword v9, v3, s[2:3]\n\ts_waitcnt vmcnt(0)\n";
}

TEST(LdsDma, BufferDwordLandsAtM0PlusOffsetPlusLaneSlot) {
  // Lane l loads dword (4l + 8) / 4 = l + 2 into LDS 64 + 8 + 4l; read back from there.
  auto R = runAsmKernel(rsrc(4096) +
                        "\ts_mov_b32 m0, 64\n\ts_nop 0\n"
                        "\tbuffer_load_dword v1, s[4:7], 0 offen offset:8 lds\n"
                        "\ts_waitcnt vmcnt(0)\n"
                        "\tds_read_b32 v3, v1 offset:72\n\ts_waitcnt lgkmcnt(0)\n" +
                        storeV3At(512));
  ASSERT_EQ(R.Error, "");
  for (unsigned L = 0; L < 64; ++L)
    EXPECT_EQ(R.Buffer[512 + L], L + 2) << "lane " << L;
}

TEST(LdsDma, InactiveLanesLeaveTheirSlotsAndOutOfRangeReadsZero) {
  // LDS 0..255 first holds 0xdead0000 + lane; then only even lanes load, and lanes 48.. fall
  // outside num_records (192 bytes): even lanes < 48 get l, even lanes >= 48 get 0, odd lanes
  // keep 0xdead0000 + l.
  auto R = runAsmKernel(rsrc(192) +
                        "\tv_or_b32 v2, 0xdead0000, v0\n"
                        "\tds_write_b32 v1, v2\n\ts_waitcnt lgkmcnt(0)\n"
                        "\ts_mov_b32 m0, 0\n"
                        "\ts_mov_b32 exec_lo, 0x55555555\n\ts_mov_b32 exec_hi, 0x55555555\n"
                        "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n"
                        "\ts_waitcnt vmcnt(0)\n\ts_mov_b64 exec, -1\n"
                        "\tds_read_b32 v3, v1\n\ts_waitcnt lgkmcnt(0)\n" +
                        storeV3At(512));
  ASSERT_EQ(R.Error, "");
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t Want = (L & 1) ? 0xdead0000u + L : L < 48 ? L : 0u;
    EXPECT_EQ(R.Buffer[512 + L], Want) << "lane " << L;
  }
}

TEST(LdsDma, TheDataLandsWhenAWaitProvesTheLoadCompleteNotWhenItIssues) {
  // LDS 0..255 holds 0xdead0000 + lane; the load into LDS is issued, the LDS read before
  // s_waitcnt vmcnt(0) still sees the old bytes (the latest a GPU may land them), the read after
  // it the loaded ones (dword lane + 0 of the buffer: lane).
  auto R = runAsmKernel(rsrc(4096) + "\tv_or_b32 v2, 0xdead0000, v0\n"
                                     "\tds_write_b32 v1, v2\n\ts_waitcnt lgkmcnt(0)\n"
                                     "\ts_mov_b32 m0, 0\n\ts_nop 0\n"
                                     "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n"
                                     "\tds_read_b32 v3, v1\n\ts_waitcnt lgkmcnt(0)\n"
                                     "\ts_waitcnt vmcnt(0)\n"
                                     "\tds_read_b32 v4, v1\n\ts_waitcnt lgkmcnt(0)\n"
                                     "\tv_add_u32 v9, 0x800, v1\n"
                                     "\tglobal_store_dword v9, v3, s[2:3]\n"
                                     "\tglobal_store_dword v9, v4, s[2:3] offset:256\n"
                                     "\ts_waitcnt vmcnt(0)\n");
  ASSERT_EQ(R.Error, "");
  for (unsigned L = 0; L < 64; ++L) {
    EXPECT_EQ(R.Buffer[512 + L], 0xdead0000u + L) << "lane " << L;
    EXPECT_EQ(R.Buffer[576 + L], L) << "lane " << L;
  }
}

TEST(LdsDma, SlotOutsideTheLdsAllocationFaultsNamingTheAddress) {
  AsmKernel K;
  K.LdsBytes = 256;
  // M0 = 64: lane 48's slot is 64 + 192 = 256, past the 256-byte allocation.
  auto R = runAsmKernel(rsrc(4096) + "\ts_mov_b32 m0, 64\n\ts_nop 0\n"
                                     "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n"
                                     "\ts_waitcnt vmcnt(0)\n",
                        K);
  EXPECT_NE(R.Error.find("memory fault: buffer_load_dword of 4 bytes at 0x100 (lane 48)"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("outside the workgroup's 256-byte LDS allocation"), std::string::npos)
      << R.Error;
}

TEST(LdsDma, SubDwordLoadIntoLdsIsRefusedWithTheReason) {
  auto R = runAsmKernel(rsrc(4096) + "\ts_mov_b32 m0, 0\n\ts_nop 0\n"
                                     "\tbuffer_load_ubyte v1, s[4:7], 0 offen lds\n");
  EXPECT_NE(R.Error.find("unsupported instruction buffer_load_ubyte lds at pc 0x"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("how a byte or short loaded into LDS fills its 4-byte slot"),
            std::string::npos)
      << R.Error;
}

TEST(LdsDma, Gfx950DwordX4UsesSixteenByteSlotsAndDwordX3SkipsTheFourth) {
  AsmKernel K;
  K.Target = "gfx950";
  K.LdsBytes = 2048;
  // Lane l loads dwords 4l..4l+3 (x4) into LDS 16l, then dwords 4l..4l+2 (x3) into LDS
  // 1024 + 16l over a fill of 0xffffffff: the 4th dword of each x3 slot stays 0xffffffff.
  std::string Body = rsrc(8192) + "\tv_lshlrev_b32 v5, 4, v0\n"
                                  "\tv_mov_b32 v6, -1\n"
                                  "\tds_write_b32 v5, v6 offset:1036\n\ts_waitcnt lgkmcnt(0)\n"
                                  "\ts_mov_b32 m0, 0\n\ts_nop 0\n"
                                  "\tbuffer_load_dwordx4 v5, s[4:7], 0 offen lds\n"
                                  "\ts_mov_b32 m0, 1024\n\ts_nop 0\n"
                                  "\tbuffer_load_dwordx3 v5, s[4:7], 0 offen lds\n"
                                  "\ts_waitcnt vmcnt(0)\n"
                                  "\tds_read_b128 v[10:13], v5\n"
                                  "\tds_read_b128 v[14:17], v5 offset:1024\n"
                                  "\ts_waitcnt lgkmcnt(0)\n"
                                  "\tv_lshlrev_b32 v9, 5, v0\n"
                                  "\tglobal_store_dwordx4 v9, v[10:13], s[2:3] offset:2048\n"
                                  "\tglobal_store_dwordx4 v9, v[14:17], s[2:3] offset:2064\n"
                                  "\ts_waitcnt vmcnt(0)\n";
  auto R = runAsmKernel(Body, K);
  ASSERT_EQ(R.Error, "");
  for (unsigned L = 0; L < 64; ++L)
    for (unsigned D = 0; D < 4; ++D) {
      EXPECT_EQ(R.Buffer[512 + 8 * L + D], 4 * L + D) << "x4 lane " << L << " dword " << D;
      EXPECT_EQ(R.Buffer[512 + 8 * L + 4 + D], D < 3 ? 4 * L + D : 0xffffffffu)
          << "x3 lane " << L << " dword " << D;
    }
}

TEST(LdsDma, Gfx950GlobalLoadLdsUsesM0WithoutItsLowBits) {
  AsmKernel K;
  K.Target = "gfx950";
  K.LdsBytes = 2048;
  // M0 = 0x103: the LDS base is M0[17:2] * 4 = 0x100; offset:16 moves both addresses.
  std::string Body = "\tv_lshlrev_b32 v5, 4, v0\n"
                     "\ts_mov_b32 m0, 0x103\n\ts_nop 0\n"
                     "\tglobal_load_lds_dwordx4 v5, s[2:3] offset:16\n"
                     "\ts_waitcnt vmcnt(0)\n"
                     "\tds_read_b128 v[10:13], v5 offset:272\n"
                     "\ts_waitcnt lgkmcnt(0)\n"
                     "\tv_lshlrev_b32 v9, 4, v0\n"
                     "\tglobal_store_dwordx4 v9, v[10:13], s[2:3] offset:2048\n"
                     "\ts_waitcnt vmcnt(0)\n";
  auto R = runAsmKernel(Body, K);
  ASSERT_EQ(R.Error, "");
  for (unsigned L = 0; L < 64; ++L)
    for (unsigned D = 0; D < 4; ++D)
      EXPECT_EQ(R.Buffer[512 + 4 * L + D], 4 * L + 4 + D) << "lane " << L << " dword " << D;
}

TEST(LdsDma, StrictReadOfDmaBytesBeforeVmcntIsPendingRead) {
  AsmKernel K;
  K.Strict = true;
  const std::string Load = rsrc(4096) + "\ts_mov_b32 m0, 0\n\ts_nop 0\n"
                                        "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n";
  auto Early = runAsmKernel(Load + "\tds_read_b32 v3, v1\n\ts_waitcnt vmcnt(0) lgkmcnt(0)\n", K);
  ASSERT_EQ(Early.Error, "");
  ASSERT_TRUE(Early.hasRule("pending-read")) << Early.findings();
  EXPECT_NE(Early.findings().find("is still loading into LDS (no s_waitcnt vmcnt proves it "
                                  "complete)"),
            std::string::npos)
      << Early.findings();
  // lgkmcnt does not cover it: only vmcnt does.
  auto Lgkm = runAsmKernel(Load + "\ts_waitcnt lgkmcnt(0)\n\tds_read_b32 v3, v1\n"
                                  "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n",
                           K);
  ASSERT_EQ(Lgkm.Error, "");
  EXPECT_TRUE(Lgkm.hasRule("pending-read")) << Lgkm.findings();
  auto Waited = runAsmKernel(Load + "\ts_waitcnt vmcnt(0)\n\tds_read_b32 v3, v1\n"
                                    "\ts_waitcnt lgkmcnt(0)\n",
                             K);
  ASSERT_EQ(Waited.Error, "");
  EXPECT_TRUE(Waited.Stats.Findings.empty()) << Waited.findings();
}

TEST(LdsDma, StrictOtherWaveReadsDmaBytesOnlyAfterWaitAndBarrier) {
  AsmKernel K;
  K.Strict = true;
  K.BlockItems = 128;
  // Wave 0 loads 256 bytes into LDS 0..255; wave 1 reads them after the barrier.
  auto Body = [](const std::string &BeforeBarrier) {
    return rsrc(4096) +
           "\ts_mov_b32 m0, 0\n\ts_nop 0\n"
           "\tv_cmp_gt_u32 vcc, 64, v0\n"
           "\ts_and_saveexec_b64 s[8:9], vcc\n"
           "\tbuffer_load_dword v1, s[4:7], 0 offen lds\n"
           "\ts_or_b64 exec, exec, s[8:9]\n" +
           BeforeBarrier +
           "\ts_barrier\n"
           "\tv_and_b32 v4, 0xff, v1\n"
           "\tds_read_b32 v3, v4\n\ts_waitcnt vmcnt(0) lgkmcnt(0)\n";
  };
  auto Racy = runAsmKernel(Body(""), K);
  ASSERT_EQ(Racy.Error, "");
  EXPECT_TRUE(Racy.hasRule("lds-race")) << Racy.findings();
  auto Ordered = runAsmKernel(Body("\ts_waitcnt vmcnt(0)\n"), K);
  ASSERT_EQ(Ordered.Error, "");
  EXPECT_TRUE(Ordered.Stats.Findings.empty()) << Ordered.findings();
}

} // namespace
