// Unit tests of the emulator's decoder and printer: hand-picked encodings of each family (their
// bytes from llvm-mc-22 -show-encoding), checking the decoded fields and the printed text, and
// invalid inputs.
#include "emu/Decoder.h"
#include "emu/Wave.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

using namespace asmevo::emu;

namespace {

struct Decoded {
  bool Ok = false;
  Inst In;
  std::string Why, Text;
};

Decoded dec(std::initializer_list<uint8_t> B, Gfx G = Gfx::Gfx90a) {
  std::vector<uint8_t> V(B);
  Decoded D;
  D.Ok = decodeInst(V.data(), V.size(), G, D.In, &D.Why);
  if (D.Ok)
    D.Text = printInst(D.In, G, 0x1000);
  return D;
}

} // namespace

TEST(Decoder, Sop2WithLiteral) {
  auto D = dec({0x02, 0xff, 0x04, 0x80, 0x45, 0x23, 0x01, 0x00});
  ASSERT_TRUE(D.Ok) << D.Why;
  EXPECT_EQ(D.In.Operation, Op::S_ADD_U32);
  EXPECT_EQ(D.In.Encoding, Enc::SOP2);
  EXPECT_EQ(D.In.Size, 8);
  EXPECT_EQ(D.In.Dst, 4);
  EXPECT_EQ(D.In.Src[0], 2);
  EXPECT_EQ(D.In.Src[1], kLiteralCode);
  EXPECT_TRUE(D.In.HasLiteral);
  EXPECT_EQ(D.In.Literal, 0x12345u);
  EXPECT_EQ(D.Text, "s_add_u32 s4, s2, 0x12345");
}

TEST(Decoder, ScalarFamilies) {
  auto D = dec({0x7e, 0x01, 0x84, 0xbe});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::S_MOV_B64);
  EXPECT_EQ(D.In.Src[0], kExecLo);
  EXPECT_EQ(D.Text, "s_mov_b64 s[4:5], exec");
  D = dec({0x34, 0x12, 0x03, 0xb0});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::S_MOVK_I32);
  EXPECT_EQ(D.In.Simm16, 0x1234);
  EXPECT_EQ(D.Text, "s_movk_i32 s3, 0x1234");
  D = dec({0x01, 0x87, 0x07, 0xbf});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::S_CMP_LG_U32);
  EXPECT_EQ(D.In.Src[1], 128 + 7);
  EXPECT_EQ(D.Text, "s_cmp_lg_u32 s1, 7");
  D = dec({0x70, 0x00, 0x8c, 0xbf});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::S_WAITCNT);
  EXPECT_EQ(D.In.Simm16 & 0xffff, 0x70);
  EXPECT_EQ(D.Text, "s_waitcnt vmcnt(0) lgkmcnt(0)");
}

TEST(Decoder, Smem) {
  auto D = dec({0x02, 0x02, 0x0a, 0xc0, 0x10, 0x00, 0x00, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::S_LOAD_DWORDX4);
  EXPECT_EQ(D.In.Dst, 8);
  EXPECT_EQ(D.In.Sbase, 4);
  EXPECT_TRUE(D.In.SmemImm);
  EXPECT_EQ(D.In.Offset, 0x10);
  EXPECT_EQ(D.In.Size, 8);
  EXPECT_EQ(D.Text, "s_load_dwordx4 s[8:11], s[4:5], 0x10");
  // Negative (signed 21-bit) offsets, as rocsparse's gfx90a code uses them (llvm-mc-22).
  auto N = dec({0x41, 0x01, 0x02, 0xc0, 0xfc, 0xff, 0x1f, 0x00});
  ASSERT_TRUE(N.Ok);
  EXPECT_EQ(N.In.Offset, -4);
  EXPECT_EQ(N.Text, "s_load_dword s5, s[2:3], -0x4");
  auto S = dec({0x41, 0x41, 0x02, 0xc0, 0xf8, 0xff, 0x1f, 0x0e});
  ASSERT_TRUE(S.Ok);
  EXPECT_EQ(S.Text, "s_load_dword s5, s[2:3], s7 offset:-0x8");
}

TEST(Decoder, VopForms) {
  auto D = dec({0x02, 0x07, 0x02, 0x02});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::V_ADD_F32_E32);
  EXPECT_EQ(D.In.Dst, kVgprBase + 1);
  EXPECT_EQ(D.In.Src[0], kVgprBase + 2);
  EXPECT_EQ(D.In.Src[1], kVgprBase + 3);
  EXPECT_EQ(mnemonic(D.In, Gfx::Gfx90a), "v_add_f32_e32");
  EXPECT_EQ(D.Text, "v_add_f32_e32 v1, v2, v3");

  D = dec({0xfa, 0x02, 0x02, 0x7e, 0x02, 0x01, 0x09, 0xff});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Form, VForm::Dpp);
  EXPECT_EQ(D.In.Src[0], kVgprBase + 2);
  EXPECT_EQ(D.In.DppCtrl, 0x101);
  EXPECT_TRUE(D.In.BoundCtrl);
  EXPECT_EQ(D.In.RowMask, 0xf);
  EXPECT_EQ(D.In.Size, 8);
  EXPECT_EQ(D.Text, "v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:1");

  D = dec({0xf9, 0x06, 0x02, 0x02, 0x02, 0x05, 0x00, 0x06});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Form, VForm::Sdwa);
  EXPECT_EQ(D.In.DstSel, 5);
  EXPECT_EQ(D.In.SrcSel[0], 0);
  EXPECT_EQ(D.In.SrcSel[1], 6);
  EXPECT_EQ(D.Text, "v_add_f32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PAD "
                    "src0_sel:BYTE_0 src1_sel:DWORD");

  D = dec({0x81, 0x0a, 0x94, 0x7d});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Encoding, Enc::VOPC);
  EXPECT_EQ(D.In.Sdst, kVccLo);
  EXPECT_EQ(D.In.Dst, kNoOperand);
  EXPECT_EQ(D.In.Src[0], 129);
  EXPECT_EQ(D.Text, "v_cmp_eq_u32_e32 vcc, 1, v5");
}

