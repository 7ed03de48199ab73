// Instruction decoding and the analyses built on it (branch targets, PC-relative addresses).
#include "asm/Disassembler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo {

namespace {
// LLVM 22's AMDGPU instruction printer crashes on SDWA forms (VOP1/VOP2/VOPC with src0 0xf9)
// whose dst_sel, src0_sel or src1_sel is 7, which its decoder accepts (found by fuzzing; the
// stock llvm-mc --disassemble crashes too). Such words are kept as undecodable data.
bool crashesLlvmPrinter(llvm::ArrayRef<uint8_t> I) {
  if (I.size() != 8)
    return false;
  uint32_t W0 = llvm::support::endian::read32le(I.data()),
           W1 = llvm::support::endian::read32le(I.data() + 4);
  bool Vop = (W0 >> 31) == 0 && (W0 & 0x1ff) == 0xf9;
  if (!Vop)
    return false;
  bool Vopc = (W0 >> 25) == 0x3e;
  return ((W1 >> 16) & 7) == 7 || ((W1 >> 24) & 7) == 7 || (!Vopc && ((W1 >> 8) & 7) == 7);
}
// LLVM 22's AMDGPU decoder itself crashes (a dangling Twine in its error path) on MUBUF and
// MTBUF words whose soffset is 0xff, a literal these encodings cannot take (found by fuzzing;
// stock llvm-mc and llvm-objdump crash too). Such words are not given to it.
bool crashesLlvmDecoder(llvm::ArrayRef<uint8_t> I) {
  if (I.size() < 8)
    return false;
  uint32_t W0 = llvm::support::endian::read32le(I.data()),
           W1 = llvm::support::endian::read32le(I.data() + 4);
  unsigned Enc = W0 >> 26;
  return (Enc == 0x38 || Enc == 0x3a) && (W1 >> 24) == 0xff;
}
} // namespace

std::vector<DecodedInsn> decodeRange(const McTarget &M, llvm::StringRef Bytes, uint64_t Addr) {
  std::vector<DecodedInsn> Out;
  // LLVM 22's AMDGPU disassembler crashes when an instruction's literal would lie past the end
  // of the buffer (e.g. a trailing "s_cmp_eq_i32 lit, ..."): decode from a zero-padded copy and
  // treat an instruction that runs past the real end as undecodable.
  std::vector<uint8_t> Padded(Bytes.begin(), Bytes.end());
  Padded.resize(Bytes.size() + 32, 0);
  auto Data = llvm::ArrayRef<uint8_t>(Padded).take_front(Bytes.size());
  uint64_t Off = 0;
  while (Off < Data.size()) {
    DecodedInsn I;
    I.Addr = Addr + Off;
    uint64_t Size = 0;
    auto S =
        crashesLlvmDecoder(llvm::ArrayRef<uint8_t>(Padded).slice(Off, 8))
            ? llvm::MCDisassembler::Fail
            : M.Disasm->getInstruction(I.Inst, Size, llvm::ArrayRef<uint8_t>(Padded).slice(Off),
                                       I.Addr, llvm::nulls());
    if (S == llvm::MCDisassembler::Success && Size > 0 && Off + Size <= Data.size() &&
        !crashesLlvmPrinter(Data.slice(Off, Size))) {
      I.Valid = true;
      I.Size = unsigned(Size);
      auto Mn = M.Printer->getMnemonic(I.Inst);
      I.Mnemonic = llvm::StringRef(Mn.first ? Mn.first : "").trim().str();
      const auto &Desc = M.MII->get(I.Inst.getOpcode());
      uint64_t Target;
      if ((Desc.isBranch() || Desc.isCall()) &&
          M.MIA->evaluateBranch(I.Inst, I.Addr, I.Size, Target))
        I.BranchTarget = Target;
      I.Terminates = I.Mnemonic == "s_endpgm" || I.Mnemonic == "s_branch" ||
                     I.Mnemonic == "s_setpc_b64" || I.Mnemonic == "s_endpgm_saved" ||
                     I.Mnemonic == "s_rfe_b64";
    } else {
      I.Valid = false;
      I.Size = unsigned(std::min<uint64_t>(4, Data.size() - Off));
    }
    I.Bytes = Bytes.substr(Off, I.Size);
    Off += I.Size;
    Out.push_back(std::move(I));
  }
  return Out;
}

std::string printInsn(const McTarget &M, const DecodedInsn &I) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.Printer->printInst(&I.Inst, I.Addr, "", *M.STI, OS);
  OS.flush();
  return llvm::StringRef(S).trim().str();
}

