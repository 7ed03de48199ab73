// The round-trip gate's comparison.
#include "asm/RoundTrip.h"
#include "asm/Assembler.h"
#include "asm/Disassembler.h"
#include "asm/Recover.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/Path.h"
#include <cstdlib>

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"

#include <chrono>
#include <map>
#include <set>

namespace asmevo {

using namespace llvm::ELF;

bool GateReport::pass() const {
  for (const auto &I : Items)
    if (!I.Pass)
      return false;
  return true;
}

std::string GateReport::text() const {
  std::string S;
  for (const auto &I : Items) {
    S += (I.Pass ? "PASS " : "FAIL ") + I.Kind + " " + I.Name;
    if (I.Bytes)
      S += " (" + std::to_string(I.Bytes) + " bytes)";
    if (!I.Pass) {
      S += ": " + I.Reason;
      if (I.Address || I.Offset)
        S += " at +0x" + llvm::utohexstr(I.Offset) + " (0x" + llvm::utohexstr(I.Address) + ")";
      if (!I.Instruction.empty())
        S += ": " + I.Instruction;
    }
    if (!I.Masked.empty()) {
      S += " [masked:";
      for (const auto &M : I.Masked)
        S += " " + M + ";";
      S.back() = ']';
    }
    S += "\n";
  }
  S += Source + ": " + std::to_string(KernelsPassed) + "/" + std::to_string(Kernels) +
       " kernels pass" + (pass() ? "" : ", round trip FAILED");
  if (RawInstructions)
    S += " (" + std::to_string(RawInstructions) + " instruction" +
         (RawInstructions == 1 ? "" : "s") + " kept as raw words)";
  S += "\n";
  return S;
}

nlohmann::json GateReport::json() const {
  nlohmann::json J;
  J["source"] = Source;
  J["target"] = Target;
  J["pass"] = pass();
  J["kernels"] = Kernels;
  J["kernels_passed"] = KernelsPassed;
  J["raw_instructions"] = RawInstructions;
  J["notes"] = Notes;
  J["items"] = nlohmann::json::array();
  for (const auto &I : Items) {
    nlohmann::json E{{"kind", I.Kind}, {"name", I.Name}, {"pass", I.Pass}};
    if (I.Kind == "kernel" || I.Kind == "function")
      E["bytes"] = I.Bytes;
    if (!I.Pass) {
      E["reason"] = I.Reason;
      E["offset"] = I.Offset;
      E["address"] = I.Address;
      if (!I.Instruction.empty())
        E["instruction"] = I.Instruction;
    }
    E["masked"] = I.Masked;
    J["items"].push_back(E);
  }
  J["timing_ms"] = {{"recover", RecoverMs}, {"assemble_link", AssembleMs}, {"compare", CompareMs}};
  return J;
}

namespace {

const ElfSymbol *findSymbol(const CodeObject &C, llvm::StringRef Name) {
  for (const auto &S : C.Symbols)
    if (S.Name == Name && S.SectionIndex != SHN_UNDEF)
      return &S;
  return nullptr;
}

// Address map original -> rebuilt, by section (same names).
struct AddrMap {
  const CodeObject &A, &B;
  std::optional<uint64_t> map(uint64_t Addr) const {
    for (const auto &S : A.Sections)
      if (S.isAlloc() && (S.contains(Addr) || (S.Size && Addr == S.Addr + S.Size)))
        if (const ElfSection *T = B.section(S.Name))
          return T->Addr + (Addr - S.Addr);
    return std::nullopt;
  }
};

std::string insnAt(McTarget *M, llvm::StringRef Bytes, uint64_t Addr, uint64_t Off) {
  if (!M)
    return "";
  auto Is = decodeRange(*M, Bytes, Addr);
  for (const auto &I : Is)
    if (I.Addr - Addr <= Off && Off < I.Addr - Addr + I.Size)
      return I.Valid ? printInsn(*M, I) : "<undecodable>";
  return "";
}

// Compare the code of one function. Literals of PC-relative address computations may differ
// when sections moved; they are masked if both resolve to corresponding addresses.
void compareCode(GateItem &It, McTarget *M, const CodeObject &A, const CodeObject &B,
                 const FunctionExtent &FA, const FunctionExtent &FB, const AddrMap &Map) {
  uint64_t Size = FA.size();
  It.Bytes = Size;
  if (FB.size() != Size) {
    It.Pass = false;
    It.Reason =
        "code size " + std::to_string(FB.size()) + " bytes, original " + std::to_string(Size);
    It.Address = FA.Begin;
    return;
  }
  if (Size == 0) {
    It.Pass = false;
    It.Reason = "no code bytes to compare";
    It.Address = FA.Begin;
    return;
  }
  llvm::StringRef BA = A.code(FA), BB = B.code(FB);
  if (BA.size() != Size || BB.size() != Size) {
    It.Pass = false;
    It.Reason = "code bytes not readable";
    return;
  }
  if (BA == BB) {
    if (FA.Begin != FB.Begin)
      It.Masked.push_back("code moved 0x" + llvm::utohexstr(FA.Begin) + " -> 0x" +
                          llvm::utohexstr(FB.Begin) + ", bytes identical");
    return;
  }
  // Find the first difference not explained by a relocated PC-relative literal.
  std::map<uint64_t, std::pair<uint64_t, bool>> LitOffsets; // insn offset -> target, is-add
  std::vector<DecodedInsn> IA, IB;
  std::vector<PcRelRef> RA, RB;
  if (M && FA.Begin != FB.Begin) {
    IA = decodeRange(*M, BA, FA.Begin);
    IB = decodeRange(*M, BB, FB.Begin);
    RA = findPcRelativeRefs(*M, IA);
    RB = findPcRelativeRefs(*M, IB);
  }
  std::set<uint64_t> MaskedInsns;
  unsigned MaskedCount = 0;
  if (RA.size() == RB.size()) {
    for (size_t K = 0; K < RA.size(); ++K) {
      auto Exp = Map.map(RA[K].Target);
      if (Exp && *Exp == RB[K].Target &&
          IA[RA[K].Add].Addr - FA.Begin == IB[RB[K].Add].Addr - FB.Begin &&
          IA[RA[K].Addc].Addr - FA.Begin == IB[RB[K].Addc].Addr - FB.Begin) {
        MaskedInsns.insert(IA[RA[K].Add].Addr - FA.Begin);
        MaskedInsns.insert(IA[RA[K].Addc].Addr - FA.Begin);
        ++MaskedCount;
      }
    }
  }
  for (uint64_t Off = 0; Off < Size; ++Off) {
    if (BA[Off] == BB[Off])
      continue;
    bool Masked = false;
    for (uint64_t MI : MaskedInsns)
      if (Off >= MI + 4 && Off < MI + 8)
        Masked = true;
    if (Masked)
      continue;
    It.Pass = false;
    It.Offset = Off;
    It.Address = FA.Begin + Off;
    It.Reason = "instruction bytes differ (0x" + llvm::utohexstr(uint8_t(BA[Off]), false, 2) +
                " vs 0x" + llvm::utohexstr(uint8_t(BB[Off]), false, 2) + ")";
    It.Instruction = insnAt(M, BA, FA.Begin, Off);
    std::string Other = insnAt(M, BB, FB.Begin, Off);
    if (!Other.empty() && Other != It.Instruction)
      It.Instruction += " vs " + Other;
    return;
  }
  if (MaskedCount)
    It.Masked.push_back(std::to_string(MaskedCount) +
                        " s_getpc_b64-relative literal pair(s) relinked to the same targets");
}

} // namespace

GateReport compareCodeObjects(const CodeObject &A, const CodeObject &B) {
  GateReport R;
  R.Source = A.Path;
  R.Target = A.Target.str();
  AddrMap Map{A, B};
  auto MOr = McTarget::get(A.Target);
  McTarget *M = nullptr;
  if (MOr)
    M = *MOr;
  else
    llvm::consumeError(MOr.takeError());

  {
    GateItem T{"target", A.Target.str()};
    if (A.Target.EFlags != B.Target.EFlags || A.Target.AbiVersion != B.Target.AbiVersion) {
      T.Pass = false;
      T.Reason = "e_flags 0x" + llvm::utohexstr(B.Target.EFlags) + " ABI version " +
                 std::to_string(B.Target.AbiVersion) + ", original e_flags 0x" +
                 llvm::utohexstr(A.Target.EFlags) + " ABI version " +
                 std::to_string(A.Target.AbiVersion);
    }
    R.Items.push_back(T);
  }

  // Kernels.
  std::set<uint64_t> Covered; // function starts compared as kernels or functions
  for (const auto &KA : A.Kernels) {
    ++R.Kernels;
    GateItem It{"kernel", KA.Name};
    const KernelInfo *KB = B.kernel(KA.Name);
    const FunctionExtent *CA = A.kernelCode(KA);
    if (CA)
      Covered.insert(CA->Begin);
    if (!KB) {
      It.Pass = false;
      It.Reason = "kernel missing from the rebuilt object";
      R.Items.push_back(It);
      continue;
    }
    const FunctionExtent *CB = B.kernelCode(*KB);
    if (!CA || !CB) {
      It.Pass = false;
      It.Reason = "kernel entry is not the start of a function";
    } else {
      compareCode(It, M, A, B, *CA, *CB, Map);
    }
    if (It.Pass) {
      auto DA = KA.Kd.encode(), DB = KB->Kd.encode();
      for (unsigned I = 0; I < KernelDescriptorSize; ++I) {
        if (I >= KdEntryOffsetBegin && I < KdEntryOffsetEnd)
          continue;
        if (DA[I] != DB[I]) {
          It.Pass = false;
          It.Offset = I;
          It.Address = A.Symbols[KA.DescSymbol].Value + I;
          It.Reason = "descriptor byte " + std::to_string(I) + " differs (0x" +
                      llvm::utohexstr(DA[I], false, 2) + " vs 0x" +
                      llvm::utohexstr(DB[I], false, 2) + ")";
          break;
        }
      }
      if (It.Pass && KA.Kd.KernelCodeEntryByteOffset != KB->Kd.KernelCodeEntryByteOffset)
        It.Masked.push_back("descriptor entry offset (linker-assigned; points at the kernel)");
    }
    if (It.Pass) {
      if (!KA.Meta || !KB->Meta) {
        if (KA.Meta || KB->Meta) {
          It.Pass = false;
          It.Reason = "metadata entry missing";
        }
      } else {
        std::string D = metadataDifference(*KA.Meta, *KB->Meta);
        if (!D.empty()) {
          It.Pass = false;
          It.Reason = "metadata differs: " + D;
        }
      }
    }
    if (It.Pass)
      ++R.KernelsPassed;
    R.Items.push_back(It);
  }

  // Device functions.
  for (const FunctionExtent &FA : A.Functions) {
    if (!Covered.insert(FA.Begin).second)
      continue;
    GateItem It{"function", FA.Name};
    const ElfSymbol *SB = findSymbol(B, FA.Name);
    const FunctionExtent *FB = SB ? B.functionAt(SB->Value) : nullptr;
    if (!FB || FB->Begin != SB->Value) {
      It.Pass = false;
      It.Reason = "function missing from the rebuilt object";
    } else {
      compareCode(It, M, A, B, FA, *FB, Map);
    }
    R.Items.push_back(It);
  }

  // Code outside any function symbol (padding), per executable section.
  for (const auto &SA : A.Sections) {
    if (!SA.isAlloc() || SA.Name.empty())
      continue;
    if (SA.Type == SHT_NOTE || SA.Type == SHT_DYNSYM || SA.Type == SHT_HASH ||
        SA.Type == SHT_GNU_HASH || SA.Type == SHT_DYNAMIC || SA.Type == SHT_STRTAB ||
        SA.Name == ".relro_padding")
      continue; // linker-made; compared through symbols and metadata
    GateItem It{SA.isExec() ? "section" : "data", SA.Name};
    const ElfSection *SB = B.section(SA.Name);
    if (!SB) {
      It.Pass = false;
      It.Reason = "section missing from the rebuilt object";
      R.Items.push_back(It);
      continue;
    }
    if (SB->Size != SA.Size || SB->Type != SA.Type) {
      It.Pass = false;
      It.Reason = "size " + std::to_string(SB->Size) + " vs original " + std::to_string(SA.Size);
      R.Items.push_back(It);
      continue;
    }
    if (SA.Addr != SB->Addr)
      It.Masked.push_back("section moved 0x" + llvm::utohexstr(SA.Addr) + " -> 0x" +
                          llvm::utohexstr(SB->Addr));
    if (!SA.isExec() && !SA.isNoBits() && SA.Data != SB->Data) {
      // Descriptor entry offsets are linker-assigned; everything else must match.
      std::set<uint64_t> Mask;
      for (const auto &K : A.Kernels) {
        uint64_t KdA = A.Symbols[K.DescSymbol].Value;
        if (SA.contains(KdA))
          for (unsigned I = KdEntryOffsetBegin; I < KdEntryOffsetEnd; ++I)
            Mask.insert(KdA - SA.Addr + I);
      }
      for (uint64_t Off = 0; Off < SA.Size; ++Off)
        if (SA.Data[Off] != SB->Data[Off] && !Mask.count(Off)) {
          It.Pass = false;
          It.Offset = Off;
          It.Address = SA.Addr + Off;
          It.Reason = "data bytes differ";
          break;
        }
    }
    if (SA.isExec() && It.Pass && SA.Addr == SB->Addr && SA.Data != SB->Data) {
      // Any difference here that no function comparison reported is padding/unnamed code.
      for (uint64_t Off = 0; Off < SA.Size; ++Off)
        if (SA.Data[Off] != SB->Data[Off]) {
          if (!A.functionAt(SA.Addr + Off)) {
            It.Pass = false;
            It.Offset = Off;
            It.Address = SA.Addr + Off;
            It.Reason = "bytes outside functions differ";
            break;
          }
        }
    }
    R.Items.push_back(It);
  }

  // Exported symbols.
  {
    GateItem It{"symbols", "dynamic"};
    auto DA = A.exportedSymbols(), DB = B.exportedSymbols();
    for (const auto &[N, S] : DA) {
      auto F = DB.find(N);
      if (F == DB.end()) {
        It.Pass = false;
        It.Reason = "exported symbol " + N + " missing";
        break;
      }
      const ElfSymbol *T = F->second;
      // LDS symbols (SHN_AMDGPU_LDS) hold their alignment, not an address.
      bool Lds = S->SectionIndex == SHN_AMDGPU_LDS, Undef = S->SectionIndex == SHN_UNDEF;
      auto Mapped = Lds || Undef ? std::optional<uint64_t>(S->Value) : Map.map(S->Value);
      if (S->Type != T->Type || S->Binding != T->Binding || S->Visibility != T->Visibility ||
          S->Size != T->Size || !Mapped || *Mapped != T->Value ||
          Lds != (T->SectionIndex == SHN_AMDGPU_LDS) || Undef != (T->SectionIndex == SHN_UNDEF)) {
        It.Pass = false;
        It.Reason =
            "exported symbol " + N + " differs (type, binding, visibility, size or address)";
        break;
      }
    }
    if (It.Pass && DB.size() != DA.size()) {
      It.Pass = false;
      It.Reason = "the rebuilt object exports " + std::to_string(DB.size()) +
                  " symbols, original " + std::to_string(DA.size());
    }
    R.Items.push_back(It);
  }

  // Whole metadata document.
  {
    GateItem It{"metadata", "note"};
    std::string D = metadataDifference(A.Meta->root(), B.Meta->root());
    if (!D.empty()) {
      It.Pass = false;
      It.Reason = D;
    } else if (A.Meta->encode() != B.Meta->encode()) {
      It.Masked.push_back("equal as MessagePack values, encoded differently");
    }
    R.Items.push_back(It);
  }
  return R;
}

llvm::Expected<GateReport> runRoundTripGate(const CodeObject &A, llvm::StringRef SourceHash) {
  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  auto Rec = recoverAssembly(A, A.Path, SourceHash);
  if (!Rec)
    return Rec.takeError();
  auto T1 = Clock::now();
  auto Obj = assembleAndLink(Rec->Asm, A.Path + " (recovered)", A.Target);
  if (!Obj) {
    GateReport R;
    R.Source = A.Path;
    R.Target = A.Target.str();
    GateItem It{"assembly", "recovered"};
    It.Pass = false;
    llvm::handleAllErrors(
        Obj.takeError(), [&](const ToolError &E) { It.Reason = formatError(E); },
        [&](const llvm::ErrorInfoBase &E) { It.Reason = E.message(); });
    R.Items.push_back(It);
    R.Kernels = A.Kernels.size();
    R.Notes = Rec->Notes;
    R.RawInstructions = Rec->RawInstructions;
    return R;
  }
  auto T2 = Clock::now();
  // For debugging the gate itself: keep what it rebuilt.
  if (const char *Dir = std::getenv("ASMEVO_GATE_DUMP_DIR")) {
    std::string Base = std::string(Dir) + "/" + llvm::sys::path::filename(A.Path).str();
    llvm::consumeError(writeFileAtomic(Base + ".s", Rec->Asm));
    llvm::consumeError(writeFileAtomic(Base + ".rebuilt", *Obj));
  }
  auto B = CodeObject::read(*Obj, A.Path + " (rebuilt)");
  if (!B)
    return B.takeError();
  GateReport R = compareCodeObjects(A, *B);
  auto T3 = Clock::now();
  R.Notes = Rec->Notes;
  R.RawInstructions = Rec->RawInstructions;
  auto Ms = [](auto D) { return std::chrono::duration<double, std::milli>(D).count(); };
  R.RecoverMs = Ms(T1 - T0);
  R.AssembleMs = Ms(T2 - T1);
  R.CompareMs = Ms(T3 - T2);
  return R;
}

} // namespace asmevo
