// The capture bundle's msgpack encoding and its validation (share/asmevo/capture-bundle.md).
#include "launch/CaptureBundle.h"

#include "codeobj/Metadata.h"
#include "launch/LaunchGeometry.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <msgpack.hpp>

#include <algorithm>
#include <optional>

namespace asmevo::launch {

namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

void packStr(Packer &P, llvm::StringRef S) {
  P.pack_str(uint32_t(S.size()));
  P.pack_str_body(S.data(), uint32_t(S.size()));
}
void packBin(Packer &P, const std::vector<uint8_t> &B) {
  P.pack_bin(uint32_t(B.size()));
  P.pack_bin_body(reinterpret_cast<const char *>(B.data()), uint32_t(B.size()));
}
void packDims(Packer &P, const std::array<uint32_t, 3> &D) {
  P.pack_array(3);
  for (uint32_t V : D)
    P.pack_uint32(V);
}

// Checks that hold for a bundle in memory, whether about to be written or just read.
llvm::Error checkBundle(const CaptureBundle &B, llvm::StringRef File) {
  auto bad = [&](const llvm::Twine &Msg) {
    return withFile(makeError("not a valid capture bundle: " + Msg), File);
  };
  if (B.Kernel.empty())
    return bad("kernel: the kernel name is empty");
  if (B.CodeObject.empty())
    return bad("code_object: no bytes");
  // MessagePack's bin holds at most 2^32-1 bytes.
  if (B.CodeObject.size() > UINT32_MAX || B.Kernarg.size() > UINT32_MAX)
    return bad("code_object or kernarg: over 4 GiB");
  if (auto G = launchGridItems({B.GridWorkgroups[0], B.GridWorkgroups[1], B.GridWorkgroups[2]},
                               /*InWorkgroups=*/true, B.Block);
      !G)
    return withFile(G.takeError(), File);
  for (size_t I = 0; I < B.Regions.size(); ++I) {
    const CapturedRegion &R = B.Regions[I];
    std::string Name = "regions[" + std::to_string(I) + "]";
    if (R.Pre.empty())
      return bad(Name + ": a region of 0 bytes");
    if (R.Pre.size() > UINT32_MAX)
      return bad(Name + ": over 4 GiB (split it)");
    if (R.Post.size() != R.Pre.size())
      return bad(Name + ".post: " + llvm::Twine(R.Post.size()) + " bytes, but pre has " +
                 llvm::Twine(R.Pre.size()));
    if (R.Base + R.size() < R.Base)
      return bad(Name + ": " + llvm::Twine(R.size()) + " bytes at " + hexText(R.Base) +
                 " wrap the address space");
    if (I && B.Regions[I - 1].Base + B.Regions[I - 1].size() > R.Base)
      return bad(Name + " at " + hexText(R.Base) + " overlaps or precedes regions[" +
                 llvm::Twine(I - 1) + "] at " + hexText(B.Regions[I - 1].Base) +
                 " (regions are sorted by base and disjoint)");
  }
  for (size_t I = 0; I < B.Globals.size(); ++I) {
    const CapturedGlobal &G = B.Globals[I];
    std::string Name = "globals[" + std::to_string(I) + "]";
    if (G.Name.empty())
      return bad(Name + ".name: empty");
    if (G.Pre.size() > UINT32_MAX)
      return bad(Name + ": over 4 GiB");
    if (G.Post.size() != G.Pre.size())
      return bad(Name + ".post: " + llvm::Twine(G.Post.size()) + " bytes, but pre has " +
                 llvm::Twine(G.Pre.size()));
    for (size_t J = 0; J < I; ++J)
      if (B.Globals[J].Name == G.Name)
        return bad(Name + ": '" + G.Name + "' appears twice");
  }
  return llvm::Error::success();
}

// A field reader over one msgpack map that names what is wrong by its path.
class Fields {
public:
  Fields(const msgpack::object &Map, std::string Path) : Map(Map), Path(std::move(Path)) {}

