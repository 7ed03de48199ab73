#include "emu/Refusal.h"

#include "emu/Decoder.h"
#include "emu/Dpp.h"
#include "emu/Exec.h"
#include "emu/RegUse.h"

namespace asmevo::emu {

namespace {

// VOP1 ops whose executor reads src0's registers directly (a lane it picks, or the register
// itself), not as one value per lane: a DPP or SDWA form would be ignored. LLVM's assembler
// has no such forms.
bool readsSrc0Whole(Op O) {
  switch (O) {
  case Op::V_READFIRSTLANE_B32_E32:
  case Op::V_SWAP_B32_E32:
  case Op::V_PERMLANE16_SWAP_B32_E32:
  case Op::V_PERMLANE32_SWAP_B32_E32:
  case Op::V_ACCVGPR_MOV_B32_E32:
    return true;
  default:
    return false;
  }
}

// Whether src0 is read as a 64-bit register pair.
bool src0Is64(const Inst &In, Gfx G) {
  const RegUses U = regUses(In, G);
  for (unsigned I = 0; I < U.NumReads; ++I)
    if (U.Reads[I].Code == In.Src[0] && U.Reads[I].Count >= 2)
      return true;
  return false;
}

// "v_swap_b32" for V_SWAP_B32_E32: the op, whatever its encoding.
std::string opBase(Op O) {
  std::string N = opNameLower(O);
  if (N.size() > 4 &&
      (N.compare(N.size() - 4, 4, "_e32") == 0 || N.compare(N.size() - 4, 4, "_e64") == 0))
    N.resize(N.size() - 4);
  return N;
}

} // namespace

std::optional<Refusal> formRefusal(const Inst &In, Gfx G) {
  const bool Vop = In.Encoding == Enc::VOP1 || In.Encoding == Enc::VOP2 || In.Encoding == Enc::VOPC;
  if (Vop && In.Form == VForm::Dpp) {
    if (!dppControlDefined(In.DppCtrl, G))
      return Refusal{EmuErrorKind::IllegalInst, "reserved DPP control " + hexText(In.DppCtrl)};
    if (readsSrc0Whole(In.Operation))
      return Refusal{EmuErrorKind::Unsupported,
                     "the DPP form of " + opBase(In.Operation) +
                         " is not defined (the op does not read src0 per lane)"};
    if (!isRowNewBcast(In.DppCtrl) && src0Is64(In, G))
      return Refusal{EmuErrorKind::Unsupported,
                     "DPP control " + hexText(In.DppCtrl) +
                         " on a 64-bit operand (64-bit DPP takes row_newbcast only)"};
  }
  if (Vop && In.Form == VForm::Sdwa) {
    if (In.SrcSel[0] > 6 || In.SrcSel[1] > 6)
      return Refusal{EmuErrorKind::IllegalInst, "reserved SDWA source select"};
    if (In.DstSel > 6 || In.DstUnused > 2)
      return Refusal{EmuErrorKind::IllegalInst, "reserved SDWA destination select"};
    if (readsSrc0Whole(In.Operation))
      return Refusal{EmuErrorKind::Unsupported,
                     "the SDWA form of " + opBase(In.Operation) +
                         " is not defined (the op does not read src0 per lane)"};
  }
  if (In.Operation == Op::V_MFMA_F32_16X16X128_F8F6F4 ||
      In.Operation == Op::V_MFMA_F32_32X32X64_F8F6F4) {
    if (In.Cbsz > 4 || In.Blgp > 4)
      return Refusal{EmuErrorKind::IllegalInst,
                     "format code " + std::to_string(In.Cbsz > 4 ? In.Cbsz : In.Blgp) +
                         " (cbsz selects A's format, blgp B's: 0..4) is invalid"};
  }
  return std::nullopt;
}

void markRefusal(Inst &In, Gfx G) { In.Refused = formRefusal(In, G).has_value(); }

void throwRefusal(const ExecCtx &C, const Inst &In) {
  std::optional<Refusal> R = formRefusal(In, C.Target);
  if (!R) // the mark and the predicate are one; a mark set by hand on an accepted instruction
    R = Refusal{EmuErrorKind::Unsupported, "marked refused"};
  throw EmuError(
      R->Kind,
      std::string(R->Kind == EmuErrorKind::Unsupported ? "unsupported instruction " : "") +
          mnemonic(In, C.Target) + " at pc " + hexText(C.InstPc) + ": " + R->Why,
      C.InstPc);
}

} // namespace asmevo::emu