bool reencodesExactly(const McTarget &M, const DecodedInsn &I) {
  if (!I.Valid)
    return false;
  llvm::SmallVector<char, 16> Code;
  llvm::SmallVector<llvm::MCFixup, 2> Fixups;
  M.Emitter->encodeInstruction(I.Inst, Code, Fixups, *M.STI);
  return Fixups.empty() && llvm::StringRef(Code.data(), Code.size()) == I.Bytes;
}

namespace {

uint32_t word(const DecodedInsn &I, unsigned N) {
  return llvm::support::endian::read32le(I.Bytes.data() + 4 * N);
}

bool writesAny(const McTarget &M, const DecodedInsn &I, llvm::MCRegister R) {
  const auto &Desc = M.MII->get(I.Inst.getOpcode());
  for (unsigned Op = 0; Op < Desc.getNumDefs() && Op < I.Inst.getNumOperands(); ++Op) {
    const auto &MO = I.Inst.getOperand(Op);
    if (MO.isReg() && M.MRI->regsOverlap(MO.getReg(), R))
      return true;
  }
  for (llvm::MCPhysReg D : Desc.implicit_defs())
    if (M.MRI->regsOverlap(D, R))
      return true;
  return false;
}

} // namespace

std::vector<PcRelRef> findPcRelativeRefs(const McTarget &M, const std::vector<DecodedInsn> &Is) {
  struct GetPc {
    size_t Idx;
    unsigned N; // SGPR number of the low half
    llvm::MCRegister Lo, Hi;
    bool LoValid = true, HiValid = true;
  };
  struct PendingAdd {
    size_t Idx;
    unsigned N;
    unsigned LitOperand;
    uint32_t Lit;
  };
  std::vector<GetPc> Live;
  std::vector<PendingAdd> Pending;
  std::vector<PcRelRef> Refs;
  for (size_t K = 0; K < Is.size(); ++K) {
    const auto &I = Is[K];
    if (!I.Valid)
      continue;
    bool IsAdd = I.Mnemonic == "s_add_u32", IsAddc = I.Mnemonic == "s_addc_u32";
    if ((IsAdd || IsAddc) && I.Size == 8) {
      uint32_t W = word(I, 0), Lit = word(I, 1);
      unsigned Src0 = W & 0xff, Src1 = (W >> 8) & 0xff;
      unsigned RegSrc = Src0 == 0xff ? Src1 : Src0;
      unsigned LitOp = Src0 == 0xff ? 1 : 2;
      if (Src0 == 0xff || Src1 == 0xff) {
        for (auto &G : Live) {
          if (IsAdd && G.LoValid && RegSrc == G.N) {
            Pending.push_back({K, G.N, LitOp, Lit});
            break;
          }
          if (IsAddc && G.HiValid && RegSrc == G.N + 1) {
            for (size_t P = Pending.size(); P-- > 0;) {
              if (Pending[P].N != G.N)
                continue;
              PcRelRef R;
              R.GetPc = G.Idx;
              R.Add = Pending[P].Idx;
              R.Addc = K;
              R.AddLitOperand = Pending[P].LitOperand;
              R.AddcLitOperand = LitOp;
              R.Return = Is[G.Idx].Addr + Is[G.Idx].Size;
              R.Target = R.Return + ((uint64_t(Lit) << 32) | Pending[P].Lit);
              Refs.push_back(R);
              Pending.erase(Pending.begin() + P);
              break;
            }
            break;
          }
        }
      }
    }
    // Register writes end what they overwrite.
    for (auto &G : Live) {
      if (writesAny(M, I, G.Lo))
        G.LoValid = false;
      if (writesAny(M, I, G.Hi))
        G.HiValid = false;
    }
    if (I.Mnemonic == "s_getpc_b64") {
      const auto &Dst = I.Inst.getOperand(0);
      if (Dst.isReg()) {
        GetPc G;
        G.Idx = K;
        G.N = (word(I, 0) >> 16) & 0x7f;
        G.Lo = M.sgpr(G.N);
        G.Hi = M.sgpr(G.N + 1);
        if (G.Lo && G.Hi)
          Live.push_back(G);
      }
    }
    llvm::erase_if(Live, [](const GetPc &G) { return !G.LoValid && !G.HiValid; });
    if (I.Terminates) {
      Live.clear();
      Pending.clear();
    }
  }
  return Refs;
}

} // namespace asmevo