  const msgpack::object *find(llvm::StringRef Key) const { return Metadata::get(Map, Key); }
  std::string path(llvm::StringRef Key) const {
    return Path.empty() ? Key.str() : Path + "." + Key.str();
  }
  llvm::Expected<const msgpack::object *> need(llvm::StringRef Key, msgpack::type::object_type T,
                                               const char *What) const {
    const msgpack::object *O = find(Key);
    if (!O)
      return makeError("field " + path(Key) + " is missing");
    if (O->type != T &&
        !(T == msgpack::type::POSITIVE_INTEGER && O->type == msgpack::type::NEGATIVE_INTEGER))
      return makeError("field " + path(Key) + " is not " + What);
    return O;
  }
  llvm::Expected<std::string> str(llvm::StringRef Key) const {
    auto O = need(Key, msgpack::type::STR, "a string");
    if (!O)
      return O.takeError();
    return std::string((*O)->via.str.ptr, (*O)->via.str.size);
  }
  llvm::Expected<std::vector<uint8_t>> bin(llvm::StringRef Key) const {
    auto O = need(Key, msgpack::type::BIN, "binary bytes");
    if (!O)
      return O.takeError();
    const auto *P = reinterpret_cast<const uint8_t *>((*O)->via.bin.ptr);
    return std::vector<uint8_t>(P, P + (*O)->via.bin.size);
  }
  llvm::Expected<uint64_t> uint(llvm::StringRef Key, uint64_t Max = UINT64_MAX) const {
    auto O = need(Key, msgpack::type::POSITIVE_INTEGER, "an unsigned integer");
    if (!O)
      return O.takeError();
    if ((*O)->type == msgpack::type::NEGATIVE_INTEGER || (*O)->via.u64 > Max)
      return makeError("field " + path(Key) + " is out of range (0 to " + llvm::Twine(Max) + ")");
    return (*O)->via.u64;
  }
  llvm::Expected<std::array<uint32_t, 3>> dims(llvm::StringRef Key) const {
    auto O = need(Key, msgpack::type::ARRAY, "an array");
    if (!O)
      return O.takeError();
    const auto &A = (*O)->via.array;
    if (A.size != 3)
      return makeError("field " + path(Key) + " has " + llvm::Twine(A.size) +
                       " elements, not 3 (x, y, z)");
    std::array<uint32_t, 3> D{};
    for (unsigned I = 0; I < 3; ++I) {
      if (A.ptr[I].type != msgpack::type::POSITIVE_INTEGER || A.ptr[I].via.u64 == 0 ||
          A.ptr[I].via.u64 > UINT32_MAX)
        return makeError("field " + path(Key) + "[" + llvm::Twine(I) +
                         "] is not an integer from 1 to 4294967295");
      D[I] = uint32_t(A.ptr[I].via.u64);
    }
    return D;
  }

