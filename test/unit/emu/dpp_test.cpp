// DPP on the three targets: every dpp_ctrl value against the definitions of LLVM's
// AMDGPUModifierSyntax (dpp32_ctrl with GFX90A's row_newbcast, dpp64_ctrl), written here
// independently of emu/Dpp.cpp; row_newbcast end to end in kernels LLVM assembles; and what
// the form predicate (Refusal.h) and kernel-run --coverage say of every control.
#include "AsmKernel.h"
#include "MakeInst.h"
#include "emu/Coverage.h"
#include "emu/Dispatch.h"
#include "emu/Dpp.h"
#include "emu/EmuError.h"
#include "emu/Refusal.h"

#include <gtest/gtest.h>

#include <memory>

using namespace asmevo;
using namespace asmevo::emu;
using asmevo::emu::test::mk;

namespace {

constexpr uint16_t V(unsigned r) { return uint16_t(kVgprBase + r); }
constexpr Gfx kTargets[] = {Gfx::Gfx90a, Gfx::Gfx942, Gfx::Gfx950};

// The lane that lane L reads under Ctrl, from the documentation's wording; -1 for "none";
// -2 for a control the documentation does not define.
int documentedSource(unsigned Ctrl, int L) {
  const int Row = L / 16, InRow = L % 16, N = int(Ctrl % 16);
  if (Ctrl < 0x100) { // quad_perm:[s0,s1,s2,s3]: 2 bits per lane of the quad
    const int Sel[4] = {int(Ctrl & 3), int((Ctrl >> 2) & 3), int((Ctrl >> 4) & 3),
                        int((Ctrl >> 6) & 3)};
    return 4 * (L / 4) + Sel[L % 4];
  }
  if (Ctrl > 0x100 && Ctrl < 0x110) // row_shl:N: "row shift left by N threads"
    return InRow + N <= 15 ? L + N : -1;
  if (Ctrl > 0x110 && Ctrl < 0x120) // row_shr:N
    return InRow - N >= 0 ? L - N : -1;
  if (Ctrl > 0x120 && Ctrl < 0x130) // row_ror:N: "row rotate right"
    return 16 * Row + (InRow + 16 - N) % 16;
  switch (Ctrl) {
  case 0x130: // wave_shl:1
    return L == 63 ? -1 : L + 1;
  case 0x134: // wave_rol:1
    return (L + 1) % 64;
  case 0x138: // wave_shr:1
    return L == 0 ? -1 : L - 1;
  case 0x13c: // wave_ror:1
    return (L + 63) % 64;
  case 0x140: // row_mirror
    return 16 * Row + 15 - InRow;
  case 0x141: // row_half_mirror
    return 8 * (L / 8) + 7 - L % 8;
  case 0x142: // row_bcast:15: "the 15th thread of each row to the next row"
    return Row == 0 ? -1 : 16 * Row - 1;
  case 0x143: // row_bcast:31: "thread 31 to rows 2 and 3"
    return Row < 2 ? -1 : 31;
  default:
    break;
  }
  if (Ctrl >= 0x150 && Ctrl <= 0x15f) // row_newbcast:N: "a thread within a row to the whole row"
    return 16 * Row + N;
  return -2;
}

struct Dpp : ::testing::Test {
  std::unique_ptr<WaveState> W = std::make_unique<WaveState>();
  Workgroup Wg;
  DeviceMemory Mem;
  ExecCtx C{*W, Wg, Mem, Gfx::Gfx942};
  uint32_t *row(unsigned r) { return W->vrow(r); }
  // v_mov_b32_dpp v0, v1 <Ctrl> with the given masks, through executeInst as the emulator runs
  // it (the instruction marked by the form predicate first).
  void movDpp(unsigned Ctrl, bool Bound, uint64_t Exec) {
    for (unsigned l = 0; l < 64; ++l) {
      row(1)[l] = 1000 + l;
      row(0)[l] = 0xeeee;
    }
    W->setExec(Exec);
    Inst in = mk(Op::V_MOV_B32_E32, Enc::VOP1, V(0), V(1));
    in.Form = VForm::Dpp;
    in.DppCtrl = uint16_t(Ctrl);
    in.BoundCtrl = Bound;
    markRefusal(in, C.Target);
    ASSERT_TRUE(executeInst(C, in));
  }
};

// Every control on every target: the defined ones move the documented lanes (an out-of-range or
// inactive source leaves the lane unwritten, or writes 0 under bound_ctrl); the rest stop the
// wave as illegal, with the control named.
TEST_F(Dpp, EveryControlOnEveryTargetAsDocumented) {
  unsigned Defined = 0;
  const uint64_t SomeOff = ~0ull & ~(1ull << 5) & ~(1ull << 31) & ~(1ull << 47);
  for (Gfx G : kTargets) {
    C.Target = G;
    for (unsigned Ctrl = 0; Ctrl < kDppControls; ++Ctrl) {
      const bool Doc = documentedSource(Ctrl, 0) != -2;
      EXPECT_EQ(dppControlDefined(Ctrl, G), Doc) << std::hex << Ctrl;
      if (!Doc) {
        try {
          movDpp(Ctrl, false, ~0ull);
          ADD_FAILURE() << "control " << std::hex << Ctrl << " ran";
        } catch (const EmuError &E) {
          EXPECT_EQ(E.Kind, EmuErrorKind::IllegalInst);
          EXPECT_NE(std::string(E.what()).find("reserved DPP control " + hexText(Ctrl)),
                    std::string::npos)
              << E.what();
        }
        continue;
      }
      Defined += G == Gfx::Gfx942;
      for (bool Bound : {false, true})
        for (uint64_t Exec : {uint64_t(~0ull), SomeOff}) {
          movDpp(Ctrl, Bound, Exec);
          for (int L = 0; L < 64; ++L) {
            const int S = documentedSource(Ctrl, L);
            const bool SrcOn = S >= 0 && ((Exec >> S) & 1);
            uint32_t Want = 0xeeee; // not written
            if ((Exec >> L) & 1)
              Want = SrcOn ? 1000 + unsigned(S) : (Bound ? 0u : 0xeeeeu);
            ASSERT_EQ(row(0)[L], Want) << "ctrl " << std::hex << Ctrl << std::dec << " lane " << L
                                       << " bound " << Bound << " exec " << std::hex << Exec;
          }
        }
    }
  }
  // quad_perm 256 + row_shl/shr/ror 45 + wave 4 + mirrors 2 + row_bcast 2 + row_newbcast 16
  EXPECT_EQ(Defined, 325u);
}

// row_newbcast with the row and bank masks, the pattern AITer's kernels use (each row's scale
// broadcast from one lane).
TEST_F(Dpp, RowNewBcastWithMasks) {
  for (unsigned l = 0; l < 64; ++l) {
    row(1)[l] = 1000 + l;
    row(0)[l] = 0xeeee;
  }
  Inst in = mk(Op::V_MOV_B32_E32, Enc::VOP1, V(0), V(1));
  in.Form = VForm::Dpp;
  in.DppCtrl = 0x153; // row_newbcast:3
  in.RowMask = 0x5;   // rows 0 and 2
  in.BankMask = 0xe;  // banks 1..3
  W->setExec(~0ull);
  markRefusal(in, C.Target);
  ASSERT_TRUE(executeInst(C, in));
  for (unsigned l = 0; l < 64; ++l) {
    const unsigned r = l / 16, b = (l % 16) / 4;
    const bool On = (r == 0 || r == 2) && b != 0;
    EXPECT_EQ(row(0)[l], On ? 1000 + 16 * r + 3 : 0xeeeeu) << l;
  }
}

// The forms the predicate refuses, each with its reason.
TEST(Refusal, FormsAndReasons) {
  Inst Swap = mk(Op::V_SWAP_B32_E32, Enc::VOP1, V(0), V(1));
  Swap.Form = VForm::Dpp;
  Swap.DppCtrl = 0xe4;
  auto R = formRefusal(Swap, Gfx::Gfx942);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ(R->Why,
            "the DPP form of v_swap_b32 is not defined (the op does not read src0 per lane)");
  Inst Add = mk(Op::V_ADD_U32_E32, Enc::VOP2, V(0), V(1), V(2));
  Add.Form = VForm::Sdwa;
  Add.SrcSel[1] = 7;
  R = formRefusal(Add, Gfx::Gfx90a);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ(R->Kind, EmuErrorKind::IllegalInst);
  EXPECT_EQ(R->Why, "reserved SDWA source select");
  Add.SrcSel[1] = 6;
  Add.DstUnused = 3;
  R = formRefusal(Add, Gfx::Gfx90a);
  ASSERT_TRUE(R.has_value());
  EXPECT_EQ(R->Why, "reserved SDWA destination select");
  Add.DstUnused = 2;
  EXPECT_FALSE(formRefusal(Add, Gfx::Gfx90a).has_value());
}

// Kernels LLVM assembles: row_newbcast:N (the encoding LLVM gives it, 0x150 + N) broadcasts lane
// N of each row on every target; the whole wave stores what it read.
TEST(DppKernel, RowNewBcastAssembledByLlvm) {
  for (const char *T : {"gfx90a", "gfx942", "gfx950"}) {
    emu::test::AsmKernel K;
    K.Target = T;
    auto R = emu::test::runAsmKernel(R"(
	v_add_u32 v2, 1000, v0
	v_mov_b32 v3, 0
	s_nop 1
	v_mov_b32_dpp v3, v2 row_newbcast:5 row_mask:0xf bank_mask:0xf
	s_nop 1
	v_add_co_u32 v4, vcc, s2, v1
	v_mov_b32 v5, s3
	v_addc_co_u32 v5, vcc, v5, 0, vcc
	global_store_dword v[4:5], v3, off
	s_endpgm
)",
                                     K);
    ASSERT_EQ(R.Error, "") << T;
    for (unsigned l = 0; l < 64; ++l)
      EXPECT_EQ(R.Buffer[l], 1000 + 16 * (l / 16) + 5) << T << " lane " << l;
  }
}