TEST(Decoder, Vop3) {
  auto D = dec({0x00, 0x82, 0xcb, 0xd1, 0x01, 0x05, 0x0e, 0x24});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Encoding, Enc::VOP3);
  EXPECT_EQ(D.In.Neg, 1);
  EXPECT_EQ(D.In.Abs, 2);
  EXPECT_TRUE(D.In.Clamp);
  EXPECT_EQ(D.In.Src[2], kVgprBase + 3);
  EXPECT_EQ(D.Text, "v_fma_f32 v0, -v1, |v2|, v3 clamp");

  D = dec({0x01, 0x06, 0x19, 0xd1, 0x02, 0x07, 0x02, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::V_ADD_CO_U32);
  EXPECT_EQ(D.In.Dst, kVgprBase + 1);
  EXPECT_EQ(D.In.Sdst, 6);
  EXPECT_EQ(D.Text, "v_add_co_u32_e64 v1, s[6:7], v2, v3");

  D = dec({0x05, 0x00, 0x89, 0xd2, 0x01, 0x07, 0x01, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::V_READLANE_B32);
  EXPECT_EQ(D.In.Dst, 5); // SGPR code
  EXPECT_EQ(D.Text, "v_readlane_b32 s5, v1, 3");
}

TEST(Decoder, Vop3pAndMfma) {
  auto D = dec({0x00, 0x48, 0x8e, 0xd3, 0x01, 0x05, 0x0e, 0x14});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::V_PK_FMA_F16);
  EXPECT_EQ(D.In.Opsel, 1);
  EXPECT_EQ(D.In.OpselHi, 6);
  EXPECT_EQ(D.Text, "v_pk_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1]");

  D = dec({0x00, 0x89, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x44});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::V_MFMA_F32_32X32X8_F16);
  EXPECT_EQ(D.In.Dst, kAgprBase + 0);
  EXPECT_EQ(D.In.Src[0], kVgprBase + 0);
  EXPECT_EQ(D.In.Src[1], kVgprBase + 2);
  EXPECT_EQ(D.In.Src[2], kAgprBase + 0);
  EXPECT_EQ(D.In.Cbsz, 1);
  EXPECT_EQ(D.In.Abid, 1);
  EXPECT_EQ(D.In.Blgp, 2);
  EXPECT_EQ(mnemonic(D.In, Gfx::Gfx90a), "v_mfma_f32_32x32x8f16");
  EXPECT_EQ(D.Text, "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:1 blgp:2");

  D = dec({0x00, 0x80, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04}, Gfx::Gfx942);
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::V_MFMA_F32_32X32X8_F16);
  EXPECT_EQ(D.Text, "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]");
}