  // Each element of the array Key, which must be a map, as Fields named by its path
  // ("regions[2]").
  llvm::Error eachMap(llvm::StringRef Key,
                      llvm::function_ref<llvm::Error(const Fields &)> Each) const {
    auto O = need(Key, msgpack::type::ARRAY, "an array");
    if (!O)
      return O.takeError();
    const auto &A = (*O)->via.array;
    for (uint32_t I = 0; I < A.size; ++I) {
      std::string P = path(Key) + "[" + std::to_string(I) + "]";
      if (A.ptr[I].type != msgpack::type::MAP)
        return makeError("field " + P + " is not a map");
      if (llvm::Error E = Each(Fields(A.ptr[I], P)))
        return E;
    }
    return llvm::Error::success();
  }

private:
  const msgpack::object &Map;
  std::string Path;
};

llvm::Expected<CaptureBundle> fromObject(const msgpack::object &Root) {
  if (Root.type != msgpack::type::MAP)
    return makeError("not a capture bundle: the document is not a MessagePack map");
  Fields F(Root, "");
  const msgpack::object *Fmt = F.find("format");
  if (!Fmt || Fmt->type != msgpack::type::STR ||
      llvm::StringRef(Fmt->via.str.ptr, Fmt->via.str.size) != kCaptureFormat)
    return makeError(llvm::Twine("not a capture bundle: no \"format\": \"") + kCaptureFormat +
                     "\" field");
  auto Version = F.uint("format_version");
  if (!Version)
    return Version.takeError();
  if (*Version != kCaptureFormatVersion)
    return makeError("capture bundle format_version " + llvm::Twine(*Version) +
                     " is not supported (this tool reads version " +
                     llvm::Twine(kCaptureFormatVersion) + ")");
  CaptureBundle B;
  auto take = [](auto &Into, auto V) -> llvm::Error {
    if (!V)
      return V.takeError();
    Into = std::move(*V);
    return llvm::Error::success();
  };
  // A region's or global's bytes before and after the dispatch.
  auto takePrePost = [&](const Fields &M, std::vector<uint8_t> &Pre,
                         std::vector<uint8_t> &Post) -> llvm::Error {
    if (auto E = take(Pre, M.bin("pre")))
      return E;
    return take(Post, M.bin("post"));
  };
  if (auto E = take(B.Runtime, F.str("runtime")))
    return std::move(E);
  if (auto E = take(B.Device, F.str("device")))
    return std::move(E);
  if (auto E = take(B.CodeObject, F.bin("code_object")))
    return std::move(E);
  if (auto E = take(B.Kernel, F.str("kernel")))
    return std::move(E);
  if (auto E = take(B.Nth, F.uint("nth")))
    return std::move(E);
  if (auto E = take(B.GridWorkgroups, F.dims("grid_workgroups")))
    return std::move(E);
  if (auto E = take(B.Block, F.dims("block")))
    return std::move(E);
  uint64_t Lds = 0;
  if (auto E = take(Lds, F.uint("dynamic_lds", UINT32_MAX)))
    return std::move(E);
  B.DynamicLds = uint32_t(Lds);
  if (auto E = take(B.Stream, F.uint("stream")))
    return std::move(E);
  if (auto E = take(B.Kernarg, F.bin("kernarg")))
    return std::move(E);
  if (auto E = F.eachMap("regions", [&](const Fields &R) -> llvm::Error {
        CapturedRegion C;
        if (auto E = take(C.Base, R.uint("base")))
          return E;
        if (auto E = take(C.ReachedFrom, R.str("reached_from")))
          return E;
        if (auto E = takePrePost(R, C.Pre, C.Post))
          return E;
        B.Regions.push_back(std::move(C));
        return llvm::Error::success();
      }))
    return std::move(E);
  // Optional: absent when the code object has no global variables.
  if (F.find("globals"))
    if (auto E = F.eachMap("globals", [&](const Fields &G) -> llvm::Error {
          CapturedGlobal C;
          if (auto E = take(C.Name, G.str("name")))
            return E;
          if (auto E = takePrePost(G, C.Pre, C.Post))
            return E;
          B.Globals.push_back(std::move(C));
          return llvm::Error::success();
        }))
      return std::move(E);
  return B;
}

} // namespace

const CapturedRegion *CaptureBundle::regionAt(uint64_t A) const {
  auto It = std::upper_bound(Regions.begin(), Regions.end(), A,
                             [](uint64_t V, const CapturedRegion &R) { return V < R.Base; });
  if (It == Regions.begin())
    return nullptr;
  --It;
  return It->contains(A) ? &*It : nullptr;
}

