// The recovery printer. Layout is reproduced by emitting every allocated section's contents in
// address order with the original alignments, so that the linker lays the rebuilt object out
// at the same addresses; everything position-dependent is written symbolically.
#include "asm/Recover.h"
#include "asm/Disassembler.h"
#include "asm/McTarget.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <set>

namespace asmevo {

using namespace llvm::ELF;
namespace le = llvm::support::endian;

constexpr uint32_t SNop0 = 0xbf800000;

std::string asmSymbolName(llvm::StringRef Name) {
  bool Plain = !Name.empty() && !llvm::isDigit(Name[0]);
  for (char C : Name)
    if (!(llvm::isAlnum(C) || C == '_' || C == '.' || C == '$'))
      Plain = false;
  if (Plain)
    return Name.str();
  std::string Q = "\"";
  for (char C : Name) {
    if (C == '"' || C == '\\')
      Q += '\\';
    Q += C;
  }
  return Q + "\"";
}

std::string stockLlvmBinDir() { return ASMEVO_LLVM_BINDIR; }

std::string stockReassembleCommand(const TargetId &T, llvm::StringRef In, llvm::StringRef Out) {
  std::string Bin = stockLlvmBinDir();
  std::string Cmd = Bin + "/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=" + T.Processor;
  if (!T.mattr().empty())
    Cmd += " -mattr=" + T.mattr();
  Cmd += " -filetype=obj " + In.str() + " -o " + Out.str() + ".o && " + Bin + "/ld.lld -shared " +
         Out.str() + ".o -o " + Out.str();
  return Cmd;
}

std::string rebuiltObjectName(llvm::StringRef AsmName) {
  llvm::StringRef Stem = AsmName;
  if (Stem.ends_with(".s"))
    Stem = Stem.drop_back(2);
  return Stem.str() + ".rebuilt.hsaco";
}

namespace {

// Sections the linker makes; they are not emitted, the linker makes them again.
bool isLinkerSection(const ElfSection &S) {
  static const std::set<std::string> Names = {
      ".dynsym",   ".dynstr",        ".hash", ".gnu.hash", ".dynamic",
      ".rela.dyn", ".relro_padding", ".got",  ".got.plt",  ".interp"};
  return S.Type == SHT_NOTE || S.Type == SHT_DYNSYM || S.Type == SHT_DYNAMIC ||
         S.Type == SHT_HASH || S.Type == SHT_GNU_HASH || S.Type == SHT_RELA || Names.count(S.Name);
}

std::string sectionDirective(const ElfSection &S) {
  std::string Flags;
  if (S.Flags & SHF_ALLOC)
    Flags += "a";
  if (S.Flags & SHF_WRITE)
    Flags += "w";
  if (S.Flags & SHF_EXECINSTR)
    Flags += "x";
  if (S.Flags & SHF_MERGE)
    Flags += "M";
  if (S.Flags & SHF_STRINGS)
    Flags += "S";
  std::string D = "\t.section\t" + asmSymbolName(S.Name) + ",\"" + Flags + "\"," +
                  (S.Type == SHT_NOBITS ? "@nobits" : "@progbits");
  if (S.Flags & SHF_MERGE)
    D += "," + std::to_string(S.EntSize);
  return D + "\n";
}

unsigned log2Align(uint64_t A) { return A <= 1 ? 0 : llvm::Log2_64(A); }

struct Printer {
  const CodeObject &C;
  RecoverResult &R;
  std::string Out;
  std::map<uint64_t, std::string> Labels; // address -> label (code and data)
  std::set<uint64_t> KdAddrs;
  unsigned PcLabelNo = 0;

  void line(const llvm::Twine &T) { Out += T.str() + "\n"; }

  // Symbols whose visibility is declared late (see the kernel descriptor below).
  std::set<std::string> DeferVisibility;

