// The wait-state hazard table (emu/Hazards.h): for every rule, on each target where its number
// differs, a sequence that violates it (check() must fail naming that rule) and the same
// sequence with enough wait states (it must pass). The machine code comes from LLVM's assembler
// in-process (as llvm-mc would make it), decoded by the emulator's decoder, and fed through
// HazardTracker in order.
//
// Corpus: every kernel of the triton corpus (test/corpus/triton/<arch>/*.hsaco) and of the
// compiled clang corpus (${ASMEVO_CORPUS_DIR}/clang/<arch>[-features]/*.hsaco) is scanned along
// its straight lines by the static scan the differential check uses (emu/StaticHazards.h: the
// fall-through path is a real path, so the history carries across branch targets; the tracker is
// reset only after an instruction that does not fall through). LLVM inserts the required wait
// states on every path of its own code, so any hit is a bug in the table (or the scan) and
// fails the test.
//
// The same scan also measures coverage: every s_nop LLVM put in reachable code is left out in
// turn; when some rule then fires the s_nop is "explained". The count per rule is printed, and
// so are the unexplained ones (LLVM's own conservative waits, e.g. its dst-op-sel check that
// also fires for VOP3P ops, and the XNACK soft-clause breaks between memory loads, which are
// not wait states).
#include "asm/Assembler.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"
#include "emu/Decoder.h"
#include "emu/Hazards.h"
#include "emu/RegUse.h"
#include "emu/StaticHazards.h"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace asmevo;
using namespace asmevo::emu;
namespace fs = std::filesystem;

namespace {

const char *gfxProc(Gfx G) {
  switch (G) {
  case Gfx::Gfx90a:
    return "gfx90a";
  case Gfx::Gfx950:
    return "gfx950";
  default:
    return "gfx942";
  }
}

// The bytes of the named section of an ELF object (empty when absent).
std::string sectionBytes(llvm::StringRef Elf, llvm::StringRef Name) {
  auto Obj = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(Elf, "obj"));
  if (!Obj) {
    llvm::consumeError(Obj.takeError());
    return "";
  }
  for (const auto &S : (*Obj)->sections()) {
    auto N = S.getName();
    if (N && *N == Name) {
      auto C = S.getContents();
      if (C)
        return C->str();
      llvm::consumeError(C.takeError());
    } else if (!N) {
      llvm::consumeError(N.takeError());
    }
  }
  return "";
}

struct Decoded {
  Inst In;
  uint64_t Pc;
};

// Assemble Source for G and decode its .text.
std::vector<Decoded> assemble(Gfx G, const std::string &Source, std::string &Err) {
  std::vector<Decoded> Out;
  auto T = parseTargetId(std::string("amdgcn-amd-amdhsa--") + gfxProc(G), 5);
  if (!T) {
    Err = llvm::toString(T.takeError());
    return Out;
  }
  auto Obj = assembleObject(".text\n" + Source + "\n", "hazard.s", *T);
  if (!Obj) {
    Err = llvm::toString(Obj.takeError());
    return Out;
  }
  std::string Text = sectionBytes(*Obj, ".text");
  const uint8_t *B = reinterpret_cast<const uint8_t *>(Text.data());
  for (size_t Off = 0; Off < Text.size();) {
    Decoded D;
    std::string Why;
    if (!decodeInst(B + Off, Text.size() - Off, G, D.In, &Why)) {
      Err = "decode at " + std::to_string(Off) + ": " + Why;
      return Out;
    }
    D.Pc = Off;
    Off += D.In.Size;
    Out.push_back(D);
  }
  return Out;
}

// Run Source through a fresh tracker; the first violation's message, or "".
std::string firstHazard(Gfx G, const std::string &Source) {
  std::string Err;
  auto Is = assemble(G, Source, Err);
  EXPECT_EQ(Err, "");
  EXPECT_FALSE(Is.empty());
  HazardTracker T(G);
  T.reset();
  for (const Decoded &D : Is) {
    RegUses U = regUses(D.In, G);
    std::string Why;
    if (!T.check(D.In, U, D.Pc, Why))
      return Why;
    T.issued(D.In, U, D.Pc);
  }
  return "";
}

// The run's register-limit check (one subtraction over packed counts) agrees with the three
// comparisons it replaces, for every maximum and limit around the edges, a real
// instruction's packed counts included.
TEST(RegUses, PackedLimitCheckAgreesWithTheThreeComparisons) {
  const int Max[] = {-1, 0, 1, 7, 31, 101, 127, 255, 511};
  const unsigned Lim[] = {0, 1, 2, 8, 32, 102, 128, 256, 512};
  for (int V : Max)
    for (int A : Max)
      for (int S : Max)
        for (unsigned LV : Lim)
          for (unsigned LA : Lim)
            for (unsigned LS : Lim) {
              RegUses U;
              U.Need = packRegCounts(unsigned(V + 1), unsigned(A + 1), unsigned(S + 1));
              bool Want = V >= int(LV) || A >= int(LA) || S >= int(LS);
              ASSERT_EQ(regsExceed(U, packRegCounts(LV, LA, LS)), Want)
                  << "v" << V << " a" << A << " s" << S << " limits " << LV << " " << LA << " "
                  << LS;
            }
  std::string Err;
  auto Is = assemble(Gfx::Gfx942, "v_add_f32 v9, s17, v3", Err);
  ASSERT_EQ(Err, "");
  RegUses U = regUses(Is.at(0).In, Gfx::Gfx942);
  EXPECT_EQ(U.Need, packRegCounts(10, 0, 18));
  EXPECT_FALSE(regsExceed(U, packRegCounts(10, 0, 18)));
  EXPECT_TRUE(regsExceed(U, packRegCounts(9, 0, 18)));
  EXPECT_TRUE(regsExceed(U, packRegCounts(10, 0, 17)));
}