llvm::Expected<std::string> encodeCaptureBundle(const CaptureBundle &B) {
  if (auto E = checkBundle(B, ""))
    return std::move(E);
  msgpack::sbuffer Buf;
  Packer P(Buf);
  P.pack_map(14);
  packStr(P, "format");
  packStr(P, kCaptureFormat);
  packStr(P, "format_version");
  P.pack_uint32(kCaptureFormatVersion);
  packStr(P, "runtime");
  packStr(P, B.Runtime);
  packStr(P, "device");
  packStr(P, B.Device);
  packStr(P, "code_object");
  packBin(P, B.CodeObject);
  packStr(P, "kernel");
  packStr(P, B.Kernel);
  packStr(P, "nth");
  P.pack_uint64(B.Nth);
  packStr(P, "grid_workgroups");
  packDims(P, B.GridWorkgroups);
  packStr(P, "block");
  packDims(P, B.Block);
  packStr(P, "dynamic_lds");
  P.pack_uint32(B.DynamicLds);
  packStr(P, "stream");
  P.pack_uint64(B.Stream);
  packStr(P, "kernarg");
  packBin(P, B.Kernarg);
  packStr(P, "regions");
  P.pack_array(uint32_t(B.Regions.size()));
  for (const CapturedRegion &R : B.Regions) {
    P.pack_map(4);
    packStr(P, "base");
    P.pack_uint64(R.Base);
    packStr(P, "reached_from");
    packStr(P, R.ReachedFrom);
    packStr(P, "pre");
    packBin(P, R.Pre);
    packStr(P, "post");
    packBin(P, R.Post);
  }
  packStr(P, "globals");
  P.pack_array(uint32_t(B.Globals.size()));
  for (const CapturedGlobal &G : B.Globals) {
    P.pack_map(3);
    packStr(P, "name");
    packStr(P, G.Name);
    packStr(P, "pre");
    packBin(P, G.Pre);
    packStr(P, "post");
    packBin(P, G.Post);
  }
  return std::string(Buf.data(), Buf.size());
}

llvm::Expected<CaptureBundle> decodeCaptureBundle(llvm::StringRef Bytes, llvm::StringRef File) {
  msgpack::object_handle H;
  std::size_t Off = 0;
  const size_t N = Bytes.size();
  try {
    // No container can hold more elements than the file has bytes: a corrupt count must not
    // make the parser allocate gigabytes.
    msgpack::unpack(H, Bytes.data(), N, Off, nullptr, nullptr,
                    msgpack::unpack_limit(N, N, N, N, N, 16));
  } catch (const msgpack::insufficient_bytes &) {
    return fileError(File, N,
                     "truncated capture bundle: the MessagePack document ends past the file's "
                     "last byte");
  } catch (const msgpack::size_overflow &) {
    return fileError(File, N,
                     "truncated or corrupt capture bundle: a MessagePack container declares more "
                     "elements than the file's " +
                         llvm::Twine(N) + " bytes can hold");
  } catch (const std::exception &E) {
    return fileError(File, Off, llvm::Twine("corrupt capture bundle (MessagePack): ") + E.what());
  }
  if (Off != N)
    return fileError(File, Off,
                     "capture bundle has " + llvm::Twine(N - Off) +
                         " trailing bytes after its MessagePack document");
  auto B = fromObject(H.get());
  if (!B)
    return withFile(B.takeError(), File);
  if (auto E = checkBundle(*B, File))
    return std::move(E);
  return B;
}

llvm::Expected<CaptureBundle> readCaptureBundle(llvm::StringRef Path) {
  auto Buf = readFile(Path);
  if (!Buf)
    return Buf.takeError();
  return decodeCaptureBundle((*Buf)->getBuffer(), Path);
}

llvm::Error writeCaptureBundle(const CaptureBundle &B, llvm::StringRef Path) {
  auto Bytes = encodeCaptureBundle(B);
  if (!Bytes)
    return withFile(Bytes.takeError(), Path);
  return writeFileAtomic(Path, *Bytes, llvm::sys::fs::owner_read | llvm::sys::fs::owner_write);
}

} // namespace asmevo::launch
