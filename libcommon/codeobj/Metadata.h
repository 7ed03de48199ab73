// The AMDGPU metadata note (NT_AMDGPU_METADATA, MessagePack): read and written with msgpack-c,
// compared semantically, and printed as the YAML that LLVM's `.amdgpu_metadata` directive reads.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <msgpack.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

class Metadata {
public:
  // Parse a MessagePack document. Errors describe what is wrong (the caller adds file/offset).
  static llvm::Expected<Metadata> parse(llvm::StringRef Bytes);

  const msgpack::object &root() const { return Handle->get(); }
  // MessagePack bytes of the document as msgpack-c writes it.
  std::string encode() const;
  // YAML as accepted by LLVM's `.amdgpu_metadata` (tags where the scalar would be misread).
  std::string toYaml() const;

  // amdhsa.kernels entries.
  std::vector<const msgpack::object *> kernels() const;
  // Lookup of a key in a map object (nullptr if absent or not a map).
  static const msgpack::object *get(const msgpack::object &Map, llvm::StringRef Key);
  static std::optional<std::string> getString(const msgpack::object &Map, llvm::StringRef Key);
  static std::optional<uint64_t> getUInt(const msgpack::object &Map, llvm::StringRef Key);
  // The kernel entry whose .symbol is Symbol (or whose .name is Name).
  const msgpack::object *kernelBySymbol(llvm::StringRef Symbol) const;
  // Set an existing unsigned-integer key of the kernel entry for Symbol. Returns the old value,
  // or nothing if the kernel or the key does not exist.
  std::optional<uint64_t> setKernelUInt(llvm::StringRef Symbol, llvm::StringRef Key, uint64_t V);

private:
  std::shared_ptr<msgpack::object_handle> Handle;
};

// Semantic comparison: maps by key regardless of order, integers by value regardless of their
// MessagePack width or signedness. Returns the path of the first difference ("" if equal), e.g.
// "amdhsa.kernels[0].vgpr_count: 6 vs 8".
std::string metadataDifference(const msgpack::object &A, const msgpack::object &B);

// Render a scalar or container briefly for messages.
std::string metadataValueString(const msgpack::object &O);

} // namespace asmevo
