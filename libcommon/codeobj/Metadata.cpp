// AMDGPU metadata: msgpack-c parsing, semantic comparison and YAML rendering.
#include "codeobj/Metadata.h"
#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace asmevo {

llvm::Expected<Metadata> Metadata::parse(llvm::StringRef Bytes) {
  Metadata M;
  try {
    std::size_t Off = 0;
    auto H = std::make_shared<msgpack::object_handle>();
    // No container can hold more elements than the note has bytes: a corrupt count must not
    // make the parser allocate gigabytes.
    size_t N = Bytes.size();
    msgpack::unpack(*H, Bytes.data(), N, Off, nullptr, nullptr,
                    msgpack::unpack_limit(N, N, N, N, N, 64));
    if (Off != Bytes.size())
      return makeError("metadata note has " + llvm::Twine(Bytes.size() - Off) +
                       " trailing bytes after the MessagePack document");
    if (H->get().type != msgpack::type::MAP)
      return makeError("metadata note is not a MessagePack map");
    M.Handle = std::move(H);
  } catch (const std::exception &E) {
    return makeError(llvm::Twine("corrupt metadata note (MessagePack): ") + E.what());
  }
  return M;
}

std::string Metadata::encode() const {
  msgpack::sbuffer Buf;
  msgpack::pack(Buf, root());
  return std::string(Buf.data(), Buf.size());
}

const msgpack::object *Metadata::get(const msgpack::object &Map, llvm::StringRef Key) {
  if (Map.type != msgpack::type::MAP)
    return nullptr;
  for (uint32_t I = 0; I < Map.via.map.size; ++I) {
    const auto &KV = Map.via.map.ptr[I];
    if (KV.key.type == msgpack::type::STR &&
        llvm::StringRef(KV.key.via.str.ptr, KV.key.via.str.size) == Key)
      return &KV.val;
  }
  return nullptr;
}

std::optional<std::string> Metadata::getString(const msgpack::object &Map, llvm::StringRef Key) {
  const auto *O = get(Map, Key);
  if (!O || O->type != msgpack::type::STR)
    return std::nullopt;
  return std::string(O->via.str.ptr, O->via.str.size);
}

std::optional<uint64_t> Metadata::getUInt(const msgpack::object &Map, llvm::StringRef Key) {
  const auto *O = get(Map, Key);
  if (!O)
    return std::nullopt;
  if (O->type == msgpack::type::POSITIVE_INTEGER)
    return O->via.u64;
  if (O->type == msgpack::type::NEGATIVE_INTEGER && O->via.i64 >= 0)
    return uint64_t(O->via.i64);
  return std::nullopt;
}

std::vector<const msgpack::object *> Metadata::kernels() const {
  std::vector<const msgpack::object *> R;
  const auto *K = get(root(), "amdhsa.kernels");
  if (K && K->type == msgpack::type::ARRAY)
    for (uint32_t I = 0; I < K->via.array.size; ++I)
      R.push_back(&K->via.array.ptr[I]);
  return R;
}

const msgpack::object *Metadata::kernelBySymbol(llvm::StringRef Symbol) const {
  for (const auto *K : kernels())
    if (getString(*K, ".symbol") == Symbol.str())
      return K;
  return nullptr;
}

std::optional<uint64_t> Metadata::setKernelUInt(llvm::StringRef Symbol, llvm::StringRef Key,
                                                uint64_t V) {
  const msgpack::object *K = kernelBySymbol(Symbol);
  if (!K)
    return std::nullopt;
  auto Old = getUInt(*K, Key);
  if (!Old)
    return std::nullopt;
  // The document lives in this object's zone; its values are plain data that can be updated.
  auto *O = const_cast<msgpack::object *>(get(*K, Key));
  O->type = msgpack::type::POSITIVE_INTEGER;
  O->via.u64 = V;
  return Old;
}