// What the strict checks and the search's liveness are built on: a load into LDS writes no
// VGPR (its vdst field is unused), and an F8F6F4 MFMA reads as many A/B VGPRs as its format
// takes (FP4: 4, FP6: 6, FP8: 8), not the table's FP8 width.
TEST(RegUses, LdsLoadsWriteNoVgprAndF8F6F4OperandsFollowTheirFormat) {
  std::string Err;
  auto Is = assemble(Gfx::Gfx950,
                     "global_load_lds_dwordx4 v[2:3], off\n"
                     "v_mfma_f32_32x32x64_f8f6f4 a[0:15], v[4:7], v[8:13], a[0:15] cbsz:4 blgp:2\n"
                     "v_mfma_f32_32x32x64_f8f6f4 a[0:15], v[16:23], v[24:31], 0",
                     Err);
  ASSERT_EQ(Err, "");
  ASSERT_EQ(Is.size(), 3u);
  RegUses L = regUses(Is[0].In, Gfx::Gfx950);
  EXPECT_FALSE(L.ReturnsData);
  for (unsigned I = 0; I < L.NumWrites; ++I)
    EXPECT_FALSE(L.Writes[I].Code >= 256 && L.Writes[I].Code < 768)
        << "writes " << regName(L.Writes[I]);
  auto readCount = [](const RegUses &U, uint16_t Code) {
    for (unsigned I = 0; I < U.NumReads; ++I)
      if (U.Reads[I].Code == Code)
        return unsigned(U.Reads[I].Count);
    return 0u;
  };
  RegUses F4 = regUses(Is[1].In, Gfx::Gfx950);
  EXPECT_EQ(readCount(F4, 256 + 4), 4u);
  EXPECT_EQ(readCount(F4, 256 + 8), 6u);
  RegUses F8 = regUses(Is[2].In, Gfx::Gfx950);
  EXPECT_EQ(readCount(F8, 256 + 16), 8u);
  EXPECT_EQ(readCount(F8, 256 + 24), 8u);
}

struct Case {
  const char *Rule; // the rule the bad sequence violates
  Gfx Target;
  const char *Bad;  // violates Rule ("" = the rule does not apply: Good only)
  const char *Good; // the fixed sequence: no hazard
};

std::string caseName(const Case &C, size_t I) {
  std::string N = std::string(C.Rule) + "_" + gfxProc(C.Target) + "_" + std::to_string(I);
  for (char &Ch : N)
    if (!isalnum(static_cast<unsigned char>(Ch)))
      Ch = '_';
  return N;
}

const Gfx A = Gfx::Gfx90a, C = Gfx::Gfx942, E = Gfx::Gfx950;