// A DPP op with a 64-bit operand takes row_newbcast only (LLVM's disassembler: "DP ALU dpp only
// supports row_newbcast"): v_mov_b64_dpp row_newbcast:2 moves whole register pairs on gfx942
// and gfx950; the same op with quad_perm (0xe4, written as words: LLVM will not assemble it)
// stops the run.
TEST(DppKernel, SixtyFourBitOperandTakesRowNewBcastOnly) {
  const std::string Store = R"(
	s_nop 1
	v_add_co_u32 v6, vcc, s2, v1
	v_mov_b32 v7, s3
	v_addc_co_u32 v7, vcc, v7, 0, vcc
	global_store_dword v[6:7], v2, off
	global_store_dword v[6:7], v3, off offset:256
	s_endpgm
)";
  const std::string Init = "\tv_add_u32 v4, 100, v0\n\tv_add_u32 v5, 200, v0\n\ts_nop 1\n";
  for (const char *T : {"gfx942", "gfx950"}) {
    emu::test::AsmKernel K;
    K.Target = T;
    auto R = emu::test::runAsmKernel(
        Init + "\tv_mov_b64_dpp v[2:3], v[4:5] row_newbcast:2 row_mask:0xf bank_mask:0xf\n" + Store,
        K);
    ASSERT_EQ(R.Error, "") << T;
    for (unsigned l = 0; l < 64; ++l) {
      EXPECT_EQ(R.Buffer[l], 100 + 16 * (l / 16) + 2) << T << " lane " << l;
      EXPECT_EQ(R.Buffer[64 + l], 200 + 16 * (l / 16) + 2) << T << " lane " << l;
    }
    R = emu::test::runAsmKernel(Init + "\t.long 0x7e0470fa, 0xff00e404\n" + Store, K);
    EXPECT_NE(R.Error.find("unsupported instruction v_mov_b64_dpp at pc 0x"), std::string::npos)
        << R.Error;
    EXPECT_NE(
        R.Error.find(": DPP control 0xe4 on a 64-bit operand (64-bit DPP takes row_newbcast only)"),
        std::string::npos)
        << R.Error;
  }
}

