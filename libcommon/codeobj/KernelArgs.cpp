#include "codeobj/KernelArgs.h"

#include "support/Error.h"

namespace asmevo {

std::vector<const KernelArg *> KernelSignature::explicitArgs() const {
  std::vector<const KernelArg *> R;
  for (const KernelArg &A : Args)
    if (!A.isHidden())
      R.push_back(&A);
  return R;
}

const KernelArg *KernelSignature::find(const std::string &NameOrIndex) const {
  for (const KernelArg &A : Args)
    if (!A.Name.empty() && A.Name == NameOrIndex)
      return &A;
  // "#3" names the fourth explicit argument.
  if (NameOrIndex.size() > 1 && NameOrIndex[0] == '#') {
    char *End = nullptr;
    unsigned long I = std::strtoul(NameOrIndex.c_str() + 1, &End, 10);
    auto E = explicitArgs();
    if (End && *End == 0 && I < E.size())
      return E[I];
  }
  return nullptr;
}

std::optional<std::string> kernargSizeConflict(const KernelInfo &K) {
  auto M = K.Meta ? Metadata::getUInt(*K.Meta, ".kernarg_segment_size") : std::nullopt;
  if (!M || K.Kd.KernargSize == 0 || *M == K.Kd.KernargSize)
    return std::nullopt;
  return std::to_string(K.Kd.KernargSize) + " in the descriptor, " + std::to_string(*M) +
         " in the metadata (.kernarg_segment_size)";
}

bool producedByTriton(const CodeObject &CO) {
  // A NUL-delimited "triton" in the string sections a producer lives in.
  for (const char *Name : {".debug_str", ".debug_info"})
    if (const ElfSection *S = CO.section(Name)) {
      llvm::StringRef D = S->Data;
      if (D.starts_with(llvm::StringRef("triton\0", 7)) ||
          D.contains(llvm::StringRef("\0triton\0", 8)))
        return true;
    }
  return false;
}

llvm::Expected<KernelSignature> kernelSignature(const CodeObject &CO, const KernelInfo &K) {
  if (!K.Meta)
    return makeError("'" + CO.Path + "': kernel '" + K.Name + "' has no metadata entry");
  KernelSignature S;
  S.Symbol = K.Name;
  S.Triton = producedByTriton(CO);
  S.KernargSize =
      uint32_t(Metadata::getUInt(*K.Meta, ".kernarg_segment_size").value_or(K.Kd.KernargSize));
  S.KernargAlign = uint32_t(Metadata::getUInt(*K.Meta, ".kernarg_segment_align").value_or(8));
  const msgpack::object *Args = Metadata::get(*K.Meta, ".args");
  if (Args && Args->type == msgpack::type::ARRAY) {
    for (uint32_t I = 0; I < Args->via.array.size; ++I) {
      const msgpack::object &O = Args->via.array.ptr[I];
      KernelArg A;
      A.Name = Metadata::getString(O, ".name").value_or("");
      A.TypeName = Metadata::getString(O, ".type_name").value_or("");
      A.ValueKind = Metadata::getString(O, ".value_kind").value_or("");
      A.AddressSpace = Metadata::getString(O, ".address_space").value_or("");
      auto Off = Metadata::getUInt(O, ".offset");
      auto Size = Metadata::getUInt(O, ".size");
      if (!Off || !Size)
        return makeError("'" + CO.Path + "': kernel '" + K.Name + "' argument " +
                         std::to_string(I) + " has no .offset or .size");
      A.Offset = uint32_t(*Off);
      A.Size = uint32_t(*Size);
      if (uint64_t(A.Offset) + A.Size > S.KernargSize)
        return makeError("'" + CO.Path + "': kernel '" + K.Name + "' argument " +
                         std::to_string(I) + " (offset " + std::to_string(A.Offset) + ", size " +
                         std::to_string(A.Size) + ") lies outside the " +
                         std::to_string(S.KernargSize) + "-byte kernarg segment");
      S.Args.push_back(std::move(A));
    }
  }
  return S;
}

} // namespace asmevo