const Case kCases[] = {
    // ---- VALU-written SGPRs ----
    {"valu-sgpr-then-vmem", A,
     "v_readfirstlane_b32 s4, v0\n s_nop 3\n global_load_dword v1, v2, s[4:5]",
     "v_readfirstlane_b32 s4, v0\n s_nop 4\n global_load_dword v1, v2, s[4:5]"},
    {"valu-sgpr-then-vmem", C,
     "v_readfirstlane_b32 s8, v0\n buffer_load_dword v1, v2, s[4:7], s8 offen",
     "v_readfirstlane_b32 s8, v0\n s_nop 4\n buffer_load_dword v1, v2, s[4:7], s8 offen"},
    {"valu-vcc-then-div-fmas", A,
     "v_div_scale_f32 v0, vcc, v1, v2, v1\n s_nop 2\n v_div_fmas_f32 v3, v4, v5, v6",
     "v_div_scale_f32 v0, vcc, v1, v2, v1\n s_nop 3\n v_div_fmas_f32 v3, v4, v5, v6"},
    {"valu-vcc-then-div-fmas", C,
     "v_div_scale_f32 v0, vcc, v1, v2, v1\n v_div_fmas_f32 v3, v4, v5, v6",
     "v_div_scale_f32 v0, vcc, v1, v2, v1\n s_nop 3\n v_div_fmas_f32 v3, v4, v5, v6"},
    {"valu-sgpr-then-lane-select", A,
     "v_readfirstlane_b32 s2, v0\n s_nop 2\n v_readlane_b32 s3, v1, s2",
     "v_readfirstlane_b32 s2, v0\n s_nop 3\n v_readlane_b32 s3, v1, s2"},
    {"valu-sgpr-then-lane-select", C,
     "v_cmp_eq_u32_e64 s[2:3], v0, v1\n s_nop 1\n v_writelane_b32 v1, 5, s2",
     "v_cmp_eq_u32_e64 s[2:3], v0, v1\n s_nop 3\n v_writelane_b32 v1, 5, s2"},
    {"valu-exec-then-dpp", A,
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 3\n v_mov_b32_dpp v2, v3 quad_perm:[1,0,3,2] "
     "row_mask:0xf bank_mask:0xf",
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 4\n v_mov_b32_dpp v2, v3 quad_perm:[1,0,3,2] "
     "row_mask:0xf bank_mask:0xf"},
    {"valu-vgpr-then-dpp", A,
     "v_add_f32 v3, v1, v2\n s_nop 0\n v_mov_b32_dpp v4, v3 quad_perm:[1,0,3,2] row_mask:0xf "
     "bank_mask:0xf",
     "v_add_f32 v3, v1, v2\n s_nop 1\n v_mov_b32_dpp v4, v3 quad_perm:[1,0,3,2] row_mask:0xf "
     "bank_mask:0xf"},
    {"valu-vgpr-then-dpp", E,
     "v_add_f32 v3, v1, v2\n v_mov_b32_dpp v4, v3 row_shr:1 row_mask:0xf bank_mask:0xf",
     "v_add_f32 v3, v1, v2\n v_add_f32 v5, v1, v2\n v_add_f32 v6, v1, v2\n"
     " v_mov_b32_dpp v4, v3 row_shr:1 row_mask:0xf bank_mask:0xf"},
    {"valu-mask-then-execz-vccz", A, "v_cmp_eq_u32 vcc, v0, v1\n s_nop 3\n v_mov_b32 v2, src_vccz",
     "v_cmp_eq_u32 vcc, v0, v1\n s_nop 4\n v_mov_b32 v2, src_vccz"},
    {"valu-mask-then-execz-vccz", C, "v_cmpx_eq_u32 vcc, v0, v1\n v_mov_b32 v2, src_execz",
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 4\n v_mov_b32 v2, src_execz"},
    // ---- M0 ----
    {"salu-m0-then-movrel-lds", A, "s_mov_b32 m0, s1\n s_movrels_b32 s2, s3",
     "s_mov_b32 m0, s1\n s_nop 0\n s_movrels_b32 s2, s3"},
    {"salu-m0-then-movrel-lds", C, "s_mov_b32 m0, s1\n global_load_lds_dword v[2:3], off",
     "s_mov_b32 m0, s1\n s_nop 0\n global_load_lds_dword v[2:3], off"},
    {"salu-m0-then-sendmsg-gds", E, "s_mov_b32 m0, 0\n s_sendmsg sendmsg(MSG_INTERRUPT)",
     "s_mov_b32 m0, 0\n s_nop 0\n s_sendmsg sendmsg(MSG_INTERRUPT)"},
    {"salu-m0-then-sendmsg-gds", A, "s_mov_b32 m0, 0\n s_ttracedata",
     "s_mov_b32 m0, 0\n s_nop 0\n s_ttracedata"},
    // ---- s_setreg ----
    {"setreg-then-getreg", A,
     "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n s_nop 0\n s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, "
     "4)",
     "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n s_nop 1\n s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, "
     "4)"},
    {"setreg-then-setreg", C,
     "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3",
     "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0\n s_nop 1\n s_setreg_imm32_b32 hwreg(HW_REG_MODE, "
     "4, 2), 3"},
    {"setreg-vskip-then-vector", E,
     "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 0\n s_nop 0\n v_mov_b32 v0, v1",
     "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 0\n s_nop 1\n v_mov_b32 v0, v1"},
    {"setreg-vskip-then-vector", A, "",
     "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0\n v_mov_b32 v0, v1"},
    // ---- wide stores ----
    {"wide-store-then-valu-write", A, "global_store_dwordx4 v[0:1], v[2:5], off\n v_mov_b32 v3, 0",
     "global_store_dwordx4 v[0:1], v[2:5], off\n s_nop 0\n v_mov_b32 v3, 0"},
    {"wide-store-then-valu-write", C,
     "buffer_store_dwordx3 v[2:4], v0, s[4:7], 0 offen\n s_nop 0\n v_mov_b32 v4, 0",
     "buffer_store_dwordx3 v[2:4], v0, s[4:7], 0 offen\n s_nop 1\n v_mov_b32 v4, 0"},
    {"wide-store-then-valu-write", E, "",
     "buffer_store_dwordx4 v[2:5], v0, s[4:7], s8 offen\n v_mov_b32 v3, 0\n"
     " global_store_dwordx2 v[0:1], v[6:7], off\n v_mov_b32 v6, 0"},
    // ---- gfx940+ VALU forwarding ----
    {"valu-sgpr-then-valu", C, "v_cmp_gt_f32 vcc, v0, v1\n s_nop 0\n v_cndmask_b32 v2, v3, v4, vcc",
     "v_cmp_gt_f32 vcc, v0, v1\n s_nop 1\n v_cndmask_b32 v2, v3, v4, vcc"},
    {"valu-sgpr-then-valu", E, "v_readfirstlane_b32 s4, v0\n v_add_u32 v1, s4, v1",
     "v_readfirstlane_b32 s4, v0\n s_nop 1\n v_add_u32 v1, s4, v1"},
    {"valu-sgpr-then-valu", A, "", "v_cmp_gt_f32 vcc, v0, v1\n v_cndmask_b32 v2, v3, v4, vcc"},
    {"valu-exec-then-lane-access", C,
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 2\n v_readfirstlane_b32 s0, v2",
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 3\n v_readfirstlane_b32 s0, v2"},
    {"valu-exec-then-lane-access", A, "", "v_cmpx_eq_u32 vcc, v0, v1\n v_readfirstlane_b32 s0, v2"},
    {"valu-vgpr-then-readlane", C, "v_add_u32 v1, v2, v3\n v_readfirstlane_b32 s0, v1",
     "v_add_u32 v1, v2, v3\n s_nop 0\n v_readfirstlane_b32 s0, v1"},
    {"valu-vgpr-then-readlane", A, "", "v_add_u32 v1, v2, v3\n v_readlane_b32 s0, v1, 5"},
    {"trans-then-valu", C, "v_exp_f32 v1, v2\n v_add_f32 v3, v1, v4",
     "v_exp_f32 v1, v2\n s_nop 0\n v_add_f32 v3, v1, v4"},
    {"trans-then-valu", E, "v_rsq_f32 v1, v2\n v_mul_f32 v3, v4, v1",
     "v_rsq_f32 v1, v2\n v_sqrt_f32 v5, v1\n v_mul_f32 v3, v4, v1"},
    {"trans-then-valu", A, "", "v_exp_f32 v1, v2\n v_add_f32 v3, v1, v4"},
    {"dst-sel-then-valu", C,
     "v_add_f16_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 "
     "src1_sel:WORD_0\n v_add_f32 v4, v1, v5",
     "v_add_f16_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 "
     "src1_sel:WORD_0\n s_nop 0\n v_add_f32 v4, v1, v5"},
    {"dst-sel-then-valu", E, "v_fma_f16 v1, v2, v3, v4 op_sel:[0,0,0,1]\n v_mov_b32 v1, 0",
     "v_fma_f16 v1, v2, v3, v4 op_sel:[0,0,0,1]\n s_nop 0\n v_mov_b32 v1, 0"},
    // As LLVM pads them (llc -mcpu=gfx942: s_nop 0 after v_pk_add_f32 and v_pk_mul_f16).
    {"dst-sel-then-valu", C, "v_pk_add_f32 v[0:1], v[2:3], v[4:5]\n v_mul_f32 v6, v1, v0",
     "v_pk_add_f32 v[0:1], v[2:3], v[4:5]\n s_nop 0\n v_mul_f32 v6, v1, v0"},
    {"dst-sel-then-valu", C, "v_pk_mul_f16 v1, v2, v3\n v_add_u32 v4, 7, v1",
     "v_pk_mul_f16 v1, v2, v3\n s_nop 0\n v_add_u32 v4, 7, v1"},
    {"vcmpx-then-permlane", E, "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 2\n v_permlane16_swap_b32 v2, v3",
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 3\n v_permlane16_swap_b32 v2, v3"},
    {"valu-vgpr-then-permlane", E, "v_mov_b32 v3, 0\n s_nop 0\n v_permlane32_swap_b32 v2, v3",
     "v_mov_b32 v3, 0\n s_nop 1\n v_permlane32_swap_b32 v2, v3"},
    // ---- VALU -> MFMA ----
    {"valu-exec-then-mfma", A,
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 2\n v_mfma_f32_4x4x1f32 a[0:3], v4, v5, a[0:3]",
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 3\n v_mfma_f32_4x4x1f32 a[0:3], v4, v5, a[0:3]"},
    {"valu-exec-then-mfma", C,
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 1\n v_mfma_f32_4x4x1_16b_f32 a[0:3], v4, v5, a[0:3]",
     "v_cmpx_eq_u32 vcc, v0, v1\n s_nop 3\n v_mfma_f32_4x4x1_16b_f32 a[0:3], v4, v5, a[0:3]"},
    {"valu-vgpr-then-mfma", A,
     "v_mov_b32 v4, 0\n s_nop 0\n v_mfma_f32_32x32x8f16 a[0:15], v[4:5], v[6:7], a[0:15]",
     "v_mov_b32 v4, 0\n s_nop 1\n v_mfma_f32_32x32x8f16 a[0:15], v[4:5], v[6:7], a[0:15]"},
    {"valu-vgpr-then-mfma", C,
     "v_accvgpr_write_b32 a3, v1\n v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[6:7], a[0:15]",
     "v_accvgpr_write_b32 a3, v1\n s_nop 1\n v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[6:7], "
     "a[0:15]"},
    {"valu-vgpr-then-mfma", E,
     "v_mov_b32 v7, 0\n s_nop 0\n v_mfma_f32_32x32x16_f16 a[0:15], v[0:3], v[4:7], a[0:15]",
     "v_mov_b32 v7, 0\n s_nop 1\n v_mfma_f32_32x32x16_f16 a[0:15], v[0:3], v[4:7], a[0:15]"},
    // ---- MFMA -> MFMA ----
    {"mfma-then-mfma-srcc", A,
     "v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 6\n"
     " v_mfma_f32_16x16x16f16 a[4:7], v[0:1], v[2:3], a[2:5]",
     "v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 7\n"
     " v_mfma_f32_16x16x16f16 a[4:7], v[0:1], v[2:3], a[2:5]"},
    {"mfma-then-mfma-srcc", A, "",
     "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\n"
     " v_mfma_f32_32x32x8f16 a[0:15], v[4:5], v[6:7], a[0:15]"},
    {"mfma-then-mfma-srcc", C,
     "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 3\n"
     " v_mfma_f32_16x16x16_f16 a[4:7], v[0:1], v[2:3], a[2:5]",
     "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 4\n"
     " v_mfma_f32_16x16x16_f16 a[4:7], v[0:1], v[2:3], a[2:5]"},
    {"mfma-then-mfma-srcc", C,
     "v_mfma_f32_4x4x4_16b_f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 0\n"
     " v_mfma_f32_4x4x4_16b_f16 a[0:3], v[0:1], v[2:3], a[0:3]",
     "v_mfma_f32_4x4x4_16b_f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 1\n"
     " v_mfma_f32_4x4x4_16b_f16 a[0:3], v[0:1], v[2:3], a[0:3]"},
    {"mfma-then-mfma-srcc", E,
     "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 4\n"
     " v_mfma_f32_16x16x16_f16 a[4:7], v[0:1], v[2:3], a[2:5]",
     "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]\n s_nop 5\n"
     " v_mfma_f32_16x16x16_f16 a[4:7], v[0:1], v[2:3], a[2:5]"},
    {"mfma-then-mfma-srcab", A,
     "v_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]\n s_nop 3\n"
     " v_mfma_f32_4x4x1f32 v[8:11], v0, v5, v[8:11]",
     "v_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]\n s_nop 4\n"
     " v_mfma_f32_4x4x1f32 v[8:11], v0, v5, v[8:11]"},
    {"mfma-then-mfma-srcab", C,
     "v_mfma_f32_4x4x1_16b_f32 v[0:3], v4, v5, v[0:3]\n s_nop 2\n"
     " v_mfma_f32_4x4x1_16b_f32 v[8:11], v0, v5, v[8:11]",
     "v_mfma_f32_4x4x1_16b_f32 v[0:3], v4, v5, v[0:3]\n s_nop 3\n"
     " v_mfma_f32_4x4x1_16b_f32 v[8:11], v0, v5, v[8:11]"},
    {"mfma-then-mfma-srcab", E,
     "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]\n s_nop 6\n"
     " v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[6:7], v[8:11]",
     "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]\n s_nop 7\n"
     " v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[6:7], v[8:11]"},
    // ---- MFMA -> VALU / memory ----
    {"mfma-then-valu-read", A,
     "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\n s_nop 15\n s_nop 1\n"
     " v_accvgpr_read_b32 v0, a5",
     "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\n s_nop 15\n s_nop 2\n"
     " v_accvgpr_read_b32 v0, a5"},
    {"mfma-then-valu-read", C,
     "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]\n s_nop 9\n"
     " v_accvgpr_read_b32 v0, a5",
     "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]\n s_nop 10\n"
     " v_accvgpr_read_b32 v0, a5"},
    {"mfma-then-valu-read", E,
     "v_mfma_f32_32x32x16_f16 v[0:15], v[16:19], v[20:23], v[0:15]\n s_nop 10\n"
     " v_add_f32 v30, v15, v31",
     "v_mfma_f32_32x32x16_f16 v[0:15], v[16:19], v[20:23], v[0:15]\n s_nop 11\n"
     " v_add_f32 v30, v15, v31"},
    {"mfma-then-mem-read", A,
     "v_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]\n s_nop 3\n global_store_dword v[8:9], v2, off",
     "v_mfma_f32_4x4x1f32 v[0:3], v4, v5, v[0:3]\n s_nop 4\n global_store_dword v[8:9], v2, off"},
    {"mfma-then-mem-read", C,
     "v_mfma_f64_4x4x4_4b_f64 v[0:1], v[2:3], v[4:5], v[0:1]\n s_nop 7\n"
     " global_store_dwordx2 v[8:9], v[0:1], off",
     "v_mfma_f64_4x4x4_4b_f64 v[0:1], v[2:3], v[4:5], v[0:1]\n s_nop 8\n"
     " global_store_dwordx2 v[8:9], v[0:1], off"},
    {"mfma-then-mem-read", E,
     "v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]\n s_nop 15\n s_nop 0\n"
     " ds_write_b32 v20, v7",
     "v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]\n s_nop 15\n s_nop 1\n"
     " ds_write_b32 v20, v7"},
    {"mfma-then-write", A,
     "v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]\n s_nop 9\n v_mov_b32 v1, 0",
     "v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]\n s_nop 10\n v_mov_b32 v1, 0"},
    {"mfma-then-write", C,
     "v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]\n s_nop 8\n v_mov_b32 v1, 0",
     "v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]\n s_nop 9\n v_mov_b32 v1, 0"},
    {"mfma-then-write", E,
     "v_mfma_f32_16x16x32_f16 a[0:3], v[4:7], v[8:11], a[0:3]\n s_nop 6\n"
     " ds_read_b32 a2, v12",
     "v_mfma_f32_16x16x32_f16 a[0:3], v[4:7], v[8:11], a[0:3]\n s_nop 7\n"
     " ds_read_b32 a2, v12"},
    {"mfma-srcc-then-write", A,
     "v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[2:3], a[0:15]\n s_nop 13\n"
     " v_accvgpr_write_b32 a3, 0",
     "v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[2:3], a[0:15]\n s_nop 14\n"
     " v_accvgpr_write_b32 a3, 0"},
    {"mfma-srcc-then-write", C,
     "v_mfma_f32_32x32x8_f16 a[16:31], v[0:1], v[2:3], a[0:15]\n s_nop 5\n"
     " v_accvgpr_write_b32 a3, 0",
     "v_mfma_f32_32x32x8_f16 a[16:31], v[0:1], v[2:3], a[0:15]\n s_nop 6\n"
     " v_accvgpr_write_b32 a3, 0"},
    {"mfma-srcc-then-write", E,
     "v_mfma_f32_16x16x32_f16 a[4:7], v[0:3], v[8:11], a[0:3]\n s_nop 1\n"
     " v_accvgpr_write_b32 a3, 0",
     "v_mfma_f32_16x16x32_f16 a[4:7], v[0:3], v[8:11], a[0:3]\n s_nop 2\n"
     " v_accvgpr_write_b32 a3, 0"},
    {"dgemm-then-fma64", A,
     "v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1]\n s_nop 0\n"
     " v_fma_f64 v[10:11], v[12:13], v[14:15], v[16:17]",
     "v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1]\n s_nop 1\n"
     " v_fma_f64 v[10:11], v[12:13], v[14:15], v[16:17]"},
    {"dgemm-then-fma64", C,
     "v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]\n"
     " v_fmac_f64 v[20:21], v[12:13], v[14:15]",
     "v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]\n s_nop 1\n"
     " v_fmac_f64 v[20:21], v[12:13], v[14:15]"},
    // ---- dot ----
    {"dot-then-read", A, "v_dot2_f32_f16 v0, v1, v2, v3\n s_nop 1\n v_add_f32 v4, v0, v5",
     "v_dot2_f32_f16 v0, v1, v2, v3\n s_nop 2\n v_add_f32 v4, v0, v5"},
    // On gfx94x LLVM's DstSel padding (VOP3P with op_sel_hi[0]) comes first: llc -mcpu=gfx942
    // puts s_nop 0 between two dependent v_dot2_f32_f16, the accumulating form included.
    {"dst-sel-then-valu", C, "v_dot2_f32_f16 v0, v1, v2, v3\n v_dot2_f32_f16 v5, v0, v2, v3",
     "v_dot2_f32_f16 v0, v1, v2, v3\n s_nop 0\n v_dot2_f32_f16 v0, v4, v2, v0"},
    {"dot-then-write", E, "v_dot2_f32_f16 v0, v1, v2, v3\n s_nop 1\n v_mov_b32 v0, 0",
     "v_dot2_f32_f16 v0, v1, v2, v3\n s_nop 2\n v_mov_b32 v0, 0"},
    // ---- gfx90a DGEMM between VALU and memory ----
    {"valu-dgemm-then-mem", A,
     "v_add_f32 v1, v2, v3\n v_mfma_f64_4x4x4f64 v[10:11], v[12:13], v[14:15], v[10:11]\n"
     " global_store_dword v[4:5], v1, off",
     "v_add_f32 v1, v2, v3\n v_mfma_f64_4x4x4f64 v[10:11], v[12:13], v[14:15], v[10:11]\n"
     " s_nop 0\n global_store_dword v[4:5], v1, off"},
    {"valu-dgemm-then-mem", C, "",
     "v_add_f32 v1, v2, v3\n v_mfma_f64_4x4x4_4b_f64 v[10:11], v[12:13], v[14:15], v[10:11]\n"
     " global_store_dword v[4:5], v1, off"},
};

class HazardRuleTest : public ::testing::TestWithParam<size_t> {};

TEST_P(HazardRuleTest, ViolationIsReported) {
  const Case &K = kCases[GetParam()];
  if (!*K.Bad)
    GTEST_SKIP() << "a pass-only case";
  std::string Why = firstHazard(K.Target, K.Bad);
  EXPECT_NE(Why.find(std::string("wait-state hazard ") + K.Rule + ":"), std::string::npos)
      << "got: '" << Why << "'";
}

TEST_P(HazardRuleTest, FixedSequencePasses) {
  const Case &K = kCases[GetParam()];
  EXPECT_EQ(firstHazard(K.Target, K.Good), "");
}

INSTANTIATE_TEST_SUITE_P(Rules, HazardRuleTest,
                         ::testing::Range(size_t(0), sizeof(kCases) / sizeof(kCases[0])),
                         [](const ::testing::TestParamInfo<size_t> &I) {
                           return caseName(kCases[I.param], I.param);
                         });

TEST(HazardTable, EveryRuleHasAViolationTest) {
  std::set<std::string> Covered;
  for (const Case &K : kCases)
    if (*K.Bad)
      Covered.insert(K.Rule);
  std::set<std::string> Names;
  for (const HazardRule &R : hazardRules()) {
    EXPECT_TRUE(Names.insert(R.Name).second) << "duplicate rule " << R.Name;
    EXPECT_TRUE(Covered.count(R.Name)) << "no violation test for " << R.Name;
    EXPECT_NE(std::string(R.Text), "");
    EXPECT_NE(R.Targets, 0);
  }
  for (const std::string &N : Covered)
    EXPECT_TRUE(Names.count(N)) << "test names an unknown rule " << N;
}

TEST(HazardTable, MessageNamesBothInstructions) {
  std::string Why = firstHazard(Gfx::Gfx942, "v_add_f32 v3, v1, v2\n s_nop 0\n"
                                             " v_mov_b32_dpp v4, v3 quad_perm:[1,0,3,2] "
                                             "row_mask:0xf bank_mask:0xf");
  EXPECT_EQ(Why, "wait-state hazard valu-vgpr-then-dpp: v_add_f32_e32 at pc 0x0 writes v3; "
                 "v_mov_b32_dpp at pc 0x8 reads it after 1 wait state, needs 2");
}

TEST(HazardTable, ResetForgetsHistory) {
  std::string Err;
  auto Is =
      assemble(Gfx::Gfx942, "v_readfirstlane_b32 s4, v0\n global_load_dword v1, v2, s[4:5]", Err);
  ASSERT_EQ(Is.size(), 2u) << Err;
  HazardTracker T(Gfx::Gfx942);
  T.issued(Is[0].In, regUses(Is[0].In, Gfx::Gfx942), 0);
  T.reset();
  std::string Why;
  EXPECT_TRUE(T.check(Is[1].In, regUses(Is[1].In, Gfx::Gfx942), 8, Why)) << Why;
}

// ---- the static scan (emu/StaticHazards.h) ---------------------------------------------------

// The hazards of Source's straight lines (its .text as one function at address 0).
std::vector<StaticHazard> staticScan(Gfx G, const std::string &Source, std::vector<LineInst> &Is) {
  auto T = parseTargetId(std::string("amdgcn-amd-amdhsa--") + gfxProc(G), 5);
  EXPECT_TRUE(bool(T));
  auto Obj = assembleObject(".text\n" + Source + "\n", "hazard.s", *T);
  EXPECT_TRUE(bool(Obj)) << (Obj ? "" : llvm::toString(Obj.takeError()));
  std::string Text = sectionBytes(*Obj, ".text");
  Is = straightLines(reinterpret_cast<const uint8_t *>(Text.data()), Text.size(), 0, G);
  return scanHazards(Is, G, 0, Is.size(), SIZE_MAX, false, "f", 0);
}

// A VALU write of vcc read by v_cndmask one wait state later (gfx942 needs 2): found on the
// fall-through path into a branch target, with the consumer's offset, rule and mnemonics.
TEST(StaticHazards, FallThroughIntoABranchTargetKeepsTheHistory) {
  std::vector<LineInst> Is;
  auto H = staticScan(Gfx::Gfx942,
                      "s_cbranch_scc1 L1\n v_cmp_gt_i32_e32 vcc, s10, v2\n L1:\n"
                      " v_cndmask_b32_e32 v43, v42, v4, vcc\n s_endpgm",
                      Is);
  ASSERT_EQ(Is.size(), 4u);
  EXPECT_FALSE(Is[2].Start); // the target is reached by falling through too
  ASSERT_EQ(H.size(), 1u);
  EXPECT_EQ(H[0].Rule, "valu-sgpr-then-valu");
  EXPECT_EQ(H[0].Offset, 8u);
  EXPECT_EQ(H[0].Consumer, "v_cndmask_b32_e32");
  EXPECT_EQ(H[0].Producer, "v_cmp_gt_i32_e32");
  EXPECT_EQ(H[0].kind(), "valu-sgpr-then-valu v_cndmask_b32_e32 v_cmp_gt_i32_e32");
  EXPECT_NE(H[0].Why.find("needs 2"), std::string::npos) << H[0].Why;
}

// With the wait states there, nothing. After an instruction that never falls through, the
// history starts afresh and what follows up to the next branch target is dead: the jump's own
// path into L1 (v_cmp, s_branch, v_cndmask: one wait state) is not followed, the limit the
// header names; the strict checks of a run that takes the jump find it.
TEST(StaticHazards, WaitStatesAndLinesThatStartAfresh) {
  std::vector<LineInst> Is;
  EXPECT_TRUE(staticScan(Gfx::Gfx942,
                         "v_cmp_gt_i32_e32 vcc, s10, v2\n s_nop 0\n s_nop 0\n"
                         " v_cndmask_b32_e32 v43, v42, v4, vcc\n s_endpgm",
                         Is)
                  .empty());
  auto H = staticScan(Gfx::Gfx942,
                      "v_cmp_gt_i32_e32 vcc, s10, v2\n s_branch L1\n s_nop 0\n L1:\n"
                      " v_cndmask_b32_e32 v44, v42, v4, vcc\n s_endpgm",
                      Is);
  ASSERT_EQ(Is.size(), 5u);
  EXPECT_TRUE(Is[2].Start);
  EXPECT_TRUE(Is[2].Dead);
  EXPECT_FALSE(Is[3].Start); // the dead s_nop falls through into it
  EXPECT_FALSE(Is[3].Dead);  // a branch target
  EXPECT_TRUE(H.empty()) << H[0].Why;
}

// ---- the compiled corpora -------------------------------------------------------------------

struct CorpusHit {
  std::string File, Kernel, Why;
};

// How many of LLVM's s_nops the table explains (a rule fires without them).
struct NopStats {
  unsigned Total = 0, Explained = 0;
  std::map<std::string, unsigned> ByRule;
  std::vector<std::string> Unexplained;
} Nops;

std::string hexPc(uint64_t V) {
  std::ostringstream S;
  S << "0x" << std::hex << V;
  return S.str();
}

// Scan every function of a code object along its straight lines (emu/StaticHazards.h).
void scanObject(const fs::path &Path, Gfx G, std::vector<CorpusHit> &Hits, unsigned &Kernels,
                unsigned &Insts) {
  auto Buf = llvm::MemoryBuffer::getFile(Path.string());
  ASSERT_TRUE(bool(Buf)) << Path;
  auto CO = CodeObject::read((*Buf)->getBuffer(), Path.string());
  ASSERT_TRUE(bool(CO)) << Path << ": " << llvm::toString(CO.takeError());
  ASSERT_FALSE(CO->Functions.empty()) << Path;
  for (const FunctionExtent &F : CO->Functions) {
    llvm::StringRef Code = CO->code(F);
    if (Code.empty())
      continue;
    ++Kernels;
    std::vector<LineInst> Is =
        straightLines(reinterpret_cast<const uint8_t *>(Code.data()), Code.size(), F.Begin, G);
    for (const StaticHazard &H : scanHazards(Is, G, 0, Is.size(), SIZE_MAX, false, F.Name, F.Begin))
      Hits.push_back({Path.string(), F.Name, H.Why});
    Insts += unsigned(Is.size());
    // Every s_nop LLVM put there should be explained by a rule: without it, some rule fires.
    for (size_t I = 0; I < Is.size(); ++I) {
      if (Is[I].In.Operation != Op::S_NOP || Is[I].Dead)
        continue;
      size_t From = I;
      while (From > 0 && !Is[From].Start && I - From < 30)
        --From;
      ++Nops.Total;
      std::vector<StaticHazard> H =
          scanHazards(Is, G, From, std::min(Is.size(), I + 24), I, true, F.Name, F.Begin);
      if (!H.empty()) {
        ++Nops.Explained;
        Nops.ByRule[H[0].Rule]++;
      } else if (Nops.Unexplained.size() < 60) {
        // HZ_CTX=N: show N instructions before each unexplained s_nop (default 3).
        static const size_t Ctx0 = std::getenv("HZ_CTX") ? std::atoi(std::getenv("HZ_CTX")) : 3;
        std::string Ctx;
        for (size_t J = (I >= Ctx0 ? I - Ctx0 : 0); J < std::min(Is.size(), I + 3); ++J)
          Ctx += "    " + printInst(Is[J].In, G, Is[J].Pc) + "\n";
        Nops.Unexplained.push_back(Path.filename().string() + " " + hexPc(Is[I].Pc) + ":\n" + Ctx);
      }
    }
  }
}

TEST(HazardCorpus, CompiledKernelsHaveNoViolation) {
  std::vector<std::pair<fs::path, Gfx>> Objects;
  auto addDir = [&](const fs::path &Root) {
    std::error_code EC;
    if (!fs::is_directory(Root, EC))
      return;
    for (const auto &D : fs::directory_iterator(Root)) {
      if (!D.is_directory())
        continue;
      std::string Arch = D.path().filename().string();
      Arch = Arch.substr(0, Arch.find('-'));
      Gfx G;
      if (!parseGfx(Arch.c_str(), G))
        continue;
      for (const auto &F : fs::directory_iterator(D.path()))
        if (F.path().extension() == ".hsaco")
          Objects.push_back({F.path(), G});
    }
  };
  addDir(fs::path(ASMEVO_SOURCE_DIR) / "test/corpus/triton");
  size_t Triton = Objects.size();
  addDir(fs::path(ASMEVO_CORPUS_DIR) / "clang");
  ASSERT_GT(Triton, 0u) << "no triton corpus";
  if (Objects.size() == Triton)
    ADD_FAILURE() << "no clang corpus under " << ASMEVO_CORPUS_DIR << "/clang (corpus.build-clang)";
  std::sort(Objects.begin(), Objects.end());
  std::vector<CorpusHit> Hits;
  unsigned Kernels = 0, Insts = 0;
  for (const auto &[P, G] : Objects)
    scanObject(P, G, Hits, Kernels, Insts);
  std::cout << "scanned " << Objects.size() << " code objects, " << Kernels << " kernels, " << Insts
            << " instructions\n";
  for (const CorpusHit &H : Hits)
    ADD_FAILURE() << H.File << " " << H.Kernel << ": " << H.Why;
  std::cout << "s_nop explained by a rule: " << Nops.Explained << " of " << Nops.Total << "\n";
  for (const auto &[R, N] : Nops.ByRule)
    std::cout << "  " << R << ": " << N << "\n";
  for (const std::string &U : Nops.Unexplained)
    std::cout << "unexplained s_nop in " << U;
}

} // namespace
