#include "check/K0RunCache.h"

#include "support/FileIO.h"

#include "llvm/Support/FileSystem.h"

#include <msgpack.hpp>

#include <cstring>

namespace asmevo::check {

namespace {

constexpr const char *kFormat = "asmevo-k0-run";
constexpr uint64_t kVersion = 1;

using Packer = msgpack::packer<msgpack::sbuffer>;

void packStr(Packer &P, llvm::StringRef S) {
  P.pack_str(uint32_t(S.size()));
  P.pack_str_body(S.data(), uint32_t(S.size()));
}

bool isStr(const msgpack::object &O, std::string &Out) {
  if (O.type != msgpack::type::STR)
    return false;
  Out.assign(O.via.str.ptr, O.via.str.size);
  return true;
}

bool isU64(const msgpack::object &O, uint64_t &Out) {
  if (O.type != msgpack::type::POSITIVE_INTEGER)
    return false;
  Out = O.via.u64;
  return true;
}

} // namespace

std::string encodeK0Run(const std::string &Key, const RunOut &R) {
  msgpack::sbuffer B;
  Packer P(B);
  P.pack_map(9);
  packStr(P, "format");
  packStr(P, kFormat);
  packStr(P, "format_version");
  P.pack_uint64(kVersion);
  packStr(P, "key");
  packStr(P, Key);
  packStr(P, "alloc");
  P.pack_array(uint32_t(R.Alloc.size()));
  for (const std::vector<uint8_t> &A : R.Alloc) {
    P.pack_bin(uint32_t(A.size()));
    P.pack_bin_body(reinterpret_cast<const char *>(A.data()), uint32_t(A.size()));
  }
  packStr(P, "wave_instructions");
  P.pack_uint64(R.WaveInstructions);
  packStr(P, "seconds");
  P.pack_double(R.Seconds);
  packStr(P, "checked");
  P.pack(R.Checked);
  packStr(P, "findings");
  P.pack_array(uint32_t(R.Findings.size() + 1));
  P.pack_uint64(R.FindingsTotal);
  for (const device::UnsafeFinding &F : R.Findings) {
    P.pack_array(4);
    packStr(P, F.Rule);
    P.pack_uint64(F.Offset);
    P.pack_array(uint32_t(F.Instructions.size()));
    for (const std::string &I : F.Instructions)
      packStr(P, I);
    packStr(P, F.Message);
  }
  packStr(P, "touched");
  P.pack_array(uint32_t(R.Touched.size()));
  for (const auto &T : R.Touched) {
    if (!T) {
      P.pack_nil();
      continue;
    }
    P.pack_array(2);
    P.pack_uint64(T->first);
    P.pack_uint64(T->second);
  }
  return std::string(B.data(), B.size());
}

std::optional<RunOut> decodeK0Run(llvm::StringRef Bytes, const std::string &Key) {
  msgpack::object_handle H;
  try {
    size_t Off = 0, N = Bytes.size();
    msgpack::unpack(H, Bytes.data(), N, Off, nullptr, nullptr,
                    msgpack::unpack_limit(N, N, N, N, N, 8));
    if (Off != N)
      return std::nullopt;
  } catch (const std::exception &) {
    return std::nullopt;
  }
  const msgpack::object &Root = H.get();
  if (Root.type != msgpack::type::MAP)
    return std::nullopt;
  std::map<std::string, const msgpack::object *> F;
  for (uint32_t I = 0; I < Root.via.map.size; ++I) {
    std::string K;
    if (!isStr(Root.via.map.ptr[I].key, K))
      return std::nullopt;
    F[K] = &Root.via.map.ptr[I].val;
  }
  for (const char *K : {"format", "format_version", "key", "alloc", "wave_instructions", "seconds",
                        "checked", "findings", "touched"})
    if (!F.count(K))
      return std::nullopt;
  std::string S;
  uint64_t U = 0;
  if (!isStr(*F["format"], S) || S != kFormat || !isU64(*F["format_version"], U) || U != kVersion ||
      !isStr(*F["key"], S) || S != Key)
    return std::nullopt;
  RunOut R;
  const msgpack::object &A = *F["alloc"];
  if (A.type != msgpack::type::ARRAY)
    return std::nullopt;
  for (uint32_t I = 0; I < A.via.array.size; ++I) {
    const msgpack::object &X = A.via.array.ptr[I];
    if (X.type != msgpack::type::BIN)
      return std::nullopt;
    R.Alloc.emplace_back(reinterpret_cast<const uint8_t *>(X.via.bin.ptr),
                         reinterpret_cast<const uint8_t *>(X.via.bin.ptr) + X.via.bin.size);
  }
  if (!isU64(*F["wave_instructions"], R.WaveInstructions))
    return std::nullopt;
  const msgpack::object &Sec = *F["seconds"];
  if (Sec.type != msgpack::type::FLOAT64 && Sec.type != msgpack::type::FLOAT32)
    return std::nullopt;
  R.Seconds = Sec.via.f64;
  if (F["checked"]->type != msgpack::type::BOOLEAN)
    return std::nullopt;
  R.Checked = F["checked"]->via.boolean;
  const msgpack::object &Fs = *F["findings"];
  if (Fs.type != msgpack::type::ARRAY || Fs.via.array.size == 0 ||
      !isU64(Fs.via.array.ptr[0], R.FindingsTotal))
    return std::nullopt;
  for (uint32_t I = 1; I < Fs.via.array.size; ++I) {
    const msgpack::object &X = Fs.via.array.ptr[I];
    if (X.type != msgpack::type::ARRAY || X.via.array.size != 4)
      return std::nullopt;
    device::UnsafeFinding UF;
    const msgpack::object &Ins = X.via.array.ptr[2];
    if (!isStr(X.via.array.ptr[0], UF.Rule) || !isU64(X.via.array.ptr[1], UF.Offset) ||
        Ins.type != msgpack::type::ARRAY || !isStr(X.via.array.ptr[3], UF.Message))
      return std::nullopt;
    for (uint32_t J = 0; J < Ins.via.array.size; ++J) {
      std::string M;
      if (!isStr(Ins.via.array.ptr[J], M))
        return std::nullopt;
      UF.Instructions.push_back(M);
    }
    R.Findings.push_back(std::move(UF));
  }
  const msgpack::object &T = *F["touched"];
  if (T.type != msgpack::type::ARRAY || T.via.array.size != R.Alloc.size())
    return std::nullopt;
  for (uint32_t I = 0; I < T.via.array.size; ++I) {
    const msgpack::object &X = T.via.array.ptr[I];
    if (X.type == msgpack::type::NIL) {
      R.Touched.push_back(std::nullopt);
      continue;
    }
    uint64_t Lo = 0, Hi = 0;
    if (X.type != msgpack::type::ARRAY || X.via.array.size != 2 || !isU64(X.via.array.ptr[0], Lo) ||
        !isU64(X.via.array.ptr[1], Hi))
      return std::nullopt;
    R.Touched.push_back(std::pair(Lo, Hi));
  }
  return R;
}

std::string K0RunCache::path(const std::string &Key, const char *Ext) const {
  return Dir + "/" + sha256Hex(Key) + Ext;
}

std::optional<std::string> K0RunCache::stored(const std::string &Key, const char *Ext) const {
  if (Dir.empty())
    return std::nullopt;
  auto Bytes = readFile(path(Key, Ext));
  if (!Bytes) {
    llvm::consumeError(Bytes.takeError());
    return std::nullopt;
  }
  return (*Bytes)->getBuffer().str();
}

void K0RunCache::store(const std::string &Key, const char *Ext, const std::string &Data) const {
  // The store is a saving, not a result: what cannot be written (a full disk) is run again by
  // the next process that needs it.
  if (!Dir.empty() && !ReadOnly && !llvm::sys::fs::create_directories(Dir))
    llvm::consumeError(writeFileAtomic(path(Key, Ext), Data));
}

std::shared_ptr<const RunOut> K0RunCache::find(const std::string &Key) {
  std::lock_guard<std::mutex> G(M);
  auto It = Runs.find(Key);
  if (It != Runs.end()) {
    ++Hits;
    return It->second;
  }
  auto Bytes = stored(Key, ".k0run");
  auto R = Bytes ? decodeK0Run(*Bytes, Key) : std::nullopt;
  if (!R)
    return nullptr;
  ++Hits;
  auto P = std::make_shared<const RunOut>(std::move(*R));
  Runs.emplace(Key, P);
  return P;
}

void K0RunCache::add(const std::string &Key, std::shared_ptr<const RunOut> R) {
  std::lock_guard<std::mutex> G(M);
  ++Misses;
  store(Key, ".k0run", encodeK0Run(Key, *R));
  Runs.emplace(Key, std::move(R));
}

std::optional<std::string> K0RunCache::skipped(const std::string &Key) {
  std::lock_guard<std::mutex> G(M);
  auto It = Skips.find(Key);
  if (It != Skips.end()) {
    ++Hits;
    return It->second;
  }
  auto Bytes = stored(Key, ".skip");
  if (!Bytes)
    return std::nullopt;
  // The key, a newline, then why.
  auto [K, Why] = llvm::StringRef(*Bytes).split('\n');
  if (K != Key || Why.empty())
    return std::nullopt;
  ++Hits;
  Skips.emplace(Key, Why.str());
  return Why.str();
}

void K0RunCache::addSkip(const std::string &Key, const std::string &Why) {
  std::lock_guard<std::mutex> G(M);
  if (Key.find('\n') == std::string::npos)
    store(Key, ".skip", Key + "\n" + Why);
  Skips.emplace(Key, Why);
}

std::pair<uint64_t, uint64_t> K0RunCache::counts() const {
  std::lock_guard<std::mutex> G(M);
  return {Hits, Misses};
}

} // namespace asmevo::check
