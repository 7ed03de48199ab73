// Scanning containers for AMDGPU code objects.
#include "codeobj/Container.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"
#include "support/Error.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <set>

namespace asmevo {

namespace le = llvm::support::endian;

static const llvm::StringLiteral BundleMagic = "__CLANG_OFFLOAD_BUNDLE__";

std::string EmbeddedCodeObject::uri(llvm::StringRef Path) const {
  return "file://" + Path.str() + "#offset=" + std::to_string(Offset) +
         "&size=" + std::to_string(Size);
}

// Size of an ELF image from its header: the end of the furthest of section headers, program
// headers and section contents.
static uint64_t elfImageSize(llvm::StringRef B) {
  if (B.size() < 64)
    return 0;
  uint64_t PhOff = le::read64le(B.data() + 32), ShOff = le::read64le(B.data() + 40);
  uint16_t PhEnt = le::read16le(B.data() + 54), PhNum = le::read16le(B.data() + 56);
  uint16_t ShEnt = le::read16le(B.data() + 58), ShNum = le::read16le(B.data() + 60);
  // Saturating: a corrupt header must not wrap around (the caller rejects sizes past the end).
  auto Add = [](uint64_t A, uint64_t B) { return A > UINT64_MAX - B ? UINT64_MAX : A + B; };
  uint64_t End = std::max<uint64_t>(64, Add(PhOff, uint64_t(PhEnt) * PhNum));
  End = std::max(End, Add(ShOff, uint64_t(ShEnt) * ShNum));
  if (ShEnt == 64 && ShOff <= B.size() && ShNum <= (B.size() - ShOff) / 64)
    for (unsigned I = 0; I < ShNum; ++I) {
      const char *H = B.data() + ShOff + uint64_t(I) * 64;
      if (le::read32le(H + 4) == llvm::ELF::SHT_NOBITS)
        continue;
      End = std::max(End, Add(le::read64le(H + 24), le::read64le(H + 32)));
    }
  return End;
}

static std::string processorOf(llvm::StringRef B) {
  if (!looksLikeAmdgpuElf(B))
    return "";
  return processorForMach(le::read32le(B.data() + 48) & llvm::ELF::EF_AMDGPU_MACH);
}

llvm::Expected<std::vector<EmbeddedCodeObject>> findCodeObjects(llvm::StringRef Bytes,
                                                                llvm::StringRef Path) {
  std::vector<EmbeddedCodeObject> Out;
  if (looksLikeAmdgpuElf(Bytes) && elfImageSize(Bytes) >= Bytes.size()) {
    Out.push_back({0, Bytes.size(), "", processorOf(Bytes)});
    return Out;
  }
  if (Bytes.starts_with("CCOB"))
    return fileError(Path, 0, "compressed offload bundles are not supported");
  std::set<uint64_t> Seen;
  // Offload bundles anywhere in the file (a .hip_fatbin section holds many, back to back).
  size_t Pos = 0;
  while ((Pos = Bytes.find(BundleMagic, Pos)) != llvm::StringRef::npos) {
    uint64_t Base = Pos;
    uint64_t P = Base + BundleMagic.size();
    Pos = P;
    if (P + 8 > Bytes.size())
      break;
    uint64_t N = le::read64le(Bytes.data() + P);
    P += 8;
    if (N == 0 || N > 4096)
      continue; // the magic string itself appearing in a string table, not a bundle
    for (uint64_t I = 0; I < N; ++I) {
      if (P + 24 > Bytes.size())
        return fileError(Path, P, "truncated offload bundle entry");
      uint64_t Off = le::read64le(Bytes.data() + P), Size = le::read64le(Bytes.data() + P + 8),
               TLen = le::read64le(Bytes.data() + P + 16);
      P += 24;
      if (TLen > 4096 || P + TLen > Bytes.size())
        return fileError(Path, P - 8, "bad offload bundle entry id length");
      std::string Triple = Bytes.substr(P, TLen).str();
      P += TLen;
      if (Off > Bytes.size() - Base || Size > Bytes.size() - (Base + Off))
        return fileError(Path, P - TLen - 24,
                         "offload bundle entry " + Triple + " extends past the end of the file");
      llvm::StringRef Img = Bytes.substr(Base + Off, Size);
      if (Size && looksLikeAmdgpuElf(Img) && Seen.insert(Base + Off).second)
        Out.push_back({Base + Off, Size, Triple, processorOf(Img)});
    }
  }
  // Plain AMDGPU ELF images embedded elsewhere (e.g. in .rodata).
  Pos = 0;
  while ((Pos = Bytes.find("\x7f"
                           "ELF",
                           Pos)) != llvm::StringRef::npos) {
    llvm::StringRef Rest = Bytes.substr(Pos);
    if (looksLikeAmdgpuElf(Rest) && !Seen.count(Pos)) {
      bool Inside = false;
      for (const auto &E : Out)
        if (Pos >= E.Offset && Pos < E.Offset + E.Size)
          Inside = true;
      uint64_t Size = elfImageSize(Rest);
      if (!Inside && Size && Size <= Rest.size()) {
        Seen.insert(Pos);
        Out.push_back({Pos, Size, "", processorOf(Rest)});
      }
    }
    ++Pos;
  }
  std::sort(Out.begin(), Out.end(), [](const EmbeddedCodeObject &A, const EmbeddedCodeObject &B) {
    return A.Offset < B.Offset;
  });
  return Out;
}

llvm::Expected<uint64_t> imageSizeInMemory(const char *P, llvm::StringRef Where) {
  // Bounds on what a header may claim, so that a corrupt one is refused before it is read
  // further: 4 GiB for an image, 4096 bundle entries of ids of at most 4096 bytes.
  constexpr uint64_t MaxImage = 1ull << 32;
  if (!P)
    return makeError(Where + ": null code object pointer");
  if (llvm::StringRef(P, 4).starts_with("CCOB"))
    return makeError(Where + ": compressed offload bundles are not supported");
  if (llvm::StringRef(P, BundleMagic.size()) == BundleMagic) {
    uint64_t N = le::read64le(P + BundleMagic.size());
    if (N == 0 || N > 4096)
      return makeError(Where + ": offload bundle with " + std::to_string(N) + " entries");
    uint64_t Pos = BundleMagic.size() + 8, End = 0;
    for (uint64_t I = 0; I < N; ++I) {
      uint64_t Off = le::read64le(P + Pos), Size = le::read64le(P + Pos + 8),
               TLen = le::read64le(P + Pos + 16);
      if (TLen > 4096 || Off > MaxImage || Size > MaxImage)
        return makeError(Where + ": offload bundle entry " + std::to_string(I) + " at offset " +
                         std::to_string(Pos) + " is corrupt");
      Pos += 24 + TLen;
      End = std::max(End, Off + Size);
    }
    return std::max(End, Pos);
  }
  // The ELF header first (64 bytes), then its section table, whose extent the header gives.
  if (!looksLikeAmdgpuElf(llvm::StringRef(P, 64)))
    return makeError(Where + ": not an AMDGPU code object or an offload bundle");
  uint64_t ShOff = le::read64le(P + 40);
  uint16_t ShEnt = le::read16le(P + 58), ShNum = le::read16le(P + 60);
  uint64_t PhOff = le::read64le(P + 32);
  uint16_t PhEnt = le::read16le(P + 54), PhNum = le::read16le(P + 56);
  if (ShOff > MaxImage || PhOff > MaxImage || (ShNum && ShEnt != 64) || (PhNum && PhEnt != 56))
    return makeError(Where + ": ELF header with an implausible section or program table");
  uint64_t Headers =
      std::max({uint64_t(64), ShOff + uint64_t(ShEnt) * ShNum, PhOff + uint64_t(PhEnt) * PhNum});
  uint64_t Size = elfImageSize(llvm::StringRef(P, Headers));
  if (Size > MaxImage)
    return makeError(Where + ": ELF section table claims more than 4 GiB");
  return Size;
}

llvm::Expected<bool> parseCodeObjectUri(llvm::StringRef Spec, CodeObjectUri &Out) {
  if (!Spec.consume_front("file://"))
    return false;
  auto [Path, Frag] = Spec.split('#');
  Out = CodeObjectUri();
  Out.Path = Path.str();
  if (Out.Path.empty())
    return makeError("code object URI has no path");
  while (!Frag.empty()) {
    auto [Item, Rest] = Frag.split('&');
    Frag = Rest;
    auto [Key, Val] = Item.split('=');
    uint64_t V;
    if (Val.getAsInteger(0, V))
      return makeError("bad number '" + Val + "' in code object URI");
    if (Key == "offset")
      Out.Offset = V;
    else if (Key == "size")
      Out.Size = V;
    else
      return makeError("unknown key '" + Key + "' in code object URI");
  }
  return true;
}

} // namespace asmevo
