// MODE bits the scalar unit sets, on hand-written kernels: VSKIP (s_setvskip: vector
// instructions are skipped) and VGPR indexing (s_set_gpr_idx_on/off/idx/mode: VALU VGPR
// operands indexed by M0[7:0] in the slots M0[15:12] enables). Expected values follow the
// CDNA3/CDNA4 ISA guides (sections 12.4 and 6.6) and are computed here by hand.
#include "AsmKernel.h"

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

std::string store(const std::string &V, unsigned Dword) {
  return "\tv_add_u32 v9, " + std::to_string(Dword * 4) + ", v1\n\tglobal_store_dword v9, " + V +
         ", s[2:3]\n\ts_waitcnt vmcnt(0)\n";
}

TEST(Vskip, SkipsVectorInstructionsButNotScalarOnes) {
  auto R = runAsmKernel("\tv_mov_b32 v3, 7\n"
                        "\ts_mov_b32 s10, 2\n"
                        "\ts_setvskip s10, 1\n" // bit 1 of s10: skip on
                        "\tv_mov_b32 v3, 99\n"
                        "\tglobal_store_dword v1, v3, s[2:3]\n"
                        "\ts_add_u32 s11, 0, 5\n"
                        "\ts_setvskip s10, 0\n" // bit 0 of s10: skip off
                        "\tv_mov_b32 v4, s11\n"
                        "\tv_add_u32 v3, v3, v4\n" +
                        store("v3", 512));
  ASSERT_EQ(R.Error, "");
  for (unsigned L = 0; L < 64; ++L) {
    EXPECT_EQ(R.Buffer[L], L) << "the skipped store wrote lane " << L;
    EXPECT_EQ(R.Buffer[512 + L], 12u) << "lane " << L; // 7 (not 99) + 5
  }
}

TEST(GprIdx, IndexesTheEnabledSlotsOnly) {
  std::string Body = "\tv_mov_b32 v10, 10\n\tv_mov_b32 v11, 11\n\tv_mov_b32 v12, 12\n"
                     "\tv_mov_b32 v13, 13\n\tv_mov_b32 v20, 0\n\tv_mov_b32 v21, 0\n"
                     "\tv_mov_b32 v22, 0\n"
                     "\ts_mov_b32 s4, 2\n\ts_mov_b32 s5, 1\n"
                     "\ts_set_gpr_idx_on s4, gpr_idx(SRC0)\n"
                     "\tv_mov_b32 v3, v10\n" // v3 = v12 (the destination is not indexed)
                     "\ts_set_gpr_idx_off\n"
                     "\tv_mov_b32 v4, v10\n" // indexing off: v4 = v10
                     "\ts_set_gpr_idx_on s4, gpr_idx(DST)\n"
                     "\tv_mov_b32 v20, v11\n" // v22 = v11
                     "\ts_set_gpr_idx_idx s5\n"
                     "\tv_mov_b32 v20, v13\n" // index 1: v21 = v13
                     "\ts_set_gpr_idx_mode gpr_idx(SRC1)\n"
                     "\tv_add_u32 v5, s5, v10\n" // v5 = 1 + v11 (the SGPR is not indexed)
                     "\ts_set_gpr_idx_off\n" +
                     store("v3", 256) + store("v4", 320) + store("v22", 384) + store("v21", 448) +
                     store("v5", 512);
  auto R = runAsmKernel(Body);
  ASSERT_EQ(R.Error, "");
  EXPECT_EQ(R.Buffer[256], 12u);
  EXPECT_EQ(R.Buffer[320], 10u);
  EXPECT_EQ(R.Buffer[384], 11u);
  EXPECT_EQ(R.Buffer[448], 13u);
  EXPECT_EQ(R.Buffer[512], 12u);
}

TEST(GprIdx, MacAccumulatorFollowsTheDestinationBit) {
  // gpr_idx(DST), index 1: v_fmac_f32 v10, v30, v31 computes v11 = v30 * v31 + v11.
  std::string Body = "\tv_mov_b32 v10, 1.0\n\tv_mov_b32 v11, 4.0\n"
                     "\tv_mov_b32 v30, 2.0\n\tv_mov_b32 v31, 0.5\n"
                     "\ts_mov_b32 s4, 1\n"
                     "\ts_set_gpr_idx_on s4, gpr_idx(DST)\n"
                     "\tv_fmac_f32 v10, v30, v31\n"
                     "\ts_set_gpr_idx_off\n" +
                     store("v10", 256) + store("v11", 320);
  auto R = runAsmKernel(Body);
  ASSERT_EQ(R.Error, "");
  EXPECT_EQ(R.Buffer[256], 0x3f800000u); // 1.0, untouched
  EXPECT_EQ(R.Buffer[320], 0x40a00000u); // 2 * 0.5 + 4 = 5.0
}

TEST(GprIdx, IndexPastTheAllocationIsARegisterFault) {
  auto R = runAsmKernel("\ts_mov_b32 s4, 20\n"
                        "\ts_set_gpr_idx_on s4, gpr_idx(DST)\n"
                        "\tv_mov_b32 v20, 0\n");
  EXPECT_NE(R.Error.find(
                "register v40 is beyond the registers the kernel's descriptor allocates (v0-v31)"),
            std::string::npos)
      << R.Error;
}

TEST(GprIdx, IndexedAgprIsRefusedWithTheReason) {
  AsmKernel K;
  K.Vgprs = 32;
  auto R = runAsmKernel("\ts_mov_b32 s4, 1\n"
                        "\ts_set_gpr_idx_on s4, gpr_idx(DST)\n"
                        "\tv_accvgpr_write_b32 a0, v1\n",
                        K);
  EXPECT_NE(R.Error.find("unsupported instruction v_accvgpr_write_b32 a0, v1 at pc 0x"),
            std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("whether the index applies to AGPRs"), std::string::npos) << R.Error;
}

} // namespace
