// Reading an AMDGPU code object: a bounds-checked ELF64 reader (every failure names the file
// offset), then the AMDGPU layer on top (target, metadata note, kernels and descriptors).
#include "codeobj/CodeObject.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <map>

namespace asmevo {

namespace le = llvm::support::endian;
using namespace llvm::ELF;

bool ElfSection::isAlloc() const { return Flags & SHF_ALLOC; }
bool ElfSection::isExec() const { return Flags & SHF_EXECINSTR; }
bool ElfSection::isNoBits() const { return Type == SHT_NOBITS; }

bool looksLikeAmdgpuElf(llvm::StringRef B) {
  return B.size() >= 64 &&
         B.starts_with("\x7f"
                       "ELF") &&
         B[EI_CLASS] == ELFCLASS64 && B[EI_DATA] == ELFDATA2LSB &&
         le::read16le(B.data() + 18) == EM_AMDGPU;
}

const ElfSection *CodeObject::section(llvm::StringRef Name) const {
  for (const auto &S : Sections)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

const ElfSection *CodeObject::sectionAt(uint64_t Addr) const {
  for (const auto &S : Sections)
    if (S.isAlloc() && S.Size && S.contains(Addr))
      return &S;
  return nullptr;
}

llvm::StringRef CodeObject::bytesAt(uint64_t Addr, uint64_t Size) const {
  const ElfSection *S = sectionAt(Addr);
  if (!S || S->isNoBits() || Addr + Size > S->Addr + S->Size)
    return {};
  return S->Data.substr(Addr - S->Addr, Size);
}

const KernelInfo *CodeObject::kernel(llvm::StringRef Name) const {
  for (const auto &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

std::map<std::string, const ElfSymbol *> CodeObject::exportedSymbols() const {
  std::map<std::string, const ElfSymbol *> M;
  for (const auto &S : Symbols)
    if (S.InDynSym)
      M[S.Name] = &S;
  return M;
}

const FunctionExtent *CodeObject::functionAt(uint64_t Addr) const {
  auto It = std::upper_bound(Functions.begin(), Functions.end(), Addr,
                             [](uint64_t A, const FunctionExtent &F) { return A < F.Begin; });
  if (It == Functions.begin())
    return nullptr;
  --It;
  return It->contains(Addr) ? &*It : nullptr;
}

const FunctionExtent *CodeObject::kernelCode(const KernelInfo &K) const {
  const FunctionExtent *F = functionAt(K.EntryAddr);
  return F && F->Begin == K.EntryAddr ? F : nullptr;
}

namespace {

struct Reader {
  llvm::StringRef B;
  std::string Path;

  llvm::Error need(uint64_t Off, uint64_t Size, const llvm::Twine &What) const {
    if (Off > B.size() || Size > B.size() - Off)
      return fileError(Path, Off,
                       What + " extends past the end of the file (" + llvm::Twine(B.size()) +
                           " bytes)");
    return llvm::Error::success();
  }
  uint16_t u16(uint64_t O) const { return le::read16le(B.data() + O); }
  uint32_t u32(uint64_t O) const { return le::read32le(B.data() + O); }
  uint64_t u64(uint64_t O) const { return le::read64le(B.data() + O); }
};

} // namespace

llvm::Expected<CodeObject> CodeObject::read(llvm::StringRef Bytes, llvm::StringRef Path,
                                            bool AnyProcessor) {
  CodeObject C;
  C.Path = Path.str();
  C.Bytes = Bytes;
  Reader R{Bytes, Path.str()};
  if (Bytes.size() < 4 || !Bytes.starts_with("\x7f"
                                             "ELF"))
    return fileError(Path, 0, "not an ELF file");
  if (auto E = R.need(0, sizeof(Elf64_Ehdr), "ELF header"))
    return std::move(E);
  if (Bytes[EI_CLASS] != ELFCLASS64)
    return fileError(Path, EI_CLASS, "not a 64-bit ELF file");
  if (Bytes[EI_DATA] != ELFDATA2LSB)
    return fileError(Path, EI_DATA, "not a little-endian ELF file");
  uint16_t Machine = R.u16(18);
  if (Machine != EM_AMDGPU)
    return fileError(Path, 18,
                     "wrong e_machine " + llvm::Twine(Machine) + " (expected EM_AMDGPU, 224)");
  if (uint8_t(Bytes[EI_OSABI]) != ELFOSABI_AMDGPU_HSA)
    return fileError(Path, EI_OSABI,
                     "not an AMDHSA code object (OS ABI " +
                         llvm::Twine(unsigned(uint8_t(Bytes[EI_OSABI]))) + ", expected 64)");
  C.EType = R.u16(16);
  uint32_t EFlags = R.u32(48);
  auto T = decodeTargetId(uint8_t(Bytes[EI_ABIVERSION]), EFlags, AnyProcessor);
  if (!T)
    return fileError(Path, 48, llvm::toString(T.takeError()));
  C.Target = *T;

  uint64_t ShOff = R.u64(40);
  uint16_t ShEntSize = R.u16(58), ShNum = R.u16(60), ShStrNdx = R.u16(62);
  if (ShNum == 0)
    return fileError(Path, 60, "no section headers");
  if (ShEntSize != sizeof(Elf64_Shdr))
    return fileError(Path, 58, "bad section header size " + llvm::Twine(ShEntSize));
  if (auto E = R.need(ShOff, uint64_t(ShNum) * ShEntSize, "section header table"))
    return std::move(E);
  if (ShStrNdx >= ShNum)
    return fileError(Path, 62, "section name table index out of range");

  C.Sections.resize(ShNum);
  for (unsigned I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + uint64_t(I) * ShEntSize;
    auto &S = C.Sections[I];
    S.Index = I;
    uint32_t NameOff = R.u32(H);
    S.Type = R.u32(H + 4);
    S.Flags = R.u64(H + 8);
    S.Addr = R.u64(H + 16);
    S.Offset = R.u64(H + 24);
    S.Size = R.u64(H + 32);
    S.Link = R.u32(H + 40);
    S.Info = R.u32(H + 44);
    S.AddrAlign = R.u64(H + 48);
    S.EntSize = R.u64(H + 56);
    (void)NameOff;
    if (I == 0 && (S.Type != SHT_NULL || S.Flags || S.Size > 0xffffffffu))
      return fileError(Path, H, "section header 0 is not a null section header");
    if (I != 0 && S.Type != SHT_NOBITS) {
      if (auto E = R.need(S.Offset, S.Size, "section " + llvm::Twine(I) + " contents"))
        return std::move(E);
      S.Data = Bytes.substr(S.Offset, S.Size);
    }
  }
  // Names.
  const auto &StrSec = C.Sections[ShStrNdx];
  for (unsigned I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + uint64_t(I) * ShEntSize;
    uint32_t NameOff = R.u32(H);
    if (NameOff >= StrSec.Data.size() && !(I == 0 && NameOff == 0))
      return fileError(Path, H, "section name offset out of range");
    if (I != 0 || NameOff != 0) {
      llvm::StringRef Rest = StrSec.Data.substr(NameOff);
      C.Sections[I].Name = Rest.take_until([](char Ch) { return Ch == 0; }).str();
    }
  }

  // Symbols: .symtab (complete) if present, else .dynsym.
  auto ReadSymtab = [&](const ElfSection &S, std::vector<ElfSymbol> &Out) -> llvm::Error {
    if (S.EntSize != sizeof(Elf64_Sym) || S.Size % sizeof(Elf64_Sym))
      return fileError(Path, S.Offset, "bad symbol table entry size in " + S.Name);
    if (S.Link >= C.Sections.size())
      return fileError(Path, S.Offset, "symbol table " + S.Name + " has a bad string table link");
    llvm::StringRef Str = C.Sections[S.Link].Data;
    for (uint64_t Off = sizeof(Elf64_Sym); Off < S.Size; Off += sizeof(Elf64_Sym)) {
      uint64_t P = S.Offset + Off;
      ElfSymbol Sym;
      uint32_t NameOff = R.u32(P);
      if (NameOff >= Str.size() && NameOff != 0)
        return fileError(Path, P, "symbol name offset out of range in " + S.Name);
      Sym.Name = Str.substr(NameOff).take_until([](char Ch) { return Ch == 0; }).str();
      uint8_t Info = uint8_t(Bytes[P + 4]);
      Sym.Type = Info & 0xf;
      Sym.Binding = Info >> 4;
      Sym.Visibility = uint8_t(Bytes[P + 5]) & 3;
      Sym.SectionIndex = R.u16(P + 6);
      Sym.Value = R.u64(P + 8);
      Sym.Size = R.u64(P + 16);
      if (Sym.SectionIndex != SHN_UNDEF && Sym.SectionIndex < SHN_LORESERVE &&
          Sym.SectionIndex >= C.Sections.size())
        return fileError(Path, P + 6, "symbol " + Sym.Name + " has a bad section index");
      Out.push_back(std::move(Sym));
    }
    return llvm::Error::success();
  };
  const ElfSection *SymTab = nullptr, *DynSym = nullptr;
  for (const auto &S : C.Sections) {
    if (S.Type == SHT_SYMTAB)
      SymTab = &S;
    if (S.Type == SHT_DYNSYM)
      DynSym = &S;
  }
  std::vector<ElfSymbol> Dyn;
  if (DynSym) {
    if (auto E = ReadSymtab(*DynSym, Dyn))
      return std::move(E);
  }
  if (SymTab) {
    C.HasSymtab = true;
    if (auto E = ReadSymtab(*SymTab, C.Symbols))
      return std::move(E);
    for (auto &S : C.Symbols)
      for (const auto &D : Dyn)
        if (D.Name == S.Name && D.Value == S.Value && D.SectionIndex == S.SectionIndex &&
            S.Binding != STB_LOCAL)
          S.InDynSym = true;
  } else {
    C.Symbols = std::move(Dyn);
    for (auto &S : C.Symbols)
      S.InDynSym = true;
  }

  // Dynamic relocations.
  for (const auto &S : C.Sections) {
    if (S.Type != SHT_RELA || !S.isAlloc())
      continue;
    if (S.EntSize != sizeof(Elf64_Rela) || S.Size % sizeof(Elf64_Rela))
      return fileError(Path, S.Offset, "bad relocation entry size in " + S.Name);
    for (uint64_t Off = 0; Off < S.Size; Off += sizeof(Elf64_Rela)) {
      uint64_t P = S.Offset + Off;
      DynamicReloc Rel;
      Rel.Offset = R.u64(P);
      uint64_t Info = R.u64(P + 8);
      Rel.Type = uint32_t(Info);
      uint32_t SymIdx = uint32_t(Info >> 32);
      Rel.Addend = int64_t(R.u64(P + 16));
      if (SymIdx) {
        if (SymIdx > Dyn.size())
          return fileError(Path, P + 8, "relocation symbol index out of range");
        Rel.Symbol = Dyn[SymIdx - 1].Name;
      }
      C.DynRelocs.push_back(Rel);
    }
  }

  // The metadata note.
  for (const auto &S : C.Sections) {
    if (S.Type != SHT_NOTE)
      continue;
    uint64_t Off = 0;
    while (Off + 12 <= S.Size) {
      uint64_t P = S.Offset + Off;
      uint32_t NameSz = R.u32(P), DescSz = R.u32(P + 4), Type = R.u32(P + 8);
      uint64_t NameOff = Off + 12, DescOff = NameOff + llvm::alignTo(NameSz, 4);
      uint64_t End = DescOff + llvm::alignTo(DescSz, 4);
      if (DescOff + DescSz > S.Size)
        return fileError(Path, P, "note extends past the end of section " + S.Name);
      llvm::StringRef Name = S.Data.substr(NameOff, NameSz).rtrim('\0');
      if (Name == "AMDGPU" && Type == NT_AMDGPU_METADATA) {
        auto M = Metadata::parse(S.Data.substr(DescOff, DescSz));
        if (!M)
          return fileError(Path, S.Offset + DescOff, llvm::toString(M.takeError()));
        C.Meta = std::move(*M);
        C.MetaNoteOffset = S.Offset + DescOff;
      }
      Off = End;
    }
  }
  if (!C.Meta)
    return fileError(Path, 0, "no AMDGPU metadata note (NT_AMDGPU_METADATA)");

  // What the loader sees must hold on its own, also where .symtab is right: an exported
  // function or object lies inside its section (checked after the note, whose absence is the
  // plainer message for an object that lost sections).
  for (size_t J = 0; DynSym && J < Dyn.size(); ++J) {
    const ElfSymbol &D = Dyn[J];
    if ((D.Type != STT_FUNC && D.Type != STT_OBJECT) || D.Size == 0 ||
        D.SectionIndex == SHN_UNDEF || D.SectionIndex >= C.Sections.size())
      continue;
    const ElfSection &Sec = C.Sections[D.SectionIndex];
    if (!Sec.isAlloc() || D.Value < Sec.Addr || D.Value - Sec.Addr > Sec.Size ||
        D.Size > Sec.Addr + Sec.Size - D.Value)
      return fileError(Path, DynSym->Offset + J * 24 + 8,
                       llvm::StringRef(D.Name).ends_with(".kd")
                           ? "kernel descriptor " + D.Name + " is not inside a data section"
                           : "symbol " + D.Name + " of " + DynSym->Name + " (" +
                                 std::to_string(D.Size) + " bytes at 0x" +
                                 llvm::utohexstr(D.Value) + ") extends past the end of " +
                                 Sec.Name);
  }

  // Kernels: every "<name>.kd" object symbol with a matching code symbol.
  std::map<std::string, unsigned> ByName;
  for (unsigned I = 0; I < C.Symbols.size(); ++I)
    if (!C.Symbols[I].Name.empty() && C.Symbols[I].SectionIndex != SHN_UNDEF)
      ByName.emplace(C.Symbols[I].Name, I);
  const ElfSection *Text = nullptr;
  for (unsigned I = 0; I < C.Symbols.size(); ++I) {
    const auto &S = C.Symbols[I];
    if (!llvm::StringRef(S.Name).ends_with(".kd") || S.SectionIndex == SHN_UNDEF)
      continue;
    const ElfSection *Sec = C.sectionAt(S.Value);
    uint64_t SymFileOff = Sec ? Sec->Offset + (S.Value - Sec->Addr) : 0;
    if (!Sec || Sec->isNoBits() || S.Value + KernelDescriptorSize > Sec->Addr + Sec->Size)
      return fileError(Path, SymFileOff,
                       "kernel descriptor " + S.Name + " is not inside a data section");
    if (S.Size > Sec->Addr + Sec->Size - S.Value)
      return fileError(Path, SymFileOff,
                       "kernel descriptor " + S.Name + " (" + llvm::Twine(S.Size) +
                           " bytes) extends past the end of " + Sec->Name);
    KernelInfo K;
    K.Name = llvm::StringRef(S.Name).drop_back(3).str();
    K.DescSymbol = I;
    llvm::StringRef KdBytes = C.bytesAt(S.Value, KernelDescriptorSize);
    if (KdBytes.size() != KernelDescriptorSize)
      return fileError(Path, SymFileOff,
                       "kernel descriptor " + S.Name + " is not inside a data section");
    K.Kd = KernelDescriptor::decode(llvm::arrayRefFromStringRef(KdBytes));
    K.EntryAddr = S.Value + K.Kd.KernelCodeEntryByteOffset;
    Text = C.sectionAt(K.EntryAddr);
    if (!Text || !Text->isExec() || Text->isNoBits())
      return fileError(Path, SymFileOff + KdEntryOffsetBegin,
                       "kernel descriptor " + S.Name + " points outside .text (entry 0x" +
                           llvm::utohexstr(K.EntryAddr) + ")");
    auto It = ByName.find(K.Name);
    if (It == ByName.end())
      return fileError(Path, SymFileOff,
                       "kernel descriptor " + S.Name + " has no code symbol " + K.Name);
    K.CodeSymbol = It->second;
    if (C.Symbols[It->second].Value != K.EntryAddr)
      return fileError(Path, SymFileOff + KdEntryOffsetBegin,
                       "kernel descriptor " + S.Name + " entry 0x" + llvm::utohexstr(K.EntryAddr) +
                           " is not the address of " + K.Name);
    K.Meta = C.Meta->kernelBySymbol(S.Name);
    if (!K.Meta)
      return fileError(Path, SymFileOff,
                       "kernel descriptor " + S.Name +
                           " has no entry in the metadata (amdhsa.kernels with .symbol " + S.Name +
                           ")");
    // The sizes every consumer of the metadata reads must be numbers (the ABI requires them).
    for (const char *Key :
         {".kernarg_segment_size", ".group_segment_fixed_size", ".private_segment_fixed_size",
          ".kernarg_segment_align", ".wavefront_size", ".max_flat_workgroup_size"})
      if (const msgpack::object *V = Metadata::get(*K.Meta, Key);
          V && !Metadata::getUInt(*K.Meta, Key))
        return fileError(Path, C.MetaNoteOffset,
                         "metadata of kernel " + K.Name + ": " + Key + " is " +
                             metadataValueString(*V) + ", not an unsigned integer");
    C.Kernels.push_back(std::move(K));
  }
  // And every kernel the metadata lists has its descriptor.
  for (const msgpack::object *M : C.Meta->kernels()) {
    auto Sym = Metadata::getString(*M, ".symbol");
    bool Found = false;
    for (const KernelInfo &K : C.Kernels)
      Found |= Sym && C.Symbols[K.DescSymbol].Name == *Sym;
    if (!Found)
      return fileError(Path, 0,
                       "the metadata lists kernel " +
                           Metadata::getString(*M, ".name").value_or("(no .name)") +
                           " with .symbol " + Sym.value_or("(none)") +
                           ", which is no kernel descriptor of the object");
  }
  std::sort(C.Kernels.begin(), C.Kernels.end(), [&](const KernelInfo &A, const KernelInfo &B) {
    return C.Symbols[A.DescSymbol].Value < C.Symbols[B.DescSymbol].Value;
  });
  auto Fs = findFunctionExtents(C);
  if (!Fs)
    return Fs.takeError();
  C.Functions = std::move(*Fs);
  return C;
}

} // namespace asmevo
