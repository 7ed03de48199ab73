// hsaco-patch's work: locate a window of one function's instructions, assemble the replacement
// snippet in-process, refuse what the rest of the code object could notice, and write the
// code object with only the window's bytes changed. Also the reverse: print a window as a
// snippet (--extract).
#include "asm/Patch.h"
#include "asm/Assembler.h"
#include "asm/Disassembler.h"
#include "asm/McTarget.h"
#include "asm/ResourceScan.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Plural.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

namespace asmevo {

char PatchRefusal::ID = 0;

void PatchRefusal::log(llvm::raw_ostream &OS) const {
  OS << formatError(ToolError(Message, File, Offset));
}

std::error_code PatchRefusal::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

namespace {

constexpr uint32_t SNop0 = 0xbf800000; // s_nop 0

std::string hex(uint64_t V) { return "0x" + llvm::utohexstr(V); }

bool parseOffset(llvm::StringRef S, uint64_t &V) {
  if (S.empty())
    return false;
  if (S.consume_front_insensitive("0x"))
    return !S.empty() && !S.getAsInteger(16, V);
  return !S.getAsInteger(10, V);
}

// A stretch of an executable section decoded as one unit. Stretches start at function symbols
// (and end at their size or the next symbol), as recovery decodes them, so the instruction
// boundaries are those of each function's disassembly.
struct Stretch {
  uint64_t Begin = 0, End = 0;
  int Sym = -1; // function symbol starting here, or -1 (padding between functions)
  std::vector<DecodedInsn> Insns;
  std::vector<PcRelRef> Refs;
};

std::vector<Stretch> decodeCode(const CodeObject &C, const McTarget &M) {
  std::vector<Stretch> Out;
  for (const auto &S : C.Sections) {
    if (!S.isAlloc() || !S.isExec() || S.isNoBits() || !S.Size)
      continue;
    std::set<uint64_t> Cuts{S.Addr, S.Addr + S.Size};
    std::map<uint64_t, int> SymAt;
    for (const FunctionExtent &F : C.Functions) {
      if (F.Section != S.Index)
        continue;
      Cuts.insert(F.Begin);
      Cuts.insert(F.End);
      SymAt.emplace(F.Begin, int(F.Symbol));
    }
    for (auto It = Cuts.begin(); std::next(It) != Cuts.end(); ++It) {
      Stretch St;
      St.Begin = *It;
      St.End = *std::next(It);
      auto SI = SymAt.find(St.Begin);
      St.Sym = SI == SymAt.end() ? -1 : SI->second;
      St.Insns = decodeRange(M, C.bytesAt(St.Begin, St.End - St.Begin), St.Begin);
      St.Refs = findPcRelativeRefs(M, St.Insns);
      Out.push_back(std::move(St));
    }
  }
  return Out;
}

uint64_t fileOffset(const CodeObject &C, uint64_t Addr) {
  const ElfSection *S = C.sectionAt(Addr);
  return S ? S->Offset + (Addr - S->Addr) : 0;
}

// "0x1820 (softmax_kernel+0x120)"
std::string where(const CodeObject &C, const std::vector<Stretch> &Ss, uint64_t A) {
  std::string S = hex(A);
  for (auto It = Ss.rbegin(); It != Ss.rend(); ++It) // at a function's end: the next one
    if (It->Sym >= 0 && It->Begin <= A && A <= It->End)
      return S + " (" + C.Symbols[It->Sym].Name + "+" + hex(A - It->Begin) + ")";
  return S;
}

// The window, resolved to addresses and instructions.
struct Located {
  size_t St = 0;              // index of the function's stretch
  size_t First = 0, Last = 0; // the window's instructions: [First, Last)
  uint64_t Addr = 0, End = 0; // [Addr, End)
  uint64_t FileOff = 0;
  std::string Name; // "KERNEL:0xS-0xE"
};

llvm::Expected<Located> locate(const CodeObject &C, const std::vector<Stretch> &Ss,
                               const PatchWindow &W) {
  Located L;
  L.Name = W.Function + ":" + hex(W.Start) + "-" + hex(W.End);
  std::optional<size_t> Found;
  for (const FunctionExtent &F : C.Functions) {
    if (F.Name != W.Function)
      continue;
    for (size_t I = 0; I < Ss.size() && !Found; ++I)
      if (Ss[I].Sym >= 0 && Ss[I].Begin == F.Begin)
        Found = I;
    if (Found)
      break;
  }
  if (!Found)
    return llvm::make_error<ToolError>("no kernel or function named '" + W.Function + "'", C.Path);
  L.St = *Found;
  const Stretch &S = Ss[L.St];
  uint64_t Len = S.End - S.Begin;
  if (W.End > Len)
    return fileError(C.Path, fileOffset(C, S.Begin),
                     "window " + L.Name + " ends past the end of " + W.Function + " (" +
                         llvm::Twine(Len) + " bytes)");
  L.Addr = S.Begin + W.Start;
  L.End = S.Begin + W.End;
  L.FileOff = fileOffset(C, L.Addr);
  auto Boundary = [&](uint64_t A, const char *What, size_t &Idx) -> llvm::Error {
    if (A == S.End) {
      Idx = S.Insns.size();
      return llvm::Error::success();
    }
    for (size_t K = 0; K < S.Insns.size(); ++K) {
      const auto &I = S.Insns[K];
      if (I.Addr == A) {
        Idx = K;
        return llvm::Error::success();
      }
      if (I.Addr < A && A < I.Addr + I.Size) {
        return fileError(C.Path, fileOffset(C, A),
                         llvm::Twine("window ") + What + " " + W.Function + "+" + hex(A - S.Begin) +
                             " is not an instruction boundary (it is inside the " +
                             llvm::Twine(I.Size) + "-byte instruction at " + W.Function + "+" +
                             hex(I.Addr - S.Begin) + ")");
      }
    }
    return fileError(C.Path, fileOffset(C, A),
                     llvm::Twine("window ") + What + " " + W.Function + "+" + hex(A - S.Begin) +
                         " is not an instruction boundary");
  };
  if (auto E = Boundary(L.Addr, "start", L.First))
    return E;
  if (auto E = Boundary(L.End, "end", L.Last))
    return E;
  return L;
}

// Assemble a snippet on its own; its .text bytes. Anything that would need linking (a
// relocation) or that is not code for .text is refused.
llvm::Expected<std::string> assembleSnippet(const CodeObject &C, llvm::StringRef Snippet,
                                            llvm::StringRef Name) {
  constexpr unsigned HeaderLines = 3;
  std::string Src = "\t.amdgcn_target \"" + C.Target.str() + "\"\n" +
                    "\t.amdhsa_code_object_version " + std::to_string(C.Target.CodeObjectVersion) +
                    "\n\t.text\n" + Snippet.str() + "\n";
  auto Obj = assembleObject(Src, Name, C.Target);
  if (!Obj)
    // Line numbers of the snippet, not of the source built around it.
    return llvm::handleErrors(Obj.takeError(), [&](std::unique_ptr<ToolError> T) -> llvm::Error {
      if (T->Line && *T->Line > HeaderLines)
        T->Line = *T->Line - HeaderLines;
      else
        T->Line.reset();
      return llvm::Error(std::move(T));
    });
  auto OF = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(*Obj, Name));
  if (!OF)
    return withFile(OF.takeError(), Name);
  auto Refuse = [&](const llvm::Twine &Msg) {
    return llvm::make_error<PatchRefusal>(Msg.str(), Name.str());
  };
  std::string Text;
  for (const llvm::object::SectionRef &S : (*OF)->sections()) {
    auto SN = S.getName();
    if (!SN)
      return withFile(SN.takeError(), Name);
    llvm::object::ELFSectionRef ES(S);
    if (*SN == ".text") {
      auto D = S.getContents();
      if (!D)
        return withFile(D.takeError(), Name);
      Text = D->str();
    } else if ((ES.getFlags() & llvm::ELF::SHF_ALLOC) && S.getSize() > 0) {
      return Refuse("the snippet puts " + llvm::Twine(S.getSize()) + " bytes into section " + *SN +
                    "; only instructions (in .text) can be patched in");
    }
    auto RS = S.getRelocatedSection();
    if (!RS)
      return withFile(RS.takeError(), Name);
    if (*RS == (*OF)->section_end() || S.relocations().empty())
      continue;
    llvm::object::RelocationRef R = *S.relocations().begin(); // a copy: the iterator owns it
    std::string Sym = "?";
    if (auto SI = R.getSymbol(); SI != (*OF)->symbol_end()) {
      if (auto N = SI->getName())
        Sym = N->str();
      else
        llvm::consumeError(N.takeError());
    }
    return Refuse("the snippet refers to '" + Sym + "' outside itself (a relocation at +" +
                  hex(R.getOffset()) + "); a patch cannot be linked");
  }
  return Text;
}

// Register use the patched object would have, against the original's.
llvm::Error checkResources(const CodeObject &C, const CodeObject &P, uint64_t FileOff) {
  auto Before = scanKernelResources(C);
  if (!Before)
    return withFile(Before.takeError(), C.Path);
  auto After = scanKernelResources(P);
  if (!After)
    return withFile(After.takeError(), C.Path);
  auto Refuse = [&](const llvm::Twine &Msg) {
    return llvm::make_error<PatchRefusal>(Msg.str(), C.Path, FileOff);
  };
  for (const auto &A : *After)
    for (const auto &B : *Before) {
      if (A.Kernel != B.Kernel)
        continue;
      auto More = [&](unsigned N, unsigned O, const char *What) -> llvm::Error {
        if (N <= O)
          return llvm::Error::success();
        return Refuse("kernel " + A.Kernel + " would need " + llvm::Twine(N) + " " + What +
                      ", it has " + llvm::Twine(O));
      };
      if (auto E = More(A.TotalVgprs, B.TotalVgprs, "VGPRs"))
        return E;
      if (auto E = More(A.NumAgprs, B.NumAgprs, "AGPRs"))
        return E;
      if (auto E = More(A.TotalSgprs, B.TotalSgprs, "SGPRs"))
        return E;
      if (A.Use.Vcc && !B.Use.Vcc)
        return Refuse("kernel " + A.Kernel + " would use VCC, it does not");
      if (A.Use.FlatScratch && !B.Use.FlatScratch)
        return Refuse("kernel " + A.Kernel + " would use flat scratch, it does not");
    }
  return llvm::Error::success();
}

// Entry points the window must not hide: kernarg-preload kernels are entered 256 bytes after
// their start by newer firmware.
std::vector<uint64_t> implicitEntries(const CodeObject &C) {
  std::vector<uint64_t> E;
  if (C.Target.hasKernargPreload())
    for (const auto &K : C.Kernels)
      if (K.Kd.kernargPreloadLength() > 0)
        E.push_back(K.EntryAddr + 256);
  return E;
}

} // namespace

