// The in-memory model of an AMDGPU code object (an ELF shared object): sections, symbols,
// dynamic relocations, the metadata note, kernels with their descriptors, and device functions.
// Reading validates everything later stages rely on and reports problems with file offsets.
#pragma once

#include "codeobj/FunctionExtent.h"
#include "codeobj/KernelDescriptor.h"
#include "codeobj/Metadata.h"
#include "codeobj/TargetId.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct ElfSection {
  unsigned Index = 0;
  std::string Name;
  uint32_t Type = 0;
  uint64_t Flags = 0, Addr = 0, Offset = 0, Size = 0, AddrAlign = 0, EntSize = 0;
  uint32_t Link = 0, Info = 0;
  llvm::StringRef Data; // empty for SHT_NOBITS

  bool isAlloc() const;
  bool isExec() const;
  bool isNoBits() const;
  bool contains(uint64_t A) const { return A >= Addr && A < Addr + Size; }
};

struct ElfSymbol {
  std::string Name;
  uint64_t Value = 0, Size = 0;
  uint8_t Type = 0, Binding = 0, Visibility = 0;
  uint16_t SectionIndex = 0;
  bool InDynSym = false; // also exported through .dynsym
};

struct DynamicReloc {
  uint64_t Offset = 0; // virtual address patched
  uint32_t Type = 0;
  std::string Symbol; // "" for relative relocations
  int64_t Addend = 0;
};

struct KernelInfo {
  std::string Name;        // the code symbol
  unsigned CodeSymbol = 0; // index into Symbols
  unsigned DescSymbol = 0; // index into Symbols (<name>.kd)
  KernelDescriptor Kd;
  uint64_t EntryAddr = 0;                // address of the first instruction
  const msgpack::object *Meta = nullptr; // its amdhsa.kernels entry (may be null)
};

class CodeObject {
public:
  // Parse and validate. Path is used in error messages only; Bytes must outlive the object.
  // AnyProcessor: a well-formed object for a processor outside gfx9 is accepted (listing).
  static llvm::Expected<CodeObject> read(llvm::StringRef Bytes, llvm::StringRef Path,
                                         bool AnyProcessor = false);

  std::string Path;
  llvm::StringRef Bytes;
  TargetId Target;
  uint16_t EType = 0;
  std::vector<ElfSection> Sections; // by section index (0 = null)
  std::vector<ElfSymbol> Symbols;   // .symtab if present, else .dynsym (index 0 skipped)
  bool HasSymtab = false;
  std::vector<DynamicReloc> DynRelocs;
  std::optional<Metadata> Meta;
  uint64_t MetaNoteOffset = 0; // file offset of the metadata note descriptor
  std::vector<KernelInfo> Kernels;
  std::vector<FunctionExtent> Functions; // kernels and device functions, by address

  const ElfSection *section(llvm::StringRef Name) const;
  const ElfSection *sectionAt(uint64_t Addr) const; // allocated section holding Addr
  // Bytes at a virtual address within an allocated PROGBITS section.
  llvm::StringRef bytesAt(uint64_t Addr, uint64_t Size) const;
  const KernelInfo *kernel(llvm::StringRef Name) const;
  // Symbols in .dynsym, by name.
  std::map<std::string, const ElfSymbol *> exportedSymbols() const;
  // The function whose code holds Addr; null if none.
  const FunctionExtent *functionAt(uint64_t Addr) const;
  // A kernel's code.
  const FunctionExtent *kernelCode(const KernelInfo &K) const;
  // The code bytes of a function.
  llvm::StringRef code(const FunctionExtent &F) const { return bytesAt(F.Begin, F.size()); }
};

// Is this buffer an ELF file for AMDGPU (cheap check used when scanning containers)?
bool looksLikeAmdgpuElf(llvm::StringRef Bytes);

} // namespace asmevo