  void visibility(const ElfSymbol &S) {
    std::string N = asmSymbolName(S.Name);
    if (S.Visibility == STV_PROTECTED)
      line("\t.protected\t" + N);
    else if (S.Visibility == STV_HIDDEN)
      line("\t.hidden\t" + N);
    else if (S.Visibility == STV_INTERNAL)
      line("\t.internal\t" + N);
  }

  void symbolAttrs(const ElfSymbol &S, const char *Type) {
    std::string N = asmSymbolName(S.Name);
    if (S.Binding == STB_GLOBAL)
      line("\t.globl\t" + N);
    else if (S.Binding == STB_WEAK)
      line("\t.weak\t" + N);
    if (DeferVisibility.count(S.Name))
      ;
    else if (S.Visibility == STV_PROTECTED)
      line("\t.protected\t" + N);
    else if (S.Visibility == STV_HIDDEN)
      line("\t.hidden\t" + N);
    else if (S.Visibility == STV_INTERNAL)
      line("\t.internal\t" + N);
    if (Type)
      line("\t.type\t" + N + "," + Type);
  }

  // Raw bytes, compressed: runs of one repeated dword become .fill, zero runs .zero.
  void rawBytes(llvm::StringRef B, bool Code) {
    size_t I = 0;
    while (I < B.size()) {
      if (I + 4 <= B.size()) {
        uint32_t W = le::read32le(B.data() + I);
        size_t J = I + 4;
        while (J + 4 <= B.size() && le::read32le(B.data() + J) == W)
          J += 4;
        size_t N = (J - I) / 4;
        if (N >= 2 || Code) {
          if (W == 0 && !Code)
            line("\t.zero\t" + llvm::Twine(J - I));
          else if (N == 1)
            line("\t.long\t" + llvm::Twine("0x") + llvm::utohexstr(W, false, 8));
          else
            line("\t.fill\t" + llvm::Twine(N) + ", 4, 0x" + llvm::utohexstr(W, false, 8));
          I = J;
          continue;
        }
      }
      // Up to 16 bytes per line, stopping at the next repeated-dword run.
      std::string L = "\t.byte\t";
      size_t End = std::min(B.size(), I + 16);
      for (size_t K = I; K < End; ++K) {
        if (K != I)
          L += ", ";
        L += "0x" + llvm::utohexstr(uint8_t(B[K]), false, 2);
      }
      line(L);
      I = End;
    }
  }

  std::string labelFor(uint64_t A) {
    auto It = Labels.find(A);
    return It == Labels.end() ? "" : It->second;
  }

  // Replace the N-th printed operand ("op a, b, c") of an instruction's text.
  static std::string replaceOperand(const std::string &Text, unsigned N, const std::string &New) {
    size_t Sp = Text.find(' ');
    if (Sp == std::string::npos)
      return Text;
    std::string Ops = Text.substr(Sp + 1);
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(Ops).split(Parts, ", ");
    if (N >= Parts.size())
      return Text;
    std::string Res = Text.substr(0, Sp + 1);
    for (unsigned I = 0; I < Parts.size(); ++I) {
      if (I)
        Res += ", ";
      Res += I == N ? New : Parts[I].str();
    }
    return Res;
  }
};

struct FuncRange {
  const FunctionExtent *Ext = nullptr;
  std::vector<DecodedInsn> Insns;
  std::vector<PcRelRef> Refs;
};

// One recovery, in named steps: collect the symbols, decode the functions, place the labels,
// print the header, each section (code: function by function; data: symbols, descriptors,
// relocations, bytes), the symbols with no section, the metadata.
class Recovery {
public:
  Recovery(const CodeObject &C, McTarget &M) : C(C), M(M), P{C, R, "", {}, {}} {}

  RecoverResult run(llvm::StringRef SourceName, llvm::StringRef SourceHash,
                    llvm::StringRef AsmName) {
    collectSymbols();
    decodeFunctions();
    placeLabels();
    printHeader(SourceName, SourceHash, AsmName);
    printSections();
    printSymbolsWithoutSection();
    printMetadata();
    R.Asm = std::move(P.Out);
    return std::move(R);
  }

private:
  const CodeObject &C;
  McTarget &M;
  RecoverResult R;
  Printer P;
  std::map<unsigned, std::multimap<uint64_t, unsigned>> SymsBySection;
  std::map<unsigned, std::vector<FuncRange>> Code; // section index -> ranges
  unsigned LabelNo = 0, FuncNo = 0;