llvm::Expected<PatchWindow> parsePatchWindow(llvm::StringRef Spec) {
  auto Bad = [&] {
    return makeError("bad window '" + Spec +
                     "': expected KERNEL:START-END or KERNEL:START+LENGTH (byte offsets from "
                     "the symbol, 0x... or decimal)");
  };
  size_t Colon = Spec.rfind(':');
  if (Colon == llvm::StringRef::npos || Colon == 0)
    return Bad();
  PatchWindow W;
  W.Function = Spec.substr(0, Colon).str();
  llvm::StringRef Range = Spec.substr(Colon + 1);
  constexpr size_t None = llvm::StringRef::npos;
  size_t Dash = Range.find('-'), Plus = Range.find('+');
  bool IsLength = Plus != None;
  size_t Sep = IsLength ? Plus : Dash;
  if (Sep == None || (Dash != None && Plus != None))
    return Bad();
  uint64_t A, B;
  if (!parseOffset(Range.substr(0, Sep), A) || !parseOffset(Range.substr(Sep + 1), B))
    return Bad();
  W.Start = A;
  W.End = IsLength ? A + B : B;
  if (IsLength && W.End < A)
    return Bad();
  if (W.End <= W.Start)
    return makeError("empty window '" + Spec + "': the end must lie after the start");
  return W;
}

