// Function extents from symbols and kernel descriptor entries (see FunctionExtent.h).
#include "codeobj/FunctionExtent.h"
#include "codeobj/CodeObject.h"
#include "support/Error.h"

#include "llvm/BinaryFormat/ELF.h"

#include <map>
#include <set>

namespace asmevo {

using namespace llvm::ELF;

llvm::Expected<std::vector<FunctionExtent>> findFunctionExtents(const CodeObject &C) {
  // Function starts per executable section: address -> symbols there, in symbol-table order.
  std::map<unsigned, std::map<uint64_t, std::vector<unsigned>>> Starts;
  auto inExecSection = [&](unsigned Sec, uint64_t A) {
    if (Sec == SHN_UNDEF || Sec >= C.Sections.size())
      return false;
    const ElfSection &S = C.Sections[Sec];
    return S.isAlloc() && S.isExec() && !S.isNoBits() && S.contains(A);
  };
  for (unsigned I = 0; I < C.Symbols.size(); ++I) {
    const ElfSymbol &S = C.Symbols[I];
    if (S.Type == STT_FUNC && inExecSection(S.SectionIndex, S.Value))
      Starts[S.SectionIndex][S.Value].push_back(I);
  }
  std::set<uint64_t> KernelEntry;
  for (const KernelInfo &K : C.Kernels) {
    KernelEntry.insert(K.EntryAddr);
    const ElfSection *Sec = C.sectionAt(K.EntryAddr);
    if (!Sec || !inExecSection(Sec->Index, K.EntryAddr))
      continue; // the reader already refused a descriptor pointing outside .text
    auto &At = Starts[Sec->Index][K.EntryAddr];
    bool Have = false;
    for (unsigned I : At)
      Have |= I == K.CodeSymbol;
    if (!Have)
      At.push_back(K.CodeSymbol); // a kernel whose code symbol is not typed FUNC
  }

  std::vector<FunctionExtent> Out;
  for (const auto &[SecIdx, ByAddr] : Starts) {
    const ElfSection &S = C.Sections[SecIdx];
    uint64_t SecEnd = S.Addr + S.Size, PrevEnd = S.Addr;
    std::string PrevName;
    for (auto It = ByAddr.begin(); It != ByAddr.end(); ++It) {
      FunctionExtent F;
      F.Symbol = It->second.front();
      F.Name = C.Symbols[F.Symbol].Name;
      F.Section = SecIdx;
      F.Begin = It->first;
      F.IsKernel = KernelEntry.count(F.Begin) > 0;
      uint64_t Size = 0;
      for (unsigned I : It->second)
        if (!Size)
          Size = C.Symbols[I].Size;
      auto Next = std::next(It);
      uint64_t NextStart = Next == ByAddr.end() ? SecEnd : Next->first;
      F.SizeFromSymbol = Size != 0;
      F.End = Size ? F.Begin + Size : NextStart;
      uint64_t FileOff = S.Offset + (F.Begin - S.Addr);
      if (Size && (Size > SecEnd - F.Begin))
        return fileError(C.Path, FileOff,
                         "function " + F.Name + " (" + llvm::Twine(Size) +
                             " bytes) extends past the end of " + S.Name);
      if (F.Begin < PrevEnd)
        return fileError(C.Path, FileOff,
                         "function " + F.Name + " overlaps the previous function " + PrevName);
      PrevEnd = F.End;
      PrevName = F.Name;
      Out.push_back(std::move(F));
    }
  }
  std::stable_sort(Out.begin(), Out.end(), [](const FunctionExtent &A, const FunctionExtent &B) {
    return A.Begin < B.Begin;
  });
  return Out;
}

} // namespace asmevo