// kernel-run --coverage over an object holding v_mov_b32_dpp with every control: exactly the
// undefined controls are not implemented, and the run stops at the first of them with the
// same reason.
TEST(DppKernel, CoverageAndRunAgreeOnEveryControl) {
  std::string Words;
  for (unsigned Ctrl = 0; Ctrl < kDppControls; ++Ctrl) {
    // VOP1 v_mov_b32 v3, <DPP> (src0 = 0xfa), then the DPP dword: src0 v2, ctrl, row/bank 0xf.
    char Buf[96];
    std::snprintf(Buf, sizeof(Buf), "\t.long 0x7e0602fa, 0x%08x\n", 0xff000002u | (Ctrl << 8));
    Words += Buf;
  }
  auto Dir = llvm::cantFail(TempDir::create("asmevo-dpp"));
  for (const char *T : {"gfx90a", "gfx942", "gfx950"}) {
    emu::test::AsmKernel K;
    K.Target = T;
    auto TI = parseTargetId(std::string("amdgcn-amd-amdhsa--") + T, 5);
    auto Obj = assembleAndLink(emu::test::asmKernelSource(Words + "\ts_endpgm\n", K), "k.s", *TI);
    ASSERT_TRUE(bool(Obj)) << llvm::toString(Obj.takeError());
    const std::string Path = Dir.file(std::string(T) + ".hsaco");
    llvm::cantFail(writeFileAtomic(Path, *Obj));
    auto Cov = scanCoverage({Path});
    ASSERT_TRUE(bool(Cov)) << llvm::toString(Cov.takeError());
    const OpCoverage &M = Cov->Ops.at("v_mov_b32_dpp");
    EXPECT_EQ(M.Count, kDppControls) << T;
    EXPECT_EQ(M.Implemented, 325u) << T;
    EXPECT_NE(M.FirstMissing.find("reserved DPP control 0x100"), std::string::npos)
        << M.FirstMissing;
    auto R = emu::test::runAsmKernel(Words + "\ts_endpgm\n", K);
    EXPECT_NE(R.Error.find("v_mov_b32_dpp at pc 0x"), std::string::npos) << R.Error;
    EXPECT_NE(R.Error.find(": reserved DPP control 0x100"), std::string::npos) << R.Error;
  }
}

} // namespace

namespace {

// An executor that has no saturation for an integer op refuses its clamp rather than ignore it
// (v_mad_u32_u24 clamp, which LLVM assembles), and coverage counts it as not implemented; the
// same op without clamp runs.
TEST(ModifierRefusal, IntegerClampWithoutSaturationStopsTheRun) {
  const std::string Body = "\tv_mad_u32_u24 v2, v3, v4, v5 clamp\n\ts_endpgm\n";
  auto R = emu::test::runAsmKernel(Body);
  EXPECT_NE(R.Error.find("unsupported instruction v_mad_u32_u24_e64 at pc 0x"), std::string::npos)
      << R.Error;
  EXPECT_NE(R.Error.find(": clamp or an output modifier on this integer result (no saturation is "
                         "implemented for it)"),
            std::string::npos)
      << R.Error;
  R = emu::test::runAsmKernel("\tv_mad_u32_u24 v2, v3, v4, v5\n\ts_endpgm\n");
  EXPECT_EQ(R.Error, "");
}

} // namespace