// The code object decoded and the window located in it: what patching and extraction start from.
struct OpenWindow {
  const McTarget *M = nullptr;
  std::vector<Stretch> Ss;
  Located L;
};

llvm::Expected<OpenWindow> openWindow(const CodeObject &C, const PatchWindow &W) {
  auto MOr = McTarget::get(C.Target);
  if (!MOr)
    return withFile(MOr.takeError(), C.Path);
  OpenWindow O;
  O.M = *MOr;
  O.Ss = decodeCode(C, *O.M);
  auto L = locate(C, O.Ss, W);
  if (!L)
    return L.takeError();
  O.L = std::move(*L);
  return O;
}

llvm::Expected<PatchResult> patchWindow(const CodeObject &C, const PatchWindow &W,
                                        llvm::StringRef Snippet, llvm::StringRef SnippetName) {
  auto WOr = openWindow(C, W);
  if (!WOr)
    return WOr.takeError();
  const McTarget &M = *WOr->M;
  const auto &Ss = WOr->Ss;
  const Located &L = WOr->L;
  const Stretch &F = Ss[L.St];
  auto Where = [&](uint64_t A) { return where(C, Ss, A); };
  auto Refuse = [&](uint64_t Addr, const llvm::Twine &Msg) {
    return llvm::make_error<PatchRefusal>(Msg.str(), C.Path, fileOffset(C, Addr));
  };
  auto Inside = [&](uint64_t A) { return L.Addr < A && A < L.End; };
  auto InWindow = [&](uint64_t A) { return L.Addr <= A && A < L.End; };

  auto Repl = assembleSnippet(C, Snippet, SnippetName);
  if (!Repl)
    return Repl.takeError();
  PatchResult R;
  R.Addr = L.Addr;
  R.FileOffset = L.FileOff;
  R.WindowSize = unsigned(L.End - L.Addr);
  R.ReplacementSize = unsigned(Repl->size());
  if (Repl->size() % 4)
    return llvm::make_error<ToolError>(("the replacement is " + llvm::Twine(Repl->size()) +
                                        " bytes, not a whole number of 4-byte words")
                                           .str(),
                                       SnippetName.str());
  if (Repl->size() > R.WindowSize)
    return Refuse(L.Addr, "replacement is " + llvm::Twine(Repl->size()) + " bytes, the window is " +
                              llvm::Twine(R.WindowSize) + " bytes");

  // Nothing outside the window may depend on where an instruction inside it starts.
  for (const auto &S : Ss)
    for (const auto &I : S.Insns)
      if (I.Valid && I.BranchTarget && !InWindow(I.Addr) && Inside(*I.BranchTarget))
        return Refuse(I.Addr, "branch at " + Where(I.Addr) + " targets " + Where(*I.BranchTarget) +
                                  ", inside the window");
  for (uint64_t E : implicitEntries(C))
    if (Inside(E))
      return Refuse(E, "the kernarg-preload entry point " + Where(E) + " lies inside the window");
  for (const auto &S : Ss)
    for (const auto &Ref : S.Refs) {
      const DecodedInsn *Parts[3] = {&S.Insns[Ref.GetPc], &S.Insns[Ref.Add], &S.Insns[Ref.Addc]};
      unsigned In = 0;
      for (auto *P : Parts)
        In += &S == &F && InWindow(P->Addr);
      std::string What = "the s_getpc_b64 address computation at " + Where(Parts[0]->Addr);
      if (In > 0 && In < 3)
        return Refuse(Parts[0]->Addr, "the window splits " + What + ": s_add_u32 at " +
                                          hex(Parts[1]->Addr) + ", s_addc_u32 at " +
                                          hex(Parts[2]->Addr));
      if (In == 0 && Inside(Ref.Target))
        return Refuse(Parts[0]->Addr,
                      What + " targets " + Where(Ref.Target) + ", inside the window");
    }

  // The patched object: the replacement, then s_nop 0 up to the window's end.
  std::string Out = C.Bytes.str();
  Out.replace(L.FileOff, Repl->size(), *Repl);
  R.Nops = unsigned((R.WindowSize - Repl->size()) / 4);
  for (unsigned K = 0; K < R.Nops; ++K)
    llvm::support::endian::write32le(&Out[L.FileOff + Repl->size() + 4 * K], SNop0);

  {
    auto P = CodeObject::read(Out, C.Path);
    if (!P)
      return P.takeError();
    // The replacement must decode into whole instructions ending where the window ends, and
    // its branches must land on instructions of the function.
    auto Is = decodeRange(M, P->bytesAt(F.Begin, F.End - F.Begin), F.Begin);
    std::set<uint64_t> Bounds{F.End};
    for (const auto &I : Is)
      Bounds.insert(I.Addr);
    if (!Bounds.count(L.End))
      return Refuse(L.Addr, "the replacement does not decode into whole instructions that end "
                            "at the window's end");
    for (const auto &I : Is)
      if (I.Valid && I.BranchTarget && InWindow(I.Addr) &&
          (*I.BranchTarget < F.Begin || !Bounds.count(*I.BranchTarget)))
        return Refuse(I.Addr, "branch at " + Where(I.Addr) + " in the replacement targets " +
                                  hex(*I.BranchTarget) + ", not an instruction of " + W.Function);
    if (auto E = checkResources(C, *P, L.FileOff))
      return E;
  }
  R.Bytes = std::move(Out);
  return R;
}