  void collectSymbols();
  void decodeFunctions();
  bool codeLabel(uint64_t A);
  void placeLabels();
  void printHeader(llvm::StringRef SourceName, llvm::StringRef SourceHash, llvm::StringRef AsmName);
  void printSections();
  void printCodeSection(const ElfSection *S);
  void printFunction(const ElfSection *S, FuncRange &F, std::vector<FuncRange> &Fs, uint64_t &Cur);
  void printInstructions(FuncRange &F);
  void printDataSection(const ElfSection *S);
  void printDescriptor(const ElfSection *S, const KernelInfo &K, uint64_t A);
  void printSymbolsWithoutSection();
  void printMetadata();
};

// Symbols by section and address; descriptors; kernels whose visibility comes late.
void Recovery::collectSymbols() {
  for (unsigned I = 0; I < C.Symbols.size(); ++I) {
    const auto &S = C.Symbols[I];
    if (S.Name.empty() || S.Type == STT_SECTION || S.Type == STT_FILE ||
        S.SectionIndex == SHN_UNDEF || S.SectionIndex >= C.Sections.size())
      continue;
    SymsBySection[S.SectionIndex].emplace(S.Value, I);
  }
  for (const auto &K : C.Kernels) {
    P.KdAddrs.insert(C.Symbols[K.DescSymbol].Value);
    // .amdhsa_kernel gives the descriptor the kernel's visibility at that point: a kernel whose
    // descriptor has default visibility gets its own visibility after the descriptor.
    const auto &Code = C.Symbols[K.CodeSymbol], &Desc = C.Symbols[K.DescSymbol];
    if (Desc.Visibility == STV_DEFAULT && Code.Visibility != STV_DEFAULT)
      P.DeferVisibility.insert(Code.Name);
  }
}

// The code of every executable section, function by function.
void Recovery::decodeFunctions() {
  for (const FunctionExtent &E : C.Functions) {
    FuncRange FR{&E, {}, {}};
    FR.Insns = decodeRange(M, C.code(E), E.Begin);
    FR.Refs = findPcRelativeRefs(M, FR.Insns);
    Code[E.Section].push_back(std::move(FR));
  }
}

// A label at code address A, which must be an instruction boundary (or a function's end).
bool Recovery::codeLabel(uint64_t A) {
  // A must be an instruction boundary.
  for (auto &[SI, Fs] : Code)
    for (auto &F : Fs)
      if (A >= F.Ext->Begin && A <= F.Ext->End) {
        if (A == F.Ext->Begin) {
          P.Labels.emplace(A, asmSymbolName(F.Ext->Name));
          return true;
        }
        for (auto &I : F.Insns)
          if (I.Addr == A || A == F.Ext->End) {
            if (!P.Labels.count(A))
              P.Labels.emplace(A, ".LBB" + std::to_string(LabelNo++));
            return true;
          }
        return false;
      }
  return false;
}

// Labels: branch targets and PC-relative targets (kept numeric, with a note, where no label
// can be).
void Recovery::placeLabels() {
  for (auto &[SI, Fs] : Code)
    for (auto &F : Fs) {
      P.Labels.emplace(F.Ext->Begin, asmSymbolName(F.Ext->Name));
      for (auto &I : F.Insns)
        if (I.BranchTarget && !codeLabel(*I.BranchTarget)) {
          R.Notes.push_back("branch at 0x" + llvm::utohexstr(I.Addr) + " targets 0x" +
                            llvm::utohexstr(*I.BranchTarget) +
                            ", not an instruction boundary: kept numeric");
          I.BranchTarget.reset();
        }
    }
  for (auto &[SI, Fs] : Code)
    for (auto &F : Fs)
      for (auto It = F.Refs.begin(); It != F.Refs.end();) {
        uint64_t T = It->Target;
        const ElfSection *TS = C.sectionAt(T);
        bool Ok = false;
        if (TS && TS->isExec()) {
          Ok = codeLabel(T);
        } else if (TS || [&] {
                     for (const auto &S : C.Sections) // one past the end of a section
                       if (S.isAlloc() && S.Size && T == S.Addr + S.Size)
                         return true;
                     return false;
                   }()) {
          if (!P.Labels.count(T)) {
            std::string Name;
            for (const auto &S : C.Symbols)
              if (S.Value == T && !S.Name.empty() && S.Type != STT_FUNC && S.Type != STT_SECTION &&
                  S.SectionIndex != SHN_UNDEF && S.SectionIndex < C.Sections.size() &&
                  !isLinkerSection(C.Sections[S.SectionIndex])) {
                Name = asmSymbolName(S.Name);
                break;
              }
            P.Labels.emplace(T, Name.empty() ? ".Ldata_" + llvm::utohexstr(T) : Name);
          }
          // (one past the end of a section belongs to that section)
          const ElfSection *Holder = TS ? TS : C.sectionAt(T - 1);
          Ok = Holder && !isLinkerSection(*Holder);
        }
        if (!Ok) {
          R.Notes.push_back("s_getpc_b64 at 0x" + llvm::utohexstr(F.Insns[It->GetPc].Addr) +
                            " computes 0x" + llvm::utohexstr(T) +
                            ", outside any emitted section: kept numeric");
          It = F.Refs.erase(It);
        } else {
          ++It;
        }
      }
}

void Recovery::printHeader(llvm::StringRef SourceName, llvm::StringRef SourceHash,
                           llvm::StringRef AsmName) {
  P.line("; asmevo-recovered-asm v" + llvm::Twine(RecoveredAsmVersion));
  P.line("; source: " + SourceName);
  P.line("; sha256: " + SourceHash);
  P.line("; target: " + C.Target.str() + " (code object v" +
         llvm::Twine(C.Target.CodeObjectVersion) + ", e_flags 0x" +
         llvm::utohexstr(C.Target.EFlags) + ")");
  P.line("; reassemble: " + stockReassembleCommand(C.Target, AsmName, rebuiltObjectName(AsmName)));
  P.line("\t.amdgcn_target \"" + C.Target.str() + "\"");
  P.line("\t.amdhsa_code_object_version " + llvm::Twine(C.Target.CodeObjectVersion));
}

// Sections in address order, executable ones first.
void Recovery::printSections() {
  std::vector<const ElfSection *> Alloc;
  for (const auto &S : C.Sections)
    if (S.isAlloc() && !isLinkerSection(S))
      Alloc.push_back(&S);
  std::stable_sort(Alloc.begin(), Alloc.end(),
                   [](const ElfSection *A, const ElfSection *B) { return A->Addr < B->Addr; });
  // Executable sections first so that kernel symbols are declared before their descriptors.
  std::stable_partition(Alloc.begin(), Alloc.end(),
                        [](const ElfSection *S) { return S->isExec(); });

  for (const ElfSection *S : Alloc) {
    P.line("");
    P.Out += sectionDirective(*S);
    P.line("\t.p2align\t" + llvm::Twine(log2Align(S->AddrAlign)));
    if (S->isExec() && !S->isNoBits())
      printCodeSection(S);
    else
      printDataSection(S);
  }
}

void Recovery::printCodeSection(const ElfSection *S) {
  uint64_t Cur = S->Addr;
  auto &Fs = Code[S->Index];
  for (auto &F : Fs)
    printFunction(S, F, Fs, Cur);
  P.rawBytes(C.bytesAt(Cur, S->Addr + S->Size - Cur), true);
}

// The gap before F, its symbols, its instructions, its end label and size; Cur moves past it.
void Recovery::printFunction(const ElfSection *S, FuncRange &F, std::vector<FuncRange> &Fs,
                             uint64_t &Cur) {
  // Gap before the function: alignment padding or unnamed bytes.
  llvm::StringRef Gap = C.bytesAt(Cur, F.Ext->Begin - Cur);
  bool IsKernel = F.Ext->IsKernel;
  unsigned K = std::min<unsigned>(llvm::countr_zero(F.Ext->Begin | (uint64_t(1) << 63)),
                                  log2Align(S->AddrAlign));
  bool NopGap = Gap.size() % 4 == 0;
  for (size_t I = 0; NopGap && I < Gap.size(); I += 4)
    NopGap = le::read32le(Gap.data() + I) == SNop0;
  if (NopGap && Gap.size() < (uint64_t(1) << K) && (IsKernel ? K >= 8 : true)) {
    if (K >= 2)
      P.line("\t.p2align\t" + llvm::Twine(K));
  } else {
    P.rawBytes(Gap, true);
    if (IsKernel && K >= 8)
      P.line("\t.p2align\t8");
  }
  // Symbols at the function start (aliases included).
  auto Range = SymsBySection[S->Index].equal_range(F.Ext->Begin);
  for (auto It = Range.first; It != Range.second; ++It) {
    const auto &Sym = C.Symbols[It->second];
    P.symbolAttrs(Sym, Sym.Type == STT_FUNC ? "@function" : nullptr);
  }
  for (auto It = Range.first; It != Range.second; ++It)
    P.line(asmSymbolName(C.Symbols[It->second].Name) + ":");
  ++R.Functions;
  printInstructions(F);
  // Labels at the very end of the function (branch to end).
  std::string EndLabel = ".Lfunc_end" + std::to_string(FuncNo++);
  std::string AtEnd = P.labelFor(F.Ext->End);
  bool EndIsNextFunc = false;
  for (auto &G : Fs)
    if (G.Ext->Begin == F.Ext->End)
      EndIsNextFunc = true;
  if (!AtEnd.empty() && !EndIsNextFunc && AtEnd.rfind(".LBB", 0) == 0)
    P.line(AtEnd + ":");
  P.line(EndLabel + ":");
  if (F.Ext->SizeFromSymbol)
    P.line("\t.size\t" + asmSymbolName(F.Ext->Name) + ", " + EndLabel + "-" +
           asmSymbolName(F.Ext->Name));
  Cur = F.Ext->End;
}

// F's instructions: labels, PC-relative operands as label expressions, branches to labels,
// the kernarg-preload boundary, and raw words where LLVM's text would not give the bytes back.
void Recovery::printInstructions(FuncRange &F) {
  // PC-relative literals are written relative to a label after their s_getpc_b64, as
  // "sym@rel32@lo+(.+4-.LpcN)" (the literal is 4 bytes into the instruction), so that
  // code inserted between the s_getpc_b64 and the add keeps the target right.
  std::map<size_t, std::pair<unsigned, std::string>> Subst; // insn index -> operand, text
  std::map<size_t, std::string> PcLabels;                   // s_getpc_b64 index -> label
  for (const auto &Ref : F.Refs) {
    std::string L = P.labelFor(Ref.Target);
    auto [It, New] = PcLabels.emplace(Ref.GetPc, "");
    if (New)
      It->second = ".Lpc" + std::to_string(P.PcLabelNo++);
    std::string Rel = "+(.+4-" + It->second + ")";
    Subst[Ref.Add] = {Ref.AddLitOperand, L + "@rel32@lo" + Rel};
    Subst[Ref.Addc] = {Ref.AddcLitOperand, L + "@rel32@hi" + Rel};
    ++R.PcRelRefs;
  }
  // Kernarg preload (gfx90a/gfx940+): newer firmware enters 256 bytes after the entry,
  // skipping the compatibility prologue, so the body must stay exactly there.
  std::optional<uint64_t> PreloadBody;
  if (F.Ext->IsKernel && C.Target.hasKernargPreload())
    for (const auto &K : C.Kernels)
      if (K.EntryAddr == F.Ext->Begin && K.Kd.kernargPreloadLength() > 0)
        PreloadBody = F.Ext->Begin + 256;
  bool AfterEnd = false;
  for (size_t Idx = 0; Idx < F.Insns.size(); ++Idx) {
    const auto &I = F.Insns[Idx];
    if (PreloadBody && I.Addr == *PreloadBody) {
      std::string N = asmSymbolName(F.Ext->Name);
      P.line("\t; end of the kernarg-preload compatibility prologue");
      P.line("\t.if (. - " + N + ") != 256");
      P.line("\t.error \"kernarg preload: the kernel body must start 256 bytes after " +
             llvm::StringRef(N).trim('"') + "\"");
      P.line("\t.endif");
    }
    std::string L = I.Addr != F.Ext->Begin ? P.labelFor(I.Addr) : "";
    if (!L.empty()) {
      P.line(L + ":");
      AfterEnd = false;
    }
    uint32_t W0 = I.Bytes.size() >= 4 ? le::read32le(I.Bytes.data()) : 0;
    if (!I.Valid || (AfterEnd && I.Size == 4 && W0 == 0)) {
      if (I.Bytes.size() == 4)
        P.line("\t.long\t0x" + llvm::utohexstr(W0, false, 8) +
               (I.Valid ? "" : "\t; does not decode"));
      else
        P.rawBytes(I.Bytes, false);
      continue;
    }
    std::string Text = printInsn(M, I);
    if (!reencodesExactly(M, I)) {
      // Lossy text: keep the original words, fixed-size and opaque to editing.
      std::string Words = "\t.long\t";
      for (size_t W = 0; W + 4 <= I.Bytes.size(); W += 4)
        Words += (W ? ", 0x" : "0x") + llvm::utohexstr(le::read32le(I.Bytes.data() + W), false, 8);
      P.line(Words + "\t; " + Text + " (raw: LLVM does not encode this text to these bytes)");
      ++R.RawInstructions;
      if (I.BranchTarget || Subst.count(Idx))
        R.Notes.push_back("raw instruction at 0x" + llvm::utohexstr(I.Addr) +
                          " has a PC-relative operand: kept numeric");
      auto PL = PcLabels.find(Idx);
      if (PL != PcLabels.end())
        P.line(PL->second + ":");
      if (I.Terminates)
        AfterEnd = true;
      continue;
    }
    ++R.Instructions;
    if (I.BranchTarget) {
      std::string BL = P.labelFor(*I.BranchTarget);
      size_t Sp = Text.rfind(' ');
      if (Sp != std::string::npos && !BL.empty()) {
        Text = Text.substr(0, Sp + 1) + BL;
        ++R.Branches;
      }
    }
    auto SI = Subst.find(Idx);
    if (SI != Subst.end())
      Text = Printer::replaceOperand(Text, SI->second.first, SI->second.second);
    P.line("\t" + Text);
    auto PL = PcLabels.find(Idx);
    if (PL != PcLabels.end())
      P.line(PL->second + ":");
    if (I.Terminates)
      AfterEnd = true;
  }
}

// A data section: symbols, descriptors (as .amdhsa_kernel blocks where they can be), labels,
// dynamic relocations, bytes.
void Recovery::printDataSection(const ElfSection *S) {
  std::set<uint64_t> Points;
  for (auto &[A, I] : SymsBySection[S->Index])
    Points.insert(A);
  for (uint64_t A : P.KdAddrs)
    if (S->contains(A))
      Points.insert(A);
  for (auto &[A, L] : P.Labels)
    if (S->contains(A) || A == S->Addr + S->Size)
      Points.insert(A);
  std::map<uint64_t, const DynamicReloc *> Relocs;
  for (const auto &DR : C.DynRelocs)
    if (S->contains(DR.Offset))
      Relocs[DR.Offset] = &DR;
  uint64_t Cur = S->Addr;
  auto EmitBytes = [&](uint64_t To) {
    while (Cur < To) {
      auto RI = Relocs.lower_bound(Cur);
      uint64_t Stop = RI == Relocs.end() ? To : std::min(To, RI->first);
      if (Stop > Cur) {
        if (S->isNoBits())
          P.line("\t.zero\t" + llvm::Twine(Stop - Cur));
        else
          P.rawBytes(C.bytesAt(Cur, Stop - Cur), false);
        Cur = Stop;
        continue;
      }
      const DynamicReloc *DR = RI->second;
      std::string Expr;
      if (DR->Type == R_AMDGPU_RELATIVE64) {
        std::string L = P.labelFor(uint64_t(DR->Addend));
        Expr = L.empty() ? "" : L;
      } else if (DR->Type == R_AMDGPU_ABS64 && !DR->Symbol.empty()) {
        Expr = asmSymbolName(DR->Symbol) +
               (DR->Addend ? (DR->Addend > 0 ? "+" : "") + std::to_string(DR->Addend) : "");
      }
      if (Expr.empty()) {
        R.Notes.push_back("dynamic relocation type " + std::to_string(DR->Type) + " at 0x" +
                          llvm::utohexstr(DR->Offset) + " kept as bytes");
        P.rawBytes(C.bytesAt(Cur, 8), false);
      } else {
        P.line("\t.quad\t" + Expr);
      }
      Cur += 8;
    }
  };
  for (uint64_t A : Points) {
    if (A < Cur)
      continue;
    bool IsKd = P.KdAddrs.count(A) > 0;
    if (IsKd) {
      // The assembler aligns descriptors to 64 bytes with zeros itself.
      llvm::StringRef Gap = C.bytesAt(Cur, A - Cur);
      bool Zero =
          A % 64 == 0 && A - Cur < 64 && Gap.find_first_not_of('\0') == llvm::StringRef::npos;
      if (!Zero)
        EmitBytes(A);
      Cur = A;
    } else {
      EmitBytes(A);
    }
    // Symbols and labels at A.
    auto Range = SymsBySection[S->Index].equal_range(A);
    const KernelInfo *Kernel = nullptr;
    for (const auto &K : C.Kernels)
      if (C.Symbols[K.DescSymbol].Value == A)
        Kernel = &K;
    bool LabelDone = false;
    for (auto It = Range.first; It != Range.second; ++It) {
      const auto &Sym = C.Symbols[It->second];
      if (Kernel && It->second == Kernel->DescSymbol)
        continue; // defined by .amdhsa_kernel
      const char *Type = Sym.Type == STT_OBJECT ? "@object"
                         : Sym.Type == STT_FUNC ? "@function"
                                                : nullptr;
      P.symbolAttrs(Sym, Type);
      if (Sym.Size)
        P.line("\t.size\t" + asmSymbolName(Sym.Name) + ", " + llvm::Twine(Sym.Size));
      P.line(asmSymbolName(Sym.Name) + ":");
      if (P.labelFor(A) == asmSymbolName(Sym.Name))
        LabelDone = true;
    }
    std::string L = P.labelFor(A);
    if (!L.empty() && !LabelDone && L.rfind(".L", 0) == 0)
      P.line(L + ":");
    if (Kernel) {
      printDescriptor(S, *Kernel, A);
      Cur = A + 64;
    }
  }
  EmitBytes(S->Addr + S->Size);
}

// Kernel K's descriptor at A: an .amdhsa_kernel block where its fields have directives and it is
// in .rodata, else its 64 bytes with the entry offset as an expression.
void Recovery::printDescriptor(const ElfSection *S, const KernelInfo &K, uint64_t A) {
  const auto &KdSym = C.Symbols[K.DescSymbol];
  KdDirectiveSet D = kdToDirectives(K.Kd, C.Target);
  if (D.Inexpressible.empty() && S->Name == ".rodata") {
    P.line("\t.amdhsa_kernel " + asmSymbolName(K.Name));
    for (const auto &[Name, Val] : D.Directives)
      P.line("\t\t" + Name + " " + llvm::Twine(Val));
    P.line("\t.end_amdhsa_kernel");
    P.Out += sectionDirective(*S);
    const auto &Code = C.Symbols[K.CodeSymbol];
    if (P.DeferVisibility.count(Code.Name))
      P.visibility(Code);
    else if (KdSym.Visibility != Code.Visibility)
      P.visibility(KdSym);
    if (KdSym.Binding != Code.Binding)
      P.line(std::string(KdSym.Binding == STB_GLOBAL ? "\t.globl\t" : "\t.weak\t") +
             asmSymbolName(KdSym.Name));
  } else {
    ++R.RawDescriptors;
    R.Notes.push_back("descriptor " + KdSym.Name + " emitted as bytes: " +
                      (D.Inexpressible.empty() ? "not in .rodata" : D.Inexpressible));
    P.line("\t.p2align\t6");
    P.symbolAttrs(KdSym, "@object");
    if (P.DeferVisibility.count(C.Symbols[K.CodeSymbol].Name))
      P.visibility(C.Symbols[K.CodeSymbol]);
    P.line("\t.size\t" + asmSymbolName(KdSym.Name) + ", 64");
    P.line(asmSymbolName(KdSym.Name) + ":");
    auto B = C.bytesAt(A, 64);
    P.rawBytes(B.substr(0, KdEntryOffsetBegin), false);
    P.line("\t.quad\t" + asmSymbolName(K.Name) + "-" + asmSymbolName(KdSym.Name));
    P.rawBytes(B.substr(KdEntryOffsetEnd), false);
  }
}

// Symbols with no section: undefined ones the object exports, LDS variables, absolute ones.
void Recovery::printSymbolsWithoutSection() {
  // Undefined symbols the object exports (LDS variables of older compilers), LDS variables
  // of older code objects (exported with section index SHN_AMDGPU_LDS,
  // value = alignment), and absolute symbols (e.g. LLVM's resource-usage symbols).
  for (const auto &S : C.Symbols)
    if (S.SectionIndex == SHN_UNDEF && !S.Name.empty() && S.InDynSym) {
      P.line("");
      P.symbolAttrs(S, nullptr);
    }
  for (const auto &S : C.Symbols)
    if (S.SectionIndex == SHN_AMDGPU_LDS && !S.Name.empty()) {
      P.line("");
      P.symbolAttrs(S, S.Type == STT_OBJECT ? "@object" : nullptr);
      P.line("\t.amdgpu_lds\t" + asmSymbolName(S.Name) + ", " + llvm::Twine(S.Size) + ", " +
             llvm::Twine(S.Value));
    }
  bool AnyAbs = false;
  for (const auto &S : C.Symbols)
    if (S.SectionIndex == SHN_ABS && !S.Name.empty() && S.Type != STT_FILE) {
      if (!AnyAbs)
        P.line("");
      AnyAbs = true;
      P.symbolAttrs(S, nullptr);
      P.line("\t.set\t" + asmSymbolName(S.Name) + ", 0x" + llvm::utohexstr(S.Value));
    }

  if (R.RawInstructions)
    R.Notes.push_back(std::to_string(R.RawInstructions) + " instruction" +
                      (R.RawInstructions == 1 ? "" : "s") +
                      " written as raw words: LLVM's assembler would not give their bytes back "
                      "from the disassembly");
}

void Recovery::printMetadata() {
  P.line("");
  P.line("\t.amdgpu_metadata");
  P.Out += C.Meta->toYaml();
  P.line("\t.end_amdgpu_metadata");
}

} // namespace

llvm::Expected<RecoverResult> recoverAssembly(const CodeObject &C, llvm::StringRef SourceName,
                                              llvm::StringRef SourceHash, llvm::StringRef AsmName) {
  auto MOr = McTarget::get(C.Target);
  if (!MOr)
    return MOr.takeError();
  return Recovery(C, **MOr).run(SourceName, SourceHash, AsmName);
}

} // namespace asmevo
