// gfx950's transposing LDS reads on hand-written kernels. The expected values come from the
// exchange as stated in ExecLdsTranspose.cpp's sources (a 16-lane group: lane 16G + i gets as
// element e element i % n of lane 16G + e * (16 / n) + i / n), worked out here on tiles whose
// element values name their position, e.g. the CDNA4 guide's tr_b16 use: four lanes per row of
// a 4 x 16 b16 tile, each lane then holding one column.
#include "AsmKernel.h"

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

namespace {

AsmKernel gfx950() {
  AsmKernel K;
  K.Target = "gfx950";
  K.LdsBytes = 4096;
  return K;
}

// LDS byte b holds b & 0xff (written 4 bytes per lane over 1 KiB), then lane l reads 8 bytes at
// 8 * l with the given instruction; v[4:5] is stored at buffer dword 512 + 2l.
std::string readTile(const std::string &Op) {
  return "\tv_lshlrev_b32 v2, 2, v0\n"
         "\ts_mov_b32 s10, 0x04040404\n\tv_mul_lo_u32 v3, s10, v0\n"
         "\tv_add_u32 v3, 0x03020100, v3\n"
         "\tds_write_b32 v2, v3\n"
         "\tds_write_b32 v2, v3 offset:256\n" // bytes 256..511: the same values again
         "\ts_waitcnt lgkmcnt(0)\n"
         "\tv_lshlrev_b32 v2, 3, v0\n\t" +
         Op +
         " v[4:5], v2\n"
         "\ts_waitcnt lgkmcnt(0)\n"
         "\tglobal_store_dwordx2 v2, v[4:5], s[2:3] offset:2048\n"
         "\ts_waitcnt vmcnt(0)\n";
}

TEST(LdsTranspose, B16GivesEachLaneAColumnOfFourRows) {
  auto R = runAsmKernel(readTile("ds_read_b64_tr_b16"), gfx950());
  ASSERT_EQ(R.Error, "");
  // Lane l read b16 elements l*4 .. l*4+3 (element x = bytes 2x, 2x+1, value (2x) | (2x+1) << 8
  // for x < 128). Lane 16G + i gets element i % 4 of lane 16G + 4e + i / 4 as element e.
  for (unsigned L = 0; L < 64; ++L) {
    const unsigned G = L / 16, I = L % 16;
    uint32_t Want[2] = {0, 0};
    for (unsigned E = 0; E < 4; ++E) {
      const unsigned From = 16 * G + 4 * E + I / 4, X = 4 * From + I % 4; // b16 element index
      const uint32_t V = ((2 * X) & 0xff) | (((2 * X + 1) & 0xff) << 8);
      Want[E / 2] |= V << (16 * (E % 2));
    }
    EXPECT_EQ(R.Buffer[512 + 2 * L], Want[0]) << "lane " << L;
    EXPECT_EQ(R.Buffer[512 + 2 * L + 1], Want[1]) << "lane " << L;
  }
  // The worked example: lanes 0..15 read rows of T[r][c] = 16r + c (as element indices):
  // lane 0 gets column 0 (0, 16, 32, 48), lane 5 gets column 5 (5, 21, 37, 53).
  EXPECT_EQ(R.Buffer[512] & 0xffu, 0u);
  EXPECT_EQ((R.Buffer[512 + 2 * 5] & 0xffu) / 2, 5u);
  EXPECT_EQ((R.Buffer[512 + 2 * 5 + 1] >> 16 & 0xffu) / 2, 53u);
}

TEST(LdsTranspose, B8AndB4) {
  for (const char *Op : {"ds_read_b64_tr_b8", "ds_read_b64_tr_b4"}) {
    const bool B8 = std::string(Op).find("b8") != std::string::npos;
    const unsigned W = B8 ? 8 : 4, N = 64 / W;
    auto R = runAsmKernel(readTile(Op), gfx950());
    ASSERT_EQ(R.Error, "") << Op;
    for (unsigned L = 0; L < 64; ++L) {
      const unsigned G = L / 16, I = L % 16;
      uint64_t Want = 0;
      for (unsigned E = 0; E < N; ++E) {
        const unsigned From = 16 * G + E * (16 / N) + I / N;
        const unsigned Bit = (I % N) * W; // in the source lane's 8 bytes 8*From .. 8*From+7
        const uint64_t Src = [&] {
          uint64_t S = 0;
          for (unsigned Bt = 0; Bt < 8; ++Bt)
            S |= uint64_t((8 * From + Bt) & 0xff) << (8 * Bt);
          return S;
        }();
        Want |= ((Src >> Bit) & ((1ull << W) - 1)) << (E * W);
      }
      const uint64_t Got = R.Buffer[512 + 2 * L] | uint64_t(R.Buffer[512 + 2 * L + 1]) << 32;
      EXPECT_EQ(Got, Want) << Op << " lane " << L;
    }
  }
}

TEST(LdsTranspose, PartialExecAndMisalignmentAreRefusedWithTheReason) {
  auto R = runAsmKernel("\ts_mov_b32 exec_hi, 0\n\tv_lshlrev_b32 v2, 3, v0\n"
                        "\tds_read_b64_tr_b16 v[4:5], v2\n",
                        gfx950());
  EXPECT_NE(R.Error.find("unsupported instruction ds_read_b64_tr_b16 at pc 0x"), std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find("EXEC not all ones (the ISA requires all ones)"), std::string::npos)
      << R.Error;
  R = runAsmKernel("\tv_lshlrev_b32 v2, 3, v0\n\tds_read_b64_tr_b8 v[4:5], v2 offset:4\n",
                   gfx950());
  EXPECT_NE(R.Error.find("LDS address 0x4 of lane 0 is not 8-byte aligned"), std::string::npos)
      << R.Error;
}

} // namespace