TEST(Decoder, Ds) {
  auto D = dec({0x01, 0x02, 0x6e, 0xd8, 0x02, 0x00, 0x00, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::DS_READ2_B32);
  EXPECT_EQ(D.In.Offset0, 1);
  EXPECT_EQ(D.In.Offset1, 2);
  EXPECT_EQ(D.In.Addr, kVgprBase + 2);
  EXPECT_EQ(D.In.Dst, kVgprBase + 0);
  EXPECT_EQ(D.Text, "ds_read2_b32 v[0:1], v2 offset0:1 offset1:2");
  D = dec({0x10, 0x00, 0x1a, 0xd8, 0x01, 0x02, 0x00, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Data0, kVgprBase + 2);
  EXPECT_EQ(D.In.Dst, kNoOperand);
  EXPECT_EQ(D.Text, "ds_write_b32 v1, v2 offset:16");
}

TEST(Decoder, FlatGlobalScratch) {
  auto D = dec({0xf0, 0x9f, 0x55, 0xdc, 0x02, 0x00, 0x04, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Encoding, Enc::GLOBAL);
  EXPECT_EQ(D.In.Offset, -16);
  EXPECT_EQ(D.In.Saddr, 4);
  EXPECT_EQ(D.In.Addr, kVgprBase + 2);
  EXPECT_TRUE(D.In.Glc);
  EXPECT_EQ(D.Text, "global_load_dwordx2 v[0:1], v2, s[4:5] offset:-16 glc");
  D = dec({0x00, 0x80, 0x70, 0xdc, 0x02, 0x04, 0x7f, 0x00});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Saddr, kNoOperand);
  EXPECT_EQ(D.In.Data0, kVgprBase + 4);
  EXPECT_EQ(D.Text, "global_store_dword v[2:3], v4, off");
  D = dec({0x00, 0x80, 0x53, 0xde, 0x02, 0x00, 0x7f, 0x01}, Gfx::Gfx942);
  ASSERT_TRUE(D.Ok);
  EXPECT_TRUE(D.In.Sc0 && D.In.Sc1 && D.In.Nt);
  EXPECT_EQ(D.Text, "global_load_dword v1, v[2:3], off sc0 nt sc1");
  D = dec({0x00, 0x60, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x01}, Gfx::Gfx942);
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Encoding, Enc::SCRATCH);
  EXPECT_TRUE(D.In.Sve);
  EXPECT_EQ(D.In.Addr, kVgprBase + 2);
  EXPECT_EQ(D.Text, "scratch_load_dword v1, v2, off");
}

TEST(Decoder, Mubuf) {
  auto D = dec({0x04, 0x10, 0x50, 0xe0, 0x02, 0x01, 0x02, 0x03});
  ASSERT_TRUE(D.Ok);
  EXPECT_EQ(D.In.Operation, Op::BUFFER_LOAD_DWORD);
  EXPECT_TRUE(D.In.Offen);
  EXPECT_EQ(D.In.Offset, 4);
  EXPECT_EQ(D.In.Sbase, 8);
  EXPECT_EQ(D.In.Soffset, 3);
  EXPECT_EQ(D.In.Addr, kVgprBase + 2);
  EXPECT_EQ(D.In.Dst, kVgprBase + 1);
  EXPECT_EQ(D.Text, "buffer_load_dword v1, v2, s[8:11], s3 offen offset:4");
}

TEST(Decoder, InvalidInput) {
  Inst In;
  std::string Why;
  // Truncated literal: s_add_u32 with src1 = literal but only 4 bytes.
  const uint8_t Lit[] = {0x02, 0xff, 0x04, 0x80};
  EXPECT_FALSE(decodeInst(Lit, sizeof Lit, Gfx::Gfx90a, In, &Why));
  EXPECT_NE(Why.find("literal"), std::string::npos);
  // Truncated 64-bit encoding.
  const uint8_t Half[] = {0x02, 0x02, 0x0a, 0xc0};
  EXPECT_FALSE(decodeInst(Half, sizeof Half, Gfx::Gfx90a, In, &Why));
  // Fewer than 4 bytes.
  EXPECT_FALSE(decodeInst(Half, 2, Gfx::Gfx90a, In, &Why));
  // Unknown SOP1 opcode 0xff.
  const uint8_t Bad[] = {0x00, 0xff, 0x80, 0xbe};
  EXPECT_FALSE(decodeInst(Bad, sizeof Bad, Gfx::Gfx90a, In, &Why));
  EXPECT_NE(Why.find("opcode"), std::string::npos);
  // A gfx950-only op (v_bitop3_b32) on gfx942.
  const uint8_t Bitop3[] = {0x0e, 0x07, 0x34, 0xd2, 0x04, 0x01, 0x02, 0x08};
  EXPECT_FALSE(decodeInst(Bitop3, sizeof Bitop3, Gfx::Gfx942, In, &Why));
  EXPECT_TRUE(decodeInst(Bitop3, sizeof Bitop3, Gfx::Gfx950, In, &Why));
}