namespace {

bool isInt(const msgpack::object &O) {
  return O.type == msgpack::type::POSITIVE_INTEGER || O.type == msgpack::type::NEGATIVE_INTEGER;
}

bool isFloat(const msgpack::object &O) {
  return O.type == msgpack::type::FLOAT32 || O.type == msgpack::type::FLOAT64;
}

std::string keyString(const msgpack::object &K) {
  if (K.type == msgpack::type::STR)
    return std::string(K.via.str.ptr, K.via.str.size);
  return metadataValueString(K);
}

std::string diff(const msgpack::object &A, const msgpack::object &B, const std::string &Path) {
  auto Here = [&](const std::string &What) {
    return (Path.empty() ? std::string("<root>") : Path) + ": " + What;
  };
  if (isInt(A) && isInt(B)) {
    bool NegA = A.type == msgpack::type::NEGATIVE_INTEGER && A.via.i64 < 0;
    bool NegB = B.type == msgpack::type::NEGATIVE_INTEGER && B.via.i64 < 0;
    if (NegA != NegB || A.via.u64 != B.via.u64)
      return Here(metadataValueString(A) + " vs " + metadataValueString(B));
    return "";
  }
  if (isFloat(A) && isFloat(B)) {
    if (!(A.via.f64 == B.via.f64) && !(std::isnan(A.via.f64) && std::isnan(B.via.f64)))
      return Here(metadataValueString(A) + " vs " + metadataValueString(B));
    return "";
  }
  if (A.type != B.type)
    return Here(metadataValueString(A) + " vs " + metadataValueString(B));
  switch (A.type) {
  case msgpack::type::NIL:
    return "";
  case msgpack::type::BOOLEAN:
    return A.via.boolean == B.via.boolean
               ? ""
               : Here(metadataValueString(A) + " vs " + metadataValueString(B));
  case msgpack::type::STR:
  case msgpack::type::BIN:
  case msgpack::type::EXT: {
    llvm::StringRef SA(A.via.str.ptr, A.via.str.size), SB(B.via.str.ptr, B.via.str.size);
    if (A.type == msgpack::type::BIN) {
      SA = llvm::StringRef(A.via.bin.ptr, A.via.bin.size);
      SB = llvm::StringRef(B.via.bin.ptr, B.via.bin.size);
    } else if (A.type == msgpack::type::EXT) {
      SA = llvm::StringRef(A.via.ext.ptr, A.via.ext.size);
      SB = llvm::StringRef(B.via.ext.ptr, B.via.ext.size);
    }
    return SA == SB ? "" : Here(metadataValueString(A) + " vs " + metadataValueString(B));
  }
  case msgpack::type::ARRAY: {
    uint32_t N = std::min(A.via.array.size, B.via.array.size);
    for (uint32_t I = 0; I < N; ++I) {
      std::string D =
          diff(A.via.array.ptr[I], B.via.array.ptr[I], Path + "[" + std::to_string(I) + "]");
      if (!D.empty())
        return D;
    }
    if (A.via.array.size != B.via.array.size)
      return Here(std::to_string(A.via.array.size) + " vs " + std::to_string(B.via.array.size) +
                  " elements");
    return "";
  }
  case msgpack::type::MAP: {
    for (uint32_t I = 0; I < A.via.map.size; ++I) {
      const auto &KV = A.via.map.ptr[I];
      std::string K = keyString(KV.key);
      std::string Sub = Path.empty() ? K : Path + (K.rfind(".", 0) == 0 ? "" : ".") + K;
      const msgpack::object *Other = nullptr;
      for (uint32_t J = 0; J < B.via.map.size; ++J)
        if (keyString(B.via.map.ptr[J].key) == K)
          Other = &B.via.map.ptr[J].val;
      if (!Other)
        return Here("key " + K + " only in the first");
      std::string D = diff(KV.val, *Other, Sub);
      if (!D.empty())
        return D;
    }
    for (uint32_t J = 0; J < B.via.map.size; ++J) {
      std::string K = keyString(B.via.map.ptr[J].key);
      bool Found = false;
      for (uint32_t I = 0; I < A.via.map.size && !Found; ++I)
        Found = keyString(A.via.map.ptr[I].key) == K;
      if (!Found)
        return Here("key " + K + " only in the second");
    }
    return "";
  }
  default:
    return "";
  }
}

// Would LLVM's YAML reader (msgpack::DocNode::fromString) read this plain scalar as something
// other than a string? Then it needs a !str tag.
bool looksNonString(llvm::StringRef S) {
  if (S == "true" || S == "false")
    return true;
  unsigned long long U;
  if (!S.getAsInteger(0, U))
    return true;
  long long I;
  if (!S.getAsInteger(0, I))
    return true;
  if (S.empty())
    return false;
  // Anything strtod accepts as a whole (numbers, inf, nan, hex floats), and YAML's .inf/.nan.
  std::string Z = S.str();
  char *End = nullptr;
  errno = 0;
  (void)std::strtod(Z.c_str(), &End);
  if (End && *End == '\0')
    return true;
  std::string L = S.lower();
  return L == ".inf" || L == "-.inf" || L == "+.inf" || L == ".nan";
}

std::string yamlQuote(llvm::StringRef S) {
  std::string Q = "'";
  for (char C : S) {
    if (C == '\'')
      Q += "''";
    else
      Q += C;
  }
  return Q + "'";
}

bool needsDoubleQuotes(llvm::StringRef S) {
  for (unsigned char C : S)
    if (C < 0x20 || C == 0x7f || C >= 0x80)
      return true;
  return false;
}

std::string yamlDoubleQuote(llvm::StringRef S) {
  std::string Q = "\"";
  for (unsigned char C : S) {
    if (C == '"' || C == '\\') {
      Q += '\\';
      Q += char(C);
    } else if (C < 0x20 || C == 0x7f || C >= 0x80) {
      char Buf[8];
      snprintf(Buf, sizeof Buf, "\\x%02x", C);
      Q += Buf;
    } else {
      Q += char(C);
    }
  }
  return Q + "\"";
}

void emitScalar(const msgpack::object &O, std::string &Out) {
  switch (O.type) {
  case msgpack::type::NIL:
    Out += "!nil ''";
    break;
  case msgpack::type::BOOLEAN:
    Out += O.via.boolean ? "true" : "false";
    break;
  case msgpack::type::POSITIVE_INTEGER:
    Out += std::to_string(O.via.u64);
    break;
  case msgpack::type::NEGATIVE_INTEGER:
    Out += std::to_string(O.via.i64);
    break;
  case msgpack::type::FLOAT32:
  case msgpack::type::FLOAT64: {
    char Buf[64];
    snprintf(Buf, sizeof Buf, "%.17g", O.via.f64);
    Out += "!float ";
    Out += Buf;
    break;
  }
  case msgpack::type::STR: {
    llvm::StringRef S(O.via.str.ptr, O.via.str.size);
    if (looksNonString(S))
      Out += "!str ";
    Out += needsDoubleQuotes(S) ? yamlDoubleQuote(S) : yamlQuote(S);
    break;
  }
  default:
    Out += "''";
    break;
  }
}

bool isContainer(const msgpack::object &O) {
  return (O.type == msgpack::type::MAP && O.via.map.size) ||
         (O.type == msgpack::type::ARRAY && O.via.array.size);
}

void emitNode(const msgpack::object &O, unsigned Indent, std::string &Out);

void emitBlock(const msgpack::object &O, unsigned Indent, std::string &Out) {
  std::string Pad(Indent, ' ');
  if (O.type == msgpack::type::MAP) {
    for (uint32_t I = 0; I < O.via.map.size; ++I) {
      const auto &KV = O.via.map.ptr[I];
      Out += Pad;
      emitScalar(KV.key, Out);
      Out += ":";
      emitNode(KV.val, Indent + 2, Out);
    }
  } else {
    for (uint32_t I = 0; I < O.via.array.size; ++I) {
      const auto &E = O.via.array.ptr[I];
      Out += Pad + "-";
      emitNode(E, Indent + 2, Out);
    }
  }
}

void emitNode(const msgpack::object &O, unsigned Indent, std::string &Out) {
  if (isContainer(O)) {
    Out += "\n";
    emitBlock(O, Indent, Out);
    return;
  }
  Out += " ";
  if (O.type == msgpack::type::MAP)
    Out += "{}";
  else if (O.type == msgpack::type::ARRAY)
    Out += "[]";
  else
    emitScalar(O, Out);
  Out += "\n";
}

} // namespace

std::string metadataValueString(const msgpack::object &O) {
  std::ostringstream OS;
  OS << O;
  return OS.str();
}

std::string metadataDifference(const msgpack::object &A, const msgpack::object &B) {
  return diff(A, B, "");
}

std::string Metadata::toYaml() const {
  std::string Out = "---\n";
  if (isContainer(root()))
    emitBlock(root(), 0, Out);
  return Out + "...\n";
}

} // namespace asmevo