llvm::Expected<std::string> extractWindow(const CodeObject &C, const PatchWindow &W,
                                          llvm::StringRef SourceHash) {
  auto WOr = openWindow(C, W);
  if (!WOr)
    return WOr.takeError();
  const McTarget &M = *WOr->M;
  const auto &Ss = WOr->Ss;
  const Located &L = WOr->L;
  const Stretch &F = Ss[L.St];
  std::set<uint64_t> Bounds{L.End};
  for (size_t K = L.First; K < L.Last; ++K)
    Bounds.insert(F.Insns[K].Addr);

  // Branch targets become local labels; a snippet cannot name anything outside itself.
  std::map<uint64_t, std::string> Labels;
  for (size_t K = L.First; K < L.Last; ++K) {
    const auto &I = F.Insns[K];
    if (!I.Valid || !I.BranchTarget)
      continue;
    uint64_t T = *I.BranchTarget;
    if (!Bounds.count(T))
      return llvm::make_error<PatchRefusal>(
          "branch at " + where(C, Ss, I.Addr) + " targets " + where(C, Ss, T) +
              (T < L.Addr || T > L.End ? ", outside the window: a snippet cannot name it"
                                       : ", not an instruction boundary"),
          C.Path, fileOffset(C, I.Addr));
    Labels.emplace(T, "");
  }
  unsigned N = 0;
  for (auto &[A, Name] : Labels)
    Name = ".Lw" + std::to_string(N++);

  std::vector<std::string> Lines(L.Last - L.First); // one per instruction
  for (size_t K = L.First; K < L.Last; ++K) {
    const auto &I = F.Insns[K];
    std::string &T = Lines[K - L.First];
    if (!I.Valid) {
      T = "\t.long\t0x" +
          llvm::utohexstr(llvm::support::endian::read32le(I.Bytes.data()), false, 8) +
          "\t; does not decode";
      continue;
    }
    T = printInsn(M, I);
    if (I.BranchTarget) {
      size_t Sp = T.rfind(' ');
      if (Sp != std::string::npos)
        T = T.substr(0, Sp + 1) + Labels[*I.BranchTarget];
    }
    T = "\t" + T;
  }
  auto Render = [&] {
    std::string S;
    llvm::raw_string_ostream OS(S);
    OS << "; asmevo-patch-window v" << PatchWindowVersion << "\n"
       << "; source: " << C.Path << "\n"
       << "; sha256: " << SourceHash << "\n"
       << "; target: " << C.Target.str() << "\n"
       << "; window: " << L.Name << " (" << hex(L.Addr) << "-" << hex(L.End) << ", "
       << countOf(L.End - L.Addr, "byte") << ", " << countOf(L.Last - L.First, "instruction")
       << ")\n";
    for (size_t K = L.First; K < L.Last; ++K) {
      auto LI = Labels.find(F.Insns[K].Addr);
      if (LI != Labels.end())
        OS << LI->second << ":\n";
      OS << Lines[K - L.First] << "\n";
    }
    if (auto LI = Labels.find(L.End); LI != Labels.end())
      OS << LI->second << ":\n";
    return S;
  };
  llvm::StringRef Original = C.bytesAt(L.Addr, L.End - L.Addr);
  std::string Text = Render();
  auto Same = [&](llvm::StringRef Snip) {
    auto B = assembleSnippet(C, Snip, "<extracted window>");
    if (!B) {
      llvm::consumeError(B.takeError());
      return false;
    }
    return *B == Original;
  };
  if (Same(Text))
    return Text;
  // An instruction LLVM prints in a form it does not reassemble to the same bytes: keep such
  // instructions as words.
  for (size_t K = L.First; K < L.Last; ++K) {
    const auto &I = F.Insns[K];
    if (!I.Valid || I.BranchTarget || I.Size % 4)
      continue;
    auto B = assembleSnippet(C, Lines[K - L.First], "<extracted instruction>");
    bool Ok = B && *B == I.Bytes;
    if (!B)
      llvm::consumeError(B.takeError());
    if (Ok)
      continue;
    std::string Words;
    for (unsigned Wd = 0; Wd < I.Size / 4; ++Wd) {
      uint32_t V = llvm::support::endian::read32le(I.Bytes.data() + 4 * Wd);
      Words += (Wd ? ", 0x" : "0x") + llvm::utohexstr(V, false, 8);
    }
    std::string &Line = Lines[K - L.First];
    Line = "\t.long\t" + Words + "\t; " + llvm::StringRef(Line).trim().str() +
           " (does not reassemble to the same bytes)";
  }
  Text = Render();
  if (!Same(Text))
    return fileError(C.Path, L.FileOff,
                     "window " + L.Name + " does not reassemble to the same bytes");
  return Text;
}

} // namespace asmevo
